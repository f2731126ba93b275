/*
 * health.c
 *	  counter_crdt_health(): what is set up wrong for replication, and what
 *	  the merge trigger recorded while it applied rows.
 *
 * One row per problem, none when healthy.  Per table that a publication,
 * a subscription or a pglogical replication set holds: the triggers that
 * counter_crdt_enable_replica_merge() makes (setup.c), what the merge
 * trigger would refuse at apply (table_check.c), the guards, publications
 * that publish TRUNCATE, subscriptions with origin = none.  Then what the
 * merge trigger recorded: own-id conflicts and clocks near their end
 * (conflict_log.c), and replicated rows from which it dropped writers whose
 * folds were forgotten on this server (dropped_writers.c).  On a standby,
 * the unlogged tables with a counter column, whose rows counter_crdt_stat
 * cannot show there (metrics.c).
 *
 * Health reads catalogs and the extension's own (logged) tables, and opens
 * no table's data: it works on a hot standby too.
 */
#include "postgres.h"

#include "base/extension.h"
#include "replica/conflict_log.h"
#include "replica/dropped_writers.h"
#include "operations/setup.h"
#include "writers/sweep.h"
#include "replica/table_check.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "core/cc_ids.h"

typedef struct CcHealth
{
	Tuplestorestate *store;
	TupleDesc	desc;
} CcHealth;

static void
cc_health_row(CcHealth *h, const char *check, const char *object,
			  const char *problem, const char *hint)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	values[0] = CStringGetTextDatum(check);
	values[1] = CStringGetTextDatum(object);
	values[2] = CStringGetTextDatum(problem);
	values[3] = CStringGetTextDatum(hint);
	tuplestore_putvalues(h->store, h->desc, values, nulls);
}

/* The hint that repairs a table's triggers. */
static char *
cc_enable_hint(const char *object)
{
	return psprintf("Run SELECT counter_crdt_enable_replica_merge(%s); on this server.",
					quote_literal_cstr(object));
}

/* A row of counter_crdt_health() held back, so that the rows keep their order. */
typedef struct CcHeldRow
{
	const char *check;
	char	   *problem;
	char	   *hint;
} CcHeldRow;

static List *
cc_hold_row(List *rows, const char *check, char *problem, char *hint)
{
	CcHeldRow  *row = palloc(sizeof(CcHeldRow));

	row->check = check;
	row->problem = problem;
	row->hint = hint;
	return lappend(rows, row);
}

static void
cc_health_held_rows(CcHealth *h, const char *object, List *rows)
{
	ListCell   *lc;

	foreach(lc, rows)
	{
		CcHeldRow  *row = lfirst(lc);

		cc_health_row(h, row->check, object, row->problem, row->hint);
	}
}

/*
 * Whether a key update of the table is refused for local statements: it has
 * no primary key, or the key guard fires locally for every key column.
 */
static bool
cc_health_key_refused(const CcTableInfo *info, const CcTriggers *trg)
{
	return bms_is_empty(info->pkey) ||
		(trg->key_guard != NULL && cc_fires_locally(trg->key_guard) &&
		 cc_guard_covers_key(trg->key_guard, info->pkey));
}

/*
 * The guards of counter_crdt_local_guard() on the table itself: a key update
 * that is not refused stops every subscriber's apply (and moves a row out of
 * its partition by a delete).  The AFTER key check (since 1.6) is looked for
 * on the table here; its clones on the partitions, and the truncate guard
 * of the table and of each partition, by cc_health_walk().
 */
static void
cc_health_guards(CcHealth *h, Relation rel, const char *object,
				 const CcTableInfo *info, const CcTriggers *trg)
{
	bool		key_refused = cc_health_key_refused(info, trg);

	if (!key_refused)
		cc_health_row(h, "key_update_not_refused", object,
					  psprintf("An UPDATE of the primary key of table %s is not refused on this server: "
							   "every server that applies it would stop replicating with an error, "
							   "and an UPDATE that moves a row to another partition would delete its counters.",
							   object),
					  cc_enable_hint(object));
	/* without the key guard, the row above says it: one call makes both */
	else if (!bms_is_empty(info->pkey) && !cc_guard_notes_moves(rel, trg->key_guard))
		cc_health_row(h, "key_change_by_trigger_not_refused", object,
					  psprintf("A move of a row of table %s to another partition by a BEFORE UPDATE trigger that changes the key "
							   "is not refused on this server, when the UPDATE sets no key column (the key guard fires only for "
							   "UPDATEs of the key columns; counter_crdt_enable_replica_merge() makes it fire for every UPDATE "
							   "of a partitioned table since 1.6): the row's counters would become tombstones on every server.",
							   object),
					  cc_enable_hint(object));
	if (key_refused && !bms_is_empty(info->pkey) &&
		(trg->key_check == NULL || !cc_fires_locally(trg->key_check) ||
		 !cc_check_covers_key(trg->key_check, info->pkey)))
		cc_health_row(h, "key_change_by_trigger_not_refused", object,
					  psprintf("A change of the primary key of table %s by a BEFORE UPDATE trigger that fires after the key guard "
							   "is not refused on this server (the table lacks the AFTER UPDATE check of its key that "
							   "counter_crdt_enable_replica_merge() makes since 1.6): "
							   "every server that applies it would stop replicating with an error.",
							   object),
					  cc_enable_hint(object));
}

