/*
 * cc_test_shapes.h
 *	  Large folded states (cc_fold.h) of the shapes that once cost more than
 *	  n log n, for the core tests and bench/microbench: every fold finished
 *	  (nothing outstanding, no shard of a retired writer).
 *
 *	  flat   retired R1..Rk, each folded into one live writer T
 *	  chain  R1 > R2 > ... > Rk > T: each retired writer folded into the next
 *	  star   A1..Ah folded into B, B folded into C1..Ch (live): each record
 *	         into B names a retired target with h records of its own
 *
 * Writer j's id is j + 1, big-endian, in its first 8 bytes, so that ids
 * ascend with j.  cc_test_shape() fills shards (room for
 * cc_test_shape_shards(k)) and records (room for k), k >= 2, and the ids of
 * the retired writers, in the order that forgets them one at a time in the
 * most rounds (the chain's last first), into retired (room for k).
 */
#ifndef CC_TEST_SHAPES_H
#define CC_TEST_SHAPES_H

#include "cc_fold.h"

typedef enum cc_test_shape_kind
{
	CC_SHAPE_FLAT,
	CC_SHAPE_CHAIN,
	CC_SHAPE_STAR
} cc_test_shape_kind;

static inline void
cc_test_shape_id(uint8_t *id, size_t j)
{
	uint64_t	v = (uint64_t) j + 1;

	memset(id, 0, CC_ID_LEN);
	for (int b = 7; b >= 0; b--)
	{
		id[b] = (uint8_t) v;
		v >>= 8;
	}
	id[8] = 0x80;
}

static inline size_t
cc_test_shape_shards(size_t k)
{
	return k / 2 + 1;
}

static inline void
cc_test_shape_record(unsigned char *folds, size_t i, size_t a, size_t t,
					 int64_t tclock)
{
	cc_fold		f;

	cc_test_shape_id(f.retired, a);
	cc_test_shape_id(f.target, t);
	f.tclock = tclock;
	f.aclock = 1;
	f.avalue = 1;
	f.absorbed = 1;
	cc_fold_store(folds, i, &f);
}

static inline void
cc_test_shape_shard(unsigned char *shards, size_t i, size_t j, int64_t clock,
					int64_t value)
{
	cc_shard	sh;

	cc_test_shape_id(sh.id, j);
	sh.clock = clock;
	sh.value = value;
	cc_store(shards, i, &sh);
}

/* The state in *st (pointing into shards and folds); *nretired ids. */
static inline void
cc_test_shape(cc_test_shape_kind kind, size_t k, unsigned char *shards,
			  unsigned char *folds, cc_folded *st, uint8_t *retired,
			  size_t *nretired)
{
	size_t		n = 0,
				r = 0;

	switch (kind)
	{
		case CC_SHAPE_FLAT:
			/* R_j = j for j < k, T = k */
			for (size_t j = 0; j < k; j++)
			{
				cc_test_shape_record(folds, j, j, k, (int64_t) j + 1);
				cc_test_shape_id(retired + r++ * CC_ID_LEN, k - 1 - j);
			}
			cc_test_shape_shard(shards, n++, k, (int64_t) k, (int64_t) k);
			break;
		case CC_SHAPE_CHAIN:
			/* R_j = j folded into j + 1; T = k */
			for (size_t j = 0; j < k; j++)
			{
				cc_test_shape_record(folds, j, j, j + 1, 1);
				cc_test_shape_id(retired + r++ * CC_ID_LEN, k - 1 - j);
			}
			cc_test_shape_shard(shards, n++, k, 1, 1);
			break;
		case CC_SHAPE_STAR:
			{
				/* A_j = j < h, B = h, C_j = h + 1 + j */
				size_t		h = k / 2,
							b = h;

				for (size_t j = 0; j < h; j++)
					cc_test_shape_record(folds, j, j, b, (int64_t) j + 1);
				cc_test_shape_id(retired + r++ * CC_ID_LEN, b);
				for (size_t j = 0; j < h; j++)
					cc_test_shape_id(retired + r++ * CC_ID_LEN, j);
				/* B's count, h, is absorbed by the first C; the others hold 0 */
				for (size_t j = 0; j < k - h; j++)
				{
					cc_fold		f;

					cc_test_shape_id(f.retired, b);
					cc_test_shape_id(f.target, h + 1 + j);
					f.tclock = 1;
					f.aclock = (int64_t) h + 1;
					f.avalue = (int64_t) h;
					f.absorbed = j == 0 ? (int64_t) h : 0;
					cc_fold_store(folds, h + j, &f);
					cc_test_shape_shard(shards, n++, h + 1 + j, 1,
										j == 0 ? (int64_t) h : 0);
				}
			}
			break;
	}
	st->shards = shards;
	st->n = n;
	st->folds = folds;
	st->nf = k;
	*nretired = r;
}

#endif							/* CC_TEST_SHAPES_H */
