/*
 * core_fold_many.c
 *	  cc_fold_many() against its definition: cc_fold_apply() of each id in
 *	  turn.  Cases by hand (an empty list, one id, the refusals, each
 *	  overflow, an order that changes who holds a writer), then random
 *	  states of servers that folded into each other, each with random id
 *	  lists (ids present and not, repeats, the target itself, ids that are
 *	  targets of others) in the order given and reversed, then the large
 *	  shapes of cc_test_shapes.h.  Every result must be the same bytes, the
 *	  same changed flag, or the same refusal with the same sentence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_fold.h"
#include "cc_test.h"
#include "cc_test_folds.h"
#include "cc_test_shapes.h"
#include "cc_test_states.h"

static uint64_t mrng;

static uint64_t
mr(void)
{
	return cc_test_splitmix(&mrng);
}

static long m_cases,
			m_changed,
			m_refused,
			m_overflow,
			m_order,
			m_fail;

/* The definition: cc_fold_apply() of each id in turn, as the glue ran it. */
static cc_code
fold_seq(const cc_folded *s, const uint8_t *ids, size_t count,
		 const uint8_t *t, unsigned char *out, size_t *nout,
		 unsigned char *fout, size_t *nfout, bool *changed, cc_error *err)
{
	unsigned char *sb[2],
			   *fb[2];
	cc_folded	cur = *s;
	int			side = 0;
	cc_code		code = CC_OK;

	*changed = false;
	for (int i = 0; i < 2; i++)
	{
		sb[i] = malloc((s->n + count + 1) * CC_SHARD_SIZE);
		fb[i] = malloc((s->nf + count + 1) * CC_FOLD_SIZE);
	}
	for (size_t i = 0; i < count && code == CC_OK; i++)
	{
		size_t		n,
					nf;
		bool		ch;

		code = cc_fold_apply(&cur, ids + i * CC_ID_LEN, t, sb[side], &n,
							 fb[side], &nf, &ch, err);
		if (code == CC_OK && ch)
		{
			cur.shards = sb[side];
			cur.n = n;
			cur.folds = fb[side];
			cur.nf = nf;
			side = 1 - side;
			*changed = true;
		}
	}
	if (code != CC_OK)
		*changed = false;
	else if (*changed)
	{
		memcpy(out, cur.shards, cur.n * CC_SHARD_SIZE);
		memcpy(fout, cur.folds, cur.nf * CC_FOLD_SIZE);
		*nout = cur.n;
		*nfout = cur.nf;
	}
	for (int i = 0; i < 2; i++)
	{
		free(sb[i]);
		free(fb[i]);
	}
	return code;
}

/* The result of one way: the code, its sentence, the state when changed. */
typedef struct mresult
{
	cc_code		code;
	bool		changed;
	cc_error	err;
	unsigned char *s;
	size_t		n;
	unsigned char *f;
	size_t		nf;
} mresult;

static void
mrun(const cc_folded *v, const uint8_t *ids, size_t count, const uint8_t *t,
	 bool one_pass, mresult *r)
{
	/* exactly the room cc_fold_many() is promised, for the sanitizer */
	r->s = malloc((v->n + 1) * CC_SHARD_SIZE);
	r->f = malloc((v->nf + count > 0 ? v->nf + count : 1) * CC_FOLD_SIZE);
	r->n = r->nf = 0;
	memset(&r->err, 0, sizeof(r->err));
	if (one_pass)
	{
		void	   *work = malloc(CC_FOLD_MANY_WORK(count, v->nf));

		r->code = cc_fold_many(v, ids, count, t, work, r->s, &r->n, r->f,
							   &r->nf, &r->changed, &r->err);
		free(work);
	}
	else
		r->code = fold_seq(v, ids, count, t, r->s, &r->n, r->f, &r->nf,
						   &r->changed, &r->err);
}

static void
mfree(mresult *r)
{
	free(r->s);
	free(r->f);
}

