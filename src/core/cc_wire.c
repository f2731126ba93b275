/*
 * cc_wire.c
 *	  The binary form: encoders (versions 1 and 2, and the compact version
 *	  3) and the checking decoder of all three (cc_wire.h has the byte
 *	  table).
 */
#include "cc_wire.h"

/*
 * A fold record in memory (cc_fold.h, native byte order): the two ids, then
 * tclock, aclock, avalue and absorbed as int64.  On the wire the ids are
 * the same bytes and the numbers big-endian.
 */
#define CC_FOLD_AT_NUMS		(2 * CC_ID_LEN)
#define CC_FOLD_NUMS		4

static void
cc_put_fold(unsigned char *p, const unsigned char *rec)
{
	memcpy(p, rec, CC_FOLD_AT_NUMS);
	for (int k = 0; k < CC_FOLD_NUMS; k++)
	{
		int64_t		v;

		memcpy(&v, rec + CC_FOLD_AT_NUMS + k * 8, sizeof(v));
		cc_put_be64(p + CC_FOLD_AT_NUMS + k * 8, v);
	}
}

void
cc_encode_stored(const cc_stored *s, unsigned char *buf)
{
	buf[0] = s->nf > 0 ? CC_WIRE_VERSION_FOLDED : CC_WIRE_VERSION;
	buf[1] = s->tombstone ? CC_WIRE_FLAG_TOMBSTONE : 0;
	cc_put_be32(buf + 2, (uint32_t) s->n);
	buf += CC_WIRE_HEADER;
	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_stored_shard(s, i, &sh);
		cc_put_shard(buf + i * CC_SHARD_SIZE, &sh);
	}
	if (s->nf == 0)
		return;
	buf += s->n * CC_SHARD_SIZE;
	cc_put_be32(buf, (uint32_t) s->nf);
	buf += CC_WIRE_FOLD_COUNT;
	for (size_t i = 0; i < s->nf; i++)
		cc_put_fold(buf + i * CC_FOLD_RECORD_SIZE,
					s->folds + i * CC_FOLD_RECORD_SIZE);
}

void
cc_encode(const unsigned char *s, size_t n, bool tombstone, unsigned char *buf)
{
	cc_stored	st;

	cc_stored_of_records(s, n, tombstone, &st);
	cc_encode_stored(&st, buf);
}

void
cc_encode_folded(const unsigned char *s, size_t n, const unsigned char *folds,
				 size_t nf, unsigned char *buf)
{
	cc_stored	st;

	cc_stored_of_records(s, n, false, &st);
	st.folds = folds;
	st.nf = nf;
	cc_encode_stored(&st, buf);
}

/* x, of width code (cc_stored.h), big-endian at p. */
static void
cc_put_be_width(unsigned char *p, unsigned int code, int64_t x)
{
	uint64_t	u = (uint64_t) x;

	switch (code)
	{
		case 0:
			cc_put_be64(p, x);
			break;
		case 1:
			p[0] = (unsigned char) u;
			break;
		case 2:
			p[0] = (unsigned char) (u >> 8);
			p[1] = (unsigned char) u;
			break;
		default:
			cc_put_be32(p, (uint32_t) u);
			break;
	}
}

/* The unsigned number of width code at p, big-endian. */
static uint64_t
cc_get_be_width(const unsigned char *p, unsigned int code)
{
	switch (code)
	{
		case 0:
			return (uint64_t) cc_get_be64(p);
		case 1:
			return p[0];
		case 2:
			return (uint64_t) p[0] << 8 | p[1];
		default:
			return cc_get_be32(p);
	}
}

/* The same, two's complement: sign-extended from its width. */
static int64_t
cc_get_be_width_signed(const unsigned char *p, unsigned int code)
{
	uint64_t	u = cc_get_be_width(p, code);
	unsigned int bits = 8 * (unsigned int) cc_lay_width(code);

	if (bits < 64 && (u >> (bits - 1)) != 0)
		u |= ~(uint64_t) 0 << bits;
	return (int64_t) u;
}

