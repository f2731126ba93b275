/*
 * agg_slots.h
 *	  Cache-line slots for the transition states of a hash aggregation
 *	  (agg_slots.c).
 */
#ifndef CC_AGG_SLOTS_H
#define CC_AGG_SLOTS_H

#include "fmgr.h"
#include "utils/palloc.h"

#define CC_SLOT_ALIGN 64
#define CC_SLOT_MAX 512			/* larger states get allocations of their own */

typedef struct CcAggSlots CcAggSlots;

extern CcAggSlots *cc_slots_of_call(FunctionCallInfo fcinfo,
									MemoryContext aggcontext);
extern void *cc_slot_alloc(CcAggSlots *slots, MemoryContext aggcontext,
						   size_t size);

#endif							/* CC_AGG_SLOTS_H */
