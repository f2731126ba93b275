/*
 * setup.c
 *	  Setting tables up for replication: counter_crdt_enable_replica_merge(tbl).
 *
 * It looks at a table the way the merge trigger does when it applies a row
 * (cc_table_check() in table_check.c: a primary key, and only counters, key
 * columns and stored generated columns), so that what the set-up accepts, what
 * the health check (health.c) reports and what apply refuses are one and the
 * same.  On top of that it looks at the table's triggers: the merge trigger
 * must be enabled as REPLICA, so that it fires in replication apply and only
 * there, and the delete trigger as an ordinary trigger, for local deletes.
 * ALTER TABLE ... ENABLE TRIGGER ALL (which pg_restore --disable-triggers
 * runs) turns the merge trigger into an ordinary one; from then on applied
 * rows overwrite local increments.  The set-up function repairs that, and
 * the health check finds it.  The same goes for the guards of
 * counter_crdt_local_guard() (key changes and TRUNCATE refused, for local
 * statements), the truncate guard on every partition too, where the
 * extension's version has that function.  The key is guarded twice: BEFORE
 * UPDATE OF its columns, which refuses the change before any row changes or
 * moves, and AFTER UPDATE WHEN it differs, which sees the row as written and
 * so a key that a BEFORE trigger firing after the first guard changed.
 */
#include "postgres.h"

#include "base/extension.h"
#include "operations/setup.h"
#include "replica/table_check.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "rewrite/prs2lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "core/cc_ids.h"

static Oid
cc_trigger_function(Oid nsp, const char *name, bool missing_ok)
{
	oidvector  *noargs = buildoidvector(NULL, 0);
	Oid			fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
									 CStringGetDatum(name),
									 PointerGetDatum(noargs),
									 ObjectIdGetDatum(nsp));

	/* a function of that name that the extension does not own is not used */
	if (OidIsValid(fn) && !cc_extension_owns_function(fn))
	{
		if (!missing_ok)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("function %s() of extension counter_crdt is not as the extension made it", name),
					 errdetail("It is not a member of the extension owned by a superuser."),
					 errhint("Drop and create the extension again.")));
		fn = InvalidOid;
	}
	if (!OidIsValid(fn) && !missing_ok)
		elog(ERROR, "function %s() not found in schema %u", name, nsp);
	return fn;
}

/* The extension's objects, from the schema of the function called. */
void
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
bool
cc_fires_locally(const Trigger *t)
{
	return t->tgenabled == TRIGGER_FIRES_ON_ORIGIN ||
		t->tgenabled == TRIGGER_FIRES_ALWAYS;
}

void
cc_find_triggers(Relation rel, const CcExtension *ext, CcTriggers *trg)
{
	TriggerDesc *td = rel->trigdesc;

	trg->merge = NULL;
	trg->delete = NULL;
	trg->key_guard = NULL;
	trg->key_check = NULL;
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
		else if (OidIsValid(ext->guard_fn) && t->tgfoid == ext->guard_fn &&
				 TRIGGER_FOR_AFTER(t->tgtype) && TRIGGER_FOR_ROW(t->tgtype) &&
				 TRIGGER_FOR_UPDATE(t->tgtype) && t->tgnattr == 0)
		{
			if (trg->key_check == NULL || !cc_fires_locally(trg->key_check))
				trg->key_check = t;
		}
	}
}

/*
 * Does the key guard of a partitioned table fire for every UPDATE?  On a
 * partition it notes each row it passes, so that the delete trigger knows
 * the delete of a row move: an owner's BEFORE UPDATE trigger may change the
 * partition key in an UPDATE that sets no key column (local_triggers.c).
 */
bool
cc_guard_notes_moves(Relation rel, const Trigger *t)
{
	return rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE || t->tgnattr == 0;
}

/* Does the key guard fire for an UPDATE of every primary key column? */
bool
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

/*
 * Does the AFTER key check fire for a change of every primary key column?
 * It fires for an UPDATE of any column (tgnattr is 0, else it is not
 * ours), and its WHEN, if it has one, must read every key column of both
 * OLD and NEW.  The trigger function compares every key column itself.
 */
bool
cc_check_covers_key(const Trigger *t, const Bitmapset *pkey)
{
	Node	   *qual;
	Bitmapset  *old_cols = NULL;
	Bitmapset  *new_cols = NULL;

	if (t->tgqual == NULL)
		return true;
	qual = stringToNode(t->tgqual);
	pull_varattnos(qual, PRS2_OLD_VARNO, &old_cols);
	pull_varattnos(qual, PRS2_NEW_VARNO, &new_cols);
	return bms_is_subset(pkey, old_cols) && bms_is_subset(pkey, new_cols);
}

