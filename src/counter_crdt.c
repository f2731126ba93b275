/*
 * counter_crdt.c
 *	  Module set-up, the node id setting, and the glue that every fmgr file
 *	  shares: reading a value, making one, and turning core errors into
 *	  ereport.
 */
#include "counter_crdt.h"

#include "access/xlog.h"
#if PG_VERSION_NUM >= 150000
#include "access/xlogrecovery.h"
#endif
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* counter_crdt.node_id: the text of the setting, "" when unset. */
static char *node_id_setting = NULL;

/*
 * The id in force: from the setting, or the default of SPEC 7.1, derived
 * from the system identifier, the timeline and the database, and kept with
 * the timeline it was derived for (0: none yet; timelines start at 1).
 */
static uint8_t node_id_set[CC_ID_LEN];
static bool node_id_is_set = false;
static uint8_t node_id_default[CC_ID_LEN];
static TimeLineID node_id_default_tli = 0;

static bool
node_id_check(char **newval, void **extra, GucSource source)
{
	uint8_t    *id;

	if (*newval == NULL || (*newval)[0] == '\0')
	{
		*extra = NULL;
		return true;
	}
	id = malloc(CC_ID_LEN);
	if (id == NULL)
	{
		GUC_check_errcode(ERRCODE_OUT_OF_MEMORY);
		return false;
	}
	if (!cc_uuid_parse(*newval, strlen(*newval), id))
	{
		free(id);
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

void
_PG_init(void)
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
#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved("counter_crdt");
#else
	EmitWarningsOnPlaceholders("counter_crdt");
#endif
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

/* The writer id of this server, as used by c + delta. */
const uint8_t *
cc_node_id(void)
{
	TimeLineID	tli;

	if (node_id_is_set)
		return node_id_set;
	tli = cc_current_timeline();
	if (tli != node_id_default_tli)
	{
		char		name[CC_NODE_NAME_SIZE];
		size_t		len = cc_default_node_name(GetSystemIdentifier(), tli,
											   MyDatabaseId, name);
		cc_hasher  *h = cc_hasher_create(CC_HASH_MD5, CurrentMemoryContext);
		cc_hash_sink sink;

		cc_hasher_start(h, &sink);
		sink.update(sink.arg, name, len);
		cc_hasher_finish_v3(h, node_id_default);
		cc_hasher_free(h);
		node_id_default_tli = tli;
	}
	return node_id_default;
}

/*
 * Reads a value where it lies, decompressing or fetching it only if it is
 * toasted, and checks its header.  A bad header means the stored bytes are
 * not a value of this format: corruption, never user input, which every
 * entry point checks.
 */
void
cc_datum_view(Datum d, cc_view *v)
{
	struct varlena *p = DatumGetCounterCrdtP(d);
	const unsigned char *data = (const unsigned char *) VARDATA_ANY(p);
	size_t		len = VARSIZE_ANY_EXHDR(p);

	if (len < CC_DISK_HEADER ||
		data[0] != CC_DISK_VERSION ||
		(data[1] & ~CC_DISK_FLAG_TOMBSTONE) != 0 ||
		data[2] != 0 || data[3] != 0 ||
		(len - CC_DISK_HEADER) % CC_SHARD_SIZE != 0 ||
		((data[1] & CC_DISK_FLAG_TOMBSTONE) && len != CC_DISK_HEADER))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupt counter_crdt value"),
				 errdetail("The stored value has %zu bytes and header %02x %02x %02x %02x.",
						   len,
						   len > 0 ? data[0] : 0, len > 1 ? data[1] : 0,
						   len > 2 ? data[2] : 0, len > 3 ? data[3] : 0)));
	v->tombstone = (data[1] & CC_DISK_FLAG_TOMBSTONE) != 0;
	v->shards = data + CC_DISK_HEADER;
	v->n = (len - CC_DISK_HEADER) / CC_SHARD_SIZE;
}

void
cc_check_count(size_t n)
{
	if (n > CC_MAX_SHARDS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value has too many shards"),
				 errdetail("A value holds at most %zu shards; this one would hold %zu.",
						   (size_t) CC_MAX_SHARDS, n)));
}

/*
 * Allocates a value with room for capacity shards, its header set and its
 * length set for all of them; cc_set_count() shortens it.
 */
struct varlena *
cc_make(size_t capacity, bool tombstone, unsigned char **shards)
{
	struct varlena *r;
	unsigned char *data;

	cc_check_count(capacity);
	r = palloc0(VARHDRSZ + CC_DISK_HEADER + capacity * CC_SHARD_SIZE);
	SET_VARSIZE(r, VARHDRSZ + CC_DISK_HEADER + capacity * CC_SHARD_SIZE);
	data = (unsigned char *) VARDATA(r);
	data[0] = CC_DISK_VERSION;
	data[1] = tombstone ? CC_DISK_FLAG_TOMBSTONE : 0;
	*shards = data + CC_DISK_HEADER;
	return r;
}

void
cc_set_count(struct varlena *result, size_t n)
{
	SET_VARSIZE(result, VARHDRSZ + CC_DISK_HEADER + n * CC_SHARD_SIZE);
}

/*
 * merge(a, b) of two non-NULL values: one of the inputs, as read, when it
 * already holds the merge, or a new value.  *kind tells which; anything but
 * CC_MERGE_TAKE_A means the result differs from a.
 */
Datum
cc_merge_datums(Datum a, Datum b, cc_merge_kind *kind)
{
	Datum		da = PointerGetDatum(DatumGetCounterCrdtP(a));
	Datum		db = PointerGetDatum(DatumGetCounterCrdtP(b));
	cc_view		va,
				vb;
	unsigned char *shards;
	struct varlena *result;

	cc_datum_view(da, &va);
	cc_datum_view(db, &vb);
	*kind = cc_merge_plan(&va, &vb);
	if (*kind == CC_MERGE_TAKE_A)
		return da;
	if (*kind == CC_MERGE_TAKE_B)
		return db;
	result = cc_make(va.n + vb.n, false, &shards);
	cc_set_count(result, cc_merge(va.shards, va.n, vb.shards, vb.n, shards));
	return PointerGetDatum(result);
}

/* Turns a core error into the matching ereport. */
void
cc_report(const cc_error *err, const char *input)
{
	switch (err->code)
	{
		case CC_ERR_SYNTAX:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type counter_crdt: \"%s\"",
							input ? input : ""),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_BINARY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid external representation of type counter_crdt"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("counter_crdt value out of range"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_LIMIT:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("counter_crdt value has too many shards"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_ARGUMENT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid counter_crdt argument"),
					 errdetail("%s", err->detail)));
			break;
		case CC_OK:
			break;
	}
	elog(ERROR, "unexpected counter_crdt core result %d", (int) err->code);
}
