/*
 * value_aggregates.c
 *	  Aggregates of counters' values: sum(c) and avg(c), numeric and exact as
 *	  sum(bigint) and avg(bigint) are, and min(c) and max(c), bigint.
 *
 * Each reads a counter's value as c::bigint does (cc_datum_value()) and
 * hands it to PostgreSQL's own bigint aggregates: sum and avg keep
 * int8_avg_accum()'s state (a 128-bit sum and a count), which PostgreSQL's
 * int8_avg_combine/serialize/deserialize and numeric_poly_sum/avg combine,
 * pass between processes and finish, and which int8_avg_accum_inv() takes a
 * value out of in a moving window frame; min and max keep a bigint.
 * Tombstones are skipped as NULLs are; a value outside bigint is an error
 * (22003), as reading it is.  sum adds the values of different counters;
 * counter_crdt_merge_agg merges copies of one (summing copies counts twice).
 */
#include "postgres.h"

#include "type/value.h"

#include "utils/fmgrprotos.h"

/*
 * Calls a transition function of bigint (fn: int8_avg_accum or its inverse)
 * with this call's own fcinfo, its second argument (the counter) replaced
 * by the counter's value, or a NULL input for a NULL counter or a tombstone,
 * and put back after: the same state, aggregate context and flinfo, with no
 * second call frame to build per row.
 */
static inline Datum
cc_int8_trans(PGFunction fn, FunctionCallInfo fcinfo)
{
	NullableDatum counter = fcinfo->args[1];
	int64		value = 0;
	Datum		result;

	fcinfo->args[1].isnull = counter.isnull ||
		!cc_datum_value(counter.value, &value);
	fcinfo->args[1].value = Int64GetDatum(value);
	result = fn(fcinfo);
	fcinfo->args[1] = counter;
	return result;
}

/* Transition of sum(c) and avg(c), also their forward moving one. */
PG_FUNCTION_INFO_V1(counter_crdt_sum_accum);
Datum
counter_crdt_sum_accum(PG_FUNCTION_ARGS)
{
	return cc_int8_trans(int8_avg_accum, fcinfo);
}

/* Inverse moving transition: the value leaves the window frame. */
PG_FUNCTION_INFO_V1(counter_crdt_sum_accum_inv);
Datum
counter_crdt_sum_accum_inv(PG_FUNCTION_ARGS)
{
	return cc_int8_trans(int8_avg_accum_inv, fcinfo);
}

/*
 * Transitions of min(c) and max(c): the state is the least or greatest
 * value so far, NULL until a live counter comes.
 */
static pg_attribute_always_inline Datum
cc_extreme_trans(FunctionCallInfo fcinfo, bool greatest)
{
	int64		value;

	if (PG_ARGISNULL(1) || !cc_datum_value(PG_GETARG_DATUM(1), &value))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (!PG_ARGISNULL(0))
	{
		int64		state = PG_GETARG_INT64(0);

		if (greatest ? state > value : state < value)
			value = state;
	}
	PG_RETURN_INT64(value);
}

PG_FUNCTION_INFO_V1(counter_crdt_min_accum);
Datum
counter_crdt_min_accum(PG_FUNCTION_ARGS)
{
	return cc_extreme_trans(fcinfo, false);
}

PG_FUNCTION_INFO_V1(counter_crdt_max_accum);
Datum
counter_crdt_max_accum(PG_FUNCTION_ARGS)
{
	return cc_extreme_trans(fcinfo, true);
}
