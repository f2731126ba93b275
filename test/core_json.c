/*
 * core_json.c
 *	  Unit tests of the JSON form (cc_json.c): accepted spellings, the exact
 *	  output, rejections with a detail naming the bad part, and random states
 *	  round-tripping through JSON, also after their JSON has been rewritten
 *	  the ways the input may legally differ (white space, key and shard
 *	  order, letter case, escapes).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_test.h"
#include "cc_test_states.h"

#define EX1 "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90"
#define EX2 "7f0cab51-fb72-3e98-bdb4-0404a982865d"
#define SH(id, c, v) "{\"id\": \"" id "\", \"clock\": " #c ", \"value\": " #v "}"

static unsigned char jbuf[256 * CC_SHARD_SIZE];

static void
check_json_parses(const char *in, const char *canonical)
{
	bool		t;
	size_t		n = 0;
	cc_error	err;
	cc_code		rc = cc_json_parse(&cc_test_ids, in, strlen(in), jbuf, &n, &t, &err);
	const char *got = rc == CC_OK ? state_text(jbuf, n, t) : err.detail;

	CHECKF(rc == CC_OK && strcmp(got, canonical) == 0,
		   "json parse(%s) gave \"%s\", expected \"%s\"", in, got, canonical);
	CHECK(rc != CC_OK || n <= cc_json_parse_capacity(in, strlen(in)));
}

static void
check_json_rejects(const char *in, const char *detail_has)
{
	bool		t;
	size_t		n;
	cc_error	err;
	cc_code		rc;

	err.detail[0] = '\0';
	rc = cc_json_parse(&cc_test_ids, in, strlen(in), jbuf, &n, &t, &err);
	CHECKF(rc == CC_ERR_SYNTAX && err.code == CC_ERR_SYNTAX &&
		   strstr(err.detail, detail_has) != NULL,
		   "json parse(%s) should fail mentioning \"%s\"; got rc %d, \"%s\"",
		   in, detail_has, (int) rc, err.detail);
	/* the same without an error buffer */
	CHECK(cc_json_parse(&cc_test_ids, in, strlen(in), jbuf, &n, &t, NULL) == CC_ERR_SYNTAX);
}

static void
check_json_formats(const char *text, const char *json)
{
	bool		t;
	size_t		n = state_from_text(text, jbuf, &t);
	char		out[4096];
	size_t		len = cc_json_format(&cc_test_ids, jbuf, n, t, out);

	CHECKF(strcmp(out, json) == 0, "json of %s is %s, expected %s", text, out, json);
	CHECK(len == strlen(out));
	CHECK(len + 1 <= cc_json_format_capacity(n));
}

