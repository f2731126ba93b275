/*
 * microbench.c
 *	  Micro-benchmarks of the core's hot operations, for exact comparison
 *	  between versions.
 *
 *	  microbench OP ITERATIONS
 *
 * OP is one of merge8 (two 8-shard states, half the ids shared), increment
 * (a 3-shard state), inc_glue and inc_stored (c + 1 on a stored value of 3
 * small shards (version 3): widened, incremented and packed, or where it lies),
 * inc_at_glue and inc_at_stored (the same for the exactly-once increment),
 * sum (3 shards), parse (3 shards, the same text every
 * time), parse_new (the same with one id spelt anew every time, so that the
 * parser's memo of ids misses it), format (3 shards) and rowhash (one row of
 * a table digest: the key "1" to "100000" in turn and a stored 3-shard state
 * hashed with SHA-256 by libcrypto, the algorithm fetched once and the
 * context re-initialised per row, and added to the running sum: what
 * counter_crdt_digest_agg() does for a row, without PostgreSQL).  It runs OP
 * ITERATIONS times and prints the time per operation.  Run under callgrind
 * at two iteration counts, the difference divided by the difference in
 * iterations is the exact instruction count of one operation, free of the
 * set-up: make microbench does that when valgrind is there.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_algebra.h"
#include "cc_digest.h"
#include "cc_text.h"
#include "cc_ossl.h"

/* Keeps the compiler from optimizing the work away. */
static volatile uint64_t sink;

/* The id cache of the text form, as the glue's type I/O keeps one. */
static cc_id_cache ids;

static size_t
parse_or_die(const char *text, unsigned char *out)
{
	size_t		n;
	bool		t;
	cc_error	err;

	if (cc_parse(&ids, text, strlen(text), out, &n, &t, &err) != CC_OK)
	{
		fprintf(stderr, "bad literal: %s\n", err.detail);
		exit(2);
	}
	return n;
}

static const char three[] =
"{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, "
"7f0cab51-fb72-3e98-bdb4-0404a982865d:17:-5, "
"c3d2e1f0-1111-4222-8333-444455556666:9:123456}";

