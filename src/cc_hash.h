/*
 * cc_hash.h
 *	  MD5 (RFC 1321) and SHA-256 (FIPS 180-4) for the counter_crdt core.
 *
 * MD5 makes ScyllaDB's name-based rack ids; SHA-256 makes state digests.
 * Plain C, no PostgreSQL headers, so that the core stays testable alone.
 */
#ifndef CC_HASH_H
#define CC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define CC_MD5_LEN		16
#define CC_SHA256_LEN	32

typedef struct cc_md5_ctx
{
	uint32_t	state[4];
	uint64_t	total;			/* bytes hashed so far */
	unsigned char buf[64];
	size_t		used;			/* bytes waiting in buf */
} cc_md5_ctx;

typedef struct cc_sha256_ctx
{
	uint32_t	state[8];
	uint64_t	total;
	unsigned char buf[64];
	size_t		used;
} cc_sha256_ctx;

void		cc_md5_init(cc_md5_ctx *ctx);
void		cc_md5_update(cc_md5_ctx *ctx, const void *data, size_t len);
void		cc_md5_final(cc_md5_ctx *ctx, uint8_t out[CC_MD5_LEN]);

void		cc_sha256_init(cc_sha256_ctx *ctx);
void		cc_sha256_update(cc_sha256_ctx *ctx, const void *data, size_t len);
void		cc_sha256_final(cc_sha256_ctx *ctx, uint8_t out[CC_SHA256_LEN]);

#endif							/* CC_HASH_H */
