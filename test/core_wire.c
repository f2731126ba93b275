/*
 * core_wire.c
 *	  Unit tests of the compact binary form (format version 3, cc_wire.h):
 *	  bytes built by hand from the byte map at every width edge, round
 *	  trips in every layout, and every refusal.
 *
 * Each check names the one-line slip it is there for: a value not
 * sign-extended (-1 read as 255), a width code off by one (255 and 256 in
 * one byte), a byte order swapped, a check of ascending ids or of clocks
 * dropped, a length not divided before allocation.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cc_test.h"
#include "cc_test_folds.h"

static unsigned char wa[64 * CC_SHARD_SIZE],
			wb[64 * CC_SHARD_SIZE];

/* The compact form of n 32-byte records in lay, into buf; its length. */
static size_t
compact_of(const unsigned char *s, size_t n, uint8_t lay, unsigned char *buf)
{
	cc_stored	st;

	cc_stored_of_records(s, n, false, &st);
	cc_encode_compact(&st, lay, buf);
	return cc_wire_compact_size(n, lay);
}

/* The narrowest layout of n 32-byte records. */
static uint8_t
narrowest_of(const unsigned char *s, size_t n)
{
	cc_stored	st;

	cc_stored_of_records(s, n, false, &st);
	return cc_stored_narrowest(&st);
}

/* Decodes buf as counter_crdt_recv does (no records here) into out. */
static cc_code
decode(const unsigned char *buf, size_t len, unsigned char *out, size_t *n,
	   bool *tomb, cc_error *err)
{
	size_t		nf = 99;
	cc_code		rc;

	if ((rc = cc_decode_header_folded(buf, len, n, &nf, tomb, err)) != CC_OK)
		return rc;
	CHECK(nf == 0 && !*tomb);
	return cc_decode_shards(buf, *n, out, err);
}

/* Refused with CC_ERR_BINARY and a detail containing has. */
static void
refuses(const unsigned char *buf, size_t len, const char *has, const char *what)
{
	unsigned char *copy = exact_copy(buf, len > 0 ? len : 1);
	size_t		n = 0;
	bool		tomb;
	cc_error	err;
	cc_code		rc;

	err.detail[0] = '\0';
	rc = decode(copy, len, wb, &n, &tomb, &err);
	CHECKF(rc == CC_ERR_BINARY && err.code == CC_ERR_BINARY &&
		   strstr(err.detail, has) != NULL,
		   "%s: should fail mentioning \"%s\"; got rc %d, \"%s\"", what, has,
		   (int) rc, err.detail);
	free(copy);
}

/*
 * One shard at a width edge: its clock and value, the narrowest layout, and
 * the clock and value bytes as the byte map spells them (big-endian, value
 * in two's complement), written out by hand.
 */
typedef struct
{
	int64_t		clock;
	int64_t		value;
	uint8_t		lay;
	unsigned char bytes[16];
	size_t		nbytes;
	const char *slip;
} edge;

static const edge edges[] = {
	{1, 0, 0x05, {0x01, 0x00}, 2, "one byte each"},
	{255, 127, 0x05, {0xff, 0x7f}, 2, "255 is the last clock of one byte, 127 the last value"},
	{255, -1, 0x05, {0xff, 0xff}, 2, "-1 read back as 255 without sign extension"},
	{1, -128, 0x05, {0x01, 0x80}, 2, "-128, the first value of one byte"},
	{256, 128, 0x0A, {0x01, 0x00, 0x00, 0x80}, 4, "256 and 128 need two bytes (code 2 each)"},
	{1, -129, 0x09, {0x01, 0xff, 0x7f}, 3, "-129 needs two bytes, the clock still one"},
	{65535, -32768, 0x0A, {0xff, 0xff, 0x80, 0x00}, 4, "the last of two bytes"},
	{65536, 32767, 0x0B, {0x00, 0x01, 0x00, 0x00, 0x7f, 0xff}, 6, "65536 needs four bytes (code 3)"},
	{1, 32768, 0x0D, {0x01, 0x00, 0x00, 0x80, 0x00}, 5, "32768 needs four bytes"},
	{1, -32769, 0x0D, {0x01, 0xff, 0xff, 0x7f, 0xff}, 5, "-32769 sign-extended from four bytes"},
	{UINT32_MAX, INT32_MIN, 0x0F, {0xff, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00}, 8,
	"the last of four bytes, unsigned clock, signed value"},
	{(int64_t) UINT32_MAX + 1, INT32_MAX, 0x0C,
		{0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff}, 12,
	"2^32 needs eight bytes (code 0)"},
	{1, (int64_t) INT32_MAX + 1, 0x01,
		{0x01, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00}, 9, "2^31 needs eight bytes"},
	{1, (int64_t) INT32_MIN - 1, 0x01,
		{0x01, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff}, 9, "-2^31 - 1 needs eight bytes"},
	{INT64_MAX, INT64_MIN, 0x00,
		{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 16,
	"the widest, both eight bytes"},
};

#define NEDGES (sizeof(edges) / sizeof(edges[0]))

static const uint8_t some_id[CC_ID_LEN] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10
};

