/*
 * fuzz_common.h
 *	  Checks shared by the libFuzzer harnesses of the counter_crdt core.
 *
 * A failed check prints what broke and aborts: libFuzzer takes the abort for
 * a crash, stops, and saves the input as a reproducer (crash-<sha1>), which
 * the harness binary replays when given the file as its argument.
 *
 * Buffers are allocated to the exact size the core's contract promises
 * (never rounded up) so that AddressSanitizer catches a write past the room
 * that a *_capacity() helper announced.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_algebra.h"
#include "cc_digest.h"
#include "cc_ids.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_wire.h"
#include "cc_test_folds.h"

/*
 * Optional: a harness may point this at a function that prints the inputs of
 * the case at hand, to make a failure readable without a debugger.
 */
static void (*fuzz_context) (void) = NULL;

/*
 * The id cache handed to the text and JSON forms, kept across inputs as the
 * glue keeps its own across rows: ids parsed or printed by one input are
 * found by the next.
 */
static cc_id_cache fuzz_ids;

static void fuzz_fail(const char *file, int line, const char *what)
			__attribute__((noreturn));

static void
fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	if (fuzz_context)
		fuzz_context();
	fflush(stderr);
	abort();
}

#define FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)

/* malloc that never returns NULL, nor a zero-byte block (memcpy wants one). */
static inline void *
fuzz_alloc(size_t size)
{
	void	   *p = malloc(size > 0 ? size : 1);

	if (p == NULL)
	{
		fprintf(stderr, "fuzz: out of memory for %zu bytes\n", size);
		abort();
	}
	return p;
}

/*
 * Fills an error with a pattern that holds no NUL, so that a detail the core
 * leaves unwritten or unterminated shows up in fuzz_check_error().
 */
static inline void
fuzz_poison_error(cc_error *err)
{
	memset(err, 0xa5, sizeof(*err));
}

/*
 * A rejection must carry the expected code and a sentence that PostgreSQL
 * can print as errdetail: NUL-terminated within the buffer, not empty, and
 * printable ASCII only (no raw input bytes, which could be invalid in the
 * server encoding).
 */
static inline void
fuzz_check_error(const cc_error *err, cc_code want)
{
	const char *end;

	FUZZ_CHECK(err->code == want);
	end = memchr(err->detail, '\0', CC_DETAIL_LEN);
	FUZZ_CHECK(end != NULL);
	FUZZ_CHECK(end > err->detail);
	for (const char *p = err->detail; p < end; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f);
}

/*
 * The canonical form checked from its definition, independently of the core:
 * ids strictly ascending as unsigned bytes (memcmp, not cc_id_cmp, whose
 * word-wise comparison is exactly what needs checking), clocks >= 1.  A core
 * that ordered ids consistently but wrongly, say as signed words, would
 * still pass every law and cc_check_canonical() itself.
 */
static inline bool
fuzz_canonical(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		if (sh.clock < 1)
			return false;
		if (i > 0 && memcmp(s + (i - 1) * CC_SHARD_SIZE,
							s + i * CC_SHARD_SIZE, CC_ID_LEN) >= 0)
			return false;
	}
	return true;
}

/* Prints a state as canonical text, for fuzz_context functions. */
static inline void
fuzz_print_state(const char *name, const unsigned char *s, size_t n,
				 bool tombstone)
{
	char	   *buf = fuzz_alloc(cc_format_capacity(n));

	cc_format(&fuzz_ids, s, n, tombstone, buf);
	fprintf(stderr, "  %s = %s\n", name, buf);
	free(buf);
}

/* The bytes, 1, 2, 4 or 8, of the narrowest clock and value fields. */
static inline int
fuzz_clock_bytes(int64_t c)
{
	return c < 0 ? 8 : c < 256 ? 1 : c < 65536 ? 2 : c <= (int64_t) UINT32_MAX ? 4 : 8;
}

static inline int
fuzz_value_bytes(int64_t v)
{
	return (v >= INT8_MIN && v <= INT8_MAX) ? 1 : (v >= INT16_MIN && v <= INT16_MAX) ? 2 :
		(v >= INT32_MIN && v <= INT32_MAX) ? 4 : 8;
}

