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
#include "cc_test_folds.h"
#include "cc_test_states.h"

#define EX1 "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90"
#define EX2 "7f0cab51-fb72-3e98-bdb4-0404a982865d"
#define SH(id, c, v) "{\"id\": \"" id "\", \"clock\": " #c ", \"value\": " #v "}"

static unsigned char jbuf[256 * CC_SHARD_SIZE];

static void test_json_folded_cases(void);
static void test_json_folded_random(long cases);

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
	test_json_folded_cases();
	test_json_folded_random(cases / 10);
}

/* ------------------------------------------------------- fold records */

#define FR "80000000-0000-0000-0000-000000000000"
#define FT "7fffffff-ffff-ffff-ffff-ffffffffffff"
#define FC "ffffffff-ffff-ffff-ffff-ffffffffffff"
#define FOLD_TEXT "{" FT ":4:110} folded {" FR ">" FT ":4:5:100:100}"
/* a record in jsonb's key order, and in the order the reader thinks of */
#define JF(r, t, tc, ac, av, ab) \
	"{\"aclock\": " #ac ", \"avalue\": " #av ", \"target\": \"" t "\", \"tclock\": " #tc \
	", \"retired\": \"" r "\", \"absorbed\": " #ab "}"
#define JR(r, t, tc, ac, av, ab) \
	"{\"retired\": \"" r "\", \"target\": \"" t "\", \"tclock\": " #tc ", \"aclock\": " #ac \
	", \"avalue\": " #av ", \"absorbed\": " #ab "}"
#define FOLD_JSON "{\"folds\": [" JF(FR, FT, 4, 5, 100, 100) "], \"shards\": [" SH(FT, 4, 110) "]}"

/* cc_json_parse_folded() into exactly the room it is promised. */
static cc_code
json_parse_folded(const char *in, size_t len, unsigned char **room,
				  cc_folded *st, bool *t, cc_error *err)
{
	*room = exact_alloc(cc_json_parse_capacity(in, len) * CC_SHARD_SIZE);
	return cc_json_parse_folded(&cc_test_ids, in, len, *room, st, t, err);
}

/* The text form of a parsed value (checked by core_text.c). */
static const char *
jfolded_text(const cc_folded *st, bool t)
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
check_json_folded_parses(const char *in, const char *text)
{
	unsigned char *room;
	cc_folded	st;
	bool		t;
	cc_error	err;
	cc_code		rc = json_parse_folded(in, strlen(in), &room, &st, &t, &err);
	const char *got = rc == CC_OK ? jfolded_text(&st, t) : err.detail;

	CHECKF(rc == CC_OK && strcmp(got, text) == 0,
		   "json parse_folded(%s) gave \"%s\", expected \"%s\"", in, got, text);
	free(room);
}

static void
check_json_folded_rejects(const char *in, const char *detail_has)
{
	unsigned char *room;
	cc_folded	st;
	bool		t;
	cc_error	err;
	cc_code		rc;

	err.detail[0] = '\0';
	rc = json_parse_folded(in, strlen(in), &room, &st, &t, &err);
	CHECKF(rc == CC_ERR_SYNTAX && err.code == CC_ERR_SYNTAX &&
		   strstr(err.detail, detail_has) != NULL,
		   "json parse_folded(%s) should fail mentioning \"%s\"; got rc %d, \"%s\"",
		   in, detail_has, (int) rc, err.detail);
	free(room);
	rc = json_parse_folded(in, strlen(in), &room, &st, &t, NULL);
	CHECK(rc == CC_ERR_SYNTAX);
	free(room);
}

/* The JSON of a value given as text (with records or not). */
static void
check_json_folded_formats(const char *text, const char *json)
{
	unsigned char *room = exact_alloc(cc_parse_capacity(text, strlen(text)) * CC_SHARD_SIZE);
	cc_folded	st;
	bool		t;
	cc_error	err;
	char	   *out;
	size_t		len;

	if (cc_parse_folded(&cc_test_ids, text, strlen(text), room, &st, &t, &err) != CC_OK || t)
	{
		CHECKF(false, "test literal does not parse: %s", text);
		free(room);
		return;
	}
	out = exact_alloc(cc_json_format_folded_capacity(st.n, st.nf));
	len = cc_json_format_folded(&cc_test_ids, &st, out);
	CHECKF(strcmp(out, json) == 0, "json of %s is %s, expected %s", text, out, json);
	CHECK(len == strlen(out));
	free(out);
	free(room);
}

