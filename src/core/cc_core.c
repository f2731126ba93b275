/*
 * cc_core.c
 *	  The shard-set algebra: canonical form, merge, leader increment, sum,
 *	  equality, digest, and the binary (send/recv) layout.
 *
 * States are canonical shard sequences (see cc_core.h).  Every function here
 * relies on the canonical form of its inputs and keeps it in its outputs;
 * the only entry points for outside bytes, cc_parse() and the decoder below,
 * check it.
 */
#include "cc_core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>


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

/*
 * The exact sum of the shard values, whatever its size, as wraps * 2^64 +
 * low with low a signed int64: each overflow of the running int64 sum wraps
 * it by 2^64 and is counted.  Every sum has exactly one such form, and two
 * sums compare as their (wraps, low) pairs do, wraps first: |low_a - low_b|
 * stays below 2^64, the weight of one wrap.
 */
static void
cc_wide_sum(const unsigned char *s, size_t n, int64_t *wraps, int64_t *low)
{
	int64_t		sum = 0;

	*wraps = 0;
	for (size_t i = 0; i < n; i++)
	{
		int64_t		v;

		memcpy(&v, s + i * CC_SHARD_SIZE + CC_ID_LEN + sizeof(int64_t),
			   sizeof(v));
		if (__builtin_add_overflow(sum, v, &sum))
			*wraps += (v > 0) ? 1 : -1;
	}
	*low = sum;
}

/*
 * The sum is exact: only the total must fit in int64, not every partial sum,
 * so that the value does not depend on the order of the writer ids.  The
 * total fits exactly when the wraps cancel out.
 */
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
 * false as soon as b holds an id that a lacks.  b's shards are 24-byte
 * narrow records of the stored form when narrow is set.  A shard of b that
 * wins over a's is written into out (a itself) when out is given, and makes
 * the walk fail when it is not.
 */
