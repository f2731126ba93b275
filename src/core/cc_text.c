/*
 * cc_text.c
 *	  The text form of counter_crdt: parse and canonical format (the grammar
 *	  is in cc_text.h).
 *
 * White space may stand around every token; ids may be in any letter case
 * and any order, and so may fold records.  The keywords are matched without
 * regard to case, as PostgreSQL does for its own special values.  Output is
 * canonical: ids lower-case and ascending, records in (retired, target)
 * order, ", " between shards and between records, " folded " between the
 * two lists and no other spaces.
 */
#include "cc_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Shortest text of one shard: a 36-character id, "1", "0" and two colons. */
#define CC_MIN_SHARD_TEXT (CC_UUID_TEXT_LEN + 4)
/* Longest text of one shard: id, two 20-character numbers, colons, ", ". */
#define CC_MAX_SHARD_TEXT (CC_UUID_TEXT_LEN + 2 + 40 + 2)
/*
 * Shortest text of one fold record: two ids, ">", four 1-digit numbers and
 * their colons.  It is more than twice the shortest shard, so that the
 * records, of twice a shard's bytes, fit the room of cc_parse_capacity()
 * after the shards.
 */
#define CC_MIN_FOLD_TEXT (2 * CC_UUID_TEXT_LEN + 1 + 8)
/* Longest text of one fold record: two ids, ">", 4 numbers, colons, ", ". */
#define CC_MAX_FOLD_TEXT (2 * CC_UUID_TEXT_LEN + 1 + 4 * 21 + 2)
/* What a value with records adds around them. */
#define CC_FOLDED_WORD " folded {"

typedef struct cc_parser
{
	const char *str;
	size_t		len;
	size_t		pos;
	cc_error   *err;
	cc_id_cache *ids;			/* or NULL */
} cc_parser;

static inline bool
cc_is_space(char c)
{
	/* all six are below '!': most characters leave after one comparison */
	return (unsigned char) c <= ' ' &&
		(c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		 c == '\f' || c == '\v');
}

static inline int
cc_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void
cc_skip_space(cc_parser *p)
{
	while (p->pos < p->len && cc_is_space(p->str[p->pos]))
		p->pos++;
}

/*
 * Reports a syntax error at the current position: what was expected, and a
 * short quote of what stands there instead.
 */
static cc_code cc_syntax(cc_parser *p, const char *fmt,...) CC_PRINTF(2, 3);
static cc_code cc_fail_text(cc_error *err, const char *fmt,...) CC_PRINTF(2, 3);

static cc_code
cc_syntax(cc_parser *p, const char *fmt,...)
{
	if (p->err)
	{
		va_list		ap;
		size_t		used;
		char	   *d = p->err->detail;

		p->err->code = CC_ERR_SYNTAX;
		va_start(ap, fmt);
		vsnprintf(d, CC_DETAIL_LEN, fmt, ap);
		va_end(ap);
		used = strlen(d);
		if (p->pos >= p->len)
			snprintf(d + used, CC_DETAIL_LEN - used, ", found end of input.");
		else
		{
			char		quote[24];
			size_t		q = 0;

			/*
			 * Quote up to 16 printable ASCII characters: a cut through a
			 * multibyte character would make the message itself invalid.
			 */
			while (q < 16 && p->pos + q < p->len &&
				   p->str[p->pos + q] >= 0x20 && p->str[p->pos + q] < 0x7f)
			{
				quote[q] = p->str[p->pos + q];
				q++;
			}
			quote[q] = '\0';
			if (q == 0)
				snprintf(d + used, CC_DETAIL_LEN - used,
						 ", found byte 0x%02x at position %zu.",
						 (unsigned) (unsigned char) p->str[p->pos], p->pos + 1);
			else
				snprintf(d + used, CC_DETAIL_LEN - used,
						 ", found \"%s%s\" at position %zu.",
						 quote, p->pos + q < p->len ? "..." : "", p->pos + 1);
		}
	}
	return CC_ERR_SYNTAX;
}

static cc_code
cc_fail_text(cc_error *err, const char *fmt,...)
{
	if (err)
	{
		va_list		ap;

		err->code = CC_ERR_SYNTAX;
		va_start(ap, fmt);
		vsnprintf(err->detail, CC_DETAIL_LEN, fmt, ap);
		va_end(ap);
	}
	return CC_ERR_SYNTAX;
}

