/*
 * compare_numbers.c
 *	  A counter compared with a number: c op n and n op c for =, <>, <, <=,
 *	  >, >= with n smallint, integer, bigint or numeric (SQL functions
 *	  counter_crdt_value_eq/ne/lt/le/gt/ge, one per type and side).
 *
 * They compare the counter's value as c::bigint reads it (cc_datum_value()):
 * the exact sum, fold records counted.  A tombstone has no value, so every
 * comparison with it is NULL (the functions are STRICT as well); a value
 * outside bigint cannot be read, so comparing it is an error (22003), as
 * c::bigint is.  Against numeric the value compares as numeric does (NaN
 * after every number, infinities where they belong).  = here is equality of
 * values; = between two counters stays equality of states (compare.c).
 */
#include "counter_crdt.h"
#include "value.h"

#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

/* The sign of value(counter) - n; false for a tombstone. */
static inline bool
cc_value_cmp_int(Datum counter, int64 n, int *sign)
{
	int64		v;

	if (!cc_datum_value(counter, &v))
		return false;
	*sign = (v > n) - (v < n);
	return true;
}

static bool
cc_value_cmp_numeric(Datum counter, Datum n, int *sign)
{
	int64		v;

	if (!cc_datum_value(counter, &v))
		return false;
	*sign = DatumGetInt32(DirectFunctionCall2(numeric_cmp,
											  NumericGetDatum(int64_to_numeric(v)),
											  n));
	return true;
}

#define CC_ARG_INT2(i) ((int64) PG_GETARG_INT16(i))
#define CC_ARG_INT4(i) ((int64) PG_GETARG_INT32(i))
#define CC_ARG_INT8(i) PG_GETARG_INT64(i)
#define CC_ARG_NUMERIC(i) PG_GETARG_DATUM(i)

/*
 * counter_crdt_value_<op>_<type>(c, n) is c op n, the sign of value - n
 * against 0; counter_crdt_<type>_<op>_value(n, c) is n op c, so 0 against
 * that same sign.
 */
#define CC_NUMBER_OP(op, OP, type, ARG, CMP) \
PG_FUNCTION_INFO_V1(counter_crdt_value_##op##_##type); \
Datum \
counter_crdt_value_##op##_##type(PG_FUNCTION_ARGS) \
{ \
	int			sign; \
\
	if (!CMP(PG_GETARG_DATUM(0), ARG(1), &sign)) \
		PG_RETURN_NULL(); \
	PG_RETURN_BOOL(sign OP 0); \
} \
PG_FUNCTION_INFO_V1(counter_crdt_##type##_##op##_value); \
Datum \
counter_crdt_##type##_##op##_value(PG_FUNCTION_ARGS) \
{ \
	int			sign; \
\
	if (!CMP(PG_GETARG_DATUM(1), ARG(0), &sign)) \
		PG_RETURN_NULL(); \
	PG_RETURN_BOOL(0 OP sign); \
}

#define CC_NUMBER_OPS(type, ARG, CMP) \
	CC_NUMBER_OP(eq, ==, type, ARG, CMP) \
	CC_NUMBER_OP(ne, !=, type, ARG, CMP) \
	CC_NUMBER_OP(lt, <, type, ARG, CMP) \
	CC_NUMBER_OP(le, <=, type, ARG, CMP) \
	CC_NUMBER_OP(gt, >, type, ARG, CMP) \
	CC_NUMBER_OP(ge, >=, type, ARG, CMP)

CC_NUMBER_OPS(int2, CC_ARG_INT2, cc_value_cmp_int)
CC_NUMBER_OPS(int4, CC_ARG_INT4, cc_value_cmp_int)
CC_NUMBER_OPS(int8, CC_ARG_INT8, cc_value_cmp_int)
CC_NUMBER_OPS(numeric, CC_ARG_NUMERIC, cc_value_cmp_numeric)
