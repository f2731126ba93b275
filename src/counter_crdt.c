/*
 * counter_crdt.c
 *	  Module set-up, the node id setting, and the glue that every fmgr file
 *	  shares: reading a value, making one, and turning core errors into
 *	  ereport.
 */
#include "counter_crdt.h"
#include "hashing.h"

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
 * The id in force: from the setting, or the default of contract 7.1, derived
 * from the system identifier, the timeline and the database, and kept with
 * the timeline it was derived for (0: none yet; timelines start at 1).
 */
static uint8_t node_id_set[CC_ID_LEN];
static bool node_id_is_set = false;
static cc_default_id_memo node_id_default;

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
	if (node_id_is_set)
		return node_id_set;
	return cc_default_id_get(&node_id_default, GetSystemIdentifier(),
							 cc_current_timeline(), MyDatabaseId, cc_md5v3, NULL);
}

/* A stored value that is not one: corruption, never user input. */
void
cc_corrupt(const cc_error *err)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupt counter_crdt value"),
			 errdetail("%s", err->detail)));
}

/*
 * A value's shards as 32-byte records: used in place when they are stored
 * so, else widened into buf when they fit its capacity (in shards), else
 * into memory of the current context.
 */
void
cc_stored_view(const cc_stored *s, cc_view *v, unsigned char *buf,
			   size_t capacity)
{
	v->tombstone = s->tombstone;
	v->n = s->n;
	if (!s->narrow)
		v->shards = s->shards;
	else
	{
		unsigned char *out = s->n <= capacity ? buf : palloc(s->n * CC_SHARD_SIZE);

		cc_stored_widen(s, out);
		v->shards = out;
	}
}

void
cc_read_open(Datum d, CcRead *r)
{
	cc_stored	s;
	struct varlena *p = cc_datum_stored(d, &s);

	r->detoasted = (Pointer) p != DatumGetPointer(d) ? p : NULL;
	cc_stored_view(&s, &r->v, r->local, CC_READ_LOCAL);
	r->widened = s.narrow && s.n > CC_READ_LOCAL ?
		(unsigned char *) r->v.shards : NULL;
}

void
cc_read_close(CcRead *r)
{
	if (r->widened)
		pfree(r->widened);
	if (r->detoasted)
		pfree(r->detoasted);
}

/*
 * A value's shards as 32-byte records, read as cc_datum_stored() reads it;
 * narrow ones widened into memory of the current context.
 */
void
cc_datum_view(Datum d, cc_view *v)
{
	cc_stored	s;

	cc_datum_stored(d, &s);
	cc_stored_view(&s, v, NULL, 0);
}

/*
 * The value of a counter, false for a tombstone; 22003 outside bigint.  A
 * version 2 value keeps its total in its first bytes: an inline one is read
 * in place, a compressed or out-of-line one through a slice of those bytes
 * (only that prefix is decompressed, only the first chunk fetched).
 */
bool
cc_datum_value(Datum d, int64 *value)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	cc_stored	s;
	cc_error	err;

	if (VARATT_IS_EXTERNAL(raw) || VARATT_IS_COMPRESSED(raw))
	{
		struct varlena *slice = PG_DETOAST_DATUM_SLICE(d, 0, CC_STORED_HEADER);
		const unsigned char *data = (const unsigned char *) VARDATA_ANY(slice);
		size_t		len = VARSIZE_ANY_EXHDR(slice);

		if (cc_stored_prefix_suffices(data, len))
		{
			if (cc_stored_prefix(data, len, &s, &err) != CC_OK)
				cc_corrupt(&err);
		}
		else
			cc_datum_stored(d, &s);
	}
	/* an inline value is read in place: the sum needs no line but its first */
	else if (cc_stored_open((const unsigned char *) VARDATA_ANY(raw),
							VARSIZE_ANY_EXHDR(raw), &s, &err) != CC_OK)
		cc_corrupt(&err);
	if (s.tombstone)
		return false;
	if (cc_stored_value(&s, value, &err) != CC_OK)
		cc_report(&err, NULL);
	return true;
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
 * Allocates a value with room for capacity shards of 32 bytes, written at
 * *shards; cc_finish() packs the n of them the caller wrote.  It may be
 * made a tombstone (cc_stored_build_tombstone()) until then.
 */
struct varlena *
cc_make(size_t capacity, bool tombstone, unsigned char **shards)
{
	struct varlena *r;

	cc_check_count(capacity);
	r = palloc0(VARHDRSZ + CC_STORED_BUILD_SIZE(capacity));
	SET_VARSIZE(r, VARHDRSZ + CC_STORED_BUILD_SIZE(capacity));
	*shards = cc_stored_build_start((unsigned char *) VARDATA(r), tombstone);
	return r;
}

/* Packs the first n shards of a value made by cc_make() into version 2. */
void
cc_finish(struct varlena *result, size_t n)
{
	SET_VARSIZE(result, VARHDRSZ +
				cc_stored_build_finish((unsigned char *) VARDATA(result), n));
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
	Datum		result;
	CcRead		ra,
				rb;

	/* read in place, narrow shards widened on the stack */
	cc_read_open(da, &ra);
	cc_read_open(db, &rb);
	result = cc_merge_reads(da, &ra.v, db, &rb.v, kind);
	cc_read_close(&ra);
	cc_read_close(&rb);
	return result;
}

/* The same for two detoasted values already read into views. */
Datum
cc_merge_reads(Datum a, const cc_view *va, Datum b, const cc_view *vb,
			   cc_merge_kind *kind)
{
	unsigned char *shards;
	struct varlena *merged;

	*kind = cc_merge_plan(va, vb);
	if (*kind == CC_MERGE_TAKE_A)
		return a;
	if (*kind == CC_MERGE_TAKE_B)
		return b;
	merged = cc_make(va->n + vb->n, false, &shards);
	cc_finish(merged, cc_merge(va->shards, va->n, vb->shards, vb->n, shards));
	return PointerGetDatum(merged);
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
