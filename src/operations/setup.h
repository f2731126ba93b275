/*
 * setup.h
 *	  What the set-up (setup.c) and the health check (health.c) share:
 *	  the extension's objects, and the triggers of a table that call them.
 */
#ifndef CC_SETUP_H
#define CC_SETUP_H

#include "fmgr.h"
#include "commands/trigger.h"
#include "nodes/bitmapset.h"
#include "utils/rel.h"

/* What the extension's schema holds that both functions need. */
typedef struct CcExtension
{
	Oid			nsp;
	Oid			counter_type;
	Oid			merge_fn;		/* counter_crdt_replica_merge() */
	Oid			delete_fn;		/* counter_crdt_delete_as_tombstone() */
	Oid			guard_fn;		/* counter_crdt_local_guard(), since 1.4 */
} CcExtension;

/* The triggers of a table that call our two functions. */
typedef struct CcTriggers
{
	const Trigger *merge;		/* the first found, or NULL */
	const Trigger *delete;
	const Trigger *key_guard;	/* BEFORE UPDATE FOR EACH ROW */
	const Trigger *key_check;	/* AFTER UPDATE FOR EACH ROW, since 1.6 */
	const Trigger *truncate_guard;	/* BEFORE TRUNCATE */
} CcTriggers;

extern void cc_extension(FunctionCallInfo fcinfo, CcExtension *ext);
extern bool cc_fires_locally(const Trigger *t);
extern void cc_find_triggers(Relation rel, const CcExtension *ext, CcTriggers *trg);
extern bool cc_guard_covers_key(const Trigger *t, const Bitmapset *pkey);
extern bool cc_guard_notes_moves(Relation rel, const Trigger *t);
extern bool cc_check_covers_key(const Trigger *t, const Bitmapset *pkey);

#endif							/* CC_SETUP_H */
