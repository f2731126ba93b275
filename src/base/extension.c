/*
 * extension.c
 *	  The extension's own objects: whether a relation or function is the
 *	  extension's as its scripts made it, its schema, its relations by name
 *	  in that schema, and its type (extension.h).
 */
#include "base/extension.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/dependency.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/*
 * Whether a relation or function is extension ext's own, as its scripts
 * made it: a member of ext (pg_depend) owned by a superuser.  The owner of
 * an extension (the database owner, for a trusted one) may add objects of
 * his own to it (ALTER EXTENSION ... ADD), and may have created one under a
 * name that a later version takes, or in a schema of that name before the
 * extension existed; those are owned by him, never by a superuser, and the
 * code, which other roles run, never reads or calls them.
 */
bool
cc_extension_member(Oid ext, Oid classid, Oid objid)
{
	HeapTuple	tup;
	Oid			owner;

	if (!OidIsValid(ext) || !OidIsValid(objid) ||
		(classid != RelationRelationId && classid != ProcedureRelationId) ||
		getExtensionOfObject(classid, objid) != ext)
		return false;
	tup = SearchSysCache1(classid == RelationRelationId ? RELOID : PROCOID,
						  ObjectIdGetDatum(objid));
	if (!HeapTupleIsValid(tup))
		return false;
	owner = classid == RelationRelationId ?
		((Form_pg_class) GETSTRUCT(tup))->relowner :
		((Form_pg_proc) GETSTRUCT(tup))->proowner;
	ReleaseSysCache(tup);
	return superuser_arg(owner);
}

/* cc_extension_member() of counter_crdt, for a function. */
bool
cc_extension_owns_function(Oid fn)
{
	return cc_extension_member(get_extension_oid("counter_crdt", true),
							   ProcedureRelationId, fn);
}

/* The schema of extension ext, InvalidOid where none. */
static Oid
cc_extension_namespace(Oid ext)
{
	HeapTuple	tup;
	Oid			nsp;

	if (!OidIsValid(ext))
		return InvalidOid;
	tup = SearchSysCache1(EXTENSIONOID, ObjectIdGetDatum(ext));
	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	ReleaseSysCache(tup);
	return nsp;
}

/* The schema of the extension counter_crdt, InvalidOid where none. */
Oid
cc_extension_schema(void)
{
	return cc_extension_namespace(get_extension_oid("counter_crdt", true));
}

/*
 * A relation of the extension by name: the one of that name and kind in the
 * extension's schema, if the extension owns it (cc_extension_member()).
 * Never one in another schema, nor one that a role added to the extension:
 * InvalidOid then, as where the extension's version has none.
 */
Oid
cc_extension_relation(const char *relname, char relkind)
{
	Oid			ext = get_extension_oid("counter_crdt", true);
	Oid			nsp = cc_extension_namespace(ext);
	Oid			relid = OidIsValid(nsp) ? get_relname_relid(relname, nsp) : InvalidOid;

	return OidIsValid(relid) && get_rel_relkind(relid) == relkind &&
		cc_extension_member(ext, RelationRelationId, relid) ? relid : InvalidOid;
}

/*
 * Whether the extension's table relid has the columns of its install
 * script, types[0 .. natts - 1], or only the first min_natts of them (those
 * of an earlier version), none dropped, and no index (its rows are inserted
 * directly, with no index to maintain).  Indexes as the relcache lists them:
 * pg_class.relhasindex stays set after a CREATE INDEX that rolled back.
 */
bool
cc_extension_table_as_made(Oid relid, const Oid *types, int min_natts, int natts)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *indexes = RelationGetIndexList(rel);
	bool		ok = desc->natts >= min_natts && desc->natts <= natts &&
		indexes == NIL;

	for (int i = 0; ok && i < desc->natts; i++)
		ok = !TupleDescAttr(desc, i)->attisdropped &&
			TupleDescAttr(desc, i)->atttypid == types[i];
	list_free(indexes);
	table_close(rel, AccessShareLock);
	return ok;
}

/* The type counter_crdt, which lives in the schema nsp of the extension. */
Oid
cc_counter_type(Oid nsp)
{
	Oid			counter_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
											   CStringGetDatum("counter_crdt"),
											   ObjectIdGetDatum(nsp));

	if (!OidIsValid(counter_type))
		elog(ERROR, "type counter_crdt not found in schema %u", nsp);
	return counter_type;
}

/*
 * Whether a column of type typid holds counters as plain values: the type
 * counter_crdt (counter_type) or a domain over it, at any depth.  Types of
 * the system catalogs are neither: no lookup for them.
 */
bool
cc_is_counter_type(Oid typid, Oid counter_type)
{
	if (typid == counter_type)
		return true;
	if (typid < FirstNormalObjectId)
		return false;
	return getBaseType(typid) == counter_type;
}

/*
 * Whether a column of type typid may hold counters inside another value: an
 * array, a composite, a range or multirange of counters (through domains,
 * at any depth).  Such counters are no counter column's: the sweeps do not
 * visit them and the metrics do not count them.
 */
bool
cc_type_nests_counter(Oid typid, Oid counter_type)
{
	Oid			base;
	Oid			inner;
	Oid			relid;
	bool		nests = false;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	base = typid < FirstNormalObjectId ? typid : getBaseType(typid);
	if (base < FirstNormalObjectId || base == counter_type)
		return false;
	if (OidIsValid(inner = get_element_type(base)))
		return cc_is_counter_type(inner, counter_type) ||
			cc_type_nests_counter(inner, counter_type);
	if (OidIsValid(inner = get_range_subtype(base)))
		return cc_is_counter_type(inner, counter_type) ||
			cc_type_nests_counter(inner, counter_type);
	if (OidIsValid(inner = get_multirange_range(base)))
		return cc_type_nests_counter(inner, counter_type);
	if (!OidIsValid(relid = get_typ_typrelid(base)))
		return false;
	for (AttrNumber a = 1; !nests; a++)
	{
		HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid),
										  Int16GetDatum(a));
		Form_pg_attribute att;

		if (!HeapTupleIsValid(tup))
			break;
		att = (Form_pg_attribute) GETSTRUCT(tup);
		if (!att->attisdropped)
			nests = cc_is_counter_type(att->atttypid, counter_type) ||
				cc_type_nests_counter(att->atttypid, counter_type);
		ReleaseSysCache(tup);
	}
	return nests;
}
