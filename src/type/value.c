/*
 * value.c
 *	  What a value holds and how two combine: its value (c::bigint, and
 *	  the casts to the other numbers), its shards and their number,
 *	  merge(a, b), and the difference that a repair ships.
 */
#include "base/datum.h"
#include "type/value.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/numeric.h"
#include "utils/uuid.h"

#include "core/cc_algebra.h"

/*
 * The value of a counter, false for a tombstone; 22003 outside bigint.  A
 * version 2 value keeps its total in its first bytes: an inline one is read
 * in place, a compressed or out-of-line one through a slice of those bytes
 * (only that prefix is decompressed, only the first chunk fetched).  What
 * c::bigint reads, and every comparison, cast and aggregate of the value,
 * for the values that cc_datum_value() (value.h) does not sum inline.
 */
bool
cc_datum_value_read(Datum d, int64 *value)
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

PG_FUNCTION_INFO_V1(counter_crdt_value);
Datum
counter_crdt_value(PG_FUNCTION_ARGS)
{
	int64		value;

	if (!cc_datum_value(PG_GETARG_DATUM(0), &value))
		PG_RETURN_NULL();
	PG_RETURN_INT64(value);
}

/* The shards of a value as rows (id, clock, value), in ascending id order. */
PG_FUNCTION_INFO_V1(counter_crdt_shards);
Datum
counter_crdt_shards(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	cc_view	   *v;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext oldcontext;
		TupleDesc	tupdesc;
		cc_folded	src;
		bool		tombstone;
		unsigned char *copy;

		funcctx = SRF_FIRSTCALL_INIT();
		oldcontext = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);

		/* the shards only: fold records are counter_crdt_folds()'s */
		tombstone = cc_datum_folded(PG_GETARG_DATUM(0), &src);
		v = palloc(sizeof(cc_view));
		copy = palloc(src.n * CC_SHARD_SIZE + 1);
		memcpy(copy, src.shards, src.n * CC_SHARD_SIZE);
		v->shards = copy;
		v->n = src.n;
		v->tombstone = tombstone;
		funcctx->user_fctx = v;
		funcctx->max_calls = v->n;
		MemoryContextSwitchTo(oldcontext);
	}

	funcctx = SRF_PERCALL_SETUP();
	v = (cc_view *) funcctx->user_fctx;
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		cc_shard	sh;
		pg_uuid_t  *id = palloc(sizeof(pg_uuid_t));
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		HeapTuple	tuple;

		cc_load(v->shards, funcctx->call_cntr, &sh);
		memcpy(id->data, sh.id, CC_ID_LEN);
		values[0] = UUIDPGetDatum(id);
		values[1] = Int64GetDatum(sh.clock);
		values[2] = Int64GetDatum(sh.value);
		tuple = heap_form_tuple(funcctx->tuple_desc, values, nulls);
		SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(tuple));
	}
	SRF_RETURN_DONE(funcctx);
}

/*
 * The number of writers a value carries: its shards, one per writer id that
 * ever touched it.  A tombstone keeps no shards, so it counts 0.
 */
PG_FUNCTION_INFO_V1(counter_crdt_writers);
Datum
counter_crdt_writers(PG_FUNCTION_ARGS)
{
	cc_stored	s;

	cc_datum_stored(PG_GETARG_DATUM(0), &s);
	PG_RETURN_INT32((int32) s.n);
}

/*
 * merge(a, b) of folded states, not tombstones: a or b when it holds the
 * merge, else a new value.
 */
