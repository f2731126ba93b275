/*
 * sweep.h
 *	  The counter columns of the tables with storage (sweep.c), which the
 *	  sweeps, the writer report and the metrics (metrics.c) walk.
 */
#ifndef CC_SWEEP_H
#define CC_SWEEP_H

#include "postgres.h"

#include "nodes/pg_list.h"

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

#endif							/* CC_SWEEP_H */
