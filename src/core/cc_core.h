/*
 * cc_core.h
 *	  The shard-set algebra of counter_crdt, in plain C.
 *
 * Nothing here includes PostgreSQL headers: the algebra is unit-tested and
 * fuzzed on its own (test/core_test.c) and wrapped by thin fmgr glue.
 *
 * A state is a sequence of shards kept in one canonical form: ids strictly
 * ascending as unsigned bytes, every clock >= 1.  Shards are handled as raw
 * 32-byte records (id[16], clock, value in native byte order) that may sit at
 * any address: a short-header varlena is not aligned, and copying it only to
 * align it would cost more than the work itself.  Every access goes through
 * memcpy, which compilers turn into plain loads and stores.
 *
 * Functions that can fail return a cc_code and, when given a cc_error, write
 * a sentence for the user into it.  Nothing here allocates: callers size
 * output buffers with the *_capacity() helpers.
 */
#ifndef CC_CORE_H
#define CC_CORE_H

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

/* Format version of the binary (send/recv) layout. */
#define CC_WIRE_VERSION 1
/* Binary layout: version (1 byte), flags (1 byte), count (uint32 BE). */
#define CC_WIRE_HEADER	6
#define CC_WIRE_FLAG_TOMBSTONE 0x01

/* Digest: SHA-256. */
#define CC_DIGEST_LEN	32

/*
 * Hashing.  The core writes no hash function: it produces the exact bytes
 * that a digest or a name-based id is the hash of, and hands them to the
 * caller's hash function through a sink, in order, in pieces of any size.
 * The glue feeds PostgreSQL's SHA-256 or MD5 (src/common/cryptohash); the
 * tests feed OpenSSL's.  The caller starts the hash before and finishes it
 * after.
 */
typedef struct cc_hash_sink
{
	void		(*update) (void *arg, const void *data, size_t len);
	void	   *arg;
} cc_hash_sink;

typedef struct cc_shard
{
	uint8_t		id[CC_ID_LEN];
	int64_t		clock;
	int64_t		value;
} cc_shard;

typedef enum cc_code
{
	CC_OK = 0,
	CC_ERR_SYNTAX,				/* malformed text: 22P02 */
	CC_ERR_BINARY,				/* malformed binary: 22P03 */
	CC_ERR_OVERFLOW,			/* result outside bigint: 22003 */
	CC_ERR_LIMIT,				/* too many shards: 54000 */
	CC_ERR_ARGUMENT				/* an argument out of its domain: 22023 */
} cc_code;

#define CC_DETAIL_LEN 256

typedef struct cc_error
{
	cc_code		code;
	char		detail[CC_DETAIL_LEN];
} cc_error;

/* A state as it lies in memory: its shards, their count, the flag. */
typedef struct cc_view
{
	const unsigned char *shards;
	size_t		n;
	bool		tombstone;
} cc_view;

/*
 * Ids met lately, with their text: a table's counters share few writers, so
 * the same ids come back row after row (a replicated row arrives as text,
 * and the walsender prints every row).  An id found here is copied, not
 * parsed or printed again.  The cache is the caller's: the core keeps no
 * state.  A zeroed cache is empty; NULL stands for none.
 */
#define CC_ID_MEMO 8

typedef struct cc_id_memo
{
	struct
	{
		char		text[CC_UUID_TEXT_LEN];
		uint8_t		id[CC_ID_LEN];
	}			e[CC_ID_MEMO];
	unsigned	used;			/* entries filled */
	unsigned	next;			/* the one to replace next */
} cc_id_memo;

typedef struct cc_id_cache
{
	cc_id_memo	parsed;			/* texts that libuuid accepted, and their bytes */
	cc_id_memo	printed;		/* ids printed, and their lower-case text */
} cc_id_cache;

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

/* Fills err, when given, with a code and a sentence; returns the code. */
cc_code		cc_fail(cc_error *err, cc_code code, const char *fmt,...) CC_PRINTF(3, 4);

/* --- algebra (cc_core.c) --- */

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

/* Exact sum of the shard values; CC_ERR_OVERFLOW outside int64. */
cc_code		cc_sum(const unsigned char *s, size_t n, int64_t *out, cc_error *err);

/*
 * Merge of two live states into out (room for na + nb shards, must not
 * overlap the inputs).  Returns the number of shards written.
 */
