/*
 * core_fold_io.c
 *	  The law of the forms (issue 28, item 4): every value an operation of
 *	  the core returns is one its own input accepts, and input refuses what
 *	  no operation can make.
 *
 * First half: random worlds of a few copies of one counter, each writing as
 * its own writer, run random sequences of the real operations
 * (cc_fold_increment and _at, cc_fold_apply into the copy's writer or
 * another, cc_fold_merge of diverged and old copies, cc_fold_forget of one
 * writer or of several in turn, cc_fold_strip, cc_fold_difference,
 * tombstones).  Every value an operation returns is checked: cc_fold_check
 * accepts it, and it comes back equal (same bytes, cc_fold_compare 0 both
 * ways) through the text form, the JSON form, the binary wire form and the
 * stored form (packed, opened, checked as a stored value is when it comes
 * back from outside, its kept total that of cc_fold_total).  `cases` values
 * are checked.  Also, from the contract of the operations: forget refuses a
 * writer whose shard a counter carries without a record of it, and strip
 * leaves nothing that names the stripped writer.
 *
 * Second half: cyclic fold records (A>B with B>A, A>B>C>A, longer), alone
 * and inside values of the first half, with and without the shards of the
 * writers on the cycle, are values (two crossed folds merge into one) that
 * every input form accepts and gives back; values broken by hand in ways no
 * operation makes are refused by every input form.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_fold.h"
#include "cc_test_folds.h"
#include "cc_test.h"
#include "cc_test_states.h"

#define IO_IDS 8				/* writer ids of a world */
#define IO_N IO_IDS				/* shards of a value, at most */
#define IO_F (IO_IDS * (IO_IDS - 1))	/* records of a value, at most */
#define IO_COPIES 3
#define IO_OLD 3
#define IO_CYCLE 6				/* writers on an added cycle, at most */

typedef struct io_state
{
	/* room for a merge's output before it is normalized */
	unsigned char s[2 * (IO_N + IO_CYCLE) * CC_SHARD_SIZE];
	size_t		n;
	unsigned char f[2 * (IO_F + IO_CYCLE) * CC_FOLD_SIZE];
	size_t		nf;
	bool		tombstone;
} io_state;

/* the operations whose results are checked */
typedef enum io_op
{
	OP_INCREMENT,
	OP_INCREMENT_AT,
	OP_FOLD,
	OP_MERGE,
	OP_FORGET,
	OP_STRIP,
	OP_DIFFERENCE,
	OP_TOMBSTONE,
	OP_COUNT
} io_op;

static const char *const op_name[OP_COUNT] = {
	"increment", "increment_at", "fold", "merge", "forget", "strip",
	"difference", "tombstone"
};

static uint64_t io_rng;

static uint64_t
rr(void)
{
	return cc_test_splitmix(&io_rng);
}

/* what was checked, and what failed, by operation and by form */
static long s_checked[OP_COUNT],
			s_cyclic,
			s_records,
			s_overflow_total,
			s_refused_fold,
			s_forget_refused,
			s_cycles_tried;
static long f_check[OP_COUNT],
			f_text[OP_COUNT],
			f_json[OP_COUNT],
			f_wire[OP_COUNT],
			f_stored[OP_COUNT],
			f_capacity,
			f_merge_commutes,
			f_merge_idem,
			f_difference,
			f_retired,
			f_forget_live,
			f_strip_left;
static long shown;

static cc_folded
io_view(const io_state *x)
{
	cc_folded	v = {x->s, x->n, x->f, x->nf};

	return v;
}

/*
 * Whether the records of x hold a cycle, found apart from the core: records
 * whose target retires nothing are peeled off until none is left to peel;
 * what remains leads, record after record, into a cycle.
 */
static bool
io_cyclic(const io_state *x)
{
	bool		gone[2 * (IO_F + IO_CYCLE)] = {false};
	bool		changed = true;

	while (changed)
	{
		changed = false;
		for (size_t i = 0; i < x->nf; i++)
		{
			bool		leads = false;

			if (gone[i])
				continue;
			for (size_t j = 0; j < x->nf && !leads; j++)
				if (!gone[j] && memcmp(x->f + j * CC_FOLD_SIZE,
									   x->f + i * CC_FOLD_SIZE + CC_ID_LEN,
									   CC_ID_LEN) == 0)
					leads = true;
			if (!leads)
			{
				gone[i] = true;
				changed = true;
			}
		}
	}
	for (size_t i = 0; i < x->nf; i++)
		if (!gone[i])
			return true;
	return false;
}

static void
show_state(const char *what, const io_state *x, const char *detail)
{
	static char buf[65536];
	cc_folded	v = io_view(x);

	if (shown++ >= 12)
		return;
	if (x->tombstone)
		snprintf(buf, sizeof(buf), "tombstone");
	else if (cc_format_folded_capacity(x->n, x->nf) <= sizeof(buf))
		cc_format_folded(NULL, &v, buf);
	else
		snprintf(buf, sizeof(buf), "(too long)");
	fprintf(stderr, "fold_io: %s: %s%s%s\n", what, buf,
			detail ? ": " : "", detail ? detail : "");
}

/* Equal states: flag, bytes, and the order both ways. */
static bool
io_same(const io_state *x, const cc_folded *b, bool tb)
{
	cc_folded	a = io_view(x);

	if (x->tombstone || tb)
		return x->tombstone == tb &&
			cc_fold_compare(&a, x->tombstone, b, tb) == 0 &&
			cc_fold_compare(b, tb, &a, x->tombstone) == 0;
	return b->n == x->n && b->nf == x->nf &&
		(x->n == 0 || memcmp(b->shards, x->s, x->n * CC_SHARD_SIZE) == 0) &&
		(x->nf == 0 || memcmp(b->folds, x->f, x->nf * CC_FOLD_SIZE) == 0) &&
		cc_fold_compare(&a, false, b, false) == 0 &&
		cc_fold_compare(b, false, &a, false) == 0;
}

/* The text form: formatted, read back. */
static bool
io_text(const io_state *x, cc_id_cache *ids, cc_code *code, cc_error *err)
{
	static char buf[65536];
	cc_folded	v = io_view(x),
				back;
	size_t		cap = x->tombstone ? cc_format_capacity(0) :
		cc_format_folded_capacity(x->n, x->nf),
				len;
	unsigned char *room;
	bool		t,
				ok;

	*code = CC_OK;
	if (cap > sizeof(buf))
		return false;
	len = x->tombstone ? cc_format(ids, NULL, 0, true, buf) :
		cc_format_folded(ids, &v, buf);
	if (len + 1 > cap || buf[len] != '\0')
		f_capacity++;
	room = exact_alloc(cc_parse_capacity(buf, len) * CC_SHARD_SIZE);
	*code = cc_parse_folded(ids, buf, len, room, &back, &t, err);
	ok = *code == CC_OK && io_same(x, &back, t);
	free(room);
	return ok;
}

