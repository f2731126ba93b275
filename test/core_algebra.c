/*
 * core_algebra.c
 *	  Unit tests of merge, increment, sum, equality, digest and the binary
 *	  layout, on hand-picked states.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cc_ossl.h"
#include "cc_test.h"

#define A "00000000-0000-0000-0000-000000000001"
#define B "7fffffff-ffff-ffff-ffff-ffffffffffff"
#define C "80000000-0000-0000-0000-000000000000"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"

static unsigned char sa[64 * CC_SHARD_SIZE],
			sb[64 * CC_SHARD_SIZE],
			sc[128 * CC_SHARD_SIZE],
			sd[128 * CC_SHARD_SIZE];

/* merge(x, y) by the core, compared with the canonical text expected. */
static void
check_merge(const char *x, const char *y, const char *expected)
{
	bool		tx,
				ty;
	size_t		nx = state_from_text(x, sa, &tx);
	size_t		ny = state_from_text(y, sb, &ty);
	cc_view		vx = {sa, nx, tx},
				vy = {sb, ny, ty};
	const char *got;
	cc_merge_kind kind = cc_merge_plan(&vx, &vy);

	if (kind == CC_MERGE_TAKE_A)
		got = state_text(sa, nx, tx);
	else if (kind == CC_MERGE_TAKE_B)
		got = state_text(sb, ny, ty);
	else
		got = state_text(sc, cc_merge(sa, nx, sb, ny, sc), false);
	CHECKF(strcmp(got, expected) == 0, "merge(%s, %s) = %s, expected %s",
		   x, y, got, expected);

	/* The plain merge agrees with the plan for live states. */
	if (!tx && !ty)
	{
		size_t		n = cc_merge(sa, nx, sb, ny, sc);

		CHECKF(n == cc_merge_count(sa, nx, sb, ny), "merge count of %s, %s", x, y);
		got = state_text(sc, n, false);
		CHECKF(strcmp(got, expected) == 0, "cc_merge(%s, %s) = %s", x, y, got);
		/* In place, when it applies, gives the same. */
		memcpy(sd, sa, nx * CC_SHARD_SIZE);
		if (cc_merge_into(sd, nx, sb, ny))
		{
			got = state_text(sd, nx, false);
			CHECKF(strcmp(got, expected) == 0, "merge_into(%s, %s) = %s", x, y, got);
		}
	}
}

static void
test_merge(void)
{
	check_merge("{}", "{}", "{}");
	check_merge("{" A ":1:5}", "{}", "{" A ":1:5}");
	check_merge("{}", "{" A ":1:5}", "{" A ":1:5}");
	/* union of ids */
	check_merge("{" A ":1:5}", "{" D ":2:7}", "{" A ":1:5, " D ":2:7}");
	/* higher clock wins, whichever value */
	check_merge("{" A ":2:1}", "{" A ":3:-100}", "{" A ":3:-100}");
	check_merge("{" A ":3:-100}", "{" A ":2:1}", "{" A ":3:-100}");
	/* equal clocks: higher value wins */
	check_merge("{" A ":4:10}", "{" A ":4:11}", "{" A ":4:11}");
	check_merge("{" A ":4:11}", "{" A ":4:10}", "{" A ":4:11}");
	/* signed/unsigned boundary: ids order as unsigned bytes */
	check_merge("{" C ":1:1}", "{" B ":1:2}", "{" B ":1:2, " C ":1:1}");
	check_merge("{" A ":1:1, " C ":5:5}", "{" B ":1:1, " C ":6:0, " D ":1:9}",
				"{" A ":1:1, " B ":1:1, " C ":6:0, " D ":1:9}");
	/* tombstones absorb */
	check_merge("tombstone", "{" A ":9:9}", "tombstone");
	check_merge("{" A ":9:9}", "tombstone", "tombstone");
	check_merge("tombstone", "tombstone", "tombstone");
	check_merge("{}", "tombstone", "tombstone");
}

