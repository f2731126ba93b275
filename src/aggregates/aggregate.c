/*
 * aggregate.c
 *	  counter_crdt_merge_agg: the merge of any number of replica states.
 *
 * The transition state is a shard buffer in the aggregate's memory context,
 * merged into in place.  When an input's ids are all present already (the
 * usual case once the first few rows are in) no memory is touched but the
 * state's own shards; otherwise the merge goes into a spare buffer of the
 * same capacity and the two swap, so that a row costs no allocation once the
 * buffers have grown to the number of writers.  A new state is one
 * allocation, its first buffer included, and takes its first input by a copy;
 * the spare is made when a merge first needs it.  A grouped merge whose
 * groups see the same writers in every row (replica states of one key) thus
 * costs one allocation per group, not three, and less memory per group.
 *
 * In a hash aggregation the states come from cache-line slots of the hash
 * table's memory (agg_slots.c).
 *
 * For parallel plans the state serializes to the binary (send/recv) layout
 * and is checked again when it is read back.
 *
 * Inputs with fold records (core/cc_fold.h) turn a state folded: its spare
 * then holds the records (CcAggFolds), and every later merge into it goes
 * through cc_fold_merge() into new buffers; such states are rare (a mesh
 * retiring a writer) and this keeps the state at 32 bytes for the rest.
 * A folded state crosses between processes as 0xF0 and its stored form.
 */
#include "base/datum.h"
#include "aggregates/agg_slots.h"

#include "core/cc_algebra.h"
#include "core/cc_wire.h"

/*
 * 32 bytes, so that a state of three shards and its header take a 128-byte
 * chunk: a grouped merge keeps one per group, and their memory is what a
 * hash aggregate touches at random.  Counts fit 32 bits (CC_MAX_SHARDS).
 */
typedef struct CcAggState
{
	unsigned char *buf;
	unsigned char *spare;		/* NULL until a merge needs it */
	uint32		n;				/* shards in buf */
	uint32		cap;			/* room in buf (and in spare, once made), in shards */
	bool		tombstone;
	bool		has_inline;		/* allocated with its first buffer */
	bool		folded;			/* spare is a CcAggFolds, never NULL */
} CcAggState;

/* The fold records of a folded state. */
typedef struct CcAggFolds
{
	size_t		nf;
	unsigned char recs[FLEXIBLE_ARRAY_MEMBER];
} CcAggFolds;

#define CC_AGG_FOLDS(st) ((CcAggFolds *) (st)->spare)
#define CC_AGG_SERIAL_FOLDED 0xF0

#define CC_AGG_HEAD MAXALIGN(sizeof(CcAggState))
/* the buffer allocated with the state, if it has one */
#define CC_AGG_INLINE_BUF(st) ((unsigned char *) (st) + CC_AGG_HEAD)

static MemoryContext
cc_agg_context(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "counter_crdt aggregate function called in non-aggregate context");
	return aggcontext;
}

/*
 * A new empty state with room for cap shards in cxt; from a slot of slots
 * when it fits one (slots may be NULL).
 */
static CcAggState *
cc_agg_new_in(MemoryContext cxt, CcAggSlots *slots, size_t cap)
{
	CcAggState *st;
	size_t		slot;

	cap = cap < 3 ? 3 : cap;
	cc_check_count(cap);
	slot = TYPEALIGN(CC_SLOT_ALIGN, CC_AGG_HEAD + cap * CC_SHARD_SIZE);
	if (slot <= CC_SLOT_MAX && slots != NULL)
	{
		/* room for more shards when the slot has it */
		cap = (slot - CC_AGG_HEAD) / CC_SHARD_SIZE;
		st = cc_slot_alloc(slots, cxt, slot);
		st->buf = CC_AGG_INLINE_BUF(st);
		st->has_inline = true;
	}
	else if (cap * CC_SHARD_SIZE <= MaxAllocSize - CC_AGG_HEAD)
	{
		st = MemoryContextAlloc(cxt, CC_AGG_HEAD + cap * CC_SHARD_SIZE);
		st->buf = CC_AGG_INLINE_BUF(st);
		st->has_inline = true;
	}
	else
	{
		/* a buffer near the largest allocation gets one of its own */
		st = MemoryContextAlloc(cxt, sizeof(CcAggState));
		st->buf = MemoryContextAlloc(cxt, cap * CC_SHARD_SIZE);
		st->has_inline = false;
	}
	st->spare = NULL;
	st->n = 0;
	st->cap = (uint32) cap;
	st->tombstone = false;
	st->folded = false;
	return st;
}

