/*
 * digest.c
 *	  The digests of counter_crdt: counter_crdt_digest(c), the SHA-256 of
 *	  one value, and counter_crdt_digest_agg(key, c), a digest of a table's
 *	  (key, state) rows that two servers compare to tell whether they hold
 *	  the same set.  Both hash through hashing.c.
 *
 * The aggregate's state is the sum modulo 2^256 of one SHA-256 per row
 * (cc_row_hash() and cc_sum256 in the core).  A sum does not depend on the
 * order of the rows or on how a parallel plan splits them, and unlike an
 * exclusive or it counts a duplicated row twice.  It is 32 bytes in the
 * aggregate's memory context, added to in place: a row costs one hash and no
 * allocation.  Between processes the state is a version byte followed by the
 * sum's 32 big-endian bytes.
 *
 * Keys are hashed as UTF-8, so that servers with different encodings agree.
 */
#include "base/datum.h"
#include "base/hashing.h"

#include "mb/pg_wchar.h"

#include "core/cc_digest.h"

/*
 * The SHA-256 of a value's shards and tombstone flag, never of its layout:
 * equal states give equal digests.
 */
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

#define CC_DIGEST_AGG_VERSION 1
#define CC_DIGEST_AGG_SERIAL_LEN (1 + CC_DIGEST_LEN)

static MemoryContext
cc_digest_agg_context(FunctionCallInfo fcinfo)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "counter_crdt_digest_agg support function called in non-aggregate context");
	return aggcontext;
}

static cc_sum256 *
cc_digest_agg_new(MemoryContext aggcontext)
{
	return MemoryContextAllocZero(aggcontext, sizeof(cc_sum256));
}

PG_FUNCTION_INFO_V1(counter_crdt_digest_agg_trans);
Datum
counter_crdt_digest_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = cc_digest_agg_context(fcinfo);
	cc_sum256  *st;
	text	   *key;
	const char *k;
	size_t		klen;
	char	   *conv;
	cc_stored	s;
	uint8_t		h[CC_DIGEST_LEN];
	cc_hasher  *hasher = cc_hasher_of_call(fcinfo, CC_HASH_SHA256);
	cc_hash_sink sink;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("counter_crdt_digest_agg key must not be null"),
				 errhint("Give every row a key, such as the primary key as text.")));
	st = PG_ARGISNULL(0) ? cc_digest_agg_new(aggcontext)
		: (cc_sum256 *) PG_GETARG_POINTER(0);

	key = PG_GETARG_TEXT_PP(1);
	k = VARDATA_ANY(key);
	klen = VARSIZE_ANY_EXHDR(key);
	conv = pg_server_to_any(k, (int) klen, PG_UTF8);
	if (conv != k)
	{
		k = conv;
		klen = strlen(conv);
	}

	cc_hasher_start(hasher, &sink);
	if (PG_ARGISNULL(2))
		cc_row_hash_input_stored(&sink, k, klen, NULL);
	else
	{
		cc_datum_stored(PG_GETARG_DATUM(2), &s);
		cc_row_hash_input_stored(&sink, k, klen, &s);
	}
	cc_hasher_finish(hasher, h);
	cc_sum256_add_hash(st, h);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(counter_crdt_digest_agg_combine);
Datum
counter_crdt_digest_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = cc_digest_agg_context(fcinfo);
	cc_sum256  *st1 = PG_ARGISNULL(0) ? NULL : (cc_sum256 *) PG_GETARG_POINTER(0);
	cc_sum256  *st2 = PG_ARGISNULL(1) ? NULL : (cc_sum256 *) PG_GETARG_POINTER(1);

	if (st2 == NULL)
	{
		if (st1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st1);
	}
	/* The result must live in our aggregate context: copy, never adopt. */
	if (st1 == NULL)
		st1 = cc_digest_agg_new(aggcontext);
	cc_sum256_add(st1, st2);
	PG_RETURN_POINTER(st1);
}

/* The 32 bytes of the sum; no rows (no state) give 32 zero bytes. */
PG_FUNCTION_INFO_V1(counter_crdt_digest_agg_final);
Datum
counter_crdt_digest_agg_final(PG_FUNCTION_ARGS)
{
	bytea	   *result = palloc0(VARHDRSZ + CC_DIGEST_LEN);

	SET_VARSIZE(result, VARHDRSZ + CC_DIGEST_LEN);
	if (!PG_ARGISNULL(0))
		cc_sum256_to_bytes((cc_sum256 *) PG_GETARG_POINTER(0),
						   (uint8_t *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

PG_FUNCTION_INFO_V1(counter_crdt_digest_agg_serial);
Datum
counter_crdt_digest_agg_serial(PG_FUNCTION_ARGS)
{
	cc_sum256  *st = (cc_sum256 *) PG_GETARG_POINTER(0);
	bytea	   *result = palloc(VARHDRSZ + CC_DIGEST_AGG_SERIAL_LEN);
	unsigned char *p = (unsigned char *) VARDATA(result);

	cc_digest_agg_context(fcinfo);
	SET_VARSIZE(result, VARHDRSZ + CC_DIGEST_AGG_SERIAL_LEN);
	p[0] = CC_DIGEST_AGG_VERSION;
	cc_sum256_to_bytes(st, p + 1);
	PG_RETURN_BYTEA_P(result);
}

PG_FUNCTION_INFO_V1(counter_crdt_digest_agg_deserial);
Datum
counter_crdt_digest_agg_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = cc_digest_agg_context(fcinfo);
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	const unsigned char *p = (const unsigned char *) VARDATA_ANY(b);
	size_t		len = VARSIZE_ANY_EXHDR(b);
	cc_sum256  *st;

	if (len != CC_DIGEST_AGG_SERIAL_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid counter_crdt_digest_agg state"),
				 errdetail("The state is %zu bytes long; it must be %d.",
						   len, CC_DIGEST_AGG_SERIAL_LEN)));
	if (p[0] != CC_DIGEST_AGG_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid counter_crdt_digest_agg state"),
				 errdetail("State format version %u is not supported; this build reads version %d.",
						   (unsigned) p[0], CC_DIGEST_AGG_VERSION)));
	st = cc_digest_agg_new(aggcontext);
	cc_sum256_from_bytes(st, p + 1);
	PG_RETURN_POINTER(st);
}
