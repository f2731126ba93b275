/*
 * cc_ids.h
 *	  Writer ids: ScyllaDB's name-based, rack and pending-replica ids, the
 *	  default id of a server, and the checks of one writer's shards that the
 *	  replication triggers make.
 */
#ifndef CC_IDS_H
#define CC_IDS_H

#include "cc_base.h"

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
 * Default writer id of a server (contract 7.1): the name is
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
 * Own-id conflicts (contract 7.2): true when state b holds a newer shard of
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

#endif							/* CC_IDS_H */