/* A new transition state of this call in the aggregate's memory. */
static CcAggState *
cc_agg_new(FunctionCallInfo fcinfo, MemoryContext aggcontext, size_t cap)
{
	CcAggSlots *slots = NULL;

	if (TYPEALIGN(CC_SLOT_ALIGN, CC_AGG_HEAD + Max(cap, 3) * CC_SHARD_SIZE) <= CC_SLOT_MAX)
		slots = cc_slots_of_call(fcinfo, aggcontext);
	return cc_agg_new_in(aggcontext, slots, cap);
}

/* Frees a buffer unless it is the one allocated with the state. */
static void
cc_agg_free(CcAggState *st, unsigned char *p)
{
	if (p != NULL && !(st->has_inline && p == CC_AGG_INLINE_BUF(st)))
		pfree(p);
}

/*
 * Merges a folded state into the state, which becomes folded: new buffers
 * for both the shards and the records.
 */
static void
cc_agg_add_folded(MemoryContext aggcontext, CcAggState *st,
				  const cc_folded *in)
{
	CcAggFolds *old = st->folded ? CC_AGG_FOLDS(st) : NULL;
	cc_folded	cur = {st->buf, st->n, old ? old->recs : NULL, old ? old->nf : 0};
	size_t		cap = st->n + in->n,
				nf = cur.nf + in->nf,
				nout;
	unsigned char *shards;
	CcAggFolds *folds;

	cc_check_count(cap);
	cc_check_count(nf * 2);
	shards = MemoryContextAlloc(aggcontext, Max(cap, 1) * CC_SHARD_SIZE);
	folds = MemoryContextAlloc(aggcontext, offsetof(CcAggFolds, recs) +
							   Max(nf, 1) * CC_FOLD_SIZE);
	cc_fold_merge(&cur, in, shards, &nout, folds->recs, &folds->nf);
	cc_agg_free(st, st->buf);
	if (st->spare)
		pfree(st->spare);
	st->buf = shards;
	st->n = (uint32) nout;
	st->cap = (uint32) Max(cap, 1);
	st->spare = (unsigned char *) folds;
	st->folded = true;
}

/* Merges shards (or a tombstone) into the state. */
static void
cc_agg_add(MemoryContext aggcontext, CcAggState *st,
		   const unsigned char *shards, size_t n, bool tombstone)
{
	unsigned char *tmp;

	if (st->tombstone)
		return;
	if (tombstone)
	{
		st->tombstone = true;
		st->n = 0;
		return;
	}
	if (st->folded)
	{
		cc_folded	in = {shards, n, NULL, 0};

		cc_agg_add_folded(aggcontext, st, &in);
		return;
	}
	if (st->n == 0 && n <= st->cap)
	{
		/* the merge of {} and a canonical value is that value */
		memcpy(st->buf, shards, n * CC_SHARD_SIZE);
		st->n = (uint32) n;
		return;
	}
	if (cc_merge_into(st->buf, st->n, shards, n))
		return;
	if (st->n + n > st->cap)
	{
		size_t		need = cc_merge_count(st->buf, st->n, shards, n);
		size_t		cap = st->cap;

		cc_check_count(need);
		while (cap < st->n + n && cap < CC_MAX_SHARDS)
			cap *= 2;
		cap = Max(Min(cap, CC_MAX_SHARDS), need);
		if (cap > st->cap)
		{
			cc_agg_free(st, st->spare);
			st->spare = NULL;
			tmp = MemoryContextAlloc(aggcontext, cap * CC_SHARD_SIZE);
			memcpy(tmp, st->buf, st->n * CC_SHARD_SIZE);
			cc_agg_free(st, st->buf);
			st->buf = tmp;
			st->cap = (uint32) cap;
		}
	}
	if (st->spare == NULL)
		st->spare = MemoryContextAlloc(aggcontext, st->cap * CC_SHARD_SIZE);
	st->n = (uint32) cc_merge(st->buf, st->n, shards, n, st->spare);
	tmp = st->buf;
	st->buf = st->spare;
	st->spare = tmp;
}

