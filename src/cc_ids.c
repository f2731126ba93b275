/*
 * cc_ids.c
 *	  Writer ids: ScyllaDB's rack and pending-replica ids, and the default id
 *	  of a server.
 */
#include "cc_core.h"

#include <stdio.h>

#include "cc_hash.h"

/*
 * A name-based uuid as Java's UUID.nameUUIDFromBytes makes it: the MD5 of the
 * name with no namespace, then version 3 and the IETF variant.
 */
static void
cc_set_v3(uint8_t *id)
{
	id[6] = (uint8_t) ((id[6] & 0x0f) | 0x30);
	id[8] = (uint8_t) ((id[8] & 0x3f) | 0x80);
}

void
cc_rack_id(const char *dc, size_t dclen, const char *rack, size_t racklen,
		   uint8_t *out)
{
	cc_md5_ctx	ctx;

	cc_md5_init(&ctx);
	cc_md5_update(&ctx, dc, dclen);
	cc_md5_update(&ctx, ":", 1);
	cc_md5_update(&ctx, rack, racklen);
	cc_md5_final(&ctx, out);
	cc_set_v3(out);
}

void
cc_pending_id(const uint8_t *in, uint8_t *out)
{
	memcpy(out, in, CC_ID_LEN);
	out[8] ^= 0x3F;
	out[9] ^= 0xFF;
}

/*
 * The default writer id of a server: a name-based uuid of its system
 * identifier, which initdb draws afresh for every cluster.  Stable across
 * restarts; a physical copy of the cluster (pg_basebackup) keeps it, which is
 * why such a copy must be given an id of its own before it takes writes.
 */
void
cc_default_node_id(uint64_t system_identifier, uint8_t *out)
{
	char		name[64];
	int			len;
	cc_md5_ctx	ctx;

	len = snprintf(name, sizeof(name), "counter_crdt node %llu",
				   (unsigned long long) system_identifier);
	cc_md5_init(&ctx);
	cc_md5_update(&ctx, name, (size_t) len);
	cc_md5_final(&ctx, out);
	cc_set_v3(out);
}
