/*
 * cc_test_folds.h
 *	  Random folded states (cc_fold.h) for the tests and fuzzers of the
 *	  external forms: a random canonical state, then folds of its writers
 *	  into others run by cc_fold_apply() itself, and now and then the merge
 *	  of a late copy in which a writer wrote again, so that every state is
 *	  one the core can reach; and the start of the three-server worlds of
 *	  core_fold.c and core_fold_many.c.
 */
#ifndef CC_TEST_FOLDS_H
#define CC_TEST_FOLDS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_fold.h"
#include "cc_test_states.h"

#define CC_TF_SHARDS 24
#define CC_TF_FOLDS 24

typedef struct cc_test_folded
{
	unsigned char s[CC_TF_SHARDS * CC_SHARD_SIZE];
	size_t		n;
	unsigned char f[CC_TF_FOLDS * CC_FOLD_SIZE];
	size_t		nf;
} cc_test_folded;

/* A fold record (retired a, target t) with the given fields. */
static inline cc_fold
cc_test_fold_record(const uint8_t *a, const uint8_t *t, int64_t tclock,
					int64_t aclock, int64_t avalue, int64_t absorbed)
{
	cc_fold		f;

	memset(&f, 0, sizeof(f));
	memcpy(f.retired, a, CC_ID_LEN);
	memcpy(f.target, t, CC_ID_LEN);
	f.tclock = tclock;
	f.aclock = aclock;
	f.avalue = avalue;
	f.absorbed = absorbed;
	return f;
}

static inline cc_folded
cc_test_folded_view(const cc_test_folded *t)
{
	cc_folded	v = {t->s, t->n, t->f, t->nf};

	return v;
}

/* Whether two folded states are the same bytes: shards, then records. */
static inline bool
cc_test_folded_same(const cc_folded *a, const cc_folded *b)
{
	return a->n == b->n && a->nf == b->nf &&
		(a->n == 0 || memcmp(a->shards, b->shards, a->n * CC_SHARD_SIZE) == 0) &&
		(a->nf == 0 || memcmp(a->folds, b->folds, a->nf * CC_FOLD_SIZE) == 0);
}

/* A random id: an edge id of the orderings, or 16 random bytes. */
static inline void
cc_test_random_id(uint64_t *rng, uint8_t *id)
{
	if (cc_test_splitmix(rng) % 3 == 0)
		for (int b = 0; b < CC_ID_LEN; b++)
			id[b] = (uint8_t) cc_test_splitmix(rng);
	else
		memcpy(id, cc_edge_ids[cc_test_splitmix(rng) % CC_EDGE_IDS], CC_ID_LEN);
}

/*
 * Random states drawn for one folded state before giving up.  A draw ends
 * without records about one time in thirteen (the most draws seen for
 * one state in 3,000,000 was 8): a thousand that all do mean cc_fold_apply()
 * or cc_fold_merge() no longer leave records, and the run stops there
 * rather than drawing forever.
 */
#define CC_TF_TRIES 1000

/*
 * A random folded state with at least one record.  Values are small mostly,
 * at the edges of bigint now and then (a fold that would leave bigint is
 * refused by cc_fold_apply() and skipped; totals may leave it).
 */
