/*
 * core_order.c
 *	  Unit tests of the order of states (cc_compare): a hand-made ascending
 *	  list, and a model of the order written apart from the core, which the
 *	  randomized checks (core_random.c) hold the core to.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cc_test.h"

#define A "00000000-0000-0000-0000-000000000001"
#define B "00000000-0000-0000-0000-000000000002"
#define X "7fffffff-ffff-ffff-ffff-ffffffffffff"
#define Y "80000000-0000-0000-0000-000000000000"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"
#define MAX "9223372036854775807"
#define MIN "-9223372036854775808"

/* Sign of a comparison result: -1, 0 or 1. */
int
order_sign(int c)
{
	return (c > 0) - (c < 0);
}

/* The exact sum, in 128 bits: no state holds 2^64 shards. */
static __int128
model_sum(const unsigned char *s, size_t n)
{
	__int128	sum = 0;

	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		sum += sh.value;
	}
	return sum;
}

/*
 * A shard as 32 bytes whose memcmp order is the order of (id, clock, value):
 * the id, then clock and value big-endian with the sign bit flipped.
 */
static void
model_key(const unsigned char *s, size_t i, unsigned char *key)
{
	cc_shard	sh;
	uint64_t	u[2];

	cc_load(s, i, &sh);
	memcpy(key, sh.id, CC_ID_LEN);
	u[0] = (uint64_t) sh.clock ^ (UINT64_C(1) << 63);
	u[1] = (uint64_t) sh.value ^ (UINT64_C(1) << 63);
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < 8; k++)
			key[CC_ID_LEN + 8 * w + k] = (unsigned char) (u[w] >> (56 - 8 * k));
}

int
order_model(const unsigned char *a, size_t na, bool ta,
			const unsigned char *b, size_t nb, bool tb)
{
	__int128	sa,
				sb;

	if (ta != tb)
		return ta ? 1 : -1;
	if (ta)
		return 0;
	sa = model_sum(a, na);
	sb = model_sum(b, nb);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	for (size_t i = 0; i < na && i < nb; i++)
	{
		unsigned char ka[CC_SHARD_SIZE],
					kb[CC_SHARD_SIZE];
		int			c;

		model_key(a, i, ka);
		model_key(b, i, kb);
		if ((c = memcmp(ka, kb, CC_SHARD_SIZE)) != 0)
			return order_sign(c);
	}
	return (na > nb) - (na < nb);
}

/* States in strictly ascending order. */
static const char *const ascending[] = {
	/* sums below the bigint range: -2^64, then -2^63 - 1 */
	"{" A ":1:" MIN ", " B ":1:" MIN "}",
	"{" A ":1:" MIN ", " B ":1:-1}",
	"{" A ":1:" MIN "}",
	"{" D ":1:-2}",
	"{" A ":1:-1}",
	/* sum 0: the empty state first, then by (id, clock, value) */
	"{}",
	"{" A ":1:-5, " B ":1:5}",
	"{" A ":1:0}",
	"{" A ":1:0, " B ":1:0}",
	"{" A ":1:0, " X ":1:0}",
	"{" A ":2:-1, " D ":1:1}",
	"{" A ":2:0}",
	"{" A ":" MAX ":0}",
	"{" B ":1:0}",
	"{" X ":1:0}",
	"{" Y ":1:0}",
	"{" D ":1:0}",
	/* sum 1 */
	"{" A ":1:1}",
	"{" D ":1:1}",
	/* up to the top of the range and beyond */
	"{" A ":1:" MAX "}",
	"{" A ":1:" MAX ", " B ":1:1}",
	/* 2^64 - 5: a sum that wrapped once would read as -5 */
	"{" A ":1:" MAX ", " B ":1:" MAX ", " D ":1:-3}",
	"{" A ":1:" MAX ", " B ":1:" MAX ", " D ":1:2}",
	"{" A ":1:" MAX ", " B ":1:" MAX ", " D ":1:" MAX "}",
	"tombstone",
};

#define N_ASC (sizeof(ascending) / sizeof(ascending[0]))

void
test_order(void)
{
	static unsigned char s[N_ASC][4 * CC_SHARD_SIZE];
	size_t		n[N_ASC];
	bool		t[N_ASC];

	for (size_t i = 0; i < N_ASC; i++)
		n[i] = state_from_text(ascending[i], s[i], &t[i]);

	for (size_t i = 0; i < N_ASC; i++)
		for (size_t j = 0; j < N_ASC; j++)
		{
			int			want = (i > j) - (i < j);
			int			got = order_sign(cc_compare(s[i], n[i], t[i], s[j], n[j], t[j]));
			int			model = order_model(s[i], n[i], t[i], s[j], n[j], t[j]);

			CHECKF(got == want, "compare(%s, %s) = %d, expected %d",
				   ascending[i], ascending[j], got, want);
			CHECKF(model == want, "model(%s, %s) = %d, expected %d",
				   ascending[i], ascending[j], model, want);
		}

	/* equal states written apart compare equal; a tombstone equals itself */
	{
		unsigned char u[4 * CC_SHARD_SIZE],
					v[4 * CC_SHARD_SIZE];
		bool		tu,
					tv;
		size_t		nu = state_from_text("{" D ":3:" MIN ", " A ":1:7}", u, &tu);
		size_t		nv = state_from_text(" { " A " : 01 : +7 , " D " : 3 : " MIN " } ", v, &tv);

		CHECK(cc_compare(u, nu, tu, v, nv, tv) == 0);
		CHECK(cc_compare(u, 0, true, v, 0, true) == 0);
		/* a tombstone is after {} and after the largest sum */
		CHECK(cc_compare(u, 0, true, v, 0, false) > 0);
		CHECK(cc_compare(u, 0, false, v, 0, true) < 0);
	}

	/* shards at odd addresses compare alike */
	{
		static unsigned char odd[8 + 4 * CC_SHARD_SIZE];

		for (size_t off = 1; off < 8; off++)
		{
			memcpy(odd + off, s[8], n[8] * CC_SHARD_SIZE);
			CHECK(cc_compare(odd + off, n[8], false, s[8], n[8], false) == 0);
			CHECK(cc_compare(odd + off, n[8], false, s[9], n[9], false) < 0);
		}
	}
}