static void
test_json_cases(void)
{
	/* output: jsonb's spacing and key order, shards by id, ids lower case */
	check_json_formats("{}", "{\"shards\": []}");
	check_json_formats("tombstone", "{\"tombstone\": true}");
	check_json_formats("{" EX2 ":1:-5, " EX1 ":3:42}",
					   "{\"shards\": [" SH(EX1, 3, 42) ", " SH(EX2, 1, -5) "]}");
	check_json_formats("{FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF:9223372036854775807:-9223372036854775808}",
					   "{\"shards\": [" SH("ffffffff-ffff-ffff-ffff-ffffffffffff",
										   9223372036854775807, -9223372036854775808) "]}");

	/* accepted */
	check_json_parses("{\"shards\": []}", "{}");
	check_json_parses(" \t\r\n{ \"shards\" : [ ] } \n", "{}");
	check_json_parses("{\"tombstone\":true}", "tombstone");
	check_json_parses("{\"shards\": [" SH(EX2, 1, -5) ", " SH(EX1, 3, 42) "]}",
					  "{" EX1 ":3:42, " EX2 ":1:-5}");
	check_json_parses("{\"shards\":[{\"value\":-5,\"clock\":1,\"id\":\"7F0CAB51-FB72-3E98-BDB4-0404A982865D\"}]}",
					  "{" EX2 ":1:-5}");
	check_json_parses("{\"shards\": [" SH(EX1, 9223372036854775807, -9223372036854775808) "]}",
					  "{" EX1 ":9223372036854775807:-9223372036854775808}");
	check_json_parses("{\"shards\": [" SH(EX1, 1, -0) "]}", "{" EX1 ":1:0}");
	check_json_parses("{\"shards\": [" SH(EX1, 1, 0) "]}", "{" EX1 ":1:0}");
	check_json_parses("{\"\\u0073hards\": [{\"i\\u0064\": \"0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e9\\u0030\", "
					  "\"clock\": 1, \"value\": 2}]}", "{" EX1 ":1:2}");
	check_json_parses("{\"shards\": [{\"id\": \"0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E9\\u0030\", "
					  "\"\\u0063lock\": 1, \"value\": 2}]}", "{" EX1 ":1:2}");

	/* the shape */
	check_json_rejects("", "Expected an object");
	check_json_rejects("[]", "Expected an object {\"shards\": [...]} or {\"tombstone\": true}, found an array at position 1");
	check_json_rejects("null", "found null");
	check_json_rejects("{}", "neither \"shards\" nor \"tombstone\"");
	check_json_rejects("{\"shards\": [], \"tombstone\": true}", "not both");
	check_json_rejects("{\"tombstone\": true, \"shards\": []}", "not both");
	check_json_rejects("{\"tombstone\": false}", "Expected \"tombstone\" to be true, found false");
	check_json_rejects("{\"tombstone\": \"true\"}", "found a string");
	check_json_rejects("{\"tombstone\": truex}", "Expected \",\" or \"}\" in the counter, found \"x\"");
	check_json_rejects("{\"tombstone\": tru}", "to be true");
	check_json_rejects("{\"Shards\": []}", "Unknown key \"Shards\" in the counter at position 2");
	check_json_rejects("{\"shards\": [], \"x\": 1}", "Unknown key \"x\"");
	check_json_rejects("{\"\\u00e9\": 1}", "Unknown key in the counter");
	check_json_rejects("{\"shards\": [], \"shards\": []}", "Key \"shards\" appears twice in the counter at position 16");
	check_json_rejects("{\"shards\": {}}", "Expected \"shards\" as an array, found an object");
	check_json_rejects("{\"shards\": [1]}", "Expected shard 1 as an object");
	check_json_rejects("{\"shards\": [" SH(EX1, 1, 1) ", null]}", "Expected shard 2 as an object");
	check_json_rejects("{\"shards\": [" SH(EX1, 1, 1) ",]}", "Expected shard 2 as an object {\"id\": ..., \"clock\": ..., \"value\": ...}, found \"]\" at position 84.");
	check_json_rejects("{\"shards\": [" SH(EX1, 1, 1) " " SH(EX2, 1, 1) "]}", "Expected \",\" or \"]\" after shard 1");
	check_json_rejects("{\"shards\": [" SH(EX1, 1, 1), "Expected \",\" or \"]\" after shard 1, found end of input");
	check_json_rejects("{\"shards\": []", "Expected \",\" or \"}\" in the counter, found end of input");
	check_json_rejects("{\"shards\": []} x", "Expected end of input, found \"x\" at position 16");
	check_json_rejects("{\"shards\": []}{}", "Expected end of input");
	check_json_rejects("{\"shards\" []}", "Expected \":\" after a key");
	check_json_rejects("{shards: []}", "Expected a key as a string");
	check_json_rejects("{'shards': []}", "found \"'\"");

	/* shards */
	check_json_rejects("{\"shards\": [{}]}", "Shard 1 has no \"id\"");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"value\": 1}]}", "Shard 1 has no \"clock\"");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1}]}", "Shard 1 has no \"value\"");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": 1, \"id\": \"" EX1 "\"}]}",
					   "Key \"id\" appears twice in shard 1");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": 1, \"node\": 0}]}",
					   "Unknown key \"node\" in shard 1");
	check_json_rejects("{\"shards\": [{\"id\": 5, \"clock\": 1, \"value\": 1}]}", "Expected the id as a string, found a number");
	check_json_rejects("{\"shards\": [{\"id\": \"x\", \"clock\": 1, \"value\": 1}]}", "The id of shard 1 is not a uuid");
	check_json_rejects("{\"shards\": [{\"id\": \"0b6e7f3a2d444c8e9a513f0d2c7b1e90\", \"clock\": 1, \"value\": 1}]}",
					   "is not a uuid");
	check_json_rejects("{\"shards\": [{\"id\": \" " EX1 "\", \"clock\": 1, \"value\": 1}]}", "is not a uuid");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": \"1\", \"value\": 1}]}",
					   "Expected the clock as a whole number, found a string");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": null}]}",
					   "Expected the value as a whole number, found null");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": [1]}]}", "found an array");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": 1.5}]}", "without a fraction");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": 1.0}]}", "without a fraction");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1e2, \"value\": 1}]}", "without an exponent");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": 5E0}]}", "without an exponent");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 01, \"value\": 1}]}", "leading zero");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": +1, \"value\": 1}]}", "found \"+\"");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": -, \"value\": 1}]}", "Expected the clock as a whole number");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": 9223372036854775808}]}",
					   "The value 9223372036854775808 is out of range for type bigint");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 1, \"value\": -9223372036854775809}]}",
					   "out of range");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 99999999999999999999999, \"value\": 1}]}",
					   "The clock 99999999999999999999999 is out of range");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": 0, \"value\": 1}]}",
					   "Writer " EX1 " has clock 0; clocks start at 1");
	check_json_rejects("{\"shards\": [{\"id\": \"" EX1 "\", \"clock\": -9223372036854775808, \"value\": 1}]}",
					   "clocks start at 1");
	check_json_rejects("{\"shards\": [" SH(EX1, 1, 1) ", " SH("0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E90", 2, 2) "]}",
					   "Writer " EX1 " appears more than once");
	check_json_rejects("{\"shards\": [" SH(EX2, 1, 1) ", " SH(EX1, 2, 2) ", " SH(EX2, 1, 1) "]}",
					   "appears more than once");

	/* strings */
	check_json_rejects("{\"shards", "Expected the end of a string, found end of input");
	check_json_rejects("{\"sha\nrds\": []}", "control character");
	check_json_rejects("{\"sha\\xrds\": []}", "Expected an escape character");
	check_json_rejects("{\"sha\\u00g1rds\": []}", "Expected four hex digits after \\u, found \"g\"");
	check_json_rejects("{\"sha\\u00", "Expected four hex digits");
	check_json_rejects("{\"sha\\", "Expected an escape character after \"\\\", found end of input");
	/* a NUL byte inside the text is not the end of it */
	{
		static const char nul[] = "{\"shards\": []}\0";
		bool		t;
		size_t		n;
		cc_error	err;

		CHECK(cc_json_parse(&cc_test_ids, nul, sizeof(nul) - 1, jbuf, &n, &t, &err) == CC_ERR_SYNTAX &&
			  strstr(err.detail, "byte 0x00") != NULL);
	}
}