static void
test_json_folded_cases(void)
{
	/* output: jsonb's key order, records by (retired, target) */
	check_json_folded_formats(FOLD_TEXT, FOLD_JSON);
	check_json_folded_formats("{" FT ":5:300} folded {" FC ">" FT ":5:2:200:200, " FR ">" FT ":4:5:100:100}",
							  "{\"folds\": [" JF(FR, FT, 4, 5, 100, 100) ", " JF(FC, FT, 5, 2, 200, 200)
							  "], \"shards\": [" SH(FT, 5, 300) "]}");
	/* without records: the JSON of before */
	check_json_folded_formats("{" FT ":4:110}", "{\"shards\": [" SH(FT, 4, 110) "]}");
	check_json_folded_formats("{}", "{\"shards\": []}");

	/* accepted: any key order, white space, case, escapes */
	check_json_folded_parses(FOLD_JSON, FOLD_TEXT);
	check_json_folded_parses("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 100) "]}",
							 FOLD_TEXT);
	check_json_folded_parses("{\"folds\":[{\"absorbed\":100,\"avalue\":100,\"aclock\":5,\"tclock\":4,"
							 "\"target\":\"7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF\",\"retired\":\"80000000-0000-0000-0000-00000000000\\u0030\"}],"
							 "\"shards\":[" SH(FT, 4, 110) "]}", FOLD_TEXT);
	check_json_folded_parses(" \n{ \"\\u0066olds\" : [ " JR(FR, FT, 4, 5, 100, 100) " ] ,\t\"shards\" : [ " SH(FT, 4, 110) " ] } ",
							 FOLD_TEXT);
	check_json_folded_parses("{\"shards\": [" SH(FT, 5, 300) "], \"folds\": [" JR(FC, FT, 5, 2, 200, 200) ", "
							 JR(FR, FT, 4, 5, 100, 100) "]}",
							 "{" FT ":5:300} folded {" FR ">" FT ":4:5:100:100, " FC ">" FT ":5:2:200:200}");
	check_json_folded_parses("{\"shards\": [" SH(FT, 9223372036854775807, -9223372036854775808) "], \"folds\": ["
							 JR(FR, FT, 9223372036854775807, 1, -9223372036854775808, 9223372036854775807) "]}",
							 "{" FT ":9223372036854775807:-9223372036854775808} folded {" FR ">" FT
							 ":9223372036854775807:1:-9223372036854775808:9223372036854775807}");
	check_json_folded_parses("{\"shards\": [" SH(FT, 4, 110) "]}", "{" FT ":4:110}");
	check_json_folded_parses("{\"tombstone\": true}", "tombstone");

	/* the JSON without records refuses them, as before they existed */
	{
		bool		t;
		size_t		n;
		cc_error	err;

		CHECK(cc_json_parse(&cc_test_ids, FOLD_JSON, strlen(FOLD_JSON), jbuf, &n, &t, &err) == CC_ERR_SYNTAX &&
			  strstr(err.detail, "Unknown key \"folds\" in the counter at position 2.") != NULL);
	}

	/* the shape */
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": []}",
							  "Expected fold record 1: a value without fold records has no \"folds\", found \"]\" at position 98.");
	check_json_folded_rejects("{\"folds\": [ ], \"shards\": []}", "a value without fold records has no \"folds\"");
	check_json_folded_rejects("{\"tombstone\": true, \"folds\": [" JR(FR, FT, 4, 5, 100, 100) "]}",
							  "A tombstone has no fold records: \"folds\" and \"tombstone\" do not go together.");
	check_json_folded_rejects("{\"folds\": [" JR(FR, FT, 4, 5, 100, 100) "]}",
							  "The object has \"folds\" but no \"shards\"");
	check_json_folded_rejects("{\"folds\": [" JR(FR, FT, 4, 5, 100, 100) "], \"shards\": [], \"tombstone\": true}",
							  "not both");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 100) "], \"folds\": ["
							  JR(FR, FT, 4, 5, 100, 100) "]}", "Key \"folds\" appears twice in the counter");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": {}}", "Expected \"folds\" as an array, found an object");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": null}", "Expected \"folds\" as an array, found null");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [1]}", "Expected fold record 1 as an object");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 100) ",]}",
							  "Expected fold record 2 as an object");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 100) " "
							  JR(FC, FT, 4, 5, 100, 100) "]}", "Expected \",\" or \"]\" after fold record 1");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 100),
							  "Expected \",\" or \"]\" after fold record 1, found end of input");
	check_json_folded_rejects("{\"Folds\": []}", "Unknown key \"Folds\" in the counter");

	/* the six keys */
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{}]}", "Fold record 1 has no \"retired\".");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{\"retired\": \"" FR "\", \"target\": \"" FT
							  "\", \"tclock\": 4, \"aclock\": 5, \"avalue\": 100}]}", "Fold record 1 has no \"absorbed\".");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{\"retired\": \"" FR "\", \"tclock\": 4, "
							  "\"aclock\": 5, \"avalue\": 100, \"absorbed\": 100}]}", "Fold record 1 has no \"target\".");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{\"retired\": \"" FR "\", \"target\": \"" FT
							  "\", \"aclock\": 5, \"avalue\": 100, \"absorbed\": 100}]}", "Fold record 1 has no \"tclock\".");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{\"retired\": \"" FR "\", \"target\": \"" FT
							  "\", \"tclock\": 4, \"aclock\": 5, \"avalue\": 100, \"absorbed\": 100, \"id\": \"" FR "\"}]}",
							  "Unknown key \"id\" in fold record 1");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{\"retired\": \"" FR "\", \"target\": \"" FT
							  "\", \"tclock\": 4, \"aclock\": 5, \"avalue\": 100, \"absorbed\": 100, \"tclock\": 4}]}",
							  "Key \"tclock\" appears twice in fold record 1");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{\"retired\": 5, \"target\": \"" FT
							  "\", \"tclock\": 4, \"aclock\": 5, \"avalue\": 100, \"absorbed\": 100}]}",
							  "Expected the retired id as a string, found a number");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [{\"retired\": \"" FR "\", \"target\": \"x\", "
							  "\"tclock\": 4, \"aclock\": 5, \"avalue\": 100, \"absorbed\": 100}]}",
							  "The target id of fold record 1 is not a uuid");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, "4", 5, 100, 100) "]}",
							  "Expected the tclock as a whole number, found a string");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5.0, 100, 100) "]}",
							  "The aclock must be a whole number without a fraction");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 1e2, 100) "]}",
							  "The avalue must be a whole number without an exponent");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 9223372036854775808) "]}",
							  "The absorbed 9223372036854775808 is out of range for type bigint.");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, null) "]}",
							  "Expected the absorbed as a whole number, found null");

	/* the checks of the records, named */
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 0, 5, 100, 100) "]}",
							  "Fold record " FR ">" FT " has tclock 0; clocks start at 1.");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, -5, 100, 100) "]}",
							  "Fold record " FR ">" FT " has aclock -5; clocks start at 1.");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 100) ", "
							  JR("80000000-0000-0000-0000-000000000000", "7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", 3, 5, 100, 90) "]}",
							  "Fold record " FR ">" FT " appears more than once.");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FT, FT, 4, 5, 100, 100) "]}",
							  "Fold record " FT ">" FT " names one writer as retired and target.");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FC, 4, 5, 100, 100) "]}",
							  "The target of fold record " FR ">" FC " has no shard.");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) "], \"folds\": [" JR(FR, FT, 5, 5, 100, 100) "]}",
							  "Fold record " FR ">" FT " has tclock 5, newer than its target's shard (clock 4).");
	check_json_folded_rejects("{\"shards\": [" SH(FT, 4, 110) ", " SH(FR, 5, 100) "], \"folds\": [" JR(FR, FT, 4, 5, 100, 100) "]}",
							  "Retired writer " FR " keeps its shard of clock 5, which its fold records have seen (aclock 5).");
	check_json_folded_rejects("{\"shards\": [], \"folds\": [" JR(FR, FT, 4, 5, 100, 100) "]}",
							  "The target of fold record " FR ">" FT " has no shard.");
	/* the shards' own errors, as without records */
	check_json_folded_rejects("{\"folds\": [" JR(FR, FT, 4, 5, 100, 100) "], \"shards\": [" SH(FT, 0, 110) "]}",
							  "Writer " FT " has clock 0");
}

