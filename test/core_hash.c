/*
 * core_hash.c
 *	  Unit tests of the core's hash inputs: the exact bytes that a state
 *	  digest, a row of a table digest and a name-based id are the hash of,
 *	  and the digests themselves as OpenSSL computes them.
 *
 * The core writes no hash function.  These tests check, apart from it:
 *	- the byte stream it hands to a sink, against an encoder written here
 *	  from the documentation in cc_digest.h;
 *	- that the stream arrives in few pieces, none empty;
 *	- digests of known states against Python's hashlib:
 *
 *	  m = b"counter_crdt digest v1" + bytes([flag]) + struct.pack(">Q", n)
 *	  m += b"".join(uuid.UUID(id).bytes + struct.pack(">qq", clock, value) ...)
 *	  hashlib.sha256(m).hexdigest()
 *
 *	- and, at run time, OpenSSL's one-shot SHA-256 of the reference stream
 *	  against the core's stream hashed piece by piece (cc_ossl.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "cc_ossl.h"
#include "cc_test.h"
#include "cc_test_capture.h"

#define A "00000000-0000-0000-0000-000000000001"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"

#define MAX_SHARDS	40			/* more than the core gathers per piece */
#define MAX_STREAM	(64 + 4096 + 9 + MAX_SHARDS * CC_SHARD_SIZE)

static size_t
put_state(unsigned char *ref, size_t len, const cc_shard *sh, size_t n,
		  bool tombstone)
{
	ref[len++] = tombstone ? 1 : 0;
	len = cc_ref_be64(ref, len, n);
	for (size_t i = 0; i < n; i++)
	{
		len = cc_ref_put(ref, len, sh[i].id, CC_ID_LEN);
		len = cc_ref_be64(ref, len, (uint64_t) sh[i].clock);
		len = cc_ref_be64(ref, len, (uint64_t) sh[i].value);
	}
	return len;
}

static void
sha256_once(const unsigned char *data, size_t len, uint8_t out[CC_DIGEST_LEN])
{
	unsigned int olen = 0;

	CHECK(EVP_Digest(data, len, out, &olen, EVP_sha256(), NULL) == 1 &&
		  olen == CC_DIGEST_LEN);
}

static void
from_hex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		unsigned	v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t) v;
	}
}

/* n shards of ascending ids with clocks and values of every sign and size. */
static void
make_state(cc_shard *sh, unsigned char *s, size_t n, unsigned seed)
{
	srand(seed);
	for (size_t i = 0; i < n; i++)
	{
		memset(sh[i].id, 0, CC_ID_LEN);
		sh[i].id[0] = (uint8_t) (i * 6);
		for (int b = 1; b < CC_ID_LEN; b++)
			sh[i].id[b] = (uint8_t) rand();
		sh[i].clock = 1 + ((int64_t) rand() << 31 | rand());
		sh[i].value = (int64_t) (((uint64_t) rand() << 33) ^ (uint64_t) rand());
		if (i == 1)
			sh[i].value = INT64_MIN;
		if (i == 2)
			sh[i].clock = INT64_MAX;
		cc_store(s, i, &sh[i]);
	}
}

static void
test_digest_vectors(void)
{
	static const struct
	{
		const char *text;
		const char *hex;
	}			cases[] = {
		{"{}", "f361c1b4c2f970dae17869a60dce3d53637a2415065af72813c1c6feae2f9800"},
		{"tombstone", "5f89ff28e375720cbc955538c3d5635b96969e9db9a3be87ae0553a0f9788ebb"},
		{"{" D ":1:-5, " A ":3:42}",
		"53c888b512da8c8ecc12f600fbcbab63dc83d848c0e5a3bb5a114334f2db63d2"},
		{"{" A ":1:-9223372036854775808, " D ":9223372036854775807:9223372036854775807}",
		"3f463058f8abb7b1e162ee76b26f34ee204b1c3aa33159bf78625a4c5e7bd4d1"},
	};
	static unsigned char s[4 * CC_SHARD_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bool		t;
		size_t		n = state_from_text(cases[i].text, s, &t);
		uint8_t		want[CC_DIGEST_LEN],
					got[CC_DIGEST_LEN];

		from_hex(cases[i].hex, want, CC_DIGEST_LEN);
		ossl_digest(s, n, t, got);
		CHECKF(memcmp(got, want, CC_DIGEST_LEN) == 0, "digest of %s", cases[i].text);
	}
}

