/*
 * cc_wire.h
 *	  The binary form of counter_crdt (send/recv, binary COPY), versioned and
 *	  big-endian, whatever the machine and the stored layout.
 *
 * Version 1, every value without fold records (all values before 1.5):
 *
 *	  bytes		field
 *	  1			format version, 1
 *	  1			flags: 0x01 tombstone; other bits must be zero
 *	  4			shard count, uint32 (0 for a tombstone)
 *	  32 each	shards: id (16 bytes), clock (int64), value (int64)
 *
 * with ids strictly ascending and clocks >= 1.
 *
 * Version 2, a live value with fold records (cc_fold.h): version 1's bytes,
 * then the records.
 *
 *	  bytes		field
 *	  1			format version, 2
 *	  1			flags: zero (a tombstone has no records)
 *	  4			shard count, uint32
 *	  32 each	shards, as in version 1
 *	  4			fold record count, uint32, at least 1
 *	  64 each	records: retired id (16 bytes), target id (16 bytes),
 *				tclock, aclock, avalue, absorbed (int64 each)
 *
 * with records strictly ascending by (retired, target) and in agreement
 * with the shards (cc_fold_check()).  A value has one binary form: version 2
 * with records, version 1 without.
 *
 * The decoder is reachable by any user (COPY ... (FORMAT binary)): it checks
 * the length against the counts before the caller allocates (by division,
 * so that no product can overflow), then every shard (CC_ERR_BINARY,
 * 22P03).  The records are checked by cc_fold_check(), a layer above this
 * one: the caller's step after cc_decode_folds(), as in counter_crdt_recv.
 */
#ifndef CC_WIRE_H
#define CC_WIRE_H

#include "cc_stored.h"

/* Format versions of the binary layout. */
#define CC_WIRE_VERSION 1
#define CC_WIRE_VERSION_FOLDED 2
#define CC_WIRE_HEADER	6
#define CC_WIRE_FOLD_COUNT 4
#define CC_WIRE_FLAG_TOMBSTONE 0x01

/*
 * Big-endian numbers and the portable shard (id, then clock and value
 * big-endian), which the digest feed hashes as well.  Written out byte by
 * byte, not as loops: compilers turn the shifts into a byte swap and one
 * load or store where they can, and the loops into eight steps.
 */
static inline void
cc_put_be64(unsigned char *p, int64_t v)
{
	uint64_t	u = (uint64_t) v;

	p[0] = (unsigned char) (u >> 56);
	p[1] = (unsigned char) (u >> 48);
	p[2] = (unsigned char) (u >> 40);
	p[3] = (unsigned char) (u >> 32);
	p[4] = (unsigned char) (u >> 24);
	p[5] = (unsigned char) (u >> 16);
	p[6] = (unsigned char) (u >> 8);
	p[7] = (unsigned char) u;
}

static inline int64_t
cc_get_be64(const unsigned char *p)
{
	return (int64_t) ((uint64_t) p[0] << 56 | (uint64_t) p[1] << 48 |
					  (uint64_t) p[2] << 40 | (uint64_t) p[3] << 32 |
					  (uint64_t) p[4] << 24 | (uint64_t) p[5] << 16 |
					  (uint64_t) p[6] << 8 | (uint64_t) p[7]);
}

static inline void
cc_put_be32(unsigned char *p, uint32_t u)
{
	p[0] = (unsigned char) (u >> 24);
	p[1] = (unsigned char) (u >> 16);
	p[2] = (unsigned char) (u >> 8);
	p[3] = (unsigned char) u;
}

static inline uint32_t
cc_get_be32(const unsigned char *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static inline void
cc_put_shard(unsigned char *p, const cc_shard *sh)
{
	memcpy(p, sh->id, CC_ID_LEN);
	cc_put_be64(p + CC_ID_LEN, sh->clock);
	cc_put_be64(p + CC_ID_LEN + 8, sh->value);
}

static inline size_t
cc_wire_size(size_t n)
{
	return CC_WIRE_HEADER + n * CC_SHARD_SIZE;
}

/* The size of the binary form of n shards and nf fold records. */
static inline size_t
cc_wire_folded_size(size_t n, size_t nf)
{
	return nf == 0 ? cc_wire_size(n) :
		cc_wire_size(n) + CC_WIRE_FOLD_COUNT + nf * CC_FOLD_RECORD_SIZE;
}

/*
 * Writes the binary form of n shards (version 1); of a stored value as it
 * lies, its records included (cc_wire_folded_size(s->n, s->nf) bytes); of n
 * shards and nf canonical 64-byte fold records (cc_fold.h), a live value.
 */
void		cc_encode(const unsigned char *s, size_t n, bool tombstone,
					  unsigned char *buf);
void		cc_encode_stored(const cc_stored *s, unsigned char *buf);
void		cc_encode_folded(const unsigned char *s, size_t n,
							 const unsigned char *folds, size_t nf,
							 unsigned char *buf);

/*
 * Validates the header and the length of buf, of either version, before
 * anything is allocated: *n gets the shard count and *nf the record count
 * (0 in version 1), which fit len exactly.
 */
cc_code		cc_decode_header_folded(const unsigned char *buf, size_t len,
									size_t *n, size_t *nf, bool *tombstone,
									cc_error *err);

/* The same for a reader of version 1 only: version 2 is refused. */
cc_code		cc_decode_header(const unsigned char *buf, size_t len,
							 size_t *n, bool *tombstone, cc_error *err);

/* Decodes the n shards of a checked buffer into out, checking canonical form. */
cc_code		cc_decode_shards(const unsigned char *buf, size_t n,
							 unsigned char *out, cc_error *err);

/*
 * Decodes the nf records of a checked version 2 buffer of n shards into
 * out, as 64-byte records in native byte order (cc_fold.h's layout).
 * Nothing about them is checked here: cc_fold_check() is the caller's.
 */
void		cc_decode_folds(const unsigned char *buf, size_t n, size_t nf,
							unsigned char *out);

#endif							/* CC_WIRE_H */
