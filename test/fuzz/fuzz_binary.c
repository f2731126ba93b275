/*
 * fuzz_binary.c
 *	  libFuzzer harness of the binary decoder, cc_decode_header() and
 *	  cc_decode_shards(): what counter_crdt_recv runs on every value of
 *	  COPY (FORMAT binary) and of the extended protocol's binary parameters.
 *
 * The parallel aggregate's deserialize function
 * (counter_crdt_merge_agg_deserial) reads its state through the very same
 * two calls, in the same order, so this harness covers that path too.
 *
 * As in the server, nothing is allocated from the count in the input until
 * cc_decode_header() has accepted it: the header check is what keeps six
 * bytes announcing 4 billion shards from costing an allocation of 128 GB.
 *
 * Accepted bytes must be a canonical state whose encoding is the input, byte
 * for byte (the layout has one spelling per state), and which decodes again
 * to the same state.  Rejected bytes must give CC_ERR_BINARY and a printable
 * detail.
 */
#include "fuzz_common.h"

/*
 * The layout of type_io.c read again, plainly, as the reference verdict:
 * version 1, flags 0 or 1, a big-endian count that the length matches
 * exactly, no shards in a tombstone, shards canonical.
 */
static bool
ref_accepts(const uint8_t *data, size_t size)
{
	uint64_t	count;
	unsigned char *s;
	bool		ok;

	if (size < 6 || data[0] != 1 || (data[1] != 0 && data[1] != 1))
		return false;
	count = ((uint64_t) data[2] << 24) | ((uint64_t) data[3] << 16) |
		((uint64_t) data[4] << 8) | (uint64_t) data[5];
	if ((uint64_t) size != 6 + 32 * count)
		return false;
	if (data[1] == 1 && count != 0)
		return false;
	s = fuzz_alloc(count * CC_SHARD_SIZE);
	for (uint64_t i = 0; i < count; i++)
	{
		const uint8_t *p = data + 6 + 32 * i;
		cc_shard	sh;
		uint64_t	clock = 0,
					value = 0;

		memcpy(sh.id, p, CC_ID_LEN);
		for (int k = 0; k < 8; k++)
		{
			clock = (clock << 8) | p[16 + k];
			value = (value << 8) | p[24 + k];
		}
		sh.clock = (int64_t) clock;
		sh.value = (int64_t) value;
		cc_store(s, i, &sh);
	}
	ok = fuzz_canonical(s, count);
	free(s);
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		n = 0,
				n2 = 0,
				n3 = 0,
				len;
	bool		t = false,
				t2 = false,
				t3 = false;
	unsigned char *s,
			   *s2,
			   *s3,
			   *wire;
	char	   *text;
	cc_error	err;
	cc_code		rc;
	bool		ref_ok;

	/* The core's verdict, header and shards, is the reference's. */
	ref_ok = ref_accepts(data, size);

	fuzz_poison_error(&err);
	rc = cc_decode_header(data, size, &n, &t, &err);
	FUZZ_CHECK(cc_decode_header(data, size, &n2, &t2, NULL) == rc);
	if (rc != CC_OK)
	{
		FUZZ_CHECK(!ref_ok);
		FUZZ_CHECK(rc == CC_ERR_BINARY);
		fuzz_check_error(&err, CC_ERR_BINARY);
		return 0;
	}

	/* The count fits the length exactly: only now is it safe to allocate. */
	FUZZ_CHECK(n2 == n && t2 == t);
	FUZZ_CHECK(size == cc_wire_size(n));
	FUZZ_CHECK(!t || n == 0);

	s = fuzz_alloc(n * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	rc = cc_decode_shards(data, n, s, &err);
	FUZZ_CHECK(ref_ok == (rc == CC_OK));
	if (rc != CC_OK)
	{
		FUZZ_CHECK(rc == CC_ERR_BINARY);
		fuzz_check_error(&err, CC_ERR_BINARY);
		/*
		 * The decoder has stored every shard before checking them: its
		 * verdict must be the canonical form's, by definition and by the
		 * core's own check.
		 */
		FUZZ_CHECK(!fuzz_canonical(s, n));
		FUZZ_CHECK(cc_check_canonical(s, n, CC_ERR_BINARY, NULL) != CC_OK);
		free(s);
		return 0;
	}
	FUZZ_CHECK(fuzz_canonical(s, n));
	FUZZ_CHECK(cc_check_canonical(s, n, CC_ERR_BINARY, NULL) == CC_OK);

	/* One spelling per state: encoding it gives back the input exactly. */
	wire = fuzz_alloc(cc_wire_size(n));
	cc_encode(s, n, t, wire);
	FUZZ_CHECK(memcmp(wire, data, size) == 0);

	/* Decoding the encoding again gives the same state. */
	FUZZ_CHECK(cc_decode_header(wire, cc_wire_size(n), &n2, &t2, NULL) == CC_OK);
	FUZZ_CHECK(n2 == n && t2 == t);
	s2 = fuzz_alloc(n2 * CC_SHARD_SIZE);
	FUZZ_CHECK(cc_decode_shards(wire, n2, s2, NULL) == CC_OK);
	FUZZ_CHECK(cc_equal(s2, n2, t2, s, n, t));
	FUZZ_CHECK(memcmp(s2, s, n * CC_SHARD_SIZE) == 0);

	/* A value received in binary must also print and read back as text. */
	text = fuzz_alloc(cc_format_capacity(n));
	len = cc_format(&fuzz_ids, s, n, t, text);
	FUZZ_CHECK(len + 1 <= cc_format_capacity(n));
	FUZZ_CHECK(strlen(text) == len);
	s3 = fuzz_alloc(cc_parse_capacity(text, len) * CC_SHARD_SIZE);
	FUZZ_CHECK(cc_parse(&fuzz_ids, text, len, s3, &n3, &t3, NULL) == CC_OK);
	FUZZ_CHECK(cc_equal(s3, n3, t3, s, n, t));

	free(s3);
	free(text);
	free(s2);
	free(wire);
	free(s);
	return 0;
}
