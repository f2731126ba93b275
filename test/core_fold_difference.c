/*
 * core_fold_difference.c
 *	  The difference of folded states (cc_fold_difference(), cc_fold.h) and
 *	  its closure: a record the difference carries brings its target, as
 *	  a's shard of it or, for a target retired in a, all of a's records of
 *	  it, and so on; nothing else.
 *
 * The merge law alone cannot pin the closure down: a difference that
 * carries more of a than it must still merges right (the existing checks
 * of core_fold.c pass with records of a pulled in that no closure
 * reaches).  So every case here states the exact difference: worked by
 * hand for the cases written out, and from a model written here (a plain
 * fixed point over the records, no stack, no ranges) for the families of
 * chains and the random states.  The cases come first, then cycles that
 * only a closure that remembers what it took gets out of (a slip there
 * loops for ever: core_main.c's limit turns it into a failure), then
 * chains of every length with every order of ids, then random states.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_fold.h"
#include "cc_test.h"
#include "cc_test_folds.h"
#include "cc_test_states.h"

#define DN	CC_TF_SHARDS
#define DF	CC_TF_FOLDS

/* A folded state of the tests (cc_test_folds.h), and its view. */
typedef cc_test_folded dstate;
#define dv(d) cc_test_folded_view(d)

static bool
dsame(const dstate *a, const dstate *b)
{
	cc_folded	va = dv(a),
				vb = dv(b);

	return cc_test_folded_same(&va, &vb);
}

static const char *
dtext(const dstate *d)
{
	static char buf[2][16384];
	static int	k;
	cc_folded	v = dv(d);

	k ^= 1;
	if (cc_format_folded_capacity(d->n, d->nf) > sizeof(buf[k]))
		return "(too long to show)";
	cc_format_folded(&cc_test_ids, &v, buf[k]);
	return buf[k];
}

/* A state from text (checked by the parser), failing the run if not. */
static dstate
dparse(const char *text)
{
	static unsigned char buf[64 * CC_SHARD_SIZE];
	dstate		d;
	cc_folded	v;
	bool		tomb;
	cc_error	err;

	memset(&d, 0, sizeof(d));
	if (cc_parse_folded(&cc_test_ids, text, strlen(text), buf, &v, &tomb, &err) != CC_OK)
	{
		CHECKF(false, "test literal does not parse: %s: %s", text, err.detail);
		return d;
	}
	memcpy(d.s, v.shards, v.n * CC_SHARD_SIZE);
	d.n = v.n;
	memcpy(d.f, v.folds, v.nf * CC_FOLD_SIZE);
	d.nf = v.nf;
	return d;
}

/* ------------------------------------------------------------ the model */

/* b's record of a's key, or NULL; by memcmp of the 32 key bytes. */
static const unsigned char *
model_find_record(const dstate *b, const unsigned char *key)
{
	for (size_t j = 0; j < b->nf; j++)
		if (memcmp(b->f + j * CC_FOLD_SIZE, key, 2 * CC_ID_LEN) == 0)
			return b->f + j * CC_FOLD_SIZE;
	return NULL;
}

/* Whether record x beats y: (tclock, aclock, avalue, absorbed), greater. */
static bool
model_record_beats(const unsigned char *x, const unsigned char *y)
{
	cc_fold		fx,
				fy;

	memcpy(&fx, x, sizeof(fx));
	memcpy(&fy, y, sizeof(fy));
	{
		int64_t		kx[4] = {fx.tclock, fx.aclock, fx.avalue, fx.absorbed},
					ky[4] = {fy.tclock, fy.aclock, fy.avalue, fy.absorbed};

		for (int k = 0; k < 4; k++)
			if (kx[k] != ky[k])
				return kx[k] > ky[k];
	}
	return false;
}

/*
 * The difference as cc_fold.h and contract 7.5 say it, the slow way:
 *	- a's shards that win over b's (no shard of the id in b, a higher clock,
 *	  or the same clock and a higher value), but not one of a writer that
 *	  b's records have seen (its clock at most their highest aclock);
 *	- a's records that win over b's (none of the key in b, or beating it);
 *	- then, until nothing changes, for each record taken: its target's
 *	  records in a, all of them, when a has any; else a's shard of it.
 */
