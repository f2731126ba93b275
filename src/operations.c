/*
 * operations.c
 *	  Setting tables up for replication and checking the set-up:
 *	  counter_crdt_enable_replica_merge(tbl) and counter_crdt_health().
 *
 * Both look at a table the way the merge trigger does when it applies a row
 * (cc_table_check() in table_check.c: a primary key, and only counters, key
 * columns and stored generated columns), so that what the set-up accepts, what
 * the health check reports and what apply refuses are one and the same.  On
 * top of that they look at the table's triggers: the merge trigger must be
 * enabled as REPLICA, so that it fires in replication apply and only there,
 * and the delete trigger as an ordinary trigger, for local deletes.
 * ALTER TABLE ... ENABLE TRIGGER ALL (which pg_restore --disable-triggers
 * runs) turns the merge trigger into an ordinary one; from then on applied
 * rows overwrite local increments.  The set-up function repairs that, and
 * the health check finds it.  The same goes for the two guards of
 * counter_crdt_local_guard() (key changes and TRUNCATE refused, for local
 * statements), the truncate guard on every partition too, where the
 * extension's version has that function; and health reports publications
 * that publish TRUNCATE of a counter table.
 */
#include "counter_crdt.h"
#include "conflict_log.h"
#include "table_check.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "core/cc_ids.h"

/* What the extension's schema holds that both functions need. */
typedef struct CcExtension
{
	Oid			nsp;
	Oid			counter_type;
	Oid			merge_fn;		/* counter_crdt_replica_merge() */
	Oid			delete_fn;		/* counter_crdt_delete_as_tombstone() */
	Oid			guard_fn;		/* counter_crdt_local_guard(), since 1.4 */
} CcExtension;

/* The triggers of a table that call our two functions. */
typedef struct CcTriggers
{
	const Trigger *merge;		/* the first found, or NULL */
	const Trigger *delete;
	const Trigger *key_guard;	/* BEFORE UPDATE FOR EACH ROW */
	const Trigger *truncate_guard;	/* BEFORE TRUNCATE */
} CcTriggers;

static Oid
cc_trigger_function(Oid nsp, const char *name, bool missing_ok)
{
	oidvector  *noargs = buildoidvector(NULL, 0);
	Oid			fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
									 CStringGetDatum(name),
									 PointerGetDatum(noargs),
									 ObjectIdGetDatum(nsp));

	if (!OidIsValid(fn) && !missing_ok)
		elog(ERROR, "function %s() not found in schema %u", name, nsp);
	return fn;
}

/* The extension's objects, from the schema of the function called. */
static void
cc_extension(FunctionCallInfo fcinfo, CcExtension *ext)
{
	ext->nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	ext->counter_type = cc_counter_type(ext->nsp);
	ext->merge_fn = cc_trigger_function(ext->nsp, "counter_crdt_replica_merge", false);
	ext->delete_fn = cc_trigger_function(ext->nsp, "counter_crdt_delete_as_tombstone", false);
	/* not there before 1.4: the guards are then not made, nor asked for */
	ext->guard_fn = cc_trigger_function(ext->nsp, "counter_crdt_local_guard", true);
}

/* A trigger fires for local statements: enabled as ORIGIN or ALWAYS. */
static bool
cc_fires_locally(const Trigger *t)
{
	return t->tgenabled == TRIGGER_FIRES_ON_ORIGIN ||
		t->tgenabled == TRIGGER_FIRES_ALWAYS;
}

static void
cc_find_triggers(Relation rel, const CcExtension *ext, CcTriggers *trg)
{
	TriggerDesc *td = rel->trigdesc;

	trg->merge = NULL;
	trg->delete = NULL;
	trg->key_guard = NULL;
	trg->truncate_guard = NULL;
	for (int i = 0; td != NULL && i < td->numtriggers; i++)
	{
		const Trigger *t = &td->triggers[i];

		if (t->tgfoid == ext->merge_fn && trg->merge == NULL)
			trg->merge = t;
		else if (t->tgfoid == ext->delete_fn && trg->delete == NULL)
			trg->delete = t;
		else if (OidIsValid(ext->guard_fn) && t->tgfoid == ext->guard_fn &&
				 TRIGGER_FOR_BEFORE(t->tgtype))
		{
			if (TRIGGER_FOR_TRUNCATE(t->tgtype))
			{
				if (trg->truncate_guard == NULL || !cc_fires_locally(trg->truncate_guard))
					trg->truncate_guard = t;
			}
			else if (TRIGGER_FOR_ROW(t->tgtype) && TRIGGER_FOR_UPDATE(t->tgtype))
			{
				if (trg->key_guard == NULL || !cc_fires_locally(trg->key_guard))
					trg->key_guard = t;
			}
		}
	}
}

