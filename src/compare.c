/*
 * compare.c
 *	  The btree operator class of counter_crdt: <, <=, >, >=, the support
 *	  function counter_crdt_cmp() and its sort support.
 *
 * The order is cc_compare()'s: live counters by their exact value (also one
 * that leaves bigint), tombstones after them all, and counters of equal value
 * by their shards.  Two counters are equal in it exactly when they are equal
 * states, as = and the hash operator class say.  A comparison never fails.
 */
#include "counter_crdt.h"

#include "utils/sortsupport.h"

/*
 * Compares two values, freeing what reading them allocated: a sort or an
 * index build compares many times in one memory context.
 */
static int
cc_compare_datums(Datum a, Datum b)
{
	CcRead		ra,
				rb;
	int			c;

	cc_read_open(a, &ra);
	cc_read_open(b, &rb);
	c = cc_compare(ra.v.shards, ra.v.n, ra.v.tombstone,
				   rb.v.shards, rb.v.n, rb.v.tombstone);
	cc_read_close(&ra);
	cc_read_close(&rb);
	return c;
}

PG_FUNCTION_INFO_V1(counter_crdt_cmp);
Datum
counter_crdt_cmp(PG_FUNCTION_ARGS)
{
	int			c = cc_compare_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));

	/* btree wants the sign only; keep it to -1, 0, 1 for SQL callers */
	PG_RETURN_INT32((c > 0) - (c < 0));
}

PG_FUNCTION_INFO_V1(counter_crdt_lt);
Datum
counter_crdt_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cc_compare_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) < 0);
}

PG_FUNCTION_INFO_V1(counter_crdt_le);
Datum
counter_crdt_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cc_compare_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) <= 0);
}

PG_FUNCTION_INFO_V1(counter_crdt_gt);
Datum
counter_crdt_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cc_compare_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) > 0);
}

PG_FUNCTION_INFO_V1(counter_crdt_ge);
Datum
counter_crdt_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cc_compare_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) >= 0);
}

/* Sorts call the comparison directly, without the function-call layer. */
static int
cc_sort_compare(Datum a, Datum b, SortSupport ssup)
{
	return cc_compare_datums(a, b);
}

PG_FUNCTION_INFO_V1(counter_crdt_sortsupport);
Datum
counter_crdt_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = cc_sort_compare;
	PG_RETURN_VOID();
}