/* The layout byte's code of a width: 8 bytes is 0, then 1, 2, 4 as 1, 2, 3. */
static inline uint8_t
fuzz_width_code(int bytes)
{
	return bytes == 1 ? 1 : bytes == 2 ? 2 : bytes == 4 ? 3 : 0;
}

/* The layout (cc_stored.h) the byte map gives n 32-byte records: the widest of each. */
static inline uint8_t
fuzz_min_lay(const unsigned char *s, size_t n, int *cw, int *vw)
{
	*cw = 1;
	*vw = 1;
	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		if (fuzz_clock_bytes(sh.clock) > *cw)
			*cw = fuzz_clock_bytes(sh.clock);
		if (fuzz_value_bytes(sh.value) > *vw)
			*vw = fuzz_value_bytes(sh.value);
	}
	return (uint8_t) (fuzz_width_code(*cw) | fuzz_width_code(*vw) << 2);
}

/*
 * The stored form of a canonical state (cc_stored.c), from its byte map:
 * packed in room of exactly CC_STORED_HEADER + 32 n bytes, as the glue
 * builds a value, a tombstone is version 2's 12 bytes, a sum outside int64
 * version 2 with the OVERFLOW flag and wide records (12 + 32 n), and
 * anything else version 3: the narrowest layout of every clock and value,
 * the total kept past 16 shards, 2 (+ 8) + (16 + clock + value bytes) n
 * bytes; packing the same shards again gives the same bytes, and packing
 * them as a tombstone gives its 12 bytes; reopened from a block of exactly
 * that length it gives back the same shards and the exact total, or
 * CC_ERR_OVERFLOW exactly when the sum leaves int64; when the header keeps
 * the total, its first 12 bytes alone give the same.  Returns the packed
 * bytes (the caller frees them) and their length.
 */
static inline unsigned char *
fuzz_stored_round_trip(const unsigned char *s, size_t n, bool tombstone,
					   size_t *len_out)
{
	__int128	exact = 0;
	bool		overflow;
	int64_t		total,
				got = 0;
	int			cw,
				vw;
	uint8_t		lay = fuzz_min_lay(s, n, &cw, &vw);
	bool		v3,
				kept;
	size_t		len,
				head;
	unsigned char *room,
			   *packed,
			   *wide;
	cc_stored	st;
	cc_error	err;

	for (size_t i = 0; i < n; i++)
	{
		cc_shard	sh;

		cc_load(s, i, &sh);
		exact += sh.value;
	}
	overflow = !tombstone && (exact < INT64_MIN || exact > INT64_MAX);
	total = (tombstone || overflow) ? 0 : (int64_t) exact;
	v3 = !tombstone && !overflow;
	kept = !v3 || n > 16;
	head = v3 ? 2 + (kept ? 8 : 0) : CC_STORED_HEADER;

	room = fuzz_alloc(CC_STORED_BUILD_SIZE(n));
	memset(room, 0xee, CC_STORED_HEADER);
	memcpy(cc_stored_build_start(room, tombstone), s, n * CC_SHARD_SIZE);
	len = cc_stored_build_finish(room, n);
	FUZZ_CHECK(len == (tombstone ? CC_STORED_HEADER :
					   head + n * (v3 ? 16 + (size_t) cw + (size_t) vw : CC_SHARD_SIZE)));
	if (v3)
	{
		FUZZ_CHECK(room[0] == CC_STORED_V3 && room[1] == (lay | (kept ? 0x10 : 0)));
		FUZZ_CHECK(!kept || memcmp(room + 2, &total, sizeof(total)) == 0);
	}
	else
	{
		FUZZ_CHECK(room[0] == CC_STORED_V2 && room[2] == 0 && room[3] == 0);
		FUZZ_CHECK(room[1] == (tombstone ? CC_STORED_FLAG_TOMBSTONE : CC_STORED_FLAG_OVERFLOW));
		FUZZ_CHECK(memcmp(room + 4, &total, sizeof(total)) == 0);
	}
	packed = fuzz_alloc(len);
	memcpy(packed, room, len);

	/* deterministic: the same shards, other garbage in the header */
	memset(room, 0x11, CC_STORED_HEADER);
	memcpy(room + CC_STORED_HEADER, s, n * CC_SHARD_SIZE);
	FUZZ_CHECK(cc_stored_pack(room, n, tombstone) == len);
	FUZZ_CHECK(memcmp(room, packed, len) == 0);

	/* the same room packed as a tombstone: the header alone, whatever it held */
	memcpy(room + CC_STORED_HEADER, s, n * CC_SHARD_SIZE);
	FUZZ_CHECK(cc_stored_pack(room, n, true) == CC_STORED_HEADER);
	FUZZ_CHECK(memcmp(room, "\x02\x01\0\0\0\0\0\0\0\0\0\0", CC_STORED_HEADER) == 0);
	free(room);

	fuzz_poison_error(&err);
	FUZZ_CHECK(cc_stored_open(packed, len, &st, &err) == CC_OK);
	FUZZ_CHECK(st.n == (tombstone ? 0 : n) && st.tombstone == tombstone);
	FUZZ_CHECK(st.total_kept == kept && st.lay == (v3 ? lay : CC_LAY_WIDE) &&
			   st.overflow == overflow && (!kept || st.total == total));
	FUZZ_CHECK(st.shards == packed + head);
	wide = fuzz_alloc(st.n * CC_SHARD_SIZE);
	cc_stored_widen(&st, wide);
	FUZZ_CHECK(memcmp(wide, s, st.n * CC_SHARD_SIZE) == 0);
	free(wide);
	if (!tombstone)
	{
		fuzz_poison_error(&err);
		if (overflow)
		{
			FUZZ_CHECK(cc_stored_value(&st, &got, &err) == CC_ERR_OVERFLOW);
			fuzz_check_error(&err, CC_ERR_OVERFLOW);
		}
		else
			FUZZ_CHECK(cc_stored_value(&st, &got, &err) == CC_OK && got == total);
	}

	/* a detoast slice of the first 12 bytes, when they hold the total */
	FUZZ_CHECK(cc_stored_prefix_suffices(packed, len < CC_STORED_HEADER ? len : CC_STORED_HEADER) ==
			   kept);
	if (kept)
	{
		room = fuzz_alloc(CC_STORED_HEADER);
		memcpy(room, packed, CC_STORED_HEADER);
		FUZZ_CHECK(cc_stored_prefix(room, CC_STORED_HEADER, &st, NULL) == CC_OK);
		FUZZ_CHECK(st.n == 0 && st.tombstone == tombstone && st.overflow == overflow &&
				   st.total == total);
		free(room);
	}

	*len_out = len;
	return packed;
}

