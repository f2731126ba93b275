/*
 * counter_crdt.h
 *	  The on-disk form of counter_crdt and the glue shared by the fmgr files.
 *
 * On disk a value is a varlena:
 *
 *	  varlena header	1 or 4 bytes (PostgreSQL's)
 *	  version			1 byte, CC_DISK_VERSION
 *	  flags				1 byte, CC_DISK_FLAG_TOMBSTONE; other bits must be zero
 *	  reserved			2 bytes, must be zero
 *	  shards			32 bytes each: id[16], clock int64, value int64, in
 *						native byte order, ids strictly ascending
 *
 * The shard count follows from the length.  A value of three shards takes
 * 101 bytes in a table (1-byte header).  Values are read where they lie,
 * short header and all, with no copy to align them: the core reads shards
 * through memcpy.
 */
#ifndef COUNTER_CRDT_H
#define COUNTER_CRDT_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"
#include "utils/relcache.h"
#include "utils/memutils.h"

#include "cc_core.h"

#define CC_DISK_VERSION			1
#define CC_DISK_FLAG_TOMBSTONE	0x01
#define CC_DISK_HEADER			4

/* The most shards one value may hold: it must fit one allocation. */
#define CC_MAX_SHARDS \
	((MaxAllocSize - VARHDRSZ - CC_DISK_HEADER) / CC_SHARD_SIZE)

#define DatumGetCounterCrdtP(X)		((struct varlena *) PG_DETOAST_DATUM_PACKED(X))

/* counter_crdt.c */
extern void cc_datum_view(Datum d, cc_view *v);
extern struct varlena *cc_make(size_t capacity, bool tombstone,
							   unsigned char **shards);
extern void cc_set_count(struct varlena *result, size_t n);
extern void cc_check_count(size_t n);
extern Datum cc_merge_datums(Datum a, Datum b, cc_merge_kind *kind);
extern void cc_report(const cc_error *err, const char *input) pg_attribute_noreturn();
extern const uint8_t *cc_node_id(void);

/* hashing.c: the core's hash inputs through PostgreSQL's SHA-256 and MD5 */
typedef enum cc_hash_kind
{
	CC_HASH_SHA256,
	CC_HASH_MD5
} cc_hash_kind;
typedef struct cc_hasher cc_hasher;
extern cc_hasher *cc_hasher_create(cc_hash_kind kind, MemoryContext mcxt);
extern cc_hasher *cc_hasher_of_call(FunctionCallInfo fcinfo, cc_hash_kind kind);
extern void cc_hasher_start(cc_hasher *h, cc_hash_sink *sink);
extern void cc_hasher_finish(cc_hasher *h, uint8_t *out);
extern void cc_hasher_finish_v3(cc_hasher *h, uint8_t *id);
extern void cc_hasher_free(cc_hasher *h);

/* replication.c: the check shared by the merge trigger, set-up and health */

/* The counter columns of a table, and its primary key. */
typedef struct CcTableInfo
{
	int			natts;
	bool	   *is_counter;		/* per attribute (0-based) */
	Bitmapset  *pkey;			/* primary key attnums, offset as relcache */
} CcTableInfo;

/* One reason why a table's replicated rows cannot be merged. */
typedef struct CcTableProblem
{
	const char *check;			/* the check of counter_crdt_health() */
	char	   *message;		/* as errmsg, and the health row's problem */
	const char *detail;
	char	   *hint;
} CcTableProblem;

extern List *cc_table_check(Relation rel, Oid counter_type, CcTableInfo *info);
extern void cc_table_check_or_error(Relation rel, Oid counter_type,
									CcTableInfo *info);
extern Oid	cc_counter_type(Oid nsp);

#endif							/* COUNTER_CRDT_H */
