/*
 * value.h
 *	  merge(a, b) of two values read into views (value.c), which the merge
 *	  trigger shares.
 */
#ifndef CC_VALUE_H
#define CC_VALUE_H

#include "fmgr.h"

#include "core/cc_algebra.h"

extern Datum cc_merge_reads(Datum a, const cc_view *va, Datum b,
							const cc_view *vb, cc_merge_kind *kind);

#endif							/* CC_VALUE_H */
