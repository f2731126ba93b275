/*
 * fold_work.h
 *	  A folded state (core/cc_fold.h) that many steps rewrite, one retired
 *	  writer at a time: two buffers with room for n shards and nf records,
 *	  the current state in one of them.  A step writes into the spare
 *	  buffers (shards[side], folds[side]) and cc_fold_work_swap() takes
 *	  what it wrote as the current state.
 */
#ifndef COUNTER_CRDT_FOLD_WORK_H
#define COUNTER_CRDT_FOLD_WORK_H

#include "counter_crdt.h"

typedef struct CcFoldWork
{
	cc_folded	cur;
	unsigned char *shards[2];
	unsigned char *folds[2];
	int			side;
	bool		changed;
} CcFoldWork;

static inline void
cc_fold_work_init(CcFoldWork *w, const cc_folded *f, size_t n, size_t nf)
{
	cc_check_count(n);
	cc_check_count(2 * nf);
	for (int i = 0; i < 2; i++)
	{
		w->shards[i] = palloc(Max(n, 1) * CC_SHARD_SIZE);
		w->folds[i] = palloc(Max(nf, 1) * CC_FOLD_SIZE);
	}
	w->cur = *f;
	w->side = 0;
	w->changed = false;
}

static inline void
cc_fold_work_swap(CcFoldWork *w, size_t n, size_t nf)
{
	w->cur.shards = w->shards[w->side];
	w->cur.folds = w->folds[w->side];
	w->cur.n = n;
	w->cur.nf = nf;
	w->side = 1 - w->side;
	w->changed = true;
}

#endif							/* COUNTER_CRDT_FOLD_WORK_H */
