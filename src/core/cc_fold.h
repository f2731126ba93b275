/*
 * cc_fold.h
 *	  Retired writers: folding a writer's shard into a live writer's, with
 *	  fold records that keep every total exact whatever arrives late.
 *
 * A folded state is a canonical state (cc_base.h) and a set of fold
 * records.  Record (A, T) says that writer T holds `absorbed` of retired
 * writer A's count in its own shard, and that A's shard was (aclock,
 * avalue) when T last folded it.  Only T's server writes (A, T), in the
 * same leader update that bumps T's shard to clock tclock, so that any
 * state holding the record also holds T's shard at tclock or later.
 *
 * Merge takes, per id, the shard of the higher clock (cc_algebra.h) and, per
 * (A, T), the record of the higher tclock (then the higher aclock, avalue,
 * absorbed); then A's shard is dropped when its clock is at most the highest
 * aclock of A's records: its count is then known from the records.  Both
 * are joins, so merge stays commutative, associative and idempotent.
 *
 * The total of a folded state is
 *	  sum of shards + sum over retired A of (v*(A) - sum of A's absorbed)
 * where v*(A) is A's count as far as the state knows it: the value of A's
 * shard when it is there (and then counted by the first sum, so the term is
 * only -absorbed), else the avalue of A's record of the highest aclock.
 * A fold moves `outstanding` = v*(A) - sum absorbed into T's shard and T's
 * record alike, which keeps the total whatever it moves; a finished fold
 * has outstanding 0 and no shard of A.  A late copy holding A's shard of a
 * clock the records have seen is dropped by the merge; one of a higher
 * clock (A wrote after the fold) counts only what it adds.
 *
 * Records are 64 bytes, sorted by (retired, target) strictly ascending:
 *	  retired[16] target[16] tclock aclock avalue absorbed (int64 each)
 * with retired != target and tclock, aclock >= 1.
 */
#ifndef CC_FOLD_H
#define CC_FOLD_H

#include "cc_algebra.h"

#define CC_FOLD_SIZE	CC_FOLD_RECORD_SIZE

typedef struct cc_fold
{
	uint8_t		retired[CC_ID_LEN];
	uint8_t		target[CC_ID_LEN];
	int64_t		tclock;
	int64_t		aclock;
	int64_t		avalue;
	int64_t		absorbed;
} cc_fold;

static inline void
cc_fold_load(const unsigned char *base, size_t i, cc_fold *f)
{
	memcpy(f, base + i * CC_FOLD_SIZE, CC_FOLD_SIZE);
}

static inline void
cc_fold_store(unsigned char *base, size_t i, const cc_fold *f)
{
	memcpy(base + i * CC_FOLD_SIZE, f, CC_FOLD_SIZE);
}

/* A folded state as it lies in memory. */
typedef struct cc_folded
{
	const unsigned char *shards;	/* canonical 32-byte records */
	size_t		n;
	const unsigned char *folds;		/* canonical 64-byte records */
	size_t		nf;
} cc_folded;

/*
 * Checks the canonical form of the records and their agreement with the
 * shards: (retired, target) strictly ascending, retired != target, clocks
 * >= 1, no shard of a retired writer at or below its records' highest
 * aclock, a shard of every target that is not retired, at tclock or later.
 * fail is the code to report (syntax or binary); the sentence names the
 * record ("Fold record A>T ...") or the writer at fault.
 * O(nf (log n + log nf)).
 *
 * Cycles of records (A>B and B>A) are accepted: two servers that fold A
 * into B and B into A at once make one when their values merge, and the
 * total stays exact.  cc_fold_forget_many() forgets such a cycle whole.
 */
cc_code		cc_fold_check(const cc_folded *s, cc_code fail, cc_error *err);

/*
 * Whether id is a retired writer of the state (it has a record as such):
 * one binary search.
 */
bool		cc_fold_is_retired(const unsigned char *folds, size_t nf,
							   const uint8_t *id);

/*
 * The exact total (cc_wide_sum()'s form: wraps * 2^64 + low); every state's
 * total has one such form.
 */
void		cc_fold_total(const cc_folded *s, int64_t *wraps, int64_t *low);

/*
 * Merge of two folded states: shards into out (room for a->n + b->n), records
 * into fout (room for a->nf + b->nf); neither may overlap the inputs.
 */
void		cc_fold_merge(const cc_folded *a, const cc_folded *b,
						  unsigned char *out, size_t *nout,
						  unsigned char *fout, size_t *nfout);

/*
 * What a state knows of writer a: its shard if there (*present), and the
 * outstanding count, v*(A) - sum of A's absorbed (exact, as wraps and low).
 * An unknown writer has nothing outstanding.
 */
void		cc_fold_outstanding(const cc_folded *s, const uint8_t *a,
								bool *present, int64_t *wraps, int64_t *low);

