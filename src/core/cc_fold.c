/*
 * cc_fold.c
 *	  Retired writers: fold records, their merge, the total they keep exact,
 *	  folding, forgetting (cc_fold.h).
 */
#include "cc_fold.h"

#include <limits.h>
#include <stdlib.h>

/* An exact sum as wraps * 2^64 + low (cc_wide_sum()'s form). */
static inline void
cc_acc_add(int64_t *wraps, int64_t *low, int64_t v)
{
	if (__builtin_add_overflow(*low, v, low))
		*wraps += (v > 0) ? 1 : -1;
}

static inline void
cc_acc_sub(int64_t *wraps, int64_t *low, int64_t v)
{
	if (__builtin_sub_overflow(*low, v, low))
		*wraps += (v > 0) ? -1 : 1;
}

/* Records compare by (retired, target): the first 32 bytes. */
static inline int
cc_fold_key_cmp(const unsigned char *a, const unsigned char *b)
{
	int			c = cc_id_cmp(a, b);

	return c != 0 ? c : cc_id_cmp(a + CC_ID_LEN, b + CC_ID_LEN);
}

/* The winner of two records of one key: true when b wins strictly. */
static inline bool
cc_fold_b_wins(const cc_fold *a, const cc_fold *b)
{
	if (b->tclock != a->tclock)
		return b->tclock > a->tclock;
	if (b->aclock != a->aclock)
		return b->aclock > a->aclock;
	if (b->avalue != a->avalue)
		return b->avalue > a->avalue;
	return b->absorbed > a->absorbed;
}

/* Index of the first record of retired writer a, or nf; *end past its last. */
static size_t
cc_fold_range(const unsigned char *folds, size_t nf, const uint8_t *a,
			  size_t *end)
{
	size_t		lo = cc_id_lower_bound(folds, nf, CC_FOLD_SIZE, a),
				hi;

	hi = lo;
	while (hi < nf && cc_id_eq(folds + hi * CC_FOLD_SIZE, a))
		hi++;
	*end = hi;
	return lo;
}

/* Index of the shard of id, or where it goes; true when it is there. */
static bool
cc_find_shard(const unsigned char *s, size_t n, const uint8_t *id, size_t *pos)
{
	*pos = cc_id_lower_bound(s, n, CC_SHARD_SIZE, id);
	return *pos < n && cc_id_eq(s + *pos * CC_SHARD_SIZE, id);
}

/*
 * The shard of target t in sh, or a zero shard of t's when s has none;
 * *pos is where t's shard is or goes.  True when s has it.
 */
static bool
cc_target_shard(const cc_folded *s, const uint8_t *t, size_t *pos,
				cc_shard *sh)
{
	if (cc_find_shard(s->shards, s->n, t, pos))
	{
		cc_load(s->shards, *pos, sh);
		return true;
	}
	memcpy(sh->id, t, CC_ID_LEN);
	sh->clock = 0;
	sh->value = 0;
	return false;
}

bool
cc_fold_is_retired(const unsigned char *folds, size_t nf, const uint8_t *id)
{
	size_t		lo = cc_id_lower_bound(folds, nf, CC_FOLD_SIZE, id);

	return lo < nf && cc_id_eq(folds + lo * CC_FOLD_SIZE, id);
}

/* (aclock, avalue) becomes (c, v) when that is later: a higher aclock, or
 * the same and a higher avalue. */
static inline void
cc_fold_later(int64_t *aclock, int64_t *avalue, int64_t c, int64_t v)
{
	if (c > *aclock || (c == *aclock && v > *avalue))
	{
		*aclock = c;
		*avalue = v;
	}
}

/* The highest aclock among the records [lo, hi) and that record's avalue. */
static void
cc_fold_latest(const unsigned char *folds, size_t lo, size_t hi,
			   int64_t *aclock, int64_t *avalue)
{
	*aclock = 0;
	*avalue = 0;
	for (size_t i = lo; i < hi; i++)
	{
		cc_fold		f;

		cc_fold_load(folds, i, &f);
		cc_fold_later(aclock, avalue, f.aclock, f.avalue);
	}
}

/* "RETIRED>TARGET" of a record, for error messages: 74 bytes with the NUL. */
#define CC_FOLD_NAME_LEN (2 * CC_UUID_TEXT_LEN + 2)