/* Does the key guard fire for an UPDATE of every primary key column? */
static bool
cc_guard_covers_key(const Trigger *t, const Bitmapset *pkey)
{
	int			k = -1;

	if (t->tgnattr == 0)
		return true;			/* BEFORE UPDATE of any column */
	while ((k = bms_next_member(pkey, k)) >= 0)
	{
		AttrNumber	attnum = k + FirstLowInvalidHeapAttributeNumber;
		bool		found = false;

		for (int i = 0; i < t->tgnattr && !found; i++)
			found = (t->tgattr[i] == attnum);
		if (!found)
			return false;
	}
	return true;
}

static void
cc_run(const char *sql)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != SPI_OK_UTILITY)
		elog(ERROR, "counter_crdt: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

/*
 * The truncate guard of one table: the commands that make it fire locally.
 * fn is counter_crdt_local_guard, qualified.
 */
static List *
cc_truncate_guard_commands(Relation rel, const char *fn, const CcTriggers *trg,
						   List *cmds)
{
	char	   *relname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													 RelationGetRelationName(rel));

	if (trg->truncate_guard == NULL)
		cmds = lappend(cmds,
					   psprintf("CREATE TRIGGER counter_crdt_truncate_guard BEFORE TRUNCATE ON %s"
								" FOR EACH STATEMENT EXECUTE FUNCTION %s()", relname, fn));
	else if (!cc_fires_locally(trg->truncate_guard))
		cmds = lappend(cmds, psprintf("ALTER TABLE %s ENABLE TRIGGER %s", relname,
									  quote_identifier(trg->truncate_guard->tgname)));
	return cmds;
}

/*
 * The commands that give a table the two guards of counter_crdt_local_guard()
 * (what is missing of them, or enabling them where they do not fire for local
 * statements): BEFORE UPDATE OF the primary key columns, FOR EACH ROW, which
 * partitions inherit; and BEFORE TRUNCATE, on the table and on each of its
 * partitions (TRUNCATE of a partition fires only the partition's triggers).
 * A key guard that no longer covers the whole primary key is made again.
 */
static List *
cc_guard_commands(Relation rel, const CcExtension *ext, const CcTableInfo *info,
				  const CcTriggers *trg)
{
	char	   *relname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													 RelationGetRelationName(rel));
	char	   *fn = quote_qualified_identifier(get_namespace_name(ext->nsp),
												"counter_crdt_local_guard");
	List	   *cmds = NIL;

	if (trg->key_guard == NULL || !cc_guard_covers_key(trg->key_guard, info->pkey))
	{
		if (trg->key_guard != NULL)
			cmds = lappend(cmds, psprintf("DROP TRIGGER %s ON %s",
										  quote_identifier(trg->key_guard->tgname), relname));
		cmds = lappend(cmds,
					   psprintf("CREATE TRIGGER counter_crdt_key_guard BEFORE UPDATE OF %s ON %s"
								" FOR EACH ROW EXECUTE FUNCTION %s()",
								cc_key_columns(rel, info->pkey), relname, fn));
	}
	else if (!cc_fires_locally(trg->key_guard))
		cmds = lappend(cmds, psprintf("ALTER TABLE %s ENABLE TRIGGER %s", relname,
									  quote_identifier(trg->key_guard->tgname)));

	cmds = cc_truncate_guard_commands(rel, fn, trg, cmds);
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
	{
		List	   *parts = find_all_inheritors(RelationGetRelid(rel), ShareRowExclusiveLock, NULL);
		ListCell   *lc;

		foreach(lc, parts)
		{
			Oid			part = lfirst_oid(lc);
			Relation	prel;
			CcTriggers	ptrg;

			if (part == RelationGetRelid(rel))
				continue;
			prel = table_open(part, NoLock);
			cc_find_triggers(prel, ext, &ptrg);
			cmds = cc_truncate_guard_commands(prel, fn, &ptrg, cmds);
			table_close(prel, NoLock);
		}
	}
	return cmds;
}

/*
 * counter_crdt_enable_replica_merge(tbl regclass): checks that the table's
 * replicated rows can be merged (an error, as the trigger would give at
 * apply, else), then creates what is missing of the two triggers and enables
 * each as it must be.  On a table set up already it changes nothing.
 */
