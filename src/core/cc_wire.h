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
 * Version 3, the compact form of a live value without fold records (since
 * 1.12; written only when counter_crdt.binary_format is 'compact', since
 * earlier releases do not read it):
 *
 *	  bytes		field
 *	  1			format version, 3
 *	  1			layout: clock width code in bits 0-1, value width code in
 *				bits 2-3 (code 0 = 8 bytes, 1 = 1, 2 = 2, 3 = 4: the stored
 *				version 3's codes, cc_stored.h); other bits must be zero
 *	  each		records: id (16 bytes), clock (unsigned, big-endian, of the
 *				clock width), value (two's complement, big-endian, of the
 *				value width, sign-extended on read)
 *
 * with no count: the records are the rest of the value, whose length must be
 * a whole number of records (none: an empty live value).  Ids strictly
 * ascending and clocks >= 1, as in version 1 (an 8-byte clock of 2^63 or
 * more is a negative clock, refused).  The encoder writes the narrowest
 * layout that holds every shard (cc_stored_narrowest()); the decoder takes
 * any layout.  A tombstone and a value with fold records have no version 3
 * form: they are sent as version 1 or 2 whatever the setting.
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
#define CC_WIRE_VERSION_COMPACT 3
#define CC_WIRE_COMPACT_HEADER 2

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

/* The size of the compact form (version 3) of n shards in layout lay. */
static inline size_t
cc_wire_compact_size(size_t n, uint8_t lay)
{
	return CC_WIRE_COMPACT_HEADER + n * cc_lay_size(lay);
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
 * Writes the compact form (version 3) of the shards of s, a live value
 * without fold records, in layout lay (cc_wire_compact_size(s->n, lay)
 * bytes): lay must hold every shard, as cc_stored_narrowest(s) and any
 * layout wider in both fields do; a narrower one would cut numbers short.
 */
void		cc_encode_compact(const cc_stored *s, uint8_t lay, unsigned char *buf);

/*
 * Validates the header and the length of buf, of any version, before
 * anything is allocated: *n gets the shard count and *nf the record count
 * (0 in versions 1 and 3), which fit len exactly.
 */
cc_code		cc_decode_header_folded(const unsigned char *buf, size_t len,
									size_t *n, size_t *nf, bool *tombstone,
									cc_error *err);

/*
 * The same for a reader of version 1 only (the parallel aggregate's
 * deserialize function, which reads what its serialize function wrote):
 * versions 2 and 3 are refused.
 */
cc_code		cc_decode_header(const unsigned char *buf, size_t len,
							 size_t *n, bool *tombstone, cc_error *err);

/*
 * Decodes the n shards of a checked buffer (version 1, 2 or 3) into out as
 * 32-byte records, checking canonical form.
 */
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
