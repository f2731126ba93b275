/*
 * table_check.c
 *	  What a table of merged counters must be, and how a trigger of ours
 *	  starts.
 *
 * Only counters, primary key columns and stored generated columns may stand
 * in a table whose replicated rows are merged (as in ScyllaDB and Cassandra,
 * where a table with counters holds nothing else; a generated column is
 * computed again on every server from the row's keys and counters): any
 * other column could not be merged, and a last-writer-wins column beside
 * merged counters would diverge silently.  Such a table, or one without a
 * primary key, gets an error at trigger time, in cc_trigger_setup(), where
 * the merge and the delete trigger start; counter_crdt_enable_replica_merge()
 * and counter_crdt_health() check a table with the same cc_table_check().
 */
#include "postgres.h"

#include "base/extension.h"
#include "replica/table_check.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

static CcTableProblem *
cc_problem(const char *check, char *message, const char *detail, char *hint)
{
	CcTableProblem *p = palloc(sizeof(CcTableProblem));

	p->check = check;
	p->message = message;
	p->detail = detail;
	p->hint = hint;
	return p;
}

/*
 * Reads which columns of a table are counters and which form its primary
 * key, and returns the reasons why its replicated rows could not be merged
 * (a List of CcTableProblem *), NIL when they can.
 */
List *
cc_table_check(Relation rel, Oid counter_type, CcTableInfo *info)
{
	TupleDesc	desc = RelationGetDescr(rel);
	const char *relname = RelationGetRelationName(rel);
	int			ncounters = 0;
	List	   *problems = NIL;

	info->natts = desc->natts;
	info->is_counter = palloc0(sizeof(bool) * desc->natts);
	info->pkey = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_PRIMARY_KEY);
	if (bms_is_empty(info->pkey))
		problems = lappend(problems,
						   cc_problem("no_primary_key",
									  psprintf("table \"%s\" has no primary key", relname),
									  "counter_crdt_replica_merge() merges replicated rows by their primary key.",
									  psprintf("Add a primary key on the columns that name a counter: ALTER TABLE %s ADD PRIMARY KEY (...).",
											   quote_identifier(relname))));

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (cc_is_counter_type(att->atttypid, counter_type))
		{
			info->is_counter[i] = true;
			ncounters++;
		}
		else if (att->attgenerated != ATTRIBUTE_GENERATED_STORED &&
				 !bms_is_member(att->attnum - FirstLowInvalidHeapAttributeNumber,
								info->pkey))
			problems = lappend(problems,
							   cc_problem("column_not_mergeable",
										  psprintf("column \"%s\" of table \"%s\" is neither a counter_crdt nor part of the primary key",
												   NameStr(att->attname), relname),
										  "Replicated rows can be merged only when every other column is a counter_crdt or a stored generated column.",
										  pstrdup("Move the column to a table of its own.")));
	}
	if (ncounters == 0)
		problems = lappend(problems,
						   cc_problem("no_counter",
									  psprintf("table \"%s\" has no counter_crdt column", relname),
									  "Only counter_crdt columns are merged.",
									  pstrdup("Add a counter_crdt column, or leave the table to plain replication.")));
	return problems;
}

/* The first problem of cc_table_check() as an ERROR, if there is one. */
void
cc_table_check_or_error(Relation rel, Oid counter_type, CcTableInfo *info)
{
	List	   *problems = cc_table_check(rel, counter_type, info);
	CcTableProblem *p;

	if (problems == NIL)
		return;
	p = (CcTableProblem *) linitial(problems);
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s", p->message),
			 errdetail("%s", p->detail),
			 errhint("%s", p->hint)));
}

/* The columns of a primary key, quoted and comma-separated, in table order. */
char *
cc_key_columns(Relation rel, const Bitmapset *pkey)
{
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData cols;

	initStringInfo(&cols);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped ||
			!bms_is_member(att->attnum - FirstLowInvalidHeapAttributeNumber, pkey))
			continue;
		appendStringInfo(&cols, "%s%s", cols.len > 0 ? ", " : "",
						 quote_identifier(NameStr(att->attname)));
	}
	return cols.data;
}

/*
 * The schema of a trigger function of ours and the type counter_crdt in it,
 * kept per backend: the apply worker makes a new executor state, and with it
 * new FmgrInfos, for every change it applies, so fn_extra would keep nothing.
 * Any change to a function or a type in the catalogs (ALTER EXTENSION ...
 * SET SCHEMA moves both) forgets them.
 */
static Oid	cc_types_fn = InvalidOid;
static Oid	cc_types_nsp = InvalidOid;
static Oid	cc_types_counter = InvalidOid;

static void
cc_types_forget(Datum arg, int cacheid, uint32 hashvalue)
{
	cc_types_fn = InvalidOid;
}

static void
cc_trigger_types(Oid fn, Oid *nsp, Oid *counter_type)
{
	static bool registered = false;

	if (!registered)
	{
		CacheRegisterSyscacheCallback(PROCOID, cc_types_forget, (Datum) 0);
		CacheRegisterSyscacheCallback(TYPEOID, cc_types_forget, (Datum) 0);
		registered = true;
	}
	if (fn != cc_types_fn)
	{
		/* The counter type lives in the schema of this function. */
		Oid			n = get_func_namespace(fn);
		Oid			t = cc_counter_type(n);

		cc_types_nsp = n;
		cc_types_counter = t;
		cc_types_fn = fn;
	}
	*nsp = cc_types_nsp;
	*counter_type = cc_types_counter;
}

