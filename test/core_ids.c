/*
 * core_ids.c
 *	  Unit tests of writer ids: ScyllaDB's rack and pending ids, and the
 *	  default id of a server.
 */
#include "cc_ossl.h"
#include "cc_test.h"

static const char *
id_text(const uint8_t *id)
{
	static char out[CC_UUID_TEXT_LEN + 1];

	cc_uuid_format(id, out);
	return out;
}

/* cc_writer_newer(a, b, writer) on states given as text. */
static bool
newer(const char *a, const char *b, const char *writer, int64_t *lclock,
	  int64_t *iclock)
{
	static unsigned char sa[8 * CC_SHARD_SIZE],
				sb[8 * CC_SHARD_SIZE];
	bool		ta,
				tb;
	size_t		na = state_from_text(a, sa, &ta),
				nb = state_from_text(b, sb, &tb);
	uint8_t		w[CC_ID_LEN];
	cc_shard	l,
				i;
	bool		r;

	CHECK(cc_uuid_parse(writer, strlen(writer), w));
	r = cc_writer_newer(sa, na, sb, nb, w, &l, &i);
	if (r)
	{
		CHECK(memcmp(l.id, w, CC_ID_LEN) == 0 && memcmp(i.id, w, CC_ID_LEN) == 0);
		*lclock = l.clock;
		*iclock = i.clock;
	}
	return r;
}

#define W1 "00000000-0000-0000-0000-000000000001"
#define W5 "55555555-5555-5555-5555-555555555555"
#define W9 "ffffffff-ffff-ffff-ffff-ffffffffffff"

static void
test_writer_newer(void)
{
	int64_t		l = -1,
				i = -1;

	/* higher clock, equal clock with another value (higher or lower) */
	CHECK(newer("{" W5 ":3:30}", "{" W5 ":4:31}", W5, &l, &i) && l == 3 && i == 4);
	CHECK(newer("{" W5 ":3:30}", "{" W5 ":3:31}", W5, &l, &i) && l == 3 && i == 3);
	CHECK(newer("{" W5 ":3:30}", "{" W5 ":3:29}", W5, &l, &i));
	/* the same shard, or an older one: the echo of our own writes */
	CHECK(!newer("{" W5 ":3:30}", "{" W5 ":3:30}", W5, &l, &i));
	CHECK(!newer("{" W5 ":3:30}", "{" W5 ":2:99}", W5, &l, &i));
	/* absent locally: newer than nothing, local reported as clock 0 */
	CHECK(newer("{" W1 ":9:9}", "{" W5 ":1:1}", W5, &l, &i) && l == 0 && i == 1);
	CHECK(newer("{}", "{" W5 ":1:1}", W5, &l, &i));
	/* absent in the incoming state, or only other writers newer */
	CHECK(!newer("{" W5 ":3:30}", "{" W1 ":8:8}", W5, &l, &i));
	CHECK(!newer("{" W1 ":1:1, " W5 ":3:30, " W9 ":1:1}",
				 "{" W1 ":7:7, " W5 ":3:30, " W9 ":7:7}", W5, &l, &i));
	CHECK(!newer("{}", "{}", W5, &l, &i));
	/* found at every position of several shards (the binary search) */
	CHECK(newer("{" W1 ":1:1, " W5 ":3:30, " W9 ":1:1}",
				"{" W1 ":1:1, " W5 ":5:30, " W9 ":1:1}", W5, &l, &i) && l == 3 && i == 5);
	CHECK(newer("{" W1 ":1:1, " W5 ":3:30, " W9 ":1:1}",
				"{" W1 ":2:1, " W5 ":3:30, " W9 ":1:1}", W1, &l, &i) && l == 1 && i == 2);
	CHECK(newer("{" W1 ":1:1, " W5 ":3:30, " W9 ":1:1}",
				"{" W9 ":1:2}", W9, &l, &i) && l == 1 && i == 1);
	CHECK(!newer("{" W1 ":1:1, " W5 ":3:30, " W9 ":4:1}",
				 "{" W1 ":1:1, " W9 ":3:2}", W9, &l, &i));
	/* a tombstone holds no shards */
	CHECK(!newer("{" W5 ":3:30}", "tombstone", W5, &l, &i));
}

