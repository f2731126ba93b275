/*
 * fuzz_binary.c
 *	  libFuzzer harness of the binary decoder (versions 1, 2 and 3),
 *	  cc_decode_header_folded(), cc_decode_shards() and cc_decode_folds()
 *	  with cc_fold_check(), and of the compact encoder: what
 *	  counter_crdt_recv runs on every value of COPY (FORMAT binary) and of
 *	  the extended protocol's binary parameters.
 *
 * The parallel aggregate's deserialize function
 * (counter_crdt_merge_agg_deserial) reads its state through
 * cc_decode_header(), the reader of version 1 only, and cc_decode_shards():
 * the harness holds cc_decode_header() to the same verdict on every input
 * but versions 2 and 3, which it must refuse.
 *
 * As in the server, nothing is allocated from the counts in the input until
 * the header check has accepted them: it is what keeps ten bytes announcing
 * 4 billion shards or records from costing an allocation of 128 GB.
 *
 * Accepted bytes must be a canonical state whose encoding is the input, byte
 * for byte (versions 1 and 2 have one spelling per state; version 3, the
 * compact form, one per layout, and the narrowest is never longer), and
 * which decodes again to the same state; a state with fold records goes through every form
 * (fuzz_folded_round_trip()).  Rejected bytes must give CC_ERR_BINARY and a
 * printable detail.  Each input also seeds a random folded state that goes
 * through every form.
 */
#include "fuzz_common.h"

static int64_t
ref_be64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int k = 0; k < 8; k++)
		v = (v << 8) | p[k];
	return (int64_t) v;
}

/* A number of w bytes, big-endian; sign-extended when sign. */
static int64_t
ref_be(const uint8_t *p, size_t w, bool sign)
{
	uint64_t	v = 0;

	for (size_t k = 0; k < w; k++)
		v = (v << 8) | p[k];
	if (sign && w < 8 && (p[0] & 0x80))
		v -= (uint64_t) 1 << (8 * w);
	return (int64_t) v;
}

/* The widths of the layout codes: 8, 1, 2, 4 bytes. */
static const size_t ref_width[4] = {8, 1, 2, 4};

/*
 * Version 3 read again: a layout byte of the low 4 bits only, then whole
 * records of id, clock (unsigned) and value (signed), canonical.
 */
static bool
ref_accepts_compact(const uint8_t *data, size_t size)
{
	size_t		cw,
				vw,
				rec,
				count;
	unsigned char *s;
	bool		ok;

	if (size < 2 || data[1] > 15)
		return false;
	cw = ref_width[data[1] & 3];
	vw = ref_width[data[1] >> 2];
	rec = 16 + cw + vw;
	if ((size - 2) % rec != 0)
		return false;
	count = (size - 2) / rec;
	s = fuzz_alloc(count * CC_SHARD_SIZE);
	for (size_t i = 0; i < count; i++)
	{
		const uint8_t *p = data + 2 + rec * i;
		cc_shard	sh;

		memcpy(sh.id, p, CC_ID_LEN);
		sh.clock = ref_be(p + 16, cw, false);
		sh.value = ref_be(p + 16 + cw, vw, true);
		cc_store(s, i, &sh);
	}
	ok = fuzz_canonical(s, count);
	free(s);
	return ok;
}

/*
 * The layout of cc_wire.h read again, plainly, as the reference verdict.
 * Version 1: flags 0 or 1, a big-endian count that the length matches
 * exactly, no shards in a tombstone, shards canonical.  Version 2: flags 0,
 * the shards as in version 1, then a record count of at least 1 that the
 * rest of the length matches exactly, records strictly ascending by
 * (retired, target) as unsigned bytes, retired != target, clocks >= 1; and
 * then cc_fold_check() (unit-tested in core_fold.c) for their agreement
 * with the shards.
 */