/*
 * What cc_table_check() found in a table whose check passed, kept per
 * backend by relation OID: the merge trigger runs for every applied row,
 * and the columns and the key of a table change only by DDL, which sends a
 * relcache invalidation of it (a new column, a dropped one, a new type, a
 * primary key made or dropped).  That invalidation, or a reset of the whole
 * relcache, marks the entry stale, and so does another counter type than
 * the one it was checked with (the extension made again: cc_trigger_types()
 * forgets the type on any change of a function or a type).  A stale entry
 * is read again at its next use.  A table that fails the check
 * is not kept: the error is raised again on every call, as before.
 *
 * Callers get the entry's arrays, not copies, and only read them.  A trigger
 * call of ours may still hold them while a nested statement (the SPI insert
 * of the merge trigger, the tombstone update of the delete trigger) takes in
 * an invalidation and reads the table again; so the arrays of a stale entry
 * are freed at the end of the transaction, never sooner.
 */
typedef struct CcTableEntry
{
	Oid			relid;			/* hash key */
	bool		valid;
	Oid			counter_type;	/* what the check compared with */
	CcTableInfo info;			/* arrays in CacheMemoryContext */
} CcTableEntry;

static HTAB *cc_tables = NULL;
static CcTableEntry *cc_tables_last = NULL;	/* the entry found last */
static uint64 cc_tables_invals = 0;	/* invalidations taken in so far */

static void
cc_tables_forget(Oid relid)
{
	HASH_SEQ_STATUS seq;
	CcTableEntry *e;

	cc_tables_invals++;
	if (cc_tables == NULL)
		return;
	if (OidIsValid(relid))
	{
		e = hash_search(cc_tables, &relid, HASH_FIND, NULL);
		if (e != NULL)
			e->valid = false;
		return;
	}
	hash_seq_init(&seq, cc_tables);
	while ((e = hash_seq_search(&seq)) != NULL)
		e->valid = false;
}

static void
cc_tables_relcache(Datum arg, Oid relid)
{
	cc_tables_forget(relid);
}

/* At the end of the transaction: the arrays of a stale entry. */
static void
cc_table_info_free(void *arg)
{
	CcTableInfo *old = (CcTableInfo *) arg;

	pfree(old->is_counter);
	bms_free(old->pkey);
	pfree(old);
}

static void
cc_table_info_free_later(const CcTableInfo *info)
{
	MemoryContextCallback *cb;
	CcTableInfo *old;

	if (info->is_counter == NULL)
		return;
	old = MemoryContextAlloc(CacheMemoryContext, sizeof(CcTableInfo));
	*old = *info;
	cb = MemoryContextAlloc(TopTransactionContext, sizeof(MemoryContextCallback));
	cb->func = cc_table_info_free;
	cb->arg = old;
	MemoryContextRegisterResetCallback(TopTransactionContext, cb);
}

/*
 * The check of a trigger's table, from the cache or read now; *info points
 * at the cache's arrays.
 */
static void
cc_table_check_cached(Relation rel, Oid counter_type, CcTableInfo *info)
{
	Oid			relid = RelationGetRelid(rel);
	CcTableEntry *e;
	bool		found;
	uint64		invals;

	if (cc_tables == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(CcTableEntry);
		ctl.hcxt = CacheMemoryContext;
		cc_tables = hash_create("counter_crdt trigger tables", 16, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(cc_tables_relcache, (Datum) 0);
	}
	/* entries stay where they are: a table's rows come one after another */
	e = cc_tables_last;
	if (e == NULL || e->relid != relid)
		e = hash_search(cc_tables, &relid, HASH_FIND, NULL);
	if (e != NULL && e->valid && e->counter_type == counter_type)
	{
		cc_tables_last = e;
		*info = e->info;
		return;
	}

	/*
	 * Read it now, in the caller's context; an error leaves no entry, and
	 * neither does an invalidation taken in while reading (the index list
	 * opens indexes, and so takes in invalidations): what was read may be
	 * from before it.
	 */
	invals = cc_tables_invals;
	cc_table_check_or_error(rel, counter_type, info);
	if (invals != cc_tables_invals)
		return;
	e = hash_search(cc_tables, &relid, HASH_FIND, NULL);
	if (e == NULL)
	{
		e = hash_search(cc_tables, &relid, HASH_ENTER, &found);
		e->info.is_counter = NULL;
		e->info.pkey = NULL;
	}
	e->valid = false;
	if (e->info.is_counter != NULL)
	{
		cc_table_info_free_later(&e->info);
		e->info.is_counter = NULL;
		e->info.pkey = NULL;
	}
	e->counter_type = counter_type;
	e->info.natts = info->natts;
	e->info.is_counter = MemoryContextAlloc(CacheMemoryContext,
											sizeof(bool) * info->natts);
	memcpy(e->info.is_counter, info->is_counter, sizeof(bool) * info->natts);
	{
		MemoryContext old = MemoryContextSwitchTo(CacheMemoryContext);

		e->info.pkey = bms_copy(info->pkey);
		MemoryContextSwitchTo(old);
	}
	e->valid = true;
}

/*
 * Checks how a trigger function of ours was called and reads the table
 * (kept per backend: *info's arrays are the cache's, to read only);
 * returns the schema of the extension.
 */
Oid
cc_trigger_setup(FunctionCallInfo fcinfo, const char *name, bool for_delete,
				 CcTableInfo *info)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			nsp;
	Oid			counter_type;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s() must be called as a trigger", name)));
	if (!TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		TRIGGER_FIRED_BY_TRUNCATE(td->tg_event) ||
		(TRIGGER_FIRED_BY_DELETE(td->tg_event) != for_delete))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s() must be a BEFORE %s trigger FOR EACH ROW",
						name, for_delete ? "DELETE" : "INSERT OR UPDATE")));

	cc_trigger_types(fcinfo->flinfo->fn_oid, &nsp, &counter_type);
	cc_table_check_cached(td->tg_relation, counter_type, info);
	return nsp;
}