static bool
msame(const mresult *a, const mresult *b)
{
	if (a->code != b->code)
		return false;
	if (a->code != CC_OK)
		return strcmp(a->err.detail, b->err.detail) == 0 && !a->changed && !b->changed;
	if (a->changed != b->changed)
		return false;
	return !a->changed ||
		(a->n == b->n && a->nf == b->nf &&
		 memcmp(a->s, b->s, a->n * CC_SHARD_SIZE) == 0 &&
		 memcmp(a->f, b->f, a->nf * CC_FOLD_SIZE) == 0);
}

static void
mdump(const cc_folded *v, const uint8_t *ids, size_t count, const uint8_t *t,
	  const mresult *seq, const mresult *one)
{
	char		u[CC_UUID_TEXT_LEN + 1];

	cc_uuid_format(t, u);
	fprintf(stderr, "fold_many: target %s, %zu shards, %zu records, ids", u, v->n, v->nf);
	for (size_t i = 0; i < count; i++)
	{
		cc_uuid_format(ids + i * CC_ID_LEN, u);
		fprintf(stderr, " %.8s", u);
	}
	fprintf(stderr, "\n  sequential: code %d changed %d \"%s\" n %zu nf %zu"
			"\n  one pass:   code %d changed %d \"%s\" n %zu nf %zu\n",
			seq->code, seq->changed, seq->err.detail, seq->n, seq->nf,
			one->code, one->changed, one->err.detail, one->n, one->nf);
}

/*
 * One case both ways; the one-pass result must equal the sequential one,
 * and pass cc_fold_check() when the input does.  Returns whether they
 * agree; *seq_out, when given, gets the sequential result (the caller
 * frees it).
 */
static bool
mcase(const cc_folded *v, const uint8_t *ids, size_t count, const uint8_t *t,
	  mresult *seq_out)
{
	mresult		seq,
				one;
	bool		same;

	mrun(v, ids, count, t, false, &seq);
	mrun(v, ids, count, t, true, &one);
	same = msame(&seq, &one);
	m_cases++;
	if (seq.code == CC_ERR_OVERFLOW)
		m_overflow++;
	else if (seq.code != CC_OK)
		m_refused++;
	else if (seq.changed)
		m_changed++;
	if (same && one.code == CC_OK && one.changed &&
		cc_fold_check(v, CC_ERR_BINARY, NULL) == CC_OK)
	{
		cc_folded	o = {one.s, one.n, one.f, one.nf};

		same = cc_check_canonical(one.s, one.n, CC_ERR_BINARY, NULL) == CC_OK &&
			cc_fold_check(&o, CC_ERR_BINARY, NULL) == CC_OK;
	}
	if (!same && m_fail++ < 5)
		mdump(v, ids, count, t, &seq, &one);
	mfree(&one);
	if (seq_out)
		*seq_out = seq;
	else
		mfree(&seq);
	return same;
}

/* ------------------------------------------------------------ by hand */

#define MH 8

typedef struct mhand
{
	unsigned char s[MH * CC_SHARD_SIZE];
	size_t		n;
	unsigned char f[MH * CC_FOLD_SIZE];
	size_t		nf;
} mhand;

/* Writers ordered by id: W(0) < W(1) < ... */
static void
W(int j, uint8_t *id)
{
	cc_test_shape_id(id, (size_t) j);
}

static void
hshard(mhand *h, int j, int64_t clock, int64_t value)
{
	cc_shard	sh;

	W(j, sh.id);
	sh.clock = clock;
	sh.value = value;
	cc_store(h->s, h->n++, &sh);
}

static void
hrec(mhand *h, int a, int t, int64_t tclock, int64_t aclock, int64_t avalue,
	 int64_t absorbed)
{
	uint8_t		ia[CC_ID_LEN],
				it[CC_ID_LEN];
	cc_fold		f;

	W(a, ia);
	W(t, it);
	f = cc_test_fold_record(ia, it, tclock, aclock, avalue, absorbed);
	cc_fold_store(h->f, h->nf++, &f);
}

static cc_folded
hview(const mhand *h)
{
	cc_folded	v = {h->s, h->n, h->f, h->nf};

	return v;
}

