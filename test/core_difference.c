/*
 * core_difference.c
 *	  Unit tests of the counter difference (what a repair ships) on
 *	  hand-picked pairs: each against the expected result, and each against
 *	  its law merge(b, difference(a, b)) = merge(a, b).  The randomized check
 *	  of the law is in core_random.c.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cc_test.h"

#define A "00000000-0000-0000-0000-000000000001"
#define B "7fffffff-ffff-ffff-ffff-ffffffffffff"
#define C "80000000-0000-0000-0000-000000000000"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"

static unsigned char sa[16 * CC_SHARD_SIZE],
			sb[16 * CC_SHARD_SIZE],
			sd[16 * CC_SHARD_SIZE],
			m1[32 * CC_SHARD_SIZE],
			m2[32 * CC_SHARD_SIZE];

/* merge(x, y) of two states into out; returns the count, *t the flag. */
static size_t
merge_into_buf(const cc_view *x, const cc_view *y, unsigned char *out, bool *t)
{
	*t = x->tombstone || y->tombstone;
	if (*t)
		return 0;
	return cc_merge(x->shards, x->n, y->shards, y->n, out);
}

/* difference(a, b) is expected, "NULL" for none; and the law holds. */
static void
check_difference(const char *a, const char *b, const char *expected)
{
	cc_view		va,
				vb,
				vd;
	size_t		nd = 12345;
	cc_diff_kind kind;
	const char *got;
	size_t		n1,
				n2;
	bool		t1,
				t2;

	va.shards = sa;
	va.n = state_from_text(a, sa, &va.tombstone);
	vb.shards = sb;
	vb.n = state_from_text(b, sb, &vb.tombstone);
	kind = cc_difference(&va, &vb, sd, &nd);
	switch (kind)
	{
		case CC_DIFF_NONE:
			got = "NULL";
			CHECKF(nd == 0, "difference(%s, %s): none, but %zu shards", a, b, nd);
			break;
		case CC_DIFF_TOMBSTONE:
			got = "tombstone";
			CHECKF(nd == 0, "difference(%s, %s): tombstone, but %zu shards", a, b, nd);
			break;
		default:
			CHECKF(nd > 0, "difference(%s, %s): shards, but none", a, b);
			got = state_text(sd, nd, false);
	}
	CHECKF(strcmp(got, expected) == 0, "difference(%s, %s) = %s, expected %s",
		   a, b, got, expected);

	/* merge(b, difference(a, b)) = merge(a, b), NULL being the identity */
	n1 = merge_into_buf(&va, &vb, m1, &t1);
	if (kind == CC_DIFF_NONE)
	{
		n2 = vb.n;
		t2 = vb.tombstone;
		memcpy(m2, sb, vb.n * CC_SHARD_SIZE);
	}
	else
	{
		vd.shards = sd;
		vd.n = nd;
		vd.tombstone = (kind == CC_DIFF_TOMBSTONE);
		n2 = merge_into_buf(&vb, &vd, m2, &t2);
	}
	CHECKF(cc_equal(m1, n1, t1, m2, n2, t2),
		   "merge(b, difference(a, b)) != merge(a, b) for a = %s, b = %s", a, b);
}

void
test_difference(void)
{
	/* nothing to ship */
	check_difference("{}", "{}", "NULL");
	check_difference("{}", "{" A ":1:5}", "NULL");
	check_difference("{" A ":3:5}", "{" A ":3:5}", "NULL");
	/* an id that b lacks */
	check_difference("{" A ":1:5}", "{}", "{" A ":1:5}");
	check_difference("{" A ":1:1}", "{" D ":1:1}", "{" A ":1:1}");
	check_difference("{" D ":1:1}", "{" A ":1:1, " B ":1:1}", "{" D ":1:1}");
	/* a higher clock wins whatever the value; a lower one loses */
	check_difference("{" A ":2:1}", "{" A ":1:100}", "{" A ":2:1}");
	check_difference("{" A ":1:100}", "{" A ":2:1}", "NULL");
	/* equal clocks: the higher value wins, an equal one does not */
	check_difference("{" A ":3:5}", "{" A ":3:4}", "{" A ":3:5}");
	check_difference("{" A ":3:4}", "{" A ":3:5}", "NULL");
	check_difference("{" A ":3:-1}", "{" A ":3:-2}", "{" A ":3:-1}");
	/* only the winning shards, the others left out */
	check_difference("{" A ":1:1, " B ":5:5, " C ":1:1, " D ":2:2}",
					 "{" B ":5:5, " C ":2:0, " D ":1:9}",
					 "{" A ":1:1, " D ":2:2}");
	check_difference("{" A ":1:1, " B ":5:5, " C ":1:1, " D ":2:2}",
					 "{" A ":1:1, " C ":1:1}",
					 "{" B ":5:5, " D ":2:2}");
	/* ids on both sides of the signed/unsigned boundary */
	check_difference("{" B ":1:1, " C ":1:1}", "{" B ":1:1}", "{" C ":1:1}");
	check_difference("{" B ":1:1, " C ":1:1}", "{" C ":1:1}", "{" B ":1:1}");
	check_difference("{" B ":2:0, " C ":1:0}", "{" B ":1:0, " C ":2:0}", "{" B ":2:0}");
	/* the bigint edges */
	check_difference("{" A ":9223372036854775807:-9223372036854775808}",
					 "{" A ":9223372036854775806:9223372036854775807}",
					 "{" A ":9223372036854775807:-9223372036854775808}");
	check_difference("{" A ":9223372036854775807:9223372036854775807}",
					 "{" A ":9223372036854775807:-9223372036854775808}",
					 "{" A ":9223372036854775807:9223372036854775807}");
	/* tombstones */
	check_difference("tombstone", "{" A ":1:1}", "tombstone");
	check_difference("tombstone", "{}", "tombstone");
	check_difference("tombstone", "tombstone", "NULL");
	check_difference("{" A ":1:1}", "tombstone", "NULL");
	check_difference("{}", "tombstone", "NULL");
}