/* cc_clock_near_limit(a, b) on states given as text. */
static bool
near_limit(const char *a, const char *b, int64_t *lclock, int64_t *iclock,
		   const char **writer)
{
	static unsigned char sa[8 * CC_SHARD_SIZE],
				sb[8 * CC_SHARD_SIZE];
	bool		ta,
				tb;
	size_t		na = state_from_text(a, sa, &ta),
				nb = state_from_text(b, sb, &tb);
	cc_shard	l,
				i;
	bool		r = cc_clock_near_limit(sa, na, sb, nb, &l, &i);

	if (r)
	{
		CHECK(memcmp(l.id, i.id, CC_ID_LEN) == 0);
		*lclock = l.clock;
		*iclock = i.clock;
		*writer = id_text(i.id);
	}
	return r;
}

#define LIMIT "4611686018427387904"		/* 2^62 */
#define BELOW "4611686018427387903"
#define TOP "9223372036854775807"

static void
test_clock_near_limit(void)
{
	int64_t		l = -1,
				i = -1;
	const char *w = NULL;

	/* brought by b: absent in a, or lower there */
	CHECK(near_limit("{}", "{" W5 ":" LIMIT ":1}", &l, &i, &w) && l == 0 &&
		  i == INT64_C(4611686018427387904) && strcmp(w, W5) == 0);
	CHECK(near_limit("{" W5 ":7:7}", "{" W5 ":" TOP ":1}", &l, &i, &w) && l == 7 &&
		  i == INT64_MAX);
	CHECK(near_limit("{" W5 ":" LIMIT ":1}", "{" W5 ":" TOP ":1}", &l, &i, &w) &&
		  l == INT64_C(4611686018427387904));
	/* below the limit, or already in a at that clock or above: nothing new */
	CHECK(!near_limit("{}", "{" W5 ":" BELOW ":1}", &l, &i, &w));
	CHECK(!near_limit("{" W5 ":" TOP ":1}", "{" W5 ":" TOP ":2}", &l, &i, &w));
	CHECK(!near_limit("{" W5 ":" TOP ":1}", "{" W5 ":" LIMIT ":1}", &l, &i, &w));
	CHECK(!near_limit("{" W5 ":3:3}", "{" W5 ":3:3}", &l, &i, &w));
	CHECK(!near_limit("{}", "tombstone", &l, &i, &w));
	/* any writer, at any position; the first one b brings is reported */
	CHECK(near_limit("{" W1 ":1:1, " W9 ":" TOP ":1}",
					 "{" W1 ":2:1, " W5 ":3:3, " W9 ":" TOP ":1}", &l, &i, &w) == false);
	CHECK(near_limit("{" W1 ":1:1}", "{" W1 ":2:1, " W5 ":3:3, " W9 ":" LIMIT ":1}",
					 &l, &i, &w) && strcmp(w, W9) == 0 && l == 0);
	CHECK(near_limit("{" W1 ":1:1, " W9 ":" LIMIT ":1}",
					 "{" W1 ":" LIMIT ":1, " W9 ":" TOP ":1}", &l, &i, &w) &&
		  strcmp(w, W1) == 0 && l == 1);
}

/* A stand-in MD5 that counts its calls and derives the id from the name. */
static int	md5_calls;

static void
counting_md5v3(const char *name, size_t len, uint8_t out[CC_ID_LEN], void *arg)
{
	CHECK(arg == &md5_calls);
	md5_calls++;
	ossl_md5v3(name, len, out);
}