static void
test_plan(void)
{
	bool		t;
	size_t		na = state_from_text("{" A ":2:2, " B ":1:1}", sa, &t);
	size_t		nb = state_from_text("{" A ":1:1}", sb, &t);
	cc_view		va = {sa, na, false},
				vb = {sb, nb, false},
				ve = {sb, 0, false};

	CHECK(cc_merge_plan(&va, &vb) == CC_MERGE_TAKE_A);
	CHECK(cc_merge_plan(&vb, &va) == CC_MERGE_TAKE_B);
	CHECK(cc_merge_plan(&va, &ve) == CC_MERGE_TAKE_A);
	CHECK(cc_merge_plan(&ve, &va) == CC_MERGE_TAKE_B);
	CHECK(cc_merge_is_noop(sa, na, sa, na));
	CHECK(!cc_merge_is_noop(sb, nb, sa, na));
	nb = state_from_text("{" A ":3:0}", sb, &t);
	vb.n = nb;
	CHECK(cc_merge_plan(&va, &vb) == CC_MERGE_BUILD);
	/* merge_into refuses an id it does not hold, and says so */
	nb = state_from_text("{" C ":1:0}", sb, &t);
	CHECK(!cc_merge_into(sa, na, sb, nb));
}

/* One increment, checked against the expected text or an overflow. */
static void
check_increment(const char *x, const char *writer, int64_t delta,
				bool subtract, const char *expected)
{
	bool		t;
	size_t		n = state_from_text(x, sa, &t);
	uint8_t		id[CC_ID_LEN];
	size_t		nout = 0;
	cc_error	err;
	cc_code		rc;

	CHECK(cc_uuid_parse(writer, strlen(writer), id));
	rc = cc_increment(sa, n, id, delta, subtract, sc, &nout, &err);
	if (expected == NULL)
		CHECKF(rc == CC_ERR_OVERFLOW && err.code == CC_ERR_OVERFLOW &&
			   strstr(err.detail, writer) != NULL,
			   "increment of %s by %lld should overflow naming the writer",
			   x, (long long) delta);
	else
	{
		const char *got = rc == CC_OK ? state_text(sc, nout, false) : "(error)";

		CHECKF(strcmp(got, expected) == 0, "%s %s %lld by %s = %s, expected %s",
			   x, subtract ? "-" : "+", (long long) delta, writer, got, expected);
		CHECK(cc_check_canonical(sc, nout, CC_ERR_SYNTAX, NULL) == CC_OK);
	}
}

static void
test_increment(void)
{
	check_increment("{}", A, 0, false, "{" A ":1:0}");
	check_increment("{}", A, 6, false, "{" A ":1:6}");
	check_increment("{" A ":1:6}", A, 1, true, "{" A ":2:5}");
	/* insertion before, between, after, and other shards untouched */
	check_increment("{" B ":4:4}", A, 1, false, "{" A ":1:1, " B ":4:4}");
	check_increment("{" A ":1:1, " D ":4:4}", C, 2, false,
					"{" A ":1:1, " C ":1:2, " D ":4:4}");
	check_increment("{" A ":1:1}", D, -3, false, "{" A ":1:1, " D ":1:-3}");
	check_increment("{" A ":1:1, " C ":7:7, " D ":1:1}", C, 3, false,
					"{" A ":1:1, " C ":8:10, " D ":1:1}");
	/* the exact edges of the value range */
	check_increment("{" A ":1:9223372036854775806}", A, 1, false,
					"{" A ":2:9223372036854775807}");
	check_increment("{" A ":1:9223372036854775807}", A, 1, false, NULL);
	check_increment("{" A ":1:-9223372036854775807}", A, 1, true,
					"{" A ":2:-9223372036854775808}");
	check_increment("{" A ":1:-9223372036854775808}", A, 1, true, NULL);
	check_increment("{}", A, INT64_MIN, false, "{" A ":1:-9223372036854775808}");
	check_increment("{}", A, INT64_MIN, true, NULL);
	check_increment("{" A ":1:-1}", A, INT64_MIN, true,
					"{" A ":2:9223372036854775807}");
	/* the clock */
	check_increment("{" A ":9223372036854775806:0}", A, 0, false,
					"{" A ":9223372036854775807:0}");
	check_increment("{" A ":9223372036854775807:0}", A, 0, false, NULL);
	/* another writer's full clock does not matter */
	check_increment("{" A ":9223372036854775807:0}", B, 1, false,
					"{" A ":9223372036854775807:0, " B ":1:1}");
}

