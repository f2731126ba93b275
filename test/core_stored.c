/*
 * core_stored.c
 *	  The stored form (src/core/cc_stored.c): what a value packs into, how both
 *	  layouts are opened, widened, valued and read by their first bytes, and
 *	  every header the opener must refuse.
 *
 * Expected bytes are built here from the byte map in cc_stored.h, apart from
 * the code under test, and compared byte for byte.  Every input to the
 * opener sits in a heap block that ends exactly where the input ends (the
 * prefix reader gets a block of just the bytes it may read), so the
 * AddressSanitizer build reports a read past a value.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "cc_test.h"

#define MAXN	16
#define V2		CC_STORED_HEADER
#define NARROW	CC_NARROW_SHARD_SIZE
#define WIDE	CC_SHARD_SIZE

/*
 * Input bytes in a heap block that ends where they end; an empty input is
 * the end of a one-byte block, so that even reading its first byte is seen.
 */
static unsigned char *
block_of(const void *src, size_t len)
{
	unsigned char *b = exact_alloc(len > 0 ? len : 1);

	return len > 0 ? memcpy(b, src, len) : b + 1;
}

static void
block_free(unsigned char *p, size_t len)
{
	free(len > 0 ? p : p - 1);
}

/* ------------------------------------------------------------ reference */

static bool
ref_fits_narrow(int64_t clock, int64_t value)
{
	return clock >= 0 && clock <= 4294967295LL &&
		value >= -2147483648LL && value <= 2147483647LL;
}

/*
 * The version 2 bytes of a canonical state, from the byte map: version 2,
 * flags, two zero bytes, the total (0 for a tombstone and out of range),
 * then every shard narrow when there are shards and all of them fit, else
 * wide.  Returns the length.
 */
static size_t
ref_pack(const unsigned char *s, size_t n, bool tombstone, unsigned char *out)
{
	__int128	sum = 0;
	bool		narrow = n > 0;
	bool		overflow;
	int64_t		total;
	unsigned char *p = out + V2;

	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		sum += sh.value;
		narrow = narrow && ref_fits_narrow(sh.clock, sh.value);
	}
	overflow = sum < INT64_MIN || sum > INT64_MAX;
	total = (tombstone || overflow) ? 0 : (int64_t) sum;
	out[0] = 2;
	out[1] = tombstone ? 0x01 : (uint8_t) ((overflow ? 0x02 : 0) | (narrow ? 0x04 : 0));
	out[2] = 0;
	out[3] = 0;
	memcpy(out + 4, &total, 8);
	if (tombstone)
		return V2;
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		memcpy(p, sh.id, CC_ID_LEN);
		if (narrow)
		{
			uint32_t	c = (uint32_t) sh.clock;
			int32_t		v = (int32_t) sh.value;

			memcpy(p + 16, &c, 4);
			memcpy(p + 20, &v, 4);
			p += NARROW;
		}
		else
		{
			memcpy(p + 16, &sh.clock, 8);
			memcpy(p + 24, &sh.value, 8);
			p += WIDE;
		}
	}
	return (size_t) (p - out);
}

/* The version 1 bytes of a state, as 1.0 to 1.2 wrote them. */
static size_t
ref_v1(const unsigned char *s, size_t n, bool tombstone, unsigned char *out)
{
	out[0] = 1;
	out[1] = tombstone ? 1 : 0;
	out[2] = 0;
	out[3] = 0;
	if (tombstone)
		return 4;
	memcpy(out + 4, s, n * WIDE);
	return 4 + n * WIDE;
}

/* ------------------------------------------------------------ one state */

static long failures_shown = 0;