static const char *
cc_fold_name(const cc_fold *f, char *buf)
{
	cc_uuid_format(f->retired, buf);
	buf[CC_UUID_TEXT_LEN] = '>';
	cc_uuid_format(f->target, buf + CC_UUID_TEXT_LEN + 1);
	return buf;
}

/*
 * Every refusal names the record ("fold record A>T") or the writer it is
 * about, as the shards' checks name their writer.  One pass over the
 * records, each looked up by binary search: O(nf (log n + log nf)).
 */
cc_code
cc_fold_check(const cc_folded *s, cc_code fail, cc_error *err)
{
	char		name[CC_FOLD_NAME_LEN];

	for (size_t i = 0; i < s->nf; i++)
	{
		const unsigned char *p = s->folds + i * CC_FOLD_SIZE;
		cc_fold		f;

		cc_fold_load(s->folds, i, &f);
		if (cc_id_eq(f.retired, f.target))
			return cc_fail(err, fail,
						   "Fold record %s names one writer as retired and target.",
						   cc_fold_name(&f, name));
		if (f.tclock < 1 || f.aclock < 1)
			return cc_fail(err, fail,
						   "Fold record %s has %s %lld; clocks start at 1.",
						   cc_fold_name(&f, name),
						   f.tclock < 1 ? "tclock" : "aclock",
						   (long long) (f.tclock < 1 ? f.tclock : f.aclock));
		if (i > 0 && cc_fold_key_cmp(p - CC_FOLD_SIZE, p) >= 0)
			return cc_fail(err, fail,
						   cc_fold_key_cmp(p - CC_FOLD_SIZE, p) == 0
						   ? "Fold record %s appears more than once."
						   : "Fold record %s is out of ascending (retired, target) order.",
						   cc_fold_name(&f, name));
	}
	for (size_t i = 0; i < s->nf;)
	{
		cc_fold		f;
		size_t		end,
					pos;
		int64_t		aclock,
					avalue;

		cc_fold_load(s->folds, i, &f);
		(void) cc_fold_range(s->folds, s->nf, f.retired, &end);
		cc_fold_latest(s->folds, i, end, &aclock, &avalue);
		if (cc_find_shard(s->shards, s->n, f.retired, &pos))
		{
			cc_shard	sh;

			cc_load(s->shards, pos, &sh);
			if (sh.clock <= aclock)
			{
				cc_uuid_format(f.retired, name);
				return cc_fail(err, fail,
							   "Retired writer %s keeps its shard of clock %lld, which its fold records have seen (aclock %lld).",
							   name, (long long) sh.clock, (long long) aclock);
			}
		}
		for (size_t j = i; j < end; j++)
		{
			cc_shard	sh;

			cc_fold_load(s->folds, j, &f);
			if (cc_fold_is_retired(s->folds, s->nf, f.target))
				continue;
			if (!cc_find_shard(s->shards, s->n, f.target, &pos))
				return cc_fail(err, fail,
							   "The target of fold record %s has no shard.",
							   cc_fold_name(&f, name));
			cc_load(s->shards, pos, &sh);
			if (sh.clock < f.tclock)
				return cc_fail(err, fail,
							   "Fold record %s has tclock %lld, newer than its target's shard (clock %lld).",
							   cc_fold_name(&f, name), (long long) f.tclock,
							   (long long) sh.clock);
		}
		i = end;
	}
	return CC_OK;
}

void
cc_fold_total(const cc_folded *s, int64_t *wraps, int64_t *low)
{
	cc_wide_sum(s->shards, s->n, wraps, low);
	for (size_t i = 0; i < s->nf;)
	{
		cc_fold		f;
		size_t		end,
					pos;
		int64_t		aclock,
					avalue;

		cc_fold_load(s->folds, i, &f);
		(void) cc_fold_range(s->folds, s->nf, f.retired, &end);
		if (!cc_find_shard(s->shards, s->n, f.retired, &pos))
		{
			cc_fold_latest(s->folds, i, end, &aclock, &avalue);
			cc_acc_add(wraps, low, avalue);
		}
		for (; i < end; i++)
		{
			cc_fold_load(s->folds, i, &f);
			cc_acc_sub(wraps, low, f.absorbed);
		}
	}
}

