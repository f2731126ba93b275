/*
 * replication.c
 *	  counter_crdt_replica_merge(): merge on apply for logical replication.
 *
 * Logical replication ships whole rows and applies them last-writer-wins,
 * which loses concurrent increments made on two servers.  This trigger,
 * enabled as a REPLICA trigger so that it fires only in replication apply
 * (session_replication_role = replica), turns every applied row into a
 * merge:
 *
 *	- UPDATE: each counter_crdt column becomes merge(local, incoming).  When
 *	  that equals the local row, the write is skipped: nothing changes and
 *	  nothing is published again, which is also what ends the echo between
 *	  servers that subscribe to each other.
 *	- INSERT: the row is inserted with ON CONFLICT on the primary key merging
 *	  into the existing row, so an insert of a key that exists locally merges
 *	  instead of stopping the subscription with a unique violation.
 *
 * A replicated DELETE stays a delete.  A DELETE made locally, though, could
 * not win a race with increments made elsewhere: a server that has not seen
 * it yet re-creates the row, and PostgreSQL 15, which publishes again what it
 * applies, sends deletes and stale rows around the servers for ever.  So the
 * second trigger here, counter_crdt_delete_as_tombstone(), turns a local
 * DELETE of a row into tombstones in its counters: the row stays, reads as
 * NULL, and wins every merge, as a deleted counter does in ScyllaDB.
 *
 * Only counters and primary key columns may stand in such a table (as in
 * ScyllaDB and Cassandra, where a table with counters holds nothing else):
 * any other column could not be merged, and a last-writer-wins column beside
 * merged counters would diverge silently.  Such a table, or one without a
 * primary key, gets an error at trigger time.
 */
#include "counter_crdt.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "nodes/bitmapset.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(counter_crdt_replica_merge);
PG_FUNCTION_INFO_V1(counter_crdt_delete_as_tombstone);

/* Set while this trigger runs its own INSERT ... ON CONFLICT. */
static bool in_own_insert = false;

/* The counter columns of a table, checked to be mergeable as a whole. */
typedef struct CcTableInfo
{
	int			natts;
	bool	   *is_counter;		/* per attribute (0-based) */
	Bitmapset  *pkey;			/* primary key attnums, offset as relcache */
} CcTableInfo;

static void
cc_table_info(Relation rel, Oid counter_type, CcTableInfo *info)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			ncounters = 0;

	info->natts = desc->natts;
	info->is_counter = palloc0(sizeof(bool) * desc->natts);
	info->pkey = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_PRIMARY_KEY);
	if (bms_is_empty(info->pkey))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has no primary key",
						RelationGetRelationName(rel)),
				 errdetail("counter_crdt_replica_merge() merges replicated rows by their primary key.")));

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (att->atttypid == counter_type)
		{
			info->is_counter[i] = true;
			ncounters++;
		}
		else if (!bms_is_member(att->attnum - FirstLowInvalidHeapAttributeNumber,
								info->pkey))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of table \"%s\" is neither a counter_crdt nor part of the primary key",
							NameStr(att->attname), RelationGetRelationName(rel)),
					 errdetail("Replicated rows can be merged only when every other column is a counter_crdt."),
					 errhint("Move the column to a table of its own.")));
	}
	if (ncounters == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has no counter_crdt column",
						RelationGetRelationName(rel))));
}

/*
 * merge(local, incoming) of one column, as a datum; *changed tells whether it
 * differs from local.
 */
static Datum
cc_merge_column(Datum local, bool local_null, Datum incoming, bool incoming_null,
				bool *result_null, bool *changed)
{
	cc_merge_kind kind;
	Datum		merged;

	*changed = false;
	*result_null = local_null;
	if (incoming_null)
		return local;
	if (local_null)
	{
		*changed = true;
		*result_null = false;
		return incoming;
	}
	merged = cc_merge_datums(local, incoming, &kind);
	if (kind == CC_MERGE_TAKE_A)
		return local;			/* as stored, toast pointer and all */
	*changed = true;
	return merged;
}

static HeapTuple
cc_merge_update(TriggerData *td, const CcTableInfo *info)
{
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	oldtup = td->tg_trigtuple;
	HeapTuple	newtup = td->tg_newtuple;
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);
	bool	   *replace = palloc0(sizeof(bool) * desc->natts);
	bool		any_change = false;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		onull,
					nnull;
		Datum		o,
					n;

		if (att->attisdropped)
			continue;
		o = heap_getattr(oldtup, i + 1, desc, &onull);
		n = heap_getattr(newtup, i + 1, desc, &nnull);
		if (info->is_counter[i])
		{
			bool		changed;

			values[i] = cc_merge_column(o, onull, n, nnull, &nulls[i], &changed);
			replace[i] = true;
			any_change |= changed;
		}
		else if (onull != nnull ||
				 (!onull && !datum_image_eq(o, n, att->attbyval, att->attlen)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("replicated update changes key column \"%s\" of table \"%s\"",
							NameStr(att->attname), RelationGetRelationName(rel)),
					 errdetail("Rows of a table of counters are merged by key; a key cannot change.")));
	}
	if (!any_change)
		return NULL;			/* the local row already holds the merge */
	return heap_modify_tuple(oldtup, desc, values, nulls, replace);
}

/*
 * INSERT ... ON CONFLICT (primary key) DO UPDATE merging every counter, run
 * through SPI in place of the replicated insert.
 */