/* ids W(list[0]), W(list[1]), ... into W(t); the sequential result in *r */
static bool
hcase(const mhand *h, const int *list, size_t count, int t, mresult *r)
{
	uint8_t		ids[16 * CC_ID_LEN],
				it[CC_ID_LEN];
	cc_folded	v = hview(h);
	mresult		seq;
	bool		same;

	for (size_t i = 0; i < count; i++)
		W(list[i], ids + i * CC_ID_LEN);
	W(t, it);
	same = mcase(&v, ids, count, it, &seq);
	if (r)
		*r = seq;
	else
		mfree(&seq);
	return same;
}

/* The value of writer W(j)'s shard in a result, or INT64_MIN. */
static int64_t
hvalue(const mresult *r, int j)
{
	uint8_t		id[CC_ID_LEN];

	W(j, id);
	for (size_t i = 0; i < r->n; i++)
	{
		cc_shard	sh;

		cc_load(r->s, i, &sh);
		if (cc_id_eq(sh.id, id))
			return sh.value;
	}
	return INT64_MIN;
}

/* The avalue of the record into W(t) in a result, or INT64_MIN. */
static int64_t
hrec_avalue(const mresult *r, int t)
{
	uint8_t		id[CC_ID_LEN];

	W(t, id);
	for (size_t i = 0; i < r->nf; i++)
	{
		cc_fold		f;

		cc_fold_load(r->f, i, &f);
		if (cc_id_eq(f.target, id))
			return f.avalue;
	}
	return INT64_MIN;
}