void
cc_fold_outstanding(const cc_folded *s, const uint8_t *a,
					bool *present, int64_t *wraps, int64_t *low)
{
	size_t		end,
				lo = cc_fold_range(s->folds, s->nf, a, &end),
				pos;
	int64_t		aclock,
				avalue;

	*wraps = 0;
	*low = 0;
	*present = cc_find_shard(s->shards, s->n, a, &pos);
	if (*present)
	{
		cc_shard	sh;

		cc_load(s->shards, pos, &sh);
		*low = sh.value;
	}
	else if (lo < end)
	{
		cc_fold_latest(s->folds, lo, end, &aclock, &avalue);
		*low = avalue;
	}
	for (size_t i = lo; i < end; i++)
	{
		cc_fold		f;

		cc_fold_load(s->folds, i, &f);
		cc_acc_sub(wraps, low, f.absorbed);
	}
}

/*
 * Drops, in place, the shards of retired writers that their records have
 * seen (clock <= the highest aclock): the normal form of a folded state.
 */
static size_t
cc_fold_normalize(unsigned char *s, size_t n,
				  const unsigned char *folds, size_t nf)
{
	size_t		k = 0;

	for (size_t i = 0; i < n; i++)
	{
		const unsigned char *p = s + i * CC_SHARD_SIZE;
		size_t		end,
					lo = cc_fold_range(folds, nf, p, &end);
		bool		keep = true;

		if (lo < end)
		{
			cc_shard	sh;
			int64_t		aclock,
						avalue;

			cc_load(s, i, &sh);
			cc_fold_latest(folds, lo, end, &aclock, &avalue);
			keep = sh.clock > aclock;
		}
		if (keep)
		{
			if (k != i)
				memmove(s + k * CC_SHARD_SIZE, p, CC_SHARD_SIZE);
			k++;
		}
	}
	return k;
}

void
cc_fold_merge(const cc_folded *a, const cc_folded *b,
			  unsigned char *out, size_t *nout,
			  unsigned char *fout, size_t *nfout)
{
	size_t		i = 0,
				j = 0,
				k = 0;

	while (i < a->nf || j < b->nf)
	{
		const unsigned char *pick;
		int			c;

		if (i == a->nf)
			c = 1;
		else if (j == b->nf)
			c = -1;
		else
			c = cc_fold_key_cmp(a->folds + i * CC_FOLD_SIZE,
								b->folds + j * CC_FOLD_SIZE);
		if (c == 0)
		{
			cc_fold		fa,
						fb;

			cc_fold_load(a->folds, i, &fa);
			cc_fold_load(b->folds, j, &fb);
			pick = cc_fold_b_wins(&fa, &fb) ? b->folds + j * CC_FOLD_SIZE
				: a->folds + i * CC_FOLD_SIZE;
			i++;
			j++;
		}
		else if (c < 0)
			pick = a->folds + i++ * CC_FOLD_SIZE;
		else
			pick = b->folds + j++ * CC_FOLD_SIZE;
		memcpy(fout + k++ * CC_FOLD_SIZE, pick, CC_FOLD_SIZE);
	}
	*nfout = k;
	*nout = cc_merge(a->shards, a->n, b->shards, b->n, out);
	if (k > 0)
		*nout = cc_fold_normalize(out, *nout, fout, k);
}

/*
 * Copies s's shards into out with shard sh put at pos (replacing the one
 * there when replace) and the shard of drop_id, if any, left out; returns
 * the count.
 */
static size_t
cc_copy_put_drop(const unsigned char *s, size_t n, size_t pos, bool replace,
				 const cc_shard *sh, const uint8_t *drop_id,
				 unsigned char *out)
{
	size_t		k = 0;

	for (size_t i = 0; i <= n; i++)
	{
		if (i == pos)
			cc_store(out, k++, sh);
		if (i == n)
			break;
		if (i == pos && replace)
			continue;
		if (drop_id && cc_id_eq(s + i * CC_SHARD_SIZE, drop_id))
			continue;
		memcpy(out + k++ * CC_SHARD_SIZE, s + i * CC_SHARD_SIZE,
			   CC_SHARD_SIZE);
	}
	return k;
}

