/*
 * core_table_digest.c
 *	  Unit tests of the table digest algebra: the hash of one (key, state)
 *	  row and the sum modulo 2^256 that combines rows.
 *
 * The expected row hashes come from Python's hashlib over the encoding that
 * cc_digest.h documents, written apart from the core:
 *
 *	  m = b"counter_crdt row v1" + struct.pack(">Q", len(k)) + k
 *	  m += b"\x02"                                       # NULL state
 *	  m += b"\x01" + struct.pack(">Q", 0)                # tombstone
 *	  m += b"\x00" + struct.pack(">Q", n) + b"".join(    # live, id order
 *	           id16 + struct.pack(">qq", clock, value) for each shard)
 *	  hashlib.sha256(m).hexdigest()
 *
 * and their sum from Python's integers: (sum of int.from_bytes(h, "big"))
 * % 2**256.  The additions are also checked against a byte-wise schoolbook
 * adder written here, on random numbers and on carries that run through
 * every limb.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cc_ossl.h"
#include "cc_test.h"

#define A "00000000-0000-0000-0000-000000000001"
#define C "80000000-0000-0000-0000-000000000000"
#define D "ffffffff-ffff-ffff-ffff-ffffffffffff"

static unsigned char buf[16 * CC_SHARD_SIZE];

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

/* The row hash of (key, state text), state NULL for a NULL state. */
static void
row_hash(const char *key, const char *state, uint8_t out[CC_DIGEST_LEN])
{
	cc_view		v;

	if (state == NULL)
	{
		ossl_row_hash(key, strlen(key), NULL, out);
		return;
	}
	v.shards = buf;
	v.n = state_from_text(state, buf, &v.tombstone);
	ossl_row_hash(key, strlen(key), &v, out);
}

typedef struct row_case
{
	const char *key;
	const char *state;
	const char *hex;
} row_case;

static const row_case rows[] = {
	{"page-1", "{" D ":1:-5, " A ":3:42}",
	"ab95e303f2f8e1ebc54f454e90dd2805ddba0bad5c7bc4f11d46b36c06eefe10"},
	{"", NULL,
	"062d94b8cfa82ffe88de691f994a1cebadc50b839c50fbe143cc632a959a1ae8"},
	{"k", "tombstone",
	"1b6b69e6e6bf8f89a4d68974cf0963175c1a532a3000f52f974b5207e970d2d5"},
	{"k", "{}",
	"3c9d979ae3c68f9f45f74352eaa1a81b5066c86eaf3ef4bd93a86cdc79a2ab4b"},
	{"k", NULL,
	"25b789bedc64f3de3513b46782870dfb29f28bcee6a564027149b9fa409ea466"},
	/* "été" in UTF-8, and the bigint edges */
	{"\xc3\xa9t\xc3\xa9", "{" C ":9223372036854775807:-9223372036854775808}",
	"9f7a5a28b85633f1c9a42695840bd003ba8db64807ea518b4658154b9857c9d9"},
};

#define NROWS ((int) (sizeof(rows) / sizeof(rows[0])))

static const char rows_sum_hex[] =
"cefe5d2621e258e337b35632ea652e231c8074e0c69c604d43a8a4c0d8930557";

static void
test_row_hash_reference(void)
{
	uint8_t		got[CC_DIGEST_LEN],
				want[CC_DIGEST_LEN];
	cc_sum256	acc = {{0}};

	for (int i = 0; i < NROWS; i++)
	{
		row_hash(rows[i].key, rows[i].state, got);
		from_hex(rows[i].hex, want);
		CHECKF(memcmp(got, want, CC_DIGEST_LEN) == 0, "row hash of (%s, %s)",
			   rows[i].key, rows[i].state ? rows[i].state : "NULL");
		cc_sum256_add_hash(&acc, got);
	}
	cc_sum256_to_bytes(&acc, got);
	from_hex(rows_sum_hex, want);
	CHECK(memcmp(got, want, CC_DIGEST_LEN) == 0);
}