size_t		cc_merge(const unsigned char *a, size_t na,
					 const unsigned char *b, size_t nb, unsigned char *out);

/*
 * How to merge two states: one of them may already be the result (a
 * tombstone absorbs everything; a state holding the other wins), otherwise
 * cc_merge() must build it.  When both are the result, a is named.
 */
typedef enum cc_merge_kind
{
	CC_MERGE_TAKE_A,
	CC_MERGE_TAKE_B,
	CC_MERGE_BUILD
} cc_merge_kind;

cc_merge_kind cc_merge_plan(const cc_view *a, const cc_view *b);

/* The number of shards that cc_merge() would write. */
size_t		cc_merge_count(const unsigned char *a, size_t na,
						   const unsigned char *b, size_t nb);

/*
 * Merges b into a in place when every id of b is already in a, returning
 * true.  Returns false when b has an id that a lacks; a may then hold part of
 * the merge, which is still below the full merge, so finishing with
 * cc_merge() gives the same state.
 */
bool		cc_merge_into(unsigned char *a, size_t na,
						  const unsigned char *b, size_t nb);

/*
 * cc_merge_into() for b given as the narrow shards of a stored value
 * (cc_stored.narrow): no widening.  Same contract.
 */
bool		cc_merge_into_narrow(unsigned char *a, size_t na,
								 const unsigned char *b, size_t nb);

/* Merge result equals a (b adds nothing to a). */
bool		cc_merge_is_noop(const unsigned char *a, size_t na,
							 const unsigned char *b, size_t nb);

/*
 * Leader increment: the shard of writer becomes (clock + 1, value + delta),
 * or value - delta when subtract is set; absent shards count from (0, 0).
 * out has room for n + 1 shards and may not overlap s.  *nout gets the new
 * count.  CC_ERR_OVERFLOW, with nothing guaranteed in out, when the clock or
 * value would leave int64.
 */
cc_code		cc_increment(const unsigned char *s, size_t n, const uint8_t *writer,
						 int64_t delta, bool subtract,
						 unsigned char *out, size_t *nout, cc_error *err);

/*
 * Exactly-once increment (SPEC 8.1): when the writer's shard has a clock
 * below clock (an absent shard counts as (0, 0)), it becomes (clock,
 * value + delta) and *applied is set; otherwise the state is copied as it is
 * (a replay) and *applied is cleared.  out has room for n + 1 shards and may
 * not overlap s.  CC_ERR_ARGUMENT when clock < 1, CC_ERR_OVERFLOW when the
 * value would leave int64 (a replay never overflows); nothing is guaranteed
 * in out then.
 */
cc_code		cc_increment_at(const unsigned char *s, size_t n,
							const uint8_t *writer, int64_t delta, int64_t clock,
							unsigned char *out, size_t *nout, bool *applied,
							cc_error *err);

/* State equality of two canonical states. */
bool		cc_equal(const unsigned char *a, size_t na, bool ta,
					 const unsigned char *b, size_t nb, bool tb);

/*
 * The total order of states, consistent with cc_equal(): live states by the
 * exact sum of their values (also outside int64), tombstones after all of
 * them; live states of equal sums by their shards in id order, each compared
 * as (id, clock, value), a state that is a prefix of the other first.
 * Returns a negative number, 0 (exactly when cc_equal()) or a positive one;
 * it never fails.
 */
int			cc_compare(const unsigned char *a, size_t na, bool ta,
					   const unsigned char *b, size_t nb, bool tb);

/*
 * The state digest is the SHA-256 of these bytes: the domain tag
 * "counter_crdt digest v1", the flag byte (0 live, 1 tombstone), the shard
 * count (8 bytes, big-endian) and every shard in id order as id (16 bytes),
 * clock and value (8 bytes each, big-endian).
 */
void		cc_digest_input(const cc_hash_sink *sink, const unsigned char *s,
							size_t n, bool tombstone);

/*
 * Difference (ScyllaDB's counter difference, what a repair ships): what a
 * adds to b.  CC_DIFF_NONE when merge(a, b) = b; CC_DIFF_TOMBSTONE when a is
 * a tombstone and b is not; otherwise CC_DIFF_SHARDS with the shards of a
 * that win over b's (id absent in b, higher clock, or equal clock and higher
 * value) in out, room for a->n shards, *nout of them.  In every case
 * merge(b, difference) = merge(a, b).
 */