/*
 * The one row of a catalog query of the health check, $1... being args; its
 * columns are read with SPI_getvalue() (NULL for a null).
 */
static HeapTuple
cc_health_one_row(const char *sql, int nargs, Oid *argtypes, Datum *args,
				  const char *what)
{
	if (SPI_execute_with_args(sql, nargs, argtypes, args, NULL, true, 0) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "counter_crdt_health: reading the %s failed", what);
	return SPI_tuptable->vals[0];
}

/*
 * The tables each publication of this database publishes, as
 * pg_publication_tables lists them (FOR ALL TABLES, schemas and partitioned
 * tables expanded: their leaves, or with publish_via_partition_root the
 * topmost published table), read from the catalogs alone: since 16 that
 * view opens every published table, and so waits behind (or, with
 * lock_timeout, fails on) one that someone's DDL holds.  CTE names pb, pd,
 * published (pubid, relid); a WITH RECURSIVE list goes on after it.
 */
#define CC_PUBLISHED_CTE \
	"WITH RECURSIVE pb(pubid, relid, viaroot) AS (" \
	"  SELECT pr.prpubid, pr.prrelid, p.pubviaroot FROM pg_catalog.pg_publication_rel pr" \
	"    JOIN pg_catalog.pg_publication p ON p.oid OPERATOR(pg_catalog.=) pr.prpubid" \
	"  UNION SELECT pn.pnpubid, c.oid, p.pubviaroot FROM pg_catalog.pg_publication_namespace pn" \
	"    JOIN pg_catalog.pg_publication p ON p.oid OPERATOR(pg_catalog.=) pn.pnpubid" \
	"    JOIN pg_catalog.pg_class c ON c.relnamespace OPERATOR(pg_catalog.=) pn.pnnspid" \
	"   WHERE c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[])" \
	"     AND c.relpersistence OPERATOR(pg_catalog.=) 'p'" \
	"  UNION SELECT p.oid, c.oid, p.pubviaroot FROM pg_catalog.pg_publication p" \
	"    JOIN pg_catalog.pg_class c ON p.puballtables" \
	"   WHERE c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[])" \
	"     AND c.relpersistence OPERATOR(pg_catalog.=) 'p'" \
	"     AND c.oid OPERATOR(pg_catalog.>=) 16384::pg_catalog.oid)," \
	" pd(pubid, relid, viaroot) AS (" \
	"  SELECT pubid, relid, viaroot FROM pb" \
	"  UNION SELECT pd.pubid, i.inhrelid, pd.viaroot FROM pd" \
	"    JOIN pg_catalog.pg_inherits i ON i.inhparent OPERATOR(pg_catalog.=) pd.relid)," \
	" published(pubid, relid) AS (" \
	"  SELECT pd.pubid, pd.relid FROM pd JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) pd.relid" \
	"   WHERE CASE WHEN pd.viaroot" \
	"         THEN NOT EXISTS (SELECT FROM pd a JOIN pg_catalog.pg_inherits i ON i.inhparent OPERATOR(pg_catalog.=) a.relid" \
	"                           WHERE a.pubid OPERATOR(pg_catalog.=) pd.pubid AND i.inhrelid OPERATOR(pg_catalog.=) pd.relid)" \
	"         ELSE c.relkind OPERATOR(pg_catalog.=) 'r' END)"

/* Publications of this database that publish TRUNCATE of the table. */
static void
cc_health_truncate_published(CcHealth *h, Relation rel, const char *object)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	HeapTuple	row;
	char	   *pubs;

	args[0] = ObjectIdGetDatum(RelationGetRelid(rel));
	row = cc_health_one_row(CC_PUBLISHED_CTE
							" SELECT pg_catalog.string_agg(DISTINCT p.pubname::pg_catalog.text, ', ')"
							"  FROM published pt"
							"  JOIN pg_catalog.pg_publication p ON p.oid OPERATOR(pg_catalog.=) pt.pubid"
							" WHERE p.pubtruncate AND pt.relid OPERATOR(pg_catalog.=) $1",
							1, argtypes, args, "publications");
	pubs = SPI_getvalue(row, SPI_tuptable->tupdesc, 1);
	if (pubs == NULL)
		return;
	cc_health_row(h, "truncate_published", object,
				  psprintf("Table %s is in publication%s %s, which publish%s TRUNCATE: "
						   "a TRUNCATE here would empty the table on every subscriber, shards of their own writers included.",
						   object, strchr(pubs, ',') ? "s" : "", pubs, strchr(pubs, ',') ? "" : "es"),
				  psprintf("ALTER PUBLICATION ... SET (publish = 'insert, update, delete') for %s.", pubs));
}

