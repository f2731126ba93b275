/*
 * table_check.h
 *	  What a table of merged counters must be (table_check.c), checked by
 *	  the triggers, the set-up and the health check alike.
 */
#ifndef CC_TABLE_CHECK_H
#define CC_TABLE_CHECK_H

#include "fmgr.h"
#include "commands/trigger.h"
#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"
#include "utils/relcache.h"

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
extern char *cc_key_columns(Relation rel, const Bitmapset *pkey);
extern Oid	cc_trigger_setup(FunctionCallInfo fcinfo, const char *name,
							 bool for_delete, CcTableInfo *info);

/*
 * Whether this trigger call merges a replicated row: replication apply sets
 * session_replication_role = replica (core's apply worker and pglogical's),
 * a setting only superusers may change.  Outside it a merge trigger that
 * fires (enabled ALWAYS, or as an ordinary trigger by ENABLE TRIGGER ALL)
 * lets local writes through as they are: they are not replicated rows, and
 * must neither be merged nor recorded as own-id conflicts.
 */
static inline bool
cc_in_apply(void)
{
	return SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA;
}

#endif							/* CC_TABLE_CHECK_H */
