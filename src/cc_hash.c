/*
 * cc_hash.c
 *	  MD5 (RFC 1321) and SHA-256 (FIPS 180-4), incremental.
 *
 * Both hashes eat 64-byte blocks and share the same Merkle-Damgard framing:
 * buffer partial blocks, then pad with 0x80, zeros, and the message length
 * in bits as a 64-bit integer.  They differ only in the block function and
 * in byte order (MD5 is little-endian, SHA-256 big-endian), so the framing
 * is written once below.
 *
 * Input may sit at any address: words are assembled from single bytes, never
 * loaded through a cast pointer.  All arithmetic is on uint32_t, where
 * overflow wraps by definition.
 */
#include "cc_hash.h"

#include <string.h>

typedef void (*cc_block_fn) (uint32_t *state, const unsigned char *block);

/* Rotate left; n is always in 1..31 here, so neither shift is by 32. */
#define ROTL(x, n)	(((x) << (n)) | ((x) >> (32 - (n))))
#define ROTR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

static uint32_t
load_le32(const unsigned char *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 |
		(uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint32_t
load_be32(const unsigned char *p)
{
	return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 |
		(uint32_t) p[2] << 8 | (uint32_t) p[3];
}

static void
store_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char) v;
	p[1] = (unsigned char) (v >> 8);
	p[2] = (unsigned char) (v >> 16);
	p[3] = (unsigned char) (v >> 24);
}

static void
store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char) (v >> 24);
	p[1] = (unsigned char) (v >> 16);
	p[2] = (unsigned char) (v >> 8);
	p[3] = (unsigned char) v;
}

/*
 * Feed len bytes into a hash whose partial block lives in buf[0..*used).
 * Whole blocks of input are hashed in place, without copying.
 */
static void
hash_update(uint32_t *state, unsigned char *buf, size_t *used,
			uint64_t *total, cc_block_fn block,
			const unsigned char *p, size_t len)
{
	*total += len;

	if (*used > 0)
	{
		size_t		n = 64 - *used;

		if (n > len)
			n = len;
		memcpy(buf + *used, p, n);
		*used += n;
		p += n;
		len -= n;
		if (*used < 64)
			return;
		block(state, buf);
		*used = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		block(state, p);
	if (len > 0)
		memcpy(buf, p, len);
	*used = len;
}

/*
 * Pad the last block: 0x80, zeros up to byte 56 of a block, then the length
 * in bits, little- or big-endian.  The bytes hashed are counted in *total.
 */
static void
hash_pad(uint32_t *state, unsigned char *buf, size_t used, uint64_t total,
		 cc_block_fn block, int big_endian)
{
	uint64_t	bits = total * 8;
	int			i;

	buf[used++] = 0x80;
	if (used > 56)
	{
		memset(buf + used, 0, 64 - used);
		block(state, buf);
		used = 0;
	}
	memset(buf + used, 0, 56 - used);
	for (i = 0; i < 8; i++)
		buf[big_endian ? 63 - i : 56 + i] = (unsigned char) (bits >> (8 * i));
	block(state, buf);
}


/* ---------------------------------------------------------------- MD5 */

/* T[i] = floor(abs(sin(i + 1)) * 2^32), RFC 1321 section 3.4. */
static const uint32_t md5_t[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
	0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
	0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
	0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
	0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391
};

/* Rotation amounts: four per round, each used four times in turn. */
static const unsigned md5_s[4][4] = {
	{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}
};

/*
 * One 64-byte block.  The 64 steps of RFC 1321 written as a loop: round r
 * picks the function F, G, H or I and the order in which message words are
 * taken; after each step the four registers rotate one place.
 */
static void
md5_block(uint32_t *state, const unsigned char *block)
{
	uint32_t	x[16];
	uint32_t	a = state[0],
				b = state[1],
				c = state[2],
				d = state[3];
	int			i;

	for (i = 0; i < 16; i++)
		x[i] = load_le32(block + 4 * i);

	for (i = 0; i < 64; i++)
	{
		uint32_t	f,
					t;
		int			k;

		switch (i / 16)
		{
			case 0:
				f = (b & c) | (~b & d);
				k = i;
				break;
			case 1:
				f = (b & d) | (c & ~d);
				k = (5 * i + 1) % 16;
				break;
			case 2:
				f = b ^ c ^ d;
				k = (3 * i + 5) % 16;
				break;
			default:
				f = c ^ (b | ~d);
				k = (7 * i) % 16;
				break;
		}
		t = a + f + md5_t[i] + x[k];
		a = d;
		d = c;
		c = b;
		b = b + ROTL(t, md5_s[i / 16][i % 4]);
	}

	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
}

void
cc_md5_init(cc_md5_ctx *ctx)
{
	ctx->state[0] = 0x67452301;
	ctx->state[1] = 0xefcdab89;
	ctx->state[2] = 0x98badcfe;
	ctx->state[3] = 0x10325476;
	ctx->total = 0;
	ctx->used = 0;
}

void
cc_md5_update(cc_md5_ctx *ctx, const void *data, size_t len)
{
	if (len == 0)
		return;
	hash_update(ctx->state, ctx->buf, &ctx->used, &ctx->total, md5_block,
				data, len);
}

void
cc_md5_final(cc_md5_ctx *ctx, uint8_t out[CC_MD5_LEN])
{
	int			i;

	hash_pad(ctx->state, ctx->buf, ctx->used, ctx->total, md5_block, 0);
	for (i = 0; i < 4; i++)
		store_le32(out + 4 * i, ctx->state[i]);
	memset(ctx, 0, sizeof(*ctx));
}


/* ------------------------------------------------------------- SHA-256 */

/* First 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* One 64-byte block, FIPS 180-4 section 6.2.2. */
static void
sha256_block(uint32_t *state, const unsigned char *block)
{
	uint32_t	w[64];
	uint32_t	a = state[0],
				b = state[1],
				c = state[2],
				d = state[3],
				e = state[4],
				f = state[5],
				g = state[6],
				h = state[7];
	int			i;

	for (i = 0; i < 16; i++)
		w[i] = load_be32(block + 4 * i);
	for (; i < 64; i++)
	{
		uint32_t	s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t	s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}

	for (i = 0; i < 64; i++)
	{
		uint32_t	t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) +
			((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		uint32_t	t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) +
			((a & b) ^ (a & c) ^ (b & c));

		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}

	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	state[4] += e;
	state[5] += f;
	state[6] += g;
	state[7] += h;
}

void
cc_sha256_init(cc_sha256_ctx *ctx)
{
	/* First 32 bits of the fractional parts of the square roots of the first 8 primes. */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(ctx->state, h0, sizeof(h0));
	ctx->total = 0;
	ctx->used = 0;
}

void
cc_sha256_update(cc_sha256_ctx *ctx, const void *data, size_t len)
{
	if (len == 0)
		return;
	hash_update(ctx->state, ctx->buf, &ctx->used, &ctx->total, sha256_block,
				data, len);
}

void
cc_sha256_final(cc_sha256_ctx *ctx, uint8_t out[CC_SHA256_LEN])
{
	int			i;

	hash_pad(ctx->state, ctx->buf, ctx->used, ctx->total, sha256_block, 1);
	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, ctx->state[i]);
	memset(ctx, 0, sizeof(*ctx));
}
