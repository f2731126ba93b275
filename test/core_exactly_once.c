/*
 * core_exactly_once.c
 *	  Unit tests of the exactly-once increment, cc_increment_at(): hand-picked
 *	  cases, then random ones against a model written apart from the core,
 *	  and the property it exists for: a stream of numbered increments with
 *	  random replays of what came before gives the state of the stream
 *	  without them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_test.h"
#include "cc_test_states.h"

#define W "22222222-2222-2222-2222-222222222222"

static unsigned char ein[64 * CC_SHARD_SIZE],
			eout[65 * CC_SHARD_SIZE];

/* increment_at of a state given as text: the resulting text, or the error. */
static void
check_at(const char *in, int64_t delta, const char *writer, int64_t clock,
		 const char *expected, bool applied_expected)
{
	bool		t,
				applied = !applied_expected;
	uint8_t		w[CC_ID_LEN];
	size_t		n = state_from_text(in, ein, &t),
				nout = 0;
	cc_error	err;
	cc_code		rc;
	const char *got;

	CHECK(cc_uuid_parse(writer, strlen(writer), w));
	rc = cc_increment_at(ein, n, w, delta, clock, eout, &nout, &applied, &err);
	got = rc == CC_OK ? state_text(eout, nout, false) : err.detail;
	CHECKF(rc == CC_OK && strcmp(got, expected) == 0 && applied == applied_expected,
		   "increment_at(%s, %lld, %s, %lld) = %s (applied %d), expected %s",
		   in, (long long) delta, writer, (long long) clock, got, applied, expected);
}

static void
check_at_fails(const char *in, int64_t delta, int64_t clock, cc_code code,
			   const char *detail_has)
{
	bool		t,
				applied;
	uint8_t		w[CC_ID_LEN];
	size_t		n = state_from_text(in, ein, &t),
				nout;
	cc_error	err;
	cc_code		rc;

	cc_uuid_parse(W, strlen(W), w);
	err.detail[0] = '\0';
	rc = cc_increment_at(ein, n, w, delta, clock, eout, &nout, &applied, &err);
	CHECKF(rc == code && err.code == code && strstr(err.detail, detail_has) != NULL,
		   "increment_at(%s, %lld, clock %lld) should fail with %d mentioning \"%s\"; got %d \"%s\"",
		   in, (long long) delta, (long long) clock, (int) code, detail_has, (int) rc, err.detail);
	CHECK(cc_increment_at(ein, n, w, delta, clock, eout, &nout, &applied, NULL) == code);
}

static void
test_cases(void)
{
	check_at("{}", 5, W, 7, "{" W ":7:5}", true);
	check_at("{}", 0, W, 1, "{" W ":1:0}", true);
	check_at("{" W ":7:5}", 3, W, 8, "{" W ":8:8}", true);
	check_at("{" W ":7:5}", -3, W, 1000, "{" W ":1000:2}", true);
	/* replays: equal or lower clock, whatever the delta */
	check_at("{" W ":7:5}", 3, W, 7, "{" W ":7:5}", false);
	check_at("{" W ":7:5}", 99, W, 6, "{" W ":7:5}", false);
	check_at("{" W ":7:5}", 99, W, 1, "{" W ":7:5}", false);
	check_at("{" W ":9223372036854775807:5}", 1, W, 9223372036854775807, "{" W ":9223372036854775807:5}", false);
	check_at("{" W ":5:9223372036854775807}", 1, W, 5, "{" W ":5:9223372036854775807}", false);
	/* other shards untouched; a new writer in unsigned id order */
	check_at("{11111111-1111-1111-1111-111111111111:3:30, 33333333-3333-3333-3333-333333333333:2:20}",
			 4, "00000000-0000-0000-0000-000000000000", 1,
			 "{00000000-0000-0000-0000-000000000000:1:4, 11111111-1111-1111-1111-111111111111:3:30, 33333333-3333-3333-3333-333333333333:2:20}", true);
	check_at("{11111111-1111-1111-1111-111111111111:3:30, 33333333-3333-3333-3333-333333333333:2:20}",
			 4, W, 2,
			 "{11111111-1111-1111-1111-111111111111:3:30, " W ":2:4, 33333333-3333-3333-3333-333333333333:2:20}", true);
	check_at("{7fffffff-ffff-ffff-ffff-ffffffffffff:3:30}", 4, "80000000-0000-0000-0000-000000000000", 1,
			 "{7fffffff-ffff-ffff-ffff-ffffffffffff:3:30, 80000000-0000-0000-0000-000000000000:1:4}", true);
	check_at("{80000000-0000-0000-0000-000000000000:3:30}", 4, "7fffffff-ffff-ffff-ffff-ffffffffffff", 1,
			 "{7fffffff-ffff-ffff-ffff-ffffffffffff:1:4, 80000000-0000-0000-0000-000000000000:3:30}", true);
	check_at("{11111111-1111-1111-1111-111111111111:3:30, " W ":5:-1, 33333333-3333-3333-3333-333333333333:2:20}",
			 4, W, 6,
			 "{11111111-1111-1111-1111-111111111111:3:30, " W ":6:3, 33333333-3333-3333-3333-333333333333:2:20}", true);
	/* edges */
	check_at("{}", INT64_MIN, W, INT64_MAX, "{" W ":9223372036854775807:-9223372036854775808}", true);
	check_at("{" W ":1:9223372036854775806}", 1, W, 2, "{" W ":2:9223372036854775807}", true);
	check_at("{" W ":1:-9223372036854775807}", -1, W, 2, "{" W ":2:-9223372036854775808}", true);

	/* errors */
	check_at_fails("{}", 1, 0, CC_ERR_ARGUMENT, "The clock is 0; clocks start at 1.");
	check_at_fails("{" W ":7:5}", 1, -1, CC_ERR_ARGUMENT, "clocks start at 1");
	check_at_fails("{}", 1, INT64_MIN, CC_ERR_ARGUMENT, "clocks start at 1");
	check_at_fails("{" W ":1:9223372036854775807}", 1, 2, CC_ERR_OVERFLOW,
				   "Adding 1 to the shard of writer " W " leaves the bigint range.");
	check_at_fails("{" W ":1:-9223372036854775808}", -1, 2, CC_ERR_OVERFLOW, "leaves the bigint range");
	check_at_fails("{}", 0, 0, CC_ERR_ARGUMENT, "clocks start at 1");
}