static inline void
cc_test_random_folded(uint64_t *rng, cc_test_folded *out)
{
	static const int64_t edges[] = {0, 1, -1, INT64_MAX, INT64_MIN, 2, 100, -100};

	for (int tries = 0; tries < CC_TF_TRIES; tries++)
	{
		cc_test_folded cur,
					next,
					late;
		cc_shard	sh[8];
		size_t		k = 2 + cc_test_splitmix(rng) % 6,
					n = 0;
		int			folds = 1 + (int) (cc_test_splitmix(rng) % 4);

		memset(&cur, 0, sizeof(cur));
		for (size_t i = 0; i < k; i++)
		{
			cc_test_random_id(rng, sh[i].id);
			sh[i].clock = cc_test_splitmix(rng) % 8 == 0
				? (int64_t) (cc_test_splitmix(rng) >> 2) + 1
				: (int64_t) (cc_test_splitmix(rng) % 5) + 1;
			sh[i].value = cc_test_splitmix(rng) % 6 == 0
				? edges[cc_test_splitmix(rng) % 8]
				: (int64_t) (cc_test_splitmix(rng) % 2001) - 1000;
		}
		cc_test_sort_by_id(sh, k);
		for (size_t i = 0; i < k; i++)
			if (n == 0 || memcmp(sh[n - 1].id, sh[i].id, CC_ID_LEN) != 0)
				sh[n++] = sh[i];
		for (size_t i = 0; i < n; i++)
			cc_store(cur.s, i, &sh[i]);
		cur.n = n;
		late = cur;

		for (int step = 0; step < folds; step++)
		{
			cc_folded	v = cc_test_folded_view(&cur);
			uint8_t		a[CC_ID_LEN],
						t[CC_ID_LEN];
			bool		changed = false;
			uint64_t	pick = cc_test_splitmix(rng);

			/* a: a writer with a shard, or one retired already */
			if (cur.nf > 0 && (cur.n == 0 || pick % 4 == 0))
				memcpy(a, cur.f + (pick / 4 % cur.nf) * CC_FOLD_SIZE, CC_ID_LEN);
			else if (cur.n > 0)
				memcpy(a, cur.s + (pick / 4 % cur.n) * CC_SHARD_SIZE, CC_ID_LEN);
			else
				break;
			/* t: another writer with a shard, or a new one */
			pick = cc_test_splitmix(rng);
			if (cur.n > 1 && pick % 3 != 0)
				memcpy(t, cur.s + (pick / 3 % cur.n) * CC_SHARD_SIZE, CC_ID_LEN);
			else
				cc_test_random_id(rng, t);
			if (cur.n + 1 > CC_TF_SHARDS || cur.nf + 1 > CC_TF_FOLDS)
				break;
			memset(&next, 0, sizeof(next));
			if (cc_fold_apply(&v, a, t, next.s, &next.n, next.f, &next.nf,
							  &changed, NULL) == CC_OK && changed)
				cur = next;

			/* a late copy: one writer of the first state wrote again */
			if (cc_test_splitmix(rng) % 4 == 0 && late.n > 0)
			{
				size_t		i = cc_test_splitmix(rng) % late.n;
				cc_shard	w;
				cc_folded	va,
							vl;

				cc_load(late.s, i, &w);
				if (w.clock < INT64_MAX - 3)
				{
					w.clock += 1 + (int64_t) (cc_test_splitmix(rng) % 3);
					w.value = (int64_t) ((uint64_t) w.value + cc_test_splitmix(rng) % 50);
					cc_store(late.s, i, &w);
				}
				va = cc_test_folded_view(&cur);
				vl = cc_test_folded_view(&late);
				if (cur.n + late.n <= CC_TF_SHARDS && cur.nf + late.nf <= CC_TF_FOLDS)
				{
					memset(&next, 0, sizeof(next));
					cc_fold_merge(&va, &vl, next.s, &next.n, next.f, &next.nf);
					cur = next;
				}
			}
		}
		if (cur.nf > 0)
		{
			*out = cur;
			return;
		}
	}
	fprintf(stderr, "cc_test_random_folded: %d random states and folds, and not one fold record: "
			"cc_fold_apply() or cc_fold_merge() no longer keeps records\n", CC_TF_TRIES);
	exit(1);
}

/*
 * The start of a world of three servers, as core_fold.c and core_fold_many.c
 * build them: one set of shards, a shard for each of the npool ids of pool
 * (at most CC_TF_SHARDS) but about one in skip, its clock and value drawn by
 * draw(), sorted into s; then a writer of pool for each server.  rng is the
 * stream that draw() takes from too.
 */
static inline void
cc_test_world_start(uint64_t *rng, const uint8_t *pool, int npool,
					uint64_t skip, void (*draw) (cc_shard *sh),
					unsigned char *s, size_t *n, int writer[3])
{
	cc_shard	sh[CC_TF_SHARDS];

	if (npool > CC_TF_SHARDS)
		abort();				/* a caller's mistake */
	*n = 0;
	for (int k = 0; k < npool; k++)
		if (cc_test_splitmix(rng) % skip != 0)
		{
			memcpy(sh[*n].id, pool + k * CC_ID_LEN, CC_ID_LEN);
			draw(&sh[*n]);
			(*n)++;
		}
	cc_test_sort_by_id(sh, *n);
	for (size_t i = 0; i < *n; i++)
		cc_store(s, i, &sh[i]);
	for (int i = 0; i < 3; i++)
		writer[i] = (int) (cc_test_splitmix(rng) % (uint64_t) npool);
}

#endif							/* CC_TEST_FOLDS_H */