/*
 * The WHEN of the AFTER key check: true when a key column differs, by the
 * equality of the primary key's own index (its operator class), named with
 * its schema so that no search_path finds another.  Key columns are NOT
 * NULL, so that NOT (... = ...) is IS DISTINCT FROM.
 */
static char *
cc_key_changed_qual(Relation rel)
{
#if PG_VERSION_NUM >= 180000
	Oid			indexid = RelationGetPrimaryKeyIndex(rel, true);
#else
	Oid			indexid = RelationGetPrimaryKeyIndex(rel);
#endif
	Relation	index;
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData qual;

	if (!OidIsValid(indexid))
		elog(ERROR, "table \"%s\" has no primary key", RelationGetRelationName(rel));
	index = index_open(indexid, AccessShareLock);
	initStringInfo(&qual);
	appendStringInfoString(&qual, "NOT (");
	for (int i = 0; i < index->rd_index->indnkeyatts; i++)
	{
		AttrNumber	attnum = index->rd_index->indkey.values[i];
		Oid			opno = get_opfamily_member(index->rd_opfamily[i],
											   index->rd_opcintype[i],
											   index->rd_opcintype[i],
											   BTEqualStrategyNumber);
		HeapTuple	optup;
		Form_pg_operator op;
		const char *col;

		if (attnum <= 0 || !OidIsValid(opno))
			elog(ERROR, "primary key of \"%s\" has no equality for column %d",
				 RelationGetRelationName(rel), i + 1);
		optup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
		if (!HeapTupleIsValid(optup))
			elog(ERROR, "cache lookup failed for operator %u", opno);
		op = (Form_pg_operator) GETSTRUCT(optup);
		col = quote_identifier(NameStr(TupleDescAttr(desc, attnum - 1)->attname));
		appendStringInfo(&qual, "%sOLD.%s OPERATOR(%s.%s) NEW.%s",
						 i > 0 ? " AND " : "", col,
						 quote_identifier(get_namespace_name(op->oprnamespace)),
						 NameStr(op->oprname), col);
		ReleaseSysCache(optup);
	}
	appendStringInfoChar(&qual, ')');
	index_close(index, AccessShareLock);
	return qual.data;
}

/*
 * The table relid, a table or a partitioned one, opened as CREATE TRIGGER
 * locks it.  CREATE TRIGGER needs the TRIGGER privilege: checked before
 * the lock, so that a role without it cannot hold that lock.
 */
static Relation
cc_open_for_triggers(Oid relid)
{
	AclResult	acl = pg_class_aclcheck(relid, GetUserId(), ACL_TRIGGER);
	Relation	rel;

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, get_rel_name(relid));
	rel = table_open(relid, ShareRowExclusiveLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	return rel;
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

/* What the set-up does about the guards of counter_crdt_local_guard(). */
typedef struct CcGuardPlan
{
	bool		guards;			/* the extension has them (since 1.4) */
	bool		make_guard;		/* the table's key guard is made again */
	bool		make_check;		/* the table's AFTER key check is made again */
} CcGuardPlan;

/*
 * The commands that give a table itself the guards of
 * counter_crdt_local_guard() (what is missing of them, or enabling them where
 * they do not fire for local statements): BEFORE UPDATE OF the primary key
 * columns (of any column on a partitioned table: cc_guard_notes_moves()),
 * FOR EACH ROW, and AFTER UPDATE FOR EACH ROW WHEN the key differs, both of
 * which partitions inherit; and BEFORE TRUNCATE.  A key guard that no longer
 * covers the whole primary key is made again.  The partitions' clones and
 * truncate guards: cc_partition_commands().
 */
static List *
cc_guard_commands(Relation rel, const CcExtension *ext, const CcTableInfo *info,
				  const CcTriggers *trg, CcGuardPlan *plan)
{
	char	   *relname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													 RelationGetRelationName(rel));
	char	   *fn = quote_qualified_identifier(get_namespace_name(ext->nsp),
												"counter_crdt_local_guard");
	List	   *cmds = NIL;
	bool		partitioned = (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE);

	plan->guards = true;
	plan->make_guard = (trg->key_guard == NULL || !cc_guard_covers_key(trg->key_guard, info->pkey) ||
						!cc_guard_notes_moves(rel, trg->key_guard));
	if (plan->make_guard)
	{
		if (trg->key_guard != NULL)
			cmds = lappend(cmds, psprintf("DROP TRIGGER %s ON %s",
										  quote_identifier(trg->key_guard->tgname), relname));
		cmds = lappend(cmds,
					   psprintf("CREATE TRIGGER counter_crdt_key_guard BEFORE UPDATE%s%s ON %s"
								" FOR EACH ROW EXECUTE FUNCTION %s()",
								partitioned ? "" : " OF ",
								partitioned ? "" : cc_key_columns(rel, info->pkey), relname, fn));
	}
	else if (!cc_fires_locally(trg->key_guard))
		cmds = lappend(cmds, psprintf("ALTER TABLE %s ENABLE TRIGGER %s", relname,
									  quote_identifier(trg->key_guard->tgname)));

	plan->make_check = (trg->key_check == NULL || !cc_check_covers_key(trg->key_check, info->pkey));
	if (plan->make_check)
	{
		if (trg->key_check != NULL)
			cmds = lappend(cmds, psprintf("DROP TRIGGER %s ON %s",
										  quote_identifier(trg->key_check->tgname), relname));
		cmds = lappend(cmds,
					   psprintf("CREATE TRIGGER counter_crdt_key_guard_after AFTER UPDATE ON %s"
								" FOR EACH ROW WHEN (%s) EXECUTE FUNCTION %s()",
								relname, cc_key_changed_qual(rel), fn));
	}
	else if (!cc_fires_locally(trg->key_check))
		cmds = lappend(cmds, psprintf("ALTER TABLE %s ENABLE TRIGGER %s", relname,
									  quote_identifier(trg->key_check->tgname)));

	return cc_truncate_guard_commands(rel, fn, trg, cmds);
}