/*
 * The JSON of a folded state written the way a careless writer might:
 * random white space, "folds" before or after "shards", keys, shards and
 * records in random order, ids in random letter case, some characters as
 * \u escapes.  Independent of cc_json_format_folded().
 */
static size_t
jmessy_folded(const cc_folded *st, char *o)
{
	static const char *const ws[] = {"", " ", "\n", "\t", "\r\n  "};
	static const char *const fnames[] = {"retired", "target", "tclock", "aclock", "avalue", "absorbed"};
	size_t		order[CC_TF_SHARDS + CC_TF_FOLDS];
	char	   *p = o;
	bool		folds_first = jrnd() % 2;

#define WS() (p += sprintf(p, "%s", ws[jrnd() % 5]))
#define JID(id) \
	do { \
		char		text_[CC_UUID_TEXT_LEN + 1]; \
		cc_uuid_format((id), text_); \
		*p++ = '"'; \
		for (int c_ = 0; c_ < CC_UUID_TEXT_LEN; c_++) \
		{ \
			char		ch_ = text_[c_]; \
			if (ch_ >= 'a' && ch_ <= 'f' && jrnd() % 2) \
				ch_ = (char) (ch_ - 'a' + 'A'); \
			if (jrnd() % 10 == 0) \
				p += sprintf(p, "\\u%04x", (unsigned) (unsigned char) ch_); \
			else \
				*p++ = ch_; \
		} \
		*p++ = '"'; \
	} while (0)

	WS();
	*p++ = '{';
	for (int part = 0; part < 2; part++)
	{
		bool		folds = (part == 0) == folds_first;
		size_t		count = folds ? st->nf : st->n;

		WS();
		if (part > 0)
		{
			*p++ = ',';
			WS();
		}
		p += sprintf(p, folds ? (jrnd() % 2 ? "\"folds\"" : "\"f\\u006flds\"") : "\"shards\"");
		WS();
		*p++ = ':';
		WS();
		*p++ = '[';
		for (size_t i = 0; i < count; i++)
			order[i] = i;
		for (size_t i = count; i > 1; i--)
		{
			size_t		j = jrnd() % i,
						x = order[i - 1];

			order[i - 1] = order[j];
			order[j] = x;
		}
		for (size_t i = 0; i < count; i++)
		{
			int			keys[6] = {0, 1, 2, 3, 4, 5};
			int			nk = folds ? 6 : 3;

			for (int k = nk - 1; k > 0; k--)
			{
				int			j = (int) (jrnd() % (uint64_t) (k + 1)),
							x = keys[k];

				keys[k] = keys[j];
				keys[j] = x;
			}
			WS();
			if (i > 0)
			{
				*p++ = ',';
				WS();
			}
			*p++ = '{';
			for (int k = 0; k < nk; k++)
			{
				WS();
				if (k > 0)
				{
					*p++ = ',';
					WS();
				}
				if (folds)
				{
					cc_fold		f;
					int64_t		v;

					cc_fold_load(st->folds, order[i], &f);
					p += sprintf(p, "\"%s\"", fnames[keys[k]]);
					WS();
					*p++ = ':';
					WS();
					if (keys[k] == 0)
						JID(f.retired);
					else if (keys[k] == 1)
						JID(f.target);
					else
					{
						v = keys[k] == 2 ? f.tclock : keys[k] == 3 ? f.aclock :
							keys[k] == 4 ? f.avalue : f.absorbed;
						p += sprintf(p, "%lld", (long long) v);
					}
				}
				else
				{
					cc_shard	sh;

					cc_load(st->shards, order[i], &sh);
					p += sprintf(p, "\"%s\"", keys[k] == 0 ? "id" : keys[k] == 1 ? "clock" : "value");
					WS();
					*p++ = ':';
					WS();
					if (keys[k] == 0)
						JID(sh.id);
					else
						p += sprintf(p, "%lld", (long long) (keys[k] == 1 ? sh.clock : sh.value));
				}
			}
			WS();
			*p++ = '}';
		}
		WS();
		*p++ = ']';
	}
	WS();
	*p++ = '}';
	WS();
	*p = '\0';
#undef WS
#undef JID
	return (size_t) (p - o);
}

