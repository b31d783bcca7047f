/*
 * type_timecmp.c - comparing IDs with timestamps, so "id >= now() - interval
 * '1 day'" is answered from the ID's btree index and prunes partitions
 *
 * An ID compares with a timestamp by millisecond: the ID's millisecond
 * against the millisecond that contains the timestamp.  (An ID's millisecond
 * here is idgen_epochs_compare_ms(): for the few values no node can issue,
 * just below a later layout epoch's first ID, it is the millisecond before
 * that epoch starts, so that the millisecond never decreases as IDs grow.)
 * There is no cross-type equality on purpose: two timestamps within one
 * millisecond would both "equal" the same ID.
 *
 * Why the operators are not in the btree families: a family's cross-type
 * operators must order both types as one, with one comparison function;
 * here "id < ts" is false and "id <= ts" true for every ID of ts's
 * millisecond, so that function would have to call all of them equal to
 * ts, and btree's transitivity (a = b and b = c give a = c) would make
 * distinct IDs equal.  Partition pruning relies on exactly that rule when
 * it binary-searches bounds (it would drop partitions whose bounds lie
 * inside the millisecond), and so does a btree descent.
 *
 * Instead the support function below serves two planner requests.  For
 * an index scan it offers a lossy ID range (SupportRequestIndexCondition).
 * For partition pruning, which looks only at the operators of the key's
 * family, it replaces, on a partitioned table, each comparison by the ID
 * comparisons it is equal to (SupportRequestSimplify; since the millisecond
 * never decreases, a time range is one range of IDs), e.g.
 *
 *     id < ts  ->  id <= idgen.ids_before(ts)   (the highest earlier ID)
 *
 * Those are operators of the btree families, so pruning (and the indexes of
 * the partitions) use them as they are, and nothing needs rechecking.
 */
#include "base.h"

#include "access/stratnum.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "sql_epoch.h"
#include "core/uuid7.h"

/* the ID's millisecond minus the timestamp's, as -1, 0 or 1 */
static int
cmp_id_ts(int64 id, TimestampTz ts)
{
	int64		id_ms;
	int64		ts_ms;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		return 1;
	if (TIMESTAMP_IS_NOEND(ts))
		return -1;
	id_ms = idgen_epochs_compare_ms(idgen_epoch_list(), (uint64) id);
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
 * The bounds the comparisons are rewritten to (see the top of the file).
 * The 64-bit ones depend on the layout epochs, which a later epoch can
 * extend, so they are STABLE and evaluated when the executor starts; the
 * 128-bit ones are fixed by the UUIDv7 layout, IMMUTABLE.
 */

/*
 * The highest ID earlier than ts's millisecond, or (after) not later than
 * it; -1 when there is none.
 */
static int64
ids_last(TimestampTz ts, bool after)
{
	if (TIMESTAMP_IS_NOBEGIN(ts))
		return -1;
	if (TIMESTAMP_IS_NOEND(ts))
		return IDGEN_ID_MAX;
	return idgen_epochs_last_id_before(idgen_epoch_list(),
									   idgen_timestamptz_to_unix_ms(ts) + (after ? 1 : 0));
}

/* the next ID up: the lowest of the later ones, the largest ID if none is */
static int64
ids_first(TimestampTz ts, bool after)
{
	int64		last = ids_last(ts, after);

	return last < IDGEN_ID_MAX ? last + 1 : IDGEN_ID_MAX;
}

/*
 * For idgen128: the lowest UUIDv7 of ts's millisecond (after: of the next
 * one), which is idgen128_min_at() of it; past the last millisecond a
 * UUIDv7 can hold, the all-ones uuid, which sorts above every idgen128.
 */
static void
ids128_first(TimestampTz ts, bool after, pg_uuid_t *out)
{
	IdgenUuid7Fields f;

	if (TIMESTAMP_IS_NOEND(ts))
	{
		memset(out->data, 0xFF, UUID_LEN);
		return;
	}
	f.unix_ms = TIMESTAMP_IS_NOBEGIN(ts) ? 0 : idgen_timestamptz_to_unix_ms(ts) + (after ? 1 : 0);
	if (f.unix_ms > IDGEN_UUID7_MAX_UNIX_MS)
	{
		memset(out->data, 0xFF, UUID_LEN);
		return;
	}
	if (f.unix_ms < 0)
		f.unix_ms = 0;
	f.node = 0;
	f.epoch = 0;
	f.random = 0;
	idgen_uuid7_compose(&f, out->data);
}

/* idgen.ids_before(ts): id < ts is id <= this (and id >= ts is id > this) */
PG_FUNCTION_INFO_V1(idgen_ids_before);
Datum
idgen_ids_before(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(ids_last(PG_GETARG_TIMESTAMPTZ(0), false));
}

/* idgen.ids_through(ts): id <= ts is id <= this (and id > ts is id > this) */
PG_FUNCTION_INFO_V1(idgen_ids_through);
Datum
idgen_ids_through(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(ids_last(PG_GETARG_TIMESTAMPTZ(0), true));
}

/* idgen.ids_from(ts): the lowest ID of ts's millisecond or later */
PG_FUNCTION_INFO_V1(idgen_ids_from);
Datum
idgen_ids_from(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(ids_first(PG_GETARG_TIMESTAMPTZ(0), false));
}

/* idgen.ids_after(ts): the lowest ID later than ts's millisecond */
PG_FUNCTION_INFO_V1(idgen_ids_after);
Datum
idgen_ids_after(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(ids_first(PG_GETARG_TIMESTAMPTZ(0), true));
}

PG_FUNCTION_INFO_V1(idgen_ids128_from);
Datum
idgen_ids128_from(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *out = palloc(sizeof(pg_uuid_t));

	ids128_first(PG_GETARG_TIMESTAMPTZ(0), false, out);
	PG_RETURN_UUID_P(out);
}

PG_FUNCTION_INFO_V1(idgen_ids128_after);
Datum
idgen_ids128_after(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *out = palloc(sizeof(pg_uuid_t));

	ids128_first(PG_GETARG_TIMESTAMPTZ(0), true, out);
	PG_RETURN_UUID_P(out);
}

/* "id <opname> bound(ts)", with bound a function of the idgen schema */
static Expr *
bound_clause(const char *extschema, const char *opname, Node *idarg,
			 const char *boundname, Oid boundtype, Node *tsarg, bool after)
{
	Oid			argtype = TIMESTAMPTZOID;
	Oid			boundfn;
	Oid			opno;
	Expr	   *bound;
	OpExpr	   *clause;

	boundfn = LookupFuncName(list_make2(makeString("idgen"), makeString(pstrdup(boundname))),
							 1, &argtype, true);
	opno = OpernameGetOprid(list_make2(makeString(pstrdup(extschema)), makeString(pstrdup(opname))),
							exprType(idarg), boundtype);
	if (!OidIsValid(boundfn) || !OidIsValid(opno) || get_func_rettype(boundfn) != boundtype)
		return NULL;
	if (boundtype == UUIDOID && IsA(tsarg, Const))
	{
		/* fixed by the UUIDv7 layout: compute it now, so plans prune at once */
		pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

		ids128_first(DatumGetTimestampTz(((Const *) tsarg)->constvalue), after, u);
		bound = (Expr *) makeConst(UUIDOID, -1, InvalidOid, UUID_LEN,
								   UUIDPGetDatum(u), false, false);
	}
	else
		bound = (Expr *) makeFuncExpr(boundfn, boundtype, list_make1(copyObject(tsarg)),
									  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	clause = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) copyObject(idarg),
									  bound, InvalidOid, InvalidOid);
	clause->opfuncid = get_opcode(opno);
	return (Expr *) clause;
}

