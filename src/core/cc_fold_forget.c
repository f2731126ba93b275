/*
 * cc_fold_forget.c
 *	  Forgetting retired writers whose folds are finished, and stripping
 *	  them from values: one writer or many at once (cc_fold.h).
 */
#include "cc_fold_internal.h"

#include <stdlib.h>

/* Why a forget of a writer is refused, by its own shard and records alone. */
typedef enum cc_forget_why
{
	CC_FORGET_OK = 0,
	CC_FORGET_SHARD,			/* a shard and no record */
	CC_FORGET_UNFINISHED,		/* a shard or a count outstanding */
	CC_FORGET_HOLDS				/* a record of another retired writer into it */
} cc_forget_why;

static cc_forget_why
cc_forget_own(const cc_folded *s, const uint8_t *a, size_t lo, size_t end)
{
	bool		present;
	int64_t		wraps,
				low;

	if (lo == end)
	{
		size_t		pos;

		return cc_fold_find_shard(s->shards, s->n, a, &pos) ? CC_FORGET_SHARD
			: CC_FORGET_OK;
	}
	cc_fold_outstanding(s, a, &present, &wraps, &low);
	return (present || wraps != 0 || low != 0) ? CC_FORGET_UNFINISHED
		: CC_FORGET_OK;
}

static cc_code
cc_forget_fail(cc_error *err, cc_forget_why why, const uint8_t *a)
{
	char		name[CC_UUID_TEXT_LEN + 1];

	cc_uuid_format(a, name);
	switch (why)
	{
		case CC_FORGET_SHARD:
			return cc_fail(err, CC_ERR_ARGUMENT,
						   "Writer %s still has a shard in this counter and no fold record: its fold is not finished or never ran.",
						   name);
		case CC_FORGET_UNFINISHED:
			return cc_fail(err, CC_ERR_ARGUMENT,
						   "The fold of writer %s is not finished in this counter.",
						   name);
		default:
			return cc_fail(err, CC_ERR_ARGUMENT,
						   "Writer %s still holds the fold of another retired writer.",
						   name);
	}
}

cc_code
cc_fold_forget(const cc_folded *s, const uint8_t *a,
			   unsigned char *out, size_t *nout,
			   unsigned char *fout, size_t *nfout,
			   bool *changed, cc_error *err)
{
	size_t		end,
				lo = cc_fold_range(s->folds, s->nf, a, &end);
	cc_forget_why why = cc_forget_own(s, a, lo, end);

	*changed = false;
	if (why != CC_FORGET_OK)
		return cc_forget_fail(err, why, a);
	if (lo == end)
		return CC_OK;
	for (size_t i = 0; i < s->nf; i++)
	{
		if (cc_id_eq(s->folds + i * CC_FOLD_SIZE + CC_ID_LEN, a))
			return cc_forget_fail(err, CC_FORGET_HOLDS, a);
	}
	memcpy(out, s->shards, s->n * CC_SHARD_SIZE);
	*nout = s->n;
	memcpy(fout, s->folds, lo * CC_FOLD_SIZE);
	memcpy(fout + lo * CC_FOLD_SIZE, s->folds + end * CC_FOLD_SIZE,
		   (s->nf - end) * CC_FOLD_SIZE);
	*nfout = s->nf - (end - lo);
	*changed = true;
	return CC_OK;
}

