/*
 * sql_keyed.c - what a keyed batch keeps: the run of ticks it reserved
 *
 * idgen_next_batch(count, request_key) (idgen.keyed_batch in
 * sql/idgen.sql) used to keep every ID it returned, up to 16 MB a batch.
 * A batch is a reserved run of ticks under one layout, so the run (its
 * first tick and the layout's fields; for idgen128 a random key from which
 * SipHash-2-4 makes each ID's 48-bit tail) says everything: a retry makes
 * the same IDs from it again (idgen.batch_run_ids, sql_generate.c, and
 * idgen.batch_run_ids128, type_idgen128.c), whatever the count.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "generate.h"
#include "sql_generate.h"
#include "nodestate.h"

/*
 * (first_tick, count, counter_bits, time_shift, node_bits[, origin_unix_ms,
 * epoch, tail_key]) as idgen.reserve_batch returned them.  Only the
 * extension writes idgen.batch_request, but a row restored from a dump is
 * checked all the same: a wrong field must make an error, never a crash.
 */
void
idgen_batch_from_args(FunctionCallInfo fcinfo, IdgenBatch *batch)
{
	int64		first = PG_GETARG_INT64(0);
	int32		count = PG_GETARG_INT32(1);
	int16		counter_bits = PG_GETARG_INT16(2);
	int16		time_shift = PG_GETARG_INT16(3);

	memset(batch, 0, sizeof(*batch));
	if (first < 0 || count < 0 || counter_bits < 0 || counter_bits > 62 ||
		time_shift < counter_bits || time_shift > 62 ||
		(count > 0 && (uint64) first > PG_UINT64_MAX - (uint64) count))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a stored keyed batch is not a run of ticks"),
				 errdetail("It has first_tick %lld, count %d, counter_bits %d and time_shift %d.",
						   (long long) first, count, counter_bits, time_shift)));
	batch->first_tick = (uint64) first;
	batch->count = (uint64) count;
	batch->counter_bits = counter_bits;
	batch->time_shift = time_shift;
	batch->node_bits = (uint64) PG_GETARG_INT64(4);
	if (PG_NARGS() >= 8)
	{
		bytea	   *key = PG_GETARG_BYTEA_PP(7);

		batch->origin_unix_ms = PG_GETARG_INT64(5);
		batch->epoch_version = PG_GETARG_INT32(6);
		if (VARSIZE_ANY_EXHDR(key) != sizeof(batch->tail_key))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("a stored keyed batch's tail key has %d bytes, not %d",
							(int) VARSIZE_ANY_EXHDR(key), (int) sizeof(batch->tail_key))));
		memcpy(batch->tail_key, VARDATA_ANY(key), sizeof(batch->tail_key));
		batch->tail_keyed = true;
	}
}

/*
 * idgen.reserve_batch(count, width): reserve count ticks as
 * idgen_next_batch(count) does, counted as IDs of that width, and return
 * the run instead of the IDs.
 */
PG_FUNCTION_INFO_V1(idgen_reserve_batch);
Datum
idgen_reserve_batch(PG_FUNCTION_ARGS)
{
	int32		count = PG_GETARG_INT32(0);
	int16		width = PG_GETARG_INT16(1);
	IdgenBatch	batch;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {false, false, false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (width != 64 && width != 128)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a batch is 64 or 128 bits wide, not %d", width)));
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch size must not be negative: %d", count)));
	/* even an empty batch says so when generation is impossible */
	idgen_require_loaded();
	memset(&batch, 0, sizeof(batch));
	if (count > 0)
		idgen_generate_batch((uint64) count, &batch,
							 width == 128 ? IDGEN_WIDTH_128 : IDGEN_WIDTH_64);
	values[0] = Int64GetDatum((int64) batch.first_tick);
	values[1] = Int16GetDatum((int16) batch.counter_bits);
	values[2] = Int16GetDatum((int16) batch.time_shift);
	values[3] = Int64GetDatum((int64) batch.node_bits);
	values[4] = Int64GetDatum(batch.origin_unix_ms);
	values[5] = Int32GetDatum(batch.epoch_version);
	if (width == 128)
	{
		bytea	   *key = palloc(VARHDRSZ + sizeof(batch.tail_key));

		SET_VARSIZE(key, VARHDRSZ + sizeof(batch.tail_key));
		if (!pg_strong_random(VARDATA(key), sizeof(batch.tail_key)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate random bytes for a keyed batch")));
		values[6] = PointerGetDatum(key);
	}
	else
		nulls[6] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
