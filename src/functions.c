/*
 * functions.c
 *	  The digest of a value.
 */
#include "counter_crdt.h"
#include "hashing.h"

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