cc_code
cc_fold_apply(const cc_folded *s, const uint8_t *a, const uint8_t *t,
			  unsigned char *out, size_t *nout,
			  unsigned char *fout, size_t *nfout,
			  bool *changed, cc_error *err)
{
	size_t		end,
				lo,
				apos,
				tpos,
				fpos;
	bool		present,
				have_t = false,
				holder = true,
				t_there;
	cc_shard	ash = {{0}, 0, 0},
				tsh;
	int64_t		known_clock,
				known_value,
				absorbed_t = 0,
				others = 0,
				others_wraps = 0,
				wraps,
				low,
				delta;
	cc_fold		rec;

	*changed = false;
	if (cc_id_eq(a, t))
		return cc_fail(err, CC_ERR_ARGUMENT,
					   "A writer cannot be folded into itself.");
	if (cc_fold_is_retired(s->folds, s->nf, t))
		return cc_fail(err, CC_ERR_ARGUMENT,
					   "The target writer is itself retired in this counter.");
	lo = cc_fold_range(s->folds, s->nf, a, &end);
	present = cc_find_shard(s->shards, s->n, a, &apos);
	if (!present && lo == end)
		return CC_OK;			/* the counter never knew a */
	if (present)
		cc_load(s->shards, apos, &ash);
	cc_fold_latest(s->folds, lo, end, &known_clock, &known_value);
	if (present)
	{
		known_clock = ash.clock;
		known_value = ash.value;
	}

	/*
	 * t's own record of a; whether a live target of a lower id holds a; what
	 * the live targets other than t hold (they give it back).
	 */
	fpos = end;
	for (size_t i = lo; i < end; i++)
	{
		cc_fold		f;
		int			c;

		cc_fold_load(s->folds, i, &f);
		c = cc_id_cmp(f.target, t);
		if (c == 0)
		{
			have_t = true;
			absorbed_t = f.absorbed;
			fpos = i;
		}
		else if (!cc_fold_is_retired(s->folds, s->nf, f.target))
		{
			if (c < 0)
				holder = false;
			cc_acc_add(&others_wraps, &others, f.absorbed);
		}
		if (c > 0 && fpos == end)
			fpos = i;
	}

	if (holder)
	{
		/* t takes all of a but what live targets hold until they give back */
		cc_fold_outstanding(s, a, &present, &wraps, &low);
		cc_acc_add(&wraps, &low, others);
		wraps += others_wraps;
		if (wraps != 0)
			return cc_fail(err, CC_ERR_OVERFLOW,
						   "The count to fold leaves the bigint range.");
		delta = low;
		if (delta == 0 && !present)
			return CC_OK;		/* finished already */
	}
	else
	{
		if (absorbed_t == 0)
			return CC_OK;		/* another target holds a; t holds nothing */
		if (absorbed_t == INT64_MIN)
			return cc_fail(err, CC_ERR_OVERFLOW,
						   "The count to give back leaves the bigint range.");
		delta = -absorbed_t;
	}

	t_there = cc_target_shard(s, t, &tpos, &tsh);
	if (tsh.clock == INT64_MAX)
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The target's clock would leave the bigint range.");
	if (__builtin_add_overflow(tsh.value, delta, &tsh.value))
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The target's value would leave the bigint range.");
	if (__builtin_add_overflow(absorbed_t, delta, &rec.absorbed))
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The folded count would leave the bigint range.");
	tsh.clock++;
	memcpy(rec.retired, a, CC_ID_LEN);
	memcpy(rec.target, t, CC_ID_LEN);
	rec.tclock = tsh.clock;
	rec.aclock = known_clock;
	rec.avalue = known_value;

	/*
	 * The new shards: t's put in place, a's dropped (its clock is the
	 * record's aclock now).  Dropping a shard in front of t's moves t's
	 * place by one, which cc_copy_put_drop() handles by position in s.
	 */
	*nout = cc_copy_put_drop(s->shards, s->n, tpos, t_there, &tsh,
							 present ? a : NULL, out);

	/* The new records: (a, t) put in place. */
	{
		size_t		k = 0;

		for (size_t i = 0; i <= s->nf; i++)
		{
			if (i == fpos)
				cc_fold_store(fout, k++, &rec);
			if (i == s->nf)
				break;
			if (i == fpos && have_t)
				continue;
			memcpy(fout + k++ * CC_FOLD_SIZE, s->folds + i * CC_FOLD_SIZE,
				   CC_FOLD_SIZE);
		}
		*nfout = k;
	}
	*changed = true;
	return CC_OK;
}

static int
cc_fold_many_slot_cmp(const void *a, const void *b)
{
	return cc_id_cmp(((const cc_fold_many_slot *) a)->id,
					 ((const cc_fold_many_slot *) b)->id);
}