static inline bool
cc_walk_subset_any(const unsigned char *a, size_t na,
				   const unsigned char *b, size_t nb, unsigned char *out,
				   bool narrow)
{
	const size_t size = narrow ? CC_NARROW_SHARD_SIZE : CC_SHARD_SIZE;
	size_t		i = 0;

	for (size_t j = 0; j < nb; j++)
	{
		const unsigned char *pb = b + j * size;
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
		if (narrow)
		{
			uint32_t	clock;
			int32_t		value;

			memcpy(&clock, pb + CC_ID_LEN, sizeof(clock));
			memcpy(&value, pb + CC_ID_LEN + sizeof(clock), sizeof(value));
			cb = clock;
			vb = value;
		}
		else
		{
			memcpy(&cb, pb + CC_ID_LEN, sizeof(cb));
			memcpy(&vb, pb + CC_ID_LEN + sizeof(cb), sizeof(vb));
		}
		/* b wins: the higher clock, then the higher value (cc_b_wins) */
		if (cb > ca || (cb == ca && vb > va))
		{
			/*
			 * The id is the same: only the numbers change, written in one
			 * 16-byte store (two 8-byte ones made the merge aggregate's time
			 * depend on where its state lay; doc/design-layout-v2.md).
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
	return cc_walk_subset_any(a, na, b, nb, out, false);
}

bool
cc_merge_into_narrow(unsigned char *a, size_t na,
					 const unsigned char *b, size_t nb)
{
	return cc_walk_subset_any(a, na, b, nb, a, true);
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

cc_code
cc_increment(const unsigned char *s, size_t n, const uint8_t *writer,
			 int64_t delta, bool subtract,
			 unsigned char *out, size_t *nout, cc_error *err)
{
	size_t		pos = 0;
	cc_shard	sh;
	bool		found = false;
	bool		overflow;
	char		idtext[CC_UUID_TEXT_LEN + 1];

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

	if (__builtin_add_overflow(sh.clock, (int64_t) 1, &sh.clock))
	{
		cc_uuid_format(writer, idtext);
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The clock of writer %s would leave the bigint range.",
					   idtext);
	}
	if (subtract)
		overflow = __builtin_sub_overflow(sh.value, delta, &sh.value);
	else
		overflow = __builtin_add_overflow(sh.value, delta, &sh.value);
	if (overflow)
	{
		cc_uuid_format(writer, idtext);
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "%s %lld %s the shard of writer %s leaves the bigint range.",
					   subtract ? "Subtracting" : "Adding", (long long) delta,
					   subtract ? "from" : "to", idtext);
	}

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
	char		idtext[CC_UUID_TEXT_LEN + 1];

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
	if (__builtin_add_overflow(sh.value, delta, &sh.value))
	{
		cc_uuid_format(writer, idtext);
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "Adding %lld to the shard of writer %s leaves the bigint range.",
					   (long long) delta, idtext);
	}
	sh.clock = clock;
	cc_store(one, 0, &sh);
	*nout = cc_merge(s, n, one, 1, out);
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

/*
 * Written out byte by byte, not as loops: compilers turn the shifts into a
 * byte swap and one load or store where they can, and the loops into eight
 * steps.
 */
static inline void
cc_put_be64(unsigned char *p, int64_t v)
{
	uint64_t	u = (uint64_t) v;

	p[0] = (unsigned char) (u >> 56);
	p[1] = (unsigned char) (u >> 48);
	p[2] = (unsigned char) (u >> 40);
	p[3] = (unsigned char) (u >> 32);
	p[4] = (unsigned char) (u >> 24);
	p[5] = (unsigned char) (u >> 16);
	p[6] = (unsigned char) (u >> 8);
	p[7] = (unsigned char) u;
}

static inline int64_t
cc_get_be64(const unsigned char *p)
{
	return (int64_t) ((uint64_t) p[0] << 56 | (uint64_t) p[1] << 48 |
					  (uint64_t) p[2] << 40 | (uint64_t) p[3] << 32 |
					  (uint64_t) p[4] << 24 | (uint64_t) p[5] << 16 |
					  (uint64_t) p[6] << 8 | (uint64_t) p[7]);
}

static inline void
cc_put_be32(unsigned char *p, uint32_t u)
{
	p[0] = (unsigned char) (u >> 24);
	p[1] = (unsigned char) (u >> 16);
	p[2] = (unsigned char) (u >> 8);
	p[3] = (unsigned char) u;
}

static inline uint32_t
cc_get_be32(const unsigned char *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

/* One shard in the portable layout: id, then clock and value big-endian. */
static inline void
cc_put_shard(unsigned char *p, const cc_shard *sh)
{
	memcpy(p, sh->id, CC_ID_LEN);
	cc_put_be64(p + CC_ID_LEN, sh->clock);
	cc_put_be64(p + CC_ID_LEN + 8, sh->value);
}

/*
 * Bytes on their way to a hash sink, gathered so that the sink sees a few
 * large pieces rather than one call per shard: a hash function's update
 * costs a call and a bookkeeping step however few bytes it gets.
 */
#define CC_FEED_SIZE (16 * CC_SHARD_SIZE)

typedef struct cc_feed
{
	const cc_hash_sink *sink;
	size_t		used;
	unsigned char buf[CC_FEED_SIZE];
} cc_feed;

static void
cc_feed_flush(cc_feed *f)
{
	if (f->used > 0)
		f->sink->update(f->sink->arg, f->buf, f->used);
	f->used = 0;
}

/* Room for len more bytes (len <= CC_FEED_SIZE); returns where they go. */
static inline unsigned char *
cc_feed_room(cc_feed *f, size_t len)
{
	unsigned char *p;

	if (f->used + len > CC_FEED_SIZE)
		cc_feed_flush(f);
	p = f->buf + f->used;
	f->used += len;
	return p;
}

/* Bytes of any length: copied while they fit, else passed on as they lie. */
static void
cc_feed_bytes(cc_feed *f, const void *data, size_t len)
{
	if (len <= CC_FEED_SIZE)
		memcpy(cc_feed_room(f, len), data, len);
	else
	{
		cc_feed_flush(f);
		f->sink->update(f->sink->arg, data, len);
	}
}

/*
 * A state: the flag, the count and every shard in the portable layout, so
 * that a digest depends on the state alone: not on the byte order of the
 * machine, nor on the storage format.  Shards are read as they lie, 32-byte
 * records or a stored value's 24-byte narrow ones (no widened copy first).
 */
static void
cc_feed_state(cc_feed *f, const cc_stored *s)
{
	unsigned char *p = cc_feed_room(f, 9);

	p[0] = s->tombstone ? 1 : 0;
	cc_put_be64(p + 1, (int64_t) s->n);
	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_stored_shard(s, i, &sh);
		cc_put_shard(cc_feed_room(f, CC_SHARD_SIZE), &sh);
	}
}

void
cc_digest_input_stored(const cc_hash_sink *sink, const cc_stored *s)
{
	static const char tag[] = "counter_crdt digest v1";
	cc_feed		f;

	f.sink = sink;
	f.used = 0;
	cc_feed_bytes(&f, tag, sizeof(tag) - 1);
	cc_feed_state(&f, s);
	cc_feed_flush(&f);
}

void
cc_digest_input(const cc_hash_sink *sink, const unsigned char *s, size_t n,
				bool tombstone)
{
	cc_stored	st;

	cc_stored_of_records(s, n, tombstone, &st);
	cc_digest_input_stored(sink, &st);
}

/*
 * A row of a table digest.  Its own domain tag keeps a row hash from ever
 * equalling a state digest; the length before the key keeps the key's bytes
 * from running into the state's.  The tag byte after the key is the flag
 * byte of cc_feed_state(), or 2 for a NULL state, which has nothing after it.
 */
#define CC_ROW_NULL_STATE 2

void
cc_row_hash_input_stored(const cc_hash_sink *sink, const char *key,
						 size_t keylen, const cc_stored *state)
{
	static const char tag[] = "counter_crdt row v1";
	cc_feed		f;

	f.sink = sink;
	f.used = 0;
	cc_feed_bytes(&f, tag, sizeof(tag) - 1);
	cc_put_be64(cc_feed_room(&f, 8), (int64_t) keylen);
	cc_feed_bytes(&f, key, keylen);
	if (state == NULL)
		*cc_feed_room(&f, 1) = CC_ROW_NULL_STATE;
	else
		cc_feed_state(&f, state);
	cc_feed_flush(&f);
}

void
cc_row_hash_input(const cc_hash_sink *sink, const char *key, size_t keylen,
				  const cc_view *state)
{
	cc_stored	st;

	if (state != NULL)
		cc_stored_of_records(state->shards, state->n, state->tombstone, &st);
	cc_row_hash_input_stored(sink, key, keylen, state != NULL ? &st : NULL);
}

/* acc += x limb by limb, the carry running up to the top and out of it. */
void
cc_sum256_add(cc_sum256 *acc, const cc_sum256 *x)
{
	uint64_t	carry = 0;

	for (int i = 0; i < 4; i++)
	{
		uint64_t	t = acc->w[i] + carry;
		uint64_t	c1 = t < carry;

		acc->w[i] = t + x->w[i];
		carry = c1 + (acc->w[i] < t);
	}
}

void
cc_sum256_from_bytes(cc_sum256 *x, const uint8_t in[CC_DIGEST_LEN])
{
	for (int i = 0; i < 4; i++)
		x->w[3 - i] = (uint64_t) cc_get_be64(in + 8 * i);
}

void
cc_sum256_to_bytes(const cc_sum256 *x, uint8_t out[CC_DIGEST_LEN])
{
	for (int i = 0; i < 4; i++)
		cc_put_be64(out + 8 * i, (int64_t) x->w[3 - i]);
}

void
cc_sum256_add_hash(cc_sum256 *acc, const uint8_t h[CC_DIGEST_LEN])
{
	cc_sum256	x;

	cc_sum256_from_bytes(&x, h);
	cc_sum256_add(acc, &x);
}

void
cc_encode_stored(const cc_stored *s, unsigned char *buf)
{
	buf[0] = CC_WIRE_VERSION;
	buf[1] = s->tombstone ? CC_WIRE_FLAG_TOMBSTONE : 0;
	cc_put_be32(buf + 2, (uint32_t) s->n);
	buf += CC_WIRE_HEADER;
	for (size_t i = 0; i < s->n; i++)
	{
		cc_shard	sh;

		cc_stored_shard(s, i, &sh);
		cc_put_shard(buf + i * CC_SHARD_SIZE, &sh);
	}
}

void
cc_encode(const unsigned char *s, size_t n, bool tombstone, unsigned char *buf)
{
	cc_stored	st;

	cc_stored_of_records(s, n, tombstone, &st);
	cc_encode_stored(&st, buf);
}

cc_code
cc_decode_header(const unsigned char *buf, size_t len,
				 size_t *n, bool *tombstone, cc_error *err)
{
	uint32_t	count;

	if (len < CC_WIRE_HEADER)
		return cc_fail(err, CC_ERR_BINARY,
					   "The value is %zu byte%s long; the header alone takes %d.",
					   len, len == 1 ? "" : "s", CC_WIRE_HEADER);
	if (buf[0] != CC_WIRE_VERSION)
		return cc_fail(err, CC_ERR_BINARY,
					   "Format version %u is not supported; this build reads version %d.",
					   (unsigned) buf[0], CC_WIRE_VERSION);
	if (buf[1] & ~CC_WIRE_FLAG_TOMBSTONE)
		return cc_fail(err, CC_ERR_BINARY,
					   "Unknown flag bits 0x%02x are set.",
					   (unsigned) (buf[1] & ~CC_WIRE_FLAG_TOMBSTONE));
	count = cc_get_be32(buf + 2);
	/* Compare counts, not products, so that nothing can overflow. */
	if ((len - CC_WIRE_HEADER) % CC_SHARD_SIZE != 0 ||
		(len - CC_WIRE_HEADER) / CC_SHARD_SIZE != count)
		return cc_fail(err, CC_ERR_BINARY,
					   "The header announces %u shard%s but %zu byte%s of shard data follow%s.",
					   (unsigned) count, count == 1 ? "" : "s",
					   len - CC_WIRE_HEADER, len - CC_WIRE_HEADER == 1 ? "" : "s",
					   len - CC_WIRE_HEADER == 1 ? "s" : "");
	*tombstone = (buf[1] & CC_WIRE_FLAG_TOMBSTONE) != 0;
	if (*tombstone && count != 0)
		return cc_fail(err, CC_ERR_BINARY,
					   "A tombstone has no shards, but %u %s present.",
					   (unsigned) count, count == 1 ? "is" : "are");
	*n = count;
	return CC_OK;
}

cc_code
cc_decode_shards(const unsigned char *buf, size_t n, unsigned char *out,
				 cc_error *err)
{
	buf += CC_WIRE_HEADER;
	for (size_t i = 0; i < n; i++)
	{
		const unsigned char *p = buf + i * CC_SHARD_SIZE;
		cc_shard	sh;

		memcpy(sh.id, p, CC_ID_LEN);
		sh.clock = cc_get_be64(p + CC_ID_LEN);
		sh.value = cc_get_be64(p + CC_ID_LEN + 8);
		cc_store(out, i, &sh);
	}
	return cc_check_canonical(out, n, CC_ERR_BINARY, err);
}