/* Remembers an id and its text in place of the oldest entry. */
static void
cc_id_memo_add(cc_id_memo *m, const char *text, const uint8_t *id)
{
	memcpy(m->e[m->next].text, text, CC_UUID_TEXT_LEN);
	memcpy(m->e[m->next].id, id, CC_ID_LEN);
	m->next = (m->next + 1) % CC_ID_MEMO;
	if (m->used < CC_ID_MEMO)
		m->used++;
}

/* The bytes of the 36 characters at str if they were parsed lately. */
static inline bool
cc_id_memo_find_text(const cc_id_memo *m, const char *str, uint8_t *out)
{
	for (unsigned i = 0; i < m->used; i++)
		if (memcmp(m->e[i].text, str, CC_UUID_TEXT_LEN) == 0)
		{
			memcpy(out, m->e[i].id, CC_ID_LEN);
			return true;
		}
	return false;
}

/*
 * Uuid text through the caller's cache: only texts that libuuid accepted
 * enter it, and a text is found only if it is the same 36 bytes, so what is
 * found is valid.
 */
bool
cc_uuid_parse_cached(cc_id_cache *ids, const char *str, size_t len,
					 uint8_t *out)
{
	if (len != CC_UUID_TEXT_LEN)
		return false;
	if (ids != NULL && cc_id_memo_find_text(&ids->parsed, str, out))
		return true;
	if (!cc_uuid_parse(str, len, out))
		return false;
	if (ids != NULL)
		cc_id_memo_add(&ids->parsed, str, out);
	return true;
}

void
cc_uuid_format_cached(cc_id_cache *ids, const uint8_t *id, char *out)
{
	if (ids == NULL)
	{
		cc_uuid_format(id, out);
		return;
	}
	for (unsigned i = 0; i < ids->printed.used; i++)
		if (memcmp(ids->printed.e[i].id, id, CC_ID_LEN) == 0)
		{
			memcpy(out, ids->printed.e[i].text, CC_UUID_TEXT_LEN);
			out[CC_UUID_TEXT_LEN] = '\0';
			return;
		}
	cc_uuid_format(id, out);
	cc_id_memo_add(&ids->printed, out, id);
}

static inline bool
cc_is_id_char(char c)
{
	return cc_hexval(c) >= 0 || c == '-';
}

/*
 * Parses a writer id: the run of hex digits and hyphens at the position.
 * An id parsed lately is taken as soon as its 36 characters are found there
 * with no id character after them (the run is then those 36), without
 * walking the run first.
 */
static cc_code
cc_parse_id(cc_parser *p, const char *what, uint8_t *id)
{
	size_t		start = p->pos,
				end = start;

	if (p->ids != NULL && p->len - start >= CC_UUID_TEXT_LEN &&
		(p->len - start == CC_UUID_TEXT_LEN ||
		 !cc_is_id_char(p->str[start + CC_UUID_TEXT_LEN])) &&
		cc_id_memo_find_text(&p->ids->parsed, p->str + start, id))
	{
		p->pos = start + CC_UUID_TEXT_LEN;
		return CC_OK;
	}
	while (end < p->len && cc_is_id_char(p->str[end]))
		end++;
	if (end == start)
		return cc_syntax(p, "Expected %s", what);
	if (!cc_uuid_parse_cached(p->ids, p->str + start, end - start, id))
	{
		int			shown = (int) (end - start > 40 ? 40 : end - start);

		return cc_fail_text(p->err,
							"Invalid writer id \"%.*s%s\" at position %zu: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d.",
							shown, p->str + start,
							(size_t) shown < end - start ? "..." : "",
							start + 1);
	}
	p->pos = end;
	return CC_OK;
}

/*
 * The owner of a number, for error messages: "writer ID" of a shard, or
 * "fold record RETIRED>TARGET" when target is given.
 */
static const char *
cc_owner(const uint8_t *id, const uint8_t *target, char *buf)
{
	size_t		k = 0;

	if (target != NULL)
	{
		memcpy(buf, "fold record ", 12);
		k = 12;
	}
	else
	{
		memcpy(buf, "writer ", 7);
		k = 7;
	}
	cc_uuid_format(id, buf + k);
	if (target != NULL)
	{
		buf[k + CC_UUID_TEXT_LEN] = '>';
		cc_uuid_format(target, buf + k + CC_UUID_TEXT_LEN + 1);
	}
	return buf;
}

#define CC_OWNER_LEN (12 + 2 * CC_UUID_TEXT_LEN + 2)

/*
 * Parses a bigint: optional sign, then decimal digits, checked for range.
 * what names the number, id (and target, for a fold record) its owner.
 */