/* Whether layout lay holds a shard of clock c and value v. */
static bool
lay_holds(uint8_t lay, int64_t c, int64_t v)
{
	size_t		cw = cc_lay_width(lay & 3),
				vw = cc_lay_width((lay >> 2) & 3);

	if (cw < 8 && (c < 0 || (uint64_t) c >> (8 * cw) != 0))
		return false;
	if (vw < 8)
	{
		int64_t		lim = (int64_t) 1 << (8 * vw - 1);

		if (v < -lim || v >= lim)
			return false;
	}
	return true;
}

static void
wire_edges(void)
{
	for (size_t e = 0; e < NEDGES; e++)
	{
		const edge *x = &edges[e];
		unsigned char want[2 + CC_ID_LEN + 16],
					got[2 + CC_ID_LEN + 16];
		cc_shard	sh;
		size_t		len,
					n;
		bool		tomb;
		cc_error	err;

		memcpy(sh.id, some_id, CC_ID_LEN);
		sh.clock = x->clock;
		sh.value = x->value;
		cc_store(wa, 0, &sh);

		/* the narrowest layout is the one the byte map gives */
		CHECKF(narrowest_of(wa, 1) == x->lay, "%s: layout 0x%02x, expected 0x%02x",
			   x->slip, (unsigned) narrowest_of(wa, 1), (unsigned) x->lay);
		CHECKF(cc_lay_size(x->lay) == CC_ID_LEN + x->nbytes, "%s: record size", x->slip);

		/* the bytes, built by hand */
		want[0] = 3;
		want[1] = x->lay;
		memcpy(want + 2, some_id, CC_ID_LEN);
		memcpy(want + 2 + CC_ID_LEN, x->bytes, x->nbytes);
		len = compact_of(wa, 1, x->lay, got);
		CHECKF(len == 2 + CC_ID_LEN + x->nbytes && memcmp(got, want, len) == 0,
			   "%s: encoded bytes differ from the byte map", x->slip);

		/* read back from the hand-built bytes: the same shard */
		CHECKF(decode(want, len, wb, &n, &tomb, &err) == CC_OK && n == 1,
			   "%s: hand-built bytes refused: %s", x->slip, err.detail);
		cc_load(wb, 0, &sh);
		CHECKF(sh.clock == x->clock && sh.value == x->value &&
			   memcmp(sh.id, some_id, CC_ID_LEN) == 0,
			   "%s: read back as clock %lld value %lld", x->slip,
			   (long long) sh.clock, (long long) sh.value);

		/* every layout that holds it round-trips; one that does not, not */
		for (unsigned lay = 0; lay <= CC_LAY_MASK; lay++)
		{
			unsigned char buf[2 + CC_SHARD_SIZE];

			if (!lay_holds((uint8_t) lay, x->clock, x->value))
			{
				/* the narrowest is narrowest: no narrower layout holds it */
				CHECKF(cc_lay_size((uint8_t) lay) < cc_lay_size(x->lay) ||
					   (lay & 3) != (x->lay & 3) || ((lay >> 2) & 3) != ((x->lay >> 2) & 3),
					   "%s: layout 0x%02x", x->slip, lay);
				continue;
			}
			CHECKF(cc_lay_size((uint8_t) lay) >= cc_lay_size(x->lay),
				   "%s: layout 0x%02x holds it in fewer bytes than the narrowest", x->slip, lay);
			len = compact_of(wa, 1, (uint8_t) lay, buf);
			CHECKF(buf[1] == lay && decode(buf, len, wb, &n, &tomb, &err) == CC_OK &&
				   n == 1 && memcmp(wa, wb, CC_SHARD_SIZE) == 0,
				   "%s: layout 0x%02x does not round-trip", x->slip, lay);
		}
	}
}

