/*
 * fuzz_algebra.c
 *	  libFuzzer harness of the shard-set algebra: merge (as the SQL function
 *	  does it, plan then build), merge_count, merge_into, merge_is_noop,
 *	  leader increment, sum, digest and difference, checked against their
 *	  laws and against exact reference computations; every state at hand is
 *	  also packed into the stored form and reopened.
 *
 * The input is not decoded with the binary decoder: random bytes would
 * almost never make a canonical state, and the fuzzer would spend its time
 * on rejections that fuzz_binary already covers.  Instead the bytes steer a
 * builder that always yields canonical states, while still reaching every
 * id, clock >= 1 and value:
 *
 *	  byte	control: bit 7 allows tombstones, then bits 0..2 make a, b, c
 *			tombstones; bit 3 makes the increment a subtraction
 *	  value	the delta (see below)
 *	  state	a, then b, then c, each:
 *			  byte	shard count, modulo MAXN + 1
 *			  per shard: id, clock, value
 *	  id	the writer of the increment: as a shard id, except that a byte in
 *			0xc0..0xef picks one of a's own ids, to reach the "found" path
 *	  byte	the clock of the exactly-once increment, relative to the
 *			writer's own (see check_increment_at), then 8 raw bytes for it
 *
 *	  id	one byte: 0xf0..0xff reads 16 raw bytes, anything else picks from
 *			a pool of ids that sit on the orderings' edges
 *	  clock	one byte picking 1, 2, 3, INT64_MAX, INT64_MAX - 1, or 8 raw
 *			bytes (big-endian, sign bit cleared, 0 read as 1)
 *	  value	one byte picking small numbers, the bigint edges, or 8 raw bytes
 *
 * Missing bytes read as zero, so every input, even the empty one, is a case.
 * Shards are sorted by id and duplicate ids dropped (the first one read
 * stays), which gives the canonical form.
 *
 * Output buffers are allocated with exactly the room the API promises
 * (na + nb shards for cc_merge, n + 1 for cc_increment), so that
 * AddressSanitizer sees a write past it.
 */
#include "cc_ossl.h"
#include "fuzz_common.h"
#include "cc_test_states.h"

#define MAXN	12				/* shards per input state */
#define POOL	13

typedef struct fstate
{
	unsigned char *s;
	size_t		n;
	bool		tombstone;
} fstate;

/* -------------------------------------------------------------- memory */

/* Every buffer of one case, freed together at its end. */
#define ARENA_SLOTS 4096
static void *arena[ARENA_SLOTS];
static int	arena_used = 0;

static unsigned char *
arena_alloc(size_t size)
{
	void	   *p;

	if (arena_used == ARENA_SLOTS)
	{
		fprintf(stderr, "fuzz_algebra: arena full\n");
		abort();
	}
	p = fuzz_alloc(size);
	arena[arena_used++] = p;
	return p;
}

static void
arena_free_all(void)
{
	while (arena_used > 0)
		free(arena[--arena_used]);
}

static fstate
copy_state(const fstate *x)
{
	fstate		r = *x;

	r.s = arena_alloc(x->n * CC_SHARD_SIZE);
	memcpy(r.s, x->s, x->n * CC_SHARD_SIZE);
	return r;
}

/* -------------------------------------------------------------- input */

typedef struct reader
{
	const uint8_t *p;
	size_t		left;
} reader;

static uint8_t
get_byte(reader *r)
{
	if (r->left == 0)
		return 0;
	r->left--;
	return *r->p++;
}

static uint64_t
get_u64(reader *r)
{
	uint64_t	u = 0;

	for (int i = 0; i < 8; i++)
		u = (u << 8) | get_byte(r);
	return u;
}

/*
 * Ids on the edges of the comparison: all zeros and all ones, both sides of
 * the signed/unsigned boundary in the first and in the second 8-byte word
 * (cc_id_cmp compares two big-endian words), ids that differ in one byte
 * only, and the two ids of the contract example.
 */
static uint8_t pool[POOL][CC_ID_LEN];

