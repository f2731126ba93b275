/*
 * cc_json.c
 *	  The JSON form of counter_crdt (contract 8.2), on JSON text: parse and
 *	  canonical format.
 *
 * The parser accepts exactly the shapes of cc_json.h: keys in any order, each once;
 * shards in any order; ids in any letter case; numbers as JSON integers
 * within bigint (no fraction, no exponent, no leading zero, no '+').  It is a
 * JSON parser only as far as these shapes go: anything else is rejected at
 * the first character that cannot belong to them, with a sentence that says
 * what was expected and what stands there.  Strings may hold any JSON escape;
 * a key or an id is compared after unescaping, so "\u0069d" is "id".
 *
 * The output is what PostgreSQL's jsonb prints for the same value (keys in
 * jsonb's order, ", " and ": " separators), so that json and jsonb casts
 * give the same text.  jsonb orders keys by length, then bytes: "folds"
 * comes before "shards", and a record's keys are "aclock", "avalue",
 * "target", "tclock", "retired", "absorbed".
 */
#include "cc_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Shortest JSON text of one shard: no white space, 1-digit numbers. */
#define CC_JSON_MIN_SHARD \
	(sizeof("{\"id\":\"\",\"clock\":1,\"value\":0}") - 1 + CC_UUID_TEXT_LEN)

/* Longest output text of one shard, with ", " after it. */
#define CC_JSON_MAX_SHARD \
	(sizeof("{\"id\": \"\", \"clock\": , \"value\": }, ") - 1 + \
	 CC_UUID_TEXT_LEN + 2 * 20)

/*
 * Shortest JSON text of one fold record: more than twice the shortest
 * shard, so that the records, of twice a shard's bytes, fit the room of
 * cc_json_parse_capacity() beside the shards.
 */
#define CC_JSON_MIN_FOLD \
	(sizeof("{\"retired\":\"\",\"target\":\"\",\"tclock\":1,\"aclock\":1,\"avalue\":0,\"absorbed\":0}") - 1 + \
	 2 * CC_UUID_TEXT_LEN)

/* Longest output text of one fold record, with ", " after it. */
#define CC_JSON_MAX_FOLD \
	(sizeof("{\"aclock\": , \"avalue\": , \"target\": \"\", \"tclock\": , \"retired\": \"\", \"absorbed\": }, ") - 1 + \
	 2 * CC_UUID_TEXT_LEN + 4 * 20)

/* Longest unescaped string that can matter: an id. */
#define CC_JSON_WORD 40

typedef struct cc_jparser
{
	const char *str;
	size_t		len;
	size_t		pos;
	cc_error   *err;
	cc_id_cache *ids;			/* or NULL */
} cc_jparser;

/* A string as read: its unescaped text when it is short printable ASCII. */
typedef struct cc_jword
{
	char		text[CC_JSON_WORD + 1];
	bool		plain;			/* short enough, and printable ASCII only */
} cc_jword;

static cc_code cc_jfail(cc_jparser *p, const char *fmt,...) CC_PRINTF(2, 3);

/* What stands at the position, for error messages. */
static const char *
cc_jfound(const cc_jparser *p, char *buf, size_t size)
{
	unsigned char c;

	if (p->pos >= p->len)
		return "end of input";
	c = (unsigned char) p->str[p->pos];
	if (c == '"')
		return "a string";
	if (c == '{')
		return "an object";
	if (c == '[')
		return "an array";
	if (c == '-' || (c >= '0' && c <= '9'))
		return "a number";
	if (c == 't' || c == 'f' || c == 'n')
	{
		static const char *const lits[] = {"true", "false", "null"};

		for (int i = 0; i < 3; i++)
		{
			size_t		l = strlen(lits[i]);

			if (p->len - p->pos >= l && memcmp(p->str + p->pos, lits[i], l) == 0)
				return lits[i];
		}
	}
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, size, "\"%c\"", c);
	else
		snprintf(buf, size, "byte 0x%02x", (unsigned) c);
	return buf;
}

/*
 * A syntax error at the position: the sentence, then what was found there
 * and where ("..., found a string at position 12.").
 */
