/*
 * fuzz_json.c
 *	  libFuzzer harness of the JSON form, cc_json_parse() and
 *	  cc_json_format(): what the casts jsonb::counter_crdt and
 *	  json::counter_crdt run on user input.
 *
 * The input is used twice.
 *
 * As JSON text, as it is (embedded NULs and all; the buffer libFuzzer passes
 * is exactly size bytes, so AddressSanitizer sees a read past it).  Accepted
 * text must be valid JSON by a plain generic validator written below, apart
 * from the core (so that a parser that accepted "tru", "01" or "+1" fails
 * here even though its round trips hold), and must give a canonical state
 * that formats to JSON that parses back to the same state and is a fixed
 * point; the state's text form must parse back to it too.  Rejected text
 * must give CC_ERR_SYNTAX and a printable detail.
 *
 * As raw shards: every 32 bytes are an id, a clock and a value, made
 * canonical (sorted, duplicates dropped, clocks forced >= 1); that state's
 * JSON, in a buffer of exactly the promised capacity, must parse back to it.
 * This reaches every clock and value, which the text path rarely would.
 *
 * With fold records: the text goes to cc_json_parse_folded() as well,
 * which must accept whatever cc_json_parse() accepts, as the same state
 * without records; what only it accepts must be valid JSON with "folds"
 * and a state that goes through every form (fuzz_folded_round_trip()).
 * The input also seeds a random folded state that does the same.
 */
#include <ctype.h>

#include "fuzz_common.h"
#include "cc_test_states.h"

/* ------------------------------------------------- a generic validator */

typedef struct jv
{
	const uint8_t *s;
	size_t		len;
	size_t		pos;
	int			depth;
} jv;

static void
jv_ws(jv *v)
{
	while (v->pos < v->len && (v->s[v->pos] == ' ' || v->s[v->pos] == '\t' ||
							   v->s[v->pos] == '\n' || v->s[v->pos] == '\r'))
		v->pos++;
}

static bool jv_value(jv *v);

static bool
jv_lit(jv *v, const char *lit)
{
	size_t		l = strlen(lit);

	if (v->len - v->pos < l || memcmp(v->s + v->pos, lit, l) != 0)
		return false;
	v->pos += l;
	return true;
}

static bool
jv_string(jv *v)
{
	if (v->pos >= v->len || v->s[v->pos] != '"')
		return false;
	v->pos++;
	while (v->pos < v->len)
	{
		uint8_t		c = v->s[v->pos++];

		if (c == '"')
			return true;
		if (c < 0x20)
			return false;
		if (c == '\\')
		{
			if (v->pos >= v->len)
				return false;
			c = v->s[v->pos++];
			if (c == 'u')
			{
				for (int i = 0; i < 4; i++, v->pos++)
					if (v->pos >= v->len || !isxdigit(v->s[v->pos]))
						return false;
			}
			else if (!strchr("\"\\/bfnrt", c) || c == '\0')
				return false;
		}
	}
	return false;
}

static bool
jv_digits(jv *v)
{
	size_t		start = v->pos;

	while (v->pos < v->len && v->s[v->pos] >= '0' && v->s[v->pos] <= '9')
		v->pos++;
	return v->pos > start;
}

static bool
jv_number(jv *v)
{
	if (v->pos < v->len && v->s[v->pos] == '-')
		v->pos++;
	if (v->pos < v->len && v->s[v->pos] == '0')
		v->pos++;
	else if (!jv_digits(v))
		return false;
	if (v->pos < v->len && v->s[v->pos] == '.')
	{
		v->pos++;
		if (!jv_digits(v))
			return false;
	}
	if (v->pos < v->len && (v->s[v->pos] == 'e' || v->s[v->pos] == 'E'))
	{
		v->pos++;
		if (v->pos < v->len && (v->s[v->pos] == '+' || v->s[v->pos] == '-'))
			v->pos++;
		if (!jv_digits(v))
			return false;
	}
	return true;
}