static void
make_pool(void)
{
	static const uint8_t spec1[CC_ID_LEN] = {
		0x0b, 0x6e, 0x7f, 0x3a, 0x2d, 0x44, 0x4c, 0x8e,
		0x9a, 0x51, 0x3f, 0x0d, 0x2c, 0x7b, 0x1e, 0x90
	};
	static const uint8_t spec2[CC_ID_LEN] = {
		0x7f, 0x0c, 0xab, 0x51, 0xfb, 0x72, 0x3e, 0x98,
		0xbd, 0xb4, 0x04, 0x04, 0xa9, 0x82, 0x86, 0x5d
	};

	memset(pool, 0, sizeof(pool));
	memcpy(pool, cc_edge_ids, sizeof(cc_edge_ids));
	memcpy(pool[9], spec1, CC_ID_LEN);
	memcpy(pool[10], spec2, CC_ID_LEN);
	/* second word: 0x7fff... against 0x8000... behind an equal first word */
	memset(pool[11] + 8, 0xff, 8);
	pool[11][8] = 0x7f;
	pool[12][8] = 0x80;
}

static void
read_id(reader *r, uint8_t *id)
{
	uint8_t		b = get_byte(r);

	if (b >= 0xf0)
		for (int i = 0; i < CC_ID_LEN; i++)
			id[i] = get_byte(r);
	else
		memcpy(id, pool[b % POOL], CC_ID_LEN);
}

static int64_t
read_clock(reader *r)
{
	static const int64_t table[] = {1, 1, 2, 3, INT64_MAX, INT64_MAX - 1};
	uint8_t		b = get_byte(r) % 7;
	int64_t		c;

	if (b < 6)
		return table[b];
	c = (int64_t) (get_u64(r) & (uint64_t) INT64_MAX);
	return c == 0 ? 1 : c;
}

static int64_t
read_value(reader *r)
{
	static const int64_t table[] = {
		0, 1, -1, 2, -2, 3,
		INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1
	};
	uint8_t		b = get_byte(r) % 11;

	if (b < 10)
		return table[b];
	return (int64_t) get_u64(r);
}

/* Reads one state; it is canonical whatever the bytes. */
static fstate
read_state(reader *r, bool tombstone)
{
	cc_shard	sh[MAXN];
	size_t		k = get_byte(r) % (MAXN + 1);
	size_t		n = 0;
	fstate		st;

	for (size_t i = 0; i < k; i++)
	{
		read_id(r, sh[i].id);
		sh[i].clock = read_clock(r);
		sh[i].value = read_value(r);
	}
	/*
	 * Stable insertion sort by id, then drop the later duplicates.  Ids are
	 * ordered with memcmp, the definition, so that the inputs are canonical
	 * even if cc_id_cmp were wrong.
	 */
	cc_test_sort_by_id(sh, k);
	for (size_t i = 0; i < k; i++)
		if (n == 0 || memcmp(sh[n - 1].id, sh[i].id, CC_ID_LEN) != 0)
			sh[n++] = sh[i];

	/* a tombstone's shards are read all the same: bit flips stay local */
	st.tombstone = tombstone;
	st.n = tombstone ? 0 : n;
	st.s = arena_alloc(st.n * CC_SHARD_SIZE);
	for (size_t i = 0; i < st.n; i++)
		cc_store(st.s, i, &sh[i]);
	FUZZ_CHECK(fuzz_canonical(st.s, st.n));
	FUZZ_CHECK(cc_check_canonical(st.s, st.n, CC_ERR_SYNTAX, NULL) == CC_OK);
	return st;
}

/* The case at hand, for fuzz_context. */
static fstate cur_a,
			cur_b,
			cur_c;
static uint8_t cur_writer[CC_ID_LEN];
static int64_t cur_delta;
static bool cur_subtract;

static void
print_case(void)
{
	char		w[CC_UUID_TEXT_LEN + 1];

	fuzz_print_state("a", cur_a.s, cur_a.n, cur_a.tombstone);
	fuzz_print_state("b", cur_b.s, cur_b.n, cur_b.tombstone);
	fuzz_print_state("c", cur_c.s, cur_c.n, cur_c.tombstone);
	cc_uuid_format(cur_writer, w);
	fprintf(stderr, "  writer = %s, delta = %lld, %s\n", w,
			(long long) cur_delta, cur_subtract ? "subtract" : "add");
}

/* -------------------------------------------------------------- checks */

static bool
same(const fstate *x, const fstate *y)
{
	bool		eq = cc_equal(x->s, x->n, x->tombstone, y->s, y->n, y->tombstone);

	/* equality is symmetric, and it is identity of the canonical bytes */
	FUZZ_CHECK(eq == cc_equal(y->s, y->n, y->tombstone, x->s, x->n, x->tombstone));
	FUZZ_CHECK(eq == (x->tombstone == y->tombstone && x->n == y->n &&
					  memcmp(x->s, y->s, x->n * CC_SHARD_SIZE) == 0));
	return eq;
}

