/*
 * clock.c - reading the wall clock for issuing, and its pacing
 *
 * See clock.h for the shared part and its locking; the pacing decision
 * itself is pure (clockpace.h).
 */
#include "postgres.h"

#include <time.h>

#include "utils/guc.h"

#include "clock.h"
#include "core/clockpace.h"

IdgenClockShared *idgen_clock_shared = NULL;

/* monotonic, and counting a suspend, which the wall clock also sees pass */
#ifdef CLOCK_BOOTTIME
#define IDGEN_PACE_CLOCK CLOCK_BOOTTIME
#else
#define IDGEN_PACE_CLOCK CLOCK_MONOTONIC
#endif

void
idgen_clock_shmem_init(IdgenClockShared *cs)
{
	pg_atomic_init_u64(&cs->max_wall_ms, 0);
	pg_atomic_init_u64(&cs->clock_rollbacks, 0);
	/* the clock at start-up is trusted: nothing else is known */
	pg_atomic_init_u64(&cs->pace_offset_ms,
					   (uint64) (idgen_raw_wall_unix_ms() - idgen_pace_clock_ms()));
	pg_atomic_init_u64(&cs->pace_ceiling_ms, 0);
}

void
idgen_clock_attach(IdgenClockShared *cs)
{
	idgen_clock_shared = cs;
}

int64
idgen_pace_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(IDGEN_PACE_CLOCK, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64
idgen_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The wall clock is ahead of pace_ceiling_ms: see how far the monotonic
 * clock vouches for it (clockpace.h).  A reading it vouches for raises the
 * ceiling, so the next one needs no second clock read.
 *
 * The reading itself is clock_gettime(CLOCK_REALTIME), which the vDSO
 * answers in user space.  (An extrapolation from the TSC was 9 ns faster,
 * bench/clock_read.sh, but its rate came from samples that a preemption
 * could skew, leaving a backend's clock milliseconds off for its life.)
 * The test offset is added after the pacing, as a deliberate shift rather
 * than a jump.
 */
pg_noinline int64
idgen_paced_wall(int64 wall)
{
	IdgenClockShared *cs = idgen_clock_shared;
	int64		limit = idgen_pace_limit((int64) pg_atomic_read_u64(&cs->pace_offset_ms),
										 idgen_pace_clock_ms());
	uint64		ceiling;

	if (wall > limit)
		return limit;
	ceiling = pg_atomic_read_u64(&cs->pace_ceiling_ms);
	while (ceiling < (uint64) limit &&
		   !pg_atomic_compare_exchange_u64(&cs->pace_ceiling_ms, &ceiling, (uint64) limit))
		;
	return wall;
}

int64
idgen_pace_trusted_offset(void)
{
	return (int64) pg_atomic_read_u64(&idgen_clock_shared->pace_offset_ms);
}

void
idgen_pace_publish(int64 trusted_offset_ms)
{
	IdgenClockShared *cs = idgen_clock_shared;

	if ((int64) pg_atomic_read_u64(&cs->pace_offset_ms) == trusted_offset_ms)
		return;
	pg_atomic_write_u64(&cs->pace_offset_ms, (uint64) trusted_offset_ms);
	/* a lower offset must not leave a higher ceiling behind */
	pg_atomic_write_u64(&cs->pace_ceiling_ms, 0);
}

/* the settings of this module (see _PG_init) */
int			idgen_max_drift_ms = 1000;
int			idgen_max_clock_wait_ms = 200;
int			idgen_clock_jump_confirm_ms = 60000;
int			idgen_test_clock_offset_ms = 0;
int			idgen_test_clock_offset_days = 0;

int64		idgen_clock_offset_total_ms = 0;

/* the two test offsets add up to one number, read on the hot path */
static void
assign_offset_ms(int newval, void *extra)
{
	idgen_clock_offset_total_ms = (int64) newval +
		(int64) idgen_test_clock_offset_days * 86400000;
}

static void
assign_offset_days(int newval, void *extra)
{
	idgen_clock_offset_total_ms = (int64) idgen_test_clock_offset_ms +
		(int64) newval * 86400000;
}

void
idgen_clock_define_gucs(void)
{
	DefineCustomIntVariable("idgen.max_drift",
							"How far the logical clock may run ahead of the wall clock.",
							"Covers bursts and small clock rollbacks; beyond it generation waits or refuses.",
							&idgen_max_drift_ms,
							1000, 0, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.max_clock_wait",
							"How long one call may wait for the wall clock to catch up.",
							NULL,
							&idgen_max_clock_wait_ms,
							200, 0, 60 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.clock_jump_confirm",
							"How long a step of the wall clock ahead of the monotonic clock must last before IDs follow it.",
							"Until then IDs keep to the monotonic clock, so a clock that jumps ahead and comes back stamps no ID in the future; 0 follows every step at once.",
							&idgen_clock_jump_confirm_ms,
							60000, 0, 86400 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.test_clock_offset",
							"Shifts the clock idgen reads, for testing clock rollback.",
							"Superuser only; never set it in production.",
							&idgen_test_clock_offset_ms,
							0, -86400 * 1000, 86400 * 1000,
							PGC_SUSET, GUC_UNIT_MS | GUC_NOT_IN_SAMPLE,
							NULL, assign_offset_ms, NULL);
	DefineCustomIntVariable("idgen.test_clock_offset_days",
							"Shifts the clock idgen reads by whole days, for testing the horizon.",
							"Superuser only; never set it in production: IDs issued under it stay issued.",
							&idgen_test_clock_offset_days,
							0, -36500, 36500,
							PGC_SUSET, GUC_NOT_IN_SAMPLE,
							NULL, assign_offset_days, NULL);
}