/* The JSON form: formatted, read back. */
static bool
io_json(const io_state *x, cc_id_cache *ids, cc_code *code, cc_error *err)
{
	static char buf[65536];
	cc_folded	v = io_view(x),
				back;
	size_t		cap = x->tombstone ? cc_json_format_capacity(0) :
		cc_json_format_folded_capacity(x->n, x->nf),
				len;
	unsigned char *room;
	bool		t,
				ok;

	*code = CC_OK;
	if (cap > sizeof(buf))
		return false;
	len = x->tombstone ? cc_json_format(ids, NULL, 0, true, buf) :
		cc_json_format_folded(ids, &v, buf);
	if (len + 1 > cap || buf[len] != '\0')
		f_capacity++;
	room = exact_alloc(cc_json_parse_capacity(buf, len) * CC_SHARD_SIZE);
	*code = cc_json_parse_folded(ids, buf, len, room, &back, &t, err);
	ok = *code == CC_OK && io_same(x, &back, t);
	free(room);
	return ok;
}

/*
 * The binary form: encoded, then read as counter_crdt_recv reads it (the
 * header and lengths, the shards, the records checked against them).
 */
static bool
io_wire(const io_state *x, cc_code *code, cc_error *err)
{
	static unsigned char buf[CC_WIRE_HEADER + CC_WIRE_FOLD_COUNT +
							 2 * (IO_N + IO_CYCLE) * CC_SHARD_SIZE +
							 2 * (IO_F + IO_CYCLE) * CC_FOLD_SIZE];
	size_t		len = x->tombstone ? cc_wire_size(0) : cc_wire_folded_size(x->n, x->nf),
				n,
				nf;
	unsigned char *shards,
			   *folds;
	cc_folded	back;
	bool		t,
				ok;

	if (x->tombstone)
		cc_encode(NULL, 0, true, buf);
	else
		cc_encode_folded(x->s, x->n, x->f, x->nf, buf);
	*code = cc_decode_header_folded(buf, len, &n, &nf, &t, err);
	if (*code != CC_OK)
		return false;
	shards = exact_alloc(n * CC_SHARD_SIZE);
	folds = exact_alloc(nf * CC_FOLD_SIZE);
	*code = cc_decode_shards(buf, n, shards, err);
	if (*code == CC_OK && nf > 0)
	{
		cc_decode_folds(buf, n, nf, folds);
		back.shards = shards;
		back.n = n;
		back.folds = folds;
		back.nf = nf;
		*code = cc_fold_check(&back, CC_ERR_BINARY, err);
	}
	back.shards = shards;
	back.n = n;
	back.folds = folds;
	back.nf = nf;
	ok = *code == CC_OK && io_same(x, &back, t);
	free(shards);
	free(folds);
	return ok;
}

/*
 * The stored form: packed as the glue stores a value, opened, and checked
 * as a stored value is when it comes back from outside (the aggregates'
 * deserialization); its kept total is cc_fold_total()'s.
 */
static bool
io_stored(const io_state *x, cc_code *code, cc_error *err)
{
	static unsigned char buf[CC_STORED_FOLDED_SIZE(2 * (IO_N + IO_CYCLE),
												   2 * (IO_F + IO_CYCLE))];
	unsigned char wide[2 * (IO_N + IO_CYCLE) * CC_SHARD_SIZE];
	cc_folded	v = io_view(x),
				back;
	cc_stored	st;
	size_t		len;
	bool		ok;

	if (x->tombstone)
	{
		cc_stored_build_start(buf, true);
		len = cc_stored_pack(buf, 0, true);
	}
	else
	{
		len = cc_stored_pack_folded(buf, &v);
		if (len > CC_STORED_FOLDED_SIZE(x->n, x->nf))
			f_capacity++;
	}
	*code = cc_stored_open(buf, len, &st, err);
	if (*code != CC_OK)
		return false;
	cc_stored_folded(&st, wide, &back);
	*code = cc_check_canonical(back.shards, back.n, CC_ERR_BINARY, err);
	if (*code == CC_OK)
		*code = cc_fold_check(&back, CC_ERR_BINARY, err);
	ok = *code == CC_OK && io_same(x, &back, st.tombstone);
	if (ok && !x->tombstone)
	{
		int64_t		wraps,
					low,
					total;
		cc_code		rc;

		cc_fold_total(&v, &wraps, &low);
		rc = cc_stored_value(&st, &total, NULL);
		if (wraps != 0)
		{
			s_overflow_total++;
			ok = rc == CC_ERR_OVERFLOW;
		}
		else
			ok = rc == CC_OK && total == low;
		/* the inline sum of c::bigint, where it takes the value, agrees */
		{
			int64_t		quick;

			if (cc_stored_v3_quick_sum(buf, len, &quick) &&
				(rc != CC_OK || quick != total))
				ok = false;
		}
	}
	return ok;
}

/*
 * The stored bytes of a value that no operation made, written by hand from
 * the layout of cc_stored.h (cc_stored_pack_folded() takes only checked
 * values: on records out of order its total never ends), opened and
 * checked as stored values from outside are.
 */
static bool
io_stored_raw(const io_state *x, cc_code *code, cc_error *err)
{
	static unsigned char buf[CC_STORED_FOLDED_SIZE(2 * (IO_N + IO_CYCLE),
												   2 * (IO_F + IO_CYCLE))];
	unsigned char wide[2 * (IO_N + IO_CYCLE) * CC_SHARD_SIZE];
	uint32_t	nf = (uint32_t) x->nf,
				pad = 0;
	int64_t		total = 0;
	size_t		len = CC_STORED_FOLDED_SIZE(x->n, x->nf);
	cc_stored	st;
	cc_folded	back;

	buf[0] = CC_STORED_V2;
	buf[1] = CC_STORED_FLAG_FOLDS;
	buf[2] = buf[3] = 0;
	memcpy(buf + 4, &total, sizeof(total));
	memcpy(buf + CC_STORED_HEADER, &nf, sizeof(nf));
	memcpy(buf + CC_STORED_HEADER + 4, &pad, sizeof(pad));
	memcpy(buf + CC_STORED_HEADER + CC_STORED_FOLDS_HEADER, x->f, x->nf * CC_FOLD_SIZE);
	memcpy(buf + CC_STORED_HEADER + CC_STORED_FOLDS_HEADER + x->nf * CC_FOLD_SIZE,
		   x->s, x->n * CC_SHARD_SIZE);
	*code = cc_stored_open(buf, len, &st, err);
	if (*code != CC_OK)
		return false;
	cc_stored_folded(&st, wide, &back);
	*code = cc_check_canonical(back.shards, back.n, CC_ERR_BINARY, err);
	if (*code == CC_OK)
		*code = cc_fold_check(&back, CC_ERR_BINARY, err);
	return *code == CC_OK;
}

/*
 * Checks one value an operation returned; true when cc_fold_check accepts
 * it, and only then does the world go on from it, so that each failure is
 * that of the operation that made it from valid values.
 */
