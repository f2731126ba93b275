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
 * Checks how a trigger function of ours was called and reads the table;
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
	cc_table_check_or_error(td->tg_relation, counter_type, info);
	return nsp;
}
