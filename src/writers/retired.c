/*
 * retired.c
 *	  This server's list of retired writers, the table
 *	  counter_crdt_retired_writers (1.5): counter_crdt_fold_writers() and
 *	  counter_crdt_forget_writers() add the ids they retire, and a DBA may
 *	  add or remove rows by hand.
 *
 * The list guards what the fold records in values guard no more once they
 * are forgotten, and counters that never had them: an increment under a
 * listed id (c + n on a server whose id it is, or an exactly-once increment
 * naming it) is refused with 55000, and the merge trigger takes from every
 * replicated value the shards and records of the ids whose folds were
 * forgotten here (a late copy from before the fold: its count is in the
 * target's shard already).
 *
 * Each backend keeps the list in memory.  Any change of the table runs its
 * statement trigger, counter_crdt_retired_writers_changed(), which sends a
 * relcache invalidation of the table; every backend drops its copy when it
 * takes that in (at its next lock or transaction start), and reads the
 * table again when it next needs it.  Where the extension has no such table
 * (a 1.4 install under the 1.5 library) the empty list is kept only until
 * the end of the transaction, since an ALTER EXTENSION that makes the table
 * sends nothing this cache listens to.
 */
#include "base/datum.h"
#include "base/extension.h"
#include "writers/retired.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/uuid.h"


typedef struct CcRetired
{
	uint8_t		id[CC_ID_LEN];
	bool		forgotten;
} CcRetired;

static bool list_valid = false;
static bool list_for_xact = false;	/* valid only until the transaction ends */
static Oid	list_relid = InvalidOid;
static CcRetired *list = NULL;		/* sorted by id, in TopMemoryContext */
static int	list_n = 0;
static int	list_forgotten = 0;

static void
cc_retired_reset(void)
{
	list_valid = false;
	list_for_xact = false;
}

static void
cc_retired_relcache(Datum arg, Oid relid)
{
	if (relid == InvalidOid || relid == list_relid)
		cc_retired_reset();
}

static void
cc_retired_xact(XactEvent event, void *arg)
{
	if (list_for_xact &&
		(event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		 event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT))
		cc_retired_reset();
}

void
cc_retired_init(void)
{
	CacheRegisterRelcacheCallback(cc_retired_relcache, (Datum) 0);
	RegisterXactCallback(cc_retired_xact, NULL);
}

static int
cc_retired_cmp(const void *a, const void *b)
{
	return memcmp(((const CcRetired *) a)->id, ((const CcRetired *) b)->id, CC_ID_LEN);
}

/*
 * The table's columns are those of the install script: writer uuid,
 * retired_at timestamptz, forgotten_at timestamptz.
 */
static void
cc_retired_load(void)
{
	Oid			relid = cc_extension_relation("counter_crdt_retired_writers",
											  RELKIND_RELATION);
	Relation	rel;
	TupleDesc	desc;
	Snapshot	snap;
	TableScanDesc scan;
	HeapTuple	tup;
	int			cap = 8;
	CcRetired  *ids;
	int			n = 0,
				forgotten = 0;

	list_relid = relid;
	list_n = list_forgotten = 0;
	if (!OidIsValid(relid))
	{
		list_valid = list_for_xact = true;
		return;
	}
	rel = table_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	if (desc->natts != 3 || TupleDescAttr(desc, 0)->atttypid != UUIDOID ||
		TupleDescAttr(desc, 2)->atttypid != TIMESTAMPTZOID)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table counter_crdt_retired_writers of extension counter_crdt is not as the extension made it"),
				 errhint("Drop and create the extension again, or restore the table's columns.")));
	ids = MemoryContextAlloc(TopMemoryContext, cap * sizeof(CcRetired));
	/*
	 * The latest, which a REPEATABLE READ transaction's later change shows
	 * too; in a parallel query, whose snapshot cannot change, the query's.
	 */
	snap = RegisterSnapshot(IsInParallelMode() ? GetTransactionSnapshot()
							: GetLatestSnapshot());
	scan = cc_table_beginscan(rel, snap);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, 1, desc, &isnull);

		if (isnull)
			continue;
		if (n == cap)
		{
			cap *= 2;
			ids = repalloc(ids, cap * sizeof(CcRetired));
		}
		memcpy(ids[n].id, DatumGetUUIDP(d)->data, CC_ID_LEN);
		(void) heap_getattr(tup, 3, desc, &isnull);
		ids[n].forgotten = !isnull;
		forgotten += ids[n].forgotten;
		n++;
	}
	table_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	qsort(ids, n, sizeof(CcRetired), cc_retired_cmp);
	if (list != NULL)
		pfree(list);
	list = ids;
	list_n = n;
	list_forgotten = forgotten;
	list_valid = true;
}