/*
 * Is this ID argument a column of a partitioned table of the query being
 * planned?  Only there does the rewrite pay: elsewhere the operator stays,
 * as it was, with the index support below, so that a partial index whose
 * predicate is written as a time comparison still matches the same
 * comparison in a query (the predicate itself is never rewritten).
 */
static bool
on_partitioned_table(PlannerInfo *root, Node *idarg)
{
	Var		   *var;
	Index		up;
	RangeTblEntry *rte;

	while (IsA(idarg, RelabelType))
		idarg = (Node *) ((RelabelType *) idarg)->arg;
	if (!IsA(idarg, Var))
		return false;
	var = (Var *) idarg;
	for (up = 0; up < var->varlevelsup && root != NULL; up++)
		root = root->parent_root;
	if (root == NULL || root->parse == NULL ||
		var->varno < 1 || var->varno > list_length(root->parse->rtable))
		return false;
	rte = rt_fetch(var->varno, root->parse->rtable);
	return rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_PARTITIONED_TABLE;
}

/*
 * The rewrite.  With the ID on the left, and "after" for > and <= (whose
 * split lies after ts's millisecond rather than before it):
 *
 *   idgen     id >= ts  ->  id >= idgen.ids_from(ts) AND id > idgen.ids_before(ts)
 *             id >  ts  ->  id >= idgen.ids_after(ts) AND id > idgen.ids_through(ts)
 *             id <  ts  ->  id <= idgen.ids_before(ts)
 *             id <= ts  ->  id <= idgen.ids_through(ts)
 *   idgen128  id >= ts  ->  id >= idgen.ids128_from(ts)
 *             id >  ts  ->  id >= idgen.ids128_after(ts)
 *             id <  ts  ->  id <  idgen.ids128_from(ts)
 *             id <= ts  ->  id <  idgen.ids128_after(ts)
 *
 * Each is equal to the comparison it replaces.  For idgen, ">= ids_from"
 * alone is what lets a partition that ends at idgen_min_at(ts) be pruned
 * (from "> ids_before" PostgreSQL cannot tell that no integer lies between
 * the two), but when no ID is that late ids_from is only the largest ID,
 * not above it, and "> ids_before" (then the largest ID) keeps the answer
 * exact.  For idgen128 the all-ones uuid serves as "above every ID".
 *
 * Only while a query is planned (root set), and only for a column of a
 * partitioned table: an expression planned on its own (a generated column,
 * an index expression, a CHECK constraint, a default) keeps its IMMUTABLE
 * operator, and so do comparisons on other tables.  Returns NULL to leave
 * the call as it is, also when the bound functions are not installed (a
 * new library before ALTER EXTENSION UPDATE).
 */
