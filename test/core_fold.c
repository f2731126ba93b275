/*
 * core_fold.c
 *	  Retired writers (cc_fold.h): cases worked by hand, then random
 *	  schedules of servers against a reference model.
 *
 * The model knows, for every state, how many of each writer's increments
 * it has seen: a writer's shard of clock c holds its first c increments,
 * merge takes the maximum, a fold changes nothing the state has seen.  The
 * law: every state's total, at every step, is the sum of the increments it
 * has seen, computed from the increments themselves and not by the core.
 * A schedule runs increments, merges between servers, merges of old copies
 * (lagging subscribers, backups), restores of a backup and failovers (both
 * give the server a new writer id, the old one goes on in copies), folds of
 * any writer on any server, two at once among them; then the mesh
 * converges, the departed writers are folded and forgotten, and every old
 * copy is merged again.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_fold.h"
#include "cc_test.h"
#include "cc_test_folds.h"
#include "cc_test_shapes.h"
#include "cc_test_states.h"

/* ------------------------------------------------------------ by hand */

#define HN 8
#define HF 8

typedef struct hstate
{
	unsigned char s[HN * CC_SHARD_SIZE];
	size_t		n;
	unsigned char f[HF * CC_FOLD_SIZE];
	size_t		nf;
} hstate;

static const uint8_t *IA = cc_edge_ids[3];	/* 8000... */
static const uint8_t *IB = cc_edge_ids[2];	/* 7fff...: below A */
static const uint8_t *IC = cc_edge_ids[5];	/* ff...: above A */

static cc_folded
hv(const hstate *h)
{
	cc_folded	v = {h->s, h->n, h->f, h->nf};

	return v;
}

/* A state of shards given as (id, clock, value) triples, no records. */
static hstate
hmake(int k, const uint8_t *const *ids, const int64_t *clocks,
	  const int64_t *values)
{
	hstate		h;
	cc_shard	sh[HN];

	memset(&h, 0, sizeof(h));
	for (int i = 0; i < k; i++)
	{
		memcpy(sh[i].id, ids[i], CC_ID_LEN);
		sh[i].clock = clocks[i];
		sh[i].value = values[i];
	}
	cc_test_sort_by_id(sh, (size_t) k);
	for (int i = 0; i < k; i++)
		cc_store(h.s, (size_t) i, &sh[i]);
	h.n = (size_t) k;
	return h;
}

static int64_t
htotal(const hstate *h)
{
	cc_folded	v = hv(h);
	int64_t		wraps,
				low;

	cc_fold_total(&v, &wraps, &low);
	return wraps == 0 ? low : INT64_MIN;
}

static hstate
hmerge(const hstate *a, const hstate *b)
{
	hstate		r;
	cc_folded	va = hv(a),
				vb = hv(b);

	memset(&r, 0, sizeof(r));
	cc_fold_merge(&va, &vb, r.s, &r.n, r.f, &r.nf);
	return r;
}

static hstate
hfold(const hstate *h, const uint8_t *a, const uint8_t *t, bool *changed,
	  cc_code *code)
{
	hstate		r;
	cc_folded	v = hv(h);

	memset(&r, 0, sizeof(r));
	*code = cc_fold_apply(&v, a, t, r.s, &r.n, r.f, &r.nf, changed, NULL);
	return *changed ? r : *h;
}

static bool
hhas(const hstate *h, const uint8_t *id, int64_t *clock, int64_t *value)
{
	for (size_t i = 0; i < h->n; i++)
	{
		cc_shard	sh;

		cc_load(h->s, i, &sh);
		if (cc_id_eq(sh.id, id))
		{
			*clock = sh.clock;
			*value = sh.value;
			return true;
		}
	}
	return false;
}

static bool
hcanon(const hstate *h)
{
	cc_folded	v = hv(h);

	return cc_check_canonical(h->s, h->n, CC_ERR_BINARY, NULL) == CC_OK &&
		cc_fold_check(&v, CC_ERR_BINARY, NULL) == CC_OK;
}

static void
test_by_hand(void)
{
	const uint8_t *ab[] = {IA, IB};
	const uint8_t *abc[] = {IA, IB, IC};
	int64_t		c2[] = {5, 3},
				v2[] = {100, 10};
	int64_t		c3[] = {5, 3, 2},
				v3[] = {100, 10, 7};
	hstate		before = hmake(2, ab, c2, v2),
				folded,
				late,
				m,
				m2,
				r;
	bool		changed;
	cc_code		code;
	int64_t		clock,
				value;
	cc_folded	v;
	bool		present;
	int64_t		wraps,
				low;

	/* A = (5, 100) folds into B = (3, 10): B = (4, 110), A gone, 110 kept */
	folded = hfold(&before, IA, IB, &changed, &code);
	CHECK(code == CC_OK && changed);
	CHECK(htotal(&before) == 110 && htotal(&folded) == 110);
	CHECK(folded.n == 1 && folded.nf == 1);
	CHECK(hhas(&folded, IB, &clock, &value) && clock == 4 && value == 110);
	CHECK(!hhas(&folded, IA, &clock, &value));
	CHECK(hcanon(&folded));
	CHECK(cc_fold_is_retired(folded.f, folded.nf, IA));
	CHECK(!cc_fold_is_retired(folded.f, folded.nf, IB));

	/* run twice: nothing to do */
	r = hfold(&folded, IA, IB, &changed, &code);
	CHECK(code == CC_OK && !changed);

	/* a late copy that still holds A, either way round: still 110 */
	m = hmerge(&folded, &before);
	m2 = hmerge(&before, &folded);
	CHECK(htotal(&m) == 110 && htotal(&m2) == 110);
	CHECK(m.n == m2.n && m.nf == m2.nf &&
		  memcmp(m.s, m2.s, m.n * CC_SHARD_SIZE) == 0 &&
		  memcmp(m.f, m2.f, m.nf * CC_FOLD_SIZE) == 0);
	CHECK(!hhas(&m, IA, &clock, &value));
	CHECK(hcanon(&m));

	/* A wrote +7 after the fold, on a server that had not seen it: 117 */
	{
		int64_t		c[] = {6, 3},
					vv[] = {107, 10};

		late = hmake(2, ab, c, vv);
	}
	m = hmerge(&folded, &late);
	CHECK(htotal(&m) == 117);
	CHECK(hhas(&m, IA, &clock, &value) && clock == 6);
	v = hv(&m);
	cc_fold_outstanding(&v, IA, &present, &wraps, &low);
	CHECK(present && wraps == 0 && low == 7);
	/* folding again takes the 7, and the shard goes */
	r = hfold(&m, IA, IB, &changed, &code);
	CHECK(code == CC_OK && changed && htotal(&r) == 117);
	CHECK(hhas(&r, IB, &clock, &value) && clock == 5 && value == 117);
	CHECK(!hhas(&r, IA, &clock, &value) && r.nf == 1);

	/* folds into B and into C at once, on two servers: the total stays */
	{
		hstate		three = hmake(3, abc, c3, v3),
					fb,
					fc,
					both,
					b2,
					c2s;

		fb = hfold(&three, IA, IB, &changed, &code);
		fc = hfold(&three, IA, IC, &changed, &code);
		CHECK(htotal(&fb) == 117 && htotal(&fc) == 117);
		both = hmerge(&fb, &fc);
		CHECK(htotal(&both) == 117 && both.nf == 2);
		CHECK(hcanon(&both));
		v = hv(&both);
		cc_fold_outstanding(&v, IA, &present, &wraps, &low);
		CHECK(!present && wraps == 0 && low == -100);
		/* C (the higher id) gives back; B, the holder, keeps its part */
		c2s = hfold(&both, IA, IC, &changed, &code);
		CHECK(code == CC_OK && changed && htotal(&c2s) == 117);
		CHECK(hhas(&c2s, IC, &clock, &value) && clock == 4 && value == 7);
		v = hv(&c2s);
		cc_fold_outstanding(&v, IA, &present, &wraps, &low);
		CHECK(wraps == 0 && low == 0);
		b2 = hfold(&c2s, IA, IB, &changed, &code);
		CHECK(code == CC_OK && !changed && htotal(&b2) == 117);
		/* B run first instead: nothing to take, C still gives back */
		b2 = hfold(&both, IA, IB, &changed, &code);
		CHECK(code == CC_OK && !changed && b2.nf == 2);
		b2 = hfold(&both, IA, IC, &changed, &code);
		CHECK(code == CC_OK && changed && htotal(&b2) == 117);
		v = hv(&b2);
		cc_fold_outstanding(&v, IA, &present, &wraps, &low);
		CHECK(wraps == 0 && low == 0);
		/* the give-back meets the other server's old state: still 117 */
		m = hmerge(&c2s, &fb);
		CHECK(htotal(&m) == 117);
		m = hmerge(&m, &three);
		CHECK(htotal(&m) == 117);
		/* a finished fold is forgotten; the total stays */
		r = m;
		{
			hstate		f;
			cc_folded	vm = hv(&m);

			memset(&f, 0, sizeof(f));
			code = cc_fold_forget(&vm, IA, f.s, &f.n, f.f, &f.nf, &changed, NULL);
			CHECK(code == CC_OK && changed && f.nf == 0 && htotal(&f) == 117);
			CHECK(f.n == 2);
			r = f;
		}
		/* after it, a late copy stripped of A merges exactly */
		{
			hstate		st;
			cc_folded	vt = hv(&three);

			memset(&st, 0, sizeof(st));
			static size_t sw[CC_FOLD_STRIP_WORK(HF) / sizeof(size_t) + 1];

			cc_fold_strip(&vt, IA, sw, st.s, &st.n, st.f, &st.nf);
			CHECK(st.n == 2 && st.nf == 0);
			m = hmerge(&r, &st);
			CHECK(htotal(&m) == 117);
			/* unstripped, it would count A again: the reason for the proof */
			m = hmerge(&r, &three);
			CHECK(htotal(&m) == 217);
		}
	}

	/* a retired writer cannot write; another writes and the records stay */
	{
		unsigned char out[HN * CC_SHARD_SIZE];
		size_t		nout = 99;
		bool		applied = true;
		cc_folded	vf = hv(&folded);

		CHECK(cc_fold_increment(&vf, IA, 1, false, out, &nout, NULL) == CC_ERR_RETIRED);
		CHECK(cc_fold_increment_at(&vf, IA, 1, 9, out, &nout, &applied, NULL) == CC_ERR_RETIRED &&
			  !applied);
		CHECK(cc_fold_increment(&vf, IC, 5, false, out, &nout, NULL) == CC_OK && nout == 2);
		CHECK(cc_fold_increment_at(&vf, IB, 5, 9, out, &nout, &applied, NULL) == CC_OK &&
			  applied && nout == 1);
	}

	/* refusals */
	r = hfold(&before, IA, IA, &changed, &code);
	CHECK(code == CC_ERR_ARGUMENT && !changed);
	r = hfold(&folded, IB, IA, &changed, &code);
	CHECK(code == CC_ERR_ARGUMENT && !changed);	/* target retired */
	r = hfold(&before, IC, IB, &changed, &code);
	CHECK(code == CC_OK && !changed);	/* C unknown to the counter */
	{
		hstate		f;
		cc_folded	vm = hv(&late);

		memset(&f, 0, sizeof(f));
		m = hmerge(&folded, &late);
		vm = hv(&m);
		code = cc_fold_forget(&vm, IA, f.s, &f.n, f.f, &f.nf, &changed, NULL);
		CHECK(code == CC_ERR_ARGUMENT && !changed);	/* 7 outstanding */
	}
	/* a chain: A into B, then B into C; A cannot be forgotten first? it can */
	{
		hstate		three = hmake(3, abc, c3, v3),
					x,
					f;
		cc_folded	vx;

		x = hfold(&three, IA, IB, &changed, &code);
		x = hfold(&x, IB, IC, &changed, &code);
		CHECK(code == CC_OK && changed && htotal(&x) == 117 && x.n == 1);
		CHECK(hcanon(&x));
		memset(&f, 0, sizeof(f));
		vx = hv(&x);
		code = cc_fold_forget(&vx, IB, f.s, &f.n, f.f, &f.nf, &changed, NULL);
		CHECK(code == CC_ERR_ARGUMENT);	/* B holds A's fold */
		code = cc_fold_forget(&vx, IA, f.s, &f.n, f.f, &f.nf, &changed, NULL);
		CHECK(code == CC_OK && changed && f.nf == 1 && htotal(&f) == 117);
		vx = hv(&f);
		code = cc_fold_forget(&vx, IB, x.s, &x.n, x.f, &x.nf, &changed, NULL);
		CHECK(code == CC_OK && changed && x.nf == 0 && x.n == 1 && htotal(&x) == 117);
	}

	/*
	 * Records that disagree about A at one aclock (forged: a writer's clock
	 * fixes its value) give one total whichever target's record says what,
	 * so that merge order cannot change a total.
	 */
	{
		const uint8_t *bc[] = {IB, IC};
		int64_t		c[] = {9, 9},
					vv[] = {50, 60};
		hstate		x = hmake(2, bc, c, vv),
					y = x;
		cc_fold		f;

		memset(&f, 0, sizeof(f));
		memcpy(f.retired, IA, CC_ID_LEN);
		f.tclock = 1;
		f.aclock = 5;
		memcpy(f.target, IB, CC_ID_LEN);
		f.avalue = 100;
		cc_fold_store(x.f, 0, &f);
		f.avalue = 90;
		cc_fold_store(y.f, 0, &f);
		memcpy(f.target, IC, CC_ID_LEN);
		f.avalue = 90;
		cc_fold_store(x.f, 1, &f);
		f.avalue = 100;
		cc_fold_store(y.f, 1, &f);
		x.nf = y.nf = 2;
		CHECK(hcanon(&x) && hcanon(&y));
		CHECK(htotal(&x) == 210 && htotal(&y) == 210);
	}

	/* the checks of the record form */
	{
		hstate		bad = folded;
		cc_fold		f;
		cc_folded	vb;

		cc_fold_load(bad.f, 0, &f);
		f.aclock = 0;
		cc_fold_store(bad.f, 0, &f);
		vb = hv(&bad);
		CHECK(cc_fold_check(&vb, CC_ERR_BINARY, NULL) == CC_ERR_BINARY);
		bad = folded;
		cc_fold_load(bad.f, 0, &f);
		f.tclock = 5;			/* newer than B's shard (4) */
		cc_fold_store(bad.f, 0, &f);
		vb = hv(&bad);
		CHECK(cc_fold_check(&vb, CC_ERR_BINARY, NULL) == CC_ERR_BINARY);
		bad = m;				/* A's shard at a clock its record has seen */
		bad = hmerge(&folded, &late);
		cc_fold_load(bad.f, 0, &f);
		f.aclock = 6;
		cc_fold_store(bad.f, 0, &f);
		vb = hv(&bad);
		CHECK(cc_fold_check(&vb, CC_ERR_BINARY, NULL) == CC_ERR_BINARY);
		f.aclock = 5;
		cc_fold_store(bad.f, 0, &f);
		vb = hv(&bad);
		CHECK(cc_fold_check(&vb, CC_ERR_BINARY, NULL) == CC_OK);
		bad = folded;
		cc_fold_load(bad.f, 0, &f);
		memcpy(f.target, f.retired, CC_ID_LEN);
		cc_fold_store(bad.f, 0, &f);
		vb = hv(&bad);
		CHECK(cc_fold_check(&vb, CC_ERR_SYNTAX, NULL) == CC_ERR_SYNTAX);
	}
	(void) r;
}