/* Two shards by hand: {A:1:-1, D:258:7}, the state core_algebra.c sends as version 1. */
static void
wire_hand_built(void)
{
	static const unsigned char expected[] = {
		3, 0x06,				/* clock code 2 (258), value code 1 (-1, 7) */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0x00, 0x01,
		0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01, 0x02,
		0x07,
	};
	unsigned char wire[64];
	bool		t,
				tomb;
	size_t		n = state_from_text("{00000000-0000-0000-0000-000000000001:1:-1, "
									"ffffffff-ffff-ffff-ffff-ffffffffffff:258:7}", wa, &t),
				m,
				nf;
	cc_error	err;

	CHECK(narrowest_of(wa, n) == 0x06);
	CHECK(compact_of(wa, n, 0x06, wire) == sizeof(expected));
	CHECK(memcmp(wire, expected, sizeof(expected)) == 0);
	/* 40 bytes against version 1's 70 */
	CHECK(cc_wire_compact_size(n, 0x06) == 40 && cc_wire_size(n) == 70);
	CHECK(decode(expected, sizeof(expected), wb, &m, &tomb, &err) == CC_OK && m == 2 &&
		  cc_equal(wa, n, false, wb, m, false));
	CHECK(strcmp(state_text(wb, m, false), state_text(wa, n, false)) == 0);

	/* the reader of version 1 alone (the aggregate's deserialize) refuses it */
	CHECK(cc_decode_header(expected, sizeof(expected), &m, &tomb, &err) == CC_ERR_BINARY &&
		  strstr(err.detail, "Format version 3 is the compact form") != NULL);

	/* empty live values, in any layout: 2 bytes, never a tombstone */
	wire[0] = 3;
	for (unsigned lay = 0; lay <= CC_LAY_MASK; lay++)
	{
		wire[1] = (uint8_t) lay;
		tomb = true;
		CHECKF(cc_decode_header_folded(wire, 2, &m, &nf, &tomb, &err) == CC_OK &&
			   m == 0 && nf == 0 && !tomb, "empty, layout 0x%02x", lay);
	}
	CHECK(narrowest_of(wa, 0) == 0x05 && compact_of(wa, 0, 0x05, wire) == 2 &&
		  wire[0] == 3 && wire[1] == 0x05);
}

static void
wire_refusals(void)
{
	unsigned char good[2 + 3 * 34];
	unsigned char bad[sizeof(good) + 40];
	bool		t;
	size_t		n = state_from_text("{00000000-0000-0000-0000-000000000001:1:-1, "
									"7fffffff-ffff-ffff-ffff-ffffffffffff:300:5, "
									"ffffffff-ffff-ffff-ffff-ffffffffffff:258:7}", wa, &t),
				len,
				rec;

	len = compact_of(wa, n, 0x06, good);	/* records of 19 bytes */
	rec = cc_lay_size(0x06);
	CHECK(len == 2 + 3 * rec);

	/* too short for a header; a version byte alone */
	refuses(good, 0, "header alone takes 6", "no bytes");
	refuses(good, 1, "the header of format version 3 takes 2", "the version byte alone");

	/* each unknown layout bit, alone and with the known ones (a dropped mask) */
	for (int bit = 4; bit < 8; bit++)
	{
		memcpy(bad, good, len);
		bad[1] = (uint8_t) (good[1] | 1u << bit);
		refuses(bad, len, "Unknown layout bits", "a high layout bit");
		bad[1] = (uint8_t) (1u << bit);
		refuses(bad, 2, "Unknown layout bits", "a high layout bit, no records");
	}

	/* a partial record at the end, of every length; a record cut short */
	memcpy(bad, good, len);
	memset(bad + len, 0x11, sizeof(bad) - len);
	for (size_t extra = 1; extra < rec; extra++)
	{
		refuses(bad, len + extra, "not a whole number of 19-byte records", "a partial record after three");
		refuses(bad, 2 + extra, "not a whole number", "a partial record alone");
	}
	refuses(bad, len - 1, "not a whole number", "the last record one byte short");

	/* read with another layout, the same bytes are not whole records */
	memcpy(bad, good, len);
	bad[1] = 0x05;
	refuses(bad, len, "not a whole number of 18-byte records", "a layout one byte narrower");

	/* ids: descending, equal (a dropped ascending check) */
	memcpy(bad, good, len);
	memcpy(bad + 2, good + 2 + rec, CC_ID_LEN);
	memcpy(bad + 2 + rec, good + 2, CC_ID_LEN);
	refuses(bad, len, "out of ascending order", "ids of the first two swapped");
	memcpy(bad + 2 + rec, bad + 2, CC_ID_LEN);
	refuses(bad, len, "more than once", "an id twice");
	memcpy(bad, good, len);
	memcpy(bad + 2 + 2 * rec, good + 2 + rec, CC_ID_LEN);
	refuses(bad, len, "more than once", "the last id equal to the one before");

	/* clock 0, in every clock width (a dropped clock check) */
	for (unsigned cc = 0; cc < 4; cc++)
	{
		uint8_t		lay = (uint8_t) (cc | 0x04);
		size_t		l = compact_of(wa, n, lay, bad);
		size_t		cw = cc_lay_width(cc);

		if (cc == 1)
			continue;			/* 300 does not fit one byte */
		memset(bad + 2 + cc_lay_size(lay) + CC_ID_LEN, 0, cw);
		refuses(bad, l, "clock 0", "clock 0 in the second record");
	}
	/* an eight-byte clock of 2^63 or more reads as negative: refused */
	{
		size_t		l = compact_of(wa, n, 0x04, bad);

		bad[2 + CC_ID_LEN] = 0x80;
		refuses(bad, l, "clocks start at 1", "clock 2^63 + 1");
		memset(bad + 2 + CC_ID_LEN, 0xff, 8);
		refuses(bad, l, "clock -1", "clock 2^64 - 1");
		/* 2^63 - 1 is the largest clock there is */
		bad[2 + CC_ID_LEN] = 0x7f;
		CHECK(decode(bad, l, wb, &len, &t, NULL) == CC_OK && len == 3);
	}

	/* an unsigned clock of four bytes is never negative: 0xffffffff reads as 2^32 - 1 */
	{
		size_t		l = compact_of(wa, n, 0x07, bad);
		cc_shard	sh;

		memset(bad + 2 + CC_ID_LEN, 0xff, 4);
		CHECK(decode(bad, l, wb, &len, &t, NULL) == CC_OK);
		cc_load(wb, 0, &sh);
		CHECK(sh.clock == (int64_t) UINT32_MAX && sh.value == -1);
	}
}

