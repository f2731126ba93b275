/*
 * core_fold_digest.c
 *	  The state digest and the row hash of states with fold records
 *	  (cc_digest.h): the bytes the core feeds, and their SHA-256.
 *
 * cc_digest.h defines the feed of a state with records as the feed of its
 * shards followed by the record count (8 bytes, big-endian) and each record
 * as retired[16] target[16] tclock aclock avalue absorbed (8 bytes each,
 * big-endian), in record order.  These tests check, apart from the core:
 *	- the byte stream, against an encoder written here from that text (it
 *	  reads the records' fields as numbers, not the core's bytes), for a
 *	  state described by hand (cc_stored_of_records() and its records) and
 *	  for the same state packed and opened as a stored value, as the glue
 *	  digests it; both as a state digest and as a row of a table digest;
 *	- that the stream arrives in few pieces, none empty, whatever the
 *	  number of shards and records (so every place a record or the record
 *	  count meets the end of the core's buffer is crossed);
 *	- OpenSSL's one-shot SHA-256 of the reference stream against the core's
 *	  stream hashed piece by piece;
 *	- digests, row hashes and their sum modulo 2^256 of three states against
 *	  Python's hashlib:
 *
 *	  def enc(shards, recs):	# shards (id, clock, value), recs (a, t, 4 numbers)
 *	      m = b"\x00" + struct.pack(">Q", len(shards)) + b"".join(
 *	          uuid.UUID(i).bytes + struct.pack(">qq", c, v) for i, c, v in shards)
 *	      if recs:
 *	          m += struct.pack(">Q", len(recs)) + b"".join(uuid.UUID(a).bytes +
 *	              uuid.UUID(t).bytes + struct.pack(">qqqq", *f) for a, t, *f in recs)
 *	      return m
 *	  digest = sha256(b"counter_crdt digest v1" + enc(s, r))
 *	  row = sha256(b"counter_crdt row v1" + struct.pack(">Q", len(k)) + k + enc(s, r))
 *	  sum = (sum of int.from_bytes(row, "big")) % 2**256
 *
 *	  (shards and records in id order);
 *	- random folded states (cc_test_folds.h), cases / 20 of them.
 */
#include <stdint.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "cc_fold.h"
#include "cc_ossl.h"
#include "cc_test.h"
#include "cc_test_capture.h"
#include "cc_test_folds.h"

#define FD_SHARDS	24
#define FD_FOLDS	24
#define FD_KEY		600			/* longer than the core's buffer */
#define FD_STREAM	(64 + FD_KEY + 17 + FD_SHARDS * 32 + 8 + FD_FOLDS * 64)

/* A live state with records, as cc_digest.h describes its bytes. */
static size_t
ref_state(unsigned char *ref, size_t len, const cc_folded *v)
{
	ref[len++] = 0;
	len = cc_ref_be64(ref, len, (uint64_t) v->n);
	for (size_t i = 0; i < v->n; i++)
	{
		cc_shard	sh;

		cc_load(v->shards, i, &sh);
		len = cc_ref_put(ref, len, sh.id, CC_ID_LEN);
		len = cc_ref_be64(ref, len, (uint64_t) sh.clock);
		len = cc_ref_be64(ref, len, (uint64_t) sh.value);
	}
	if (v->nf == 0)
		return len;
	len = cc_ref_be64(ref, len, (uint64_t) v->nf);
	for (size_t i = 0; i < v->nf; i++)
	{
		cc_fold		f;

		cc_fold_load(v->folds, i, &f);
		len = cc_ref_put(ref, len, f.retired, CC_ID_LEN);
		len = cc_ref_put(ref, len, f.target, CC_ID_LEN);
		len = cc_ref_be64(ref, len, (uint64_t) f.tclock);
		len = cc_ref_be64(ref, len, (uint64_t) f.aclock);
		len = cc_ref_be64(ref, len, (uint64_t) f.avalue);
		len = cc_ref_be64(ref, len, (uint64_t) f.absorbed);
	}
	return len;
}

static void
sha256_once(const unsigned char *data, size_t len, uint8_t out[CC_DIGEST_LEN])
{
	unsigned int olen = 0;

	if (EVP_Digest(data, len, out, &olen, EVP_sha256(), NULL) != 1 ||
		olen != CC_DIGEST_LEN)
		abort();
}

static void
from_hex(const char *hex, uint8_t out[CC_DIGEST_LEN])
{
	for (int i = 0; i < CC_DIGEST_LEN; i++)
	{
		unsigned	v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t) v;
	}
}

static char fd_key[FD_KEY];
static unsigned char fd_room[CC_STORED_FOLDED_SIZE(FD_SHARDS, FD_FOLDS)];

