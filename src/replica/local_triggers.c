/*
 * local_triggers.c
 *	  The triggers of local statements on a table whose counters are merged
 *	  across servers, counter_crdt_delete_as_tombstone() and
 *	  counter_crdt_local_guard(), and of any table with counters,
 *	  counter_crdt_write_guard().
 *
 * A replicated DELETE stays a delete.  A DELETE made locally, though, could
 * not win a race with increments made elsewhere: a server that has not seen
 * it yet re-creates the row, and PostgreSQL 15, which publishes again what it
 * applies, sends deletes and stale rows around the servers for ever.  So
 * counter_crdt_delete_as_tombstone() turns a local DELETE of a row into
 * tombstones in its counters: the row stays, reads as NULL, and wins every
 * merge, as a deleted counter does in ScyllaDB.
 *
 * counter_crdt_write_guard() refuses a local write of a counter state that
 * lacks what the row holds (a state read and written back), on any table
 * that counter_crdt_guard_writes() set up.
 *
 * counter_crdt_local_guard() refuses what a server must not do locally to
 * such a table: change a key (every subscriber's apply would stop on it; on
 * a partitioned table the row would move by a delete) and TRUNCATE (this
 * server's shards would start again below the clocks the others hold).  It
 * checks the key twice: before the row changes, and after, on the row that
 * every BEFORE trigger of the table made; and on a partition the delete
 * trigger refuses the delete by which PostgreSQL would move a row that a
 * later BEFORE trigger gave another partition key (see CcRowMove).
 */
#include "base/datum.h"
#include "base/extension.h"
#include "core/cc_algebra.h"
#include "replica/table_check.h"
#include "type/value.h"
#include "writers/retired.h"
#include "writers/sweep.h"
#include "writers/writer_ids.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/timestamp.h"

/*
 * The row moves that the key guard saw coming.  PostgreSQL moves a row to
 * another partition by a DELETE on its partition, and tells the BEFORE
 * DELETE trigger nothing of the UPDATE behind it; a BEFORE UPDATE trigger
 * of the owner's that fires after the key guard may have changed the
 * partition key.  So the key guard, which on a partition fires for every
 * UPDATE, notes the row it passed, and the delete trigger refuses a delete
 * of that very row as the move it is, where it would have made tombstones.
 *
 * A note matches only a delete of the same partition (relid), of the same
 * row version (tid: the move deletes the version the update locked), in the
 * same transaction (lxid: tids and statement times recur in others), the
 * same subtransaction (subxact: an update rolled back to a savepoint moved
 * nothing) and the same client statement (stmt: a DELETE in a later
 * statement is a delete), at the same trigger depth.  The depth indexes the
 * notes: a move's delete fires at the depth of its update's guard, and an
 * UPDATE that a trigger runs in between (another row of the partition, say)
 * notes at a deeper one, so the outer note stays.  A note is dropped when a
 * delete consumes it or the next row at its depth replaces it.
 *
 * The one false refusal: an UPDATE of a row that a later BEFORE trigger
 * skips (returns NULL), then a DELETE of that row at the same depth in the
 * same statement and subtransaction (two statements of one function call):
 * the delete is refused with an error and nothing changes.  Never a silent
 * change.  The notes are this backend's alone; no other session, and no
 * statement but the nested ones above, can see them.
 */
typedef struct CcRowMove
{
	Oid			relid;			/* InvalidOid: no note at this depth */
	ItemPointerData tid;
	LocalTransactionId lxid;
	SubTransactionId subxact;
	TimestampTz stmt;
} CcRowMove;

static CcRowMove *cc_moves = NULL;	/* indexed by trigger depth */
static int	cc_moves_len = 0;

