/*
 * sweep.c
 *	  The functions that reach tables they were not given:
 *	  counter_crdt_rewrite_counters(), which the fold and forget sweeps
 *	  (counter_crdt_fold_writer(s), counter_crdt_forget_writer(s)) run, and
 *	  counter_crdt_writer_report().  counter_crdt_metrics() (metrics.c)
 *	  takes its columns from here and reads them without running any code.
 *
 * Whose rights.  As VACUUM and ANALYZE do since CVE-2022-1552, every table
 * is read or rewritten as its owner, under a security-restricted operation,
 * with search_path pinned to pg_catalog, pg_temp and row_security off: no
 * trigger, policy, operator or function that a table's owner (or a schema
 * on the caller's search_path) put there runs with the caller's rights, and
 * a policy that would hide rows from the sweep makes it fail rather than
 * miss them.  A table the caller may not maintain (it is not a member of
 * the owner's role: a superuser may maintain every table) is skipped with a
 * WARNING when all tables are swept, and refused (42501) when it is named.
 *
 * Which tables.  Tables with storage: a partition is swept as itself, as
 * its own owner, by UPDATE ONLY; a partitioned table named by the caller
 * stands for its partitions.  No foreign tables (a fold runs on the server
 * that holds the rows) and no temporary tables of other sessions.
 *
 * What a forget proves.  The all-tables forget marks its writers forgotten
 * in this database's counter_crdt_retired_writers only when it swept every
 * table (none skipped): counter_crdt_forget_many() refuses a counter that
 * still carries a writer's shard or a count of it that no live writer
 * holds, so reaching the end proves that no counter here needs the
 * writer's records.  A one-table forget, or one that skipped a table, lists
 * its writers as retired only, so other tables' applied rows keep them.
 */
#include "postgres.h"

#include "base/extension.h"
#include "writers/sweep.h"
#include "writers/writer_ids.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/wait_event.h"
#include "utils/timestamp.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"

/* What a sweep saves while it works as a table's owner. */
typedef struct CcAsOwner
{
	Oid			userid;
	int			sec_context;
	int			nestlevel;
} CcAsOwner;

static int
cc_column_cmp(const ListCell *a, const ListCell *b)
{
	const CcColumn *x = lfirst(a),
			   *y = lfirst(b);
	int			c = strcmp(x->relname, y->relname);

	return c != 0 ? c : (int) x->attnum - (int) y->attnum;
}

/*
 * How a column's type holds counters: as plain values (counter_crdt or a
 * domain over it), inside other values (cc_type_nests_counter()), or not.
 */
typedef enum CcHolds
{
	CC_HOLDS_NONE,
	CC_HOLDS_PLAIN,
	CC_HOLDS_NESTED
} CcHolds;

static CcHolds
cc_type_holds(Oid typid, Oid counter_type)
{
	if (cc_is_counter_type(typid, counter_type))
		return CC_HOLDS_PLAIN;
	return cc_type_nests_counter(typid, counter_type) ? CC_HOLDS_NESTED : CC_HOLDS_NONE;
}

/*
 * The columns of relid whose type holds counters as holds says, appended to
 * cols: of a table with storage (and, for nested ones, of a materialized
 * view); none of another session's temporary tables, none when relid was
 * dropped meanwhile.
 */
static List *
cc_columns_of(Oid relid, Oid counter_type, CcHolds holds, List *cols)
{
	HeapTuple	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class rel;
	int			natts;
	char	   *relname;

	if (!HeapTupleIsValid(reltup))
		return cols;			/* dropped meanwhile */
	rel = (Form_pg_class) GETSTRUCT(reltup);
	natts = rel->relnatts;
	if (!(rel->relkind == RELKIND_RELATION ||
		  (holds == CC_HOLDS_NESTED && rel->relkind == RELKIND_MATVIEW)) ||
		(rel->relpersistence == RELPERSISTENCE_TEMP &&
		 isOtherTempNamespace(rel->relnamespace)))
	{
		ReleaseSysCache(reltup);
		return cols;
	}
	relname = quote_qualified_identifier(get_namespace_name(rel->relnamespace),
										 NameStr(rel->relname));
	ReleaseSysCache(reltup);
	for (AttrNumber a = 1; a <= natts; a++)
	{
		HeapTuple	atttup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid),
											 Int16GetDatum(a));
		Form_pg_attribute att;

		if (!HeapTupleIsValid(atttup))
			continue;
		att = (Form_pg_attribute) GETSTRUCT(atttup);
		if (!att->attisdropped &&
			(holds == CC_HOLDS_PLAIN ? cc_is_counter_type(att->atttypid, counter_type)
			 : cc_type_holds(att->atttypid, counter_type) == holds))
		{
			CcColumn   *c = palloc(sizeof(CcColumn));

			c->relid = relid;
			c->attnum = a;
			c->attname = pstrdup(NameStr(att->attname));
			c->relname = relname;
			cols = lappend(cols, c);
		}
		ReleaseSysCache(atttup);
	}
	return cols;
}

