/*
 * compare.c
 *	  Equality, hashing and order of counter_crdt: = and <>, the hash
 *	  support functions, and the btree operator class (<, <=, >, >=,
 *	  counter_crdt_cmp() and its sort support).
 *
 * = holds between equal states, and equal states hash alike.  The order is
 * cc_compare()'s: live counters by their exact value (also one that leaves
 * bigint), tombstones after them all, and counters of equal value by their
 * shards, then by their fold records (cc_fold_compare()), so that two
 * counters are equal in it exactly when = says so.  A comparison never
 * fails.
 */
#include "base/datum.h"

#include "common/hashfn.h"
#include "utils/sortsupport.h"

#include "core/cc_algebra.h"

/* Equality and hashes free what they read: hash joins call them in bulk. */
static bool
cc_datum_equal(FunctionCallInfo fcinfo)
{
	CcRead		a,
				b;
	bool		equal;

	cc_read_open(PG_GETARG_DATUM(0), &a);
	cc_read_open(PG_GETARG_DATUM(1), &b);
	if (a.nf == 0 && b.nf == 0)
		equal = cc_equal(a.v.shards, a.v.n, a.v.tombstone,
						 b.v.shards, b.v.n, b.v.tombstone);
	else
	{
		cc_folded	fa = cc_read_folded(&a),
					fb = cc_read_folded(&b);

		equal = cc_fold_compare(&fa, a.v.tombstone, &fb, b.v.tombstone) == 0;
	}
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
 * Hashes agree with equality: equal states have identical shard bytes (and
 * record bytes, hashed after them when there are records), and a tombstone
 * hashes apart from the empty live counter.
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
	if (r.nf > 0)
		h = UInt32GetDatum(hash_combine(DatumGetUInt32(h),
										DatumGetUInt32(hash_any(r.folds,
																(int) (r.nf * CC_FOLD_SIZE)))));
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
	if (r.nf > 0)
		h = UInt64GetDatum(hash_combine64(DatumGetUInt64(h),
										  DatumGetUInt64(hash_any_extended(r.folds,
																		   (int) (r.nf * CC_FOLD_SIZE),
																		   seed))));
	cc_read_close(&r);
	return h;
}

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
	if (ra.nf == 0 && rb.nf == 0)
		c = cc_compare(ra.v.shards, ra.v.n, ra.v.tombstone,
					   rb.v.shards, rb.v.n, rb.v.tombstone);
	else
	{
		cc_folded	fa = cc_read_folded(&ra),
					fb = cc_read_folded(&rb);

		c = cc_fold_compare(&fa, ra.v.tombstone, &fb, rb.v.tombstone);
	}
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
