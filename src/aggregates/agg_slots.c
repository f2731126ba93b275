/*
 * agg_slots.c
 *	  Cache-line slots for the transition states of a hash aggregation.
 *
 * In a hash aggregation the states of all groups stay in memory and each
 * row touches its group's state at random, so their size in cache lines is
 * what a grouped merge pays for beyond the merge itself.  There the states
 * come from blocks of the hash table's memory, carved into slots that start
 * on a cache line: a state of three shards and its header (128 bytes) then
 * spans two lines, where an allocation of its own, after the allocator's
 * chunk header, would span three (and take 144 bytes, not 128).  States are
 * never freed one by one (PostgreSQL frees the memory of the hash table as a
 * whole), so a block needs no bookkeeping but where its free part starts.
 */
#include "postgres.h"

#include "aggregates/agg_slots.h"

#include "nodes/execnodes.h"

/*
 * Slots for the states of a hash aggregation, per call site (fn_extra):
 * the free part [next, end) of the last block taken from cxt, the memory
 * of the hash table.  A callback on cxt forgets the block when that memory
 * is reset or deleted (between batches of a hash aggregation that spills,
 * at a rescan, at the end of the query); fn_extra lives in the query's
 * memory, of which the hash table's is a child, so it outlives them.
 */
#define CC_SLOT_BLOCK_MIN 1024	/* blocks double up to CC_SLOT_BLOCK_MAX */
#define CC_SLOT_BLOCK_MAX (64 * 1024)

struct CcAggSlots
{
	MemoryContext cxt;			/* NULL when there is no block */
	char	   *next;
	char	   *end;
	size_t		block;			/* size of the next block */
};

static void
cc_slots_forget(void *arg)
{
	CcAggSlots *slots = (CcAggSlots *) arg;

	slots->cxt = NULL;
	slots->next = slots->end = NULL;
	slots->block = CC_SLOT_BLOCK_MIN;
}

/*
 * The slots of this call site when the state is for a hash aggregation's
 * table (aggcontext is its memory), else NULL.
 */
CcAggSlots *
cc_slots_of_call(FunctionCallInfo fcinfo, MemoryContext aggcontext)
{
	AggState   *agg;
	CcAggSlots *slots;

	if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return NULL;
	agg = (AggState *) fcinfo->context;
	if (agg->hashcontext == NULL ||
		aggcontext != agg->hashcontext->ecxt_per_tuple_memory)
		return NULL;
	slots = (CcAggSlots *) fcinfo->flinfo->fn_extra;
	if (slots == NULL)
	{
		slots = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(CcAggSlots));
		cc_slots_forget(slots);
		fcinfo->flinfo->fn_extra = slots;
	}
	return slots;
}

/* size bytes at a cache line, from the block of slots or a new one */
void *
cc_slot_alloc(CcAggSlots *slots, MemoryContext aggcontext, size_t size)
{
	void	   *p;

	if (slots->cxt != aggcontext || (size_t) (slots->end - slots->next) < size)
	{
		MemoryContextCallback *cb;
		char	   *block;

		if (slots->cxt != aggcontext)
			cc_slots_forget(slots);
		/* the callback lives at the start of the block it forgets */
		block = MemoryContextAlloc(aggcontext, slots->block);
		cb = (MemoryContextCallback *) block;
		cb->func = cc_slots_forget;
		cb->arg = slots;
		MemoryContextRegisterResetCallback(aggcontext, cb);
		slots->cxt = aggcontext;
		slots->next = (char *) TYPEALIGN(CC_SLOT_ALIGN, block + sizeof(MemoryContextCallback));
		slots->end = block + slots->block;
		slots->block = Min(slots->block * 2, CC_SLOT_BLOCK_MAX);
	}
	p = slots->next;
	slots->next += size;
	return p;
}
