/*
 * timecmp.c - comparing IDs with timestamps, so "id >= now() - interval
 * '1 day'" is answered from the ID's btree index
 *
 * An ID compares with a timestamp by millisecond: the ID's millisecond
 * against the millisecond that contains the timestamp.  There is no
 * cross-type equality on purpose: two timestamps within one millisecond
 * would both "equal" the same ID.  Index use comes from the planner support
 * function below, not from the btree families.
 */
#include "base.h"

#include "access/stratnum.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "decode.h"
#include "uuid7.h"

/* the ID's millisecond minus the timestamp's, as -1, 0 or 1 */
static int
cmp_id_ts(int64 id, TimestampTz ts)
{
	const IdgenEpoch *e;
	IdgenFields fields;
	int64		id_ms;
	int64		ts_ms;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		return 1;
	if (TIMESTAMP_IS_NOEND(ts))
		return -1;
	e = idgen_decode_id(id, &fields);
	id_ms = fields.ms + e->layout.epoch_unix_ms;
	ts_ms = idgen_timestamptz_to_unix_ms(ts);
	return (id_ms > ts_ms) - (id_ms < ts_ms);
}

static int
cmp_id128_ts(const pg_uuid_t *id, TimestampTz ts)
{
	IdgenUuid7Fields f;
	int64		ts_ms;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		return 1;
	if (TIMESTAMP_IS_NOEND(ts))
		return -1;
	idgen_uuid7_decompose(id->data, &f);
	ts_ms = idgen_timestamptz_to_unix_ms(ts);
	return (f.unix_ms > ts_ms) - (f.unix_ms < ts_ms);
}

#define IDGEN_TS_CMP_FUNCS(name, getid, cmpfn) \
PG_FUNCTION_INFO_V1(name##_lt_ts); \
Datum name##_lt_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) < 0); } \
PG_FUNCTION_INFO_V1(name##_le_ts); \
Datum name##_le_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) <= 0); } \
PG_FUNCTION_INFO_V1(name##_gt_ts); \
Datum name##_gt_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) > 0); } \
PG_FUNCTION_INFO_V1(name##_ge_ts); \
Datum name##_ge_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) >= 0); } \
PG_FUNCTION_INFO_V1(ts_lt_##name); \
Datum ts_lt_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) > 0); } \
PG_FUNCTION_INFO_V1(ts_le_##name); \
Datum ts_le_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) >= 0); } \
PG_FUNCTION_INFO_V1(ts_gt_##name); \
Datum ts_gt_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) < 0); } \
PG_FUNCTION_INFO_V1(ts_ge_##name); \
Datum ts_ge_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) <= 0); }

IDGEN_TS_CMP_FUNCS(idgen, PG_GETARG_INT64, cmp_id_ts)
IDGEN_TS_CMP_FUNCS(idgen128, PG_GETARG_UUID_P, cmp_id128_ts)

/*
 * Index support.  The time operators are deliberately not in the btree
 * families: every ID of a millisecond compares "equal" to a timestamp in it,
 * which a btree descent cannot cope with.  Instead the planner asks this
 * support function, and it answers with plain ID comparisons against the
 * bounds of the timestamp's millisecond, the way a LIKE prefix becomes a
 * range:
 *
 *     id <  ts, id <= ts   ->  id <= idgen_max_at(ts)
 *     id >  ts, id >= ts   ->  id >= idgen_min_at(ts)
 *
 * (and the same for idgen128 with its own bounds).  Each is a superset of
 * what the clause asks for, also where the bounds clamp at the ends of the
 * time range, and the original clause stays as a recheck (lossy), so the
 * index can only ever read one millisecond too many, never one too few.
 */

static Oid
extension_function(Oid sibling, const char *name)
{
	Oid			nsp = get_func_namespace(sibling);
	Oid			argtype = TIMESTAMPTZOID;

	return LookupFuncName(list_make2(makeString(get_namespace_name(nsp)),
									 makeString(pstrdup(name))),
						  1, &argtype, true);
}