static Node *
simplify_time_comparison(SupportRequestSimplify *req)
{
	FuncExpr   *call = req->fcall;
	char	   *fname;
	size_t		len;
	bool		id_left;
	char		rel[3];
	Node	   *idarg;
	Node	   *tsarg;
	bool		wide;
	bool		after;
	bool		upper;
	char	   *extschema;
	Expr	   *first;
	Expr	   *second;

	if (req->root == NULL || list_length(call->args) != 2)
		return NULL;
	fname = get_func_name(call->funcid);
	if (fname == NULL)
		return NULL;
	len = strlen(fname);
	/* ts_<rel>_idgen[128] or idgen[128]_<rel>_ts */
	if (strncmp(fname, "ts_", 3) == 0 && len >= 5)
	{
		id_left = false;
		memcpy(rel, fname + 3, 2);
	}
	else if (len >= 6 && strcmp(fname + len - 3, "_ts") == 0)
	{
		id_left = true;
		memcpy(rel, fname + len - 5, 2);
	}
	else
		return NULL;
	rel[2] = '\0';
	idarg = id_left ? linitial(call->args) : lsecond(call->args);
	tsarg = id_left ? lsecond(call->args) : linitial(call->args);
	if (exprType(tsarg) != TIMESTAMPTZOID || !on_partitioned_table(req->root, idarg))
		return NULL;

	/* read with the ID on the left: ts < id is id > ts, and so on */
	if (!id_left)
		rel[0] = rel[0] == 'l' ? 'g' : rel[0] == 'g' ? 'l' : rel[0];
	if (strcmp(rel, "ge") != 0 && strcmp(rel, "gt") != 0 &&
		strcmp(rel, "lt") != 0 && strcmp(rel, "le") != 0)
		return NULL;
	upper = rel[0] == 'g';
	after = strcmp(rel, "gt") == 0 || strcmp(rel, "le") == 0;

	wide = strstr(fname, "idgen128") != NULL;
	extschema = get_namespace_name(get_func_namespace(call->funcid));
	if (extschema == NULL)
		return NULL;
	if (wide)
		return (Node *) bound_clause(extschema, upper ? ">=" : "<", idarg,
									 after ? "ids128_after" : "ids128_from", UUIDOID, tsarg, after);
	if (!upper)
		return (Node *) bound_clause(extschema, "<=", idarg,
									 after ? "ids_through" : "ids_before", INT8OID, tsarg, after);
	first = bound_clause(extschema, ">=", idarg, after ? "ids_after" : "ids_from", INT8OID, tsarg, after);
	second = bound_clause(extschema, ">", idarg, after ? "ids_through" : "ids_before", INT8OID, tsarg, after);
	if (first == NULL || second == NULL)
		return NULL;
	return (Node *) make_andclause(list_make2(first, second));
}

/*
 * Index support, where the rewrite above does not happen.  The planner
 * asks this support function, and it answers with plain ID comparisons
 * against the bounds of the timestamp's millisecond, the way a LIKE prefix
 * becomes a range:
 *
 *     id <  ts, id <= ts   ->  id <= idgen_max_at(ts)
 *     id >  ts, id >= ts   ->  id >= idgen_min_at(ts)
 *
 * (id <= ts of an idgen: id <= idgen.ids_through(ts), see below)
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
	bool		through;
	Oid			idtype;
	Oid			boundtype;
	Oid			boundfn;
	Oid			idop;
	Expr	   *bound;

	if (IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify_time_comparison((SupportRequestSimplify *) rawreq));
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
	through = strategy == BTLessEqualStrategyNumber;
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

	boundtype = idtype;

	/*
	 * id <= ts for idgen: idgen_max_at(ts) falls short for the IDs no node
	 * issues just below a later epoch's first ID, which count as the last
	 * millisecond before that epoch (idgen_epochs_compare_ms); the exact
	 * bound idgen.ids_through(ts) covers them, where it is installed.
	 */
	if (through && get_func_rettype(boundfn) != UUIDOID)
	{
		Oid			argtype = TIMESTAMPTZOID;
		Oid			exact = LookupFuncName(list_make2(makeString("idgen"), makeString("ids_through")),
										   1, &argtype, true);
		Oid			exactop = get_opfamily_member(req->opfamily, idtype, INT8OID,
												  BTLessEqualStrategyNumber);

		if (OidIsValid(exact) && OidIsValid(exactop))
		{
			boundfn = exact;
			boundtype = INT8OID;
			idop = exactop;
		}
	}

	bound = (Expr *) makeFuncExpr(boundfn, boundtype, list_make1(copyObject(tsarg)),
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