/* -------------------------------------------------------- random states */

static uint64_t jrng;

static uint64_t
jrnd(void)
{
	return cc_test_splitmix(&jrng);
}

/* A random canonical state of up to 8 shards from the edge ids and random ids. */
static size_t
jrnd_state(unsigned char *out, bool *tombstone)
{
	cc_shard	sh[12];
	size_t		k = 0,
				n = 0;
	static const int64_t edges[] = {0, 1, -1, INT64_MAX, INT64_MIN, 2};

	*tombstone = jrnd() % 20 == 0;
	if (*tombstone)
		return 0;
	for (size_t i = jrnd() % 9; i > 0; i--)
	{
		if (jrnd() % 3 == 0)
			for (int b = 0; b < CC_ID_LEN; b++)
				sh[k].id[b] = (uint8_t) jrnd();
		else
			memcpy(sh[k].id, cc_edge_ids[jrnd() % CC_EDGE_IDS], CC_ID_LEN);
		sh[k].clock = jrnd() % 4 == 0 ? (int64_t) (jrnd() >> 1) | 1 : (int64_t) (jrnd() % 3) + 1;
		if (jrnd() % 8 == 0)
			sh[k].clock = INT64_MAX;
		sh[k].value = jrnd() % 2 ? edges[jrnd() % 6] : (int64_t) jrnd();
		k++;
	}
	cc_test_sort_by_id(sh, k);
	for (size_t i = 0; i < k; i++)
		if (n == 0 || memcmp(sh[n - 1].id, sh[i].id, CC_ID_LEN) != 0)
			sh[n++] = sh[i];
	for (size_t i = 0; i < n; i++)
		cc_store(out, i, &sh[i]);
	return n;
}

/*
 * Writes the JSON of a state the way a careless writer might: random white
 * space, keys and shards in random order, ids in random letter case, some
 * characters of keys and ids as \u escapes.  Independent of cc_json_format.
 */