static cc_code
cc_jfail(cc_jparser *p, const char *fmt,...)
{
	if (p->err)
	{
		va_list		ap;
		size_t		used;
		char		buf[16];

		p->err->code = CC_ERR_SYNTAX;
		va_start(ap, fmt);
		vsnprintf(p->err->detail, CC_DETAIL_LEN, fmt, ap);
		va_end(ap);
		used = strlen(p->err->detail);
		snprintf(p->err->detail + used, CC_DETAIL_LEN - used,
				 ", found %s at position %zu.",
				 cc_jfound(p, buf, sizeof(buf)), p->pos + 1);
	}
	return CC_ERR_SYNTAX;
}

static void
cc_jspace(cc_jparser *p)
{
	while (p->pos < p->len &&
		   (p->str[p->pos] == ' ' || p->str[p->pos] == '\t' ||
			p->str[p->pos] == '\n' || p->str[p->pos] == '\r'))
		p->pos++;
}

/* Skips white space, then takes c if it stands there. */
static bool
cc_jtake(cc_jparser *p, char c)
{
	cc_jspace(p);
	if (p->pos < p->len && p->str[p->pos] == c)
	{
		p->pos++;
		return true;
	}
	return false;
}

/*
 * Reads a JSON string at the position (after white space) into w: every
 * escape is checked and undone; raw control characters are rejected, as
 * JSON requires.  w->plain is false for strings that cannot be a key or an
 * id: longer than CC_JSON_WORD, or with anything but printable ASCII.
 */
static cc_code
cc_jstring(cc_jparser *p, cc_jword *w, const char *what)
{
	size_t		k = 0;

	cc_jspace(p);
	if (p->pos >= p->len || p->str[p->pos] != '"')
		return cc_jfail(p, "Expected %s as a string", what);
	p->pos++;
	w->plain = true;
	for (;;)
	{
		unsigned char c;
		unsigned	cp;

		if (p->pos >= p->len)
			return cc_jfail(p, "Expected the end of a string");
		c = (unsigned char) p->str[p->pos];
		if (c == '"')
		{
			p->pos++;
			break;
		}
		if (c < 0x20)
			return cc_jfail(p, "Expected an escape (\\n, \\u0009 ...) for a control character in a string");
		if (c != '\\')
		{
			cp = c;
			p->pos++;
		}
		else
		{
			static const char simple[] = "\"\\/bfnrt";
			static const char value[] = "\"\\/\b\f\n\r\t";
			const char *hit;

			p->pos++;
			if (p->pos < p->len && p->str[p->pos] != '\0' &&
				(hit = strchr(simple, p->str[p->pos])) != NULL)
			{
				cp = (unsigned char) value[hit - simple];
				p->pos++;
			}
			else if (p->pos < p->len && p->str[p->pos] == 'u')
			{
				static const char hex[] = "0123456789abcdef0123456789ABCDEF";
				const char *d;

				cp = 0;
				for (int i = 1; i <= 4; i++)
				{
					if (p->pos + i >= p->len || p->str[p->pos + i] == '\0' ||
						(d = strchr(hex, p->str[p->pos + i])) == NULL)
					{
						p->pos += i;
						return cc_jfail(p, "Expected four hex digits after \\u");
					}
					cp = cp << 4 | (unsigned) ((d - hex) % 16);
				}
				p->pos += 5;
			}
			else
				return cc_jfail(p, "Expected an escape character after \"\\\"");
		}
		if (cp < 0x20 || cp >= 0x7f || k == CC_JSON_WORD)
			w->plain = false;
		else
			w->text[k++] = (char) cp;
	}
	w->text[k] = '\0';
	return CC_OK;
}

/*
 * Reads a JSON integer within int64.  Fractions, exponents and numbers out
 * of range are refused with a sentence of their own; anything that is not a
 * number at all is refused as the wrong type.
 */
