/*
 * compare_numbers.c
 *	  A counter compared with a number: c op n and n op c for =, <>, <, <=,
 *	  >, >= with n smallint, integer, bigint, numeric or double precision (SQL functions
 *	  counter_crdt_value_eq/ne/lt/le/gt/ge, one per type and side).
 *
 * They compare the counter's value as c::bigint reads it (cc_datum_value()):
 * the exact sum, fold records counted.  A tombstone has no value, so every
 * comparison with it is NULL (the functions are STRICT as well); a value
 * outside bigint cannot be read, so comparing it is an error (22003), as
 * c::bigint is.  Against numeric the value compares as numeric does (NaN
 * after every number, infinities where they belong); against double
 * precision as bigint compares with it, the value converted to double.  = here is equality of
 * values; = between two counters stays equality of states (compare.c).
 *
 * Where the column has an index on c::bigint, their planner support function
 * rewrites c op n into c::bigint op n (c::numeric, c::double precision op n
 * for those, with an index on that), which answers the same, so that the
 * index serves it.
 */
#include "base/datum.h"
#include "type/value.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "core/cc_fold.h"

/*
 * The value of a counter for a comparison, false for a tombstone: as
 * c::bigint reads it (22003 outside bigint) in a query, and exactly, as
 * wraps * 2^64 + low (cc_fold_total()), where the call has no expression.
 * Those calls are the planner's estimators (eqsel, scalarltsel, eqjoinsel
 * and the others call the operator's function on the column's most common
 * values and histogram, through fmgr_info()): an estimate reads values
 * that the query may never read, and must not fail on one.  Every call of
 * a query, its own rows and constants alike, has its expression
 * (fmgr_info_set_expr() in ExecInitFunc() and its kin).
 */
static bool
cc_compare_value(FunctionCallInfo fcinfo, Datum counter, int64 *wraps, int64 *low)
{
	CcRead		r;
	bool		live;

	*wraps = 0;
	if (fcinfo->flinfo != NULL && fcinfo->flinfo->fn_expr != NULL)
		return cc_datum_value(counter, low);
	cc_read_open(counter, &r);
	live = !r.v.tombstone;
	if (live)
	{
		cc_folded	f = cc_read_folded(&r);

		cc_fold_total(&f, wraps, low);
	}
	cc_read_close(&r);
	return live;
}

/*
 * The sign of value(counter) - n; false for a tombstone.  A query's call
 * reads the value inline (cc_datum_value()), where it lies.
 */
static pg_attribute_always_inline bool
cc_value_cmp_int(FunctionCallInfo fcinfo, Datum counter, int64 n, int *sign)
{
	int64		wraps,
				v;

	if (likely(fcinfo->flinfo != NULL && fcinfo->flinfo->fn_expr != NULL))
	{
		if (!cc_datum_value(counter, &v))
			return false;
		*sign = (v > n) - (v < n);
		return true;
	}
	if (!cc_compare_value(fcinfo, counter, &wraps, &v))
		return false;
	*sign = wraps != 0 ? (wraps > 0) - (wraps < 0) : (v > n) - (v < n);
	return true;
}

static bool
cc_value_cmp_numeric(FunctionCallInfo fcinfo, Datum counter, Datum n, int *sign)
{
	int64		wraps,
				v;
	Datum		value;

	if (!cc_compare_value(fcinfo, counter, &wraps, &v))
		return false;
	value = NumericGetDatum(int64_to_numeric(v));
	if (wraps != 0)
		value = DirectFunctionCall2(numeric_add, value,
									DirectFunctionCall2(numeric_mul,
														NumericGetDatum(int64_to_numeric(wraps)),
														DirectFunctionCall3(numeric_in,
																			CStringGetDatum("18446744073709551616"),
																			ObjectIdGetDatum(InvalidOid),
																			Int32GetDatum(-1))));
	*sign = DatumGetInt32(DirectFunctionCall2(numeric_cmp, value, n));
	return true;
}

/* As bigint compares with double precision: the value converted to double. */
static bool
cc_value_cmp_float8(FunctionCallInfo fcinfo, Datum counter, float8 n, int *sign)
{
	int64		wraps,
				v;

	if (!cc_compare_value(fcinfo, counter, &wraps, &v))
		return false;
	*sign = float8_cmp_internal((float8) wraps * 18446744073709551616.0 + (float8) v, n);
	return true;
}