/* ------------------------------------------------------------ slips */

/*
 * Cases aimed at one-line slips in cc_fold.c that the schedules above
 * reach too rarely to see: each comment names the line it guards.
 */

static const uint8_t *ID = cc_edge_ids[8];	/* 8111...: between A and C */

static cc_fold
hrec(const uint8_t *a, const uint8_t *t, int64_t tclock, int64_t aclock,
	 int64_t avalue, int64_t absorbed)
{
	return cc_test_fold_record(a, t, tclock, aclock, avalue, absorbed);
}

/* h with the records recs (in (retired, target) order) instead of its own. */
static hstate
hwith(const hstate *h, int k, const cc_fold *recs)
{
	hstate		r = *h;

	/* past the end, bytes that would sort last: a read there shows */
	memset(r.f, 0xff, sizeof(r.f));
	for (int i = 0; i < k; i++)
		cc_fold_store(r.f, (size_t) i, &recs[i]);
	r.nf = (size_t) k;
	return r;
}

static bool
hsame(const hstate *a, const hstate *b)
{
	return a->n == b->n && a->nf == b->nf &&
		memcmp(a->s, b->s, a->n * CC_SHARD_SIZE) == 0 &&
		memcmp(a->f, b->f, a->nf * CC_FOLD_SIZE) == 0;
}

/* cc_fold_apply() with a message: the code, and whether detail has has. */
static cc_code
hfold_says(const hstate *h, const uint8_t *a, const uint8_t *t,
		   const char *has, bool *said, bool *changed)
{
	hstate		r;
	cc_folded	v = hv(h);
	cc_error	err;
	cc_code		code;

	memset(&r, 0, sizeof(r));
	err.detail[0] = '\0';
	code = cc_fold_apply(&v, a, t, r.s, &r.n, r.f, &r.nf, changed, &err);
	*said = code != CC_OK && strstr(err.detail, has) != NULL;
	if (code != CC_OK && !*said)
		fprintf(stderr, "fold: expected \"%s\", got \"%s\"\n", has, err.detail);
	return code;
}

static cc_code
hforget(const hstate *h, const uint8_t *a, hstate *out, bool *changed)
{
	cc_folded	v = hv(h);

	memset(out, 0, sizeof(*out));
	return cc_fold_forget(&v, a, out->s, &out->n, out->f, &out->nf, changed, NULL);
}

/* sign of cc_fold_compare(), a against b and b against a, live both */
static void
check_order(const hstate *a, const hstate *b, int want, const char *what)
{
	cc_folded	va = hv(a),
				vb = hv(b);
	int			ab = cc_fold_compare(&va, false, &vb, false),
				ba = cc_fold_compare(&vb, false, &va, false);

	ab = ab < 0 ? -1 : ab > 0;
	ba = ba < 0 ? -1 : ba > 0;
	CHECKF(ab == want && ba == -want, "%s: compare gave %d and %d, expected %d",
		   what, ab, ba, want);
	CHECKF(cc_fold_compare(&va, false, &va, false) == 0, "%s: not equal to itself", what);
}



