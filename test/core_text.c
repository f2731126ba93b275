/*
 * core_text.c
 *	  Unit tests of the text form: accepted spellings, canonical output and
 *	  the rejection of malformed text with a detail naming the bad part.
 */
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>

#include <uuid/uuid.h>

#include "cc_test.h"
#include "cc_test_folds.h"

#define A "00000000-0000-0000-0000-000000000001"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"
#define EX1 "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90"
#define EX2 "7f0cab51-fb72-3e98-bdb4-0404a982865d"

static unsigned char buf[256 * CC_SHARD_SIZE];

static void test_text_folded(void);

/*
 * The uuid text of libuuid held to the spelling that counter_crdt accepts:
 * exactly 36 characters, hyphens at 8, 13, 18 and 23, hex digits of either
 * case elsewhere.  Every byte value at every position of a valid id, in the
 * current locale (libuuid tests characters with isxdigit()); the bytes of
 * every accepted id against a decoder written here.
 */
static int
ref_hexval(unsigned char c)
{
	static const char digits[] = "0123456789abcdef0123456789ABCDEF";
	const char *p = c == '\0' ? NULL : strchr(digits, c);

	return p == NULL ? -1 : (int) ((p - digits) % 16);
}

static void
check_uuid_bytes(const char *locale)
{
	static const char valid[] = "7f0cab51-fb72-3e98-bdb4-0404a982865d";
	char		in[CC_UUID_TEXT_LEN];
	long		wrong = 0;

	for (int pos = 0; pos < CC_UUID_TEXT_LEN; pos++)
		for (int b = 0; b < 256; b++)
		{
			bool		hyphen = pos == 8 || pos == 13 || pos == 18 || pos == 23;
			bool		want = hyphen ? b == '-' : ref_hexval((unsigned char) b) >= 0;
			uint8_t		id[CC_ID_LEN];
			bool		got;

			memcpy(in, valid, CC_UUID_TEXT_LEN);
			in[pos] = (char) b;
			got = cc_uuid_parse_cached(&cc_test_ids, in, CC_UUID_TEXT_LEN, id);
			if (got != want)
			{
				if (wrong++ < 5)
					fprintf(stderr, "locale %s: byte 0x%02x at %d: %s\n", locale, b, pos,
							got ? "accepted" : "refused");
				continue;
			}
			if (got)
			{
				uint8_t		ref[CC_ID_LEN];

				for (int i = 0, k = 0; i < CC_UUID_TEXT_LEN; i++)
					if (i != 8 && i != 13 && i != 18 && i != 23)
					{
						ref[k / 2] = (uint8_t) (k % 2 ? ref[k / 2] | ref_hexval((unsigned char) in[i])
												: ref_hexval((unsigned char) in[i]) << 4);
						k++;
					}
				if (memcmp(id, ref, CC_ID_LEN) != 0 && wrong++ < 5)
					fprintf(stderr, "locale %s: byte 0x%02x at %d: wrong id\n", locale, b, pos);
			}
		}
	CHECKF(wrong == 0, "libuuid disagrees on %ld inputs in locale %s", wrong, locale);
}

static void
test_uuid_libuuid(void)
{
	uint8_t		id[CC_ID_LEN];
	char		out[CC_UUID_TEXT_LEN + 8];

	check_uuid_bytes("C");
	if (setlocale(LC_CTYPE, "C.UTF-8") != NULL)
	{
		check_uuid_bytes("C.UTF-8");
		setlocale(LC_CTYPE, "C");
	}

	/* other spellings of a uuid that PostgreSQL's uuid type takes */
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "{7f0cab51-fb72-3e98-bdb4-0404a982865d}", 38, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "{7f0cab51-fb72-3e98-bdb4-0404a98286}", 36, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51fb723e98bdb40404a982865d", 32, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51fb723e98bdb40404a982865d1234", 36, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0c-ab51-fb72-3e98-bdb4-0404a98286", 36, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51-fb72-3e98-bdb4-0404a982865d ", 37, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, " 7f0cab51-fb72-3e98-bdb4-0404a982865d", 37, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "urn:uuid:7f0cab51-fb72-3e98-bdb4-0404a982865d", 45, id));
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "", 0, id));
	/* a NUL inside the 36 characters, where C string code would stop */
	CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51-fb72-3e98-bdb4-0404a98286\0d", 36, id));
	/* the given length counts, not a terminator: a prefix is too short */
	for (size_t len = 0; len < 80; len++)
	{
		static const char run[] = "7f0cab51-fb72-3e98-bdb4-0404a982865d-fb72-3e98-bdb4-0404a982865d-0404a982865d";

		CHECKF(cc_uuid_parse_cached(&cc_test_ids, run, len, id) == (len == CC_UUID_TEXT_LEN),
			   "a run of %zu characters", len);
	}

	/*
	 * The parser remembers the texts of the last 8 ids: a text is refused
	 * again however often it comes, and ids parse to their own bytes when
	 * the texts of more than 8 ids take turns (one character apart, so that
	 * a match on fewer than 36 characters would give a wrong id).
	 */
	for (int round = 0; round < 3; round++)
	{
		for (int again = 0; again < 2; again++)
		{
			CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51-fb72-3e98-bdb4-0404a982865g", 36, id));
			CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51-fb72-3e98-bdb4-0404a982865", 36, id));
		}
		for (int k = 0; k < 12; k++)
		{
			char		text[CC_UUID_TEXT_LEN + 1];
			uint8_t		want[CC_ID_LEN];

			memcpy(text, "7f0cab51-fb72-3e98-bdb4-0404a982865d", CC_UUID_TEXT_LEN + 1);
			text[(k % 2) ? 0 : 35] = "0123456789abcdefABCD"[(k + round) % 20];
			for (int i = 0, d = 0; i < CC_UUID_TEXT_LEN; i++)
				if (i != 8 && i != 13 && i != 18 && i != 23)
				{
					want[d / 2] = (uint8_t) (d % 2 ? want[d / 2] | ref_hexval((unsigned char) text[i])
											 : ref_hexval((unsigned char) text[i]) << 4);
					d++;
				}
			memset(id, 0, sizeof(id));
			CHECKF(cc_uuid_parse_cached(&cc_test_ids, text, CC_UUID_TEXT_LEN, id) && memcmp(id, want, CC_ID_LEN) == 0,
				   "round %d: %s parsed to its own bytes", round, text);
		}
	}

	/* format: lower case, hyphens, a NUL after 36 characters */
	for (int v = 0; v < 256; v++)
	{
		char		ref[CC_UUID_TEXT_LEN + 1];

		for (int i = 0; i < CC_ID_LEN; i++)
			id[i] = (uint8_t) (v * 37 + i * 11);
		snprintf(ref, sizeof(ref), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
				 "%02x%02x%02x%02x%02x%02x", id[0], id[1], id[2], id[3], id[4],
				 id[5], id[6], id[7], id[8], id[9], id[10], id[11], id[12],
				 id[13], id[14], id[15]);
		memset(out, 'x', sizeof(out));
		cc_uuid_format_cached(&cc_test_ids, id, out);
		CHECKF(memcmp(out, ref, CC_UUID_TEXT_LEN + 1) == 0 && out[CC_UUID_TEXT_LEN + 1] == 'x',
			   "format %s gave %.36s", ref, out);
	}
}

