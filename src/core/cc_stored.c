/*
 * cc_stored.c
 *	  The stored form of counter_crdt: how a value lies in a table, after
 *	  PostgreSQL's varlena header.  Three versions, told apart by their
 *	  first byte (cc_stored.h has the byte map); the library reads all of
 *	  them forever and writes version 3 (version 2 for tombstones and totals
 *	  outside bigint).  Nothing here allocates: packed shards are widened
 *	  into the caller's buffer, and a value is packed where it was built.
 */
#include "cc_stored.h"

/*
 * What a layout must hold: the largest clock (as unsigned, so that a
 * negative one takes 8 bytes) and the smallest and largest value.  Empty,
 * it asks for the narrowest layout, which is what {} is written with.
 */
typedef struct cc_ranges
{
	uint64_t	clock;
	int64_t		vmin;
	int64_t		vmax;
} cc_ranges;

static inline void
cc_ranges_add(cc_ranges *r, int64_t clock, int64_t value)
{
	if ((uint64_t) clock > r->clock)
		r->clock = (uint64_t) clock;
	if (value < r->vmin)
		r->vmin = value;
	if (value > r->vmax)
		r->vmax = value;
}

/* The narrowest layout that holds the ranges (width codes: cc_stored.h). */
static uint8_t
cc_lay_of(const cc_ranges *r)
{
	unsigned int c = r->clock <= UINT8_MAX ? 1 : r->clock <= UINT16_MAX ? 2 :
		r->clock <= UINT32_MAX ? 3 : 0;
	unsigned int v = (r->vmin >= INT8_MIN && r->vmax <= INT8_MAX) ? 1 :
		(r->vmin >= INT16_MIN && r->vmax <= INT16_MAX) ? 2 :
		(r->vmin >= INT32_MIN && r->vmax <= INT32_MAX) ? 3 : 0;

	return (uint8_t) (c | v << 2);
}

static void
cc_put_width(unsigned char *p, unsigned int code, int64_t x)
{
	switch (code)
	{
		case 0:
			memcpy(p, &x, 8);
			break;
		case 1:
			{
				uint8_t		v = (uint8_t) x;

				memcpy(p, &v, 1);
				break;
			}
		case 2:
			{
				uint16_t	v = (uint16_t) x;

				memcpy(p, &v, 2);
				break;
			}
		default:
			{
				uint32_t	v = (uint32_t) x;

				memcpy(p, &v, 4);
				break;
			}
	}
}

/* Record i of layout lay: id, clock, value, native order, no padding. */
static void
cc_store_lay(unsigned char *base, size_t i, uint8_t lay, const cc_shard *s)
{
	unsigned char *p = base + i * cc_lay_size(lay);

	if (lay == CC_LAY_WIDE)
	{
		cc_store(base, i, s);
		return;
	}
	memcpy(p, s->id, CC_ID_LEN);
	cc_put_width(p + CC_ID_LEN, lay & 3, s->clock);
	cc_put_width(p + CC_ID_LEN + cc_lay_width(lay & 3), (lay >> 2) & 3,
				 s->value);
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
	s->lay = CC_LAY_WIDE;
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
	s->lay = (flags & CC_STORED_FLAG_NARROW) ? CC_LAY_NARROW : CC_LAY_WIDE;
	s->total_kept = true;
	s->shards = NULL;
	s->n = 0;
	s->folds = NULL;
	s->nf = 0;
	if (flags & ~known)
		return cc_stored_corrupt(err, data, len, "Unknown flags in a version 2 value");
	if (s->overflow && (s->total != 0 || s->lay != CC_LAY_WIDE))
		return cc_stored_corrupt(err, data, len, "A total out of range is stored with a number or narrow shards");
	if (s->tombstone && (flags != CC_STORED_FLAG_TOMBSTONE || s->total != 0))
		return cc_stored_corrupt(err, data, len, "A tombstone has flags or a total");
	if ((flags & CC_STORED_FLAG_FOLDS) && s->lay != CC_LAY_WIDE)
		return cc_stored_corrupt(err, data, len, "Fold records are stored with narrow shards");
	return CC_OK;
}

/*
 * A version 3 header, of at least avail bytes: everything but the shards is
 * filled in.
 */
static cc_code
cc_stored_header_v3(const unsigned char *data, size_t len, cc_stored *s,
					cc_error *err)
{
	memset(s, 0, sizeof(*s));
	if (len < CC_STORED_V3_HEADER)
		return cc_stored_corrupt(err, data, len, "A version 3 header is short");
	if (data[1] & ~(CC_LAY_MASK | CC_STORED_V3_TOTAL))
		return cc_stored_corrupt(err, data, len, "Unknown flags in a version 3 value");
	s->lay = data[1] & CC_LAY_MASK;
	if (data[1] & CC_STORED_V3_TOTAL)
	{
		if (len < CC_STORED_V3_HEADER + sizeof(s->total))
			return cc_stored_corrupt(err, data, len, "The total of a version 3 value is short");
		memcpy(&s->total, data + CC_STORED_V3_HEADER, sizeof(s->total));
		s->total_kept = true;
	}
	return CC_OK;
}

