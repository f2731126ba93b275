/*
 * cc_base.h
 *	  The ground floor of the core: the shard record, the canonical form,
 *	  the exact sum, errors, id order and uuid text.
 *
 * The core (src/core/) is plain C and includes no PostgreSQL header: it is
 * unit-tested, fuzzed and measured on its own, and wrapped by the fmgr glue
 * in src/.  Its files are layers (README.md); each includes only the
 * headers of the layers below it, and none keeps state between calls.
 *
 * A state is a sequence of shards kept in one canonical form: ids strictly
 * ascending as unsigned bytes, every clock >= 1.  Shards are handled as raw
 * 32-byte records (id[16], clock, value in native byte order) that may sit at
 * any address: a short-header varlena is not aligned, and copying it only to
 * align it would cost more than the work itself.  Every access goes through
 * memcpy, which compilers turn into plain loads and stores.
 *
 * Functions that can fail return a cc_code and, when given a cc_error, write
 * a sentence for the user into it.  Nothing allocates: callers size output
 * buffers with the *_capacity() helpers.
 */
#ifndef CC_BASE_H
#define CC_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define CC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CC_PRINTF(f, a)
#endif

#define CC_ID_LEN		16
#define CC_SHARD_SIZE	32
#define CC_UUID_TEXT_LEN 36

typedef struct cc_shard
{
	uint8_t		id[CC_ID_LEN];
	int64_t		clock;
	int64_t		value;
} cc_shard;

/* A state as it lies in memory: its shards, their count, the flag. */
typedef struct cc_view
{
	const unsigned char *shards;
	size_t		n;
	bool		tombstone;
} cc_view;

typedef enum cc_code
{
	CC_OK = 0,
	CC_ERR_SYNTAX,				/* malformed text: 22P02 */
	CC_ERR_BINARY,				/* malformed binary: 22P03 */
	CC_ERR_OVERFLOW,			/* result outside bigint: 22003 */
	CC_ERR_LIMIT,				/* too many shards: 54000 */
	CC_ERR_ARGUMENT,			/* an argument out of its domain: 22023 */
	CC_ERR_RETIRED				/* a retired writer writes (cc_fold.h): 55000 */
} cc_code;

#define CC_DETAIL_LEN 256

typedef struct cc_error
{
	cc_code		code;
	char		detail[CC_DETAIL_LEN];
} cc_error;

/* Fills err, when given, with a code and a sentence; returns the code. */
cc_code		cc_fail(cc_error *err, cc_code code, const char *fmt,...) CC_PRINTF(3, 4);

/*
 * Hashing.  The core writes no hash function: it produces the exact bytes
 * that a digest or a name-based id is the hash of, and hands them to the
 * caller's hash function through a sink, in order, in pieces of any size.
 * The glue feeds libcrypto's or PostgreSQL's SHA-256 and MD5 (hashing.c);
 * the tests feed OpenSSL's.  The caller starts the hash before and
 * finishes it after.
 */
typedef struct cc_hash_sink
{
	void		(*update) (void *arg, const void *data, size_t len);
	void	   *arg;
} cc_hash_sink;

/* Shard access at any alignment. */
static inline void
cc_load(const unsigned char *base, size_t i, cc_shard *s)
{
	memcpy(s, base + i * CC_SHARD_SIZE, CC_SHARD_SIZE);
}

static inline void
cc_store(unsigned char *base, size_t i, const cc_shard *s)
{
	memcpy(base + i * CC_SHARD_SIZE, s, CC_SHARD_SIZE);
}

/*
 * Ids compare as unsigned bytes, which is what memcmp does; two 8-byte loads
 * read as big-endian numbers give the same order without a call.
 */
static inline uint64_t
cc_load_be64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#elif !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
	v = ((uint64_t) p[0] << 56) | ((uint64_t) p[1] << 48) |
		((uint64_t) p[2] << 40) | ((uint64_t) p[3] << 32) |
		((uint64_t) p[4] << 24) | ((uint64_t) p[5] << 16) |
		((uint64_t) p[6] << 8) | (uint64_t) p[7];
#endif
	return v;
}

static inline int
cc_id_cmp(const uint8_t *a, const uint8_t *b)
{
	uint64_t	x = cc_load_be64(a),
				y = cc_load_be64(b);

	if (x == y)
	{
		x = cc_load_be64(a + 8);
		y = cc_load_be64(b + 8);
	}
	return (x > y) - (x < y);
}

static inline bool
cc_id_eq(const uint8_t *a, const uint8_t *b)
{
	uint64_t	a0,
				a1,
				b0,
				b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, b + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/*
 * The index of the first of n records of stride bytes, each starting with
 * its id and in ascending id order, whose id is not below id; n when none
 * (a binary search).
 */
size_t		cc_id_lower_bound(const unsigned char *recs, size_t n, size_t stride,
							  const uint8_t *id);

/* Checks the canonical form: ids strictly ascending, clocks >= 1. */
cc_code		cc_check_canonical(const unsigned char *s, size_t n, cc_code fail,
							   cc_error *err);

/*
 * Sorts shards read in any order by id, then checks the canonical form (a
 * duplicate id is refused): what the text and JSON parsers do with shards
 * that did not come in ascending order.
 */
cc_code		cc_sort_canonical(unsigned char *s, size_t n, cc_code fail,
							  cc_error *err);

/*
 * The exact sum of the shard values, whatever its size, as wraps * 2^64 +
 * low with low a signed int64: each overflow of the running int64 sum wraps
 * it by 2^64 and is counted.  Every sum has exactly one such form, and two
 * sums compare as their (wraps, low) pairs do, wraps first: |low_a - low_b|
 * stays below 2^64, the weight of one wrap.
 */
static inline void
cc_wide_sum(const unsigned char *s, size_t n, int64_t *wraps, int64_t *low)
{
	int64_t		sum = 0;

	*wraps = 0;
	for (size_t i = 0; i < n; i++)
	{
		int64_t		v;

		memcpy(&v, s + i * CC_SHARD_SIZE + CC_ID_LEN + sizeof(int64_t),
			   sizeof(v));
		if (__builtin_add_overflow(sum, v, &sum))
			*wraps += (v > 0) ? 1 : -1;
	}
	*low = sum;
}

/*
 * Exact sum of the shard values; CC_ERR_OVERFLOW outside int64 (only the
 * total must fit, not every partial sum, so that the value does not depend
 * on the order of the writer ids).
 */
cc_code		cc_sum(const unsigned char *s, size_t n, int64_t *out, cc_error *err);

/*
 * Uuid text, through libuuid: lower-case hyphenated, 36 characters and a
 * NUL; parsed from exactly 36 characters of 8-4-4-4-12 hex, any case (false
 * if bad).  The text form keeps a cache in front of these (cc_text.h).
 */
void		cc_uuid_format(const uint8_t *id, char *out);
bool		cc_uuid_parse(const char *str, size_t len, uint8_t *out);

#endif							/* CC_BASE_H */
