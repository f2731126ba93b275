/*
 * core_algebra.c
 *	  Unit tests of merge, increment, sum, equality, digest and the binary
 *	  layout, on hand-picked states.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cc_ossl.h"
#include "cc_test.h"
#include "cc_test_folds.h"

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
		/*
		 * In place, when it applies, gives the same; and it applies exactly
		 * when every id of y is in x (the merge has x's count of shards),
		 * whether or not y's shards win.
		 */
		memcpy(sd, sa, nx * CC_SHARD_SIZE);
		if (cc_merge_into(sd, nx, sb, ny))
		{
			CHECKF(n == nx, "merge_into(%s, %s) took ids that %s lacks", x, y, x);
			got = state_text(sd, nx, false);
			CHECKF(strcmp(got, expected) == 0, "merge_into(%s, %s) = %s", x, y, got);
		}
		else
			CHECKF(n > nx, "merge_into(%s, %s) refused, with every id of %s in %s", x, y, y, x);
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

	/* bad version, flags, counts (version 2 holds fold records: below) */
	wire[0] = 2;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "version 2") != NULL);
	wire[0] = 3;				/* the compact form: not for this reader (core_wire.c) */
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "Format version 3 is the compact form, which this reader does not take.") != NULL);
	wire[0] = 4;
	CHECK(cc_decode_header(wire, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "Format version 4 is not supported; this build reads versions 1, 2 and 3.") != NULL);
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

/* ------------------------------------------------- binary fold records */

/*
 * Decodes buf as counter_crdt_recv does: the header of either version, the
 * shards, the records, cc_fold_check().  out and fout have room for what
 * the header allows.
 */
static cc_code
wire_decode_folded(const unsigned char *buf, size_t len, cc_folded *st,
				   unsigned char *out, unsigned char *fout, bool *tomb,
				   cc_error *err)
{
	size_t		n,
				nf;
	cc_code		rc;

	if ((rc = cc_decode_header_folded(buf, len, &n, &nf, tomb, err)) != CC_OK)
		return rc;
	if ((rc = cc_decode_shards(buf, n, out, err)) != CC_OK)
		return rc;
	cc_decode_folds(buf, n, nf, fout);
	st->shards = out;
	st->n = n;
	st->folds = fout;
	st->nf = nf;
	return nf > 0 ? cc_fold_check(st, CC_ERR_BINARY, err) : CC_OK;
}

/* The folded state of a text literal, into t. */
static void
folded_from_text(const char *text, cc_test_folded *t)
{
	unsigned char room[64 * CC_SHARD_SIZE];
	cc_folded	st;
	bool		tomb;
	cc_error	err;

	memset(t, 0, sizeof(*t));
	if (cc_parse_folded(&cc_test_ids, text, strlen(text), room, &st, &tomb, &err) != CC_OK)
	{
		CHECKF(false, "test literal does not parse: %s: %s", text, err.detail);
		return;
	}
	memcpy(t->s, st.shards, st.n * CC_SHARD_SIZE);
	t->n = st.n;
	memcpy(t->f, st.folds, st.nf * CC_FOLD_SIZE);
	t->nf = st.nf;
}

/* Rejected with CC_ERR_BINARY and a detail that contains the given words. */
static void
check_wire_rejects(const unsigned char *buf, size_t len, const char *detail_has,
				   const char *what)
{
	unsigned char *copy = exact_copy(buf, len > 0 ? len : 1);
	unsigned char out[8 * CC_SHARD_SIZE],
				fout[8 * CC_FOLD_SIZE];
	cc_folded	st;
	bool		tomb;
	cc_error	err;
	cc_code		rc;
	size_t		n,
				nf;

	/* what the header lets through must fit the buffers here */
	if (cc_decode_header_folded(copy, len, &n, &nf, &tomb, NULL) == CC_OK)
		CHECKF(n <= 8 && nf <= 8, "%s: header allows %zu shards, %zu records", what, n, nf);
	err.detail[0] = '\0';
	rc = wire_decode_folded(copy, len, &st, out, fout, &tomb, &err);
	CHECKF(rc == CC_ERR_BINARY && err.code == CC_ERR_BINARY &&
		   strstr(err.detail, detail_has) != NULL,
		   "%s should fail mentioning \"%s\"; got rc %d, \"%s\"", what, detail_has,
		   (int) rc, err.detail);
	free(copy);
}

