/*
 * dropped_writers.h
 *	  The record of the merge trigger when it drops forgotten writers from
 *	  an applied row (dropped_writers.c), in counter_crdt_dropped_writers.
 */
#ifndef CC_DROPPED_WRITERS_H
#define CC_DROPPED_WRITERS_H

#include "access/htup.h"
#include "utils/relcache.h"

#include "replica/table_check.h"

extern Oid	cc_dropped_writers_relid(bool for_insert);
extern void cc_dropped_writers_record(Relation rel, const CcTableInfo *info,
									  HeapTuple keytup, int attno,
									  const uint8_t *ids, int nids,
									  bool only_records);

#endif							/* CC_DROPPED_WRITERS_H */
