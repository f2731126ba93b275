/*
 * conflict_log.c
 *	  The own-id watch of the merge trigger and its log,
 *	  counter_crdt_writer_conflicts.
 *
 * While it merges, the merge trigger watches this server's own writer id
 * (contract 7.2): an applied shard of that id newer than the local one means
 * that another server writes under the same id, or that this server went
 * back in time.  It warns and records the event in
 * counter_crdt_writer_conflicts, as it does for an applied shard whose
 * clock is 2^62 or more (written by hand).  It merges and records only in
 * replication apply; fired otherwise, it lets a local write through.
 *
 * The log's own REPLICA trigger, counter_crdt_local_rows_only(), keeps its
 * rows on the server that wrote them.
 */
#include "base/datum.h"
#include "base/extension.h"
#include "replica/conflict_log.h"
#include "replica/table_check.h"
#include "writers/writer_ids.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "core/cc_ids.h"

/* The primary key of a row as "(a, b)=(1, x)", as unique violations show it. */
char *
cc_key_text(Relation rel, const CcTableInfo *info, HeapTuple tup)
{
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData names,
				values;
	bool		first = true;

	initStringInfo(&names);
	initStringInfo(&values);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		isnull;
		Datum		d;

		if (att->attisdropped ||
			!bms_is_member(att->attnum - FirstLowInvalidHeapAttributeNumber, info->pkey))
			continue;
		d = heap_getattr(tup, i + 1, desc, &isnull);
		appendStringInfoString(&names, first ? "" : ", ");
		appendStringInfoString(&names, quote_identifier(NameStr(att->attname)));
		appendStringInfoString(&values, first ? "" : ", ");
		if (isnull)
			appendStringInfoString(&values, "null");
		else
		{
			Oid			out;
			bool		varlena;

			getTypeOutputInfo(att->atttypid, &out, &varlena);
			appendStringInfoString(&values, OidOutputFunctionCall(out, d));
		}
		first = false;
	}
	return psprintf("(%s)=(%s)", names.data, values.data);
}

/*
 * The view of the conflicts that every role may read (1.4): when, where,
 * which writer, and whether the clock was near its end.
 */
Oid
cc_conflict_summary_relid(void)
{
	return cc_extension_relation("counter_crdt_writer_conflict_summary", RELKIND_VIEW);
}

/*
 * The extension's own conflicts table, whose columns must be those of the
 * install script: the nine of 1.2, and column_number since 1.8.
 * InvalidOid where the extension's version has none.
 */
Oid
cc_conflicts_relid(void)
{
	static const Oid types[CC_CONFLICTS_NATTS] = {TIMESTAMPTZOID, REGCLASSOID,
		TEXTOID, NAMEOID, UUIDOID, INT8OID, INT8OID, INT8OID, INT8OID, INT2OID};
	Oid			found = cc_extension_relation("counter_crdt_writer_conflicts",
											  RELKIND_RELATION);

	if (OidIsValid(found) &&
		!cc_extension_table_as_made(found, types, CC_CONFLICTS_NATTS - 1,
									CC_CONFLICTS_NATTS))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table counter_crdt_writer_conflicts of extension counter_crdt is not as the extension made it"),
				 errhint("Drop and create the extension again, or restore the table's columns.")));
	return found;
}

/*
 * Warns about an own-id conflict, or a shard whose clock is near the end of
 * its range (which increments cannot reach: it was written by hand), and
 * records it in the extension's table counter_crdt_writer_conflicts by a
 * direct heap insert, so that the
 * subscription's owner needs no privilege on it (the table has no index to
 * maintain).  Called only in replication apply (cc_in_apply()), so that no
 * role can forge a record.  Transactional with the apply: an apply that
 * fails and is retried records it again.
 */