PG_FUNCTION_INFO_V1(counter_crdt_enable_replica_merge);
Datum
counter_crdt_enable_replica_merge(PG_FUNCTION_ARGS)
{
	Oid			relid;
	CcExtension ext;
	CcTableInfo info;
	CcTriggers	trg;
	Relation	rel;
	AclResult	acl;
	char	   *relname;
	char	   *merge_fn;
	char	   *delete_fn;
	char	   *merge_name = NULL;
	bool		create_merge;
	bool		enable_merge;
	bool		create_delete;
	char	   *enable_delete = NULL;
	List	   *guards = NIL;
	ListCell   *lc;

	/* not STRICT in 1.1, and so not now: a NULL table is an error */
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table to set up must not be NULL")));
	relid = PG_GETARG_OID(0);
	cc_extension(fcinfo, &ext);

	/*
	 * CREATE TRIGGER needs the TRIGGER privilege: check it before locking the
	 * table as CREATE TRIGGER does, so that nobody else can hold that lock.
	 */
	acl = pg_class_aclcheck(relid, GetUserId(), ACL_TRIGGER);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, get_rel_name(relid));
	rel = table_open(relid, ShareRowExclusiveLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	cc_table_check_or_error(rel, ext.counter_type, &info);

	relname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
										 RelationGetRelationName(rel));
	cc_find_triggers(rel, &ext, &trg);
	create_merge = (trg.merge == NULL);
	enable_merge = create_merge || trg.merge->tgenabled != TRIGGER_FIRES_ON_REPLICA;
	merge_name = pstrdup(create_merge ? "counter_crdt_replica_merge" : trg.merge->tgname);
	create_delete = (trg.delete == NULL);
	if (!create_delete && !cc_fires_locally(trg.delete))
		enable_delete = pstrdup(trg.delete->tgname);
	if (OidIsValid(ext.guard_fn))
		guards = cc_guard_commands(rel, &ext, &info, &trg);
	table_close(rel, NoLock);

	merge_fn = quote_qualified_identifier(get_namespace_name(ext.nsp),
										  "counter_crdt_replica_merge");
	delete_fn = quote_qualified_identifier(get_namespace_name(ext.nsp),
										   "counter_crdt_delete_as_tombstone");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (create_merge)
		cc_run(psprintf("CREATE TRIGGER counter_crdt_replica_merge BEFORE INSERT OR UPDATE ON %s"
						" FOR EACH ROW EXECUTE FUNCTION %s()", relname, merge_fn));
	else if (enable_merge)
		ereport(NOTICE,
				(errmsg("trigger \"%s\" of table %s was not enabled as REPLICA; enabling it",
						merge_name, relname),
				 errdetail("Until now replicated rows overwrote the table's counters instead of merging into them.")));
	if (enable_merge)
		cc_run(psprintf("ALTER TABLE %s ENABLE REPLICA TRIGGER %s",
						relname, quote_identifier(merge_name)));
	if (create_delete)
		cc_run(psprintf("CREATE TRIGGER counter_crdt_delete_as_tombstone BEFORE DELETE ON %s"
						" FOR EACH ROW EXECUTE FUNCTION %s()", relname, delete_fn));
	else if (enable_delete != NULL)
	{
		ereport(NOTICE,
				(errmsg("trigger \"%s\" of table %s did not fire for local deletes; enabling it",
						enable_delete, relname)));
		cc_run(psprintf("ALTER TABLE %s ENABLE TRIGGER %s",
						relname, quote_identifier(enable_delete)));
	}
	foreach(lc, guards)
		cc_run((const char *) lfirst(lc));
	SPI_finish();
	PG_RETURN_VOID();
}

/* --- counter_crdt_health() --- */

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

/*
 * The guards of counter_crdt_local_guard(): a key update that is not refused
 * stops every subscriber's apply (and moves a row out of its partition by a
 * delete); a TRUNCATE that is not refused drops this server's shards.
 */
static void
cc_health_guards(CcHealth *h, const CcExtension *ext, Relation rel,
				 const char *object, const CcTableInfo *info, const CcTriggers *trg)
{
	List	   *rels = list_make1_oid(RelationGetRelid(rel));
	ListCell   *lc;

	if (!bms_is_empty(info->pkey) &&
		(trg->key_guard == NULL || !cc_fires_locally(trg->key_guard) ||
		 !cc_guard_covers_key(trg->key_guard, info->pkey)))
		cc_health_row(h, "key_update_not_refused", object,
					  psprintf("An UPDATE of the primary key of table %s is not refused on this server: "
							   "every server that applies it would stop replicating with an error, "
							   "and an UPDATE that moves a row to another partition would delete its counters.",
							   object),
					  cc_enable_hint(object));
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		rels = find_all_inheritors(RelationGetRelid(rel), AccessShareLock, NULL);
	foreach(lc, rels)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	r = relid == RelationGetRelid(rel) ? rel : table_open(relid, NoLock);
		CcTriggers	t;

		cc_find_triggers(r, ext, &t);
		if (t.truncate_guard == NULL || !cc_fires_locally(t.truncate_guard))
			cc_health_row(h, "truncate_not_refused", object,
						  psprintf("A TRUNCATE of %s%s is not refused on this server: "
								   "it would drop this server's shards, and the increments made after it would be lost against the other servers' copies.",
								   r == rel ? "table " : "partition ",
								   r == rel ? object :
								   DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)))),
						  cc_enable_hint(object));
		if (r != rel)
			table_close(r, NoLock);
	}
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