/* Random states through every layout that holds them, and the narrowest. */
static void
wire_random(void)
{
	uint64_t	rng = 0xc0ffee;
	long		cases = 20000;
	size_t		by_code[4] = {0};

	for (long c = 0; c < cases; c++)
	{
		size_t		n = cc_test_splitmix(&rng) % 9,
					m,
					len;
		unsigned char *buf = test_work(2 + 8 * CC_SHARD_SIZE);
		uint8_t		lay;
		bool		tomb;
		cc_error	err;

		/* ascending ids: i in the first byte, the rest random */
		for (size_t i = 0; i < n; i++)
		{
			cc_shard	sh;
			unsigned	wc = (unsigned) (cc_test_splitmix(&rng) % 4),
						wv = (unsigned) (cc_test_splitmix(&rng) % 4);
			uint64_t	r = cc_test_splitmix(&rng);

			cc_test_random_id(&rng, sh.id);
			sh.id[0] = (uint8_t) (i * 16 + (sh.id[0] & 15));
			/* clocks of up to 8, 16, 32 or 63 bits; values of 8, 16, 32 or 64, signed */
			sh.clock = (int64_t) ((wc == 3 ? r >> 1 : r & ((1ull << (8u << wc)) - 1)));
			if (sh.clock == 0)
				sh.clock = 1;
			r = cc_test_splitmix(&rng);
			sh.value = wv == 3 ? (int64_t) r :
				wv == 2 ? (int64_t) (int32_t) r : wv == 1 ? (int64_t) (int16_t) r : (int64_t) (int8_t) r;
			cc_store(wa, i, &sh);
		}
		CHECK(cc_check_canonical(wa, n, CC_ERR_BINARY, NULL) == CC_OK);
		lay = narrowest_of(wa, n);
		by_code[lay & 3]++;
		for (unsigned l = 0; l <= CC_LAY_MASK; l++)
		{
			bool		holds = true;

			for (size_t i = 0; i < n; i++)
			{
				cc_shard	sh;

				cc_load(wa, i, &sh);
				holds = holds && lay_holds((uint8_t) l, sh.clock, sh.value);
			}
			/* the narrowest holds every shard and is no longer than any that does */
			if (l == lay)
				CHECK(holds);
			if (!holds)
				continue;
			CHECK(cc_lay_size(lay) <= cc_lay_size((uint8_t) l));
			len = compact_of(wa, n, (uint8_t) l, buf);
			CHECK(len <= cc_wire_size(n));
			CHECKF(decode(buf, len, wb, &m, &tomb, &err) == CC_OK && m == n &&
				   (n == 0 || memcmp(wa, wb, n * CC_SHARD_SIZE) == 0),
				   "random state of %zu shards in layout 0x%02x", n, l);
		}
	}
	printf("wire: %ld random states, narrowest clock codes 0/1/2/3: %zu/%zu/%zu/%zu\n",
		   cases, by_code[0], by_code[1], by_code[2], by_code[3]);
}

void
test_wire(void)
{
	wire_edges();
	wire_hand_built();
	wire_refusals();
	wire_random();
}
