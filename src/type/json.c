/*
 * json.c
 *	  The casts between counter_crdt and json / jsonb (contract 8.2).
 *
 * The core reads and writes the JSON form as text (cc_json.c), so that one
 * parser, unit-tested and fuzzed on its own, serves both types: jsonb is
 * printed to text before it is parsed, and the text made by the core is read
 * by jsonb_in.  jsonb has already normalised what it stores (of duplicate
 * keys the last one stays, 1e2 is stored as 100): the json cast sees the
 * text as written and rejects both.
 */
#include "base/datum.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "core/cc_json.h"

/* The ids the JSON form parsed and printed lately: the backend's cache. */
static cc_id_cache json_ids;

/* The JSON text of a value, with its fold records if any, palloc'd. */
static char *
cc_json_text(Datum d)
{
	cc_folded	f;
	bool		tombstone = cc_datum_folded(d, &f);
	size_t		cap;
	char	   *buf;

	cap = cc_json_format_folded_capacity(f.n, f.nf);
	if (cap > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("counter_crdt value is too large for its JSON form"),
				 f.nf == 0 ? errdetail("The value has %zu shards.", f.n) :
				 errdetail("The value has %zu shards and %zu fold records.",
						   f.n, f.nf)));
	buf = palloc(cap);
	if (tombstone)
		cc_json_format(&json_ids, NULL, 0, true, buf);
	else
		cc_json_format_folded(&json_ids, &f, buf);
	return buf;
}

/* A value from JSON text; str is NUL-terminated, for the error message. */
static Datum
cc_from_json_text(const char *str, size_t len)
{
	cc_folded	st;
	bool		tombstone;
	unsigned char *shards;
	struct varlena *result;
	cc_error	err;

	result = cc_make(cc_json_parse_capacity(str, len), false, &shards);
	if (cc_json_parse_folded(&json_ids, str, len, shards, &st, &tombstone, &err) != CC_OK)
		cc_report(&err, str);
	if (st.nf > 0)
	{
		/* records lie after the shards in result: packed into a new value */
		struct varlena *folded = cc_make_folded(&st);

		pfree(result);
		return PointerGetDatum(folded);
	}
	if (tombstone)
		cc_stored_build_tombstone((unsigned char *) VARDATA(result));
	cc_finish(result, st.n);
	return PointerGetDatum(result);
}

PG_FUNCTION_INFO_V1(counter_crdt_to_jsonb);
Datum
counter_crdt_to_jsonb(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(jsonb_in,
							   CStringGetDatum(cc_json_text(PG_GETARG_DATUM(0))));
}

PG_FUNCTION_INFO_V1(counter_crdt_from_jsonb);
Datum
counter_crdt_from_jsonb(PG_FUNCTION_ARGS)
{
	Jsonb	   *jb = PG_GETARG_JSONB_P(0);
	char	   *str = JsonbToCString(NULL, &jb->root, VARSIZE(jb));

	return cc_from_json_text(str, strlen(str));
}

PG_FUNCTION_INFO_V1(counter_crdt_to_json);
Datum
counter_crdt_to_json(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(cc_json_text(PG_GETARG_DATUM(0))));
}

PG_FUNCTION_INFO_V1(counter_crdt_from_json);
Datum
counter_crdt_from_json(PG_FUNCTION_ARGS)
{
	char	   *str = text_to_cstring(PG_GETARG_TEXT_PP(0));

	return cc_from_json_text(str, strlen(str));
}
