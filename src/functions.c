/*
 * functions.c
 *	  The digest of a value, equality and hashing.
 */
#include "counter_crdt.h"
#include "hashing.h"

#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

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

