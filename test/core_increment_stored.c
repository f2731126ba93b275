/*
 * core_increment_stored.c
 *	  The increments on the stored form, cc_increment_stored() and
 *	  cc_increment_at_stored(), against the path they replace: open, widen,
 *	  cc_increment() or cc_increment_at(), cc_stored_pack().  For random
 *	  states on the edges of every width (clocks around 255, 65535,
 *	  UINT32_MAX and INT64_MAX, values around the int8, int16, int32 and
 *	  int64 limits, totals near the bigint range), of up to 18 shards (the
 *	  total kept past 16), stored as the library writes them (version 3),
 *	  as 1.3 to 1.11 did (version 2, narrow or wide) and as 1.0 to 1.2 did
 *	  (version 1), with the writer present or absent, the bytes must be the
 *	  same, and so must the errors, their code and their sentence.
 *
 * Inputs and outputs sit in heap blocks of exactly their size, so that the
 * sanitizer build sees a read or write past them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_test.h"
#include "cc_test_states.h"

#define MAXN 18
#define POOL 24

static uint64_t rng = 0x1c2e3d4f5a6b7c8dULL;
static uint8_t pool[POOL][CC_ID_LEN];

static uint64_t
rnd(void)
{
	return cc_test_splitmix(&rng);
}

static int64_t
rnd_clock(void)
{
	static const int64_t edges[] = {
		1, 2, 3, 255, 256, 65535, 65536, (int64_t) UINT32_MAX - 1, (int64_t) UINT32_MAX,
		(int64_t) UINT32_MAX + 1, INT64_MAX - 1, INT64_MAX
	};

	if (rnd() % 8 == 0)
		return (int64_t) (rnd() >> 1) | 1;
	return edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
}

static int64_t
rnd_value(void)
{
	static const int64_t edges[] = {
		0, 1, -1, 2, 127, 128, -128, -129, 32767, 32768, -32768, -32769,
		INT32_MAX, (int64_t) INT32_MAX + 1, INT32_MIN,
		(int64_t) INT32_MIN - 1, INT64_MAX, INT64_MIN, INT64_MAX - 1,
		INT64_MIN + 1, INT64_MAX / 2, INT64_MIN / 2
	};

	if (rnd() % 8 == 0)
		return (int64_t) rnd();
	if (rnd() % 2 == 0)
		return (int64_t) (rnd() % 5) - 2;
	return edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];
}

/*
 * A delta for a writer whose shard holds value v in a state of sum total
 * (both wrapped to int64): small ones, the edges, and those that put the
 * shard or the sum just inside or just outside int32 and int64.
 */
static int64_t
rnd_delta(int64_t v, int64_t total)
{
	static const int64_t targets[] = {
		127, -128, 32767, -32768, INT32_MAX, (int64_t) INT32_MAX + 1, INT32_MIN, (int64_t) INT32_MIN - 1,
		INT64_MAX, INT64_MIN, 0
	};
	int64_t		base = (rnd() % 2) ? v : total;
	int64_t		target = targets[rnd() % (sizeof(targets) / sizeof(targets[0]))];

	switch (rnd() % 6)
	{
		case 0:
			return (int64_t) (rnd() % 5) - 2;
		case 1:
			return rnd_value();
		case 2:
		case 3:
			/* target - base, and one either side, wrapping as int64 */
			return (int64_t) ((uint64_t) target - (uint64_t) base +
							  (uint64_t) ((int64_t) (rnd() % 3) - 1));
		default:
			return (int64_t) rnd();
	}
}

/* A random canonical state: a subset of the pool, in id order. */
static size_t
rnd_state(unsigned char *s)
{
	bool		pick[POOL] = {false};
	cc_shard	sh[POOL];
	size_t		want = rnd() % (MAXN + 1),
				k = 0;
	/* mostly narrow shards, so that one edge decides the layout */
	bool		small = rnd() % 2;

	for (size_t i = 0; i < want; i++)
		pick[rnd() % POOL] = true;
	for (int i = 0; i < POOL; i++)
		if (pick[i])
		{
			memcpy(sh[k].id, pool[i], CC_ID_LEN);
			sh[k].clock = small && rnd() % 4 ? (int64_t) (rnd() % 3) + 1 : rnd_clock();
			sh[k].value = small && rnd() % 4 ? (int64_t) (rnd() % 5) - 2 : rnd_value();
			k++;
		}
	cc_test_sort_by_id(sh, k);
	for (size_t i = 0; i < k; i++)
		cc_store(s, i, &sh[i]);
	return k;
}

/*
 * The bytes of a stored value: as the library packs it (version 0 here),
 * or as version 2 or version 1 wrote it.
 */