/*
 * The columns of every relation whose type holds counters as holds says:
 * one read of pg_attribute, each type judged once (the types of the system
 * catalogs hold none); then cc_columns_of() on each relation found.
 */
static List *
cc_all_columns(Oid counter_type, CcHolds holds)
{
	Relation	attrel = table_open(AttributeRelationId, AccessShareLock);
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *types = NIL;	/* types judged */
	List	   *verdicts = NIL; /* and how each holds counters */
	List	   *relids = NIL;
	List	   *cols = NIL;
	ListCell   *lc;

	scan = systable_beginscan(attrel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(tup);
		Oid			t = att->atttypid;
		int			k;

		CHECK_FOR_INTERRUPTS();
		if (att->attnum <= 0 || att->attisdropped || t < FirstNormalObjectId)
			continue;
		for (k = 0; k < list_length(types); k++)
			if (list_nth_oid(types, k) == t)
				break;
		if (k == list_length(types))
		{
			types = lappend_oid(types, t);
			verdicts = lappend_int(verdicts, (int) cc_type_holds(t, counter_type));
		}
		/* a relation's columns mostly lie together: duplicates go below */
		if (list_nth_int(verdicts, k) == (int) holds &&
			(relids == NIL || llast_oid(relids) != att->attrelid))
			relids = lappend_oid(relids, att->attrelid);
	}
	systable_endscan(scan);
	table_close(attrel, AccessShareLock);
	list_sort(relids, list_oid_cmp);
	list_deduplicate_oid(relids);
	foreach(lc, relids)
	{
		CHECK_FOR_INTERRUPTS();
		cols = cc_columns_of(lfirst_oid(lc), counter_type, holds, cols);
	}
	list_sort(cols, cc_column_cmp);
	return cols;
}

/*
 * The columns to sweep: of every table with storage (InvalidOid), or of
 * one table, a partitioned one standing for its partitions; in order of
 * table name, then column.  A counter column is one of type counter_crdt
 * or of a domain over it.
 */
List *
cc_sweep_columns(Oid only_table, Oid counter_type)
{
	List	   *cols = NIL;
	char		kind;

	if (!OidIsValid(only_table))
		return cc_all_columns(counter_type, CC_HOLDS_PLAIN);
	kind = get_rel_relkind(only_table);
	if (kind == RELKIND_PARTITIONED_TABLE)
	{
		ListCell   *lc;

		foreach(lc, find_all_inheritors(only_table, AccessShareLock, NULL))
			cols = cc_columns_of(lfirst_oid(lc), counter_type, CC_HOLDS_PLAIN, cols);
	}
	else if (kind == RELKIND_RELATION)
		cols = cc_columns_of(only_table, counter_type, CC_HOLDS_PLAIN, cols);
	else if (kind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", only_table)));
	else
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", get_rel_name(only_table)),
				 errdetail("Writers are folded in tables and partitioned tables on the server that holds their rows.")));
	list_sort(cols, cc_column_cmp);
	return cols;
}

List *
cc_nested_columns(Oid counter_type)
{
	return cc_all_columns(counter_type, CC_HOLDS_NESTED);
}

/*
 * Locks relation relid in mode, waiting as a statement would: for ever
 * without lock_timeout, else at most lock_timeout (false: not locked).
 * The wait polls, checking for interrupts, so that no subtransaction is
 * needed to survive the timeout.
 */
