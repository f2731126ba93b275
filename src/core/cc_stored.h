/*
 * cc_stored.h
 *	  The stored form: how a value lies in a table, after PostgreSQL's
 *	  varlena header.  This layer alone knows its bytes: the three
 *	  versions, the widths of a shard's numbers, and the kept total.
 *
 * Numbers are in the server's native byte order, as PostgreSQL stores its
 * own.
 *
 * Version 1 (written by 1.0 to 1.2, read forever):
 *	  version 1 | flags (0x01 tombstone) | 2 zero bytes |
 *	  shards of 32 bytes: id[16], clock int64, value int64
 *
 * Version 2 (written by 1.3 to 1.11; since 1.12 only for tombstones and
 * for values with fold records or a total outside bigint):
 *	  version 2 | flags | 2 zero bytes | total int64 |
 *	  shards of 32 bytes as in version 1, or of 24 with flag NARROW:
 *	  id[16], clock uint32, value int32
 *
 * Version 2 flags: 0x01 tombstone (no shards, total 0); 0x02 the exact sum
 * of the values leaves bigint (total 0, and reading the value is an error,
 * 22003); 0x04 narrow shards, set when there are shards and every clock
 * fits uint32 and every value int32; 0x08 fold records (since 1.5,
 * cc_fold.h), never with 0x04:
 *	  version 2 | flags | 2 zero bytes | total int64 |
 *	  record count uint32 | 4 zero bytes | records of 64 bytes | shards of 32
 * The total of a value with records is cc_fold_total(), not the shards' sum.
 *
 * Version 3 (written since 1.12 for every other value):
 *	  version 3 | layout | [total int64, when layout has 0x10] | shards
 * The layout's low 4 bits give the width of every shard's clock (bits 0-1)
 * and value (bits 2-3): code 0 is 8 bytes, 1 one byte, 2 two, 3 four
 * (CC_LAY_*; clocks unsigned, values signed), the narrowest that holds them
 * all; a shard is id[16], clock, value, with no padding.  The total is kept
 * (0x10) when there are more than CC_STORED_V3_SUMMED shards, so that a
 * read of a compressed or out-of-line value needs only a slice; fewer are
 * summed on read.  The sum always fits bigint.
 *
 * Ids stay 16 bytes, ascending, in every layout.
 */
#ifndef CC_STORED_H
#define CC_STORED_H

#include "cc_base.h"

/* for the reads of every row: inline whatever the compiler would choose */
#if defined(__GNUC__) || defined(__clang__)
#define CC_STORED_INLINE inline __attribute__((always_inline))
#else
#define CC_STORED_INLINE inline
#endif

#define CC_STORED_V1			1
#define CC_STORED_V2			2
#define CC_STORED_V3			3
#define CC_STORED_V1_HEADER		4
#define CC_STORED_HEADER		12
#define CC_STORED_FLAG_TOMBSTONE 0x01
#define CC_STORED_FLAG_OVERFLOW	0x02
#define CC_STORED_FLAG_NARROW	0x04
#define CC_STORED_FLAG_FOLDS	0x08
#define CC_NARROW_SHARD_SIZE	24
#define CC_STORED_FOLDS_HEADER	8
#define CC_FOLD_RECORD_SIZE		64
#define CC_STORED_V3_HEADER		2
#define CC_STORED_V3_TOTAL		0x10
#define CC_STORED_V3_SUMMED		16

/*
 * Record layouts: a clock width code in bits 0-1 and a value width code in
 * bits 2-3, code 0 being 8 bytes; wide (0) is the 32-byte record of
 * cc_base.h, narrow that of version 2.
 */
#define CC_LAY_WIDE				0x00
#define CC_LAY_NARROW			0x0F
#define CC_LAY_MASK				0x0F

static inline size_t
cc_lay_width(unsigned int code)
{
	static const uint8_t widths[4] = {8, 1, 2, 4};

	return widths[code & 3];
}

/*
 * The bytes of one record of layout lay: CC_ID_LEN and the widths of its
 * clock and value (a table: every read of a row asks for it).
 */
static inline size_t
cc_lay_size(uint8_t lay)
{
	static const uint8_t sizes[16] = {32, 25, 26, 28, 25, 18, 19, 21,
	26, 19, 20, 22, 28, 21, 22, 24};

	return sizes[lay & CC_LAY_MASK];
}

