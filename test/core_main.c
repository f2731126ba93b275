/*
 * core_main.c
 *	  Runs the unit tests of the counter_crdt core.
 *
 *	  core_test [random-cases]
 *
 * Prints "N passed, N failed" and exits non-zero on any failure.  The
 * randomized law checks run 1,000,000 cases unless told otherwise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cc_test.h"

long		cc_test_passed = 0;
long		cc_test_failed = 0;
cc_id_cache cc_test_ids;

size_t
state_from_text(const char *text, unsigned char *out, bool *tombstone)
{
	size_t		n = 0;
	cc_error	err;

	if (cc_parse(&cc_test_ids, text, strlen(text), out, &n, tombstone, &err) != CC_OK)
	{
		fprintf(stderr, "test literal does not parse: %s: %s\n", text, err.detail);
		cc_test_failed++;
		return 0;
	}
	return n;
}

const char *
state_text(const unsigned char *s, size_t n, bool tombstone)
{
	static char buf[8192];

	if (cc_format_capacity(n) > sizeof(buf))
		return "(too long to show)";
	cc_format(&cc_test_ids, s, n, tombstone, buf);
	return buf;
}

void *
test_work(size_t len)
{
	static void *work = NULL;
	static size_t cap = 0;

	if (len > cap)
	{
		free(work);
		cap = len;
		work = malloc(cap);
		if (work == NULL)
			abort();
	}
	return work;
}

int
main(int argc, char **argv)
{
	long		cases = argc > 1 ? atol(argv[1]) : 1000000;

	/* Every group of CC_TEST_GROUPS (cc_test.h), in its order. */
#define RUN_GROUP(name) test_##name();
#define RUN_GROUP_CASES(name) test_##name(cases);
	CC_TEST_GROUPS(RUN_GROUP, RUN_GROUP_CASES)

	printf("core: %ld passed, %ld failed\n", cc_test_passed, cc_test_failed);
	return cc_test_failed == 0 ? 0 : 1;
}