#define CC_ARG_INT2(i) ((int64) PG_GETARG_INT16(i))
#define CC_ARG_INT4(i) ((int64) PG_GETARG_INT32(i))
#define CC_ARG_INT8(i) PG_GETARG_INT64(i)
#define CC_ARG_NUMERIC(i) PG_GETARG_DATUM(i)
#define CC_ARG_FLOAT8(i) PG_GETARG_FLOAT8(i)

/*
 * counter_crdt_value_<op>_<type>(c, n) is c op n, the sign of value - n
 * against 0; counter_crdt_<type>_<op>_value(n, c) is n op c, so 0 against
 * that same sign.
 */
#define CC_NUMBER_OP(op, OP, type, ARG, CMP) \
PG_FUNCTION_INFO_V1(counter_crdt_value_##op##_##type); \
Datum \
counter_crdt_value_##op##_##type(PG_FUNCTION_ARGS) \
{ \
	int			sign; \
\
	if (!CMP(fcinfo, PG_GETARG_DATUM(0), ARG(1), &sign)) \
		PG_RETURN_NULL(); \
	PG_RETURN_BOOL(sign OP 0); \
} \
PG_FUNCTION_INFO_V1(counter_crdt_##type##_##op##_value); \
Datum \
counter_crdt_##type##_##op##_value(PG_FUNCTION_ARGS) \
{ \
	int			sign; \
\
	if (!CMP(fcinfo, PG_GETARG_DATUM(1), ARG(0), &sign)) \
		PG_RETURN_NULL(); \
	PG_RETURN_BOOL(0 OP sign); \
}

#define CC_NUMBER_OPS(type, ARG, CMP) \
	CC_NUMBER_OP(eq, ==, type, ARG, CMP) \
	CC_NUMBER_OP(ne, !=, type, ARG, CMP) \
	CC_NUMBER_OP(lt, <, type, ARG, CMP) \
	CC_NUMBER_OP(le, <=, type, ARG, CMP) \
	CC_NUMBER_OP(gt, >, type, ARG, CMP) \
	CC_NUMBER_OP(ge, >=, type, ARG, CMP)

CC_NUMBER_OPS(int2, CC_ARG_INT2, cc_value_cmp_int)
CC_NUMBER_OPS(int4, CC_ARG_INT4, cc_value_cmp_int)
CC_NUMBER_OPS(int8, CC_ARG_INT8, cc_value_cmp_int)
CC_NUMBER_OPS(numeric, CC_ARG_NUMERIC, cc_value_cmp_numeric)
CC_NUMBER_OPS(float8, CC_ARG_FLOAT8, cc_value_cmp_float8)

/* The operator of counter_crdt_value_<op>, NULL for another name. */
static const char *
cc_compare_operator(const char *funcname)
{
	static const char *const names[][2] = {
		{"counter_crdt_value_eq", "="}, {"counter_crdt_value_ne", "<>"},
		{"counter_crdt_value_lt", "<"}, {"counter_crdt_value_le", "<="},
		{"counter_crdt_value_gt", ">"}, {"counter_crdt_value_ge", ">="},
	};

	for (size_t i = 0; i < lengthof(names); i++)
		if (strcmp(funcname, names[i][0]) == 0)
			return names[i][1];
	return NULL;
}

static inline bool
cc_is_number_type(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID ||
		type == NUMERICOID || type == FLOAT8OID;
}

/*
 * Whether counter is a column of a table of the query being planned that has
 * a valid index with cast_fn(column), c::bigint say, among its keys.  The
 * table is locked already (the parser locked it); its index list and each
 * index's expressions are read from the relcache (parsed once, not copied),
 * each index opened with the lock the planner takes on it too
 * (get_relation_info() in plancat.c).
 */
static bool
cc_value_index_exists(PlannerInfo *root, Node *counter, Oid cast_fn)
{
	Var		   *var = (Var *) counter;
	RangeTblEntry *rte;
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;
	bool		found = false;

	if (root == NULL || root->parse == NULL || !IsA(counter, Var) ||
		var->varlevelsup != 0 || var->varattno <= 0 || var->varno < 1 ||
		var->varno > list_length(root->parse->rtable))
		return false;
	/*
	 * Not the target of an INSERT: what names it there is ON CONFLICT's,
	 * whose arbiter predicate must stay as written to match an index
	 * predicate (which is simplified with no planner, so never rewritten),
	 * and whose DO UPDATE ... WHERE no index serves.
	 */
	if (root->parse->commandType == CMD_INSERT &&
		var->varno == root->parse->resultRelation)
		return false;
	rte = rt_fetch(var->varno, root->parse->rtable);
	if (rte->rtekind != RTE_RELATION)
		return false;
	rel = table_open(rte->relid, NoLock);
	indexes = RelationGetIndexList(rel);
	table_close(rel, NoLock);

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), rte->rellockmode);
		ListCell   *e;

		/* the relcache's parsed expressions, read in place */
		if (index->rd_index->indisvalid &&
			!heap_attisnull(index->rd_indextuple, Anum_pg_index_indexprs, NULL))
		{
			if (index->rd_indexprs == NIL)
				list_free_deep(RelationGetIndexExpressions(index));
			foreach(e, index->rd_indexprs)
			{
				FuncExpr   *f = (FuncExpr *) lfirst(e);

				if (IsA(f, FuncExpr) && f->funcid == cast_fn &&
					list_length(f->args) == 1 && IsA(linitial(f->args), Var) &&
					((Var *) linitial(f->args))->varattno == var->varattno)
					found = true;
			}
		}
		index_close(index, NoLock);
		if (found)
			break;
	}
	list_free(indexes);
	return found;
}

