/*
 * sql_generate.c - idgen_next(), idgen_next_batch() and the batch body
 *
 * The reservation itself is generate.c's; this is how SQL asks for it.
 * A keyed batch's run is reserved and regenerated in sql_keyed.c.
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "generate.h"
#include "sql_generate.h"
#include "nodestate.h"

/* idgen_next(): the next ID of this node */
PG_FUNCTION_INFO_V1(idgen_next);
Datum
idgen_next(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(idgen_generate_one());
}

/*
 * The set-returning body of every batch function: one reservation for the
 * whole batch, then the IDs one per call, as generate_series does, so a huge
 * batch streams instead of being built in memory first.  make_id turns the
 * i-th reserved tick into the Datum of the function's type; width says
 * which type's count the IDs go to.
 */
static Datum
batch_srf(FunctionCallInfo fcinfo, const IdgenBatch *given, IdgenWidth width,
		  Datum (*make_id) (const IdgenBatch *batch, uint64 i))
{
	FuncCallContext *funcctx;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	/*
	 * In FROM, the executor stores the rows in a tuplestore anyway and says
	 * it prefers to be handed one: filling it directly saves a function call
	 * per row.  In a select list, stream one row per call.
	 */
	if (rsinfo != NULL && IsA(rsinfo, ReturnSetInfo) &&
		(rsinfo->allowedModes & SFRM_Materialize_Preferred) &&
		(rsinfo->allowedModes & SFRM_Materialize) &&
		rsinfo->expectedDesc != NULL)
	{
		int32		count = given ? (int32) given->count : PG_GETARG_INT32(0);
		IdgenBatch	batch;
		MemoryContext rowcxt;
		MemoryContext oldcxt;
		bool		isnull = false;
		uint64		i;

		if (given == NULL)
			idgen_require_loaded();
		if (count < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("batch size must not be negative: %d", count)));
		InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
		if (count == 0)
			return (Datum) 0;
		if (given)
			batch = *given;
		else
			idgen_generate_batch((uint64) count, &batch, width);

		/* by-reference IDs are made in a context emptied now and then */
		rowcxt = AllocSetContextCreate(CurrentMemoryContext, "idgen batch rows",
									   ALLOCSET_SMALL_SIZES);
		oldcxt = MemoryContextSwitchTo(rowcxt);
		for (i = 0; i < (uint64) count; i++)
		{
			Datum		value = make_id(&batch, i);

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
			if ((i & 1023) == 1023)
				MemoryContextReset(rowcxt);
		}
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(rowcxt);
		return (Datum) 0;
	}

	if (SRF_IS_FIRSTCALL())
	{
		int32		count = given ? (int32) given->count : PG_GETARG_INT32(0);
		IdgenBatch *batch;

		/* even an empty batch says so when generation is impossible */
		if (given == NULL)
			idgen_require_loaded();
		if (count < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("batch size must not be negative: %d", count)));

		funcctx = SRF_FIRSTCALL_INIT();
		batch = MemoryContextAllocZero(funcctx->multi_call_memory_ctx,
									   sizeof(IdgenBatch));
		if (given)
			*batch = *given;
		else if (count > 0)
			idgen_generate_batch((uint64) count, batch, width);
		funcctx->user_fctx = batch;
		funcctx->max_calls = (uint64) count;
	}

	funcctx = SRF_PERCALL_SETUP();
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		Datum		id;

		/* SRF_RETURN_NEXT bumps call_cntr before it evaluates its argument */
		id = make_id((IdgenBatch *) funcctx->user_fctx, funcctx->call_cntr);
		SRF_RETURN_NEXT(funcctx, id);
	}
	SRF_RETURN_DONE(funcctx);
}

Datum
idgen_batch_srf(FunctionCallInfo fcinfo, IdgenWidth width,
				Datum (*make_id) (const IdgenBatch *batch, uint64 i))
{
	return batch_srf(fcinfo, NULL, width, make_id);
}

Datum
idgen_batch_srf_given(FunctionCallInfo fcinfo, const IdgenBatch *given,
					  Datum (*make_id) (const IdgenBatch *batch, uint64 i))
{
	return batch_srf(fcinfo, given, IDGEN_WIDTH_64, make_id);
}

static Datum
batch_id64(const IdgenBatch *batch, uint64 i)
{
	return Int64GetDatum(idgen_batch_id(batch, i));
}

/* idgen.batch_run_ids(run): a keyed batch's IDs again, from its stored run */
PG_FUNCTION_INFO_V1(idgen_batch_run_ids);
Datum
idgen_batch_run_ids(PG_FUNCTION_ARGS)
{
	IdgenBatch	batch;

	idgen_batch_from_args(fcinfo, &batch);
	return idgen_batch_srf_given(fcinfo, &batch, batch_id64);
}

/* idgen_next_batch(count): count IDs reserved in one step, ascending */
PG_FUNCTION_INFO_V1(idgen_next_batch);
Datum
idgen_next_batch(PG_FUNCTION_ARGS)
{
	return idgen_batch_srf(fcinfo, IDGEN_WIDTH_64, batch_id64);
}

/* the settings of this module (see _PG_init) */
int			idgen_request_retention_s = 86400;
int			idgen_request_max_per_role = 10000;

void
idgen_generate_sql_define_gucs(void)
{
	DefineCustomIntVariable("idgen.request_retention",
							"How long a request key returns the same batch of IDs.",
							NULL,
							&idgen_request_retention_s,
							86400, 1, 365 * 86400,
							PGC_SIGHUP, GUC_UNIT_S,
							NULL, NULL, NULL);
	/* superuser only: a role must not lift its own cap; ALTER ROLE sets one per role */
	DefineCustomIntVariable("idgen.request_max_per_role",
							"Live request keys one login role may keep at most.",
							"Past it a keyed batch with a new request key is refused until older keys expire.",
							&idgen_request_max_per_role,
							10000, 0, 100000000,
							PGC_SUSET, 0,
							NULL, NULL, NULL);
}
