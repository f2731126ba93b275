/*
 * type_io.c
 *	  Text and binary input and output of counter_crdt.
 *
 * The binary form (send/recv) is versioned and big-endian; its byte table
 * is in core/cc_wire.h.  send writes versions 1 and 2, which every release
 * reads, unless counter_crdt.binary_format is 'compact': then a live value
 * without fold records goes as version 3, which only 1.12 and later read.
 * recv reads all three, whatever the setting.  recv is reachable by any user through COPY ...
 * (FORMAT binary): it checks the length against the counts before it
 * allocates, and checks every shard and every fold record.  Values with
 * fold records (all three forms) are built by cc_make_folded(), which
 * keeps cc_fold_total() as their total.
 */
#include "base/datum.h"

#include "libpq/pqformat.h"
#include "utils/guc.h"

#include "type/type_io.h"
#include "core/cc_text.h"
#include "core/cc_wire.h"

/*
 * counter_crdt.binary_format: the form send writes.  'portable' (versions 1
 * and 2, what every release reads) until every server that receives the
 * values runs 1.12 or later; then 'compact'.  A walsender reads it from the
 * settings of the database and of the role its subscription connects as,
 * and from postgresql.conf.
 */
typedef enum CcBinaryFormat
{
	CC_BINARY_PORTABLE,
	CC_BINARY_COMPACT
} CcBinaryFormat;

static const struct config_enum_entry binary_format_options[] = {
	{"portable", CC_BINARY_PORTABLE, false},
	{"compact", CC_BINARY_COMPACT, false},
	{NULL, 0, false}
};

static int	binary_format = CC_BINARY_PORTABLE;

void
cc_binary_format_define(void)
{
	DefineCustomEnumVariable("counter_crdt.binary_format",
							 "Binary form that counter_crdt's send function writes.",
							 "portable: format versions 1 and 2, which every release reads. "
							 "compact: format version 3 for live values without fold records, "
							 "which releases before 1.12 cannot read.",
							 &binary_format,
							 CC_BINARY_PORTABLE,
							 binary_format_options,
							 PGC_USERSET,
							 0,
							 NULL,
							 NULL,
							 NULL);
}

/*
 * The last input that was read, text or binary, and the value it gave, kept
 * per backend.  PostgreSQL 15's apply worker converts every column of a
 * replicated UPDATE twice (once for the tuple that finds the row, once for
 * the new row), and a COPY of repeated values reads the same input again:
 * the second time it is a comparison and a copy.  Only input that was read
 * without error is kept, whole (its length and every byte), and only when
 * it and its value are short.
 */
#define CC_MEMO_INPUT	1024
#define CC_MEMO_VALUE	(VARHDRSZ + CC_STORED_BUILD_SIZE(64))

typedef struct CcInputMemo
{
	size_t		len;			/* 0: nothing kept */
	char		input[CC_MEMO_INPUT];
	char		value[CC_MEMO_VALUE];
} CcInputMemo;

static CcInputMemo text_memo;
static CcInputMemo binary_memo;

/*
 * The ids the text form parsed and printed lately, with their text (the
 * core keeps no state: this cache is the backend's, and the core's parser
 * and formatter are handed it).
 */
static cc_id_cache text_ids;

/* A copy of the value kept for exactly this input, or NULL. */
static struct varlena *
cc_memo_get(const CcInputMemo *m, const char *input, size_t len)
{
	struct varlena *v;

	if (len != m->len || len == 0 || memcmp(input, m->input, len) != 0)
		return NULL;
	v = palloc(VARSIZE(m->value));
	memcpy(v, m->value, VARSIZE(m->value));
	return v;
}

static void
cc_memo_put(CcInputMemo *m, const char *input, size_t len,
			const struct varlena *v)
{
	m->len = 0;
	if (len > CC_MEMO_INPUT || VARSIZE(v) > CC_MEMO_VALUE)
		return;
	memcpy(m->input, input, len);
	memcpy(m->value, v, VARSIZE(v));
	m->len = len;
}

PG_FUNCTION_INFO_V1(counter_crdt_in);
Datum
counter_crdt_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		len = strlen(str);
	cc_folded	st;
	bool		tombstone;
	unsigned char *shards;
	struct varlena *result;
	cc_error	err;

	if ((result = cc_memo_get(&text_memo, str, len)) != NULL)
		PG_RETURN_POINTER(result);
	result = cc_make(cc_parse_capacity(str, len), false, &shards);
	if (cc_parse_folded(&text_ids, str, len, shards, &st, &tombstone, &err) != CC_OK)
		cc_report(&err, str);
	if (st.nf > 0)
	{
		/* records lie after the shards in result: packed into a new value */
		struct varlena *folded = cc_make_folded(&st);

		pfree(result);
		result = folded;
	}
	else
	{
		if (tombstone)
			cc_stored_build_tombstone((unsigned char *) VARDATA(result));
		cc_finish(result, st.n);
	}
	cc_memo_put(&text_memo, str, len, result);
	PG_RETURN_POINTER(result);
}