/* An object or an array: members separated by commas, no trailing comma. */
static bool
jv_container(jv *v, char close, bool object)
{
	v->pos++;
	jv_ws(v);
	if (v->pos < v->len && v->s[v->pos] == close)
	{
		v->pos++;
		return true;
	}
	for (;;)
	{
		if (object)
		{
			jv_ws(v);
			if (!jv_string(v))
				return false;
			jv_ws(v);
			if (v->pos >= v->len || v->s[v->pos++] != ':')
				return false;
		}
		if (!jv_value(v))
			return false;
		jv_ws(v);
		if (v->pos >= v->len)
			return false;
		if (v->s[v->pos] == close)
		{
			v->pos++;
			return true;
		}
		if (v->s[v->pos++] != ',')
			return false;
	}
}

static bool
jv_value(jv *v)
{
	bool		ok;

	jv_ws(v);
	if (v->pos >= v->len || ++v->depth > 64)
		return false;
	switch (v->s[v->pos])
	{
		case '{':
			ok = jv_container(v, '}', true);
			break;
		case '[':
			ok = jv_container(v, ']', false);
			break;
		case '"':
			ok = jv_string(v);
			break;
		case 't':
			ok = jv_lit(v, "true");
			break;
		case 'f':
			ok = jv_lit(v, "false");
			break;
		case 'n':
			ok = jv_lit(v, "null");
			break;
		default:
			ok = jv_number(v);
			break;
	}
	v->depth--;
	return ok;
}

static bool
valid_json(const uint8_t *s, size_t len)
{
	jv			v = {s, len, 0, 0};

	if (!jv_value(&v))
		return false;
	jv_ws(&v);
	return v.pos == len;
}

/* ------------------------------------------------------------ checks */

static const uint8_t *cur_data;
static size_t cur_size;

static void
print_case(void)
{
	fprintf(stderr, "  input (%zu bytes): %.*s\n", cur_size,
			(int) (cur_size > 400 ? 400 : cur_size), (const char *) cur_data);
}

