/*
 * writer_ids.c
 *	  The writer ids of counter_crdt: the setting counter_crdt.node_id, the
 *	  id in force (cc_node_id(), which c + n writes under), and the SQL
 *	  functions counter_crdt_node_id(), counter_crdt_rack_id() and
 *	  counter_crdt_pending_id().
 */
#include "postgres.h"

#include "writers/writer_ids.h"
#include "base/hashing.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#if PG_VERSION_NUM >= 150000
#include "access/xlogrecovery.h"
#endif
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/uuid.h"

#include "core/cc_ids.h"

/* counter_crdt.node_id: the text of the setting, "" when unset. */
static char *node_id_setting = NULL;

/*
 * The id in force: from the setting, or the default of contract 7.1, derived
 * from the system identifier, the timeline and the database, and kept with
 * the timeline it was derived for (0: none yet; timelines start at 1).
 */
static uint8_t node_id_set[CC_ID_LEN];
static bool node_id_is_set = false;
static cc_default_id_memo node_id_default;

/*
 * The default id, once this process has seen recovery over: from then on
 * its timeline, the system identifier and the database stay what they are
 * for the life of the process, so the id is final (the merge trigger reads
 * it for every applied row, c + n for every increment).  The setting still
 * comes first.
 */
static uint8_t node_id_final[CC_ID_LEN];
static bool node_id_final_known = false;

static bool
node_id_check(char **newval, void **extra, GucSource source)
{
	uint8_t    *id;

	if (*newval == NULL || (*newval)[0] == '\0')
	{
		*extra = NULL;
		return true;
	}
	/* the server frees extra with its own allocator since 16 */
#if PG_VERSION_NUM >= 160000
	id = guc_malloc(LOG, CC_ID_LEN);
#else
	id = malloc(CC_ID_LEN);
#endif
	if (id == NULL)
	{
		GUC_check_errcode(ERRCODE_OUT_OF_MEMORY);
		return false;
	}
	if (!cc_uuid_parse(*newval, strlen(*newval), id))
	{
#if PG_VERSION_NUM >= 160000
		guc_free(id);
#else
		free(id);
#endif
		GUC_check_errdetail("The writer id must be a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d, or empty for the default.");
		return false;
	}
	*extra = id;
	return true;
}

static void
node_id_assign(const char *newval, void *extra)
{
	if (extra == NULL)
		node_id_is_set = false;
	else
	{
		memcpy(node_id_set, extra, CC_ID_LEN);
		node_id_is_set = true;
	}
}

/* Defines counter_crdt.node_id; _PG_init() calls it. */
void
cc_node_id_define(void)
{
	DefineCustomStringVariable("counter_crdt.node_id",
							   "Writer id of this server for counter_crdt leader increments.",
							   "A uuid, unique to this server among all replicas of a counter. "
							   "Empty means an id derived from the system identifier, the timeline and the database.",
							   &node_id_setting,
							   "",
							   PGC_SUSET,
							   0,
							   node_id_check,
							   node_id_assign,
							   NULL);
}

/*
 * The timeline this server writes WAL on now.  Cheap once recovery has
 * ended: RecoveryInProgress() then answers from a backend-local flag, and the
 * insertion timeline no longer changes.  A standby writes no WAL; it answers
 * with the timeline it replays, so that it reports the id its primary writes
 * under, and a session open across a promotion sees the new timeline at its
 * next call.
 */
static TimeLineID
cc_current_timeline(void)
{
	TimeLineID	tli;

	if (RecoveryInProgress())
		(void) GetXLogReplayRecPtr(&tli);
	else
	{
#if PG_VERSION_NUM >= 150000
		tli = GetWALInsertionTimeLine();
#else
		/* RecoveryInProgress() has set it from shared memory */
		tli = ThisTimeLineID;
#endif
	}
	return tli;
}

/* MD5 of a name as a version 3 uuid, through PostgreSQL's hashing. */
static void
cc_md5v3(const char *name, size_t len, uint8_t out[CC_ID_LEN], void *arg)
{
	cc_hasher  *h = cc_hasher_create(CC_HASH_MD5, CurrentMemoryContext);
	cc_hash_sink sink;

	(void) arg;
	cc_hasher_start(h, &sink);
	sink.update(sink.arg, name, len);
	cc_hasher_finish_v3(h, out);
	cc_hasher_free(h);
}