static cc_code
cc_jint64(cc_jparser *p, const char *what, int64_t *out)
{
	size_t		start;
	bool		neg = false;
	uint64_t	acc = 0,
				limit;
	bool		range = true;
	char		c;

	cc_jspace(p);
	start = p->pos;
	if (p->pos < p->len && p->str[p->pos] == '-')
	{
		neg = true;
		p->pos++;
	}
	if (p->pos >= p->len || p->str[p->pos] < '0' || p->str[p->pos] > '9')
	{
		p->pos = start;
		return cc_jfail(p, "Expected the %s as a whole number", what);
	}
	limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
	if (p->str[p->pos] == '0' && p->pos + 1 < p->len &&
		p->str[p->pos + 1] >= '0' && p->str[p->pos + 1] <= '9')
	{
		p->pos++;
		return cc_jfail(p, "The %s has a leading zero, which JSON does not allow", what);
	}
	for (; p->pos < p->len && p->str[p->pos] >= '0' && p->str[p->pos] <= '9'; p->pos++)
	{
		unsigned	d = (unsigned) (p->str[p->pos] - '0');

		if (acc > (limit - d) / 10)
			range = false;
		else
			acc = acc * 10 + d;
	}
	c = p->pos < p->len ? p->str[p->pos] : '\0';
	if (c == '.' || c == 'e' || c == 'E')
		return cc_jfail(p, "The %s must be a whole number without %s", what,
						c == '.' ? "a fraction" : "an exponent");
	if (!range)
	{
		int			shown = (int) (p->pos - start > 40 ? 40 : p->pos - start);

		return cc_fail(p->err, CC_ERR_SYNTAX,
					   "The %s %.*s%s is out of range for type bigint.",
					   what, shown, p->str + start,
					   (size_t) shown < p->pos - start ? "..." : "");
	}
	*out = neg ? (int64_t) (0 - acc) : (int64_t) acc;
	return CC_OK;
}

/*
 * Reads the key of an object member, with its colon, and tells which of
 * names it is (-1: none).  An unknown key, or one seen before (bit i of
 * *seen), is an error.
 */
static cc_code
cc_jkey(cc_jparser *p, const char *const *names, int count, unsigned *seen,
		const char *where, int *which)
{
	cc_jword	w;
	size_t		at;
	cc_code		rc;

	cc_jspace(p);
	at = p->pos;
	if ((rc = cc_jstring(p, &w, "a key")) != CC_OK)
		return rc;
	*which = -1;
	for (int i = 0; w.plain && i < count; i++)
		if (strcmp(w.text, names[i]) == 0)
			*which = i;
	if (*which < 0)
	{
		if (w.plain)
			return cc_fail(p->err, CC_ERR_SYNTAX, "Unknown key \"%s\" in %s at position %zu.",
						   w.text, where, at + 1);
		return cc_fail(p->err, CC_ERR_SYNTAX, "Unknown key in %s at position %zu.",
					   where, at + 1);
	}
	if (*seen & (1u << *which))
		return cc_fail(p->err, CC_ERR_SYNTAX, "Key \"%s\" appears twice in %s at position %zu.",
					   names[*which], where, at + 1);
	*seen |= 1u << *which;
	if (!cc_jtake(p, ':'))
		return cc_jfail(p, "Expected \":\" after a key");
	return CC_OK;
}

/* After a member: true when another follows (","), false at "}". */
static cc_code
cc_jnext(cc_jparser *p, const char *where, bool *more)
{
	if (cc_jtake(p, ','))
		*more = true;
	else if (cc_jtake(p, '}'))
		*more = false;
	else
		return cc_jfail(p, "Expected \",\" or \"}\" in %s", where);
	return CC_OK;
}

/* One shard object: "id", "clock" and "value", each exactly once. */
static cc_code
cc_jshard(cc_jparser *p, size_t index, cc_shard *sh)
{
	static const char *const names[] = {"id", "clock", "value"};
	char		where[48];
	unsigned	seen = 0;
	bool		more = true;
	cc_code		rc;

	snprintf(where, sizeof(where), "shard %zu", index + 1);
	if (!cc_jtake(p, '{'))
		return cc_jfail(p, "Expected %s as an object {\"id\": ..., \"clock\": ..., \"value\": ...}", where);
	if (cc_jtake(p, '}'))
		more = false;
	while (more)
	{
		int			which;

		if ((rc = cc_jkey(p, names, 3, &seen, where, &which)) != CC_OK)
			return rc;
		if (which == 0)
		{
			cc_jword	w;
			size_t		at;

			cc_jspace(p);
			at = p->pos;
			if ((rc = cc_jstring(p, &w, "the id")) != CC_OK)
				return rc;
			if (!w.plain || !cc_uuid_parse_cached(p->ids, w.text, strlen(w.text), sh->id))
			{
				p->pos = at;
				return cc_jfail(p, "The id of %s is not a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d", where);
			}
		}
		else if ((rc = cc_jint64(p, which == 1 ? "clock" : "value",
								 which == 1 ? &sh->clock : &sh->value)) != CC_OK)
			return rc;
		if ((rc = cc_jnext(p, where, &more)) != CC_OK)
			return rc;
	}
	if (seen != 7)
		return cc_fail(p->err, CC_ERR_SYNTAX, "Shard %zu has no \"%s\".", index + 1,
					   names[(seen & 1) == 0 ? 0 : (seen & 2) == 0 ? 1 : 2]);
	if (sh->clock < 1)
	{
		char		idtext[CC_UUID_TEXT_LEN + 1];

		cc_uuid_format(sh->id, idtext);
		return cc_fail(p->err, CC_ERR_SYNTAX, "Writer %s has clock %lld; clocks start at 1.",
					   idtext, (long long) sh->clock);
	}
	return CC_OK;
}