PG_FUNCTION_INFO_V1(counter_crdt_merge_agg_trans);
Datum
counter_crdt_merge_agg_trans(PG_FUNCTION_ARGS)
{
	CcAggState *st = PG_ARGISNULL(0) ? NULL : (CcAggState *) PG_GETARG_POINTER(0);
	MemoryContext aggcontext;
	cc_stored	s;
	cc_view		v;
	/* packed inputs of a few shards are widened here, without an allocation */
	unsigned char local[CC_READ_LOCAL * CC_SHARD_SIZE];

	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	cc_datum_stored(PG_GETARG_DATUM(1), &s);
	/* the common case: packed shards, all of whose ids the state holds */
	if (st != NULL && s.lay != CC_LAY_WIDE && st->n > 0 && !st->tombstone &&
		!st->folded && cc_merge_into_stored(st->buf, st->n, s.shards, s.n, s.lay))
		PG_RETURN_POINTER(st);
	if (s.nf > 0)
	{
		cc_folded	in;

		cc_stored_folded(&s, NULL, &in);	/* with records: always wide */
		aggcontext = cc_agg_context(fcinfo);
		if (st == NULL)
			st = cc_agg_new(fcinfo, aggcontext, s.n);
		if (!st->tombstone)
			cc_agg_add_folded(aggcontext, st, &in);
		PG_RETURN_POINTER(st);
	}
	cc_stored_view(&s, &v, local, CC_READ_LOCAL);
	aggcontext = cc_agg_context(fcinfo);
	if (st == NULL)
		st = cc_agg_new(fcinfo, aggcontext, v.n);
	cc_agg_add(aggcontext, st, v.shards, v.n, v.tombstone);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(counter_crdt_merge_agg_combine);
Datum
counter_crdt_merge_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = cc_agg_context(fcinfo);
	CcAggState *st1 = PG_ARGISNULL(0) ? NULL : (CcAggState *) PG_GETARG_POINTER(0);
	CcAggState *st2 = PG_ARGISNULL(1) ? NULL : (CcAggState *) PG_GETARG_POINTER(1);

	if (st2 == NULL)
	{
		if (st1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st1);
	}
	/* The result must live in our aggregate context: copy, never adopt. */
	if (st1 == NULL)
		st1 = cc_agg_new(fcinfo, aggcontext, st2->n);
	if (st2->folded && !st1->tombstone)
	{
		cc_folded	in = {st2->buf, st2->n, CC_AGG_FOLDS(st2)->recs,
		CC_AGG_FOLDS(st2)->nf};

		cc_agg_add_folded(aggcontext, st1, &in);
	}
	else
		cc_agg_add(aggcontext, st1, st2->buf, st2->n, st2->tombstone);
	PG_RETURN_POINTER(st1);
}