/* The slot of id among the k distinct slots, or NULL. */
static cc_fold_many_slot *
cc_fold_many_find(cc_fold_many_slot *slots, size_t k, const uint8_t *id)
{
	size_t		i = cc_id_lower_bound((const unsigned char *) slots, k,
									  sizeof(cc_fold_many_slot), id);

	return (i < k && cc_id_eq(slots[i].id, id)) ? &slots[i] : NULL;
}

/*
 * One slot's records other than into t: the latest, the absorbed of those
 * into retired targets, the live targets below t; with edges NULL, counts
 * in ehi the records into each slot still live, else writes them there.
 */
static void
cc_fold_many_scan(const cc_folded *s, const uint8_t *t,
				  cc_fold_many_slot *slots, size_t k, size_t j,
				  cc_fold_many_edge *edges)
{
	cc_fold_many_slot *x = &slots[j];
	size_t		end,
				lo = cc_fold_range(s->folds, s->nf, x->id, &end);

	for (size_t r = lo; r < end; r++)
	{
		cc_fold		f;
		cc_fold_many_slot *y;

		cc_fold_load(s->folds, r, &f);
		if (cc_id_eq(f.target, t))
		{
			if (edges == NULL)
			{
				x->rec = f;
				x->has_t = true;
			}
			continue;
		}
		if (cc_fold_is_retired(s->folds, s->nf, f.target))
		{
			if (edges == NULL)
				cc_acc_add(&x->rwraps, &x->rlow, f.absorbed);
		}
		else
		{
			if (edges == NULL && cc_id_cmp(f.target, t) < 0)
				x->live_below++;
			if ((y = cc_fold_many_find(slots, k, f.target)) != NULL)
			{
				if (edges == NULL)
					y->ehi++;
				else
				{
					edges[y->ehi].from = j;
					edges[y->ehi++].absorbed = f.absorbed;
				}
			}
		}
		if (edges == NULL)
		{
			x->nrec++;
			cc_fold_later(&x->lclock, &x->lvalue, f.aclock, f.avalue);
		}
	}
}

/*
 * Each distinct id gets a slot holding what cc_fold_apply() reads of it;
 * a step reads its slot and t's shard, and updates them.  The one thing a
 * step changes for other ids is that a writer with no record gets one, and
 * so is retired as a target from then on: its slot's edges, the records
 * into it from the other slots, move from live to retired, once.
 */