static void
model_difference(const dstate *a, const dstate *b, dstate *d)
{
	bool		sin[DN] = {false},
				rin[DF] = {false},
				more = true;

	for (size_t i = 0; i < a->n; i++)
	{
		cc_shard	x;
		bool		win = true;
		int64_t		seen = 0;

		cc_load(a->s, i, &x);
		for (size_t j = 0; j < b->n; j++)
		{
			cc_shard	y;

			cc_load(b->s, j, &y);
			if (memcmp(x.id, y.id, CC_ID_LEN) == 0)
				win = x.clock > y.clock || (x.clock == y.clock && x.value > y.value);
		}
		for (size_t j = 0; j < b->nf; j++)
		{
			cc_fold		r;

			memcpy(&r, b->f + j * CC_FOLD_SIZE, sizeof(r));
			if (memcmp(r.retired, x.id, CC_ID_LEN) == 0 && r.aclock > seen)
				seen = r.aclock;
		}
		sin[i] = win && x.clock > seen;
	}
	for (size_t i = 0; i < a->nf; i++)
	{
		const unsigned char *y = model_find_record(b, a->f + i * CC_FOLD_SIZE);

		rin[i] = y == NULL || model_record_beats(a->f + i * CC_FOLD_SIZE, y);
	}
	while (more)
	{
		more = false;
		for (size_t i = 0; i < a->nf; i++)
		{
			const unsigned char *t = a->f + i * CC_FOLD_SIZE + CC_ID_LEN;
			bool		retired = false;

			if (!rin[i])
				continue;
			for (size_t g = 0; g < a->nf; g++)
				if (memcmp(a->f + g * CC_FOLD_SIZE, t, CC_ID_LEN) == 0)
				{
					retired = true;
					more |= !rin[g];
					rin[g] = true;
				}
			if (!retired)
				for (size_t j = 0; j < a->n; j++)
					if (memcmp(a->s + j * CC_SHARD_SIZE, t, CC_ID_LEN) == 0)
					{
						more |= !sin[j];
						sin[j] = true;
					}
		}
	}
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < a->n; i++)
		if (sin[i])
			memcpy(d->s + d->n++ * CC_SHARD_SIZE, a->s + i * CC_SHARD_SIZE, CC_SHARD_SIZE);
	for (size_t i = 0; i < a->nf; i++)
		if (rin[i])
			memcpy(d->f + d->nf++ * CC_FOLD_SIZE, a->f + i * CC_FOLD_SIZE, CC_FOLD_SIZE);
}

/* ------------------------------------------------------------ checks */

static long diff_cases;

/*
 * cc_fold_difference(a, b) against want, exactly; and the laws: the
 * difference is a value (it passes cc_fold_check()), merge(b, difference)
 * = merge(a, b), NONE exactly when it is empty.  Returns whether all held.
 */
static bool
check_difference(const dstate *a, const dstate *b, const dstate *want,
				 const char *what)
{
	static dstate d,
				ab,
				bd;
	cc_folded	va = dv(a),
				vb = dv(b),
				vd;
	cc_diff_kind kind;
	long		failed = cc_test_failed;

	diff_cases++;
	memset(&d, 0, sizeof(d));
	kind = cc_fold_difference(&va, &vb, test_work(CC_FOLD_DIFFERENCE_WORK(va.n, va.nf)),
							  d.s, &d.n, d.f, &d.nf);
	CHECKF(dsame(&d, want), "%s: difference of %s and %s is %s, expected %s", what,
		   dtext(a), dtext(b), dtext(&d), dtext(want));
	CHECKF(kind == (d.n + d.nf > 0 ? CC_DIFF_SHARDS : CC_DIFF_NONE), "%s: kind %d", what, (int) kind);
	vd = dv(&d);
	CHECKF(cc_fold_check(&vd, CC_ERR_BINARY, NULL) == CC_OK, "%s: the difference %s is not a value",
		   what, dtext(&d));
	memset(&ab, 0, sizeof(ab));
	memset(&bd, 0, sizeof(bd));
	cc_fold_merge(&va, &vb, ab.s, &ab.n, ab.f, &ab.nf);
	cc_fold_merge(&vb, &vd, bd.s, &bd.n, bd.f, &bd.nf);
	CHECKF(dsame(&ab, &bd), "%s: merge(b, difference) is not merge(a, b)", what);
	return cc_test_failed == failed;
}

