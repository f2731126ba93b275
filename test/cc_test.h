/*
 * cc_test.h
 *	  A minimal check framework for the core unit tests.
 *
 * CHECK counts one passed or failed assertion and prints the failing
 * expression with its location; the test binary prints "N passed, N failed"
 * at the end and exits non-zero on any failure.
 */
#ifndef CC_TEST_H
#define CC_TEST_H

#include <stdio.h>

extern long cc_test_passed;
extern long cc_test_failed;

#define CHECK(cond) \
	do { \
		if (cond) \
			cc_test_passed++; \
		else \
		{ \
			cc_test_failed++; \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		} \
	} while (0)

/* Like CHECK, with a printf-style explanation of the case that failed. */
#define CHECKF(cond, ...) \
	do { \
		if (cond) \
			cc_test_passed++; \
		else \
		{ \
			cc_test_failed++; \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
		} \
	} while (0)

/*
 * The test groups, in the order core_main.c runs them: the one place a group
 * is registered.  A new group is a file test/core_NAME.c (the Makefile builds
 * every test/core_*.c) defining test_NAME, and one line here:
 *
 *   GROUP(NAME)          void test_NAME(void)
 *   GROUP_CASES(NAME)    void test_NAME(long cases), randomized checks that
 *                        run as many cases as core_test is told
 *
 * CC_TEST_GROUPS(G, GC) expands G or GC once per group; below it declares
 * the groups, core_main.c calls them.
 */
#define CC_TEST_GROUPS(GROUP, GROUP_CASES) \
	GROUP(hash) \
	GROUP(algebra) \
	GROUP(text) \
	GROUP(ids) \
	GROUP(order) \
	GROUP(bounds) \
	GROUP(table_digest) \
	GROUP(difference) \
	GROUP(stored) \
	GROUP(wire) \
	GROUP_CASES(random) \
	GROUP_CASES(json) \
	GROUP_CASES(exactly_once) \
	GROUP_CASES(increment_stored) \
	GROUP_CASES(fold) \
	GROUP_CASES(fold_many) \
	GROUP_CASES(fold_io) \
	GROUP_CASES(fold_digest) \
	GROUP_CASES(fold_difference)

#define CC_TEST_DECLARE(name) void test_##name(void);
#define CC_TEST_DECLARE_CASES(name) void test_##name(long cases);
CC_TEST_GROUPS(CC_TEST_DECLARE, CC_TEST_DECLARE_CASES)

/* Helpers shared by the test files (core_main.c). */
#include "cc_algebra.h"
#include "cc_digest.h"
#include "cc_ids.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_wire.h"

/* The id cache that the tests hand to the text and JSON forms. */
extern cc_id_cache cc_test_ids;

/* Builds a canonical state from text, failing the run if it does not parse. */
size_t		state_from_text(const char *text, unsigned char *out, bool *tombstone);
/* The canonical text of a state, in a static buffer. */
const char *state_text(const unsigned char *s, size_t n, bool tombstone);

/*
 * Heap blocks of exactly len bytes, so that AddressSanitizer sees a read one
 * byte past them (core_bounds.c).
 */
void	   *exact_alloc(size_t len);

/*
 * Scratch of at least len bytes for the core's work buffers, one block
 * kept and grown across calls: valid until the next call.
 */
void	   *test_work(size_t len);
void	   *exact_copy(const void *src, size_t len);

/*
 * The stored form of one canonical state, packed, opened, widened, valued
 * and read by prefix, against the byte map of cc_stored.h; also read as the
 * version 1 bytes of the same state (core_stored.c).  Counts what it saw in
 * seen, prints the first failures, returns whether everything agreed.
 */
typedef struct stored_seen
{
	long		narrow;			/* version 3, packed shards */
	long		wide;
	long		overflow;
	long		tombstone;
} stored_seen;

/* The version 2 bytes of a state, as 1.3 to 1.11 wrote it (core_stored.c). */
size_t		stored_ref_v2(const unsigned char *s, size_t n, bool tombstone,
						  unsigned char *out);

bool		stored_round_trip(const unsigned char *s, size_t n, bool tombstone,
							  bool every_prefix, stored_seen *seen);

/* The order of states, modelled apart from the core (core_order.c). */
int			order_sign(int c);
int			order_model(const unsigned char *a, size_t na, bool ta,
						const unsigned char *b, size_t nb, bool tb);

#endif							/* CC_TEST_H */
