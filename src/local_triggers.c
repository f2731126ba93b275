/*
 * local_triggers.c
 *	  The triggers of local statements on a table whose counters are merged
 *	  across servers: counter_crdt_delete_as_tombstone() and
 *	  counter_crdt_local_guard().
 *
 * A replicated DELETE stays a delete.  A DELETE made locally, though, could
 * not win a race with increments made elsewhere: a server that has not seen
 * it yet re-creates the row, and PostgreSQL 15, which publishes again what it
 * applies, sends deletes and stale rows around the servers for ever.  So
 * counter_crdt_delete_as_tombstone() turns a local DELETE of a row into
 * tombstones in its counters: the row stays, reads as NULL, and wins every
 * merge, as a deleted counter does in ScyllaDB.
 *
 * counter_crdt_local_guard() refuses what a server must not do locally to
 * such a table: change a key (every subscriber's apply would stop on it; on
 * a partitioned table the row would move by a delete) and TRUNCATE (this
 * server's shards would start again below the clocks the others hold).  It
 * checks the key twice: before the row changes, and after, on the row that
 * every BEFORE trigger of the table made.
 */
#include "counter_crdt.h"
#include "table_check.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"

/*
 * BEFORE DELETE: every counter of the row becomes a tombstone, by an UPDATE
 * of the row, and the delete itself is skipped.  A row whose counters are
 * all tombstones already is left as it is.
 */
PG_FUNCTION_INFO_V1(counter_crdt_delete_as_tombstone);
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
			cc_stored	st;

			cc_datum_stored(d, &st);
			all_tombstones &= st.tombstone;
		}
		appendStringInfo(&sql, "%s%s = 'tombstone'", first ? "" : ", ",
						 quote_identifier(NameStr(att->attname)));
		first = false;
	}
	if (all_tombstones)
		return PointerGetDatum(NULL);
	appendStringInfoString(&sql, " WHERE ctid OPERATOR(pg_catalog.=) $1");

	args[0] = PointerGetDatum(&td->tg_trigtuple->t_self);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute_with_args(sql.data, 1, argtypes, args, NULL, false, 0);
	if (rc == SPI_OK_REWRITTEN)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot delete a row of table \"%s\": a rule rewrites its UPDATE",
						RelationGetRelationName(rel)),
				 errdetail("A DELETE of a replicated counter is an UPDATE to tombstones, and a DO INSTEAD rule replaces that update."),
				 errhint("Drop the rule, or give it a condition that lets updates of counters to tombstones through.")));
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "counter_crdt_delete_as_tombstone: update of %s failed: %s",
			 RelationGetRelationName(rel), SPI_result_code_string(rc));
	if (SPI_processed != 1)
	{
		/* Row security that lets this role delete the row but not update it */
		bool		rls = check_enable_rls(RelationGetRelid(rel), InvalidOid, true) == RLS_ENABLED;

		ereport(ERROR,
				(errcode(rls ? ERRCODE_INSUFFICIENT_PRIVILEGE : ERRCODE_TRIGGERED_ACTION_EXCEPTION),
				 errmsg("cannot delete a row of table \"%s\": the update that turns its counters into tombstones changed no row",
						RelationGetRelationName(rel)),
				 rls ?
				 errdetail("A DELETE of a replicated counter is an UPDATE to tombstones, and row security hides this row from UPDATE for the current role.") :
				 errdetail("A DELETE of a replicated counter is an UPDATE to tombstones, and another BEFORE UPDATE trigger of the table skipped that update."),
				 errhint("Let the role update the rows it deletes, or the other trigger let updates of counters to tombstones through.")));
	}
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * counter_crdt_local_guard(): what a server must not do locally to a table
 * whose rows are merged across servers.  BEFORE UPDATE OF the key columns,
 * FOR EACH ROW: a change of the primary key is refused, before the row is
 * changed or moved to another partition (a key names one counter on every
 * server; a replicated key change cannot be merged, and row movement would
 * delete the row).  AFTER UPDATE, FOR EACH ROW (WHEN the key differs): the
 * same check on the row as written, which a BEFORE trigger that fires after
 * the first guard may have changed.  BEFORE TRUNCATE, FOR EACH STATEMENT:
 * refused (it would drop this server's shards, whose clocks would then start
 * again below what the other servers hold).  All fire for local statements
 * only.
 */
PG_FUNCTION_INFO_V1(counter_crdt_local_guard);
Datum
counter_crdt_local_guard(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;
	TupleDesc	desc;
	Bitmapset  *pkey;
	bool		after;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("counter_crdt_local_guard() must be called as a trigger")));
	rel = td->tg_relation;
	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event) && TRIGGER_FIRED_BEFORE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate table \"%s\": its counters are merged across servers",
						RelationGetRelationName(rel)),
				 errdetail("TRUNCATE would drop this server's shards; the other servers keep them with higher clocks, and this server's next increments would be lost against them."),
				 errhint("DELETE the rows instead: they become tombstones on every server.")));
	if (!TRIGGER_FIRED_BY_UPDATE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		TRIGGER_FIRED_INSTEAD(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("counter_crdt_local_guard() must be a BEFORE or AFTER UPDATE trigger FOR EACH ROW or a BEFORE TRUNCATE trigger")));
	after = TRIGGER_FIRED_AFTER(td->tg_event);

	desc = RelationGetDescr(rel);
	pkey = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_PRIMARY_KEY);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		onull,
					nnull;
		Datum		o,
					n;

		if (att->attisdropped ||
			!bms_is_member(att->attnum - FirstLowInvalidHeapAttributeNumber, pkey))
			continue;
		o = heap_getattr(td->tg_trigtuple, i + 1, desc, &onull);
		n = heap_getattr(td->tg_newtuple, i + 1, desc, &nnull);
		if (onull != nnull ||
			(!onull && !datum_image_eq(o, n, att->attbyval, att->attlen)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot change key column \"%s\" of table \"%s\": its counters are merged across servers",
							NameStr(att->attname), RelationGetRelationName(rel)),
					 after ?
					 errdetail("The row as written, after the table's BEFORE UPDATE triggers, has another key. A key names one counter on every server: the other servers could not apply the change, and their increments of the old key would be lost.") :
					 errdetail("A key names one counter on every server: the other servers could not apply the change, and their increments of the old key would be lost."),
					 after ?
					 errhint("Let the table's BEFORE UPDATE triggers leave the key as it is. To move a count, add it to the new key's counter (c + n) and DELETE the old row, which becomes a tombstone.") :
					 errhint("To move a count, add it to the new key's counter (c + n) and DELETE the old row, which becomes a tombstone.")));
	}
	/* an AFTER trigger's result is ignored */
	return PointerGetDatum(td->tg_newtuple);
}
