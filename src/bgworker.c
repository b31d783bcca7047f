/*
 * bgworker.c - the idgen background worker
 *
 * One per node, started by the postmaster once recovery has finished (a
 * standby holds no lease, so it cannot issue).  Connected to idgen.database,
 * where the lease table lives, it:
 *
 *   - leases the node's block of worker ids (idgen.acquire_node_lease), a new
 *     generation on every acquisition, and publishes it to shared memory;
 *   - renews the lease well before it expires and keeps the durable
 *     high-water mark of issued time ahead of the generator, committing with
 *     a local WAL flush before the generator may use it;
 *   - stops the node at once when a renewal finds the rows no longer its own
 *     (fenced by an operator, or taken by another holder: a collision);
 *   - reads the registry's layout epochs with every acquisition and renewal
 *     and hands them to the generator before the lease they come with, so
 *     no lease outlives the node's knowledge of a layout switch;
 *   - watches the wall clock against CLOCK_MONOTONIC and audits steps back
 *     and large jumps forward;
 *   - gives the lease back at shutdown, keeping its high-water mark.
 *
 * Each unit of work is its own transaction.  An error in one is logged and
 * counted; the published lease then simply runs out if renewals keep
 * failing, and the generator refuses from that moment on.
 */
#include "idgen.h"

#include <time.h>
#include <unistd.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

/* how often the worker looks at its lease and the clock */
#define IDGEN_TICK_MS 100
/* how long to wait between attempts to get a lease */
#define IDGEN_RETRY_MS 1000
/* how often expired retry keys are cleaned out */
#define IDGEN_CLEANUP_MS 60000
/* how often the horizon warning repeats */
#define IDGEN_HORIZON_EVERY_MS (24 * 3600 * 1000)
/* a wall clock that moves this much against the monotonic clock is audited */
#define IDGEN_STEP_BACK_MS 20
#define IDGEN_JUMP_FORWARD_MS 2000

/*
 * The node's own note of its high-water mark, in the data directory.  It is
 * written ahead of the registry's mark by IDGEN_LOCAL_SLACK_MS, so it costs
 * a file sync only every few seconds, and is used only when the registry
 * has fallen behind it by more than that: a dropped extension, a restored
 * old backup of the registry.
 */
#define IDGEN_LOCAL_HW_FILE "pg_idgen_high_water"
#define IDGEN_LOCAL_SLACK_MS 5000

PGDLLEXPORT void idgen_bgworker_main(Datum main_arg);

typedef struct IdgenWorker
{
	char		owner[IDGEN_OWNER_LEN];
	char		sysid[32];
	int			timeline;
	int			region;
	int			worker_count;
	int			worker_bits;
	bool		have_lease;
	IdgenLease	lease;
	int64		next_attempt_mono;
	int64		last_wall;
	int64		last_mono;
	/* audit lines waiting for the next transaction */
	StringInfoData pending_audit;
	int			pending_count;
	bool		logged_missing;
	int64		local_hw;		/* what the local file says; -1: none */
	int64		next_cleanup_mono;
	int64		next_horizon_mono;
} IdgenWorker;

static volatile sig_atomic_t shutdown_requested = false;

static void
idgen_handle_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	shutdown_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

void
idgen_register_bgworker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "idgen");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "idgen_bgworker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "idgen lease worker");
	snprintf(worker.bgw_type, BGW_MAXLEN, "idgen lease worker");
	RegisterBackgroundWorker(&worker);
}

static int64
monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
queue_audit(IdgenWorker *w, const char *action, const char *detail)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	if (w->pending_audit.data == NULL)
		initStringInfo(&w->pending_audit);
	/* action and detail separated by a unit separator, lines by newlines */
	appendStringInfo(&w->pending_audit, "%s\x1f%s\n", action, detail);
	w->pending_count++;
	MemoryContextSwitchTo(old);
}

/*
 * Compare how far the wall clock moved with how far the monotonic clock
 * did.  The generator copes with either by itself; this is for the record.
 */
