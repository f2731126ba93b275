/*
 * metrics.c
 *	  counter_crdt_metrics(): one row per counter column of the tables with
 *	  storage in this database, with figures a monitoring system graphs
 *	  (the view counter_crdt_stat shows them, doc/metrics.md says what each
 *	  means); counter_crdt_table_metrics() (1.9): the same figures per
 *	  counter column of each table as its users name it, a partitioned
 *	  table's partitions summed under it (counter_crdt_stat_tables).
 *
 * Whose rights.  The function reads tables its caller may not be able to
 * read, so it runs no code of anyone's: each table is read by a heap scan
 * in C under the statement's snapshot, its counter values opened by the
 * core where they lie (detoasted when toasted), no operator, function,
 * policy or trigger looked up or called, and no value returned but counts.
 * A table is shown to members of pg_monitor, and to a role that may SELECT
 * it (or its counter column) when no row security applies to that role;
 * to any other role it has no row.  A partitioned table's figures are
 * shown by the same rule applied to the partitioned table (a role that may
 * read it reads its partitions through it, and its policies are the ones
 * that apply there).
 *
 * Standbys.  An UNLOGGED table has no data on a standby (its main fork is
 * made only at promotion): it has no row there, instead of failing the
 * whole function, and counter_crdt_health() names it
 * (unlogged_table_skipped_on_standby).
 *
 * Cost.  One sequential scan of each table (AccessShareLock, as a SELECT
 * takes), a hash lookup per shard id that differs from the previous
 * value's at the same place, and an interrupt check per row: linear in the
 * rows and their shards (bench/metrics.sh measures it against count(*)).
 */
#include "base/datum.h"
#include "base/extension.h"
#include "replica/conflict_log.h"
#include "writers/sweep.h"

#include "access/heapam.h"
#include "catalog/partition.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "core/cc_ids.h"

/* Shard counts below this are counted in an array, larger ones listed. */
#define CC_METRICS_BUCKETS 1024
/* Ids of the previous value remembered to skip their hash lookups. */
#define CC_METRICS_PREV 128
/* The columns of counter_crdt_metrics() and counter_crdt_table_metrics(). */
#define CC_METRICS_COLS 12
#define CC_TABLE_METRICS_COLS 15

/* What the scan gathers for one counter column. */
typedef struct CcColumnStat
{
	int64		counters;
	int64		tombstones;
	int64		shards;
	int64		max_shards;
	int64		with_folds;
	int64		pending;
	int64		buckets[CC_METRICS_BUCKETS];
	int64	   *big;			/* shard counts of CC_METRICS_BUCKETS or more */
	int			nbig;
	int			capbig;
	MemoryContext cxt;			/* where big lives */
	HTAB	   *writers;		/* distinct shard ids */
	uint8_t		prev[CC_METRICS_PREV][CC_ID_LEN];
	int			nprev;
} CcColumnStat;

/* Recorded conflicts of one column. */
typedef struct CcConflictKey
{
	Oid			relid;
	AttrNumber	attnum;
} CcConflictKey;

typedef struct CcConflictCount
{
	CcConflictKey key;
	int64		own_id;
	int64		near_limit;
} CcConflictCount;

static int
cc_int64_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a,
				y = *(const int64 *) b;

	return x < y ? -1 : x > y;
}

/*
 * The recorded conflicts of counter_crdt_writer_conflicts, counted per
 * table and column: rows whose replicated clock is below 2^62 (another
 * server writes under this server's id) and the others (written by hand),
 * as counter_crdt_writer_conflict_summary tells every role.  A column by
 * its recorded number (1.8), or before 1.8 by its name as it is now.
 */