static void
cc_record_conflict(Relation rel, const CcTableInfo *info, HeapTuple keytup,
				   int attno, const cc_shard *local, const cc_shard *incoming)
{
	char	   *key = cc_key_text(rel, info, keytup);
	const char *column = NameStr(TupleDescAttr(RelationGetDescr(rel), attno)->attname);
	char		idtext[CC_UUID_TEXT_LEN + 1];
	Oid			logid = cc_conflicts_relid();

	cc_uuid_format(local->id, idtext);
	if (incoming->clock >= CC_CLOCK_NEAR_LIMIT)
		ereport(WARNING,
				(errmsg("replicated row %s of table \"%s\" brings a shard of writer %s with clock %lld, near the end of its range",
						key, RelationGetRelationName(rel), idtext, (long long) incoming->clock),
				 errdetail("In column \"%s\". No writer gets there by increments: the shard was written by hand (an UPDATE of the column with the text form, or counter_crdt_increment() naming the writer). "
						   "Once the clock is 9223372036854775807, increments of that writer on this counter fail (22003).",
						   column),
				 OidIsValid(logid) ?
				 errhint("counter_crdt_health() reports the recorded shards (writer_clock_near_limit).") :
				 errhint("Not recorded: run ALTER EXTENSION counter_crdt UPDATE to keep such events.")));
	else
		ereport(WARNING,
				(errmsg("replicated row %s of table \"%s\" holds a newer shard of this server's writer id %s",
						key, RelationGetRelationName(rel), idtext),
				 local->clock == 0 ?
				 errdetail("In column \"%s\" the local row has no shard of this id, the replicated one has clock %lld and value %lld. "
						   "Another server writes under the same writer id, or this server went back in time; increments may be lost.",
						   column, (long long) incoming->clock, (long long) incoming->value) :
				 errdetail("In column \"%s\" the local shard has clock %lld and value %lld, the replicated one clock %lld and value %lld. "
						   "Another server writes under the same writer id, or this server went back in time; increments may be lost.",
						   column, (long long) local->clock, (long long) local->value,
						   (long long) incoming->clock, (long long) incoming->value),
				 OidIsValid(logid) ?
				 errhint("Give every server its own writer id. counter_crdt_health() reports the recorded conflicts.") :
				 errhint("Not recorded: run ALTER EXTENSION counter_crdt UPDATE to keep such events.")));

	if (OidIsValid(logid))
	{
		Relation	log = table_open(logid, RowExclusiveLock);
		Datum		values[CC_CONFLICTS_NATTS];
		bool		nulls[CC_CONFLICTS_NATTS] = {false};
		pg_uuid_t  *uuid = palloc(sizeof(pg_uuid_t));

		memcpy(uuid->data, local->id, CC_ID_LEN);
		values[0] = TimestampTzGetDatum(GetCurrentTimestamp());
		values[1] = ObjectIdGetDatum(RelationGetRelid(rel));
		values[2] = CStringGetTextDatum(key);
		values[3] = CStringGetDatum(column);
		values[4] = UUIDPGetDatum(uuid);
		values[5] = Int64GetDatum(local->clock);
		values[6] = Int64GetDatum(local->value);
		nulls[5] = nulls[6] = (local->clock == 0);	/* no local shard */
		values[7] = Int64GetDatum(incoming->clock);
		values[8] = Int64GetDatum(incoming->value);
		values[9] = Int16GetDatum(attno + 1);	/* where the table has it */
		simple_heap_insert(log, heap_form_tuple(RelationGetDescr(log), values, nulls));
		table_close(log, RowExclusiveLock);
	}
}

/*
 * The own-id check of one counter column (contract 7.2), on values read into
 * views; local is NULL when the local column is.
 */
void
cc_check_own_id_views(Relation rel, const CcTableInfo *info, HeapTuple keytup,
					  int attno, const cc_view *local, const cc_view *incoming)
{
	cc_shard	ls,
				is;

#ifdef CC_BENCH_NO_OWN_ID_CHECK
	return;						/* bench/apply_backlog.sh: the baseline */
#endif
	if (incoming->tombstone || (local != NULL && local->tombstone))
		return;
	if (cc_writer_newer(local ? local->shards : NULL, local ? local->n : 0,
						incoming->shards, incoming->n, cc_node_id(), &ls, &is))
		cc_record_conflict(rel, info, keytup, attno, &ls, &is);
	else if (cc_clock_near_limit(local ? local->shards : NULL, local ? local->n : 0,
								 incoming->shards, incoming->n, &ls, &is))
		cc_record_conflict(rel, info, keytup, attno, &ls, &is);
}

/* The same on detoasted values. */
void
cc_check_own_id(Relation rel, const CcTableInfo *info, HeapTuple keytup,
				int attno, struct varlena *local, struct varlena *incoming)
{
	CcRead		rl,
				ri;

	cc_read_open(PointerGetDatum(incoming), &ri);
	if (local != NULL)
		cc_read_open(PointerGetDatum(local), &rl);
	cc_check_own_id_views(rel, info, keytup, attno, local ? &rl.v : NULL, &ri.v);
	if (local != NULL)
		cc_read_close(&rl);
	cc_read_close(&ri);
}

/*
 * counter_crdt_local_rows_only(): keeps the extension's own tables (the
 * conflicts table, the list of retired writers) to their server.  As a
 * REPLICA trigger BEFORE each row: a publication of all tables sends their
 * rows to the other servers, where they would describe this server's
 * writers as theirs; applied there, they are dropped.  Outside apply rows
 * pass (the merge trigger inserts its records below triggers anyway).  As
 * a BEFORE TRUNCATE trigger for local statements (1.6): refused, since a
 * TRUNCATE would be applied on every subscriber, which no row trigger can
 * drop; DELETE stays local.
 */
PG_FUNCTION_INFO_V1(counter_crdt_local_rows_only);
Datum
counter_crdt_local_rows_only(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(td->tg_event) ||
		!(TRIGGER_FIRED_FOR_ROW(td->tg_event) || TRIGGER_FIRED_BY_TRUNCATE(td->tg_event)))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("counter_crdt_local_rows_only() must be a BEFORE trigger FOR EACH ROW, or BEFORE TRUNCATE")));
	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate table \"%s\" of extension counter_crdt",
						RelationGetRelationName(td->tg_relation)),
				 errdetail("A publication of all tables would empty the table on every subscriber as well; its rows belong to this server."),
				 errhint("DELETE FROM the table instead: deleted rows stay on this server.")));
	if (cc_in_apply())
		return PointerGetDatum(NULL);
	return PointerGetDatum(TRIGGER_FIRED_BY_UPDATE(td->tg_event) ?
						   td->tg_newtuple : td->tg_trigtuple);
}
