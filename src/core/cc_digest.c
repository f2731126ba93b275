/*
 * cc_digest.c
 *	  The digest feed: the bytes that a state digest and a table digest's row
 *	  hash are the SHA-256 of, handed to the caller's hash sink; and the sum
 *	  modulo 2^256 of row hashes.
 */
#include "cc_digest.h"

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
 * machine, nor on the storage format.  Shards are read as they lie, in
 * whatever layout (no widened copy first).
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
	/* fold records (cc_fold.h), only when there are: their count, each one */
	if (s->nf > 0)
	{
		cc_put_be64(cc_feed_room(f, 8), (int64_t) s->nf);
		for (size_t i = 0; i < s->nf; i++)
		{
			const unsigned char *r = s->folds + i * CC_FOLD_RECORD_SIZE;

			p = cc_feed_room(f, CC_FOLD_RECORD_SIZE);
			memcpy(p, r, 2 * CC_ID_LEN);
			for (int k = 0; k < 4; k++)
			{
				int64_t		v;

				memcpy(&v, r + 2 * CC_ID_LEN + 8 * k, sizeof(v));
				cc_put_be64(p + 2 * CC_ID_LEN + 8 * k, v);
			}
		}
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