/* The key guard passed this row of a partition: note it at its depth. */
static void
cc_note_row_move(Relation rel, HeapTuple oldtuple)
{
	int			depth = cc_trigger_depth();
	CcRowMove  *m;

	if (depth >= cc_moves_len)
	{
		int			len = Max(depth + 1, Max(cc_moves_len * 2, 8));

		if (cc_moves == NULL)
			cc_moves = MemoryContextAllocZero(TopMemoryContext, len * sizeof(CcRowMove));
		else
		{
			cc_moves = repalloc(cc_moves, len * sizeof(CcRowMove));
			memset(cc_moves + cc_moves_len, 0, (len - cc_moves_len) * sizeof(CcRowMove));
		}
		cc_moves_len = len;
	}
	m = &cc_moves[depth];
	m->relid = RelationGetRelid(rel);
	m->tid = oldtuple->t_self;
	m->lxid = cc_current_lxid();
	m->subxact = GetCurrentSubTransactionId();
	m->stmt = GetCurrentStatementStartTimestamp();
}

/* Is this delete the move of the row that the key guard noted?  Consumes it. */
static bool
cc_is_row_move(Relation rel, HeapTuple oldtuple)
{
	int			depth = cc_trigger_depth();
	CcRowMove  *m;
	bool		match;

	if (depth >= cc_moves_len)
		return false;
	m = &cc_moves[depth];
	match = OidIsValid(m->relid) &&
		m->relid == RelationGetRelid(rel) &&
		ItemPointerEquals(&m->tid, &oldtuple->t_self) &&
		m->lxid == cc_current_lxid() &&
		m->subxact == GetCurrentSubTransactionId() &&
		m->stmt == GetCurrentStatementStartTimestamp();
	if (match)
		m->relid = InvalidOid;
	return match;
}

/*
 * The errdetail and errhint of a refused change of key, shared by the key
 * guard and the delete that would move a row: the detail says how the key
 * changed (how, a sentence; NULL for a change the statement made itself)
 * and what the other servers would lose; the hint, how to move a count
 * instead, after asking, when by_trigger, that the table's BEFORE UPDATE
 * triggers leave the key as it is.
 */
static int
cc_errdetail_key_change(const char *how, bool by_trigger)
{
	const char *lost = "A key names one counter on every server: the other servers could not apply the change, and their increments of the old key would be lost.";
	const char *move = "To move a count, add it to the new key's counter (c + n) and DELETE the old row, which becomes a tombstone.";

	if (how)
		errdetail("%s %s", how, lost);
	else
		errdetail("%s", lost);
	if (by_trigger)
		errhint("Let the table's BEFORE UPDATE triggers leave the key as it is. %s", move);
	else
		errhint("%s", move);
	return 0;					/* return value does not matter */
}

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

	if (rel->rd_rel->relispartition && cc_is_row_move(rel, td->tg_trigtuple))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot move a row of table \"%s\" to another partition: its counters are merged across servers",
						RelationGetRelationName(rel)),
				 cc_errdetail_key_change("A BEFORE UPDATE trigger of the table changed the key after the key guard checked it, and PostgreSQL moves the row by a delete.",
										 true)));

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
 * whose rows are merged across servers.  BEFORE UPDATE OF the key columns
 * (of any column on a partitioned table), FOR EACH ROW: a change of the primary key is refused, before the row is
 * changed or moved to another partition (a key names one counter on every
 * server; a replicated key change cannot be merged, and row movement would
 * delete the row).  AFTER UPDATE, FOR EACH ROW (WHEN the key differs): the
 * same check on the row as written, which a BEFORE trigger that fires after
 * the first guard may have changed; a row move, which fires no AFTER UPDATE
 * trigger, is refused by the delete trigger on the note that the BEFORE
 * guard leaves on a partition (it fires there for every UPDATE).  BEFORE
 * TRUNCATE, FOR EACH STATEMENT: refused (it would drop this server's shards,
 * whose clocks would then start again below what the other servers hold).
 * All fire for local statements only.
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
					 cc_errdetail_key_change(after ? "The row as written, after the table's BEFORE UPDATE triggers, has another key." : NULL,
											 after)));
	}
	if (!after && rel->rd_rel->relispartition)
		cc_note_row_move(rel, td->tg_trigtuple);
	/* an AFTER trigger's result is ignored */
	return PointerGetDatum(td->tg_newtuple);
}

