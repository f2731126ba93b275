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
extern bool cc_datum_value(Datum d, int64 *value);
extern Datum cc_merge_reads(Datum a, const CcRead *ra, Datum b,
							const CcRead *rb, cc_merge_kind *kind);

/* SQL functions that the local triggers call directly. */
extern Datum counter_crdt_difference(PG_FUNCTION_ARGS);
extern Datum counter_crdt_out(PG_FUNCTION_ARGS);

#endif							/* CC_VALUE_H */