static bool
ref_accepts(const uint8_t *data, size_t size)
{
	uint64_t	count,
				fcount = 0;
	unsigned char *s,
			   *f = NULL;
	bool		ok;

	if (size >= 1 && data[0] == 3)
		return ref_accepts_compact(data, size);
	if (size < 6 || (data[0] != 1 && data[0] != 2))
		return false;
	if (data[1] != 0 && (data[1] != 1 || data[0] != 1))
		return false;
	count = ((uint64_t) data[2] << 24) | ((uint64_t) data[3] << 16) |
		((uint64_t) data[4] << 8) | (uint64_t) data[5];
	if (data[0] == 1 && (uint64_t) size != 6 + 32 * count)
		return false;
	if (data[0] == 2)
	{
		const uint8_t *c = data + 6 + 32 * count;

		if ((uint64_t) size < 6 + 32 * count + 4)
			return false;
		fcount = ((uint64_t) c[0] << 24) | ((uint64_t) c[1] << 16) |
			((uint64_t) c[2] << 8) | (uint64_t) c[3];
		if (fcount == 0 || (uint64_t) size != 6 + 32 * count + 4 + 64 * fcount)
			return false;
	}
	if (data[1] == 1 && count != 0)
		return false;
	s = fuzz_alloc(count * CC_SHARD_SIZE);
	for (uint64_t i = 0; i < count; i++)
	{
		const uint8_t *p = data + 6 + 32 * i;
		cc_shard	sh;

		memcpy(sh.id, p, CC_ID_LEN);
		sh.clock = ref_be64(p + 16);
		sh.value = ref_be64(p + 24);
		cc_store(s, i, &sh);
	}
	ok = fuzz_canonical(s, count);
	if (ok && fcount > 0)
	{
		f = fuzz_alloc(fcount * CC_FOLD_SIZE);
		for (uint64_t i = 0; i < fcount; i++)
		{
			const uint8_t *p = data + 6 + 32 * count + 4 + 64 * i;
			cc_fold		r;

			memcpy(r.retired, p, CC_ID_LEN);
			memcpy(r.target, p + 16, CC_ID_LEN);
			r.tclock = ref_be64(p + 32);
			r.aclock = ref_be64(p + 40);
			r.avalue = ref_be64(p + 48);
			r.absorbed = ref_be64(p + 56);
			cc_fold_store(f, i, &r);
			if (memcmp(r.retired, r.target, CC_ID_LEN) == 0 || r.tclock < 1 || r.aclock < 1 ||
				(i > 0 && memcmp(p - 64, p, 2 * CC_ID_LEN) >= 0))
				ok = false;
		}
		if (ok)
		{
			cc_folded	v = {s, count, f, fcount};

			ok = cc_fold_check(&v, CC_ERR_BINARY, NULL) == CC_OK;
		}
		free(f);
	}
	free(s);
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		n = 0,
				n2 = 0,
				n3 = 0,
				nf = 0,
				nf2 = 0,
				len;
	bool		t = false,
				t2 = false,
				t3 = false;
	unsigned char *s,
			   *s2,
			   *s3,
			   *wire;
	char	   *text;
	cc_error	err,
				err1;
	cc_code		rc,
				rc1;
	bool		ref_ok;

	/* Any input seeds a state with fold records, through every form. */
	{
		cc_test_folded x;
		cc_folded	v;

		fuzz_seeded_folded(data, size, &x);
		v = cc_test_folded_view(&x);
		fuzz_folded_round_trip(&v);
	}

	/* The core's verdict, header, shards and records, is the reference's. */
	ref_ok = ref_accepts(data, size);

	fuzz_poison_error(&err);
	rc = cc_decode_header_folded(data, size, &n, &nf, &t, &err);
	FUZZ_CHECK(cc_decode_header_folded(data, size, &n2, &nf2, &t2, NULL) == rc);

	/* The reader of version 1 alone: the same verdict, versions 2 and 3 refused. */
	fuzz_poison_error(&err1);
	rc1 = cc_decode_header(data, size, &n3, &t3, &err1);
	if (size >= 1 && (data[0] == CC_WIRE_VERSION_FOLDED || data[0] == CC_WIRE_VERSION_COMPACT))
		FUZZ_CHECK(rc1 == CC_ERR_BINARY);
	else
	{
		FUZZ_CHECK(rc1 == rc);
		FUZZ_CHECK(rc != CC_OK || (n3 == n && t3 == t && nf == 0));
	}
	if (rc1 != CC_OK)
		fuzz_check_error(&err1, CC_ERR_BINARY);

	if (rc != CC_OK)
	{
		FUZZ_CHECK(!ref_ok);
		FUZZ_CHECK(rc == CC_ERR_BINARY);
		fuzz_check_error(&err, CC_ERR_BINARY);
		return 0;
	}

	/* The counts fit the length exactly: only now is it safe to allocate. */
	FUZZ_CHECK(n2 == n && nf2 == nf && t2 == t);
	FUZZ_CHECK(data[0] == CC_WIRE_VERSION_COMPACT ?
			   size == cc_wire_compact_size(n, data[1]) && !t && nf == 0 :
			   size == cc_wire_folded_size(n, nf));
	FUZZ_CHECK(!t || (n == 0 && nf == 0));
	FUZZ_CHECK(nf == 0 || data[0] == CC_WIRE_VERSION_FOLDED);

	s = fuzz_alloc(n * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	rc = cc_decode_shards(data, n, s, &err);
	/* with records, good shards are not yet the verdict */
	FUZZ_CHECK(rc == CC_OK || !ref_ok);
	FUZZ_CHECK(nf > 0 || ref_ok == (rc == CC_OK));
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

	/* Version 2: the records, checked against the shards as recv does. */
	if (nf > 0)
	{
		unsigned char *f = fuzz_alloc(nf * CC_FOLD_SIZE);
		cc_folded	st = {s, n, f, nf};

		cc_decode_folds(data, n, nf, f);
		fuzz_poison_error(&err);
		rc = cc_fold_check(&st, CC_ERR_BINARY, &err);
		FUZZ_CHECK(ref_ok == (rc == CC_OK));
		if (rc != CC_OK)
			fuzz_check_error(&err, CC_ERR_BINARY);
		else
		{
			/* one spelling per state, then every form */
			wire = fuzz_alloc(size);
			cc_encode_folded(s, n, f, nf, wire);
			FUZZ_CHECK(memcmp(wire, data, size) == 0);
			free(wire);
			fuzz_folded_round_trip(&st);
		}
		free(f);
		free(s);
		return 0;
	}
	FUZZ_CHECK(ref_ok);

	/*
	 * The compact form: any layout that holds the shards is read, so the
	 * spelling is the layout's.  Encoded again in the input's layout it is
	 * the input; in the narrowest, no longer, and it reads back the same.
	 * Not a tombstone, its state also goes through the compact form from
	 * version 1.
	 */
	if (!t)
	{
		cc_stored	st;
		uint8_t		lay;
		size_t		clen,
					cn = 0,
					cnf = 1;
		bool		ct = true;

		cc_stored_of_records(s, n, false, &st);
		lay = cc_stored_narrowest(&st);
		FUZZ_CHECK(lay <= CC_LAY_MASK);
		if (data[0] == CC_WIRE_VERSION_COMPACT)
		{
			FUZZ_CHECK(cc_lay_size(lay) <= cc_lay_size(data[1]));
			wire = fuzz_alloc(size);
			cc_encode_compact(&st, data[1], wire);
			FUZZ_CHECK(memcmp(wire, data, size) == 0);
			free(wire);
		}
		clen = cc_wire_compact_size(n, lay);
		FUZZ_CHECK(clen <= cc_wire_size(n));
		wire = fuzz_alloc(clen);
		cc_encode_compact(&st, lay, wire);
		FUZZ_CHECK(wire[0] == CC_WIRE_VERSION_COMPACT && wire[1] == lay);
		FUZZ_CHECK(cc_decode_header_folded(wire, clen, &cn, &cnf, &ct, NULL) == CC_OK);
		FUZZ_CHECK(cn == n && cnf == 0 && !ct);
		s2 = fuzz_alloc(n * CC_SHARD_SIZE);
		FUZZ_CHECK(cc_decode_shards(wire, n, s2, NULL) == CC_OK);
		FUZZ_CHECK(n == 0 || memcmp(s2, s, n * CC_SHARD_SIZE) == 0);
		free(s2);
		free(wire);
	}

	/*
	 * One spelling per state in version 1: encoding it gives back a version
	 * 1 input exactly.
	 */
	wire = fuzz_alloc(cc_wire_size(n));
	cc_encode(s, n, t, wire);
	FUZZ_CHECK(data[0] == CC_WIRE_VERSION_COMPACT || memcmp(wire, data, size) == 0);

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