PG_FUNCTION_INFO_V1(idgen_time_support);
Datum
idgen_time_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestIndexCondition *req;
	OpExpr	   *clause;
	Node	   *idarg;
	Node	   *tsarg;
	char	   *opname;
	bool		id_left;
	int			strategy;
	bool		use_min;
	Oid			idtype;
	Oid			boundfn;
	Oid			idop;
	Expr	   *bound;

	if (!IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestIndexCondition *) rawreq;
	if (!is_opclause(req->node))
		PG_RETURN_POINTER(NULL);
	clause = (OpExpr *) req->node;
	if (list_length(clause->args) != 2)
		PG_RETURN_POINTER(NULL);

	id_left = req->indexarg == 0;
	idarg = id_left ? linitial(clause->args) : lsecond(clause->args);
	tsarg = id_left ? lsecond(clause->args) : linitial(clause->args);
	if (exprType(tsarg) != TIMESTAMPTZOID)
		PG_RETURN_POINTER(NULL);
	/* the bound must be computable before the scan */
	if (contain_volatile_functions(tsarg) ||
		bms_is_member(req->index->rel->relid, pull_varnos(req->root, tsarg)))
		PG_RETURN_POINTER(NULL);

	/* what the clause says about the ID, read with the ID on the left */
	opname = get_opname(clause->opno);
	if (opname == NULL)
		PG_RETURN_POINTER(NULL);
	if (strcmp(opname, "<") == 0)
		strategy = id_left ? BTLessStrategyNumber : BTGreaterStrategyNumber;
	else if (strcmp(opname, "<=") == 0)
		strategy = id_left ? BTLessEqualStrategyNumber : BTGreaterEqualStrategyNumber;
	else if (strcmp(opname, ">") == 0)
		strategy = id_left ? BTGreaterStrategyNumber : BTLessStrategyNumber;
	else if (strcmp(opname, ">=") == 0)
		strategy = id_left ? BTGreaterEqualStrategyNumber : BTLessEqualStrategyNumber;
	else
		PG_RETURN_POINTER(NULL);
	/* non-strict bounds only: supersets even where the bounds clamp */
	if (strategy == BTLessStrategyNumber)
		strategy = BTLessEqualStrategyNumber;
	if (strategy == BTGreaterStrategyNumber)
		strategy = BTGreaterEqualStrategyNumber;
	use_min = strategy == BTGreaterEqualStrategyNumber;

	/* the bounds of the 64-bit type come from idgen_min_at/max_at */
	idtype = exprType(idarg);
	boundfn = extension_function(clause->opfuncid,
								 use_min ? "idgen_min_at" : "idgen_max_at");
	if (!OidIsValid(boundfn) || get_func_rettype(boundfn) != idtype)
		boundfn = extension_function(clause->opfuncid,
									 use_min ? "idgen128_min_at" : "idgen128_max_at");
	if (!OidIsValid(boundfn) || get_func_rettype(boundfn) != idtype)
		PG_RETURN_POINTER(NULL);
	idop = get_opfamily_member(req->opfamily, idtype, idtype, strategy);
	if (!OidIsValid(idop))
		PG_RETURN_POINTER(NULL);

	bound = (Expr *) makeFuncExpr(boundfn, idtype, list_make1(copyObject(tsarg)),
								  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	req->lossy = true;
	PG_RETURN_POINTER(list_make1(make_opclause(idop, BOOLOID, false,
											   (Expr *) copyObject(idarg), bound,
											   InvalidOid, InvalidOid)));
}

static void
uuid7_bound(pg_uuid_t *out, int64 unix_ms, bool high)
{
	IdgenUuid7Fields f;

	if (unix_ms < 0)
		unix_ms = 0;
	if (unix_ms > IDGEN_UUID7_MAX_UNIX_MS)
		unix_ms = IDGEN_UUID7_MAX_UNIX_MS;
	f.unix_ms = unix_ms;
	f.node = high ? (UINT32_C(1) << IDGEN_UUID7_NODE_BITS) - 1 : 0;
	f.epoch = high ? 0xF : 0;
	f.random = high ? (UINT64CONST(1) << IDGEN_UUID7_RANDOM_BITS) - 1 : 0;
	idgen_uuid7_compose(&f, out->data);
}

static int64
ts_unix_ms_clamped(TimestampTz ts)
{
	if (TIMESTAMP_IS_NOBEGIN(ts))
		return -1;
	if (TIMESTAMP_IS_NOEND(ts))
		return IDGEN_UUID7_MAX_UNIX_MS + 1;
	return idgen_timestamptz_to_unix_ms(ts);
}

/* idgen128_min_at(ts): the lowest UUIDv7 of ts's millisecond */
PG_FUNCTION_INFO_V1(idgen128_min_at);
Datum
idgen128_min_at(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *out = palloc(sizeof(pg_uuid_t));

	uuid7_bound(out, ts_unix_ms_clamped(PG_GETARG_TIMESTAMPTZ(0)), false);
	PG_RETURN_UUID_P(out);
}

/* idgen128_max_at(ts): the highest UUIDv7 of ts's millisecond */
PG_FUNCTION_INFO_V1(idgen128_max_at);
Datum
idgen128_max_at(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *out = palloc(sizeof(pg_uuid_t));

	uuid7_bound(out, ts_unix_ms_clamped(PG_GETARG_TIMESTAMPTZ(0)), true);
	PG_RETURN_UUID_P(out);
}