static size_t
stored_bytes(const unsigned char *s, size_t n, bool tombstone, int version,
			 unsigned char *out)
{
	if (version == 0)
	{
		memcpy(out + CC_STORED_HEADER, s, n * CC_SHARD_SIZE);
		return cc_stored_pack(out, n, tombstone);
	}
	if (version == 2)
		return stored_ref_v2(s, n, tombstone, out);
	out[0] = CC_STORED_V1;
	out[1] = tombstone ? CC_STORED_FLAG_TOMBSTONE : 0;
	out[2] = 0;
	out[3] = 0;
	memcpy(out + CC_STORED_V1_HEADER, s, n * CC_SHARD_SIZE);
	return CC_STORED_V1_HEADER + n * CC_SHARD_SIZE;
}

typedef struct outcome
{
	cc_code		rc;
	bool		applied;
	size_t		len;
	char		detail[CC_DETAIL_LEN];
	unsigned char bytes[CC_STORED_BUILD_SIZE(MAXN + 1)];
} outcome;

/* The reference: widened, incremented in 32-byte records, packed. */
static void
ref_increment(const cc_stored *st, const uint8_t *w, int64_t delta,
			  bool subtract, bool at, int64_t clock, outcome *o)
{
	unsigned char wide[MAXN * CC_SHARD_SIZE + 1];
	size_t		nout = 0;
	cc_error	err;

	memset(o, 0, sizeof(*o));
	/* the glue: a tombstone stays as it is, whatever the delta */
	if (st->tombstone && !at)
	{
		o->applied = true;
		o->len = cc_stored_pack(o->bytes, 0, true);
		return;
	}
	cc_stored_widen(st, wide);
	if (at)
		o->rc = cc_increment_at(wide, st->n, w, delta, clock,
								o->bytes + CC_STORED_HEADER, &nout,
								&o->applied, &err);
	else
	{
		o->rc = cc_increment(wide, st->n, w, delta, subtract,
							 o->bytes + CC_STORED_HEADER, &nout, &err);
		o->applied = true;
	}
	if (o->rc != CC_OK)
	{
		o->applied = false;
		memcpy(o->detail, err.detail, sizeof(o->detail));
		return;
	}
	/* the glue: a tombstone, and a replay, stay as they are */
	if (st->tombstone)
		o->applied = false;
	else if (o->applied)
		o->len = cc_stored_pack(o->bytes, nout, false);
}

/* The code under test, writing into a block of exactly its room. */
static void
new_increment(const cc_stored *st, const uint8_t *w, int64_t delta,
			  bool subtract, bool at, int64_t clock, outcome *o,
			  bool *untouched)
{
	size_t		room = CC_STORED_BUILD_SIZE(st->n + 1);
	unsigned char *out = exact_alloc(room);
	cc_error	err;

	memset(o, 0, sizeof(*o));
	memset(out, 0xa5, room);
	if (at)
		o->rc = cc_increment_at_stored(st, w, delta, clock, out, &o->len,
									   &o->applied, &err);
	else
	{
		o->rc = cc_increment_stored(st, w, delta, subtract, out, &o->len, &err);
		o->applied = o->rc == CC_OK;
	}
	*untouched = true;
	if (o->rc != CC_OK)
		memcpy(o->detail, err.detail, sizeof(o->detail));
	else if (o->applied || !at)
		memcpy(o->bytes, out, o->len);
	else
		for (size_t i = 0; i < room; i++)
			*untouched &= out[i] == 0xa5;
	free(out);
}

static bool
same_outcome(const outcome *a, const outcome *b)
{
	if (a->rc != b->rc || a->applied != b->applied)
		return false;
	if (a->rc != CC_OK)
		return strcmp(a->detail, b->detail) == 0;
	return a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0;
}

typedef struct tally
{
	long		cases;
	long		broken;
	long		in_narrow,
				in_wide,
				in_v2,
				in_v1,
				in_tombstone,
				in_overflow;
	long		present,
				absent;
	long		out_narrow,
				out_wide,
				out_overflow,
				kept,
				to_wide,
				to_narrow,
				errors,
				replays;
} tally;