cc_code
cc_fold_many(const cc_folded *s, const uint8_t *ids, size_t count,
			 const uint8_t *t, void *work,
			 unsigned char *out, size_t *nout,
			 unsigned char *fout, size_t *nfout,
			 bool *changed, cc_error *err)
{
	cc_fold_many_slot *slots = work;
	cc_fold_many_edge *edges = (cc_fold_many_edge *) (slots + (count > 0 ? count : 1));
	size_t		k = 0,
				tpos,
				ne = 0,
				n = 0,
				nf = 0,
				j;
	bool		t_retired = cc_fold_is_retired(s->folds, s->nf, t),
				t_there,
				moved = false;
	cc_shard	tsh;

	*changed = false;
	if (count == 0)
		return CC_OK;
	for (size_t i = 0; i < count; i++)
		memcpy(slots[i].id, ids + i * CC_ID_LEN, CC_ID_LEN);
	qsort(slots, count, sizeof(cc_fold_many_slot), cc_fold_many_slot_cmp);
	for (size_t i = 0; i < count; i++)
	{
		cc_fold_many_slot *x = &slots[k];
		size_t		pos;
		cc_shard	sh;

		if (k > 0 && cc_id_eq(slots[k - 1].id, slots[i].id))
			continue;
		if (k != i)
			memcpy(x->id, slots[i].id, CC_ID_LEN);
		memset((unsigned char *) x + CC_ID_LEN, 0, sizeof(*x) - CC_ID_LEN);
		x->present = cc_find_shard(s->shards, s->n, x->id, &pos);
		if (x->present)
		{
			cc_load(s->shards, pos, &sh);
			x->sclock = sh.clock;
			x->svalue = sh.value;
		}
		x->retired = cc_fold_is_retired(s->folds, s->nf, x->id);
		k++;
	}
	for (j = 0; j < k; j++)
		cc_fold_many_scan(s, t, slots, k, j, NULL);
	for (j = 0; j < k; j++)
	{
		size_t		c = slots[j].ehi;

		slots[j].elo = slots[j].ehi = ne;
		ne += c;
	}
	for (j = 0; j < k; j++)
		cc_fold_many_scan(s, t, slots, k, j, edges);

	t_there = cc_target_shard(s, t, &tpos, &tsh);

	/* the folds in the order given, as cc_fold_apply() runs them */
	for (size_t i = 0; i < count; i++)
	{
		const uint8_t *a = ids + i * CC_ID_LEN;
		cc_fold_many_slot *x;
		int64_t		kclock,
					kvalue,
					absorbed_t,
					delta,
					value,
					took;

		if (cc_id_eq(a, t))
			return cc_fail(err, CC_ERR_ARGUMENT,
						   "A writer cannot be folded into itself.");
		if (t_retired)
			return cc_fail(err, CC_ERR_ARGUMENT,
						   "The target writer is itself retired in this counter.");
		x = cc_fold_many_find(slots, k, a);
		if (!x->present && !x->has_t && x->nrec == 0)
			continue;			/* the counter never knew a */
		kclock = x->lclock;
		kvalue = x->lvalue;
		if (x->has_t)
			cc_fold_later(&kclock, &kvalue, x->rec.aclock, x->rec.avalue);
		if (x->present)
		{
			kclock = x->sclock;
			kvalue = x->svalue;
		}
		absorbed_t = x->has_t ? x->rec.absorbed : 0;
		if (x->live_below == 0)
		{
			/* t holds a: v*(a) less what the retired targets hold */
			int64_t		wraps = 0,
						low = kvalue;

			cc_acc_sub(&wraps, &low, absorbed_t);
			cc_acc_sub(&wraps, &low, x->rlow);
			wraps -= x->rwraps;
			if (wraps != 0)
				return cc_fail(err, CC_ERR_OVERFLOW,
							   "The count to fold leaves the bigint range.");
			delta = low;
			if (delta == 0 && !x->present)
				continue;		/* finished already */
		}
		else
		{
			if (absorbed_t == 0)
				continue;		/* another target holds a; t holds nothing */
			if (absorbed_t == INT64_MIN)
				return cc_fail(err, CC_ERR_OVERFLOW,
							   "The count to give back leaves the bigint range.");
			delta = -absorbed_t;
		}
		if (tsh.clock == INT64_MAX)
			return cc_fail(err, CC_ERR_OVERFLOW,
						   "The target's clock would leave the bigint range.");
		if (__builtin_add_overflow(tsh.value, delta, &value))
			return cc_fail(err, CC_ERR_OVERFLOW,
						   "The target's value would leave the bigint range.");
		if (__builtin_add_overflow(absorbed_t, delta, &took))
			return cc_fail(err, CC_ERR_OVERFLOW,
						   "The folded count would leave the bigint range.");
		tsh.clock++;
		tsh.value = value;
		memcpy(x->rec.retired, a, CC_ID_LEN);
		memcpy(x->rec.target, t, CC_ID_LEN);
		x->rec.tclock = tsh.clock;
		x->rec.aclock = kclock;
		x->rec.avalue = kvalue;
		x->rec.absorbed = took;
		x->has_t = x->written = true;
		x->dropped |= x->present;
		x->present = false;
		moved = true;
		if (!x->retired)
		{
			bool		below = cc_id_cmp(x->id, t) < 0;

			x->retired = true;
			for (size_t e = x->elo; e < x->ehi; e++)
			{
				cc_fold_many_slot *y = &slots[edges[e].from];

				if (below)
					y->live_below--;
				cc_acc_add(&y->rwraps, &y->rlow, edges[e].absorbed);
			}
		}
	}
	if (!moved)
		return CC_OK;

	/* the shards: t's put in place, the dropped ones left out */
	j = 0;
	for (size_t i = 0; i <= s->n; i++)
	{
		const unsigned char *p;

		if (i == tpos)
			cc_store(out, n++, &tsh);
		if (i == s->n)
			break;
		if (i == tpos && t_there)
			continue;
		p = s->shards + i * CC_SHARD_SIZE;
		while (j < k && cc_id_cmp(slots[j].id, p) < 0)
			j++;
		if (j < k && slots[j].dropped && cc_id_eq(slots[j].id, p))
			continue;
		memcpy(out + n++ * CC_SHARD_SIZE, p, CC_SHARD_SIZE);
	}
	/* the records: each (a, t) written put in place */
	j = 0;
	for (size_t i = 0; i <= s->nf; i++)
	{
		const unsigned char *p = i < s->nf ? s->folds + i * CC_FOLD_SIZE : NULL;
		bool		replaced = false;

		for (; j < k; j++)
		{
			if (!slots[j].written)
				continue;
			if (p != NULL)
			{
				int			c = cc_id_cmp(slots[j].id, p);

				if (c == 0)
					c = cc_id_cmp(t, p + CC_ID_LEN);
				if (c > 0)
					break;
				replaced = c == 0;
			}
			cc_fold_store(fout, nf++, &slots[j].rec);
			if (replaced)
			{
				j++;
				break;
			}
		}
		if (p != NULL && !replaced)
			memcpy(fout + nf++ * CC_FOLD_SIZE, p, CC_FOLD_SIZE);
	}
	*nout = n;
	*nfout = nf;
	*changed = true;
	return CC_OK;
}

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

		return cc_find_shard(s->shards, s->n, a, &pos) ? CC_FORGET_SHARD
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

	if (!cc_find_shard(s->shards, s->n, id, &pos) || cc_in_ids(ids, count, id))
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

