/*
 * retired.h
 *	  This server's list of retired writers (retired.c), the table
 *	  counter_crdt_retired_writers: an increment under a listed id is
 *	  refused, and a replicated value loses the shards and records of the
 *	  listed ids whose folds were forgotten here.
 */
#ifndef COUNTER_CRDT_RETIRED_H
#define COUNTER_CRDT_RETIRED_H

#include "postgres.h"

/* Called once from _PG_init(): the invalidation callbacks of the cache. */
extern void cc_retired_init(void);

/* An error (55000) when writer is on this server's list. */
extern void cc_retired_check_write(const uint8_t *writer);

/*
 * Whether any id on the list has its folds forgotten: when none has,
 * cc_retired_strip() returns every value as it is.
 */
extern bool cc_retired_any_forgotten(void);

/*
 * value (a counter datum, not NULL, toasted or not) without anything of the
 * ids whose folds were forgotten on this server; the same datum, untouched,
 * when it has none of them.  *shard_ids (palloc'd, CC_ID_LEN bytes each)
 * and *nshard_ids name those of them whose shard it had, not only records.
 */
extern Datum cc_retired_strip(Datum value, bool *stripped, uint8_t **shard_ids,
							  int *nshard_ids);

#endif							/* COUNTER_CRDT_RETIRED_H */
