/*
 * fold.c
 *	  Retiring writers (core/cc_fold.h): counter_crdt_fold(c, retired),
 *	  which moves a retired writer's count into this server's shard,
 *	  counter_crdt_forget(c, retired) and counter_crdt_strip(c, retired),
 *	  which drop it once finished, the same for many retired writers at once
 *	  (counter_crdt_fold_many, counter_crdt_forget_many), the test
 *	  counter_crdt_fold_pending(), and the records as rows,
 *	  counter_crdt_folds(c).
 *
 * A fold is a leader update of the target's shard: like c + n it runs
 * inside an UPDATE, under the row lock, and only the server writing as the
 * target may run it (the target defaults to counter_crdt_node_id()).
 * NULL counters and tombstones pass through unchanged.
 */
#include "base/datum.h"
#include "writers/writer_ids.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/uuid.h"

/* The counter argument, or NULL when it is NULL or a tombstone. */
static bool
cc_fold_arg(FunctionCallInfo fcinfo, cc_folded *f)
{
	if (PG_ARGISNULL(0))
		return false;
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("counter_crdt retired writer id must not be null")));
	return !cc_datum_folded(PG_GETARG_DATUM(0), f);
}

static Datum
cc_same(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(DatumGetCounterCrdtP(PG_GETARG_DATUM(0)));
}

/* The new state written into shards and folds, or c when nothing changed. */
static Datum
cc_fold_result(FunctionCallInfo fcinfo, bool changed,
			   const unsigned char *shards, size_t n,
			   const unsigned char *folds, size_t nf)
{
	cc_folded	out;

	if (!changed)
		return cc_same(fcinfo);
	out.shards = shards;
	out.n = n;
	out.folds = folds;
	out.nf = nf;
	PG_RETURN_POINTER(cc_make_folded(&out));
}

/*
 * counter_crdt_fold(c, retired [, target]): c with retired's count held by
 * target (this server's writer id when not given), or c as it is when there
 * is nothing to do.
 */
PG_FUNCTION_INFO_V1(counter_crdt_fold);
Datum
counter_crdt_fold(PG_FUNCTION_ARGS)
{
	cc_folded	f;
	const uint8_t *target;
	unsigned char *shards,
			   *folds;
	size_t		n,
				nf;
	bool		changed;
	cc_error	err;

	if (PG_NARGS() > 2 && PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("counter_crdt target writer id must not be null")));
	if (!cc_fold_arg(fcinfo, &f))
		return cc_same(fcinfo);
	target = PG_NARGS() > 2 ? PG_GETARG_UUID_P(2)->data : cc_node_id();
	cc_check_count(f.n + 1);
	cc_check_count(2 * (f.nf + 1));
	shards = palloc((f.n + 1) * CC_SHARD_SIZE);
	folds = palloc((f.nf + 1) * CC_FOLD_SIZE);
	if (cc_fold_apply(&f, PG_GETARG_UUID_P(1)->data, target, shards, &n,
					  folds, &nf, &changed, &err) != CC_OK)
		cc_report(&err, NULL);
	return cc_fold_result(fcinfo, changed, shards, n, folds, nf);
}

/*
 * counter_crdt_forget(c, retired): c without the records of a finished fold
 * of retired (22023 when it is not finished, or when c still carries
 * retired's shard), or c when it has neither record nor shard of it.
 */
PG_FUNCTION_INFO_V1(counter_crdt_forget);
Datum
counter_crdt_forget(PG_FUNCTION_ARGS)
{
	cc_folded	f;
	unsigned char *shards,
			   *folds;
	size_t		n,
				nf;
	bool		changed;
	cc_error	err;

	if (!cc_fold_arg(fcinfo, &f))
		return cc_same(fcinfo);
	shards = palloc(Max(f.n, 1) * CC_SHARD_SIZE);
	folds = palloc(Max(f.nf, 1) * CC_FOLD_SIZE);
	if (cc_fold_forget(&f, PG_GETARG_UUID_P(1)->data, shards, &n,
					   folds, &nf, &changed, &err) != CC_OK)
		cc_report(&err, NULL);
	return cc_fold_result(fcinfo, changed, shards, n, folds, nf);
}

