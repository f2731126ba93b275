/*
 * replica_merge.c
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
 * While it merges, the trigger also watches this server's own writer id
 * (conflict_log.c).  Local statements meet the triggers of
 * local_triggers.c instead.
 */
#include "base/datum.h"
#include "replica/conflict_log.h"
#include "replica/dropped_writers.h"
#include "writers/retired.h"
#include "replica/table_check.h"
#include "type/value.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "core/cc_algebra.h"

/*
 * The INSERT ... ON CONFLICT that the merge trigger runs in place of an
 * applied INSERT fires the trigger again, for its own row (BEFORE INSERT)
 * and for its conflict action (BEFORE UPDATE).  Those two calls, and only
 * they, are recognised by this frame: the same relation, one trigger level
 * below the call that runs the statement.  A trigger of another table, or a
 * statement run by a trigger of the nested statement (a level deeper), does
 * not match.  Frames are stacked on the C stack of the calls that run them.
 */
typedef struct CcOwnInsert
{
	Oid			relid;
	int			depth;			/* trigger depth of the nested calls */
	HeapTuple	row;			/* the applied row */
	bool		merged;			/* the conflict action ran */
	struct CcOwnInsert *outer;
} CcOwnInsert;

static CcOwnInsert *own_insert = NULL;

static int
cc_trigger_depth(void)
{
	return DatumGetInt32(DirectFunctionCall1(pg_trigger_depth, (Datum) 0));
}

/* The frame of our own statement that this call belongs to, or NULL. */
static CcOwnInsert *
cc_own_insert_of(TriggerData *td)
{
	if (own_insert == NULL ||
		own_insert->relid != RelationGetRelid(td->tg_relation) ||
		own_insert->depth != cc_trigger_depth())
		return NULL;
	return own_insert;
}

/*
 * An applied counter (not NULL) without the writers whose folds were
 * forgotten on this server (retired.c): a copy from before such a fold.
 * The datum as it came (not detoasted) when it has none of them.  What was
 * dropped is warned about and, for shards, recorded (dropped_writers.c),
 * unless the value is the merge that our own INSERT ... ON CONFLICT made
 * (the applied row was recorded when that statement was built: what is
 * dropped now was in the local row).
 */
static Datum
cc_applied_value(Relation rel, const CcTableInfo *info, HeapTuple keytup,
				 int attno, Datum incoming, bool record)
{
	bool		stripped;
	uint8_t    *ids;
	int			nids;
	Datum		d;

	if (!cc_retired_any_forgotten())
		return incoming;
	d = cc_retired_strip(incoming, &stripped, &ids, &nids);
	if (!stripped)
		return d;
	if (record)
		cc_dropped_writers_record(rel, info, keytup, attno, ids, nids, nids == 0);
	else
		ereport(WARNING,
				(errmsg("row of table \"%s\" holds writers whose folds were forgotten on this server",
						RelationGetRelationName(rel)),
				 errdetail("Their shards and fold records were dropped from it as a replicated row was merged into it: their count is in the writers they were folded into."),
				 errhint("This server's rows from before the fold were not stripped: see doc/retiring-writers.md.")));
	return d;
}

/*
 * merge(local, incoming) of one column, as a datum, after the own-id check;
 * *changed tells whether it differs from local.  Each value is read once for
 * both.
 */
