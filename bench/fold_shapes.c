/*
 * fold_shapes.c
 *	  Time to read, check, fold and forget folded values of the shapes that
 *	  once cost more than n log n (test/cc_test_shapes.h: flat, chain, star),
 *	  at 10^2, 10^4 and 10^5 records, in the core alone.
 *
 *	  fold_shapes [SECONDS]
 *
 * Prints one line per shape, size and operation: the time of one run in
 * microseconds (the mean over as many runs as fill about 0.2 s).  An
 * operation still running after SECONDS (10 unless told) is stopped and
 * shown as ">" that time.
 *
 *	  text     cc_parse_folded() of the value's text (parse, sort, check)
 *	  binary   what counter_crdt_recv does: header, shards, records, check
 *	  check    cc_fold_check()
 *	  fold     cc_fold_apply() of the first live writer into a new id
 *	  forget   every retired writer forgotten, given in the order that takes
 *	           most rounds one at a time (the chain's last writer first)
 *	  loopK    K = 10 and 1k ids folded into a new id by a loop of
 *	           cc_fold_apply(), what counter_crdt_fold_many ran before 1.6's
 *	           cc_fold_many(); the ids spread over every writer of the shape
 *	           (retired, live, one unknown), repeats when K passes them
 *	  manyK    the same ids by cc_fold_many(), in one pass (the loop again
 *	           when built against a core without it)
 *
 * Built with -DCC_BENCH_OLD against the cc_fold.[ch] of before issue 28
 * (bench/fold_shapes.sh does both), forget is the loop the glue ran then:
 * rounds of cc_fold_forget() over the ids left until none goes.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_fold.h"
#include "cc_text.h"
#include "cc_wire.h"
#include "cc_test_shapes.h"

static volatile size_t sink;
static double limit = 10.0;
static struct timespec started;

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

/* Whether the operation under way has run past the limit. */
static bool
over(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) (t.tv_sec - started.tv_sec) +
		(double) (t.tv_nsec - started.tv_nsec) / 1e9 > limit;
}

static void
die(const char *what, const cc_error *err)
{
	fprintf(stderr, "fold_shapes: %s: %s\n", what, err ? err->detail : "");
	exit(2);
}

typedef struct shape
{
	cc_folded	st;
	uint8_t    *ids;
	size_t		nids;
	char	   *text;
	size_t		textlen;
	unsigned char *wire;
	size_t		wirelen;
	unsigned char *out;
	unsigned char *fout;
	unsigned char *buf;
	void	   *work;
	uint8_t    *many;			/* MANY_IDS ids for loopK and manyK */
	unsigned char *mout;
	unsigned char *mfout;
	void	   *mwork;
} shape;

#define MANY_IDS 1000

enum
{
	OP_TEXT,
	OP_BINARY,
	OP_CHECK,
	OP_FOLD,
	OP_FORGET,
	OP_LOOP10,
	OP_MANY10,
	OP_LOOP1K,
	OP_MANY1K,
	NOPS
};
static const char *const op_names[NOPS] = {"text", "binary", "check", "fold", "forget",
"loop10", "many10", "loop1k", "many1k"};

/* The glue's fold_many of before: cc_fold_apply() of each id in turn. */
static bool
fold_loop(const shape *sh, size_t count, const uint8_t *t)
{
	unsigned char *s[2],
			   *f[2];
	cc_folded	cur = sh->st;
	int			side = 0;
	bool		done = true;

	for (int i = 0; i < 2; i++)
	{
		s[i] = malloc((sh->st.n + count) * CC_SHARD_SIZE);
		f[i] = malloc((sh->st.nf + count) * CC_FOLD_SIZE);
	}
	for (size_t i = 0; i < count; i++)
	{
		size_t		n,
					nf;
		bool		changed;
		cc_error	err;

		if (cc_fold_apply(&cur, sh->many + i * CC_ID_LEN, t, s[side], &n,
						  f[side], &nf, &changed, &err) != CC_OK)
			die("fold loop", &err);
		if (changed)
		{
			cur.shards = s[side];
			cur.n = n;
			cur.folds = f[side];
			cur.nf = nf;
			side = 1 - side;
		}
		if (over())
		{
			done = false;
			break;
		}
	}
	sink += cur.nf;
	for (int i = 0; i < 2; i++)
	{
		free(s[i]);
		free(f[i]);
	}
	return done;
}