/*
 * counter_crdt_strip(c, retired): c without anything of retired, for a copy
 * made before a fold that was forgotten since (cc_fold_strip(): the records
 * into retired go too, and the records that then lead nowhere).
 */
PG_FUNCTION_INFO_V1(counter_crdt_strip);
Datum
counter_crdt_strip(PG_FUNCTION_ARGS)
{
	cc_folded	f;
	unsigned char *shards,
			   *folds;
	size_t		n,
				nf;

	if (!cc_fold_arg(fcinfo, &f))
		return cc_same(fcinfo);
	shards = palloc(Max(f.n, 1) * CC_SHARD_SIZE);
	folds = palloc(Max(f.nf, 1) * CC_FOLD_SIZE);
	cc_fold_strip(&f, PG_GETARG_UUID_P(1)->data,
				  MemoryContextAllocHuge(CurrentMemoryContext,
										 CC_FOLD_STRIP_WORK(f.nf)),
				  shards, &n, folds, &nf);
	return cc_fold_result(fcinfo, n != f.n || nf != f.nf, shards, n, folds, nf);
}

/*
 * counter_crdt_fold_pending(c, retired): whether c still holds a shard of
 * retired or a count of it that no target holds; false for NULL and
 * tombstones.  A fold is finished in a counter when this is false there.
 */
PG_FUNCTION_INFO_V1(counter_crdt_fold_pending);
Datum
counter_crdt_fold_pending(PG_FUNCTION_ARGS)
{
	cc_folded	f;
	bool		present;
	int64_t		wraps,
				low;

	if (!cc_fold_arg(fcinfo, &f))
		PG_RETURN_BOOL(false);
	cc_fold_outstanding(&f, PG_GETARG_UUID_P(1)->data, &present, &wraps, &low);
	PG_RETURN_BOOL(present || wraps != 0 || low != 0);
}

/*
 * counter_crdt_folds(c): the fold records as rows (retired, target, tclock,
 * aclock, avalue, absorbed), in (retired, target) order.
 */
PG_FUNCTION_INFO_V1(counter_crdt_folds);
Datum
counter_crdt_folds(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	cc_folded  *f;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext oldcontext;
		TupleDesc	tupdesc;
		cc_folded	src;
		unsigned char *copy;

		funcctx = SRF_FIRSTCALL_INIT();
		oldcontext = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		cc_datum_folded(PG_GETARG_DATUM(0), &src);
		f = palloc0(sizeof(cc_folded));
		copy = palloc(src.nf * CC_FOLD_SIZE + 1);
		memcpy(copy, src.folds, src.nf * CC_FOLD_SIZE);
		f->folds = copy;
		f->nf = src.nf;
		funcctx->user_fctx = f;
		funcctx->max_calls = f->nf;
		MemoryContextSwitchTo(oldcontext);
	}

	funcctx = SRF_PERCALL_SETUP();
	f = (cc_folded *) funcctx->user_fctx;
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		cc_fold		rec;
		pg_uuid_t  *retired = palloc(sizeof(pg_uuid_t)),
				   *target = palloc(sizeof(pg_uuid_t));
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		cc_fold_load(f->folds, funcctx->call_cntr, &rec);
		memcpy(retired->data, rec.retired, CC_ID_LEN);
		memcpy(target->data, rec.target, CC_ID_LEN);
		values[0] = UUIDPGetDatum(retired);
		values[1] = UUIDPGetDatum(target);
		values[2] = Int64GetDatum(rec.tclock);
		values[3] = Int64GetDatum(rec.aclock);
		values[4] = Int64GetDatum(rec.avalue);
		values[5] = Int64GetDatum(rec.absorbed);
		SRF_RETURN_NEXT(funcctx,
						HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc,
														  values, nulls)));
	}
	SRF_RETURN_DONE(funcctx);
}

