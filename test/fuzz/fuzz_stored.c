/*
 * fuzz_stored.c
 *	  libFuzzer harness of the stored form, cc_stored_open(),
 *	  cc_stored_widen(), cc_stored_value(), cc_stored_prefix(),
 *	  cc_stored_pack() and the increments on the stored form: what every read of a value in a table runs, and what
 *	  every written value goes through.  Users never write stored bytes, but
 *	  a damaged page or a bad restore can hand any bytes to the opener, which
 *	  must refuse them rather than read past them.
 *
 * The input is the stored bytes, after PostgreSQL's varlena header (the
 * buffer libFuzzer passes is exactly size bytes, so AddressSanitizer sees a
 * read past it).  The verdict and the description must be those of the
 * byte map in cc_stored.h, read again plainly below.  Rejected bytes give
 * CC_ERR_BINARY and a printable detail.  Accepted bytes are widened into
 * exactly n records, which must be the records as they lie; their value is
 * the kept total (version 2, version 3 with flag 0x10) or the exact walk
 * (version 1, version 3 without it); their first 12 bytes alone give the
 * same flag and total where the total is kept.  The prefix reader is run
 * on every input too, against the verdict of the first 12 bytes.
 * Fold records (flag 0x08) are located and counted, not read: the glue
 * reads them through cc_fold.h, whose checks the fuzzers of the forms run.
 *
 * When the widened shards are canonical and a kept total is their exact sum
 * (or 0 with the OVERFLOW flag when that leaves int64), the state is packed
 * again (fuzz_stored_round_trip: deterministic, the narrowest widths,
 * reopens to the same shards and total), and the packed bytes equal the
 * input exactly when the input was in the form the packer writes: one
 * spelling per state.  Such a
 * state is also incremented, on the stored form and on the widened shards
 * (check_increments), to the same bytes or the same error.
 */
#include "fuzz_common.h"

/* The byte map, read plainly: the reference verdict and description. */
typedef struct ref_stored
{
	bool		ok;
	size_t		head;
	size_t		size;
	size_t		n;
	bool		tombstone;
	uint8_t		lay;			/* CC_LAY_* */
	bool		kept;			/* the total is in the header */
	bool		overflow;
	int64_t		total;
	size_t		nf;				/* fold records (flag 0x08), after 8 bytes */
} ref_stored;

/* header_only: the first 12 bytes of a version 2 value, as a prefix reader sees them */
static ref_stored
ref_open(const uint8_t *d, size_t len, bool header_only)
{
	ref_stored	r;

	memset(&r, 0, sizeof(r));
	if (len >= 1 && d[0] == 3)
	{
		/* version 3: layout bits 0-3, 0x10 the total, nothing else */
		if (len < 2 || (d[1] & 0xe0) != 0)
			return r;
		r.lay = d[1] & 0x0f;
		r.kept = (d[1] & 0x10) != 0;
		r.head = r.kept ? 10 : 2;
		if (len < r.head)
			return r;
		if (r.kept)
			memcpy(&r.total, d + 2, 8);
		r.size = 16 + cc_lay_width(r.lay & 3) + cc_lay_width(r.lay >> 2);
		if (header_only)
		{
			r.ok = true;
			return r;
		}
		if ((len - r.head) % r.size != 0)
			return r;
		r.n = (len - r.head) / r.size;
		r.ok = true;
		return r;
	}
	if (len < 4 || d[2] != 0 || d[3] != 0)
		return r;
	if (d[0] == 1)
	{
		/* version 1: flag 0x01 only, 32-byte records after 4 bytes */
		if (d[1] > 1)
			return r;
		r.head = 4;
		r.size = 32;
	}
	else if (d[0] == 2)
	{
		/* version 2: flags 0x01, 0x02, 0x04, 0x08, the total, then the records */
		if (len < 12 || (d[1] & 0xf0) != 0)
			return r;
		r.head = 12;
		r.kept = true;
		r.lay = (d[1] & 0x04) ? CC_LAY_NARROW : CC_LAY_WIDE;
		r.overflow = (d[1] & 0x02) != 0;
		r.size = r.lay ? 24 : 32;
		memcpy(&r.total, d + 4, 8);
		/* out of range: total 0, and never with narrow shards */
		if (r.overflow && (r.total != 0 || r.lay))
			return r;
		/* fold records: never narrow; a count >= 1, 4 zero bytes, records */
		if (d[1] & 0x08)
		{
			uint32_t	nf,
						pad;

			if (r.lay)
				return r;
			if (!header_only)
			{
				if (len < 20)
					return r;
				memcpy(&nf, d + 12, 4);
				memcpy(&pad, d + 16, 4);
				if (nf == 0 || pad != 0 || (uint64_t) nf * 64 > len - 20)
					return r;
				r.nf = nf;
				r.head = 20 + (size_t) nf * 64;
			}
		}
	}
	else
		return r;
	if ((len - r.head) % r.size != 0)
		return r;
	r.n = (len - r.head) / r.size;
	r.tombstone = (d[1] & 0x01) != 0;
	/* a tombstone is the flag alone: no shards, no other flag, total 0 */
	if (r.tombstone && (r.n != 0 || d[1] != 0x01 || r.total != 0))
		return r;
	/* narrow is flagged only when there are shards */
	if (r.lay && r.n == 0 && !header_only)
		return r;
	r.ok = true;
	return r;
}