/* ------------------------------------------------------------- random */

static uint64_t xrng;

static uint64_t
xrnd(void)
{
	return cc_test_splitmix(&xrng);
}

/* A random canonical state from the edge ids, at most CC_EDGE_IDS shards. */
static size_t
xrnd_state(unsigned char *out)
{
	cc_shard	sh[CC_EDGE_IDS];
	size_t		n = 0;

	for (int i = 0; i < CC_EDGE_IDS; i++)
		if (xrnd() % 2)
		{
			memcpy(sh[n].id, cc_edge_ids[i], CC_ID_LEN);
			sh[n].clock = xrnd() % 6 == 0 ? INT64_MAX : (int64_t) (xrnd() % 5) + 1;
			sh[n].value = xrnd() % 6 == 0 ? (xrnd() % 2 ? INT64_MAX : INT64_MIN)
				: (int64_t) (xrnd() % 7) - 3;
			n++;
		}
	cc_test_sort_by_id(sh, n);
	for (size_t i = 0; i < n; i++)
		cc_store(out, i, &sh[i]);
	return n;
}

/*
 * The model, from contract 8.1 alone: find the writer's shard by memcmp (absent:
 * clock 0, value 0); clock < 1 is an error; a clock not above the shard's is
 * a replay that changes nothing; otherwise the shard becomes (clock, value +
 * delta), an error if that leaves int64; every other shard stays.
 */