/* Publications of this database that publish TRUNCATE of the table. */
static void
cc_health_truncate_published(CcHealth *h, Relation rel, const char *object)
{
	Oid			argtypes[2] = {OIDOID, NAMEOID};
	Datum		args[2];
	HeapTuple	row;
	char	   *pubs;

	args[0] = ObjectIdGetDatum(RelationGetNamespace(rel));
	args[1] = CStringGetDatum(RelationGetRelationName(rel));
	row = cc_health_one_row("SELECT pg_catalog.string_agg(DISTINCT p.pubname::pg_catalog.text, ', ')"
							"  FROM pg_catalog.pg_publication p"
							"  JOIN pg_catalog.pg_publication_tables pt ON pt.pubname = p.pubname"
							"  JOIN pg_catalog.pg_namespace n ON n.nspname = pt.schemaname"
							" WHERE p.pubtruncate AND n.oid = $1 AND pt.tablename = $2",
							2, argtypes, args, "publications");
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
							"         FILTER (WHERE s.suborigin = 'none'),"
							"       pg_catalog.count(*)"
							"  FROM pg_catalog.pg_subscription s"
							"  JOIN pg_catalog.pg_database d ON d.oid = s.subdbid"
							" WHERE d.datname = pg_catalog.current_database()"
							"   AND EXISTS (SELECT FROM pg_catalog.pg_subscription_rel r"
							"                WHERE r.srsubid = s.oid AND r.srrelid = $1)",
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

/* The checks of one table in a publication or a subscription. */
static void
cc_health_table(CcHealth *h, const CcExtension *ext, Oid relid)
{
	Relation	rel;
	CcTableInfo info;
	CcTriggers	trg;
	List	   *problems;
	ListCell   *lc;
	char	   *object;

	/* AccessShareLock, as a SELECT takes; a table dropped meanwhile is gone */
	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
		return;
	object = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
	cc_find_triggers(rel, ext, &trg);

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

	problems = cc_table_check(rel, ext->counter_type, &info);
	foreach(lc, problems)
	{
		CcTableProblem *p = (CcTableProblem *) lfirst(lc);

		cc_health_row(h, p->check, object,
					  psprintf("The %s. %s", p->message, p->detail), p->hint);
	}
	if (OidIsValid(ext->guard_fn))
		cc_health_guards(h, ext, rel, object, &info, &trg);
	cc_health_truncate_published(h, rel, object);
#if PG_VERSION_NUM >= 160000
	cc_health_origin_none(h, rel, object);
#endif
	relation_close(rel, AccessShareLock);
}

/*
 * Tables with a counter column that are in a publication of this database
 * (pg_publication_tables expands FOR ALL TABLES and schemas), in one of its
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

	initStringInfo(&sql);
	appendStringInfoString(&sql,
						   "SELECT c.oid FROM pg_catalog.pg_class c"
						   " WHERE c.relkind IN ('r', 'p')"
						   "   AND EXISTS (SELECT FROM pg_catalog.pg_attribute a"
						   "                WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
						   "                  AND a.atttypid = $1)"
						   "   AND (c.oid IN (SELECT srrelid FROM pg_catalog.pg_subscription_rel)"
						   "        OR EXISTS (SELECT FROM pg_catalog.pg_publication_tables pt"
						   "                     JOIN pg_catalog.pg_namespace n ON n.nspname = pt.schemaname"
						   "                    WHERE n.oid = c.relnamespace AND pt.tablename = c.relname)");
	if (OidIsValid(pgl_sets) &&
#if PG_VERSION_NUM >= 160000
		object_aclcheck(NamespaceRelationId, pgl_nsp, GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
#else
		pg_namespace_aclcheck(pgl_nsp, GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
#endif
		pg_class_aclcheck(pgl_sets, GetUserId(), ACL_SELECT) == ACLCHECK_OK)
		appendStringInfoString(&sql,
							   " OR c.oid IN (SELECT set_reloid FROM pglogical.replication_set_table)");
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
	sql = psprintf("SELECT table_name::pg_catalog.text, count(*),"
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
		cc_health_table(&h, &ext, tables[r]);
	cc_health_conflicts(&h, &ext);
	SPI_finish();
	return (Datum) 0;
}