bool
cc_lock_within_timeout(Oid relid, LOCKMODE mode)
{
	TimestampTz start;

	if (ConditionalLockRelationOid(relid, mode))
		return true;
	if (LockTimeout <= 0)
	{
		LockRelationOid(relid, mode);
		return true;
	}
	start = GetCurrentTimestamp();
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ConditionalLockRelationOid(relid, mode))
			return true;
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), LockTimeout))
			return false;
	}
}

/*
 * Runs fn(arg); false when it failed for a lock not had within lock_timeout
 * (55P03), its work undone: with lock_timeout set, in a subtransaction of
 * its own.  Any other error goes on.
 */
bool
cc_within_lock_timeout(void (*fn) (void *arg), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool done = true;

	if (LockTimeout <= 0)
	{
		fn(arg);
		return true;
	}
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		if (e->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			PG_RE_THROW();
		FlushErrorState();
		FreeErrorData(e);
		RollbackAndReleaseCurrentSubTransaction();
		done = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return done;
}

bool
cc_no_data_here(char relpersistence)
{
	return relpersistence == RELPERSISTENCE_UNLOGGED && RecoveryInProgress();
}

/*
 * Whether the caller may sweep relid: it is a member of the owner's role.
 * When not, a WARNING (skipping it) or, for a table the caller named, an
 * error.  A table whose owner is subject to its own row security is
 * skipped likewise: its policies could hide rows from the sweep; and an
 * unlogged table on a standby, which has none of its rows.
 */
static bool
cc_may_sweep(const CcColumn *col, bool named, Oid *owner)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(col->relid));
	Form_pg_class rel;
	bool		forced,
				unlogged_here;

	if (!HeapTupleIsValid(tup))
		return false;
	rel = (Form_pg_class) GETSTRUCT(tup);
	*owner = rel->relowner;
	forced = rel->relrowsecurity && rel->relforcerowsecurity;
	unlogged_here = cc_no_data_here(rel->relpersistence);
	ReleaseSysCache(tup);
	if (unlogged_here)
	{
		ereport(named ? ERROR : WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s table %s: it is unlogged, and this server is a standby",
						named ? "cannot sweep" : "skipping", col->relname),
				 errdetail("A standby has none of the rows of an unlogged table."),
				 errhint("Run it on the primary.")));
		return false;
	}
	if (!has_privs_of_role(GetUserId(), *owner))
	{
		ereport(named ? ERROR : WARNING,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s table %s: only its owner may sweep its counters",
						named ? "cannot sweep" : "skipping", col->relname),
				 errdetail("The sweep reads and rewrites a table as its owner, as VACUUM does."),
				 errhint("Run it as the table's owner or as a superuser.")));
		return false;
	}
	if (forced)
	{
		ereport(named ? ERROR : WARNING,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s table %s: its row security applies to its owner",
						named ? "cannot sweep" : "skipping", col->relname),
				 errdetail("Policies could hide rows from the sweep, which must reach every row."),
				 errhint("ALTER TABLE %s NO FORCE ROW LEVEL SECURITY for the sweep.", col->relname)));
		return false;
	}
	return true;
}