static void
test_by_hand(void)
{
	mhand		h;
	mresult		r,
				r2;
	bool		ok,
				ok2;

	/* W1 live with a shard, W2 live; W3 retired into W1 */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 3, 10);
	hshard(&h, 2, 2, 5);
	hshard(&h, 4, 1, 7);
	hrec(&h, 3, 1, 3, 2, 4, 4);

	/* an empty list: nothing, the state as it is */
	CHECK(hcase(&h, NULL, 0, 2, &r) && r.code == CC_OK && !r.changed);
	mfree(&r);
	/* an empty list into a retired target: nothing either */
	CHECK(hcase(&h, NULL, 0, 3, &r) && r.code == CC_OK && !r.changed);
	mfree(&r);
	/* one id: cc_fold_apply() itself */
	CHECK(hcase(&h, (int[]) {4}, 1, 2, &r) && r.code == CC_OK && r.changed &&
		  r.n == 2 && r.nf == 2);
	mfree(&r);
	/* ids not in the counter: nothing */
	CHECK(hcase(&h, (int[]) {6, 7, 6}, 3, 2, &r) && r.code == CC_OK && !r.changed);
	mfree(&r);
	/* a repeat is a fold run twice: nothing more */
	ok = hcase(&h, (int[]) {4}, 1, 2, &r);
	ok2 = hcase(&h, (int[]) {4, 4, 4}, 3, 2, &r2);
	CHECK(ok && ok2 && r2.changed && r.n == r2.n && r.nf == r2.nf &&
		  memcmp(r.f, r2.f, r.nf * CC_FOLD_SIZE) == 0);
	mfree(&r);
	mfree(&r2);

	/* the own id: refused wherever it stands, nothing written */
	CHECK(hcase(&h, (int[]) {2}, 1, 2, &r) && r.code == CC_ERR_ARGUMENT &&
		  strstr(r.err.detail, "into itself") != NULL);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {4, 1, 2}, 3, 2, &r) && r.code == CC_ERR_ARGUMENT &&
		  strstr(r.err.detail, "into itself") != NULL);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {6, 2}, 2, 2, &r) && r.code == CC_ERR_ARGUMENT);
	mfree(&r);
	/* a retired target: refused at the first id, even one not there */
	CHECK(hcase(&h, (int[]) {6}, 1, 3, &r) && r.code == CC_ERR_ARGUMENT &&
		  strstr(r.err.detail, "itself retired") != NULL);
	mfree(&r);
	/* the own id first, in a retired target: the own-id sentence */
	CHECK(hcase(&h, (int[]) {3, 4}, 2, 3, &r) && r.code == CC_ERR_ARGUMENT &&
		  strstr(r.err.detail, "into itself") != NULL);
	mfree(&r);

	/*
	 * The order decides the holder: W5 retired into W1 and W6 (both live)
	 * and wrote again since (its shard, 3 more).  Folding W5 into W2, W1
	 * holds it (a lower id) until W1 itself is folded; after that W2 does
	 * (W6 is above it) and takes the 3.  [1, 5] and [5, 1] differ.
	 */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 5, 10);
	hshard(&h, 5, 7, 12);
	hshard(&h, 6, 5, 20);
	hshard(&h, 7, 1, 0);
	hrec(&h, 5, 1, 5, 3, 9, 9);
	hrec(&h, 5, 6, 5, 3, 9, 0);
	ok = hcase(&h, (int[]) {1, 5}, 2, 2, &r);
	ok2 = hcase(&h, (int[]) {5, 1}, 2, 2, &r2);
	CHECK(ok && ok2 && r.code == CC_OK && r2.code == CC_OK && r.changed &&
		  r2.changed && r.n == 3 && r2.n == 4 && r.nf == 4 && r2.nf == 3);
	mfree(&r);
	mfree(&r2);
	/* W5 alone gives nothing, its shard kept (W1 holds it) */
	CHECK(hcase(&h, (int[]) {5}, 1, 2, &r) && r.code == CC_OK && !r.changed);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {5}, 1, 7, &r) && r.code == CC_OK && !r.changed);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {1, 5, 6, 5, 1}, 5, 7, NULL));
	CHECK(hcase(&h, (int[]) {6, 5, 1, 5}, 4, 7, NULL));
	/* a target above the live ones gives back; W0, below both, holds */
	CHECK(hcase(&h, (int[]) {5, 6, 1, 5}, 4, 0, NULL));
	CHECK(hcase(&h, (int[]) {6, 5}, 2, 0, NULL));
	/* a target between W1 and W6: W6's retirement does not move it */
	CHECK(hcase(&h, (int[]) {6, 5}, 2, 2, NULL));
	CHECK(hcase(&h, (int[]) {1, 5}, 2, 2, NULL));

	/* a target that holds a record already gives it back, then takes again */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 5, 10);
	hshard(&h, 3, 4, 6);
	hrec(&h, 2, 1, 5, 1, 9, 4);
	hrec(&h, 2, 3, 4, 1, 9, 5);
	CHECK(hcase(&h, (int[]) {2}, 1, 3, &r) && r.code == CC_OK && r.changed);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {2, 1, 2}, 3, 3, &r) && r.code == CC_OK && r.changed);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {1, 2}, 2, 3, NULL));

	/* overflow: the target's clock */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 1, 3);
	hshard(&h, 2, 1, 4);
	hshard(&h, 3, INT64_MAX - 1, 0);
	CHECK(hcase(&h, (int[]) {1}, 1, 3, &r) && r.code == CC_OK && r.changed);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {1, 2}, 2, 3, &r) && r.code == CC_ERR_OVERFLOW &&
		  strstr(r.err.detail, "clock") != NULL);
	mfree(&r);
	/* the target's value */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 1, INT64_MAX);
	hshard(&h, 2, 1, 1);
	hshard(&h, 3, 1, 0);
	CHECK(hcase(&h, (int[]) {1, 2}, 2, 3, &r) && r.code == CC_ERR_OVERFLOW &&
		  strstr(r.err.detail, "target's value") != NULL);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {2, 1}, 2, 3, &r) && r.code == CC_ERR_OVERFLOW);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {1, 4, 1}, 3, 3, &r) && r.code == CC_OK && r.changed);
	mfree(&r);

	/*
	 * The count to fold, over the sum of what retired targets hold: W1
	 * retired into W2 and W3, both retired into W4; what W2 and W3 hold of
	 * W1 sums past bigint.
	 */
	memset(&h, 0, sizeof(h));
	hshard(&h, 4, 9, 0);
	hshard(&h, 5, 1, 0);
	hrec(&h, 1, 2, 2, 1, -2, INT64_MAX);
	hrec(&h, 1, 3, 2, 1, -2, INT64_MAX);
	hrec(&h, 2, 4, 9, 2, 0, 0);
	hrec(&h, 3, 4, 9, 2, 0, 0);
	CHECK(hcase(&h, (int[]) {1}, 1, 5, &r) && r.code == CC_ERR_OVERFLOW &&
		  strstr(r.err.detail, "count to fold") != NULL);
	mfree(&r);
	/* ... and a sum that leaves bigint on the way and comes back: it fits */
	memset(&h, 0, sizeof(h));
	hshard(&h, 5, 1, 0);
	hshard(&h, 6, 9, 0);
	hrec(&h, 1, 2, 2, 1, 0, INT64_MAX);
	hrec(&h, 1, 3, 2, 1, 0, INT64_MAX);
	hrec(&h, 1, 4, 2, 1, 0, INT64_MIN);
	hrec(&h, 2, 6, 9, 2, 0, 0);
	hrec(&h, 3, 6, 9, 2, 0, 0);
	hrec(&h, 4, 6, 9, 2, 0, 0);
	CHECK(hcase(&h, (int[]) {1}, 1, 5, &r) && r.code == CC_OK && r.changed &&
		  r.nf == 7);
	mfree(&r);
	/* the same sum reached by folding W2 and W3 first (live until then) */
	memset(&h, 0, sizeof(h));
	hshard(&h, 2, 2, 0);
	hshard(&h, 3, 2, 0);
	hshard(&h, 5, 1, 0);
	hrec(&h, 1, 2, 2, 1, -2, INT64_MAX);
	hrec(&h, 1, 3, 2, 1, -2, INT64_MAX);
	CHECK(hcase(&h, (int[]) {1}, 1, 5, &r) && r.code == CC_OK && !r.changed);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {2, 3, 1}, 3, 5, &r) && r.code == CC_ERR_OVERFLOW &&
		  strstr(r.err.detail, "count to fold") != NULL);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {2, 1}, 2, 5, &r) && r.code == CC_OK);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {2, 1}, 2, 0, NULL));
	CHECK(hcase(&h, (int[]) {3, 2, 1, 3}, 4, 0, NULL));

	/* the count to give back: a non-holder target holding INT64_MIN */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 5, 0);
	hshard(&h, 3, 5, 0);
	hrec(&h, 2, 1, 5, 1, 0, 0);
	hrec(&h, 2, 3, 5, 1, 0, INT64_MIN);
	CHECK(hcase(&h, (int[]) {2}, 1, 3, &r) && r.code == CC_ERR_OVERFLOW &&
		  strstr(r.err.detail, "give back") != NULL);
	mfree(&r);
	/* with W1 folded first, W3 holds W2: 0 - INT64_MIN to take */
	CHECK(hcase(&h, (int[]) {1, 2}, 2, 3, &r) && r.code == CC_ERR_OVERFLOW &&
		  strstr(r.err.detail, "count to fold") != NULL);
	mfree(&r);
	/*
	 * the folded count: W2 holds INT64_MIN in retired W4, 1 in W3; W3
	 * taking the rest takes INT64_MAX (which fits), holding 2^63 after
	 */
	memset(&h, 0, sizeof(h));
	hshard(&h, 3, 5, -100);
	hshard(&h, 5, 9, 0);
	hrec(&h, 2, 3, 5, 1, 0, 1);
	hrec(&h, 2, 4, 5, 1, 0, INT64_MIN);
	hrec(&h, 4, 5, 9, 1, 0, 0);
	CHECK(hcase(&h, (int[]) {2}, 1, 3, &r) && r.code == CC_ERR_OVERFLOW &&
		  strstr(r.err.detail, "folded count") != NULL);
	mfree(&r);
	/* into W6: W3, live and lower, holds W2; nothing to do */
	CHECK(hcase(&h, (int[]) {2}, 1, 6, &r) && r.code == CC_OK && !r.changed);
	mfree(&r);

	/* the latest of the records: equal aclocks, the higher avalue */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 5, 0);
	hshard(&h, 3, 5, 0);
	hshard(&h, 4, 5, 0);
	hrec(&h, 2, 1, 5, 4, 7, 0);
	hrec(&h, 2, 3, 5, 4, 8, 3);
	hrec(&h, 2, 4, 5, 3, 9, 0);
	/* W0 holds W2 and takes its count, 8 as of aclock 4 (not 7, not 9) */
	CHECK(hcase(&h, (int[]) {2}, 1, 0, &r) && r.code == CC_OK && r.changed &&
		  hvalue(&r, 0) == 8 && r.nf == 4 && hrec_avalue(&r, 0) == 8);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {2}, 1, 5, NULL));
	CHECK(hcase(&h, (int[]) {1, 2}, 2, 3, NULL));
	CHECK(hcase(&h, (int[]) {3, 2, 1, 2}, 4, 5, NULL));
	CHECK(hcase(&h, (int[]) {3, 4, 2}, 3, 0, NULL));
	/*
	 * a record into the target alone and a count outstanding (the records
	 * into another target stripped): the target takes the rest, 5 - 3
	 */
	memset(&h, 0, sizeof(h));
	hshard(&h, 3, 5, 3);
	hrec(&h, 2, 3, 5, 4, 5, 3);
	CHECK(hcase(&h, (int[]) {2}, 1, 3, &r) && r.code == CC_OK && r.changed &&
		  hvalue(&r, 3) == 5 && r.nf == 1);
	mfree(&r);
	CHECK(hcase(&h, (int[]) {2, 2, 4}, 3, 3, NULL));

	/* a retired writer's shard newer than its records, kept */
	memset(&h, 0, sizeof(h));
	hshard(&h, 1, 5, 0);
	hshard(&h, 2, 7, 11);
	hshard(&h, 3, 5, 0);
	hrec(&h, 2, 1, 5, 4, 7, 2);
	hrec(&h, 2, 3, 5, 4, 7, 5);
	CHECK(hcase(&h, (int[]) {2}, 1, 0, NULL));
	CHECK(hcase(&h, (int[]) {2, 2}, 2, 3, NULL));
	CHECK(hcase(&h, (int[]) {1, 2, 1}, 3, 3, NULL));
	CHECK(hcase(&h, (int[]) {3, 2}, 2, 4, NULL));
	CHECK(hcase(&h, (int[]) {2, 3, 1, 2}, 4, 4, NULL));
}