static bool
check_value(const io_state *x, io_op op)
{
	bool		valid = true;
	cc_folded	v = io_view(x);
	cc_error	err;
	cc_code		code;
	cc_id_cache *ids = (rr() % 8 == 0) ? NULL : &cc_test_ids;

	s_checked[op]++;
	if (x->nf > 0)
		s_records++;
	if (!x->tombstone && io_cyclic(x))
		s_cyclic++;
	err.detail[0] = '\0';
	if (!x->tombstone &&
		(cc_check_canonical(x->s, x->n, CC_ERR_BINARY, &err) != CC_OK ||
		 cc_fold_check(&v, CC_ERR_BINARY, &err) != CC_OK))
	{
		valid = false;
		if (f_check[op]++ < 3)
			show_state(op_name[op], x, err.detail);
	}
	err.detail[0] = '\0';
	if (!io_text(x, ids, &code, &err) && f_text[op]++ < 2)
		show_state("text", x, err.detail);
	err.detail[0] = '\0';
	if (!io_json(x, ids, &code, &err) && f_json[op]++ < 2)
		show_state("json", x, err.detail);
	err.detail[0] = '\0';
	if (!io_wire(x, &code, &err) && f_wire[op]++ < 2)
		show_state("wire", x, err.detail);
	err.detail[0] = '\0';
	if (!io_stored(x, &code, &err) && f_stored[op]++ < 2)
		show_state("stored", x, err.detail);
	return valid;
}

/* ------------------------------------------------------------ worlds */

/*
 * The operations on heap copies of exactly their inputs' size, into heap
 * blocks of exactly the room their header promises, so that the sanitizer
 * build sees a read or a write one record past either.
 */
typedef struct io_exact
{
	unsigned char *s;
	unsigned char *f;
} io_exact;

static cc_folded
ex_in(const io_state *x, io_exact *e)
{
	cc_folded	v;

	e->s = exact_copy(x->s, x->n * CC_SHARD_SIZE);
	e->f = exact_copy(x->f, x->nf * CC_FOLD_SIZE);
	v.shards = e->s;
	v.n = x->n;
	v.folds = e->f;
	v.nf = x->nf;
	return v;
}

static void
ex_room(io_exact *e, size_t n, size_t nf)
{
	e->s = exact_alloc(n * CC_SHARD_SIZE);
	e->f = exact_alloc(nf * CC_FOLD_SIZE);
}

/* r gets the output's n shards and nf records; the blocks are freed */
static void
ex_take(io_state *r, io_exact *out, size_t n, size_t nf)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->s, out->s, n * CC_SHARD_SIZE);
	memcpy(r->f, out->f, nf * CC_FOLD_SIZE);
	r->n = n;
	r->nf = nf;
}

static void
ex_free(io_exact *e)
{
	free(e->s);
	free(e->f);
}

static cc_code
x_apply(const io_state *x, const uint8_t *a, const uint8_t *t, io_state *r,
		bool *changed)
{
	io_exact	in,
				out;
	cc_folded	v = ex_in(x, &in);
	size_t		n = 0,
				nf = 0;
	cc_code		code;

	ex_room(&out, x->n + 1, x->nf + 1);
	code = cc_fold_apply(&v, a, t, out.s, &n, out.f, &nf, changed, NULL);
	if (code == CC_OK && *changed)
		ex_take(r, &out, n, nf);
	ex_free(&in);
	ex_free(&out);
	return code;
}

static void
x_merge(const io_state *a, const io_state *b, io_state *r)
{
	io_exact	ia,
				ib,
				out;
	cc_folded	va = ex_in(a, &ia),
				vb = ex_in(b, &ib);
	size_t		n,
				nf;

	ex_room(&out, a->n + b->n, a->nf + b->nf);
	cc_fold_merge(&va, &vb, out.s, &n, out.f, &nf);
	ex_take(r, &out, n, nf);
	ex_free(&ia);
	ex_free(&ib);
	ex_free(&out);
}

static cc_code
x_forget(const io_state *x, const uint8_t *a, io_state *r, bool *changed)
{
	io_exact	in,
				out;
	cc_folded	v = ex_in(x, &in);
	size_t		n = 0,
				nf = 0;
	cc_code		code;

	ex_room(&out, x->n, x->nf);
	code = cc_fold_forget(&v, a, out.s, &n, out.f, &nf, changed, NULL);
	if (code == CC_OK && *changed)
		ex_take(r, &out, n, nf);
	ex_free(&in);
	ex_free(&out);
	return code;
}

static void
x_strip(const io_state *x, const uint8_t *a, io_state *r)
{
	io_exact	in,
				out;
	cc_folded	v = ex_in(x, &in);
	size_t		n,
				nf;

	ex_room(&out, x->n, x->nf);
	cc_fold_strip(&v, a, test_work(CC_FOLD_STRIP_WORK(x->nf)), out.s, &n, out.f, &nf);
	ex_take(r, &out, n, nf);
	ex_free(&in);
	ex_free(&out);
}



static cc_diff_kind
x_difference(const io_state *a, const io_state *b, io_state *d)
{
	io_exact	ia,
				ib,
				out;
	cc_folded	va = ex_in(a, &ia),
				vb = ex_in(b, &ib);
	size_t		n,
				nf;
	cc_diff_kind kind;

	ex_room(&out, a->n, a->nf);
	kind = cc_fold_difference(&va, &vb, test_work(CC_FOLD_DIFFERENCE_WORK(va.n, va.nf)), out.s, &n, out.f, &nf);
	ex_take(d, &out, n, nf);
	ex_free(&ia);
	ex_free(&ib);
	ex_free(&out);
	return kind;
}


typedef struct io_world
{
	uint8_t		id[IO_IDS][CC_ID_LEN];
	io_state	copy[IO_COPIES];
	int			writer[IO_COPIES];	/* index in id, or -1: out of ids */
	int			next_writer;
	bool		departed[IO_IDS];	/* no copy writes as it any more */
	io_state	old[IO_OLD];
	int			nold;
} io_world;

static bool
has_shard(const io_state *x, const uint8_t *id)
{
	for (size_t i = 0; i < x->n; i++)
		if (memcmp(x->s + i * CC_SHARD_SIZE, id, CC_ID_LEN) == 0)
			return true;
	return false;
}

/* Whether id is retired in x: a record names it as such (by memcmp). */
static bool
is_retired(const io_state *x, const uint8_t *id)
{
	for (size_t i = 0; i < x->nf; i++)
		if (memcmp(x->f + i * CC_FOLD_SIZE, id, CC_ID_LEN) == 0)
			return true;
	return false;
}

/* Whether a record of x names id, as retired or as target. */
static bool
names(const io_state *x, const uint8_t *id)
{
	for (size_t i = 0; i < x->nf; i++)
		if (memcmp(x->f + i * CC_FOLD_SIZE, id, CC_ID_LEN) == 0 ||
			memcmp(x->f + i * CC_FOLD_SIZE + CC_ID_LEN, id, CC_ID_LEN) == 0)
			return true;
	return false;
}