static void
check_parses(const char *in, const char *canonical)
{
	bool		t;
	size_t		n = 0;
	cc_error	err;
	cc_code		rc = cc_parse(&cc_test_ids, in, strlen(in), buf, &n, &t, &err);
	const char *got = rc == CC_OK ? state_text(buf, n, t) : err.detail;

	CHECKF(rc == CC_OK && strcmp(got, canonical) == 0,
		   "parse(\"%s\") gave \"%s\", expected \"%s\"", in, got, canonical);
	CHECK(n <= cc_parse_capacity(in, strlen(in)));
}

/* Rejected with CC_ERR_SYNTAX and a detail that contains the given words. */
static void
check_rejects(const char *in, const char *detail_has)
{
	bool		t;
	size_t		n;
	cc_error	err;
	cc_code		rc;

	err.detail[0] = '\0';
	rc = cc_parse(&cc_test_ids, in, strlen(in), buf, &n, &t, &err);
	CHECKF(rc == CC_ERR_SYNTAX && err.code == CC_ERR_SYNTAX &&
		   strstr(err.detail, detail_has) != NULL,
		   "parse(\"%s\") should fail mentioning \"%s\"; got rc %d, \"%s\"",
		   in, detail_has, (int) rc, err.detail);
}

void
test_text(void)
{
	/* contract example, and the forms it allows */
	check_parses("{" EX1 ":3:42, " EX2 ":1:-5}", "{" EX1 ":3:42, " EX2 ":1:-5}");
	check_parses("{" EX2 ":1:-5," EX1 ":3:42}", "{" EX1 ":3:42, " EX2 ":1:-5}");
	check_parses(" \t\n{ 0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E90 : 3 : 42 ,\r"
				 EX2 "\f:\v1:-5 } \n", "{" EX1 ":3:42, " EX2 ":1:-5}");
	check_parses("{}", "{}");
	check_parses("  {  }  ", "{}");
	check_parses("tombstone", "tombstone");
	check_parses(" TombStone ", "tombstone");
	check_parses("{" A ":+0001:+0}", "{" A ":1:0}");
	check_parses("{" A ":9223372036854775807:-9223372036854775808}",
				 "{" A ":9223372036854775807:-9223372036854775808}");
	check_parses("{" A ":1:9223372036854775807}", "{" A ":1:9223372036854775807}");
	check_parses("{" A ":1:-0}", "{" A ":1:0}");

	/* structure */
	check_rejects("", "Expected \"{\" or \"tombstone\", found end of input");
	check_rejects("   ", "found end of input");
	check_rejects("{", "Expected a writer id, found end of input");
	check_rejects("}", "found \"}\" at position 1");
	check_rejects("{}}", "Expected end of input, found \"}\" at position 3");
	check_rejects("{{}}", "Expected a writer id, found \"{}}\"");
	check_rejects("{},", "Expected end of input");
	check_rejects("{} x", "found \"x\" at position 4");
	check_rejects("tombstone x", "Expected end of input");
	check_rejects("tombstones", "Expected end of input, found \"s\"");
	check_rejects("tomb", "Expected \"{\" or \"tombstone\"");
	check_rejects("tombstone{}", "Expected end of input");
	check_rejects("{,}", "Expected a writer id, found \",}\"");
	check_rejects("{" A ":1:1,}", "Expected a writer id, found \"}\"");
	check_rejects("{," A ":1:1}", "Expected a writer id");
	check_rejects("{" A ":1:1,," D ":1:1}", "Expected a writer id, found \",");
	check_rejects("{" A ":1:1 " D ":1:1}", "Expected \",\" or \"}\" after a shard");
	check_rejects("{" A ":1:1", "Expected \",\" or \"}\" after a shard, found end of input");
	check_rejects("{" A ":1}", "Expected \":\" after a clock, found \"}\"");
	check_rejects("{" A "}", "Expected \":\" after a writer id");
	check_rejects("{" A ":1:1:1}", "Expected \",\" or \"}\" after a shard, found \":1}\"");
	check_rejects("{" A "::1:1}", "Expected the clock of writer " A " as a whole number");
	check_rejects("{" A ":1::1}", "Expected the value of writer " A);
	check_rejects("{" A ":1:}", "Expected the value");
	check_rejects("{" A ":1:-}", "Expected the value");
	check_rejects("{" A ":+:1}", "Expected the clock");
	check_rejects("{" A ":1:1.5}", "found \".5}\"");
	check_rejects("{" A ":1:1e3}", "found \"e3}\"");
	check_rejects("{" A ":1:0x10}", "found \"x10}\"");
	check_rejects("{" A ":1 1:1}", "Expected \":\" after a clock");
	check_rejects("{" A ":1:- 1}", "Expected the value");
	check_rejects("5", "Expected \"{\" or \"tombstone\", found \"5\"");
	check_rejects("{\xc3\xa9}", "found byte 0xc3 at position 2");

	/* ids */
	check_rejects("{00000000-0000-0000-0000-00000000001:1:1}", "Invalid writer id \"00000000-0000-0000-0000-00000000001\"");
	check_rejects("{00000000-0000-0000-0000-0000000000011:1:1}", "Invalid writer id");
	check_rejects("{00000000000000000000000000000001:1:1}", "Invalid writer id");
	check_rejects("{0000000-00000-0000-0000-000000000001:1:1}", "Invalid writer id");
	check_rejects("{{" A "}:1:1}", "Expected a writer id, found \"{");
	check_rejects("{g0000000-0000-0000-0000-000000000001:1:1}", "Expected a writer id, found \"g");
	check_rejects("{0000000g-0000-0000-0000-000000000001:1:1}", "Invalid writer id \"0000000\"");
	check_rejects("{x:1:1}", "Expected a writer id");
	/*
	 * longer than 36 characters: refused, never cut to the first 16 bytes.
	 * A and D were just parsed, so the parser remembers them: the 36
	 * characters of a remembered id are taken only when no hex digit or
	 * hyphen (of either case) follows them.
	 */
	check_parses("{" A ":1:1, " D ":1:1}", "{" A ":1:1, " D ":1:1}");
	check_rejects("{" A "F:1:1}", "Invalid writer id \"" A "F\"");
	check_rejects("{" D "-:1:1}", "Invalid writer id \"" D "-\"");
	check_rejects("{" A "g:1:1}", "Expected \":\" after a writer id, found \"g:1:1}\" at position 38");
	check_rejects("{" A, "Expected \":\" after a writer id, found end of input");
	check_rejects("{" D, "Expected \":\" after a writer id, found end of input");
	check_rejects("{" "ffffffff-ffff-ffff-ffff-fffffffffff", "Invalid writer id");
	check_rejects("{" A "00:1:1}", "Invalid writer id \"" A "00\"");
	check_rejects("{" A "0123456789abcdef:1:1}", "Invalid writer id");
	check_rejects("{" D "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff:1:1}",
				  "Invalid writer id");
	check_rejects("{" A "-" D ":1:1}", "Invalid writer id");
	check_rejects("{" A ":1:1, " D "ff:1:1}", "Invalid writer id \"" D "ff\" at position 44");

	/* near misses of the keyword */
	check_rejects("tombstonX", "Expected \"{\" or \"tombstone\", found \"tombstonX\"");
	check_rejects("tombstonx", "Expected \"{\" or \"tombstone\"");
	check_rejects("tombstoneX", "Expected end of input, found \"X\" at position 10");
	check_rejects("Xombstone", "Expected \"{\" or \"tombstone\"");
	check_rejects("tombstonf", "Expected \"{\" or \"tombstone\"");
	check_rejects("tombstond", "Expected \"{\" or \"tombstone\"");
	check_rejects("tambstone", "Expected \"{\" or \"tombstone\"");
	check_rejects("ttombstone", "Expected \"{\" or \"tombstone\"");
	check_rejects("tombston", "Expected \"{\" or \"tombstone\"");
	check_rejects("t", "Expected \"{\" or \"tombstone\"");
	check_rejects("tombstone_", "Expected end of input");
	check_rejects("tombstone}", "Expected end of input");
	check_rejects("tombstone tombstone", "Expected end of input");
	check_rejects("TOMBSTON\xc9", "Expected \"{\" or \"tombstone\"");
	check_rejects("tombst0ne", "Expected \"{\" or \"tombstone\"");
	check_rejects("tomb\tstone", "Expected \"{\" or \"tombstone\"");
	check_parses("TombsTONE", "tombstone");
	check_parses("\ttombstone\n", "tombstone");

	/* numbers and clocks */
	check_rejects("{" A ":0:1}", "Writer " A " has clock 0; clocks start at 1.");
	check_rejects("{" A ":-1:1}", "has clock -1");
	check_rejects("{" A ":-9223372036854775808:1}", "has clock -9223372036854775808");
	check_rejects("{" A ":9223372036854775808:1}",
				  "The clock \"9223372036854775808\" of writer " A " is out of range for type bigint.");
	check_rejects("{" A ":1:9223372036854775808}", "The value \"9223372036854775808\"");
	check_rejects("{" A ":1:-9223372036854775809}", "The value \"-9223372036854775809\"");
	check_rejects("{" A ":1:99999999999999999999999}", "out of range for type bigint");
	check_rejects("{" A ":1:00000000000000000000000000000000000000000000000000009223372036854775808}",
				  "out of range");

	/* duplicates, also in another letter case or order */
	check_rejects("{" A ":1:1, " A ":2:2}", "Writer " A " appears more than once.");
	check_rejects("{" EX2 ":1:1, " D ":1:1, 7F0CAB51-FB72-3E98-BDB4-0404A982865D:2:2}",
				  "Writer " EX2 " appears more than once.");

	/* an embedded NUL is refused, not read as the end */
	{
		const char nul[] = "{}\0{}";
		bool		t;
		size_t		n;
		cc_error	err;

		CHECK(cc_parse(&cc_test_ids, nul, sizeof(nul) - 1, buf, &n, &t, &err) == CC_ERR_SYNTAX &&
			  strstr(err.detail, "byte 0x00") != NULL);
	}

	/* uuid helpers */
	{
		uint8_t		id[CC_ID_LEN];
		char		out[CC_UUID_TEXT_LEN + 1];

		CHECK(cc_uuid_parse_cached(&cc_test_ids, EX2, 36, id) && id[0] == 0x7f && id[15] == 0x5d);
		cc_uuid_format_cached(&cc_test_ids, id, out);
		CHECK(strcmp(out, EX2) == 0);
		CHECK(cc_uuid_parse_cached(&cc_test_ids, "7F0CAB51-FB72-3E98-BDB4-0404A982865D", 36, id));
		cc_uuid_format_cached(&cc_test_ids, id, out);
		CHECK(strcmp(out, EX2) == 0);
		CHECK(!cc_uuid_parse_cached(&cc_test_ids, EX2, 35, id));
		/* a longer run of hex digits is refused whole, and id is not written past */
		{
			uint8_t		guard[CC_ID_LEN + 8];

			memset(guard, 0xa5, sizeof(guard));
			CHECK(!cc_uuid_parse_cached(&cc_test_ids, EX2 "00", 38, guard));
			CHECK(!cc_uuid_parse_cached(&cc_test_ids, EX2 "0123456789abcdef", 52, guard));
			CHECK(!cc_uuid_parse_cached(&cc_test_ids, EX2 EX2, 72, guard));
			for (size_t i = CC_ID_LEN; i < sizeof(guard); i++)
				CHECKF(guard[i] == 0xa5, "byte %zu past the id written", i);
		}
		CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51fb72-3e98-bdb4-0404a982865d-", 36, id));
		CHECK(!cc_uuid_parse_cached(&cc_test_ids, "7f0cab51-fb72-3e98-bdb4-0404a982865g", 36, id));
	}
	test_uuid_libuuid();

	/*
	 * Printed ids are remembered: more ids than the memo holds, in turns,
	 * and ids one byte apart (first or last), each printed as libuuid
	 * prints it, every time.
	 */
	{
		uint8_t		ids[20][CC_ID_LEN];
		char		out[CC_UUID_TEXT_LEN + 1],
					want[CC_UUID_TEXT_LEN + 1];
		int			bad = 0;

		for (int k = 0; k < 20; k++)
		{
			for (int b = 0; b < CC_ID_LEN; b++)
				ids[k][b] = (uint8_t) (0x5a ^ (b * 7));
			if (k % 2)
				ids[k][CC_ID_LEN - 1] ^= (uint8_t) k;
			else
				ids[k][0] ^= (uint8_t) k;
		}
		for (int round = 0; round < 3; round++)
			for (int k = 0; k < 20; k++)
			{
				/* a window of 5 that slides: hits and misses alike */
				int			j = (k / 4 + (k % 4) + round) % 20;

				memset(out, 'z', sizeof(out));
				cc_uuid_format_cached(&cc_test_ids, ids[j], out);
				uuid_unparse_lower(ids[j], want);
				bad += strcmp(out, want) != 0;
				cc_uuid_format_cached(&cc_test_ids, ids[j], out);
				bad += strcmp(out, want) != 0;
			}
		CHECKF(bad == 0, "%d ids printed wrong", bad);
	}

	/* format capacity holds the tombstone keyword */
	{
		char		out[32];

		CHECK(cc_format(&cc_test_ids, buf, 0, true, out) + 1 <= cc_format_capacity(0));
		CHECK(cc_format(&cc_test_ids, buf, 0, false, out) + 1 <= cc_format_capacity(0));
	}

	/* format capacity holds the longest shards */
	{
		bool		t;
		size_t		n = state_from_text("{" A ":9223372036854775807:-9223372036854775808, "
										D ":9223372036854775807:-9223372036854775808}", buf, &t);
		char		out[512];
		size_t		len = cc_format(&cc_test_ids, buf, n, t, out);

		CHECK(len + 1 <= cc_format_capacity(n));
		CHECK(len == strlen(out));
	}

	test_text_folded();
}