/* Every state size around the core's piece size: the stream, byte for byte. */
static void
test_digest_stream(void)
{
	static cc_shard sh[MAX_SHARDS];
	static unsigned char s[MAX_SHARDS * CC_SHARD_SIZE];
	static unsigned char ref[MAX_STREAM];
	static cc_capture c;
	static const char tag[] = "counter_crdt digest v1";

	for (size_t n = 0; n <= MAX_SHARDS; n++)
		for (int t = 0; t <= (n == 0 ? 1 : 0); t++)
		{
			cc_hash_sink sink = cc_capture_start(&c);
			size_t		len;
			uint8_t		want[CC_DIGEST_LEN],
						got[CC_DIGEST_LEN];

			make_state(sh, s, n, (unsigned) n);
			len = cc_ref_put(ref, 0, tag, sizeof(tag) - 1);
			len = put_state(ref, len, sh, n, t);
			cc_digest_input(&sink, s, n, t);
			CHECKF(!c.overflow && c.len == len && memcmp(c.bytes, ref, len) == 0,
				   "digest stream of %zu shards", n);
			CHECKF(c.empty_calls == 0 && c.calls <= 1 + (int) (n / 8),
				   "%d pieces (%d empty) for %zu shards", c.calls, c.empty_calls, n);
			sha256_once(ref, len, want);
			ossl_digest(s, n, t, got);
			CHECKF(memcmp(got, want, CC_DIGEST_LEN) == 0, "digest of %zu shards", n);
		}
}

/* Rows: keys shorter and longer than a piece, each kind of state. */
static void
test_row_stream(void)
{
	static cc_shard sh[MAX_SHARDS];
	static unsigned char s[MAX_SHARDS * CC_SHARD_SIZE];
	static unsigned char ref[MAX_STREAM];
	static char key[4096];
	static cc_capture c;
	static const char tag[] = "counter_crdt row v1";
	static const size_t keylens[] = {0, 1, 7, 500, 511, 512, 513, 1000, 4096};
	static const size_t nshards[] = {0, 1, 3, 15, 16, 17, MAX_SHARDS};

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (char) ('a' + i % 26);
	for (size_t k = 0; k < sizeof(keylens) / sizeof(keylens[0]); k++)
		for (int kind = 0; kind < 3; kind++)	/* NULL, tombstone, live */
			for (size_t j = 0; j < sizeof(nshards) / sizeof(nshards[0]); j++)
			{
				size_t		n = kind == 2 ? nshards[j] : 0;
				size_t		kl = keylens[k];
				cc_view		v;
				cc_hash_sink sink = cc_capture_start(&c);
				size_t		len;
				uint8_t		want[CC_DIGEST_LEN],
							got[CC_DIGEST_LEN];

				if (kind < 2 && j > 0)
					continue;
				make_state(sh, s, n, (unsigned) (n + 100));
				v.shards = s;
				v.n = n;
				v.tombstone = kind == 1;
				len = cc_ref_put(ref, 0, tag, sizeof(tag) - 1);
				len = cc_ref_be64(ref, len, kl);
				len = cc_ref_put(ref, len, key, kl);
				if (kind == 0)
					ref[len++] = 2;
				else
					len = put_state(ref, len, sh, n, kind == 1);
				cc_row_hash_input(&sink, key, kl, kind == 0 ? NULL : &v);
				CHECKF(!c.overflow && c.len == len && memcmp(c.bytes, ref, len) == 0,
					   "row stream, key of %zu bytes, kind %d, %zu shards", kl, kind, n);
				CHECKF(c.empty_calls == 0 && c.calls <= 3 + (int) (n / 8),
					   "%d pieces (%d empty) for a row", c.calls, c.empty_calls);
				sha256_once(ref, len, want);
				ossl_row_hash(key, kl, kind == 0 ? NULL : &v, got);
				CHECKF(memcmp(got, want, CC_DIGEST_LEN) == 0,
					   "row hash, key of %zu bytes, kind %d, %zu shards", kl, kind, n);
			}
}

/*
 * A value as stored, in any layout: the digest and the row hash read its
 * shards as they lie and must feed exactly the bytes of its widened shards.
 * States of one, two and four bytes carry each limit of their width (the
 * largest clock, the smallest and largest value, -1) so that a sign or a
 * width slip in a packed reader shows.
 */