static void
new_world(io_world *w)
{
	unsigned	perm[CC_EDGE_IDS];

	for (unsigned k = 0; k < CC_EDGE_IDS; k++)
		perm[k] = k;
	for (unsigned k = CC_EDGE_IDS - 1; k > 0; k--)
	{
		unsigned	j = (unsigned) (rr() % (k + 1)),
					t = perm[k];

		perm[k] = perm[j];
		perm[j] = t;
	}
	for (int k = 0; k < IO_IDS; k++)
	{
		if (rr() % 4 == 0)
			for (int b = 0; b < CC_ID_LEN; b++)
				w->id[k][b] = (uint8_t) rr();
		else
			memcpy(w->id[k], cc_edge_ids[perm[k]], CC_ID_LEN);
	}
	/* random bytes may repeat an edge id: then use the edge ids alone */
	for (int k = 0; k < IO_IDS; k++)
		for (int j = 0; j < k; j++)
			if (memcmp(w->id[k], w->id[j], CC_ID_LEN) == 0)
			{
				for (int q = 0; q < IO_IDS; q++)
					memcpy(w->id[q], cc_edge_ids[perm[q]], CC_ID_LEN);
				break;
			}
	/*
	 * A history the copies share: the writers of the copies and a few that
	 * departed, of random clocks and values (the edges of bigint now and
	 * then).
	 */
	{
		static const int64_t edges[] = {INT64_MAX, INT64_MIN, 0, -1, INT64_MAX - 1};
		int			k = IO_COPIES + (int) (rr() % (IO_IDS - IO_COPIES));
		cc_shard	sh[IO_IDS];
		io_state	base;

		memset(&base, 0, sizeof(base));
		for (int q = 0; q < k; q++)
		{
			memcpy(sh[q].id, w->id[q], CC_ID_LEN);
			sh[q].clock = rr() % 16 == 0 ? INT64_MAX - (int64_t) (rr() % 2)
				: 1 + (int64_t) (rr() % 4);
			sh[q].value = rr() % 8 == 0 ? edges[rr() % 5] : (int64_t) (rr() % 201) - 100;
		}
		cc_test_sort_by_id(sh, (size_t) k);
		for (int q = 0; q < k; q++)
			cc_store(base.s, (size_t) q, &sh[q]);
		base.n = (size_t) (rr() % 4 == 0 ? 0 : k);
		for (int i = 0; i < IO_COPIES; i++)
		{
			w->copy[i] = base;
			w->writer[i] = i;
		}
		for (int q = 0; q < IO_IDS; q++)
			w->departed[q] = q >= IO_COPIES && q < k;
		w->next_writer = k;
	}
	w->nold = 0;
}

static int64_t
rnd_delta(void)
{
	static const int64_t edges[] = {INT64_MAX, INT64_MIN, (int64_t) 1 << 62,
	-((int64_t) 1 << 62), 0};

	if (rr() % 16 == 0)
		return edges[rr() % 5];
	return (int64_t) (rr() % 21) - 10;
}

/* A writer of the world for an operation: mostly one the copy knows. */
static const uint8_t *
pick_id(const io_world *w, const io_state *x)
{
	uint64_t	p = rr();

	if (p % 3 == 0 && x->nf > 0)
		return x->f + (p / 3 % x->nf) * CC_FOLD_SIZE + (p % 2) * CC_ID_LEN;
	if (p % 3 == 1 && x->n > 0)
		return x->s + (p / 3 % x->n) * CC_SHARD_SIZE;
	return w->id[p / 3 % IO_IDS];
}

/* Copy i's writer departs (a failover, a restore): the copy takes a new id. */
static void
depart(io_world *w, int i)
{
	if (w->writer[i] >= 0)
		w->departed[w->writer[i]] = true;
	w->writer[i] = w->next_writer < IO_IDS ? w->next_writer++ : -1;
}

/* Whether id is the writer of a copy. */
static bool
is_live(const io_world *w, const uint8_t *id)
{
	for (int i = 0; i < IO_COPIES; i++)
		if (w->writer[i] >= 0 && memcmp(w->id[w->writer[i]], id, CC_ID_LEN) == 0)
			return true;
	return false;
}

static void
op_increment(io_world *w, int i)
{
	io_state   *x = &w->copy[i];
	io_state	r;
	cc_folded	v = io_view(x);
	const uint8_t *id;
	cc_code		code;

	if (w->writer[i] < 0)
		return;
	id = w->id[w->writer[i]];
	memset(&r, 0, sizeof(r));
	if (rr() % 4 == 0)
	{
		int64_t		clock = 1;
		bool		applied;

		for (size_t k = 0; k < x->n; k++)
			if (memcmp(x->s + k * CC_SHARD_SIZE, id, CC_ID_LEN) == 0)
				memcpy(&clock, x->s + k * CC_SHARD_SIZE + CC_ID_LEN, sizeof(clock));
		if (clock < INT64_MAX - 3)
			clock += (int64_t) (rr() % 3);
		code = cc_fold_increment_at(&v, id, rnd_delta(), clock, r.s, &r.n,
									&applied, NULL);
		if (code == CC_OK && applied)
		{
			memcpy(r.f, x->f, x->nf * CC_FOLD_SIZE);
			r.nf = x->nf;
			if (check_value(&r, OP_INCREMENT_AT))
				*x = r;
		}
	}
	else
	{
		code = cc_fold_increment(&v, id, rnd_delta(), rr() % 4 == 0, r.s, &r.n, NULL);
		if (code == CC_OK)
		{
			memcpy(r.f, x->f, x->nf * CC_FOLD_SIZE);
			r.nf = x->nf;
			if (check_value(&r, OP_INCREMENT))
				*x = r;
		}
	}
	if ((code == CC_ERR_RETIRED) != is_retired(x, id))
		f_retired++;
	if (code == CC_ERR_RETIRED)
		depart(w, i);			/* the glue refuses; the server takes a new id */
}

/*
 * A fold as the glue runs it: on copy i, a writer that departed into the
 * copy's own writer.  Writers that still write are never folded (the
 * glue's retired list refuses them), so no fold is crossed by another and
 * no cycle is made (crossed_folds() shows the one that would be).
 */
static void
op_fold(io_world *w, int i)
{
	io_state   *x = &w->copy[i];
	io_state	r;
	const uint8_t *a = NULL;
	bool		changed;
	cc_code		code;

	if (w->writer[i] < 0)
		return;
	for (int tries = 0; tries < 6 && a == NULL; tries++)
	{
		const uint8_t *c = pick_id(w, x);

		if (!is_live(w, c))
			a = c;
	}
	if (a == NULL)
		return;
	code = x_apply(x, a, w->id[w->writer[i]], &r, &changed);
	if (code == CC_OK && changed)
	{
		if (check_value(&r, OP_FOLD))
			*x = r;
	}
	else if (code != CC_OK)
		s_refused_fold++;
}