/*
 * One walk of the partitions of a partitioned table, gathering the commands
 * of every clone that a partition changed alone (ALTER TABLE partition
 * DISABLE TRIGGER, or ENABLE TRIGGER where REPLICA is right), where the
 * table's own trigger fires as it must, so that nothing else would:
 *
 *  - into *clones, enabling again the clones of the merge trigger (as
 *    REPLICA) and of the delete trigger;
 *  - into *guards, where the extension has the guards (plan): enabling again
 *    the clones of the key guard and of the AFTER key check, unless the
 *    table's own is made again (which makes new clones), and the truncate
 *    guard of each partition (a TRUNCATE of a partition fires only the
 *    partition's triggers).
 */
static void
cc_partition_commands(Relation rel, const CcExtension *ext, const CcGuardPlan *plan,
					  List **clones, List **guards)
{
	List	   *parts = find_all_inheritors(RelationGetRelid(rel), ShareRowExclusiveLock, NULL);
	char	   *fn = quote_qualified_identifier(get_namespace_name(ext->nsp),
												"counter_crdt_local_guard");
	ListCell   *lc;

	foreach(lc, parts)
	{
		Oid			part = lfirst_oid(lc);
		Relation	prel;
		CcTriggers	ptrg;
		char	   *pname;

		if (part == RelationGetRelid(rel))
			continue;
		prel = table_open(part, NoLock);
		cc_find_triggers(prel, ext, &ptrg);
		pname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(prel)),
										   RelationGetRelationName(prel));
		if (ptrg.merge != NULL && ptrg.merge->tgenabled != TRIGGER_FIRES_ON_REPLICA)
		{
			ereport(NOTICE,
					(errmsg("trigger \"%s\" of partition %s was not enabled as REPLICA; enabling it",
							ptrg.merge->tgname, pname),
					 errdetail("Until now replicated rows of that partition overwrote its counters instead of merging into them.")));
			*clones = lappend(*clones, psprintf("ALTER TABLE %s ENABLE REPLICA TRIGGER %s", pname,
												quote_identifier(ptrg.merge->tgname)));
		}
		if (ptrg.delete != NULL && !cc_fires_locally(ptrg.delete))
		{
			ereport(NOTICE,
					(errmsg("trigger \"%s\" of partition %s did not fire for local deletes; enabling it",
							ptrg.delete->tgname, pname)));
			*clones = lappend(*clones, psprintf("ALTER TABLE %s ENABLE TRIGGER %s", pname,
												quote_identifier(ptrg.delete->tgname)));
		}
		if (plan->guards)
		{
			if (!plan->make_guard && ptrg.key_guard != NULL && !cc_fires_locally(ptrg.key_guard))
				*guards = lappend(*guards, psprintf("ALTER TABLE %s ENABLE TRIGGER %s", pname,
													quote_identifier(ptrg.key_guard->tgname)));
			if (!plan->make_check && ptrg.key_check != NULL && !cc_fires_locally(ptrg.key_check))
				*guards = lappend(*guards, psprintf("ALTER TABLE %s ENABLE TRIGGER %s", pname,
													quote_identifier(ptrg.key_check->tgname)));
			*guards = cc_truncate_guard_commands(prel, fn, &ptrg, *guards);
		}
		table_close(prel, NoLock);
	}
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
	char	   *relname;
	char	   *merge_fn;
	char	   *delete_fn;
	char	   *merge_name = NULL;
	bool		create_merge;
	bool		enable_merge;
	bool		create_delete;
	char	   *enable_delete = NULL;
	List	   *clones = NIL;
	List	   *guards = NIL;
	CcGuardPlan plan = {false, false, false};
	ListCell   *lc;

	/* not STRICT in 1.1, and so not now: a NULL table is an error */
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table to set up must not be NULL")));
	relid = PG_GETARG_OID(0);
	cc_extension(fcinfo, &ext);

	rel = cc_open_for_triggers(relid);
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
		guards = cc_guard_commands(rel, &ext, &info, &trg, &plan);
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		cc_partition_commands(rel, &ext, &plan, &clones, &guards);
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
	foreach(lc, clones)
		cc_run((const char *) lfirst(lc));
	foreach(lc, guards)
		cc_run((const char *) lfirst(lc));
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * counter_crdt_guard_writes(tbl): the write guard on tbl, a table or a
 * partitioned table (whose partitions, present and future, get its clone):
 * the trigger counter_crdt_write_guard, BEFORE UPDATE FOR EACH ROW, firing
 * for local statements.  Creates it when tbl has none, enables one that does
 * not fire locally (its owner only); changes nothing on a table set up
 * already.  A table without a counter column is refused (42809).
 */
