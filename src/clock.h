/*
 * clock.h - the wall clock IDs are issued by
 *
 * One reading per ID: clock_gettime(CLOCK_REALTIME), paced (clockpace.h) so
 * that a step forward the monotonic clock does not confirm is held back,
 * plus the test offset (idgen.test_clock_offset*).  Every reading is also
 * compared with the highest one seen on the node, so a clock that steps
 * back is counted.
 *
 * The clock's shared part lives inside the node's shared memory
 * (nodestate.h), which sets it up with idgen_clock_shmem_init() and hands
 * it over with idgen_clock_attach(); this module knows nothing else of it.
 *
 * Locking protocol
 *   max_wall_ms      Atomic maximum of the wall clocks seen, raised about
 *                    once a millisecond by compare-and-swap; a reading more
 *                    than a millisecond below it is a rollback.
 *   clock_rollbacks  Atomic; the first backend to lower max_wall_ms counts.
 *   pace_offset_ms,  Atomics, read on every reading past the ceiling,
 *   pace_ceiling_ms  written by the background worker about once in 100 ms
 *                    (idgen_pace_publish) and by a generator about once in
 *                    20 ms (raising the ceiling).  pace_offset_ms is the
 *                    trusted wall - monotonic difference (an int64); a raw
 *                    reading at or below pace_ceiling_ms needs no check.
 */
#ifndef IDGEN_CLOCK_H
#define IDGEN_CLOCK_H

#include "postgres.h"

#include <time.h>

#include "port/atomics.h"

#include "core/clockms.h"

typedef struct IdgenClockShared
{
	/* written about once a millisecond */
	pg_atomic_uint64 max_wall_ms;
	pg_atomic_uint64 clock_rollbacks;
	char		pad[PG_CACHE_LINE_SIZE - 2 * sizeof(pg_atomic_uint64)];
	/* read on every reading, rarely written */
	pg_atomic_uint64 pace_offset_ms;
	pg_atomic_uint64 pace_ceiling_ms;
} IdgenClockShared;

/* NULL until the shared memory is attached (not preloaded: no pacing) */
extern IdgenClockShared *idgen_clock_shared;

/* the test offset, idgen.test_clock_offset* together */
extern int64 idgen_clock_offset_total_ms;

extern void idgen_clock_shmem_init(IdgenClockShared *cs);
extern void idgen_clock_attach(IdgenClockShared *cs);

/* the clock the pacing trusts: monotonic, and counting a suspend */
extern int64 idgen_pace_clock_ms(void);
/* CLOCK_MONOTONIC, for bounding waits */
extern int64 idgen_monotonic_ms(void);

extern int64 idgen_paced_wall(int64 wall);

/* what the background worker trusts of the wall clock (clockpace.h) */
extern int64 idgen_pace_trusted_offset(void);
extern void idgen_pace_publish(int64 trusted_offset_ms);

/* the system's wall clock as it is, without pacing or the test offset */
static inline int64
idgen_raw_wall_unix_ms(void)
{
	return idgen_clock_ms(CLOCK_REALTIME);
}

/*
 * The wall clock IDs are issued by, in Unix ms.  Inline: it is on the per-ID
 * path, and a reading at or below the pacing ceiling costs one atomic read.
 */
static inline int64
idgen_wall_unix_ms(void)
{
	int64		wall = idgen_raw_wall_unix_ms();

	if (likely(idgen_clock_shared != NULL) &&
		unlikely((uint64) wall > pg_atomic_read_u64(&idgen_clock_shared->pace_ceiling_ms)))
		wall = idgen_paced_wall(wall);
	return wall + idgen_clock_offset_total_ms;
}

/*
 * Keep max_wall_ms and count rollbacks.  seen was read before the clock, so
 * a reading below it means the wall clock really went back: whoever stored
 * seen read its clock before we read ours, and every backend reads the same
 * kernel clock, so even a millisecond below it is a step back.  The first
 * backend to lower the mark counts the rollback, once.
 */
static inline void
idgen_note_wall(uint64 seen, int64 now_unix_ms)
{
	IdgenClockShared *cs = idgen_clock_shared;
	uint64		now = (uint64) now_unix_ms;

	if (likely(now == seen))
		return;
	if (now > seen)
	{
		while (!pg_atomic_compare_exchange_u64(&cs->max_wall_ms, &seen, now))
		{
			if (seen >= now)
				break;
		}
		return;
	}
	if (pg_atomic_compare_exchange_u64(&cs->max_wall_ms, &seen, now))
		pg_atomic_fetch_add_u64(&cs->clock_rollbacks, 1);
}

/*
 * One reading of the wall clock for issuing, noted against the node's
 * highest.  Only with the shared memory attached.
 */
static inline int64
idgen_clock_read(void)
{
	uint64		seen = pg_atomic_read_u64(&idgen_clock_shared->max_wall_ms);
	int64		now;

	pg_read_barrier();
	now = idgen_wall_unix_ms();
	idgen_note_wall(seen, now);
	return now;
}

static inline uint64
idgen_clock_rollbacks(void)
{
	return pg_atomic_read_u64(&idgen_clock_shared->clock_rollbacks);
}

/* settings (GUCs) this module defines */
extern int	idgen_max_drift_ms;
extern int	idgen_max_clock_wait_ms;
extern int	idgen_clock_jump_confirm_ms;
extern int	idgen_test_clock_offset_ms;
extern int	idgen_test_clock_offset_days;
extern void idgen_clock_define_gucs(void);

#endif							/* IDGEN_CLOCK_H */