static void
merge_into(io_state *x, const io_state *y)
{
	io_state	r,
				r2;

	memset(&r, 0, sizeof(r));
	if (x->tombstone || y->tombstone)
	{
		r.tombstone = true;
		check_value(&r, OP_MERGE);
		*x = r;
		return;
	}
	x_merge(x, y, &r);
	x_merge(y, x, &r2);
	if (r.n != r2.n || r.nf != r2.nf ||
		memcmp(r.s, r2.s, r.n * CC_SHARD_SIZE) != 0 ||
		memcmp(r.f, r2.f, r.nf * CC_FOLD_SIZE) != 0)
	{
		if (f_merge_commutes++ < 3)
		{
			show_state("merge(a, b)", &r, NULL);
			show_state("merge(b, a)", &r2, NULL);
		}
	}
	if (rr() % 8 == 0)
	{
		cc_folded	vr = io_view(&r);

		memset(&r2, 0, sizeof(r2));
		cc_fold_merge(&vr, &vr, r2.s, &r2.n, r2.f, &r2.nf);
		if (r.n != r2.n || r.nf != r2.nf ||
			memcmp(r.s, r2.s, r.n * CC_SHARD_SIZE) != 0 ||
			memcmp(r.f, r2.f, r.nf * CC_FOLD_SIZE) != 0)
			f_merge_idem++;
	}
	if (check_value(&r, OP_MERGE))
		*x = r;
}

/* forget of one writer, or of several in turn; the contract's refusal */
static void
op_forget(io_world *w, int i)
{
	io_state   *x = &w->copy[i];
	int			k = rr() % 3 == 0 ? 1 + (int) (rr() % 3) : 1;

	if (x->tombstone)
		return;
	for (int q = 0; q < k; q++)
	{
		io_state	r;
		const uint8_t *a = (x->nf > 0 && rr() % 3 != 0)
			? x->f + (rr() % x->nf) * CC_FOLD_SIZE : pick_id(w, x);
		bool		changed;
		cc_code		code;
		bool		live = has_shard(x, a) && !is_retired(x, a);

		code = x_forget(x, a, &r, &changed);
		/* a writer whose shard is there without a record is not forgotten */
		if (live && code != CC_ERR_ARGUMENT)
		{
			if (f_forget_live++ < 2)
				show_state("forget of a live writer accepted", x, NULL);
		}
		if (code == CC_OK && changed)
		{
			if (check_value(&r, OP_FORGET))
				*x = r;
		}
		else if (code != CC_OK)
			s_forget_refused++;
	}
}

/* strip of one writer or several, from the copy or from an old copy */
static void
op_strip(io_world *w, int i)
{
	io_state   *x = (w->nold > 0 && rr() % 2) ? &w->old[rr() % (unsigned) w->nold]
		: &w->copy[i];
	int			k = rr() % 3 == 0 ? 2 : 1;

	if (x->tombstone)
		return;
	for (int q = 0; q < k; q++)
	{
		io_state	r;
		uint8_t		a[CC_ID_LEN];

		memcpy(a, pick_id(w, x), CC_ID_LEN);
		x_strip(x, a, &r);
		if (has_shard(&r, a) || names(&r, a))
		{
			if (f_strip_left++ < 2)
				show_state("strip left the writer named", &r, NULL);
		}
		if (check_value(&r, OP_STRIP))
			*x = r;
	}
}

static void
op_difference(io_world *w, int i, int j)
{
	const io_state *a = &w->copy[i],
			   *b = (w->nold > 0 && rr() % 3 == 0) ? &w->old[rr() % (unsigned) w->nold]
		: &w->copy[j];
	io_state	d,
				m1,
				m2;
	cc_folded	va = io_view(a),
				vb = io_view(b),
				vd;
	cc_diff_kind kind;

	if (a->tombstone || b->tombstone)
		return;
	kind = x_difference(a, b, &d);
	/* merge(b, difference(a, b)) = merge(a, b) */
	memset(&m1, 0, sizeof(m1));
	memset(&m2, 0, sizeof(m2));
	cc_fold_merge(&va, &vb, m1.s, &m1.n, m1.f, &m1.nf);
	vd = io_view(&d);
	cc_fold_merge(&vb, &vd, m2.s, &m2.n, m2.f, &m2.nf);
	if (m1.n != m2.n || m1.nf != m2.nf ||
		memcmp(m1.s, m2.s, m1.n * CC_SHARD_SIZE) != 0 ||
		memcmp(m1.f, m2.f, m1.nf * CC_FOLD_SIZE) != 0)
		f_difference++;
	if (kind != CC_DIFF_NONE)
		check_value(&d, OP_DIFFERENCE);	/* what the SQL function returns */
}

static void
step(io_world *w)
{
	int			i = (int) (rr() % IO_COPIES),
				j = (int) (rr() % IO_COPIES);
	unsigned	op = (unsigned) (rr() % 100);

	/* a tombstone only merges */
	if (w->copy[i].tombstone && !(op >= 46 && op < 68) && op < 99)
		return;
	if (op < 25)
		op_increment(w, i);
	else if (op < 46)
		op_fold(w, i);
	else if (op < 62)
	{
		if (i != j)
			merge_into(&w->copy[i], &w->copy[j]);
	}
	else if (op < 68)
	{
		/* a late copy: a backlog, a backup */
		if (w->nold > 0)
			merge_into(&w->copy[i], &w->old[rr() % (unsigned) w->nold]);
	}
	else if (op < 70)
		depart(w, i);
	else if (op < 73)
	{
		if (w->nold < IO_OLD)
			w->old[w->nold++] = w->copy[i];
		else
			w->old[rr() % IO_OLD] = w->copy[i];
	}
	else if (op < 80)
		op_forget(w, i);
	else if (op < 86)
		op_strip(w, i);
	else if (op < 99)
		op_difference(w, i, j);
	else
	{
		/* a delete: the copy is a tombstone from now on */
		io_state	r;

		memset(&r, 0, sizeof(r));
		r.tombstone = true;
		check_value(&r, OP_TOMBSTONE);
		w->copy[i] = r;
	}
}

/* ------------------------------------------------------------ cycles */

/* Sorts records by (retired, target) with memcmp, apart from the core. */
static void
sort_records(unsigned char *f, size_t nf)
{
	for (size_t i = 1; i < nf; i++)
		for (size_t j = i; j > 0 &&
			 memcmp(f + (j - 1) * CC_FOLD_SIZE, f + j * CC_FOLD_SIZE, 2 * CC_ID_LEN) > 0; j--)
		{
			unsigned char t[CC_FOLD_SIZE];

			memcpy(t, f + j * CC_FOLD_SIZE, CC_FOLD_SIZE);
			memcpy(f + j * CC_FOLD_SIZE, f + (j - 1) * CC_FOLD_SIZE, CC_FOLD_SIZE);
			memcpy(f + (j - 1) * CC_FOLD_SIZE, t, CC_FOLD_SIZE);
		}
}

static void
sort_shards(unsigned char *s, size_t n)
{
	cc_shard	sh[2 * (IO_N + IO_CYCLE)];

	for (size_t i = 0; i < n; i++)
		cc_load(s, i, &sh[i]);
	cc_test_sort_by_id(sh, n);
	for (size_t i = 0; i < n; i++)
		cc_store(s, i, &sh[i]);
}

/* refusals missed, by form: the check, text, JSON, binary, stored */
enum
{
	R_CHECK, R_TEXT, R_JSON, R_WIRE, R_STORED, R_FORMS
};
static long f_cycle[R_FORMS],
			f_bad[R_FORMS],
			s_bad_tried;

/*
 * Every input form refuses x: the text and JSON forms as syntax errors, the
 * binary and stored forms as binary ones (records merely out of order:
 * these two alone).  Misses are counted in fails.
 */