static void
watch_clock(IdgenWorker *w)
{
	int64		wall = idgen_wall_unix_ms();
	int64		mono = monotonic_ms();

	if (w->last_mono != 0)
	{
		int64		skew = (wall - w->last_wall) - (mono - w->last_mono);
		char		detail[160];

		if (skew <= -IDGEN_STEP_BACK_MS || skew >= IDGEN_JUMP_FORWARD_MS)
		{
			bool		forward = skew > 0;

			idgen_count_clock_jump(forward);
			snprintf(detail, sizeof(detail),
					 "wall clock %s by %lld ms against the monotonic clock",
					 forward ? "jumped forward" : "stepped back",
					 (long long) (forward ? skew : -skew));
			ereport(LOG,
					(errmsg("idgen: %s", detail)));
			queue_audit(w, forward ? "clock_jump_forward" : "clock_step_back", detail);
		}
	}
	w->last_wall = wall;
	w->last_mono = mono;
}

static void
begin_work(const char *activity)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, activity);
}

static void
end_work(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
}

static void
spi_run(const char *sql, int nargs, Oid *types, Datum *values, int expected)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL,
										   false, 0);

	if (rc != expected)
		elog(ERROR, "idgen: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

static void
flush_audit(IdgenWorker *w)
{
	char	   *line;
	char	   *next;

	if (w->pending_count == 0)
		return;
	for (line = w->pending_audit.data; *line; line = next)
	{
		char	   *sep = strchr(line, '\x1f');
		char	   *end = strchr(line, '\n');
		Oid			types[2] = {TEXTOID, TEXTOID};
		Datum		values[2];

		next = end + 1;
		*sep = '\0';
		*end = '\0';
		values[0] = CStringGetTextDatum(line);
		values[1] = CStringGetTextDatum(sep + 1);
		spi_run("INSERT INTO idgen.audit_log (actor, action, detail) VALUES ('idgen lease worker', $1, $2)",
				2, types, values, SPI_OK_INSERT);
	}
	resetStringInfo(&w->pending_audit);
	w->pending_count = 0;
}

static Datum
unix_ms_datum(int64 unix_ms)
{
	return TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(unix_ms));
}

static int64
datum_unix_ms(Datum d)
{
	return idgen_timestamptz_to_unix_ms(DatumGetTimestampTz(d));
}

/*
 * How far ahead of issued time the durable high-water mark is kept: half
 * of max_drift.  A node restarting after a crash starts above the mark, so
 * keeping it within max_drift of the clock lets it issue at once instead
 * of waiting for the clock to catch up; the generator wakes us when it
 * gets close to the mark, so a short reserve costs a wait of one commit at
 * worst.
 */
static int64
hw_reserve(void)
{
	return Max(idgen_max_drift_ms / 2, 50);
}

/* the newest time the generators have used or asked for */
static int64
hw_demand(void)
{
	int64		now = idgen_wall_unix_ms();
	int64		logical = idgen_logical_unix_ms();
	int64		wanted = idgen_hw_wanted_unix_ms();

	return Max(Max(now, logical), wanted);
}

static int64
hw_target(void)
{
	return hw_demand() + hw_reserve();
}

static int64
valid_until(int64 lease_until)
{
	int64		margin = Max(idgen_lease_ttl_ms / 5, 200);

	return lease_until - margin;
}

/*
 * Make sure the registry is usable: the extension is there (created if the
 * database has none, so a single instance works with defaults alone) and
 * recent enough.  Returns false, with the reason published, if not.
 */