/* The array of shards, into out, sorted; duplicates are refused. */
static cc_code
cc_jshards(cc_jparser *p, unsigned char *out, size_t capacity, size_t *n)
{
	size_t		count = 0;
	bool		sorted = true;
	cc_code		rc;

	if (!cc_jtake(p, '['))
		return cc_jfail(p, "Expected \"shards\" as an array");
	if (!cc_jtake(p, ']'))
		for (;;)
		{
			cc_shard	sh;

			if ((rc = cc_jshard(p, count, &sh)) != CC_OK)
				return rc;
			/* cannot happen: a shard's text is longer than its bytes need */
			if (count == capacity)
				return cc_jfail(p, "Expected fewer shards");
			if (count > 0 && cc_id_cmp(out + (count - 1) * CC_SHARD_SIZE, sh.id) >= 0)
				sorted = false;
			cc_store(out, count++, &sh);
			if (cc_jtake(p, ']'))
				break;
			if (!cc_jtake(p, ','))
				return cc_jfail(p, "Expected \",\" or \"]\" after shard %zu", count);
		}
	if (!sorted)
	{
		if ((rc = cc_sort_canonical(out, count, CC_ERR_SYNTAX, p->err)) != CC_OK)
			return rc;
	}
	*n = count;
	return CC_OK;
}

/* One fold record object: its six keys, each exactly once. */
static cc_code
cc_jfold(cc_jparser *p, size_t index, cc_fold *f)
{
	static const char *const names[] = {"retired", "target", "tclock",
	"aclock", "avalue", "absorbed"};
	char		where[48];
	unsigned	seen = 0;
	bool		more = true;
	cc_code		rc;

	snprintf(where, sizeof(where), "fold record %zu", index + 1);
	if (!cc_jtake(p, '{'))
		return cc_jfail(p, "Expected %s as an object {\"retired\": ..., \"target\": ..., \"tclock\": ..., \"aclock\": ..., \"avalue\": ..., \"absorbed\": ...}", where);
	if (cc_jtake(p, '}'))
		more = false;
	while (more)
	{
		int			which;

		if ((rc = cc_jkey(p, names, 6, &seen, where, &which)) != CC_OK)
			return rc;
		if (which <= 1)
		{
			cc_jword	w;
			size_t		at;
			const char *what = which == 0 ? "the retired id" : "the target id";

			cc_jspace(p);
			at = p->pos;
			if ((rc = cc_jstring(p, &w, what)) != CC_OK)
				return rc;
			if (!w.plain || !cc_uuid_parse_cached(p->ids, w.text, strlen(w.text),
												  which == 0 ? f->retired : f->target))
			{
				p->pos = at;
				return cc_jfail(p, "The %s id of %s is not a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d",
								names[which], where);
			}
		}
		else
		{
			int64_t    *v = which == 2 ? &f->tclock : which == 3 ? &f->aclock :
				which == 4 ? &f->avalue : &f->absorbed;

			if ((rc = cc_jint64(p, names[which], v)) != CC_OK)
				return rc;
		}
		if ((rc = cc_jnext(p, where, &more)) != CC_OK)
			return rc;
	}
	if (seen != 0x3f)
	{
		int			missing = 0;

		while (seen & (1u << missing))
			missing++;
		return cc_fail(p->err, CC_ERR_SYNTAX, "Fold record %zu has no \"%s\".",
					   index + 1, names[missing]);
	}
	return CC_OK;
}