static void
check_refused(const io_state *x, const char *what, bool any_order, long *fails)
{
	cc_folded	v = io_view(x);
	cc_error	err;
	cc_code		code;

	err.detail[0] = '\0';
	if (cc_fold_check(&v, CC_ERR_SYNTAX, &err) != CC_ERR_SYNTAX || err.detail[0] == '\0')
	{
		if (fails[R_CHECK]++ < 2)
			show_state(what, x, "accepted by cc_fold_check");
	}
	/* text and JSON take records in any order, and sort them */
	if (!any_order && (io_text(x, &cc_test_ids, &code, &err) || code != CC_ERR_SYNTAX))
		fails[R_TEXT]++;
	if (!any_order && (io_json(x, &cc_test_ids, &code, &err) || code != CC_ERR_SYNTAX))
		fails[R_JSON]++;
	if (io_wire(x, &code, &err) || code != CC_ERR_BINARY)
		fails[R_WIRE]++;
	if (io_stored_raw(x, &code, &err) || code != CC_ERR_BINARY)
		fails[R_STORED]++;
}

/*
 * Cyclic records (A>B with B>A, or longer) are values: two servers that
 * fold each other's writer at once make one when their values merge, so
 * every input form accepts them and gives them back as they were.
 */
static void
check_cycle_accepted(const io_state *x, const char *what)
{
	cc_folded	v = io_view(x);
	cc_error	err;
	cc_code		code;

	s_cycles_tried++;
	err.detail[0] = '\0';
	if (cc_fold_check(&v, CC_ERR_SYNTAX, &err) != CC_OK && f_cycle[R_CHECK]++ < 2)
		show_state(what, x, err.detail);
	if (!io_text(x, &cc_test_ids, &code, &err))
		f_cycle[R_TEXT]++;
	if (!io_json(x, &cc_test_ids, &code, &err))
		f_cycle[R_JSON]++;
	if (!io_wire(x, &code, &err))
		f_cycle[R_WIRE]++;
	if (!io_stored(x, &code, &err))
		f_cycle[R_STORED]++;
}

/* Adds record (a, t) and, when with_shard, a shard of a past the record. */
static void
add_record(io_state *x, const uint8_t *a, const uint8_t *t, int64_t tclock,
		   int64_t aclock, int64_t avalue, int64_t absorbed)
{
	cc_fold		f = cc_test_fold_record(a, t, tclock, aclock, avalue, absorbed);

	cc_fold_store(x->f, x->nf++, &f);
}

static void
add_shard(io_state *x, const uint8_t *id, int64_t clock, int64_t value)
{
	cc_shard	sh;

	memcpy(sh.id, id, CC_ID_LEN);
	sh.clock = clock;
	sh.value = value;
	cc_store(x->s, x->n++, &sh);
}

/* The cycles written by hand: two and three writers, shards or none. */
static void
cycles_by_hand(void)
{
	const uint8_t *A = cc_edge_ids[3],
			   *B = cc_edge_ids[2],
			   *C = cc_edge_ids[5],
			   *D = cc_edge_ids[0];
	io_state	x;

	/* A>B with B>A, no shards: nothing else is wrong with it */
	memset(&x, 0, sizeof(x));
	add_record(&x, A, B, 1, 1, 10, 10);
	add_record(&x, B, A, 1, 1, 20, 20);
	sort_records(x.f, x.nf);
	check_cycle_accepted(&x, "A>B, B>A");
	/* with both shards past the records (as two crossed folds leave) */
	add_shard(&x, A, 2, 30);
	add_shard(&x, B, 2, 30);
	sort_shards(x.s, x.n);
	check_cycle_accepted(&x, "A>B, B>A with shards");
	/* with one shard, and a live writer beside */
	memset(&x, 0, sizeof(x));
	add_record(&x, A, B, 3, 5, 100, 100);
	add_record(&x, B, A, 1, 4, 10, 10);
	add_shard(&x, B, 6, 12);
	add_shard(&x, D, 1, 7);
	sort_records(x.f, x.nf);
	sort_shards(x.s, x.n);
	check_cycle_accepted(&x, "A>B, B>A with B's shard");
	/* A>B>C>A */
	memset(&x, 0, sizeof(x));
	add_record(&x, A, B, 1, 1, 1, 1);
	add_record(&x, B, C, 1, 1, 2, 2);
	add_record(&x, C, A, 1, 1, 3, 3);
	sort_records(x.f, x.nf);
	check_cycle_accepted(&x, "A>B>C>A");
	/* the same with a tail into it and a finished fold beside it */
	add_record(&x, D, A, 1, 1, 4, 4);
	sort_records(x.f, x.nf);
	check_cycle_accepted(&x, "D>A, A>B>C>A");
	/* A>B>C>A where C also folded into a live writer D */
	memset(&x, 0, sizeof(x));
	add_record(&x, A, B, 1, 1, 1, 1);
	add_record(&x, B, C, 1, 1, 2, 2);
	add_record(&x, C, A, 1, 1, 3, 3);
	add_record(&x, C, D, 2, 1, 3, 0);
	add_shard(&x, D, 2, 0);
	sort_records(x.f, x.nf);
	check_cycle_accepted(&x, "A>B>C>A, C>D");
}

/*
 * A value of the worlds broken in one way that no operation can make, each
 * a rule of cc_fold_check() (cc_fold.h): a target left without its shard,
 * a tclock past the target's clock, a retired writer's shard at or below
 * its records' aclock, a record naming one writer twice, a clock below 1,
 * records out of order or twice.  The record is any of the value's, not
 * only the first of its writer.
 */