/* ------------------------------------------------------------ random */

#define MP 8					/* writers of a generated world */
#define MS (MP + 2)
#define MF (MP * MP)

typedef struct mstate
{
	unsigned char s[MS * CC_SHARD_SIZE];
	size_t		n;
	unsigned char f[MF * CC_FOLD_SIZE];
	size_t		nf;
} mstate;

static uint8_t mpool[MP][CC_ID_LEN];

static cc_folded
mv(const mstate *m)
{
	cc_folded	v = {m->s, m->n, m->f, m->nf};

	return v;
}

/* Writers' ids for one world: edge ids and random ones, distinct. */
static void
mpick_pool(void)
{
	int			order[CC_EDGE_IDS];

	for (int i = 0; i < CC_EDGE_IDS; i++)
		order[i] = i;
	for (int i = CC_EDGE_IDS - 1; i > 0; i--)
	{
		int			j = (int) (mr() % (uint64_t) (i + 1)),
					x = order[i];

		order[i] = order[j];
		order[j] = x;
	}
	for (int k = 0; k < MP; k++)
		if (k < 5 && mr() % 3 != 0)
			memcpy(mpool[k], cc_edge_ids[order[k]], CC_ID_LEN);
		else
			for (int b = 0; b < CC_ID_LEN; b++)
				mpool[k][b] = (uint8_t) mr();
}