static cc_code
cc_stored_open_v3(const unsigned char *data, size_t len, cc_stored *s,
				  cc_error *err)
{
	size_t		head,
				size;
	cc_code		rc = cc_stored_header_v3(data, len, s, err);

	if (rc != CC_OK)
		return rc;
	head = CC_STORED_V3_HEADER + (s->total_kept ? sizeof(s->total) : 0);
	size = cc_lay_size(s->lay);
	if ((len - head) % size != 0)
		return cc_stored_corrupt(err, data, len, "The shards do not fill the value");
	s->shards = data + head;
	s->n = (len - head) / size;
	return CC_OK;
}

/* Every check, with a sentence for each failure (cc_stored_open's slow path). */
cc_code
cc_stored_open_checked(const unsigned char *data, size_t len, cc_stored *s,
					   cc_error *err)
{
	size_t		size;
	size_t		body;
	cc_code		rc;

	if (len > 0 && data[0] == CC_STORED_V3)
		return cc_stored_open_v3(data, len, s, err);
	rc = cc_stored_header_v2(data, len, s, err);
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
	size = cc_lay_size(s->lay);
	if (body % size != 0)
		return cc_stored_corrupt(err, data, len, "The shards do not fill the value");
	if (s->tombstone && body != 0)
		return cc_stored_corrupt(err, data, len, "A tombstone has shards");
	if (s->lay != CC_LAY_WIDE && body == 0)
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
	if (cc_stored_prefix_suffices(data, avail))
		return cc_stored_header_v3(data, avail, s, err);
	return cc_stored_open_checked(data, avail, s, err);
}

void
cc_stored_widen(const cc_stored *s, unsigned char *out)
{
	if (s->lay == CC_LAY_WIDE)
	{
		memcpy(out, s->shards, s->n * CC_SHARD_SIZE);
		return;
	}
	/* field by field: no staging record, whose reread would stall */
	for (size_t i = 0; i < s->n; i++)
	{
		const unsigned char *p = cc_stored_record(s->shards, i, s->lay);
		unsigned char *q = out + i * CC_SHARD_SIZE;
		int64_t		clock,
					value;

		memcpy(q, p, CC_ID_LEN);
		cc_stored_record_nums(p, s->lay, &clock, &value);
		memcpy(q + CC_ID_LEN, &clock, sizeof(clock));
		memcpy(q + CC_ID_LEN + sizeof(clock), &value, sizeof(value));
	}
}

/*
 * The exact sum of n records as they lie: false when it leaves int64 (each
 * overflow of the running sum wraps it by 2^64, as in cc_wide_sum()).
 */
static bool
cc_records_sum(const unsigned char *shards, size_t n, uint8_t lay,
			   int64_t *total)
{
	int64_t		sum = 0;
	int64_t		wraps = 0;

	for (size_t i = 0; i < n; i++)
	{
		int64_t		clock,
					value;

		cc_stored_record_nums(cc_stored_record(shards, i, lay), lay,
							  &clock, &value);
		if (__builtin_add_overflow(sum, value, &sum))
			wraps += (value > 0) ? 1 : -1;
	}
	*total = sum;
	return wraps == 0;
}

cc_code
cc_stored_sum(const unsigned char *shards, size_t n, uint8_t lay,
			  int64_t *out, cc_error *err)
{
	if (!cc_records_sum(shards, n, lay, out))
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The sum of the shard values leaves the bigint range.");
	return CC_OK;
}

/*
 * The header of a live value of n shards of layout lay and total (overflow
 * when it leaves bigint), written at data; returns its length.  Version 2
 * with wide shards when the total leaves bigint (lay must then be wide),
 * else version 3.
 */
static size_t
cc_put_v2_header(unsigned char *data, uint8_t flags)
{
	int64_t		zero = 0;

	data[0] = CC_STORED_V2;
	data[1] = flags;
	data[2] = 0;
	data[3] = 0;
	memcpy(data + CC_STORED_V1_HEADER, &zero, sizeof(zero));
	return CC_STORED_HEADER;
}

static size_t
cc_put_header(unsigned char *data, size_t n, uint8_t lay, bool overflow,
			  int64_t total)
{
	if (overflow)
		return cc_put_v2_header(data, CC_STORED_FLAG_OVERFLOW);
	data[0] = CC_STORED_V3;
	data[1] = lay;
	if (n <= CC_STORED_V3_SUMMED)
		return CC_STORED_V3_HEADER;
	data[1] |= CC_STORED_V3_TOTAL;
	memcpy(data + CC_STORED_V3_HEADER, &total, sizeof(total));
	return CC_STORED_V3_HEADER + sizeof(total);
}

/* Where a live value's shards start, by what cc_put_header() writes. */
static size_t
cc_header_size(size_t n, bool overflow)
{
	if (overflow)
		return CC_STORED_HEADER;
	return CC_STORED_V3_HEADER + (n > CC_STORED_V3_SUMMED ? sizeof(int64_t) : 0);
}

