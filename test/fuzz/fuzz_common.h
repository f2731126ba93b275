/*
 * fuzz_common.h
 *	  Checks shared by the libFuzzer harnesses of the counter_crdt core.
 *
 * A failed check prints what broke and aborts: libFuzzer takes the abort for
 * a crash, stops, and saves the input as a reproducer (crash-<sha1>), which
 * the harness binary replays when given the file as its argument.
 *
 * Buffers are allocated to the exact size the core's contract promises
 * (never rounded up) so that AddressSanitizer catches a write past the room
 * that a *_capacity() helper announced.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_core.h"

/*
 * Optional: a harness may point this at a function that prints the inputs of
 * the case at hand, to make a failure readable without a debugger.
 */
static void (*fuzz_context) (void) = NULL;

static void fuzz_fail(const char *file, int line, const char *what)
			__attribute__((noreturn));

static void
fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	if (fuzz_context)
		fuzz_context();
	fflush(stderr);
	abort();
}

#define FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)

/* malloc that never returns NULL, nor a zero-byte block (memcpy wants one). */
static inline void *
fuzz_alloc(size_t size)
{
	void	   *p = malloc(size > 0 ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "fuzz: out of memory for %zu bytes\n", size);
		abort();
	}
	return p;
}

/*
 * Fills an error with a pattern that holds no NUL, so that a detail the core
 * leaves unwritten or unterminated shows up in fuzz_check_error().
 */
static inline void
fuzz_poison_error(cc_error *err)
{
	memset(err, 0xa5, sizeof(*err));
}

/*
 * A rejection must carry the expected code and a sentence that PostgreSQL
 * can print as errdetail: NUL-terminated within the buffer, not empty, and
 * printable ASCII only (no raw input bytes, which could be invalid in the
 * server encoding).
 */
static inline void
fuzz_check_error(const cc_error *err, cc_code want)
{
	const char *end;

	FUZZ_CHECK(err->code == want);
	end = memchr(err->detail, '\0', CC_DETAIL_LEN);
	FUZZ_CHECK(end != NULL);
	FUZZ_CHECK(end > err->detail);
	for (const char *p = err->detail; p < end; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f);
}

/*
 * The canonical form checked from its definition, independently of the core:
 * ids strictly ascending as unsigned bytes (memcmp, not cc_id_cmp, whose
 * word-wise comparison is exactly what needs checking), clocks >= 1.  A core
 * that ordered ids consistently but wrongly, say as signed words, would
 * still pass every law and cc_check_canonical() itself.
 */
static inline bool
fuzz_canonical(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		if (sh.clock < 1)
			return false;
		if (i > 0 && memcmp(s + (i - 1) * CC_SHARD_SIZE,
							s + i * CC_SHARD_SIZE, CC_ID_LEN) >= 0)
			return false;
	}
	return true;
}

/* Prints a state as canonical text, for fuzz_context functions. */
static inline void
fuzz_print_state(const char *name, const unsigned char *s, size_t n,
				 bool tombstone)
{
	char	   *buf = fuzz_alloc(cc_format_capacity(n));

	cc_format(s, n, tombstone, buf);
	fprintf(stderr, "  %s = %s\n", name, buf);
	free(buf);
}

#endif							/* FUZZ_COMMON_H */