static Datum
cc_merge_folded(Datum a, const cc_folded *fa, Datum b, const cc_folded *fb,
				cc_merge_kind *kind)
{
	cc_folded	m;
	unsigned char *shards,
			   *folds;

	cc_check_count(fa->n + fb->n);
	cc_check_count(2 * (fa->nf + fb->nf));
	shards = palloc(Max(fa->n + fb->n, 1) * CC_SHARD_SIZE);
	folds = palloc(Max(fa->nf + fb->nf, 1) * CC_FOLD_SIZE);
	cc_fold_merge(fa, fb, shards, &m.n, folds, &m.nf);
	m.shards = shards;
	m.folds = folds;
	if (cc_fold_compare(&m, false, fa, false) == 0)
		*kind = CC_MERGE_TAKE_A;
	else if (cc_fold_compare(&m, false, fb, false) == 0)
		*kind = CC_MERGE_TAKE_B;
	else
	{
		*kind = CC_MERGE_BUILD;
		return PointerGetDatum(cc_make_folded(&m));
	}
	pfree(shards);
	pfree(folds);
	return *kind == CC_MERGE_TAKE_A ? a : b;
}

/*
 * merge(a, b) of two detoasted values already read: a or b itself when it
 * holds the merge (*kind says which), else a new value.
 */
Datum
cc_merge_reads(Datum a, const CcRead *ra, Datum b, const CcRead *rb,
			   cc_merge_kind *kind)
{
	unsigned char *shards;
	struct varlena *merged;
	const cc_view *va = &ra->v,
			   *vb = &rb->v;

	if ((ra->nf > 0 || rb->nf > 0) && !va->tombstone && !vb->tombstone)
	{
		cc_folded	fa = cc_read_folded(ra),
					fb = cc_read_folded(rb);

		return cc_merge_folded(a, &fa, b, &fb, kind);
	}
	*kind = cc_merge_plan(va, vb);
	if (*kind == CC_MERGE_TAKE_A)
		return a;
	if (*kind == CC_MERGE_TAKE_B)
		return b;
	merged = cc_make(va->n + vb->n, false, &shards);
	cc_finish(merged, cc_merge(va->shards, va->n, vb->shards, vb->n, shards));
	return PointerGetDatum(merged);
}

/*
 * merge(a, b) of two non-NULL values: one of the inputs, as read, when it
 * already holds the merge, or a new value.  *kind tells which; anything but
 * CC_MERGE_TAKE_A means the result differs from a.
 */
static Datum
cc_merge_datums(Datum a, Datum b, cc_merge_kind *kind)
{
	Datum		da = PointerGetDatum(DatumGetCounterCrdtP(a));
	Datum		db = PointerGetDatum(DatumGetCounterCrdtP(b));
	Datum		result;
	CcRead		ra,
				rb;

	/* read in place, packed shards widened on the stack */
	cc_read_open(da, &ra);
	cc_read_open(db, &rb);
	result = cc_merge_reads(da, &ra, db, &rb, kind);
	cc_read_close(&ra);
	cc_read_close(&rb);
	return result;
}

/*
 * merge(a, b): NULL is the identity and a tombstone absorbs everything.  When
 * one side already holds the merge, that side is returned as it is, with no
 * new value built.
 */
PG_FUNCTION_INFO_V1(counter_crdt_merge);
Datum
counter_crdt_merge(PG_FUNCTION_ARGS)
{
	cc_merge_kind kind;

	if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(0))
		PG_RETURN_POINTER(DatumGetCounterCrdtP(PG_GETARG_DATUM(1)));
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(DatumGetCounterCrdtP(PG_GETARG_DATUM(0)));
	PG_RETURN_DATUM(cc_merge_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), &kind));
}

/* difference(a, b) of live values of which one has fold records. */
static Datum
cc_difference_folded(FunctionCallInfo fcinfo)
{
	cc_folded	a,
				b,
				d;
	unsigned char *shards,
			   *folds;

	cc_datum_folded(PG_GETARG_DATUM(0), &a);
	cc_datum_folded(PG_GETARG_DATUM(1), &b);
	shards = palloc(Max(a.n, 1) * CC_SHARD_SIZE);
	folds = palloc(Max(a.nf, 1) * CC_FOLD_SIZE);
	if (cc_fold_difference(&a, &b,
						   MemoryContextAllocHuge(CurrentMemoryContext,
												  CC_FOLD_DIFFERENCE_WORK(a.n, a.nf)),
						   shards, &d.n, folds, &d.nf) == CC_DIFF_NONE)
		PG_RETURN_NULL();
	d.shards = shards;
	d.folds = folds;
	PG_RETURN_POINTER(cc_make_folded(&d));
}