/* The ids of a uuid[] argument (no NULL element), and their number. */
static const pg_uuid_t *
cc_uuid_array(ArrayType *arr, int *count)
{
	Datum	   *elems;
	bool	   *nulls;
	pg_uuid_t  *ids;

	deconstruct_array(arr, UUIDOID, UUID_LEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, count);
	ids = palloc(Max(*count, 1) * sizeof(pg_uuid_t));
	for (int i = 0; i < *count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("counter_crdt retired writer id must not be null")));
		ids[i] = *DatumGetUUIDP(elems[i]);
	}
	return ids;
}

/*
 * counter_crdt_fold_many(c, retired[]): counter_crdt_fold(c, r) for each r
 * in turn, into this server's writer id; one new value for them all, made
 * in one pass (cc_fold_many(): the same value, or the refusal of the first
 * fold that the loop of single folds would refuse).
 */
PG_FUNCTION_INFO_V1(counter_crdt_fold_many);
Datum
counter_crdt_fold_many(PG_FUNCTION_ARGS)
{
	cc_folded	f;
	const pg_uuid_t *ids;
	int			count;
	unsigned char *shards,
			   *folds;
	size_t		n,
				nf;
	bool		changed;
	cc_error	err;

	if (!cc_fold_arg(fcinfo, &f))
		return cc_same(fcinfo);
	ids = cc_uuid_array(PG_GETARG_ARRAYTYPE_P(1), &count);
	if (count == 0)
		return cc_same(fcinfo);
	/* the limits of the loop of single folds, which had room for every id */
	cc_check_count(f.n + count);
	cc_check_count(2 * (f.nf + count));
	shards = palloc((f.n + 1) * CC_SHARD_SIZE);
	folds = palloc((f.nf + count) * CC_FOLD_SIZE);
	CHECK_FOR_INTERRUPTS();
	if (cc_fold_many(&f, (const uint8_t *) ids, (size_t) count, cc_node_id(),
					 MemoryContextAllocHuge(CurrentMemoryContext,
											CC_FOLD_MANY_WORK((size_t) count, f.nf)),
					 shards, &n, folds, &nf, &changed, &err) != CC_OK)
		cc_report(&err, NULL);
	CHECK_FOR_INTERRUPTS();
	return cc_fold_result(fcinfo, changed, shards, n, folds, nf);
}

/*
 * counter_crdt_forget_many(c, retired[]): counter_crdt_forget(c, r) for
 * every r, in whatever order lets them all go (a writer that holds
 * another's fold goes after it), in one pass (cc_fold_forget_many()); the
 * refusal of the first id that cannot go.
 */
PG_FUNCTION_INFO_V1(counter_crdt_forget_many);
Datum
counter_crdt_forget_many(PG_FUNCTION_ARGS)
{
	cc_folded	f;
	const pg_uuid_t *ids;
	int			count;
	unsigned char *shards,
			   *folds;
	size_t		n,
				nf;
	bool		changed;
	cc_error	err;

	if (!cc_fold_arg(fcinfo, &f))
		return cc_same(fcinfo);
	ids = cc_uuid_array(PG_GETARG_ARRAYTYPE_P(1), &count);
	shards = palloc(Max(f.n, 1) * CC_SHARD_SIZE);
	folds = palloc(Max(f.nf, 1) * CC_FOLD_SIZE);
	if (cc_fold_forget_many(&f, (const uint8_t *) ids, (size_t) count,
							MemoryContextAllocHuge(CurrentMemoryContext,
												   CC_FOLD_FORGET_MANY_WORK((size_t) count)),
							shards, &n, folds, &nf, &changed, &err) != CC_OK)
		cc_report(&err, NULL);
	return cc_fold_result(fcinfo, changed, shards, n, folds, nf);
}