PG_FUNCTION_INFO_V1(counter_crdt_merge_agg_final);
Datum
counter_crdt_merge_agg_final(PG_FUNCTION_ARGS)
{
	CcAggState *st;
	unsigned char *shards;
	struct varlena *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (CcAggState *) PG_GETARG_POINTER(0);
	if (st->folded && !st->tombstone)
	{
		cc_folded	f = {st->buf, st->n, CC_AGG_FOLDS(st)->recs,
		CC_AGG_FOLDS(st)->nf};

		PG_RETURN_POINTER(cc_make_folded(&f));
	}
	result = cc_make(st->n, st->tombstone, &shards);
	memcpy(shards, st->buf, st->n * CC_SHARD_SIZE);
	cc_finish(result, st->n);
	PG_RETURN_POINTER(result);
}

PG_FUNCTION_INFO_V1(counter_crdt_merge_agg_serial);
Datum
counter_crdt_merge_agg_serial(PG_FUNCTION_ARGS)
{
	CcAggState *st = (CcAggState *) PG_GETARG_POINTER(0);
	size_t		size = cc_wire_size(st->n);
	bytea	   *result;

	cc_agg_context(fcinfo);
	if (st->folded && !st->tombstone)
	{
		cc_folded	f = {st->buf, st->n, CC_AGG_FOLDS(st)->recs,
		CC_AGG_FOLDS(st)->nf};

		size = 1 + CC_STORED_FOLDED_SIZE(f.n, f.nf);
		if (size > MaxAllocSize - VARHDRSZ)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("counter_crdt aggregate state is too large to pass between processes")));
		result = palloc(VARHDRSZ + size);
		((unsigned char *) VARDATA(result))[0] = CC_AGG_SERIAL_FOLDED;
		SET_VARSIZE(result, VARHDRSZ + 1 +
					cc_stored_pack_folded((unsigned char *) VARDATA(result) + 1, &f));
		PG_RETURN_BYTEA_P(result);
	}
	if (size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt aggregate state is too large to pass between processes"),
				 errdetail("The state has %u shards.", (unsigned int) st->n)));
	result = palloc(VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	cc_encode(st->buf, st->n, st->tombstone, (unsigned char *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

/*
 * A partial state read back, for the combine function only, which merges it
 * into a state of the aggregate's own (copy, never adopt): so it lives in the
 * memory of the call, which the executor resets per input row, not in the
 * aggregate's, where a hash aggregation would keep every one of them to the
 * end of the query beside the states it combines them into.
 */
PG_FUNCTION_INFO_V1(counter_crdt_merge_agg_deserial);
Datum
counter_crdt_merge_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	const unsigned char *data = (const unsigned char *) VARDATA_ANY(b);
	size_t		len = VARSIZE_ANY_EXHDR(b);
	size_t		n;
	bool		tombstone;
	CcAggState *st;
	cc_error	err;

	cc_agg_context(fcinfo);
	if (len > 0 && data[0] == CC_AGG_SERIAL_FOLDED)
	{
		cc_stored	s;
		cc_folded	f;

		if (cc_stored_open(data + 1, len - 1, &s, &err) != CC_OK)
			cc_corrupt(&err);
		cc_stored_folded(&s, s.lay != CC_LAY_WIDE ?
						 palloc(s.n * CC_SHARD_SIZE) : NULL, &f);
		if (s.tombstone ||
			cc_check_canonical(f.shards, f.n, CC_ERR_BINARY, &err) != CC_OK ||
			cc_fold_check(&f, CC_ERR_BINARY, &err) != CC_OK)
			cc_corrupt(&err);
		st = cc_agg_new_in(CurrentMemoryContext, NULL, 0);
		cc_agg_add_folded(CurrentMemoryContext, st, &f);
		PG_RETURN_POINTER(st);
	}
	if (cc_decode_header(data, len, &n, &tombstone, &err) != CC_OK)
		cc_report(&err, NULL);
	st = cc_agg_new_in(CurrentMemoryContext, NULL, n);
	if (cc_decode_shards(data, n, st->buf, &err) != CC_OK)
		cc_report(&err, NULL);
	st->n = (uint32) n;
	st->tombstone = tombstone;
	PG_RETURN_POINTER(st);
}