#define W "00000000-0000-4000-8000-000000000001"
#define X "00000000-0000-4000-8000-000000000002"
#define T "00000000-0000-4000-8000-000000000003"
#define U "00000000-0000-4000-8000-000000000004"
#define Z "00000000-0000-4000-8000-000000000005"

/*
 * Cycles first, the fast way to a closure that forgets what it took: A
 * and B folded into each other at once (core_fold.c's test_cycles), and
 * b lacking B>A only.  The shards are the same, B>A alone wins; its target
 * A is retired in a, so A>B comes along, whose target B is retired too:
 * B>A, taken already, ends the walk.  No shard: both targets are retired.
 * The same with three writers, A>B>C>A, b lacking each record in turn:
 * the whole cycle comes along, from wherever it starts.
 */
static void
test_cycles(void)
{
	static const char a2[] =
		"{" W ":2:30, " X ":2:30} folded {" W ">" X ":2:1:10:10, " X ">" W ":2:1:20:20}";
	dstate		a = dparse(a2),
				b = dparse("{" W ":2:30, " X ":2:30} folded {" W ">" X ":2:1:10:10}"),
				want = dparse("{} folded {" W ">" X ":2:1:10:10, " X ">" W ":2:1:20:20}");

	check_difference(&a, &b, &want, "two-writer cycle, b without X>W");
	b = dparse("{" W ":2:30, " X ":2:30} folded {" X ">" W ":2:1:20:20}");
	check_difference(&a, &b, &want, "two-writer cycle, b without W>X");
	want = a;
	b = dparse("{}");
	check_difference(&a, &b, &want, "two-writer cycle against {}");

	a = dparse("{" W ":2:10, " X ":2:20, " T ":2:30} folded {" W ">" X ":2:1:10:10, "
			   X ">" T ":2:1:20:20, " T ">" W ":2:1:30:30}");
	want = a;
	want.n = 0;
	for (size_t k = 0; k < 3; k++)
	{
		dstate		bk = a;

		memmove(bk.f + k * CC_FOLD_SIZE, bk.f + (k + 1) * CC_FOLD_SIZE,
				(bk.nf - k - 1) * CC_FOLD_SIZE);
		bk.nf--;
		check_difference(&a, &bk, &want, "three-writer cycle, b without one record");
	}
}

/*
 * The case of issue 45: a = {U:3:25, Z:3:10} folded {W>Z, X>T, T>U}, b =
 * a without X>T (ids W < X < T < U < Z).  X>T alone wins; T is retired in
 * a, so T>U comes along, and U, live, brings its shard.  W>Z is not
 * reached from X>T (nothing leads to W), so neither it nor Z's shard
 * belongs: a closure that walked T's records downwards from T>U would
 * take W>Z (below it in record order) and then Z's shard, and still
 * merge right.  Then its kin: b's records older rather than gone, the
 * unrelated record above the chain (Z>W, W live) or into its end (W>U),
 * T retired into two writers, nothing winning, a shard alone winning.
 */