static cc_code
cc_parse_int64(cc_parser *p, const char *what, const uint8_t *id,
			   const uint8_t *target, int64_t *out)
{
	size_t		start = p->pos,
				i = p->pos;
	bool		neg = false;
	uint64_t	acc = 0;
	uint64_t	limit;
	char		owner[CC_OWNER_LEN];

	if (i < p->len && (p->str[i] == '+' || p->str[i] == '-'))
	{
		neg = (p->str[i] == '-');
		i++;
	}
	if (i >= p->len || p->str[i] < '0' || p->str[i] > '9')
	{
		p->pos = i;
		return cc_syntax(p, "Expected the %s of %s as a whole number",
						 what, cc_owner(id, target, owner));
	}
	limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
	for (; i < p->len && p->str[i] >= '0' && p->str[i] <= '9'; i++)
	{
		unsigned	d = (unsigned) (p->str[i] - '0');

		if (acc > (limit - d) / 10)
		{
			size_t		end = i;
			int			shown;

			while (end < p->len && p->str[end] >= '0' && p->str[end] <= '9')
				end++;
			shown = (int) (end - start > 40 ? 40 : end - start);
			return cc_fail_text(p->err,
								"The %s \"%.*s%s\" of %s is out of range for type bigint.",
								what, shown, p->str + start,
								(size_t) shown < end - start ? "..." : "",
								cc_owner(id, target, owner));
		}
		acc = acc * 10 + d;
	}
	p->pos = i;
	*out = neg ? (int64_t) (0 - acc) : (int64_t) acc;
	return CC_OK;
}

static cc_code
cc_expect(cc_parser *p, char c, const char *context)
{
	cc_skip_space(p);
	if (p->pos < p->len && p->str[p->pos] == c)
	{
		p->pos++;
		cc_skip_space(p);
		return CC_OK;
	}
	return cc_syntax(p, "Expected \"%c\" %s", c, context);
}

size_t
cc_parse_capacity(const char *str, size_t len)
{
	(void) str;
	return len / CC_MIN_SHARD_TEXT + 1;
}

/*
 * Matches the keyword kw (lower case) at the position, in any letter case;
 * moves past it when it is there.
 */
static bool
cc_take_keyword(cc_parser *p, const char *kw)
{
	size_t		k = strlen(kw);

	if (p->len - p->pos < k)
		return false;
	for (size_t i = 0; i < k; i++)
		if ((p->str[p->pos + i] | 0x20) != kw[i])
			return false;
	p->pos += k;
	return true;
}

/* Records compare by (retired, target): the first 32 bytes, as memcmp. */
static int
cc_fold_key_qsort(const void *a, const void *b)
{
	return memcmp(a, b, 2 * CC_ID_LEN);
}

/*
 * The records after "folded", at the position, into folds (room for
 * `room` bytes), as they come: sorting them and checking them (clocks,
 * repeats, agreement with the shards) is the caller's.
 */
static cc_code
cc_parse_folds(cc_parser *p, unsigned char *folds, size_t room, size_t *nf)
{
	size_t		count = 0;
	cc_code		rc;

	cc_skip_space(p);
	if (p->pos >= p->len || p->str[p->pos] != '{')
		return cc_syntax(p, "Expected \"{\" after \"folded\"");
	p->pos++;
	cc_skip_space(p);
	if (p->pos < p->len && p->str[p->pos] == '}')
		return cc_syntax(p, "Expected a fold record: a value without fold records has no \"folded\" part");
	for (;;)
	{
		cc_fold		f;

		if ((rc = cc_parse_id(p, "the retired writer id of a fold record", f.retired)) != CC_OK ||
			(rc = cc_expect(p, '>', "after the retired writer id of a fold record")) != CC_OK ||
			(rc = cc_parse_id(p, "the target writer id of a fold record", f.target)) != CC_OK ||
			(rc = cc_expect(p, ':', "after the target writer id of a fold record")) != CC_OK ||
			(rc = cc_parse_int64(p, "tclock", f.retired, f.target, &f.tclock)) != CC_OK ||
			(rc = cc_expect(p, ':', "after a tclock")) != CC_OK ||
			(rc = cc_parse_int64(p, "aclock", f.retired, f.target, &f.aclock)) != CC_OK ||
			(rc = cc_expect(p, ':', "after an aclock")) != CC_OK ||
			(rc = cc_parse_int64(p, "avalue", f.retired, f.target, &f.avalue)) != CC_OK ||
			(rc = cc_expect(p, ':', "after an avalue")) != CC_OK ||
			(rc = cc_parse_int64(p, "absorbed", f.retired, f.target, &f.absorbed)) != CC_OK)
			return rc;
		/* cannot happen: a record's text is longer than its bytes need */
		if ((count + 1) * CC_FOLD_SIZE > room)
			return cc_syntax(p, "Expected fewer fold records");
		cc_fold_store(folds, count++, &f);

		cc_skip_space(p);
		if (p->pos < p->len && p->str[p->pos] == ',')
		{
			p->pos++;
			cc_skip_space(p);
			continue;
		}
		if (p->pos < p->len && p->str[p->pos] == '}')
		{
			p->pos++;
			break;
		}
		return cc_syntax(p, "Expected \",\" or \"}\" after a fold record");
	}
	*nf = count;
	return CC_OK;
}