/* ------------------------------------------------------- fold records */

#define FR "80000000-0000-0000-0000-000000000000"
#define FT "7fffffff-ffff-ffff-ffff-ffffffffffff"
#define FC "ffffffff-ffff-ffff-ffff-ffffffffffff"
#define FB "81111111-1111-1111-1111-111111111111"
#define FOLD_EX "{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100}"

/*
 * cc_parse_folded() into a block of exactly the room it is promised
 * (cc_parse_capacity() shards), so that AddressSanitizer sees a write past
 * it; the caller frees *room.
 */
static cc_code
parse_folded(const char *in, size_t len, unsigned char **room, cc_folded *st,
			 bool *t, cc_error *err)
{
	*room = exact_alloc(cc_parse_capacity(in, len) * CC_SHARD_SIZE);
	return cc_parse_folded(&cc_test_ids, in, len, *room, st, t, err);
}

/* The canonical text of a parsed value, shards and records. */
static const char *
folded_text(const cc_folded *st, bool t)
{
	static char out[16384];

	if (t)
		return "tombstone";
	if (cc_format_folded_capacity(st->n, st->nf) > sizeof(out))
		return "(too long to show)";
	cc_format_folded(&cc_test_ids, st, out);
	return out;
}

static void
check_folded_parses(const char *in, const char *canonical)
{
	unsigned char *room;
	cc_folded	st;
	bool		t;
	cc_error	err;
	cc_code		rc = parse_folded(in, strlen(in), &room, &st, &t, &err);
	const char *got = rc == CC_OK ? folded_text(&st, t) : err.detail;

	CHECKF(rc == CC_OK && strcmp(got, canonical) == 0,
		   "parse_folded(\"%s\") gave \"%s\", expected \"%s\"", in, got, canonical);
	free(room);
}