/* A stored value as read: its shards as they lie, and the kept total. */
typedef struct cc_stored
{
	const unsigned char *shards;	/* n records of layout lay */
	size_t		n;
	bool		tombstone;
	uint8_t		lay;			/* CC_LAY_*: CC_LAY_WIDE when 32-byte records */
	bool		total_kept;		/* total and overflow are kept */
	bool		overflow;
	int64_t		total;
	const unsigned char *folds;	/* nf fold records of 64 bytes (cc_fold.h) */
	size_t		nf;
} cc_stored;

/*
 * Record i of shards stored in layout lay: it starts with the shard's id,
 * in every layout, so that ids are compared where they lie.
 */
static inline const unsigned char *
cc_stored_record(const unsigned char *shards, size_t i, uint8_t lay)
{
	return shards + i * cc_lay_size(lay);
}

/* The clock and value of the record at p, of layout lay. */
static inline void
cc_stored_record_nums(const unsigned char *p, uint8_t lay,
					  int64_t *clock, int64_t *value)
{
	const unsigned char *q = p + CC_ID_LEN;

	switch (lay & 3)
	{
		case 0:
			memcpy(clock, q, sizeof(*clock));
			q += 8;
			break;
		case 1:
			*clock = q[0];
			q += 1;
			break;
		case 2:
			{
				uint16_t	c;

				memcpy(&c, q, sizeof(c));
				*clock = c;
				q += 2;
				break;
			}
		default:
			{
				uint32_t	c;

				memcpy(&c, q, sizeof(c));
				*clock = c;
				q += 4;
				break;
			}
	}
	switch ((lay >> 2) & 3)
	{
		case 0:
			memcpy(value, q, sizeof(*value));
			break;
		case 1:
			*value = (int8_t) q[0];
			break;
		case 2:
			{
				int16_t		v;

				memcpy(&v, q, sizeof(v));
				*value = v;
				break;
			}
		default:
			{
				int32_t		v;

				memcpy(&v, q, sizeof(v));
				*value = v;
				break;
			}
	}
}

/* Shard i of a stored value, whatever its layout. */
static inline void
cc_stored_shard(const cc_stored *s, size_t i, cc_shard *sh)
{
	if (s->lay == CC_LAY_WIDE)
		cc_load(s->shards, i, sh);
	else
	{
		const unsigned char *p = cc_stored_record(s->shards, i, s->lay);

		memcpy(sh->id, p, CC_ID_LEN);
		cc_stored_record_nums(p, s->lay, &sh->clock, &sh->value);
	}
}

/* n 32-byte records described as a stored value, for the *_stored calls. */
static inline void
cc_stored_of_records(const unsigned char *shards, size_t n, bool tombstone,
					 cc_stored *s)
{
	memset(s, 0, sizeof(*s));
	s->shards = shards;
	s->n = n;
	s->tombstone = tombstone;
}

/*
 * Checks the header and the length of a stored value of any version
 * (CC_ERR_BINARY when they are not a value's: corruption, since users never
 * write stored bytes) and describes it.  Shards are not walked.  Inline for
 * the version 3 and plain version 2 values that nearly every read meets;
 * anything else, and every failure, goes to cc_stored_open_checked(), which
 * says what is wrong.
 */
cc_code		cc_stored_open_checked(const unsigned char *data, size_t len,
								   cc_stored *s, cc_error *err);

