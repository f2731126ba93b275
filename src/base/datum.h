/*
 * datum.h
 *	  A value as a Datum (datum.c): reading one, and making one.
 *
 * On disk a value is a varlena holding its stored form (core/cc_stored.h).
 * Nothing rewrites a stored value: a version 1 value is read where it lies
 * and becomes version 2 when it next changes.
 *
 * cc_datum_stored() opens a value's stored form where it lies.  Functions
 * that work on canonical 32-byte shard records (cc_view) get them from
 * cc_datum_view() or cc_read_open(): in place for 32-byte layouts, widened
 * for packed ones.  cc_make() and cc_finish() build a new value from such
 * records and pack it.  A value that is not one is reported by cc_corrupt()
 * (report.h).
 */
#ifndef CC_DATUM_H
#define CC_DATUM_H

#include "postgres.h"

#include "fmgr.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif
#include "utils/memutils.h"

#include "base/report.h"
#include "core/cc_fold.h"

/* The most shards one value may hold: it must fit one allocation. */
#define CC_MAX_SHARDS \
	((MaxAllocSize - VARHDRSZ - CC_STORED_HEADER) / CC_SHARD_SIZE)

#define DatumGetCounterCrdtP(X)		((struct varlena *) PG_DETOAST_DATUM_PACKED(X))

/*
 * Asks for the cache lines of a value after its first, up to four: a scan
 * reads a page's tuples from its end backwards, and the hardware prefetcher
 * leaves the shards' second line to arrive only when the merge walk needs
 * it (doc/performance.md has the figures).
 */
static inline void
cc_prefetch_value(const unsigned char *data, size_t len)
{
#if defined(__GNUC__) || defined(__clang__)
	for (size_t off = 64; off < len && off <= 256; off += 64)
		__builtin_prefetch(data + off);
#else
	(void) data;
	(void) len;
#endif
}

/*
 * A value read for a comparison, an equality, a hash or a merge (its
 * records too: every caller handles them), which may run many
 * times in one memory context (a sort, an index build, a hash join): the
 * shards of up to CC_READ_LOCAL packed ones widened on the stack, and
 * cc_read_close() frees whatever reading allocated.  The merge aggregate
 * widens its inputs into a stack buffer of the same size.
 */
#define CC_READ_LOCAL 8
typedef struct CcRead
{
	cc_view		v;				/* the shards */
	const unsigned char *folds;	/* fold records (cc_fold.h), where they lie */
	size_t		nf;
	struct varlena *detoasted;	/* a copy made by detoasting, or NULL */
	unsigned char *widened;		/* widened shards in memory, or NULL */
	unsigned char local[CC_READ_LOCAL * CC_SHARD_SIZE];
} CcRead;

extern void cc_read_open(Datum d, CcRead *r);
extern void cc_read_close(CcRead *r);
extern void cc_datum_view(Datum d, cc_view *v);
extern void cc_stored_view(const cc_stored *s, cc_view *v, unsigned char *buf,
						   size_t capacity);
extern struct varlena *cc_make(size_t capacity, bool tombstone,
							   unsigned char **shards);
extern void cc_finish(struct varlena *result, size_t n);
extern void cc_check_count(size_t n);
extern bool cc_datum_folded(Datum d, cc_folded *out);
extern cc_folded cc_read_folded(const CcRead *r);
extern struct varlena *cc_make_folded(const cc_folded *f);

/*
 * A value's stored form, checked, as it lies: detoasted only when toasted
 * (most values are inline and uncompressed, and then no call is made), its
 * cache lines after the first asked for.  Returns the varlena read: d's own,
 * or the copy detoasting made.
 */
static inline struct varlena *
cc_datum_stored(Datum d, cc_stored *s)
{
	struct varlena *p = (struct varlena *) DatumGetPointer(d);
	const unsigned char *data;
	size_t		len;
	cc_error	err;

	if (VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p))
		p = pg_detoast_datum_packed(p);
	data = (const unsigned char *) VARDATA_ANY(p);
	len = VARSIZE_ANY_EXHDR(p);
	cc_prefetch_value(data, len);
	if (cc_stored_open(data, len, s, &err) != CC_OK)
		cc_corrupt(&err);
	return p;
}

#endif							/* CC_DATUM_H */
