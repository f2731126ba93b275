/*
 * core_stored.c
 *	  The stored form (src/core/cc_stored.c): what a value packs into, how
 *	  the three versions are opened, widened, valued and read by their first
 *	  bytes, and every header the opener must refuse.
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

#define MAXN	20
#define V2		CC_STORED_HEADER
#define V3		CC_STORED_V3_HEADER
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

/* The bytes of the narrowest field, 1, 2, 4 or 8, for a clock and a value. */
static int
ref_clock_bytes(int64_t c)
{
	return c < 0 ? 8 : c < 256 ? 1 : c < 65536 ? 2 : c <= 4294967295LL ? 4 : 8;
}

static int
ref_value_bytes(int64_t v)
{
	return (v >= -128 && v <= 127) ? 1 : (v >= -32768 && v <= 32767) ? 2 :
		(v >= -2147483648LL && v <= 2147483647LL) ? 4 : 8;
}

/* The byte map's width code of 1, 2, 4 or 8 bytes. */
static uint8_t
ref_code(int bytes)
{
	return bytes == 1 ? 1 : bytes == 2 ? 2 : bytes == 4 ? 3 : 0;
}

/* x's low bytes, native (little-endian on the machines we build for) order */
static void
ref_put(unsigned char *p, int64_t x, int bytes)
{
	uint64_t	u = (uint64_t) x;

	for (int k = 0; k < bytes; k++)
		p[k] = (unsigned char) (u >> (8 * k));
}

/*
 * The version 2 bytes of a canonical state, as 1.3 to 1.11 wrote every
 * value, from the byte map: version 2, flags, two zero bytes, the total (0
 * for a tombstone and out of range), then every shard narrow when there
 * are shards and all of them fit, else wide.  Returns the length.
 */
static size_t
ref_v2(const unsigned char *s, size_t n, bool tombstone, unsigned char *out)
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

/*
 * What the library writes since 1.12, from the byte map: a tombstone and a
 * total outside bigint as version 2 (wide shards), anything else as
 * version 3: 3, the layout (the widest clock's and value's codes, 1 byte
 * each for no shards), the total when there are more than 16 shards, and
 * the records of id, clock and value at those widths.  Returns the length.
 */
static size_t
ref_pack(const unsigned char *s, size_t n, bool tombstone, unsigned char *out)
{
	__int128	sum = 0;
	int			cw = 1,
				vw = 1;
	unsigned char *p;

	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		sum += sh.value;
		if (ref_clock_bytes(sh.clock) > cw)
			cw = ref_clock_bytes(sh.clock);
		if (ref_value_bytes(sh.value) > vw)
			vw = ref_value_bytes(sh.value);
	}
	if (tombstone || sum < INT64_MIN || sum > INT64_MAX)
		return ref_v2(s, n, tombstone, out);
	out[0] = 3;
	out[1] = (uint8_t) (ref_code(cw) | ref_code(vw) << 2 | (n > 16 ? 0x10 : 0));
	p = out + 2;
	if (n > 16)
	{
		ref_put(p, (int64_t) sum, 8);
		p += 8;
	}
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		memcpy(p, sh.id, CC_ID_LEN);
		ref_put(p + 16, sh.clock, cw);
		ref_put(p + 16 + cw, sh.value, vw);
		p += 16 + cw + vw;
	}
	return (size_t) (p - out);
}

/* Where the shards of bytes packed as ref_pack() writes them start. */
static size_t
ref_head(const unsigned char *b)
{
	if (b[0] == 3)
		return V3 + ((b[1] & 0x10) ? 8 : 0);
	return b[0] == 1 ? 4 : V2;
}

/* The layout (CC_LAY_*) of such bytes. */
static uint8_t
ref_lay(const unsigned char *b)
{
	if (b[0] == 3)
		return b[1] & 0x0f;
	return (b[0] == 2 && (b[1] & 0x04)) ? CC_LAY_NARROW : CC_LAY_WIDE;
}