static bool
registry_ready(IdgenWorker *w)
{
	bool		isnull;
	char	   *version = NULL;
	char		reason[256];

	spi_run("SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'idgen'",
			0, NULL, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
	{
		ereport(LOG,
				(errmsg("idgen: creating extension idgen in database \"%s\" to hold the worker lease table",
						idgen_database)));
		spi_run("CREATE EXTENSION IF NOT EXISTS idgen", 0, NULL, NULL, SPI_OK_UTILITY);
		queue_audit(w, "registry_created",
					psprintf("extension idgen created in database %s by the background worker",
							 idgen_database));
		return false;
	}
	version = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
	if (strcmp(version, "0.1") == 0)
	{
		snprintf(reason, sizeof(reason),
				 "extension idgen in database \"%s\" is version %s, which has no lease table; run ALTER EXTENSION idgen UPDATE there",
				 idgen_database, version);
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
		if (!w->logged_missing)
			ereport(LOG, (errmsg("idgen: %s", reason)));
		w->logged_missing = true;
		return false;
	}
	return true;
}

/*
 * Does the node's block fit the layout in force now and every one scheduled
 * after it?  If not, says why in *reason.
 */
static bool
block_fits(IdgenWorker *w, const IdgenEpochList *list, int first_worker,
		   char *reason, size_t reason_len)
{
	const IdgenEpoch *e = idgen_epochs_at(list, idgen_wall_unix_ms());
	int			block_bits = 0;
	int			i;

	while ((1 << block_bits) < w->worker_count)
		block_bits++;
	for (i = e->version - 1; i < list->count; i++)
	{
		const IdgenEpoch *x = &list->epochs[i];
		const char *problem = idgen_node_check(&x->layout, w->region,
											   first_worker, block_bits);

		if (problem != NULL)
		{
			snprintf(reason, reason_len,
					 "layout epoch %d (%d region, %d worker bits): %s (region %d, workers %d-%d)",
					 x->version, x->layout.region_bits, x->layout.worker_bits,
					 problem, w->region, first_worker,
					 first_worker + w->worker_count - 1);
			return false;
		}
	}
	return true;
}

/* An operator's idgen_disable() lasts across restarts. */
static void
load_disabled(IdgenWorker *w)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	bool		isnull;

	values[0] = CStringGetTextDatum(w->sysid);
	spi_run("SELECT disabled_reason FROM idgen.node_control WHERE node_sysid = $1",
			1, types, values, SPI_OK_SELECT);
	if (SPI_processed > 0)
	{
		char	   *reason = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0],
															  SPI_tuptable->tupdesc,
															  1, &isnull));

		idgen_set_operator_disabled(true, reason);
	}
}

static int64
read_local_hw(void)
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