static HTAB *
cc_metrics_conflicts(void)
{
	Oid			logid = cc_conflicts_relid();
	HASHCTL		ctl;
	HTAB	   *counts;
	Relation	rel;
	TupleDesc	desc;
	AttrNumber	a_table,
				a_column,
				a_number,
				a_clock;
	Snapshot	snap;
	TableScanDesc scan;
	HeapTuple	tup;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(CcConflictKey);
	ctl.entrysize = sizeof(CcConflictCount);
	ctl.hcxt = CurrentMemoryContext;
	counts = hash_create("counter_crdt conflicts", 64, &ctl,
						 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	if (!OidIsValid(logid))
		return counts;
	rel = table_open(logid, AccessShareLock);
	desc = RelationGetDescr(rel);
	a_table = get_attnum(logid, "table_name");
	a_column = get_attnum(logid, "column_name");
	a_clock = get_attnum(logid, "incoming_clock");
	a_number = get_attnum(logid, "column_number");
	if (a_table == InvalidAttrNumber || a_column == InvalidAttrNumber ||
		a_clock == InvalidAttrNumber ||
		(a_number != InvalidAttrNumber &&
		 TupleDescAttr(desc, a_number - 1)->atttypid != INT2OID) ||
		TupleDescAttr(desc, a_table - 1)->atttypid != REGCLASSOID ||
		TupleDescAttr(desc, a_column - 1)->atttypid != NAMEOID ||
		TupleDescAttr(desc, a_clock - 1)->atttypid != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table counter_crdt_writer_conflicts of extension counter_crdt is not as the extension made it"),
				 errhint("Drop and create the extension again, or restore the table's columns.")));
	snap = RegisterSnapshot(GetActiveSnapshot());
	scan = cc_table_beginscan(rel, snap);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		CcConflictKey key;
		CcConflictCount *c;
		bool		isnull,
					found;
		Datum		d;
		int64		clock;

		CHECK_FOR_INTERRUPTS();
		memset(&key, 0, sizeof(key));
		d = heap_getattr(tup, a_table, desc, &isnull);
		if (isnull)
			continue;
		key.relid = DatumGetObjectId(d);
		if (a_number != InvalidAttrNumber)
		{
			d = heap_getattr(tup, a_number, desc, &isnull);
			key.attnum = isnull ? InvalidAttrNumber : DatumGetInt16(d);
		}
		else
		{
			d = heap_getattr(tup, a_column, desc, &isnull);
			key.attnum = isnull ? InvalidAttrNumber :
				get_attnum(key.relid, NameStr(*DatumGetName(d)));
		}
		if (key.attnum == InvalidAttrNumber)
			continue;
		d = heap_getattr(tup, a_clock, desc, &isnull);
		clock = isnull ? 0 : DatumGetInt64(d);
		c = hash_search(counts, &key, HASH_ENTER, &found);
		if (!found)
			c->own_id = c->near_limit = 0;
		if (clock >= CC_CLOCK_NEAR_LIMIT)
			c->near_limit++;
		else
			c->own_id++;
	}
	table_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	return counts;
}

/* Counts one value of a column. */
static void
cc_metrics_value(CcColumnStat *st, Datum d)
{
	cc_stored	s;
	struct varlena *p = cc_datum_stored(d, &s);

	if (s.tombstone)
	{
		st->tombstones++;
		goto done;
	}
	st->counters++;
	st->shards += (int64) s.n;
	if ((int64) s.n > st->max_shards)
		st->max_shards = (int64) s.n;
	if (s.n < CC_METRICS_BUCKETS)
		st->buckets[s.n]++;
	else
	{
		if (st->nbig == st->capbig)
		{
			st->capbig = st->capbig == 0 ? 64 : st->capbig * 2;
			st->big = st->big == NULL
				? MemoryContextAlloc(st->cxt, st->capbig * sizeof(int64))
				: repalloc(st->big, st->capbig * sizeof(int64));
		}
		st->big[st->nbig++] = (int64) s.n;
	}

	/*
	 * Writers: most values of a column carry the same ids in the same
	 * order, so an id equal to the one remembered at its place (an id
	 * already counted) needs no lookup.
	 */
	for (size_t i = 0; i < s.n; i++)
	{
		const unsigned char *id = cc_stored_record(s.shards, i, s.lay);

		if (i < (size_t) st->nprev && memcmp(st->prev[i], id, CC_ID_LEN) == 0)
			continue;
		(void) hash_search(st->writers, id, HASH_ENTER, NULL);
		if (i < CC_METRICS_PREV)
		{
			memcpy(st->prev[i], id, CC_ID_LEN);
			if ((int) i >= st->nprev)
				st->nprev = (int) i + 1;
		}
	}

	/* Fold records, and the retired writers whose fold is pending here. */
	if (s.nf > 0)
	{
		cc_folded	f;

		st->with_folds++;
		cc_stored_folded(&s, s.lay != CC_LAY_WIDE ? palloc(s.n * CC_SHARD_SIZE) : NULL, &f);
		for (size_t i = 0; i < f.nf; i++)
		{
			const unsigned char *retired = f.folds + i * CC_FOLD_SIZE;
			bool		present;
			int64_t		wraps,
						low;

			/* records are sorted by retired id: once per retired writer */
			if (i > 0 && memcmp(retired, f.folds + (i - 1) * CC_FOLD_SIZE, CC_ID_LEN) == 0)
				continue;
			cc_fold_outstanding(&f, retired, &present, &wraps, &low);
			if (present || wraps != 0 || low != 0)
				st->pending++;
		}
	}
done:
	if ((Pointer) p != DatumGetPointer(d))
		pfree(p);
}