/*
 * The counter columns of the table a write guard fires for, found once per
 * statement (fn_extra of the trigger's call).
 */
typedef struct CcGuardColumns
{
	Oid			relid;
	int			natts;
	bool		is_counter[FLEXIBLE_ARRAY_MEMBER];
} CcGuardColumns;

static CcGuardColumns *
cc_guard_columns(FunctionCallInfo fcinfo, Relation rel)
{
	CcGuardColumns *cols = fcinfo->flinfo->fn_extra;
	TupleDesc	desc = RelationGetDescr(rel);
	Oid			counter_type;

	if (cols != NULL && cols->relid == RelationGetRelid(rel) && cols->natts == desc->natts)
		return cols;
	counter_type = cc_counter_type(get_func_namespace(fcinfo->flinfo->fn_oid));
	cols = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
								  offsetof(CcGuardColumns, is_counter) + desc->natts);
	cols->relid = RelationGetRelid(rel);
	cols->natts = desc->natts;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		cols->is_counter[i] = !att->attisdropped &&
			cc_is_counter_type(att->atttypid, counter_type);
	}
	fcinfo->flinfo->fn_extra = cols;
	return cols;
}

/*
 * This server's own shard, when the new state gives it the old one's clock
 * and another value, as text for a message ("id:clock:value" old and new);
 * else NULL.  Only this server's increments move its clock here, each by
 * one: two states computed from one read of the row (`'state' + n`
 * written twice) hold the same clock.  Other writers' shards come from
 * merges, which keep what a server sent.
 */
static char *
cc_write_conflict(const CcRead *ro, const CcRead *rn)
{
	const uint8_t *own = cc_node_id();
	size_t		i,
				j;
	cc_shard	so,
				sn;
	char		id[CC_UUID_TEXT_LEN + 1];

	if (ro->v.tombstone || rn->v.tombstone)
		return NULL;
	i = cc_id_lower_bound(ro->v.shards, ro->v.n, CC_SHARD_SIZE, own);
	j = cc_id_lower_bound(rn->v.shards, rn->v.n, CC_SHARD_SIZE, own);
	if (i == ro->v.n || j == rn->v.n)
		return NULL;
	cc_load(ro->v.shards, i, &so);
	cc_load(rn->v.shards, j, &sn);
	if (!cc_id_eq(so.id, own) || !cc_id_eq(sn.id, own) ||
		so.clock != sn.clock || so.value == sn.value)
		return NULL;
	cc_uuid_format(own, id);
	id[CC_UUID_TEXT_LEN] = '\0';
	return psprintf("%s:" INT64_FORMAT ":" INT64_FORMAT ", the new state %s:" INT64_FORMAT ":" INT64_FORMAT,
					id, so.clock, so.value, id, sn.clock, sn.value);
}

/*
 * What the old state holds that the new one lacks, as text for a message,
 * or NULL when the new state holds it all (merge(old, new) = new); then
 * *conflict is cc_write_conflict()'s answer, from the same reads.
 */
static char *
cc_write_lacks(Datum oldv, Datum newv, char **conflict)
{
	LOCAL_FCINFO(fc, 2);
	Datum		diff;
	char	   *text;
	CcRead		ro,
				rn;
	bool		holds;

	/* the common case, live values without records: no copy made */
	cc_read_open(oldv, &ro);
	cc_read_open(newv, &rn);
	holds = !ro.v.tombstone && !rn.v.tombstone && ro.nf == 0 && rn.nf == 0 &&
		cc_merge_is_noop(rn.v.shards, rn.v.n, ro.v.shards, ro.v.n);
	*conflict = cc_write_conflict(&ro, &rn);
	cc_read_close(&ro);
	cc_read_close(&rn);
	if (holds)
		return NULL;

	InitFunctionCallInfoData(*fc, NULL, 2, InvalidOid, NULL, NULL);
	fc->args[0].value = oldv;
	fc->args[0].isnull = false;
	fc->args[1].value = newv;
	fc->args[1].isnull = false;
	diff = counter_crdt_difference(fc);
	if (fc->isnull)
		return NULL;
	text = DatumGetCString(DirectFunctionCall1(counter_crdt_out, diff));
	if (strlen(text) > 200)
		strcpy(text + pg_mbcliplen(text, strlen(text), 196), " ...");
	return text;
}

