/*
 * core_bounds.c
 *	  Every core function on inputs and outputs that fill their heap
 *	  allocation exactly: n shards in exactly n * 32 bytes, text without a
 *	  terminating NUL, wire bytes with nothing after them.  The results are
 *	  checked here; a read or a write one byte past a buffer is what the
 *	  AddressSanitizer build (make core-test-sanitize) reports.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cc_ossl.h"
#include "cc_test.h"

#define A "00000000-0000-0000-0000-000000000001"
#define B "7fffffff-ffff-ffff-ffff-ffffffffffff"
#define C "80000000-0000-0000-0000-000000000000"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"

/* An allocation of exactly len bytes (one for 0, as malloc(0) may be NULL). */
void *
exact_alloc(size_t len)
{
	void	   *p = malloc(len > 0 ? len : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

void *
exact_copy(const void *src, size_t len)
{
	return memcpy(exact_alloc(len), src, len);
}

/* A state parsed from text, in a heap block of exactly n shards. */
static unsigned char *
exact_state(const char *text, size_t *n, bool *tombstone)
{
	static unsigned char tmp[16 * CC_SHARD_SIZE];

	*n = state_from_text(text, tmp, tombstone);
	return exact_copy(tmp, *n * CC_SHARD_SIZE);
}

/* The states of these tests, with the writers at every place. */
static const char *const states[] = {
	"{}",
	"{" A ":1:1}",
	"{" D ":2:-2}",
	"{" A ":1:5, " D ":3:7}",
	"{" A ":2:1, " B ":1:-3, " C ":4:9, " D ":1:1}",
	"{" B ":5:5, " C ":1:1}",
};

#define N_STATES (sizeof(states) / sizeof(states[0]))

static const char *const writers[] = {A, B, C, D,
	"00000000-0000-0000-0000-000000000000", "c0000000-0000-0000-0000-000000000000"};

#define N_WRITERS (sizeof(writers) / sizeof(writers[0]))

static void
bounds_increment(void)
{
	for (size_t i = 0; i < N_STATES; i++)
		for (size_t w = 0; w < N_WRITERS; w++)
		{
			size_t		n,
						nout;
			bool		t;
			unsigned char *s = exact_state(states[i], &n, &t);
			unsigned char *out = exact_alloc((n + 1) * CC_SHARD_SIZE);
			uint8_t    *writer = exact_alloc(CC_ID_LEN);
			cc_error	err;
			int64_t		before,
						after;

			CHECK(cc_uuid_parse(writers[w], CC_UUID_TEXT_LEN, writer));
			CHECKF(cc_increment(s, n, writer, 3, false, out, &nout, &err) == CC_OK &&
				   cc_check_canonical(out, nout, CC_ERR_SYNTAX, NULL) == CC_OK &&
				   cc_sum(s, n, &before, NULL) == CC_OK &&
				   cc_sum(out, nout, &after, NULL) == CC_OK && after == before + 3,
				   "increment of %s by writer %s", states[i], writers[w]);
			/* the output fits n shards when the writer has one: n + 1 otherwise */
			if (nout == n)
			{
				unsigned char *tight = exact_alloc(n * CC_SHARD_SIZE);

				CHECK(cc_increment(s, n, writer, -3, true, tight, &nout, &err) == CC_OK &&
					  nout == n);
				free(tight);
			}
			free(s);
			free(out);
			free(writer);
		}
}

static void
bounds_pairs(void)
{
	for (size_t i = 0; i < N_STATES; i++)
		for (size_t j = 0; j < N_STATES; j++)
		{
			size_t		na,
						nb,
						k;
			bool		ta,
						tb;
			unsigned char *a = exact_state(states[i], &na, &ta);
			unsigned char *b = exact_state(states[j], &nb, &tb);
			size_t		count = cc_merge_count(a, na, b, nb);
			unsigned char *out = exact_alloc(count * CC_SHARD_SIZE);
			unsigned char *into = exact_copy(a, na * CC_SHARD_SIZE);
			cc_view		va = {a, na, false},
						vb = {b, nb, false};

			k = cc_merge(a, na, b, nb, out);
			CHECKF(k == count && cc_check_canonical(out, k, CC_ERR_SYNTAX, NULL) == CC_OK,
				   "merge(%s, %s)", states[i], states[j]);
			if (cc_merge_into(into, na, b, nb))
				CHECK(cc_equal(into, na, false, out, k, false));
			CHECK(cc_merge_is_noop(a, na, b, nb) == cc_equal(a, na, false, out, k, false));
			(void) cc_merge_plan(&va, &vb);
			CHECK(cc_equal(a, na, false, b, nb, false) == (i == j));
			CHECK((cc_compare(a, na, false, b, nb, false) == 0) == (i == j));
			free(a);
			free(b);
			free(out);
			free(into);
		}
}

static void
bounds_sum_digest_format(void)
{
	for (size_t i = 0; i < N_STATES; i++)
	{
		size_t		n;
		bool		t;
		unsigned char *s = exact_state(states[i], &n, &t);
		int64_t		sum;
		uint8_t		d1[CC_DIGEST_LEN],
					d2[CC_DIGEST_LEN];
		static unsigned char copy[16 * CC_SHARD_SIZE];
		char	   *text = exact_alloc(cc_format_capacity(n));

		CHECK(cc_sum(s, n, &sum, NULL) == CC_OK);
		memcpy(copy, s, n * CC_SHARD_SIZE);
		ossl_digest(s, n, false, d1);
		ossl_digest(copy, n, false, d2);
		CHECK(memcmp(d1, d2, CC_DIGEST_LEN) == 0);
		cc_format(&cc_test_ids, s, n, false, text);
		CHECKF(strcmp(text, states[i]) == 0, "format gave %s", text);
		free(text);
		free(s);
	}
}

static void
bounds_wire(void)
{
	for (size_t i = 0; i < N_STATES; i++)
	{
		size_t		n,
					m;
		bool		t,
					tm;
		unsigned char *s = exact_state(states[i], &n, &t);
		unsigned char *wire = exact_alloc(cc_wire_size(n));
		unsigned char *out = exact_alloc(n * CC_SHARD_SIZE);
		cc_error	err;

		cc_encode(s, n, false, wire);
		CHECK(cc_decode_header(wire, cc_wire_size(n), &m, &tm, &err) == CC_OK &&
			  m == n && !tm);
		CHECK(cc_decode_shards(wire, m, out, &err) == CC_OK &&
			  cc_equal(out, m, false, s, n, false));
		free(out);
		/* the header of a value alone, nothing after it */
		{
			unsigned char *head = exact_copy(wire, CC_WIRE_HEADER);

			CHECK(cc_decode_header(head, CC_WIRE_HEADER, &m, &tm, &err) ==
				  (n == 0 ? CC_OK : CC_ERR_BINARY));
			free(head);
		}
		free(wire);
		free(s);
	}
}

/* Text in an allocation of exactly its length, with no NUL after it. */
static cc_code
parse_exact(const char *text, size_t *n, bool *tombstone, cc_error *err)
{
	size_t		len = strlen(text);
	char	   *in = exact_copy(text, len);
	unsigned char *out = exact_alloc(cc_parse_capacity(in, len) * CC_SHARD_SIZE);
	cc_code		rc = cc_parse(&cc_test_ids, in, len, out, n, tombstone, err);

	free(in);
	free(out);
	return rc;
}

static void
bounds_parse(void)
{
	static const char *const good[] = {
		"{}", "tombstone", "TOMBSTONE", " {}", "{ } ",
		"{" A ":1:1}", "{" D ":1:1, " A ":9223372036854775807:-9223372036854775808}",
		"{" A ":1:1," B ":1:1," C ":1:1," D ":1:1}",
	};
	/* each cut short where a token is still open */
	static const char *const bad[] = {
		"", " ", "{", "{ ", "t", "tombston", "tombstonX", "{" A, "{" A ":", "{" A ":1",
		"{" A ":1:", "{" A ":1:-", "{" A ":1:1", "{" A ":1:1,", "{" A ":1:1, ",
		"{00000000-0000-0000-0000-00000000000", "{" A "0", "{" A "00:1:1}", "{" A ":+",
		"{" A ":99999999999999999999", "{}x",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		size_t		n;
		bool		t;
		cc_error	err;

		CHECKF(parse_exact(good[i], &n, &t, &err) == CC_OK, "parse(%s)", good[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		size_t		n;
		bool		t;
		cc_error	err;

		CHECKF(parse_exact(bad[i], &n, &t, &err) == CC_ERR_SYNTAX, "parse(%s)", bad[i]);
	}

	/* ids alone: 36 characters, and more, into exactly 16 bytes */
	{
		static const char *const ids[] = {A, A "0", A "00", A "0000", D "ffffffff"};
		uint8_t    *id = exact_alloc(CC_ID_LEN);

		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		{
			size_t		len = strlen(ids[i]);
			char	   *in = exact_copy(ids[i], len);

			CHECKF(cc_uuid_parse(in, len, id) == (len == CC_UUID_TEXT_LEN),
				   "uuid_parse(%s)", ids[i]);
			free(in);
		}
		free(id);
	}
}

void
test_bounds(void)
{
	bounds_increment();
	bounds_pairs();
	bounds_sum_digest_format();
	bounds_wire();
	bounds_parse();
}
