/*
 * cc_test_states.h
 *	  Pieces shared by the randomized core tests and the algebra fuzzer for
 *	  building canonical states independently of the code under test.
 */
#ifndef CC_TEST_STATES_H
#define CC_TEST_STATES_H

#include <string.h>

#include "cc_base.h"

/*
 * Writer ids on the edges of the orderings: ties in a memcmp-based order
 * but not in a signed one, so that a comparison by signed bytes or signed
 * words shows up as a wrong order.
 */
#define CC_EDGE_IDS 9

static const uint8_t cc_edge_ids[CC_EDGE_IDS][CC_ID_LEN] = {
	/* all zero, and ...01 */
	{0},
	{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01},
	/* 7fff...ff, 8000...00, 8000...01: the signed/unsigned boundary */
	{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	{0x80},
	{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01},
	/* ff...ff and ff...fe */
	{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe},
	/* differing in the first byte only, on either side of 0x80 */
	{0x7f, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
	 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11},
	{0x81, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
	 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11},
};

/*
 * Stable insertion sort of shards by id, with memcmp (the definition of the
 * order) rather than the core's comparison, so that inputs built with it are
 * canonical even if cc_id_cmp were wrong.
 */
static inline void
cc_test_sort_by_id(cc_shard *sh, size_t k)
{
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && memcmp(sh[j - 1].id, sh[j].id, CC_ID_LEN) > 0; j--)
		{
			cc_shard	t = sh[j];

			sh[j] = sh[j - 1];
			sh[j - 1] = t;
		}
}

/*
 * Whether the n_x shards at x are exactly the shards of a (in a's order)
 * that win over b's: id absent in b, or a higher clock, or an equal clock
 * and a higher value.  From the definition, comparing each shard of a with
 * every shard of b by memcmp: the reference for counter differences.
 */
static inline bool
cc_test_is_winners(const unsigned char *a, size_t na,
				   const unsigned char *b, size_t nb,
				   const unsigned char *x, size_t nx)
{
	size_t		k = 0;

	for (size_t i = 0; i < na; i++)
	{
		cc_shard	sa,
					sb;
		bool		wins = true;

		cc_load(a, i, &sa);
		for (size_t j = 0; j < nb; j++)
		{
			cc_load(b, j, &sb);
			if (memcmp(sa.id, sb.id, CC_ID_LEN) == 0)
				wins = sa.clock > sb.clock ||
					(sa.clock == sb.clock && sa.value > sb.value);
		}
		if (wins)
		{
			if (k == nx ||
				memcmp(x + k * CC_SHARD_SIZE, a + i * CC_SHARD_SIZE,
					   CC_SHARD_SIZE) != 0)
				return false;
			k++;
		}
	}
	return k == nx;
}

/* splitmix64: a small, good, seedable generator for the randomized tests. */
static inline uint64_t
cc_test_splitmix(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif							/* CC_TEST_STATES_H */