static void
test_issue_case(void)
{
	dstate		a = dparse("{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
						   X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15}"),
				b = dparse("{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
						   T ">" U ":3:2:15:15}"),
				want = dparse("{" U ":3:25} folded {" X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15}");

	check_difference(&a, &b, &want, "issue 45: b without X>T");

	/* b's X>T older (tclock 1): the same difference */
	b = dparse("{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
			   X ">" T ":1:1:5:5, " T ">" U ":3:2:15:15}");
	check_difference(&a, &b, &want, "issue 45: b's X>T older");

	/* b's T>U older: T>U and U's shard, not X>T (nothing leads to X) */
	b = dparse("{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
			   X ">" T ":2:1:5:5, " T ">" U ":3:1:15:15}");
	want = dparse("{" U ":3:25} folded {" T ">" U ":3:2:15:15}");
	check_difference(&a, &b, &want, "issue 45: b's T>U older");

	/* the unrelated record above the chain: Z>W, W live */
	a = dparse("{" W ":3:10, " U ":3:25} folded {" X ">" T ":2:1:5:5, "
			   T ">" U ":3:2:15:15, " Z ">" W ":3:2:10:10}");
	b = dparse("{" W ":3:10, " U ":3:25} folded {" T ">" U ":3:2:15:15, " Z ">" W ":3:2:10:10}");
	want = dparse("{" U ":3:25} folded {" X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15}");
	check_difference(&a, &b, &want, "issue 45, unrelated record above");

	/* an unrelated record into the chain's end (W>U): still not taken */
	a = dparse("{" U ":3:25} folded {" W ">" U ":3:2:10:10, "
			   X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15}");
	b = dparse("{" U ":3:25} folded {" W ">" U ":3:2:10:10, " T ">" U ":3:2:15:15}");
	check_difference(&a, &b, &want, "issue 45, unrelated record into U");

	/* T retired into two writers (T>U, T>Z): both come along, with both shards */
	a = dparse("{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
			   X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15, " T ">" Z ":3:2:15:0}");
	b = dparse("{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
			   T ">" U ":3:2:15:15, " T ">" Z ":3:2:15:0}");
	want = dparse("{" U ":3:25, " Z ":3:10} folded {" X ">" T ":2:1:5:5, "
				  T ">" U ":3:2:15:15, " T ">" Z ":3:2:15:0}");
	check_difference(&a, &b, &want, "issue 45, T into U and Z");

	/* nothing wins: NONE, nothing written */
	memset(&want, 0, sizeof(want));
	check_difference(&a, &a, &want, "a against itself");
	/* a's shard of U newer: that shard alone (no record leads anywhere) */
	b = a;
	a = dparse("{" U ":4:26, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
			   X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15, " T ">" Z ":3:2:15:0}");
	want = dparse("{" U ":4:26}");
	check_difference(&a, &b, &want, "a's U newer");
}

/*
 * Chains of every length, ids in every order: c0 > c1 > ... > cm (m
 * records, cm live), beside an unrelated record u > v (v live, or v = cm
 * when `into`), a plain shard L, and (fork, m >= 2) c1 retired also into
 * a live E.  b has the chain's record p older (tclock - 1) or, for p = 0,
 * not at all.  By hand: the records taken are c_p>c_{p+1} and on, to
 * c_{m-1}>c_m, and c_m's shard; when p = 0 the walk reaches c1 as a
 * target, so with the fork c1>E comes too, and E's shard.  u>v, v's and
 * L's shards are never taken.
 */
enum
{
	R_LIVE_END = 0, R_U, R_V, R_L, R_E, R_C0
};

static void
shard_at(cc_shard *sh, size_t *n, const uint8_t *id, int64_t clock, int64_t value)
{
	memcpy(sh[*n].id, id, CC_ID_LEN);
	sh[*n].clock = clock;
	sh[*n].value = value;
	(*n)++;
}

