/*
 * cc_fold_many.c
 *	  The fold of many retired writers into one target in one pass
 *	  (cc_fold_many(), cc_fold.h).
 */
#include "cc_fold_internal.h"

#include <stdlib.h>

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
		x->present = cc_fold_find_shard(s->shards, s->n, x->id, &pos);
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
