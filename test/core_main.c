/*
 * core_main.c
 *	  Runs the unit tests of the counter_crdt core.
 *
 *	  core_test [random-cases]
 *
 * Prints "N passed, N failed" and exits non-zero on any failure.  The
 * randomized law checks run 1,000,000 cases unless told otherwise.
 *
 * Each group runs under a limit of CPU time, so that a slip that loops for
 * ever fails the run with the group's name instead of hanging it: 30 s, and
 * 100 us more per case for the randomized groups (130 s at 1,000,000 cases,
 * where the slowest group takes 20 s, and 80 s under the sanitizers at their
 * 200,000 cases, where it takes 17 s).  CC_TEST_GROUP_SECONDS=N sets the
 * limit of every group to N s (0: none).  CPU time, not the clock's: a
 * loaded machine does not trip it, and the core never waits.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

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

/*
 * The group running and what to say if it runs out of time, written before
 * it starts: the handler only writes it (and the counts) and exits.
 */
static char timeout_text[256];
static size_t timeout_len;

/* v in decimal at p, for the handler (no stdio there); returns the end. */
static char *
put_long(char *p, long v)
{
	char		d[24];
	int			k = 0;

	if (v < 0)
	{
		*p++ = '-';
		v = -v;
	}
	do
		d[k++] = (char) ('0' + v % 10);
	while ((v /= 10) > 0);
	while (k > 0)
		*p++ = d[--k];
	return p;
}

static void
on_timeout(int sig)
{
	char		line[96],
			   *p = line;

	(void) sig;
	memcpy(p, "core: ", 6);
	p = put_long(p + 6, cc_test_passed);
	memcpy(p, " passed, ", 9);
	p = put_long(p + 9, cc_test_failed + 1);
	memcpy(p, " failed\n", 8);
	p += 8;
	if (write(STDERR_FILENO, timeout_text, timeout_len) < 0 ||
		write(STDOUT_FILENO, line, (size_t) (p - line)) < 0)
		_exit(2);
	_exit(1);
}

/* Arms the limit for the group name (seconds of CPU time; 0: none). */
static void
group_start(const char *name, long seconds)
{
	struct itimerval it;

	fflush(stdout);
	timeout_len = (size_t) snprintf(timeout_text, sizeof(timeout_text),
									"core: group %s used its %ld s of CPU time and was stopped "
									"(a loop that does not end?): counted as a failure\n",
									name, seconds);
	if (timeout_len >= sizeof(timeout_text))
		timeout_len = sizeof(timeout_text) - 1;
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = seconds;
	if (setitimer(ITIMER_PROF, &it, NULL) != 0)
	{
		perror("setitimer");
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	long		cases = argc > 1 ? atol(argv[1]) : 1000000;
	const char *fixed = getenv("CC_TEST_GROUP_SECONDS");
	long		plain = fixed != NULL ? atol(fixed) : 30,
				with_cases = fixed != NULL ? plain : 30 + cases / 10000;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timeout;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) != 0)
	{
		perror("sigaction");
		return 2;
	}

	/* Every group of CC_TEST_GROUPS (cc_test.h), in its order. */
#define RUN_GROUP(name) group_start(#name, plain); test_##name();
#define RUN_GROUP_CASES(name) group_start(#name, with_cases); test_##name(cases);
	CC_TEST_GROUPS(RUN_GROUP, RUN_GROUP_CASES)
	group_start("(none)", 0);

	printf("core: %ld passed, %ld failed\n", cc_test_passed, cc_test_failed);
	return cc_test_failed == 0 ? 0 : 1;
}