void
cc_encode_compact(const cc_stored *s, uint8_t lay, unsigned char *buf)
{
	size_t		size = cc_lay_size(lay);
	size_t		cw = cc_lay_width(lay & 3);

	buf[0] = CC_WIRE_VERSION_COMPACT;
	buf[1] = lay;
	buf += CC_WIRE_COMPACT_HEADER;
	for (size_t i = 0; i < s->n; i++)
	{
		unsigned char *p = buf + i * size;
		cc_shard	sh;

		cc_stored_shard(s, i, &sh);
		memcpy(p, sh.id, CC_ID_LEN);
		cc_put_be_width(p + CC_ID_LEN, lay & 3, sh.clock);
		cc_put_be_width(p + CC_ID_LEN + cw, (lay >> 2) & 3, sh.value);
	}
}

/*
 * The compact form's header and length: a layout byte without unknown bits,
 * then whole records, their count the quotient of the length.
 */
static cc_code
cc_decode_header_compact(const unsigned char *buf, size_t len, size_t *n,
						 cc_error *err)
{
	size_t		size,
				body;

	if (len < CC_WIRE_COMPACT_HEADER)
		return cc_fail(err, CC_ERR_BINARY,
					   "The value is %zu byte%s long; the header of format version %d takes %d.",
					   len, len == 1 ? "" : "s", CC_WIRE_VERSION_COMPACT,
					   CC_WIRE_COMPACT_HEADER);
	if (buf[1] & ~CC_LAY_MASK)
		return cc_fail(err, CC_ERR_BINARY,
					   "Unknown layout bits 0x%02x are set.",
					   (unsigned) (buf[1] & ~CC_LAY_MASK));
	size = cc_lay_size(buf[1]);
	body = len - CC_WIRE_COMPACT_HEADER;
	if (body % size != 0)
		return cc_fail(err, CC_ERR_BINARY,
					   "%zu byte%s of shard data %s not a whole number of %zu-byte records (layout 0x%02x).",
					   body, body == 1 ? "" : "s", body == 1 ? "is" : "are", size,
					   (unsigned) buf[1]);
	*n = body / size;
	return CC_OK;
}

/*
 * The header of any version, and the length against the counts: counts
 * are compared with quotients of the length, never multiplied first, so
 * that no size computation can overflow.  any false refuses versions 2
 * and 3.
 */
static cc_code
cc_decode_header_any(const unsigned char *buf, size_t len, bool any,
					 size_t *n, size_t *nf, bool *tombstone, cc_error *err)
{
	uint32_t	count,
				fcount;
	size_t		body,
				rest;

	if (len >= 1 && buf[0] == CC_WIRE_VERSION_COMPACT && any)
	{
		*tombstone = false;
		*nf = 0;
		return cc_decode_header_compact(buf, len, n, err);
	}
	if (len < CC_WIRE_HEADER)
		return cc_fail(err, CC_ERR_BINARY,
					   "The value is %zu byte%s long; the header alone takes %d.",
					   len, len == 1 ? "" : "s", CC_WIRE_HEADER);
	if (buf[0] != CC_WIRE_VERSION && buf[0] != CC_WIRE_VERSION_FOLDED &&
		buf[0] != CC_WIRE_VERSION_COMPACT)
		return cc_fail(err, CC_ERR_BINARY,
					   "Format version %u is not supported; this build reads versions %d, %d and %d.",
					   (unsigned) buf[0], CC_WIRE_VERSION, CC_WIRE_VERSION_FOLDED,
					   CC_WIRE_VERSION_COMPACT);
	if (buf[0] != CC_WIRE_VERSION && !any)
		return cc_fail(err, CC_ERR_BINARY,
					   buf[0] == CC_WIRE_VERSION_FOLDED ?
					   "Format version %u holds fold records, which this reader does not take." :
					   "Format version %u is the compact form, which this reader does not take.",
					   (unsigned) buf[0]);
	if (buf[1] & ~CC_WIRE_FLAG_TOMBSTONE)
		return cc_fail(err, CC_ERR_BINARY,
					   "Unknown flag bits 0x%02x are set.",
					   (unsigned) (buf[1] & ~CC_WIRE_FLAG_TOMBSTONE));
	count = cc_get_be32(buf + 2);
	body = len - CC_WIRE_HEADER;
	*tombstone = (buf[1] & CC_WIRE_FLAG_TOMBSTONE) != 0;
	if (buf[0] == CC_WIRE_VERSION)
	{
		if (body % CC_SHARD_SIZE != 0 || body / CC_SHARD_SIZE != count)
			return cc_fail(err, CC_ERR_BINARY,
						   "The header announces %u shard%s but %zu byte%s of shard data follow%s.",
						   (unsigned) count, count == 1 ? "" : "s",
						   body, body == 1 ? "" : "s", body == 1 ? "s" : "");
		if (*tombstone && count != 0)
			return cc_fail(err, CC_ERR_BINARY,
						   "A tombstone has no shards, but %u %s present.",
						   (unsigned) count, count == 1 ? "is" : "are");
		*n = count;
		*nf = 0;
		return CC_OK;
	}

	/* version 2: the shards, then the record count and the records */
	if (*tombstone)
		return cc_fail(err, CC_ERR_BINARY,
					   "A tombstone has no fold records, but format version %d is for values with them.",
					   CC_WIRE_VERSION_FOLDED);
	if (body / CC_SHARD_SIZE < count ||
		body - (size_t) count * CC_SHARD_SIZE < CC_WIRE_FOLD_COUNT)
		return cc_fail(err, CC_ERR_BINARY,
					   "The header announces %u shard%s but the value ends before its fold record count (%zu byte%s after the header).",
					   (unsigned) count, count == 1 ? "" : "s",
					   body, body == 1 ? "" : "s");
	rest = body - (size_t) count * CC_SHARD_SIZE - CC_WIRE_FOLD_COUNT;
	fcount = cc_get_be32(buf + CC_WIRE_HEADER + (size_t) count * CC_SHARD_SIZE);
	if (fcount == 0)
		return cc_fail(err, CC_ERR_BINARY,
					   "The fold record count is 0; format version %d is for values with fold records.",
					   CC_WIRE_VERSION_FOLDED);
	if (rest % CC_FOLD_RECORD_SIZE != 0 || rest / CC_FOLD_RECORD_SIZE != fcount)
		return cc_fail(err, CC_ERR_BINARY,
					   "The value announces %u fold record%s but %zu byte%s of record data follow%s.",
					   (unsigned) fcount, fcount == 1 ? "" : "s",
					   rest, rest == 1 ? "" : "s", rest == 1 ? "s" : "");
	*n = count;
	*nf = fcount;
	return CC_OK;
}