#if PG_VERSION_NUM >= 160000
/*
 * Subscriptions with origin = none that bring the table to a server that
 * receives it from two or more subscriptions: each publisher then sends only
 * its own changes, and its first write of a row that it received from a third
 * server is an UPDATE, which this server skips while it lacks the row.  With
 * one subscription (two servers) nothing is missing.
 */
static void
cc_health_origin_none(CcHealth *h, Relation rel, const char *object)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	HeapTuple	row;
	char	   *subs;
	char	   *count;

	args[0] = ObjectIdGetDatum(RelationGetRelid(rel));
	row = cc_health_one_row("SELECT pg_catalog.string_agg(s.subname::pg_catalog.text, ', ' ORDER BY s.subname)"
							"         FILTER (WHERE s.suborigin OPERATOR(pg_catalog.=) 'none'),"
							"       pg_catalog.count(*)"
							"  FROM pg_catalog.pg_subscription s"
							"  JOIN pg_catalog.pg_database d ON d.oid OPERATOR(pg_catalog.=) s.subdbid"
							" WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()"
							"   AND EXISTS (SELECT FROM pg_catalog.pg_subscription_rel r"
							"                WHERE r.srsubid OPERATOR(pg_catalog.=) s.oid"
							"                  AND r.srrelid OPERATOR(pg_catalog.=) $1)",
							1, argtypes, args, "subscriptions");
	subs = SPI_getvalue(row, SPI_tuptable->tupdesc, 1);
	count = SPI_getvalue(row, SPI_tuptable->tupdesc, 2);
	if (subs == NULL || strcmp(count, "1") == 0)
		return;
	cc_health_row(h, "subscription_origin_none", object,
				  psprintf("Table %s comes to this server by %s subscriptions, and %s %s origin = none: "
						   "a publisher then sends only the changes made on it, and an increment it makes to a row that it received from a third server "
						   "is skipped here (an UPDATE of a row that has not arrived yet) and lost on this server.",
						   object, count, subs, strchr(subs, ',') ? "have" : "has"),
				  psprintf("ALTER SUBSCRIPTION ... SET (origin = any) for %s; then compare the table with the other servers' copies and repair the rows that differ (counter_crdt_digest_agg, counter_crdt_difference).",
						   subs));
}
#endif

/*
 * One walk of the table and, when it is partitioned, of each of its
 * partitions, gathering the problems of every clone:
 *
 *  - into *clone_rows, on each partition, the clones of the merge, delete
 *    and key guard triggers, where the table's own trigger is right: a
 *    clone can be disabled alone (ALTER TABLE partition DISABLE TRIGGER),
 *    and then that partition's rows overwrite, delete or change keys as the
 *    table's rows would without the trigger;
 *  - into *guard_rows, where the extension has the guards: the clone of the
 *    AFTER key check on each partition, where the table refuses key updates
 *    and has the check, and the truncate guard of the table and of each
 *    partition (a TRUNCATE of a partition fires only its own triggers): a
 *    TRUNCATE that is not refused drops this server's shards.
 *
 * The rows are held so that counter_crdt_health() returns them where it
 * always did: the clones' after the table's merge and delete triggers, the
 * guards' after the table's key guard.
 */
