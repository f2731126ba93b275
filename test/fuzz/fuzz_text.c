/*
 * fuzz_text.c
 *	  libFuzzer harness of the text decoder, cc_parse(): what counter_crdt_in
 *	  runs on every literal and COPY (FORMAT text) field.
 *
 * The input is the text as it is, embedded NULs and all: counter_crdt_in
 * hands the parser a C string, but the parser takes a length and must never
 * read past it nor stop at a NUL.  The input buffer that libFuzzer passes is
 * exactly size bytes long, so AddressSanitizer sees any read beyond it.
 *
 * Accepted text must give a canonical state that formats to text which
 * parses back to the same state, and that text must be a fixed point.
 * Rejected text must give CC_ERR_SYNTAX and a printable detail.
 *
 * Round trips cannot tell whether the parser accepts the right language
 * (a parser taking "tom" for a tombstone, or "+-1" for a number, would pass
 * them all), so the verdict and the state are also compared with a
 * reference parser below: the grammar of cc_text.c written again, plainly
 * and slowly, with no code shared with the core.
 *
 * The same input goes to cc_parse_folded(), the parser with fold records:
 * it must accept whatever cc_parse() accepts, as the same state without
 * records, and otherwise agree with the reference parser taking records
 * (" folded {RETIRED>TARGET:tclock:aclock:avalue:absorbed, ...}"); their
 * agreement with the shards is cc_fold_check()'s (unit-tested in
 * core_fold.c), which the reference calls after its own checks of the
 * records' form.  An accepted value with records goes through every form
 * (fuzz_folded_round_trip()).
 */
#include "fuzz_common.h"

/* ---------------------------------------------------- reference parser */

typedef struct ref_in
{
	const char *s;
	size_t		len;
	size_t		pos;
} ref_in;

typedef struct ref_state
{
	cc_shard   *shards;
	size_t		n;
	size_t		cap;
	bool		tombstone;
	cc_fold    *folds;			/* with records only */
	size_t		nf;
	size_t		fcap;
} ref_state;

/* The white space of the grammar: C's isspace() in the C locale. */
static bool
ref_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		c == '\f' || c == '\v';
}

static void
ref_ws(ref_in *in)
{
	while (in->pos < in->len && ref_space(in->s[in->pos]))
		in->pos++;
}

/* White space, then the character c. */
static bool
ref_char(ref_in *in, char c)
{
	ref_ws(in);
	if (in->pos < in->len && in->s[in->pos] == c)
	{
		in->pos++;
		return true;
	}
	return false;
}

static int
ref_hex(char c)
{
	const char *digits = "0123456789abcdef";
	const char *upper = "0123456789ABCDEF";

	for (int i = 0; i < 16; i++)
		if (c == digits[i] || c == upper[i])
			return i;
	return -1;
}

/* White space, then 8-4-4-4-12 hex digits in any case. */
static bool
ref_uuid(ref_in *in, uint8_t *id)
{
	int			nibbles = 0;

	ref_ws(in);
	if (in->len - in->pos < CC_UUID_TEXT_LEN)
		return false;
	memset(id, 0, CC_ID_LEN);
	for (int i = 0; i < CC_UUID_TEXT_LEN; i++)
	{
		char		c = in->s[in->pos + i];

		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (c != '-')
				return false;
			continue;
		}
		if (ref_hex(c) < 0)
			return false;
		id[nibbles / 2] |= (uint8_t) (ref_hex(c) << (nibbles % 2 == 0 ? 4 : 0));
		nibbles++;
	}
	in->pos += CC_UUID_TEXT_LEN;
	return true;
}