/* Keep the local note at least IDGEN_LOCAL_SLACK_MS/2 above hw. */
static void
note_local_hw(IdgenWorker *w, int64 hw)
{
	char		tmp[MAXPGPATH];
	FILE	   *f;
	int64		value;

	if (w->local_hw >= 0 && hw <= w->local_hw - IDGEN_LOCAL_SLACK_MS / 2)
		return;
	value = hw + IDGEN_LOCAL_SLACK_MS;
	snprintf(tmp, sizeof(tmp), "%s.tmp", IDGEN_LOCAL_HW_FILE);
	f = AllocateFile(tmp, PG_BINARY_W);
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
	fprintf(f, "%lld\n", (long long) value);
	if (FreeFile(f) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
	/* durable_rename syncs the file and the directory */
	durable_rename(tmp, IDGEN_LOCAL_HW_FILE, ERROR);
	w->local_hw = value;
}

static void
try_acquire(IdgenWorker *w)
{
	Oid			types[12] = {TEXTOID, TEXTOID, INT4OID, INT4OID, INT4OID,
		INT4OID, INT4OID, TIMESTAMPTZOID, FLOAT8OID, TIMESTAMPTZOID,
	TIMESTAMPTZOID, FLOAT8OID};
	Datum		values[12];
	char		nulls[12];
	int64		now;
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	desc;
	IdgenLease	lease;
	IdgenEpochList epochs;
	int			region_bits;
	int			worker_bits;
	char		reason[256];

	begin_work("idgen: leasing a worker id");
	if (!registry_ready(w))
	{
		flush_audit(w);
		end_work();
		/* a registry created just now is usable on the next tick */
		if (w->pending_count == 0 && !w->logged_missing)
			w->next_attempt_mono = 0;
		return;
	}
	load_disabled(w);

	/* the workers must fit the layout now and every one scheduled after it */
	idgen_epochs_read_spi(&epochs);
	now = idgen_wall_unix_ms();
	idgen_epochs_min_bits(&epochs, now, &region_bits, &worker_bits);
	if (!block_fits(w, &epochs, idgen_worker_id >= 0 ? idgen_worker_id : 0,
					reason, sizeof(reason)))
	{
		flush_audit(w);
		end_work();
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
		if (!w->logged_missing)
			ereport(LOG, (errmsg("idgen: cannot lease: %s; retrying", reason)));
		w->logged_missing = true;
		return;
	}

	values[0] = CStringGetTextDatum(w->owner);
	values[1] = CStringGetTextDatum(w->sysid);
	values[2] = Int32GetDatum(w->timeline);
	values[3] = Int32GetDatum(w->region);
	values[4] = Int32GetDatum(idgen_worker_id);
	values[5] = Int32GetDatum(w->worker_count);
	values[6] = Int32GetDatum(worker_bits);
	values[7] = unix_ms_datum(now);
	values[8] = Float8GetDatum(idgen_lease_ttl_ms / 1000.0);
	values[9] = unix_ms_datum(hw_target());
	values[10] = unix_ms_datum(w->local_hw);
	values[11] = Float8GetDatum(IDGEN_LOCAL_SLACK_MS / 1000.0);
	memset(nulls, ' ', sizeof(nulls));
	if (w->local_hw < 0)
		nulls[10] = 'n';
	if (SPI_execute_with_args("SELECT first_worker, generation, lease_until, high_water, start_after "
							  "FROM idgen.acquire_node_lease($1, $2, $3, $4, $5, $6, $7, $8, "
							  "pg_catalog.make_interval(secs => $9), $10, $11, "
							  "pg_catalog.make_interval(secs => $12))",
							  12, types, values, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "idgen: idgen.acquire_node_lease failed");
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	lease.first_worker = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
	if (lease.first_worker < 0)
	{
		char		reason[256];

		snprintf(reason, sizeof(reason),
				 idgen_worker_id >= 0 ?
				 "worker block %d of region %d is leased by another owner or not yet expired" :
				 "no free block of %d worker ids in region %d",
				 idgen_worker_id >= 0 ? idgen_worker_id : w->worker_count,
				 w->region);
		flush_audit(w);
		end_work();
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
		if (!w->logged_missing)
			ereport(LOG, (errmsg("idgen: %s; retrying", reason)));
		w->logged_missing = true;
		return;
	}
	lease.generation = DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
	lease.lease_until_unix_ms = datum_unix_ms(SPI_getbinval(tup, desc, 3, &isnull));
	lease.hw_unix_ms = datum_unix_ms(SPI_getbinval(tup, desc, 4, &isnull));
	{
		Datum		d = SPI_getbinval(tup, desc, 5, &isnull);

		lease.start_after_unix_ms = isnull ? -1 : datum_unix_ms(d);
	}
	lease.valid_until_unix_ms = valid_until(lease.lease_until_unix_ms);

	/*
	 * A layout scheduled while this transaction waited for the registry is
	 * seen now (a new statement, a new snapshot); the lease must fit it too,
	 * or be rolled back.
	 */
	idgen_epochs_read_spi(&epochs);
	if (!block_fits(w, &epochs, lease.first_worker, reason, sizeof(reason)))
		ereport(ERROR,
				(errmsg("idgen: the leased workers do not fit %s", reason)));
	flush_audit(w);
	end_work();
	note_local_hw(w, lease.hw_unix_ms);

	/* published only once the lease and its high-water mark are durable */
	w->lease = lease;
	w->have_lease = true;
	w->logged_missing = false;
	idgen_publish_epochs(&epochs);
	idgen_publish_lease(&lease);
	ereport(LOG,
			(errmsg("idgen: leased workers %d-%d of region %d, generation %lld",
					lease.first_worker, lease.first_worker + w->worker_count - 1,
					w->region, (long long) lease.generation)));
}

static bool
renewal_due(IdgenWorker *w)
{
	int64		now = idgen_wall_unix_ms();

	return w->lease.lease_until_unix_ms - now < idgen_lease_ttl_ms / 2 ||
		w->lease.hw_unix_ms - hw_demand() < hw_reserve() / 2;
}

static void
renew(IdgenWorker *w)
{
	Oid			types[8] = {TEXTOID, INT4OID, INT4OID, INT4OID, INT8OID,
	TIMESTAMPTZOID, FLOAT8OID, TIMESTAMPTZOID};
	Datum		values[8];
	int64		now = idgen_wall_unix_ms();
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	desc;

	begin_work("idgen: renewing the worker lease");
	values[0] = CStringGetTextDatum(w->owner);
	values[1] = Int32GetDatum(w->region);
	values[2] = Int32GetDatum(w->lease.first_worker);
	values[3] = Int32GetDatum(w->worker_count);
	values[4] = Int64GetDatum(w->lease.generation);
	values[5] = unix_ms_datum(now);
	values[6] = Float8GetDatum(idgen_lease_ttl_ms / 1000.0);
	values[7] = unix_ms_datum(hw_target());
	spi_run("SELECT ok, lease_until, high_water, other_owner, other_generation "
			"FROM idgen.renew_node_lease($1, $2, $3, $4, $5, $6, "
			"pg_catalog.make_interval(secs => $7), $8)",
			8, types, values, SPI_OK_SELECT);
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;

	if (DatumGetBool(SPI_getbinval(tup, desc, 1, &isnull)))
	{
		int64		lease_until = datum_unix_ms(SPI_getbinval(tup, desc, 2, &isnull));
		int64		hw = datum_unix_ms(SPI_getbinval(tup, desc, 3, &isnull));
		IdgenEpochList epochs;

		/* read after the renewal: a layout scheduled before it is seen */
		idgen_epochs_read_spi(&epochs);
		flush_audit(w);
		end_work();
		note_local_hw(w, hw);
		/* the epochs first: the extended lease must not run past a switch unknown */
		idgen_publish_epochs(&epochs);
		w->lease.lease_until_unix_ms = lease_until;
		w->lease.valid_until_unix_ms = valid_until(lease_until);
		w->lease.hw_unix_ms = hw;
		idgen_publish_renewal(lease_until, w->lease.valid_until_unix_ms, hw);
		if (idgen_lease_state() == IDGEN_STATE_WAITING_FOR_LEASE)
			idgen_publish_lease(&w->lease);
		return;
	}
	else
	{
		Datum		other_d = SPI_getbinval(tup, desc, 4, &isnull);
		char	   *other = isnull ? NULL : TextDatumGetCString(other_d);
		int64		other_gen = DatumGetInt64(SPI_getbinval(tup, desc, 5, &isnull));
		bool		still_valid = now < w->lease.lease_until_unix_ms;
		char		reason[256];

		/* stop first, then write down why */
		if (other != NULL && still_valid)
			snprintf(reason, sizeof(reason),
					 "workers %d-%d of region %d are held by \"%s\" (generation %lld) while this node's lease (generation %lld) was still valid",
					 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
					 w->region, other, (long long) other_gen,
					 (long long) w->lease.generation);
		else
			snprintf(reason, sizeof(reason),
					 "the lease of workers %d-%d of region %d (generation %lld) was %s",
					 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
					 w->region, (long long) w->lease.generation,
					 other == NULL ? "fenced or released by an operator" :
					 "taken over after it expired");
		idgen_publish_lease_state(IDGEN_STATE_FENCED, reason);
		w->have_lease = false;
		ereport(WARNING, (errmsg("idgen: node fenced: %s", reason)));

		if (other != NULL && still_valid)
		{
			Oid			ctypes[3] = {TEXTOID, TEXTOID, TEXTOID};
			Datum		cvalues[3];

			/* counted before the insert, which may fail: it was found */
			idgen_stats_count_collision();
			cvalues[0] = CStringGetTextDatum(w->owner);
			cvalues[1] = CStringGetTextDatum(other);
			cvalues[2] = CStringGetTextDatum(reason);
			spi_run("INSERT INTO idgen.collision (id, first_owner, second_owner, detail) VALUES (NULL, $1, $2, $3)",
					3, ctypes, cvalues, SPI_OK_INSERT);
			queue_audit(w, "collision", reason);
		}
		else
			queue_audit(w, "fenced", reason);

		/* give back whatever of the block is still ours, marks kept */
		{
			Oid			rtypes[5] = {TEXTOID, INT4OID, INT4OID, INT4OID, INT8OID};
			Datum		rvalues[5];

			rvalues[0] = CStringGetTextDatum(w->owner);
			rvalues[1] = Int32GetDatum(w->region);
			rvalues[2] = Int32GetDatum(w->lease.first_worker);
			rvalues[3] = Int32GetDatum(w->worker_count);
			rvalues[4] = Int64GetDatum(w->lease.generation);
			spi_run("SELECT idgen.release_node_lease($1, $2, $3, $4, $5)",
					5, rtypes, rvalues, SPI_OK_SELECT);
		}
		flush_audit(w);
		end_work();
	}
}

static void
release(IdgenWorker *w)
{
	Oid			types[5] = {TEXTOID, INT4OID, INT4OID, INT4OID, INT8OID};
	Datum		values[5];

	idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, "shutting down");
	if (!w->have_lease)
		return;
	begin_work("idgen: releasing the worker lease");
	values[0] = CStringGetTextDatum(w->owner);
	values[1] = Int32GetDatum(w->region);
	values[2] = Int32GetDatum(w->lease.first_worker);
	values[3] = Int32GetDatum(w->worker_count);
	values[4] = Int64GetDatum(w->lease.generation);
	spi_run("SELECT idgen.release_node_lease($1, $2, $3, $4, $5)",
			5, types, values, SPI_OK_SELECT);
	end_work();
	w->have_lease = false;
}

/* When a published lease runs out unrenewed, say so in the state. */
static void
check_validity(IdgenWorker *w, const char *why)
{
	int64		now = idgen_wall_unix_ms();

	if (w->have_lease && now >= w->lease.valid_until_unix_ms &&
		idgen_lease_state() == IDGEN_STATE_ACTIVE)
	{
		char		reason[256];

		snprintf(reason, sizeof(reason), "the lease could not be renewed in time: %s",
				 why ? why : "renewal failed");
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
	}
}

/*
 * Drop retry keys past their retention.  Other databases with the extension
 * clean theirs a few rows per keyed call (idgen.keyed_batch).
 */
static void
clean_expired(IdgenWorker *w)
{
	int64		mono = monotonic_ms();

	if (mono < w->next_cleanup_mono)
		return;
	w->next_cleanup_mono = mono + IDGEN_CLEANUP_MS;
	begin_work("idgen: cleaning expired request keys");
	spi_run("SELECT pg_catalog.to_regclass('idgen.batch_request') IS NOT NULL",
			0, NULL, NULL, SPI_OK_SELECT);
	if (SPI_processed == 1)
	{
		bool		isnull;

		if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull)))
			spi_run("DELETE FROM idgen.batch_request WHERE expires_at < pg_catalog.clock_timestamp()",
					0, NULL, NULL, SPI_OK_DELETE);
	}
	end_work();
}