/*
 * The q-th quantile (q = num / den, 0 < q <= 1) of the shard counts, by
 * nearest rank: the count of the ceil(q N)-th counter in ascending order.
 * At least one counter.
 */
static int64
cc_metrics_quantile(CcColumnStat *st, int64 num, int64 den)
{
	int64		rank = (st->counters * num + den - 1) / den;
	int64		seen = 0;

	for (int n = 0; n < CC_METRICS_BUCKETS; n++)
	{
		seen += st->buckets[n];
		if (seen >= rank)
			return n;
	}
	qsort(st->big, st->nbig, sizeof(int64), cc_int64_cmp);
	return st->big[rank - seen - 1];
}

/*
 * Reads one table's counter columns attnums[0..ncols) in one scan, into
 * stats[0..ncols).
 */
static void
cc_metrics_scan(Relation rel, CcColumnStat **stats, const AttrNumber *attnums,
				int ncols, MemoryContext rowcxt)
{
	Snapshot	snap = RegisterSnapshot(GetActiveSnapshot());
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	TableScanDesc scan;

	scan = cc_table_beginscan(rel, snap);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(rowcxt);
		for (int k = 0; k < ncols; k++)
		{
			bool		isnull;
			Datum		d = slot_getattr(slot, attnums[k], &isnull);

			if (!isnull)
				cc_metrics_value(stats[k], d);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snap);
}

/*
 * Opens relid for a scan, or NULL: dropped meanwhile, no data here, or
 * locked by someone else beyond lock_timeout (a WARNING: the table is
 * skipped, as a SELECT of it would fail, and the scrape goes on without
 * its figures; counter_crdt_health() counts the tables it skips so).
 */
static Relation
cc_metrics_open(Oid relid)
{
	Relation	rel;

	if (!cc_lock_within_timeout(relid, AccessShareLock))
	{
		ereport(WARNING,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("counter_crdt metrics skip table %s: it could not be locked within lock_timeout",
						get_rel_name(relid) ? get_rel_name(relid) : "(dropped)")));
		return NULL;
	}
	rel = try_table_open(relid, NoLock);
	if (rel == NULL)			/* dropped before it was locked */
		UnlockRelationOid(relid, AccessShareLock);
	/* an unlogged table on a standby: no data here (health names it) */
	else if (cc_no_data_here(rel->rd_rel->relpersistence))
	{
		table_close(rel, AccessShareLock);
		rel = NULL;
	}
	return rel;
}

