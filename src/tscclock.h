/*
 * tscclock.h - a wall clock extrapolated from the CPU's time-stamp counter
 *
 * Pure C, no PostgreSQL headers.  Reading CLOCK_REALTIME costs about 25 ns
 * on a typical virtual machine, reading the TSC about 10; the generator
 * reads the clock once per ID, so the difference is a tenth of an ID's whole
 * cost.  The clock samples CLOCK_REALTIME every IDGEN_TSC_SYNC_NS and
 * extrapolates in between with the measured TSC rate.  Each sample that
 * disagrees with the extrapolation by more than IDGEN_TSC_STEP_NS is taken as
 * a step of the wall clock (NTP, an operator, a faked clock) and adopted as
 * it is, so a step is seen within one sync interval.  Accuracy between
 * samples is a few microseconds; IDs only need milliseconds, and their order
 * never depends on the clock (the logical clock sees to that).
 */
#ifndef IDGEN_TSCCLOCK_H
#define IDGEN_TSCCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define IDGEN_TSC_SYNC_NS INT64_C(50000000)		/* 50 ms */
#define IDGEN_TSC_STEP_NS INT64_C(1000000)		/* 1 ms */
#define IDGEN_TSC_CALIBRATE_NS INT64_C(2000000)	/* 2 ms */

typedef struct IdgenTscClock
{
	bool		calibrated;
	uint64_t	cal_tsc;		/* first sample of the calibration */
	int64_t		cal_ns;
	uint64_t	base_tsc;		/* last sample */
	int64_t		base_ns;
	uint64_t	mult;			/* ns per tick, 32.32 fixed point */
	uint64_t	next_sync_tsc;
} IdgenTscClock;

/*
 * The wall clock in ns at counter value tsc.  read_ns reads CLOCK_REALTIME;
 * it is called only to calibrate and to resync.
 */
extern int64_t idgen_tscclock_ns(IdgenTscClock *clock, uint64_t tsc,
								 int64_t (*read_ns) (void));

#endif							/* IDGEN_TSCCLOCK_H */