/* White space, then an optional sign and digits, within bigint. */
static bool
ref_number(ref_in *in, int64_t *out)
{
	bool		neg = false;
	bool		big = false;
	__int128	acc = 0;
	size_t		start;

	ref_ws(in);
	if (in->pos < in->len && (in->s[in->pos] == '+' || in->s[in->pos] == '-'))
		neg = in->s[in->pos++] == '-';
	start = in->pos;
	while (in->pos < in->len && in->s[in->pos] >= '0' && in->s[in->pos] <= '9')
	{
		acc = acc * 10 + (in->s[in->pos] - '0');
		/* far beyond bigint already: stop growing, remember */
		if (acc > ((__int128) 1 << 70))
		{
			big = true;
			acc = 0;
		}
		in->pos++;
	}
	if (in->pos == start || big)
		return false;
	if (neg)
		acc = -acc;
	if (acc < INT64_MIN || acc > INT64_MAX)
		return false;
	*out = (int64_t) acc;
	return true;
}

static void
ref_append(ref_state *st, const cc_shard *sh)
{
	if (st->n == st->cap)
	{
		st->cap = st->cap ? 2 * st->cap : 8;
		st->shards = realloc(st->shards, st->cap * sizeof(cc_shard));
		if (st->shards == NULL)
			abort();
	}
	st->shards[st->n++] = *sh;
}

static void
ref_append_fold(ref_state *st, const cc_fold *f)
{
	if (st->nf == st->fcap)
	{
		st->fcap = st->fcap ? 2 * st->fcap : 8;
		st->folds = realloc(st->folds, st->fcap * sizeof(cc_fold));
		if (st->folds == NULL)
			abort();
	}
	st->folds[st->nf++] = *f;
}

/* White space, then the keyword kw (lower case) in any letter case. */
static bool
ref_keyword(ref_in *in, const char *kw)
{
	size_t		k = strlen(kw);

	ref_ws(in);
	if (in->len - in->pos < k)
		return false;
	for (size_t i = 0; i < k; i++)
	{
		char		c = in->s[in->pos + i];

		if (c >= 'A' && c <= 'Z')
			c = (char) (c - 'A' + 'a');
		if (c != kw[i])
			return false;
	}
	in->pos += k;
	return true;
}

/*
 * The records after "folded":
 *	  folds  := "{" ws fold { ws "," ws fold } ws "}"
 *	  fold   := uuid ws ">" ws uuid (ws ":" ws number) x 4
 */
static bool
ref_folds(ref_in *in, ref_state *st)
{
	if (!ref_char(in, '{'))
		return false;
	for (;;)
	{
		cc_fold		f;

		if (!ref_uuid(in, f.retired) || !ref_char(in, '>') ||
			!ref_uuid(in, f.target) ||
			!ref_char(in, ':') || !ref_number(in, &f.tclock) ||
			!ref_char(in, ':') || !ref_number(in, &f.aclock) ||
			!ref_char(in, ':') || !ref_number(in, &f.avalue) ||
			!ref_char(in, ':') || !ref_number(in, &f.absorbed))
			return false;
		ref_append_fold(st, &f);
		if (ref_char(in, ','))
			continue;
		return ref_char(in, '}');
	}
}

/*
 *	  value  := ws ( "tombstone" | "{" ws [ shard { ws "," ws shard } ] ws "}" ) ws
 *	  shard  := uuid ws ":" ws number ws ":" ws number
 *
 * plus: the keyword in any case, clocks >= 1, no id twice; the state is the
 * shards sorted by id as unsigned bytes.  With folds, a live value may end
 * with ws "folded" ws folds: records sorted by (retired, target) as
 * unsigned bytes, none twice, retired != target, clocks >= 1, and then
 * cc_fold_check() for their agreement with the shards.
 */