static Datum
cc_merge_column(Relation rel, const CcTableInfo *info, HeapTuple keytup,
				int attno,
				Datum local, bool local_null, Datum incoming, bool incoming_null,
				bool record, bool *result_null, bool *changed)
{
	cc_merge_kind kind;
	Datum		merged;
	Datum		applied;
	Datum		stored;
	Datum		lp,
				ip;
	CcRead		rl,
				ri;

	*changed = false;
	*result_null = local_null;
	if (incoming_null)
		return local;
	applied = cc_applied_value(rel, info, keytup, attno, incoming, record);
	ip = PointerGetDatum(DatumGetCounterCrdtP(applied));
	cc_read_open(ip, &ri);
	if (local_null)
	{
		/* the applied value as it is stored: stripped when it had to be */
		cc_check_own_id_views(rel, info, keytup, attno, NULL, &ri.v);
		cc_read_close(&ri);
		*changed = true;
		*result_null = false;
		return applied;
	}
	/*
	 * The local row loses them too, so that what is stored does not depend
	 * on whether the row came by UPDATE or by INSERT ... ON CONFLICT.
	 */
	stored = cc_applied_value(rel, info, keytup, attno, local, false);
	lp = PointerGetDatum(DatumGetCounterCrdtP(stored));
	cc_read_open(lp, &rl);
	cc_check_own_id_views(rel, info, keytup, attno, &rl.v, &ri.v);
	merged = cc_merge_reads(lp, &rl, ip, &ri, &kind);
	cc_read_close(&rl);
	cc_read_close(&ri);
	if (kind == CC_MERGE_TAKE_A && stored == local)
		return local;			/* as stored, toast pointer and all */
	*changed = true;
	return kind == CC_MERGE_TAKE_A ? stored : merged;
}

/*
 * The conflict action of our own INSERT ... ON CONFLICT: the SQL merges the
 * applied row into the local one; the own-id check compares the local row
 * with the applied row, not with that merge.
 */
static void
cc_check_own_insert(TriggerData *td, const CcTableInfo *info, CcOwnInsert *own)
{
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < desc->natts; i++)
	{
		bool		lnull,
					inull;
		Datum		l,
					in;

		if (!info->is_counter[i])
			continue;
		l = heap_getattr(td->tg_trigtuple, i + 1, desc, &lnull);
		in = heap_getattr(own->row, i + 1, desc, &inull);
		if (!inull)
			cc_check_own_id(rel, info, td->tg_trigtuple, i,
							lnull ? NULL : DatumGetCounterCrdtP(l),
							DatumGetCounterCrdtP(in));
	}
	own->merged = true;
}

/* Columns whose arrays cc_merge_update() keeps on the stack. */
#define CC_MERGE_LOCAL_ATTS 16

/*
 * The merged row of an applied UPDATE; NULL when the local row already
 * holds it.  The columns are read from the trigger's slots: the applied row
 * is the apply worker's slot of values (no deform), the local row is
 * deformed once.
 */
