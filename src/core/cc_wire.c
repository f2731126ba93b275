/*
 * cc_wire.c
 *	  The binary form: encoder and the checking decoder (cc_wire.h has the
 *	  byte table).
 */
#include "cc_wire.h"

void
cc_encode_stored(const cc_stored *s, unsigned char *buf)
{
	buf[0] = CC_WIRE_VERSION;
	buf[1] = s->tombstone ? CC_WIRE_FLAG_TOMBSTONE : 0;
	cc_put_be32(buf + 2, (uint32_t) s->n);
	buf += CC_WIRE_HEADER;
	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_stored_shard(s, i, &sh);
		cc_put_shard(buf + i * CC_SHARD_SIZE, &sh);
	}
}

void
cc_encode(const unsigned char *s, size_t n, bool tombstone, unsigned char *buf)
{
	cc_stored	st;

	cc_stored_of_records(s, n, tombstone, &st);
	cc_encode_stored(&st, buf);
}

cc_code
cc_decode_header(const unsigned char *buf, size_t len,
				 size_t *n, bool *tombstone, cc_error *err)
{
	uint32_t	count;

	if (len < CC_WIRE_HEADER)
		return cc_fail(err, CC_ERR_BINARY,
					   "The value is %zu byte%s long; the header alone takes %d.",
					   len, len == 1 ? "" : "s", CC_WIRE_HEADER);
	if (buf[0] != CC_WIRE_VERSION)
		return cc_fail(err, CC_ERR_BINARY,
					   "Format version %u is not supported; this build reads version %d.",
					   (unsigned) buf[0], CC_WIRE_VERSION);
	if (buf[1] & ~CC_WIRE_FLAG_TOMBSTONE)
		return cc_fail(err, CC_ERR_BINARY,
					   "Unknown flag bits 0x%02x are set.",
					   (unsigned) (buf[1] & ~CC_WIRE_FLAG_TOMBSTONE));
	count = cc_get_be32(buf + 2);
	/* Compare counts, not products, so that nothing can overflow. */
	if ((len - CC_WIRE_HEADER) % CC_SHARD_SIZE != 0 ||
		(len - CC_WIRE_HEADER) / CC_SHARD_SIZE != count)
		return cc_fail(err, CC_ERR_BINARY,
					   "The header announces %u shard%s but %zu byte%s of shard data follow%s.",
					   (unsigned) count, count == 1 ? "" : "s",
					   len - CC_WIRE_HEADER, len - CC_WIRE_HEADER == 1 ? "" : "s",
					   len - CC_WIRE_HEADER == 1 ? "s" : "");
	*tombstone = (buf[1] & CC_WIRE_FLAG_TOMBSTONE) != 0;
	if (*tombstone && count != 0)
		return cc_fail(err, CC_ERR_BINARY,
					   "A tombstone has no shards, but %u %s present.",
					   (unsigned) count, count == 1 ? "is" : "are");
	*n = count;
	return CC_OK;
}

cc_code
cc_decode_shards(const unsigned char *buf, size_t n, unsigned char *out,
				 cc_error *err)
{
	buf += CC_WIRE_HEADER;
	for (size_t i = 0; i < n; i++)
	{
		const unsigned char *p = buf + i * CC_SHARD_SIZE;
		cc_shard	sh;

		memcpy(sh.id, p, CC_ID_LEN);
		sh.clock = cc_get_be64(p + CC_ID_LEN);
		sh.value = cc_get_be64(p + CC_ID_LEN + 8);
		cc_store(out, i, &sh);
	}
	return cc_check_canonical(out, n, CC_ERR_BINARY, err);
}
