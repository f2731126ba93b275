/*
 * cc_ossl.h
 *	  The core's digests and name-based ids, hashed by OpenSSL's libcrypto
 *	  for the tests, fuzzers and microbenchmark (the server hashes them with
 *	  PostgreSQL's src/common instead; see src/base/hashing.c).
 *
 * Link with -lcrypto.  A failure of libcrypto aborts: a test cannot go on
 * without its reference.
 */
#ifndef CC_OSSL_H
#define CC_OSSL_H

#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "cc_digest.h"
#include "cc_ids.h"

static inline void
ossl_update(void *arg, const void *data, size_t len)
{
	if (EVP_DigestUpdate((EVP_MD_CTX *) arg, data, len) != 1)
	{
		fprintf(stderr, "EVP_DigestUpdate failed\n");
		abort();
	}
}

/* Starts an OpenSSL hash of md and a sink that feeds it. */
static inline EVP_MD_CTX *
ossl_start(const EVP_MD *md, cc_hash_sink *sink)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx == NULL || EVP_DigestInit_ex(ctx, md, NULL) != 1)
	{
		fprintf(stderr, "EVP_DigestInit_ex failed\n");
		abort();
	}
	sink->update = ossl_update;
	sink->arg = ctx;
	return ctx;
}

static inline void
ossl_finish(EVP_MD_CTX *ctx, uint8_t *out)
{
	if (EVP_DigestFinal_ex(ctx, out, NULL) != 1)
	{
		fprintf(stderr, "EVP_DigestFinal_ex failed\n");
		abort();
	}
	EVP_MD_CTX_free(ctx);
}

/* counter_crdt_digest(): SHA-256 of cc_digest_input(). */
static inline void
ossl_digest(const unsigned char *s, size_t n, bool tombstone,
			uint8_t out[CC_DIGEST_LEN])
{
	cc_hash_sink sink;
	EVP_MD_CTX *ctx = ossl_start(EVP_sha256(), &sink);

	cc_digest_input(&sink, s, n, tombstone);
	ossl_finish(ctx, out);
}

/* One row of counter_crdt_digest_agg(): SHA-256 of cc_row_hash_input(). */
static inline void
ossl_row_hash(const char *key, size_t keylen, const cc_view *state,
			  uint8_t out[CC_DIGEST_LEN])
{
	cc_hash_sink sink;
	EVP_MD_CTX *ctx = ossl_start(EVP_sha256(), &sink);

	cc_row_hash_input(&sink, key, keylen, state);
	ossl_finish(ctx, out);
}

/* counter_crdt_rack_id(): MD5 of cc_rack_name(), as a version 3 uuid. */
static inline void
ossl_rack_id(const char *dc, size_t dclen, const char *rack, size_t racklen,
			 uint8_t out[CC_ID_LEN])
{
	cc_hash_sink sink;
	EVP_MD_CTX *ctx = ossl_start(EVP_md5(), &sink);

	cc_rack_name(&sink, dc, dclen, rack, racklen);
	ossl_finish(ctx, out);
	cc_uuid_v3(out);
}

/* MD5 of a name as a version 3 uuid. */
static inline void
ossl_md5v3(const char *name, size_t len, uint8_t out[CC_ID_LEN])
{
	cc_hash_sink sink;
	EVP_MD_CTX *ctx = ossl_start(EVP_md5(), &sink);

	sink.update(sink.arg, name, len);
	ossl_finish(ctx, out);
	cc_uuid_v3(out);
}

/* The default writer id (contract 7.1): MD5 of cc_default_node_name(), v3. */
static inline void
ossl_node_id(uint64_t system_identifier, uint32_t timeline,
			 uint32_t database_oid, uint8_t out[CC_ID_LEN])
{
	char		name[CC_NODE_NAME_SIZE];
	size_t		len = cc_default_node_name(system_identifier, timeline,
										   database_oid, name);

	ossl_md5v3(name, len, out);
}

#endif							/* CC_OSSL_H */