static bool
ref_parse(const char *str, size_t len, bool folds, ref_state *st)
{
	static const char kw[] = "tombstone";
	ref_in		in = {str, len, 0};

	st->n = 0;
	st->nf = 0;
	st->tombstone = false;
	ref_ws(&in);
	if (len - in.pos >= 9)
	{
		size_t		i;

		for (i = 0; i < 9; i++)
		{
			char		c = str[in.pos + i];

			if (c >= 'A' && c <= 'Z')
				c = (char) (c - 'A' + 'a');
			if (c != kw[i])
				break;
		}
		if (i == 9)
		{
			in.pos += 9;
			st->tombstone = true;
		}
	}
	if (!st->tombstone)
	{
		if (!ref_char(&in, '{'))
			return false;
		if (!ref_char(&in, '}'))
		{
			for (;;)
			{
				cc_shard	sh;

				if (!ref_uuid(&in, sh.id) ||
					!ref_char(&in, ':') || !ref_number(&in, &sh.clock) ||
					!ref_char(&in, ':') || !ref_number(&in, &sh.value))
					return false;
				if (sh.clock < 1)
					return false;
				ref_append(st, &sh);
				if (ref_char(&in, ','))
					continue;
				if (ref_char(&in, '}'))
					break;
				return false;
			}
		}
	}
	if (folds && !st->tombstone)
	{
		ref_in		at = in;

		if (ref_keyword(&at, "folded"))
		{
			in = at;
			if (!ref_folds(&in, st))
				return false;
		}
	}
	ref_ws(&in);
	if (in.pos != len)
		return false;

	/* insertion sort by id; quadratic, but the inputs are a few KB */
	for (size_t i = 1; i < st->n; i++)
		for (size_t j = i; j > 0 &&
			 memcmp(st->shards[j - 1].id, st->shards[j].id, CC_ID_LEN) > 0; j--)
		{
			cc_shard	t = st->shards[j];

			st->shards[j] = st->shards[j - 1];
			st->shards[j - 1] = t;
		}
	for (size_t i = 1; i < st->n; i++)
		if (memcmp(st->shards[i - 1].id, st->shards[i].id, CC_ID_LEN) == 0)
			return false;
	if (st->nf == 0)
		return true;

	/* the records: sorted by (retired, target), each pair once */
	for (size_t i = 1; i < st->nf; i++)
		for (size_t j = i; j > 0 &&
			 memcmp(st->folds[j - 1].retired, st->folds[j].retired, 2 * CC_ID_LEN) > 0; j--)
		{
			cc_fold		t = st->folds[j];

			st->folds[j] = st->folds[j - 1];
			st->folds[j - 1] = t;
		}
	for (size_t i = 0; i < st->nf; i++)
	{
		if (memcmp(st->folds[i].retired, st->folds[i].target, CC_ID_LEN) == 0 ||
			st->folds[i].tclock < 1 || st->folds[i].aclock < 1)
			return false;
		if (i > 0 && memcmp(st->folds[i - 1].retired, st->folds[i].retired, 2 * CC_ID_LEN) == 0)
			return false;
	}
	{
		unsigned char *sh = fuzz_alloc(st->n * CC_SHARD_SIZE),
				   *fo = fuzz_alloc(st->nf * CC_FOLD_SIZE);
		cc_folded	v = {sh, st->n, fo, st->nf};
		bool		ok;

		for (size_t i = 0; i < st->n; i++)
			cc_store(sh, i, &st->shards[i]);
		for (size_t i = 0; i < st->nf; i++)
			cc_fold_store(fo, i, &st->folds[i]);
		ok = cc_fold_check(&v, CC_ERR_SYNTAX, NULL) == CC_OK;
		free(sh);
		free(fo);
		return ok;
	}
}

/* ------------------------------------------------------------- checks */

/* Formats a state into a buffer of exactly cc_format_capacity(n) bytes. */
static char *
format_state(const unsigned char *s, size_t n, bool tombstone, size_t *len)
{
	size_t		cap = cc_format_capacity(n);
	char	   *buf = fuzz_alloc(cap);

	*len = cc_format(&fuzz_ids, s, n, tombstone, buf);
	FUZZ_CHECK(*len + 1 <= cap);
	FUZZ_CHECK(strlen(buf) == *len);
	return buf;
}

