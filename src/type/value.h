/*
 * value.h
 *	  A counter's value as c::bigint reads it, and merge(a, b) of two values
 *	  read by cc_read_open(), fold records and all (value.c), which the merge
 *	  trigger shares.
 */
#ifndef CC_VALUE_H
#define CC_VALUE_H

#include "base/datum.h"

/* The value (fold records counted); false for a tombstone; 22003 outside bigint. */
extern bool cc_datum_value_read(Datum d, int64 *value);

/*
 * The value of a counter, false for a tombstone; 22003 outside bigint (as
 * c::bigint reads it).  Inline: an inline, uncompressed version 3 value of
 * a few shards (nearly every row) is summed where it lies, with no call;
 * every other value goes to cc_datum_value_read().
 */
static pg_attribute_always_inline bool
cc_datum_value(Datum d, int64 *value)
{
	const unsigned char *p = (const unsigned char *) DatumGetPointer(d);

	if (VARATT_IS_1B(p) && !VARATT_IS_1B_E(p))
	{
		if (cc_stored_v3_quick_sum(p + VARHDRSZ_SHORT,
								   VARSIZE_1B(p) - VARHDRSZ_SHORT, value))
			return true;
	}
	else if (VARATT_IS_4B_U(p) &&
			 cc_stored_v3_quick_sum(p + VARHDRSZ, VARSIZE_4B(p) - VARHDRSZ, value))
		return true;
	return cc_datum_value_read(d, value);
}
extern Datum cc_merge_reads(Datum a, const CcRead *ra, Datum b,
							const CcRead *rb, cc_merge_kind *kind);

/* SQL functions that the local triggers call directly. */
extern Datum counter_crdt_difference(PG_FUNCTION_ARGS);
extern Datum counter_crdt_out(PG_FUNCTION_ARGS);

#endif							/* CC_VALUE_H */