static void
test_stored_stream(void)
{
	static cc_shard sh[MAX_SHARDS];
	static unsigned char room[CC_STORED_HEADER + MAX_SHARDS * CC_SHARD_SIZE];
	static unsigned char ref[MAX_STREAM];
	static cc_capture c;
	static const char dtag[] = "counter_crdt digest v1";
	static const char rtag[] = "counter_crdt row v1";
	static const size_t nshards[] = {0, 1, 2, 3, 4, 16, 17, MAX_SHARDS};
	/* per width: the largest clock, the value range, the layout byte */
	static const int64_t cmax[] = {0, 255, 65535, UINT32_MAX};
	static const int64_t vmin[] = {0, INT8_MIN, INT16_MIN, INT32_MIN};
	static const int64_t vmax[] = {0, INT8_MAX, INT16_MAX, INT32_MAX};
	static const uint8_t lays[] = {0, 0x05, 0x0a, 0x0f};
	int			packed_seen = 0;

	for (size_t j = 0; j < sizeof(nshards) / sizeof(nshards[0]); j++)
		for (int w = 0; w <= 3; w++)
			for (int t = 0; t <= (nshards[j] == 0 ? 1 : 0); t++)
			{
				size_t		n = nshards[j];
				cc_stored	st;
				cc_error	err;
				cc_hash_sink sink;
				size_t		len,
							stored;

				make_state(sh, room + CC_STORED_HEADER, n, (unsigned) (n + 7));
				if (w > 0)
					for (size_t i = 0; i < n; i++)
					{
						sh[i].clock = i == 0 ? cmax[w] : 1 + (int64_t) (rand() % cmax[w]);
						sh[i].value = i == 1 ? vmin[w] : i == 2 ? vmax[w] :
							i == 3 ? -1 : vmin[w] + (int64_t) (rand() % (vmax[w] - vmin[w]));
						cc_store(room + CC_STORED_HEADER, i, &sh[i]);
					}
				stored = cc_stored_pack(room, n, t);
				CHECK(cc_stored_open(room, stored, &st, &err) == CC_OK);
				CHECKF(w == 0 || n < 4 || st.lay == lays[w],
					   "%zu shards of width %d stored as layout %02x", n, w, st.lay);
				packed_seen += w > 0 && n >= 4 && st.lay == lays[w];

				sink = cc_capture_start(&c);
				len = cc_ref_put(ref, 0, dtag, sizeof(dtag) - 1);
				len = put_state(ref, len, sh, n, t);
				cc_digest_input_stored(&sink, &st);
				CHECKF(!c.overflow && c.len == len && memcmp(c.bytes, ref, len) == 0,
					   "stored digest stream, %zu shards, width %d", n, w);

				sink = cc_capture_start(&c);
				len = cc_ref_put(ref, 0, rtag, sizeof(rtag) - 1);
				len = cc_ref_be64(ref, len, 3);
				len = cc_ref_put(ref, len, "k42", 3);
				len = put_state(ref, len, sh, n, t);
				cc_row_hash_input_stored(&sink, "k42", 3, &st);
				CHECKF(!c.overflow && c.len == len && memcmp(c.bytes, ref, len) == 0,
					   "stored row stream, %zu shards, width %d", n, w);
			}
	CHECK(packed_seen == 3 * 4);

	/* a NULL state is the tag byte 2 alone */
	{
		cc_hash_sink sink = cc_capture_start(&c);
		size_t		len = cc_ref_put(ref, 0, rtag, sizeof(rtag) - 1);

		len = cc_ref_be64(ref, len, 0);
		ref[len++] = 2;
		cc_row_hash_input_stored(&sink, "", 0, NULL);
		CHECK(c.len == len && memcmp(c.bytes, ref, len) == 0);
	}
}

/* The names of name-based ids, and the version and variant bits. */
static void
test_id_names(void)
{
	static cc_capture c;
	cc_hash_sink sink = cc_capture_start(&c);
	char		name[CC_NODE_NAME_SIZE];
	size_t		len;
	uint8_t		id[CC_ID_LEN];

	cc_rack_name(&sink, "dc1", 3, "rack1xyz", 5);
	CHECK(c.len == 9 && memcmp(c.bytes, "dc1:rack1", 9) == 0);
	sink = cc_capture_start(&c);
	cc_rack_name(&sink, "", 0, "", 0);
	CHECK(c.len == 1 && c.bytes[0] == ':');

	len = cc_default_node_name(UINT64_MAX, UINT32_MAX, UINT32_MAX, name);
	CHECK(len == strlen(name) &&
		  strcmp(name, "counter_crdt:18446744073709551615:4294967295:4294967295") == 0);
	len = cc_default_node_name(0, 1, 5, name);
	CHECK(len == 18 && strcmp(name, "counter_crdt:0:1:5") == 0);

	memset(id, 0xff, CC_ID_LEN);
	cc_uuid_v3(id);
	CHECK(id[6] == 0x3f && id[8] == 0xbf && id[7] == 0xff && id[9] == 0xff &&
		  id[0] == 0xff && id[15] == 0xff);
	memset(id, 0, CC_ID_LEN);
	cc_uuid_v3(id);
	CHECK(id[6] == 0x30 && id[8] == 0x80 && id[7] == 0 && id[5] == 0);
}

void
test_hash(void)
{
	test_digest_vectors();
	test_digest_stream();
	test_row_stream();
	test_stored_stream();
	test_id_names();
}