static void
test_binary_folded(void)
{
	static const unsigned char expected[] = {
		2, 0, 0, 0, 0, 1,
		/* shard 7fff...ff : 4 : 110 */
		0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0, 4,
		0, 0, 0, 0, 0, 0, 0, 110,
		/* one record */
		0, 0, 0, 1,
		0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0, 4,
		0, 0, 0, 0, 0, 0, 0, 5,
		0, 0, 0, 0, 0, 0, 0, 100,
		0, 0, 0, 0, 0, 0, 0, 100,
	};
	cc_test_folded x;
	cc_folded	v,
				back;
	unsigned char wire[sizeof(expected) + 128],
				out[8 * CC_SHARD_SIZE],
				fout[8 * CC_FOLD_SIZE];
	bool		tomb;
	cc_error	err;
	size_t		n,
				nf;

	folded_from_text("{" B ":4:110} folded {" C ">" B ":4:5:100:100}", &x);
	v = cc_test_folded_view(&x);

	/* the bytes, pinned; from the records and from the stored value alike */
	CHECK(cc_wire_folded_size(v.n, v.nf) == sizeof(expected));
	memset(wire, 0xa5, sizeof(wire));
	cc_encode_folded(v.shards, v.n, v.folds, v.nf, wire);
	CHECK(memcmp(wire, expected, sizeof(expected)) == 0 && wire[sizeof(expected)] == 0xa5);
	{
		unsigned char data[CC_STORED_FOLDED_SIZE(1, 1)];
		cc_stored	so;

		CHECK(cc_stored_open(data, cc_stored_pack_folded(data, &v), &so, &err) == CC_OK);
		memset(wire, 0, sizeof(wire));
		cc_encode_stored(&so, wire);
		CHECK(memcmp(wire, expected, sizeof(expected)) == 0);
	}
	CHECK(wire_decode_folded(expected, sizeof(expected), &back, out, fout, &tomb, &err) == CC_OK &&
		  !tomb && back.n == 1 && back.nf == 1 &&
		  memcmp(back.shards, v.shards, CC_SHARD_SIZE) == 0 &&
		  memcmp(back.folds, v.folds, CC_FOLD_SIZE) == 0);
	{
		cc_fold		f;

		cc_fold_load(back.folds, 0, &f);
		CHECK(f.tclock == 4 && f.aclock == 5 && f.avalue == 100 && f.absorbed == 100 &&
			  f.retired[0] == 0x80 && f.target[0] == 0x7f);
	}
	/* without records: version 1, as before */
	cc_encode_folded(v.shards, v.n, v.folds, 0, wire);
	CHECK(wire[0] == 1 && cc_wire_folded_size(v.n, 0) == cc_wire_size(v.n));
	CHECK(cc_decode_header_folded(wire, cc_wire_size(v.n), &n, &nf, &tomb, &err) == CC_OK &&
		  n == 1 && nf == 0 && !tomb);
	/* a reader of version 1 only refuses version 2 */
	CHECK(cc_decode_header(expected, sizeof(expected), &n, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "Format version 2 holds fold records, which this reader does not take.") != NULL);

	/* every truncation, and every extension by less than a record */
	for (size_t len = 0; len < sizeof(expected); len++)
	{
		unsigned char *cut = exact_copy(expected, len > 0 ? len : 1);

		CHECKF(cc_decode_header_folded(cut, len, &n, &nf, &tomb, &err) == CC_ERR_BINARY,
			   "length %zu accepted", len);
		free(cut);
	}
	memcpy(wire, expected, sizeof(expected));
	memset(wire + sizeof(expected), 0, sizeof(wire) - sizeof(expected));
	for (size_t extra = 1; extra <= CC_FOLD_SIZE; extra++)
	{
		CHECKF(cc_decode_header_folded(wire, sizeof(expected) + extra, &n, &nf, &tomb, &err) == CC_ERR_BINARY &&
			   strstr(err.detail, "The value announces 1 fold record but") != NULL,
			   "%zu bytes more accepted", extra);
	}

	/* header, counts and lengths */
	memcpy(wire, expected, sizeof(expected));
	wire[0] = 4;
	check_wire_rejects(wire, sizeof(expected), "Format version 4 is not supported; this build reads versions 1, 2 and 3.", "version 4");
	wire[0] = 0;
	check_wire_rejects(wire, sizeof(expected), "Format version 0 is not supported", "version 0");
	wire[0] = 2;
	wire[1] = 1;
	check_wire_rejects(wire, sizeof(expected), "A tombstone has no fold records", "a tombstone of version 2");
	wire[1] = 2;
	check_wire_rejects(wire, sizeof(expected), "Unknown flag bits 0x02 are set.", "flag 0x02");
	wire[1] = 0;
	check_wire_rejects(wire, 6, "The header announces 1 shard but the value ends before its fold record count (0 bytes after the header).",
					   "version 2 header alone");
	{
		static const unsigned char empty2[] = {2, 0, 0, 0, 0, 0};
		static const unsigned char zero2[] = {2, 0, 0, 0, 0, 0, 0, 0, 0, 0};

		check_wire_rejects(empty2, sizeof(empty2), "ends before its fold record count", "version 2, no shards, no count");
		check_wire_rejects(zero2, sizeof(zero2), "The fold record count is 0; format version 2 is for values with fold records.",
						   "version 2, record count 0");
	}
	wire[5] = 2;				/* two shards announced, one there */
	check_wire_rejects(wire, sizeof(expected), "The value announces 4294967295 fold records but 32 bytes", "shard count 2");
	wire[5] = 0;				/* no shards: the shard's bytes read as the count */
	check_wire_rejects(wire, sizeof(expected), "fold record", "shard count 0");
	wire[2] = wire[3] = wire[4] = wire[5] = 0xff;
	check_wire_rejects(wire, sizeof(expected), "The header announces 4294967295 shards but", "shard count 2^32-1");
	wire[2] = 0x08;				/* 2^27 + 1: times 32 wraps to 32 in 32 bits */
	wire[3] = wire[4] = 0;
	wire[5] = 1;
	check_wire_rejects(wire, sizeof(expected), "The header announces 134217729 shards", "shard count 2^27+1");
	memcpy(wire, expected, sizeof(expected));
	wire[38] = wire[39] = wire[40] = wire[41] = 0xff;
	check_wire_rejects(wire, sizeof(expected), "The value announces 4294967295 fold records but 64 bytes", "record count 2^32-1");
	wire[38] = 0x04;			/* 2^26 + 1: times 64 wraps to 64 in 32 bits */
	wire[39] = wire[40] = 0;
	wire[41] = 1;
	check_wire_rejects(wire, sizeof(expected), "The value announces 67108865 fold records", "record count 2^26+1");
	wire[38] = 0;
	wire[41] = 2;
	check_wire_rejects(wire, sizeof(expected), "The value announces 2 fold records but 64 bytes", "record count 2");
	wire[41] = 0;
	check_wire_rejects(wire, sizeof(expected), "The fold record count is 0", "record count 0");

	/* the records' own checks, and their agreement with the shards */
	memcpy(wire, expected, sizeof(expected));
	wire[42 + 32 + 7] = 0;		/* tclock 0 */
	check_wire_rejects(wire, sizeof(expected), "Fold record " C ">" B " has tclock 0; clocks start at 1.", "tclock 0");
	wire[42 + 32 + 7] = 4;
	wire[42 + 40] = 0x80;		/* aclock negative */
	check_wire_rejects(wire, sizeof(expected), "has aclock -9223372036854775803; clocks start at 1.", "aclock negative");
	wire[42 + 40] = 0;
	wire[42 + 32 + 7] = 5;		/* tclock above the target's shard */
	check_wire_rejects(wire, sizeof(expected), "Fold record " C ">" B " has tclock 5, newer than its target's shard (clock 4).",
					   "tclock 5");
	wire[42 + 32 + 7] = 4;
	memcpy(wire + 42, wire + 42 + 16, 16);	/* retired = target */
	check_wire_rejects(wire, sizeof(expected), "Fold record " B ">" B " names one writer as retired and target.", "A>A");
	memcpy(wire, expected, sizeof(expected));
	wire[42 + 16] = 0xff;		/* a target without a shard */
	check_wire_rejects(wire, sizeof(expected), "The target of fold record " C ">" "ff", "target without shard");
	memcpy(wire, expected, sizeof(expected));
	wire[6 + 31] = 5;			/* the target's shard still fine, clock 4 */
	{
		/* the retired writer's shard, at a clock its record has seen */
		static unsigned char two[sizeof(expected) + CC_SHARD_SIZE];
		cc_shard	late = {{0x80}, 5, 100};

		memcpy(two, expected, 38);
		two[5] = 2;
		cc_put_shard(two + 38, &late);
		memcpy(two + 70, expected + 38, sizeof(expected) - 38);
		check_wire_rejects(two, sizeof(two), "Retired writer " C " keeps its shard of clock 5, which its fold records have seen (aclock 5).",
						   "retired shard seen");
		/* one clock later it is a late write: accepted */
		two[38 + 23] = 6;
		CHECK(wire_decode_folded(two, sizeof(two), &back, out, fout, &tomb, &err) == CC_OK && back.n == 2);
		/* shards out of order */
		memcpy(two + 6, expected + 6, 32);
		memcpy(two + 38, two + 6, 16);
		check_wire_rejects(two, sizeof(two), "appears more than once", "shards repeated");
	}
	{
		/* two records: out of order, repeated */
		static unsigned char recs[sizeof(expected) + CC_FOLD_SIZE];

		folded_from_text("{" B ":5:300} folded {" C ">" B ":4:5:100:100, " D ">" B ":5:2:200:200}", &x);
		v = cc_test_folded_view(&x);
		CHECK(cc_wire_folded_size(v.n, v.nf) == sizeof(recs));
		cc_encode_folded(v.shards, v.n, v.folds, v.nf, recs);
		CHECK(wire_decode_folded(recs, sizeof(recs), &back, out, fout, &tomb, &err) == CC_OK && back.nf == 2);
		memcpy(wire, recs + 42, 64);
		memcpy(recs + 42, recs + 106, 64);
		memcpy(recs + 106, wire, 64);
		check_wire_rejects(recs, sizeof(recs), "Fold record " C ">" B " is out of ascending (retired, target) order.", "records swapped");
		memcpy(recs + 42, recs + 106, 64);
		check_wire_rejects(recs, sizeof(recs), "Fold record " C ">" B " appears more than once.", "record repeated");
	}

	/*
	 * Random folded states: the bytes of the records and of the stored
	 * value are one, decode gives the state back, and every one-byte
	 * change is either a valid state or refused (never read past the
	 * value: each is decoded from a block of its exact length).
	 */
	{
		uint64_t	rng = 0xb1a2c3ULL;
		long		bad_trip = 0,
					bad_mutant = 0,
					mutants_ok = 0;
		const int	cases = 20000;

		for (int i = 0; i < cases; i++)
		{
			static unsigned char bout[CC_TF_SHARDS * CC_SHARD_SIZE],
						bfout[CC_TF_FOLDS * CC_FOLD_SIZE];
			size_t		len;
			unsigned char *w,
					   *data;
			cc_stored	so;
			cc_code		rc;

			cc_test_random_folded(&rng, &x);
			v = cc_test_folded_view(&x);
			len = cc_wire_folded_size(v.n, v.nf);
			w = exact_alloc(len);
			data = exact_alloc(CC_STORED_FOLDED_SIZE(v.n, v.nf));
			cc_encode_folded(v.shards, v.n, v.folds, v.nf, w);
			if (cc_stored_open(data, cc_stored_pack_folded(data, &v), &so, &err) != CC_OK)
				bad_trip++;
			else
			{
				unsigned char *w2 = exact_alloc(len);

				cc_encode_stored(&so, w2);
				if (memcmp(w, w2, len) != 0)
					bad_trip++;
				free(w2);
			}
			if (wire_decode_folded(w, len, &back, bout, bfout, &tomb, &err) != CC_OK ||
				tomb || back.n != v.n || back.nf != v.nf ||
				memcmp(back.shards, v.shards, v.n * CC_SHARD_SIZE) != 0 ||
				memcmp(back.folds, v.folds, v.nf * CC_FOLD_SIZE) != 0)
			{
				if (bad_trip++ < 5)
					fprintf(stderr, "folded wire round trip broken: %s\n", err.detail);
			}

			/* one byte changed */
			{
				size_t		at = cc_test_splitmix(&rng) % len;
				unsigned char *m;
				size_t		mn,
							mnf;
				bool		mt;

				w[at] ^= (unsigned char) (1u << (cc_test_splitmix(&rng) % 8));
				m = w;
				err.code = CC_OK;
				/* room for what the header lets through, as recv allocates it */
				if ((rc = cc_decode_header_folded(m, len, &mn, &mnf, &mt, &err)) == CC_OK)
				{
					unsigned char *ms = exact_alloc(mn * CC_SHARD_SIZE + 1),
							   *mf = exact_alloc(mnf * CC_FOLD_SIZE + 1);

					rc = wire_decode_folded(m, len, &back, ms, mf, &tomb, &err);
					if (rc == CC_OK)
					{
						mutants_ok++;
						if (cc_check_canonical(back.shards, back.n, CC_ERR_BINARY, NULL) != CC_OK ||
							(back.nf > 0 && cc_fold_check(&back, CC_ERR_BINARY, NULL) != CC_OK))
							bad_mutant++;
					}
					free(ms);
					free(mf);
				}
				if (rc != CC_OK &&
					(rc != CC_ERR_BINARY || err.code != CC_ERR_BINARY || err.detail[0] == '\0'))
					bad_mutant++;
			}
			free(w);
			free(data);
		}
		CHECKF(bad_trip == 0, "folded wire round trip broken in %ld of %d cases", bad_trip, cases);
		CHECKF(bad_mutant == 0, "a mutated folded wire value gave a bad result in %ld of %d cases", bad_mutant, cases);
		CHECKF(mutants_ok > 0, "no mutant of a folded wire value was still valid");
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
	test_binary_folded();
	test_canonical();
}
