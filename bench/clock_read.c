/*
 * clock_read.c - what one wall-clock read costs, in ns
 *
 * idgen reads the wall clock once per ID.  idgen 0.4 extrapolated
 * CLOCK_REALTIME from the CPU's time-stamp counter (rdtsc, a compare with
 * the end of a 50 ms window, a 32.32 fixed-point multiply); 0.5 calls
 * clock_gettime(CLOCK_REALTIME), which the vDSO answers in user space.
 * This program times both the way the generator uses them (nanoseconds
 * turned into milliseconds), plus rdtsc alone and CLOCK_MONOTONIC for
 * reference.  The extrapolation here is only its hot path, calibrated once
 * over 20 ms: enough to time it, not a clock to use.  Each variant runs
 * READS reads (default 20 M) in a loop, timed with CLOCK_MONOTONIC around
 * the loop, and prints ns per read.
 *
 * The last three lines price what every ID needs besides the clock: one
 * atomic read-modify-write of the shared tick word, which is what makes the
 * IDs of concurrent sessions unique and ordered as the calls were.  A
 * compare-and-swap loop (what the generator does), a fetch-and-add (the
 * cheapest such instruction), and the two shared steps together: the cost
 * below which no generator that reads a fresh clock and keeps that order
 * can go on this machine.
 *
 *   bench/clock_read.sh [runs]      (builds it, runs it, prints medians)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

static int64_t
read_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t
realtime_ms(void)
{
	return read_clock(CLOCK_REALTIME) / 1000000;
}

static int64_t
monotonic_ms(void)
{
	return read_clock(CLOCK_MONOTONIC) / 1000000;
}

#ifdef HAVE_TSC
/* the hot path of the TSC clock idgen had: one window, resynced when left */
static uint64_t base_tsc;
static int64_t base_ns;
static uint64_t mult;			/* ns per tick, 32.32 */
static uint64_t next_sync_tsc;

static void
tsc_sync(uint64_t tsc)
{
	base_tsc = tsc;
	base_ns = read_clock(CLOCK_REALTIME);
	next_sync_tsc = tsc + ((uint64_t) 50000000 << 32) / mult;
}

static int64_t
tsc_ms(void)
{
	uint64_t	tsc = __rdtsc();

	if (__builtin_expect(tsc >= base_tsc && tsc < next_sync_tsc, 1))
		return (base_ns + (int64_t) (((tsc - base_tsc) * mult) >> 32)) / 1000000;
	tsc_sync(tsc);
	return base_ns / 1000000;
}

static int64_t
rdtsc_only(void)
{
	return (int64_t) __rdtsc();
}

static void
tsc_calibrate(void)
{
	uint64_t	t0 = __rdtsc();
	int64_t		n0 = read_clock(CLOCK_REALTIME);
	struct timespec pause = {0, 20000000};
	uint64_t	t1;
	int64_t		n1;

	nanosleep(&pause, NULL);
	t1 = __rdtsc();
	n1 = read_clock(CLOCK_REALTIME);
	mult = ((uint64_t) (n1 - n0) << 32) / (t1 - t0);
	tsc_sync(t1);
}
#endif

/* the tick word, as the generator's one shared word */
static volatile uint64_t tick_word;

static int64_t
tick_cas(void)
{
	uint64_t	old = tick_word;

	while (!__atomic_compare_exchange_n(&tick_word, &old, old + 1, 0,
										__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	return (int64_t) old;
}

static int64_t
tick_xadd(void)
{
	return (int64_t) __atomic_fetch_add(&tick_word, 1, __ATOMIC_SEQ_CST);
}

static int64_t
clock_and_cas(void)
{
	return realtime_ms() + tick_cas();
}

static double
time_reads(int64_t (*f) (void), long reads)
{
	volatile int64_t sink;
	int64_t		sum = 0;
	int64_t		t0 = read_clock(CLOCK_MONOTONIC);
	long		i;

	for (i = 0; i < reads; i++)
		sum += f();
	sink = sum;
	(void) sink;
	return (double) (read_clock(CLOCK_MONOTONIC) - t0) / reads;
}

int
main(int argc, char **argv)
{
	long		reads = argc > 1 ? atol(argv[1]) : 20000000;

	if (reads <= 0)
	{
		fprintf(stderr, "usage: %s [reads]\n", argv[0]);
		return 2;
	}
	printf("clock_gettime(CLOCK_REALTIME) ms  %6.2f ns\n", time_reads(realtime_ms, reads));
	printf("clock_gettime(CLOCK_MONOTONIC) ms %6.2f ns\n", time_reads(monotonic_ms, reads));
#ifdef HAVE_TSC
	tsc_calibrate();
	printf("TSC extrapolation ms              %6.2f ns\n", time_reads(tsc_ms, reads));
	printf("rdtsc alone                       %6.2f ns\n", time_reads(rdtsc_only, reads));
#endif
	printf("compare-and-swap of the tick word %6.2f ns\n", time_reads(tick_cas, reads));
	printf("fetch-and-add of the tick word    %6.2f ns\n", time_reads(tick_xadd, reads));
	printf("REALTIME ms + compare-and-swap    %6.2f ns\n", time_reads(clock_and_cas, reads));
	return 0;
}
