/*
 * hashing.c
 *	  SHA-256 and MD5 for the core's hash inputs, from the cryptographic
 *	  library that PostgreSQL itself was built with.
 *
 * The core produces the bytes that a digest or a name-based id is the hash
 * of and hands them to a cc_hash_sink; a cc_hasher is such a sink over a
 * hash context.
 *
 * Where PostgreSQL was built with OpenSSL (USE_OPENSSL, as Debian's is), the
 * hasher calls libcrypto's EVP interface itself, with an algorithm fetched
 * once per backend: PostgreSQL's pg_cryptohash_init() names the algorithm
 * by EVP_sha256(), which OpenSSL 3 looks up again at every initialisation
 * (locks, a name lookup, reference counts), and a table digest hashes every
 * row (doc/performance.md has the figures).  The context is made once per
 * call site (kept in fn_extra), re-initialised per row, and freed with the
 * memory context that holds the hasher.
 *
 * Without OpenSSL, PostgreSQL's src/common hashing is used.  From
 * PostgreSQL 14 on, pg_cryptohash_create() allocates a context and
 * registers it with the current resource owner, so the hasher registers it
 * with a resource owner of its own, not with the current one, and frees it
 * when the memory context that holds the hasher goes away: the current owner
 * may be a subtransaction's or a portal's that is released before or after
 * that memory (an error inside a plpgsql exception block releases the owner
 * first, then SPI frees the executor's memory), and a context freed by the
 * owner would then be freed a second time by us.  An owner that nobody else
 * knows of is released only here.  PostgreSQL 13 has no cryptohash API:
 * SHA-256 works in place (common/sha2.h) and MD5 takes its input in one
 * piece (common/md5.h), so the hasher gathers the (short) names of ids first.
 *
 * Defining CC_HASH_PG_COMMON at build time picks PostgreSQL's hashing even
 * where OpenSSL is there, to build and test that path.
 */
#include "base/report.h"
#include "base/hashing.h"

#include "core/cc_digest.h"
#include "core/cc_ids.h"

#if defined(USE_OPENSSL) && !defined(CC_HASH_PG_COMMON)
#define CC_HASH_OPENSSL 1
#endif

#ifdef CC_HASH_OPENSSL
#include <openssl/err.h>
#include <openssl/evp.h>
#elif PG_VERSION_NUM >= 140000
#include "common/cryptohash.h"
#include "utils/resowner.h"
#else
#include "common/md5.h"
#include "common/sha2.h"
#include "lib/stringinfo.h"
#endif

struct cc_hasher
{
	cc_hash_kind kind;
#ifdef CC_HASH_OPENSSL
	EVP_MD_CTX *ctx;
	const EVP_MD *md;
#elif PG_VERSION_NUM >= 140000
	pg_cryptohash_ctx *ctx;
	ResourceOwner owner;
#else
	pg_sha256_ctx sha256;
	StringInfoData name;		/* MD5 input, hashed at the end */
#endif
};

static const char *
cc_hash_name(cc_hash_kind kind)
{
	return kind == CC_HASH_SHA256 ? "SHA-256" : "MD5";
}

#if defined(CC_HASH_OPENSSL) || PG_VERSION_NUM >= 140000
/* Frees the hasher's hash context (each library's own, below). */
static void cc_hasher_release(void *arg);

/*
 * A zeroed hasher in mcxt whose hash context is released when mcxt goes:
 * the context is malloc'd by the library, not palloc'd.
 */
static cc_hasher *
cc_hasher_new(cc_hash_kind kind, MemoryContext mcxt)
{
	cc_hasher  *h = MemoryContextAllocZero(mcxt, sizeof(cc_hasher));
	MemoryContextCallback *cb = MemoryContextAlloc(mcxt, sizeof(*cb));

	h->kind = kind;
	cb->func = cc_hasher_release;
	cb->arg = h;
	MemoryContextRegisterResetCallback(mcxt, cb);
	return h;
}
#endif

#ifdef CC_HASH_OPENSSL

CC_NORETURN static void
cc_hash_failed(cc_hash_kind kind) CC_NORETURN_AFTER;