/*
 * The two ways the core is handed a folded state: described by hand, and
 * packed as a stored value and opened (what the glue's digest reads).
 */
static bool
fd_stored(const cc_folded *v, int how, cc_stored *st)
{
	if (how == 0)
	{
		cc_stored_of_records(v->shards, v->n, false, st);
		st->folds = v->folds;
		st->nf = v->nf;
		return true;
	}
	return cc_stored_open(fd_room, cc_stored_pack_folded(fd_room, v), st, NULL) == CC_OK &&
		st->nf == v->nf && st->n == v->n;
}

/*
 * Checks the digest feed and the row feed of v (with a key of each length
 * in keylens) against the reference, byte for byte and as SHA-256, both
 * ways; *digest and *row (key "k") get the digest and the row hash.
 * Returns whether all agreed.
 */
static bool
check_folded(const cc_folded *v, const char *what, uint8_t digest[CC_DIGEST_LEN],
			 uint8_t row[CC_DIGEST_LEN])
{
	static unsigned char ref[FD_STREAM];
	static cc_capture c;
	static const char dtag[] = "counter_crdt digest v1";
	static const char rtag[] = "counter_crdt row v1";
	static const size_t keylens[] = {1, 0, 7, 511, 512, FD_KEY};
	long		failed = cc_test_failed;

	for (int how = 0; how < 2; how++)
	{
		cc_stored	st;
		cc_hash_sink sink;
		EVP_MD_CTX *ctx;
		size_t		len;
		uint8_t		want[CC_DIGEST_LEN],
					got[CC_DIGEST_LEN];

		if (!fd_stored(v, how, &st))
		{
			CHECKF(false, "%s: the stored form does not open", what);
			return false;
		}
		sink = cc_capture_start(&c);
		len = cc_ref_put(ref, 0, dtag, sizeof(dtag) - 1);
		len = ref_state(ref, len, v);
		cc_digest_input_stored(&sink, &st);
		CHECKF(!c.overflow && c.len == len && memcmp(c.bytes, ref, len) == 0,
			   "%s (%s): digest feed of %zu bytes, expected %zu", what,
			   how ? "stored" : "records", c.len, len);
		CHECKF(c.empty_calls == 0 && c.calls <= 1 + (int) (len / 512),
			   "%s: %d pieces (%d empty) for %zu bytes", what, c.calls, c.empty_calls, len);
		sha256_once(ref, len, want);
		ctx = ossl_start(EVP_sha256(), &sink);
		cc_digest_input_stored(&sink, &st);
		ossl_finish(ctx, got);
		CHECKF(memcmp(got, want, CC_DIGEST_LEN) == 0, "%s: digest", what);
		memcpy(digest, want, CC_DIGEST_LEN);

		for (size_t k = 0; k < sizeof(keylens) / sizeof(keylens[0]); k++)
		{
			const char *key = k == 0 ? "k" : fd_key;
			size_t		kl = keylens[k];

			sink = cc_capture_start(&c);
			len = cc_ref_put(ref, 0, rtag, sizeof(rtag) - 1);
			len = cc_ref_be64(ref, len, kl);
			len = cc_ref_put(ref, len, key, kl);
			len = ref_state(ref, len, v);
			cc_row_hash_input_stored(&sink, key, kl, &st);
			CHECKF(!c.overflow && c.len == len && memcmp(c.bytes, ref, len) == 0,
				   "%s (%s): row feed, key of %zu bytes", what,
				   how ? "stored" : "records", kl);
			CHECKF(c.empty_calls == 0 && c.calls <= 3 + (int) (len / 512),
				   "%s: %d pieces (%d empty) for a row", what, c.calls, c.empty_calls);
			if (k == 0)
			{
				sha256_once(ref, len, want);
				ctx = ossl_start(EVP_sha256(), &sink);
				cc_row_hash_input_stored(&sink, key, kl, &st);
				ossl_finish(ctx, got);
				CHECKF(memcmp(got, want, CC_DIGEST_LEN) == 0, "%s: row hash", what);
				memcpy(row, want, CC_DIGEST_LEN);
			}
		}
	}
	return cc_test_failed == failed;
}

/* A folded state from text, checked by the parser; fails the run if not. */
static bool
parse_folded(const char *text, unsigned char *buf, cc_folded *v)
{
	bool		tomb;
	cc_error	err;

	if (cc_parse_folded(&cc_test_ids, text, strlen(text), buf, v, &tomb, &err) != CC_OK || tomb)
	{
		CHECKF(false, "test literal does not parse: %s: %s", text, err.detail);
		return false;
	}
	return true;
}

