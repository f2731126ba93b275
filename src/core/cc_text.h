/*
 * cc_text.h
 *	  The text form of counter_crdt: parse and canonical format, and the
 *	  caller's cache of ids that makes both fast.
 *
 *	  value  := ws ( "tombstone" | shards [ ws "folded" ws folds ] ) ws
 *	  shards := "{" ws [ shard { ws "," ws shard } ] ws "}"
 *	  shard  := uuid ws ":" ws number ws ":" ws number
 *	  folds  := "{" ws fold { ws "," ws fold } ws "}"
 *	  fold   := uuid ws ">" ws uuid ws ":" ws number ws ":" ws number
 *				  ws ":" ws number ws ":" ws number
 *	  number := [ "+" | "-" ] digit { digit }		(within bigint)
 *
 * A fold record (cc_fold.h) reads RETIRED>TARGET:tclock:aclock:avalue:absorbed.
 * A value without records has no "folded" part (an empty list is refused),
 * so that every value has one text; a tombstone has none.  Records come in
 * any order and are checked as cc_fold_check() does.
 */
#ifndef CC_TEXT_H
#define CC_TEXT_H

#include "cc_fold.h"

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

/* Upper bound on the shards that text of this length can hold. */
size_t		cc_parse_capacity(const char *str, size_t len);

/*
 * Parses text into canonical shards (sorted, duplicates rejected).  out has
 * room for cc_parse_capacity() shards.  Text with fold records is refused
 * (it does not end after the shards).
 */
cc_code		cc_parse(cc_id_cache *ids, const char *str, size_t len,
					 unsigned char *out, size_t *n, bool *tombstone,
					 cc_error *err);

/*
 * The same with fold records: a checked folded state (cc_fold_check()) in
 * *st, pointing into out, which has room for cc_parse_capacity() shards:
 * the shards at its start, the records right after them (they fit).  For
 * a tombstone st is empty.
 */
cc_code		cc_parse_folded(cc_id_cache *ids, const char *str, size_t len,
							unsigned char *out, cc_folded *st, bool *tombstone,
							cc_error *err);

/*
 * Bytes needed for the text of n shards, with the terminating NUL; and of
 * n shards and nf fold records.
 */
size_t		cc_format_capacity(size_t n);
size_t		cc_format_folded_capacity(size_t n, size_t nf);

/*
 * Writes canonical text and a NUL; returns the length without the NUL.  Of
 * n records, of a stored value's shards (as they lie) and fold records
 * (cc_format_folded_capacity(s->n, s->nf) bytes), or of a live folded state.
 */
size_t		cc_format(cc_id_cache *ids, const unsigned char *s, size_t n,
					  bool tombstone, char *buf);
size_t		cc_format_stored(cc_id_cache *ids, const cc_stored *s, char *buf);
size_t		cc_format_folded(cc_id_cache *ids, const cc_folded *s, char *buf);

/* cc_uuid_format() and cc_uuid_parse() through the cache, which may be NULL. */
void		cc_uuid_format_cached(cc_id_cache *ids, const uint8_t *id, char *out);
bool		cc_uuid_parse_cached(cc_id_cache *ids, const char *str, size_t len,
								 uint8_t *out);

#endif							/* CC_TEXT_H */