/* Work as owner from here: security-restricted, search_path pinned. */
static void
cc_as_owner_begin(Oid owner, CcAsOwner *s)
{
	GetUserIdAndSecContext(&s->userid, &s->sec_context);
	SetUserIdAndSecContext(owner, s->sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	s->nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
	(void) set_config_option("row_security", "off",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
}

static void
cc_as_owner_end(CcAsOwner *s)
{
	AtEOXact_GUC(false, s->nestlevel);
	SetUserIdAndSecContext(s->userid, s->sec_context);
}

/*
 * The columns to sweep, the result set started and SPI connected: the
 * start of both sweeps.
 */
static List *
cc_sweep_start(FunctionCallInfo fcinfo, Oid only_table, Oid nspid)
{
	List	   *cols;

	InitMaterializedSRF(fcinfo, 0);
	cols = cc_sweep_columns(only_table, cc_counter_type(nspid));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	return cols;
}

/*
 * The table whose counters a sweep's UPDATE rewrites while it runs, and
 * where: the trigger depth, transaction and subtransaction of the sweep
 * (cc_sweep_rewrites()).  InvalidOid outside that UPDATE, also after an
 * error in it.
 */
static struct
{
	Oid			relid;
	int			depth;
	LocalTransactionId lxid;
	SubTransactionId subxact;
}			cc_rewriting;

/*
 * Runs sql on col's table as its owner (cc_as_owner_begin()), after
 * CHECK_FOR_INTERRUPTS(); false, and nothing run, when the caller may not
 * sweep the table (cc_may_sweep()).  *rc is SPI's answer.
 */
static bool
cc_sweep_run(const CcColumn *col, bool named, const char *sql, int nargs,
			 Oid *argtypes, Datum *args, bool read_only, int *rc)
{
	Oid			owner;
	CcAsOwner	saved;

	CHECK_FOR_INTERRUPTS();
	if (!cc_may_sweep(col, named, &owner))
		return false;
	cc_as_owner_begin(owner, &saved);
	if (!read_only)
	{
		cc_rewriting.relid = col->relid;
		cc_rewriting.depth = cc_trigger_depth();
		cc_rewriting.lxid = cc_current_lxid();
		cc_rewriting.subxact = GetCurrentSubTransactionId();
	}
	PG_TRY();
	{
		*rc = SPI_execute_with_args(sql, nargs, argtypes, args, NULL, read_only, 0);
	}
	PG_FINALLY();
	{
		cc_rewriting.relid = InvalidOid;
	}
	PG_END_TRY();
	cc_as_owner_end(&saved);
	return true;
}

bool
cc_sweep_rewrites(Oid relid, int depth)
{
	return OidIsValid(cc_rewriting.relid) &&
		cc_rewriting.relid == relid &&
		cc_rewriting.depth + 1 == depth &&
		cc_rewriting.lxid == cc_current_lxid() &&
		cc_rewriting.subxact == GetCurrentSubTransactionId();
}

/* The ids of a uuid[] argument: no NULL, as a uuid[] datum. */
static ArrayType *
cc_sweep_ids(FunctionCallInfo fcinfo, int argno, int *count)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("counter_crdt retired writer id must not be null")));
	arr = PG_GETARG_ARRAYTYPE_P(argno);
	deconstruct_array(arr, UUIDOID, UUID_LEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, count);
	for (int i = 0; i < *count; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("counter_crdt retired writer id must not be null")));
	return arr;
}

static bool
cc_ids_contain(ArrayType *arr, int count, const uint8_t *id)
{
	Datum	   *elems;
	bool	   *nulls;

	deconstruct_array(arr, UUIDOID, UUID_LEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, &count);
	for (int i = 0; i < count; i++)
		if (memcmp(DatumGetUUIDP(elems[i])->data, id, CC_ID_LEN) == 0)
			return true;
	return false;
}

/*
 * Adds the ids to this database's list of retired writers, marked
 * forgotten when forgotten; a WARNING when the caller may not write it.
 */
