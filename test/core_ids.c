/*
 * core_ids.c
 *	  Unit tests of writer ids: ScyllaDB's rack and pending ids, and the
 *	  default id of a server.
 */
#include "cc_test.h"

static const char *
id_text(const uint8_t *id)
{
	static char out[CC_UUID_TEXT_LEN + 1];

	cc_uuid_format(id, out);
	return out;
}

void
test_ids(void)
{
	uint8_t		id[CC_ID_LEN],
				p[CC_ID_LEN],
				q[CC_ID_LEN];

	/* SPEC example: ('dc1', 'rack1') */
	cc_rack_id("dc1", 3, "rack1", 5, id);
	CHECK(strcmp(id_text(id), "7f0cab51-fb72-3e98-bdb4-0404a982865d") == 0);
	/* MD5("dc1:rack1") = 7f0cab51fb72fe98bdb40404a982865d before the bits */
	cc_rack_id("", 0, "", 0, id);
	/* MD5(":") = 853ae90f0351324bd73ea615e6487517 */
	CHECK(strcmp(id_text(id), "853ae90f-0351-324b-973e-a615e6487517") == 0);
	cc_rack_id("dc1:", 4, "", 0, id);
	cc_rack_id("dc1", 3, ":", 1, p);
	CHECK(memcmp(id, p, CC_ID_LEN) == 0);	/* the name is the bytes joined */

	/* pending ids: bytes 8 and 9 flipped, an involution */
	cc_rack_id("dc1", 3, "rack1", 5, id);
	cc_pending_id(id, p);
	CHECK(strcmp(id_text(p), "7f0cab51-fb72-3e98-824b-0404a982865d") == 0);
	cc_pending_id(p, q);
	CHECK(memcmp(q, id, CC_ID_LEN) == 0);
	CHECK(memcmp(p, id, 8) == 0 && memcmp(p + 10, id + 10, 6) == 0);

	/* default ids: deterministic, version 3, distinct per system identifier */
	cc_default_node_id(7000000000000000001ULL, id);
	cc_default_node_id(7000000000000000001ULL, p);
	cc_default_node_id(7000000000000000002ULL, q);
	CHECK(memcmp(id, p, CC_ID_LEN) == 0);
	CHECK(memcmp(id, q, CC_ID_LEN) != 0);
	CHECK((id[6] >> 4) == 3 && (id[8] & 0xc0) == 0x80);
}