static void
broken_by_hand(const io_state *base)
{
	io_state	x = *base;
	size_t		i,
				pos = 0;
	cc_fold		f;
	bool		target_shard = false;
	int			kind = (int) (rr() % 6);
	bool		swapped = false;
	static const char *const what[6] = {
		"a target without its shard", "a tclock past the target's clock",
		"a retired writer's shard its records have seen", "one writer as retired and target",
		"a clock below 1", "records out of order or twice"
	};

	if (base->tombstone || base->nf == 0)
		return;
	i = rr() % base->nf;
	cc_fold_load(x.f, i, &f);
	for (size_t k = 0; k < x.n; k++)
		if (memcmp(x.s + k * CC_SHARD_SIZE, f.target, CC_ID_LEN) == 0)
		{
			target_shard = true;
			pos = k;
		}
	switch (kind)
	{
		case 0:
		case 1:
			if (is_retired(&x, f.target) || !target_shard)
				return;
			if (kind == 0)
			{
				memmove(x.s + pos * CC_SHARD_SIZE, x.s + (pos + 1) * CC_SHARD_SIZE,
						(x.n - pos - 1) * CC_SHARD_SIZE);
				x.n--;
			}
			else
			{
				cc_shard	sh;

				cc_load(x.s, pos, &sh);
				if (sh.clock == INT64_MAX)
					return;
				f.tclock = sh.clock + 1;
				cc_fold_store(x.f, i, &f);
			}
			break;
		case 2:
			{
				int64_t		top = 0;
				bool		had = false;

				for (size_t k = 0; k < x.nf; k++)
				{
					cc_fold		g;

					cc_fold_load(x.f, k, &g);
					if (memcmp(g.retired, f.retired, CC_ID_LEN) == 0 && g.aclock > top)
						top = g.aclock;
				}
				for (size_t k = 0; k < x.n; k++)
					if (memcmp(x.s + k * CC_SHARD_SIZE, f.retired, CC_ID_LEN) == 0)
					{
						int64_t		clock = 1 + (int64_t) (rr() % (uint64_t) top);

						memcpy(x.s + k * CC_SHARD_SIZE + CC_ID_LEN, &clock, sizeof(clock));
						had = true;
					}
				if (!had)
				{
					add_shard(&x, f.retired, 1 + (int64_t) (rr() % (uint64_t) top),
							  (int64_t) (rr() % 21) - 10);
					sort_shards(x.s, x.n);
				}
			}
			break;
		case 3:
			memcpy(f.target, f.retired, CC_ID_LEN);
			cc_fold_store(x.f, i, &f);
			sort_records(x.f, x.nf);
			break;
		case 4:
			{
				static const int64_t low[] = {0, -1, INT64_MIN};

				if (rr() % 2)
					f.tclock = low[rr() % 3];
				else
					f.aclock = low[rr() % 3];
				cc_fold_store(x.f, i, &f);
			}
			break;
		case 5:
			if (x.nf >= 2 && rr() % 2)
			{
				unsigned char t[CC_FOLD_SIZE];
				size_t		j = i + 1 < x.nf ? i + 1 : i - 1;

				memcpy(t, x.f + i * CC_FOLD_SIZE, CC_FOLD_SIZE);
				memcpy(x.f + i * CC_FOLD_SIZE, x.f + j * CC_FOLD_SIZE, CC_FOLD_SIZE);
				memcpy(x.f + j * CC_FOLD_SIZE, t, CC_FOLD_SIZE);
				swapped = true;
			}
			else
			{
				memmove(x.f + (i + 1) * CC_FOLD_SIZE, x.f + i * CC_FOLD_SIZE,
						(x.nf - i) * CC_FOLD_SIZE);
				x.nf++;
			}
			break;
	}
	s_bad_tried++;
	check_refused(&x, what[kind], swapped, f_bad);
}

/*
 * A random cycle of 2 to IO_CYCLE fresh writers added to a value the
 * operations made (its own records and shards untouched): records
 * c[k] > c[k+1] with random fields, and for some writers on the cycle a
 * shard past their records' aclock, so that the cycle is the only fault.
 */
static void
random_cycle(const io_state *base)
{
	io_state	x = *base;
	uint8_t		c[IO_CYCLE][CC_ID_LEN];
	int			k = 2 + (int) (rr() % (IO_CYCLE - 1));

	for (int q = 0; q < k; q++)
		for (int b = 0; b < CC_ID_LEN; b++)
			c[q][b] = (uint8_t) rr();
	for (int q = 0; q < k; q++)
	{
		int64_t		aclock = 1 + (int64_t) (rr() % 5);

		add_record(&x, c[q], c[(q + 1) % k], 1 + (int64_t) (rr() % 5), aclock,
				   (int64_t) (rr() % 201) - 100, (int64_t) (rr() % 201) - 100);
		if (rr() % 2)
			add_shard(&x, c[q], aclock + 1 + (int64_t) (rr() % 3),
					  (int64_t) (rr() % 201) - 100);
	}
	sort_records(x.f, x.nf);
	sort_shards(x.s, x.n);
	check_cycle_accepted(&x, "a random cycle");
}

/*
 * Two folds crossed on two servers, A into B on one and B into A on the
 * other, merged: the records A>B and B>A, each writer's shard past the
 * other's record.  The merge of two values is a value: the first half's
 * law, shown on the one shape of operations that makes a cycle.
 */
static void
crossed_folds(void)
{
	const uint8_t *A = cc_edge_ids[3],
			   *B = cc_edge_ids[2];
	io_state	x,
				ab,
				ba,
				m;
	cc_folded	v,
				vab,
				vba,
				vm;
	bool		changed;
	cc_error	err;

	memset(&x, 0, sizeof(x));
	add_shard(&x, B, 5, 20);
	add_shard(&x, A, 3, 10);
	sort_shards(x.s, x.n);
	v = io_view(&x);
	memset(&ab, 0, sizeof(ab));
	memset(&ba, 0, sizeof(ba));
	memset(&m, 0, sizeof(m));
	CHECK(cc_fold_apply(&v, A, B, ab.s, &ab.n, ab.f, &ab.nf, &changed, NULL) == CC_OK && changed);
	CHECK(cc_fold_apply(&v, B, A, ba.s, &ba.n, ba.f, &ba.nf, &changed, NULL) == CC_OK && changed);
	vab = io_view(&ab);
	vba = io_view(&ba);
	cc_fold_merge(&vab, &vba, m.s, &m.n, m.f, &m.nf);
	CHECK(m.nf == 2 && m.n == 2 && io_cyclic(&m));
	vm = io_view(&m);
	err.detail[0] = '\0';
	CHECKF(cc_fold_check(&vm, CC_ERR_BINARY, &err) == CC_OK,
		   "crossed folds (A into B on one server, B into A on another) merge into "
		   "a value that input refuses: %s", err.detail);
}

/*
 * The contract of strip and forget, by hand (issue 28, items 3 and 5).
 * Strip drops the records whose target is the stripped writer, and then
 * those whose target is left neither retired nor with a shard, in turn, so
 * that what it returns is a value; forget refuses a writer whose shard a
 * counter carries without a record of it.
 */
