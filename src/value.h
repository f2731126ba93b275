/*
 * value.h
 *	  merge(a, b) of two values read by cc_read_open(), fold records and all
 *	  (value.c), which the merge trigger shares.
 */
#ifndef CC_VALUE_H
#define CC_VALUE_H

#include "counter_crdt.h"

extern Datum cc_merge_reads(Datum a, const CcRead *ra, Datum b,
							const CcRead *rb, cc_merge_kind *kind);

#endif							/* CC_VALUE_H */
