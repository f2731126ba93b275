/*
 * sweep.h
 *	  The counter columns of the tables with storage (sweep.c), which the
 *	  sweeps, the writer report and the metrics (metrics.c) walk.
 */
#ifndef CC_SWEEP_H
#define CC_SWEEP_H

#include "postgres.h"

#include "nodes/pg_list.h"
#include "storage/lockdefs.h"

/* One counter column of a table with storage. */
typedef struct CcColumn
{
	Oid			relid;
	AttrNumber	attnum;
	char	   *attname;
	char	   *relname;		/* qualified and quoted */
} CcColumn;

/*
 * The counter columns of every table with storage (InvalidOid), or of one
 * table, a partitioned one standing for its partitions; in order of table
 * name, then column.  No foreign tables, no temporary tables of other
 * sessions.
 */
extern List *cc_sweep_columns(Oid only_table, Oid counter_type);

/*
 * The columns of tables and materialized views that hold counters inside
 * other values (arrays, composites, ranges of counters): the sweeps do not
 * visit them, the metrics do not count them, and a forget is not proven
 * while one exists.  In order of table name, then column.
 */
extern List *cc_nested_columns(Oid counter_type);

/*
 * Whether a table of that relpersistence has no data on this server: an
 * UNLOGGED table on a standby (its rows are not in the WAL, and opening
 * its main fork fails with 58P01).  counter_crdt_metrics() skips it and
 * counter_crdt_health() names it (unlogged_table_skipped_on_standby).
 */
extern bool cc_no_data_here(char relpersistence);

/*
 * Runs fn(arg), and returns false when it failed for want of a lock within
 * lock_timeout (55P03), what it did undone: the metrics and health skip a
 * table that someone's long DDL holds, and count it, rather than fail.
 */
extern bool cc_within_lock_timeout(void (*fn) (void *arg), void *arg);
extern bool cc_lock_within_timeout(Oid relid, LOCKMODE mode);

/*
 * Whether the trigger now running (at trigger depth depth) fires for a row
 * of relid that the fold or forget sweep rewrites: the UPDATE that
 * counter_crdt_rewrite_counters() runs itself, not one that a trigger of
 * that UPDATE runs (those fire deeper), nor one of another transaction or
 * subtransaction.  The write guard lets these rows through: a forget drops
 * fold records, which no other local write may do.
 */
extern bool cc_sweep_rewrites(Oid relid, int depth);

#endif							/* CC_SWEEP_H */