/*
 * The parser of both entry points: with st NULL, fold records are not
 * taken (the text ends after the shards, as before records existed).
 */
static cc_code
cc_parse_text(cc_id_cache *ids, const char *str, size_t len,
			  unsigned char *out, size_t *n, cc_folded *st, bool *tombstone,
			  cc_error *err)
{
	static const char kw[] = "tombstone";
	const size_t kwlen = sizeof(kw) - 1;
	cc_parser	p = {str, len, 0, err, ids};
	size_t		count = 0,
				nf = 0;
	bool		sorted = true;
	cc_code		rc;

	cc_skip_space(&p);
	*tombstone = false;
	if (p.pos < len && (str[p.pos] == 't' || str[p.pos] == 'T'))
	{
		size_t		i;

		for (i = 0; i < kwlen && p.pos + i < len; i++)
			if ((str[p.pos + i] | 0x20) != kw[i])
				break;
		if (i < kwlen)
			return cc_syntax(&p, "Expected \"{\" or \"tombstone\"");
		p.pos += kwlen;
		*tombstone = true;
	}
	else
	{
		if (p.pos >= len || str[p.pos] != '{')
			return cc_syntax(&p, "Expected \"{\" or \"tombstone\"");
		p.pos++;
		cc_skip_space(&p);
		if (p.pos < len && str[p.pos] == '}')
			p.pos++;
		else
		{
			for (;;)
			{
				cc_shard	sh;
				char		idtext[CC_UUID_TEXT_LEN + 1];

				if ((rc = cc_parse_id(&p, "a writer id", sh.id)) != CC_OK)
					return rc;
				if ((rc = cc_expect(&p, ':', "after a writer id")) != CC_OK ||
					(rc = cc_parse_int64(&p, "clock", sh.id, NULL, &sh.clock)) != CC_OK ||
					(rc = cc_expect(&p, ':', "after a clock")) != CC_OK ||
					(rc = cc_parse_int64(&p, "value", sh.id, NULL, &sh.value)) != CC_OK)
					return rc;
				if (sh.clock < 1)
				{
					cc_uuid_format(sh.id, idtext);
					return cc_fail_text(err,
										"Writer %s has clock %lld; clocks start at 1.",
										idtext, (long long) sh.clock);
				}
				if (count > 0 &&
					cc_id_cmp(out + (count - 1) * CC_SHARD_SIZE, sh.id) >= 0)
					sorted = false;
				cc_store(out, count++, &sh);

				cc_skip_space(&p);
				if (p.pos < len && str[p.pos] == ',')
				{
					p.pos++;
					cc_skip_space(&p);
					continue;
				}
				if (p.pos < len && str[p.pos] == '}')
				{
					p.pos++;
					break;
				}
				return cc_syntax(&p, "Expected \",\" or \"}\" after a shard");
			}
		}
	}
	cc_skip_space(&p);
	if (st != NULL && p.pos < len && (str[p.pos] | 0x20) == 'f')
	{
		size_t		at = p.pos;

		if (cc_take_keyword(&p, "folded"))
		{
			if (*tombstone)
				return cc_fail_text(err,
									"A tombstone has no fold records, found \"folded\" at position %zu.",
									at + 1);
			if ((rc = cc_parse_folds(&p, out + count * CC_SHARD_SIZE,
									 cc_parse_capacity(str, len) * CC_SHARD_SIZE -
									 count * CC_SHARD_SIZE, &nf)) != CC_OK)
				return rc;
			cc_skip_space(&p);
		}
	}
	if (p.pos < len)
		return cc_syntax(&p, "Expected end of input");

	if (!sorted)
	{
		if ((rc = cc_sort_canonical(out, count, CC_ERR_SYNTAX, err)) != CC_OK)
			return rc;
	}
	*n = count;
	if (st != NULL)
	{
		st->shards = out;
		st->n = count;
		st->folds = out + count * CC_SHARD_SIZE;
		st->nf = nf;
		if (nf > 0)
		{
			qsort(out + count * CC_SHARD_SIZE, nf, CC_FOLD_SIZE, cc_fold_key_qsort);
			if ((rc = cc_fold_check(st, CC_ERR_SYNTAX, err)) != CC_OK)
				return rc;
		}
	}
	return CC_OK;
}