static void
cc_health_walk(const CcExtension *ext, Relation rel, const char *object,
			   const CcTriggers *trg, bool key_refused,
			   List **clone_rows, List **guard_rows)
{
	List	   *rels = list_make1_oid(RelationGetRelid(rel));
	ListCell   *lc;
	bool		guards = OidIsValid(ext->guard_fn);
	bool		merge_ok = trg->merge != NULL && trg->merge->tgenabled == TRIGGER_FIRES_ON_REPLICA;
	bool		delete_ok = trg->delete != NULL && cc_fires_locally(trg->delete);
	bool		guard_ok = guards && trg->key_guard != NULL && cc_fires_locally(trg->key_guard);
	bool		check_ok = guards && key_refused && trg->key_check != NULL &&
		cc_fires_locally(trg->key_check);

	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		rels = find_all_inheritors(RelationGetRelid(rel), AccessShareLock, NULL);
	foreach(lc, rels)
	{
		Oid			relid = lfirst_oid(lc);
		bool		self = relid == RelationGetRelid(rel);
		Relation	r = self ? rel : table_open(relid, NoLock);
		CcTriggers	t;
		char	   *part = self ? NULL :
			DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));

		cc_find_triggers(r, ext, &t);
		if (!self && merge_ok && (t.merge == NULL || t.merge->tgenabled != TRIGGER_FIRES_ON_REPLICA))
			*clone_rows = cc_hold_row(*clone_rows,
									  t.merge == NULL ? "merge_trigger_missing" : "merge_trigger_not_replica",
									  psprintf("The clone of trigger \"%s\" on partition %s of table %s %s: %s.",
											   trg->merge->tgname, part, object,
											   t.merge == NULL ? "is missing" :
											   t.merge->tgenabled == TRIGGER_DISABLED ? "is disabled" :
											   t.merge->tgenabled == TRIGGER_FIRES_ALWAYS ? "is enabled ALWAYS, not as REPLICA" :
											   "is enabled as an ordinary trigger, not as REPLICA",
											   t.merge != NULL && t.merge->tgenabled == TRIGGER_FIRES_ALWAYS ?
											   "it also fires for local writes of that partition" :
											   "applied rows of that partition overwrite its counters, and increments are lost"),
									  cc_enable_hint(object));
		if (!self && delete_ok && (t.delete == NULL || !cc_fires_locally(t.delete)))
			*clone_rows = cc_hold_row(*clone_rows, "delete_trigger_missing",
									  psprintf("The clone of trigger \"%s\" on partition %s of table %s does not fire for local deletes: "
											   "a DELETE of that partition's rows is a plain delete, which increments made elsewhere undo.",
											   trg->delete->tgname, part, object),
									  cc_enable_hint(object));
		if (!self && guard_ok && (t.key_guard == NULL || !cc_fires_locally(t.key_guard)))
			*clone_rows = cc_hold_row(*clone_rows, "key_update_not_refused",
									  psprintf("An UPDATE of the primary key in partition %s of table %s is not refused on this server "
											   "(the partition's clone of trigger \"%s\" does not fire for local statements): "
											   "every server that applies it would stop replicating with an error, "
											   "and an UPDATE that moves a row to another partition would delete its counters.",
											   part, object, trg->key_guard->tgname),
									  cc_enable_hint(object));
		if (!self && check_ok && (t.key_check == NULL || !cc_fires_locally(t.key_check)))
			*guard_rows = cc_hold_row(*guard_rows, "key_change_by_trigger_not_refused",
									  psprintf("A change of the primary key in partition %s by a BEFORE UPDATE trigger that fires after the key guard "
											   "is not refused on this server (the partition's AFTER UPDATE check of its key does not fire for local statements): "
											   "every server that applies it would stop replicating with an error.",
											   part),
									  cc_enable_hint(object));
		if (guards && (t.truncate_guard == NULL || !cc_fires_locally(t.truncate_guard)))
			*guard_rows = cc_hold_row(*guard_rows, "truncate_not_refused",
									  psprintf("A TRUNCATE of %s%s is not refused on this server: "
											   "it would drop this server's shards, and the increments made after it would be lost against the other servers' copies.",
											   self ? "table " : "partition ", self ? object : part),
									  cc_enable_hint(object));
		if (!self)
			table_close(r, NoLock);
	}
}

/* The checks of one table in a publication or a subscription. */
static void
cc_health_table(CcHealth *h, const CcExtension *ext, Oid relid)
{
	Relation	rel;
	CcTableInfo info;
	CcTriggers	trg;
	List	   *problems;
	List	   *clone_rows = NIL;
	List	   *guard_rows = NIL;
	ListCell   *lc;
	char	   *object;

	/* AccessShareLock, as a SELECT takes; a table dropped meanwhile is gone */
	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
		return;
	CHECK_FOR_INTERRUPTS();
	object = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
	cc_find_triggers(rel, ext, &trg);
	problems = cc_table_check(rel, ext->counter_type, &info);
	cc_health_walk(ext, rel, object, &trg, cc_health_key_refused(&info, &trg),
				   &clone_rows, &guard_rows);

	if (trg.merge == NULL)
		cc_health_row(h, "merge_trigger_missing", object,
					  psprintf("Table %s replicates counters but has no counter_crdt_replica_merge() trigger: "
							   "applied rows overwrite its counters (last writer wins), and increments are lost.",
							   object),
					  cc_enable_hint(object));
	else if (trg.merge->tgenabled != TRIGGER_FIRES_ON_REPLICA)
		cc_health_row(h, "merge_trigger_not_replica", object,
					  psprintf("Trigger \"%s\" of table %s %s: %s.",
							   trg.merge->tgname, object,
							   trg.merge->tgenabled == TRIGGER_DISABLED ? "is disabled" :
							   trg.merge->tgenabled == TRIGGER_FIRES_ALWAYS ? "is enabled ALWAYS, not as REPLICA" :
							   "is enabled as an ordinary trigger, not as REPLICA (ALTER TABLE ... ENABLE TRIGGER ALL does this)",
							   trg.merge->tgenabled == TRIGGER_FIRES_ALWAYS ?
							   "it also fires for local writes" :
							   "it does not fire in replication apply, so applied rows overwrite the table's counters and increments are lost"),
					  cc_enable_hint(object));
	if (trg.delete == NULL || !cc_fires_locally(trg.delete))
		cc_health_row(h, "delete_trigger_missing", object,
					  psprintf("Table %s replicates counters but %s: "
							   "a local DELETE is a plain delete, which increments made elsewhere undo.",
							   object,
							   trg.delete == NULL ?
							   "has no counter_crdt_delete_as_tombstone() trigger" :
							   psprintf("its trigger \"%s\" does not fire for local deletes", trg.delete->tgname)),
					  cc_enable_hint(object));

	cc_health_held_rows(h, object, clone_rows);

	foreach(lc, problems)
	{
		CcTableProblem *p = (CcTableProblem *) lfirst(lc);

		cc_health_row(h, p->check, object,
					  psprintf("The %s. %s", p->message, p->detail), p->hint);
	}
	if (OidIsValid(ext->guard_fn))
		cc_health_guards(h, rel, object, &info, &trg);
	cc_health_held_rows(h, object, guard_rows);
	cc_health_truncate_published(h, rel, object);
#if PG_VERSION_NUM >= 160000
	cc_health_origin_none(h, rel, object);
#endif
	relation_close(rel, AccessShareLock);
}

