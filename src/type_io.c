/*
 * type_io.c
 *	  Text and binary input and output of counter_crdt.
 *
 * The binary form (send/recv) is versioned and big-endian:
 *
 *	  version	1 byte, 1
 *	  flags		1 byte, 0x01 = tombstone; other bits must be zero
 *	  count		uint32, the number of shards (0 for a tombstone)
 *	  shards	count times: id (16 bytes), clock (int64), value (int64)
 *
 * with ids strictly ascending and clocks >= 1.  recv is reachable by any user
 * through COPY ... (FORMAT binary): it checks the length against the count
 * before it allocates, and checks every shard.
 */
#include "counter_crdt.h"

#include "libpq/pqformat.h"

PG_FUNCTION_INFO_V1(counter_crdt_in);
PG_FUNCTION_INFO_V1(counter_crdt_out);
PG_FUNCTION_INFO_V1(counter_crdt_recv);
PG_FUNCTION_INFO_V1(counter_crdt_send);

Datum
counter_crdt_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		len = strlen(str);
	size_t		n;
	bool		tombstone;
	unsigned char *shards;
	struct varlena *result;
	cc_error	err;

	result = cc_make(cc_parse_capacity(str, len), false, &shards);
	if (cc_parse(str, len, shards, &n, &tombstone, &err) != CC_OK)
		cc_report(&err, str);
	if (tombstone)
		((unsigned char *) VARDATA(result))[1] = CC_STORED_FLAG_TOMBSTONE;
	cc_finish(result, n);
	PG_RETURN_POINTER(result);
}

Datum
counter_crdt_out(PG_FUNCTION_ARGS)
{
	cc_view		v;
	char	   *buf;
	size_t		cap;

	cc_datum_view(PG_GETARG_DATUM(0), &v);
	cap = cc_format_capacity(v.n);
	if (cap > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value is too large for its text form"),
				 errdetail("The value has %zu shards.", v.n)));
	buf = palloc(cap);
	cc_format(v.shards, v.n, v.tombstone, buf);
	PG_RETURN_CSTRING(buf);
}

Datum
counter_crdt_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	const unsigned char *data = (const unsigned char *) buf->data + buf->cursor;
	size_t		len = (size_t) (buf->len - buf->cursor);
	size_t		n;
	bool		tombstone;
	unsigned char *shards;
	struct varlena *result;
	cc_error	err;

	if (cc_decode_header(data, len, &n, &tombstone, &err) != CC_OK)
		cc_report(&err, NULL);
	result = cc_make(n, tombstone, &shards);
	if (cc_decode_shards(data, n, shards, &err) != CC_OK)
		cc_report(&err, NULL);
	cc_finish(result, n);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(result);
}

Datum
counter_crdt_send(PG_FUNCTION_ARGS)
{
	cc_view		v;
	bytea	   *result;
	size_t		size;

	cc_datum_view(PG_GETARG_DATUM(0), &v);
	size = cc_wire_size(v.n);
	if (size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value is too large for its binary form"),
				 errdetail("The value has %zu shards.", v.n)));
	result = palloc(VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	cc_encode(v.shards, v.n, v.tombstone, (unsigned char *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}
