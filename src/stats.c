/*
 * stats.c - idgen.stats: the generator's and the watchdog's counters
 *
 * Most counters live beside the generator (generator.c) and come from
 * idgen_status_snapshot().  Kept here are the ones the fast path never
 * touches -- the largest drift seen, the collisions the watchdog found --
 * and what idgen.reset_stats() needs.  A reset never writes the generator's
 * counters: their per-backend slots may be written by their own backend
 * only.  It stores their values as a baseline that readers subtract, so
 * idgen_status() keeps counting from start-up.
 *
 * Locking protocol
 *   max_drift_ms   Atomic maximum, raised by compare-and-swap, and only when
 *                  a reservation runs ahead of the wall clock (rare) or a
 *                  reader looks.  A reset writes 0 to it.
 *   collisions     Atomic; the background worker adds to it.
 *   baseline,      Under lock, changed together by a reset.  A reader copies
 *   reset_at       the baseline before it reads the counters, so counters,
 *                  which only grow, are never below it.
 *   started_at     Written once, when the shared memory is set up.
 */
#include "idgen.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

/* the counters a reset starts again from zero */
typedef enum IdgenStatCounter
{
	STAT_IDS64 = 0,
	STAT_IDS128,
	STAT_BATCHES,
	STAT_SEQ_EXHAUSTIONS,
	STAT_CLOCK_WAITS,
	STAT_CLOCK_WAIT_MS,
	STAT_CLOCK_ROLLBACKS,
	STAT_CLOCK_REFUSALS,
	STAT_CLOCK_JUMPS_FORWARD,
	STAT_CLOCK_STEPS_BACK,
	STAT_LEASE_RENEWALS,
	STAT_LEASE_FAILURES,
	STAT_FENCING_EVENTS,
	STAT_COLLISIONS,
	STAT_NCOUNTERS
} IdgenStatCounter;

typedef struct IdgenStatsShared
{
	pg_atomic_uint64 max_drift_ms;
	pg_atomic_uint64 collisions;
	TimestampTz started_at;
	slock_t		lock;
	TimestampTz reset_at;		/* 0: never reset */
	uint64		baseline[STAT_NCOUNTERS];
} IdgenStatsShared;

/* columns of idgen.stats_counters() */
#define IDGEN_STATS_COLS 22

static IdgenStatsShared *stats_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
idgen_stats_request_hook(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(IdgenStatsShared)));
}

static void
idgen_stats_startup_hook(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	stats_shared = ShmemInitStruct("idgen stats", sizeof(IdgenStatsShared), &found);
	if (!found)
	{
		memset(stats_shared, 0, sizeof(IdgenStatsShared));
		pg_atomic_init_u64(&stats_shared->max_drift_ms, 0);
		pg_atomic_init_u64(&stats_shared->collisions, 0);
		SpinLockInit(&stats_shared->lock);
		/* set up again after a crash, like the generator's counters */
		stats_shared->started_at = GetCurrentTimestamp();
	}
	LWLockRelease(AddinShmemInitLock);
}

void
idgen_stats_shmem_request(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = idgen_stats_request_hook;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = idgen_stats_startup_hook;
}

/* The logical clock ran ahead_ms ahead of the wall clock: keep the maximum. */
void
idgen_stats_note_drift(int64 ahead_ms)
{
	uint64		seen;

	if (stats_shared == NULL || ahead_ms <= 0)
		return;
	seen = pg_atomic_read_u64(&stats_shared->max_drift_ms);
	while (seen < (uint64) ahead_ms &&
		   !pg_atomic_compare_exchange_u64(&stats_shared->max_drift_ms, &seen,
										   (uint64) ahead_ms))
		;
}

/* The watchdog found its workers held by someone else. */
void
idgen_stats_count_collision(void)
{
	if (stats_shared != NULL)
		pg_atomic_fetch_add_u64(&stats_shared->collisions, 1);
}

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
	c[STAT_COLLISIONS] = pg_atomic_read_u64(&stats_shared->collisions);
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
	SpinLockAcquire(&stats_shared->lock);
	memcpy(base, stats_shared->baseline, sizeof(base));
	reset_at = stats_shared->reset_at;
	SpinLockRelease(&stats_shared->lock);
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
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&stats_shared->max_drift_ms));
	values[i++] = counter_datum(c[STAT_CLOCK_ROLLBACKS], base[STAT_CLOCK_ROLLBACKS]);
	values[i++] = counter_datum(c[STAT_CLOCK_REFUSALS], base[STAT_CLOCK_REFUSALS]);
	values[i++] = counter_datum(c[STAT_CLOCK_JUMPS_FORWARD], base[STAT_CLOCK_JUMPS_FORWARD]);
	values[i++] = counter_datum(c[STAT_CLOCK_STEPS_BACK], base[STAT_CLOCK_STEPS_BACK]);
	values[i++] = counter_datum(c[STAT_LEASE_RENEWALS], base[STAT_LEASE_RENEWALS]);
	values[i++] = counter_datum(c[STAT_LEASE_FAILURES], base[STAT_LEASE_FAILURES]);
	values[i++] = counter_datum(c[STAT_FENCING_EVENTS], base[STAT_FENCING_EVENTS]);
	values[i++] = counter_datum(c[STAT_COLLISIONS], base[STAT_COLLISIONS]);
	values[i++] = TimestampTzGetDatum(stats_shared->started_at);
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
	SpinLockAcquire(&stats_shared->lock);
	memcpy(stats_shared->baseline, c, sizeof(c));
	stats_shared->reset_at = GetCurrentTimestamp();
	SpinLockRelease(&stats_shared->lock);
	pg_atomic_write_u64(&stats_shared->max_drift_ms, 0);
	PG_RETURN_VOID();
}