#define EXPECT(cond) \
	do { \
		if (!(cond)) \
		{ \
			ok = false; \
			if (failures_shown++ < 10) \
				fprintf(stderr, "%s:%d: stored form of %s: %s fails\n", __FILE__, \
						__LINE__, state_text(s, n, tombstone), #cond); \
		} \
	} while (0)

bool
stored_round_trip(const unsigned char *s, size_t n, bool tombstone,
				  bool every_prefix, stored_seen *seen)
{
	bool		ok = true;
	unsigned char ref[V2 + MAXN * WIDE];
	size_t		ref_len,
				len,
				v1_len;
	unsigned char *room,
			   *packed,
			   *wide,
			   *v1;
	cc_stored	st;
	cc_error	err;
	int64_t		got,
				sum = 0;
	cc_code		sum_rc;

	if (n > MAXN)
	{
		fprintf(stderr, "stored_round_trip: %zu shards, at most %d\n", n, MAXN);
		return false;
	}
	ref_len = ref_pack(s, n, tombstone, ref);
	sum_rc = tombstone ? CC_OK : cc_sum(s, n, &sum, NULL);

	/*
	 * Built in place as the glue does: header room, then the wide records,
	 * made a tombstone after the records are written.  The header starts as
	 * garbage, which building must overwrite whole.
	 */
	room = exact_alloc(CC_STORED_BUILD_SIZE(n));
	memset(room, 0xee, V2);
	memcpy(cc_stored_build_start(room, false), s, n * WIDE);
	if (tombstone)
		cc_stored_build_tombstone(room);
	len = cc_stored_build_finish(room, n);
	EXPECT(len == ref_len);
	EXPECT(len == (tombstone ? (size_t) V2 :
				   V2 + n * ((ref[1] & 0x04) ? NARROW : WIDE)));
	EXPECT(len <= V2 + n * WIDE && memcmp(room, ref, len < ref_len ? len : ref_len) == 0);

	/* opened from a block of exactly its length */
	packed = exact_copy(room, len);
	free(room);
	memset(&st, 0x5a, sizeof(st));
	EXPECT(cc_stored_open(packed, len, &st, &err) == CC_OK);
	EXPECT(st.n == (tombstone ? 0 : n));
	EXPECT(st.tombstone == tombstone);
	EXPECT(st.total_kept);
	EXPECT(st.narrow == ((ref[1] & 0x04) != 0));
	EXPECT(st.overflow == (!tombstone && sum_rc != CC_OK));
	EXPECT(st.total == (tombstone || sum_rc != CC_OK ? 0 : sum));
	EXPECT(st.shards == packed + V2);

	/* widened into exactly n records: the shards we started from */
	wide = exact_alloc(st.n * WIDE);
	cc_stored_widen(&st, wide);
	EXPECT(memcmp(wide, s, st.n * WIDE) == 0);
	free(wide);

	/* printed and sent from the shards as they lie: as from the records */
	{
		char	   *t_stored = exact_alloc(cc_format_capacity(st.n)),
				   *t_records = exact_alloc(cc_format_capacity(st.n));
		unsigned char *w_stored = exact_alloc(cc_wire_size(st.n)),
				   *w_records = exact_alloc(cc_wire_size(st.n));
		size_t		l_stored = cc_format_stored(&cc_test_ids, &st, t_stored),
					l_records = cc_format(&cc_test_ids, s, st.n, tombstone, t_records);

		EXPECT(l_stored == l_records && memcmp(t_stored, t_records, l_stored + 1) == 0);
		cc_encode_stored(&st, w_stored);
		cc_encode(s, st.n, tombstone, w_records);
		EXPECT(memcmp(w_stored, w_records, cc_wire_size(st.n)) == 0);
		free(t_stored);
		free(t_records);
		free(w_stored);
		free(w_records);
	}

	/* the value: the sum's verdict and number */
	if (!tombstone)
	{
		cc_code		rc;

		got = 0;
		err.code = CC_OK;
		rc = cc_stored_value(&st, &got, &err);
		EXPECT(rc == sum_rc);
		EXPECT(rc != CC_OK ? err.code == CC_ERR_OVERFLOW : got == sum);
		EXPECT(cc_stored_value(&st, &got, NULL) == sum_rc);
	}

	/* the first bytes alone (a detoast slice) give the flag and total */
	for (size_t avail = V2; avail <= len;
		 avail += (every_prefix || len == V2) ? 1 : len - V2)
	{
		unsigned char *head = exact_copy(packed, avail);
		cc_stored	pt;

		memset(&pt, 0x5a, sizeof(pt));
		EXPECT(cc_stored_prefix(head, avail, &pt, &err) == CC_OK);
		EXPECT(pt.n == 0 && pt.total_kept && pt.tombstone == tombstone &&
			   pt.overflow == st.overflow && pt.total == st.total);
		free(head);
	}
	free(packed);

	/* the same state as version 1 bytes: read in place, valued by the walk */
	v1 = exact_alloc(4 + n * WIDE);
	v1_len = ref_v1(s, n, tombstone, v1);
	memset(&st, 0x5a, sizeof(st));
	EXPECT(cc_stored_open(v1, v1_len, &st, &err) == CC_OK);
	EXPECT(st.shards == v1 + 4);
	EXPECT(st.n == (tombstone ? 0 : n) && st.tombstone == tombstone);
	EXPECT(!st.total_kept && !st.narrow && !st.overflow);
	wide = exact_alloc(st.n * WIDE);
	cc_stored_widen(&st, wide);
	EXPECT(memcmp(wide, s, st.n * WIDE) == 0);
	free(wide);
	if (!tombstone)
	{
		got = 0;
		EXPECT(cc_stored_value(&st, &got, NULL) == sum_rc);
		EXPECT(sum_rc != CC_OK || got == sum);
	}
	free(v1);

	if (seen)
	{
		seen->tombstone += tombstone;
		seen->overflow += !tombstone && sum_rc != CC_OK;
		seen->narrow += (ref[1] & 0x04) != 0;
		seen->wide += !tombstone && n > 0 && (ref[1] & 0x04) == 0;
	}
	return ok;
}

/* ------------------------------------------------------------ hand-picked */

static void
put(unsigned char *s, size_t i, uint8_t idbyte, int64_t clock, int64_t value)
{
	cc_shard	sh;

	memset(sh.id, 0x5a, CC_ID_LEN);
	sh.id[0] = idbyte;
	sh.clock = clock;
	sh.value = value;
	cc_store(s, i, &sh);
}

/* Packs, in place, and returns the length and the flag byte. */
static size_t
pack_of(const unsigned char *s, size_t n, bool tombstone, uint8_t *flags,
		int64_t *total)
{
	unsigned char buf[V2 + MAXN * WIDE];

	memcpy(buf + V2, s, n * WIDE);
	memset(buf, 0xee, V2);
	n = cc_stored_pack(buf, n, tombstone);
	*flags = buf[1];
	memcpy(total, buf + 4, 8);
	return n;
}

/*
 * One shard with the given clock and value among k - 1 small narrow ones,
 * placed first, in the middle or last: the whole value is narrow exactly
 * when that shard fits, its length says which, and it comes back unchanged
 * (a negative value keeps its sign through 32 bits).
 */
static void
check_narrowness(int64_t clock, int64_t value, bool narrow)
{
	for (size_t k = 1; k <= 4; k++)
		for (size_t at = 0; at < k; at++)
		{
			unsigned char s[MAXN * WIDE];
			uint8_t		flags;
			int64_t		total;
			size_t		len;

			for (size_t i = 0; i < k; i++)
				put(s, i, (uint8_t) (0x10 * i + 1), i == at ? clock : (int64_t) i + 1,
					i == at ? value : -(int64_t) i);
			len = pack_of(s, k, false, &flags, &total);
			CHECKF(len == V2 + k * (narrow ? NARROW : WIDE) &&
				   ((flags & CC_STORED_FLAG_NARROW) != 0) == narrow,
				   "clock %" PRId64 ", value %" PRId64 " at %zu of %zu: %zu bytes, flags %02x",
				   clock, value, at, k, len, flags);
			CHECK(stored_round_trip(s, k, false, true, NULL));
		}
}

static void
stored_sizes(void)
{
	unsigned char s[MAXN * WIDE];
	uint8_t		flags;
	int64_t		total;

	/* {} and a tombstone: the header alone, flags 0 and 1, total 0 */
	CHECK(pack_of(s, 0, false, &flags, &total) == V2 && flags == 0 && total == 0);
	CHECK(pack_of(s, 0, true, &flags, &total) == V2 && flags == CC_STORED_FLAG_TOMBSTONE &&
		  total == 0);
	CHECK(stored_round_trip(s, 0, false, true, NULL));
	CHECK(stored_round_trip(s, 0, true, true, NULL));

	/* 12 + 24 n narrow, 12 + 32 n wide, for every n up to MAXN */
	for (size_t n = 1; n <= MAXN; n++)
	{
		for (size_t i = 0; i < n; i++)
			put(s, i, (uint8_t) (i * 7 + 3), (int64_t) i + 1, (int64_t) i - 3);
		CHECKF(pack_of(s, n, false, &flags, &total) == V2 + n * NARROW &&
			   flags == CC_STORED_FLAG_NARROW &&
			   total == (int64_t) (n * (n - 1) / 2) - 3 * (int64_t) n,
			   "%zu narrow shards: flags %02x, total %" PRId64, n, flags, total);
		CHECK(stored_round_trip(s, n, false, n <= 4, NULL));
		/* a tombstone made from room that held shards is still 12 bytes */
		CHECK(pack_of(s, n, true, &flags, &total) == V2 && flags == CC_STORED_FLAG_TOMBSTONE);
		put(s, n - 1, (uint8_t) ((n - 1) * 7 + 3), INT64_C(1) << 40, 1);
		CHECKF(pack_of(s, n, false, &flags, &total) == V2 + n * WIDE && flags == 0,
			   "%zu wide shards: flags %02x", n, flags);
		CHECK(stored_round_trip(s, n, false, n <= 4, NULL));
	}

	/* each side of every limit of a narrow shard */
	check_narrowness(1, 0, true);
	check_narrowness(INT64_C(4294967295), 0, true);
	check_narrowness(INT64_C(4294967296), 0, false);
	check_narrowness(INT64_MAX, 0, false);
	check_narrowness(1, INT32_MAX, true);
	check_narrowness(1, (int64_t) INT32_MAX + 1, false);
	check_narrowness(1, INT32_MIN, true);
	check_narrowness(1, (int64_t) INT32_MIN - 1, false);
	check_narrowness(1, -1, true);
	check_narrowness(INT64_C(4294967295), INT32_MIN, true);
	check_narrowness(INT64_C(4294967295), INT32_MAX, true);
	check_narrowness(1, INT64_MIN, false);
	check_narrowness(1, INT64_MAX, false);
	check_narrowness(1, INT64_C(1) << 32, false);
	check_narrowness(1, -(INT64_C(1) << 32), false);
	check_narrowness(INT64_C(1) << 33, 1, false);
}

static void
stored_totals(void)
{
	unsigned char s[MAXN * WIDE];
	uint8_t		flags;
	int64_t		total;

	/* the total at both ends of bigint is kept, one past is OVERFLOW */
	put(s, 0, 1, 1, INT64_MAX - 1);
	put(s, 1, 2, 1, 1);
	CHECK(pack_of(s, 2, false, &flags, &total) == V2 + 2 * WIDE && flags == 0 &&
		  total == INT64_MAX);
	CHECK(stored_round_trip(s, 2, false, true, NULL));
	put(s, 1, 2, 1, 2);
	CHECK(pack_of(s, 2, false, &flags, &total) == V2 + 2 * WIDE &&
		  flags == CC_STORED_FLAG_OVERFLOW && total == 0);
	CHECK(stored_round_trip(s, 2, false, true, NULL));
	put(s, 0, 1, 1, INT64_MIN + 1);
	put(s, 1, 2, 1, -1);
	CHECK(pack_of(s, 2, false, &flags, &total) == V2 + 2 * WIDE && flags == 0 &&
		  total == INT64_MIN);
	put(s, 1, 2, 1, -2);
	CHECK(pack_of(s, 2, false, &flags, &total) == V2 + 2 * WIDE &&
		  flags == CC_STORED_FLAG_OVERFLOW && total == 0);
	CHECK(stored_round_trip(s, 2, false, true, NULL));

	/* a sum that leaves bigint on the way and comes back is exact */
	put(s, 0, 1, 1, INT64_MAX);
	put(s, 1, 2, 1, INT64_MAX);
	put(s, 2, 3, 1, INT64_MIN);
	CHECK(pack_of(s, 3, false, &flags, &total) == V2 + 3 * WIDE && flags == 0 &&
		  total == INT64_MAX - 1);
	CHECK(stored_round_trip(s, 3, false, true, NULL));

	/* an overflowing sum of shards that are otherwise narrow but one */
	put(s, 0, 1, 1, 5);
	put(s, 1, 2, 1, INT64_MAX);
	put(s, 2, 3, 7, 1);
	CHECK(pack_of(s, 3, false, &flags, &total) == V2 + 3 * WIDE &&
		  flags == CC_STORED_FLAG_OVERFLOW && total == 0);
	CHECK(stored_round_trip(s, 3, false, true, NULL));

	/* a negative narrow total */
	put(s, 0, 1, 3, INT32_MIN);
	put(s, 1, 2, 4, INT32_MIN);
	CHECK(pack_of(s, 2, false, &flags, &total) == V2 + 2 * NARROW &&
		  flags == CC_STORED_FLAG_NARROW && total == 2 * (int64_t) INT32_MIN);
	CHECK(stored_round_trip(s, 2, false, true, NULL));
}

/* ------------------------------------------------------------ version 1 */

static void
stored_version1(void)
{
	unsigned char s[4 * WIDE];
	unsigned char *v1;
	cc_stored	st;
	cc_error	err;
	int64_t		value = 0;

	/* 01 00 00 00 alone: {}, value 0 */
	v1 = exact_copy("\x01\x00\x00\x00", 4);
	CHECK(cc_stored_open(v1, 4, &st, &err) == CC_OK && st.n == 0 && !st.tombstone &&
		  !st.total_kept && !st.narrow && st.shards == v1 + 4);
	CHECK(cc_stored_value(&st, &value, &err) == CC_OK && value == 0);
	free(v1);

	/* 01 01 00 00: a tombstone */
	v1 = exact_copy("\x01\x01\x00\x00", 4);
	CHECK(cc_stored_open(v1, 4, &st, &err) == CC_OK && st.n == 0 && st.tombstone &&
		  !st.total_kept);
	free(v1);

	/* records read where they lie, widened as they are, valued by the walk */
	put(s, 0, 0x01, INT64_C(4294967296), -7);
	put(s, 1, 0x80, 2, 40);
	put(s, 2, 0xff, INT64_MAX, INT32_MIN);
	v1 = exact_alloc(4 + 3 * WIDE);
	memcpy(v1, "\x01\x00\x00\x00", 4);
	memcpy(v1 + 4, s, 3 * WIDE);
	CHECK(cc_stored_open(v1, 4 + 3 * WIDE, &st, &err) == CC_OK && st.n == 3 &&
		  st.shards == v1 + 4 && !st.total_kept && !st.narrow && !st.overflow);
	CHECK(cc_stored_value(&st, &value, &err) == CC_OK &&
		  value == 33 + (int64_t) INT32_MIN);
	free(v1);

	/* a version 1 value whose sum leaves bigint: 22003 from the walk */
	put(s, 0, 0x01, 1, INT64_MAX);
	put(s, 1, 0x02, 1, 1);
	v1 = exact_alloc(4 + 2 * WIDE);
	memcpy(v1, "\x01\x00\x00\x00", 4);
	memcpy(v1 + 4, s, 2 * WIDE);
	CHECK(cc_stored_open(v1, 4 + 2 * WIDE, &st, &err) == CC_OK && st.n == 2);
	err.code = CC_OK;
	CHECK(cc_stored_value(&st, &value, &err) == CC_ERR_OVERFLOW &&
		  err.code == CC_ERR_OVERFLOW);
	free(v1);
}

/* ------------------------------------------------------------ refusals */

typedef struct stored_bytes
{
	unsigned char b[V2 + 8 + 2 * 64 + 4 * WIDE];
	size_t		len;
} stored_bytes;

/*
 * A header: version, flags, the two reserved bytes, and for version 2 (or
 * any version but 1) the total, then body bytes of 0x11 (ids 0x11.., clocks
 * and values that are never zero).
 */
static stored_bytes
mk(uint8_t version, uint8_t flags, uint8_t r2, uint8_t r3, int64_t total,
   size_t body)
{
	stored_bytes x;
	size_t		head = version == 1 ? 4 : V2;

	memset(x.b, 0x11, sizeof(x.b));
	x.b[0] = version;
	x.b[1] = flags;
	x.b[2] = r2;
	x.b[3] = r3;
	if (version != 1)
		memcpy(x.b + 4, &total, 8);
	x.len = head + body;
	return x;
}

/*
 * Refused with CC_ERR_BINARY and a printable sentence, with or without an
 * error to fill; when the header itself is wrong, the prefix reader refuses
 * its first bytes too.
 */
static void
refuse(stored_bytes x, bool header_bad, const char *what)
{
	unsigned char *in = block_of(x.b, x.len);
	cc_stored	st;
	cc_error	err;
	cc_code		rc;
	const char *end;
	bool		printable = true;

	memset(&err, 0xa5, sizeof(err));
	rc = cc_stored_open(in, x.len, &st, &err);
	end = memchr(err.detail, '\0', CC_DETAIL_LEN);
	for (const char *p = err.detail; end && p < end; p++)
		printable = printable && *p >= 0x20 && *p < 0x7f;
	CHECKF(rc == CC_ERR_BINARY && err.code == CC_ERR_BINARY && end != NULL &&
		   end > err.detail && printable, "%s (%zu bytes) gave %d", what, x.len, (int) rc);
	CHECKF(cc_stored_open(in, x.len, &st, NULL) == CC_ERR_BINARY, "%s, no error given", what);
	block_free(in, x.len);
	if (header_bad)
	{
		size_t		avail = x.len < V2 ? x.len : V2;

		in = block_of(x.b, avail);
		CHECKF(cc_stored_prefix(in, avail, &st, &err) == CC_ERR_BINARY,
			   "prefix of %s (%zu bytes)", what, avail);
		block_free(in, avail);
	}
}

/*
 * Refused as refuse() checks, and with exactly this sentence: what
 * cc_stored_corrupt() writes, the length and the four header bytes after
 * it.  A slip that reads past the value and refuses it all the same says
 * something else (or, in the sanitizer build, is reported as it reads).
 */
static void
refuse_saying(stored_bytes x, const char *sentence, const char *what)
{
	unsigned char *in = block_of(x.b, x.len);
	char		expected[CC_DETAIL_LEN];
	cc_stored	st;
	cc_error	err;
	cc_code		rc;

	refuse(x, false, what);
	snprintf(expected, sizeof(expected), "%s (%zu bytes, header %02x %02x %02x %02x).",
			 sentence, x.len, x.b[0], x.b[1], x.b[2], x.b[3]);
	err.detail[0] = '\0';
	rc = cc_stored_open(in, x.len, &st, &err);
	CHECKF(rc == CC_ERR_BINARY && strcmp(err.detail, expected) == 0,
		   "%s (%zu bytes): rc %d, \"%s\", expected \"%s\"", what, x.len, (int) rc,
		   err.detail, expected);
	block_free(in, x.len);
}

/* Accepted, with n shards of the given layout. */
static void
opens_as(stored_bytes x, size_t n, bool narrow, const char *what)
{
	unsigned char *in = exact_copy(x.b, x.len);
	cc_stored	st;
	cc_error	err;

	CHECKF(cc_stored_open(in, x.len, &st, &err) == CC_OK && st.n == n &&
		   st.narrow == narrow && st.shards == in + (x.b[0] == 1 ? 4 : V2),
		   "%s (%zu bytes): n %zu, narrow %d", what, x.len, st.n, (int) st.narrow);
	free(in);
}

static void
stored_refusals(void)
{
	static const uint8_t versions[] = {0, 3, 4, 0x80, 255};
	stored_bytes x;

	/* shorter than any header */
	for (size_t len = 0; len < 4; len++)
	{
		x = mk(1, 0, 0, 0, 0, 0);
		x.len = len;
		refuse(x, true, "a version 1 header cut short");
		x = mk(2, 0, 0, 0, 0, 0);
		x.len = len;
		refuse(x, true, "a version 2 header cut short");
	}
	/* a version 2 header shorter than its 12 bytes */
	for (size_t len = 4; len < V2; len++)
	{
		x = mk(2, 0, 0, 0, 0, 0);
		x.len = len;
		refuse(x, true, "a version 2 header without its whole total");
		x.b[1] = CC_STORED_FLAG_TOMBSTONE;
		refuse(x, true, "a version 2 tombstone without its whole total");
	}

	/* unknown versions, at every length a known one would have */
	for (size_t i = 0; i < sizeof(versions); i++)
	{
		refuse(mk(versions[i], 0, 0, 0, 0, 0), true, "an unknown version");
		x = mk(versions[i], 0, 0, 0, 0, 0);
		x.len = 4;
		refuse(x, true, "an unknown version, 4 bytes");
		refuse(mk(versions[i], 0, 0, 0, 0, WIDE), true, "an unknown version with a shard");
		refuse(mk(versions[i], 0, 0, 0, 0, NARROW), true, "an unknown version with 24 bytes");
	}

	/* reserved bytes, either of them, in either version */
	for (int v = 1; v <= 2; v++)
	{
		refuse(mk(v, 0, 1, 0, 0, 0), true, "reserved byte 2 set");
		refuse(mk(v, 0, 0, 1, 0, 0), true, "reserved byte 3 set");
		refuse(mk(v, 0, 0x80, 0, 0, 0), true, "reserved byte 2 high bit");
		refuse(mk(v, 0, 0, 0x80, 0, WIDE), true, "reserved byte 3 high bit, a shard");
		refuse(mk(v, 1, 0xff, 0xff, 0, 0), true, "reserved bytes of a tombstone");
	}

	/* unknown flags: every bit beyond 0x01 in version 1, beyond 0x0f in 2 */
	for (int bit = 1; bit < 8; bit++)
	{
		uint8_t		f = (uint8_t) (1 << bit);

		refuse(mk(1, f, 0, 0, 0, 0), true, "version 1 with an unknown flag");
		refuse(mk(1, f | 1, 0, 0, 0, 0), true, "a version 1 tombstone with an unknown flag");
		refuse(mk(1, f, 0, 0, 0, WIDE), true, "version 1 with an unknown flag and a shard");
		if (bit >= 4)
		{
			refuse(mk(2, f, 0, 0, 0, 0), true, "version 2 with an unknown flag");
			refuse(mk(2, f | 0x04, 0, 0, 0, NARROW), true,
				   "narrow version 2 with an unknown flag");
			refuse(mk(2, f, 0, 0, 0, WIDE), true,
				   "wide version 2 with an unknown flag");
		}
	}

	/* fold records (0x08): a count, its padding, records, wide shards */
	{
		uint32_t	one = 1,
					two = 2,
					big = UINT32_MAX;
		cc_stored	st;
		unsigned char *in;

#define MKF(count, pad, rest) \
		(x = mk(2, CC_STORED_FLAG_FOLDS, 0, 0, 0, 8 + (rest)), \
		 memcpy(x.b + V2, &(count), 4), memset(x.b + V2 + 4, (pad), 4), x)
		uint32_t	zero = 0;

		refuse(MKF(zero, 0, WIDE), false, "fold flag and no record");
		refuse(MKF(one, 0, 0), false, "a fold record counted but missing");
		refuse(MKF(one, 0, 63), false, "a fold record cut short");
		refuse(MKF(two, 0, 64 + WIDE), false, "two fold records counted, one there");
		refuse(MKF(big, 0, 64), false, "a fold record count near 2^32");
		refuse(MKF(one, 1, 64 + WIDE), false, "fold records' padding set");
		refuse(MKF(one, 0, 64 + 5), false, "a partial shard after the fold records");
		refuse(MKF(one, 0, 64 + NARROW), false, "a narrow shard after the fold records");
		x = mk(2, CC_STORED_FLAG_FOLDS, 0, 0, 0, 4);
		refuse(x, false, "fold records' count cut short");
		/*
		 * The two length checks of the section, each by its sentence: a
		 * body shorter than the count and its padding (8 bytes), down to
		 * none, is refused before either is read; 8 bytes or more are a
		 * count, refused when what is left cannot hold its records.
		 */
		for (size_t body = 0; body < CC_STORED_FOLDS_HEADER; body++)
			refuse_saying(mk(2, CC_STORED_FLAG_FOLDS, 0, 0, 0, body),
						  "The fold records' count is missing",
						  "fold records' count cut short");
		refuse_saying(MKF(one, 0, 0), "The fold records' count does not fit the value",
					  "a fold record counted, no room after the count");
		refuse_saying(MKF(one, 0, 63), "The fold records' count does not fit the value",
					  "a fold record counted, 63 bytes of room");
		refuse_saying(MKF(two, 0, 64 + WIDE), "The fold records' count does not fit the value",
					  "two fold records counted, room for one and a shard");
		refuse(mk(2, CC_STORED_FLAG_FOLDS | CC_STORED_FLAG_NARROW, 0, 0, 0, 8 + 64 + NARROW),
			   true, "fold records with narrow shards");
		refuse(mk(2, CC_STORED_FLAG_FOLDS | CC_STORED_FLAG_TOMBSTONE, 0, 0, 0, 0),
			   true, "a tombstone with fold records");
		x = MKF(two, 0, 128 + 3 * WIDE);
		in = exact_copy(x.b, x.len);
		CHECK(cc_stored_open(in, x.len, &st, NULL) == CC_OK && st.nf == 2 &&
			  st.n == 3 && !st.narrow && st.folds == in + V2 + 8 &&
			  st.shards == in + V2 + 8 + 128);
		free(in);
		x = MKF(one, 0, 64);
		in = exact_copy(x.b, x.len);
		CHECK(cc_stored_open(in, x.len, &st, NULL) == CC_OK && st.nf == 1 && st.n == 0);
		free(in);
		/* values without the flag have no records */
		x = mk(2, 0, 0, 0, 0, WIDE);
		in = exact_copy(x.b, x.len);
		CHECK(cc_stored_open(in, x.len, &st, NULL) == CC_OK && st.nf == 0 && st.folds == NULL);
		free(in);
		x = mk(1, 0, 0, 0, 0, WIDE);
		in = exact_copy(x.b, x.len);
		CHECK(cc_stored_open(in, x.len, &st, NULL) == CC_OK && st.nf == 0 && st.folds == NULL);
		free(in);
#undef MKF
	}

	/* shards that do not fill the value: each layout's record size */
	for (size_t extra = 1; extra < 2 * WIDE; extra++)
	{
		if (extra % WIDE != 0)
		{
			refuse(mk(1, 0, 0, 0, 0, extra), false, "version 1, a partial shard");
			refuse(mk(2, 0, 0, 0, 0, extra), false, "wide version 2, a partial shard");
		}
		if (extra % NARROW != 0)
			refuse(mk(2, CC_STORED_FLAG_NARROW, 0, 0, 0, extra), false,
				   "narrow version 2, a partial shard");
	}
	/* the same lengths fill the other layout: the flag decides the stride */
	opens_as(mk(2, 0, 0, 0, 0, 3 * WIDE), 3, false, "wide, 96 bytes of shards");
	opens_as(mk(2, CC_STORED_FLAG_NARROW, 0, 0, 0, 3 * WIDE), 4, true,
		   "narrow, 96 bytes of shards");
	opens_as(mk(2, CC_STORED_FLAG_NARROW, 0, 0, 0, NARROW), 1, true, "narrow, one shard");
	opens_as(mk(2, 0, 0, 0, 0, WIDE), 1, false, "wide, one shard");
	opens_as(mk(1, 0, 0, 0, 0, 4 * WIDE), 4, false, "version 1, four shards");

	/* a tombstone has no shards, no other flag and no total */
	refuse(mk(1, 1, 0, 0, 0, WIDE), false, "a version 1 tombstone with a shard");
	refuse(mk(2, 1, 0, 0, 0, WIDE), false, "a version 2 tombstone with a shard");
	refuse(mk(2, 1 | 0x04, 0, 0, 0, NARROW), true, "a narrow tombstone with a shard");
	refuse(mk(2, 1 | 0x04, 0, 0, 0, 0), true, "a tombstone flagged narrow");
	refuse(mk(2, 1 | 0x02, 0, 0, 0, 0), true, "a tombstone flagged out of range");
	refuse(mk(2, 0x07, 0, 0, 0, 0), true, "a tombstone with every flag");
	refuse(mk(2, 1, 0, 0, 1, 0), true, "a tombstone with total 1");
	refuse(mk(2, 1, 0, 0, -1, 0), true, "a tombstone with total -1");
	refuse(mk(2, 1, 0, 0, INT64_MIN, 0), true, "a tombstone with total INT64_MIN");
	refuse(mk(2, 1, 0, 0, INT64_C(1) << 32, 0), true, "a tombstone with total 2^32");

	/* out of range with a number */
	refuse(mk(2, 0x02, 0, 0, 5, 0), true, "out of range with total 5");
	refuse(mk(2, 0x02, 0, 0, INT64_MIN, WIDE), true, "out of range with total INT64_MIN");
	refuse(mk(2, 0x02, 0, 0, INT64_C(1) << 40, 2 * WIDE), true,
		   "out of range with total 2^40, two shards");
	refuse(mk(2, 0x06, 0, 0, -1, NARROW), true, "narrow, out of range with total -1");

	/*
	 * Narrow needs shards, and narrow shards never sum outside bigint: pack
	 * writes neither, so the opener refuses both (the prefix reader, which
	 * sees no shards, only the second).
	 */
	refuse(mk(2, 0x04, 0, 0, 0, 0), false, "narrow with no shards");
	refuse(mk(2, 0x06, 0, 0, 0, NARROW), true, "narrow and out of range, total 0");
	refuse(mk(2, 0x06, 0, 0, 0, 0), true, "narrow and out of range, no shards");
}

/* The prefix reader: the first bytes of every packed value and no more. */
static void
stored_prefixes(void)
{
	unsigned char s[3 * WIDE];
	unsigned char buf[V2 + 3 * WIDE];
	unsigned char *head;
	cc_stored	st;
	cc_error	err;
	size_t		len;

	put(s, 0, 1, 9, -40);
	put(s, 1, 2, 9, 2);
	memcpy(buf + V2, s, 2 * WIDE);
	len = cc_stored_pack(buf, 2, false);
	CHECK(len == V2 + 2 * NARROW);
	/* fewer than 12 bytes of a version 2 value are not enough */
	for (size_t avail = 0; avail < V2; avail++)
	{
		head = block_of(buf, avail);
		CHECKF(cc_stored_prefix(head, avail, &st, &err) == CC_ERR_BINARY,
			   "prefix of %zu bytes", avail);
		block_free(head, avail);
	}
	head = exact_copy(buf, V2);
	CHECK(cc_stored_prefix(head, V2, &st, &err) == CC_OK && st.n == 0 &&
		  !st.tombstone && !st.overflow && st.total_kept && st.total == -38 &&
		  st.narrow);
	free(head);
	/* more than 12 bytes, not a whole value: only the header is read */
	for (size_t avail = V2 + 1; avail < len; avail++)
	{
		head = exact_copy(buf, avail);
		CHECKF(cc_stored_prefix(head, avail, &st, &err) == CC_OK && st.n == 0 &&
			   st.total == -38, "prefix of %zu bytes", avail);
		free(head);
	}
	/* a tombstone's and an overflowing value's */
	len = cc_stored_pack(buf, 0, true);
	head = exact_copy(buf, V2);
	CHECK(cc_stored_prefix(head, V2, &st, &err) == CC_OK && st.tombstone && st.total == 0);
	free(head);
	put(s, 0, 1, 1, INT64_MIN);
	put(s, 1, 2, 1, -1);
	memcpy(buf + V2, s, 2 * WIDE);
	len = cc_stored_pack(buf, 2, false);
	head = exact_copy(buf, V2);
	CHECK(cc_stored_prefix(head, V2, &st, &err) == CC_OK && !st.tombstone && st.overflow);
	CHECK(cc_stored_value(&st, &(int64_t) {0}, &err) == CC_ERR_OVERFLOW &&
		  err.code == CC_ERR_OVERFLOW);
	free(head);
	(void) len;
}

void
test_stored(void)
{
	stored_sizes();
	stored_totals();
	stored_version1();
	stored_refusals();
	stored_prefixes();
}