#ifdef CC_BENCH_OLD
/* The glue's loop of before: rounds of single forgets until none goes. */
static bool
forget_rounds(const shape *sh)
{
	size_t		left = sh->nids,
				cap = sh->st.nf;
	bool	   *done = calloc(sh->nids, 1);
	unsigned char *s[2],
			   *f[2];
	cc_folded	cur = sh->st;
	int			side = 0;

	for (int i = 0; i < 2; i++)
	{
		s[i] = malloc((sh->st.n + 1) * CC_SHARD_SIZE);
		f[i] = malloc((cap + 1) * CC_FOLD_SIZE);
	}
	while (left > 0)
	{
		bool		progress = false;

		for (size_t i = 0; i < sh->nids; i++)
		{
			size_t		n,
						nf;
			bool		changed;

			if (done[i])
				continue;
			if (cc_fold_forget(&cur, sh->ids + i * CC_ID_LEN, s[side], &n,
							   f[side], &nf, &changed, NULL) != CC_OK)
				continue;
			if (changed)
			{
				cur.shards = s[side];
				cur.n = n;
				cur.folds = f[side];
				cur.nf = nf;
				side = 1 - side;
			}
			done[i] = true;
			left--;
			progress = true;
			if (over())
				break;
		}
		if (!progress || over())
			break;
	}
	sink += cur.nf;
	for (int i = 0; i < 2; i++)
	{
		free(s[i]);
		free(f[i]);
	}
	free(done);
	return left == 0;
}
#endif

