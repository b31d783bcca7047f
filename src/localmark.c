/*
 * localmark.c - the node's own durable high-water mark (localmark.h)
 *
 * A crash leaves the old note or the new one, never half of one: the
 * record is overwritten in place within one sector, or, the first time,
 * written beside the file and renamed into place (write_file()).
 */
#include "localmark.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/lwlock.h"

#include "clock.h"
#include "nodestate.h"
#include "core/tick.h"
#include "nodestate_writer.h"

/* shared memory holds mark + 1, so that zero, its initial value, is none */
static void
store_durable(int64 mark)
{
	pg_atomic_write_u64(&idgen_shared->local_mark, (uint64) (mark + 1));
}

int64
localmark_durable(void)
{
	return (int64) pg_atomic_read_u64(&idgen_shared->local_mark) - 1;
}

static int64
read_file(void)
{
	FILE	   *f = AllocateFile(IDGEN_LOCAL_HW_FILE, "r");
	long long	value = -1;

	if (f == NULL)
	{
		if (errno != ENOENT)
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("idgen: could not read \"%s\": %m", IDGEN_LOCAL_HW_FILE)));
		return -1;
	}
	if (fscanf(f, "%lld", &value) != 1 || value < 0)
	{
		ereport(WARNING,
				(errmsg("idgen: ignoring malformed \"%s\"", IDGEN_LOCAL_HW_FILE)));
		value = -1;
	}
	FreeFile(f);
	return (int64) value;
}

int64
localmark_load(void)
{
	int64		value;

	/* a generator may be writing: the worker of a lease still in force restarted */
	while (!LWLockConditionalAcquire(idgen_shared->mark_lock, LW_EXCLUSIVE))
	{
		pg_usleep(1000L);
		CHECK_FOR_INTERRUPTS();
	}
	value = Max(read_file(), localmark_durable());
	store_durable(value);
	LWLockRelease(idgen_shared->mark_lock);
	return value;
}

/* the rule is the core's, shared with the fast path's soft limit */
int64
localmark_reserve_ms(void)
{
	return idgen_mark_reserve_ms(idgen_max_drift_ms);
}

/* the newest time the generators have used or asked for */
static int64
demand_unix_ms(void)
{
	int64		now = idgen_wall_unix_ms();
	int64		logical = idgen_logical_unix_ms();
	int64		wanted = idgen_hw_wanted_unix_ms();

	return Max(Max(now, logical), wanted);
}

int64
localmark_target_unix_ms(void)
{
	return demand_unix_ms() + localmark_reserve_ms();
}

bool
localmark_low(void)
{
	return localmark_durable() - demand_unix_ms() < localmark_reserve_ms() / 2;
}

/*
 * The note is one fixed-size record, so that a raise can overwrite it in
 * place and sync its data alone (fdatasync: no journal commit, which on a
 * busy disk waits behind every other process's writes); the record lies
 * inside one sector, which is written whole or not at all, the premise
 * PostgreSQL's own pg_control rests on.  The first write of a node, or
 * over a note of another size (as releases before 0.9 wrote it), makes
 * the file whole beside it and renames it into place.
 */
#define MARK_RECORD_LEN 21		/* twenty digits and a newline */

static bool
write_whole(const char *record, int elevel)
{
	char		tmp[MAXPGPATH];
	FILE	   *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", IDGEN_LOCAL_HW_FILE);
	f = AllocateFile(tmp, PG_BINARY_W);
	if (f == NULL)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
		return false;
	}
	if (fwrite(record, 1, MARK_RECORD_LEN, f) != MARK_RECORD_LEN)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
		FreeFile(f);
		return false;
	}
	if (FreeFile(f) != 0)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
		return false;
	}
	/* syncs the file and the directory; reports a failure at elevel */
	return durable_rename(tmp, IDGEN_LOCAL_HW_FILE, elevel) == 0;
}