static void
cc_list_retired(ArrayType *ids, bool forgotten, const char *nsp)
{
	Oid			list = cc_extension_relation("counter_crdt_retired_writers",
											 RELKIND_RELATION);
	Oid			argtypes[2] = {UUIDARRAYOID, BOOLOID};
	Datum		args[2] = {PointerGetDatum(ids), BoolGetDatum(forgotten)};
	char	   *sql;

	if (!OidIsValid(list))
		return;
	if (pg_class_aclcheck(list, GetUserId(), ACL_INSERT) != ACLCHECK_OK ||
		pg_class_aclcheck(list, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
	{
		ereport(WARNING,
				(errmsg("counter_crdt_retired_writers of this database is left as it was: role %s may not write it",
						GetUserNameFromId(GetUserId(), false)),
				 errhint("The extension's owner adds the retired writers to it, as doc/retiring-writers.md shows.")));
		return;
	}
	sql = psprintf("INSERT INTO %s.counter_crdt_retired_writers AS r (writer, forgotten_at)"
				   " SELECT DISTINCT u, CASE WHEN $2 THEN pg_catalog.now() END"
				   "   FROM pg_catalog.unnest($1) u"
				   " ON CONFLICT (writer) DO UPDATE"
				   "   SET forgotten_at = EXCLUDED.forgotten_at"
				   "   WHERE r.forgotten_at IS NULL AND EXCLUDED.forgotten_at IS NOT NULL",
				   nsp);
	if (SPI_execute_with_args(sql, 2, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "counter_crdt: the list of retired writers could not be written");
}

/*
 * counter_crdt_rewrite_counters(action text, retired uuid[], only_table
 * regclass): counter_crdt_fold_many() (action 'fold') or
 * counter_crdt_forget_many() ('forget') on every counter of one table or
 * of all tables that it changes, each table as its owner; a row per column
 * swept with the counters it changed.  Then the ids go on the list of
 * retired writers, forgotten only as the header says.
 */
PG_FUNCTION_INFO_V1(counter_crdt_rewrite_counters);
Datum
counter_crdt_rewrite_counters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			nspid = get_func_namespace(fcinfo->flinfo->fn_oid);
	const char *nsp = quote_identifier(get_namespace_name(nspid));
	Oid			only_table = PG_ARGISNULL(2) ? InvalidOid : PG_GETARG_OID(2);
	ArrayType  *ids;
	int			count;
	bool		fold = false;
	bool		skipped = false;
	const char *fn;
	List	   *cols;
	ListCell   *lc;

	ids = cc_sweep_ids(fcinfo, 1, &count);
	if (PG_ARGISNULL(0))
		fn = NULL;
	else
	{
		char	   *action = text_to_cstring(PG_GETARG_TEXT_PP(0));

		fold = strcmp(action, "fold") == 0;
		fn = fold ? "counter_crdt_fold_many"
			: strcmp(action, "forget") == 0 ? "counter_crdt_forget_many" : NULL;
	}
	if (fn == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counter_crdt_rewrite_counters action must be fold or forget")));
	if (cc_ids_contain(ids, count, cc_node_id()))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg(fold ? "counter_crdt cannot fold this server's own writer id into itself"
						: "counter_crdt cannot forget this server's own writer id"),
				 errdetail("counter_crdt_node_id() is the id this server increments under."),
				 errhint(fold ? "Run the fold on a server that goes on writing."
						 : "Only a writer that will not write again is retired and forgotten.")));

	cols = cc_sweep_start(fcinfo, only_table, nspid);
	foreach(lc, cols)
	{
		CcColumn   *col = lfirst(lc);
		const char *att = quote_identifier(col->attname);
		char	   *sql;
		Oid			argtypes[1] = {UUIDARRAYOID};
		Datum		args[1] = {PointerGetDatum(ids)};
		int			rc;
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		sql = psprintf("UPDATE ONLY %1$s SET %2$s = %3$s.%4$s(%2$s, $1)"
					   " WHERE NOT (%3$s.%4$s(%2$s, $1) OPERATOR(%3$s.=) %2$s)",
					   col->relname, att, nsp, fn);
		if (!cc_sweep_run(col, OidIsValid(only_table), sql, 1, argtypes, args,
						  false, &rc))
		{
			skipped = true;
			continue;
		}
		if (rc != SPI_OK_UPDATE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot sweep table %s: its UPDATE is rewritten by a rule",
							col->relname),
					 errdetail("The sweep rewrites counters by UPDATE ONLY, as the table's owner.")));
		values[0] = ObjectIdGetDatum(col->relid);
		values[1] = CStringGetDatum(col->attname);
		values[1] = DirectFunctionCall1(namein, values[1]);
		values[2] = Int64GetDatum((int64) SPI_processed);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (fold)
		cc_list_retired(ids, false, nsp);
	else
	{
		List	   *nested = OidIsValid(only_table) || skipped ? NIL :
			cc_nested_columns(cc_counter_type(nspid));
		bool		proven = !OidIsValid(only_table) && !skipped && nested == NIL;

		if (!proven)
			ereport(NOTICE,
					(errmsg("the writers are listed as retired in counter_crdt_retired_writers, not as forgotten"),
					 OidIsValid(only_table)
					 ? errdetail("A forget of one table proves nothing of the other tables, whose applied rows keep the writers.")
					 : skipped
					 ? errdetail("The forget skipped a table, whose counters it could not check.")
					 : errdetail("Column %s of %s holds counters inside other values (an array, a composite or a range), which no sweep reads: they may still carry the writers.",
								 quote_identifier(((CcColumn *) linitial(nested))->attname),
								 ((CcColumn *) linitial(nested))->relname),
					 nested != NIL
					 ? errhint("Move those counters into counter_crdt columns, or drop the column, then forget the writers again (counter_crdt_health() lists such columns).")
					 : errhint("Run counter_crdt_forget_writers() without a table, as a role that owns every table with a counter, to mark them forgotten.")));
		cc_list_retired(ids, proven, nsp);
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * counter_crdt_writer_report(only_table regclass): per counter column and
 * writer id, as this server sees it (counter_crdt--1.4--1.5.sql says which
 * columns); each table read as its owner.
 */
PG_FUNCTION_INFO_V1(counter_crdt_writer_report);
Datum
counter_crdt_writer_report(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			nspid = get_func_namespace(fcinfo->flinfo->fn_oid);
	const char *nsp = quote_identifier(get_namespace_name(nspid));
	Oid			only_table = PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0);
	bool		commit_ts = strcmp(GetConfigOption("track_commit_timestamp", false, false), "on") == 0;
	List	   *cols;
	ListCell   *lc;

	cols = cc_sweep_start(fcinfo, only_table, nspid);
	foreach(lc, cols)
	{
		CcColumn   *col = lfirst(lc);
		char	   *sql;
		Oid			argtypes[3] = {REGCLASSOID, NAMEOID, BOOLOID};
		Datum		args[3];
		int			rc;

		args[0] = ObjectIdGetDatum(col->relid);
		args[1] = DirectFunctionCall1(namein, CStringGetDatum(col->attname));
		args[2] = BoolGetDatum(commit_ts);
		sql = psprintf("WITH w AS ("
					   "  SELECT s.id AS writer, pg_catalog.count(*) AS counters, pg_catalog.max(s.clock) AS max_clock,"
					   "         pg_catalog.max(CASE WHEN $3 THEN pg_catalog.pg_xact_commit_timestamp(t.xmin) END) AS last_write"
					   "    FROM ONLY %1$s t, %3$s.counter_crdt_shards(t.%2$s) s GROUP BY s.id),"
					   " f AS ("
					   "  SELECT x.retired AS writer, pg_catalog.count(DISTINCT t.ctid) AS folded,"
					   "         pg_catalog.count(DISTINCT t.ctid) FILTER (WHERE %3$s.counter_crdt_fold_pending(t.%2$s, x.retired)) AS pending"
					   "    FROM ONLY %1$s t, %3$s.counter_crdt_folds(t.%2$s) x GROUP BY x.retired),"
					   " r AS (SELECT coalesce(w.writer, f.writer) AS writer, w.counters, w.max_clock,"
					   "              coalesce(f.folded, 0) AS folded, coalesce(f.pending, 0) AS pending, w.last_write"
					   "         FROM w FULL JOIN f ON f.writer OPERATOR(pg_catalog.=) w.writer)"
					   " SELECT $1, $2, r.writer, coalesce(r.counters, 0), r.max_clock,"
					   "        r.writer OPERATOR(pg_catalog.=) %3$s.counter_crdt_node_id(), r.folded, r.pending,"
					   "        CASE WHEN r.writer OPERATOR(pg_catalog.=) %3$s.counter_crdt_node_id() THEN NULL"
					   "             WHEN EXISTS (SELECT FROM %3$s.counter_crdt_retired_writers l"
					   "                           WHERE l.writer OPERATOR(pg_catalog.=) r.writer) THEN"
					   "               'on this server''s list of retired writers'"
					   "             WHEN r.folded OPERATOR(pg_catalog.=) 0 THEN"
					   "               (SELECT pg_catalog.format('the default id of timeline %%s of this cluster, which ended', h.timeline)"
					   "                  FROM %3$s.counter_crdt_node_id_history() h"
					   "                 WHERE h.writer OPERATOR(pg_catalog.=) r.writer"
					   "                   AND h.timeline OPERATOR(pg_catalog.<)"
					   "                       (SELECT pg_catalog.max(timeline) FROM %3$s.counter_crdt_node_id_history()))"
					   "        END, r.last_write"
					   "   FROM r ORDER BY 3",
					   col->relname, quote_identifier(col->attname), nsp);
		if (!cc_sweep_run(col, OidIsValid(only_table), sql, 3, argtypes, args,
						  true, &rc))
			continue;
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "counter_crdt_writer_report: the report of %s failed: %s",
				 col->relname, SPI_result_code_string(rc));
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			Datum		values[10];
			bool		nulls[10];

			for (int k = 0; k < 10; k++)
				values[k] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
										  k + 1, &nulls[k]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_finish();
	return (Datum) 0;
}
