/*
 * cc_test_capture.h
 *	  What the hash tests share: a sink that keeps the bytes the core hands
 *	  it (how many pieces, none empty), and the pieces of an encoder of the
 *	  hash input written from cc_digest.h, apart from the core.
 */
#ifndef CC_TEST_CAPTURE_H
#define CC_TEST_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cc_digest.h"

/* More than the longest stream a test makes (a 4 kB key and 40 shards). */
#define CC_CAPTURE_MAX 8192

typedef struct cc_capture
{
	unsigned char bytes[CC_CAPTURE_MAX];
	size_t		len;
	int			calls;
	int			empty_calls;
	bool		overflow;
} cc_capture;

static inline void
cc_capture_update(void *arg, const void *data, size_t len)
{
	cc_capture *c = (cc_capture *) arg;

	c->calls++;
	if (len == 0)
		c->empty_calls++;
	if (c->len + len > sizeof(c->bytes))
	{
		c->overflow = true;
		return;
	}
	memcpy(c->bytes + c->len, data, len);
	c->len += len;
}

/* Empties c and returns a sink that writes into it. */
static inline cc_hash_sink
cc_capture_start(cc_capture *c)
{
	cc_hash_sink sink = {cc_capture_update, c};

	memset(c, 0, sizeof(*c));
	return sink;
}

/* The reference encoder: appends n bytes to ref at len, returns the new length. */
static inline size_t
cc_ref_put(unsigned char *ref, size_t len, const void *data, size_t n)
{
	memcpy(ref + len, data, n);
	return len + n;
}

/* Appends v as 8 bytes, most significant first. */
static inline size_t
cc_ref_be64(unsigned char *ref, size_t len, uint64_t v)
{
	for (int i = 7; i >= 0; i--)
		ref[len++] = (unsigned char) (v >> (8 * i));
	return len;
}

#endif							/* CC_TEST_CAPTURE_H */