/* Rows that must all hash apart: the encoding leaves nothing ambiguous. */
static void
test_row_hash_distinct(void)
{
	static const struct
	{
		const char *key;
		const char *state;
	}			cases[] = {
		{"k", NULL},
		{"k", "{}"},
		{"k", "tombstone"},
		{"k", "{" A ":1:0}"},
		{"k", "{" A ":1:1}"},
		{"k", "{" A ":2:0}"},
		{"k", "{" C ":1:0}"},
		{"k", "{" A ":1:0, " C ":1:0}"},
		{"", NULL},
		{"", "{}"},
		{"kk", NULL},
		{"K", NULL},
		/* a key that ends in what would be the state's tag byte */
		{"k\x02", NULL},
		{"k\x01", "{}"},
	};
	enum
	{
	N = sizeof(cases) / sizeof(cases[0])};
	uint8_t		h[N][CC_DIGEST_LEN];
	uint8_t		digest[CC_DIGEST_LEN];
	bool		t;

	for (int i = 0; i < N; i++)
		row_hash(cases[i].key, cases[i].state, h[i]);
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			CHECKF(memcmp(h[i], h[j], CC_DIGEST_LEN) != 0,
				   "rows (%s, %s) and (%s, %s) hash alike",
				   cases[i].key, cases[i].state ? cases[i].state : "NULL",
				   cases[j].key, cases[j].state ? cases[j].state : "NULL");

	/* a row hash is never the state digest of its state */
	ossl_digest(buf, state_from_text("{}", buf, &t), t, digest);
	CHECK(memcmp(digest, h[1], CC_DIGEST_LEN) != 0);

	/* the hash does not read past the key's length */
	{
		uint8_t		a[CC_DIGEST_LEN],
					b[CC_DIGEST_LEN];

		ossl_row_hash("kx", 1, NULL, a);
		CHECK(memcmp(a, h[0], CC_DIGEST_LEN) == 0);
		ossl_row_hash("ky", 1, NULL, b);
		CHECK(memcmp(a, b, CC_DIGEST_LEN) == 0);
	}
}

/* The reference: 32-byte big-endian numbers added byte by byte. */
static void
ref_add(uint8_t acc[CC_DIGEST_LEN], const uint8_t x[CC_DIGEST_LEN])
{
	unsigned	carry = 0;

	for (int i = CC_DIGEST_LEN - 1; i >= 0; i--)
	{
		unsigned	t = acc[i] + x[i] + carry;

		acc[i] = (uint8_t) t;
		carry = t >> 8;
	}
}

static uint64_t rng = 0x7ab1e5eedULL;

static uint64_t
rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

/* A random number, with runs of ff and 00 bytes that make long carries. */
static void
rnd_bytes(uint8_t out[CC_DIGEST_LEN])
{
	for (int i = 0; i < CC_DIGEST_LEN; i++)
	{
		switch (rnd() % 4)
		{
			case 0:
				out[i] = 0xff;
				break;
			case 1:
				out[i] = 0;
				break;
			default:
				out[i] = (uint8_t) rnd();
		}
	}
}

static void
test_sum256(void)
{
	uint8_t		x[CC_DIGEST_LEN],
				y[CC_DIGEST_LEN],
				got[CC_DIGEST_LEN];
	cc_sum256	acc,
				s;
	long		bad = 0;

	/* bytes and limbs: big-endian bytes, w[0] the least significant limb */
	memset(x, 0, sizeof(x));
	x[31] = 0x01;
	x[23] = 0x02;
	x[15] = 0x03;
	x[0] = 0x80;
	cc_sum256_from_bytes(&s, x);
	CHECK(s.w[0] == 1 && s.w[1] == 2 && s.w[2] == 3 &&
		  s.w[3] == 0x8000000000000000ULL);
	cc_sum256_to_bytes(&s, got);
	CHECK(memcmp(got, x, CC_DIGEST_LEN) == 0);

	/* a carry out of each limb reaches the next one */
	for (int limb = 0; limb < 3; limb++)
	{
		memset(&acc, 0, sizeof(acc));
		for (int i = 0; i <= limb; i++)
			acc.w[i] = UINT64_MAX;
		memset(x, 0, sizeof(x));
		x[31] = 1;
		cc_sum256_add_hash(&acc, x);
		CHECKF(acc.w[limb + 1] == 1, "carry out of limb %d", limb);
		for (int i = 0; i <= limb; i++)
			CHECKF(acc.w[i] == 0, "limb %d after a carry out of limb %d", i, limb);
	}
	/* 2^256 - 1 + 1 wraps to 0; the carry out of the top is dropped */
	memset(x, 0xff, sizeof(x));
	cc_sum256_from_bytes(&acc, x);
	memset(y, 0, sizeof(y));
	y[31] = 1;
	cc_sum256_add_hash(&acc, y);
	CHECK(acc.w[0] == 0 && acc.w[1] == 0 && acc.w[2] == 0 && acc.w[3] == 0);
	/* a carry into a limb that the addend also fills: ff..ff + ff..ff */
	cc_sum256_from_bytes(&acc, x);
	cc_sum256_add_hash(&acc, x);
	cc_sum256_to_bytes(&acc, got);
	memset(y, 0xff, sizeof(y));
	y[31] = 0xfe;
	CHECK(memcmp(got, y, CC_DIGEST_LEN) == 0);

	/* against the byte-wise reference */
	for (int i = 0; i < 100000; i++)
	{
		uint8_t		ref[CC_DIGEST_LEN];

		rnd_bytes(x);
		rnd_bytes(y);
		memcpy(ref, x, sizeof(ref));
		ref_add(ref, y);
		cc_sum256_from_bytes(&acc, x);
		cc_sum256_add_hash(&acc, y);
		cc_sum256_to_bytes(&acc, got);
		bad += memcmp(got, ref, CC_DIGEST_LEN) != 0;
		/* limb-wise addition of two sums, as the combine step does it */
		cc_sum256_from_bytes(&acc, y);
		cc_sum256_from_bytes(&s, x);
		cc_sum256_add(&acc, &s);
		cc_sum256_to_bytes(&acc, got);
		bad += memcmp(got, ref, CC_DIGEST_LEN) != 0;
	}
	CHECKF(bad == 0, "%ld of 200000 additions differ from the reference", bad);
}