/*
 * Folds retired writer a into target t, on t's server (contract: only the
 * server writing as t runs it).  When t is the holder of a's count (no
 * other target of a that is not itself retired has a lower id), t takes all
 * of a's count but what the other live targets hold, and a's shard is
 * dropped; otherwise t gives back what it absorbed.  Two folds of a run at
 * once on two servers are undone so: once each server has run it again on
 * the merged state, in either order, nothing is outstanding.  Writes the new state into out (room for s->n + 1 shards) and
 * fout (room for s->nf + 1 records); *changed is false, and out untouched,
 * when there is nothing to do (a fold run twice).  CC_ERR_ARGUMENT when a
 * equals t or t is retired in the state, CC_ERR_OVERFLOW when t's clock or
 * value, or the record, would leave int64.
 */
cc_code		cc_fold_apply(const cc_folded *s, const uint8_t *a, const uint8_t *t,
						  unsigned char *out, size_t *nout,
						  unsigned char *fout, size_t *nfout,
						  bool *changed, cc_error *err);

/*
 * Forgets a finished fold of a: its records are dropped (the total stays).
 * CC_ERR_ARGUMENT, out untouched, when a's shard is there (with records or
 * without: a fold not finished or never run), when something of a is
 * outstanding, or when a still holds another retired writer's fold (a
 * record into a).  *changed is false when a has neither record nor shard.
 * Forgetting is the step that needs proof that no copy still holding a's
 * shard will arrive: after it, such a copy would count a again unless
 * stripped (cc_fold_strip()).
 */
cc_code		cc_fold_forget(const cc_folded *s, const uint8_t *a,
						   unsigned char *out, size_t *nout,
						   unsigned char *fout, size_t *nfout,
						   bool *changed, cc_error *err);

/* One id of cc_fold_forget_many()'s scratch. */
typedef struct cc_fold_slot
{
	uint8_t		id[CC_ID_LEN];
	size_t		pos;			/* its first place in the ids given */
	size_t		lo;				/* its records, [lo, end) */
	size_t		end;
	int			why;			/* why it cannot go, 0 when it can */
	bool		stuck;
} cc_fold_slot;

#define CC_FOLD_FORGET_MANY_WORK(count) \
	(((count) > 0 ? (count) : 1) * (sizeof(cc_fold_slot) + sizeof(size_t)))

/*
 * cc_fold_forget() of each of the count ids (16 bytes each, any order,
 * repeats allowed) in one step: all of them go, their records dropped, when
 * each has no shard and nothing outstanding and every record into it comes
 * from a writer of the set (which goes with it: forgetting them one by one
 * in some order gets there, or they form a cycle).  Otherwise
 * CC_ERR_ARGUMENT, out untouched, with the refusal of the first id, in the
 * order given, that cannot go.  *changed is false when no record goes.
 * work has CC_FOLD_FORGET_MANY_WORK(count) bytes, suitably aligned; out
 * and fout room for s->n and s->nf.  O((n + nf + count) log).
 */
cc_code		cc_fold_forget_many(const cc_folded *s, const uint8_t *ids,
								size_t count, void *work,
								unsigned char *out, size_t *nout,
								unsigned char *fout, size_t *nfout,
								bool *changed, cc_error *err);

/* One distinct id of cc_fold_many()'s scratch: what a fold of it reads. */
typedef struct cc_fold_many_slot
{
	uint8_t		id[CC_ID_LEN];
	int64_t		sclock;			/* its shard, while present */
	int64_t		svalue;
	int64_t		lclock;			/* the latest of its other records */
	int64_t		lvalue;
	cc_fold		rec;			/* its record into the target, when has_t */
	int64_t		rwraps;			/* absorbed by its other records into */
	int64_t		rlow;			/* retired targets, exactly */
	size_t		nrec;			/* its other records */
	size_t		live_below;		/* ... into live targets below the target */
	size_t		elo;			/* records into it from slots, [elo, ehi) */
	size_t		ehi;
	bool		present;
	bool		has_t;
	bool		retired;
	bool		dropped;
	bool		written;
} cc_fold_many_slot;

/* A record (slot from, id) into a live id of the set, for cc_fold_many(). */
typedef struct cc_fold_many_edge
{
	size_t		from;
	int64_t		absorbed;
} cc_fold_many_edge;

#define CC_FOLD_MANY_WORK(count, nf) \
	(((count) > 0 ? (count) : 1) * sizeof(cc_fold_many_slot) + \
	 ((nf) > 0 ? (nf) : 1) * sizeof(cc_fold_many_edge))

/*
 * cc_fold_apply() of each of the count ids (16 bytes each, in the order
 * given, repeats allowed) into t in turn, in one pass: the same state, the
 * same *changed and, when a fold in the sequence is refused, the refusal of
 * the first one, out untouched.  A fold of a reads only a's shard and
 * records, t's shard, and which of a's targets are retired; the targets
 * the sequence retires before a (ids given earlier that had a shard) are
 * tracked along the records into them, each record once, so any order,
 * repeats and ids that are targets of one another give the sequential
 * result.  work has CC_FOLD_MANY_WORK(count, s->nf) bytes, suitably
 * aligned; out room for s->n + 1 shards, fout for s->nf + count records.
 * O((n + nf + count) log).
 */