/* The hint of the write guard's refusals: the increment, or the merge. */
static int
cc_errhint_increment(const char *attname)
{
	const char *col = quote_identifier(attname);

	return errhint("Increment with %s = %s + n; to bring in another server's state, write counter_crdt_merge(%s, state).",
				   col, col, col);
}

/*
 * counter_crdt_write_guard(): BEFORE UPDATE FOR EACH ROW, for local
 * statements (counter_crdt_guard_writes() makes it).  A counter column may
 * only be written with a state that holds everything the row's state holds
 * (merge(old, new) = new): an increment, a merge, a tombstone.  A state read
 * earlier and written back, which would undo the increments made since,
 * NULL over a counter, and a state that gives this server's shard the row's
 * clock with another value, are refused (23000) before the row changes.  The
 * rows that the fold and forget sweeps rewrite pass (cc_sweep_rewrites()),
 * and so does a state that lacks only what the writers forgotten on this
 * server held (counter_crdt_strip(), as the merge trigger strips them).
 */
PG_FUNCTION_INFO_V1(counter_crdt_write_guard);
Datum
counter_crdt_write_guard(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;
	TupleDesc	desc;
	CcGuardColumns *cols;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BY_UPDATE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || !TRIGGER_FIRED_BEFORE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("counter_crdt_write_guard() must be a BEFORE UPDATE trigger FOR EACH ROW")));
	rel = td->tg_relation;
	desc = RelationGetDescr(rel);
	if (cc_sweep_rewrites(RelationGetRelid(rel), cc_trigger_depth()))
		return PointerGetDatum(td->tg_newtuple);
	cols = cc_guard_columns(fcinfo, rel);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		onull,
					nnull;
		Datum		o,
					n;
		char	   *lacks;
		char	   *conflict;

		if (!cols->is_counter[i])
			continue;
		o = heap_getattr(td->tg_trigtuple, i + 1, desc, &onull);
		if (onull)
			continue;
		n = heap_getattr(td->tg_newtuple, i + 1, desc, &nnull);
		if (nnull)
			ereport(ERROR,
					(errcode(ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION),
					 errmsg("cannot set counter column \"%s\" of table \"%s\" to NULL",
							NameStr(att->attname), RelationGetRelationName(rel)),
					 errdetail("The counter holds increments, which NULL would drop here and not on the other servers."),
					 errhint("To delete the counter, write 'tombstone', or DELETE the row.")));
		if (datum_image_eq(o, n, att->attbyval, att->attlen))
			continue;
		lacks = cc_write_lacks(o, n, &conflict);
		if (lacks != NULL)
		{
			/* the strip of writers forgotten here, as apply strips them */
			bool		stripped;
			uint8_t    *ids;
			int			nids;
			Datum		kept = cc_retired_strip(o, &stripped, &ids, &nids);

			if (stripped)
				lacks = cc_write_lacks(kept, n, &conflict);
		}
		if (lacks == NULL && conflict != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION),
					 errmsg("cannot write counter column \"%s\" of table \"%s\": the new state gives this server's shard another value at the same clock",
							NameStr(att->attname), RelationGetRelationName(rel)),
					 errdetail("The row holds %s: two states computed from one read of the row, of which one was written already.",
							   conflict),
					 cc_errhint_increment(NameStr(att->attname))));
		if (lacks != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION),
					 errmsg("cannot write counter column \"%s\" of table \"%s\": the new state lacks increments that the row holds",
							NameStr(att->attname), RelationGetRelationName(rel)),
					 errdetail("The row holds %s beyond the new state: a state read earlier and written back undoes the increments made since.",
							   lacks),
					 cc_errhint_increment(NameStr(att->attname))));
	}
	return PointerGetDatum(td->tg_newtuple);
}
