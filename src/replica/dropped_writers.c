/*
 * dropped_writers.c
 *	  What the merge trigger says when it drops, from a row that replication
 *	  applies, the writers whose folds were forgotten on this server
 *	  (retired.c): a warning, and for a dropped shard a row of
 *	  counter_crdt_dropped_writers, which counter_crdt_health() reports.
 *
 * A shard of a forgotten writer in an applied row comes from a copy that
 * missed the fold: a server started from a backup taken before it, a
 * server that was away when the fold was forgotten.  This server drops it
 * and keeps exact totals, but the server that sent it counts the writer a
 * second time, and nothing else would tell.  A row records which peer's
 * rows carried it (the replication origin of the apply, and for a
 * subscription of PostgreSQL's own its name), which writers, which table,
 * column and key, and when.  Fold records alone (without the shard) come
 * from servers that have not forgotten the writer yet, as step 3 of the
 * retirement expects: they are only warned about.
 *
 * The row is written as the own-id conflicts are (conflict_log.c): by a
 * direct heap insert into the extension's table, which has no index, so
 * that the subscription's owner needs no privilege on it, and only in
 * replication apply, so that no role can forge one.  Recording never
 * stops the apply: where the table is missing (an extension not updated
 * to 1.6) or not as the extension made it, the warning says so and the
 * row is applied all the same.  Transactional with the apply: an apply
 * that fails and is retried records again.
 */
#include "postgres.h"

#include "base/extension.h"
#include "replica/conflict_log.h"
#include "replica/dropped_writers.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_subscription.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "replication/origin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "core/cc_ids.h"

/*
 * The origin of the changes this transaction applies: PostgreSQL 19 keeps
 * it in replorigin_xact_state and renamed its type and invalid value.
 */
#if PG_VERSION_NUM >= 190000
#define CC_INVALID_ORIGIN InvalidReplOriginId
#else
#define CC_INVALID_ORIGIN InvalidRepOriginId
#endif

#define CC_DROPPED_NATTS 7

/*
 * The extension's table counter_crdt_dropped_writers (1.6), whose columns
 * must be those of the install script: recorded_at, table_name,
 * column_name, key, writers, origin, subscription.  InvalidOid where the
 * extension's version has none; where it is not as the extension made it,
 * an error for the health check, InvalidOid with a warning for the merge
 * trigger (for_insert), which must not stop the apply.
 */
Oid
cc_dropped_writers_relid(bool for_insert)
{
	static const Oid types[CC_DROPPED_NATTS] = {TIMESTAMPTZOID, REGCLASSOID, NAMEOID,
	TEXTOID, UUIDARRAYOID, TEXTOID, NAMEOID};
	Oid			found = cc_extension_relation("counter_crdt_dropped_writers",
											  RELKIND_RELATION);

	if (!OidIsValid(found) ||
		cc_extension_table_as_made(found, types, CC_DROPPED_NATTS, CC_DROPPED_NATTS))
		return found;
	ereport(for_insert ? WARNING : ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table counter_crdt_dropped_writers of extension counter_crdt is not as the extension made it"),
			 for_insert ? errdetail("The dropped writers of this row are not recorded.") : 0,
			 errhint("Drop and create the extension again, or restore the table's columns and drop its indexes.")));
	return InvalidOid;
}

/*
 * The replication origin of this apply, by name, and the subscription of
 * this database that it serves: PostgreSQL names the origin of a
 * subscription's apply worker pg_<oid of the subscription>, and that of its
 * initial copy of a table pg_<oid>_<oid of the table>.  NULL for what is
 * not known (no origin; pglogical's, which are named otherwise).
 */
static void
cc_apply_origin(char **origin, NameData **subscription)
{
	char	   *name = NULL;
	size_t		digits;
	Oid			subid;
#if PG_VERSION_NUM >= 190000
	ReplOriginId origin_id = replorigin_xact_state.origin;
#else
	RepOriginId origin_id = replorigin_session_origin;
#endif

	*origin = NULL;
	*subscription = NULL;
	if (origin_id == CC_INVALID_ORIGIN || origin_id == DoNotReplicateId ||
		!replorigin_by_oid(origin_id, true, &name))
		return;
	*origin = name;
	if (strncmp(name, "pg_", 3) != 0)
		return;
	digits = strspn(name + 3, "0123456789");
	if (digits == 0 || digits > 10 || (name[3 + digits] != '\0' && name[3 + digits] != '_'))
		return;
	subid = (Oid) strtoul(name + 3, NULL, 10);
	{
		HeapTuple	tup = SearchSysCache1(SUBSCRIPTIONOID, ObjectIdGetDatum(subid));

		if (HeapTupleIsValid(tup))
		{
			Form_pg_subscription sub = (Form_pg_subscription) GETSTRUCT(tup);

			if (sub->subdbid == MyDatabaseId)
			{
				*subscription = palloc0(sizeof(NameData));
				namestrcpy(*subscription, NameStr(sub->subname));
			}
			ReleaseSysCache(tup);
		}
	}
}

