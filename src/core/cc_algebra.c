/*
 * cc_algebra.c
 *	  The shard-set algebra: merge, leader and exactly-once increment,
 *	  difference, equality and the total order.
 *
 * Every function here relies on the canonical form of its inputs (cc_base.h)
 * and keeps it in its outputs; the entry points for outside bytes, the text,
 * JSON and binary decoders, check it.
 */
#include "cc_algebra.h"

/*
 * The winner of two shards of one writer: the higher clock, then the higher
 * value.  Returns true when b wins strictly; equal shards keep a.
 */
static inline bool
cc_b_wins(const cc_shard *a, const cc_shard *b)
{
	return b->clock > a->clock ||
		(b->clock == a->clock && b->value > a->value);
}

size_t
cc_merge(const unsigned char *a, size_t na,
		 const unsigned char *b, size_t nb, unsigned char *out)
{
	size_t		i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		const unsigned char *pa = a + i * CC_SHARD_SIZE;
		const unsigned char *pb = b + j * CC_SHARD_SIZE;
		int			c = cc_id_cmp(pa, pb);

		if (c == 0)
		{
			cc_shard	sa,
						sb;

			cc_load(a, i, &sa);
			cc_load(b, j, &sb);
			if (cc_b_wins(&sa, &sb))
				pa = pb;
			i++;
			j++;
		}
		else if (c < 0)
			i++;
		else
		{
			pa = pb;
			j++;
		}
		memcpy(out + k++ * CC_SHARD_SIZE, pa, CC_SHARD_SIZE);
	}
	if (i < na)
	{
		memcpy(out + k * CC_SHARD_SIZE, a + i * CC_SHARD_SIZE,
			   (na - i) * CC_SHARD_SIZE);
		k += na - i;
	}
	if (j < nb)
	{
		memcpy(out + k * CC_SHARD_SIZE, b + j * CC_SHARD_SIZE,
			   (nb - j) * CC_SHARD_SIZE);
		k += nb - j;
	}
	return k;
}

size_t
cc_merge_count(const unsigned char *a, size_t na,
			   const unsigned char *b, size_t nb)
{
	size_t		i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		int			c = cc_id_cmp(a + i * CC_SHARD_SIZE, b + j * CC_SHARD_SIZE);

		i += (c <= 0);
		j += (c >= 0);
		k++;
	}
	return k + (na - i) + (nb - j);
}

/*
 * Walks b against a, both sorted, for the merges that need no new shard:
 * false as soon as b holds an id that a lacks.  b's shards are records of
 * the stored form's layout lay, read through cc_stored.h.
 * A shard of b that
 * wins over a's is written into out (a itself) when out is given, and makes
 * the walk fail when it is not.
 */
/* the walk below, made once per layout: the layout a constant in each */
#if defined(__GNUC__) || defined(__clang__)
#define CC_WALK_INLINE inline __attribute__((always_inline))
#else
#define CC_WALK_INLINE inline
#endif

static CC_WALK_INLINE bool
cc_walk_subset_any(const unsigned char *a, size_t na,
				   const unsigned char *b, size_t nb, unsigned char *out,
				   uint8_t lay)
{
	size_t		i = 0;

	for (size_t j = 0; j < nb; j++)
	{
		const unsigned char *pb = cc_stored_record(b, j, lay);
		const unsigned char *pa;
		int64_t		ca,
					va,
					cb,
					vb;

		/*
		 * Ids are compared where they lie, for equality first (the common
		 * case when states of one counter meet), and for order only when
		 * they differ.
		 */
		for (;;)
		{
			if (i == na)
				return false;
			pa = a + i * CC_SHARD_SIZE;
			if (cc_id_eq(pa, pb))
				break;
			if (cc_id_cmp(pa, pb) > 0)
				return false;
			i++;
		}
		memcpy(&ca, pa + CC_ID_LEN, sizeof(ca));
		memcpy(&va, pa + CC_ID_LEN + sizeof(ca), sizeof(va));
		cc_stored_record_nums(pb, lay, &cb, &vb);
		/* b wins: the higher clock, then the higher value (cc_b_wins) */
		if (cb > ca || (cb == ca && vb > va))
		{
			/*
			 * The id is the same: only the numbers change, written in one
			 * 16-byte store (doc/performance.md, "The second stored layout").
			 */
			int64_t		nums[2] = {cb, vb};

			if (out == NULL)
				return false;
			memcpy(out + i * CC_SHARD_SIZE + CC_ID_LEN, nums, sizeof(nums));
		}
		i++;
	}
	return true;
}