cc_code
cc_parse(cc_id_cache *ids, const char *str, size_t len, unsigned char *out,
		 size_t *n, bool *tombstone, cc_error *err)
{
	return cc_parse_text(ids, str, len, out, n, NULL, tombstone, err);
}

cc_code
cc_parse_folded(cc_id_cache *ids, const char *str, size_t len,
				unsigned char *out, cc_folded *st, bool *tombstone,
				cc_error *err)
{
	size_t		n;

	return cc_parse_text(ids, str, len, out, &n, st, tombstone, err);
}

size_t
cc_format_capacity(size_t n)
{
	/* "{}" and a NUL, or "tombstone" and a NUL */
	return n == 0 ? sizeof("tombstone") : 3 + n * CC_MAX_SHARD_TEXT;
}

size_t
cc_format_folded_capacity(size_t n, size_t nf)
{
	return cc_format_capacity(n) +
		(nf > 0 ? sizeof(CC_FOLDED_WORD "}") - 1 + nf * CC_MAX_FOLD_TEXT : 0);
}

/* Writes v in decimal and returns the number of characters. */
static size_t
cc_format_int64(int64_t v, char *out)
{
	char		tmp[24];
	size_t		k = 0,
				len = 0;
	uint64_t	u = v < 0 ? 0 - (uint64_t) v : (uint64_t) v;

	do
	{
		tmp[k++] = (char) ('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		out[len++] = '-';
	while (k > 0)
		out[len++] = tmp[--k];
	return len;
}

/* " folded {RETIRED>TARGET:tclock:aclock:avalue:absorbed, ...}" at o. */
static char *
cc_format_folds(cc_id_cache *ids, const unsigned char *folds, size_t nf,
				char *o)
{
	memcpy(o, CC_FOLDED_WORD, sizeof(CC_FOLDED_WORD) - 1);
	o += sizeof(CC_FOLDED_WORD) - 1;
	for (size_t i = 0; i < nf; i++)
	{
		cc_fold		f;

		cc_fold_load(folds, i, &f);
		if (i > 0)
		{
			*o++ = ',';
			*o++ = ' ';
		}
		cc_uuid_format_cached(ids, f.retired, o);
		o += CC_UUID_TEXT_LEN;
		*o++ = '>';
		cc_uuid_format_cached(ids, f.target, o);
		o += CC_UUID_TEXT_LEN;
		*o++ = ':';
		o += cc_format_int64(f.tclock, o);
		*o++ = ':';
		o += cc_format_int64(f.aclock, o);
		*o++ = ':';
		o += cc_format_int64(f.avalue, o);
		*o++ = ':';
		o += cc_format_int64(f.absorbed, o);
	}
	*o++ = '}';
	return o;
}

size_t
cc_format_stored(cc_id_cache *ids, const cc_stored *s, char *buf)
{
	char	   *o = buf;

	if (s->tombstone)
	{
		memcpy(buf, "tombstone", 10);
		return 9;
	}
	*o++ = '{';
	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_stored_shard(s, i, &sh);
		if (i > 0)
		{
			*o++ = ',';
			*o++ = ' ';
		}
		cc_uuid_format_cached(ids, sh.id, o);
		o += CC_UUID_TEXT_LEN;
		*o++ = ':';
		o += cc_format_int64(sh.clock, o);
		*o++ = ':';
		o += cc_format_int64(sh.value, o);
	}
	*o++ = '}';
	if (s->nf > 0)
		o = cc_format_folds(ids, s->folds, s->nf, o);
	*o = '\0';
	return (size_t) (o - buf);
}

size_t
cc_format(cc_id_cache *ids, const unsigned char *s, size_t n, bool tombstone,
		  char *buf)
{
	cc_stored	st;

	cc_stored_of_records(s, n, tombstone, &st);
	return cc_format_stored(ids, &st, buf);
}

size_t
cc_format_folded(cc_id_cache *ids, const cc_folded *s, char *buf)
{
	cc_stored	st;

	cc_stored_of_records(s->shards, s->n, false, &st);
	st.folds = s->folds;
	st.nf = s->nf;
	return cc_format_stored(ids, &st, buf);
}