/* Makes st ready to count (its writers hash in the current context). */
static void
cc_metrics_stat_init(CcColumnStat *st)
{
	HASHCTL		ctl;

	st->cxt = CurrentMemoryContext;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = CC_ID_LEN;
	ctl.entrysize = CC_ID_LEN;
	ctl.hcxt = CurrentMemoryContext;
	st->writers = hash_create("counter_crdt writers", 64, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
cc_metrics_stat_free(CcColumnStat *st)
{
	hash_destroy(st->writers);
	if (st->big)
		pfree(st->big);
}

/*
 * The figures of one counter column: of a table with storage, or of a
 * table as its users name it (a table that is not a partition, or the
 * topmost partitioned table of partitions, their counts summed under it).
 */
typedef struct CcTableStat
{
	CcColumn	col;			/* the column of the table it is of */
	const char *nspname;
	const char *name;			/* the table's name, unqualified */
	int64		partitions;		/* partitions read into it */
	int64		scanned;		/* tables read into it */
	int64		own_id;
	int64		near_limit;
	CcColumnStat st;
} CcTableStat;

/*
 * A counter column of a table with storage, and the table its figures are
 * shown under: itself, or where named its topmost partitioned table.
 */
typedef struct CcMetricsCol
{
	const CcColumn *col;
	Oid			top;
	const char *nspname;		/* of top */
	const char *name;
	bool		gone;			/* top dropped meanwhile */
} CcMetricsCol;

/* Orders columns by their table's schema and name, the table, then the column. */
static int
cc_metrics_col_cmp(const void *a, const void *b)
{
	const CcMetricsCol *x = a,
			   *y = b;
	int			c = strcmp(x->nspname, y->nspname);

	if (c == 0)
		c = strcmp(x->name, y->name);
	if (c == 0)
		c = (x->top > y->top) - (x->top < y->top);
	if (c == 0)
		c = (x->col->relid > y->col->relid) - (x->col->relid < y->col->relid);
	if (c == 0)
		c = (x->col->attnum > y->col->attnum) - (x->col->attnum < y->col->attnum);
	return c;
}

/*
 * The table that relid's figures are shown under where named: its topmost
 * partitioned table, or itself when it is no partition, or a partition
 * being detached (DETACH ... CONCURRENTLY waiting or interrupted: its
 * parent's queries no longer read it, and it has no ancestors to name).
 */
static Oid
cc_metrics_top(Oid relid)
{
	List	   *ancestors;
	Oid			top;

	if (!get_rel_relispartition(relid))
		return relid;
	ancestors = get_partition_ancestors(relid);
	top = ancestors == NIL ? relid : llast_oid(ancestors);
	list_free(ancestors);
	return top;
}

/*
 * Whether the caller sees the figures of col's table: a member of
 * pg_monitor does; another role when it may look the table up (USAGE on
 * its schema), may SELECT the table or the column, and no row security
 * applies to it (the figures of rows a policy hides would tell of them).
 */
static bool
cc_metrics_visible(const CcColumn *col, bool monitor)
{
	Oid			user = GetUserId();
	Oid			nsp;
	bool		missing = false;

	if (monitor)
		return true;
	/* no lock is held yet: a table or schema dropped meanwhile is not seen */
	nsp = get_rel_namespace(col->relid);
	if (!OidIsValid(nsp) || !SearchSysCacheExists1(NAMESPACEOID, ObjectIdGetDatum(nsp)) ||
#if PG_VERSION_NUM >= 160000
		object_aclcheck(NamespaceRelationId, nsp, user, ACL_USAGE) != ACLCHECK_OK
#else
		pg_namespace_aclcheck(nsp, user, ACL_USAGE) != ACLCHECK_OK
#endif
		)
		return false;
	if (pg_class_aclcheck_ext(col->relid, user, ACL_SELECT, &missing) != ACLCHECK_OK &&
		(missing ||
		 pg_attribute_aclcheck_ext(col->relid, col->attnum, user, ACL_SELECT,
								   &missing) != ACLCHECK_OK))
		return false;
	return !missing && check_enable_rls(col->relid, InvalidOid, true) != RLS_ENABLED;
}

/*
 * The group of mc's column in groups[0..*ngroups), made on first sight;
 * NULL when the caller does not see its table (or it went meanwhile).
 */
static CcTableStat *
cc_table_group(CcTableStat **groups, int *ngroups, const CcMetricsCol *mc, bool monitor)
{
	CcTableStat *t;

	for (int g = 0; g < *ngroups; g++)
		if (strcmp(groups[g]->col.attname, mc->col->attname) == 0)
			return groups[g]->scanned < 0 ? NULL : groups[g];
	t = palloc0(sizeof(CcTableStat));
	t->col = *mc->col;
	t->col.relid = mc->top;
	if (mc->top != mc->col->relid)
		t->col.attnum = get_attnum(mc->top, mc->col->attname);
	t->nspname = mc->nspname;
	t->name = mc->name;
	groups[(*ngroups)++] = t;
	if (mc->gone || t->col.attnum == InvalidAttrNumber ||
		!cc_metrics_visible(&t->col, monitor))
	{
		t->scanned = -1;		/* remembered as not seen */
		return NULL;
	}
	cc_metrics_stat_init(&t->st);
	return t;
}

/* Orders a table's groups by column number. */
static int
cc_table_stat_cmp(const void *a, const void *b)
{
	const CcTableStat *x = *(CcTableStat *const *) a,
			   *y = *(CcTableStat *const *) b;

	return (x->col.attnum > y->col.attnum) - (x->col.attnum < y->col.attnum);
}

/* Puts the row of one group that was read. */
typedef void (*CcMetricsEmit) (ReturnSetInfo *rsinfo, CcTableStat *t);

/*
 * Reads one table with storage, cols[0..n) its counter columns, into the
 * groups of the table they are shown under (made as needed).
 */
static void
cc_metrics_table(const CcMetricsCol *cols, int n, CcTableStat **groups, int *ngroups,
				 bool monitor, HTAB *conflicts, MemoryContext rowcxt)
{
	Oid			relid = cols[0].col->relid;
	CcColumnStat **ptrs = palloc(n * sizeof(CcColumnStat *));
	CcTableStat **tables = palloc(n * sizeof(CcTableStat *));
	AttrNumber *attnums = palloc(n * sizeof(AttrNumber));
	int			nvisible = 0;
	Relation	rel;

	for (int k = 0; k < n; k++)
	{
		CcTableStat *t = cc_table_group(groups, ngroups, &cols[k], monitor);

		if (t == NULL)
			continue;
		tables[nvisible] = t;
		ptrs[nvisible] = &t->st;
		attnums[nvisible] = cols[k].col->attnum;
		nvisible++;
	}
	rel = nvisible > 0 ? cc_metrics_open(relid) : NULL;
	if (rel != NULL)			/* else none visible, gone, locked or no data */
	{
		cc_metrics_scan(rel, ptrs, attnums, nvisible, rowcxt);
		table_close(rel, AccessShareLock);
		for (int k = 0; k < nvisible; k++)
		{
			CcConflictKey key;
			CcConflictCount *c;

			memset(&key, 0, sizeof(key));
			key.relid = relid;
			key.attnum = attnums[k];
			c = hash_search(conflicts, &key, HASH_FIND, NULL);
			if (c != NULL)
			{
				tables[k]->own_id += c->own_id;
				tables[k]->near_limit += c->near_limit;
			}
			tables[k]->scanned++;
			if (tables[k]->col.relid != relid)
				tables[k]->partitions++;
		}
	}
	pfree(ptrs);
	pfree(tables);
	pfree(attnums);
}

/*
 * Reads every counter column of the tables with storage that the caller
 * sees, each table in one scan, into groups: one per column of a table with
 * storage, or where named of a table as its users name it.  The columns
 * are taken table by table as they are shown (in the order of
 * cc_sweep_columns(), or where named by schema, name and column), so that
 * each shown table's groups are emitted and freed before the next one's are
 * made: memory grows with the largest partitioned table, not the schema.
 */
static void
cc_metrics_collect(ReturnSetInfo *rsinfo, Oid nspid, bool named, CcMetricsEmit emit)
{
	bool		monitor = has_privs_of_role(GetUserId(), ROLE_PG_MONITOR);
	List	   *list = cc_sweep_columns(InvalidOid, cc_counter_type(nspid));
	HTAB	   *conflicts = cc_metrics_conflicts();
	int			ncols = list_length(list);
	CcMetricsCol *cols = palloc0(Max(ncols, 1) * sizeof(CcMetricsCol));
	MemoryContext rowcxt;
	int			i;

	for (i = 0; i < ncols; i++)
	{
		CcMetricsCol *mc = &cols[i];

		mc->col = list_nth(list, i);
		/* the columns of one table lie together: their top and its names once */
		if (i > 0 && cols[i - 1].col->relid == mc->col->relid)
		{
			mc->top = cols[i - 1].top;
			mc->nspname = cols[i - 1].nspname;
			mc->name = cols[i - 1].name;
			mc->gone = cols[i - 1].gone;
			continue;
		}
		mc->top = named ? cc_metrics_top(mc->col->relid) : mc->col->relid;
		mc->name = get_rel_name(mc->top);
		mc->nspname = mc->name == NULL ? NULL :
			get_namespace_name(get_rel_namespace(mc->top));
		if (mc->nspname == NULL)	/* dropped meanwhile: sorts first, shows nothing */
			mc->gone = true, mc->nspname = mc->name = "";
		CHECK_FOR_INTERRUPTS();
	}
	if (named)
		qsort(cols, ncols, sizeof(CcMetricsCol), cc_metrics_col_cmp);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "counter_crdt metrics row",
								   ALLOCSET_DEFAULT_SIZES);
	i = 0;
	while (i < ncols)
	{
		Oid			top = cols[i].top;
		int			end = i;
		int			ngroups = 0;
		CcTableStat **groups;

		/* the columns shown under one table */
		while (end < ncols && cols[end].top == top)
			end++;
		groups = palloc((end - i) * sizeof(CcTableStat *));
		while (i < end)
		{
			int			n = 1;

			CHECK_FOR_INTERRUPTS();
			while (i + n < end && cols[i + n].col->relid == cols[i].col->relid)
				n++;
			cc_metrics_table(&cols[i], n, groups, &ngroups, monitor, conflicts, rowcxt);
			i += n;
		}
		qsort(groups, ngroups, sizeof(CcTableStat *), cc_table_stat_cmp);
		for (int g = 0; g < ngroups; g++)
		{
			CcTableStat *t = groups[g];

			if (t->scanned > 0)
				emit(rsinfo, t);
			if (t->scanned >= 0)
				cc_metrics_stat_free(&t->st);
			pfree(t);
		}
		pfree(groups);
	}
	MemoryContextDelete(rowcxt);
}

/*
 * counter_crdt_metrics(): per counter column of a table with storage that
 * the caller sees (the header says which), in order of table name and
 * column: table_name, column_name, counters, tombstones, writers, shards,
 * shards_max, shards_p99, values_with_folds, pending_folds,
 * own_id_conflicts, clocks_near_limit.
 */
static void
cc_metrics_emit(ReturnSetInfo *rsinfo, CcTableStat *t)
{
	CcColumnStat *st = &t->st;
	Datum		values[CC_METRICS_COLS];
	bool		nulls[CC_METRICS_COLS];

	memset(nulls, 0, sizeof(nulls));
	values[0] = ObjectIdGetDatum(t->col.relid);
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(t->col.attname));
	values[2] = Int64GetDatum(st->counters);
	values[3] = Int64GetDatum(st->tombstones);
	values[4] = Int64GetDatum((int64) hash_get_num_entries(st->writers));
	values[5] = Int64GetDatum(st->shards);
	values[6] = Int64GetDatum(st->max_shards);
	values[7] = Int64GetDatum(st->counters > 0 ? cc_metrics_quantile(st, 99, 100) : 0);
	values[8] = Int64GetDatum(st->with_folds);
	values[9] = Int64GetDatum(st->pending);
	values[10] = Int64GetDatum(t->own_id);
	values[11] = Int64GetDatum(t->near_limit);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(counter_crdt_metrics);
Datum
counter_crdt_metrics(PG_FUNCTION_ARGS)
{
	InitMaterializedSRF(fcinfo, 0);
	cc_metrics_collect((ReturnSetInfo *) fcinfo->resultinfo,
					   get_func_namespace(fcinfo->flinfo->fn_oid), false, cc_metrics_emit);
	return (Datum) 0;
}

/*
 * counter_crdt_table_metrics(): per counter column of each table as its
 * users name it that the caller sees, in order of schema, table and
 * column: schemaname, relname, column_name, partitions, counters,
 * tombstones, writers, shards, shards_p50, shards_p99, shards_max,
 * values_with_folds, pending_folds, own_id_conflicts, clocks_near_limit.
 * A partitioned table stands for its partitions (writers are distinct over
 * all of them, the quantiles are of all their counters); it has a row once
 * one of its partitions with data here was read.
 */
static void
cc_table_metrics_emit(ReturnSetInfo *rsinfo, CcTableStat *t)
{
	CcColumnStat *st = &t->st;
	Datum		values[CC_TABLE_METRICS_COLS];
	bool		nulls[CC_TABLE_METRICS_COLS];

	memset(nulls, 0, sizeof(nulls));
	values[0] = DirectFunctionCall1(namein, CStringGetDatum(t->nspname));
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(t->name));
	values[2] = DirectFunctionCall1(namein, CStringGetDatum(t->col.attname));
	values[3] = Int64GetDatum(t->partitions);
	values[4] = Int64GetDatum(st->counters);
	values[5] = Int64GetDatum(st->tombstones);
	values[6] = Int64GetDatum((int64) hash_get_num_entries(st->writers));
	values[7] = Int64GetDatum(st->shards);
	values[8] = Int64GetDatum(st->counters > 0 ? cc_metrics_quantile(st, 1, 2) : 0);
	values[9] = Int64GetDatum(st->counters > 0 ? cc_metrics_quantile(st, 99, 100) : 0);
	values[10] = Int64GetDatum(st->max_shards);
	values[11] = Int64GetDatum(st->with_folds);
	values[12] = Int64GetDatum(st->pending);
	values[13] = Int64GetDatum(t->own_id);
	values[14] = Int64GetDatum(t->near_limit);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(counter_crdt_table_metrics);
Datum
counter_crdt_table_metrics(PG_FUNCTION_ARGS)
{
	InitMaterializedSRF(fcinfo, 0);
	cc_metrics_collect((ReturnSetInfo *) fcinfo->resultinfo,
					   get_func_namespace(fcinfo->flinfo->fn_oid), true, cc_table_metrics_emit);
	return (Datum) 0;
}