static void
cc_merge_insert(TriggerData *td, const CcTableInfo *info, Oid merge_nsp)
{
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	tup = td->tg_trigtuple;
	StringInfoData sql;
	Oid		   *types = palloc(sizeof(Oid) * desc->natts);
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	char	   *nulls = palloc(sizeof(char) * desc->natts);
	const char *relname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													 RelationGetRelationName(rel));
	const char *merge_fn = quote_qualified_identifier(get_namespace_name(merge_nsp),
													  "counter_crdt_merge");
	int			nargs = 0;
	bool		first;
	int			rc;

	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s AS t (", relname);
	first = true;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		isnull;

		if (att->attisdropped || att->attgenerated)
			continue;
		appendStringInfo(&sql, "%s%s", first ? "" : ", ",
						 quote_identifier(NameStr(att->attname)));
		first = false;
		types[nargs] = att->atttypid;
		values[nargs] = heap_getattr(tup, i + 1, desc, &isnull);
		nulls[nargs] = isnull ? 'n' : ' ';
		nargs++;
	}
	appendStringInfoString(&sql, ") VALUES (");
	for (int k = 0; k < nargs; k++)
		appendStringInfo(&sql, "%s$%d", k > 0 ? ", " : "", k + 1);
	appendStringInfoString(&sql, ") ON CONFLICT (");
	first = true;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped ||
			!bms_is_member(att->attnum - FirstLowInvalidHeapAttributeNumber, info->pkey))
			continue;
		appendStringInfo(&sql, "%s%s", first ? "" : ", ",
						 quote_identifier(NameStr(att->attname)));
		first = false;
	}
	appendStringInfoString(&sql, ") DO UPDATE SET ");
	first = true;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *col;

		if (att->attisdropped || !info->is_counter[i])
			continue;
		col = quote_identifier(NameStr(att->attname));
		appendStringInfo(&sql, "%s%s = %s(t.%s, EXCLUDED.%s)",
						 first ? "" : ", ", col, merge_fn, col, col);
		first = false;
	}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	in_own_insert = true;
	PG_TRY();
	{
		rc = SPI_execute_with_args(sql.data, nargs, types, values, nulls,
								   false, 0);
	}
	PG_FINALLY();
	{
		in_own_insert = false;
	}
	PG_END_TRY();
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "counter_crdt_replica_merge: insert into %s failed: %s",
			 relname, SPI_result_code_string(rc));
	SPI_finish();
}

/*
 * Checks how a trigger function of ours was called and reads the table;
 * returns the schema of the extension.
 */
static Oid
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

	/* The counter type lives in the schema of this function. */
	nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	counter_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								   CStringGetDatum("counter_crdt"),
								   ObjectIdGetDatum(nsp));
	if (!OidIsValid(counter_type))
		elog(ERROR, "type counter_crdt not found in the schema of %s()", name);
	cc_table_info(td->tg_relation, counter_type, info);
	return nsp;
}

Datum
counter_crdt_replica_merge(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	CcTableInfo info;
	Oid			nsp;

	/* Our own INSERT ... ON CONFLICT: let its row through. */
	if (in_own_insert && CALLED_AS_TRIGGER(fcinfo) &&
		TRIGGER_FIRED_BY_INSERT(td->tg_event))
		return PointerGetDatum(td->tg_trigtuple);

	nsp = cc_trigger_setup(fcinfo, "counter_crdt_replica_merge", false, &info);
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		return PointerGetDatum(cc_merge_update(td, &info));

	cc_merge_insert(td, &info, nsp);
	return PointerGetDatum(NULL);
}

/*
 * BEFORE DELETE: every counter of the row becomes a tombstone, by an UPDATE
 * of the row, and the delete itself is skipped.  A row whose counters are
 * all tombstones already is left as it is.
 */
Datum
counter_crdt_delete_as_tombstone(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;
	TupleDesc	desc;
	CcTableInfo info;
	StringInfoData sql;
	bool		first = true;
	bool		all_tombstones = true;
	Oid			argtypes[1] = {TIDOID};
	Datum		args[1];
	int			rc;

	cc_trigger_setup(fcinfo, "counter_crdt_delete_as_tombstone", true, &info);
	rel = td->tg_relation;
	desc = RelationGetDescr(rel);

	initStringInfo(&sql);
	appendStringInfo(&sql, "UPDATE ONLY %s SET ",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												RelationGetRelationName(rel)));
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		isnull;
		Datum		d;

		if (att->attisdropped || !info.is_counter[i])
			continue;
		d = heap_getattr(td->tg_trigtuple, i + 1, desc, &isnull);
		if (isnull)
			all_tombstones = false;
		else
		{
			cc_view		v;

			cc_datum_view(d, &v);
			all_tombstones &= v.tombstone;
		}
		appendStringInfo(&sql, "%s%s = 'tombstone'", first ? "" : ", ",
						 quote_identifier(NameStr(att->attname)));
		first = false;
	}
	if (all_tombstones)
		return PointerGetDatum(NULL);
	appendStringInfoString(&sql, " WHERE ctid = $1");

	args[0] = PointerGetDatum(&td->tg_trigtuple->t_self);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute_with_args(sql.data, 1, argtypes, args, NULL, false, 0);
	if (rc != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "counter_crdt_delete_as_tombstone: update of %s failed: %s",
			 RelationGetRelationName(rel), SPI_result_code_string(rc));
	SPI_finish();
	return PointerGetDatum(NULL);
}