static void
test_default_id_memo(void)
{
	cc_default_id_memo memo;
	uint8_t		want[CC_ID_LEN];
	const uint8_t *id;

	memset(&memo, 0, sizeof(memo));
	md5_calls = 0;
	/* the first call derives it, the next ones answer from the memo */
	id = cc_default_id_get(&memo, 7301234567890123456ULL, 1, 5, counting_md5v3, &md5_calls);
	ossl_node_id(7301234567890123456ULL, 1, 5, want);
	CHECK(memcmp(id, want, CC_ID_LEN) == 0 && md5_calls == 1);
	id = cc_default_id_get(&memo, 7301234567890123456ULL, 1, 5, counting_md5v3, &md5_calls);
	CHECK(memcmp(id, want, CC_ID_LEN) == 0 && md5_calls == 1);
	/* a promotion seen by the same session: the new timeline's id */
	id = cc_default_id_get(&memo, 7301234567890123456ULL, 2, 5, counting_md5v3, &md5_calls);
	ossl_node_id(7301234567890123456ULL, 2, 5, want);
	CHECK(memcmp(id, want, CC_ID_LEN) == 0 && md5_calls == 2);
	id = cc_default_id_get(&memo, 7301234567890123456ULL, 2, 5, counting_md5v3, &md5_calls);
	CHECK(memcmp(id, want, CC_ID_LEN) == 0 && md5_calls == 2);
	/* another cluster or database is another id too */
	id = cc_default_id_get(&memo, 7301234567890123457ULL, 2, 5, counting_md5v3, &md5_calls);
	ossl_node_id(7301234567890123457ULL, 2, 5, want);
	CHECK(memcmp(id, want, CC_ID_LEN) == 0 && md5_calls == 3);
	id = cc_default_id_get(&memo, 7301234567890123457ULL, 2, 6, counting_md5v3, &md5_calls);
	ossl_node_id(7301234567890123457ULL, 2, 6, want);
	CHECK(memcmp(id, want, CC_ID_LEN) == 0 && md5_calls == 4);
	/* timeline 1 again (a cluster restored from before the promotion) */
	id = cc_default_id_get(&memo, 7301234567890123457ULL, 1, 6, counting_md5v3, &md5_calls);
	ossl_node_id(7301234567890123457ULL, 1, 6, want);
	CHECK(memcmp(id, want, CC_ID_LEN) == 0 && md5_calls == 5);
}

void
test_ids(void)
{
	uint8_t		id[CC_ID_LEN],
				p[CC_ID_LEN],
				q[CC_ID_LEN];

	/* contract example: ('dc1', 'rack1') */
	ossl_rack_id("dc1", 3, "rack1", 5, id);
	CHECK(strcmp(id_text(id), "7f0cab51-fb72-3e98-bdb4-0404a982865d") == 0);
	/* MD5("dc1:rack1") = 7f0cab51fb72fe98bdb40404a982865d before the bits */
	ossl_rack_id("", 0, "", 0, id);
	/* MD5(":") = 853ae90f0351324bd73ea615e6487517 */
	CHECK(strcmp(id_text(id), "853ae90f-0351-324b-973e-a615e6487517") == 0);
	ossl_rack_id("dc1:", 4, "", 0, id);
	ossl_rack_id("dc1", 3, ":", 1, p);
	CHECK(memcmp(id, p, CC_ID_LEN) == 0);	/* the name is the bytes joined */

	/* pending ids: bytes 8 and 9 flipped, an involution */
	ossl_rack_id("dc1", 3, "rack1", 5, id);
	cc_pending_id(id, p);
	CHECK(strcmp(id_text(p), "7f0cab51-fb72-3e98-824b-0404a982865d") == 0);
	cc_pending_id(p, q);
	CHECK(memcmp(q, id, CC_ID_LEN) == 0);
	CHECK(memcmp(p, id, 8) == 0 && memcmp(p + 10, id + 10, 6) == 0);

	/*
	 * default ids (contract 7.1), computed apart from the core with Python:
	 *   import hashlib, uuid
	 *   uuid.UUID(bytes=hashlib.md5(b"counter_crdt:7301234567890123456:1:5").digest(), version=3)
	 */
	ossl_node_id(7301234567890123456ULL, 1, 5, id);
	CHECK(strcmp(id_text(id), "9bd1c085-4834-3c85-a879-cd69fd3e6531") == 0);
	/* every field at its largest: the name buffer holds them, unsigned */
	ossl_node_id(UINT64_MAX, UINT32_MAX, UINT32_MAX, id);
	CHECK(strcmp(id_text(id), "b6ba6de0-aeb4-307f-b3f4-6bb07901507b") == 0);
	ossl_node_id(0, 1, 1, id);
	CHECK(strcmp(id_text(id), "485b7459-3e79-3874-9110-87136ff16dc8") == 0);
	/* each of the three numbers changes the id */
	ossl_node_id(7301234567890123456ULL, 1, 5, id);
	ossl_node_id(7301234567890123456ULL, 2, 5, p);
	CHECK(memcmp(id, p, CC_ID_LEN) != 0);
	ossl_node_id(7301234567890123456ULL, 1, 6, p);
	CHECK(memcmp(id, p, CC_ID_LEN) != 0);
	ossl_node_id(7301234567890123457ULL, 1, 5, p);
	CHECK(memcmp(id, p, CC_ID_LEN) != 0);
	ossl_node_id(7301234567890123456ULL, 1, 5, q);
	CHECK(memcmp(id, q, CC_ID_LEN) == 0);

	test_writer_newer();
	test_clock_near_limit();
	test_default_id_memo();
}
