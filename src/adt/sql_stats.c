/*
 * sql_stats.c - idgen.stats: the generator's and the watchdog's counters
 *
 * Every counter lives in the node's shared struct (nodestate.h) and comes
 * from idgen_status_snapshot(), but for the collisions the watchdog found
 * and the largest drift seen.  A reset never writes the counters: their
 * per-backend slots may be written by their own backend only.  It stores
 * their values as a baseline that readers subtract, so idgen_status()
 * keeps counting from start-up.
 *
 * Locking
 *   max_drift_ms   Atomic maximum, raised by compare-and-swap, and only when
 *                  a reservation runs ahead of the wall clock (rare) or a
 *                  reader looks.  A reset writes 0 to it.
 *   stats_baseline Under the node's lock, changed together by a reset.  A
 *   stats_reset_at reader copies the baseline before it reads the counters,
 *                  so counters, which only grow, are never below it.
 *   started_at     Written once, when the shared memory is set up.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "nodestate.h"

/* columns of idgen.stats_counters() */
#define IDGEN_STATS_COLS 22

static void
idgen_stats_read(const IdgenStatusSnapshot *snap, uint64 *c)
{
	c[STAT_IDS64] = snap->ids_issued64;
	c[STAT_IDS128] = snap->ids_issued128;
	c[STAT_BATCHES] = snap->batches;
	c[STAT_SEQ_EXHAUSTIONS] = snap->seq_exhaustions;
	c[STAT_CLOCK_WAITS] = snap->clock_waits;
	c[STAT_CLOCK_WAIT_MS] = snap->clock_wait_ms;
	c[STAT_CLOCK_ROLLBACKS] = snap->clock_rollbacks;
	c[STAT_CLOCK_REFUSALS] = snap->clock_refusals;
	c[STAT_CLOCK_JUMPS_FORWARD] = snap->clock_jumps_forward;
	c[STAT_CLOCK_STEPS_BACK] = snap->clock_steps_back;
	c[STAT_LEASE_RENEWALS] = snap->lease_renewals;
	c[STAT_LEASE_FAILURES] = snap->lease_failures;
	c[STAT_FENCING_EVENTS] = snap->fencing_events;
	c[STAT_COLLISIONS] = pg_atomic_read_u64(&idgen_shared->collisions);
}

static inline Datum
counter_datum(uint64 value, uint64 base)
{
	/* counters only grow, but never show a negative count if one did not */
	return Int64GetDatum(value >= base ? (int64) (value - base) : 0);
}

/* idgen.stats_counters(): the row behind the idgen.stats view */
PG_FUNCTION_INFO_V1(idgen_stats_counters);
Datum
idgen_stats_counters(PG_FUNCTION_ARGS)
{
	IdgenStatusSnapshot snap;
	uint64		base[STAT_NCOUNTERS];
	uint64		c[STAT_NCOUNTERS];
	TimestampTz reset_at;
	TupleDesc	tupdesc;
	Datum		values[IDGEN_STATS_COLS];
	bool		nulls[IDGEN_STATS_COLS];
	char		sysid[32];
	int64		drift_ms;
	int			i = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "idgen.stats_counters must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != IDGEN_STATS_COLS)
		elog(ERROR, "idgen.stats_counters returns %d columns, expected %d",
			 tupdesc->natts, IDGEN_STATS_COLS);

	idgen_require_loaded();
	LWLockAcquire(idgen_shared->lock, LW_SHARED);
	memcpy(base, idgen_shared->stats_baseline, sizeof(base));
	reset_at = idgen_shared->stats_reset_at;
	LWLockRelease(idgen_shared->lock);
	idgen_status_snapshot(&snap);
	idgen_stats_read(&snap, c);

	/* ahead of the wall clock, or 0; a reader's look counts as seen too */
	drift_ms = snap.logical_unix_ms >= 0 ?
		Max(snap.logical_unix_ms - snap.wall_unix_ms, 0) : 0;
	idgen_stats_note_drift(drift_ms);

	memset(nulls, 0, sizeof(nulls));
	snprintf(sysid, sizeof(sysid), UINT64_FORMAT, GetSystemIdentifier());
	values[i++] = CStringGetTextDatum(sysid);
	values[i++] = Int32GetDatum(snap.region);
	if (snap.first_worker >= 0)
		values[i++] = Int32GetDatum(snap.first_worker);
	else
		nulls[i++] = true;
	values[i++] = CStringGetTextDatum(idgen_state_name(snap.state));
	values[i++] = counter_datum(c[STAT_IDS64], base[STAT_IDS64]);
	values[i++] = counter_datum(c[STAT_IDS128], base[STAT_IDS128]);
	values[i++] = counter_datum(c[STAT_BATCHES], base[STAT_BATCHES]);
	values[i++] = counter_datum(c[STAT_SEQ_EXHAUSTIONS], base[STAT_SEQ_EXHAUSTIONS]);
	values[i++] = counter_datum(c[STAT_CLOCK_WAITS], base[STAT_CLOCK_WAITS]);
	values[i++] = counter_datum(c[STAT_CLOCK_WAIT_MS], base[STAT_CLOCK_WAIT_MS]);
	values[i++] = Int64GetDatum(drift_ms);
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&idgen_shared->max_drift_ms));
	values[i++] = counter_datum(c[STAT_CLOCK_ROLLBACKS], base[STAT_CLOCK_ROLLBACKS]);
	values[i++] = counter_datum(c[STAT_CLOCK_REFUSALS], base[STAT_CLOCK_REFUSALS]);
	values[i++] = counter_datum(c[STAT_CLOCK_JUMPS_FORWARD], base[STAT_CLOCK_JUMPS_FORWARD]);
	values[i++] = counter_datum(c[STAT_CLOCK_STEPS_BACK], base[STAT_CLOCK_STEPS_BACK]);
	values[i++] = counter_datum(c[STAT_LEASE_RENEWALS], base[STAT_LEASE_RENEWALS]);
	values[i++] = counter_datum(c[STAT_LEASE_FAILURES], base[STAT_LEASE_FAILURES]);
	values[i++] = counter_datum(c[STAT_FENCING_EVENTS], base[STAT_FENCING_EVENTS]);
	values[i++] = counter_datum(c[STAT_COLLISIONS], base[STAT_COLLISIONS]);
	values[i++] = TimestampTzGetDatum(idgen_shared->started_at);
	if (reset_at != 0)
		values[i++] = TimestampTzGetDatum(reset_at);
	else
		nulls[i++] = true;
	Assert(i == IDGEN_STATS_COLS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * idgen.reset_stats(): idgen.stats counts from zero again.  The largest
 * drift starts again from what is seen from now on.
 */
PG_FUNCTION_INFO_V1(idgen_reset_stats);
Datum
idgen_reset_stats(PG_FUNCTION_ARGS)
{
	IdgenStatusSnapshot snap;
	uint64		c[STAT_NCOUNTERS];

	idgen_require_loaded();
	idgen_status_snapshot(&snap);
	idgen_stats_read(&snap, c);
	LWLockAcquire(idgen_shared->lock, LW_EXCLUSIVE);
	memcpy(idgen_shared->stats_baseline, c, sizeof(c));
	idgen_shared->stats_reset_at = GetCurrentTimestamp();
	LWLockRelease(idgen_shared->lock);
	pg_atomic_write_u64(&idgen_shared->max_drift_ms, 0);
	PG_RETURN_VOID();
}
