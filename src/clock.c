/*
 * clock.c - reading the wall clock for issuing, and its pacing
 *
 * See clock.h for the shared part and its locking; the pacing decision
 * itself is pure (clockpace.h).
 */
#include "postgres.h"

#include <time.h>

#include "clock.h"
#include "clockpace.h"

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