static int
cc_fold_slot_cmp(const void *a, const void *b)
{
	const cc_fold_slot *x = a,
			   *y = b;
	int			c = cc_id_cmp(x->id, y->id);

	if (c != 0)
		return c;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The slot of id among the k distinct slots, or NULL. */
static cc_fold_slot *
cc_fold_slot_find(cc_fold_slot *slots, size_t k, const uint8_t *id)
{
	size_t		i = cc_id_lower_bound((const unsigned char *) slots, k,
									  sizeof(cc_fold_slot), id);

	return (i < k && cc_id_eq(slots[i].id, id)) ? &slots[i] : NULL;
}

/*
 * The set U of the ids: each id's slot, sorted and distinct, knows its own
 * refusal (cc_forget_own()); then a writer is stuck when it is refused,
 * when a writer outside U holds a record into it, or when a stuck writer
 * does (its records stay): a propagation along the records from the stuck
 * ones, each record looked at once or twice.
 */
cc_code
cc_fold_forget_many(const cc_folded *s, const uint8_t *ids, size_t count,
					void *work, unsigned char *out, size_t *nout,
					unsigned char *fout, size_t *nfout, bool *changed,
					cc_error *err)
{
	cc_fold_slot *slots = work;
	size_t	   *queue = (size_t *) (slots + (count > 0 ? count : 1));
	size_t		k = 0,
				head = 0,
				tail = 0,
				nf = 0;
	const cc_fold_slot *first = NULL;

	*changed = false;
	for (size_t i = 0; i < count; i++)
	{
		memcpy(slots[i].id, ids + i * CC_ID_LEN, CC_ID_LEN);
		slots[i].pos = i;
	}
	qsort(slots, count, sizeof(cc_fold_slot), cc_fold_slot_cmp);
	for (size_t i = 0; i < count; i++)
	{
		if (k > 0 && cc_id_eq(slots[k - 1].id, slots[i].id))
			continue;			/* the first place of each id is kept */
		slots[k] = slots[i];
		slots[k].lo = cc_fold_range(s->folds, s->nf, slots[k].id, &slots[k].end);
		slots[k].why = cc_forget_own(s, slots[k].id, slots[k].lo, slots[k].end);
		slots[k].stuck = slots[k].why != CC_FORGET_OK;
		k++;
	}

	/* stuck by a record from outside U */
	for (size_t i = 0; i < s->nf; i++)
	{
		const unsigned char *p = s->folds + i * CC_FOLD_SIZE;
		cc_fold_slot *t = cc_fold_slot_find(slots, k, p + CC_ID_LEN);

		if (t != NULL && !t->stuck && cc_fold_slot_find(slots, k, p) == NULL)
		{
			t->stuck = true;
			t->why = CC_FORGET_HOLDS;
		}
	}
	for (size_t i = 0; i < k; i++)
		if (slots[i].stuck)
			queue[tail++] = i;
	/* stuck by a record from a stuck writer of U */
	while (head < tail)
	{
		const cc_fold_slot *x = &slots[queue[head++]];

		for (size_t r = x->lo; r < x->end; r++)
		{
			cc_fold_slot *t = cc_fold_slot_find(slots, k,
												s->folds + r * CC_FOLD_SIZE + CC_ID_LEN);

			if (t != NULL && !t->stuck)
			{
				t->stuck = true;
				t->why = CC_FORGET_HOLDS;
				queue[tail++] = (size_t) (t - slots);
			}
		}
	}
	for (size_t i = 0; i < k; i++)
		if (slots[i].stuck && (first == NULL || slots[i].pos < first->pos))
			first = &slots[i];
	if (first != NULL)
		return cc_forget_fail(err, first->why, first->id);

	for (size_t i = 0; i < s->nf; i++)
	{
		const unsigned char *p = s->folds + i * CC_FOLD_SIZE;

		if (cc_fold_slot_find(slots, k, p) == NULL)
			memcpy(fout + nf++ * CC_FOLD_SIZE, p, CC_FOLD_SIZE);
	}
	if (nf == s->nf)
		return CC_OK;
	memcpy(out, s->shards, s->n * CC_SHARD_SIZE);
	*nout = s->n;
	*nfout = nf;
	*changed = true;
	return CC_OK;
}

void
cc_fold_strip(const cc_folded *s, const uint8_t *a, void *work,
			  unsigned char *out, size_t *nout,
			  unsigned char *fout, size_t *nfout)
{
	cc_fold_strip_many(s, a, 1, work, out, nout, fout, nfout);
}

/* Records by target, for the records into a writer that is gone. */
typedef struct cc_fold_tkey
{
	uint8_t		target[CC_ID_LEN];
	size_t		rec;
} cc_fold_tkey;

static int
cc_fold_tkey_cmp(const void *a, const void *b)
{
	const cc_fold_tkey *x = a,
			   *y = b;
	int			c = cc_id_cmp(x->target, y->target);

	if (c != 0)
		return c;
	return (x->rec > y->rec) - (x->rec < y->rec);
}

static bool
cc_in_ids(const uint8_t *ids, size_t count, const uint8_t *id)
{
	size_t		i = cc_id_lower_bound(ids, count, CC_ID_LEN, id);

	return i < count && cc_id_eq(ids + i * CC_ID_LEN, id);
}

/* The clock of id's shard when it is kept, else 0. */
static int64_t
cc_kept_clock(const cc_folded *s, const uint8_t *ids, size_t count,
			  const uint8_t *id)
{
	size_t		pos;
	cc_shard	sh;

	if (!cc_fold_find_shard(s->shards, s->n, id, &pos) || cc_in_ids(ids, count, id))
		return 0;
	cc_load(s->shards, pos, &sh);
	return sh.clock;
}

/*
 * A record is dropped when its target has no record left as retired writer
 * and no kept shard at its tclock or later; that may leave its own retired
 * writer without records in turn.  alive[lo] counts the records left of the
 * writer whose records start at lo; each writer is queued once, when its
 * last record goes, and each record dropped once.
 */
void
cc_fold_strip_many(const cc_folded *s, const uint8_t *ids, size_t count,
				   void *work, unsigned char *out, size_t *nout,
				   unsigned char *fout, size_t *nfout)
{
	cc_fold_tkey *keys = work;
	size_t	   *alive = (size_t *) (keys + s->nf),
			   *queue = alive + s->nf;
	unsigned char *dead = (unsigned char *) (queue + s->nf);
	size_t		k = 0,
				head = 0,
				tail = 0;

	for (size_t i = 0; i < s->n; i++)
	{
		if (cc_in_ids(ids, count, s->shards + i * CC_SHARD_SIZE))
			continue;
		memcpy(out + k++ * CC_SHARD_SIZE, s->shards + i * CC_SHARD_SIZE,
			   CC_SHARD_SIZE);
	}
	*nout = k;
	*nfout = 0;
	if (s->nf == 0)
		return;

	for (size_t i = 0; i < s->nf; i++)
	{
		const unsigned char *p = s->folds + i * CC_FOLD_SIZE;
		cc_fold		f;

		cc_fold_load(s->folds, i, &f);
		dead[i] = cc_in_ids(ids, count, p) || cc_in_ids(ids, count, p + CC_ID_LEN) ||
			(!cc_fold_is_retired(s->folds, s->nf, p + CC_ID_LEN) &&
			 cc_kept_clock(s, ids, count, p + CC_ID_LEN) < f.tclock);
		memcpy(keys[i].target, p + CC_ID_LEN, CC_ID_LEN);
		keys[i].rec = i;
	}
	for (size_t i = 0; i < s->nf;)
	{
		size_t		end,
					left = 0;

		(void) cc_fold_range(s->folds, s->nf, s->folds + i * CC_FOLD_SIZE, &end);
		for (size_t j = i; j < end; j++)
			left += !dead[j];
		alive[i] = left;
		if (left == 0)
			queue[tail++] = i;
		i = end;
	}
	if (tail > 0)
		qsort(keys, s->nf, sizeof(cc_fold_tkey), cc_fold_tkey_cmp);
	while (head < tail)
	{
		const unsigned char *x = s->folds + queue[head++] * CC_FOLD_SIZE;
		int64_t		clock = cc_kept_clock(s, ids, count, x);

		for (size_t j = cc_id_lower_bound((const unsigned char *) keys, s->nf,
										  sizeof(cc_fold_tkey), x);
			 j < s->nf && cc_id_eq(keys[j].target, x); j++)
		{
			size_t		r = keys[j].rec,
						lo;
			cc_fold		f;

			if (dead[r])
				continue;
			cc_fold_load(s->folds, r, &f);
			if (f.tclock <= clock)
				continue;
			dead[r] = 1;
			lo = cc_id_lower_bound(s->folds, s->nf, CC_FOLD_SIZE, f.retired);
			if (--alive[lo] == 0)
				queue[tail++] = lo;
		}
	}

	k = 0;
	for (size_t i = 0; i < s->nf; i++)
		if (!dead[i])
			memcpy(fout + k++ * CC_FOLD_SIZE, s->folds + i * CC_FOLD_SIZE,
				   CC_FOLD_SIZE);
	*nfout = k;
}
