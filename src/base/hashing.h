/*
 * hashing.h
 *	  SHA-256 and MD5 over the core's hash inputs (hashing.c): a cc_hasher
 *	  is a cc_hash_sink over a hash context.
 */
#ifndef CC_HASHING_H
#define CC_HASHING_H

#include "fmgr.h"
#include "utils/palloc.h"

#include "core/cc_base.h"

typedef enum cc_hash_kind
{
	CC_HASH_SHA256,
	CC_HASH_MD5
} cc_hash_kind;

typedef struct cc_hasher cc_hasher;

extern cc_hasher *cc_hasher_create(cc_hash_kind kind, MemoryContext mcxt);
extern cc_hasher *cc_hasher_of_call(FunctionCallInfo fcinfo, cc_hash_kind kind);
extern void cc_hasher_start(cc_hasher *h, cc_hash_sink *sink);
extern void cc_hasher_finish(cc_hasher *h, uint8_t *out);
extern void cc_hasher_finish_v3(cc_hasher *h, uint8_t *id);
extern void cc_hasher_free(cc_hasher *h);

#endif							/* CC_HASHING_H */
