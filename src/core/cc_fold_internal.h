/*
 * cc_fold_internal.h
 *	  What the files of the fold layer share (cc_fold.c, cc_fold_many.c,
 *	  cc_fold_forget.c, cc_fold_compare.c): exact sums, the order and the
 *	  winner of records, and lookups of shards and records.  Not for callers
 *	  outside the layer: they include cc_fold.h.
 */
#ifndef CC_FOLD_INTERNAL_H
#define CC_FOLD_INTERNAL_H

#include "cc_fold.h"

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
static inline size_t
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
static inline bool
cc_fold_find_shard(const unsigned char *s, size_t n, const uint8_t *id,
				   size_t *pos)
{
	*pos = cc_id_lower_bound(s, n, CC_SHARD_SIZE, id);
	return *pos < n && cc_id_eq(s + *pos * CC_SHARD_SIZE, id);
}

/*
 * The shard of target t in sh, or a zero shard of t's when s has none;
 * *pos is where t's shard is or goes.  True when s has it.
 */
static inline bool
cc_target_shard(const cc_folded *s, const uint8_t *t, size_t *pos,
				cc_shard *sh)
{
	if (cc_fold_find_shard(s->shards, s->n, t, pos))
	{
		cc_load(s->shards, *pos, sh);
		return true;
	}
	memcpy(sh->id, t, CC_ID_LEN);
	sh->clock = 0;
	sh->value = 0;
	return false;
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

/*
 * Drops, in place, the shards of retired writers that their records have
 * seen (clock <= the highest aclock): the normal form of a folded state
 * (cc_fold.c).
 */
size_t		cc_fold_normalize(unsigned char *s, size_t n,
							  const unsigned char *folds, size_t nf);

#endif							/* CC_FOLD_INTERNAL_H */