static int64_t
mvalue(void)
{
	static const int64_t edges[] = {0, 1, -1, INT64_MAX, INT64_MIN,
		INT64_MAX - 1, INT64_MIN + 1, 100};

	return mr() % 8 == 0 ? edges[mr() % 8] : (int64_t) (mr() % 21) - 10;
}

/* A starting shard's clock and value in mworld(): bigint's edge now and then. */
static void
mstart_shard(cc_shard *sh)
{
	sh->clock = mr() % 16 == 0 ? INT64_MAX - (int64_t) (mr() % 3)
		: 1 + (int64_t) (mr() % 3);
	sh->value = mvalue();
}

/*
 * A state three servers reach from one set of shards: each increments its
 * writer, folds any writer into its own (two servers folding one writer
 * into two targets, or each other's writers: records into live targets
 * and into retired ones), merges another's value, and now and then takes
 * a new writer id; then two of them merge.
 */
static void
mworld(mstate *out)
{
	static mstate srv[3],
				next;
	int			writer[3];
	int			steps = 2 + (int) (mr() % 20);

	mpick_pool();
	memset(&srv[0], 0, sizeof(mstate));
	cc_test_world_start(&mrng, (const uint8_t *) mpool, MP, 4,
						mstart_shard, srv[0].s, &srv[0].n, writer);
	srv[1] = srv[2] = srv[0];
	for (int step = 0; step < steps; step++)
	{
		int			i = (int) (mr() % 3),
					j = (int) (mr() % 3),
					k = (int) (mr() % MP);
		cc_folded	v = mv(&srv[i]),
					w = mv(&srv[j]);
		bool		changed = false;
		unsigned	op = (unsigned) (mr() % 100);

		memset(&next, 0, sizeof(next));
		if (op < 20)
		{
			if (srv[i].n < MS &&
				cc_fold_increment(&v, mpool[writer[i]], mvalue(), false,
								  next.s, &next.n, NULL) == CC_OK)
			{
				memcpy(next.f, srv[i].f, srv[i].nf * CC_FOLD_SIZE);
				next.nf = srv[i].nf;
				changed = true;
			}
		}
		else if (op < 65)
			changed = srv[i].n < MS && srv[i].nf < MF &&
				cc_fold_apply(&v, mpool[k], mpool[writer[i]], next.s, &next.n,
							  next.f, &next.nf, &changed, NULL) == CC_OK && changed;
		else if (op < 92)
		{
			if (srv[i].n + srv[j].n <= MS && srv[i].nf + srv[j].nf <= MF)
			{
				cc_fold_merge(&v, &w, next.s, &next.n, next.f, &next.nf);
				changed = true;
			}
		}
		else
			writer[i] = (int) (mr() % MP);
		if (changed)
			srv[i] = next;
	}
	{
		int			i = (int) (mr() % 3),
					j = (int) (mr() % 3);
		cc_folded	a = mv(&srv[i]),
					b = mv(&srv[j]);

		memset(out, 0, sizeof(*out));
		if (srv[i].n + srv[j].n <= MS && srv[i].nf + srv[j].nf <= MF)
			cc_fold_merge(&a, &b, out->s, &out->n, out->f, &out->nf);
		else
			*out = srv[i];
	}
}