/*
 * difference(a, b), what a repair ships to a server that holds b: NULL when a
 * adds nothing to b, else the shards of a that win over b's, or a itself when
 * it is a tombstone that b is not.  NULL a adds nothing; against a NULL b all
 * of a is new.
 */
PG_FUNCTION_INFO_V1(counter_crdt_difference);
Datum
counter_crdt_difference(PG_FUNCTION_ARGS)
{
	cc_view		a,
				b;
	unsigned char *shards;
	struct varlena *result;
	size_t		n;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(DatumGetCounterCrdtP(PG_GETARG_DATUM(0)));
	{
		cc_stored	sa,
					sb;

		cc_datum_stored(PG_GETARG_DATUM(0), &sa);
		cc_datum_stored(PG_GETARG_DATUM(1), &sb);
		/* a tombstone b holds everything; a tombstone a is all new to b */
		if (sb.tombstone)
			PG_RETURN_NULL();
		if (sa.tombstone)
			PG_RETURN_POINTER(DatumGetCounterCrdtP(PG_GETARG_DATUM(0)));
		if (sa.nf > 0 || sb.nf > 0)
			return cc_difference_folded(fcinfo);
	}
	cc_datum_view(PG_GETARG_DATUM(0), &a);
	cc_datum_view(PG_GETARG_DATUM(1), &b);
	result = cc_make(a.n, false, &shards);
	switch (cc_difference(&a, &b, shards, &n))
	{
		case CC_DIFF_NONE:
			pfree(result);
			PG_RETURN_NULL();
		case CC_DIFF_TOMBSTONE:
			pfree(result);
			PG_RETURN_POINTER(DatumGetCounterCrdtP(PG_GETARG_DATUM(0)));
		case CC_DIFF_SHARDS:
			break;
	}
	cc_finish(result, n);
	PG_RETURN_POINTER(result);
}

/*
 * Casts to other numbers, beside c::bigint (counter_crdt_value): the same
 * value, NULL for a tombstone, 22003 where it does not fit the type (as the
 * cast of that bigint would say); to double precision rounded as
 * bigint::double precision rounds.
 */
/* The value, if it lies in [min, max]; 22003 naming the type if not. */
static bool
cc_value_within(Datum d, int64 min, int64 max, const char *type, int64 *value)
{
	if (!cc_datum_value(d, value))
		return false;
	if (*value < min || *value > max)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s out of range", type),
				 errdetail("The counter's value is " INT64_FORMAT ".", *value)));
	return true;
}

PG_FUNCTION_INFO_V1(counter_crdt_to_int2);
Datum
counter_crdt_to_int2(PG_FUNCTION_ARGS)
{
	int64		value;

	if (!cc_value_within(PG_GETARG_DATUM(0), PG_INT16_MIN, PG_INT16_MAX,
						 "smallint", &value))
		PG_RETURN_NULL();
	PG_RETURN_INT16((int16) value);
}

PG_FUNCTION_INFO_V1(counter_crdt_to_int4);
Datum
counter_crdt_to_int4(PG_FUNCTION_ARGS)
{
	int64		value;

	if (!cc_value_within(PG_GETARG_DATUM(0), PG_INT32_MIN, PG_INT32_MAX,
						 "integer", &value))
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) value);
}

PG_FUNCTION_INFO_V1(counter_crdt_to_numeric);
Datum
counter_crdt_to_numeric(PG_FUNCTION_ARGS)
{
	int64		value;

	if (!cc_datum_value(PG_GETARG_DATUM(0), &value))
		PG_RETURN_NULL();
	PG_RETURN_NUMERIC(int64_to_numeric(value));
}

PG_FUNCTION_INFO_V1(counter_crdt_to_float8);
Datum
counter_crdt_to_float8(PG_FUNCTION_ARGS)
{
	int64		value;

	if (!cc_datum_value(PG_GETARG_DATUM(0), &value))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8((float8) value);
}
