/*
 * hashing.c
 *	  SHA-256 and MD5 for the core's hash inputs, from PostgreSQL's own
 *	  src/common hashing (OpenSSL's in Debian's build).
 *
 * The core produces the bytes that a digest or a name-based id is the hash
 * of and hands them to a cc_hash_sink; a cc_hasher is such a sink over a
 * PostgreSQL hash context.
 *
 * From PostgreSQL 14 on, pg_cryptohash_create() allocates a context and
 * registers it with the current resource owner.  A table digest hashes one
 * row per call, so a hasher is made once per call site (kept in fn_extra)
 * and only re-initialised per row.  Its context is registered with a
 * resource owner of its own, not with the current one, and is freed when
 * the memory context that holds the hasher goes away: the current owner may
 * be a subtransaction's or a portal's that is released before or after that
 * memory (an error inside a plpgsql exception block releases the owner
 * first, then SPI frees the executor's memory), and a context freed by the
 * owner would then be freed a second time by us.  An owner that nobody else
 * knows of is released only here.
 *
 * PostgreSQL 13 has no cryptohash API: SHA-256 works in place
 * (common/sha2.h) and MD5 takes its input in one piece (common/md5.h), so
 * the hasher gathers the (short) names of ids first.
 */
#include "counter_crdt.h"

#if PG_VERSION_NUM >= 140000
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
#if PG_VERSION_NUM >= 140000
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

#if PG_VERSION_NUM >= 140000

static void
cc_hash_failed(cc_hasher *h) pg_attribute_noreturn();

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
	cc_hasher  *h = MemoryContextAllocZero(mcxt, sizeof(cc_hasher));
	MemoryContextCallback *cb = MemoryContextAlloc(mcxt, sizeof(*cb));
	ResourceOwner saved = CurrentResourceOwner;

	h->kind = kind;
	cb->func = cc_hasher_release;
	cb->arg = h;
	MemoryContextRegisterResetCallback(mcxt, cb);

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

#endif							/* PG_VERSION_NUM >= 140000 */

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