/* The writer id of this server, as used by c + delta. */
const uint8_t *
cc_node_id(void)
{
	const uint8_t *id;
	bool		final;

	if (node_id_is_set)
		return node_id_set;
	if (node_id_final_known)
		return node_id_final;
	/* asked before the timeline is read: recovery cannot start again */
	final = !RecoveryInProgress();
	id = cc_default_id_get(&node_id_default, GetSystemIdentifier(),
						   cc_current_timeline(), MyDatabaseId, cc_md5v3, NULL);
	if (final)
	{
		memcpy(node_id_final, id, CC_ID_LEN);
		node_id_final_known = true;
	}
	return id;
}

static Datum
cc_uuid_datum(const uint8_t *id)
{
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

	memcpy(u->data, id, CC_ID_LEN);
	return UUIDPGetDatum(u);
}

PG_FUNCTION_INFO_V1(counter_crdt_node_id);
Datum
counter_crdt_node_id(PG_FUNCTION_ARGS)
{
	return cc_uuid_datum(cc_node_id());
}

/* The UTF-8 bytes of a text argument, as the rack id is defined on them. */
static const char *
cc_utf8_arg(FunctionCallInfo fcinfo, int argno, size_t *len)
{
	text	   *t = PG_GETARG_TEXT_PP(argno);
	const char *s = VARDATA_ANY(t);
	char	   *conv;

	*len = VARSIZE_ANY_EXHDR(t);
	conv = pg_server_to_any(s, (int) *len, PG_UTF8);
	if (conv != s)
		*len = strlen(conv);
	return conv;
}

PG_FUNCTION_INFO_V1(counter_crdt_rack_id);
Datum
counter_crdt_rack_id(PG_FUNCTION_ARGS)
{
	size_t		dclen,
				racklen;
	const char *dc = cc_utf8_arg(fcinfo, 0, &dclen);
	const char *rack = cc_utf8_arg(fcinfo, 1, &racklen);
	uint8_t		id[CC_ID_LEN];
	cc_hasher  *h = cc_hasher_of_call(fcinfo, CC_HASH_MD5);
	cc_hash_sink sink;

	cc_hasher_start(h, &sink);
	cc_rack_name(&sink, dc, dclen, rack, racklen);
	cc_hasher_finish_v3(h, id);
	return cc_uuid_datum(id);
}

PG_FUNCTION_INFO_V1(counter_crdt_pending_id);
Datum
counter_crdt_pending_id(PG_FUNCTION_ARGS)
{
	uint8_t		id[CC_ID_LEN];

	cc_pending_id(PG_GETARG_UUID_P(0)->data, id);
	return cc_uuid_datum(id);
}

/*
 * counter_crdt_node_id_history(): the default writer id of every timeline
 * of this cluster up to the current one, (timeline, writer), in timeline
 * order: the ids this server and its former primaries wrote under when
 * counter_crdt.node_id was not set.  Those of earlier timelines write no
 * more here (a promotion or a point-in-time recovery left them); another
 * server promoted from the same cluster may still write under one.
 */
PG_FUNCTION_INFO_V1(counter_crdt_node_id_history);
Datum
counter_crdt_node_id_history(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext oldcontext;
		TupleDesc	tupdesc;

		funcctx = SRF_FIRSTCALL_INIT();
		oldcontext = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		funcctx->max_calls = cc_current_timeline();
		MemoryContextSwitchTo(oldcontext);
	}
	funcctx = SRF_PERCALL_SETUP();
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		cc_default_id_memo memo;
		uint32		tli = (uint32) funcctx->call_cntr + 1;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		memset(&memo, 0, sizeof(memo));
		values[0] = Int32GetDatum((int32) tli);
		values[1] = cc_uuid_datum(cc_default_id_get(&memo, GetSystemIdentifier(),
													tli, MyDatabaseId,
													cc_md5v3, NULL));
		SRF_RETURN_NEXT(funcctx,
						HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc,
														  values, nulls)));
	}
	SRF_RETURN_DONE(funcctx);
}