/* A random id list for state v and target t, into ids (room for 24). */
static size_t
mlist(const cc_folded *v, const uint8_t *t, uint8_t *ids)
{
	size_t		count = (size_t) (mr() % 13);

	if (mr() % 16 == 0)
		count = 13 + (size_t) (mr() % 12);
	for (size_t i = 0; i < count; i++)
	{
		uint8_t    *id = ids + i * CC_ID_LEN;
		unsigned	r = (unsigned) (mr() % 100);

		if (r < 1)
			memcpy(id, t, CC_ID_LEN);
		else if (r < 15 && i > 0)
			memcpy(id, ids + (mr() % i) * CC_ID_LEN, CC_ID_LEN);
		else if (r < 25 && v->nf > 0)
			/* a retired writer or a target of a record */
			memcpy(id, v->folds + (mr() % v->nf) * CC_FOLD_SIZE +
				   (mr() % 2) * CC_ID_LEN, CC_ID_LEN);
		else if (r < 35 && v->n > 0)
			memcpy(id, v->shards + (mr() % v->n) * CC_SHARD_SIZE, CC_ID_LEN);
		else if (r < 42)
			for (int b = 0; b < CC_ID_LEN; b++)
				id[b] = (uint8_t) mr();		/* not in the counter */
		else
			memcpy(id, mpool[mr() % MP], CC_ID_LEN);
		/* the target itself mostly only by the first branch */
		if (r >= 1 && cc_id_eq(id, t) && mr() % 8 != 0)
			id[CC_ID_LEN - 1] ^= 0x5a;
	}
	return count;
}

