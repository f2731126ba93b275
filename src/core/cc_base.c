/*
 * cc_base.c
 *	  Errors, the canonical form, the exact sum and uuid text.
 */
#include "cc_base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <uuid/uuid.h>

cc_code
cc_fail(cc_error *err, cc_code code, const char *fmt,...)
{
	if (err)
	{
		va_list		ap;

		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
		va_end(ap);
	}
	return code;
}

cc_code
cc_check_canonical(const unsigned char *s, size_t n, cc_code fail,
				   cc_error *err)
{
	cc_shard	prev,
				cur;
	char		idtext[CC_UUID_TEXT_LEN + 1];

	for (size_t i = 0; i < n; i++)
	{
		cc_load(s, i, &cur);
		if (cur.clock < 1)
		{
			cc_uuid_format(cur.id, idtext);
			return cc_fail(err, fail,
						   "Writer %s has clock %lld; clocks start at 1.",
						   idtext, (long long) cur.clock);
		}
		if (i > 0 && cc_id_cmp(prev.id, cur.id) >= 0)
		{
			cc_uuid_format(cur.id, idtext);
			return cc_fail(err, fail,
						   cc_id_cmp(prev.id, cur.id) == 0
						   ? "Writer %s appears more than once."
						   : "Writer %s is out of ascending order.",
						   idtext);
		}
		prev = cur;
	}
	return CC_OK;
}

static int
cc_shard_id_cmp(const void *a, const void *b)
{
	return cc_id_cmp((const uint8_t *) a, (const uint8_t *) b);
}

cc_code
cc_sort_canonical(unsigned char *s, size_t n, cc_code fail, cc_error *err)
{
	qsort(s, n, CC_SHARD_SIZE, cc_shard_id_cmp);
	return cc_check_canonical(s, n, fail, err);
}

/* The total fits exactly when the wraps cancel out. */
cc_code
cc_sum(const unsigned char *s, size_t n, int64_t *out, cc_error *err)
{
	int64_t		sum;
	int64_t		wraps;

	cc_wide_sum(s, n, &wraps, &sum);
	if (wraps != 0)
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The sum of the shard values leaves the bigint range.");
	*out = sum;
	return CC_OK;
}

/*
 * uuid_parse_range() takes exactly the 36 characters 8-4-4-4-12 of hex
 * digits in any case and hyphens; the length is checked here as well, so
 * that a longer run of the same characters is refused without a call
 * (test/core_text.c holds libuuid to all of this).
 */
bool
cc_uuid_parse(const char *str, size_t len, uint8_t *out)
{
	return len == CC_UUID_TEXT_LEN && uuid_parse_range(str, str + len, out) == 0;
}

void
cc_uuid_format(const uint8_t *id, char *out)
{
	uuid_unparse_lower(id, out);
}

size_t
cc_id_lower_bound(const unsigned char *recs, size_t n, size_t stride,
				  const uint8_t *id)
{
	size_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (cc_id_cmp(recs + mid * stride, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