static void
check_folded_rejects(const char *in, const char *detail_has)
{
	unsigned char *room;
	cc_folded	st;
	bool		t;
	cc_error	err;
	cc_code		rc;

	err.detail[0] = '\0';
	rc = parse_folded(in, strlen(in), &room, &st, &t, &err);
	CHECKF(rc == CC_ERR_SYNTAX && err.code == CC_ERR_SYNTAX &&
		   strstr(err.detail, detail_has) != NULL,
		   "parse_folded(\"%s\") should fail mentioning \"%s\"; got rc %d, \"%s\"",
		   in, detail_has, (int) rc, err.detail);
	free(room);
	/* the same without an error buffer */
	rc = parse_folded(in, strlen(in), &room, &st, &t, NULL);
	CHECK(rc == CC_ERR_SYNTAX);
	free(room);
}

/*
 * The text of a folded state written the way a careless writer might:
 * white space around every token, ids and keyword in random letter case,
 * shards and records in random order, numbers with a "+" or leading zeros.
 * Independent of cc_format_folded().
 */
static size_t
messy_folded(uint64_t *rng, const cc_folded *st, char *o)
{
	static const char *const ws[] = {"", " ", "\n", "\t", "\r\n  ", "\f\v"};
	size_t		order[CC_TF_SHARDS + CC_TF_FOLDS];
	char	   *p = o;

#define MWS() (p += sprintf(p, "%s", ws[cc_test_splitmix(rng) % 6]))
#define MID(id) \
	do { \
		char		text_[CC_UUID_TEXT_LEN + 1]; \
		cc_uuid_format((id), text_); \
		for (int c_ = 0; c_ < CC_UUID_TEXT_LEN; c_++) \
			*p++ = (text_[c_] >= 'a' && text_[c_] <= 'f' && cc_test_splitmix(rng) % 2) \
				? (char) (text_[c_] - 'a' + 'A') : text_[c_]; \
	} while (0)
#define MNUM(v) \
	(p += sprintf(p, cc_test_splitmix(rng) % 4 == 0 && (v) >= 0 ? "+00%lld" : "%lld", (long long) (v)))

	for (int part = 0; part < 2; part++)
	{
		size_t		count = part == 0 ? st->n : st->nf;

		for (size_t i = 0; i < count; i++)
			order[i] = i;
		for (size_t i = count; i > 1; i--)
		{
			size_t		j = cc_test_splitmix(rng) % i,
						x = order[i - 1];

			order[i - 1] = order[j];
			order[j] = x;
		}
		MWS();
		if (part == 1)
		{
			p += sprintf(p, "%s", cc_test_splitmix(rng) % 2 ? "folded" : "FoLdEd");
			MWS();
		}
		*p++ = '{';
		for (size_t i = 0; i < count; i++)
		{
			MWS();
			if (i > 0)
			{
				*p++ = ',';
				MWS();
			}
			if (part == 0)
			{
				cc_shard	sh;

				cc_load(st->shards, order[i], &sh);
				MID(sh.id);
				MWS();
				*p++ = ':';
				MWS();
				MNUM(sh.clock);
				MWS();
				*p++ = ':';
				MWS();
				MNUM(sh.value);
			}
			else
			{
				cc_fold		f;

				cc_fold_load(st->folds, order[i], &f);
				MID(f.retired);
				MWS();
				*p++ = '>';
				MWS();
				MID(f.target);
				MWS();
				*p++ = ':';
				MWS();
				MNUM(f.tclock);
				MWS();
				*p++ = ':';
				MWS();
				MNUM(f.aclock);
				MWS();
				*p++ = ':';
				MWS();
				MNUM(f.avalue);
				MWS();
				*p++ = ':';
				MWS();
				MNUM(f.absorbed);
			}
		}
		MWS();
		*p++ = '}';
	}
	MWS();
	*p = '\0';
#undef MWS
#undef MID
#undef MNUM
	return (size_t) (p - o);
}

