/*
 * increment.c
 *	  The increments of a counter: c + n and c - n under this server's
 *	  writer id, counter_crdt_increment(c, n, writer) under a given one, and
 *	  the exactly-once counter_crdt_increment(c, n, writer, clock).
 */
#include "counter_crdt.h"
#include "writer_ids.h"

#include "utils/uuid.h"

#include "core/cc_algebra.h"

/*
 * The leader increment shared by c + d, c - d and counter_crdt_increment():
 * a NULL counter counts from {}, a tombstone stays a tombstone, and a NULL
 * delta is an error rather than a NULL that would wipe the counter.
 */
static Datum
cc_apply(FunctionCallInfo fcinfo, const uint8_t *writer, bool subtract)
{
	cc_view		v;
	int64		delta;
	unsigned char *shards;
	struct varlena *result;
	size_t		n;
	cc_error	err;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("counter_crdt delta must not be null")));
	delta = PG_GETARG_INT64(1);

	if (PG_ARGISNULL(0))
	{
		v.shards = (const unsigned char *) "";
		v.n = 0;
		v.tombstone = false;
	}
	else
	{
		cc_datum_view(PG_GETARG_DATUM(0), &v);
		if (v.tombstone)
			PG_RETURN_DATUM(PointerGetDatum(DatumGetCounterCrdtP(PG_GETARG_DATUM(0))));
	}

	result = cc_make(v.n + 1, false, &shards);
	if (cc_increment(v.shards, v.n, writer, delta, subtract,
					 shards, &n, &err) != CC_OK)
		cc_report(&err, NULL);
	cc_finish(result, n);
	PG_RETURN_POINTER(result);
}

PG_FUNCTION_INFO_V1(counter_crdt_add);
Datum
counter_crdt_add(PG_FUNCTION_ARGS)
{
	return cc_apply(fcinfo, cc_node_id(), false);
}

PG_FUNCTION_INFO_V1(counter_crdt_sub);
Datum
counter_crdt_sub(PG_FUNCTION_ARGS)
{
	return cc_apply(fcinfo, cc_node_id(), true);
}

PG_FUNCTION_INFO_V1(counter_crdt_increment);
Datum
counter_crdt_increment(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("counter_crdt writer id must not be null")));
	return cc_apply(fcinfo, PG_GETARG_UUID_P(2)->data, false);
}

/*
 * counter_crdt_increment(c, delta, writer, clock), the exactly-once
 * increment: a replay (the writer's shard already has this clock or a later
 * one) returns c as it is, and so does a tombstone.  Not strict, for a NULL c counts from {}; a NULL
 * delta, writer or clock is an error rather than a NULL counter.
 */
PG_FUNCTION_INFO_V1(counter_crdt_increment_at);
Datum
counter_crdt_increment_at(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {NULL, "delta", "writer id", "clock"};
	cc_view		v = {(const unsigned char *) "", 0, false};
	unsigned char *shards;
	struct varlena *result;
	size_t		n;
	bool		applied;
	cc_error	err;

	for (int i = 1; i <= 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("counter_crdt %s must not be null", names[i])));

	if (!PG_ARGISNULL(0))
		cc_datum_view(PG_GETARG_DATUM(0), &v);

	/* A tombstone has no shards: the core still checks the clock. */
	result = cc_make(v.n + 1, false, &shards);
	if (cc_increment_at(v.shards, v.n, PG_GETARG_UUID_P(2)->data,
						PG_GETARG_INT64(1), PG_GETARG_INT64(3),
						shards, &n, &applied, &err) != CC_OK)
		cc_report(&err, NULL);
	if (v.tombstone || (!applied && !PG_ARGISNULL(0)))
	{
		pfree(result);
		PG_RETURN_DATUM(PointerGetDatum(DatumGetCounterCrdtP(PG_GETARG_DATUM(0))));
	}
	cc_finish(result, n);
	PG_RETURN_POINTER(result);
}