/* A target: mostly a live writer with a shard, now and then any id. */
static void
mtarget(const cc_folded *v, uint8_t *t)
{
	unsigned	r = (unsigned) (mr() % 10);

	if (r < 7 && v->n > 0)
	{
		/* a few tries for one that is not retired */
		for (int tries = 0; tries < 4; tries++)
		{
			memcpy(t, v->shards + (mr() % v->n) * CC_SHARD_SIZE, CC_ID_LEN);
			if (!cc_fold_is_retired(v->folds, v->nf, t))
				break;
		}
	}
	else if (r < 9)
		memcpy(t, mpool[mr() % MP], CC_ID_LEN);
	else
		for (int b = 0; b < CC_ID_LEN; b++)
			t[b] = (uint8_t) mr();
}

/* The case in the order given and reversed. */
static void
mboth(const cc_folded *v, const uint8_t *ids, size_t count, const uint8_t *t)
{
	uint8_t		rev[24 * CC_ID_LEN];
	mresult		a,
				b;

	for (size_t i = 0; i < count; i++)
		memcpy(rev + i * CC_ID_LEN, ids + (count - 1 - i) * CC_ID_LEN, CC_ID_LEN);
	mcase(v, ids, count, t, &a);
	mcase(v, rev, count, t, &b);
	if (a.code == CC_OK && b.code == CC_OK && !msame(&a, &b))
		m_order++;
	mfree(&a);
	mfree(&b);
}

/* The large shapes: every retired writer, and every writer, in turn. */
static void
test_big(void)
{
	const size_t k = 10000;
	unsigned char *shards = malloc(cc_test_shape_shards(k) * CC_SHARD_SIZE),
			   *folds = malloc(k * CC_FOLD_SIZE);
	uint8_t    *ids = malloc(k * CC_ID_LEN),
			   *all = malloc(2 * k * CC_ID_LEN);

	for (int kind = CC_SHAPE_FLAT; kind <= CC_SHAPE_STAR; kind++)
	{
		cc_folded	st;
		size_t		nr;
		uint8_t		t[CC_ID_LEN];

		cc_test_shape((cc_test_shape_kind) kind, k, shards, folds, &st, ids, &nr);
		/* into a new writer above them all; into the lowest live one */
		cc_test_shape_id(t, 4 * k);
		CHECK(mcase(&st, ids, 200, t, NULL));
		for (size_t j = 0; j < 300; j++)
			cc_test_shape_id(all + j * CC_ID_LEN, (j * 7919) % (k + k / 2));
		CHECK(mcase(&st, all, 300, t, NULL));
		memcpy(t, st.shards, CC_ID_LEN);
		CHECK(mcase(&st, all, 300, t, NULL));
		/* a new writer below them all */
		memset(t, 0, CC_ID_LEN);
		CHECK(mcase(&st, all, 300, t, NULL));
	}
	free(shards);
	free(folds);
	free(ids);
	free(all);
}

void
test_fold_many(long cases)
{
	const char *seed_env = getenv("CC_TEST_SEED");
	uint8_t		ids[24 * CC_ID_LEN],
				t[CC_ID_LEN];
	long		n = cases / 4 < 100000 ? 100000 : cases / 4;

	mrng = seed_env ? strtoull(seed_env, NULL, 0) : 0xf01d3a7eULL;
	test_by_hand();
	test_big();
	for (long i = 0; i < n; i++)
	{
		mstate		m;
		cc_folded	v;
		size_t		count;

		mworld(&m);
		v = mv(&m);
		mtarget(&v, t);
		count = mlist(&v, t, ids);
		mboth(&v, ids, count, t);
	}
	/* the states the form tests use */
	for (long i = 0; i < n / 4; i++)
	{
		cc_test_folded tf;
		cc_folded	v;
		size_t		count;

		cc_test_random_folded(&mrng, &tf);
		v = cc_test_folded_view(&tf);
		mpick_pool();
		mtarget(&v, t);
		count = mlist(&v, t, ids);
		mboth(&v, ids, count, t);
	}
	printf("fold_many: %ld cases: %ld changed, %ld refused (own id, retired target), "
		   "%ld leaving bigint, %ld whose reversed list gives another state\n",
		   m_cases, m_changed, m_refused, m_overflow, m_order);
	CHECKF(m_fail == 0, "%ld fold_many cases off the sequential folds", m_fail);
	CHECKF(m_order > 0, "no case where the order mattered");
}