/*
 * The array of fold records: record k is written at top - (k + 1) records,
 * growing down, while room allows (the shards grow up from the start of
 * the same block).  Their order is the caller's to make.
 */
static cc_code
cc_jfolds(cc_jparser *p, unsigned char *top, size_t room, size_t *nf)
{
	size_t		count = 0;
	cc_code		rc;

	if (!cc_jtake(p, '['))
		return cc_jfail(p, "Expected \"folds\" as an array");
	if (cc_jtake(p, ']'))
	{
		p->pos--;
		return cc_jfail(p, "Expected fold record 1: a value without fold records has no \"folds\"");
	}
	for (;;)
	{
		cc_fold		f;

		if ((rc = cc_jfold(p, count, &f)) != CC_OK)
			return rc;
		/* cannot happen: a record's text is longer than its bytes need */
		if ((count + 1) * CC_FOLD_SIZE > room)
			return cc_jfail(p, "Expected fewer fold records");
		count++;
		cc_fold_store(top - count * CC_FOLD_SIZE, 0, &f);
		if (cc_jtake(p, ']'))
			break;
		if (!cc_jtake(p, ','))
			return cc_jfail(p, "Expected \",\" or \"]\" after fold record %zu", count);
	}
	*nf = count;
	return CC_OK;
}

/* Records compare by (retired, target): the first 32 bytes, as memcmp. */
static int
cc_jfold_key_qsort(const void *a, const void *b)
{
	return memcmp(a, b, 2 * CC_ID_LEN);
}

size_t
cc_json_parse_capacity(const char *str, size_t len)
{
	(void) str;
	return len / CC_JSON_MIN_SHARD + 1;
}

/*
 * The parser of both entry points: with st NULL, "folds" is an unknown key,
 * as before fold records existed.
 */
static cc_code
cc_json_parse_any(cc_id_cache *ids, const char *str, size_t len,
				  unsigned char *out, size_t *n, cc_folded *st,
				  bool *tombstone, cc_error *err)
{
	static const char *const names[] = {"shards", "tombstone", "folds"};
	static const char where[] = "the counter";
	cc_jparser	p = {str, len, 0, err, ids};
	unsigned	seen = 0;
	bool		more = true;
	size_t		count = 0,
				nf = 0,
				room = cc_json_parse_capacity(str, len) * CC_SHARD_SIZE;
	unsigned char *top = out + room;
	cc_code		rc;

	if (!cc_jtake(&p, '{'))
		return cc_jfail(&p, "Expected an object {\"shards\": [...]} or {\"tombstone\": true}");
	if (cc_jtake(&p, '}'))
		more = false;
	while (more)
	{
		int			which;

		if ((rc = cc_jkey(&p, names, st != NULL ? 3 : 2, &seen, where, &which)) != CC_OK)
			return rc;
		if (which == 0)
		{
			if ((rc = cc_jshards(&p, out, (room - nf * CC_FOLD_SIZE) / CC_SHARD_SIZE,
								 &count)) != CC_OK)
				return rc;
		}
		else if (which == 2)
		{
			if ((rc = cc_jfolds(&p, top, room - count * CC_SHARD_SIZE, &nf)) != CC_OK)
				return rc;
		}
		else
		{
			cc_jspace(&p);
			if (p.len - p.pos < 4 || memcmp(p.str + p.pos, "true", 4) != 0)
				return cc_jfail(&p, "Expected \"tombstone\" to be true");
			p.pos += 4;
		}
		if ((rc = cc_jnext(&p, where, &more)) != CC_OK)
			return rc;
	}
	if ((seen & 3) == 3)
		return cc_fail(err, CC_ERR_SYNTAX, "A counter has \"shards\" or is a \"tombstone\", not both.");
	if (seen == 6)
		return cc_fail(err, CC_ERR_SYNTAX, "A tombstone has no fold records: \"folds\" and \"tombstone\" do not go together.");
	if (seen == 4)
		return cc_fail(err, CC_ERR_SYNTAX, "The object has \"folds\" but no \"shards\": fold records go with the shards.");
	if (seen == 0)
		return cc_fail(err, CC_ERR_SYNTAX, "The object has neither \"shards\" nor \"tombstone\".");
	cc_jspace(&p);
	if (p.pos < p.len)
		return cc_jfail(&p, "Expected end of input");
	*tombstone = (seen == 2);
	*n = count;
	if (st != NULL)
	{
		st->shards = out;
		st->n = count;
		st->folds = out + count * CC_SHARD_SIZE;
		st->nf = nf;
		if (nf > 0)
		{
			/* the records from the top of the block to right after the shards */
			memmove(out + count * CC_SHARD_SIZE, top - nf * CC_FOLD_SIZE,
					nf * CC_FOLD_SIZE);
			qsort(out + count * CC_SHARD_SIZE, nf, CC_FOLD_SIZE, cc_jfold_key_qsort);
			if ((rc = cc_fold_check(st, CC_ERR_SYNTAX, err)) != CC_OK)
				return rc;
		}
	}
	return CC_OK;
}

