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
	s->folds = NULL;
	s->nf = 0;
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
		CC_STORED_FLAG_NARROW | CC_STORED_FLAG_FOLDS;
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
	s->folds = NULL;
	s->nf = 0;
	if (flags & ~known)
		return cc_stored_corrupt(err, data, len, "Unknown flags in a version 2 value");
	if (s->overflow && (s->total != 0 || s->narrow))
		return cc_stored_corrupt(err, data, len, "A total out of range is stored with a number or narrow shards");
	if (s->tombstone && (flags != CC_STORED_FLAG_TOMBSTONE || s->total != 0))
		return cc_stored_corrupt(err, data, len, "A tombstone has flags or a total");
	if ((flags & CC_STORED_FLAG_FOLDS) && s->narrow)
		return cc_stored_corrupt(err, data, len, "Fold records are stored with narrow shards");
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
	if (data[1] & CC_STORED_FLAG_FOLDS)
	{
		const unsigned char *p = data + CC_STORED_HEADER;
		uint32_t	nf,
					pad;

		if (body < CC_STORED_FOLDS_HEADER)
			return cc_stored_corrupt(err, data, len, "The fold records' count is missing");
		memcpy(&nf, p, sizeof(nf));
		memcpy(&pad, p + sizeof(nf), sizeof(pad));
		body -= CC_STORED_FOLDS_HEADER;
		if (nf == 0 || pad != 0 || nf > body / CC_FOLD_RECORD_SIZE)
			return cc_stored_corrupt(err, data, len, "The fold records' count does not fit the value");
		body -= (size_t) nf * CC_FOLD_RECORD_SIZE;
		if (body % CC_SHARD_SIZE != 0)
			return cc_stored_corrupt(err, data, len, "The shards do not fill the value");
		s->folds = p + CC_STORED_FOLDS_HEADER;
		s->nf = nf;
		s->shards = s->folds + (size_t) nf * CC_FOLD_RECORD_SIZE;
		s->n = body / CC_SHARD_SIZE;
		return CC_OK;
	}
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

bool
cc_stored_find(const cc_stored *s, const uint8_t *id, size_t *pos,
			   cc_shard *sh)
{
	size_t		i = 0;
	bool		found = false;

	for (; i < s->n; i++)
	{
		const unsigned char *p = cc_stored_record(s->shards, i, s->narrow);
		int			c = cc_id_cmp(p, id);

		if (c >= 0)
		{
			found = (c == 0);
			break;
		}
	}
	memcpy(sh->id, id, CC_ID_LEN);
	sh->clock = 0;
	sh->value = 0;
	if (found)
		cc_stored_record_nums(cc_stored_record(s->shards, i, s->narrow),
							  s->narrow, &sh->clock, &sh->value);
	*pos = i;
	return found;
}

/* count records from one layout to another: copied as they lie when alike */
static void
cc_copy_records(const unsigned char *from, bool from_narrow, size_t count,
				unsigned char *to, bool to_narrow)
{
	if (from_narrow == to_narrow)
	{
		memcpy(to, from, count * (to_narrow ? CC_NARROW_SHARD_SIZE : CC_SHARD_SIZE));
		return;
	}
	for (size_t i = 0; i < count; i++)
	{
		cc_shard	sh;

		memcpy(sh.id, cc_stored_record(from, i, from_narrow), CC_ID_LEN);
		cc_stored_record_nums(cc_stored_record(from, i, from_narrow),
							  from_narrow, &sh.clock, &sh.value);
		if (to_narrow)
			cc_store_narrow(to, i, &sh);
		else
			cc_store(to, i, &sh);
	}
}

/*
 * The exact sum of n records as they lie: false when it leaves int64 (each
 * overflow of the running sum wraps it by 2^64, as in cc_wide_sum()).
 */
static bool
cc_records_sum(const unsigned char *shards, size_t n, bool narrow,
			   int64_t *total)
{
	int64_t		sum = 0;
	int64_t		wraps = 0;

	for (size_t i = 0; i < n; i++)
	{
		int64_t		clock,
					value;

		cc_stored_record_nums(cc_stored_record(shards, i, narrow), narrow,
							  &clock, &value);
		if (__builtin_add_overflow(sum, value, &sum))
			wraps += (value > 0) ? 1 : -1;
	}
	*total = sum;
	return wraps == 0;
}

size_t
cc_stored_put(const cc_stored *s, size_t pos, bool replace,
			  const cc_shard *sh, unsigned char *out)
{
	unsigned char *shards = out + CC_STORED_HEADER;
	size_t		skip = replace ? 1 : 0;
	size_t		n = s->n - skip + 1;
	const unsigned char *after = cc_stored_record(s->shards, pos + skip, s->narrow);
	bool		narrow = cc_fits_narrow(sh);
	int64_t		total = 0;
	uint8_t		flags = 0;
	bool		fits;

	/* narrow exactly when every resulting shard fits, as cc_stored_pack() */
	if (narrow && !s->narrow)
		for (size_t i = 0; i < s->n && narrow; i++)
		{
			cc_shard	o;

			if (replace && i == pos)
				continue;
			cc_load(s->shards, i, &o);
			narrow = cc_fits_narrow(&o);
		}

	cc_copy_records(s->shards, s->narrow, pos, shards, narrow);
	if (narrow)
		cc_store_narrow(shards, pos, sh);
	else
		cc_store(shards, pos, sh);
	cc_copy_records(after, s->narrow, s->n - pos - skip,
					shards + (pos + 1) * (narrow ? CC_NARROW_SHARD_SIZE : CC_SHARD_SIZE),
					narrow);

	/*
	 * The kept total moves by the shard's change, exactly; a total that
	 * was out of range, or not kept (version 1), is walked again.
	 */
	if (s->total_kept && !s->overflow)
	{
		int64_t		wraps = 0;

		total = s->total;
		if (__builtin_add_overflow(total, sh->value, &total))
			wraps += (sh->value > 0) ? 1 : -1;
		if (replace)
		{
			int64_t		clock,
						old;

			cc_stored_record_nums(cc_stored_record(s->shards, pos, s->narrow),
								  s->narrow, &clock, &old);
			if (__builtin_sub_overflow(total, old, &total))
				wraps += (old < 0) ? 1 : -1;
		}
		fits = wraps == 0;
	}
	else
		fits = cc_records_sum(shards, n, narrow, &total);
	if (!fits)
	{
		flags |= CC_STORED_FLAG_OVERFLOW;
		total = 0;
	}
	if (narrow)
		flags |= CC_STORED_FLAG_NARROW;
	out[0] = CC_STORED_V2;
	out[1] = flags;
	out[2] = 0;
	out[3] = 0;
	memcpy(out + CC_STORED_V1_HEADER, &total, sizeof(total));
	return CC_STORED_HEADER +
		n * (narrow ? CC_NARROW_SHARD_SIZE : CC_SHARD_SIZE);
}
