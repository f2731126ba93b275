/*
 * cc_digest.h
 *	  The digest feed: the exact bytes that a state digest and a table
 *	  digest's row hash are the SHA-256 of, handed to the caller's hash sink
 *	  (cc_base.h), and the order-free sum of row hashes.
 */
#ifndef CC_DIGEST_H
#define CC_DIGEST_H

#include "cc_wire.h"

/* Digest: SHA-256. */
#define CC_DIGEST_LEN	32

/*
 * The state digest is the SHA-256 of these bytes: the domain tag
 * "counter_crdt digest v1", the flag byte (0 live, 1 tombstone), the shard
 * count (8 bytes, big-endian) and every shard in id order as id (16 bytes),
 * clock and value (8 bytes each, big-endian); then, only for a value with
 * fold records (cc_fold.h), their count (8 bytes, big-endian) and each
 * record as retired and target ids and tclock, aclock, avalue, absorbed
 * (8 bytes each, big-endian).
 */
void		cc_digest_input(const cc_hash_sink *sink, const unsigned char *s,
							size_t n, bool tombstone);

/*
 * A digest of a set of (key, state) rows: the sum modulo 2^256 of one
 * SHA-256 per row, so that neither the order of the rows nor the way they
 * are split between parallel workers matters, while a row that appears
 * twice counts twice (a sum, not an exclusive or).  No rows sum to zero.
 * Limbs are little-endian: w[0] is the least significant 64 bits.
 */
typedef struct cc_sum256
{
	uint64_t	w[4];
} cc_sum256;

/*
 * The hash of one row is the SHA-256 of these bytes: the domain tag
 * "counter_crdt row v1", the key's length (8 bytes, big-endian) and bytes,
 * then one tag byte (0 live, 1 tombstone, 2 NULL state) and, for a state,
 * its shard count (8 bytes, big-endian) and shards as cc_digest_input()
 * encodes them (id, clock, value, big-endian, ascending id).  state is NULL
 * for a NULL state.
 */
void		cc_row_hash_input(const cc_hash_sink *sink, const char *key,
							  size_t keylen, const cc_view *state);

/*
 * The same of a stored value's shards as they lie (either layout; the same
 * bytes as for its widened shards).  A NULL state is a NULL state.
 */
void		cc_digest_input_stored(const cc_hash_sink *sink, const cc_stored *s);
void		cc_row_hash_input_stored(const cc_hash_sink *sink, const char *key,
									 size_t keylen, const cc_stored *state);

/* acc += the 32-byte big-endian number h, modulo 2^256. */
void		cc_sum256_add_hash(cc_sum256 *acc, const uint8_t h[CC_DIGEST_LEN]);

/* acc += x, modulo 2^256. */
void		cc_sum256_add(cc_sum256 *acc, const cc_sum256 *x);

/* The sum as 32 big-endian bytes, and back. */
void		cc_sum256_to_bytes(const cc_sum256 *x, uint8_t out[CC_DIGEST_LEN]);
void		cc_sum256_from_bytes(cc_sum256 *x, const uint8_t in[CC_DIGEST_LEN]);

#endif							/* CC_DIGEST_H */