void
cc_dropped_writers_record(Relation rel, const CcTableInfo *info, HeapTuple keytup,
						  int attno, const uint8_t *ids, int nids,
						  bool only_records)
{
	const char *column = NameStr(TupleDescAttr(RelationGetDescr(rel), attno)->attname);
	char	   *key = cc_key_text(rel, info, keytup);
	char	   *origin;
	NameData   *subscription;
	char		idtext[CC_UUID_TEXT_LEN + 1];
	StringInfoData idlist;
	Oid			logid = InvalidOid;

	cc_apply_origin(&origin, &subscription);
	initStringInfo(&idlist);
	for (int i = 0; i < nids; i++)
	{
		cc_uuid_format(ids + i * CC_ID_LEN, idtext);
		appendStringInfo(&idlist, "%s%s", i > 0 ? ", " : "", idtext);
	}
	if (only_records)
	{
		ereport(WARNING,
				(errmsg("replicated row %s of table \"%s\" brings fold records of writers whose folds were forgotten on this server",
						key, RelationGetRelationName(rel)),
				 errdetail("The records were dropped from column \"%s\": their count is in the writers they were folded into.",
						   column),
				 errhint("The server that sent it has not forgotten those writers yet: run step 3 of the retirement there.")));
		return;
	}
	logid = cc_dropped_writers_relid(true);
	ereport(WARNING,
			(errmsg("replicated row %s of table \"%s\" brings shards of writers whose folds were forgotten on this server: %s",
					key, RelationGetRelationName(rel), idlist.data),
			 subscription != NULL ?
			 errdetail("They were dropped from column \"%s\" of the row that subscription \"%s\" applies (replication origin \"%s\"): their count is in the writers they were folded into. "
					   "The server that sent the row still carries them, and counts them a second time.",
					   column, NameStr(*subscription), origin) :
			 origin != NULL ?
			 errdetail("They were dropped from column \"%s\" of the row that replication origin \"%s\" applies: their count is in the writers they were folded into. "
					   "The server that sent the row still carries them, and counts them a second time.",
					   column, origin) :
			 errdetail("They were dropped from column \"%s\" of the row, applied without a replication origin: their count is in the writers they were folded into. "
					   "The server or session that sent the row still carries them, and counts them a second time.",
					   column),
			 OidIsValid(logid) ?
			 errhint("counter_crdt_health() reports the recorded rows (forgotten_writer_dropped).") :
			 errhint("Not recorded: run ALTER EXTENSION counter_crdt UPDATE to keep such events.")));
	if (!OidIsValid(logid))
		return;

	{
		Relation	log = table_open(logid, RowExclusiveLock);
		Datum		values[CC_DROPPED_NATTS];
		bool		nulls[CC_DROPPED_NATTS] = {false};
		Datum	   *elems = palloc(sizeof(Datum) * nids);

		for (int i = 0; i < nids; i++)
		{
			pg_uuid_t  *uuid = palloc(sizeof(pg_uuid_t));

			memcpy(uuid->data, ids + i * CC_ID_LEN, CC_ID_LEN);
			elems[i] = UUIDPGetDatum(uuid);
		}
		values[0] = TimestampTzGetDatum(GetCurrentTimestamp());
		values[1] = ObjectIdGetDatum(RelationGetRelid(rel));
		values[2] = CStringGetDatum(column);
		values[3] = CStringGetTextDatum(key);
		values[4] = PointerGetDatum(construct_array(elems, nids, UUIDOID,
													UUID_LEN, false, TYPALIGN_CHAR));
		values[5] = origin ? CStringGetTextDatum(origin) : (Datum) 0;
		nulls[5] = (origin == NULL);
		values[6] = subscription ? NameGetDatum(subscription) : (Datum) 0;
		nulls[6] = (subscription == NULL);
		simple_heap_insert(log, heap_form_tuple(RelationGetDescr(log), values, nulls));
		table_close(log, RowExclusiveLock);
	}
}