static HeapTuple
cc_merge_update(TriggerData *td, const CcTableInfo *info, bool own_insert)
{
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	oldtup = td->tg_trigtuple;
	HeapTuple	newtup = td->tg_newtuple;
	TupleTableSlot *oldslot = td->tg_trigslot;
	TupleTableSlot *newslot = td->tg_newslot;
	Datum		values_local[CC_MERGE_LOCAL_ATTS];
	bool		nulls_local[CC_MERGE_LOCAL_ATTS];
	bool		replace_local[CC_MERGE_LOCAL_ATTS];
	Datum	   *values = values_local;
	bool	   *nulls = nulls_local;
	bool	   *replace = replace_local;
	bool		any_change = false;
	bool		all_incoming = true;	/* every merge is the replicated value */

	if (desc->natts > CC_MERGE_LOCAL_ATTS)
	{
		values = palloc(sizeof(Datum) * desc->natts);
		nulls = palloc(sizeof(bool) * desc->natts);
		replace = palloc(sizeof(bool) * desc->natts);
	}
	memset(replace, 0, sizeof(bool) * desc->natts);
	/* a slot of another shape (none that PostgreSQL passes): the tuples */
	if (oldslot != NULL && oldslot->tts_tupleDescriptor->natts == desc->natts)
		slot_getallattrs(oldslot);
	else
		oldslot = NULL;
	if (newslot != NULL && newslot->tts_tupleDescriptor->natts == desc->natts)
		slot_getallattrs(newslot);
	else
		newslot = NULL;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		onull,
					nnull;
		Datum		o,
					n;

		/* generated columns are computed again after BEFORE triggers */
		if (att->attisdropped || att->attgenerated)
			continue;
		if (oldslot != NULL)
		{
			o = oldslot->tts_values[i];
			onull = oldslot->tts_isnull[i];
		}
		else
			o = heap_getattr(oldtup, i + 1, desc, &onull);
		if (newslot != NULL)
		{
			n = newslot->tts_values[i];
			nnull = newslot->tts_isnull[i];
		}
		else
			n = heap_getattr(newtup, i + 1, desc, &nnull);
		if (info->is_counter[i])
		{
			bool		changed;

			values[i] = cc_merge_column(rel, info, oldtup, i, o, onull,
										n, nnull, !own_insert, &nulls[i], &changed);
			replace[i] = true;
			any_change |= changed;
			if (nulls[i] != nnull || (!nnull && values[i] != n))
				all_incoming = false;
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
	if (all_incoming)
		return newtup;			/* the replicated row is the merge: no copy */
	return heap_modify_tuple(oldtup, desc, values, nulls, replace);
}

/*
 * INSERT ... ON CONFLICT (primary key) DO UPDATE merging every counter, run
 * through SPI in place of the replicated insert.
 */
static void
cc_merge_insert(TriggerData *td, const CcTableInfo *info, Oid nsp)
{
	CcOwnInsert frame;
	Relation	rel = td->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	tup = td->tg_trigtuple;
	StringInfoData sql;
	Oid		   *types = palloc(sizeof(Oid) * desc->natts);
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	char	   *nulls = palloc(sizeof(char) * desc->natts);
	const char *relname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													 RelationGetRelationName(rel));
	const char *merge_fn = quote_qualified_identifier(get_namespace_name(nsp),
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
		if (info->is_counter[i] && !isnull)
			values[nargs] = cc_applied_value(rel, info, tup, i, values[nargs], true);
		nulls[nargs] = isnull ? 'n' : ' ';
		nargs++;
	}
	/* the applied row's identity values are the ones to keep */
	appendStringInfoString(&sql, ") OVERRIDING SYSTEM VALUE VALUES (");
	for (int k = 0; k < nargs; k++)
		appendStringInfo(&sql, "%s$%d", k > 0 ? ", " : "", k + 1);
	appendStringInfo(&sql, ") ON CONFLICT (%s) DO UPDATE SET ",
					 cc_key_columns(rel, info->pkey));
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
	frame.relid = RelationGetRelid(rel);
	frame.depth = cc_trigger_depth() + 1;
	frame.row = tup;
	frame.merged = false;
	frame.outer = own_insert;
	own_insert = &frame;
	PG_TRY();
	{
		rc = SPI_execute_with_args(sql.data, nargs, types, values, nulls,
								   false, 0);
	}
	PG_FINALLY();
	{
		own_insert = frame.outer;
	}
	PG_END_TRY();
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "counter_crdt_replica_merge: insert into %s failed: %s",
			 relname, SPI_result_code_string(rc));
	SPI_finish();

	/*
	 * A new key: every shard of this server's id in it is one it lacks.  (An
	 * existing key was checked by the conflict action's BEFORE UPDATE call.)
	 */
	if (!frame.merged)
	{
		for (int i = 0; i < desc->natts; i++)
		{
			bool		isnull;
			Datum		d;

			if (!info->is_counter[i])
				continue;
			d = heap_getattr(tup, i + 1, desc, &isnull);
			if (!isnull)
				cc_check_own_id(rel, info, tup, i, NULL, DatumGetCounterCrdtP(d));
		}
	}
}

PG_FUNCTION_INFO_V1(counter_crdt_replica_merge);
Datum
counter_crdt_replica_merge(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	CcTableInfo info;
	CcOwnInsert *own;
	Oid			nsp;

	nsp = cc_trigger_setup(fcinfo, "counter_crdt_replica_merge", false, &info);
	if (!cc_in_apply())
		return PointerGetDatum(TRIGGER_FIRED_BY_UPDATE(td->tg_event) ?
							   td->tg_newtuple : td->tg_trigtuple);

	own = cc_own_insert_of(td);
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		if (own != NULL)
			cc_check_own_insert(td, &info, own);
		return PointerGetDatum(cc_merge_update(td, &info, own != NULL));
	}
	if (own != NULL)
		return PointerGetDatum(td->tg_trigtuple);	/* our own insert's row */

	cc_merge_insert(td, &info, nsp);
	return PointerGetDatum(NULL);
}