static inline bool
cc_walk_subset(const unsigned char *a, size_t na,
			   const unsigned char *b, size_t nb, unsigned char *out)
{
	return cc_walk_subset_any(a, na, b, nb, out, CC_LAY_WIDE);
}

/*
 * One walk per layout, so that each reads its records' numbers with fixed
 * widths and offsets (the merge aggregate's every row lands here): 3
 * shards of layout 0x05 took 174 instructions with the layout a variable,
 * 113 with it a constant (bench/reads.sh, READS_CALLGRIND=1).
 */
bool
cc_merge_into_stored(unsigned char *a, size_t na,
					 const unsigned char *b, size_t nb, uint8_t lay)
{
#define CC_WALK_LAY(l) case l: return cc_walk_subset_any(a, na, b, nb, a, l)
	switch (lay)
	{
			CC_WALK_LAY(0x00);
			CC_WALK_LAY(0x01);
			CC_WALK_LAY(0x02);
			CC_WALK_LAY(0x03);
			CC_WALK_LAY(0x04);
			CC_WALK_LAY(0x05);
			CC_WALK_LAY(0x06);
			CC_WALK_LAY(0x07);
			CC_WALK_LAY(0x08);
			CC_WALK_LAY(0x09);
			CC_WALK_LAY(0x0A);
			CC_WALK_LAY(0x0B);
			CC_WALK_LAY(0x0C);
			CC_WALK_LAY(0x0D);
			CC_WALK_LAY(0x0E);
			CC_WALK_LAY(0x0F);
		default:
			return cc_walk_subset_any(a, na, b, nb, a, lay);
	}
#undef CC_WALK_LAY
}

bool
cc_merge_into(unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
	return cc_walk_subset(a, na, b, nb, a);
}

bool
cc_merge_is_noop(const unsigned char *a, size_t na,
				 const unsigned char *b, size_t nb)
{
	return cc_walk_subset(a, na, b, nb, NULL);
}

cc_diff_kind
cc_difference(const cc_view *a, const cc_view *b,
			  unsigned char *out, size_t *nout)
{
	size_t		j = 0,
				k = 0;

	*nout = 0;
	if (b->tombstone)
		return CC_DIFF_NONE;
	if (a->tombstone)
		return CC_DIFF_TOMBSTONE;
	for (size_t i = 0; i < a->n; i++)
	{
		const unsigned char *pa = a->shards + i * CC_SHARD_SIZE;
		int			c = 1;

		/* b's shards below a's id cannot matter: skip them */
		while (j < b->n &&
			   (c = cc_id_cmp(b->shards + j * CC_SHARD_SIZE, pa)) < 0)
			j++;
		if (j < b->n && c == 0)
		{
			cc_shard	sa,
						sb;

			cc_load(a->shards, i, &sa);
			cc_load(b->shards, j, &sb);
			j++;
			if (!cc_b_wins(&sb, &sa))
				continue;
		}
		memcpy(out + k++ * CC_SHARD_SIZE, pa, CC_SHARD_SIZE);
	}
	*nout = k;
	return k == 0 ? CC_DIFF_NONE : CC_DIFF_SHARDS;
}

cc_merge_kind
cc_merge_plan(const cc_view *a, const cc_view *b)
{
	if (a->tombstone)
		return CC_MERGE_TAKE_A;
	if (b->tombstone)
		return CC_MERGE_TAKE_B;
	if (cc_merge_is_noop(a->shards, a->n, b->shards, b->n))
		return CC_MERGE_TAKE_A;
	if (cc_merge_is_noop(b->shards, b->n, a->shards, a->n))
		return CC_MERGE_TAKE_B;
	return CC_MERGE_BUILD;
}