#define W "00000000-0000-4000-8000-000000000001"
#define X "00000000-0000-4000-8000-000000000002"
#define T "00000000-0000-4000-8000-000000000003"
#define U "00000000-0000-4000-8000-000000000004"
#define Z "00000000-0000-4000-8000-000000000005"
#define IA "7fffffff-ffff-ffff-ffff-ffffffffffff"
#define IB "80000000-0000-0000-0000-000000000000"
#define IO "00000000-0000-0000-0000-000000000001"
#define IF "ffffffff-ffff-ffff-ffff-ffffffffffff"

/*
 * Three states against Python's hashlib (the header's encoder): one
 * record across the signed/unsigned id boundary with negative numbers;
 * three records whose order is not their text's; one retired writer with
 * two records, at the edges of bigint.  Rows "a", "b", "c" and their sum.
 */
static void
test_vectors(void)
{
	static const struct
	{
		const char *text;
		const char *digest;
		const char *row;
	}			cases[] = {
		{"{" IB ":4:-7} folded {" IA ">" IB ":4:3:-100:-100}",
			"16cee29b55de873521a7c0f7b078f32216f296b444afe4a9f57d32089bd38f43",
		"fcfb275e570895650c8ce03ee24c6eb0a23336ee526fee68c5accdf4c6208b0f"},
		{"{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
			X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15}",
			"366901b1d0bed3bdf1b3104493925d6d437ad5645e16987c0126c851045c94d8",
		"0e69a63760218b2adbbce2abbac29e3a5f47b1f63da344219f0b8757940ddee2"},
		{"{" IB ":1:0, " IF ":9223372036854775807:-1} folded {"
			IO ">" IB ":1:1:-9223372036854775808:0, "
			IO ">" IF ":9223372036854775807:9223372036854775807:-9223372036854775808:9223372036854775807}",
			"e9355c70f6a7be08914546e0220567ff949a09deaedb3e71f290f87e18823fd0",
		"2284aeb4149bb5ccabd970ef4e0c951a5442874d8314b4ef23ef3e2c3e5f501f"},
	};
	static const char sum_hex[] =
	"2de97c49cbc5d65c942333d9eb1ba20555bd70321327e77988a79378988dba10";
	static const char *keys[] = {"a", "b", "c"};
	static unsigned char buf[64 * CC_SHARD_SIZE];
	cc_sum256	acc = {{0}};
	uint8_t		want[CC_DIGEST_LEN],
				got[CC_DIGEST_LEN],
				row[CC_DIGEST_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cc_folded	v;
		cc_stored	st;

		if (!parse_folded(cases[i].text, buf, &v))
			continue;
		check_folded(&v, cases[i].text, got, row);
		from_hex(cases[i].digest, want);
		CHECKF(memcmp(got, want, CC_DIGEST_LEN) == 0, "digest of %s", cases[i].text);
		CHECK(fd_stored(&v, 1, &st));
		{
			cc_hash_sink sink;
			EVP_MD_CTX *ctx = ossl_start(EVP_sha256(), &sink);

			cc_row_hash_input_stored(&sink, keys[i], 1, &st);
			ossl_finish(ctx, row);
		}
		from_hex(cases[i].row, want);
		CHECKF(memcmp(row, want, CC_DIGEST_LEN) == 0, "row (%s, %s)", keys[i], cases[i].text);
		cc_sum256_add_hash(&acc, row);
	}
	cc_sum256_to_bytes(&acc, got);
	from_hex(sum_hex, want);
	CHECK(memcmp(got, want, CC_DIGEST_LEN) == 0);
}

/*
 * Every field of a record counts, and the records count at all: the state
 * of three records, without them, and with one field of its middle record
 * (X>T) moved each time, all digest apart.  The moves keep the state
 * canonical: X becomes the lowest id (the record goes first), T becomes U
 * (live, its clock 3 past the tclock), the numbers move freely.
 */