static void
cc_hash_failed(cc_hash_kind kind)
{
	unsigned long e = ERR_get_error();
	const char *why = e != 0 ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	ereport(ERROR,
			(errcode(ERRCODE_SYSTEM_ERROR),
			 errmsg("could not compute %s hash: %s", cc_hash_name(kind),
					why != NULL ? why : "the cryptographic library reported an error")));
}

/*
 * The algorithm, looked up once per backend.  OpenSSL 3 fetches it from its
 * default providers (a FIPS-only configuration refuses MD5 here, as it does
 * to PostgreSQL's own md5()); before 3, EVP_sha256() is a constant.
 */
static const EVP_MD *
cc_hash_md(cc_hash_kind kind)
{
	static const EVP_MD *md[2];
	int			i = kind == CC_HASH_SHA256 ? 0 : 1;

	if (md[i] == NULL)
	{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
		md[i] = EVP_MD_fetch(NULL, kind == CC_HASH_SHA256 ? "SHA256" : "MD5", NULL);
#else
		md[i] = kind == CC_HASH_SHA256 ? EVP_sha256() : EVP_md5();
#endif
		if (md[i] == NULL)
			cc_hash_failed(kind);
	}
	return md[i];
}

/* Frees the hash context; runs when the hasher's memory goes. */
static void
cc_hasher_release(void *arg)
{
	cc_hasher  *h = (cc_hasher *) arg;

	if (h->ctx != NULL)
		EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

static void
cc_hasher_update(void *arg, const void *data, size_t len)
{
	cc_hasher  *h = (cc_hasher *) arg;

	if (EVP_DigestUpdate(h->ctx, data, len) != 1)
		cc_hash_failed(h->kind);
}

cc_hasher *
cc_hasher_create(cc_hash_kind kind, MemoryContext mcxt)
{
	cc_hasher  *h = cc_hasher_new(kind, mcxt);

	h->md = cc_hash_md(kind);
	h->ctx = EVP_MD_CTX_new();
	if (h->ctx == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	return h;
}

void
cc_hasher_start(cc_hasher *h, cc_hash_sink *sink)
{
	if (EVP_DigestInit_ex(h->ctx, h->md, NULL) != 1)
		cc_hash_failed(h->kind);
	sink->update = cc_hasher_update;
	sink->arg = h;
}

void
cc_hasher_finish(cc_hasher *h, uint8_t *out)
{
	unsigned int len;

	if (EVP_DigestFinal_ex(h->ctx, out, &len) != 1)
		cc_hash_failed(h->kind);
	Assert(len == (h->kind == CC_HASH_SHA256 ? CC_DIGEST_LEN : CC_ID_LEN));
}

/* Frees the hasher's hash context now rather than with its memory. */
void
cc_hasher_free(cc_hasher *h)
{
	cc_hasher_release(h);
}

#elif PG_VERSION_NUM >= 140000

CC_NORETURN static void
cc_hash_failed(cc_hasher *h) CC_NORETURN_AFTER;

static void
cc_hash_failed(cc_hasher *h)
{
#if PG_VERSION_NUM >= 150000
	const char *why = pg_cryptohash_error(h->ctx);
#else
	const char *why = "the cryptographic library reported an error";
#endif

	ereport(ERROR,
			(errcode(ERRCODE_SYSTEM_ERROR),
			 errmsg("could not compute %s hash: %s", cc_hash_name(h->kind), why)));
}

/* Frees the hash context and the owner; runs when the hasher's memory goes. */
static void
cc_hasher_release(void *arg)
{
	cc_hasher  *h = (cc_hasher *) arg;

	if (h->ctx != NULL)
		pg_cryptohash_free(h->ctx);
	h->ctx = NULL;
	/*
	 * The owner holds nothing now.  It is deleted without a release: the
	 * release of a non-top-level owner expects a parent, and this one has
	 * none.
	 */
	if (h->owner != NULL)
		ResourceOwnerDelete(h->owner);
	h->owner = NULL;
}

static void
cc_hasher_update(void *arg, const void *data, size_t len)
{
	cc_hasher  *h = (cc_hasher *) arg;

	if (pg_cryptohash_update(h->ctx, (const uint8 *) data, len) < 0)
		cc_hash_failed(h);
}

cc_hasher *
cc_hasher_create(cc_hash_kind kind, MemoryContext mcxt)
{
	cc_hasher  *h = cc_hasher_new(kind, mcxt);
	ResourceOwner saved = CurrentResourceOwner;

	h->owner = ResourceOwnerCreate(NULL, "counter_crdt hashing");
	CurrentResourceOwner = h->owner;
	PG_TRY();
	{
		h->ctx = pg_cryptohash_create(kind == CC_HASH_SHA256 ? PG_SHA256 : PG_MD5);
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = saved;
	}
	PG_END_TRY();
	if (h->ctx == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	return h;
}

void
cc_hasher_start(cc_hasher *h, cc_hash_sink *sink)
{
	if (pg_cryptohash_init(h->ctx) < 0)
		cc_hash_failed(h);
	sink->update = cc_hasher_update;
	sink->arg = h;
}

void
cc_hasher_finish(cc_hasher *h, uint8_t *out)
{
#if PG_VERSION_NUM >= 150000
	if (pg_cryptohash_final(h->ctx, out,
							h->kind == CC_HASH_SHA256 ? CC_DIGEST_LEN : CC_ID_LEN) < 0)
#else
	if (pg_cryptohash_final(h->ctx, out) < 0)
#endif
		cc_hash_failed(h);
}

/* Frees the hasher's hash context now rather than with its memory. */
void
cc_hasher_free(cc_hasher *h)
{
	cc_hasher_release(h);
}

#else							/* PostgreSQL 13 */

static void
cc_hasher_update(void *arg, const void *data, size_t len)
{
	cc_hasher  *h = (cc_hasher *) arg;

	if (h->kind == CC_HASH_SHA256)
		pg_sha256_update(&h->sha256, (const uint8 *) data, len);
	else
		appendBinaryStringInfo(&h->name, (const char *) data, (int) len);
}

cc_hasher *
cc_hasher_create(cc_hash_kind kind, MemoryContext mcxt)
{
	cc_hasher  *h = MemoryContextAllocZero(mcxt, sizeof(cc_hasher));
	MemoryContext old = MemoryContextSwitchTo(mcxt);

	h->kind = kind;
	initStringInfo(&h->name);
	MemoryContextSwitchTo(old);
	return h;
}

void
cc_hasher_start(cc_hasher *h, cc_hash_sink *sink)
{
	if (h->kind == CC_HASH_SHA256)
		pg_sha256_init(&h->sha256);
	else
		resetStringInfo(&h->name);
	sink->update = cc_hasher_update;
	sink->arg = h;
}

void
cc_hasher_finish(cc_hasher *h, uint8_t *out)
{
	if (h->kind == CC_HASH_SHA256)
		pg_sha256_final(&h->sha256, out);
	else if (!pg_md5_binary(h->name.data, h->name.len, out))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
}

void
cc_hasher_free(cc_hasher *h)
{
	pfree(h->name.data);
	pfree(h);
}

#endif							/* CC_HASH_OPENSSL, PG_VERSION_NUM >= 140000 */

/*
 * The hasher of a function's call site: made at its first call in the
 * memory of the call site (fn_mcxt) and kept in fn_extra, which the caller
 * must use for nothing else.
 */
cc_hasher *
cc_hasher_of_call(FunctionCallInfo fcinfo, cc_hash_kind kind)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;

	if (flinfo == NULL)
		return cc_hasher_create(kind, CurrentMemoryContext);
	if (flinfo->fn_extra == NULL)
		flinfo->fn_extra = cc_hasher_create(kind, flinfo->fn_mcxt);
	return (cc_hasher *) flinfo->fn_extra;
}

/* Finishes an MD5 hasher into a name-based (version 3) uuid. */
void
cc_hasher_finish_v3(cc_hasher *h, uint8_t *id)
{
	cc_hasher_finish(h, id);
	cc_uuid_v3(id);
}