static void
contract_by_hand(void)
{
	const uint8_t *A = cc_edge_ids[3],
			   *B = cc_edge_ids[2],
			   *C = cc_edge_ids[5],
			   *D = cc_edge_ids[0];
	io_state	x,
				r;
	cc_folded	v;
	bool		changed;
	cc_code		code;

	/* A into B, then B into C: strip C leaves no record (B>C goes, then A>B) */
	memset(&x, 0, sizeof(x));
	add_shard(&x, C, 3, 117);
	add_shard(&x, D, 1, 5);
	add_record(&x, A, B, 4, 5, 100, 100);
	add_record(&x, B, C, 3, 4, 110, 110);
	sort_records(x.f, x.nf);
	sort_shards(x.s, x.n);
	v = io_view(&x);
	CHECK(cc_fold_check(&v, CC_ERR_BINARY, NULL) == CC_OK);
	memset(&r, 0, sizeof(r));
	cc_fold_strip(&v, C, test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
	CHECKF(r.n == 1 && r.nf == 0 && check_value(&r, OP_STRIP),
		   "strip of C after A into B into C: %zu shards, %zu records left (want 1, 0)",
		   r.n, r.nf);
	/* strip B, in the middle: B>C goes; A>B goes with it (B neither retired nor there) */
	memset(&r, 0, sizeof(r));
	cc_fold_strip(&v, B, test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
	CHECKF(r.n == 2 && r.nf == 0 && check_value(&r, OP_STRIP),
		   "strip of B after A into B into C: %zu shards, %zu records left (want 2, 0)",
		   r.n, r.nf);
	/* strip A: the first link goes, B>C stays and is a value */
	memset(&r, 0, sizeof(r));
	cc_fold_strip(&v, A, test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
	CHECK(r.n == 2 && r.nf == 1 && check_value(&r, OP_STRIP));
	/* a record into a live writer that keeps its shard elsewhere stays:
	 * strip of D (not on the chain) changes no record */
	memset(&r, 0, sizeof(r));
	cc_fold_strip(&v, D, test_work(CC_FOLD_STRIP_WORK(v.nf)), r.s, &r.n, r.f, &r.nf);
	CHECK(r.n == 1 && r.nf == 2 && check_value(&r, OP_STRIP));

	/*
	 * Forget of a writer with a shard and no record: refused, out untouched.
	 * On one server {a:1:10, c:3:30}; had c been forgotten there, the folded
	 * copy {a:2:40} folded {c>a:2:3:30:30} would count 70, not 40.
	 */
	memset(&x, 0, sizeof(x));
	add_shard(&x, A, 1, 10);
	add_shard(&x, C, 3, 30);
	sort_shards(x.s, x.n);
	v = io_view(&x);
	memset(&r, 0xee, sizeof(r));
	code = cc_fold_forget(&v, C, r.s, &r.n, r.f, &r.nf, &changed, NULL);
	CHECKF(code == CC_ERR_ARGUMENT && !changed,
		   "forget of a writer whose shard is there without a record: code %d, changed %d",
		   (int) code, (int) changed);
	{
		io_state	folded;
		cc_folded	vf,
					vm;
		io_state	m;
		int64_t		wraps,
					low;

		memset(&folded, 0, sizeof(folded));
		add_shard(&folded, A, 2, 40);
		add_record(&folded, C, A, 2, 3, 30, 30);
		vf = io_view(&folded);
		memset(&m, 0, sizeof(m));
		cc_fold_merge(&v, &vf, m.s, &m.n, m.f, &m.nf);
		vm = io_view(&m);
		cc_fold_total(&vm, &wraps, &low);
		CHECK(wraps == 0 && low == 40);
	}
	/* an unknown writer: nothing to forget, unchanged */
	code = cc_fold_forget(&v, B, r.s, &r.n, r.f, &r.nf, &changed, NULL);
	CHECK(code == CC_OK && !changed);
}

void
test_fold_io(long cases)
{
	static io_world w;
	const char *seed_env = getenv("CC_TEST_SEED");
	long		checked = 0,
				worlds = 0,
				cycles = 0;

	io_rng = seed_env ? strtoull(seed_env, NULL, 0) : 0xf01d10ULL;
	memset(s_checked, 0, sizeof(s_checked));

	while (checked < cases)
	{
		int			steps = 20 + (int) (rr() % 40);

		new_world(&w);
		worlds++;
		for (int t = 0; t < steps && checked < cases; t++)
		{
			step(&w);
			checked = 0;
			for (int op = 0; op < OP_COUNT; op++)
				checked += s_checked[op];
		}
		/* a value of this world broken by hand, every world */
		broken_by_hand(&w.copy[rr() % IO_COPIES]);
		/* a cycle added to a value of this world, one world in eight */
		if (worlds % 8 == 0)
		{
			const io_state *base = &w.copy[rr() % IO_COPIES];

			if (!base->tombstone)
			{
				random_cycle(base);
				cycles++;
			}
		}
	}
	cycles_by_hand();
	contract_by_hand();
	crossed_folds();

	printf("fold_io: %ld values checked in %ld worlds (increment %ld, increment_at %ld, "
		   "fold %ld, merge %ld, forget %ld, strip %ld, difference %ld, tombstone %ld); "
		   "%ld with records, %ld cyclic, %ld totals past bigint; %ld folds and %ld forgets "
		   "refused; %ld cyclic values and %ld values broken by hand offered to the input forms\n",
		   checked, worlds, s_checked[OP_INCREMENT], s_checked[OP_INCREMENT_AT],
		   s_checked[OP_FOLD], s_checked[OP_MERGE], s_checked[OP_FORGET],
		   s_checked[OP_STRIP], s_checked[OP_DIFFERENCE], s_checked[OP_TOMBSTONE],
		   s_records, s_cyclic, s_overflow_total, s_refused_fold, s_forget_refused,
		   s_cycles_tried, s_bad_tried);
	for (int op = 0; op < OP_COUNT; op++)
	{
		CHECKF(f_check[op] == 0, "%ld of %ld values made by %s refused by cc_fold_check",
			   f_check[op], s_checked[op], op_name[op]);
		CHECKF(f_text[op] == 0, "%ld of %ld values made by %s not read back from text",
			   f_text[op], s_checked[op], op_name[op]);
		CHECKF(f_json[op] == 0, "%ld of %ld values made by %s not read back from JSON",
			   f_json[op], s_checked[op], op_name[op]);
		CHECKF(f_wire[op] == 0, "%ld of %ld values made by %s not read back from the binary form",
			   f_wire[op], s_checked[op], op_name[op]);
		CHECKF(f_stored[op] == 0, "%ld of %ld values made by %s not read back from the stored form",
			   f_stored[op], s_checked[op], op_name[op]);
	}
	CHECKF(cases < 1000 || (s_checked[OP_FOLD] > 0 && s_checked[OP_FORGET] > 0 &&
							s_checked[OP_STRIP] > 0 && s_checked[OP_DIFFERENCE] > 0 &&
							s_checked[OP_TOMBSTONE] > 0 && s_records > cases / 4),
		   "the worlds did not reach every operation");
	CHECKF(s_cyclic == 0, "%ld values with cyclic records made by the operations", s_cyclic);
	CHECKF(f_capacity == 0, "%ld outputs longer than their capacity said", f_capacity);
	CHECKF(f_merge_commutes == 0, "%ld merges that depend on their order", f_merge_commutes);
	CHECKF(f_merge_idem == 0, "%ld values that change when merged with themselves", f_merge_idem);
	CHECKF(f_difference == 0, "%ld differences whose merge is not the merge", f_difference);
	CHECKF(f_retired == 0, "%ld increments refused or let through against the records", f_retired);
	CHECKF(f_forget_live == 0, "%ld forgets of a writer whose shard is there without a record not refused",
		   f_forget_live);
	CHECKF(f_strip_left == 0, "%ld strips that left a record naming the stripped writer", f_strip_left);
	{
		static const char *const form[R_FORMS] = {
			"cc_fold_check", "the text input", "the JSON input", "the binary input",
			"the stored form's check"
		};

		for (int k = 0; k < R_FORMS; k++)
		{
			CHECKF(f_cycle[k] == 0, "%ld of %ld cyclic values refused or changed by %s",
				   f_cycle[k], s_cycles_tried, form[k]);
			CHECKF(f_bad[k] == 0, "%ld of %ld values broken by hand accepted by %s",
				   f_bad[k], s_bad_tried, form[k]);
		}
	}
	CHECKF(cases < 1000 || s_bad_tried > cases / 100, "only %ld values broken by hand", s_bad_tried);
	(void) cycles;
}