int
main(int argc, char **argv)
{
	static unsigned char a[8 * CC_SHARD_SIZE],
				b[8 * CC_SHARD_SIZE],
				out[16 * CC_SHARD_SIZE];
	char		text[1024];
	char		lit[1024];
	const char *op;
	long		iters;
	size_t		na,
				nb,
				n3;
	struct timespec t0,
				t1;

	if (argc != 3 || (iters = atol(argv[2])) < 0)
	{
		fprintf(stderr, "usage: microbench merge8|increment|inc_glue|inc_stored|inc_at_glue|inc_at_stored|sum|parse|parse_new|format|rowhash ITERATIONS\n");
		return 2;
	}
	op = argv[1];

	/* two 8-shard states sharing ids 4..7 of a; clocks differ both ways */
	{
		char	   *p = lit;

		p += sprintf(p, "{");
		for (int i = 0; i < 8; i++)
			p += sprintf(p, "%s%08x-0000-4000-8000-%012x:%d:%d", i ? ", " : "",
						 0x10000000u * (unsigned) i, i, 1 + i % 3, i * 10);
		sprintf(p, "}");
		na = parse_or_die(lit, a);
		p = lit;
		p += sprintf(p, "{");
		for (int i = 4; i < 12; i++)
			p += sprintf(p, "%s%08x-0000-4000-8000-%012x:%d:%d", i > 4 ? ", " : "",
						 0x10000000u * (unsigned) i, i, 2 + i % 2, i * 7);
		sprintf(p, "}");
		nb = parse_or_die(lit, b);
	}
	n3 = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (strcmp(op, "merge8") == 0)
	{
		for (long i = 0; i < iters; i++)
			sink += cc_merge(a, na, b, nb, out);
	}
	else if (strcmp(op, "increment") == 0)
	{
		size_t		nout;
		uint8_t		writer[CC_ID_LEN];

		n3 = parse_or_die(three, a);
		cc_uuid_parse("7f0cab51-fb72-3e98-bdb4-0404a982865d", 36, writer);
		for (long i = 0; i < iters; i++)
		{
			if (cc_increment(a, n3, writer, 1, false, out, &nout, NULL) != CC_OK)
				return 1;
			sink += nout;
		}
	}
	else if (strcmp(op, "inc_glue") == 0 || strcmp(op, "inc_stored") == 0 ||
			 strcmp(op, "inc_at_glue") == 0 || strcmp(op, "inc_at_stored") == 0)
	{
		/*
		 * What c + 1 and the exactly-once increment do with a stored value of
		 * 3 small shards (version 3), the allocations aside: *_glue as the glue did it
		 * up to 1.4 (open, widen, increment 32-byte records, pack), *_stored
		 * on the stored shards where they lie.
		 */
		static unsigned char stored[CC_STORED_BUILD_SIZE(3)];
		static unsigned char value[CC_STORED_BUILD_SIZE(4)];
		size_t		len,
					nout;
		bool		glue = strstr(op, "_glue") != NULL;
		bool		at = strstr(op, "_at_") != NULL;
		bool		applied = true;
		uint8_t		writer[CC_ID_LEN];
		cc_stored	st;

		n3 = parse_or_die(three, stored + CC_STORED_HEADER);
		len = cc_stored_pack(stored, n3, false);
		cc_uuid_parse("7f0cab51-fb72-3e98-bdb4-0404a982865d", 36, writer);
		for (long i = 0; i < iters; i++)
		{
			cc_code		rc;

			if (cc_stored_open(stored, len, &st, NULL) != CC_OK || st.lay == CC_LAY_WIDE)
				return 1;
			if (glue)
			{
				unsigned char *shards = cc_stored_build_start(value, false);

				cc_stored_widen(&st, out);
				rc = at ?
					cc_increment_at(out, st.n, writer, 1, 18, shards, &nout,
									&applied, NULL) :
					cc_increment(out, st.n, writer, 1, false, shards, &nout, NULL);
				nout = cc_stored_build_finish(value, nout);
			}
			else
				rc = at ?
					cc_increment_at_stored(&st, writer, 1, 18, value, &nout,
										   &applied, NULL) :
					cc_increment_stored(&st, writer, 1, false, value, &nout, NULL);
			if (rc != CC_OK || !applied)
				return 1;
			sink += nout + value[CC_STORED_HEADER + 16];
		}
	}
	else if (strcmp(op, "sum") == 0)
	{
		int64_t		s;

		n3 = parse_or_die(three, a);
		for (long i = 0; i < iters; i++)
		{
			if (cc_sum(a, n3, &s, NULL) != CC_OK)
				return 1;
			sink += (uint64_t) s;
		}
	}
	else if (strcmp(op, "parse") == 0)
	{
		size_t		len = strlen(three);
		bool		t;

		for (long i = 0; i < iters; i++)
		{
			if (cc_parse(&ids, three, len, out, &n3, &t, NULL) != CC_OK)
				return 1;
			sink += n3;
		}
	}
	else if (strcmp(op, "parse_new") == 0)
	{
		/*
		 * The same text with its first id changed every time, through 256
		 * spellings: more than the parser remembers, so every id is parsed.
		 */
		char		varied[sizeof(three)];
		size_t		len = strlen(three);
		bool		t;
		const char *hex = "0123456789abcdef";

		memcpy(varied, three, sizeof(three));
		for (long i = 0; i < iters; i++)
		{
			varied[1] = hex[i % 16];
			varied[2] = hex[(i / 16) % 16];
			if (cc_parse(&ids, varied, len, out, &n3, &t, NULL) != CC_OK)
				return 1;
			sink += n3;
		}
	}
	else if (strcmp(op, "format") == 0)
	{
		n3 = parse_or_die(three, a);
		for (long i = 0; i < iters; i++)
			sink += cc_format(&ids, a, n3, false, text);
	}
	else if (strcmp(op, "rowhash") == 0)
	{
#define ROWHASH_KEYS 100000
		static char keys[ROWHASH_KEYS][8];
		static uint8_t keylen[ROWHASH_KEYS];
		static unsigned char stored[CC_STORED_HEADER + 3 * CC_SHARD_SIZE];
		size_t		len;
		cc_stored	st;
		cc_sum256	acc = {{0}};
		EVP_MD	   *md = EVP_MD_fetch(NULL, "SHA256", NULL);
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		uint8_t		h[CC_DIGEST_LEN];
		cc_hash_sink hs;

		if (md == NULL || ctx == NULL)
		{
			fprintf(stderr, "libcrypto has no SHA-256\n");
			return 1;
		}
		for (int k = 0; k < ROWHASH_KEYS; k++)
			keylen[k] = (uint8_t) snprintf(keys[k], sizeof(keys[k]), "%d", k + 1);
		n3 = parse_or_die(three, stored + CC_STORED_HEADER);
		len = cc_stored_pack(stored, n3, false);
		if (cc_stored_open(stored, len, &st, NULL) != CC_OK || st.lay == CC_LAY_WIDE)
		{
			fprintf(stderr, "the stored state is not of packed records\n");
			return 1;
		}
		hs.update = ossl_update;
		hs.arg = ctx;
		for (long i = 0; i < iters; i++)
		{
			int			k = (int) (i % ROWHASH_KEYS);

			if (EVP_DigestInit_ex(ctx, md, NULL) != 1)
				return 1;
			cc_row_hash_input_stored(&hs, keys[k], keylen[k], &st);
			if (EVP_DigestFinal_ex(ctx, h, NULL) != 1)
				return 1;
			cc_sum256_add_hash(&acc, h);
		}
		sink += acc.w[0];
		EVP_MD_CTX_free(ctx);
		EVP_MD_free(md);
	}
	else
	{
		fprintf(stderr, "unknown operation \"%s\"\n", op);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("%s: %ld iterations, %.1f ns each\n", op, iters,
		   iters ? ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / iters : 0.0);
	return 0;
}