/* The errors of the increments, out of their way. */
#if defined(__GNUC__) || defined(__clang__)
#define CC_COLD __attribute__((cold, noinline))
#else
#define CC_COLD
#endif

static CC_COLD cc_code
cc_clock_overflow(const uint8_t *writer, cc_error *err)
{
	char		idtext[CC_UUID_TEXT_LEN + 1];

	cc_uuid_format(writer, idtext);
	return cc_fail(err, CC_ERR_OVERFLOW,
				   "The clock of writer %s would leave the bigint range.",
				   idtext);
}

static CC_COLD cc_code
cc_value_overflow(const uint8_t *writer, int64_t delta, bool subtract,
				  cc_error *err)
{
	char		idtext[CC_UUID_TEXT_LEN + 1];

	cc_uuid_format(writer, idtext);
	return cc_fail(err, CC_ERR_OVERFLOW,
				   "%s %lld %s the shard of writer %s leaves the bigint range.",
				   subtract ? "Subtracting" : "Adding", (long long) delta,
				   subtract ? "from" : "to", idtext);
}

/*
 * The writer's shard after adding (or subtracting) delta to its value:
 * CC_ERR_OVERFLOW when the value would leave int64.
 */
static inline cc_code
cc_add_value(cc_shard *sh, int64_t delta, bool subtract, cc_error *err)
{
	bool		overflow;

	if (subtract)
		overflow = __builtin_sub_overflow(sh->value, delta, &sh->value);
	else
		overflow = __builtin_add_overflow(sh->value, delta, &sh->value);
	if (overflow)
		return cc_value_overflow(sh->id, delta, subtract, err);
	return CC_OK;
}

/* The writer's shard after a leader increment (clock + 1, value +- delta). */
static inline cc_code
cc_bump(cc_shard *sh, int64_t delta, bool subtract, cc_error *err)
{
	if (__builtin_add_overflow(sh->clock, (int64_t) 1, &sh->clock))
		return cc_clock_overflow(sh->id, err);
	return cc_add_value(sh, delta, subtract, err);
}

cc_code
cc_increment(const unsigned char *s, size_t n, const uint8_t *writer,
			 int64_t delta, bool subtract,
			 unsigned char *out, size_t *nout, cc_error *err)
{
	size_t		pos = 0;
	cc_shard	sh;
	bool		found = false;
	cc_code		rc;

	/* Find the writer's shard, or the place where it goes. */
	while (pos < n)
	{
		int			c;

		cc_load(s, pos, &sh);
		c = cc_id_cmp(sh.id, writer);
		if (c >= 0)
		{
			found = (c == 0);
			break;
		}
		pos++;
	}
	if (!found)
	{
		memcpy(sh.id, writer, CC_ID_LEN);
		sh.clock = 0;
		sh.value = 0;
	}

	if ((rc = cc_bump(&sh, delta, subtract, err)) != CC_OK)
		return rc;

	memcpy(out, s, pos * CC_SHARD_SIZE);
	cc_store(out, pos, &sh);
	if (found)
	{
		memcpy(out + (pos + 1) * CC_SHARD_SIZE, s + (pos + 1) * CC_SHARD_SIZE,
			   (n - pos - 1) * CC_SHARD_SIZE);
		*nout = n;
	}
	else
	{
		memcpy(out + (pos + 1) * CC_SHARD_SIZE, s + pos * CC_SHARD_SIZE,
			   (n - pos) * CC_SHARD_SIZE);
		*nout = n + 1;
	}
	return CC_OK;
}

cc_code
cc_increment_stored(const cc_stored *s, const uint8_t *writer,
					int64_t delta, bool subtract,
					unsigned char *out, size_t *len, cc_error *err)
{
	cc_shard	sh;
	size_t		pos;
	bool		found;
	cc_code		rc;

	if (s->tombstone)
	{
		*len = cc_stored_pack(out, 0, true);
		return CC_OK;
	}
	found = cc_stored_find(s, writer, &pos, &sh);
	if ((rc = cc_bump(&sh, delta, subtract, err)) != CC_OK)
		return rc;
	*len = cc_stored_put(s, pos, found, &sh, out);
	return CC_OK;
}