PG_FUNCTION_INFO_V1(counter_crdt_guard_writes);
Datum
counter_crdt_guard_writes(PG_FUNCTION_ARGS)
{
	Oid			relid;
	Oid			nsp;
	Oid			counter_type;
	Oid			guard_fn;
	Relation	rel;
	TupleDesc	desc;
	bool		has_counter = false;
	const Trigger *found = NULL;
	char	   *relname;
	char	   *sql = NULL;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table to guard must not be NULL")));
	relid = PG_GETARG_OID(0);
	nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	counter_type = cc_counter_type(nsp);
	guard_fn = cc_trigger_function(nsp, "counter_crdt_write_guard", false);

	rel = cc_open_for_triggers(relid);
	desc = RelationGetDescr(rel);
	for (int i = 0; i < desc->natts && !has_counter; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		has_counter = !att->attisdropped && cc_is_counter_type(att->atttypid, counter_type);
	}
	if (!has_counter)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" has no counter_crdt column", RelationGetRelationName(rel)),
				 errdetail("The write guard checks the states written into counter columns.")));
	for (int i = 0; rel->trigdesc != NULL && i < rel->trigdesc->numtriggers; i++)
	{
		const Trigger *t = &rel->trigdesc->triggers[i];

		if (t->tgfoid == guard_fn && TRIGGER_FOR_BEFORE(t->tgtype) &&
			TRIGGER_FOR_ROW(t->tgtype) && TRIGGER_FOR_UPDATE(t->tgtype) &&
			t->tgnattr == 0 && t->tgqual == NULL &&
			(found == NULL || !cc_fires_locally(found)))
			found = t;
	}
	relname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
										 RelationGetRelationName(rel));
	if (found == NULL)
		sql = psprintf("CREATE TRIGGER counter_crdt_write_guard BEFORE UPDATE ON %s"
					   " FOR EACH ROW EXECUTE FUNCTION %s()", relname,
					   quote_qualified_identifier(get_namespace_name(nsp),
												  "counter_crdt_write_guard"));
	else if (!cc_fires_locally(found))
	{
		ereport(NOTICE,
				(errmsg("trigger \"%s\" of table %s did not fire for local updates; enabling it",
						found->tgname, relname)));
		sql = psprintf("ALTER TABLE %s ENABLE TRIGGER %s", relname,
					   quote_identifier(found->tgname));
	}
	table_close(rel, NoLock);
	if (sql != NULL)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		cc_run(sql);
		SPI_finish();
	}
	PG_RETURN_VOID();
}
