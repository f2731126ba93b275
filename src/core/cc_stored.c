/*
 * cc_stored.c
 *	  The stored form of counter_crdt: how a value lies in a table, after
 *	  PostgreSQL's varlena header.  Two layouts, told apart by their first
 *	  byte (cc_stored.h has the byte map); the library reads both forever and
 *	  writes version 2.  Nothing here allocates: narrow shards are widened
 *	  into the caller's buffer, and a value is packed where it was built.
 */
#include "cc_stored.h"

static bool
cc_fits_narrow(const cc_shard *s)
{
	return s->clock <= (int64_t) UINT32_MAX &&
		s->value >= INT32_MIN && s->value <= INT32_MAX;
}

/* A narrow shard: id, clock as uint32, value as int32, native order. */
static void
cc_store_narrow(unsigned char *base, size_t i, const cc_shard *s)
{
	unsigned char *p = base + i * CC_NARROW_SHARD_SIZE;
	uint32_t	clock = (uint32_t) s->clock;
	int32_t		value = (int32_t) s->value;

	memcpy(p, s->id, CC_ID_LEN);
	memcpy(p + CC_ID_LEN, &clock, sizeof(clock));
	memcpy(p + CC_ID_LEN + sizeof(clock), &value, sizeof(value));
}

static cc_code
cc_stored_corrupt(cc_error *err, const unsigned char *data, size_t len,
				  const char *what)
{
	return cc_fail(err, CC_ERR_BINARY,
				   "%s (%zu bytes, header %02x %02x %02x %02x).", what, len,
				   len > 0 ? data[0] : 0, len > 1 ? data[1] : 0,
				   len > 2 ? data[2] : 0, len > 3 ? data[3] : 0);
}

/* Version 1, and every header that is no value's. */
static cc_code
cc_stored_open_v1(const unsigned char *data, size_t len, cc_stored *s,
				  cc_error *err)
{
	if (len < CC_STORED_V1_HEADER || data[2] != 0 || data[3] != 0)
		return cc_stored_corrupt(err, data, len, "The header is not one of a stored value");
	if (data[0] == CC_STORED_V2)
		return cc_stored_corrupt(err, data, len, "A version 2 header is short");
	if (data[0] != CC_STORED_V1)
		return cc_stored_corrupt(err, data, len, "Unknown layout version");
	if (data[1] & ~CC_STORED_FLAG_TOMBSTONE)
		return cc_stored_corrupt(err, data, len, "Unknown flags in a version 1 value");
	len -= CC_STORED_V1_HEADER;
	if (len % CC_SHARD_SIZE != 0)
		return cc_stored_corrupt(err, data, len + CC_STORED_V1_HEADER,
								 "The shards do not fill the value");
	s->tombstone = data[1] != 0;
	if (s->tombstone && len != 0)
		return cc_stored_corrupt(err, data, len + CC_STORED_V1_HEADER,
								 "A tombstone has shards, flags or a total");
	s->shards = data + CC_STORED_V1_HEADER;
	s->n = len / CC_SHARD_SIZE;
	s->narrow = false;
	s->total_kept = false;
	s->overflow = false;
	s->total = 0;
	return CC_OK;
}

/*
 * The 12 bytes of a version 2 header, which a prefix reader has on their
 * own: everything but the shards is filled in.
 */
static cc_code
cc_stored_header_v2(const unsigned char *data, size_t len, cc_stored *s,
					cc_error *err)
{
	const uint8_t known = CC_STORED_FLAG_TOMBSTONE | CC_STORED_FLAG_OVERFLOW |
		CC_STORED_FLAG_NARROW;
	uint8_t		flags;

	if (len < CC_STORED_HEADER || data[0] != CC_STORED_V2 ||
		data[2] != 0 || data[3] != 0)
		return cc_stored_open_v1(data, len, s, err);
	flags = data[1];
	memcpy(&s->total, data + CC_STORED_V1_HEADER, sizeof(s->total));
	s->tombstone = (flags & CC_STORED_FLAG_TOMBSTONE) != 0;
	s->overflow = (flags & CC_STORED_FLAG_OVERFLOW) != 0;
	s->narrow = (flags & CC_STORED_FLAG_NARROW) != 0;
	s->total_kept = true;
	s->shards = NULL;
	s->n = 0;
	if (flags & ~known)
		return cc_stored_corrupt(err, data, len, "Unknown flags in a version 2 value");
	if (s->overflow && (s->total != 0 || s->narrow))
		return cc_stored_corrupt(err, data, len, "A total out of range is stored with a number or narrow shards");
	if (s->tombstone && (flags != CC_STORED_FLAG_TOMBSTONE || s->total != 0))
		return cc_stored_corrupt(err, data, len, "A tombstone has flags or a total");
	return CC_OK;
}

