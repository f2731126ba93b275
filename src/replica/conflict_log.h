/*
 * conflict_log.h
 *	  The own-id watch of the merge trigger and the relations of its log
 *	  (conflict_log.c).
 */
#ifndef CC_CONFLICT_LOG_H
#define CC_CONFLICT_LOG_H

#include "access/htup.h"
#include "utils/relcache.h"

#include "core/cc_base.h"
#include "replica/table_check.h"

/* Columns of counter_crdt_writer_conflicts since 1.8 (column_number, the
 * last, is not there before). */
#define CC_CONFLICTS_NATTS 10

extern void cc_check_own_id_views(Relation rel, const CcTableInfo *info,
								  HeapTuple keytup, int attno,
								  const cc_view *local, const cc_view *incoming);
extern void cc_check_own_id(Relation rel, const CcTableInfo *info,
							HeapTuple keytup, int attno,
							struct varlena *local, struct varlena *incoming);
extern char *cc_key_text(Relation rel, const CcTableInfo *info, HeapTuple tup);
extern Oid	cc_conflicts_relid(void);
extern Oid	cc_conflict_summary_relid(void);

#endif							/* CC_CONFLICT_LOG_H */
