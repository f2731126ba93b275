/*
 * counter_crdt.c
 *	  The glue that every fmgr file shares: reading a value, making one, and
 *	  turning core errors into ereport.
 */
#include "base/datum.h"

/* A stored value that is not one: corruption, never user input. */
void
cc_corrupt(const cc_error *err)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupt counter_crdt value"),
			 errdetail("%s", err->detail)));
}

/*
 * A value's shards as 32-byte records: used in place when they are stored
 * so, else widened into buf when they fit its capacity (in shards), else
 * into memory of the current context.
 */
static void
cc_stored_view_any(const cc_stored *s, cc_view *v, unsigned char *buf,
				   size_t capacity)
{
	v->tombstone = s->tombstone;
	v->n = s->n;
	if (!s->narrow)
		v->shards = s->shards;
	else
	{
		unsigned char *out = s->n <= capacity ? buf : palloc(s->n * CC_SHARD_SIZE);

		cc_stored_widen(s, out);
		v->shards = out;
	}
}

/*
 * A view has no room for fold records: a function that takes values with
 * records reads them with cc_datum_folded() or cc_read_open(), and one that
 * does not must not drop them.
 */
void
cc_stored_view(const cc_stored *s, cc_view *v, unsigned char *buf,
			   size_t capacity)
{
	if (s->nf > 0)
		elog(ERROR, "counter_crdt value with fold records read as shards only");
	cc_stored_view_any(s, v, buf, capacity);
}

void
cc_read_open(Datum d, CcRead *r)
{
	cc_stored	s;
	struct varlena *p = cc_datum_stored(d, &s);

	r->detoasted = (Pointer) p != DatumGetPointer(d) ? p : NULL;
	r->folds = s.folds;
	r->nf = s.nf;
	cc_stored_view_any(&s, &r->v, r->local, CC_READ_LOCAL);
	r->widened = s.narrow && s.n > CC_READ_LOCAL ?
		(unsigned char *) r->v.shards : NULL;
}

void
cc_read_close(CcRead *r)
{
	if (r->widened)
		pfree(r->widened);
	if (r->detoasted)
		pfree(r->detoasted);
}

/*
 * A value's shards as 32-byte records, read as cc_datum_stored() reads it;
 * narrow ones widened into memory of the current context.
 */
void
cc_datum_view(Datum d, cc_view *v)
{
	cc_stored	s;

	cc_datum_stored(d, &s);
	cc_stored_view(&s, v, NULL, 0);
}

void
cc_check_count(size_t n)
{
	if (n > CC_MAX_SHARDS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value has too many shards"),
				 errdetail("A value holds at most %zu shards; this one would hold %zu.",
						   (size_t) CC_MAX_SHARDS, n)));
}

/*
 * Allocates a value with room for capacity shards of 32 bytes, written at
 * *shards; cc_finish() packs the n of them the caller wrote.  It may be
 * made a tombstone (cc_stored_build_tombstone()) until then.
 */
struct varlena *
cc_make(size_t capacity, bool tombstone, unsigned char **shards)
{
	struct varlena *r;

	cc_check_count(capacity);
	r = palloc0(VARHDRSZ + CC_STORED_BUILD_SIZE(capacity));
	SET_VARSIZE(r, VARHDRSZ + CC_STORED_BUILD_SIZE(capacity));
	*shards = cc_stored_build_start((unsigned char *) VARDATA(r), tombstone);
	return r;
}

/* Packs the first n shards of a value made by cc_make() into version 2. */
void
cc_finish(struct varlena *result, size_t n)
{
	SET_VARSIZE(result, VARHDRSZ +
				cc_stored_build_finish((unsigned char *) VARDATA(result), n));
}

/*
 * Whether text that is not a counter is a number instead ("100", " -2.5 "):
 * a parameter or literal of unknown type compared with a counter is read as
 * a counter, and the error then says how to write the comparison.
 */
static bool
cc_looks_like_number(const char *s)
{
	bool		digits = false;

	if (s == NULL)
		return false;
	while (isspace((unsigned char) *s))
		s++;
	if (*s == '+' || *s == '-')
		s++;
	for (; isdigit((unsigned char) *s) || *s == '.'; s++)
		digits |= isdigit((unsigned char) *s) != 0;
	while (isspace((unsigned char) *s))
		s++;
	return digits && *s == '\0';
}

/* Turns a core error into the matching ereport. */
void
cc_report(const cc_error *err, const char *input)
{
	switch (err->code)
	{
		case CC_ERR_SYNTAX:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type counter_crdt: \"%s\"",
							input ? input : ""),
					 errdetail("%s", err->detail),
					 cc_looks_like_number(input) ?
					 errhint("A counter's text is its state, not a number. To compare "
							 "its value with a number, give the number a type "
							 "(c > $1::bigint, c > 100::bigint) or read the value "
							 "(c::bigint > $1).") : 0));
			break;
		case CC_ERR_BINARY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid external representation of type counter_crdt"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("counter_crdt value out of range"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_LIMIT:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("counter_crdt value has too many shards"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_ARGUMENT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid counter_crdt argument"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_RETIRED:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("counter_crdt writer id is retired"),
					 errdetail("%s", err->detail),
					 errhint("A retired writer id cannot write again: give the writer a new id (doc/retiring-writers.md).")));
			break;
		case CC_OK:
			break;
	}
	elog(ERROR, "unexpected counter_crdt core result %d", (int) err->code);
}

/*
 * A value as a folded state (core/cc_fold.h): its records where they lie,
 * its shards in place or widened into memory of the current context.
 * Returns whether it is a tombstone (then out is empty).
 */
bool
cc_datum_folded(Datum d, cc_folded *out)
{
	cc_stored	s;

	cc_datum_stored(d, &s);
	cc_stored_folded(&s, s.narrow ? palloc(s.n * CC_SHARD_SIZE) : NULL, out);
	return s.tombstone;
}

/* The folded state of a value read by cc_read_open(). */
cc_folded
cc_read_folded(const CcRead *r)
{
	cc_folded	f = {r->v.shards, r->v.n, r->folds, r->nf};

	return f;
}

/* A new value holding a folded state (no tombstone). */
struct varlena *
cc_make_folded(const cc_folded *f)
{
	struct varlena *r;

	cc_check_count(f->n);
	if (f->nf > CC_MAX_SHARDS / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value has too many fold records")));
	r = palloc(VARHDRSZ + CC_STORED_FOLDED_SIZE(f->n, f->nf));
	SET_VARSIZE(r, VARHDRSZ +
				cc_stored_pack_folded((unsigned char *) VARDATA(r), f));
	return r;
}