/*
 * Random folded states: canonical text and any legal rewriting of it read
 * back as the same state; the text of the stored value the same as of the
 * state; the stored total cc_fold_total()'s.
 */
static void
test_text_folded_random(int cases)
{
	uint64_t	rng = 0x20261124ULL;
	static char text[16384],
				text2[16384];
	long		bad_round = 0,
				bad_messy = 0,
				bad_stored = 0,
				bad_total = 0,
				overflow = 0,
				present = 0;

	for (int i = 0; i < cases; i++)
	{
		cc_test_folded x;
		cc_folded	v,
					back;
		unsigned char *room;
		bool		t;
		cc_error	err;
		size_t		len;

		cc_test_random_folded(&rng, &x);
		v = cc_test_folded_view(&x);
		len = cc_format_folded(&cc_test_ids, &v, text);
		if (len + 1 > cc_format_folded_capacity(v.n, v.nf) || len != strlen(text) ||
			parse_folded(text, len, &room, &back, &t, &err) != CC_OK ||
			t || !cc_test_folded_same(&v, &back))
		{
			if (bad_round++ < 5)
				fprintf(stderr, "folded text round trip broken: %s (%s)\n", text, err.detail);
		}
		else
			free(room);

		len = messy_folded(&rng, &v, text2);
		if (parse_folded(text2, len, &room, &back, &t, &err) != CC_OK ||
			t || !cc_test_folded_same(&v, &back))
		{
			if (bad_messy++ < 5)
				fprintf(stderr, "messy folded text not read back: %s (%s)\n", text2, err.detail);
		}
		else
			free(room);

		/* the stored value: packed with its total, printed as it lies */
		{
			unsigned char *data = exact_alloc(CC_STORED_FOLDED_SIZE(v.n, v.nf));
			size_t		slen = cc_stored_pack_folded(data, &v);
			cc_stored	so;
			int64_t		wraps,
						low,
						value;
			char	   *out = exact_alloc(cc_format_folded_capacity(v.n, v.nf));

			cc_fold_total(&v, &wraps, &low);
			if (cc_stored_open(data, slen, &so, &err) != CC_OK ||
				cc_format_stored(&cc_test_ids, &so, out) != strlen(text) ||
				strcmp(out, text) != 0)
				bad_stored++;
			else if (wraps != 0 ? cc_stored_value(&so, &value, &err) != CC_ERR_OVERFLOW
					 : cc_stored_value(&so, &value, &err) != CC_OK || value != low)
				bad_total++;
			overflow += wraps != 0;
			free(out);
			free(data);
		}
		for (size_t j = 0; j < v.nf; j++)
		{
			size_t		end;

			if (cc_fold_is_retired(v.folds, v.nf, v.folds + j * CC_FOLD_SIZE))
				for (end = 0; end < v.n; end++)
					if (memcmp(v.shards + end * CC_SHARD_SIZE, v.folds + j * CC_FOLD_SIZE, CC_ID_LEN) == 0)
					{
						present++;
						break;
					}
		}
	}
	CHECKF(bad_round == 0, "folded text round trip broken in %ld of %d cases", bad_round, cases);
	CHECKF(bad_messy == 0, "messy folded text not read back in %ld of %d cases", bad_messy, cases);
	CHECKF(bad_stored == 0, "stored folded value printed otherwise in %ld of %d cases", bad_stored, cases);
	CHECKF(bad_total == 0, "stored folded total wrong in %ld of %d cases", bad_total, cases);
	/* the generator reaches totals out of range and late shards of retired writers */
	CHECKF(overflow > 0 && present > 0, "%ld totals out of range, %ld retired writers' shards",
		   overflow, present);
}

