/*
 * extension.h
 *	  The extension's own objects, found by its schema and OID, never by a
 *	  name that another role could plant (extension.c), and the one way its
 *	  code scans a table on every PostgreSQL version.
 */
#ifndef CC_EXTENSION_H
#define CC_EXTENSION_H

#include "postgres.h"

#include "access/tableam.h"
#include "commands/trigger.h"
#include "storage/proc.h"
#include "utils/fmgrprotos.h"

extern bool cc_extension_member(Oid ext, Oid classid, Oid objid);
extern bool cc_extension_owns_function(Oid fn);
extern Oid	cc_extension_schema(void);
extern Oid	cc_extension_relation(const char *relname, char relkind);
extern bool cc_extension_table_as_made(Oid relid, const Oid *types,
									   int min_natts, int natts);
extern Oid	cc_counter_type(Oid nsp);
extern bool cc_is_counter_type(Oid typid, Oid counter_type);
extern bool cc_type_nests_counter(Oid typid, Oid counter_type);

/*
 * A plain sequential scan of a whole table under snap, as the extension's
 * own reads of tables take it on every version (19 adds scan flags).
 */
static inline TableScanDesc
cc_table_beginscan(Relation rel, Snapshot snap)
{
#if PG_VERSION_NUM >= 190000
	return table_beginscan(rel, snap, 0, NULL, SO_NONE);
#else
	return table_beginscan(rel, snap, 0, NULL);
#endif
}

/* This backend's local transaction id, on every version (17 moved it). */
static inline LocalTransactionId
cc_current_lxid(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProc->vxid.lxid;
#else
	return MyProc->lxid;
#endif
}

/* The depth of the trigger now running: 1 for a statement's own triggers. */
static inline int
cc_trigger_depth(void)
{
	LOCAL_FCINFO(fcinfo, 0);

	InitFunctionCallInfoData(*fcinfo, NULL, 0, InvalidOid, NULL, NULL);
	return DatumGetInt32(pg_trigger_depth(fcinfo));
}

#endif							/* CC_EXTENSION_H */
