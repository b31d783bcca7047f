/*
 * clockshim.c - an LD_PRELOAD library that shifts the wall clock of every
 * process of a test server, background workers included.
 *
 * libfaketime marks a process forked from inside its wrapped select() as
 * "do not fake", and the PostgreSQL 15 postmaster forks background workers
 * from its signal handlers while it sits in select(): those workers keep
 * the real clock.  This shim has no such state.  It shifts CLOCK_REALTIME
 * (and its coarse variant), gettimeofday() and time() by an offset in
 * milliseconds that a test writes into the file IDGEN_CLOCK_SHIM_FILE
 * names, and leaves CLOCK_MONOTONIC and CLOCK_BOOTTIME alone, as a real
 * step of the wall clock would.
 *
 * The file is mapped once and read at every call, so a new offset reaches
 * every process at once.  It holds the offset twice on one line; a reader
 * that catches a rewrite half done sees two different numbers and reads
 * again.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SHIM_FILE_SIZE 64

static int	(*real_clock_gettime) (clockid_t, struct timespec *);
static int	(*real_gettimeofday) (struct timeval *, void *);
static const char *shim_map;

__attribute__((constructor))
static void
shim_init(void)
{
	const char *path = getenv("IDGEN_CLOCK_SHIM_FILE");
	int			fd;

	real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
	real_gettimeofday = dlsym(RTLD_NEXT, "gettimeofday");
	if (path == NULL || (fd = open(path, O_RDONLY)) < 0)
		return;
	shim_map = mmap(NULL, SHIM_FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (shim_map == MAP_FAILED)
		shim_map = NULL;
	close(fd);
}

static int64_t
shim_offset_ms(void)
{
	int			attempt;

	if (shim_map == NULL)
		return 0;
	for (attempt = 0; attempt < 1000; attempt++)
	{
		char		copy[SHIM_FILE_SIZE + 1];
		char	   *end;
		long long	a;
		long long	b;

		memcpy(copy, shim_map, SHIM_FILE_SIZE);
		copy[SHIM_FILE_SIZE] = '\0';
		a = strtoll(copy, &end, 10);
		b = strtoll(end, NULL, 10);
		if (a == b)
			return (int64_t) a;
	}
	return 0;
}

static int
shifted(clockid_t id)
{
	return id == CLOCK_REALTIME
#ifdef CLOCK_REALTIME_COARSE
		|| id == CLOCK_REALTIME_COARSE
#endif
		;
}

static void
shift_timespec(struct timespec *ts, int64_t offset_ms)
{
	int64_t		ns = (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec +
		offset_ms * 1000000;

	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

int
clock_gettime(clockid_t id, struct timespec *ts)
{
	int			rc;

	if (real_clock_gettime == NULL)
		real_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
	rc = real_clock_gettime(id, ts);
	if (rc == 0 && shifted(id))
		shift_timespec(ts, shim_offset_ms());
	return rc;
}

int
gettimeofday(struct timeval *tv, void *tz)
{
	int			rc;

	if (real_gettimeofday == NULL)
		real_gettimeofday = dlsym(RTLD_NEXT, "gettimeofday");
	rc = real_gettimeofday(tv, tz);
	if (rc == 0)
	{
		int64_t		us = (int64_t) tv->tv_sec * 1000000 + tv->tv_usec +
			shim_offset_ms() * 1000;

		tv->tv_sec = us / 1000000;
		tv->tv_usec = us % 1000000;
	}
	return rc;
}

time_t
time(time_t *out)
{
	struct timespec ts;
	time_t		now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec;
	if (out != NULL)
		*out = now;
	return now;
}
