/*
 * core_random.c
 *	  Randomized checks of the merge laws and of the round trips, as states
 *	  (byte for byte), not only as values.
 *
 * Ids come from a small pool so that shared ids and ties are the rule, and
 * the pool straddles the signed/unsigned boundary (7fff... / 8000...) where
 * a signed comparison would order ids wrongly.  Clocks and values are mostly
 * tiny, so that equal clocks are common, with the bigint edges mixed in.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_ossl.h"
#include "cc_test.h"
#include "cc_test_states.h"

#define MAXN 8
#define POOL 12

typedef struct rstate
{
	unsigned char s[2 * 2 * MAXN * CC_SHARD_SIZE];
	size_t		n;
	bool		tombstone;
} rstate;

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	/* splitmix64 */
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint8_t pool[POOL][CC_ID_LEN];

static void
make_pool(void)
{
	/* 0..8: on the edges of the orderings */
	memcpy(pool, cc_edge_ids, sizeof(cc_edge_ids));
	/* 9..11: random */
	for (int i = 9; i < POOL; i++)
		for (int j = 0; j < CC_ID_LEN; j++)
			pool[i][j] = (uint8_t) rnd();
}

static int64_t
rnd_value(void)
{
	switch (rnd() % 16)
	{
		case 0:
			return INT64_MAX;
		case 1:
			return INT64_MIN;
		case 2:
			return (int64_t) rnd();
		default:
			return (int64_t) (rnd() % 5) - 2;
	}
}

static int64_t
rnd_clock(void)
{
	switch (rnd() % 32)
	{
		case 0:
			return INT64_MAX;
		case 1:
			return (int64_t) (rnd() >> 1) | 1;
		default:
			return (int64_t) (rnd() % 3) + 1;
	}
}

/* A random canonical state: a subset of the pool, in id order. */
static void
rnd_state(rstate *r)
{
	bool		pick[POOL] = {false};
	size_t		want;
	cc_shard	sh[POOL];
	size_t		k = 0;

	r->n = 0;
	r->tombstone = (rnd() % 24 == 0);
	if (r->tombstone)
		return;
	want = rnd() % (MAXN + 1);
	for (size_t i = 0; i < want; i++)
		pick[rnd() % POOL] = true;
	for (int i = 0; i < POOL; i++)
		if (pick[i])
		{
			memcpy(sh[k].id, pool[i], CC_ID_LEN);
			sh[k].clock = rnd_clock();
			sh[k].value = rnd_value();
			k++;
		}
	cc_test_sort_by_id(sh, k);
	for (size_t i = 0; i < k; i++)
		cc_store(r->s, i, &sh[i]);
	r->n = k;
}

/* merge(a, b) the way the SQL function does it: plan, then build. */
static void
merge_states(const rstate *a, const rstate *b, rstate *out)
{
	cc_view		va = {a->s, a->n, a->tombstone},
				vb = {b->s, b->n, b->tombstone};

	switch (cc_merge_plan(&va, &vb))
	{
		case CC_MERGE_TAKE_A:
			*out = *a;
			break;
		case CC_MERGE_TAKE_B:
			*out = *b;
			break;
		case CC_MERGE_BUILD:
			out->tombstone = false;
			out->n = cc_merge(a->s, a->n, b->s, b->n, out->s);
			break;
	}
}

static bool
same(const rstate *a, const rstate *b)
{
	return cc_equal(a->s, a->n, a->tombstone, b->s, b->n, b->tombstone);
}

static long failures_shown = 0;

static void
report(const char *law, const rstate *a, const rstate *b, const rstate *c)
{
	if (failures_shown++ >= 10)
		return;
	fprintf(stderr, "law %s broken:\n  a = %s\n", law, state_text(a->s, a->n, a->tombstone));
	if (b)
		fprintf(stderr, "  b = %s\n", state_text(b->s, b->n, b->tombstone));
	if (c)
		fprintf(stderr, "  c = %s\n", state_text(c->s, c->n, c->tombstone));
}

/* Tallies one law over all cases: one check in the totals per law. */
typedef struct law
{
	const char *name;
	long		broken;
} law;

static void
tally(law *l, bool ok, const rstate *a, const rstate *b, const rstate *c)
{
	if (!ok)
	{
		l->broken++;
		report(l->name, a, b, c);
	}
}