static void
chain_case(const int *perm, int m, int p, bool drop, bool fork, bool into)
{
	const uint8_t *id[R_C0 + 5];
	cc_shard	sh[DN];
	cc_fold		rec[DF];
	size_t		n = 0,
				nf = 0;
	dstate		a,
				b,
				want,
				model;
	char		what[96];

	/* roles 0..4 and the chain c0..c_{m-1} (c_m is R_LIVE_END) */
	for (int r = 0; r < R_C0 + m; r++)
		id[r] = cc_edge_ids[perm[r]];
#define C(k) ((k) == m ? id[R_LIVE_END] : id[R_C0 + (k)])
	for (int k = 0; k < m; k++)
		rec[nf++] = cc_test_fold_record(C(k), C(k + 1), 2 + k, 1 + k, 10 * (k + 1), 10 * (k + 1));
	shard_at(sh, &n, id[R_LIVE_END], 10, 100);
	if (into)
		rec[nf++] = cc_test_fold_record(id[R_U], id[R_LIVE_END], 3, 2, 4, 4);
	else
	{
		rec[nf++] = cc_test_fold_record(id[R_U], id[R_V], 3, 2, 4, 4);
		shard_at(sh, &n, id[R_V], 5, 7);
	}
	shard_at(sh, &n, id[R_L], 1, 1);
	if (fork)
	{
		rec[nf++] = cc_test_fold_record(C(1), id[R_E], 4, 2, 5, 5);
		shard_at(sh, &n, id[R_E], 6, 9);
	}
#undef C
	/* sorted by memcmp, apart from the core's order */
	cc_test_sort_by_id(sh, n);
	for (size_t i = 1; i < nf; i++)
		for (size_t j = i; j > 0 && memcmp(&rec[j - 1], &rec[j], 2 * CC_ID_LEN) > 0; j--)
		{
			cc_fold		t = rec[j];

			rec[j] = rec[j - 1];
			rec[j - 1] = t;
		}
	memset(&a, 0, sizeof(a));
	for (size_t i = 0; i < n; i++)
		cc_store(a.s, i, &sh[i]);
	a.n = n;
	for (size_t i = 0; i < nf; i++)
		cc_fold_store(a.f, i, &rec[i]);
	a.nf = nf;
	{
		cc_folded	va = dv(&a);

		if (cc_fold_check(&va, CC_ERR_BINARY, NULL) != CC_OK)
		{
			CHECKF(false, "chain of %d: a is not a value: %s", m, dtext(&a));
			return;
		}
	}

	/*
	 * b: the chain's record p (c_p > c_{p+1}) older, or gone.  By hand:
	 * the chain from p on, and c1>E when c1 is reached (p = 0).
	 */
	b = a;
	memset(&want, 0, sizeof(want));
	for (size_t i = 0; i < a.nf; i++)
	{
		cc_fold		r;
		int			k;

		cc_fold_load(a.f, i, &r);
		for (k = 0; k < m; k++)
			if (cc_id_eq(r.retired, id[R_C0 + k]) &&
				(k + 1 == m ? cc_id_eq(r.target, id[R_LIVE_END]) :
				 cc_id_eq(r.target, id[R_C0 + k + 1])))
				break;
		if ((k < m && k >= p) ||
			(fork && p == 0 && cc_id_eq(r.retired, id[R_C0 + 1]) &&
			 cc_id_eq(r.target, id[R_E])))
			cc_fold_store(want.f, want.nf++, &r);
		if (k == p)
		{
			r.tclock--;
			cc_fold_store(b.f, i, &r);
		}
	}
	if (drop)
	{
		size_t		i;

		for (i = 0; i < b.nf; i++)
			if (cc_id_eq(b.f + i * CC_FOLD_SIZE, id[R_C0]))
				break;
		memmove(b.f + i * CC_FOLD_SIZE, b.f + (i + 1) * CC_FOLD_SIZE,
				(b.nf - i - 1) * CC_FOLD_SIZE);
		b.nf--;
	}
	for (size_t i = 0; i < a.n; i++)
		if (cc_id_eq(a.s + i * CC_SHARD_SIZE, id[R_LIVE_END]) ||
			(fork && p == 0 && cc_id_eq(a.s + i * CC_SHARD_SIZE, id[R_E])))
			memcpy(want.s + want.n++ * CC_SHARD_SIZE, a.s + i * CC_SHARD_SIZE, CC_SHARD_SIZE);

	snprintf(what, sizeof(what), "chain of %d, record %d %s%s%s", m, p,
			 drop ? "gone" : "older", fork ? ", fork" : "", into ? ", u into the end" : "");
	model_difference(&a, &b, &model);
	CHECKF(dsame(&model, &want), "%s: the model gives %s, by hand %s", what,
		   dtext(&model), dtext(&want));
	check_difference(&a, &b, &want, what);
}

