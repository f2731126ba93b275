/*
 * datum.c
 *	  A value as a Datum: reading one (its shards in place or widened, its
 *	  fold records), and making one (datum.h).
 */
#include "base/datum.h"

/*
 * A value's shards as 32-byte records: used in place when they are stored
 * so, else widened into buf when they fit its capacity (in shards), else
 * into memory of the current context.
 */
static void
cc_stored_view_any(const cc_stored *s, cc_view *v, unsigned char *buf,
				   size_t capacity)
{
	v->tombstone = s->tombstone;
	v->n = s->n;
	if (s->lay == CC_LAY_WIDE)
		v->shards = s->shards;
	else
	{
		unsigned char *out = s->n <= capacity ? buf : palloc(s->n * CC_SHARD_SIZE);

		cc_stored_widen(s, out);
		v->shards = out;
	}
}

/*
 * A view has no room for fold records: a function that takes values with
 * records reads them with cc_datum_folded() or cc_read_open(), and one that
 * does not must not drop them.
 */
void
cc_stored_view(const cc_stored *s, cc_view *v, unsigned char *buf,
			   size_t capacity)
{
	if (s->nf > 0)
		elog(ERROR, "counter_crdt value with fold records read as shards only");
	cc_stored_view_any(s, v, buf, capacity);
}

void
cc_read_open(Datum d, CcRead *r)
{
	cc_stored	s;
	struct varlena *p = cc_datum_stored(d, &s);

	r->detoasted = (Pointer) p != DatumGetPointer(d) ? p : NULL;
	r->folds = s.folds;
	r->nf = s.nf;
	cc_stored_view_any(&s, &r->v, r->local, CC_READ_LOCAL);
	r->widened = s.lay != CC_LAY_WIDE && s.n > CC_READ_LOCAL ?
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
 * packed ones widened into memory of the current context.
 */
void
cc_datum_view(Datum d, cc_view *v)
{
	cc_stored	s;

	cc_datum_stored(d, &s);
	cc_stored_view(&s, v, NULL, 0);
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
 * A value as a folded state (core/cc_fold.h): its records where they lie,
 * its shards in place or widened into memory of the current context.
 * Returns whether it is a tombstone (then out is empty).
 */
bool
cc_datum_folded(Datum d, cc_folded *out)
{
	cc_stored	s;

	cc_datum_stored(d, &s);
	cc_stored_folded(&s, s.lay != CC_LAY_WIDE ? palloc(s.n * CC_SHARD_SIZE) : NULL, out);
	return s.tombstone;
}

/* The folded state of a value read by cc_read_open(). */
cc_folded
cc_read_folded(const CcRead *r)
{
	cc_folded	f = {r->v.shards, r->v.n, r->folds, r->nf};

	return f;
}

/* A new value holding a folded state (no tombstone). */
struct varlena *
cc_make_folded(const cc_folded *f)
{
	struct varlena *r;

	cc_check_count(f->n);
	if (f->nf > CC_MAX_SHARDS / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value has too many fold records")));
	r = palloc(VARHDRSZ + CC_STORED_FOLDED_SIZE(f->n, f->nf));
	SET_VARSIZE(r, VARHDRSZ +
				cc_stored_pack_folded((unsigned char *) VARDATA(r), f));
	return r;
}
