/*
 * cc_fold_compare.c
 *	  The order and the difference of folded states (cc_fold.h).
 */
#include "cc_fold_internal.h"

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

		if (cc_fold_find_shard(a->shards, a->n, out + i * CC_SHARD_SIZE, &pos))
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
		else if (cc_fold_find_shard(a->shards, a->n, t, &pos))
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