static CC_STORED_INLINE cc_code
cc_stored_open(const unsigned char *data, size_t len, cc_stored *s,
			   cc_error *err)
{
	size_t		body;
	uint8_t		flags;

	if (len >= CC_STORED_V3_HEADER && data[0] == CC_STORED_V3 &&
		data[1] <= CC_LAY_MASK)
	{
		/* a version 3 value without a kept total: 32-bit division */
		uint32_t	size = (uint32_t) cc_lay_size(data[1]);

		body = len - CC_STORED_V3_HEADER;
		if (body > UINT32_MAX || (uint32_t) body % size != 0)
			return cc_stored_open_checked(data, len, s, err);
		s->n = (uint32_t) body / size;
		s->shards = data + CC_STORED_V3_HEADER;
		s->lay = data[1];
		s->tombstone = false;
		s->overflow = false;
		s->total_kept = false;
		s->total = 0;
		s->folds = NULL;
		s->nf = 0;
		return CC_OK;
	}
	body = len - CC_STORED_HEADER;
	if (len < CC_STORED_HEADER || data[0] != CC_STORED_V2 ||
		data[2] != 0 || data[3] != 0)
		return cc_stored_open_checked(data, len, s, err);
	flags = data[1];
	memcpy(&s->total, data + 4, sizeof(s->total));
	if (flags == CC_STORED_FLAG_NARROW && body != 0 &&
		body % CC_NARROW_SHARD_SIZE == 0)
		s->n = body / CC_NARROW_SHARD_SIZE;
	else if (flags == 0 && body % CC_SHARD_SIZE == 0)
		s->n = body / CC_SHARD_SIZE;
	else
		return cc_stored_open_checked(data, len, s, err);
	s->shards = data + CC_STORED_HEADER;
	s->lay = flags != 0 ? CC_LAY_NARROW : CC_LAY_WIDE;
	s->tombstone = false;
	s->overflow = false;
	s->total_kept = true;
	s->folds = NULL;
	s->nf = 0;
	return CC_OK;
}

/*
 * The same for the first bytes of a value whose header keeps the total (at
 * least CC_STORED_HEADER of them: what a detoast slice gives), checking the
 * header alone: tombstone, layout and total are filled, n is 0 and shards
 * NULL.  Other bytes are opened as a whole value.
 */
cc_code		cc_stored_prefix(const unsigned char *data, size_t avail,
							 cc_stored *s, cc_error *err);

/*
 * Whether the first avail bytes of a value (a slice of CC_STORED_HEADER of
 * them) are what cc_stored_prefix() reads on their own: a version 2
 * header, or a version 3 one with its total.
 */
static inline bool
cc_stored_prefix_suffices(const unsigned char *data, size_t avail)
{
	return (avail > 0 && data[0] == CC_STORED_V2) ||
		(avail >= CC_STORED_V3_HEADER + 8 && data[0] == CC_STORED_V3 &&
		 (data[1] & CC_STORED_V3_TOTAL) != 0);
}

/*
 * The narrowest layout (CC_LAY_*) that holds every shard of s, whatever the
 * layout they lie in: what cc_stored_pack() writes for them when their total
 * fits bigint, and the layout of their compact binary form (cc_wire.h).
 * 0x05 (one byte each) when there are none.
 */
uint8_t		cc_stored_narrowest(const cc_stored *s);

/* The n shards as 32-byte records in out (room for n), whatever the layout. */
void		cc_stored_widen(const cc_stored *s, unsigned char *out);

/*
 * The exact sum of the values of n records of layout lay, as they lie
 * (CC_ERR_OVERFLOW outside bigint).
 */
cc_code		cc_stored_sum(const unsigned char *shards, size_t n, uint8_t lay,
						  int64_t *out, cc_error *err);

/*
 * The sum of n records of layout lay whose values take at most 4 bytes,
 * where they lie; n at most CC_STORED_V3_SUMMED, so the sum cannot
 * overflow.  Only the width of the values decides the loop, so that a
 * value is a load and an add.
 */
static CC_STORED_INLINE int64_t
cc_stored_small_sum(const unsigned char *shards, size_t n, uint8_t lay)
{
	size_t		size = cc_lay_size(lay);
	const unsigned char *p = shards + CC_ID_LEN + cc_lay_width(lay & 3);
	int64_t		sum = 0;

	switch (lay >> 2)
	{
		case 1:
			for (; n > 0; n--, p += size)
				sum += (int8_t) p[0];
			break;
		case 2:
			for (; n > 0; n--, p += size)
			{
				int16_t		v;

				memcpy(&v, p, sizeof(v));
				sum += v;
			}
			break;
		default:
			for (; n > 0; n--, p += size)
			{
				int32_t		v;

				memcpy(&v, p, sizeof(v));
				sum += v;
			}
			break;
	}
	return sum;
}

/*
 * The exact sum of the values: the kept total, or the walk of the shards;
 * CC_ERR_OVERFLOW outside bigint.  Not for tombstones.  Inline: it is what
 * c::bigint does once per row.
 */