/*
 * Chains of 1 to 4 records, each record of the chain older in b (the
 * first also gone), with and without the fork and the record into the
 * chain's end; the roles take the edge ids in 300 random orders each
 * (52 shapes, 15,600 cases): so the unrelated records lie below, between
 * and above the chain's in record order.
 */
static void
test_chains(void)
{
	uint64_t	rng = 0xc4a175ULL;
	long		failed = cc_test_failed;

	for (int m = 1; m <= 4; m++)
		for (int p = 0; p < m; p++)
			for (int v = 0; v < (p == 0 ? 8 : 4); v++)
			{
				bool		drop = v >= 4,
							fork = (v & 1) && m >= 2,
							into = (v & 2) != 0;
				if ((v & 1) && m < 2)
					continue;
				for (int t = 0; t < 300; t++)
				{
					int			perm[CC_EDGE_IDS];

					for (int r = 0; r < CC_EDGE_IDS; r++)
						perm[r] = r;
					for (int r = CC_EDGE_IDS - 1; r > 0; r--)
					{
						int			q = (int) (cc_test_splitmix(&rng) % (uint64_t) (r + 1)),
									x = perm[r];

						perm[r] = perm[q];
						perm[q] = x;
					}
					chain_case(perm, m, p, drop, fork, into);
					if (cc_test_failed - failed > 20)
						return;
				}
			}
}

/*
 * Random pairs against the model: a random folded state a and, as b, a
 * with each record dropped or made older now and then, another random
 * state, their merge, or nothing.
 */
static void
test_random_pairs(long cases)
{
	static cc_test_folded x,
				y;
	static dstate a,
				b,
				want;
	uint64_t	rng = 0xd1ffe7e9ceULL;
	long		pairs = cases / 20 > 200 ? cases / 20 : 200,
				nonempty = 0,
				failed = 0;

	for (long i = 0; i < pairs && failed < 5; i++)
	{
		uint64_t	kind = cc_test_splitmix(&rng) % 4;

		cc_test_random_folded(&rng, &x);
		memset(&a, 0, sizeof(a));
		memcpy(a.s, x.s, x.n * CC_SHARD_SIZE);
		a.n = x.n;
		memcpy(a.f, x.f, x.nf * CC_FOLD_SIZE);
		a.nf = x.nf;
		memset(&b, 0, sizeof(b));
		if (kind == 0)
		{
			b.n = a.n;
			memcpy(b.s, a.s, a.n * CC_SHARD_SIZE);
			for (size_t k = 0; k < a.nf; k++)
			{
				cc_fold		r;
				uint64_t	what = cc_test_splitmix(&rng) % 4;

				cc_fold_load(a.f, k, &r);
				if (what == 0)
					continue;
				if (what == 1 && r.tclock > 1)
					r.tclock--;
				cc_fold_store(b.f, b.nf++, &r);
			}
		}
		else if (kind >= 2)
		{
			cc_folded	va = dv(&a),
						vy;

			cc_test_random_folded(&rng, &y);
			vy = cc_test_folded_view(&y);
			if (kind == 2)
			{
				memcpy(b.s, y.s, y.n * CC_SHARD_SIZE);
				b.n = y.n;
				memcpy(b.f, y.f, y.nf * CC_FOLD_SIZE);
				b.nf = y.nf;
			}
			else
				cc_fold_merge(&va, &vy, b.s, &b.n, b.f, &b.nf);
		}
		model_difference(&a, &b, &want);
		nonempty += want.n + want.nf > 0;
		if (!check_difference(&a, &b, &want, "random pair"))
			failed++;
	}
	printf("fold_difference: %ld cases (%ld random pairs, %ld with a difference)\n",
		   diff_cases, pairs, nonempty);
}

void
test_fold_difference(long cases)
{
	test_cycles();
	test_issue_case();
	test_chains();
	test_random_pairs(cases);
}
