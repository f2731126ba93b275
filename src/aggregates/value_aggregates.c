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
 * with this call's state, aggregate context and the counter's value, or a
 * NULL input for a NULL counter or a tombstone.
 */
static inline Datum
cc_int8_trans(PGFunction fn, FunctionCallInfo fcinfo)
{
	LOCAL_FCINFO(inner, 2);
	int64		value = 0;
	Datum		result;

	InitFunctionCallInfoData(*inner, fcinfo->flinfo, 2, InvalidOid,
							 fcinfo->context, NULL);
	inner->args[0] = fcinfo->args[0];
	inner->args[1].isnull = PG_ARGISNULL(1) ||
		!cc_datum_value(PG_GETARG_DATUM(1), &value);
	inner->args[1].value = Int64GetDatum(value);
	result = fn(inner);
	fcinfo->isnull = inner->isnull;
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
static inline Datum
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