static void
one(const unsigned char *s, size_t n, bool tombstone, int version, tally *t)
{
	unsigned char buf[CC_STORED_BUILD_SIZE(MAXN)];
	unsigned char *bytes;
	size_t		len = stored_bytes(s, n, tombstone, version, buf);
	cc_stored	st;
	cc_shard	sh = {{0}, 0, 0};
	int64_t		total = 0;
	uint8_t		w[CC_ID_LEN];
	bool		at = rnd() % 3 == 0;
	bool		subtract = !at && rnd() % 2;
	int64_t		delta,
				clock = 0;
	outcome		ref,
				got;
	bool		untouched,
				present = false;

	bytes = exact_copy(buf, len);
	if (cc_stored_open(bytes, len, &st, NULL) != CC_OK)
	{
		CHECKF(false, "a stored value of %zu shards does not open", n);
		free(bytes);
		return;
	}

	/* the writer: one of the state's ids, or any of the pool */
	if (n > 0 && rnd() % 2)
		memcpy(w, s + (rnd() % n) * CC_SHARD_SIZE, CC_ID_LEN);
	else
		memcpy(w, pool[rnd() % POOL], CC_ID_LEN);
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	x;

		cc_load(s, i, &x);
		total = (int64_t) ((uint64_t) total + (uint64_t) x.value);
		if (memcmp(x.id, w, CC_ID_LEN) == 0)
		{
			sh = x;
			present = true;
		}
	}
	delta = rnd_delta(sh.value, total);
	if (at)
	{
		static const int64_t clocks[] = {
			-1, 0, 1, (int64_t) UINT32_MAX, (int64_t) UINT32_MAX + 1,
			INT64_MAX
		};

		switch (rnd() % 3)
		{
			case 0:
				/* the shard's own clock, or one either side */
				if (__builtin_add_overflow(sh.clock, (int64_t) (rnd() % 3) - 1, &clock))
					clock = INT64_MAX;
				break;
			case 1:
				clock = clocks[rnd() % (sizeof(clocks) / sizeof(clocks[0]))];
				break;
			default:
				clock = rnd_clock();
		}
	}

	ref_increment(&st, w, delta, subtract, at, clock, &ref);
	new_increment(&st, w, delta, subtract, at, clock, &got, &untouched);

	t->cases++;
	if (!same_outcome(&ref, &got) || !untouched)
	{
		if (t->broken++ < 10)
			fprintf(stderr, "%s(%s%s, %s%lld%s) v%d: reference rc %d applied %d len %zu \"%s\", "
					"stored path rc %d applied %d len %zu \"%s\"%s\n",
					at ? "increment_at" : "increment", state_text(s, n, tombstone),
					st.lay != CC_LAY_WIDE ? " packed" : "", subtract ? "-" : "", (long long) delta,
					present ? " present" : " absent", version,
					ref.rc, ref.applied, ref.len, ref.detail,
					got.rc, got.applied, got.len, got.detail,
					untouched ? "" : ", out written on a replay");
	}

	t->in_tombstone += st.tombstone;
	t->in_v1 += !st.tombstone && version == 1;
	t->in_v2 += !st.tombstone && version == 2 && n > 0;
	t->in_narrow += !st.tombstone && version == 0 && st.lay != CC_LAY_WIDE && n > 0;
	t->in_wide += !st.tombstone && version == 0 && st.lay == CC_LAY_WIDE && n > 0;
	t->in_overflow += st.overflow;
	t->present += present;
	t->absent += !present && !st.tombstone;
	t->errors += ref.rc != CC_OK;
	t->replays += at && ref.rc == CC_OK && !ref.applied && !st.tombstone;
	if (ref.rc == CC_OK && ref.applied && !st.tombstone)
	{
		cc_stored	out;
		bool		narrow;

		CHECK(cc_stored_open(ref.bytes, ref.len, &out, NULL) == CC_OK);
		narrow = out.lay != CC_LAY_WIDE;
		t->out_narrow += narrow;
		t->out_wide += !narrow;
		t->out_overflow += out.overflow;
		t->kept += out.total_kept && !out.overflow;
		t->to_wide += st.lay != CC_LAY_WIDE && !narrow;
		t->to_narrow += st.lay == CC_LAY_WIDE && n > 0 && narrow;
	}
	free(bytes);
}