typedef enum cc_diff_kind
{
	CC_DIFF_NONE,
	CC_DIFF_TOMBSTONE,
	CC_DIFF_SHARDS
} cc_diff_kind;

cc_diff_kind cc_difference(const cc_view *a, const cc_view *b,
						   unsigned char *out, size_t *nout);

/* --- table digests (cc_core.c) --- */

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

/* acc += the 32-byte big-endian number h, modulo 2^256. */
void		cc_sum256_add_hash(cc_sum256 *acc, const uint8_t h[CC_DIGEST_LEN]);

/* acc += x, modulo 2^256. */
void		cc_sum256_add(cc_sum256 *acc, const cc_sum256 *x);

/* The sum as 32 big-endian bytes, and back. */
void		cc_sum256_to_bytes(const cc_sum256 *x, uint8_t out[CC_DIGEST_LEN]);
void		cc_sum256_from_bytes(cc_sum256 *x, const uint8_t in[CC_DIGEST_LEN]);

/* --- binary form (cc_core.c) --- */

static inline size_t
cc_wire_size(size_t n)
{
	return CC_WIRE_HEADER + n * CC_SHARD_SIZE;
}

void		cc_encode(const unsigned char *s, size_t n, bool tombstone,
					  unsigned char *buf);

/*
 * Validates the header and the length of buf before anything is allocated:
 * *n gets the shard count, which fits len exactly.
 */
cc_code		cc_decode_header(const unsigned char *buf, size_t len,
							 size_t *n, bool *tombstone, cc_error *err);

/* Decodes the n shards of a checked buffer into out, checking canonical form. */
cc_code		cc_decode_shards(const unsigned char *buf, size_t n,
							 unsigned char *out, cc_error *err);

/* --- stored form (cc_stored.c) --- */

/*
 * How a value lies in a table, after PostgreSQL's varlena header.  Numbers
 * are in the server's native byte order, as PostgreSQL stores its own.
 *
 * Version 1 (written by 1.0 to 1.2, read forever):
 *	  version 1 | flags (0x01 tombstone) | 2 zero bytes |
 *	  shards of 32 bytes: id[16], clock int64, value int64
 *
 * Version 2 (written since 1.3):
 *	  version 2 | flags | 2 zero bytes | total int64 |
 *	  shards of 32 bytes as in version 1, or of 24 with flag NARROW:
 *	  id[16], clock uint32, value int32
 *
 * Version 2 flags: 0x01 tombstone (no shards, total 0); 0x02 the exact sum
 * of the values leaves bigint (total 0, and reading the value is an error,
 * 22003); 0x04 narrow shards, set when there are shards and every clock
 * fits uint32 and every value int32.  The total sits in the first 12 bytes
 * so that a read of a compressed or out-of-line value needs only a slice.
 * Ids stay 16 bytes, ascending, in both layouts.
 */
#define CC_STORED_V1			1
#define CC_STORED_V2			2
#define CC_STORED_V1_HEADER		4
#define CC_STORED_HEADER		12
#define CC_STORED_FLAG_TOMBSTONE 0x01
#define CC_STORED_FLAG_OVERFLOW	0x02
#define CC_STORED_FLAG_NARROW	0x04
#define CC_NARROW_SHARD_SIZE	24

/* A stored value as read: its shards as they lie, and the kept total. */
typedef struct cc_stored
{
	const unsigned char *shards;	/* n records of 32 bytes, or 24 if narrow */
	size_t		n;
	bool		tombstone;
	bool		narrow;
	bool		total_kept;		/* version 2: total and overflow are kept */
	bool		overflow;
	int64_t		total;
} cc_stored;