cc_code		cc_fold_many(const cc_folded *s, const uint8_t *ids, size_t count,
						 const uint8_t *t, void *work,
						 unsigned char *out, size_t *nout,
						 unsigned char *fout, size_t *nfout,
						 bool *changed, cc_error *err);

/* Scratch of cc_fold_strip() and cc_fold_strip_many(), for nf records. */
#define CC_FOLD_STRIP_WORK(nf) \
	(((nf) > 0 ? (nf) : 1) * (CC_ID_LEN + 3 * sizeof(size_t) + 1))

/*
 * A copy without anything of a, for a late copy met after a was forgotten:
 * a's shard, a's records and the records into a are dropped; then, until
 * nothing changes, every record whose target has no record left as retired
 * writer and no shard at the record's tclock or later.  The result passes
 * cc_fold_check() whenever s does.  out and fout have room for s->n and s->nf, work has
 * CC_FOLD_STRIP_WORK(s->nf) bytes, suitably aligned.  O((n + nf) log nf).
 */
void		cc_fold_strip(const cc_folded *s, const uint8_t *a, void *work,
						  unsigned char *out, size_t *nout,
						  unsigned char *fout, size_t *nfout);

/*
 * The same for the count ids (16 bytes each, ascending, repeats allowed) at
 * once: the result of stripping them one by one, in one pass.
 * O((n + nf) log (nf + count)).
 */
void		cc_fold_strip_many(const cc_folded *s, const uint8_t *ids,
							   size_t count, void *work,
							   unsigned char *out, size_t *nout,
							   unsigned char *fout, size_t *nfout);

/*
 * The increments of a folded state: cc_increment() and cc_increment_at() on
 * its shards, its records kept (out has room for s->n + 1 shards); a
 * retired writer gets CC_ERR_RETIRED, nothing written.
 */
cc_code		cc_fold_increment(const cc_folded *s, const uint8_t *writer,
							  int64_t delta, bool subtract,
							  unsigned char *out, size_t *nout, cc_error *err);
cc_code		cc_fold_increment_at(const cc_folded *s, const uint8_t *writer,
								 int64_t delta, int64_t clock,
								 unsigned char *out, size_t *nout,
								 bool *applied, cc_error *err);

/*
 * State equality and the total order of folded states: by total, then as
 * cc_compare() orders shards, then the records in key order, each compared
 * as its bytes' fields (ids as unsigned bytes, numbers as numbers), a
 * prefix first.  Without records, the same as cc_compare().  Tombstones
 * come after every live state; ta/tb tell them.
 */
int			cc_fold_compare(const cc_folded *a, bool ta, const cc_folded *b,
							bool tb);

/*
 * difference(a, b) of folded states (cc_algebra.h's contract 7.5 with
 * records): CC_DIFF_NONE when merging a into b changes nothing, else the
 * shards and the records of a that win over b's, in out (room for a->n)
 * and fout (room for a->nf).  merge(b, difference) = merge(a, b).  The
 * difference is a value of its own (it passes cc_fold_check()): the target
 * of a record it carries comes with it, as a's shard of that target or, for
 * a target retired in a, a's records of it, which change no merge with b
 * since b's win.  work has CC_FOLD_DIFFERENCE_WORK(a->n, a->nf) bytes,
 * suitably aligned.  O((n + nf) log).
 */
#define CC_FOLD_DIFFERENCE_WORK(n, nf) \
	(((nf) > 0 ? (nf) : 1) * sizeof(size_t) + (n) + (nf) + 1)

cc_diff_kind cc_fold_difference(const cc_folded *a, const cc_folded *b,
								void *work,
								unsigned char *out, size_t *nout,
								unsigned char *fout, size_t *nfout);

/*
 * The stored form of a folded state (cc_stored.h): CC_STORED_FOLDED_SIZE(n,
 * nf) bytes of room at data, the shards and records canonical and checked,
 * not overlapping data.  Without records it is cc_stored_pack()'s value;
 * with them, flag 0x08, wide shards and the total of cc_fold_total().
 * Returns the length.
 */
#define CC_STORED_FOLDED_SIZE(n, nf) \
	(CC_STORED_HEADER + ((nf) > 0 ? CC_STORED_FOLDS_HEADER + (nf) * CC_FOLD_SIZE : 0) + \
	 (n) * CC_SHARD_SIZE)

size_t		cc_stored_pack_folded(unsigned char *data, const cc_folded *s);

/* The folded state of a stored value (its records, its shards widened into
 * buf, room for s->n, when they are not wide). */
void		cc_stored_folded(const cc_stored *s, unsigned char *buf,
							 cc_folded *out);

#endif							/* CC_FOLD_H */