/*
 * The digest of a set of rows does not depend on their order nor on how
 * they are split into partial sums; a duplicated row does not cancel out.
 */
static void
test_set_digest(void)
{
	uint8_t		h[NROWS][CC_DIGEST_LEN];
	uint8_t		want[CC_DIGEST_LEN],
				got[CC_DIGEST_LEN],
				zero[CC_DIGEST_LEN] = {0};
	int			perm[NROWS];
	long		bad_order = 0,
				bad_split = 0;
	cc_sum256	acc = {{0}};

	for (int i = 0; i < NROWS; i++)
		row_hash(rows[i].key, rows[i].state, h[i]);
	from_hex(rows_sum_hex, want);

	/* no rows: zero */
	cc_sum256_to_bytes(&acc, got);
	CHECK(memcmp(got, zero, CC_DIGEST_LEN) == 0);

	for (int trial = 0; trial < 2000; trial++)
	{
		cc_sum256	part[3] = {{{0}}, {{0}}, {{0}}};
		cc_sum256	all = {{0}};

		for (int i = 0; i < NROWS; i++)
			perm[i] = i;
		for (int i = NROWS - 1; i > 0; i--)
		{
			int			j = (int) (rnd() % (uint64_t) (i + 1));
			int			t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (int i = 0; i < NROWS; i++)
		{
			cc_sum256_add_hash(&all, h[perm[i]]);
			/* parallel workers: each row into one of three partial sums */
			cc_sum256_add_hash(&part[rnd() % 3], h[perm[i]]);
		}
		cc_sum256_to_bytes(&all, got);
		bad_order += memcmp(got, want, CC_DIGEST_LEN) != 0;
		cc_sum256_add(&part[2], &part[0]);
		cc_sum256_add(&part[1], &part[2]);
		cc_sum256_to_bytes(&part[1], got);
		bad_split += memcmp(got, want, CC_DIGEST_LEN) != 0;
	}
	CHECKF(bad_order == 0, "%ld orders give another digest", bad_order);
	CHECKF(bad_split == 0, "%ld splits give another digest", bad_split);

	/* duplicates count: {r, r} is neither {} nor {r}, and {r, r, s} is not {s} */
	memset(&acc, 0, sizeof(acc));
	cc_sum256_add_hash(&acc, h[0]);
	cc_sum256_add_hash(&acc, h[0]);
	cc_sum256_to_bytes(&acc, got);
	CHECK(memcmp(got, zero, CC_DIGEST_LEN) != 0);
	CHECK(memcmp(got, h[0], CC_DIGEST_LEN) != 0);
	cc_sum256_add_hash(&acc, h[1]);
	cc_sum256_to_bytes(&acc, got);
	CHECK(memcmp(got, h[1], CC_DIGEST_LEN) != 0);
	/* {r, r} is 2r: the sum, not an exclusive or */
	memcpy(want, h[0], CC_DIGEST_LEN);
	ref_add(want, h[0]);
	memset(&acc, 0, sizeof(acc));
	cc_sum256_add_hash(&acc, h[0]);
	cc_sum256_add_hash(&acc, h[0]);
	cc_sum256_to_bytes(&acc, got);
	CHECK(memcmp(got, want, CC_DIGEST_LEN) == 0);
}

void
test_table_digest(void)
{
	test_row_hash_reference();
	test_row_hash_distinct();
	test_sum256();
	test_set_digest();
}