static void
test_distinct(void)
{
	static const char text[] =
		"{" U ":3:25, " Z ":3:10} folded {" W ">" Z ":3:2:10:10, "
		X ">" T ":2:1:5:5, " T ">" U ":3:2:15:15}";
	static unsigned char buf[64 * CC_SHARD_SIZE];
	static unsigned char f[3 * CC_FOLD_SIZE];
	uint8_t		h[8][CC_DIGEST_LEN],
				row[CC_DIGEST_LEN];
	cc_folded	v;
	int			k = 0;

	if (!parse_folded(text, buf, &v) || v.nf != 3)
		return;
	check_folded(&v, "three records", h[k++], row);
	{
		cc_folded	w = v;

		w.nf = 0;
		check_folded(&w, "no records", h[k++], row);
	}
	for (int field = 0; field < 6; field++)
	{
		cc_folded	w = v;
		cc_fold		r;

		memcpy(f, v.folds, sizeof(f));
		cc_fold_load(f, 1, &r);
		switch (field)
		{
			case 0:
				memset(r.retired, 0, CC_ID_LEN);
				memmove(f + CC_FOLD_SIZE, f, CC_FOLD_SIZE);
				break;
			case 1:
				memcpy(r.target, v.shards, CC_ID_LEN);	/* U */
				break;
			case 2:
				r.tclock++;
				break;
			case 3:
				r.aclock++;
				break;
			case 4:
				r.avalue--;
				break;
			default:
				r.absorbed = -r.absorbed;
				break;
		}
		cc_fold_store(f, field == 0 ? 0 : 1, &r);
		w.folds = f;
		CHECKF(cc_fold_check(&w, CC_ERR_BINARY, NULL) == CC_OK, "move %d", field);
		check_folded(&w, "one field moved", h[k++], row);
	}
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			CHECKF(memcmp(h[i], h[j], CC_DIGEST_LEN) != 0, "digests %d and %d alike", i, j);
}

/*
 * Every number of shards from 1 to 17 with every number of records from 1
 * to 20: the record count and each record meet the end of the core's
 * 512-byte buffer at every offset a shard or record size allows.  Each
 * retired writer (ids 0x90 + j ...) has records into the first two shards
 * (one, when there is one shard); the states pass cc_fold_check().
 */
static void
test_sizes(void)
{
	static unsigned char s[FD_SHARDS * CC_SHARD_SIZE],
				f[FD_FOLDS * CC_FOLD_SIZE];
	uint64_t	rng = 0xf01dd16e57ULL;
	int			bad = 0;

	for (size_t n = 1; n <= 17; n++)
		for (size_t nf = 1; nf <= 20; nf++)
		{
			cc_folded	v = {s, n, f, nf};
			uint8_t		digest[CC_DIGEST_LEN],
						row[CC_DIGEST_LEN];
			char		what[64];

			for (size_t i = 0; i < n; i++)
			{
				cc_shard	sh;

				sh.id[0] = (uint8_t) (0x10 + i);
				for (int b = 1; b < CC_ID_LEN; b++)
					sh.id[b] = (uint8_t) cc_test_splitmix(&rng);
				sh.clock = (int64_t) (cc_test_splitmix(&rng) >> 2) + 100;
				sh.value = (int64_t) cc_test_splitmix(&rng);
				cc_store(s, i, &sh);
			}
			for (size_t i = 0; i < nf; i++)
			{
				cc_fold		r;
				size_t		per = n > 1 ? 2 : 1;

				memset(&r, 0, sizeof(r));
				r.retired[0] = (uint8_t) (0x90 + i / per);
				r.retired[15] = 7;
				memcpy(r.target, s + (i % per) * CC_SHARD_SIZE, CC_ID_LEN);
				r.tclock = 1 + (int64_t) (cc_test_splitmix(&rng) % 100);
				r.aclock = 1 + (int64_t) (cc_test_splitmix(&rng) >> 1);
				r.avalue = (int64_t) cc_test_splitmix(&rng);
				r.absorbed = (int64_t) cc_test_splitmix(&rng);
				cc_fold_store(f, i, &r);
			}
			if (cc_fold_check(&v, CC_ERR_BINARY, NULL) != CC_OK)
			{
				bad++;
				continue;
			}
			snprintf(what, sizeof(what), "%zu shards, %zu records", n, nf);
			check_folded(&v, what, digest, row);
		}
	CHECKF(bad == 0, "%d of the built states are not canonical", bad);
}

/* Random folded states, as the core's own operations reach them. */
static void
test_random_folded(long cases)
{
	static cc_test_folded x;
	uint64_t	rng = 0xd16e57f01dULL;
	long		states = cases / 20 > 100 ? cases / 20 : 100,
				failed = 0,
				records = 0;

	for (long i = 0; i < states; i++)
	{
		cc_folded	v;
		uint8_t		digest[CC_DIGEST_LEN],
					row[CC_DIGEST_LEN];

		cc_test_random_folded(&rng, &x);
		v = cc_test_folded_view(&x);
		records += (long) v.nf;
		if (!check_folded(&v, "random folded state", digest, row) && ++failed >= 5)
			break;
	}
	printf("fold_digest: %ld random folded states, %ld records\n", states, records);
}

void
test_fold_digest(long cases)
{
	for (int i = 0; i < FD_KEY; i++)
		fd_key[i] = (char) ('a' + i % 26);
	test_vectors();
	test_distinct();
	test_sizes();
	test_random_folded(cases);
}