/* format(s) in a buffer of exactly the promised size, and parse it back. */
static void
check_format_round_trip(const unsigned char *s, size_t n, bool tombstone)
{
	size_t		cap = cc_json_format_capacity(n);
	char	   *json = fuzz_alloc(cap);
	size_t		len = cc_json_format(&fuzz_ids, s, n, tombstone, json);
	size_t		pcap,
				n2 = 0;
	unsigned char *back;
	bool		t2 = false;
	cc_error	err;

	FUZZ_CHECK(len + 1 <= cap && json[len] == '\0' && strlen(json) == len);
	FUZZ_CHECK(valid_json((const uint8_t *) json, len));
	pcap = cc_json_parse_capacity(json, len);
	FUZZ_CHECK(pcap >= n);
	back = fuzz_alloc(pcap * CC_SHARD_SIZE);
	FUZZ_CHECK(cc_json_parse(&fuzz_ids, json, len, back, &n2, &t2, &err) == CC_OK);
	FUZZ_CHECK(cc_equal(s, n, tombstone, back, n2, t2));
	free(back);
	free(json);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		cap = cc_json_parse_capacity((const char *) data, size);
	unsigned char *out = fuzz_alloc(cap * CC_SHARD_SIZE);
	size_t		n = 0;
	bool		tombstone = false;
	cc_error	err;
	cc_code		rc;

	cur_data = data;
	cur_size = size;
	fuzz_context = print_case;

	/* 1. the input as JSON text */
	fuzz_poison_error(&err);
	rc = cc_json_parse(&fuzz_ids, (const char *) data, size, out, &n, &tombstone, &err);
	FUZZ_CHECK(cc_json_parse(&fuzz_ids, (const char *) data, size, out, &n, &tombstone, NULL) == rc);
	if (rc == CC_OK)
	{
		char	   *text;
		size_t		tn = 0;
		bool		tt = false;
		unsigned char *tback;

		FUZZ_CHECK(valid_json(data, size));
		FUZZ_CHECK(n <= cap);
		FUZZ_CHECK(!tombstone || n == 0);
		FUZZ_CHECK(fuzz_canonical(out, n));
		check_format_round_trip(out, n, tombstone);

		/* the text form agrees */
		text = fuzz_alloc(cc_format_capacity(n));
		cc_format(&fuzz_ids, out, n, tombstone, text);
		tback = fuzz_alloc(cc_parse_capacity(text, strlen(text)) * CC_SHARD_SIZE);
		FUZZ_CHECK(cc_parse(&fuzz_ids, text, strlen(text), tback, &tn, &tt, NULL) == CC_OK);
		FUZZ_CHECK(cc_equal(out, n, tombstone, tback, tn, tt));
		free(tback);
		free(text);
	}
	else
		fuzz_check_error(&err, CC_ERR_SYNTAX);

	/* 1b. the same text, fold records allowed */
	{
		unsigned char *fout = fuzz_alloc(cap * CC_SHARD_SIZE);
		cc_folded	st;
		bool		ft = false;
		cc_code		frc;
		cc_error	ferr;

		fuzz_poison_error(&ferr);
		frc = cc_json_parse_folded(&fuzz_ids, (const char *) data, size, fout, &st, &ft, &ferr);
		FUZZ_CHECK(cc_json_parse_folded(&fuzz_ids, (const char *) data, size, fout, &st, &ft, NULL) == frc);
		if (rc == CC_OK)
		{
			FUZZ_CHECK(frc == CC_OK && st.nf == 0 && st.n == n && ft == tombstone);
			FUZZ_CHECK(memcmp(st.shards, out, n * CC_SHARD_SIZE) == 0);
		}
		if (frc != CC_OK)
			fuzz_check_error(&ferr, CC_ERR_SYNTAX);
		else
		{
			FUZZ_CHECK(valid_json(data, size));
			FUZZ_CHECK(st.shards == fout && st.folds == fout + st.n * CC_SHARD_SIZE);
			FUZZ_CHECK(st.n * CC_SHARD_SIZE + st.nf * CC_FOLD_SIZE <= cap * CC_SHARD_SIZE);
			FUZZ_CHECK(fuzz_canonical(st.shards, st.n));
			FUZZ_CHECK(!ft || (st.n == 0 && st.nf == 0));
			if (rc != CC_OK)
			{
				/* only the records made the difference: "folds" is never empty */
				FUZZ_CHECK(st.nf > 0);
			}
			if (st.nf > 0)
				fuzz_folded_round_trip(&st);
		}
		free(fout);
	}
	free(out);

	/* 1c. any input seeds a state with fold records, through every form */
	{
		cc_test_folded x;
		cc_folded	v;

		fuzz_seeded_folded(data, size, &x);
		v = cc_test_folded_view(&x);
		fuzz_folded_round_trip(&v);
	}

	/* 2. the input as raw shards */
	{
		size_t		k = size / CC_SHARD_SIZE > 16 ? 16 : size / CC_SHARD_SIZE,
					m = 0;
		cc_shard	sh[16];
		unsigned char *s = fuzz_alloc(16 * CC_SHARD_SIZE);

		for (size_t i = 0; i < k; i++)
		{
			memcpy(&sh[i], data + i * CC_SHARD_SIZE, CC_SHARD_SIZE);
			if (sh[i].clock < 1)
				sh[i].clock = sh[i].clock == INT64_MIN ? INT64_MAX : (sh[i].clock == 0 ? 1 : -sh[i].clock);
		}
		cc_test_sort_by_id(sh, k);
		for (size_t i = 0; i < k; i++)
			if (m == 0 || memcmp(sh[m - 1].id, sh[i].id, CC_ID_LEN) != 0)
				sh[m++] = sh[i];
		for (size_t i = 0; i < m; i++)
			cc_store(s, i, &sh[i]);
		check_format_round_trip(s, m, size % 32 == 31 && m == 0);
		free(s);
	}

	fuzz_context = NULL;
	return 0;
}