/*
 * Support of every comparison above: SupportRequestSimplify of c op n gives
 * c::bigint op n (pg_catalog's operator of bigint and n's type), or
 * c::numeric op n, c::double precision op n for those; n op c likewise.
 * Same result in every case, NULL for a tombstone and 22003 outside bigint
 * included.  Only where the column has an index on that cast, which then
 * serves the comparison and whose statistics estimate it; elsewhere the
 * operator stays, and its estimators read the column's own statistics (its
 * histogram is in the counters' order, which is by value first).  Names are
 * looked up in pg_catalog and the casts by type, never through search_path.
 */
PG_FUNCTION_INFO_V1(counter_crdt_value_compare_support);
Datum
counter_crdt_value_compare_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	FuncExpr   *call;
	const char *opname;
	char	   *funcname;
	Node	   *counter,
			   *number,
			   *value;
	bool		counter_left;
	Oid			number_type,
				value_type,
				cast_fn = InvalidOid,
				opno;
	OpExpr	   *result;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	call = ((SupportRequestSimplify *) rawreq)->fcall;
	if (list_length(call->args) != 2)
		PG_RETURN_POINTER(NULL);
	funcname = get_func_name(call->funcid);
	opname = funcname ? cc_compare_operator(funcname) : NULL;
	if (opname == NULL)
		PG_RETURN_POINTER(NULL);

	counter_left = !cc_is_number_type(exprType(linitial(call->args)));
	counter = counter_left ? linitial(call->args) : lsecond(call->args);
	number = counter_left ? lsecond(call->args) : linitial(call->args);
	number_type = exprType(number);
	if (!cc_is_number_type(number_type) || cc_is_number_type(exprType(counter)))
		PG_RETURN_POINTER(NULL);
	value_type = number_type == NUMERICOID || number_type == FLOAT8OID ?
		number_type : INT8OID;

	if (find_coercion_pathway(value_type, exprType(counter), COERCION_EXPLICIT,
							  &cast_fn) != COERCION_PATH_FUNC ||
		!OidIsValid(cast_fn) ||
		!cc_value_index_exists(((SupportRequestSimplify *) rawreq)->root,
							   counter, cast_fn))
		PG_RETURN_POINTER(NULL);
	value = (Node *) makeFuncExpr(cast_fn, value_type, list_make1(counter),
								  InvalidOid, InvalidOid, COERCE_EXPLICIT_CAST);

	opno = OpernameGetOprid(list_make2(makeString("pg_catalog"),
									   makeString(unconstify(char *, opname))),
							counter_left ? value_type : number_type,
							counter_left ? number_type : value_type);
	if (!OidIsValid(opno))
		PG_RETURN_POINTER(NULL);
	result = (OpExpr *) make_opclause(opno, BOOLOID, false,
									  (Expr *) (counter_left ? value : number),
									  (Expr *) (counter_left ? number : value),
									  InvalidOid, InvalidOid);
	set_opfuncid(result);
	PG_RETURN_POINTER(result);
}