static inline cc_code
cc_stored_value(const cc_stored *s, int64_t *out, cc_error *err)
{
	if (!s->total_kept)
	{
		if ((s->lay >> 2) == 0 || s->n > CC_STORED_V3_SUMMED)
			return cc_stored_sum(s->shards, s->n, s->lay, out, err);
		*out = cc_stored_small_sum(s->shards, s->n, s->lay);
		return CC_OK;
	}
	if (s->overflow)
		return cc_fail(err, CC_ERR_OVERFLOW, s->nf > 0 ?
					   "The total of the shards and fold records leaves the bigint range." :
					   "The sum of the shard values leaves the bigint range.");
	*out = s->total;
	return CC_OK;
}

/*
 * The value of the version 3 value of len bytes at data that nearly every
 * read meets (no kept total, at most CC_STORED_V3_SUMMED records, values of
 * at most 4 bytes, so the sum cannot overflow), summed where it lies: true
 * and *out then, false for any other bytes (no error: the caller reads them
 * with cc_stored_open() and cc_stored_value(), which check them and say
 * what is wrong).  What it takes, cc_stored_open() takes, and
 * cc_stored_value() gives the same sum (cc_stored_small_sum()): c::bigint,
 * the comparisons and the value aggregates read every row through it.
 */
static CC_STORED_INLINE bool
cc_stored_v3_quick_sum(const unsigned char *data, size_t len, int64_t *out)
{
	uint32_t	size,
				body,
				n;
	unsigned int lay;

	if (len < CC_STORED_V3_HEADER || len > CC_STORED_V3_HEADER +
		CC_STORED_V3_SUMMED * CC_SHARD_SIZE || data[0] != CC_STORED_V3 ||
		(lay = data[1]) > CC_LAY_MASK || (lay >> 2) == 0)
		return false;
	size = (uint32_t) cc_lay_size((uint8_t) lay);
	body = (uint32_t) len - CC_STORED_V3_HEADER;
	n = body / size;
	if (n * size != body || n > CC_STORED_V3_SUMMED)
		return false;
	*out = cc_stored_small_sum(data + CC_STORED_V3_HEADER, n, (uint8_t) lay);
	return true;
}

/*
 * Packs a value built as CC_STORED_HEADER bytes of room and then n
 * canonical 32-byte records into the layout the library writes (version 3,
 * or version 2 for a tombstone or a total outside bigint), in place;
 * returns its length.
 */
size_t		cc_stored_pack(unsigned char *data, size_t n, bool tombstone);

/*
 * Finds the shard of id among a stored value's shards, where they lie:
 * returns true and its clock and value in *sh when it is there, false and
 * (id, 0, 0) when not; *pos is its index, or the index where it goes.
 */
bool		cc_stored_find(const cc_stored *s, const uint8_t *id, size_t *pos,
						   cc_shard *sh);

/*
 * Writes into out (room for CC_STORED_BUILD_SIZE(s->n + 1) bytes) the live
 * value of s's shards with sh at pos: in place of shard pos when
 * replace, else in front of it (sh's id must keep the ids ascending).  The
 * other shards are copied as they lie, converted only when the layout
 * changes, and layout and total are what cc_stored_pack() would write for
 * the resulting shards.  Returns the value's length.  s is not a tombstone.
 */
size_t		cc_stored_put(const cc_stored *s, size_t pos, bool replace,
						  const cc_shard *sh, unsigned char *out);

/*
 * Building a value in CC_STORED_BUILD_SIZE(capacity) bytes of room:
 * cc_stored_build_start() writes its header and returns where its 32-byte
 * records go; cc_stored_build_tombstone() makes it a tombstone until it is
 * finished; cc_stored_build_finish() packs the first n records written and
 * returns the value's length.
 */
#define CC_STORED_BUILD_SIZE(capacity) \
	(CC_STORED_HEADER + (capacity) * CC_SHARD_SIZE)

static inline unsigned char *
cc_stored_build_start(unsigned char *data, bool tombstone)
{
	data[0] = CC_STORED_V2;
	data[1] = tombstone ? CC_STORED_FLAG_TOMBSTONE : 0;
	return data + CC_STORED_HEADER;
}

static inline void
cc_stored_build_tombstone(unsigned char *data)
{
	data[1] = CC_STORED_FLAG_TOMBSTONE;
}

static inline size_t
cc_stored_build_finish(unsigned char *data, size_t n)
{
	return cc_stored_pack(data, n, (data[1] & CC_STORED_FLAG_TOMBSTONE) != 0);
}

#endif							/* CC_STORED_H */
