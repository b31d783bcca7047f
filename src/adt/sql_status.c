/*
 * sql_status.c - idgen_status(): what this node is doing and why, and the
 * snapshot of the shared state it and idgen.stats read
 */
#include "base.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "clock.h"
#include "settings.h"
#include "sql_status.h"

/*
 * columns of the 0.6 signature; each older signature is a prefix of it:
 * 0.1 has the first 18, 0.2 to 0.4 the first 25, 0.5 the first 27
 */
#define IDGEN_STATUS_COLS 29
#define IDGEN_STATUS_COLS_V05 27
#define IDGEN_STATUS_COLS_V02 25
#define IDGEN_STATUS_COLS_V01 18

/*
 * The state shown is the configuration's, but for two things only a reader
 * can see: a standby's recovery, and a logical clock that ran further ahead
 * of the wall clock than idgen.max_drift_ms allows.
 */
void
idgen_status_snapshot(IdgenStatusSnapshot *snap)
{
	IdgenShared *sh;
	IdgenConfig cfg;
	uint32		seq;
	uint64		last;
	int			i;

	idgen_require_loaded();
	sh = idgen_shared;
	idgen_read_config(&cfg, &seq);
	LWLockAcquire(sh->lock, LW_SHARED);
	strlcpy(snap->reason, cfg.state == IDGEN_STATE_DISABLED ?
			sh->disabled_reason : sh->reason, sizeof(snap->reason));
	strlcpy(snap->owner, sh->owner, sizeof(snap->owner));
	snap->have_clock_skew = sh->have_clock_skew;
	snap->clock_skew_ms = sh->clock_skew_ms;
	strlcpy(snap->registry_incarnation, sh->registry_incarnation,
			sizeof(snap->registry_incarnation));
	snap->last_answer_unix_ms = sh->last_answer_unix_ms;
	LWLockRelease(sh->lock);

	last = pg_atomic_read_u64(&sh->ticks[cfg.epoch_version].value);
	snap->wall_unix_ms = idgen_wall_unix_ms();
	snap->state = cfg.state;
	if (RecoveryInProgress())
		snap->state = IDGEN_STATE_RECOVERY;
	else if (idgen_clock_runs_ahead(&cfg, last, snap->wall_unix_ms))
		snap->state = IDGEN_STATE_CLOCK_BEHIND;
	/* a wait for another holder's mark: say whose, until when, and why */
	if (snap->state == IDGEN_STATE_CLOCK_BEHIND)
	{
		int64		logical = (int64) (last >> cfg.counter_bits) + cfg.origin_unix_ms;
		int64		mark = idgen_foreign_mark_wait();

		if (mark >= 0)
		{
			char		until[MAXDATELEN + 1];

			strlcpy(until, timestamptz_to_str(idgen_unix_ms_to_timestamptz(mark)),
					sizeof(until));
			snprintf(snap->reason, sizeof(snap->reason),
					 "waiting %lld s for the clock to pass %s, the starting mark of workers %d-%d: an earlier holder of the block (fenced, or ended without a clean release) may have issued IDs up to then",
					 (long long) ((logical - snap->wall_unix_ms + 999) / 1000), until,
					 cfg.first_worker, cfg.first_worker + cfg.worker_count - 1);
		}
	}
	snap->region = cfg.region;
	snap->first_worker = cfg.first_worker;
	snap->worker_count = cfg.worker_count;
	snap->generation = cfg.generation;
	snap->lease_until_unix_ms = cfg.lease_until_unix_ms;
	snap->hw_unix_ms = cfg.hw_ms >= 0 ? cfg.hw_ms + cfg.origin_unix_ms : -1;
	snap->lease_renewals = pg_atomic_read_u64(&sh->lease_renewals);
	snap->lease_failures = pg_atomic_read_u64(&sh->lease_failures);
	snap->fencing_events = pg_atomic_read_u64(&sh->fencing_events);
	snap->clock_jumps_forward = pg_atomic_read_u64(&sh->clock_jumps_forward);
	snap->clock_steps_back = pg_atomic_read_u64(&sh->clock_steps_back);
	snap->logical_unix_ms = last == 0 ? -1 :
		(int64) (last >> cfg.counter_bits) + cfg.origin_unix_ms;
	snap->horizon_unix_ms = cfg.horizon_ms + 1 + cfg.origin_unix_ms;
	snap->seq_exhaustions = pg_atomic_read_u64(&sh->seq_exhaustions);
	snap->clock_rollbacks = pg_atomic_read_u64(&sh->clock.clock_rollbacks);
	snap->clock_waits = pg_atomic_read_u64(&sh->clock_waits);
	snap->clock_wait_ms = pg_atomic_read_u64(&sh->clock_wait_ms);
	snap->clock_refusals = pg_atomic_read_u64(&sh->clock_refusals);
	snap->ids_issued64 = pg_atomic_read_u64(&sh->shared_slot.ids);
	snap->ids_issued128 = pg_atomic_read_u64(&sh->shared_slot.ids128);
	snap->batches = pg_atomic_read_u64(&sh->shared_slot.batches);
	for (i = 0; i < sh->nslots; i++)
	{
		snap->ids_issued64 += pg_atomic_read_u64(&sh->slots[i].ids);
		snap->ids_issued128 += pg_atomic_read_u64(&sh->slots[i].ids128);
		snap->batches += pg_atomic_read_u64(&sh->slots[i].batches);
	}
	snap->ids_issued = snap->ids_issued64 + snap->ids_issued128;
}

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