/*
 * Tables with a counter column (of counter_crdt or a domain over it) that
 * are in a publication of this database (CC_PUBLISHED_CTE), in one of its
 * subscriptions, or, where pglogical is installed in this database and the
 * caller may read its catalog, in one of pglogical's replication sets;
 * ordered by name.  $1 is the counter type.
 */
static char *
cc_tables_sql(void)
{
	StringInfoData sql;
	Oid			pgl_nsp = get_namespace_oid("pglogical", true);
	Oid			pgl_sets = OidIsValid(pgl_nsp) ?
		get_relname_relid("replication_set_table", pgl_nsp) : InvalidOid;

	/* pglogical's own table, not one a role made in a schema of that name */
	if (!cc_extension_member(get_extension_oid("pglogical", true),
							 RelationRelationId, pgl_sets) ||
		get_rel_relkind(pgl_sets) != RELKIND_RELATION)
		pgl_sets = InvalidOid;

	initStringInfo(&sql);
	appendStringInfoString(&sql,
						   CC_PUBLISHED_CTE
						   ", ct(oid) AS (SELECT $1 UNION"
						   "  SELECT t.oid FROM pg_catalog.pg_type t JOIN ct ON t.typbasetype OPERATOR(pg_catalog.=) ct.oid"
						   "   WHERE t.typtype OPERATOR(pg_catalog.=) 'd')"
						   "SELECT c.oid FROM pg_catalog.pg_class c"
						   " WHERE c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[])"
						   "   AND EXISTS (SELECT FROM pg_catalog.pg_attribute a"
						   "                WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid"
						   "                  AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped"
						   "                  AND a.atttypid OPERATOR(pg_catalog.=) ANY (SELECT oid FROM ct))"
						   "   AND (c.oid OPERATOR(pg_catalog.=) ANY (SELECT srrelid FROM pg_catalog.pg_subscription_rel)"
						   "        OR EXISTS (SELECT FROM published pt WHERE pt.relid OPERATOR(pg_catalog.=) c.oid)");
	if (OidIsValid(pgl_sets) &&
#if PG_VERSION_NUM >= 160000
		object_aclcheck(NamespaceRelationId, pgl_nsp, GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
#else
		pg_namespace_aclcheck(pgl_nsp, GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
#endif
		pg_class_aclcheck(pgl_sets, GetUserId(), ACL_SELECT) == ACLCHECK_OK)
		appendStringInfoString(&sql,
							   " OR c.oid OPERATOR(pg_catalog.=) ANY (SELECT set_reloid FROM pglogical.replication_set_table)");
	appendStringInfoString(&sql, ") ORDER BY c.oid::pg_catalog.regclass::pg_catalog.text");
	return sql.data;
}

/* One row per table with recorded own-id conflicts. */
static void
cc_health_conflicts(CcHealth *h, const CcExtension *ext)
{
	char	   *sql;
	Oid			logid;
	bool		summary;

	/*
	 * Own-id conflicts, then shards whose clock nears its end: from the view
	 * that every role may read (1.4), else from the table (own-id only).
	 */
	logid = cc_conflict_summary_relid();
	summary = OidIsValid(logid);
	if (!summary)
		logid = cc_conflicts_relid();
	if (!OidIsValid(logid))
		return;
	sql = psprintf("SELECT table_name::pg_catalog.text, pg_catalog.count(*),"
				   "       pg_catalog.max(recorded_at)::pg_catalog.text,"
				   "       pg_catalog.string_agg(DISTINCT writer_id::pg_catalog.text, ', '),"
				   "       %s AS near_limit"
				   "  FROM %s GROUP BY 1, 5 ORDER BY 5, 1",
				   summary ? "clock_near_limit" : "false",
				   quote_qualified_identifier(get_namespace_name(get_rel_namespace(logid)),
											  get_rel_name(logid)));
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "counter_crdt_health: reading the recorded conflicts failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *object = SPI_getvalue(tup, desc, 1);
		char	   *count = SPI_getvalue(tup, desc, 2);
		char	   *last = SPI_getvalue(tup, desc, 3);
		char	   *ids = SPI_getvalue(tup, desc, 4);
		char	   *near = SPI_getvalue(tup, desc, 5);

		if (strcmp(near, "t") == 0)
		{
			cc_health_row(h, "writer_clock_near_limit", object,
						  psprintf("%s replicated row%s of table %s brought shards whose clock is near the end of its range (writer%s %s), the last at %s: "
								   "they were written by hand, and once a clock is 9223372036854775807 that writer's increments of the counter fail.",
								   count, strcmp(count, "1") == 0 ? "" : "s", object,
								   strchr(ids, ',') ? "s" : "", ids, last),
						  psprintf("Find who may UPDATE the counter columns of %s and what they wrote (counter_crdt_writer_conflicts has the keys); "
								   "once resolved, clear the rows there as the extension's owner: "
								   "DELETE FROM counter_crdt_writer_conflicts WHERE table_name = %s::regclass AND incoming_clock >= " INT64_FORMAT ";",
								   object, quote_literal_cstr(object), (int64) CC_CLOCK_NEAR_LIMIT));
			continue;
		}
		cc_health_row(h, "writer_id_conflict", object,
					  psprintf("%s replicated row%s of table %s held a newer shard of this server's writer id (%s) than the local row, the last at %s: "
							   "another server writes under the same id, or this server went back in time, and increments may be lost.",
							   count, strcmp(count, "1") == 0 ? "" : "s", object, ids, last),
					  psprintf("Give every server its own writer id (counter_crdt.node_id, or the default, which changes on promotion); "
							   "see counter_crdt_writer_conflicts, and once resolved clear the rows there as its owner: "
							   "DELETE FROM counter_crdt_writer_conflicts WHERE table_name = %s::regclass;",
							   quote_literal_cstr(object)));
	}
}

/*
 * One row per table and subscription (or replication origin, for an apply
 * of another kind) whose applied rows brought shards of writers forgotten
 * on this server, from the columns every role may read.
 */
static void
cc_health_dropped(CcHealth *h)
{
	Oid			logid = cc_dropped_writers_relid(false);
	char	   *sql;

	if (!OidIsValid(logid))
		return;
	sql = psprintf("SELECT d.table_name::pg_catalog.text, d.subscription::pg_catalog.text,"
				   "       pg_catalog.string_agg(DISTINCT d.origin, ', ' ORDER BY d.origin),"
				   "       pg_catalog.count(DISTINCT d.n),"
				   "       pg_catalog.to_char(pg_catalog.min(d.recorded_at), 'YYYY-MM-DD HH24:MI:SSOF'),"
				   "       pg_catalog.to_char(pg_catalog.max(d.recorded_at), 'YYYY-MM-DD HH24:MI:SSOF'),"
				   "       pg_catalog.string_agg(DISTINCT w.w::pg_catalog.text, ', ' ORDER BY w.w::pg_catalog.text),"
				   "       pg_catalog.count(DISTINCT w.w)"
				   "  FROM (SELECT table_name, subscription, origin, recorded_at, writers,"
				   "               pg_catalog.row_number() OVER () AS n FROM %s) d,"
				   "       pg_catalog.unnest(d.writers) AS w(w)"
				   " GROUP BY 1, 2, CASE WHEN d.subscription IS NULL THEN d.origin END"
				   " ORDER BY 1, 2, 3",
				   quote_qualified_identifier(get_namespace_name(get_rel_namespace(logid)),
											  get_rel_name(logid)));
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "counter_crdt_health: reading the dropped writers failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *object = SPI_getvalue(tup, desc, 1);
		char	   *sub = SPI_getvalue(tup, desc, 2);
		char	   *origins = SPI_getvalue(tup, desc, 3);
		char	   *count = SPI_getvalue(tup, desc, 4);
		char	   *first = SPI_getvalue(tup, desc, 5);
		char	   *last = SPI_getvalue(tup, desc, 6);
		char	   *ids = SPI_getvalue(tup, desc, 7);
		bool		one_id = strcmp(SPI_getvalue(tup, desc, 8), "1") == 0;
		bool		one_row = strcmp(count, "1") == 0;
		char	   *from;
		char	   *sender;

		if (sub != NULL)
		{
			from = psprintf("from subscription %s (replication origin%s %s)",
							quote_identifier(sub),
							origins && strchr(origins, ',') ? "s" : "",
							origins ? origins : "unknown");
			sender = psprintf("the publisher of subscription %s", quote_identifier(sub));
		}
		else if (origins != NULL)
		{
			from = psprintf("from replication origin %s", origins);
			sender = psprintf("the server that replication origin %s applies", origins);
		}
		else
		{
			from = pstrdup("applied without a replication origin");
			sender = pstrdup("the server or session that wrote them");
		}
		cc_health_row(h, "forgotten_writer_dropped", object,
					  psprintf("%s replicated row%s of table %s %s brought shards of writer%s %s, whose fold%s forgotten on this server, the first at %s, the last at %s: "
							   "this server dropped them and its totals stay exact, but the rows came from a copy that missed the fold "
							   "(a server started from a backup taken before it, or one that was away while the fold was forgotten), "
							   "and that server counts %s a second time.",
							   count, one_row ? "" : "s", object, from,
							   one_id ? "" : "s", ids, one_id ? " was" : "s were",
							   first, last, one_id ? "the writer" : "those writers"),
					  psprintf("On %s, counter_crdt_writer_report() shows the writers it still carries: "
							   "take it out of the mesh and let it join again as doc/replication.md says for a server made from a backup "
							   "(the mesh's retired writers first), or strip them there with counter_crdt_strip(). "
							   "Once resolved, clear the rows here as the extension's owner: "
							   "DELETE FROM counter_crdt_dropped_writers WHERE table_name = %s::regclass;",
							   sender, quote_literal_cstr(object)));
	}
}

