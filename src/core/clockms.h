/*
 * clockms.h - a clock's reading as a number: the one conversion of the tree
 *
 * Pure C, no PostgreSQL headers.  It needs the POSIX clocks, which the
 * extension (_GNU_SOURCE) and the gateway (-std=gnu99) have; a pure C
 * module built as strict C99 for its tests does not include it.
 */
#ifndef IDGEN_CLOCKMS_H
#define IDGEN_CLOCKMS_H

#include <stdint.h>
#include <time.h>

/* clock's reading in whole milliseconds */
static inline int64_t
idgen_clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* clock's reading in seconds, for latencies finer than a millisecond */
static inline double
idgen_clock_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif							/* IDGEN_CLOCKMS_H */