size_t
stored_ref_v2(const unsigned char *s, size_t n, bool tombstone,
			  unsigned char *out)
{
	return ref_v2(s, n, tombstone, out);
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
	EXPECT(len <= V2 + n * WIDE && memcmp(room, ref, len < ref_len ? len : ref_len) == 0);

	/* opened from a block of exactly its length */
	packed = exact_copy(room, len);
	free(room);
	memset(&st, 0x5a, sizeof(st));
	EXPECT(cc_stored_open(packed, len, &st, &err) == CC_OK);
	EXPECT(st.n == (tombstone ? 0 : n));
	EXPECT(st.tombstone == tombstone);
	EXPECT(st.total_kept == (tombstone || sum_rc != CC_OK || n > CC_STORED_V3_SUMMED));
	EXPECT(st.lay == ref_lay(ref));
	EXPECT(st.overflow == (!tombstone && sum_rc != CC_OK));
	EXPECT(!st.total_kept || st.total == (tombstone || sum_rc != CC_OK ? 0 : sum));
	EXPECT(st.shards == packed + ref_head(ref));

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

	/*
	 * The first bytes alone (a detoast slice) give the flag and total when
	 * the header keeps it; a version 3 value of up to 16 shards is read
	 * whole.
	 */
	EXPECT(cc_stored_prefix_suffices(packed, len < V2 ? len : V2) == st.total_kept);
	for (size_t avail = V2; st.total_kept && avail <= len;
		 avail += (every_prefix || len == V2) ? 1 : len - V2)
	{
		unsigned char *head = exact_copy(packed, avail);
		cc_stored	pt;

		memset(&pt, 0x5a, sizeof(pt));
		EXPECT(cc_stored_prefix_suffices(head, avail));
		EXPECT(cc_stored_prefix(head, avail, &pt, &err) == CC_OK);
		EXPECT(pt.n == 0 && pt.total_kept && pt.tombstone == tombstone &&
			   pt.overflow == st.overflow && pt.total == st.total &&
			   pt.lay == st.lay);
		free(head);
	}
	free(packed);

	/*
	 * The same state as version 2 bytes, as 1.3 to 1.11 wrote it (the total
	 * kept), and as version 1 bytes, as 1.0 to 1.2 did (valued by the walk):
	 * read in place
	 */
	for (int version = 2; version >= 1; version--)
	{
		size_t		head = version == 2 ? V2 : 4;

		v1 = exact_alloc(head + n * WIDE);
		v1_len = version == 2 ? ref_v2(s, n, tombstone, v1) : ref_v1(s, n, tombstone, v1);
		memset(&st, 0x5a, sizeof(st));
		EXPECT(cc_stored_open(v1, v1_len, &st, &err) == CC_OK);
		EXPECT(st.shards == v1 + head && st.lay == ref_lay(v1));
		EXPECT(st.total_kept == (version == 2));
		EXPECT(st.n == (tombstone ? 0 : n) && st.tombstone == tombstone);
		EXPECT(st.overflow == (version == 2 && !tombstone && sum_rc != CC_OK));
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
	}

	if (seen)
	{
		seen->tombstone += tombstone;
		seen->overflow += !tombstone && sum_rc != CC_OK;
		seen->narrow += ref[0] == 3 && ref_lay(ref) != CC_LAY_WIDE;
		seen->wide += !tombstone && n > 0 && ref_lay(ref) == CC_LAY_WIDE;
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

/*
 * Packs, in place, and returns the length; *hdr gets the first two bytes
 * (version, then flags or layout) and *total the total as the opener reads
 * it (0 for a tombstone or out of range).
 */
static size_t
pack_of(const unsigned char *s, size_t n, bool tombstone, uint16_t *hdr,
		int64_t *total)
{
	unsigned char buf[V2 + MAXN * WIDE];
	cc_stored	st;

	memcpy(buf + V2, s, n * WIDE);
	memset(buf, 0xee, V2);
	n = cc_stored_pack(buf, n, tombstone);
	*hdr = (uint16_t) (buf[0] << 8 | buf[1]);
	*total = 0;
	if (cc_stored_open(buf, n, &st, NULL) == CC_OK && !st.tombstone &&
		cc_stored_value(&st, total, NULL) != CC_OK)
		*total = 0;
	/* where the inline sum of c::bigint takes the value, it agrees */
	{
		int64_t		quick;

		if (cc_stored_v3_quick_sum(buf, n, &quick))
			CHECK(!st.tombstone && quick == *total);
	}
	return n;
}

#define HDR(version, byte1) ((uint16_t) ((version) << 8 | (byte1)))

/*
 * One shard with the given clock and value among k - 1 small ones, placed
 * first, in the middle or last: the whole value takes that shard's widths
 * (clock_bytes, value_bytes), its length and layout byte say so, and it
 * comes back unchanged (a negative value keeps its sign through any width).
 */
static void
check_widths(int64_t clock, int64_t value, int clock_bytes, int value_bytes)
{
	uint8_t		lay = (uint8_t) (ref_code(clock_bytes) | ref_code(value_bytes) << 2);

	for (size_t k = 1; k <= 4; k++)
		for (size_t at = 0; at < k; at++)
		{
			unsigned char s[MAXN * WIDE];
			uint16_t	hdr;
			int64_t		total;
			size_t		len;

			for (size_t i = 0; i < k; i++)
				put(s, i, (uint8_t) (0x10 * i + 1), i == at ? clock : (int64_t) i + 1,
					i == at ? value : -(int64_t) i);
			len = pack_of(s, k, false, &hdr, &total);
			CHECKF(len == V3 + k * (16 + (size_t) clock_bytes + (size_t) value_bytes) &&
				   hdr == HDR(3, lay),
				   "clock %" PRId64 ", value %" PRId64 " at %zu of %zu: %zu bytes, header %04x",
				   clock, value, at, k, len, hdr);
			CHECK(stored_round_trip(s, k, false, true, NULL));
		}
}

static void
stored_sizes(void)
{
	unsigned char s[MAXN * WIDE] = {0};
	uint16_t	hdr;
	int64_t		total;

	/* {}: version 3 with the narrowest layout; a tombstone: version 2 */
	CHECK(pack_of(s, 0, false, &hdr, &total) == V3 && hdr == HDR(3, 0x05) && total == 0);
	CHECK(pack_of(s, 0, true, &hdr, &total) == V2 && hdr == HDR(2, CC_STORED_FLAG_TOMBSTONE));
	CHECK(stored_round_trip(s, 0, false, true, NULL));
	CHECK(stored_round_trip(s, 0, true, true, NULL));

	/*
	 * 2 + 18 n for one-byte numbers up to 16 shards, 10 + 18 n past them
	 * (the total kept), for every n up to MAXN
	 */
	for (size_t n = 1; n <= MAXN; n++)
	{
		size_t		head = n > 16 ? V3 + 8 : V3;
		uint8_t		kept = n > 16 ? CC_STORED_V3_TOTAL : 0;

		for (size_t i = 0; i < n; i++)
			put(s, i, (uint8_t) (i * 7 + 3), (int64_t) i + 1, (int64_t) i - 3);
		CHECKF(pack_of(s, n, false, &hdr, &total) == head + n * 18 &&
			   hdr == HDR(3, 0x05 | kept) &&
			   total == (int64_t) (n * (n - 1) / 2) - 3 * (int64_t) n,
			   "%zu small shards: header %04x, total %" PRId64, n, hdr, total);
		CHECK(stored_round_trip(s, n, false, n <= 4 || n == 17, NULL));
		/* a tombstone made from room that held shards is still 12 bytes */
		CHECK(pack_of(s, n, true, &hdr, &total) == V2 && hdr == HDR(2, CC_STORED_FLAG_TOMBSTONE));
		/* one clock of 2^40: every clock 8 bytes */
		put(s, n - 1, (uint8_t) ((n - 1) * 7 + 3), INT64_C(1) << 40, 1);
		CHECKF(pack_of(s, n, false, &hdr, &total) == head + n * 25 &&
			   hdr == HDR(3, 0x04 | kept),
			   "%zu shards, one clock of 2^40: header %04x", n, hdr);
		CHECK(stored_round_trip(s, n, false, n <= 4 || n == 17, NULL));
	}

	/* each side of every limit of every width */
	check_widths(1, 0, 1, 1);
	check_widths(255, 0, 1, 1);
	check_widths(256, 0, 2, 1);
	check_widths(65535, 0, 2, 1);
	check_widths(65536, 0, 4, 1);
	check_widths(INT64_C(4294967295), 0, 4, 1);
	check_widths(INT64_C(4294967296), 0, 8, 1);
	check_widths(INT64_MAX, 0, 8, 1);
	check_widths(1, 127, 1, 1);
	check_widths(1, 128, 1, 2);
	check_widths(1, -128, 1, 1);
	check_widths(1, -129, 1, 2);
	check_widths(1, 32767, 1, 2);
	check_widths(1, 32768, 1, 4);
	check_widths(1, -32768, 1, 2);
	check_widths(1, -32769, 1, 4);
	check_widths(1, INT32_MAX, 1, 4);
	check_widths(1, (int64_t) INT32_MAX + 1, 1, 8);
	check_widths(1, INT32_MIN, 1, 4);
	check_widths(1, (int64_t) INT32_MIN - 1, 1, 8);
	check_widths(1, -1, 1, 1);
	check_widths(INT64_C(4294967295), INT32_MIN, 4, 4);
	check_widths(65536, 128, 4, 2);
	check_widths(256, -32769, 2, 4);
	check_widths(1, INT64_MIN / 2, 1, 8);
	check_widths(1, INT64_MAX / 2, 1, 8);
	check_widths(INT64_C(1) << 33, 1, 8, 1);
}

static void
stored_totals(void)
{
	unsigned char s[MAXN * WIDE];
	uint16_t	hdr;
	int64_t		total;

	/* the total at both ends of bigint is exact, one past is OVERFLOW */
	put(s, 0, 1, 1, INT64_MAX - 1);
	put(s, 1, 2, 1, 1);
	CHECK(pack_of(s, 2, false, &hdr, &total) == V3 + 2 * 25 && hdr == HDR(3, 0x01) &&
		  total == INT64_MAX);
	CHECK(stored_round_trip(s, 2, false, true, NULL));
	put(s, 1, 2, 1, 2);
	CHECK(pack_of(s, 2, false, &hdr, &total) == V2 + 2 * WIDE &&
		  hdr == HDR(2, CC_STORED_FLAG_OVERFLOW) && total == 0);
	CHECK(stored_round_trip(s, 2, false, true, NULL));
	put(s, 0, 1, 1, INT64_MIN + 1);
	put(s, 1, 2, 1, -1);
	CHECK(pack_of(s, 2, false, &hdr, &total) == V3 + 2 * 25 && hdr == HDR(3, 0x01) &&
		  total == INT64_MIN);
	put(s, 1, 2, 1, -2);
	CHECK(pack_of(s, 2, false, &hdr, &total) == V2 + 2 * WIDE &&
		  hdr == HDR(2, CC_STORED_FLAG_OVERFLOW) && total == 0);
	CHECK(stored_round_trip(s, 2, false, true, NULL));

	/* a sum that leaves bigint on the way and comes back is exact */
	put(s, 0, 1, 1, INT64_MAX);
	put(s, 1, 2, 1, INT64_MAX);
	put(s, 2, 3, 1, INT64_MIN);
	CHECK(pack_of(s, 3, false, &hdr, &total) == V3 + 3 * 25 && hdr == HDR(3, 0x01) &&
		  total == INT64_MAX - 1);
	CHECK(stored_round_trip(s, 3, false, true, NULL));

	/* an overflowing sum of shards that are otherwise small but one */
	put(s, 0, 1, 1, 5);
	put(s, 1, 2, 1, INT64_MAX);
	put(s, 2, 3, 7, 1);
	CHECK(pack_of(s, 3, false, &hdr, &total) == V2 + 3 * WIDE &&
		  hdr == HDR(2, CC_STORED_FLAG_OVERFLOW) && total == 0);
	CHECK(stored_round_trip(s, 3, false, true, NULL));

	/* a negative total of four-byte values */
	put(s, 0, 1, 3, INT32_MIN);
	put(s, 1, 2, 4, INT32_MIN);
	CHECK(pack_of(s, 2, false, &hdr, &total) == V3 + 2 * 21 &&
		  hdr == HDR(3, 0x0d) && total == 2 * (int64_t) INT32_MIN);
	CHECK(stored_round_trip(s, 2, false, true, NULL));

	/*
	 * 16 and 17 shards of the largest four-byte values: summed on read,
	 * then kept, exact either way
	 */
	for (size_t n = 16; n <= 17; n++)
	{
		for (size_t i = 0; i < n; i++)
			put(s, i, (uint8_t) (i + 1), 1, INT32_MIN);
		CHECK(pack_of(s, n, false, &hdr, &total) == (n > 16 ? V3 + 8 : V3) + n * 21 &&
			  total == (int64_t) n * INT32_MIN);
		CHECK(stored_round_trip(s, n, false, true, NULL));
	}
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
		  !st.total_kept && st.lay == CC_LAY_WIDE && st.shards == v1 + 4);
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
		  st.shards == v1 + 4 && !st.total_kept && st.lay == CC_LAY_WIDE && !st.overflow);
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
opens_as(stored_bytes x, size_t n, uint8_t lay, const char *what)
{
	unsigned char *in = exact_copy(x.b, x.len);
	cc_stored	st;
	cc_error	err;

	CHECKF(cc_stored_open(in, x.len, &st, &err) == CC_OK && st.n == n &&
		   st.lay == lay && st.shards == in + ref_head(x.b),
		   "%s (%zu bytes): n %zu, layout %02x", what, x.len, st.n, (unsigned) st.lay);
	free(in);
}

/* Version 3 bytes: 3, the layout byte, the total when flagged, body bytes of 0x11. */
static stored_bytes
mk3(uint8_t layout, size_t body)
{
	stored_bytes x;
	size_t		head = V3 + ((layout & CC_STORED_V3_TOTAL) ? 8 : 0);
	int64_t		total = 77;

	memset(x.b, 0x11, sizeof(x.b));
	x.b[0] = 3;
	x.b[1] = layout;
	if (layout & CC_STORED_V3_TOTAL)
		memcpy(x.b + V3, &total, 8);
	x.len = head + body;
	return x;
}

/* x cut to len bytes; header bytes past the end read as 0 in messages */
static stored_bytes
cut(stored_bytes x, size_t len)
{
	x.len = len;
	for (size_t k = len; k < 4; k++)
		x.b[k] = 0;
	return x;
}

static void
stored_refusals_v3(void)
{
	stored_bytes x;

	/* one byte is no header; two are {} of any layout */
	refuse_saying(cut(mk3(0x05, 0), 1), "A version 3 header is short",
				  "a version 3 header of one byte");
	for (unsigned lay = 0; lay <= CC_LAY_MASK; lay++)
	{
		static const size_t width[4] = {8, 1, 2, 4};	/* the byte map's codes */
		size_t		size = 16 + width[lay & 3] + width[lay >> 2];

		CHECKF(cc_lay_size((uint8_t) lay) == size && cc_lay_width(lay & 3) == width[lay & 3],
			   "layout %02x: %zu bytes a record, the byte map says %zu", lay,
			   cc_lay_size((uint8_t) lay), size);

		opens_as(mk3((uint8_t) lay, 0), 0, (uint8_t) lay, "version 3, no shards");
		opens_as(mk3((uint8_t) lay, size), 1, (uint8_t) lay, "version 3, one shard");
		opens_as(mk3((uint8_t) lay, 3 * size), 3, (uint8_t) lay, "version 3, three shards");
		opens_as(mk3((uint8_t) (lay | CC_STORED_V3_TOTAL), 2 * size), 2, (uint8_t) lay,
				 "version 3 with its total, two shards");
		/* a record cut short, or one byte too many, at every layout */
		refuse_saying(mk3((uint8_t) lay, size - 1), "The shards do not fill the value",
					  "version 3, a short record");
		refuse_saying(mk3((uint8_t) lay, 2 * size + 1), "The shards do not fill the value",
					  "version 3, a byte past two records");
		refuse_saying(mk3((uint8_t) (lay | CC_STORED_V3_TOTAL), size + 1),
					  "The shards do not fill the value",
					  "version 3 with its total, a byte past a record");
	}
	/* the total flagged but cut short, at every length short of 8 bytes */
	for (size_t len = V3; len < V3 + 8; len++)
	{
		refuse_saying(cut(mk3(0x05 | CC_STORED_V3_TOTAL, 0), len),
					  "The total of a version 3 value is short",
					  "version 3, a total cut short");
	}
	/* every unknown bit of the layout byte */
	for (int bit = 5; bit < 8; bit++)
	{
		refuse_saying(mk3((uint8_t) (0x05 | 1 << bit), 18), "Unknown flags in a version 3 value",
					  "version 3 with an unknown flag");
		refuse(mk3((uint8_t) (1 << bit), 0), true, "version 3 with only an unknown flag");
	}
	/* the kept total is read as it lies, and the prefix reader reads it */
	{
		unsigned char *in;
		cc_stored	st;
		int64_t		v = 0;

		x = mk3(0x05 | CC_STORED_V3_TOTAL, 18);
		in = exact_copy(x.b, x.len);
		CHECK(cc_stored_open(in, x.len, &st, NULL) == CC_OK && st.total_kept &&
			  cc_stored_value(&st, &v, NULL) == CC_OK && v == 77);
		CHECK(cc_stored_prefix_suffices(in, V3 + 8) && !cc_stored_prefix_suffices(in, V3 + 7));
		CHECK(cc_stored_prefix(in, V3 + 8, &st, NULL) == CC_OK && st.total == 77 &&
			  st.n == 0 && st.lay == 0x05);
		free(in);
		/* without the flag, the records are summed: 0x11 each, one byte */
		x = mk3(0x05, 3 * 18);
		in = exact_copy(x.b, x.len);
		CHECK(cc_stored_open(in, x.len, &st, NULL) == CC_OK && !st.total_kept &&
			  cc_stored_value(&st, &v, NULL) == CC_OK && v == 3 * 0x11);
		CHECK(!cc_stored_prefix_suffices(in, x.len));
		free(in);
		/* eight-byte values are summed exactly, and may leave bigint */
		x = mk3(0x01, 2 * 25);
		{
			int64_t		big = INT64_MAX;

			memcpy(x.b + V3 + 17, &big, 8);
			memcpy(x.b + V3 + 25 + 17, &big, 8);
		}
		in = exact_copy(x.b, x.len);
		CHECK(cc_stored_open(in, x.len, &st, NULL) == CC_OK &&
			  cc_stored_value(&st, &v, NULL) == CC_ERR_OVERFLOW);
		free(in);
	}
}

static void
stored_refusals(void)
{
	static const uint8_t versions[] = {0, 4, 5, 0x80, 255};
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
			  st.n == 3 && st.lay == CC_LAY_WIDE && st.folds == in + V2 + 8 &&
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
	opens_as(mk(2, 0, 0, 0, 0, 3 * WIDE), 3, CC_LAY_WIDE, "wide, 96 bytes of shards");
	opens_as(mk(2, CC_STORED_FLAG_NARROW, 0, 0, 0, 3 * WIDE), 4, CC_LAY_NARROW,
		   "narrow, 96 bytes of shards");
	opens_as(mk(2, CC_STORED_FLAG_NARROW, 0, 0, 0, NARROW), 1, CC_LAY_NARROW, "narrow, one shard");
	opens_as(mk(2, 0, 0, 0, 0, WIDE), 1, CC_LAY_WIDE, "wide, one shard");
	opens_as(mk(1, 0, 0, 0, 0, 4 * WIDE), 4, CC_LAY_WIDE, "version 1, four shards");

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
	len = ref_v2(s, 2, false, buf);
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
		  st.lay == CC_LAY_NARROW);
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
	stored_refusals_v3();
	stored_prefixes();
}