/*
 * A checked live state with fold records (cc_fold.h) through every form, in
 * buffers of exactly the promised sizes: its text and its JSON parse back
 * to the identical state and print again identically; its binary form is
 * version 2 of the promised size and decodes to the identical state, which
 * cc_fold_check() takes; its stored form prints the same text and sends
 * the same bytes, with cc_fold_total() as its total (or the overflow flag).
 */
static inline void
fuzz_folded_round_trip(const cc_folded *st)
{
	size_t		cap,
				len,
				len2;
	char	   *text,
			   *text2,
			   *json;
	unsigned char *room,
			   *wire,
			   *wire2,
			   *data,
			   *fout;
	cc_folded	back;
	cc_stored	so;
	bool		t;
	size_t		n,
				nf;
	int64_t		wraps,
				low,
				value;
	cc_error	err;

	FUZZ_CHECK(st->nf > 0);
	FUZZ_CHECK(cc_fold_check(st, CC_ERR_SYNTAX, NULL) == CC_OK);

	/* text */
	cap = cc_format_folded_capacity(st->n, st->nf);
	text = fuzz_alloc(cap);
	len = cc_format_folded(&fuzz_ids, st, text);
	FUZZ_CHECK(len + 1 <= cap && strlen(text) == len);
	room = fuzz_alloc(cc_parse_capacity(text, len) * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	FUZZ_CHECK(cc_parse_folded(&fuzz_ids, text, len, room, &back, &t, &err) == CC_OK);
	FUZZ_CHECK(!t && back.n == st->n && back.nf == st->nf);
	FUZZ_CHECK(memcmp(back.shards, st->shards, st->n * CC_SHARD_SIZE) == 0);
	FUZZ_CHECK(memcmp(back.folds, st->folds, st->nf * CC_FOLD_SIZE) == 0);
	text2 = fuzz_alloc(cap);
	len2 = cc_format_folded(&fuzz_ids, &back, text2);
	FUZZ_CHECK(len2 == len && memcmp(text2, text, len + 1) == 0);
	free(text2);
	free(room);

	/* JSON */
	cap = cc_json_format_folded_capacity(st->n, st->nf);
	json = fuzz_alloc(cap);
	len2 = cc_json_format_folded(&fuzz_ids, st, json);
	FUZZ_CHECK(len2 + 1 <= cap && strlen(json) == len2);
	room = fuzz_alloc(cc_json_parse_capacity(json, len2) * CC_SHARD_SIZE);
	fuzz_poison_error(&err);
	FUZZ_CHECK(cc_json_parse_folded(&fuzz_ids, json, len2, room, &back, &t, &err) == CC_OK);
	FUZZ_CHECK(!t && back.n == st->n && back.nf == st->nf);
	FUZZ_CHECK(memcmp(back.shards, st->shards, st->n * CC_SHARD_SIZE) == 0);
	FUZZ_CHECK(memcmp(back.folds, st->folds, st->nf * CC_FOLD_SIZE) == 0);
	free(room);
	free(json);

	/* binary */
	len2 = cc_wire_folded_size(st->n, st->nf);
	wire = fuzz_alloc(len2);
	cc_encode_folded(st->shards, st->n, st->folds, st->nf, wire);
	FUZZ_CHECK(wire[0] == CC_WIRE_VERSION_FOLDED);
	FUZZ_CHECK(cc_decode_header_folded(wire, len2, &n, &nf, &t, NULL) == CC_OK);
	FUZZ_CHECK(n == st->n && nf == st->nf && !t);
	FUZZ_CHECK(cc_decode_header(wire, len2, &n, &t, NULL) == CC_ERR_BINARY);
	room = fuzz_alloc(st->n * CC_SHARD_SIZE);
	fout = fuzz_alloc(st->nf * CC_FOLD_SIZE);
	FUZZ_CHECK(cc_decode_shards(wire, st->n, room, NULL) == CC_OK);
	cc_decode_folds(wire, st->n, st->nf, fout);
	FUZZ_CHECK(memcmp(room, st->shards, st->n * CC_SHARD_SIZE) == 0);
	FUZZ_CHECK(memcmp(fout, st->folds, st->nf * CC_FOLD_SIZE) == 0);
	free(fout);
	free(room);

	/* stored */
	data = fuzz_alloc(CC_STORED_FOLDED_SIZE(st->n, st->nf));
	len2 = cc_stored_pack_folded(data, st);
	/* with records: version 2, wide shards; without: what cc_stored_pack() writes */
	FUZZ_CHECK(st->nf > 0 ? len2 == CC_STORED_FOLDED_SIZE(st->n, st->nf) :
			   len2 <= CC_STORED_FOLDED_SIZE(st->n, st->nf));
	FUZZ_CHECK(cc_stored_open(data, len2, &so, NULL) == CC_OK);
	FUZZ_CHECK(so.nf == st->nf && so.n == st->n && !so.tombstone &&
			   (st->nf == 0 || so.lay == CC_LAY_WIDE));
	text2 = fuzz_alloc(cc_format_folded_capacity(so.n, so.nf));
	FUZZ_CHECK(cc_format_stored(&fuzz_ids, &so, text2) == len);
	FUZZ_CHECK(memcmp(text2, text, len + 1) == 0);
	free(text2);
	wire2 = fuzz_alloc(cc_wire_folded_size(so.n, so.nf));
	cc_encode_stored(&so, wire2);
	FUZZ_CHECK(memcmp(wire2, wire, cc_wire_folded_size(so.n, so.nf)) == 0);
	free(wire2);
	cc_fold_total(st, &wraps, &low);
	if (wraps != 0)
		FUZZ_CHECK(cc_stored_value(&so, &value, &err) == CC_ERR_OVERFLOW);
	else
		FUZZ_CHECK(cc_stored_value(&so, &value, &err) == CC_OK && value == low);
	free(data);
	free(wire);
	free(text);
}

/*
 * A state with fold records built from the input bytes: the generator of
 * the unit tests (cc_test_folds.h, folds run by cc_fold_apply()) seeded by
 * a hash of the input, so that inputs of any harness reach folded states.
 */
static inline void
fuzz_seeded_folded(const uint8_t *data, size_t size, cc_test_folded *x)
{
	uint64_t	h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ULL;
	cc_test_random_folded(&h, x);
}

#endif							/* FUZZ_COMMON_H */