static void
test_model(long cases)
{
	long		broken = 0;

	for (long i = 0; i < cases; i++)
	{
		size_t		n = xrnd_state(ein),
					nout = 0;
		const uint8_t *w = cc_edge_ids[xrnd() % CC_EDGE_IDS];
		int64_t		delta = xrnd() % 5 == 0 ? (xrnd() % 2 ? INT64_MAX : INT64_MIN)
			: (int64_t) (xrnd() % 7) - 3;
		int64_t		old_clock = 0,
					old_value = 0,
					clock;
		bool		applied = false;
		cc_error	err;
		cc_code		rc,
					want_rc;
		__int128	sum;
		bool		ok = true;

		for (size_t k = 0; k < n; k++)
			if (memcmp(ein + k * CC_SHARD_SIZE, w, CC_ID_LEN) == 0)
			{
				cc_shard	sh;

				cc_load(ein, k, &sh);
				old_clock = sh.clock;
				old_value = sh.value;
			}
		switch (xrnd() % 6)
		{
			case 0:
				clock = old_clock;
				break;
			case 1:
				clock = old_clock - 1;
				break;
			case 2:
				clock = old_clock == INT64_MAX ? INT64_MAX : old_clock + 1;
				break;
			case 3:
				clock = INT64_MAX;
				break;
			case 4:
				clock = (int64_t) (xrnd() % 8) - 2;
				break;
			default:
				clock = (int64_t) (xrnd() >> 1);
				break;
		}
		sum = (__int128) old_value + delta;
		if (clock < 1)
			want_rc = CC_ERR_ARGUMENT;
		else if (clock <= old_clock)
			want_rc = CC_OK;
		else if (sum > INT64_MAX || sum < INT64_MIN)
			want_rc = CC_ERR_OVERFLOW;
		else
			want_rc = CC_OK;

		rc = cc_increment_at(ein, n, w, delta, clock, eout, &nout, &applied, &err);
		ok = rc == want_rc;
		if (ok && rc == CC_OK)
		{
			bool		want_applied = clock > old_clock;
			size_t		j = 0;
			bool		seen = false;

			ok = applied == want_applied &&
				nout == n + (want_applied && old_clock == 0 ? 1 : 0) &&
				cc_check_canonical(eout, nout, CC_ERR_SYNTAX, NULL) == CC_OK;
			for (size_t k = 0; ok && k < nout; k++)
			{
				cc_shard	sh;

				cc_load(eout, k, &sh);
				if (memcmp(sh.id, w, CC_ID_LEN) == 0)
				{
					seen = true;
					ok = want_applied ? sh.clock == clock && sh.value == (int64_t) sum
						: sh.clock == old_clock && sh.value == old_value;
					if (old_clock > 0)
						j++;
				}
				else
				{
					ok = j < n && memcmp(eout + k * CC_SHARD_SIZE, ein + j * CC_SHARD_SIZE,
										 CC_SHARD_SIZE) == 0;
					j++;
				}
			}
			ok = ok && j == n && (seen || (!want_applied && old_clock == 0));
		}
		if (!ok && broken++ < 5)
			fprintf(stderr, "increment_at(%s, %lld, clock %lld): rc %d (want %d), applied %d: %s\n",
					state_text(ein, n, false), (long long) delta, (long long) clock,
					(int) rc, (int) want_rc, applied,
					rc == CC_OK ? state_text(eout, nout, false) : err.detail);
	}
	CHECKF(broken == 0, "increment_at differs from the model in %ld of %ld cases", broken, cases);
}

/*
 * A source numbers its increments 1, 2, 3, ... (offsets + 1) for several
 * writers, interleaved.  Delivered in order, with any number of replays of
 * earlier increments mixed in (a consumer that restarts from an older
 * offset), the state is the one of the stream delivered once; and the value
 * is the sum of the deltas.
 */
static void
test_replays(long cases)
{
	long		broken = 0;
	static unsigned char a[16 * CC_SHARD_SIZE],
				b[16 * CC_SHARD_SIZE],
				tmp[16 * CC_SHARD_SIZE];

	for (long i = 0; i < cases; i++)
	{
		enum
		{
			EVENTS = 24
		};
		int			writer[EVENTS];
		int64_t		delta[EVENTS],
					clock[EVENTS],
					next[3] = {1, 1, 1},
					total = 0,
					va,
					vb;
		size_t		na = 0,
					nb = 0,
					nt;
		bool		applied;

		for (int e = 0; e < EVENTS; e++)
		{
			writer[e] = (int) (xrnd() % 3);
			delta[e] = (int64_t) (xrnd() % 11) - 5;
			clock[e] = next[writer[e]];
			next[writer[e]] += 1 + (int64_t) (xrnd() % 3);	/* gaps are fine */
			total += delta[e];
		}
		for (int e = 0; e < EVENTS; e++)
		{
			/* once, in order */
			cc_increment_at(a, na, cc_edge_ids[writer[e]], delta[e], clock[e], tmp, &nt, &applied, NULL);
			memcpy(a, tmp, nt * CC_SHARD_SIZE);
			na = nt;
			/* in order, after replaying some earlier ones */
			for (int r = (int) (xrnd() % 3); r > 0; r--)
			{
				int			old = (int) (xrnd() % (uint64_t) (e + 1));

				cc_increment_at(b, nb, cc_edge_ids[writer[old]], delta[old], clock[old], tmp, &nt, &applied, NULL);
				if (applied && old < e)
					broken++;
				memcpy(b, tmp, nt * CC_SHARD_SIZE);
				nb = nt;
			}
			cc_increment_at(b, nb, cc_edge_ids[writer[e]], delta[e], clock[e], tmp, &nt, &applied, NULL);
			memcpy(b, tmp, nt * CC_SHARD_SIZE);
			nb = nt;
		}
		if (!cc_equal(a, na, false, b, nb, false) ||
			cc_sum(a, na, &va, NULL) != CC_OK || cc_sum(b, nb, &vb, NULL) != CC_OK ||
			va != total || vb != total)
			broken++;
	}
	CHECKF(broken == 0, "replayed increments changed the result in %ld of %ld streams", broken, cases);
}

void
test_exactly_once(long cases)
{
	const char *seed_env = getenv("CC_TEST_SEED");

	xrng = seed_env ? strtoull(seed_env, NULL, 0) : 0x0ffe75e7ULL;
	test_cases();
	test_model(cases / 5);
	test_replays(cases / 100);
}
