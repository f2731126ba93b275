/*
 * cc_ids.c
 *	  Writer ids: ScyllaDB's rack and pending-replica ids, and the default id
 *	  of a server.
 */
#include "cc_ids.h"

#include <stdio.h>

/*
 * A name-based uuid as Java's UUID.nameUUIDFromBytes makes it: the MD5 of the
 * name with no namespace, then version 3 and the IETF variant.
 */
void
cc_uuid_v3(uint8_t *id)
{
	id[6] = (uint8_t) ((id[6] & 0x0f) | 0x30);
	id[8] = (uint8_t) ((id[8] & 0x3f) | 0x80);
}

void
cc_rack_name(const cc_hash_sink *sink, const char *dc, size_t dclen,
			 const char *rack, size_t racklen)
{
	sink->update(sink->arg, dc, dclen);
	sink->update(sink->arg, ":", 1);
	sink->update(sink->arg, rack, racklen);
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
 * identifier (drawn afresh by every initdb), the timeline it writes WAL on
 * and the database.  A promotion or a point-in-time recovery starts a new
 * timeline, and so a new id: the forked history never continues the shard
 * of the one it forked from.  A plain physical copy started as a primary
 * keeps the timeline; the merge trigger warns when two servers write under
 * one id (contract 7.2).
 */
size_t
cc_default_node_name(uint64_t system_identifier, uint32_t timeline,
					 uint32_t database_oid, char out[CC_NODE_NAME_SIZE])
{
	/* at most 13 + 20 + 1 + 10 + 1 + 10 characters: it always fits */
	return (size_t) snprintf(out, CC_NODE_NAME_SIZE, "counter_crdt:%llu:%lu:%lu",
							 (unsigned long long) system_identifier,
							 (unsigned long) timeline,
							 (unsigned long) database_oid);
}

/* Binary search of the shard of id in a canonical array; false if none. */
static bool
cc_find_shard(const unsigned char *s, size_t n, const uint8_t *id, cc_shard *out)
{
	size_t		pos = cc_id_lower_bound(s, n, CC_SHARD_SIZE, id);

	if (pos == n || !cc_id_eq(s + pos * CC_SHARD_SIZE, id))
		return false;
	cc_load(s, pos, out);
	return true;
}

bool
cc_writer_newer(const unsigned char *a, size_t na,
				const unsigned char *b, size_t nb, const uint8_t *writer,
				cc_shard *local, cc_shard *incoming)
{
	if (!cc_find_shard(b, nb, writer, incoming))
		return false;
	if (!cc_find_shard(a, na, writer, local))
	{
		memcpy(local->id, writer, CC_ID_LEN);
		local->clock = 0;
		local->value = 0;
		return true;
	}
	return incoming->clock > local->clock ||
		(incoming->clock == local->clock && incoming->value != local->value);
}

bool
cc_clock_near_limit(const unsigned char *a, size_t na,
					const unsigned char *b, size_t nb,
					cc_shard *local, cc_shard *incoming)
{
	for (size_t i = 0; i < nb; i++)
	{
		cc_load(b, i, incoming);
		if (incoming->clock < CC_CLOCK_NEAR_LIMIT)
			continue;
		if (!cc_find_shard(a, na, incoming->id, local))
		{
			memcpy(local->id, incoming->id, CC_ID_LEN);
			local->clock = 0;
			local->value = 0;
			return true;
		}
		if (incoming->clock > local->clock)
			return true;
	}
	return false;
}

const uint8_t *
cc_default_id_get(cc_default_id_memo *memo, uint64_t system_identifier,
				  uint32_t timeline, uint32_t database_oid, cc_md5v3_fn md5v3,
				  void *arg)
{
	if (memo->timeline != timeline || memo->timeline == 0 ||
		memo->system_identifier != system_identifier ||
		memo->database_oid != database_oid)
	{
		char		name[CC_NODE_NAME_SIZE];
		size_t		len = cc_default_node_name(system_identifier, timeline,
											   database_oid, name);

		md5v3(name, len, memo->id, arg);
		memo->system_identifier = system_identifier;
		memo->timeline = timeline;
		memo->database_oid = database_oid;
	}
	return memo->id;
}
