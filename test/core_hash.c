/*
 * core_hash.c
 *	  Unit tests of cc_hash.c: MD5 and SHA-256.
 *
 * Known answers come from the RFC 1321 test suite and the FIPS 180-2 /
 * NIST examples; the 'a' x n vectors around the padding boundaries were
 * made with another implementation.  Then every way of splitting an input
 * into equal pieces, and every misalignment of it, must give the same
 * digest as hashing it in one go.
 */
#include "cc_hash.h"
#include "cc_test.h"

#include <string.h>

#define MAX_LEN		200			/* longest input of the split tests */
#define MAX_SPLIT	130			/* largest piece of the split tests */

static void
to_hex(const uint8_t *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t		i;

	for (i = 0; i < n; i++)
	{
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Digest of data[0..len), fed in pieces of 'step' bytes (0: all at once). */
static void
md5_pieces(const unsigned char *data, size_t len, size_t step, uint8_t *out)
{
	cc_md5_ctx	ctx;
	size_t		off = 0;

	if (step == 0)
		step = len;
	cc_md5_init(&ctx);
	do
	{
		size_t		n = len - off < step ? len - off : step;

		cc_md5_update(&ctx, data + off, n);
		off += n;
	} while (off < len);
	cc_md5_final(&ctx, out);
}

static void
sha256_pieces(const unsigned char *data, size_t len, size_t step, uint8_t *out)
{
	cc_sha256_ctx ctx;
	size_t		off = 0;

	if (step == 0)
		step = len;
	cc_sha256_init(&ctx);
	do
	{
		size_t		n = len - off < step ? len - off : step;

		cc_sha256_update(&ctx, data + off, n);
		off += n;
	} while (off < len);
	cc_sha256_final(&ctx, out);
}

static void
check_md5(const char *msg, size_t len, const char *expect)
{
	uint8_t		d[CC_MD5_LEN];
	char		hex[2 * CC_MD5_LEN + 1];

	md5_pieces((const unsigned char *) msg, len, 0, d);
	to_hex(d, sizeof(d), hex);
	CHECKF(strcmp(hex, expect) == 0, "MD5 of %zu bytes \"%.20s\": got %s",
		   len, msg, hex);
}

static void
check_sha256(const char *msg, size_t len, const char *expect)
{
	uint8_t		d[CC_SHA256_LEN];
	char		hex[2 * CC_SHA256_LEN + 1];

	sha256_pieces((const unsigned char *) msg, len, 0, d);
	to_hex(d, sizeof(d), hex);
	CHECKF(strcmp(hex, expect) == 0, "SHA-256 of %zu bytes \"%.20s\": got %s",
		   len, msg, hex);
}

static void
test_known_answers(void)
{
	static const char *const md5_vectors[][2] = {
		{"", "d41d8cd98f00b204e9800998ecf8427e"},
		{"a", "0cc175b9c0f1b6a831c399e269772661"},
		{"abc", "900150983cd24fb0d6963f7d28e17f72"},
		{"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
		{"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		"d174ab98d277d9f5a5611c2c9f419d9f"},
		{"1234567890123456789012345678901234567890"
			"1234567890123456789012345678901234567890",
		"57edf4a22be3c955ac49da2e2107b67a"},
	};
	static const char *const sha256_vectors[][2] = {
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	};
	/* 'a' x n around the padding boundaries: MD5, then SHA-256. */
	static const struct
	{
		size_t		n;
		const char *md5;
		const char *sha256;
	}			runs[] = {
		{55, "ef1772b6dff9a122358552954ad0df65",
		"9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{56, "3b0c8ac703f828b04c6c197006d17218",
		"b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{63, "b06521f39153d618550606be297466d5",
		"7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
		{64, "014842d480b571495a4a0363793f7367",
		"ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
		{65, "c743a45e0d2e6a95cb859adae0248435",
		"635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
	};
	static char a_run[1000];
	cc_sha256_ctx ctx;
	uint8_t		d[CC_SHA256_LEN];
	char		hex[2 * CC_SHA256_LEN + 1];
	size_t		i;

	for (i = 0; i < sizeof(md5_vectors) / sizeof(md5_vectors[0]); i++)
		check_md5(md5_vectors[i][0], strlen(md5_vectors[i][0]),
				  md5_vectors[i][1]);
	for (i = 0; i < sizeof(sha256_vectors) / sizeof(sha256_vectors[0]); i++)
		check_sha256(sha256_vectors[i][0], strlen(sha256_vectors[i][0]),
					 sha256_vectors[i][1]);

	memset(a_run, 'a', sizeof(a_run));
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
	{
		check_md5(a_run, runs[i].n, runs[i].md5);
		check_sha256(a_run, runs[i].n, runs[i].sha256);
	}

	/* One million 'a', in 1000 updates of 1000. */
	cc_sha256_init(&ctx);
	for (i = 0; i < 1000; i++)
		cc_sha256_update(&ctx, a_run, sizeof(a_run));
	cc_sha256_final(&ctx, d);
	to_hex(d, sizeof(d), hex);
	CHECKF(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
				  "f1809a48a497200e046d39ccc7112cd0") == 0,
		   "SHA-256 of a million 'a': got %s", hex);
}

/*
 * Every input length 0..MAX_LEN, fed in pieces of every size 1..MAX_SPLIT,
 * must hash as in one update.  One check per length and hash, naming the
 * first piece size that differs.
 */
static void
test_splits(const unsigned char *data)
{
	size_t		len,
				step;

	for (len = 0; len <= MAX_LEN; len++)
	{
		uint8_t		md5_one[CC_MD5_LEN],
					sha_one[CC_SHA256_LEN],
					d[CC_SHA256_LEN];
		size_t		md5_bad = 0,
					sha_bad = 0;

		md5_pieces(data, len, 0, md5_one);
		sha256_pieces(data, len, 0, sha_one);
		for (step = 1; step <= MAX_SPLIT; step++)
		{
			md5_pieces(data, len, step, d);
			if (md5_bad == 0 && memcmp(d, md5_one, CC_MD5_LEN) != 0)
				md5_bad = step;
			sha256_pieces(data, len, step, d);
			if (sha_bad == 0 && memcmp(d, sha_one, CC_SHA256_LEN) != 0)
				sha_bad = step;
		}
		CHECKF(md5_bad == 0, "MD5 of %zu bytes in pieces of %zu", len, md5_bad);
		CHECKF(sha_bad == 0, "SHA-256 of %zu bytes in pieces of %zu",
			   len, sha_bad);
	}
}

/*
 * The same inputs copied to addresses offset by 1..7 bytes, hashed at once
 * and in pieces of 7 (so that most pieces start unaligned, too).
 */
static void
test_alignment(const unsigned char *data)
{
	/* union: the copy's offset 0 is aligned for any word load */
	static union
	{
		uint64_t	align;
		unsigned char bytes[MAX_LEN + 8];
	}			shifted;
	size_t		off,
				len;

	for (off = 1; off <= 7; off++)
	{
		unsigned char *p = shifted.bytes + off;
		size_t		md5_bad = MAX_LEN + 1,
					sha_bad = MAX_LEN + 1;

		memcpy(p, data, MAX_LEN);
		for (len = MAX_LEN + 1; len-- > 0;)
		{
			uint8_t		want[CC_SHA256_LEN],
						got[CC_SHA256_LEN],
						got7[CC_SHA256_LEN];

			md5_pieces(data, len, 0, want);
			md5_pieces(p, len, 0, got);
			md5_pieces(p, len, 7, got7);
			if (memcmp(got, want, CC_MD5_LEN) != 0 ||
				memcmp(got7, want, CC_MD5_LEN) != 0)
				md5_bad = len;

			sha256_pieces(data, len, 0, want);
			sha256_pieces(p, len, 0, got);
			sha256_pieces(p, len, 7, got7);
			if (memcmp(got, want, CC_SHA256_LEN) != 0 ||
				memcmp(got7, want, CC_SHA256_LEN) != 0)
				sha_bad = len;
		}
		CHECKF(md5_bad > MAX_LEN, "MD5 at offset %zu, %zu bytes", off, md5_bad);
		CHECKF(sha_bad > MAX_LEN, "SHA-256 at offset %zu, %zu bytes",
			   off, sha_bad);
	}
}

void
test_hash(void)
{
	static unsigned char data[MAX_LEN];
	uint32_t	x = 1;
	size_t		i;

	/* Bytes of a fixed xorshift sequence, so all byte values show up. */
	for (i = 0; i < MAX_LEN; i++)
	{
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (unsigned char) (x >> 24);
	}

	test_known_answers();
	test_splits(data);
	test_alignment(data);
}