static int
sign(int v)
{
	return (v > 0) - (v < 0);
}

static void
check_result(const fstate *x)
{
	FUZZ_CHECK(fuzz_canonical(x->s, x->n));
	FUZZ_CHECK(cc_check_canonical(x->s, x->n, CC_ERR_SYNTAX, NULL) == CC_OK);
	FUZZ_CHECK(!x->tombstone || x->n == 0);
}

/*
 * The merge from its definition, sharing nothing with the core: every id of
 * either state once, with the shard that has the higher clock, then the
 * higher value; ids ascending as unsigned bytes.  Laws alone would not catch
 * a merge that picked winners by another rule that is also a semilattice
 * (the lower value, say).
 */
static bool
ref_merge_equals(const fstate *x, const fstate *y, const fstate *m)
{
	cc_shard	all[2 * 3 * MAXN + 2];
	size_t		k = 0,
				n = 0;

	if (x->n + y->n > sizeof(all) / sizeof(all[0]))
		abort();
	for (size_t i = 0; i < x->n; i++)
		cc_load(x->s, i, &all[k++]);
	for (size_t i = 0; i < y->n; i++)
		cc_load(y->s, i, &all[k++]);
	cc_test_sort_by_id(all, k);
	for (size_t i = 0; i < k; i++)
	{
		if (n > 0 && memcmp(all[n - 1].id, all[i].id, CC_ID_LEN) == 0)
		{
			if (all[i].clock > all[n - 1].clock ||
				(all[i].clock == all[n - 1].clock && all[i].value > all[n - 1].value))
				all[n - 1] = all[i];
		}
		else
			all[n++] = all[i];
	}
	if (m->tombstone || m->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (memcmp(m->s + i * CC_SHARD_SIZE, &all[i], CC_SHARD_SIZE) != 0)
			return false;
	return true;
}

/*
 * The merge built the long way: a tombstone absorbs everything, live states
 * go through cc_merge() into exactly na + nb shards of room.  cc_merge_count()
 * must predict the count it writes, and the result must be the reference
 * merge.
 */
static fstate
merge_built(const fstate *x, const fstate *y)
{
	fstate		r;

	if (x->tombstone)
		return *x;
	if (y->tombstone)
		return *y;
	r.tombstone = false;
	r.s = arena_alloc((x->n + y->n) * CC_SHARD_SIZE);
	r.n = cc_merge(x->s, x->n, y->s, y->n, r.s);
	FUZZ_CHECK(r.n == cc_merge_count(x->s, x->n, y->s, y->n));
	FUZZ_CHECK(r.n <= x->n + y->n);
	FUZZ_CHECK(r.n >= x->n && r.n >= y->n);
	check_result(&r);
	FUZZ_CHECK(ref_merge_equals(x, y, &r));
	return r;
}

/*
 * merge(x, y) as counter_crdt_merge does it: cc_merge_plan() may name one
 * input as the result, and only otherwise is cc_merge() called.  A shortcut
 * must give what building would, and the plan must keep its word: BUILD
 * only when neither input is the merge, and a named when both are.
 */
static fstate
merge_sql(const fstate *x, const fstate *y)
{
	cc_view		vx = {x->s, x->n, x->tombstone},
				vy = {y->s, y->n, y->tombstone};
	cc_merge_kind kind = cc_merge_plan(&vx, &vy);
	fstate		built = merge_built(x, y);
	fstate		r;

	switch (kind)
	{
		case CC_MERGE_TAKE_A:
			r = *x;
			FUZZ_CHECK(same(&r, &built));
			break;
		case CC_MERGE_TAKE_B:
			r = *y;
			FUZZ_CHECK(same(&r, &built));
			FUZZ_CHECK(!same(x, &built));
			break;
		case CC_MERGE_BUILD:
			FUZZ_CHECK(!x->tombstone && !y->tombstone);
			FUZZ_CHECK(!same(x, &built) && !same(y, &built));
			r = built;
			break;
		default:
			fuzz_fail(__FILE__, __LINE__, "cc_merge_plan returned an unknown kind");
	}
	check_result(&r);
	return r;
}

/*
 * The merges of two live states that need no new shard, against the full
 * merge m = merge(x, y):
 *	  cc_merge_is_noop(x, y)	iff m equals x
 *	  cc_merge_into(x, y)		true iff every id of y is in x, which is
 *								when merge_count is x's count; then x has
 *								become m, and otherwise finishing with
 *								cc_merge() gives m
 */
static void
check_in_place(const fstate *x, const fstate *y, const fstate *m)
{
	fstate		w,
				v;
	bool		into;
	size_t		count = cc_merge_count(x->s, x->n, y->s, y->n);

	FUZZ_CHECK(cc_merge_is_noop(x->s, x->n, y->s, y->n) == same(m, x));

	w = copy_state(x);
	into = cc_merge_into(w.s, w.n, y->s, y->n);
	FUZZ_CHECK(into == (count == x->n));
	if (into)
		FUZZ_CHECK(same(&w, m));
	else
	{
		v.tombstone = false;
		v.s = arena_alloc((w.n + y->n) * CC_SHARD_SIZE);
		v.n = cc_merge(w.s, w.n, y->s, y->n, v.s);
		FUZZ_CHECK(same(&v, m));
	}
}

/* cc_sum() against the exact sum: OK iff that fits in int64, and equal. */
static void
check_sum(const fstate *x)
{
	__int128	exact = 0;
	int64_t		got = 0;
	cc_error	err;
	cc_code		rc;

	for (size_t i = 0; i < x->n; i++)
	{
		cc_shard	sh;

		cc_load(x->s, i, &sh);
		exact += sh.value;
	}
	fuzz_poison_error(&err);
	rc = cc_sum(x->s, x->n, &got, &err);
	if (exact >= INT64_MIN && exact <= INT64_MAX)
	{
		FUZZ_CHECK(rc == CC_OK);
		FUZZ_CHECK(got == (int64_t) exact);
	}
	else
	{
		FUZZ_CHECK(rc == CC_ERR_OVERFLOW);
		fuzz_check_error(&err, CC_ERR_OVERFLOW);
	}
}

/*
 * A leader increment of x by writer w: either it overflows, exactly when the
 * writer's clock is INT64_MAX or its value plus (minus) delta leaves int64,
 * or it yields a canonical state where that writer's shard is (clock + 1,
 * value +- delta), every other shard is as it was, which dominates x
 * (merge(x, inc) = inc) and is not x, and whose sum, when both sums exist,
 * differs from x's by exactly delta.  Returns whether there is a result.
 */
static bool
check_increment(const fstate *x, const uint8_t *w, int64_t delta,
				bool subtract, fstate *res)
{
	int64_t		clock0 = 0,
				value0 = 0;
	bool		found = false;
	__int128	want_value;
	bool		overflow;
	fstate		inc;
	size_t		nout = 0,
				j = 0;
	cc_error	err;
	cc_code		rc;
	int64_t		before,
				after;

	for (size_t i = 0; i < x->n; i++)
	{
		cc_shard	sh;

		cc_load(x->s, i, &sh);
		/* cc_id_cmp orders as the definition does, memcmp */
		FUZZ_CHECK(sign(cc_id_cmp(sh.id, w)) == sign(memcmp(sh.id, w, CC_ID_LEN)));
		if (memcmp(sh.id, w, CC_ID_LEN) == 0)
		{
			found = true;
			clock0 = sh.clock;
			value0 = sh.value;
		}
	}
	want_value = subtract ? (__int128) value0 - delta : (__int128) value0 + delta;
	overflow = clock0 == INT64_MAX ||
		want_value < INT64_MIN || want_value > INT64_MAX;

	inc.tombstone = false;
	inc.s = arena_alloc((x->n + 1) * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	rc = cc_increment(x->s, x->n, w, delta, subtract, inc.s, &nout, &err);
	FUZZ_CHECK(cc_increment(x->s, x->n, w, delta, subtract, inc.s, &nout,
							NULL) == rc);
	if (overflow)
	{
		FUZZ_CHECK(rc == CC_ERR_OVERFLOW);
		fuzz_check_error(&err, CC_ERR_OVERFLOW);
		return false;
	}
	FUZZ_CHECK(rc == CC_OK);
	inc.n = nout;
	FUZZ_CHECK(inc.n == x->n + (found ? 0 : 1));
	check_result(&inc);

	/* shard by shard: the writer's is new, the others are x's */
	for (size_t i = 0; i < inc.n; i++)
	{
		cc_shard	sh;

		cc_load(inc.s, i, &sh);
		if (memcmp(sh.id, w, CC_ID_LEN) == 0)
		{
			FUZZ_CHECK(sh.clock == clock0 + 1);
			FUZZ_CHECK(sh.value == (int64_t) want_value);
			if (found)
				j++;
		}
		else
		{
			FUZZ_CHECK(j < x->n);
			FUZZ_CHECK(memcmp(inc.s + i * CC_SHARD_SIZE,
							  x->s + j * CC_SHARD_SIZE, CC_SHARD_SIZE) == 0);
			j++;
		}
	}
	FUZZ_CHECK(j == x->n);

	/* above its input */
	{
		fstate		m1 = merge_sql(x, &inc),
					m2 = merge_sql(&inc, x);

		FUZZ_CHECK(same(&m1, &inc));
		FUZZ_CHECK(same(&m2, &inc));
		FUZZ_CHECK(!same(&inc, x));
	}

	/* the value moves by delta exactly */
	if (cc_sum(x->s, x->n, &before, NULL) == CC_OK &&
		cc_sum(inc.s, inc.n, &after, NULL) == CC_OK)
		FUZZ_CHECK((__int128) after - before ==
				   (subtract ? -(__int128) delta : (__int128) delta));

	*res = inc;
	return true;
}

/*
 * difference(x, y) against its definition and its law: none exactly when
 * merge(x, y) = y; a tombstone exactly when x is one and y is not; else
 * exactly the shards of x that win over y's (cc_test_is_winners, from the
 * definition); and merge(y, difference(x, y)) = merge(x, y).  The output buffer
 * has exactly x->n shards of room, as the API promises.
 */
static void
check_difference(const fstate *x, const fstate *y)
{
	cc_view		vx = {x->s, x->n, x->tombstone},
				vy = {y->s, y->n, y->tombstone};
	fstate		d,
				m = merge_sql(x, y),
				md;
	cc_diff_kind kind;

	d.s = arena_alloc(x->n * CC_SHARD_SIZE);
	d.n = 12345;
	kind = cc_difference(&vx, &vy, d.s, &d.n);
	d.tombstone = (kind == CC_DIFF_TOMBSTONE);
	FUZZ_CHECK((kind == CC_DIFF_NONE) == same(&m, y));
	FUZZ_CHECK((kind == CC_DIFF_TOMBSTONE) == (x->tombstone && !y->tombstone));
	FUZZ_CHECK(kind == CC_DIFF_SHARDS ? d.n > 0 : d.n == 0);
	if (kind == CC_DIFF_SHARDS)
	{
		check_result(&d);
		FUZZ_CHECK(cc_test_is_winners(x->s, x->n, y->s, y->n, d.s, d.n));
	}
	md = kind == CC_DIFF_NONE ? *y : merge_sql(y, &d);
	FUZZ_CHECK(same(&md, &m));
}

/*
 * The exactly-once increment of x by writer w with clock k (contract 8.1), k
 * picked by sel around the writer's own clock (below, equal, above, the
 * edges, raw): an error exactly when k < 1, or when it applies and the value
 * leaves int64; a replay (k not above the writer's clock) gives x byte for
 * byte; otherwise the writer's shard is (k, value + delta), every other
 * shard is x's, and the result dominates x.  Applying it again to its own
 * result is a replay.  Returns whether there is a result.
 */
static bool
check_increment_at(const fstate *x, const uint8_t *w, int64_t delta,
				   uint8_t sel, uint64_t raw, fstate *res)
{
	int64_t		clock0 = 0,
				value0 = 0,
				k;
	__int128	want;
	fstate		out,
				again;
	size_t		nout = 0;
	bool		applied = false,
				applied2 = true;
	cc_error	err;
	cc_code		rc;

	for (size_t i = 0; i < x->n; i++)
		if (memcmp(x->s + i * CC_SHARD_SIZE, w, CC_ID_LEN) == 0)
		{
			cc_shard	sh;

			cc_load(x->s, i, &sh);
			clock0 = sh.clock;
			value0 = sh.value;
		}
	switch (sel % 8)
	{
		case 0:
			k = clock0;
			break;
		case 1:
			k = clock0 - 1;
			break;
		case 2:
			k = clock0 == INT64_MAX ? INT64_MAX : clock0 + 1;
			break;
		case 3:
			k = INT64_MAX;
			break;
		case 4:
			k = 1;
			break;
		case 5:
			k = 0;
			break;
		case 6:
			k = INT64_MIN;
			break;
		default:
			k = (int64_t) raw;
			break;
	}
	want = (__int128) value0 + delta;

	out.tombstone = false;
	out.s = arena_alloc((x->n + 1) * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	rc = cc_increment_at(x->s, x->n, w, delta, k, out.s, &nout, &applied, &err);
	FUZZ_CHECK(cc_increment_at(x->s, x->n, w, delta, k, out.s, &nout, &applied,
							   NULL) == rc);
	if (k < 1)
	{
		FUZZ_CHECK(rc == CC_ERR_ARGUMENT);
		fuzz_check_error(&err, CC_ERR_ARGUMENT);
		return false;
	}
	if (k > clock0 && (want < INT64_MIN || want > INT64_MAX))
	{
		FUZZ_CHECK(rc == CC_ERR_OVERFLOW);
		fuzz_check_error(&err, CC_ERR_OVERFLOW);
		return false;
	}
	FUZZ_CHECK(rc == CC_OK);
	out.n = nout;
	check_result(&out);
	FUZZ_CHECK(applied == (k > clock0));
	if (!applied)
		FUZZ_CHECK(same(&out, x));
	else
	{
		size_t		j = 0;

		FUZZ_CHECK(out.n == x->n + (clock0 == 0 ? 1 : 0));
		for (size_t i = 0; i < out.n; i++)
		{
			cc_shard	sh;

			cc_load(out.s, i, &sh);
			if (memcmp(sh.id, w, CC_ID_LEN) == 0)
			{
				FUZZ_CHECK(sh.clock == k && sh.value == (int64_t) want);
				j += clock0 > 0;
			}
			else
			{
				FUZZ_CHECK(j < x->n && memcmp(out.s + i * CC_SHARD_SIZE,
											  x->s + j * CC_SHARD_SIZE,
											  CC_SHARD_SIZE) == 0);
				j++;
			}
		}
		FUZZ_CHECK(j == x->n);
		FUZZ_CHECK(!same(&out, x));
		{
			fstate		m = merge_sql(x, &out);

			FUZZ_CHECK(same(&m, &out));
		}
	}
	again.tombstone = false;
	again.s = arena_alloc((out.n + 1) * CC_SHARD_SIZE);
	FUZZ_CHECK(cc_increment_at(out.s, out.n, w, delta, k, again.s, &again.n,
							   &applied2, NULL) == CC_OK);
	FUZZ_CHECK(!applied2);
	FUZZ_CHECK(same(&again, &out));
	*res = out;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool pool_ready = false;
	reader		r = {data, size};
	uint8_t		ctl;
	fstate		a,
				b,
				c,
				a0,
				b0,
				c0,
				ab,
				ba,
				bc,
				ab_c,
				a_bc,
				ac,
				ac_b;
	fstate		all[32];
	uint8_t		digests[32][CC_DIGEST_LEN];
	int			nall = 0;
	const fstate *in[3];
	uint8_t		wsel;

	if (!pool_ready)
	{
		make_pool();
		pool_ready = true;
	}
	fuzz_context = print_case;

	ctl = get_byte(&r);
	cur_subtract = (ctl & 0x08) != 0;
	cur_delta = read_value(&r);
	a = read_state(&r, (ctl & 0x80) && (ctl & 0x01));
	b = read_state(&r, (ctl & 0x80) && (ctl & 0x02));
	c = read_state(&r, (ctl & 0x80) && (ctl & 0x04));
	cur_a = a;
	cur_b = b;
	cur_c = c;
	wsel = get_byte(&r);
	if (wsel >= 0xf0)
		for (int i = 0; i < CC_ID_LEN; i++)
			cur_writer[i] = get_byte(&r);
	else if (wsel >= 0xc0 && a.n > 0)
		memcpy(cur_writer, a.s + ((wsel - 0xc0) % a.n) * CC_SHARD_SIZE,
			   CC_ID_LEN);
	else
		memcpy(cur_writer, pool[wsel % POOL], CC_ID_LEN);

	/* the inputs must come out of all this untouched */
	a0 = copy_state(&a);
	b0 = copy_state(&b);
	c0 = copy_state(&c);

	/* merge is commutative, associative and idempotent, as states */
	ab = merge_sql(&a, &b);
	ba = merge_sql(&b, &a);
	FUZZ_CHECK(same(&ab, &ba));

	bc = merge_sql(&b, &c);
	ab_c = merge_sql(&ab, &c);
	a_bc = merge_sql(&a, &bc);
	FUZZ_CHECK(same(&ab_c, &a_bc));
	ac = merge_sql(&a, &c);
	ac_b = merge_sql(&ac, &b);
	FUZZ_CHECK(same(&ab_c, &ac_b));

	in[0] = &a;
	in[1] = &b;
	in[2] = &c;
	for (int i = 0; i < 3; i++)
	{
		fstate		xx = merge_sql(in[i], in[i]);

		FUZZ_CHECK(same(&xx, in[i]));
	}

	/* the merge is an upper bound: merging an input into it changes nothing */
	{
		fstate		m1 = merge_sql(&ab, &a),
					m2 = merge_sql(&b, &ab),
					m3 = merge_sql(&ab_c, &bc);

		FUZZ_CHECK(same(&m1, &ab));
		FUZZ_CHECK(same(&m2, &ab));
		FUZZ_CHECK(same(&m3, &ab_c));
	}

	/* in-place merges, for every ordered pair of live states at hand */
	{
		const fstate *live[] = {&a, &b, &c, &ab, &bc};

		for (int i = 0; i < 5; i++)
			for (int k = 0; k < 5; k++)
			{
				fstate		m;

				if (live[i]->tombstone || live[k]->tombstone)
					continue;
				m = merge_built(live[i], live[k]);
				check_in_place(live[i], live[k], &m);
			}
	}

	all[nall++] = a;
	all[nall++] = b;
	all[nall++] = c;
	all[nall++] = ab;
	all[nall++] = ba;
	all[nall++] = bc;
	all[nall++] = ab_c;
	all[nall++] = ac;

	/* leader increments of an input and of a merge */
	{
		const fstate *targets[] = {&a, &ab_c};

		for (int i = 0; i < 2; i++)
		{
			fstate		inc;

			if (targets[i]->tombstone)
				continue;
			if (check_increment(targets[i], cur_writer, cur_delta,
								cur_subtract, &inc))
			{
				fstate		other;

				all[nall++] = inc;

				/*
				 * Merged with another replica's state, the increment is
				 * still there: merging it in again changes nothing.
				 */
				other = merge_sql(&inc, &b);
				if (!other.tombstone)
				{
					fstate		again = merge_sql(&other, &inc);

					FUZZ_CHECK(same(&again, &other));
				}
				all[nall++] = other;
			}
		}
	}

	/* exactly-once increments of an input and of a merge */
	{
		const fstate *targets[] = {&a, &ab_c};
		uint8_t		sel = get_byte(&r);
		uint64_t	raw = get_u64(&r);

		for (int i = 0; i < 2; i++)
		{
			fstate		inc;

			if (!targets[i]->tombstone &&
				check_increment_at(targets[i], cur_writer, cur_delta, sel, raw, &inc))
				all[nall++] = inc;
		}
	}

	/*
	 * the sum is exact, and the stored form packs and reopens to the same
	 * state, for every state at hand (inputs, merges, increments)
	 */
	for (int i = 0; i < nall; i++)
	{
		size_t		len;

		check_sum(&all[i]);
		free(fuzz_stored_round_trip(all[i].s, all[i].n, all[i].tombstone, &len));
	}

	/* digests agree with state equality, for every pair at hand */
	for (int i = 0; i < nall; i++)
		ossl_digest(all[i].s, all[i].n, all[i].tombstone, digests[i]);
	for (int i = 0; i < nall; i++)
		for (int k = i; k < nall; k++)
			FUZZ_CHECK((memcmp(digests[i], digests[k], CC_DIGEST_LEN) == 0) ==
					   same(&all[i], &all[k]));

	/* differences, between each input and every state at hand, both ways */
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < nall; k++)
		{
			check_difference(in[i], &all[k]);
			check_difference(&all[k], in[i]);
		}

	FUZZ_CHECK(same(&a, &a0));
	FUZZ_CHECK(same(&b, &b0));
	FUZZ_CHECK(same(&c, &c0));

	fuzz_context = NULL;
	arena_free_all();
	return 0;
}
