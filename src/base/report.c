/*
 * report.c
 *	  Core errors as PostgreSQL errors: the error code, message, detail and
 *	  hint of each kind of core result (core/cc_base.h).
 */
#include "base/report.h"

#include <ctype.h>

/* A stored value that is not one: corruption, never user input. */
void
cc_corrupt(const cc_error *err)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupt counter_crdt value"),
			 errdetail("%s", err->detail)));
}

/*
 * Whether text that is not a counter is a number instead ("100", " -2.5 "):
 * a parameter or literal of unknown type compared with a counter is read as
 * a counter, and the error then says how to write the comparison.
 */
static bool
cc_looks_like_number(const char *s)
{
	bool		digits = false;

	if (s == NULL)
		return false;
	while (isspace((unsigned char) *s))
		s++;
	if (*s == '+' || *s == '-')
		s++;
	for (; isdigit((unsigned char) *s) || *s == '.'; s++)
		digits |= isdigit((unsigned char) *s) != 0;
	while (isspace((unsigned char) *s))
		s++;
	return digits && *s == '\0';
}

/* Turns a core error into the matching ereport. */
void
cc_report(const cc_error *err, const char *input)
{
	switch (err->code)
	{
		case CC_ERR_SYNTAX:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type counter_crdt: \"%s\"",
							input ? input : ""),
					 errdetail("%s", err->detail),
					 cc_looks_like_number(input) ?
					 errhint("A counter's text is its state, not a number. To compare "
							 "its value with a number, give the number a type "
							 "(c > $1::bigint, c > 100::bigint) or read the value "
							 "(c::bigint > $1).") : 0));
			break;
		case CC_ERR_BINARY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid external representation of type counter_crdt"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("counter_crdt value out of range"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_LIMIT:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("counter_crdt value has too many shards"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_ARGUMENT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid counter_crdt argument"),
					 errdetail("%s", err->detail)));
			break;
		case CC_ERR_RETIRED:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("counter_crdt writer id is retired"),
					 errdetail("%s", err->detail),
					 errhint("A retired writer id cannot write again: give the writer a new id (doc/retiring-writers.md).")));
			break;
		case CC_OK:
			break;
	}
	elog(ERROR, "unexpected counter_crdt core result %d", (int) err->code);
}