/* true: done, or failed and reported; *done says which.  false: not the record's size */
static bool
write_in_place(const char *record, int elevel, bool *done)
{
	int			fd = OpenTransientFile(IDGEN_LOCAL_HW_FILE, O_RDWR | PG_BINARY);
	struct stat st;

	*done = false;
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || st.st_size != MARK_RECORD_LEN)
	{
		CloseTransientFile(fd);
		return false;
	}
	errno = 0;
	if (pg_pwrite(fd, record, MARK_RECORD_LEN, 0) != MARK_RECORD_LEN)
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", IDGEN_LOCAL_HW_FILE)));
		CloseTransientFile(fd);
		return true;
	}
	if (pg_fdatasync(fd) != 0)
	{
		/* as for a data file: a failed sync may have lost the write */
		ereport(data_sync_elevel(elevel),
				(errcode_for_file_access(),
				 errmsg("idgen: could not sync \"%s\": %m", IDGEN_LOCAL_HW_FILE)));
		CloseTransientFile(fd);
		return true;
	}
	*done = CloseTransientFile(fd) == 0;
	return true;
}

/* under mark_lock: the file, then shared memory */
static bool
write_file(int64 mark, int elevel)
{
	char		record[MARK_RECORD_LEN + 1];
	int64		started = idgen_monotonic_ms();
	int64		took;
	bool		done;

	snprintf(record, sizeof(record), "%020lld\n", (long long) mark);
	if (!write_in_place(record, elevel, &done))
		done = write_whole(record, elevel);
	if (!done)
		return false;
	store_durable(mark);

	/* a write slower than a call may wait is why calls were refused: say so */
	took = idgen_monotonic_ms() - started;
	if (took > idgen_max_clock_wait_ms)
		ereport(LOG,
				(errmsg("idgen: writing the node's high-water mark took %lld ms",
						(long long) took),
				 errdetail("Calls wait at most idgen.max_clock_wait (%d ms) for the mark; the disk was slow to sync \"%s\".",
						   idgen_max_clock_wait_ms, IDGEN_LOCAL_HW_FILE)));
	return true;
}

LocalmarkRaise
localmark_raise(int64 mark, int wait_ms, int elevel)
{
	LWLock	   *lock = idgen_shared->mark_lock;
	int64		deadline = idgen_monotonic_ms() + Max(wait_ms, 0);
	bool		written;

	/* a writer that holds the lock may be writing enough for us too */
	while (localmark_durable() < mark)
	{
		if (LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
		{
			/*
			 * Never raise an error holding the lock: the worker's loop
			 * catches errors outside any transaction, whose abort would
			 * not release it, and every generator would find it busy.
			 */
			written = localmark_durable() >= mark || write_file(mark, Min(elevel, LOG));
			LWLockRelease(lock);
			if (!written && elevel >= ERROR)
				ereport(elevel,
						(errcode(ERRCODE_IO_ERROR),
						 errmsg("idgen: could not raise the node's high-water mark in \"%s\"; the server log says why",
								IDGEN_LOCAL_HW_FILE)));
			return written ? LOCALMARK_RAISED : LOCALMARK_WRITE_FAILED;
		}
		if (idgen_monotonic_ms() >= deadline)
			return LOCALMARK_BUSY;
		pg_usleep(1000L);
	}
	return LOCALMARK_RAISED;
}

LocalmarkRaise
localmark_raise_for_lease(int64 generation, int wait_ms)
{
	LocalmarkRaise result = localmark_raise(localmark_target_unix_ms(), wait_ms, LOG);

	if (result == LOCALMARK_RAISED &&
		!idgen_publish_mark(generation, localmark_durable()))
		result = LOCALMARK_LEASE_CHANGED;
	return result;
}

const char *
localmark_raise_problem(LocalmarkRaise result)
{
	switch (result)
	{
		case LOCALMARK_RAISED:
			break;
		case LOCALMARK_BUSY:
			return "another process was writing the mark all the while";
		case LOCALMARK_WRITE_FAILED:
			return "the mark's file could not be written (see the server log)";
		case LOCALMARK_LEASE_CHANGED:
			return "the lease changed meanwhile";
	}
	return "the mark was raised, too late";
}