/* Shard i of a stored value, whatever its layout. */
static inline void
cc_stored_shard(const cc_stored *s, size_t i, cc_shard *sh)
{
	if (s->narrow)
	{
		const unsigned char *p = s->shards + i * CC_NARROW_SHARD_SIZE;
		uint32_t	clock;
		int32_t		value;

		memcpy(sh->id, p, CC_ID_LEN);
		memcpy(&clock, p + CC_ID_LEN, sizeof(clock));
		memcpy(&value, p + CC_ID_LEN + sizeof(clock), sizeof(value));
		sh->clock = clock;
		sh->value = value;
	}
	else
		cc_load(s->shards, i, sh);
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
 * Checks the header and the length of a stored value of either version
 * (CC_ERR_BINARY when they are not a value's: corruption, since users never
 * write stored bytes) and describes it.  Shards are not walked.  Inline for
 * the version 2 values that nearly every read meets; anything else, and
 * every failure, goes to cc_stored_open_checked(), which says what is wrong.
 */
cc_code		cc_stored_open_checked(const unsigned char *data, size_t len,
								   cc_stored *s, cc_error *err);

static inline cc_code
cc_stored_open(const unsigned char *data, size_t len, cc_stored *s,
			   cc_error *err)
{
	size_t		body = len - CC_STORED_HEADER;
	uint8_t		flags;

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
	s->narrow = flags != 0;
	s->tombstone = false;
	s->overflow = false;
	s->total_kept = true;
	return CC_OK;
}

/*
 * The same for the first bytes of a version 2 value only (at least
 * CC_STORED_HEADER of them: what a detoast slice gives), checking the header
 * alone: tombstone, narrow and total are filled, n is 0 and shards NULL.
 * Other bytes are opened as a whole value.
 */
cc_code		cc_stored_prefix(const unsigned char *data, size_t avail,
							 cc_stored *s, cc_error *err);

/* The n shards as 32-byte records in out (room for n), whatever the layout. */
void		cc_stored_widen(const cc_stored *s, unsigned char *out);

/*
 * The exact sum of the values: the kept total, or the walk of a version 1
 * value; CC_ERR_OVERFLOW outside bigint.  Not for tombstones.  Inline: it
 * is what c::bigint does once per row.
 */
static inline cc_code
cc_stored_value(const cc_stored *s, int64_t *out, cc_error *err)
{
	if (!s->total_kept)
		return cc_sum(s->shards, s->n, out, err);
	if (s->overflow)
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The sum of the shard values leaves the bigint range.");
	*out = s->total;
	return CC_OK;
}

/*
 * Packs a value built as CC_STORED_HEADER bytes of room and then n
 * canonical 32-byte records into version 2, in place; returns its length.
 */
size_t		cc_stored_pack(unsigned char *data, size_t n, bool tombstone);

/*
 * cc_digest_input() and cc_row_hash_input() of a stored value's shards as
 * they lie (either layout; the same bytes as for its widened shards).  A
 * NULL state is a NULL state.
 */
void		cc_digest_input_stored(const cc_hash_sink *sink, const cc_stored *s);
void		cc_row_hash_input_stored(const cc_hash_sink *sink, const char *key,
									 size_t keylen, const cc_stored *state);

/* cc_encode() and cc_format() of a stored value's shards as they lie. */
void		cc_encode_stored(const cc_stored *s, unsigned char *buf);
size_t		cc_format_stored(cc_id_cache *ids, const cc_stored *s, char *buf);

/* --- text form (cc_text.c) --- */

/* Upper bound on the shards that text of this length can hold. */
size_t		cc_parse_capacity(const char *str, size_t len);

/*
 * Parses text into canonical shards (sorted, duplicates rejected).  out has
 * room for cc_parse_capacity() shards.
 */
cc_code		cc_parse(cc_id_cache *ids, const char *str, size_t len,
					 unsigned char *out, size_t *n, bool *tombstone,
					 cc_error *err);

/* Bytes needed for the text of n shards, with the terminating NUL. */
size_t		cc_format_capacity(size_t n);

/* Writes canonical text and a NUL; returns the length without the NUL. */
size_t		cc_format(cc_id_cache *ids, const unsigned char *s, size_t n,
					  bool tombstone, char *buf);

/* Lower-case hyphenated uuid, 36 characters and a NUL. */
void		cc_uuid_format(const uint8_t *id, char *out);

/* Parses exactly 36 characters of 8-4-4-4-12 hex, any case; false if bad. */
bool		cc_uuid_parse(const char *str, size_t len, uint8_t *out);

/* The same through the caller's id cache, which may be NULL. */
void		cc_uuid_format_cached(cc_id_cache *ids, const uint8_t *id, char *out);
bool		cc_uuid_parse_cached(cc_id_cache *ids, const char *str, size_t len,
								 uint8_t *out);

/* --- JSON form (cc_json.c) --- */

/* Upper bound on the shards that JSON text of this length can hold. */
size_t		cc_json_parse_capacity(const char *str, size_t len);

/*
 * Parses the JSON form (SPEC 8.2) into canonical shards, rejecting any
 * other shape with CC_ERR_SYNTAX.  out has room for cc_json_parse_capacity()
 * shards.
 */
cc_code		cc_json_parse(cc_id_cache *ids, const char *str, size_t len,
						  unsigned char *out, size_t *n, bool *tombstone,
						  cc_error *err);

/* Bytes needed for the JSON text of n shards, with the terminating NUL. */
size_t		cc_json_format_capacity(size_t n);

/* Writes the JSON form, as jsonb prints it, and a NUL; returns the length. */
size_t		cc_json_format(cc_id_cache *ids, const unsigned char *s, size_t n,
						   bool tombstone, char *buf);

/* --- writer ids (cc_ids.c) --- */

/*
 * Name-based ids (version 3) as Java's UUID.nameUUIDFromBytes makes them:
 * the MD5 of the name, no namespace, then cc_uuid_v3() sets the version and
 * the IETF variant bits of those 16 bytes in place.
 */
void		cc_uuid_v3(uint8_t *md5);

/* ScyllaDB's rack id: the name is "dc:rack", the bytes joined by a colon. */
void		cc_rack_name(const cc_hash_sink *sink, const char *dc, size_t dclen,
						 const char *rack, size_t racklen);

/* ScyllaDB's pending-replica id: clock sequence bits inverted. */
void		cc_pending_id(const uint8_t *in, uint8_t *out);

/*
 * Default writer id of a server (SPEC 7.1): the name is
 * "counter_crdt:<system identifier>:<timeline>:<database oid>", in decimal,
 * written into out with a NUL; returns its length.
 */
#define CC_NODE_NAME_SIZE 80
size_t		cc_default_node_name(uint64_t system_identifier, uint32_t timeline,
								 uint32_t database_oid,
								 char out[CC_NODE_NAME_SIZE]);

/*
 * The default id kept with what it was derived from, by a session that may
 * see the timeline change under it (a promotion, while it stays open).
 * cc_default_id_get() answers from the memo when it was made for these
 * three numbers, and else derives the id again with md5v3 (the MD5 of the
 * name as a version 3 uuid) and keeps it.  A zeroed memo holds nothing
 * (timelines start at 1).
 */
typedef struct cc_default_id_memo
{
	uint64_t	system_identifier;
	uint32_t	timeline;		/* 0: nothing kept */
	uint32_t	database_oid;
	uint8_t		id[CC_ID_LEN];
} cc_default_id_memo;
typedef void (*cc_md5v3_fn) (const char *name, size_t len, uint8_t out[CC_ID_LEN],
							 void *arg);
const uint8_t *cc_default_id_get(cc_default_id_memo *memo,
								 uint64_t system_identifier, uint32_t timeline,
								 uint32_t database_oid, cc_md5v3_fn md5v3,
								 void *arg);

/*
 * Own-id conflicts (SPEC 7.2): true when state b holds a newer shard of
 * writer than state a, that is a's has a lower clock, or the same clock and
 * another value, or a has none.  Both are canonical shard arrays (a
 * tombstone has none: pass n = 0 and b never conflicts).  *local gets a's
 * shard (clock and value 0 when absent) and *incoming b's.
 */
bool		cc_writer_newer(const unsigned char *a, size_t na,
							const unsigned char *b, size_t nb,
							const uint8_t *writer,
							cc_shard *local, cc_shard *incoming);

/*
 * Clocks near the end of their range: no writer gets to 2^62 by increments,
 * and one at 2^63 - 1 can take none.  True when b holds such a shard that is
 * newer than a's shard of the same writer (or a has none), that is b brings
 * it to a; *incoming gets the first such shard of b, *local a's (clock and
 * value 0 when absent).
 */
#define CC_CLOCK_NEAR_LIMIT (INT64_C(1) << 62)
bool		cc_clock_near_limit(const unsigned char *a, size_t na,
								const unsigned char *b, size_t nb,
								cc_shard *local, cc_shard *incoming);

#endif							/* CC_CORE_H */
