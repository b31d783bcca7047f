/*
 * sql_status.c - idgen_status(): what this node is doing and why
 */
#include "base.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "nodestate.h"
#include "settings.h"

/*
 * columns of the 0.6 signature; each older signature is a prefix of it:
 * 0.1 has the first 18, 0.2 to 0.4 the first 25, 0.5 the first 27
 */
#define IDGEN_STATUS_COLS 29
#define IDGEN_STATUS_COLS_V05 27
#define IDGEN_STATUS_COLS_V02 25
#define IDGEN_STATUS_COLS_V01 18

/* idgen_status(): one row describing this node's generator */
PG_FUNCTION_INFO_V1(idgen_status);
Datum
idgen_status(PG_FUNCTION_ARGS)
{
	IdgenStatusSnapshot snap;
	TupleDesc	tupdesc;
	Datum		values[IDGEN_STATUS_COLS];
	bool		nulls[IDGEN_STATUS_COLS];
	int			i = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "idgen_status must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != IDGEN_STATUS_COLS &&
		tupdesc->natts != IDGEN_STATUS_COLS_V05 &&
		tupdesc->natts != IDGEN_STATUS_COLS_V02 &&
		tupdesc->natts != IDGEN_STATUS_COLS_V01)
		elog(ERROR, "idgen_status returns %d columns, expected %d",
			 tupdesc->natts, IDGEN_STATUS_COLS);

	idgen_status_snapshot(&snap);
	memset(nulls, 0, sizeof(nulls));

	values[i++] = CStringGetTextDatum(idgen_state_name(snap.state));
	if (snap.reason[0])
		values[i++] = CStringGetTextDatum(snap.reason);
	else
		nulls[i++] = true;
	values[i++] = Int32GetDatum(snap.region);
	if (snap.first_worker >= 0)
		values[i++] = Int32GetDatum(snap.first_worker);
	else
		nulls[i++] = true;
	values[i++] = Int32GetDatum(snap.worker_count);
	if (snap.generation > 0)
	{
		values[i++] = Int64GetDatum(snap.generation);
		values[i++] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(snap.lease_until_unix_ms));
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	if (snap.logical_unix_ms >= 0)
	{
		values[i++] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(snap.logical_unix_ms));
		values[i + 1] = Int64GetDatum(snap.logical_unix_ms - snap.wall_unix_ms);
	}
	else
	{
		nulls[i++] = true;
		nulls[i + 1] = true;
	}
	values[i++] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(snap.wall_unix_ms));
	i++;						/* drift_ms, filled above */
	values[i++] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(snap.horizon_unix_ms));
	values[i++] = Int64GetDatum((int64) snap.ids_issued);
	values[i++] = Int64GetDatum((int64) snap.batches);
	values[i++] = Int64GetDatum((int64) snap.seq_exhaustions);
	values[i++] = Int64GetDatum((int64) snap.clock_rollbacks);
	values[i++] = Int64GetDatum((int64) snap.clock_waits);
	values[i++] = Int64GetDatum((int64) snap.clock_wait_ms);
	values[i++] = Int64GetDatum((int64) snap.clock_refusals);
	if (snap.owner[0])
		values[i++] = CStringGetTextDatum(snap.owner);
	else
		nulls[i++] = true;
	if (snap.hw_unix_ms >= 0)
		values[i++] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(snap.hw_unix_ms));
	else
		nulls[i++] = true;
	values[i++] = Int64GetDatum((int64) snap.lease_renewals);
	values[i++] = Int64GetDatum((int64) snap.lease_failures);
	values[i++] = Int64GetDatum((int64) snap.fencing_events);
	values[i++] = Int64GetDatum((int64) snap.clock_jumps_forward);
	values[i++] = Int64GetDatum((int64) snap.clock_steps_back);
	/* where the node leases, never who it connects as */
	values[i++] = CStringGetTextDatum(registry_display());
	if (snap.have_clock_skew)
		values[i++] = Int64GetDatum(snap.clock_skew_ms);
	else
		nulls[i++] = true;
	if (snap.registry_incarnation[0])
		values[i++] = CStringGetTextDatum(snap.registry_incarnation);
	else
		nulls[i++] = true;
	if (snap.last_answer_unix_ms > 0)
		values[i++] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(snap.last_answer_unix_ms));
	else
		nulls[i++] = true;
	Assert(i == IDGEN_STATUS_COLS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