/* Once a day, say so when the layout's time field runs out soon. */
static void
check_horizon(IdgenWorker *w)
{
	int64		mono = monotonic_ms();
	int64		left_ms;
	char		detail[200];

	if (mono < w->next_horizon_mono)
		return;
	w->next_horizon_mono = mono + IDGEN_HORIZON_EVERY_MS;
	left_ms = idgen_horizon_unix_ms() - idgen_wall_unix_ms();
	if (left_ms >= (int64) idgen_horizon_warning_min * 60000)
		return;
	snprintf(detail, sizeof(detail),
			 "the time field of the current layout runs out in %lld days; past it the node refuses to issue IDs",
			 (long long) (left_ms / 86400000));
	ereport(WARNING,
			(errmsg("idgen: %s", detail),
			 errhint("IDs need a layout with a later horizon; until then this node cannot issue.")));
	queue_audit(w, "horizon_warning", detail);
}

static void
tick(IdgenWorker *w)
{
	IdgenState	state = idgen_lease_state();
	int64		mono = monotonic_ms();

	watch_clock(w);
	check_horizon(w);

	if (state == IDGEN_STATE_FENCED)
	{
		/* stays fenced until an operator runs idgen_enable() */
		if (w->pending_count > 0)
		{
			begin_work("idgen: writing the audit log");
			flush_audit(w);
			end_work();
		}
		return;
	}
	if (!w->have_lease)
	{
		if (mono >= w->next_attempt_mono)
		{
			w->next_attempt_mono = mono + IDGEN_RETRY_MS;
			try_acquire(w);
		}
	}
	else if (renewal_due(w) || state == IDGEN_STATE_WAITING_FOR_LEASE)
	{
		/* after a failed renewal, retry soon but not on every tick */
		if (mono >= w->next_attempt_mono)
			renew(w);
	}
	if (w->pending_count > 0)
	{
		begin_work("idgen: writing the audit log");
		flush_audit(w);
		end_work();
	}
	if (w->have_lease)
		clean_expired(w);
}