static void
test_slips(void)
{
	bool		changed,
				said;
	cc_code		code;
	hstate		r;

	/*
	 * Forget's test of what is outstanding (present || wraps || low).  Two
	 * folds of A at once, into B and C, merged: -100 outstanding until C
	 * gives back; a forget then would count 217 where 117 is right.
	 */
	{
		const uint8_t *abc[] = {IA, IB, IC};
		int64_t		c3[] = {5, 3, 2},
					v3[] = {100, 10, 7};
		hstate		three = hmake(3, abc, c3, v3),
					fb,
					fc,
					both;

		fb = hfold(&three, IA, IB, &changed, &code);
		fc = hfold(&three, IA, IC, &changed, &code);
		both = hmerge(&fb, &fc);
		CHECK(htotal(&both) == 117);
		code = hforget(&both, IA, &r, &changed);
		CHECK(code == CC_ERR_ARGUMENT && !changed);
		/* after the give-back the same forget goes through, 117 kept */
		r = hfold(&both, IA, IC, &changed, &code);
		CHECK(code == CC_OK && changed);
		code = hforget(&r, IA, &both, &changed);
		CHECK(code == CC_OK && changed && both.nf == 0 && htotal(&both) == 117);
	}

	/*
	 * A target that is not the holder and holds nothing has nothing to do:
	 * C after B took A; a target without a shard starts at clock 1.
	 */
	{
		const uint8_t *abc[] = {IA, IB, IC};
		int64_t		c3[] = {5, 3, 2},
					v3[] = {100, 10, 7};
		hstate		three = hmake(3, abc, c3, v3),
					fb;
		const uint8_t *a1[] = {IA};
		int64_t		c1[] = {5},
					v1[] = {100};
		hstate		alone = hmake(1, a1, c1, v1);
		int64_t		clock,
					value;
		cc_fold		f;

		fb = hfold(&three, IA, IB, &changed, &code);
		r = hfold(&fb, IA, IC, &changed, &code);
		CHECK(code == CC_OK && !changed);
		r = hfold(&alone, IA, IC, &changed, &code);
		CHECK(code == CC_OK && changed && r.n == 1 && r.nf == 1 &&
			  hhas(&r, IC, &clock, &value) && clock == 1 && value == 100);
		cc_fold_load(r.f, 0, &f);
		CHECK(f.tclock == 1 && f.aclock == 5 && f.avalue == 100 && f.absorbed == 100);
	}

	/* A's shard back (it wrote +5 then -5 after the fold): nothing is
	 * outstanding, but the shard is there, so no forget */
	{
		const uint8_t *ab[] = {IA, IB};
		int64_t		c[] = {5, 3},
					v[] = {100, 10},
					cl[] = {7, 3};
		hstate		before = hmake(2, ab, c, v),
					late = hmake(2, ab, cl, v),
					folded,
					m;
		cc_folded	vm;
		bool		present;
		int64_t		wraps,
					low;

		folded = hfold(&before, IA, IB, &changed, &code);
		m = hmerge(&folded, &late);
		vm = hv(&m);
		cc_fold_outstanding(&vm, IA, &present, &wraps, &low);
		CHECK(present && wraps == 0 && low == 0 && htotal(&m) == 110);
		code = hforget(&m, IA, &r, &changed);
		CHECK(code == CC_ERR_ARGUMENT && !changed);
	}

	/*
	 * Three folds at once of A = INT64_MIN into B, D and C (ids in that
	 * order), merged: outstanding is -2 * INT64_MIN = 2^64, wraps 1 and low
	 * 0, so only the wraps test refuses the forget.  B, the holder, has
	 * nothing to take: the others' absorbed counts sum past bigint
	 * (others_wraps -1), which the exact sum must carry.  C and D cannot
	 * give back INT64_MIN: refused as such.
	 */
	{
		const uint8_t *abcd[] = {IA, IB, IC, ID};
		int64_t		c4[] = {1, 1, 1, 1},
					v4[] = {INT64_MIN, 0, 0, 0};
		hstate		four = hmake(4, abcd, c4, v4),
					fb,
					fc,
					fd,
					all;
		cc_folded	va;
		bool		present;
		int64_t		wraps,
					low;

		fb = hfold(&four, IA, IB, &changed, &code);
		CHECK(code == CC_OK && changed);
		fc = hfold(&four, IA, IC, &changed, &code);
		CHECK(code == CC_OK && changed);
		fd = hfold(&four, IA, ID, &changed, &code);
		CHECK(code == CC_OK && changed);
		all = hmerge(&fb, &fc);
		all = hmerge(&all, &fd);
		CHECK(all.nf == 3 && hcanon(&all));
		va = hv(&all);
		cc_fold_outstanding(&va, IA, &present, &wraps, &low);
		CHECK(!present && wraps == 1 && low == 0);
		code = hforget(&all, IA, &r, &changed);
		CHECK(code == CC_ERR_ARGUMENT && !changed);
		r = hfold(&all, IA, IB, &changed, &code);
		CHECK(code == CC_OK && !changed);
		code = hfold_says(&all, IA, IC, "The count to give back leaves the bigint range.",
						  &said, &changed);
		CHECK(code == CC_ERR_OVERFLOW && said && !changed);
		code = hfold_says(&all, IA, ID, "The count to give back leaves the bigint range.",
						  &said, &changed);
		CHECK(code == CC_ERR_OVERFLOW && said && !changed);
	}

	/*
	 * Others' absorbed counts past bigint when the holder has something to
	 * take: A = INT64_MAX folded at once into D and C, then B (the lowest
	 * id) folds the merge: it takes INT64_MAX - 2 * INT64_MAX + 2 *
	 * INT64_MAX = INT64_MAX, and the others give back after.
	 */
	{
		const uint8_t *abcd[] = {IA, IB, IC, ID};
		int64_t		c4[] = {1, 1, 1, 1},
					v4[] = {INT64_MAX, 0, 0, 0};
		hstate		four = hmake(4, abcd, c4, v4),
					fc,
					fd,
					all;
		int64_t		clock,
					value;

		fc = hfold(&four, IA, IC, &changed, &code);
		fd = hfold(&four, IA, ID, &changed, &code);
		all = hmerge(&fc, &fd);
		r = hfold(&all, IA, IB, &changed, &code);
		CHECK(code == CC_OK && changed);
		CHECK(hhas(&r, IB, &clock, &value) && clock == 2 && value == INT64_MAX);
		r = hfold(&r, IA, IC, &changed, &code);
		CHECK(code == CC_OK && changed);
		r = hfold(&r, IA, ID, &changed, &code);
		CHECK(code == CC_OK && changed && htotal(&r) == INT64_MAX);
		code = hforget(&r, IA, &all, &changed);
		CHECK(code == CC_OK && changed && htotal(&all) == INT64_MAX && all.n == 3);
	}

	/*
	 * The holder's own count past bigint: B absorbed -5, then A wrote up to
	 * INT64_MAX; B would take INT64_MAX + 5.
	 */
	{
		const uint8_t *ab[] = {IA, IB};
		int64_t		c[] = {3, 1},
					v[] = {-5, 10},
					cl[] = {4, 1},
					vl[] = {INT64_MAX, 10};
		hstate		before = hmake(2, ab, c, v),
					late = hmake(2, ab, cl, vl),
					m;

		r = hfold(&before, IA, IB, &changed, &code);
		m = hmerge(&r, &late);
		code = hfold_says(&m, IA, IB, "The count to fold leaves the bigint range.",
						  &said, &changed);
		CHECK(code == CC_ERR_OVERFLOW && said && !changed);
	}

	/* the target's clock at 2^63 - 1 cannot move; one below it can */
	{
		const uint8_t *ab[] = {IA, IB};
		int64_t		c[] = {1, INT64_MAX},
					c1[] = {1, INT64_MAX - 1},
					v[] = {7, 1};
		hstate		top = hmake(2, ab, c, v),
					below = hmake(2, ab, c1, v);
		int64_t		clock,
					value;

		code = hfold_says(&top, IA, IB, "The target's clock would leave the bigint range.",
						  &said, &changed);
		CHECK(code == CC_ERR_OVERFLOW && said && !changed);
		r = hfold(&below, IA, IB, &changed, &code);
		CHECK(code == CC_OK && changed && hhas(&r, IB, &clock, &value) &&
			  clock == INT64_MAX && value == 8 && hcanon(&r));
	}

	/* the target's value past bigint */
	{
		const uint8_t *ab[] = {IA, IB};
		int64_t		c[] = {1, 1},
					v[] = {1, INT64_MAX};

		r = hmake(2, ab, c, v);
		code = hfold_says(&r, IA, IB, "The target's value would leave the bigint range.",
						  &said, &changed);
		CHECK(code == CC_ERR_OVERFLOW && said && !changed);
	}

	/*
	 * Two records of one (retired, target) pair with one tclock: the higher
	 * aclock wins, then the higher avalue, then the higher absorbed, in
	 * either order of the merge, byte for byte; the difference ships the
	 * winner only.  In each pair the later fields go the other way, so that
	 * a comparison taken out of turn picks the loser.
	 */
	{
		const uint8_t *b1[] = {IB};
		int64_t		c[] = {9},
					v[] = {50};
		hstate		sb = hmake(1, b1, c, v);
		static const int64_t lo[4] = {4, 5, 100, 100};
		const char *names[4] = {"tclock", "aclock", "avalue", "absorbed"};

		for (int k = 0; k < 4; k++)
		{
			int64_t		hi[4];
			cc_fold		fl,
						fh;
			hstate		xl,
						xh,
						m1,
						m2,
						d;
			cc_folded	vl,
						vh;
			cc_diff_kind kind;

			for (int j = 0; j < 4; j++)
				hi[j] = j < k ? lo[j] : j == k ? lo[j] + 1 : lo[j] - 1;
			fl = hrec(IA, IB, lo[0], lo[1], lo[2], lo[3]);
			fh = hrec(IA, IB, hi[0], hi[1], hi[2], hi[3]);
			xl = hwith(&sb, 1, &fl);
			xh = hwith(&sb, 1, &fh);
			CHECK(hcanon(&xl) && hcanon(&xh));
			m1 = hmerge(&xl, &xh);
			m2 = hmerge(&xh, &xl);
			CHECKF(hsame(&m1, &m2) && hsame(&m1, &xh),
				   "records differing first in %s: the merge is not the higher, both ways",
				   names[k]);
			vl = hv(&xl);
			vh = hv(&xh);
			memset(&d, 0, sizeof(d));
			kind = cc_fold_difference(&vh, &vl, test_work(CC_FOLD_DIFFERENCE_WORK(vh.n, vh.nf)), d.s, &d.n, d.f, &d.nf);
			/* the winning record, with its target's shard: a value of its own */
			CHECKF(kind == CC_DIFF_SHARDS && d.n == 1 && cc_id_eq(d.s, IB) && d.nf == 1 &&
				   memcmp(d.f, xh.f, CC_FOLD_SIZE) == 0,
				   "records differing first in %s: the difference misses the winner", names[k]);
			kind = cc_fold_difference(&vl, &vh, test_work(CC_FOLD_DIFFERENCE_WORK(vl.n, vl.nf)), d.s, &d.n, d.f, &d.nf);
			CHECKF(kind == CC_DIFF_NONE, "records differing first in %s: the loser shipped",
				   names[k]);
			/* equal records: either is the merge */
			m1 = hmerge(&xh, &xh);
			CHECK(hsame(&m1, &xh));
		}
	}

	/*
	 * The order of values with records.  A's shard is there (clock 20), so
	 * aclock and avalue do not change the total; B and C hold parts of A.
	 */
	{
		const uint8_t *abc[] = {IA, IB, IC};
		int64_t		c[] = {20, 9, 9},
					v[] = {100, 50, 60};
		hstate		s = hmake(3, abc, c, v),
					x,
					y;
		cc_fold		rx[2],
					ry[2];

		rx[0] = hrec(IA, IB, 4, 5, 30, 30);
		rx[1] = hrec(IA, IC, 4, 6, 40, 40);
		x = hwith(&s, 2, rx);
		CHECK(hcanon(&x) && htotal(&x) == 140);

		/* only the tclock of the first record */
		ry[0] = rx[0];
		ry[0].tclock = 5;
		ry[1] = rx[1];
		y = hwith(&s, 2, ry);
		check_order(&x, &y, -1, "tclock only");
		/* tclock lower, aclock higher: tclock decides */
		ry[0].aclock = 4;
		y = hwith(&s, 2, ry);
		check_order(&x, &y, -1, "tclock before aclock");
		/* only aclock */
		ry[0] = rx[0];
		ry[0].aclock = 6;
		y = hwith(&s, 2, ry);
		check_order(&x, &y, -1, "aclock only");
		ry[0].avalue = 29;
		y = hwith(&s, 2, ry);
		check_order(&x, &y, -1, "aclock before avalue");
		/* only avalue, across zero */
		ry[0] = rx[0];
		ry[0].avalue = -30;
		y = hwith(&s, 2, ry);
		check_order(&x, &y, 1, "avalue only");
		/* only absorbed, per record, the totals equal */
		ry[0] = rx[0];
		ry[0].absorbed = 31;
		ry[1].absorbed = 39;
		y = hwith(&s, 2, ry);
		CHECK(htotal(&y) == htotal(&x));
		check_order(&x, &y, -1, "absorbed only");
		/* avalue lower, absorbed higher: avalue decides */
		ry[0].avalue = 29;
		y = hwith(&s, 2, ry);
		check_order(&x, &y, 1, "avalue before absorbed");
		/* the later record alone */
		ry[0] = rx[0];
		ry[1].absorbed = 40;
		ry[1].tclock = 3;
		y = hwith(&s, 2, ry);
		check_order(&x, &y, 1, "the second record");
		/* one list a prefix of the other: the prefix first */
		ry[0] = rx[0];
		ry[1] = hrec(IA, IC, 4, 3, 7, 0);
		x = hwith(&s, 1, rx);
		y = hwith(&s, 2, ry);
		CHECK(hcanon(&y) && htotal(&x) == htotal(&y));
		check_order(&x, &y, -1, "a prefix");
		/* the keys: (A, B) before (A, C) */
		ry[0] = hrec(IA, IC, 4, 5, 30, 30);
		x = hwith(&s, 1, rx);
		y = hwith(&s, 1, ry);
		check_order(&x, &y, -1, "the target of the first record");

		/*
		 * A tombstone comes after a folded value, both ways, whatever the
		 * value's total; a tombstone equals a tombstone.
		 */
		x = hwith(&s, 2, rx);
		{
			cc_folded	vx = hv(&x),
						empty = {NULL, 0, NULL, 0};

			CHECK(cc_fold_compare(&vx, false, &empty, true) < 0);
			CHECK(cc_fold_compare(&empty, true, &vx, false) > 0);
			CHECK(cc_fold_compare(&empty, true, &empty, true) == 0);
		}
	}

	/* without records against with: by the total, not the shards' sum */
	{
		const uint8_t *b1[] = {IB};
		const uint8_t *ab[] = {IA, IB};
		int64_t		c1[] = {9},
					v1[] = {60},
					c2[] = {20, 9},
					v2[] = {5, 50};
		hstate		plain = hmake(1, b1, c1, v1),
					s2 = hmake(2, ab, c2, v2),
					y;
		cc_fold		ry = hrec(IA, IB, 4, 5, -20, -20);

		y = hwith(&s2, 1, &ry);
		CHECK(hcanon(&y) && htotal(&y) == 75);
		check_order(&plain, &y, -1, "no records against records");
	}

	/* totals past bigint, either side */
	{
		const uint8_t *bc[] = {IB, IC};
		const uint8_t *b1[] = {IB};
		int64_t		c2[] = {1, 1},
					vmax[] = {INT64_MAX, INT64_MAX},
					vmin[] = {INT64_MIN, INT64_MIN},
					c1[] = {1},
					v1[] = {5};
		hstate		big = hmake(2, bc, c2, vmax),
					small = hmake(2, bc, c2, vmin),
					mid = hmake(1, b1, c1, v1);
		cc_fold		f = hrec(IA, IB, 1, 1, 0, 0);

		big = hwith(&big, 1, &f);
		small = hwith(&small, 1, &f);
		mid = hwith(&mid, 1, &f);
		check_order(&mid, &big, -1, "a total above bigint");
		check_order(&small, &mid, -1, "a total below bigint");
		check_order(&small, &big, -1, "totals on both sides of bigint");
	}

	/*
	 * Strip, record by record.  A folded into X, and on another copy X
	 * into Y before it saw that: merged, X keeps its shard of clock 4 (A's
	 * record into X has tclock 4) beside X>Y of aclock 3.
	 */
	{
		const uint8_t *w4[] = {ID, IB, IC};
		int64_t		c3[] = {5, 3, 2},
					v3[] = {100, 10, 7};
		hstate		base = hmake(3, w4, c3, v3),
					m,
					r;
		cc_folded	v;
		int64_t		clock,
					value;

		r = hfold(&base, IB, IC, &changed, &code);
		m = hfold(&base, ID, IB, &changed, &code);
		m = hmerge(&r, &m);
		CHECK(hcanon(&m) && m.nf == 2 && hhas(&m, IB, &clock, &value) && clock == 4 &&
			  htotal(&m) == 117);
		/*
		 * Y goes, and X>Y with it: X is live again and its shard of clock
		 * 4 holds A>X (tclock 4, not later), which stays.
		 */
		v = hv(&m);
		memset(&r, 0, sizeof(r));
		cc_fold_strip(&v, IC, test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
		CHECKF(hcanon(&r) && r.n == 1 && r.nf == 1 && cc_id_eq(r.f, ID) &&
			   cc_id_eq(r.f + CC_ID_LEN, IB) && htotal(&r) == 110,
			   "strip of Y: %zu shards, %zu records, total %lld", r.n, r.nf,
			   (long long) htotal(&r));
		/* A goes: its record A>X with it, though X is retired; X>Y stays */
		memset(&r, 0, sizeof(r));
		cc_fold_strip(&v, ID, test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
		CHECKF(hcanon(&r) && r.n == 2 && r.nf == 1 && cc_id_eq(r.f, IB) &&
			   cc_id_eq(r.f + CC_ID_LEN, IC),
			   "strip of A: %zu shards, %zu records", r.n, r.nf);
	}

	/*
	 * A writer whose last record goes keeps the others: X into W and
	 * then into Y (Y below W: Y takes X, W keeps what it took until it
	 * gives back), after A into X.  W goes, X>Y stays, so X is still
	 * retired and A>X stays too.
	 */
	{
		const uint8_t *w4[] = {ID, IB, IA, IC};
		int64_t		c4[] = {5, 3, 2, 1},
					v4[] = {100, 10, 7, 1};
		hstate		h = hmake(4, w4, c4, v4),
					r;
		cc_folded	v;

		h = hfold(&h, ID, IB, &changed, &code);
		h = hfold(&h, IB, IC, &changed, &code);
		h = hfold(&h, IB, IA, &changed, &code);
		/* X's records first (7fff...), X>Y before X>W, then A>X */
		CHECK(code == CC_OK && changed && hcanon(&h) && h.nf == 3 &&
			  cc_id_eq(h.f, IB) && cc_id_eq(h.f + CC_ID_LEN, IA) &&
			  cc_id_eq(h.f + CC_FOLD_SIZE + CC_ID_LEN, IC) &&
			  cc_id_eq(h.f + 2 * CC_FOLD_SIZE, ID));
		v = hv(&h);
		memset(&r, 0, sizeof(r));
		cc_fold_strip(&v, IC, test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
		CHECKF(hcanon(&r) && r.n == 1 && r.nf == 2 &&
			   memcmp(r.f, h.f, CC_FOLD_SIZE) == 0 &&
			   memcmp(r.f + CC_FOLD_SIZE, h.f + 2 * CC_FOLD_SIZE, CC_FOLD_SIZE) == 0,
			   "strip of W: %zu shards, %zu records", r.n, r.nf);
	}

	/*
	 * A difference carries the targets of its records: B into X and X
	 * into Y, against the same after B was forgotten.  B>X is all that
	 * wins, but X is retired, so X>Y comes along, and Y's shard as Y's
	 * target; nothing else (Z's shard is the same on both).
	 */
	{
		const uint8_t *w4[] = {IB, IA, IC, ID};
		int64_t		c4[] = {5, 3, 2, 1},
					v4[] = {100, 10, 7, 1};
		hstate		a = hmake(4, w4, c4, v4),
					b,
					d;
		cc_folded	va,
					vb,
					vd;
		cc_diff_kind kind;
		size_t		pos;

		a = hfold(&a, IB, IA, &changed, &code);
		a = hfold(&a, IA, IC, &changed, &code);
		CHECK(code == CC_OK && changed && a.n == 2 && a.nf == 2);
		code = hforget(&a, IB, &b, &changed);
		CHECK(code == CC_OK && changed && b.nf == 1);
		va = hv(&a);
		vb = hv(&b);
		memset(&d, 0, sizeof(d));
		kind = cc_fold_difference(&va, &vb, test_work(CC_FOLD_DIFFERENCE_WORK(va.n, va.nf)),
								  d.s, &d.n, d.f, &d.nf);
		vd = hv(&d);
		pos = cc_id_cmp(a.s, IC) == 0 ? 0 : 1;
		CHECKF(kind == CC_DIFF_SHARDS && d.nf == 2 && memcmp(d.f, a.f, 2 * CC_FOLD_SIZE) == 0 &&
			   d.n == 1 && memcmp(d.s, a.s + pos * CC_SHARD_SIZE, CC_SHARD_SIZE) == 0 &&
			   cc_fold_check(&vd, CC_ERR_BINARY, NULL) == CC_OK,
			   "difference after a forget: %zu shards, %zu records", d.n, d.nf);
	}

	/*
	 * Strip, along the records: C into B, B into X and then into Y (Y
	 * below X: both hold B), X into Z.  Stripping X drops B>X and X>Z,
	 * and stripping Z drops X>Z and then B>X (X is left without a record
	 * or a shard); either way B keeps B>Y, so C>B stays.
	 */
	{
		const uint8_t *w5[] = {cc_edge_ids[1], IB, IC, IA, ID};
		int64_t		c5[] = {6, 5, 3, 2, 1},
					v5[] = {50, 100, 10, 7, 1};
		hstate		h = hmake(5, w5, c5, v5),
					r;
		cc_folded	v;
		const uint8_t *gone[] = {IC, ID};

		h = hfold(&h, cc_edge_ids[1], IB, &changed, &code);
		h = hfold(&h, IB, IC, &changed, &code);
		h = hfold(&h, IB, IA, &changed, &code);
		h = hfold(&h, IC, ID, &changed, &code);
		/* C>B, B>Y, B>X, X>Z */
		CHECK(code == CC_OK && changed && hcanon(&h) && h.nf == 4 &&
			  cc_id_eq(h.f + CC_FOLD_SIZE + CC_ID_LEN, IA) &&
			  cc_id_eq(h.f + 2 * CC_FOLD_SIZE + CC_ID_LEN, IC));
		v = hv(&h);
		for (int g = 0; g < 2; g++)
		{
			memset(&r, 0, sizeof(r));
			cc_fold_strip(&v, gone[g], test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
			CHECKF(hcanon(&r) && r.nf == 2 && memcmp(r.f, h.f, 2 * CC_FOLD_SIZE) == 0,
				   "strip of %s: %zu records", g == 0 ? "X" : "Z", r.nf);
		}
	}

	/*
	 * Forgetting a set: A into T, T into U, U into V, then A wrote again.
	 * A cannot go (its shard is back); T and U could go alone, but T
	 * holds A>T, and so U, holding T>U, cannot go either: U is named,
	 * first in the order given.  A has the lowest id of the three, then
	 * the highest: the propagation starts from A's slot wherever it is.
	 */
	for (int order = 0; order < 2; order++)
	{
		const uint8_t *a = order == 0 ? IB : IC,
				   *t = order == 0 ? IA : IB,
				   *u = order == 0 ? IC : IA;
		const uint8_t *w4[] = {a, t, u, ID};
		int64_t		c4[] = {5, 3, 2, 1},
					v4[] = {100, 10, 7, 1},
					c1[] = {6},
					v1[] = {103};
		hstate		h = hmake(4, w4, c4, v4),
					late = hmake(1, w4, c1, v1),
					r;
		cc_folded	v;
		cc_error	err;
		uint8_t		ids[3][CC_ID_LEN];
		char		uname[CC_UUID_TEXT_LEN + 1],
					expected[CC_DETAIL_LEN];

		h = hfold(&h, a, t, &changed, &code);
		h = hfold(&h, t, u, &changed, &code);
		h = hfold(&h, u, ID, &changed, &code);
		h = hmerge(&h, &late);
		CHECK(hcanon(&h) && h.nf == 3 && h.n == 2);
		memcpy(ids[0], u, CC_ID_LEN);
		memcpy(ids[1], t, CC_ID_LEN);
		memcpy(ids[2], a, CC_ID_LEN);
		cc_uuid_format(u, uname);
		snprintf(expected, sizeof(expected),
				 "Writer %s still holds the fold of another retired writer.", uname);
		v = hv(&h);
		err.detail[0] = '\0';
		code = cc_fold_forget_many(&v, &ids[0][0], 3, test_work(CC_FOLD_FORGET_MANY_WORK(3)),
								   r.s, &r.n, r.f, &r.nf, &changed, &err);
		CHECKF(code == CC_ERR_ARGUMENT && !changed && strcmp(err.detail, expected) == 0,
			   "forget of U, T and A (order %d): \"%s\"", order, err.detail);
	}

	/* equal totals and records, other shards: the shards decide, as cc_compare() */
	{
		const uint8_t *bc[] = {IB, IC};
		int64_t		c2[] = {1, 1},
					lo[] = {4, 6},
					hi[] = {5, 5};
		hstate		x = hmake(2, bc, c2, lo),
					y = hmake(2, bc, c2, hi);
		cc_fold		f = hrec(IA, IB, 1, 1, 0, 0);

		x = hwith(&x, 1, &f);
		y = hwith(&y, 1, &f);
		CHECK(hcanon(&x) && hcanon(&y) && htotal(&x) == htotal(&y));
		check_order(&x, &y, -1, "equal totals, B's value 4 against 5");
	}

	/*
	 * The check looks at the target of every record of a retired writer,
	 * not only the first: A>B is sound, A>C is not (C has no shard, then
	 * a shard older than the record's tclock).
	 */
	{
		const uint8_t *b1[] = {IB},
				   *bc[] = {IB, IC};
		int64_t		c1[] = {4},
					v1[] = {10},
					c2[] = {4, 2},
					v2[] = {10, 7};
		hstate		no_c = hmake(1, b1, c1, v1),
					old_c = hmake(2, bc, c2, v2);
		cc_fold		recs[2];
		cc_folded	v;
		cc_error	err;
		char		name[2 * CC_UUID_TEXT_LEN + 2],
					expected[CC_DETAIL_LEN];

		cc_uuid_format(IA, name);
		name[CC_UUID_TEXT_LEN] = '>';
		cc_uuid_format(IC, name + CC_UUID_TEXT_LEN + 1);
		recs[0] = hrec(IA, IB, 4, 5, 100, 60);
		recs[1] = hrec(IA, IC, 3, 5, 100, 40);
		no_c = hwith(&no_c, 2, recs);
		old_c = hwith(&old_c, 2, recs);
		v = hv(&no_c);
		snprintf(expected, sizeof(expected), "The target of fold record %s has no shard.", name);
		err.detail[0] = '\0';
		CHECKF(cc_fold_check(&v, CC_ERR_BINARY, &err) == CC_ERR_BINARY &&
			   strcmp(err.detail, expected) == 0, "second target missing: \"%s\"", err.detail);
		v = hv(&old_c);
		snprintf(expected, sizeof(expected),
				 "Fold record %s has tclock 3, newer than its target's shard (clock 2).", name);
		err.detail[0] = '\0';
		CHECKF(cc_fold_check(&v, CC_ERR_BINARY, &err) == CC_ERR_BINARY &&
			   strcmp(err.detail, expected) == 0, "second target older: \"%s\"", err.detail);
	}

	/*
	 * The check names the clock below 1: the aclock when tclock is 1 (the
	 * lowest it may be), with the value it has.
	 */
	{
		const uint8_t *b1[] = {IB};
		int64_t		c1[] = {3},
					v1[] = {10};
		hstate		one = hmake(1, b1, c1, v1),
					h;
		cc_folded	v;
		cc_error	err;
		char		name[2 * CC_UUID_TEXT_LEN + 2],
					expected[CC_DETAIL_LEN];
		static const struct
		{
			int64_t		tclock,
						aclock;
			const char *says;	/* the field named, then its value */
		}			cases[] = {
			{1, 0, "aclock 0"}, {1, -7, "aclock -7"}, {0, 1, "tclock 0"},
			{0, 5, "tclock 0"}, {-3, 0, "tclock -3"}
		};
		cc_fold		f;

		cc_uuid_format(IA, name);
		name[CC_UUID_TEXT_LEN] = '>';
		cc_uuid_format(IB, name + CC_UUID_TEXT_LEN + 1);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			f = hrec(IA, IB, cases[i].tclock, cases[i].aclock, 0, 0);
			h = hwith(&one, 1, &f);
			v = hv(&h);
			snprintf(expected, sizeof(expected), "Fold record %s has %s; clocks start at 1.",
					 name, cases[i].says);
			err.detail[0] = '\0';
			CHECKF(cc_fold_check(&v, CC_ERR_BINARY, &err) == CC_ERR_BINARY &&
				   strcmp(err.detail, expected) == 0,
				   "tclock %lld, aclock %lld: \"%s\"", (long long) cases[i].tclock,
				   (long long) cases[i].aclock, err.detail);
		}
	}
}

/* ------------------------------------------------------------ schedules */

#define NW 16					/* writer ids in a schedule */
#define NS 5					/* servers, 3 at the start */
#define NSNAP 6					/* old copies kept */
#define MAXF (NW * NW)
#define STEPS 36

typedef __int128 wide;

typedef struct fstate
{
	unsigned char s[NW * CC_SHARD_SIZE];
	size_t		n;
	unsigned char f[MAXF * CC_FOLD_SIZE];
	size_t		nf;
	int			known[NW];		/* increments of each writer seen */
} fstate;

typedef struct world
{
	uint8_t		id[NW][CC_ID_LEN];
	int			nwriters;
	int64_t		delta[NW][STEPS + 1];
	int			count[NW];
	fstate		srv[NS];
	int			writer[NS];
	bool		active[NS];
	fstate		snap[NSNAP];
	int			nsnap;
} world;

static uint64_t frng;

static uint64_t
fr(void)
{
	return cc_test_splitmix(&frng);
}

static uint8_t id_pool[NW][CC_ID_LEN];

/* failures, by law */
static long f_canon,
			f_difference,
			f_order,
			f_stored,
			f_total,
			f_fold,
			f_merge_order,
			f_idem,
			f_finished,
			f_converged,
			f_late,
			f_forgotten,
			f_live;
static long s_folds,
			s_giveback,
			s_late_shard,
			s_conflict,
			s_forgotten,
			s_stripped,
			s_retired_write,
			s_too_big;

static cc_folded
fv(const fstate *s)
{
	cc_folded	v = {s->s, s->n, s->f, s->nf};

	return v;
}

static wide
fref(const world *w, const fstate *s)
{
	wide		t = 0;

	for (int k = 0; k < w->nwriters; k++)
		for (int i = 0; i < s->known[k]; i++)
			t += w->delta[k][i];
	return t;
}

static wide
ftotal(const fstate *s)
{
	cc_folded	v = fv(s);
	int64_t		wraps,
				low;

	cc_fold_total(&v, &wraps, &low);
	return (wide) wraps * ((wide) 1 << 64) + low;
}

static int
writer_of(const world *w, const uint8_t *id)
{
	for (int k = 0; k < w->nwriters; k++)
		if (cc_id_eq(w->id[k], id))
			return k;
	return -1;
}

/* Prints a state and what it has seen, for a failing case. */
static void
fdump(const world *w, const fstate *s, const char *what)
{
	fprintf(stderr, "fold: %s: total %" PRId64 ", seen %" PRId64 "\n", what,
			(int64_t) ftotal(s), (int64_t) fref(w, s));
	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_load(s->s, i, &sh);
		fprintf(stderr, "  shard w%d clock %" PRId64 " value %" PRId64 "\n",
				writer_of(w, sh.id), sh.clock, sh.value);
	}
	for (size_t i = 0; i < s->nf; i++)
	{
		cc_fold		f;

		cc_fold_load(s->f, i, &f);
		fprintf(stderr, "  fold w%d into w%d tclock %" PRId64 " aclock %" PRId64
				" avalue %" PRId64 " absorbed %" PRId64 "\n",
				writer_of(w, f.retired), writer_of(w, f.target), f.tclock,
				f.aclock, f.avalue, f.absorbed);
	}
	for (int k = 0; k < w->nwriters; k++)
		fprintf(stderr, "  seen w%d: %d of %d\n", k, s->known[k], w->count[k]);
}

/* Checks one state against the laws that hold at every step. */
static void
fcheck(const world *w, const fstate *s, long *fail)
{
	cc_folded	v = fv(s);

	if (cc_check_canonical(s->s, s->n, CC_ERR_BINARY, NULL) != CC_OK ||
		cc_fold_check(&v, CC_ERR_BINARY, NULL) != CC_OK)
		f_canon++;
	/* stored and opened again: the same state, the total kept */
	{
		static unsigned char buf[CC_STORED_FOLDED_SIZE(NW, MAXF)];
		unsigned char wide_buf[NW * CC_SHARD_SIZE];
		size_t		len = cc_stored_pack_folded(buf, &v);
		cc_stored	st;
		cc_folded	back;
		int64_t		total;
		wide		t = ftotal(s);

		if (cc_stored_open(buf, len, &st, NULL) != CC_OK)
			f_stored++;
		else
		{
			cc_stored_folded(&st, wide_buf, &back);
			if (back.n != s->n || back.nf != s->nf ||
				memcmp(back.shards, s->s, s->n * CC_SHARD_SIZE) != 0 ||
				(s->nf > 0 && memcmp(back.folds, s->f, s->nf * CC_FOLD_SIZE) != 0))
				f_stored++;
			if (t >= INT64_MIN && t <= INT64_MAX)
			{
				if (cc_stored_value(&st, &total, NULL) != CC_OK || total != (int64_t) t)
					f_stored++;
			}
			else if (cc_stored_value(&st, &total, NULL) != CC_ERR_OVERFLOW)
				f_stored++;
		}
	}
	if (ftotal(s) != fref(w, s))
	{
		if ((*fail)++ < 3)
			fdump(w, s, "total differs from the increments seen");
	}
}

/* Copies the used part of a state. */
static void
fcopy(fstate *dst, const fstate *src)
{
	if (dst == src)
		return;
	memcpy(dst->s, src->s, src->n * CC_SHARD_SIZE);
	dst->n = src->n;
	memcpy(dst->f, src->f, src->nf * CC_FOLD_SIZE);
	dst->nf = src->nf;
	memcpy(dst->known, src->known, sizeof(dst->known));
}

static void
fmerge(const fstate *a, const fstate *b, fstate *out)
{
	cc_folded	va = fv(a),
				vb = fv(b);
	fstate		r;

	cc_fold_merge(&va, &vb, r.s, &r.n, r.f, &r.nf);
	for (int k = 0; k < NW; k++)
		r.known[k] = a->known[k] > b->known[k] ? a->known[k] : b->known[k];
	fcopy(out, &r);
}

static bool
fsame(const fstate *a, const fstate *b)
{
	return a->n == b->n && a->nf == b->nf &&
		memcmp(a->s, b->s, a->n * CC_SHARD_SIZE) == 0 &&
		memcmp(a->f, b->f, a->nf * CC_FOLD_SIZE) == 0;
}

static int
new_writer(world *w)
{
	if (w->nwriters == NW)
		return -1;
	w->count[w->nwriters] = 0;
	return w->nwriters++;
}

static int64_t
rnd_delta(void)
{
	switch (fr() % 24)
	{
		case 0:
			return (int64_t) 1 << 61;
		case 1:
			return -((int64_t) 1 << 61);
		default:
			return (int64_t) (fr() % 16) - 5;
	}
}

/* A leader update of server i by its writer; false when it cannot write. */
static bool
finc(world *w, int i)
{
	fstate	   *s = &w->srv[i];
	int			k = w->writer[i];
	unsigned char out[NW * CC_SHARD_SIZE];
	size_t		nout;
	int64_t		d = rnd_delta();

	if (k < 0 || w->count[k] >= STEPS)
		return false;
	if (cc_fold_is_retired(s->f, s->nf, w->id[k]))
	{
		/* the glue refuses; the server is given a new id */
		s_retired_write++;
		w->writer[i] = new_writer(w);
		return false;
	}
	if (cc_increment(s->s, s->n, w->id[k], d, false, out, &nout, NULL) != CC_OK)
		return false;			/* the value would leave bigint: refused */
	w->delta[k][w->count[k]++] = d;
	memcpy(s->s, out, nout * CC_SHARD_SIZE);
	s->n = nout;
	s->known[k] = w->count[k];
	return true;
}

/*
 * Folds writer k on server i, into its writer; checks the total is kept.
 * Returns the core's answer.
 */
static cc_code
ffold(world *w, int i, int k)
{
	fstate	   *s = &w->srv[i];
	static fstate r;
	cc_folded	v = fv(s);
	bool		changed,
				present;
	int64_t		wraps,
				low;
	cc_code		code;

	if (w->writer[i] < 0 || k == w->writer[i])
		return CC_OK;
	if (cc_fold_is_retired(s->f, s->nf, w->id[w->writer[i]]))
		return CC_OK;
	code = cc_fold_apply(&v, w->id[k], w->id[w->writer[i]], r.s, &r.n,
						 r.f, &r.nf, &changed, NULL);
	if (code != CC_OK || !changed)
		return code;
	memcpy(r.known, s->known, sizeof(r.known));
	s_folds++;
	if (ftotal(&r) != ftotal(s))
		f_fold++;
	v = fv(&r);
	cc_fold_outstanding(&v, w->id[k], &present, &wraps, &low);
	if (present)
		f_fold++;
	if (wraps != 0 || low != 0)
		s_giveback++;
	fcopy(s, &r);
	return CC_OK;
}

static void
step(world *w)
{
	int			i = (int) (fr() % NS);
	int			j = (int) (fr() % NS);
	unsigned	op = (unsigned) (fr() % 100);

	if (!w->active[i])
		return;
	if (op < 40)
		finc(w, i);
	else if (op < 68)
	{
		if (w->active[j] && j != i)
		{
			fmerge(&w->srv[i], &w->srv[j], &w->srv[i]);
			fcheck(w, &w->srv[i], &f_total);
		}
	}
	else if (op < 76)
	{
		/* a late copy: a lagging subscriber's backlog, a backup */
		if (w->nsnap > 0)
		{
			fstate	   *old = &w->snap[fr() % (unsigned) w->nsnap];

			fmerge(&w->srv[i], old, &w->srv[i]);
			fcheck(w, &w->srv[i], &f_late);
		}
	}
	else if (op < 82)
	{
		if (w->nsnap < NSNAP)
			fcopy(&w->snap[w->nsnap++], &w->srv[i]);
		else
			fcopy(&w->snap[fr() % NSNAP], &w->srv[i]);
	}
	else if (op < 94)
	{
		/* fold a writer the server knows, sometimes a live one */
		if (w->nwriters > 0)
			(void) ffold(w, i, (int) (fr() % (unsigned) w->nwriters));
		fcheck(w, &w->srv[i], &f_total);
	}
	else if (op < 97)
	{
		/* restore a backup: the server comes back under a new id */
		if (w->nsnap > 0)
		{
			fcopy(&w->srv[i], &w->snap[fr() % (unsigned) w->nsnap]);
			w->writer[i] = new_writer(w);
			fcheck(w, &w->srv[i], &f_total);
		}
	}
	else
	{
		/* a failover forks: a new server from i's state, a new id */
		for (int k = 0; k < NS; k++)
			if (!w->active[k])
			{
				w->active[k] = true;
				fcopy(&w->srv[k], &w->srv[i]);
				w->writer[k] = new_writer(w);
				break;
			}
	}
}

/* The clock a state knows of id: its shard's, else its records' aclock. */
static int64_t
known_clock(const fstate *s, const uint8_t *id)
{
	int64_t		best = 0;

	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_load(s->s, i, &sh);
		if (cc_id_eq(sh.id, id))
			return sh.clock;
	}
	for (size_t i = 0; i < s->nf; i++)
	{
		cc_fold		f;

		cc_fold_load(s->f, i, &f);
		if (cc_id_eq(f.retired, id) && f.aclock > best)
			best = f.aclock;
	}
	return best;
}

/*
 * Whether copy q knows nothing of retired writer a that c lacks: a's shard,
 * a's records, and the shards of their targets.  What forgetting a needs of
 * every copy that may still be merged.
 */
static bool
dominated(const fstate *q, const fstate *c, const uint8_t *a)
{
	if (known_clock(q, a) > known_clock(c, a))
		return false;
	for (size_t i = 0; i < q->nf; i++)
	{
		cc_fold		f,
					g;
		bool		found = false;

		cc_fold_load(q->f, i, &f);
		if (!cc_id_eq(f.retired, a))
			continue;
		for (size_t j = 0; j < c->nf; j++)
		{
			cc_fold_load(c->f, j, &g);
			if (cc_id_eq(g.retired, a) && cc_id_eq(g.target, f.target))
				found = g.tclock >= f.tclock;
		}
		if (!found || known_clock(q, f.target) > known_clock(c, f.target))
			return false;
	}
	return true;
}

static bool
is_live(const world *w, int k)
{
	for (int i = 0; i < NS; i++)
		if (w->active[i] && w->writer[i] == k)
			return true;
	return false;
}

static void
schedule(void)
{
	static world w;
	static fstate c,
				d,
				x,
				before,
				st;
	int			steps = 8 + (int) (fr() % STEPS);
	unsigned	perm[NW];
	bool		can_fold = true;
	bool		too_big[NW] = {false};

	w.nwriters = 0;
	w.nsnap = 0;
	for (int i = 0; i < NS; i++)
	{
		w.active[i] = false;
		w.srv[i].n = w.srv[i].nf = 0;
		memset(w.srv[i].known, 0, sizeof(w.srv[i].known));
	}
	for (int k = 0; k < NW; k++)
		perm[k] = (unsigned) k;
	for (int k = NW - 1; k > 0; k--)
	{
		unsigned	r = (unsigned) (fr() % (unsigned) (k + 1)),
					t = perm[k];

		perm[k] = perm[r];
		perm[r] = t;
	}
	for (int k = 0; k < NW; k++)
		memcpy(w.id[k], id_pool[perm[k]], CC_ID_LEN);
	for (int i = 0; i < 3; i++)
	{
		w.active[i] = true;
		w.writer[i] = new_writer(&w);
	}
	for (int t = 0; t < steps; t++)
		step(&w);

	/* the mesh converges, in two orders */
	c.n = c.nf = d.n = d.nf = 0;
	memset(c.known, 0, sizeof(c.known));
	memset(d.known, 0, sizeof(d.known));
	for (int i = 0; i < NS; i++)
		if (w.active[i])
			fmerge(&c, &w.srv[i], &c);
	for (int i = NS - 1; i >= 0; i--)
		if (w.active[i])
			fmerge(&w.srv[i], &d, &d);
	if (!fsame(&c, &d))
		f_merge_order++;
	fmerge(&c, &c, &x);
	if (!fsame(&c, &x))
		f_idem++;
	fcheck(&w, &c, &f_converged);
	for (size_t r = 1; r < c.nf; r++)
		if (cc_id_eq(c.f + r * CC_FOLD_SIZE, c.f + (r - 1) * CC_FOLD_SIZE))
		{
			s_conflict++;
			break;
		}

	/*
	 * Difference and order on pairs of the schedule's states: merge(b,
	 * difference(a, b)) = merge(a, b), NONE exactly when b holds a, and a
	 * total order that agrees with state equality and with the totals.
	 */
	for (int p = 0; p < 4; p++)
	{
		const fstate *a = (w.nsnap > 0 && (fr() & 1)) ?
			&w.snap[fr() % (unsigned) w.nsnap] : &w.srv[fr() % NS];
		const fstate *b = (w.nsnap > 0 && (fr() & 1)) ?
			&w.snap[fr() % (unsigned) w.nsnap] : &w.srv[fr() % NS];
		cc_folded	va = fv(a),
					vb = fv(b),
					vd;
		cc_diff_kind kind;
		int			ab,
					ba;

		kind = cc_fold_difference(&va, &vb, test_work(CC_FOLD_DIFFERENCE_WORK(va.n, va.nf)), st.s, &st.n, st.f, &st.nf);
		fmerge(a, b, &x);
		vd = fv(&st);
		cc_fold_merge(&vb, &vd, before.s, &before.n, before.f, &before.nf);
		if (kind == CC_DIFF_NONE ? !fsame(&x, b) || st.n + st.nf != 0
			: !fsame(&before, &x) || fsame(&x, b))
			f_difference++;
		ab = cc_fold_compare(&va, false, &vb, false);
		ba = cc_fold_compare(&vb, false, &va, false);
		if ((ab == 0) != fsame(a, b) || (ab > 0) != (ba < 0) || (ab < 0) != (ba > 0) ||
			(ftotal(a) < ftotal(b) && ab >= 0) || (ftotal(a) > ftotal(b) && ab <= 0))
			f_order++;
	}

	/* servers whose id was folded take a new one */
	for (int i = 0; i < NS; i++)
		if (w.active[i] && w.writer[i] >= 0 &&
			cc_fold_is_retired(c.f, c.nf, w.id[w.writer[i]]))
			w.writer[i] = new_writer(&w);
	for (int i = 0; i < NS; i++)
		if (w.active[i] && w.writer[i] < 0)
			can_fold = false;	/* out of ids: the schedule ends here */
	if (!can_fold)
		return;

	/*
	 * The departed writers are folded: each server runs the fold of each of
	 * them, on the converged state, until nothing changes.
	 */
	for (int round = 0; round < 2 * NW; round++)
	{
		bool		any = false;

		for (int k = 0; k < w.nwriters; k++)
		{
			if (is_live(&w, k))
				continue;
			for (int i = 0; i < NS; i++)
			{
				if (!w.active[i])
					continue;
				fcopy(&before, &c);
				fcopy(&w.srv[i], &c);
				if (ffold(&w, i, k) == CC_ERR_OVERFLOW)
					too_big[k] = true;
				fcopy(&c, &w.srv[i]);
				if (!fsame(&before, &c))
					any = true;
			}
		}
		if (!any)
			break;
	}
	fcheck(&w, &c, &f_converged);
	for (int k = 0; k < w.nwriters; k++)
	{
		cc_folded	v = fv(&c);
		bool		present;
		int64_t		wraps,
					low;

		if (is_live(&w, k))
			continue;
		if (too_big[k])
		{
			s_too_big++;		/* refused: the target would leave bigint */
			continue;
		}
		cc_fold_outstanding(&v, w.id[k], &present, &wraps, &low);
		if (present || wraps != 0 || low != 0)
		{
			if (f_finished++ < 3)
			{
				fprintf(stderr, "fold: w%d unfinished (outstanding %" PRId64 ")\n", k, low);
				fdump(&w, &c, "unfinished");
			}
		}
	}

	/* every old copy merged into the folded state: exact */
	for (int q = 0; q < w.nsnap; q++)
	{
		fmerge(&c, &w.snap[q], &x);
		fcheck(&w, &x, &f_late);
	}

	/*
	 * Forgetting: the departed writers that no old copy knows better than
	 * the converged state (the proof the real system asks of the DBA), in
	 * rounds, since a writer that holds another's fold goes second.  Old
	 * copies are then stripped of them and merged: still exact.
	 */
	{
		bool		forgot[NW] = {false};
		bool		all = true;

		for (int round = 0; round < NW; round++)
		{
			bool		any = false;

			for (int k = 0; k < w.nwriters; k++)
			{
				bool		ok = !is_live(&w, k) && !forgot[k],
							changed;
				cc_folded	v = fv(&c);

				for (int q = 0; ok && q < w.nsnap; q++)
					if (!dominated(&w.snap[q], &c, w.id[k]))
						ok = false;
				if (!ok)
					continue;
				if (cc_fold_forget(&v, w.id[k], x.s, &x.n, x.f, &x.nf,
								   &changed, NULL) == CC_OK)
				{
					forgot[k] = true;
					any = true;
					if (changed)
					{
						memcpy(x.known, c.known, sizeof(c.known));
						s_forgotten++;
						if (ftotal(&x) != ftotal(&c))
							f_forgotten++;
						fcopy(&c, &x);
					}
				}
			}
			if (!any)
				break;
		}
		fcheck(&w, &c, &f_forgotten);
		for (int k = 0; k < w.nwriters; k++)
			if (!is_live(&w, k) && !forgot[k])
				all = false;
		if (all)
		{
			/* the writer set is back to the live ids, and no record is left */
			bool		bad = c.nf != 0;

			for (size_t r = 0; r < c.n; r++)
			{
				int			k = writer_of(&w, c.s + r * CC_SHARD_SIZE);

				if (k < 0 || !is_live(&w, k))
					bad = true;
			}
			if (bad)
				f_live++;
		}
		for (int q = 0; q < w.nsnap; q++)
		{
			fcopy(&st, &w.snap[q]);
			for (int k = 0; k < w.nwriters; k++)
			{
				cc_folded	v;

				if (!forgot[k])
					continue;
				v = fv(&st);
				static size_t sw[CC_FOLD_STRIP_WORK(MAXF) / sizeof(size_t) + 1];

				cc_fold_strip(&v, w.id[k], sw, x.s, &x.n, x.f, &x.nf);
				if (cc_fold_check(&(cc_folded) {x.s, x.n, x.f, x.nf},
								  CC_ERR_BINARY, NULL) != CC_OK)
					f_canon++;
				memcpy(x.known, st.known, sizeof(st.known));
				fcopy(&st, &x);
				s_stripped++;
			}
			fmerge(&c, &st, &x);
			fcheck(&w, &x, &f_late);
		}
	}
}

/* ------------------------------------------------- forget, strip, cycles */

#define GP 7					/* writers of a generated world */
#define GF (GP * GP)			/* records at most */

typedef struct gstate
{
	unsigned char s[GP * CC_SHARD_SIZE];
	size_t		n;
	unsigned char f[GF * CC_FOLD_SIZE];
	size_t		nf;
} gstate;

static uint8_t gid[GP][CC_ID_LEN];
static size_t gwork[(CC_FOLD_STRIP_WORK(GF) + CC_FOLD_FORGET_MANY_WORK(4 * GP)) /
					sizeof(size_t) + 1];

static cc_folded
gv(const gstate *g)
{
	cc_folded	v = {g->s, g->n, g->f, g->nf};

	return v;
}

static bool
gsame(const gstate *a, const gstate *b)
{
	return a->n == b->n && a->nf == b->nf &&
		memcmp(a->s, b->s, a->n * CC_SHARD_SIZE) == 0 &&
		memcmp(a->f, b->f, a->nf * CC_FOLD_SIZE) == 0;
}

static bool
gcheck(const gstate *g)
{
	cc_folded	v = gv(g);

	return cc_check_canonical(g->s, g->n, CC_ERR_BINARY, NULL) == CC_OK &&
		cc_fold_check(&v, CC_ERR_BINARY, NULL) == CC_OK;
}

/* A starting shard's clock and value in gworld(). */
static void
gstart_shard(cc_shard *sh)
{
	sh->clock = 1 + (int64_t) (fr() % 3);
	sh->value = (int64_t) (fr() % 21) - 10;
}

/*
 * A state that servers of GP writers can reach: three servers start from
 * one set of shards, then increment, fold any writer into their own (two
 * at once, and into each other, among them: cycles), merge each other's
 * values, forget and strip.
 */
static void
gworld(gstate *out)
{
	static gstate srv[3],
				next;
	int			writer[3];
	int			steps = 4 + (int) (fr() % 24);

	memset(&srv[0], 0, sizeof(gstate));
	cc_test_world_start(&frng, (const uint8_t *) gid, GP, 3,
						gstart_shard, srv[0].s, &srv[0].n, writer);
	srv[1] = srv[2] = srv[0];
	for (int t = 0; t < steps; t++)
	{
		int			i = (int) (fr() % 3),
					j = (int) (fr() % 3),
					k = (int) (fr() % GP);
		cc_folded	v = gv(&srv[i]),
					w = gv(&srv[j]);
		bool		changed = false;
		unsigned	op = (unsigned) (fr() % 100);

		memset(&next, 0, sizeof(next));
		if (op < 25)
		{
			if (cc_fold_increment(&v, gid[writer[i]], (int64_t) (fr() % 9) - 4,
								  false, next.s, &next.n, NULL) == CC_OK)
			{
				memcpy(next.f, srv[i].f, srv[i].nf * CC_FOLD_SIZE);
				next.nf = srv[i].nf;
				changed = true;
			}
		}
		else if (op < 60)
			changed = cc_fold_apply(&v, gid[k], gid[writer[i]], next.s, &next.n,
									next.f, &next.nf, &changed, NULL) == CC_OK &&
				changed;
		else if (op < 85)
		{
			if (srv[i].n + srv[j].n <= GP && srv[i].nf + srv[j].nf <= GF)
			{
				cc_fold_merge(&v, &w, next.s, &next.n, next.f, &next.nf);
				changed = true;
			}
		}
		else if (op < 93)
			changed = cc_fold_forget(&v, gid[k], next.s, &next.n, next.f,
									 &next.nf, &changed, NULL) == CC_OK && changed;
		else if (op < 96)
		{
			cc_fold_strip(&v, gid[k], gwork, next.s, &next.n, next.f, &next.nf);
			changed = true;
		}
		else
			writer[i] = (int) (fr() % GP);	/* a new id for the server */
		if (changed)
			srv[i] = next;
	}
	{
		cc_folded	a = gv(&srv[0]),
					b = gv(&srv[1]);

		memset(out, 0, sizeof(*out));
		if (srv[0].n + srv[1].n <= GP && srv[0].nf + srv[1].nf <= GF)
			cc_fold_merge(&a, &b, out->s, &out->n, out->f, &out->nf);
		else
			*out = srv[fr() % 3];
	}
	/* now and then a live writer finishes the folds of all the others */
	if (fr() % 2 == 0 && out->n > 0)
	{
		uint8_t		t[CC_ID_LEN];

		memcpy(t, out->s + (fr() % out->n) * CC_SHARD_SIZE, CC_ID_LEN);
		if (cc_fold_is_retired(out->f, out->nf, t))
			return;
		for (int round = 0; round < 2; round++)
			for (int k = 0; k < GP; k++)
			{
				cc_folded	v = gv(out);
				bool		changed;

				memset(&next, 0, sizeof(next));
				if (!cc_id_eq(gid[k], t) &&
					cc_fold_apply(&v, gid[k], t, next.s, &next.n, next.f, &next.nf,
								  &changed, NULL) == CC_OK && changed)
					*out = next;
			}
	}
}

/* The writer of id among gid, or -1. */
static int
gwho(const uint8_t *id)
{
	for (int k = 0; k < GP; k++)
		if (cc_id_eq(gid[k], id))
			return k;
	return -1;
}

/*
 * A model of forgetting a set, apart from the core: why each writer cannot
 * go by itself (1 a shard and no record, 2 a shard or a count outstanding,
 * 3 a record from outside), then the stuck spread along the records.
 */
static void
gforget_model(const gstate *g, const bool *in, int *why)
{
	bool		shard[GP] = {false},
				recs[GP] = {false};
	int64_t		best_clock[GP] = {0},
				best_value[GP] = {0};
	wide		absorbed[GP] = {0};
	bool		more = true;

	for (size_t i = 0; i < g->n; i++)
	{
		cc_shard	sh;
		int			k;

		cc_load(g->s, i, &sh);
		if ((k = gwho(sh.id)) >= 0)
			shard[k] = true;
	}
	for (size_t i = 0; i < g->nf; i++)
	{
		cc_fold		f;
		int			k;

		cc_fold_load(g->f, i, &f);
		k = gwho(f.retired);
		recs[k] = true;
		absorbed[k] += f.absorbed;
		if (f.aclock > best_clock[k] ||
			(f.aclock == best_clock[k] && f.avalue > best_value[k]))
		{
			best_clock[k] = f.aclock;
			best_value[k] = f.avalue;
		}
	}
	for (int k = 0; k < GP; k++)
	{
		why[k] = 0;
		if (!in[k])
			continue;
		if (!recs[k])
			why[k] = shard[k] ? 1 : 0;
		else if (shard[k] || (wide) best_value[k] - absorbed[k] != 0)
			why[k] = 2;
	}
	while (more)
	{
		more = false;
		for (size_t i = 0; i < g->nf; i++)
		{
			cc_fold		f;
			int			a,
						t;

			cc_fold_load(g->f, i, &f);
			a = gwho(f.retired);
			t = gwho(f.target);
			if (in[t] && why[t] == 0 && (!in[a] || why[a] != 0))
			{
				why[t] = 3;
				more = true;
			}
		}
	}
}

static long fm_cases,
			fm_ok,
			fm_refused,
			fm_cycles,
			fm_fail,
			st_cases,
			st_cascade,
			st_fail,
			cy_seen;

/* Whether the records hold a cycle (a retired writer reaches itself). */
static bool
gcycle(const gstate *g)
{
	bool		edge[GP][GP] = {{false}};

	for (size_t i = 0; i < g->nf; i++)
		edge[gwho(g->f + i * CC_FOLD_SIZE)][gwho(g->f + i * CC_FOLD_SIZE + CC_ID_LEN)] = true;
	for (int m = 0; m < GP; m++)
		for (int a = 0; a < GP; a++)
			for (int b = 0; b < GP; b++)
				if (edge[a][m] && edge[m][b])
					edge[a][b] = true;
	for (int a = 0; a < GP; a++)
		if (edge[a][a])
			return true;
	return false;
}

/*
 * forget_many against forgetting one id at a time, in rounds until none
 * goes (what the glue did), and against the model; the first refusal is
 * the model's first stuck id, named in the sentence.
 */
static void
gforget_case(const gstate *g)
{
	static gstate many,
				seq,
				next;
	uint8_t		ids[4 * GP][CC_ID_LEN];
	bool		in[GP] = {false},
				done[4 * GP] = {false};
	int			why[GP],
				who[4 * GP],
				count = (int) (fr() % (2 * GP + 1)),
				left,
				first = -1;
	cc_folded	v = gv(g);
	bool		changed,
				seq_ok = true;
	cc_error	err,
				serr;
	cc_code		code;

	for (int i = 0; i < count; i++)
	{
		who[i] = (int) (fr() % GP);
		if (g->nf > 0 && fr() % 3 != 0)
			who[i] = gwho(g->f + (fr() % g->nf) * CC_FOLD_SIZE);
		memcpy(ids[i], gid[who[i]], CC_ID_LEN);
		in[who[i]] = true;
	}
	memset(&many, 0, sizeof(many));
	code = cc_fold_forget_many(&v, &ids[0][0], (size_t) count, gwork, many.s,
							   &many.n, many.f, &many.nf, &changed, &err);
	if (code != CC_OK || !changed)
		many = *g;
	fm_cases++;

	/* one at a time */
	seq = *g;
	left = count;
	serr.code = CC_OK;
	while (left > 0)
	{
		bool		progress = false;

		serr.code = CC_OK;
		for (int i = 0; i < count; i++)
		{
			cc_folded	sv = gv(&seq);
			bool		ch;
			cc_error	e;

			if (done[i])
				continue;
			memset(&next, 0, sizeof(next));
			if (cc_fold_forget(&sv, ids[i], next.s, &next.n, next.f, &next.nf,
							   &ch, &e) != CC_OK)
			{
				if (serr.code == CC_OK)
					serr = e;
				continue;
			}
			if (ch)
				seq = next;
			done[i] = true;
			left--;
			progress = true;
		}
		if (!progress)
		{
			seq_ok = false;
			break;
		}
	}

	gforget_model(g, in, why);
	for (int i = 0; i < count && first < 0; i++)
		if (why[who[i]] != 0)
			first = i;
	if (first < 0)
	{
		/* the model: every record of the set gone */
		gstate		m = *g;

		m.nf = 0;
		for (size_t i = 0; i < g->nf; i++)
			if (!in[gwho(g->f + i * CC_FOLD_SIZE)])
				memcpy(m.f + m.nf++ * CC_FOLD_SIZE, g->f + i * CC_FOLD_SIZE, CC_FOLD_SIZE);
		if (code != CC_OK || !gsame(&many, &m) || changed != (m.nf != g->nf) ||
			!gcheck(&many))
			fm_fail++;
		else
			fm_ok++;
		if (seq_ok ? !gsame(&seq, &many) : !gcycle(g))
			fm_fail++;
		if (!seq_ok)
			fm_cycles++;
	}
	else
	{
		char		name[CC_UUID_TEXT_LEN + 1];
		static const char *const words[] = {"", "still has a shard", "not finished",
		"holds the fold"};

		cc_uuid_format(ids[first], name);
		if (code != CC_ERR_ARGUMENT || changed || seq_ok ||
			strstr(err.detail, name) == NULL ||
			strstr(err.detail, words[why[who[first]]]) == NULL)
		{
			if (fm_fail++ < 3)
				fprintf(stderr, "forget_many: code %d, \"%s\", expected %s for %s\n",
						(int) code, code ? err.detail : "", words[why[who[first]]], name);
		}
		else
			fm_refused++;
		if (serr.code != CC_ERR_ARGUMENT)
			fm_fail++;
	}
}

/*
 * strip_many of a set against cc_fold_strip() of each id in turn and
 * against a model of the cascade; every result passes cc_fold_check().
 */
static void
gstrip_case(const gstate *g)
{
	static gstate many,
				seq,
				next;
	uint8_t		ids[2 * GP][CC_ID_LEN];
	bool		in[GP] = {false},
				dead[GF] = {false},
				more = true;
	int			count = 0;
	cc_folded	v = gv(g);

	for (int k = 0; k < GP; k++)
		if (fr() % 4 == 0)
		{
			in[k] = true;
			memcpy(ids[count++], gid[k], CC_ID_LEN);
			if (fr() % 8 == 0)
				memcpy(ids[count++], gid[k], CC_ID_LEN);
		}
	/* ascending, as cc_fold_strip_many() takes them */
	for (int i = 1; i < count; i++)
		for (int j = i; j > 0 && cc_id_cmp(ids[j - 1], ids[j]) > 0; j--)
		{
			uint8_t		t[CC_ID_LEN];

			memcpy(t, ids[j], CC_ID_LEN);
			memcpy(ids[j], ids[j - 1], CC_ID_LEN);
			memcpy(ids[j - 1], t, CC_ID_LEN);
		}
	memset(&many, 0, sizeof(many));
	cc_fold_strip_many(&v, &ids[0][0], (size_t) count, gwork, many.s, &many.n,
					   many.f, &many.nf);
	seq = *g;
	for (int i = 0; i < count; i++)
	{
		cc_folded	sv = gv(&seq);

		memset(&next, 0, sizeof(next));
		cc_fold_strip(&sv, ids[i], gwork, next.s, &next.n, next.f, &next.nf);
		seq = next;
	}
	st_cases++;

	/* the model */
	for (size_t i = 0; i < g->nf; i++)
	{
		const unsigned char *p = g->f + i * CC_FOLD_SIZE;

		dead[i] = in[gwho(p)] || in[gwho(p + CC_ID_LEN)];
	}
	while (more)
	{
		more = false;
		for (size_t i = 0; i < g->nf; i++)
		{
			const unsigned char *t = g->f + i * CC_FOLD_SIZE + CC_ID_LEN;
			bool		held = false;
			cc_fold		f;

			if (dead[i])
				continue;
			cc_fold_load(g->f, i, &f);
			for (size_t j = 0; j < g->n; j++)
			{
				cc_shard	sh;

				cc_load(g->s, j, &sh);
				if (cc_id_eq(sh.id, t) && !in[gwho(t)] && sh.clock >= f.tclock)
					held = true;
			}
			for (size_t j = 0; j < g->nf; j++)
				if (!dead[j] && cc_id_eq(g->f + j * CC_FOLD_SIZE, t))
					held = true;
			if (!held)
			{
				dead[i] = true;
				more = true;
				st_cascade++;
			}
		}
	}
	{
		gstate		m;

		memset(&m, 0, sizeof(m));
		for (size_t j = 0; j < g->n; j++)
			if (!in[gwho(g->s + j * CC_SHARD_SIZE)])
				memcpy(m.s + m.n++ * CC_SHARD_SIZE, g->s + j * CC_SHARD_SIZE, CC_SHARD_SIZE);
		for (size_t i = 0; i < g->nf; i++)
			if (!dead[i])
				memcpy(m.f + m.nf++ * CC_FOLD_SIZE, g->f + i * CC_FOLD_SIZE, CC_FOLD_SIZE);
		if (!gsame(&many, &m) || !gsame(&seq, &m) || !gcheck(&many))
			st_fail++;
	}
}

/* Cycles made by folds on two or three servers at once, by hand. */
static void
test_cycles(void)
{
	static const char base[] =
		"{00000000-0000-4000-8000-00000000000a:1:10, "
		"00000000-0000-4000-8000-00000000000b:1:20, "
		"00000000-0000-4000-8000-00000000000c:1:30, "
		"00000000-0000-4000-8000-00000000000d:1:40}";
	unsigned char buf[64 * CC_SHARD_SIZE];
	uint8_t		w[4][CC_ID_LEN];
	gstate		g0,
				x[3],
				m,
				r;
	cc_folded	st,
				v;
	bool		tomb,
				changed;
	cc_error	err;
	char		text[4096];

	for (int k = 0; k < 4; k++)
	{
		char		idtext[] = "00000000-0000-4000-8000-00000000000a";

		idtext[35] = (char) ('a' + k);
		cc_uuid_parse(idtext, 36, w[k]);
		memcpy(gid[k], w[k], CC_ID_LEN);	/* gcycle() knows them */
	}
	memset(&g0, 0, sizeof(g0));
	CHECK(cc_parse_folded(NULL, base, sizeof(base) - 1, buf, &st, &tomb, NULL) == CC_OK);
	memcpy(g0.s, st.shards, st.n * CC_SHARD_SIZE);
	g0.n = st.n;

	/* A into B on B's server, B into C on C's, C into A on A's, at once */
	for (int i = 0; i < 3; i++)
	{
		v = gv(&g0);
		memset(&x[i], 0, sizeof(x[i]));
		CHECK(cc_fold_apply(&v, w[i], w[(i + 1) % 3], x[i].s, &x[i].n, x[i].f,
							&x[i].nf, &changed, NULL) == CC_OK && changed);
	}
	/* two of them merged: a chain; all three: a cycle, accepted, exact */
	m = x[0];
	for (int i = 1; i < 3; i++)
	{
		cc_folded	a = gv(&m),
					b = gv(&x[i]);
		gstate		t;

		memset(&t, 0, sizeof(t));
		cc_fold_merge(&a, &b, t.s, &t.n, t.f, &t.nf);
		m = t;
		CHECK(gcheck(&m) && gcycle(&m) == (i == 2));
	}
	v = gv(&m);
	{
		int64_t		wr,
					lo;

		cc_fold_total(&v, &wr, &lo);
		CHECK(m.nf == 3 && wr == 0 && lo == 100);
	}
	/* through the text form too */
	CHECK(cc_format_folded(NULL, &v, text) > 0);
	CHECK(cc_parse_folded(NULL, text, strlen(text), buf, &st, &tomb, &err) == CC_OK &&
		  st.nf == 3);

	/* D folds A, B and C, each finished; no one of them goes alone */
	r = m;
	for (int k = 0; k < 3; k++)
	{
		gstate		t;

		v = gv(&r);
		memset(&t, 0, sizeof(t));
		CHECK(cc_fold_apply(&v, w[k], w[3], t.s, &t.n, t.f, &t.nf, &changed, NULL) == CC_OK);
		if (changed)
			r = t;
	}
	v = gv(&r);
	CHECK(gcheck(&r) && r.n == 1);
	for (int k = 0; k < 3; k++)
	{
		gstate		t;

		CHECK(cc_fold_forget(&v, w[k], t.s, &t.n, t.f, &t.nf, &changed, &err) == CC_ERR_ARGUMENT &&
			  strstr(err.detail, "holds the fold") != NULL);
	}
	/* all three at once: the cycle goes, the total stays */
	{
		gstate		t;
		int64_t		wr,
					lo;

		memset(&t, 0, sizeof(t));
		CHECK(cc_fold_forget_many(&v, &w[0][0], 3, gwork, t.s, &t.n, t.f, &t.nf,
								  &changed, &err) == CC_OK && changed && t.nf == 0);
		v = gv(&t);
		cc_fold_total(&v, &wr, &lo);
		CHECK(wr == 0 && lo == 100 && gcheck(&t));
		/* two of the three: the third holds the cycle up */
		v = gv(&r);
		CHECK(cc_fold_forget_many(&v, &w[0][0], 2, gwork, t.s, &t.n, t.f, &t.nf,
								  &changed, &err) == CC_ERR_ARGUMENT && !changed);
	}

	/* the same by text: A>B, B>A as two servers' folds into each other make */
	{
		static const char lit[] =
			"{00000000-0000-4000-8000-00000000000a:2:30, 00000000-0000-4000-8000-00000000000b:2:30} "
			"folded {00000000-0000-4000-8000-00000000000a>00000000-0000-4000-8000-00000000000b:2:1:10:10, "
			"00000000-0000-4000-8000-00000000000b>00000000-0000-4000-8000-00000000000a:2:1:20:20}";

		CHECK(cc_parse_folded(NULL, lit, sizeof(lit) - 1, buf, &st, &tomb, &err) == CC_OK);
	}
}

/*
 * A record into a retired writer whose shard is older than the record's
 * tclock is accepted (a copy merged carelessly after a forget makes it);
 * stripping what keeps the writer retired drops the record too.
 */
static void
test_check_more(void)
{
	static const char ok[] =
		"{00000000-0000-4000-8000-00000000000b:3:30, 00000000-0000-4000-8000-00000000000c:2:30} "
		"folded {00000000-0000-4000-8000-00000000000a>00000000-0000-4000-8000-00000000000b:4:1:10:10, "
		"00000000-0000-4000-8000-00000000000b>00000000-0000-4000-8000-00000000000c:2:2:20:20}";
	char		bad[sizeof(ok)];
	unsigned char buf[64 * CC_SHARD_SIZE];
	cc_folded	st;
	gstate		t;
	uint8_t		c[CC_ID_LEN];
	bool		tomb;
	cc_error	err;
	char	   *p;

	CHECK(cc_parse_folded(NULL, ok, sizeof(ok) - 1, buf, &st, &tomb, &err) == CC_OK);
	cc_uuid_parse("00000000-0000-4000-8000-00000000000c", 36, c);
	cc_fold_strip(&st, c, gwork, t.s, &t.n, t.f, &t.nf);
	CHECK(t.n == 1 && t.nf == 0 && gcheck(&t));
	/* C is not retired: its shard must be at B>C's tclock */
	memcpy(bad, ok, sizeof(ok));
	p = strstr(bad, "c:2:2:20");
	p[2] = '3';
	CHECK(cc_parse_folded(NULL, bad, sizeof(bad) - 1, buf, &st, &tomb, &err) == CC_ERR_SYNTAX &&
		  strstr(err.detail, "tclock 3") != NULL);
}

/* forget with a shard; strip into a writer; by hand. */
static void
test_forget_strip_by_hand(void)
{
	static const char lit[] =
		"{00000000-0000-4000-8000-00000000000a:1:10, 00000000-0000-4000-8000-00000000000c:3:30}";
	static const char chain[] =
		"{00000000-0000-4000-8000-00000000000d:5:60} "
		"folded {00000000-0000-4000-8000-00000000000a>00000000-0000-4000-8000-00000000000b:2:1:10:10, "
		"00000000-0000-4000-8000-00000000000b>00000000-0000-4000-8000-00000000000c:2:2:20:20, "
		"00000000-0000-4000-8000-00000000000c>00000000-0000-4000-8000-00000000000d:5:2:60:60}";
	unsigned char buf[64 * CC_SHARD_SIZE];
	gstate		t;
	cc_folded	st;
	uint8_t		a[CC_ID_LEN],
				c[CC_ID_LEN],
				e[CC_ID_LEN];
	bool		tomb,
				changed = true;
	cc_error	err;

	cc_uuid_parse("00000000-0000-4000-8000-00000000000a", 36, a);
	cc_uuid_parse("00000000-0000-4000-8000-00000000000c", 36, c);
	cc_uuid_parse("00000000-0000-4000-8000-00000000000e", 36, e);
	CHECK(cc_parse_folded(NULL, lit, sizeof(lit) - 1, buf, &st, &tomb, NULL) == CC_OK);
	/* a's shard, no record: refused, alone or in a set */
	CHECK(cc_fold_forget(&st, a, t.s, &t.n, t.f, &t.nf, &changed, &err) == CC_ERR_ARGUMENT &&
		  !changed && strstr(err.detail, "still has a shard") != NULL);
	CHECK(cc_fold_forget_many(&st, a, 1, gwork, t.s, &t.n, t.f, &t.nf, &changed, &err) ==
		  CC_ERR_ARGUMENT && !changed);
	/* neither shard nor record: nothing to do */
	CHECK(cc_fold_forget(&st, e, t.s, &t.n, t.f, &t.nf, &changed, &err) == CC_OK && !changed);
	CHECK(cc_fold_forget_many(&st, e, 1, gwork, t.s, &t.n, t.f, &t.nf, &changed, &err) == CC_OK &&
		  !changed);

	/* stripping C from A>B>C>D: C>D and B>C go, then A>B (B is gone) */
	CHECK(cc_parse_folded(NULL, chain, sizeof(chain) - 1, buf, &st, &tomb, NULL) == CC_OK);
	cc_fold_strip(&st, c, gwork, t.s, &t.n, t.f, &t.nf);
	CHECK(t.n == 1 && t.nf == 0 && gcheck(&t));
	/* stripping A: B>C and C>D stay */
	cc_fold_strip(&st, a, gwork, t.s, &t.n, t.f, &t.nf);
	CHECK(t.n == 1 && t.nf == 2 && gcheck(&t));
}

/*
 * The shapes that were quadratic or cubic, at 10^5 records: checked,
 * forgotten in the order that takes most rounds one at a time, stripped.
 */
static void
test_big_shapes(void)
{
	const size_t k = 100000;
	unsigned char *shards = malloc(cc_test_shape_shards(k) * CC_SHARD_SIZE),
			   *folds = malloc(k * CC_FOLD_SIZE),
			   *out = malloc(cc_test_shape_shards(k) * CC_SHARD_SIZE),
			   *fout = malloc(k * CC_FOLD_SIZE);
	uint8_t    *ids = malloc(k * CC_ID_LEN);
	void	   *work = malloc(CC_FOLD_FORGET_MANY_WORK(k) + CC_FOLD_STRIP_WORK(k));

	for (int kind = CC_SHAPE_FLAT; kind <= CC_SHAPE_STAR; kind++)
	{
		cc_folded	st;
		size_t		nr,
					n,
					nf;
		bool		changed;
		cc_error	err;
		uint8_t		last[CC_ID_LEN];

		cc_test_shape((cc_test_shape_kind) kind, k, shards, folds, &st, ids, &nr);
		CHECKF(cc_fold_check(&st, CC_ERR_BINARY, &err) == CC_OK, "shape %d: %s", kind, err.detail);
		CHECKF(cc_fold_forget_many(&st, ids, nr, work, out, &n, fout, &nf, &changed, &err) == CC_OK &&
			   changed && nf == 0 && n == st.n, "shape %d: %s", kind, err.detail);
		/* without the last id (the chain's first writer, one A of the star) */
		CHECK(cc_fold_forget_many(&st, ids, nr - 1, work, out, &n, fout, &nf,
								  &changed, &err) == (kind == CC_SHAPE_FLAT ? CC_OK : CC_ERR_ARGUMENT));
		/* stripping the live end takes every record; the star's first C one */
		cc_test_shape_id(last, kind == CC_SHAPE_STAR ? k / 2 + 1 : k);
		cc_fold_strip(&st, last, work, out, &n, fout, &nf);
		CHECK(nf == (kind == CC_SHAPE_STAR ? k - 1 : 0));
		{
			cc_folded	o = {out, n, fout, nf};

			CHECK(cc_fold_check(&o, CC_ERR_BINARY, NULL) == CC_OK);
		}
	}
	free(shards);
	free(folds);
	free(out);
	free(fout);
	free(ids);
	free(work);
}

static void
test_forget_strip(long cases)
{
	gstate		g;

	test_cycles();
	test_check_more();
	test_forget_strip_by_hand();
	test_big_shapes();
	for (int k = 0; k < GP; k++)
		if (k < CC_EDGE_IDS && fr() % 2 == 0)
			memcpy(gid[k], cc_edge_ids[k], CC_ID_LEN);
		else
			for (int b = 0; b < CC_ID_LEN; b++)
				gid[k][b] = (uint8_t) fr();
	for (long i = 0; i < cases; i++)
	{
		gworld(&g);
		if (!gcheck(&g))
		{
			cc_folded	v = gv(&g);
			cc_error	err;

			err.detail[0] = 0;
			(void) cc_fold_check(&v, CC_ERR_BINARY, &err);
			if (fm_fail++ < 3)
				fprintf(stderr, "forget_strip: a world's state fails cc_fold_check: %s\n",
						err.detail);
			continue;
		}
		cy_seen += gcycle(&g);
		gforget_case(&g);
		gstrip_case(&g);
	}
	/* strip of the states the form tests use */
	for (long i = 0; i < cases / 4; i++)
	{
		cc_test_folded tf;
		gstate		o;
		cc_folded	v;
		uint8_t		id[CC_ID_LEN];

		cc_test_random_folded(&frng, &tf);
		v = cc_test_folded_view(&tf);
		memcpy(id, (fr() & 1) ? tf.f + (fr() % tf.nf) * CC_FOLD_SIZE + (fr() & 1) * CC_ID_LEN
			   : tf.s + (fr() % (tf.n ? tf.n : 1)) * CC_SHARD_SIZE, CC_ID_LEN);
		{
			static size_t w[CC_FOLD_STRIP_WORK(CC_TF_FOLDS) / sizeof(size_t) + 1];
			static unsigned char s2[CC_TF_SHARDS * CC_SHARD_SIZE],
						f2[CC_TF_FOLDS * CC_FOLD_SIZE];
			cc_folded	r;

			cc_fold_strip(&v, id, w, s2, &r.n, f2, &r.nf);
			r.shards = s2;
			r.folds = f2;
			if (cc_fold_check(&r, CC_ERR_BINARY, NULL) != CC_OK)
				st_fail++;
			st_cases++;
		}
		(void) o;
	}
	printf("fold: forget_many %ld sets: %ld forgotten (%ld of them cycles one at a time cannot), "
		   "%ld refused; strip %ld cases, %ld records dropped by the cascade; %ld worlds with cycles\n",
		   fm_cases, fm_ok, fm_cycles, fm_refused, st_cases, st_cascade, cy_seen);
	CHECKF(fm_fail == 0, "%ld forget_many cases off", fm_fail);
	CHECKF(st_fail == 0, "%ld strip cases off", st_fail);
}

void
test_fold(long cases)
{
	const char *seed_env = getenv("CC_TEST_SEED");

	frng = seed_env ? strtoull(seed_env, NULL, 0) : 0xf01dULL;
	test_by_hand();
	test_slips();

	/* the edge ids of the orderings, and random ones */
	for (int k = 0; k < NW; k++)
	{
		if (k < CC_EDGE_IDS)
			memcpy(id_pool[k], cc_edge_ids[k], CC_ID_LEN);
		else
			for (int b = 0; b < CC_ID_LEN; b++)
				id_pool[k][b] = (uint8_t) fr();
	}
	for (long i = 0; i < cases; i++)
		schedule();
	test_forget_strip(cases / 5 > 100000 ? cases / 5 : cases);
	printf("fold: %ld schedules: %ld folds (%ld leaving a count to take or give back), "
		   "%ld with two targets of one writer, %ld retired writes refused, "
		   "%ld records forgotten, %ld copies stripped, %ld folds refused as leaving bigint\n",
		   cases, s_folds, s_giveback, s_conflict, s_retired_write,
		   s_forgotten, s_stripped, s_too_big);
	(void) s_late_shard;
	CHECKF(f_canon == 0, "%ld states not canonical", f_canon);
	CHECKF(f_difference == 0, "%ld differences that do not ship what merge adds", f_difference);
	CHECKF(f_order == 0, "%ld pairs out of order", f_order);
	CHECKF(f_stored == 0, "%ld states not kept by the stored form", f_stored);
	CHECKF(f_total == 0, "%ld states whose total is not what they have seen", f_total);
	CHECKF(f_fold == 0, "%ld folds that changed the total or kept the shard", f_fold);
	CHECKF(f_merge_order == 0, "%ld meshes that converge to other states in other orders", f_merge_order);
	CHECKF(f_idem == 0, "%ld states that change when merged with themselves", f_idem);
	CHECKF(f_finished == 0, "%ld departed writers left unfinished after folding", f_finished);
	CHECKF(f_converged == 0, "%ld converged totals off", f_converged);
	CHECKF(f_late == 0, "%ld late copies that changed a total", f_late);
	CHECKF(f_forgotten == 0, "%ld totals off after forgetting", f_forgotten);
	CHECKF(f_live == 0, "%ld writer sets not back to the live ids", f_live);
}