/* Every check, with a sentence for each failure (cc_stored_open's slow path). */
cc_code
cc_stored_open_checked(const unsigned char *data, size_t len, cc_stored *s,
					   cc_error *err)
{
	size_t		size;
	size_t		body;
	cc_code		rc = cc_stored_header_v2(data, len, s, err);

	if (rc != CC_OK || data[0] != CC_STORED_V2)
		return rc;				/* a failure, or version 1 */
	body = len - CC_STORED_HEADER;
	size = s->narrow ? CC_NARROW_SHARD_SIZE : CC_SHARD_SIZE;
	if (body % size != 0)
		return cc_stored_corrupt(err, data, len, "The shards do not fill the value");
	if (s->tombstone && body != 0)
		return cc_stored_corrupt(err, data, len, "A tombstone has shards");
	if (s->narrow && body == 0)
		return cc_stored_corrupt(err, data, len, "Narrow shards are flagged, but there are none");
	s->shards = data + CC_STORED_HEADER;
	s->n = body / size;
	return CC_OK;
}

cc_code
cc_stored_prefix(const unsigned char *data, size_t avail, cc_stored *s,
				 cc_error *err)
{
	if (avail >= 1 && data[0] == CC_STORED_V2)
		return cc_stored_header_v2(data, avail, s, err);
	return cc_stored_open_checked(data, avail, s, err);
}

void
cc_stored_widen(const cc_stored *s, unsigned char *out)
{
	if (!s->narrow)
	{
		memcpy(out, s->shards, s->n * CC_SHARD_SIZE);
		return;
	}
	/* field by field: no staging record, whose reread would stall */
	for (size_t i = 0; i < s->n; i++)
	{
		const unsigned char *p = s->shards + i * CC_NARROW_SHARD_SIZE;
		unsigned char *q = out + i * CC_SHARD_SIZE;
		uint32_t	clock;
		int32_t		value;
		int64_t		wide;

		memcpy(q, p, CC_ID_LEN);
		memcpy(&clock, p + CC_ID_LEN, sizeof(clock));
		memcpy(&value, p + CC_ID_LEN + sizeof(clock), sizeof(value));
		wide = clock;
		memcpy(q + CC_ID_LEN, &wide, sizeof(wide));
		wide = value;
		memcpy(q + CC_ID_LEN + sizeof(wide), &wide, sizeof(wide));
	}
}

size_t
cc_stored_pack(unsigned char *data, size_t n, bool tombstone)
{
	unsigned char *shards = data + CC_STORED_HEADER;
	int64_t		total = 0;
	uint8_t		flags = 0;
	bool		narrow = true;

	if (tombstone)
		flags = CC_STORED_FLAG_TOMBSTONE;
	else
	{
		if (cc_sum(shards, n, &total, NULL) != CC_OK)
		{
			flags |= CC_STORED_FLAG_OVERFLOW;
			total = 0;
		}
		for (size_t i = 0; i < n && narrow; i++)
		{
			cc_shard	sh;

			cc_load(shards, i, &sh);
			narrow = cc_fits_narrow(&sh);
		}
		if (narrow && n > 0)
		{
			flags |= CC_STORED_FLAG_NARROW;
			/* front to back: record i lands at or before where it was read */
			for (size_t i = 0; i < n; i++)
			{
				cc_shard	sh;

				cc_load(shards, i, &sh);
				cc_store_narrow(shards, i, &sh);
			}
		}
	}
	data[0] = CC_STORED_V2;
	data[1] = flags;
	data[2] = 0;
	data[3] = 0;
	memcpy(data + CC_STORED_V1_HEADER, &total, sizeof(total));
	if (tombstone)
		return CC_STORED_HEADER;
	return CC_STORED_HEADER +
		n * ((flags & CC_STORED_FLAG_NARROW) ? CC_NARROW_SHARD_SIZE : CC_SHARD_SIZE);
}
