/*
 * functions.c
 *	  The SQL functions of counter_crdt: value, merge, shards, digest,
 *	  equality and hashing, and the difference that a repair ships.
 */
#include "counter_crdt.h"
#include "hashing.h"

#include "common/hashfn.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(counter_crdt_value);
Datum
counter_crdt_value(PG_FUNCTION_ARGS)
{
	int64		value;

	if (!cc_datum_value(PG_GETARG_DATUM(0), &value))
		PG_RETURN_NULL();
	PG_RETURN_INT64(value);
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
		cc_view		src;
		unsigned char *copy;

		funcctx = SRF_FIRSTCALL_INIT();
		oldcontext = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);

		cc_datum_view(PG_GETARG_DATUM(0), &src);
		v = palloc(sizeof(cc_view));
		copy = palloc(src.n * CC_SHARD_SIZE + 1);
		memcpy(copy, src.shards, src.n * CC_SHARD_SIZE);
		v->shards = copy;
		v->n = src.n;
		v->tombstone = src.tombstone;
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

PG_FUNCTION_INFO_V1(counter_crdt_digest);
Datum
counter_crdt_digest(PG_FUNCTION_ARGS)
{
	cc_stored	s;
	bytea	   *result = palloc(VARHDRSZ + CC_DIGEST_LEN);
	cc_hasher  *h = cc_hasher_of_call(fcinfo, CC_HASH_SHA256);
	cc_hash_sink sink;

	cc_datum_stored(PG_GETARG_DATUM(0), &s);
	SET_VARSIZE(result, VARHDRSZ + CC_DIGEST_LEN);
	cc_hasher_start(h, &sink);
	cc_digest_input_stored(&sink, &s);
	cc_hasher_finish(h, (uint8_t *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

/* Equality and hashes free what they read: hash joins call them in bulk. */
static bool
cc_datum_equal(FunctionCallInfo fcinfo)
{
	CcRead		a,
				b;
	bool		equal;

	cc_read_open(PG_GETARG_DATUM(0), &a);
	cc_read_open(PG_GETARG_DATUM(1), &b);
	equal = cc_equal(a.v.shards, a.v.n, a.v.tombstone,
					 b.v.shards, b.v.n, b.v.tombstone);
	cc_read_close(&a);
	cc_read_close(&b);
	return equal;
}

PG_FUNCTION_INFO_V1(counter_crdt_eq);
Datum
counter_crdt_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cc_datum_equal(fcinfo));
}

PG_FUNCTION_INFO_V1(counter_crdt_ne);
Datum
counter_crdt_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!cc_datum_equal(fcinfo));
}

/*
 * Hashes agree with equality: equal states have identical shard bytes, and
 * a tombstone hashes apart from the empty live counter.
 */
#define CC_TOMBSTONE_HASH_KEY 0x746f6d62

PG_FUNCTION_INFO_V1(counter_crdt_hash);
Datum
counter_crdt_hash(PG_FUNCTION_ARGS)
{
	CcRead		r;
	Datum		h;

	cc_read_open(PG_GETARG_DATUM(0), &r);
	if (r.v.tombstone)
		h = hash_uint32(CC_TOMBSTONE_HASH_KEY);
	else
		h = hash_any(r.v.shards, (int) (r.v.n * CC_SHARD_SIZE));
	cc_read_close(&r);
	return h;
}

PG_FUNCTION_INFO_V1(counter_crdt_hash_extended);
Datum
counter_crdt_hash_extended(PG_FUNCTION_ARGS)
{
	CcRead		r;
	uint64		seed = PG_GETARG_INT64(1);
	Datum		h;

	cc_read_open(PG_GETARG_DATUM(0), &r);
	if (r.v.tombstone)
		h = hash_uint32_extended(CC_TOMBSTONE_HASH_KEY, seed);
	else
		h = hash_any_extended(r.v.shards, (int) (r.v.n * CC_SHARD_SIZE), seed);
	cc_read_close(&r);
	return h;
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
