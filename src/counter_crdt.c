/*
 * counter_crdt.c
 *	  The glue that every fmgr file shares: reading a value, making one, and
 *	  turning core errors into ereport.
 */
#include "counter_crdt.h"

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
void
cc_stored_view(const cc_stored *s, cc_view *v, unsigned char *buf,
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

void
cc_read_open(Datum d, CcRead *r)
{
	cc_stored	s;
	struct varlena *p = cc_datum_stored(d, &s);

	r->detoasted = (Pointer) p != DatumGetPointer(d) ? p : NULL;
	cc_stored_view(&s, &r->v, r->local, CC_READ_LOCAL);
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

/*
 * The value of a counter, false for a tombstone; 22003 outside bigint.  A
 * version 2 value keeps its total in its first bytes: an inline one is read
 * in place, a compressed or out-of-line one through a slice of those bytes
 * (only that prefix is decompressed, only the first chunk fetched).
 */
bool
cc_datum_value(Datum d, int64 *value)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	cc_stored	s;
	cc_error	err;

	if (VARATT_IS_EXTERNAL(raw) || VARATT_IS_COMPRESSED(raw))
	{
		struct varlena *slice = PG_DETOAST_DATUM_SLICE(d, 0, CC_STORED_HEADER);
		const unsigned char *data = (const unsigned char *) VARDATA_ANY(slice);
		size_t		len = VARSIZE_ANY_EXHDR(slice);

		if (cc_stored_prefix_suffices(data, len))
		{
			if (cc_stored_prefix(data, len, &s, &err) != CC_OK)
				cc_corrupt(&err);
		}
		else
			cc_datum_stored(d, &s);
	}
	/* an inline value is read in place: the sum needs no line but its first */
	else if (cc_stored_open((const unsigned char *) VARDATA_ANY(raw),
							VARSIZE_ANY_EXHDR(raw), &s, &err) != CC_OK)
		cc_corrupt(&err);
	if (s.tombstone)
		return false;
	if (cc_stored_value(&s, value, &err) != CC_OK)
		cc_report(&err, NULL);
	return true;
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
 * merge(a, b) of two non-NULL values: one of the inputs, as read, when it
 * already holds the merge, or a new value.  *kind tells which; anything but
 * CC_MERGE_TAKE_A means the result differs from a.
 */
Datum
cc_merge_datums(Datum a, Datum b, cc_merge_kind *kind)
{
	Datum		da = PointerGetDatum(DatumGetCounterCrdtP(a));
	Datum		db = PointerGetDatum(DatumGetCounterCrdtP(b));
	Datum		result;
	CcRead		ra,
				rb;

	/* read in place, narrow shards widened on the stack */
	cc_read_open(da, &ra);
	cc_read_open(db, &rb);
	result = cc_merge_reads(da, &ra.v, db, &rb.v, kind);
	cc_read_close(&ra);
	cc_read_close(&rb);
	return result;
}

/* The same for two detoasted values already read into views. */
Datum
cc_merge_reads(Datum a, const cc_view *va, Datum b, const cc_view *vb,
			   cc_merge_kind *kind)
{
	unsigned char *shards;
	struct varlena *merged;

	*kind = cc_merge_plan(va, vb);
	if (*kind == CC_MERGE_TAKE_A)
		return a;
	if (*kind == CC_MERGE_TAKE_B)
		return b;
	merged = cc_make(va->n + vb->n, false, &shards);
	cc_finish(merged, cc_merge(va->shards, va->n, vb->shards, vb->n, shards));
	return PointerGetDatum(merged);
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
					 errdetail("%s", err->detail)));
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
		case CC_OK:
			break;
	}
	elog(ERROR, "unexpected counter_crdt core result %d", (int) err->code);
}