PG_FUNCTION_INFO_V1(counter_crdt_out);
Datum
counter_crdt_out(PG_FUNCTION_ARGS)
{
	cc_stored	s;
	char	   *buf;
	size_t		cap;

	/* formatted from the shards (of any layout) and records as they lie */
	cc_datum_stored(PG_GETARG_DATUM(0), &s);
	cap = cc_format_folded_capacity(s.n, s.nf);
	if (cap > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value is too large for its text form"),
				 s.nf == 0 ? errdetail("The value has %zu shards.", s.n) :
				 errdetail("The value has %zu shards and %zu fold records.",
						   s.n, s.nf)));
	buf = palloc(cap);
	cc_format_stored(&text_ids, &s, buf);
	PG_RETURN_CSTRING(buf);
}

PG_FUNCTION_INFO_V1(counter_crdt_recv);
Datum
counter_crdt_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	const unsigned char *data = (const unsigned char *) buf->data + buf->cursor;
	size_t		len = (size_t) (buf->len - buf->cursor);
	size_t		n,
				nf;
	bool		tombstone;
	unsigned char *shards;
	struct varlena *result;
	cc_error	err;

	if ((result = cc_memo_get(&binary_memo, (const char *) data, len)) != NULL)
	{
		buf->cursor = buf->len;
		PG_RETURN_POINTER(result);
	}
	/* the counts fit len, checked before anything is allocated */
	if (cc_decode_header_folded(data, len, &n, &nf, &tombstone, &err) != CC_OK)
		cc_report(&err, NULL);
	if (nf == 0)
	{
		result = cc_make(n, tombstone, &shards);
		if (cc_decode_shards(data, n, shards, &err) != CC_OK)
			cc_report(&err, NULL);
		cc_finish(result, n);
	}
	else
	{
		/* version 2: the shards, then the records checked against them */
		cc_folded	f;
		unsigned char *folds;

		cc_check_count(n);
		shards = palloc(n * CC_SHARD_SIZE);
		folds = palloc(nf * CC_FOLD_SIZE);
		if (cc_decode_shards(data, n, shards, &err) != CC_OK)
			cc_report(&err, NULL);
		cc_decode_folds(data, n, nf, folds);
		f.shards = shards;
		f.n = n;
		f.folds = folds;
		f.nf = nf;
		if (cc_fold_check(&f, CC_ERR_BINARY, &err) != CC_OK)
			cc_report(&err, NULL);
		result = cc_make_folded(&f);
		pfree(shards);
		pfree(folds);
	}
	cc_memo_put(&binary_memo, (const char *) data, len, result);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(result);
}

PG_FUNCTION_INFO_V1(counter_crdt_send);
Datum
counter_crdt_send(PG_FUNCTION_ARGS)
{
	cc_stored	s;
	bytea	   *result;
	size_t		size;
	uint8_t		lay;

	/* the shards (of any layout) and records as they lie */
	cc_datum_stored(PG_GETARG_DATUM(0), &s);
	if (binary_format == CC_BINARY_COMPACT && !s.tombstone && s.nf == 0)
	{
		/* never longer than version 1: records of at most 32 bytes */
		lay = cc_stored_narrowest(&s);
		size = cc_wire_compact_size(s.n, lay);
		if (size > MaxAllocSize - VARHDRSZ)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("counter_crdt value is too large for its binary form"),
					 errdetail("The value has %zu shards.", s.n)));
		result = palloc(VARHDRSZ + size);
		SET_VARSIZE(result, VARHDRSZ + size);
		cc_encode_compact(&s, lay, (unsigned char *) VARDATA(result));
		PG_RETURN_BYTEA_P(result);
	}
	size = cc_wire_folded_size(s.n, s.nf);
	if (size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value is too large for its binary form"),
				 s.nf == 0 ? errdetail("The value has %zu shards.", s.n) :
				 errdetail("The value has %zu shards and %zu fold records.",
						   s.n, s.nf)));
	result = palloc(VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	cc_encode_stored(&s, (unsigned char *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}