/*
 * The subscriptions of this database's pglogical node that are not
 * replicating, as pglogical.show_subscription_status() says: "down" (enabled,
 * but no apply worker attached to it: pglogical starts it again only on its
 * manager's next pass, and never while a worker slot of the subscription
 * stays registered without a process), "disabled", "initializing" (the copy
 * of its tables runs).  Only where pglogical is installed in this database,
 * the function is pglogical's own (a member of the extension: it reads
 * pglogical's shared memory, which no query can), the caller may use its
 * schema, execute it and read pglogical.local_node, and the node exists (the
 * function fails without one).
 */
static void
cc_health_pglogical_subscriptions(CcHealth *h)
{
	Oid			ext = get_extension_oid("pglogical", true);
	Oid			nsp = get_namespace_oid("pglogical", true);
	Oid			argtypes[1] = {NAMEOID};
	Oid			fn;
	Oid			local;
	HeapTuple	row;

	/* the schema first: looking a function up in it requires USAGE */
	if (!OidIsValid(ext) || !OidIsValid(nsp) ||
#if PG_VERSION_NUM >= 160000
		object_aclcheck(NamespaceRelationId, nsp, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
#else
		pg_namespace_aclcheck(nsp, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
#endif
		return;
	fn = LookupFuncName(list_make2(makeString("pglogical"),
								   makeString("show_subscription_status")),
						1, argtypes, true);
	local = get_relname_relid("local_node", nsp);
	if (!cc_extension_member(ext, ProcedureRelationId, fn) ||
		!cc_extension_member(ext, RelationRelationId, local) ||
		get_rel_relkind(local) != RELKIND_RELATION ||
#if PG_VERSION_NUM >= 160000
		object_aclcheck(ProcedureRelationId, fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK ||
#else
		pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK ||
#endif
		pg_class_aclcheck(local, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		return;
	row = cc_health_one_row("SELECT EXISTS (SELECT FROM pglogical.local_node)",
							0, NULL, NULL, "pglogical node");
	if (strcmp(SPI_getvalue(row, SPI_tuptable->tupdesc, 1), "t") != 0)
		return;
	if (SPI_execute("SELECT s.subscription_name, s.status, s.provider_node"
					"  FROM pglogical.show_subscription_status(NULL::pg_catalog.name) s"
					" WHERE s.status OPERATOR(pg_catalog.<>) 'replicating'"
					" ORDER BY 1", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "counter_crdt_health: reading pglogical's subscription status failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *sub = SPI_getvalue(tup, desc, 1);
		char	   *status = SPI_getvalue(tup, desc, 2);
		char	   *provider = SPI_getvalue(tup, desc, 3);
		const char *what;

		if (strcmp(status, "down") == 0)
			what = "is enabled, but no apply worker is attached to it";
		else if (strcmp(status, "disabled") == 0)
			what = "is disabled";
		else if (strcmp(status, "initializing") == 0)
			what = "is still copying its tables";
		else
			what = "is not replicating";
		cc_health_row(h, "pglogical_subscription_not_replicating", sub,
					  psprintf("pglogical subscription %s (from node %s) %s (pglogical.show_subscription_status() says %s): "
							   "this server does not apply that node's stream meanwhile, and its increments arrive here "
							   "only through other subscriptions that forward them (forward_origins '{all}'), if any.",
							   quote_identifier(sub), provider ? provider : "unknown", what, status),
					  strcmp(status, "disabled") == 0 ?
					  psprintf("SELECT pglogical.alter_subscription_enable(%s, true); on this server, once it should replicate again.",
							   quote_literal_cstr(sub)) :
					  psprintf("If it stays %s: see \"When a subscription stays down\" in doc/replication.md "
							   "(the log lines of its apply worker, the provider's slot), then start its worker again on this server: "
							   "SELECT pglogical.alter_subscription_disable(%s, true); "
							   "SELECT pglogical.alter_subscription_enable(%s, true);",
							   status, quote_literal_cstr(sub), quote_literal_cstr(sub)));
	}
}

/*
 * On a standby, one row per UNLOGGED table with a counter column: it has no
 * data here, so counter_crdt_metrics() (counter_crdt_stat) skips it; every
 * such table, whoever may read it, as its name is in pg_class for all.
 */
static void
cc_health_unlogged_on_standby(CcHealth *h, const CcExtension *ext)
{
	List	   *cols;
	ListCell   *lc;
	Oid			last = InvalidOid;

	if (!cc_no_data_here(RELPERSISTENCE_UNLOGGED))
		return;
	cols = cc_sweep_columns(InvalidOid, ext->counter_type);
	foreach(lc, cols)
	{
		const CcColumn *col = lfirst(lc);
		char	   *object;

		/* the columns of one table lie together */
		/* a table dropped since it was listed has no row */
		if (col->relid == last || !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(col->relid)) ||
			!cc_no_data_here(get_rel_persistence(col->relid)))
			continue;
		last = col->relid;
		object = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(col->relid)));
		cc_health_row(h, "unlogged_table_skipped_on_standby", object,
					  psprintf("Table %s is unlogged, and this server is a standby, which has no data of unlogged tables: "
							   "counter_crdt_stat has no row of it here, and its figures are on the primary only "
							   "(after a promotion the table is empty).",
							   object),
					  psprintf("Read its figures on the primary; if the standby should have its rows, "
							   "make it a logged table there: ALTER TABLE %s SET LOGGED;", object));
	}
}

/*
 * Columns that hold counters inside other values (arrays, composites,
 * ranges): one row each, whoever may read the table, as its columns are in
 * pg_attribute for all.
 */
static void
cc_health_nested(CcHealth *h, const CcExtension *ext)
{
	ListCell   *lc;

	foreach(lc, cc_nested_columns(ext->counter_type))
	{
		const CcColumn *col = lfirst(lc);

		cc_health_row(h, "counters_in_nested_column",
					  psprintf("%s.%s", col->relname, quote_identifier(col->attname)),
					  psprintf("Column %s of %s holds counters inside other values (an array, a composite or a range): "
							   "they are no counter column's, so counter_crdt_stat does not count them, the sweeps do "
							   "not fold or forget writers in them, and a forget of writers is not proven while it exists "
							   "(its writers are listed as retired, not forgotten).",
							   quote_identifier(col->attname), col->relname),
					  "Keep counters in counter_crdt columns (or columns of a domain over counter_crdt), one per row "
					  "and column, and drop the column once its counters are moved.");
	}
}

/* The arguments of cc_health_table() through cc_within_lock_timeout(). */
typedef struct CcHealthTable
{
	CcHealth   *h;
	const CcExtension *ext;
	Oid			relid;
} CcHealthTable;

static void
cc_health_table_locked(void *arg)
{
	CcHealthTable *ht = arg;

	cc_health_table(ht->h, ht->ext, ht->relid);
}

PG_FUNCTION_INFO_V1(counter_crdt_health);
Datum
counter_crdt_health(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	CcExtension ext;
	CcHealth	h;
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	Oid		   *tables;
	uint64		ntables;

	cc_extension(fcinfo, &ext);
#if PG_VERSION_NUM >= 150000
	InitMaterializedSRF(fcinfo, 0);
#else
	{
		MemoryContext old;

		if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
			!(rsinfo->allowedModes & SFRM_Materialize))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("set-valued function called in context that cannot accept a set")));
		old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
		if (get_call_result_type(fcinfo, NULL, &rsinfo->setDesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		rsinfo->setDesc = BlessTupleDesc(rsinfo->setDesc);
		rsinfo->setResult = tuplestore_begin_heap(false, false, work_mem);
		rsinfo->returnMode = SFRM_Materialize;
		MemoryContextSwitchTo(old);
	}
#endif
	h.store = rsinfo->setResult;
	h.desc = rsinfo->setDesc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	args[0] = ObjectIdGetDatum(ext.counter_type);
	if (SPI_execute_with_args(cc_tables_sql(), 1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "counter_crdt_health: reading the catalogs failed");
	ntables = SPI_processed;
	tables = palloc(sizeof(Oid) * (ntables + 1));
	for (uint64 r = 0; r < ntables; r++)
	{
		bool		isnull;

		tables[r] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[r],
												   SPI_tuptable->tupdesc, 1, &isnull));
	}
	for (uint64 r = 0; r < ntables; r++)
	{
		CcHealthTable ht = {&h, &ext, tables[r]};

		if (!cc_within_lock_timeout(cc_health_table_locked, &ht))
		{
			char	   *object = DatumGetCString(DirectFunctionCall1(regclassout,
																	 ObjectIdGetDatum(tables[r])));

			cc_health_row(&h, "table_locked_skipped", object,
						  psprintf("Table %s, or one of its partitions, could not be locked within lock_timeout "
								   "(someone's DDL holds it): its checks were skipped, and counter_crdt_stat_tables "
								   "has no figures of it this time.", object),
						  "Find the session that holds the lock in pg_locks (granted AccessExclusiveLock on the table); "
						  "the next check reads the table once it is released.");
		}
	}
	cc_health_nested(&h, &ext);
	cc_health_unlogged_on_standby(&h, &ext);
	cc_health_pglogical_subscriptions(&h);
	cc_health_conflicts(&h, &ext);
	cc_health_dropped(&h);
	SPI_finish();
	return (Datum) 0;
}