/*
 * The new shard always has a clock above the old one, so a merge with the
 * one-shard state (writer, clock, value + delta) puts it in place: in front
 * of the old shard, or between its neighbours when the writer is new.
 */
cc_code
cc_increment_at(const unsigned char *s, size_t n, const uint8_t *writer,
				int64_t delta, int64_t clock,
				unsigned char *out, size_t *nout, bool *applied, cc_error *err)
{
	cc_shard	sh;
	unsigned char one[CC_SHARD_SIZE];
	cc_code		rc;

	if (clock < 1)
		return cc_fail(err, CC_ERR_ARGUMENT,
					   "The clock is %lld; clocks start at 1.", (long long) clock);

	memcpy(sh.id, writer, CC_ID_LEN);
	sh.clock = 0;
	sh.value = 0;
	for (size_t i = 0; i < n; i++)
	{
		int			c = cc_id_cmp(s + i * CC_SHARD_SIZE, writer);

		if (c > 0)
			break;
		if (c == 0)
		{
			cc_load(s, i, &sh);
			break;
		}
	}

	if (sh.clock >= clock)
	{
		memcpy(out, s, n * CC_SHARD_SIZE);
		*nout = n;
		*applied = false;
		return CC_OK;
	}
	if ((rc = cc_add_value(&sh, delta, false, err)) != CC_OK)
		return rc;
	sh.clock = clock;
	cc_store(one, 0, &sh);
	*nout = cc_merge(s, n, one, 1, out);
	*applied = true;
	return CC_OK;
}

cc_code
cc_increment_at_stored(const cc_stored *s, const uint8_t *writer,
					   int64_t delta, int64_t clock,
					   unsigned char *out, size_t *len, bool *applied,
					   cc_error *err)
{
	cc_shard	sh;
	size_t		pos;
	bool		found;
	cc_code		rc;

	*applied = false;
	if (clock < 1)
		return cc_fail(err, CC_ERR_ARGUMENT,
					   "The clock is %lld; clocks start at 1.", (long long) clock);
	if (s->tombstone)
		return CC_OK;
	found = cc_stored_find(s, writer, &pos, &sh);
	if (sh.clock >= clock)
		return CC_OK;
	if ((rc = cc_add_value(&sh, delta, false, err)) != CC_OK)
		return rc;
	sh.clock = clock;
	*len = cc_stored_put(s, pos, found, &sh, out);
	*applied = true;
	return CC_OK;
}

bool
cc_equal(const unsigned char *a, size_t na, bool ta,
		 const unsigned char *b, size_t nb, bool tb)
{
	return ta == tb && na == nb &&
		memcmp(a, b, na * CC_SHARD_SIZE) == 0;
}

/*
 * The order: live states by exact sum, then tombstones; ties by the shards
 * in id order, each compared as (id, clock, value), a prefix first.  Canonical
 * states that compare equal have the same shards, so 0 means cc_equal().
 */
int
cc_compare(const unsigned char *a, size_t na, bool ta,
		   const unsigned char *b, size_t nb, bool tb)
{
	int64_t		wa,
				la,
				wb,
				lb;
	size_t		n = na < nb ? na : nb;

	if (ta || tb)
		return (int) ta - (int) tb;
	cc_wide_sum(a, na, &wa, &la);
	cc_wide_sum(b, nb, &wb, &lb);
	if (wa != wb)
		return wa < wb ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sa,
					sb;
		int			c;

		cc_load(a, i, &sa);
		cc_load(b, i, &sb);
		if ((c = cc_id_cmp(sa.id, sb.id)) != 0)
			return c;
		if (sa.clock != sb.clock)
			return sa.clock < sb.clock ? -1 : 1;
		if (sa.value != sb.value)
			return sa.value < sb.value ? -1 : 1;
	}
	return (na > nb) - (na < nb);
}