size_t
cc_stored_pack_folded(unsigned char *data, const cc_folded *s)
{
	unsigned char *p;
	uint32_t	nf = (uint32_t) s->nf,
				pad = 0;
	int64_t		wraps,
				low;

	if (s->nf == 0)
	{
		memcpy(cc_stored_build_start(data, false), s->shards,
			   s->n * CC_SHARD_SIZE);
		return cc_stored_pack(data, s->n, false);
	}
	cc_fold_total(s, &wraps, &low);
	data[0] = CC_STORED_V2;
	data[1] = CC_STORED_FLAG_FOLDS | (wraps != 0 ? CC_STORED_FLAG_OVERFLOW : 0);
	data[2] = 0;
	data[3] = 0;
	if (wraps != 0)
		low = 0;
	memcpy(data + CC_STORED_V1_HEADER, &low, sizeof(low));
	p = data + CC_STORED_HEADER;
	memcpy(p, &nf, sizeof(nf));
	memcpy(p + sizeof(nf), &pad, sizeof(pad));
	p += CC_STORED_FOLDS_HEADER;
	memcpy(p, s->folds, s->nf * CC_FOLD_SIZE);
	p += s->nf * CC_FOLD_SIZE;
	memcpy(p, s->shards, s->n * CC_SHARD_SIZE);
	return CC_STORED_FOLDED_SIZE(s->n, s->nf);
}

void
cc_stored_folded(const cc_stored *s, unsigned char *buf, cc_folded *out)
{
	if (s->narrow)
	{
		cc_stored_widen(s, buf);
		out->shards = buf;
	}
	else
		out->shards = s->shards;
	out->n = s->n;
	out->folds = s->folds;
	out->nf = s->nf;
}

cc_code
cc_fold_increment(const cc_folded *s, const uint8_t *writer, int64_t delta,
				  bool subtract, unsigned char *out, size_t *nout,
				  cc_error *err)
{
	if (cc_fold_is_retired(s->folds, s->nf, writer))
		return cc_fail(err, CC_ERR_RETIRED,
					   "The writer was folded into another in this counter.");
	return cc_increment(s->shards, s->n, writer, delta, subtract, out, nout, err);
}

cc_code
cc_fold_increment_at(const cc_folded *s, const uint8_t *writer, int64_t delta,
					 int64_t clock, unsigned char *out, size_t *nout,
					 bool *applied, cc_error *err)
{
	*applied = false;
	if (cc_fold_is_retired(s->folds, s->nf, writer))
		return cc_fail(err, CC_ERR_RETIRED,
					   "The writer was folded into another in this counter.");
	return cc_increment_at(s->shards, s->n, writer, delta, clock, out, nout,
						   applied, err);
}

