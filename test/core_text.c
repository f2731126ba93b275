/*
 * core_text.c
 *	  Unit tests of the text form: accepted spellings, canonical output and
 *	  the rejection of malformed text with a detail naming the bad part.
 */
#include <locale.h>
#include <stdint.h>

#include <uuid/uuid.h>

#include "cc_test.h"

#define A "00000000-0000-0000-0000-000000000001"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"
#define EX1 "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90"
#define EX2 "7f0cab51-fb72-3e98-bdb4-0404a982865d"

static unsigned char buf[256 * CC_SHARD_SIZE];

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
}