cc_code
cc_decode_header_folded(const unsigned char *buf, size_t len,
						size_t *n, size_t *nf, bool *tombstone, cc_error *err)
{
	return cc_decode_header_any(buf, len, true, n, nf, tombstone, err);
}

cc_code
cc_decode_header(const unsigned char *buf, size_t len,
				 size_t *n, bool *tombstone, cc_error *err)
{
	size_t		nf;

	return cc_decode_header_any(buf, len, false, n, &nf, tombstone, err);
}

cc_code
cc_decode_shards(const unsigned char *buf, size_t n, unsigned char *out,
				 cc_error *err)
{
	if (buf[0] == CC_WIRE_VERSION_COMPACT)
	{
		uint8_t		lay = buf[1];
		size_t		size = cc_lay_size(lay);
		size_t		cw = cc_lay_width(lay & 3);

		buf += CC_WIRE_COMPACT_HEADER;
		for (size_t i = 0; i < n; i++)
		{
			const unsigned char *p = buf + i * size;
			cc_shard	sh;

			memcpy(sh.id, p, CC_ID_LEN);
			sh.clock = (int64_t) cc_get_be_width(p + CC_ID_LEN, lay & 3);
			sh.value = cc_get_be_width_signed(p + CC_ID_LEN + cw, (lay >> 2) & 3);
			cc_store(out, i, &sh);
		}
		return cc_check_canonical(out, n, CC_ERR_BINARY, err);
	}
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

void
cc_decode_folds(const unsigned char *buf, size_t n, size_t nf,
				unsigned char *out)
{
	buf += CC_WIRE_HEADER + n * CC_SHARD_SIZE + CC_WIRE_FOLD_COUNT;
	for (size_t i = 0; i < nf; i++)
	{
		const unsigned char *p = buf + i * CC_FOLD_RECORD_SIZE;
		unsigned char *rec = out + i * CC_FOLD_RECORD_SIZE;

		memcpy(rec, p, CC_FOLD_AT_NUMS);
		for (int k = 0; k < CC_FOLD_NUMS; k++)
		{
			int64_t		v = cc_get_be64(p + CC_FOLD_AT_NUMS + k * 8);

			memcpy(rec + CC_FOLD_AT_NUMS + k * 8, &v, sizeof(v));
		}
	}
}