/* The increments of the glue's examples, by hand: a NULL counter is {}. */
static void
by_hand(void)
{
	static const unsigned char none[1];
	cc_stored	empty;
	outcome		o;
	unsigned char out[CC_STORED_BUILD_SIZE(1)];
	size_t		len;
	bool		applied;
	int64_t		v;
	cc_error	err;
	cc_stored	st;

	cc_stored_of_records(none, 0, false, &empty);
	CHECK(cc_increment_stored(&empty, cc_edge_ids[3], 5, false, out, &len, &err) == CC_OK);
	CHECK(len == CC_STORED_V3_HEADER + CC_ID_LEN + 2 && out[0] == CC_STORED_V3 && out[1] == 0x05);
	CHECK(cc_stored_open(out, len, &st, NULL) == CC_OK &&
		  cc_stored_value(&st, &v, NULL) == CC_OK && v == 5);
	/* the clock alone out of uint32: an eight-byte clock, a one-byte value */
	CHECK(cc_increment_at_stored(&empty, cc_edge_ids[3], -5, (int64_t) UINT32_MAX + 1,
								 out, &len, &applied, &err) == CC_OK && applied);
	CHECK(len == CC_STORED_V3_HEADER + CC_ID_LEN + 9 && out[0] == CC_STORED_V3 && out[1] == 0x04);
	CHECK(cc_increment_at_stored(&empty, cc_edge_ids[3], 1, 0, out, &len, &applied, &err) ==
		  CC_ERR_ARGUMENT && strstr(err.detail, "clocks start at 1") != NULL);
	ref_increment(&empty, cc_edge_ids[0], INT64_MIN, true, false, 0, &o);
	CHECK(o.rc == CC_ERR_OVERFLOW && strstr(o.detail, "Subtracting") != NULL);

	/*
	 * Nothing applied: a tombstone, and a replay (a clock at or below the
	 * writer's), clear *applied whatever it held and leave out and *len as
	 * they were.
	 */
	{
		unsigned char tomb[CC_STORED_HEADER],
					one[CC_STORED_BUILD_SIZE(1)];
		cc_shard	w = {{0}, 7, 40};
		static const int64_t clocks[] = {7, 1, 6};

		len = cc_stored_pack(tomb, 0, true);
		CHECK(cc_stored_open(tomb, len, &st, NULL) == CC_OK && st.tombstone);
		memset(out, 0xa5, sizeof(out));
		len = 12345;
		applied = true;
		CHECK(cc_increment_at_stored(&st, cc_edge_ids[3], 5, 3, out, &len, &applied, &err) ==
			  CC_OK && !applied && len == 12345 && out[0] == 0xa5 && out[1] == 0xa5);
		memcpy(w.id, cc_edge_ids[3], CC_ID_LEN);
		cc_store(cc_stored_build_start(one, false), 0, &w);
		len = cc_stored_pack(one, 1, false);
		CHECK(cc_stored_open(one, len, &st, NULL) == CC_OK && st.n == 1 && st.lay == 0x05);
		for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		{
			memset(out, 0xa5, sizeof(out));
			len = 12345;
			applied = true;
			CHECKF(cc_increment_at_stored(&st, cc_edge_ids[3], 5, clocks[i], out, &len,
										  &applied, &err) == CC_OK &&
				   !applied && len == 12345 && out[0] == 0xa5 && out[1] == 0xa5,
				   "replay at clock %lld of a shard of clock 7", (long long) clocks[i]);
		}
		/* the next clock is applied: the check above is not a refusal of all */
		applied = false;
		CHECK(cc_increment_at_stored(&st, cc_edge_ids[3], 5, 8, out, &len, &applied, &err) ==
			  CC_OK && applied && cc_stored_open(out, len, &st, NULL) == CC_OK &&
			  cc_stored_value(&st, &v, NULL) == CC_OK && v == 45);
	}
}

void
test_increment_stored(long cases)
{
	static unsigned char s[MAXN * CC_SHARD_SIZE];
	tally		t;

	memset(&t, 0, sizeof(t));
	memcpy(pool, cc_edge_ids, sizeof(cc_edge_ids));
	for (int i = CC_EDGE_IDS; i < POOL; i++)
		for (int j = 0; j < CC_ID_LEN; j++)
			pool[i][j] = (uint8_t) rnd();

	by_hand();
	for (long c = 0; c < cases; c++)
	{
		size_t		n = rnd_state(s);
		bool		tombstone = rnd() % 32 == 0;

		one(s, tombstone ? 0 : n, tombstone, (int) (rnd() % 6) % 3, &t);
	}

	printf("increment_stored: %ld cases: in %ld packed, %ld wide, %ld version 2, %ld version 1, "
		   "%ld tombstones, %ld out of range; writer %ld present, %ld absent; out %ld packed, "
		   "%ld wide, %ld out of range, %ld with the total kept; %ld packed to wide, "
		   "%ld wide to packed; %ld errors, %ld replays\n",
		   t.cases, t.in_narrow, t.in_wide, t.in_v2, t.in_v1, t.in_tombstone, t.in_overflow,
		   t.present, t.absent, t.out_narrow, t.out_wide, t.out_overflow, t.kept,
		   t.to_wide, t.to_narrow, t.errors, t.replays);
	CHECKF(t.broken == 0, "the stored increments differ from the reference in %ld of %ld cases",
		   t.broken, t.cases);
	/* every kind of case was met: a generator that drifted would hide bugs */
	if (cases >= 10000)
		CHECKF(t.in_narrow && t.in_wide && t.in_v2 && t.in_v1 && t.in_tombstone &&
			   t.in_overflow && t.kept &&
			   t.present && t.absent && t.out_narrow && t.out_wide && t.out_overflow &&
			   t.to_wide && t.to_narrow && t.errors && t.replays,
			   "some kind of case never came up");
}