void
test_random(long cases)
{
	static rstate a,
				b,
				c,
				ab,
				ba,
				bc,
				ab_c,
				a_bc,
				aa,
				x;
	law			comm = {"commutative", 0},
				assoc = {"associative", 0},
				idem = {"idempotent", 0},
				canon = {"canonical result", 0},
				text = {"parse(format(x)) = x", 0},
				wire = {"decode(encode(x)) = x", 0},
				into = {"merge_into = merge", 0},
				into_narrow = {"merge_into of stored narrow shards = merge", 0},
				digest = {"digest agrees with equality", 0},
				inc = {"increment dominates its input", 0},
				val = {"increment adds delta to the value", 0},
				ord_model = {"order agrees with the model (exact sums, then shards)", 0},
				ord_anti = {"order antisymmetric", 0},
				ord_eq = {"order 0 exactly when equal", 0},
				ord_trans = {"order transitive", 0},
				diff = {"merge(b, difference(a, b)) = merge(a, b)", 0},
				diff_none = {"difference(a, b) is none iff merge(a, b) = b", 0},
				diff_sub = {"difference(a, b) is the shards of a that win", 0},
				stored = {"open(pack(x)) = x, as the byte map has it", 0};
	law		   *laws[] = {&comm, &assoc, &idem, &canon, &text, &wire, &into,
	&into_narrow, &digest, &inc, &val, &ord_model, &ord_anti, &ord_eq, &ord_trans,
	&diff, &diff_none, &diff_sub, &stored};
	const char *seed_env = getenv("CC_TEST_SEED");
	uint64_t	seed = seed_env ? strtoull(seed_env, NULL, 0) : 0x5eed2026ULL;
	long		shared_ids = 0,
				ties = 0,
				boundary = 0,
				sum_ties = 0,
				wide_sums = 0;
	stored_seen seen = {0, 0, 0, 0};

	/*
	 * One shard of a set to a clock or value on either side of the limits
	 * of a narrow shard, chosen by the case number (the random stream stays
	 * as it is).
	 */
	static const int64_t narrow_edges[][2] = {
		{INT64_C(4294967295), 0}, {INT64_C(4294967296), 0},
		{1, INT32_MAX}, {1, (int64_t) INT32_MAX + 1},
		{1, INT32_MIN}, {1, (int64_t) INT32_MIN - 1},
		{INT64_C(4294967295), -1}, {2, -1},
	};

	rng_state = seed;
	make_pool();
	for (long i = 0; i < cases; i++)
	{
		char		txt[2048];
		unsigned char wbuf[CC_WIRE_HEADER + 2 * MAXN * CC_SHARD_SIZE];
		size_t		n;
		bool		t;
		cc_error	err;

		rnd_state(&a);
		rnd_state(&b);
		rnd_state(&c);

		merge_states(&a, &b, &ab);
		merge_states(&b, &a, &ba);
		tally(&comm, same(&ab, &ba), &a, &b, NULL);

		merge_states(&ab, &c, &ab_c);
		merge_states(&b, &c, &bc);
		merge_states(&a, &bc, &a_bc);
		tally(&assoc, same(&ab_c, &a_bc), &a, &b, &c);

		merge_states(&a, &a, &aa);
		tally(&idem, same(&aa, &a), &a, NULL, NULL);

		tally(&canon, cc_check_canonical(ab.s, ab.n, CC_ERR_SYNTAX, NULL) == CC_OK &&
			  (!ab.tombstone || ab.n == 0), &a, &b, NULL);

		/* in place merge, when it applies, agrees */
		if (!a.tombstone && !b.tombstone)
		{
			x = a;
			if (cc_merge_into(x.s, x.n, b.s, b.n))
				tally(&into, same(&x, &ab), &a, &b, NULL);
			else
			{
				/* a partial in-place merge finished by cc_merge is the merge */
				rstate		y;

				y.tombstone = false;
				y.n = cc_merge(x.s, x.n, b.s, b.n, y.s);
				tally(&into, same(&y, &ab), &a, &b, NULL);
			}
		}

		/*
		 * The same with b as a table stores it: when b packs into records
		 * narrower than 32 bytes, the aggregate merges them where they lie.
		 */
		if (!a.tombstone && !b.tombstone)
		{
			static unsigned char packed[CC_STORED_HEADER + sizeof(b.s)];
			cc_stored	st;

			memcpy(packed + CC_STORED_HEADER, b.s, b.n * CC_SHARD_SIZE);
			if (cc_stored_open(packed, cc_stored_pack(packed, b.n, false), &st, NULL) == CC_OK &&
				st.lay != CC_LAY_WIDE)
			{
				x = a;
				if (cc_merge_into_stored(x.s, x.n, st.shards, st.n, st.lay))
					tally(&into_narrow, same(&x, &ab), &a, &b, NULL);
				else
				{
					rstate		y;

					y.tombstone = false;
					y.n = cc_merge(x.s, x.n, b.s, b.n, y.s);
					tally(&into_narrow, same(&y, &ab), &a, &b, NULL);
				}
			}
		}

		/* round trips */
		cc_format(&cc_test_ids, ab_c.s, ab_c.n, ab_c.tombstone, txt);
		x.n = 0;
		tally(&text, cc_parse(&cc_test_ids, txt, strlen(txt), x.s, &x.n, &x.tombstone, &err) == CC_OK &&
			  same(&x, &ab_c), &ab_c, NULL, NULL);
		cc_encode(ab.s, ab.n, ab.tombstone, wbuf);
		tally(&wire, cc_decode_header(wbuf, cc_wire_size(ab.n), &n, &t, &err) == CC_OK &&
			  cc_decode_shards(wbuf, n, x.s, &err) == CC_OK &&
			  (x.n = n, x.tombstone = t, same(&x, &ab)), &ab, NULL, NULL);

		/* digests agree with state equality */
		{
			uint8_t		d1[CC_DIGEST_LEN],
						d2[CC_DIGEST_LEN];

			ossl_digest(ab.s, ab.n, ab.tombstone, d1);
			ossl_digest(c.s, c.n, c.tombstone, d2);
			tally(&digest, (memcmp(d1, d2, CC_DIGEST_LEN) == 0) == same(&ab, &c),
				  &ab, &c, NULL);
		}

		/*
		 * The order, on the random states, their merges and a copy of a with
		 * one field changed: the same as the model, antisymmetric, 0 exactly
		 * for equal states, transitive.
		 */
		{
			const rstate *st[] = {&a, &b, &c, &ab, &ab_c, &x};
			const size_t nst = sizeof(st) / sizeof(st[0]);
			int			cmp[6][6];

			x = a;
			if (x.n > 0)
			{
				size_t		k = rnd() % x.n;
				cc_shard	sh;

				cc_load(x.s, k, &sh);
				if (rnd() % 2)
					sh.value = (int64_t) ((uint64_t) sh.value ^ (UINT64_C(1) << (rnd() % 64)));
				else
					sh.clock = sh.clock == INT64_MAX ? 1 : sh.clock + 1;
				cc_store(x.s, k, &sh);
			}
			for (size_t p = 0; p < nst; p++)
				for (size_t q = 0; q < nst; q++)
				{
					const rstate *u = st[p],
							   *v = st[q];

					cmp[p][q] = order_sign(cc_compare(u->s, u->n, u->tombstone,
													  v->s, v->n, v->tombstone));
					tally(&ord_model, cmp[p][q] == order_model(u->s, u->n, u->tombstone,
															   v->s, v->n, v->tombstone),
						  u, v, NULL);
					tally(&ord_eq, (cmp[p][q] == 0) == same(u, v), u, v, NULL);
				}
			for (size_t p = 0; p < nst; p++)
				for (size_t q = 0; q < nst; q++)
				{
					tally(&ord_anti, cmp[p][q] == -cmp[q][p], st[p], st[q], NULL);
					for (size_t r = 0; r < nst; r++)
						if (cmp[p][q] <= 0 && cmp[q][r] <= 0)
							tally(&ord_trans, cmp[p][r] <= 0 &&
								  (cmp[p][r] < 0) == (cmp[p][q] < 0 || cmp[q][r] < 0),
								  st[p], st[q], st[r]);
				}
			if (!a.tombstone && !b.tombstone && !same(&a, &b))
			{
				int64_t		sa,
							sb;
				cc_code		ra = cc_sum(a.s, a.n, &sa, NULL),
							rb = cc_sum(b.s, b.n, &sb, NULL);

				sum_ties += ra == CC_OK && rb == CC_OK && sa == sb;
				wide_sums += ra != CC_OK;
			}
		}

		/* the difference is what a adds to b, taken from a */
		{
			cc_view		va = {a.s, a.n, a.tombstone},
						vb = {b.s, b.n, b.tombstone};
			cc_diff_kind kind = cc_difference(&va, &vb, x.s, &x.n);
			rstate		bx;

			x.tombstone = (kind == CC_DIFF_TOMBSTONE);
			if (kind == CC_DIFF_NONE)
				bx = b;
			else
				merge_states(&b, &x, &bx);
			tally(&diff, same(&bx, &ab), &a, &b, NULL);
			tally(&diff_none, (kind == CC_DIFF_NONE) == same(&ab, &b), &a, &b, NULL);
			tally(&diff_sub, kind != CC_DIFF_SHARDS ||
				  (x.n > 0 && cc_test_is_winners(a.s, a.n, b.s, b.n, x.s, x.n)),
				  &a, &b, NULL);
		}

		/* a leader increment is above its input: merging them gives it */
		if (!a.tombstone)
		{
			const uint8_t *w = pool[rnd() % POOL];
			int64_t		delta = (int64_t) (rnd() % 7) - 3;
			int64_t		before,
						after;

			if (cc_increment(a.s, a.n, w, delta, false, x.s, &x.n, &err) == CC_OK)
			{
				x.tombstone = false;
				merge_states(&a, &x, &ab);
				tally(&inc, same(&ab, &x) && !same(&x, &a), &a, &x, NULL);
				if (cc_sum(a.s, a.n, &before, NULL) == CC_OK &&
					cc_sum(x.s, x.n, &after, NULL) == CC_OK)
					tally(&val, after - before == delta, &a, &x, NULL);
			}
		}

		/* the stored form of inputs, merges and edges of narrowness */
		tally(&stored, stored_round_trip(a.s, a.n, a.tombstone, false, &seen), &a, NULL, NULL);
		tally(&stored, stored_round_trip(ab_c.s, ab_c.n, ab_c.tombstone, false, &seen),
			  &ab_c, NULL, NULL);
		if (!a.tombstone && a.n > 0)
		{
			const int64_t *edge = narrow_edges[i % 8];
			cc_shard	sh;

			x = a;
			cc_load(x.s, (size_t) (i / 8) % x.n, &sh);
			sh.clock = edge[0];
			sh.value = edge[1];
			cc_store(x.s, (size_t) (i / 8) % x.n, &sh);
			tally(&stored, stored_round_trip(x.s, x.n, false, false, &seen), &x, NULL, NULL);
		}

		/* how often the interesting cases come up */
		for (size_t k = 0; k < a.n; k++)
			for (size_t m = 0; m < b.n; m++)
			{
				cc_shard	sa,
							sb;

				cc_load(a.s, k, &sa);
				cc_load(b.s, m, &sb);
				if (cc_id_cmp(sa.id, sb.id) == 0)
				{
					shared_ids++;
					if (sa.clock == sb.clock)
						ties++;
				}
			}
		if (!a.tombstone && a.n >= 2)
		{
			bool		lo = false,
						hi = false;

			for (size_t k = 0; k < a.n; k++)
			{
				lo |= a.s[k * CC_SHARD_SIZE] == 0x7f;
				hi |= a.s[k * CC_SHARD_SIZE] >= 0x80;
			}
			boundary += lo && hi;
		}
	}

	for (size_t i = 0; i < sizeof(laws) / sizeof(laws[0]); i++)
		CHECKF(laws[i]->broken == 0, "%s: broken in %ld of %ld cases",
			   laws[i]->name, laws[i]->broken, cases);
	/* the generator must actually produce ties, shared ids and the boundary */
	CHECKF(cases < 1000 || (shared_ids > cases / 2 && ties > cases / 10 &&
							boundary > cases / 10),
		   "too few interesting cases: %ld shared ids, %ld ties, %ld across the boundary",
		   shared_ids, ties, boundary);
	/* and different states of equal sums, and sums outside bigint */
	CHECKF(cases < 1000 || (sum_ties > cases / 50 && wide_sums > cases / 50),
		   "too few interesting cases for the order: %ld equal sums, %ld sums outside bigint",
		   sum_ties, wide_sums);
	/* and stored values of both layouts, out of range and tombstones */
	CHECKF(cases < 1000 || (seen.narrow > cases / 10 && seen.wide > cases / 10 &&
							seen.overflow > cases / 50 && seen.tombstone > cases / 50),
		   "too few interesting stored values: %ld narrow, %ld wide, %ld out of range, %ld tombstones",
		   seen.narrow, seen.wide, seen.overflow, seen.tombstone);
	printf("random: %ld cases (seed 0x%" PRIx64 "): stored %ld narrow, %ld wide, %ld out of range, %ld tombstones\n",
		   cases, seed, seen.narrow, seen.wide, seen.overflow, seen.tombstone);
	printf("random: %ld cases (seed 0x%" PRIx64 "): %ld shared ids, %ld equal-clock ties, %ld states across 7fff/8000, "
		   "%ld different states of equal sums, %ld sums outside bigint\n",
		   cases, seed, shared_ids, ties, boundary, sum_ties, wide_sums);
}