static size_t
jmessy(const unsigned char *s, size_t n, bool tombstone, char *o)
{
	static const char *const ws[] = {"", " ", "\n", "\t", "\r\n  "};
	size_t		order[16];
	char	   *p = o;

#define WS() (p += sprintf(p, "%s", ws[jrnd() % 5]))
	WS();
	p += sprintf(p, "{");
	WS();
	if (tombstone)
	{
		p += sprintf(p, "\"tomb\\u0073tone\"");
		WS();
		p += sprintf(p, ":");
		WS();
		p += sprintf(p, "true");
		WS();
		p += sprintf(p, "}");
		return (size_t) (p - o);
	}
	p += sprintf(p, jrnd() % 2 ? "\"shards\"" : "\"\\u0073hards\"");
	WS();
	p += sprintf(p, ":");
	WS();
	p += sprintf(p, "[");
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--)
	{
		size_t		j = jrnd() % i,
					t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;
		char		id[CC_UUID_TEXT_LEN + 1];
		int			keys[3] = {0, 1, 2};

		cc_load(s, order[i], &sh);
		cc_uuid_format(sh.id, id);
		for (int k = 2; k > 0; k--)
		{
			int			j = (int) (jrnd() % (uint64_t) (k + 1)),
						t = keys[k];

			keys[k] = keys[j];
			keys[j] = t;
		}
		WS();
		p += sprintf(p, "%s{", i > 0 ? "," : "");
		for (int k = 0; k < 3; k++)
		{
			WS();
			if (k > 0)
				p += sprintf(p, ",");
			WS();
			if (keys[k] == 0)
			{
				p += sprintf(p, "\"id\"");
				WS();
				p += sprintf(p, ":\"");
				for (int c = 0; c < CC_UUID_TEXT_LEN; c++)
				{
					char		ch = id[c];

					if (ch >= 'a' && ch <= 'f' && jrnd() % 2)
						ch = (char) (ch - 'a' + 'A');
					if (jrnd() % 10 == 0)
						p += sprintf(p, "\\u%04x", (unsigned) (unsigned char) ch);
					else
						*p++ = ch;
				}
				*p++ = '"';
			}
			else
			{
				p += sprintf(p, keys[k] == 1 ? "\"clock\"" : "\"value\"");
				WS();
				p += sprintf(p, ":");
				WS();
				p += sprintf(p, "%lld", (long long) (keys[k] == 1 ? sh.clock : sh.value));
			}
		}
		WS();
		p += sprintf(p, "}");
	}
	WS();
	p += sprintf(p, "]");
	WS();
	p += sprintf(p, "}");
	WS();
#undef WS
	return (size_t) (p - o);
}

static void
test_json_random(long cases)
{
	static unsigned char s[16 * CC_SHARD_SIZE],
				back[64 * CC_SHARD_SIZE];
	static char text[16384];
	long		broken_exact = 0,
				broken_messy = 0,
				broken_mutant = 0;
	const char *seed_env = getenv("CC_TEST_SEED");

	jrng = seed_env ? strtoull(seed_env, NULL, 0) : 0x15072026ULL;
	for (long i = 0; i < cases; i++)
	{
		bool		t,
					t2;
		size_t		n = jrnd_state(s, &t),
					n2 = 0,
					len;
		cc_error	err;

		/* format, then parse: the same state */
		len = cc_json_format(&cc_test_ids, s, n, t, text);
		if (len + 1 > cc_json_format_capacity(n) ||
			cc_json_parse(&cc_test_ids, text, len, back, &n2, &t2, &err) != CC_OK ||
			!cc_equal(s, n, t, back, n2, t2))
		{
			if (broken_exact++ < 5)
				fprintf(stderr, "json round trip broken: %s\n", text);
		}

		/* any legal rewriting of the JSON: the same state */
		len = jmessy(s, n, t, text);
		if (cc_json_parse(&cc_test_ids, text, len, back, &n2, &t2, &err) != CC_OK ||
			!cc_equal(s, n, t, back, n2, t2) ||
			n2 > cc_json_parse_capacity(text, len))
		{
			if (broken_messy++ < 5)
				fprintf(stderr, "messy json not read back: %s (%s)\n", text, err.detail);
		}

		/*
		 * One byte changed: either still a valid counter (a digit for a
		 * digit, say), which then formats canonically, or a syntax error
		 * with a printable detail.  Never anything else.
		 */
		if (len > 0)
		{
			size_t		at = jrnd() % len;
			cc_code		rc;

			text[at] = "{}[]:,\"\\ 0-1e.xtu"[jrnd() % 17];
			err.code = CC_OK;
			rc = cc_json_parse(&cc_test_ids, text, len, back, &n2, &t2, &err);
			if (rc == CC_OK)
			{
				if (cc_check_canonical(back, n2, CC_ERR_SYNTAX, NULL) != CC_OK)
					broken_mutant++;
			}
			else if (rc != CC_ERR_SYNTAX || err.code != CC_ERR_SYNTAX ||
					 memchr(err.detail, '\0', CC_DETAIL_LEN) == NULL ||
					 err.detail[0] == '\0')
				broken_mutant++;
		}
	}
	CHECKF(broken_exact == 0, "json format/parse round trip broken in %ld of %ld cases", broken_exact, cases);
	CHECKF(broken_messy == 0, "rewritten json not read back in %ld of %ld cases", broken_messy, cases);
	CHECKF(broken_mutant == 0, "a mutated json gave a bad result in %ld of %ld cases", broken_mutant, cases);
}

void
test_json(long cases)
{
	test_json_cases();
	test_json_random(cases / 10);
}