/*
 * The little-endian number of the given bytes at p: zero-extended, or
 * sign-extended from its top bit.
 */
static int64_t
ref_number(const uint8_t *p, size_t bytes, bool is_signed)
{
	uint64_t	u = 0;

	for (size_t k = 0; k < bytes; k++)
		u |= (uint64_t) p[k] << (8 * k);
	if (is_signed && bytes < 8 && (u >> (8 * bytes - 1)) & 1)
		u |= ~(uint64_t) 0 << (8 * bytes);
	return (int64_t) u;
}

/* Record i as it lies, in its layout. */
static void
ref_record(const uint8_t *d, const ref_stored *r, size_t i, cc_shard *sh)
{
	const uint8_t *p = d + r->head + i * r->size;
	size_t		cw = cc_lay_width(r->lay & 3),
				vw = cc_lay_width(r->lay >> 2);

	memcpy(sh->id, p, CC_ID_LEN);
	sh->clock = ref_number(p + 16, cw, false);
	sh->value = ref_number(p + 16 + cw, vw, true);
}

/*
 * The increments on the stored form against the path they replace (widen,
 * cc_increment() or cc_increment_at(), pack): the same bytes, the same
 * error.  The writer, delta and clock come from the input's last bytes.
 */
static void
check_increments(const cc_stored *st, const unsigned char *wide,
				 const uint8_t *data, size_t size)
{
	uint8_t		k = size > 0 ? data[size - 1] : 0;
	uint8_t		writer[CC_ID_LEN];
	int64_t		delta = 1;
	size_t		room = CC_STORED_BUILD_SIZE(st->n + 1);
	unsigned char *ref = fuzz_alloc(room),
			   *got = fuzz_alloc(room);

	if (st->n > 0 && k % 4 != 0)
		memcpy(writer, wide + (k % st->n) * CC_SHARD_SIZE, CC_ID_LEN);
	else
		memset(writer, k, CC_ID_LEN);
	if (size >= 8)
		memcpy(&delta, data + size - 8, sizeof(delta));

	for (int at = 0; at < 2; at++)
	{
		cc_error	e1,
					e2;
		cc_code		r1,
					r2;
		size_t		n1 = 0,
					len1 = 0,
					len2 = 0;
		bool		applied1 = true,
					applied2 = false,
					subtract = (k & 0x10) != 0;
		int64_t		clock = (int64_t) (((uint64_t) delta >> 7) ^ k);

		if (at && (k & 0x20))
		{
			/* the writer's own clock, or one either side */
			cc_shard	sh = {{0}, 0, 0};

			for (size_t i = 0; i < st->n; i++)
				if (memcmp(wide + i * CC_SHARD_SIZE, writer, CC_ID_LEN) == 0)
					cc_load(wide, i, &sh);
			clock = sh.clock == INT64_MAX ? sh.clock : sh.clock + (k & 0x40 ? 1 : 0);
		}
		fuzz_poison_error(&e1);
		fuzz_poison_error(&e2);
		if (at)
		{
			r1 = cc_increment_at(wide, st->n, writer, delta, clock,
								 cc_stored_build_start(ref, false), &n1,
								 &applied1, &e1);
			r2 = cc_increment_at_stored(st, writer, delta, clock, got, &len2,
										&applied2, &e2);
			if (st->tombstone)
				applied1 = false;
		}
		else if (st->tombstone)
		{
			r1 = CC_OK;
			len1 = cc_stored_pack(ref, 0, true);
			r2 = cc_increment_stored(st, writer, delta, subtract, got, &len2, &e2);
			applied2 = true;
		}
		else
		{
			r1 = cc_increment(wide, st->n, writer, delta, subtract,
							  cc_stored_build_start(ref, false), &n1, &e1);
			r2 = cc_increment_stored(st, writer, delta, subtract, got, &len2, &e2);
			applied2 = true;
		}
		FUZZ_CHECK(r1 == r2);
		if (r1 != CC_OK)
		{
			fuzz_check_error(&e2, r1);
			FUZZ_CHECK(strcmp(e1.detail, e2.detail) == 0);
			continue;
		}
		FUZZ_CHECK(applied1 == applied2);
		if (!applied1)
			continue;
		if (!st->tombstone)
			len1 = cc_stored_build_finish(ref, n1);
		FUZZ_CHECK(len1 == len2 && memcmp(ref, got, len1) == 0);
	}
	free(ref);
	free(got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ref_stored	ref = ref_open(data, size, false);
	cc_stored	st,
				st2;
	cc_error	err;
	cc_code		rc;
	unsigned char *wide;
	__int128	exact = 0;
	bool		in_range,
				consistent;

	/*
	 * The prefix reader, on any bytes: a version 2 header is judged by its
	 * first 12 bytes alone, anything else as a whole value.  The bytes are
	 * copied so that an empty input is the end of a one-byte block, where
	 * reading its first byte is seen.
	 */
	{
		bool		v2 = size >= 4 && data[0] == 2;
		bool		v3 = size >= 10 && data[0] == 3 && (data[1] & 0x10);
		ref_stored	want = v3 ? ref_open(data, 10, true) :
			ref_open(data, v2 && size > 12 ? 12 : size, v2);
		unsigned char *block = fuzz_alloc(size);
		unsigned char *in = size > 0 ? memcpy(block, data, size) : block + 1;

		fuzz_poison_error(&err);
		rc = cc_stored_prefix(in, size, &st2, &err);
		free(block);
		FUZZ_CHECK((rc == CC_OK) == want.ok);
		if (rc != CC_OK)
			fuzz_check_error(&err, CC_ERR_BINARY);
		else if (v2 || v3)
			FUZZ_CHECK(st2.n == 0 && st2.tombstone == want.tombstone &&
					   st2.overflow == want.overflow && st2.total == want.total &&
					   st2.lay == want.lay);
	}

	fuzz_poison_error(&err);
	rc = cc_stored_open(data, size, &st, &err);
	FUZZ_CHECK(cc_stored_open(data, size, &st2, NULL) == rc);
	FUZZ_CHECK((rc == CC_OK) == ref.ok);
	if (rc != CC_OK)
	{
		FUZZ_CHECK(rc == CC_ERR_BINARY);
		fuzz_check_error(&err, CC_ERR_BINARY);
		return 0;
	}

	/* the description is the byte map's; the shards lie in the input */
	FUZZ_CHECK(st.n == ref.n && st.tombstone == ref.tombstone);
	FUZZ_CHECK(st.lay == ref.lay && st.overflow == ref.overflow);
	FUZZ_CHECK(st.total_kept == ref.kept);
	FUZZ_CHECK(!st.total_kept || st.total == ref.total);
	FUZZ_CHECK(st.shards == data + ref.head);
	FUZZ_CHECK(size == ref.head + ref.n * ref.size);
	FUZZ_CHECK(st.nf == ref.nf && (st.nf == 0 ? st.folds == NULL : st.folds == data + 20));

	/* widened into exactly n records: the records as they lie */
	wide = fuzz_alloc(st.n * CC_SHARD_SIZE);
	cc_stored_widen(&st, wide);
	for (size_t i = 0; i < st.n; i++)
	{
		cc_shard	sh;

		ref_record(data, &ref, i, &sh);
		FUZZ_CHECK(memcmp(wide + i * CC_SHARD_SIZE, &sh, CC_SHARD_SIZE) == 0);
		exact += sh.value;
	}
	in_range = exact >= INT64_MIN && exact <= INT64_MAX;

	/* the value: the kept total, or the walk */
	if (!st.tombstone)
	{
		int64_t		got = 0;
		bool		want_ok = st.total_kept ? !st.overflow : in_range;

		fuzz_poison_error(&err);
		rc = cc_stored_value(&st, &got, &err);
		if (want_ok)
			FUZZ_CHECK(rc == CC_OK &&
					   got == (st.total_kept ? st.total : (int64_t) exact));
		else
		{
			FUZZ_CHECK(rc == CC_ERR_OVERFLOW);
			fuzz_check_error(&err, CC_ERR_OVERFLOW);
		}
	}

	/* a 12-byte slice of the first bytes, in a block of its own */
	if (st.total_kept && size >= 12)
	{
		unsigned char *head = fuzz_alloc(12);

		memcpy(head, data, 12);
		FUZZ_CHECK(cc_stored_prefix(head, 12, &st2, NULL) == CC_OK);
		FUZZ_CHECK(st2.n == 0 && st2.tombstone == st.tombstone &&
				   st2.overflow == st.overflow && st2.total == st.total);
		free(head);
	}

	/*
	 * A state the glue could have written: canonical shards and, in
	 * version 2, the total of those shards.  Pack it again.
	 */
	consistent = fuzz_canonical(wide, st.n);
	FUZZ_CHECK(consistent == (cc_check_canonical(wide, st.n, CC_ERR_BINARY, NULL) == CC_OK));
	/* values with fold records are packed and incremented by cc_fold.h */
	if (st.nf > 0)
		consistent = false;
	if (st.total_kept)
		consistent = consistent && st.overflow == !in_range &&
			st.total == (in_range ? (int64_t) exact : 0);
	if (consistent)
	{
		size_t		len;
		unsigned char *packed = fuzz_stored_round_trip(wide, st.n, st.tombstone, &len);

		/*
		 * One spelling per state: the input comes back byte for byte exactly
		 * when it was what the packer writes: version 3 of the narrowest
		 * layout, the total kept past 16 shards; version 2 for a tombstone
		 * or a sum outside int64, wide (everything else of a consistent
		 * input is already forced).
		 */
		{
			int			cw,
						vw;
			bool		canon;

			if (data[0] == 3)
				canon = in_range && st.lay == fuzz_min_lay(wide, st.n, &cw, &vw) &&
					st.total_kept == (st.n > 16);
			else if (data[0] == 2)
				canon = st.tombstone || (st.overflow && st.lay == CC_LAY_WIDE);
			else
				canon = false;
			FUZZ_CHECK((len == size && memcmp(packed, data, size) == 0) == canon);
		}
		free(packed);
		check_increments(&st, wide, data, size);
	}
	free(wide);
	return 0;
}