static void
test_json_folded_random(long cases)
{
	static char text[32768];
	long		broken_exact = 0,
				broken_messy = 0,
				broken_mutant = 0,
				mutants_ok = 0;

	for (long i = 0; i < cases; i++)
	{
		cc_test_folded x;
		cc_folded	v,
					back;
		unsigned char *room = NULL;
		bool		t;
		cc_error	err;
		size_t		len;

		cc_test_random_folded(&jrng, &x);
		v = cc_test_folded_view(&x);

		len = cc_json_format_folded(&cc_test_ids, &v, text);
		if (len + 1 > cc_json_format_folded_capacity(v.n, v.nf) ||
			json_parse_folded(text, len, &room, &back, &t, &err) != CC_OK || t ||
			back.n != v.n || back.nf != v.nf ||
			memcmp(back.shards, v.shards, v.n * CC_SHARD_SIZE) != 0 ||
			memcmp(back.folds, v.folds, v.nf * CC_FOLD_SIZE) != 0)
		{
			if (broken_exact++ < 5)
				fprintf(stderr, "folded json round trip broken: %s (%s)\n", text, err.detail);
		}
		free(room);

		len = jmessy_folded(&v, text);
		if (json_parse_folded(text, len, &room, &back, &t, &err) != CC_OK || t ||
			back.n != v.n || back.nf != v.nf ||
			memcmp(back.shards, v.shards, v.n * CC_SHARD_SIZE) != 0 ||
			memcmp(back.folds, v.folds, v.nf * CC_FOLD_SIZE) != 0)
		{
			if (broken_messy++ < 5)
				fprintf(stderr, "messy folded json not read back: %s (%s)\n", text, err.detail);
		}
		free(room);

		/* one byte changed: a valid checked state, or a syntax error */
		{
			size_t		at = jrnd() % len;
			cc_code		rc;

			text[at] = "{}[]:,\"\\ 0-1e.xtu"[jrnd() % 17];
			err.code = CC_OK;
			rc = json_parse_folded(text, len, &room, &back, &t, &err);
			if (rc == CC_OK)
			{
				mutants_ok++;
				if (cc_check_canonical(back.shards, back.n, CC_ERR_SYNTAX, NULL) != CC_OK ||
					cc_fold_check(&back, CC_ERR_SYNTAX, NULL) != CC_OK)
					broken_mutant++;
			}
			else if (rc != CC_ERR_SYNTAX || err.code != CC_ERR_SYNTAX ||
					 memchr(err.detail, '\0', CC_DETAIL_LEN) == NULL ||
					 err.detail[0] == '\0')
				broken_mutant++;
			free(room);
		}
	}
	CHECKF(broken_exact == 0, "folded json round trip broken in %ld of %ld cases", broken_exact, cases);
	CHECKF(broken_messy == 0, "rewritten folded json not read back in %ld of %ld cases", broken_messy, cases);
	CHECKF(broken_mutant == 0, "a mutated folded json gave a bad result in %ld of %ld cases", broken_mutant, cases);
	CHECKF(cases < 1000 || mutants_ok > 0, "no mutant of a folded json was still valid");
}