/* Parses text that must be accepted; the caller frees *out. */
static void
parse_ok(const char *str, size_t len, unsigned char **out, size_t *n,
		 bool *tombstone)
{
	size_t		cap = cc_parse_capacity(str, len);
	cc_error	err;

	*out = fuzz_alloc(cap * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	FUZZ_CHECK(cc_parse(&fuzz_ids, str, len, *out, n, tombstone, &err) == CC_OK);
	FUZZ_CHECK(*n <= cap);
}

/*
 * cc_parse_folded() on the input: cc_parse()'s verdict (rc_plain) and state
 * when that accepted, the reference's verdict and state otherwise.
 */
static void
check_folded(const char *str, size_t size, cc_code rc_plain,
			 const unsigned char *s1, size_t n1, bool t1)
{
	size_t		cap = cc_parse_capacity(str, size);
	unsigned char *room = fuzz_alloc(cap * CC_SHARD_SIZE),
			   *room2 = fuzz_alloc(cap * CC_SHARD_SIZE);
	cc_folded	st,
				st2;
	bool		t = false,
				t2 = false;
	cc_error	err;
	cc_code		rc;
	ref_state	ref = {NULL, 0, 0, false, NULL, 0, 0};
	bool		ref_ok;

	fuzz_poison_error(&err);
	rc = cc_parse_folded(&fuzz_ids, str, size, room, &st, &t, &err);
	FUZZ_CHECK(cc_parse_folded(&fuzz_ids, str, size, room2, &st2, &t2, NULL) == rc);
	free(room2);
	ref_ok = ref_parse(str, size, true, &ref);
	FUZZ_CHECK(ref_ok == (rc == CC_OK));
	if (rc_plain == CC_OK)
	{
		FUZZ_CHECK(rc == CC_OK && st.nf == 0 && st.n == n1 && t == t1);
		FUZZ_CHECK(memcmp(st.shards, s1, n1 * CC_SHARD_SIZE) == 0);
	}
	if (rc != CC_OK)
	{
		FUZZ_CHECK(rc == CC_ERR_SYNTAX);
		fuzz_check_error(&err, CC_ERR_SYNTAX);
	}
	else
	{
		FUZZ_CHECK(st.shards == room && st.folds == room + st.n * CC_SHARD_SIZE);
		FUZZ_CHECK(st.n * CC_SHARD_SIZE + st.nf * CC_FOLD_SIZE <= cap * CC_SHARD_SIZE);
		FUZZ_CHECK(ref.n == st.n && ref.nf == st.nf && ref.tombstone == t);
		FUZZ_CHECK(!t || (st.n == 0 && st.nf == 0));
		for (size_t i = 0; i < st.n; i++)
			FUZZ_CHECK(memcmp(st.shards + i * CC_SHARD_SIZE, &ref.shards[i],
							  CC_SHARD_SIZE) == 0);
		for (size_t i = 0; i < st.nf; i++)
			FUZZ_CHECK(memcmp(st.folds + i * CC_FOLD_SIZE, &ref.folds[i],
							  CC_FOLD_SIZE) == 0);
		FUZZ_CHECK(fuzz_canonical(st.shards, st.n));
		if (st.nf > 0)
			fuzz_folded_round_trip(&st);
	}
	free(ref.shards);
	free(ref.folds);
	free(room);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *str = (const char *) data;
	size_t		cap = cc_parse_capacity(str, size);
	unsigned char *s1,
			   *s2,
			   *s3,
			   *wire,
			   *back;
	size_t		n1 = 0,
				n2 = 0,
				n3 = 0,
				nback = 0,
				len1,
				len2;
	bool		t1 = false,
				t2 = false,
				t3 = false,
				tback = false;
	char	   *text1,
			   *text2,
			   *upper;
	cc_code		rc,
				rc_noerr;
	cc_error	err;
	ref_state	ref = {NULL, 0, 0, false, NULL, 0, 0};
	bool		ref_ok;

	/* Exactly the room the capacity helper promises, as counter_crdt_in. */
	s1 = fuzz_alloc(cap * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	rc = cc_parse(&fuzz_ids, str, size, s1, &n1, &t1, &err);

	/* Without an error buffer the verdict must be the same. */
	s2 = fuzz_alloc(cap * CC_SHARD_SIZE);
	rc_noerr = cc_parse(&fuzz_ids, str, size, s2, &n2, &t2, NULL);
	FUZZ_CHECK(rc_noerr == rc);
	free(s2);

	/* The same verdict and the same state as the reference parser. */
	ref_ok = ref_parse(str, size, false, &ref);
	FUZZ_CHECK(ref_ok == (rc == CC_OK));
	if (ref_ok)
	{
		FUZZ_CHECK(ref.n == n1 && ref.tombstone == t1);
		for (size_t i = 0; i < n1; i++)
			FUZZ_CHECK(memcmp(s1 + i * CC_SHARD_SIZE, &ref.shards[i],
							  CC_SHARD_SIZE) == 0);
	}
	free(ref.shards);
	free(ref.folds);

	check_folded(str, size, rc, s1, n1, t1);

	if (rc != CC_OK)
	{
		FUZZ_CHECK(rc == CC_ERR_SYNTAX);
		fuzz_check_error(&err, CC_ERR_SYNTAX);
		free(s1);
		return 0;
	}

	/* Accepted: a canonical state that fits the announced capacity. */
	FUZZ_CHECK(n1 <= cap);
	FUZZ_CHECK(cc_check_canonical(s1, n1, CC_ERR_SYNTAX, NULL) == CC_OK);
	FUZZ_CHECK(fuzz_canonical(s1, n1));
	FUZZ_CHECK(!t1 || n1 == 0);

	/* Its canonical text parses back to the identical state... */
	text1 = format_state(s1, n1, t1, &len1);
	parse_ok(text1, len1, &s2, &n2, &t2);
	FUZZ_CHECK(n2 == n1);
	FUZZ_CHECK(t2 == t1);
	FUZZ_CHECK(memcmp(s2, s1, n1 * CC_SHARD_SIZE) == 0);

	/* ...and formats to the identical text: canonical text is a fixed point. */
	text2 = format_state(s2, n2, t2, &len2);
	FUZZ_CHECK(len2 == len1);
	FUZZ_CHECK(memcmp(text2, text1, len1 + 1) == 0);

	/*
	 * Ids and the keyword are read in any letter case, so the upper-cased
	 * canonical text is the same state.
	 */
	upper = fuzz_alloc(len1);
	for (size_t i = 0; i < len1; i++)
		upper[i] = (text1[i] >= 'a' && text1[i] <= 'z')
			? (char) (text1[i] - 'a' + 'A') : text1[i];
	parse_ok(upper, len1, &s3, &n3, &t3);
	FUZZ_CHECK(n3 == n1 && t3 == t1);
	FUZZ_CHECK(memcmp(s3, s1, n1 * CC_SHARD_SIZE) == 0);

	/* A value typed as text must also survive send/recv unchanged. */
	wire = fuzz_alloc(cc_wire_size(n1));
	cc_encode(s1, n1, t1, wire);
	FUZZ_CHECK(cc_decode_header(wire, cc_wire_size(n1), &nback, &tback, NULL) == CC_OK);
	FUZZ_CHECK(nback == n1 && tback == t1);
	back = fuzz_alloc(nback * CC_SHARD_SIZE);
	FUZZ_CHECK(cc_decode_shards(wire, nback, back, NULL) == CC_OK);
	FUZZ_CHECK(cc_equal(back, nback, tback, s1, n1, t1));

	free(back);
	free(wire);
	free(upper);
	free(s3);
	free(text2);
	free(s2);
	free(text1);
	free(s1);
	return 0;
}