int
cc_fold_compare(const cc_folded *a, bool ta, const cc_folded *b, bool tb)
{
	int64_t		wa,
				la,
				wb,
				lb;
	size_t		i;

	if (ta || tb)
		return (int) ta - (int) tb;
	if (a->nf == 0 && b->nf == 0)
		return cc_compare(a->shards, a->n, false, b->shards, b->n, false);
	cc_fold_total(a, &wa, &la);
	cc_fold_total(b, &wb, &lb);
	if (wa != wb)
		return wa < wb ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	/* equal totals: the shards as cc_compare() orders them */
	{
		int			c = cc_compare(a->shards, a->n, false, b->shards, b->n, false);

		if (c != 0)
			return c;
	}
	for (i = 0; i < a->nf && i < b->nf; i++)
	{
		cc_fold		fa,
					fb;
		int			c = cc_fold_key_cmp(a->folds + i * CC_FOLD_SIZE,
										b->folds + i * CC_FOLD_SIZE);

		if (c != 0)
			return c;
		cc_fold_load(a->folds, i, &fa);
		cc_fold_load(b->folds, i, &fb);
		if (fa.tclock != fb.tclock)
			return fa.tclock < fb.tclock ? -1 : 1;
		if (fa.aclock != fb.aclock)
			return fa.aclock < fb.aclock ? -1 : 1;
		if (fa.avalue != fb.avalue)
			return fa.avalue < fb.avalue ? -1 : 1;
		if (fa.absorbed != fb.absorbed)
			return fa.absorbed < fb.absorbed ? -1 : 1;
	}
	return (a->nf > i) - (b->nf > i);
}

cc_diff_kind
cc_fold_difference(const cc_folded *a, const cc_folded *b, void *work,
				   unsigned char *out, size_t *nout,
				   unsigned char *fout, size_t *nfout)
{
	size_t	   *stack = work;
	uint8_t    *rin = (uint8_t *) (stack + (a->nf > 0 ? a->nf : 1)),
			   *sin = rin + a->nf;
	size_t		top = 0,
				j = 0,
				k = 0,
				n;
	cc_view		va = {a->shards, a->n, false},
				vb = {b->shards, b->n, false};

	memset(rin, 0, a->nf + a->n);
	/* the shards of a that win over b's, as without records */
	n = 0;
	if (cc_difference(&va, &vb, out, &n) == CC_DIFF_NONE)
		n = 0;
	/* a shard of a retired writer that b's records have seen adds nothing */
	if (b->nf > 0 && n > 0)
		n = cc_fold_normalize(out, n, b->folds, b->nf);
	for (size_t i = 0; i < n; i++)
	{
		size_t		pos;

		if (cc_find_shard(a->shards, a->n, out + i * CC_SHARD_SIZE, &pos))
			sin[pos] = 1;
	}
	/* the records of a that win over b's */
	for (size_t i = 0; i < a->nf; i++)
	{
		const unsigned char *pa = a->folds + i * CC_FOLD_SIZE;
		int			c = 1;

		while (j < b->nf &&
			   (c = cc_fold_key_cmp(b->folds + j * CC_FOLD_SIZE, pa)) < 0)
			j++;
		if (j < b->nf && c == 0)
		{
			cc_fold		fa,
						fb;

			cc_fold_load(a->folds, i, &fa);
			cc_fold_load(b->folds, j, &fb);
			if (!cc_fold_b_wins(&fb, &fa))
				continue;
		}
		rin[i] = 1;
		stack[top++] = i;
	}
	/* the targets of the records taken, as a holds them */
	while (top > 0)
	{
		const uint8_t *t = a->folds + stack[--top] * CC_FOLD_SIZE + CC_ID_LEN;
		size_t		end,
					lo = cc_fold_range(a->folds, a->nf, t, &end),
					pos;

		if (lo < end)
		{
			for (size_t g = lo; g < end; g++)
				if (!rin[g])
				{
					rin[g] = 1;
					stack[top++] = g;
				}
		}
		else if (cc_find_shard(a->shards, a->n, t, &pos))
			sin[pos] = 1;
	}
	*nout = 0;
	for (size_t i = 0; i < a->n; i++)
		if (sin[i])
			memcpy(out + (*nout)++ * CC_SHARD_SIZE, a->shards + i * CC_SHARD_SIZE,
				   CC_SHARD_SIZE);
	for (size_t i = 0; i < a->nf; i++)
		if (rin[i])
			memcpy(fout + k++ * CC_FOLD_SIZE, a->folds + i * CC_FOLD_SIZE,
				   CC_FOLD_SIZE);
	*nfout = k;
	return (*nout > 0 || k > 0) ? CC_DIFF_SHARDS : CC_DIFF_NONE;
}