static const CcRetired *
cc_retired_find(const uint8_t *id)
{
	CcRetired	key;

	if (!list_valid)
		cc_retired_load();
	if (list_n == 0)
		return NULL;
	memcpy(key.id, id, CC_ID_LEN);
	return bsearch(&key, list, list_n, sizeof(CcRetired), cc_retired_cmp);
}

void
cc_retired_check_write(const uint8_t *writer)
{
	char		text[CC_UUID_TEXT_LEN + 1];
	cc_error	err;

	if (cc_retired_find(writer) == NULL)
		return;
	cc_uuid_format(writer, text);
	/* the error of a counter that folded the writer, with its own detail */
	cc_fail(&err, CC_ERR_RETIRED,
			"Writer %s is in counter_crdt_retired_writers on this server.", text);
	cc_report(&err, NULL);
}

bool
cc_retired_any_forgotten(void)
{
	if (!list_valid)
		cc_retired_load();
	return list_forgotten > 0;
}

Datum
cc_retired_strip(Datum value, bool *stripped, uint8_t **shard_ids, int *nshard_ids)
{
	cc_folded	f,
				out;
	uint8_t    *ids;
	unsigned char *shards,
			   *folds;
	size_t		count = 0;

	*stripped = false;
	*shard_ids = NULL;
	*nshard_ids = 0;
	if (!list_valid)
		cc_retired_load();
	if (list_forgotten == 0 || cc_datum_folded(value, &f))
		return value;			/* nothing forgotten here, or a tombstone */
	/* the forgotten ids, ascending as the list is */
	ids = palloc(list_forgotten * CC_ID_LEN);
	for (int i = 0; i < list_n; i++)
		if (list[i].forgotten)
			memcpy(ids + count++ * CC_ID_LEN, list[i].id, CC_ID_LEN);
	CHECK_FOR_INTERRUPTS();
	shards = palloc(Max(f.n, 1) * CC_SHARD_SIZE);
	folds = palloc(Max(f.nf, 1) * CC_FOLD_SIZE);
	cc_fold_strip_many(&f, ids, count,
					   MemoryContextAllocHuge(CurrentMemoryContext,
											  CC_FOLD_STRIP_WORK(f.nf)),
					   shards, &out.n, folds, &out.nf);
	if (out.n == f.n && out.nf == f.nf)
		return value;
	/* the ids whose shard was there: copies from before their folds */
	for (size_t i = 0; out.n != f.n && i < count; i++)
	{
		size_t		pos = cc_id_lower_bound(f.shards, f.n, CC_SHARD_SIZE,
											ids + i * CC_ID_LEN);

		if (pos < f.n && cc_id_eq(f.shards + pos * CC_SHARD_SIZE, ids + i * CC_ID_LEN))
		{
			if (*shard_ids == NULL)
				*shard_ids = palloc(count * CC_ID_LEN);
			memcpy(*shard_ids + *nshard_ids * CC_ID_LEN, ids + i * CC_ID_LEN, CC_ID_LEN);
			(*nshard_ids)++;
		}
	}
	out.shards = shards;
	out.folds = folds;
	*stripped = true;
	return PointerGetDatum(cc_make_folded(&out));
}

/*
 * The statement trigger of counter_crdt_retired_writers: every backend
 * reads the list again once the change is committed.
 */
PG_FUNCTION_INFO_V1(counter_crdt_retired_writers_changed);
Datum
counter_crdt_retired_writers_changed(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("counter_crdt_retired_writers_changed() must be an AFTER trigger FOR EACH STATEMENT")));
	CacheInvalidateRelcache(td->tg_relation);
	return PointerGetDatum(NULL);
}