static void
test_sum(void)
{
	bool		t;
	int64_t		sum = 42;
	cc_error	err;
	size_t		n;

	CHECK(cc_sum(sa, 0, &sum, &err) == CC_OK && sum == 0);
	n = state_from_text("{" A ":1:5, " B ":1:-7, " C ":2:100}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_OK && sum == 98);
	n = state_from_text("{" A ":1:9223372036854775807, " B ":1:-1, " C ":1:1}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_OK && sum == INT64_MAX);
	/* only the total must fit: partial sums may leave the range */
	n = state_from_text("{" A ":1:9223372036854775807, " B ":1:1, " C ":1:-2}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_OK && sum == INT64_MAX - 1);
	n = state_from_text("{" A ":1:9223372036854775807, " B ":1:9223372036854775807, "
						C ":1:-9223372036854775808, " D ":1:-9223372036854775808}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_OK && sum == -2);
	n = state_from_text("{" A ":1:-9223372036854775808, " B ":1:-9223372036854775808, "
						C ":1:9223372036854775807, " D ":1:9223372036854775807}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_OK && sum == -2);
	n = state_from_text("{" A ":1:9223372036854775807, " B ":1:9223372036854775807, "
						C ":1:-9223372036854775808}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_OK && sum == INT64_MAX - 1);
	/* a total outside the range is an error, wherever the overflow happens */
	n = state_from_text("{" A ":1:9223372036854775807, " B ":1:9223372036854775807, "
						C ":1:-1}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_ERR_OVERFLOW);
	n = state_from_text("{" A ":1:-1, " B ":1:9223372036854775807, "
						C ":1:9223372036854775807}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_ERR_OVERFLOW);
	n = state_from_text("{" A ":1:-9223372036854775808, " B ":1:-1}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_ERR_OVERFLOW);
	n = state_from_text("{" A ":1:-9223372036854775808}", sa, &t);
	CHECK(cc_sum(sa, n, &sum, &err) == CC_OK && sum == INT64_MIN);
}

static void
test_equal_digest(void)
{
	bool		t1,
				t2;
	size_t		n1 = state_from_text("{" D ":1:1, " A ":2:2}", sa, &t1);
	size_t		n2 = state_from_text(" { " A " : 2 : +2 , " D ":1:01 } ", sb, &t2);
	uint8_t		d1[CC_DIGEST_LEN],
				d2[CC_DIGEST_LEN];

	CHECK(cc_equal(sa, n1, t1, sb, n2, t2));
	ossl_digest(sa, n1, t1, d1);
	ossl_digest(sb, n2, t2, d2);
	CHECK(memcmp(d1, d2, CC_DIGEST_LEN) == 0);

	/* one clock, one value, one id, the flag: each changes both */
	{
		const char *others[] = {
			"{" A ":3:2, " D ":1:1}", "{" A ":2:3, " D ":1:1}",
			"{" B ":2:2, " D ":1:1}", "{" A ":2:2}", "{}", "tombstone",
		};

		for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		{
			n2 = state_from_text(others[i], sb, &t2);
			CHECKF(!cc_equal(sa, n1, t1, sb, n2, t2), "%s", others[i]);
			ossl_digest(sb, n2, t2, d2);
			CHECKF(memcmp(d1, d2, CC_DIGEST_LEN) != 0, "%s", others[i]);
		}
	}
	/* {} and tombstone differ in equality and digest */
	ossl_digest(sa, 0, false, d1);
	ossl_digest(sa, 0, true, d2);
	CHECK(memcmp(d1, d2, CC_DIGEST_LEN) != 0);
	CHECK(!cc_equal(sa, 0, false, sb, 0, true));
}

static void
test_binary(void)
{
	bool		t;
	size_t		n = state_from_text("{" A ":1:-1, " D ":258:7}", sa, &t);
	unsigned char wire[256];
	size_t		m;
	bool		tomb;
	cc_error	err;
	static const unsigned char expected[] = {
		1, 0, 0, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 1,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 1, 2,
		0, 0, 0, 0, 0, 0, 0, 7,
	};

	CHECK(cc_wire_size(n) == sizeof(expected));
	cc_encode(sa, n, false, wire);
	CHECK(memcmp(wire, expected, sizeof(expected)) == 0);
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_OK &&
		  m == 2 && !tomb);
	CHECK(cc_decode_shards(wire, m, sb, &err) == CC_OK &&
		  cc_equal(sa, n, false, sb, m, false));

	/* tombstone */
	cc_encode(sa, 0, true, wire);
	CHECK(wire[0] == 1 && wire[1] == 1 && cc_wire_size(0) == 6);
	CHECK(cc_decode_header(wire, 6, &m, &tomb, &err) == CC_OK && m == 0 && tomb);

	/* every truncation of the header and of the shards is refused */
	cc_encode(sa, n, false, wire);
	for (size_t len = 0; len < sizeof(expected); len++)
		CHECKF(cc_decode_header(wire, len, &m, &tomb, &err) == CC_ERR_BINARY,
			   "length %zu accepted", len);

	/* bad version, flags, counts */
	wire[0] = 2;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "version 2") != NULL);
	wire[0] = 0;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "version 0") != NULL);
	wire[0] = 0xff;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "version 255") != NULL);
	cc_encode(sa, 0, true, wire);
	wire[0] = 0;
	CHECK(cc_decode_header(wire, CC_WIRE_HEADER, &m, &tomb, &err) == CC_ERR_BINARY);
	cc_encode(sa, n, false, wire);
	wire[0] = 1;
	wire[1] = 0x02;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY);
	wire[1] = 0x01;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "tombstone") != NULL);
	wire[1] = 0;
	wire[2] = wire[3] = wire[4] = wire[5] = 0xff;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY);
	wire[2] = wire[3] = wire[4] = 0;
	wire[5] = 3;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY);
	wire[5] = 1;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY);
	wire[5] = 2;

	/*
	 * A partial shard after the announced ones: 1 to 31 bytes more than the
	 * count says, for counts 0, 1 and 2, and counts one above the whole
	 * shards present.  None is read as a shard, none is ignored.
	 */
	{
		unsigned char longer[sizeof(expected) + CC_SHARD_SIZE];

		memset(longer, 0, sizeof(longer));
		memcpy(longer, expected, sizeof(expected));
		for (uint32_t count = 0; count <= 2; count++)
		{
			longer[5] = (unsigned char) count;
			for (size_t extra = 1; extra < CC_SHARD_SIZE; extra++)
			{
				size_t		len = cc_wire_size(count) + extra;

				CHECKF(cc_decode_header(longer, len, &m, &tomb, &err) == CC_ERR_BINARY &&
					   strstr(err.detail, "shard") != NULL,
					   "count %u with %zu extra bytes accepted", (unsigned) count, extra);
				longer[5] = (unsigned char) (count + 1);
				CHECKF(cc_decode_header(longer, len, &m, &tomb, &err) == CC_ERR_BINARY,
					   "count %u with %zu bytes of its last shard accepted",
					   (unsigned) count + 1, extra);
				longer[5] = (unsigned char) count;
			}
			/* the exact length is fine */
			CHECK(cc_decode_header(longer, cc_wire_size(count), &m, &tomb, &err) == CC_OK &&
				  m == count);
		}
	}

	/* non-canonical shards: order, duplicates, clocks */
	{
		unsigned char bad[sizeof(expected)];

		memcpy(bad, expected, sizeof(bad));
		memcpy(bad + 6, expected + 38, 16);
		memcpy(bad + 38, expected + 6, 16);	/* ids swapped */
		CHECK(cc_decode_header(bad, sizeof(bad), &m, &tomb, &err) == CC_OK);
		CHECK(cc_decode_shards(bad, m, sb, &err) == CC_ERR_BINARY &&
			  strstr(err.detail, "order") != NULL);
		memcpy(bad + 38, bad + 6, 16);	/* ids equal */
		CHECK(cc_decode_shards(bad, m, sb, &err) == CC_ERR_BINARY &&
			  strstr(err.detail, "more than once") != NULL);
		memcpy(bad, expected, sizeof(bad));
		bad[29] = 0;			/* clock 0 */
		CHECK(cc_decode_shards(bad, m, sb, &err) == CC_ERR_BINARY &&
			  strstr(err.detail, "clock 0") != NULL);
		bad[22] = 0x80;			/* negative clock */
		CHECK(cc_decode_shards(bad, m, sb, &err) == CC_ERR_BINARY);
	}
}

static void
test_canonical(void)
{
	bool		t;
	size_t		n = state_from_text("{" A ":1:1, " B ":1:1}", sa, &t);
	cc_shard	s0;

	CHECK(cc_check_canonical(sa, n, CC_ERR_BINARY, NULL) == CC_OK);
	cc_load(sa, 0, &s0);
	s0.clock = 0;
	cc_store(sa, 0, &s0);
	CHECK(cc_check_canonical(sa, n, CC_ERR_BINARY, NULL) == CC_ERR_BINARY);

	/* shards at odd addresses are read and written alike */
	n = state_from_text("{" A ":1:5, " C ":2:-6}", sa, &t);
	for (size_t off = 1; off < 8; off++)
	{
		unsigned char *odd = sc + off;
		int64_t		sum = 0;

		memcpy(odd, sa, n * CC_SHARD_SIZE);
		CHECK(cc_sum(odd, n, &sum, NULL) == CC_OK && sum == -1);
		CHECK(cc_equal(odd, n, false, sa, n, false));
	}
}

void
test_algebra(void)
{
	test_merge();
	test_plan();
	test_increment();
	test_sum();
	test_equal_digest();
	test_binary();
	test_canonical();
}