uint8_t
cc_stored_narrowest(const cc_stored *s)
{
	cc_ranges	r = {0, 0, 0};

	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_stored_shard(s, i, &sh);
		cc_ranges_add(&r, sh.clock, sh.value);
	}
	return cc_lay_of(&r);
}

size_t
cc_stored_pack(unsigned char *data, size_t n, bool tombstone)
{
	const unsigned char *shards = data + CC_STORED_HEADER;
	int64_t		total = 0;
	uint8_t		lay;
	bool		overflow;
	size_t		head;

	if (tombstone)
		return cc_put_v2_header(data, CC_STORED_FLAG_TOMBSTONE);
	overflow = cc_sum(shards, n, &total, NULL) != CC_OK;
	if (overflow)
		lay = CC_LAY_WIDE;
	else
	{
		cc_ranges	r = {0, 0, 0};

		for (size_t i = 0; i < n; i++)
		{
			cc_shard	sh;

			cc_load(shards, i, &sh);
			cc_ranges_add(&r, sh.clock, sh.value);
		}
		lay = cc_lay_of(&r);
	}
	head = cc_header_size(n, overflow);
	if (lay != CC_LAY_WIDE || head != CC_STORED_HEADER)
	{
		/*
		 * Front to back: record i lands at or before where it was read, and
		 * is read whole before it is written.
		 */
		for (size_t i = 0; i < n; i++)
		{
			cc_shard	sh;

			cc_load(shards, i, &sh);
			cc_store_lay(data + head, i, lay, &sh);
		}
	}
	cc_put_header(data, n, lay, overflow, total);
	return head + n * cc_lay_size(lay);
}

bool
cc_stored_find(const cc_stored *s, const uint8_t *id, size_t *pos,
			   cc_shard *sh)
{
	size_t		i = 0;
	bool		found = false;

	for (; i < s->n; i++)
	{
		const unsigned char *p = cc_stored_record(s->shards, i, s->lay);
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
		cc_stored_record_nums(cc_stored_record(s->shards, i, s->lay),
							  s->lay, &sh->clock, &sh->value);
	*pos = i;
	return found;
}

/* count records from one layout to another: copied as they lie when alike */
static void
cc_copy_records(const unsigned char *from, uint8_t from_lay, size_t count,
				unsigned char *to, uint8_t to_lay)
{
	if (from_lay == to_lay)
	{
		memcpy(to, from, count * cc_lay_size(to_lay));
		return;
	}
	for (size_t i = 0; i < count; i++)
	{
		cc_shard	sh;
		const unsigned char *p = cc_stored_record(from, i, from_lay);

		memcpy(sh.id, p, CC_ID_LEN);
		cc_stored_record_nums(p, from_lay, &sh.clock, &sh.value);
		cc_store_lay(to, i, to_lay, &sh);
	}
}

size_t
cc_stored_put(const cc_stored *s, size_t pos, bool replace,
			  const cc_shard *sh, unsigned char *out)
{
	size_t		skip = replace ? 1 : 0;
	size_t		n = s->n - skip + 1;
	size_t		from = cc_lay_size(s->lay);
	const unsigned char *after = s->shards + (pos + skip) * from;
	bool		kept = s->total_kept && !s->overflow;
	cc_ranges	r = {0, 0, 0};
	uint8_t		lay;
	int64_t		total = kept ? s->total : 0;
	int64_t		wraps = 0;
	size_t		head,
				to;
	unsigned char *shards;

	/*
	 * The narrowest layout that holds every resulting shard, and their
	 * exact total: the kept one moved by the shard's change, else the walk
	 * of the resulting shards.
	 */
	cc_ranges_add(&r, sh->clock, sh->value);
	if (__builtin_add_overflow(total, sh->value, &total))
		wraps += (sh->value > 0) ? 1 : -1;
	for (size_t i = 0; i < s->n; i++)
	{
		int64_t		clock,
					value;

		cc_stored_record_nums(s->shards + i * from, s->lay, &clock, &value);
		if (replace && i == pos)
		{
			if (kept && __builtin_sub_overflow(total, value, &total))
				wraps += (value < 0) ? 1 : -1;
			continue;
		}
		cc_ranges_add(&r, clock, value);
		if (!kept && __builtin_add_overflow(total, value, &total))
			wraps += (value > 0) ? 1 : -1;
	}
	lay = wraps != 0 ? CC_LAY_WIDE : cc_lay_of(&r);
	head = cc_header_size(n, wraps != 0);
	to = cc_lay_size(lay);
	shards = out + head;
	cc_copy_records(s->shards, s->lay, pos, shards, lay);
	cc_store_lay(shards, pos, lay, sh);
	cc_copy_records(after, s->lay, s->n - pos - skip, shards + (pos + 1) * to, lay);
	cc_put_header(out, n, lay, wraps != 0, total);
	return head + n * to;
}
