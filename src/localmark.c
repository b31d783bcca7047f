/*
 * localmark.c - the node's own durable high-water mark (localmark.h)
 *
 * The file is replaced whole: written beside it, then durable_rename(),
 * so a crash leaves the old note or the new one, never half of one.
 */
#include "localmark.h"

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

/* under mark_lock: the file, then shared memory */
static bool
write_file(int64 mark, int elevel)
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
	fprintf(f, "%lld\n", (long long) mark);
	if (FreeFile(f) != 0)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
		return false;
	}
	/* syncs the file and the directory; reports a failure at elevel */
	if (durable_rename(tmp, IDGEN_LOCAL_HW_FILE, elevel) != 0)
		return false;
	store_durable(mark);
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
			written = localmark_durable() >= mark || write_file(mark, elevel);
			LWLockRelease(lock);
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
