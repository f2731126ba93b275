/*
 * increment.c
 *	  The increments of a counter: c + n and c - n under this server's
 *	  writer id, counter_crdt_increment(c, n, writer) under a given one, and
 *	  the exactly-once counter_crdt_increment(c, n, writer, clock).
 */
#include "base/datum.h"
#include "writers/retired.h"
#include "writers/writer_ids.h"

#include "utils/uuid.h"

#include "core/cc_algebra.h"

/*
 * A value with room for a stored value of capacity shards, which the core
 * writes whole (no zeroing); cc_sized() sets the length it wrote.
 */
static struct varlena *
cc_room(size_t capacity)
{
	cc_check_count(capacity);
	return palloc(VARHDRSZ + CC_STORED_BUILD_SIZE(capacity));
}

static Datum
cc_sized(struct varlena *result, size_t len)
{
	SET_VARSIZE(result, VARHDRSZ + len);
	PG_RETURN_POINTER(result);
}

/*
 * An increment of a value with fold records (core/cc_fold.h), records kept:
 * a leader increment when clock is NULL, else an exactly-once one at *clock,
 * which gives NULL for a replay.  A retired writer is refused (55000).
 */
static struct varlena *
cc_increment_folded(const cc_stored *s, const uint8_t *writer, int64 delta,
					bool subtract, const int64 *clock)
{
	cc_folded	f,
				out;
	unsigned char *shards;
	bool		applied = true;
	cc_error	err;
	cc_code		rc;

	cc_stored_folded(s, NULL, &f);
	cc_check_count(f.n + 1);
	shards = palloc((f.n + 1) * CC_SHARD_SIZE);
	if (clock == NULL)
		rc = cc_fold_increment(&f, writer, delta, subtract, shards, &out.n, &err);
	else
		rc = cc_fold_increment_at(&f, writer, delta, *clock, shards, &out.n,
								  &applied, &err);
	if (rc != CC_OK)
		cc_report(&err, NULL);
	if (!applied)
		return NULL;
	out.shards = shards;
	out.folds = f.folds;
	out.nf = f.nf;
	return cc_make_folded(&out);
}

/* A NULL counter counts from {}. */
static void
cc_arg_stored(FunctionCallInfo fcinfo, cc_stored *s)
{
	if (PG_ARGISNULL(0))
		cc_stored_of_records((const unsigned char *) "", 0, false, s);
	else
		cc_datum_stored(PG_GETARG_DATUM(0), s);
}

/*
 * The leader increment shared by c + d, c - d and counter_crdt_increment():
 * a NULL counter counts from {}, a tombstone stays a tombstone, and a NULL
 * delta is an error rather than a NULL that would wipe the counter.  The new
 * value is built from the stored shards where they lie.
 */
static Datum
cc_apply(FunctionCallInfo fcinfo, const uint8_t *writer, bool subtract)
{
	cc_stored	s;
	int64		delta;
	struct varlena *result;
	size_t		len;
	cc_error	err;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("counter_crdt delta must not be null")));
	delta = PG_GETARG_INT64(1);
	cc_retired_check_write(writer);

	cc_arg_stored(fcinfo, &s);
	if (s.tombstone)
		PG_RETURN_DATUM(PointerGetDatum(DatumGetCounterCrdtP(PG_GETARG_DATUM(0))));
	if (s.nf > 0)
		PG_RETURN_POINTER(cc_increment_folded(&s, writer, delta, subtract, NULL));

	result = cc_room(s.n + 1);
	if (cc_increment_stored(&s, writer, delta, subtract,
							(unsigned char *) VARDATA(result), &len, &err) != CC_OK)
		cc_report(&err, NULL);
	return cc_sized(result, len);
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
	cc_stored	s;
	struct varlena *result;
	size_t		len;
	bool		applied;
	cc_error	err;

	for (int i = 1; i <= 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("counter_crdt %s must not be null", names[i])));
	cc_retired_check_write(PG_GETARG_UUID_P(2)->data);

	cc_arg_stored(fcinfo, &s);
	if (s.nf > 0)
	{
		int64		clock = PG_GETARG_INT64(3);

		result = cc_increment_folded(&s, PG_GETARG_UUID_P(2)->data,
									 PG_GETARG_INT64(1), false, &clock);
		if (result == NULL)
			PG_RETURN_DATUM(PointerGetDatum(DatumGetCounterCrdtP(PG_GETARG_DATUM(0))));
		PG_RETURN_POINTER(result);
	}

	/* A tombstone is not applied to, but the core still checks the clock. */
	result = cc_room(s.n + 1);
	if (cc_increment_at_stored(&s, PG_GETARG_UUID_P(2)->data,
							   PG_GETARG_INT64(1), PG_GETARG_INT64(3),
							   (unsigned char *) VARDATA(result), &len,
							   &applied, &err) != CC_OK)
		cc_report(&err, NULL);
	if (!applied)
	{
		/* {} is always applied to: its writer's shard counts from clock 0 */
		Assert(!PG_ARGISNULL(0));
		pfree(result);
		PG_RETURN_DATUM(PointerGetDatum(DatumGetCounterCrdtP(PG_GETARG_DATUM(0))));
	}
	return cc_sized(result, len);
}