static void
test_text_folded(void)
{
	/* the example, its canonical form, and the spellings input allows */
	check_folded_parses(FOLD_EX, FOLD_EX);
	check_folded_parses(" \n{ 7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF : 4 : 110 } FOLDED\t{ 80000000-0000-0000-0000-000000000000 "
						"> 7fffffff-ffff-ffff-ffff-ffffffffffff : +4 : 05 : 100 : +100 }\r\n", FOLD_EX);
	check_folded_parses("{" FT ":4:110}folded{" FR ">" FT ":4:5:100:100}", FOLD_EX);
	/* records in any order come out in (retired, target) order */
	check_folded_parses("{" FT ":5:300} folded {" FC ">" FT ":5:2:200:200, " FR ">" FT ":4:5:100:100}",
						"{" FT ":5:300} folded {" FR ">" FT ":4:5:100:100, " FC ">" FT ":5:2:200:200}");
	/* one retired writer, two targets; a target that is itself retired */
	check_folded_parses("{" FT ":4:60, " FC ":3:40} folded {" FR ">" FC ":3:5:100:40, " FR ">" FT ":4:5:100:60}",
						"{" FT ":4:60, " FC ":3:40} folded {" FR ">" FT ":4:5:100:60, " FR ">" FC ":3:5:100:40}");
	check_folded_parses("{" FT ":2:7} folded {" FB ">" FT ":2:3:7:7, " FR ">" FB ":4:1:5:5}",
						"{" FT ":2:7} folded {" FR ">" FB ":4:1:5:5, " FB ">" FT ":2:3:7:7}");
	/* a late shard of the retired writer, above what its record saw */
	check_folded_parses("{" FT ":4:110, " FR ":6:103} folded {" FR ">" FT ":4:5:100:100}",
						"{" FT ":4:110, " FR ":6:103} folded {" FR ">" FT ":4:5:100:100}");
	/* the edges of bigint */
	check_folded_parses("{" FT ":9223372036854775807:-9223372036854775808} folded {" FR ">" FT
						":9223372036854775807:9223372036854775807:-9223372036854775808:9223372036854775807}",
						"{" FT ":9223372036854775807:-9223372036854775808} folded {" FR ">" FT
						":9223372036854775807:9223372036854775807:-9223372036854775808:9223372036854775807}");
	/* values without records keep their text: no "folded" part */
	check_folded_parses("{" FT ":4:110}", "{" FT ":4:110}");
	check_folded_parses(" tombstone ", "tombstone");
	check_folded_parses("{}", "{}");

	/* the text without records refuses them, as before they existed */
	{
		bool		t;
		size_t		n;
		cc_error	err;

		CHECK(cc_parse(&cc_test_ids, FOLD_EX, strlen(FOLD_EX), buf, &n, &t, &err) == CC_ERR_SYNTAX &&
			  strstr(err.detail, "Expected end of input, found \"folded {80000000...\" at position 46.") != NULL);
	}

	/*
	 * Input that ends within "folded", shorter than the keyword itself:
	 * cut from a longer text that does go on with a whole value, and
	 * copied alone into a block that ends where it ends.  The parser reads
	 * no byte at or past len, so the rest of the longer text changes
	 * nothing: the 'f' is where the input should have ended.
	 */
	{
		static const char whole[] = "{}folded {" FR ">" FT ":4:5:100:100}";

		for (size_t len = 3; len < 6; len++)
		{
			char		expected[CC_DETAIL_LEN];
			unsigned char *room;
			char	   *in = exact_copy(whole, len);
			cc_folded	st;
			bool		t;
			cc_error	err;
			cc_code		rc;

			snprintf(expected, sizeof(expected),
					 "Expected end of input, found \"%.*s\" at position 3.",
					 (int) len - 2, whole + 2);
			err.detail[0] = '\0';
			rc = parse_folded(whole, len, &room, &st, &t, &err);
			CHECKF(rc == CC_ERR_SYNTAX && err.code == CC_ERR_SYNTAX &&
				   strcmp(err.detail, expected) == 0,
				   "the first %zu bytes of \"%s\": rc %d, \"%s\"", len, whole, (int) rc, err.detail);
			free(room);
			err.detail[0] = '\0';
			rc = parse_folded(in, len, &room, &st, &t, &err);
			CHECKF(rc == CC_ERR_SYNTAX && strcmp(err.detail, expected) == 0,
				   "\"%.*s\" alone: rc %d, \"%s\"", (int) len, whole, (int) rc, err.detail);
			free(room);
			free(in);
		}
	}

	/* structure */
	check_folded_rejects("tombstone folded {" FR ">" FT ":4:5:100:100}",
						 "A tombstone has no fold records, found \"folded\" at position 11.");
	check_folded_rejects("TOMBSTONE FOLDED {}", "A tombstone has no fold records");
	check_folded_rejects("{" FT ":4:110} folded {}",
						 "Expected a fold record: a value without fold records has no \"folded\" part, found \"}\" at position 54.");
	check_folded_rejects("{" FT ":4:110} folded { \n }", "a value without fold records has no \"folded\" part");
	check_folded_rejects("{" FT ":4:110} folded", "Expected \"{\" after \"folded\", found end of input.");
	check_folded_rejects("{" FT ":4:110} folded [" FR ">" FT ":4:5:100:100]", "Expected \"{\" after \"folded\", found \"[");
	check_folded_rejects("{" FT ":4:110} folde {" FR ">" FT ":4:5:100:100}", "Expected end of input, found \"folde {");
	check_folded_rejects("{" FT ":4:110} foldedx {" FR ">" FT ":4:5:100:100}", "Expected \"{\" after \"folded\", found \"x {");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100",
						 "Expected \",\" or \"}\" after a fold record, found end of input.");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100,}",
						 "Expected the retired writer id of a fold record, found \"}\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100} x", "Expected end of input, found \"x\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100} folded {" FR ">" FT ":4:5:100:100}",
						 "Expected end of input, found \"folded {");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100 " FR ">" FT ":4:5:100:100}",
						 "Expected \",\" or \"}\" after a fold record");
	check_folded_rejects("{" FT ":4:110} folded {" FR ":" FT ":4:5:100:100}",
						 "Expected \">\" after the retired writer id of a fold record, found \":");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">>" FT ":4:5:100:100}",
						 "Expected the target writer id of a fold record, found \">");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT "4:5:100:100}", "Invalid writer id \"" FT "4\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100}",
						 "Expected \":\" after an avalue, found \"}\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100:1}",
						 "Expected \",\" or \"}\" after a fold record, found \":1}\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT "::5:100:100}",
						 "Expected the tclock of fold record " FR ">" FT " as a whole number, found \":5:100:100}\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:x:100:100}",
						 "Expected the aclock of fold record " FR ">" FT " as a whole number");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:1.5:100}", "Expected \":\" after an avalue, found \".5:100}\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:}",
						 "Expected the absorbed of fold record " FR ">" FT " as a whole number");
	check_folded_rejects("{" FT ":4:110} folded {x>" FT ":4:5:100:100}", "Expected the retired writer id of a fold record, found \"x>");
	check_folded_rejects("{" FT ":4:110} folded {8000000-0000-0000-0000-000000000000>" FT ":4:5:100:100}",
						 "Invalid writer id \"8000000-0000-0000-0000-000000000000\"");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100}\xc3\xa9", "found byte 0xc3");

	/* numbers */
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":9223372036854775808:5:100:100}",
						 "The tclock \"9223372036854775808\" of fold record " FR ">" FT " is out of range for type bigint.");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:-9223372036854775809:100}",
						 "The avalue \"-9223372036854775809\" of fold record " FR ">" FT " is out of range");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:99999999999999999999}",
						 "The absorbed \"99999999999999999999\" of fold record");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":0:5:100:100}",
						 "Fold record " FR ">" FT " has tclock 0; clocks start at 1.");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:-1:100:100}",
						 "Fold record " FR ">" FT " has aclock -1; clocks start at 1.");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:-9223372036854775808:100:100}",
						 "has aclock -9223372036854775808");

	/* records: repeats, one writer as both, disagreement with the shards */
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100, " FR ">" FT ":4:5:100:100}",
						 "Fold record " FR ">" FT " appears more than once.");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100, " FC ">" FT ":1:1:0:0, "
						 "80000000-0000-0000-0000-000000000000>7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF:3:5:100:90}",
						 "Fold record " FR ">" FT " appears more than once.");
	check_folded_rejects("{" FT ":4:110} folded {" FT ">" FT ":4:5:100:100}",
						 "Fold record " FT ">" FT " names one writer as retired and target.");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FC ":4:5:100:100}",
						 "The target of fold record " FR ">" FC " has no shard.");
	check_folded_rejects("{" FT ":4:110} folded {" FR ">" FT ":5:5:100:100}",
						 "Fold record " FR ">" FT " has tclock 5, newer than its target's shard (clock 4).");
	check_folded_rejects("{" FT ":4:110, " FR ":5:100} folded {" FR ">" FT ":4:5:100:100}",
						 "Retired writer " FR " keeps its shard of clock 5, which its fold records have seen (aclock 5).");
	check_folded_rejects("{} folded {" FR ">" FT ":4:5:100:100}", "The target of fold record " FR ">" FT " has no shard.");
	/* the shards' own errors come first, as without records */
	check_folded_rejects("{" FT ":0:110} folded {" FR ">" FT ":4:5:100:100}", "Writer " FT " has clock 0");
	check_folded_rejects("{" FT ":4:110, " FT ":4:110} folded {" FR ">" FT ":4:5:100:100}",
						 "Writer " FT " appears more than once.");

	/* capacities: the longest records fit, and records fit the parse room */
	{
		cc_test_folded x;
		uint64_t	rng = 7;
		cc_folded	v;
		cc_fold		f;
		char	   *out;
		size_t		len;

		cc_test_random_folded(&rng, &x);
		for (size_t i = 0; i < x.nf; i++)
		{
			cc_fold_load(x.f, i, &f);
			f.tclock = f.aclock = INT64_MIN;
			f.avalue = f.absorbed = INT64_MIN;
			cc_fold_store(x.f, i, &f);
		}
		v = cc_test_folded_view(&x);
		out = exact_alloc(cc_format_folded_capacity(v.n, v.nf));
		len = cc_format_folded(&cc_test_ids, &v, out);
		CHECK(len + 1 <= cc_format_folded_capacity(v.n, v.nf) && len == strlen(out));
		free(out);
	}
	{
		/* the shortest records: more of them than of the shortest shards */
		static char many[200 * 100];
		char	   *p = many;
		unsigned char *room;
		cc_folded	st;
		bool		t;
		cc_error	err;
		cc_code		rc;

		p += sprintf(p, "{%s:9:0}folded{", FT);
		for (int i = 0; i < 200; i++)
			p += sprintf(p, "%s%08x-0000-0000-0000-000000000000>%s:1:1:0:0", i > 0 ? "," : "",
						 (unsigned) i + 0x90000000u, FT);
		p += sprintf(p, "}");
		rc = parse_folded(many, strlen(many), &room, &st, &t, &err);
		CHECKF(rc == CC_OK && st.n == 1 && st.nf == 200, "200 short records: %s", rc == CC_OK ? "" : err.detail);
		free(room);
	}

	test_text_folded_random(20000);
}