cc_code
cc_json_parse(cc_id_cache *ids, const char *str, size_t len,
			  unsigned char *out, size_t *n, bool *tombstone, cc_error *err)
{
	return cc_json_parse_any(ids, str, len, out, n, NULL, tombstone, err);
}

cc_code
cc_json_parse_folded(cc_id_cache *ids, const char *str, size_t len,
					 unsigned char *out, cc_folded *st, bool *tombstone,
					 cc_error *err)
{
	size_t		n;

	return cc_json_parse_any(ids, str, len, out, &n, st, tombstone, err);
}

size_t
cc_json_format_capacity(size_t n)
{
	/* "{"tombstone": true}" is longer than "{"shards": []}" */
	return sizeof("{\"tombstone\": true}") + n * CC_JSON_MAX_SHARD;
}

size_t
cc_json_format_folded_capacity(size_t n, size_t nf)
{
	return cc_json_format_capacity(n) +
		(nf > 0 ? sizeof("\"folds\": [], ") - 1 + nf * CC_JSON_MAX_FOLD : 0);
}

/* The shards' array, "[...]", at o; returns the end. */
static char *
cc_json_shards(cc_id_cache *ids, const unsigned char *s, size_t n, char *o)
{
	*o++ = '[';
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;
		char		idtext[CC_UUID_TEXT_LEN + 1];

		cc_load(s, i, &sh);
		cc_uuid_format_cached(ids, sh.id, idtext);
		o += sprintf(o, "%s{\"id\": \"%s\", \"clock\": %lld, \"value\": %lld}",
					 i > 0 ? ", " : "", idtext,
					 (long long) sh.clock, (long long) sh.value);
	}
	*o++ = ']';
	return o;
}

size_t
cc_json_format(cc_id_cache *ids, const unsigned char *s, size_t n,
			   bool tombstone, char *buf)
{
	char	   *o = buf;

	if (tombstone)
	{
		static const char t[] = "{\"tombstone\": true}";

		memcpy(buf, t, sizeof(t));
		return sizeof(t) - 1;
	}
	o += sprintf(o, "{\"shards\": ");
	o = cc_json_shards(ids, s, n, o);
	o += sprintf(o, "}");
	return (size_t) (o - buf);
}

size_t
cc_json_format_folded(cc_id_cache *ids, const cc_folded *s, char *buf)
{
	char	   *o = buf;

	if (s->nf == 0)
		return cc_json_format(ids, s->shards, s->n, false, buf);
	o += sprintf(o, "{\"folds\": [");
	for (size_t i = 0; i < s->nf; i++)
	{
		cc_fold		f;
		char		retired[CC_UUID_TEXT_LEN + 1],
					target[CC_UUID_TEXT_LEN + 1];

		cc_fold_load(s->folds, i, &f);
		cc_uuid_format_cached(ids, f.retired, retired);
		cc_uuid_format_cached(ids, f.target, target);
		o += sprintf(o, "%s{\"aclock\": %lld, \"avalue\": %lld, \"target\": \"%s\", "
					 "\"tclock\": %lld, \"retired\": \"%s\", \"absorbed\": %lld}",
					 i > 0 ? ", " : "", (long long) f.aclock, (long long) f.avalue,
					 target, (long long) f.tclock, retired, (long long) f.absorbed);
	}
	o += sprintf(o, "], \"shards\": ");
	o = cc_json_shards(ids, s->shards, s->n, o);
	o += sprintf(o, "}");
	return (size_t) (o - buf);
}