/* generators must not poke the latch of a process that is gone */
static void
forget_bgworker(int code, Datum arg)
{
	idgen_set_bgworker(-1, NULL);
}

static void
build_identity(IdgenWorker *w)
{
	char		host[128];

	snprintf(w->sysid, sizeof(w->sysid), UINT64_FORMAT, GetSystemIdentifier());
	w->timeline = (int) GetWALInsertionTimeLine();
	if (gethostname(host, sizeof(host)) != 0)
		strlcpy(host, "unknown", sizeof(host));
	host[sizeof(host) - 1] = '\0';
	snprintf(w->owner, sizeof(w->owner), "node:%s:tl%d:%016llx@%s:%d",
			 w->sysid, w->timeline, (unsigned long long) idgen_start_token(),
			 host, PostPortNumber);
	idgen_node_shape(&w->region, &w->worker_count, &w->worker_bits);
}

void
idgen_bgworker_main(Datum main_arg)
{
	IdgenWorker w;
	MemoryContext work_ctx;

	memset(&w, 0, sizeof(w));
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, idgen_handle_sigterm);
	BackgroundWorkerUnblockSignals();

	BackgroundWorkerInitializeConnection(idgen_database, NULL, 0);

	/* the high-water mark must be on disk before the generator uses it */
	SetConfigOption("synchronous_commit", "local", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("statement_timeout", "10s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("lock_timeout", "5s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("application_name", "idgen lease worker", PGC_USERSET, PGC_S_OVERRIDE);

	build_identity(&w);
	w.local_hw = read_local_hw();
	idgen_set_bgworker(IDGEN_MY_PROC_INDEX, w.owner);
	before_shmem_exit(forget_bgworker, (Datum) 0);

	if (idgen_config_is_broken())
	{
		ereport(LOG,
				(errmsg("idgen: the node's settings are invalid; see idgen_status() for why")));
	}

	work_ctx = AllocSetContextCreate(TopMemoryContext, "idgen worker",
									 ALLOCSET_DEFAULT_SIZES);

	while (!shutdown_requested)
	{
		MemoryContext old = MemoryContextSwitchTo(work_ctx);

		if (!idgen_config_is_broken())
		{
			PG_TRY();
			{
				tick(&w);
			}
			PG_CATCH();
			{
				ErrorData  *edata;

				MemoryContextSwitchTo(work_ctx);
				edata = CopyErrorData();
				FlushErrorState();
				AbortCurrentTransaction();
				pgstat_report_activity(STATE_IDLE, NULL);
				idgen_count_lease_failure();
				ereport(LOG,
						(errmsg("idgen: lease work failed: %s", edata->message)));
				check_validity(&w, edata->message);
				w.next_attempt_mono = monotonic_ms() +
					Min(IDGEN_RETRY_MS, Max(idgen_lease_ttl_ms / 10, IDGEN_TICK_MS));
				FreeErrorData(edata);
			}
			PG_END_TRY();
			check_validity(&w, NULL);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(work_ctx);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 IDGEN_TICK_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}

	PG_TRY();
	{
		release(&w);
	}
	PG_CATCH();
	{
		/* the lease simply expires; its high-water mark is already durable */
		FlushErrorState();
	}
	PG_END_TRY();
	proc_exit(0);
}