/* One run of op; false when it was stopped at the limit. */
static bool
run(const shape *sh, int op)
{
	cc_error	err;
	size_t		n,
				nf;
	bool		changed,
				tomb;

	switch (op)
	{
		case OP_TEXT:
			{
				cc_folded	st;

				if (cc_parse_folded(NULL, sh->text, sh->textlen, sh->buf, &st, &tomb, &err) != CC_OK)
					die("parse", &err);
				sink += st.nf;
				break;
			}
		case OP_BINARY:
			{
				cc_folded	st;

				if (cc_decode_header_folded(sh->wire, sh->wirelen, &n, &nf, &tomb, &err) != CC_OK ||
					cc_decode_shards(sh->wire, n, sh->out, &err) != CC_OK)
					die("decode", &err);
				cc_decode_folds(sh->wire, n, nf, sh->fout);
				st.shards = sh->out;
				st.n = n;
				st.folds = sh->fout;
				st.nf = nf;
				if (cc_fold_check(&st, CC_ERR_BINARY, &err) != CC_OK)
					die("decode check", &err);
				sink += nf;
				break;
			}
		case OP_CHECK:
			if (cc_fold_check(&sh->st, CC_ERR_BINARY, &err) != CC_OK)
				die("check", &err);
			break;
		case OP_FOLD:
			{
				uint8_t		t[CC_ID_LEN];

				cc_test_shape_id(t, 4 * sh->st.nf);
				if (cc_fold_apply(&sh->st, sh->st.shards, t, sh->out, &n, sh->fout, &nf,
								  &changed, &err) != CC_OK)
					die("fold", &err);
				sink += nf;
				break;
			}
		case OP_FORGET:
#ifdef CC_BENCH_OLD
			return forget_rounds(sh);
#else
			if (cc_fold_forget_many(&sh->st, sh->ids, sh->nids, sh->work, sh->out, &n,
									sh->fout, &nf, &changed, &err) != CC_OK)
				die("forget", &err);
			sink += nf;
#endif
			break;
		case OP_LOOP10:
		case OP_LOOP1K:
		case OP_MANY10:
		case OP_MANY1K:
			{
				uint8_t		t[CC_ID_LEN];
				size_t		count = (op == OP_LOOP10 || op == OP_MANY10) ? 10 : MANY_IDS;

				cc_test_shape_id(t, 4 * sh->st.nf);
#ifdef CC_FOLD_MANY_WORK
				if (op == OP_MANY10 || op == OP_MANY1K)
				{
					if (cc_fold_many(&sh->st, sh->many, count, t, sh->mwork, sh->mout, &n,
									 sh->mfout, &nf, &changed, &err) != CC_OK)
						die("fold_many", &err);
					sink += nf;
					break;
				}
#endif
				return fold_loop(sh, count, t);
			}
	}
	return true;
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = {100, 10000, 100000};
	static const char *const kinds[] = {"flat", "chain", "star"};

	if (argc > 1)
		limit = atof(argv[1]);
	printf("%-6s %8s %-7s %14s\n", "shape", "records", "op", "microseconds");
	for (int kind = 0; kind < 3; kind++)
		for (int z = 0; z < 3; z++)
		{
			size_t		k = sizes[z];
			shape		sh;
			unsigned char *shards = malloc(cc_test_shape_shards(k) * CC_SHARD_SIZE),
					   *folds = malloc(k * CC_FOLD_SIZE);

			sh.ids = malloc(k * CC_ID_LEN);
			cc_test_shape((cc_test_shape_kind) kind, k, shards, folds, &sh.st, sh.ids, &sh.nids);
			sh.text = malloc(cc_format_folded_capacity(sh.st.n, sh.st.nf));
			sh.textlen = cc_format_folded(NULL, &sh.st, sh.text);
			sh.wirelen = cc_wire_folded_size(sh.st.n, sh.st.nf);
			sh.wire = malloc(sh.wirelen);
			cc_encode_folded(sh.st.shards, sh.st.n, sh.st.folds, sh.st.nf, sh.wire);
			sh.buf = malloc(cc_parse_capacity(sh.text, sh.textlen) * CC_SHARD_SIZE);
			sh.out = malloc((sh.st.n + 1) * CC_SHARD_SIZE);
			sh.fout = malloc((sh.st.nf + 1) * CC_FOLD_SIZE);
#ifdef CC_FOLD_FORGET_MANY_WORK
			sh.work = malloc(CC_FOLD_FORGET_MANY_WORK(sh.nids));
#else
			sh.work = NULL;
#endif
			/* writers 0..k, and k + 1 that the value does not know */
			sh.many = malloc(MANY_IDS * CC_ID_LEN);
			for (size_t i = 0; i < MANY_IDS; i++)
				cc_test_shape_id(sh.many + i * CC_ID_LEN, (i * 7919 + 1) % (k + 2));
			sh.mout = malloc((sh.st.n + 1) * CC_SHARD_SIZE);
			sh.mfout = malloc((sh.st.nf + MANY_IDS) * CC_FOLD_SIZE);
#ifdef CC_FOLD_MANY_WORK
			sh.mwork = malloc(CC_FOLD_MANY_WORK(MANY_IDS, sh.st.nf));
#else
			sh.mwork = NULL;
#endif
			for (int op = 0; op < NOPS; op++)
			{
				long		runs = 0;
				double		t0 = now(),
							t;
				bool		done = true;

				clock_gettime(CLOCK_MONOTONIC, &started);
				do
				{
					done = run(&sh, op);
					runs++;
					t = now() - t0;
				} while (done && t < 0.2);
				if (done)
					printf("%-6s %8zu %-7s %14.1f\n", kinds[kind], k, op_names[op], 1e6 * t / runs);
				else
					printf("%-6s %8zu %-7s > %.0f\n", kinds[kind], k, op_names[op], 1e6 * limit);
				fflush(stdout);
			}
			free(shards);
			free(folds);
			free(sh.ids);
			free(sh.text);
			free(sh.wire);
			free(sh.buf);
			free(sh.out);
			free(sh.fout);
			free(sh.work);
			free(sh.many);
			free(sh.mout);
			free(sh.mfout);
			free(sh.mwork);
		}
	return 0;
}
