/*
 * bgworker.c - the idgen background worker
 *
 * One per node, started by the postmaster once recovery has finished (a
 * standby holds no lease, so it cannot issue).  Against the registry (this
 * instance's idgen.database, or the shared PostgreSQL that idgen.registry
 * names; registry.c carries the statements either way) it:
 *
 *   - leases the node's block of worker ids (idgen.acquire_node_lease), a new
 *     generation on every acquisition, and publishes it to shared memory;
 *   - renews the lease well before it expires and keeps the durable
 *     high-water mark of issued time ahead of the generator, committed
 *     before the generator may use it;
 *   - stops the node at once when a renewal finds the rows no longer its own
 *     (fenced by an operator, or taken by another holder: a collision);
 *   - compares the node's clock with the registry's at every lease and
 *     renewal, and stops issuing while they are further apart than
 *     idgen.max_skew;
 *   - reads the registry's layout epochs with every acquisition and renewal
 *     and hands them to the generator before the lease they come with, so
 *     no lease outlives the node's knowledge of a layout switch;
 *   - watches the wall clock against CLOCK_MONOTONIC and audits steps back
 *     and large jumps forward;
 *   - gives the lease back at shutdown, keeping its high-water mark.
 *
 * The node's own tables (idgen.node_control, retry keys) are in its
 * idgen.database whichever registry it uses, so an operator's
 * idgen_disable() works and lasts while the registry is away.
 *
 * Each unit of work is its own transaction.  An error in one is logged and
 * counted, and the next attempt waits a little longer (up to 2 s).  A lease whose renewals keep failing runs out: the generator
 * refuses from that moment on by itself, and the worker then gives the
 * lease up and leases anew, at a new generation above the old high-water
 * mark, once the registry answers again.  Losing the connection to a
 * remote registry is just such a failure.
 */
#include "idgen.h"

#include <time.h>
#include <unistd.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "pgstat.h"
#include "port/pg_bitutils.h"
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
#include "utils/timestamp.h"

#include "auditq.h"
#include "clock.h"
#include "clockpace.h"
#include "epoch_sql.h"
#include "fleet.h"
#include "nodestate.h"
#include "registry.h"
#include "utility_hook.h"

/* how often the worker looks at its lease and the clock */
#define IDGEN_TICK_MS 100
/* how long to wait between attempts to get a lease */
#define IDGEN_RETRY_MS 1000
/*
 * The first wait after a failed unit of work; it doubles from there, up to
 * a quarter of the lease or 2 s, whichever is shorter: an attempt costs the
 * registry one refused connection, and a node should be back soon after
 * its registry is.
 */
#define IDGEN_BACKOFF_MIN_MS 250
#define IDGEN_BACKOFF_MAX_MS 2000
/* how often expired retry keys are cleaned out */
#define IDGEN_CLEANUP_MS 60000
/* how often the horizon warning repeats */
#define IDGEN_HORIZON_EVERY_MS (24 * 3600 * 1000)
/* a wall clock that moves this much against the monotonic clock is audited */
#define IDGEN_STEP_BACK_MS 20
#define IDGEN_JUMP_FORWARD_MS 2000
/* audit records kept while the registry cannot take them */
#define IDGEN_MAX_PENDING_AUDIT 1000
/* how long the release at shutdown may wait for a remote registry */
#define IDGEN_RELEASE_TIMEOUT_MS 2000

/*
 * The node's own note of its high-water mark, in the data directory.  It is
 * written ahead of the registry's mark by IDGEN_LOCAL_SLACK_MS, so it costs
 * a file sync only every few seconds, and is used only when the registry
 * has fallen behind it by more than that: a dropped extension, a restored
 * old backup of the registry.
 */
#define IDGEN_LOCAL_HW_FILE "pg_idgen_high_water"
#define IDGEN_LOCAL_SLACK_MS 5000

/* times travel as Unix milliseconds, whatever TimeZone the session has */
#define SQL_TS(n) "('epoch'::timestamptz + $" #n "::bigint * interval '1 ms')"
#define SQL_MS(col) "floor(extract(epoch FROM " col ") * 1000)::bigint"

/*
 * The lease protocol.  A registry at 0.5 or later records the fleet's
 * heartbeats and answers with its own clock; an older one (only possible
 * for a local registry not yet updated) gets the calls of its version.
 */
static const char *const acquire_sql =
"SELECT first_worker, generation, " SQL_MS("high_water") ", "
SQL_MS("start_after") ", " SQL_MS("registry_clock") " "
"FROM idgen.acquire_node_lease($1, $2, $3::integer, $4::integer, $5::integer, "
"$6::integer, $7::integer, " SQL_TS(8) ", $9::bigint * interval '1 ms', "
SQL_TS(10) ", " SQL_TS(11) ", $12::bigint * interval '1 ms', $13::boolean)";

static const char *const acquire_sql_04 =
"SELECT first_worker, generation, " SQL_MS("high_water") ", "
SQL_MS("start_after") ", NULL::bigint "
"FROM idgen.acquire_node_lease($1, $2, $3::integer, $4::integer, $5::integer, "
"$6::integer, $7::integer, " SQL_TS(8) ", $9::bigint * interval '1 ms', "
SQL_TS(10) ", " SQL_TS(11) ", $12::bigint * interval '1 ms')";

static const char *const renew_sql =
"SELECT ok, " SQL_MS("high_water") ", other_owner, other_generation, "
SQL_MS("registry_clock") " "
"FROM idgen.renew_node_lease($1, $2::integer, $3::integer, $4::integer, "
"$5::bigint, " SQL_TS(6) ", $7::bigint * interval '1 ms', " SQL_TS(8) ", $9, "
"$10::bigint)";

static const char *const renew_sql_04 =
"SELECT ok, " SQL_MS("high_water") ", other_owner, other_generation, NULL::bigint "
"FROM idgen.renew_node_lease($1, $2::integer, $3::integer, $4::integer, "
"$5::bigint, " SQL_TS(6) ", $7::bigint * interval '1 ms', " SQL_TS(8) ")";

static const char *const release_sql =
"SELECT idgen.release_node_lease($1, $2::integer, $3::integer, $4::integer, $5::bigint)";

/* the registry's extension version as major * 100 + minor */
#define REGISTRY_FLEET_VERSION 5

PGDLLEXPORT void idgen_bgworker_main(Datum main_arg);

typedef struct IdgenWorker
{
	char		owner[IDGEN_OWNER_LEN];
	char		sysid[32];
	int			timeline;
	int			region;
	int			worker_count;
	int			worker_bits;
	bool		remote;			/* the registry is another instance */
	int			registry_version;	/* of its extension; 0: not known yet */
	bool		have_lease;
	IdgenLease	lease;
	int64		next_attempt_mono;
	int64		backoff_ms;		/* 0 after a success */
	char		last_error[256];	/* of the current run of failures */
	int64		last_wall;
	int64		last_mono;
	/* audit records waiting for the next transaction (auditq.h) */
	StringInfoData pending_audit;
	int			pending_count;
	bool		logged_missing;
	bool		have_skew;		/* skew holds a measurement */
	IdgenSkew	skew;			/* the last one */
	IdgenPace	pace;			/* which steps of the wall clock are followed */
	bool		skewed;			/* clocks beyond idgen.max_skew */
	char		skew_reason[256];
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

static bool
stop_requested(void)
{
	return shutdown_requested;
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

/* parameters and results travel as text */
static char *
int_text(int64 v)
{
	return psprintf(INT64_FORMAT, v);
}

static int64
text_int(const char *s)
{
	char	   *end;
	long long	v;

	if (s == NULL)
		elog(ERROR, "idgen: unexpected NULL from the registry");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		elog(ERROR, "idgen: unexpected number from the registry: \"%s\"", s);
	return (int64) v;
}

/*
 * snprintf cuts a long text at a byte count, which can fall inside a
 * character of a name it quotes; text that is not valid in the database
 * encoding must not reach idgen_status(), the registry or the audit queue,
 * so cut back to the last whole character.
 */
static void
clip_to_whole_chars(char *buf)
{
	int			len = strlen(buf);

	buf[pg_mbcliplen(buf, len, len)] = '\0';
}

static void
queue_audit(IdgenWorker *w, const char *action, const char *detail)
{
	MemoryContext old;
	size_t		size;

	if (w->pending_count >= IDGEN_MAX_PENDING_AUDIT)
		return;
	/* every field length-prefixed: a holder's name may hold any byte */
	size = idgen_auditq_record_size(strlen(action), strlen(detail));
	if (size == 0 || size > MaxAllocSize / 2)
	{
		elog(WARNING, "idgen: audit record \"%s\" too long to queue, dropped", action);
		return;
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	if (w->pending_audit.data == NULL)
		initStringInfo(&w->pending_audit);
	enlargeStringInfo(&w->pending_audit, (int) size);
	idgen_auditq_encode(w->pending_audit.data + w->pending_audit.len,
						action, strlen(action), detail, strlen(detail));
	w->pending_audit.len += (int) size;
	w->pending_audit.data[w->pending_audit.len] = '\0';
	w->pending_count++;
	MemoryContextSwitchTo(old);
}

/* what the audit log says of each turn of the pacing, by IdgenPaceEvent */
static const struct
{
	const char *action;
	const char *text;
}			pace_events[] =
{
	[IDGEN_PACE_STEP_SEEN] = {"clock_jump_held",
		"wall clock stepped ahead of the monotonic clock; IDs keep to the monotonic clock until the step lasts idgen.clock_jump_confirm or the registry's clock agrees"},
	[IDGEN_PACE_STEP_CONFIRMED] = {"clock_jump_confirmed",
		"wall clock step forward lasted idgen.clock_jump_confirm; IDs follow it from now on"},
	[IDGEN_PACE_STEP_FOLLOWED] = {"clock_jump_confirmed",
		"wall clock step forward followed at once: the node had issued that far ahead already"},
	[IDGEN_PACE_STEP_WITHDRAWN] = {"clock_jump_withdrawn",
		"wall clock came back before its step forward was confirmed; no ID followed the step"},
	[IDGEN_PACE_BACK_ACCEPTED] = {"clock_step_accepted",
		"wall clock step back lasted idgen.clock_jump_confirm; a step forward to the old reading waits for confirmation again"},
};

/*
 * Look at the wall clock against the monotonic clock.  Steps back and
 * large jumps forward are audited; the pacing (clockpace.h) decides from
 * here which steps forward the generator follows, and tells it.
 */
static void
watch_clock(IdgenWorker *w)
{
	int64		raw = idgen_raw_wall_unix_ms();
	int64		wall = raw + idgen_clock_offset_total_ms;
	int64		mono = monotonic_ms();
	int64		pace_mono = idgen_pace_clock_ms();
	int64		issued = idgen_logical_unix_ms();
	int64		trusted_before = w->pace.trusted_offset_ms;
	int64		step;
	IdgenPaceEvent event;
	char		detail[256];

	if (w->last_mono != 0)
	{
		int64		skew = (wall - w->last_wall) - (mono - w->last_mono);

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

	/* the logical clock carries the test offset; the pacing sees the raw one */
	if (issued >= 0)
		issued -= idgen_clock_offset_total_ms;
	event = idgen_pace_observe(&w->pace, raw, pace_mono, issued,
							   idgen_max_drift_ms, idgen_clock_jump_confirm_ms);
	idgen_pace_publish(w->pace.trusted_offset_ms);
	if (event == IDGEN_PACE_STEADY)
		return;
	step = (event == IDGEN_PACE_STEP_SEEN ? w->pace.ahead_offset_ms :
			w->pace.trusted_offset_ms) - trusted_before;
	snprintf(detail, sizeof(detail), "%s (step %lld ms, idgen.clock_jump_confirm %d ms)",
			 pace_events[event].text, (long long) step, idgen_clock_jump_confirm_ms);
	ereport(LOG, (errmsg("idgen: %s", detail)));
	queue_audit(w, pace_events[event].action, detail);
}

/*
 * The registry's clock is another machine's: when it agrees with a step of
 * the wall clock that is held back, the step is real, and followed now.
 * offset_ms is the skew measured with the paced clock.
 */
static void
confirm_step_by_registry(IdgenWorker *w, const IdgenSkew *skew)
{
	int64		raw = idgen_raw_wall_unix_ms();
	int64		gap = raw + idgen_clock_offset_total_ms - idgen_wall_unix_ms();
	int64		raw_offset = skew->offset_ms + gap;
	int64		trusted_before = w->pace.trusted_offset_ms;
	char		detail[256];

	if (!w->remote || gap <= IDGEN_PACE_SLACK_MS ||
		skew->uncertainty_ms == PG_INT64_MAX ||
		(raw_offset < 0 ? -raw_offset : raw_offset) + skew->uncertainty_ms > idgen_max_skew_ms)
		return;
	if (!idgen_pace_confirm(&w->pace, raw, idgen_pace_clock_ms()))
		return;
	idgen_pace_publish(w->pace.trusted_offset_ms);
	snprintf(detail, sizeof(detail),
			 "wall clock step of %lld ms forward confirmed by the registry's clock (offset %lld ms); IDs follow it from now on",
			 (long long) (w->pace.trusted_offset_ms - trusted_before),
			 (long long) raw_offset);
	ereport(LOG, (errmsg("idgen: %s", detail)));
	queue_audit(w, "clock_jump_confirmed", detail);
}

/*
 * Write the queued audit records to the registry's audit log, inside the
 * caller's registry unit.  A node of a shared registry signs them.
 */
static void
flush_audit(IdgenWorker *w)
{
	char	   *actor;
	size_t		pos = 0;
	IdgenAuditRecord rec;

	if (w->pending_count == 0)
		return;

	/*
	 * Only queue_audit() writes the queue, so this cannot fail; if it did,
	 * a queue no transaction can write would stop every renewal from now
	 * on.  Say so and let it go.
	 */
	if (idgen_auditq_count(w->pending_audit.data, w->pending_audit.len) != w->pending_count)
	{
		elog(WARNING, "idgen: dropping %d queued audit records: the queue is damaged",
			 w->pending_count);
		resetStringInfo(&w->pending_audit);
		w->pending_count = 0;
		return;
	}

	actor = w->remote ? psprintf("idgen lease worker of %s", w->owner) :
		pstrdup("idgen lease worker");
	/* the buffer stays intact until all of it is written */
	while (idgen_auditq_next(w->pending_audit.data, w->pending_audit.len,
							 &pos, &rec) == IDGEN_AUDITQ_RECORD)
	{
		const char *params[3];

		params[0] = actor;
		params[1] = pnstrdup(rec.action, rec.action_len);
		params[2] = pnstrdup(rec.detail, rec.detail_len);
		registry_exec("INSERT INTO idgen.audit_log (actor, action, detail) VALUES ($1, $2, $3)",
					  3, params);
	}
	resetStringInfo(&w->pending_audit);
	w->pending_count = 0;
}

static void
flush_audit_unit(IdgenWorker *w)
{
	if (w->pending_count == 0)
		return;
	registry_begin("idgen: writing the audit log");
	flush_audit(w);
	registry_commit();
}


/* for the node's own tables, in this instance's idgen.database */
static void
spi_run(const char *sql, int nargs, Oid *types, Datum *values, int expected)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL,
										   false, 0);

	if (rc != expected)
		elog(ERROR, "idgen: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
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

/*
 * The node's own database: the extension is there (created if missing, so
 * a single instance works with defaults alone, and the node's operator
 * functions work in idgen.database of every node of a fleet), and an
 * operator's idgen_disable() is read back.
 */
static void
node_prepare(IdgenWorker *w)
{
	bool		isnull;
	bool		has_node_control = true;

	local_begin("idgen: reading the node's settings");
	/* a session's CREATE EXTENSION idgen waits for ours, or we for it */
	idgen_lock_extension_creation();
	spi_run("SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'idgen'",
			0, NULL, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
	{
		ereport(LOG,
				(errmsg(w->remote ?
						"idgen: creating extension idgen in database \"%s\" for the node's own tables" :
						"idgen: creating extension idgen in database \"%s\" to hold the worker lease table",
						idgen_database)));
		spi_run("CREATE EXTENSION idgen", 0, NULL, NULL, SPI_OK_UTILITY);
		/* in the same transaction: a plain CREATE EXTENSION then names us */
		if (!w->remote)
		{
			Oid			types[1] = {TEXTOID};
			Datum		values[1];

			values[0] = CStringGetTextDatum(psprintf("extension idgen created in database %s by the background worker",
													 idgen_database));
			spi_run("INSERT INTO idgen.audit_log (actor, action, detail) VALUES ('idgen lease worker', 'registry_created', $1)",
					1, types, values, SPI_OK_INSERT);
		}
	}
	else
	{
		char	   *version = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0],
																SPI_tuptable->tupdesc,
																1, &isnull));

		/* 0.1 had no node_control */
		has_node_control = strcmp(version, "0.1") != 0;
	}
	if (has_node_control)
		load_disabled(w);
	local_commit();
}

static void
waiting(IdgenWorker *w, const char *reason)
{
	idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
	if (!w->logged_missing)
		ereport(LOG, (errmsg("idgen: %s", reason)));
	w->logged_missing = true;
}

/*
 * Make sure the registry is usable: it has the extension, recent enough.
 * Returns false, with the reason published, if not.
 */
static bool
registry_ready(IdgenWorker *w)
{
	RegistryRows *rows;
	const char *version;
	int			major = 0;
	int			minor = 0;
	char		reason[256];

	rows = registry_exec("SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'idgen'",
						 0, NULL);
	if (rows->nrows == 0)
	{
		snprintf(reason, sizeof(reason),
				 "the registry (%s) has no extension idgen; run CREATE EXTENSION idgen there",
				 registry_display());
		waiting(w, reason);
		return false;
	}
	version = registry_value(rows, 0, 0);
	if (sscanf(version, "%d.%d", &major, &minor) != 2)
		major = minor = 0;
	w->registry_version = major * 100 + minor;
	if (w->registry_version < 2)
	{
		snprintf(reason, sizeof(reason),
				 "extension idgen in the registry (%s) is version %s, which has no lease table; run ALTER EXTENSION idgen UPDATE there",
				 registry_display(), version);
		waiting(w, reason);
		return false;
	}
	if (w->remote && w->registry_version < REGISTRY_FLEET_VERSION)
	{
		snprintf(reason, sizeof(reason),
				 "extension idgen in the registry (%s) is version %s; a shared registry needs 0.5 or later: run ALTER EXTENSION idgen UPDATE there",
				 registry_display(), version);
		waiting(w, reason);
		return false;
	}
	return true;
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

/*
 * Compare the node's clock with the registry's over the round trip that
 * just ended.  registry_ms is NULL when the registry did not say.
 */
static void
note_skew(IdgenWorker *w, int64 sent, int64 received, const char *registry_ms)
{
	IdgenSkew	skew;
	bool		was = w->skewed;

	if (registry_ms == NULL)
	{
		idgen_publish_clock_skew(false, 0);
		w->have_skew = false;
		w->skewed = false;
		return;
	}
	idgen_skew_estimate(sent, received, text_int(registry_ms), &skew);
	confirm_step_by_registry(w, &skew);
	w->have_skew = skew.uncertainty_ms != PG_INT64_MAX;
	w->skew = skew;
	idgen_publish_clock_skew(w->have_skew, skew.offset_ms);
	w->skewed = idgen_skew_exceeds(&skew, idgen_max_skew_ms);
	if (w->skewed)
		snprintf(w->skew_reason, sizeof(w->skew_reason),
				 "this node's clock is %lld ms %s the registry's (give or take %lld ms); idgen.max_skew is %d ms",
				 (long long) (skew.offset_ms < 0 ? -skew.offset_ms : skew.offset_ms),
				 skew.offset_ms < 0 ? "behind" : "ahead of",
				 (long long) skew.uncertainty_ms, idgen_max_skew_ms);
	if (w->skewed && !was)
	{
		ereport(WARNING,
				(errmsg("idgen: stopped issuing: %s", w->skew_reason)));
		queue_audit(w, "clock_skew", w->skew_reason);
	}
	else if (!w->skewed && was)
	{
		char		detail[160];

		snprintf(detail, sizeof(detail),
				 "this node's clock is within %d ms of the registry's again (offset %lld ms)",
				 idgen_max_skew_ms, (long long) skew.offset_ms);
		ereport(LOG, (errmsg("idgen: %s; issuing resumes", detail)));
		queue_audit(w, "clock_skew_cleared", detail);
	}
}

/*
 * The registry's layout epochs, read in the lease's own transaction after
 * its lease statement: a layout scheduled meanwhile (which waits for, or
 * makes wait, that statement's row locks) is seen.
 */
static void
load_epochs(IdgenEpochList *list)
{
	RegistryRows *rows;
	IdgenEpoch	epochs[IDGEN_MAX_EPOCHS + 1];
	int			i;

	rows = registry_exec("SELECT version, " SQL_MS("start_time") ", " SQL_MS("epoch_start") ", "
						 "region_bits, worker_bits, seq_bits FROM idgen.epoch ORDER BY version",
						 0, NULL);
	if (rows->ncols != 6 || rows->nrows < 1 || rows->nrows > IDGEN_MAX_EPOCHS)
		elog(ERROR, "idgen: the registry's idgen.epoch has %d rows of %d columns",
			 rows->nrows, rows->ncols);
	for (i = 0; i < rows->nrows; i++)
	{
		int			c;

		for (c = 0; c < 6; c++)
			if (registry_value(rows, i, c) == NULL)
				elog(ERROR, "idgen: the registry's idgen.epoch has a NULL in row %d", i + 1);
		epochs[i].version = (int) text_int(registry_value(rows, i, 0));
		epochs[i].start_unix_ms = text_int(registry_value(rows, i, 1));
		epochs[i].layout.epoch_unix_ms = text_int(registry_value(rows, i, 2));
		epochs[i].layout.region_bits = (int) text_int(registry_value(rows, i, 3));
		epochs[i].layout.worker_bits = (int) text_int(registry_value(rows, i, 4));
		epochs[i].layout.seq_bits = (int) text_int(registry_value(rows, i, 5));
		epochs[i].boundary = 0;
	}
	idgen_epochs_from_rows(list, epochs, rows->nrows);
}

/*
 * Does the node's block fit the layout in force now and every one scheduled
 * after it?  If not, says why in *reason.  (The registry checks this too,
 * when it leases.)
 */
static bool
block_fits(IdgenWorker *w, const IdgenEpochList *list, int first_worker,
		   char *reason, size_t reason_len)
{
	int64		now = idgen_wall_unix_ms();
	IdgenLayout narrowest = idgen_epochs_at(list, now)->layout;
	const char *problem;

	idgen_epochs_min_bits(list, now, &narrowest.region_bits, &narrowest.worker_bits);
	problem = idgen_node_check(&narrowest, w->region, first_worker,
							   pg_leftmost_one_pos32((uint32) w->worker_count));
	if (problem == NULL)
		return true;
	snprintf(reason, reason_len,
			 "the layouts from now on (at narrowest %d region and %d worker bits): %s (region %d, workers %d-%d)",
			 narrowest.region_bits, narrowest.worker_bits, problem, w->region,
			 first_worker, first_worker + w->worker_count - 1);
	return false;
}

static void
try_acquire(IdgenWorker *w)
{
	const char *p[13];
	RegistryRows *rows;
	bool		fleet;
	int64		sent;
	int64		received;
	IdgenLease	lease;
	IdgenEpochList epochs;
	char		misfit[256];

	node_prepare(w);
	registry_begin("idgen: leasing a worker id");
	if (!registry_ready(w))
	{
		flush_audit(w);
		registry_commit();
		return;
	}
	fleet = w->registry_version >= REGISTRY_FLEET_VERSION;

	sent = idgen_wall_unix_ms();
	p[0] = w->owner;
	p[1] = w->sysid;
	p[2] = int_text(w->timeline);
	p[3] = int_text(w->region);
	p[4] = int_text(idgen_worker_id);
	p[5] = int_text(w->worker_count);
	p[6] = int_text(w->worker_bits);
	p[7] = int_text(sent);
	p[8] = int_text(idgen_lease_ttl_ms);
	p[9] = int_text(hw_target());
	p[10] = w->local_hw >= 0 ? int_text(w->local_hw) : NULL;
	p[11] = int_text(IDGEN_LOCAL_SLACK_MS);
	p[12] = w->remote ? "true" : "false";
	rows = registry_exec(fleet ? acquire_sql : acquire_sql_04, fleet ? 13 : 12, p);
	received = idgen_wall_unix_ms();
	if (rows->nrows != 1 || rows->ncols != 5)
		elog(ERROR, "idgen: idgen.acquire_node_lease returned %d rows of %d columns",
			 rows->nrows, rows->ncols);

	lease.first_worker = (int) text_int(registry_value(rows, 0, 0));
	if (lease.first_worker < 0)
	{
		char		reason[256];
		int			stale = 0;

		/*
		 * Blocks this system leased on earlier timelines stay taken for good
		 * (see idgen.acquire_node_lease): after enough failovers they are
		 * what fills the region, and only an operator can free them.
		 */
		if (idgen_worker_id < 0 && !w->remote && fleet)
		{
			const char *q[4];

			q[0] = int_text(w->region);
			q[1] = w->sysid;
			q[2] = int_text(w->timeline);
			q[3] = int_text(w->worker_count);
			stale = (int) text_int(registry_value(registry_exec(
				"SELECT count(DISTINCT l.worker / $4::integer) FROM idgen.worker_lease AS l "
				"WHERE l.region = $1::integer AND l.node_sysid = $2 AND l.timeline <> $3::integer "
				"AND l.owner IS NOT NULL AND NOT l.remote", 4, q), 0, 0));
		}
		snprintf(reason, sizeof(reason),
				 idgen_worker_id >= 0 ?
				 "worker block %d of region %d is leased by another owner or not yet expired" :
				 "no free block of %d worker ids in region %d",
				 idgen_worker_id >= 0 ? idgen_worker_id : w->worker_count,
				 w->region);
		if (stale > 0)
			snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
					 "; blocks held by this node's earlier timelines: %d of %d (an old primary may still run on one); free those of primaries gone for good with idgen_fence_worker()",
					 stale, (1 << w->worker_bits) / w->worker_count);
		flush_audit(w);
		registry_commit();
		w->backoff_ms = 0;
		w->last_error[0] = '\0';
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
		if (!w->logged_missing)
			ereport(LOG, (errmsg("idgen: %s; retrying", reason)));
		w->logged_missing = true;
		return;
	}
	lease.generation = text_int(registry_value(rows, 0, 1));
	lease.hw_unix_ms = text_int(registry_value(rows, 0, 2));
	lease.start_after_unix_ms = registry_value(rows, 0, 3) ?
		text_int(registry_value(rows, 0, 3)) : -1;

	/*
	 * The registry's lease ends a TTL after it read its own clock, which
	 * was after we sent: counted from our sending, our lease ends first,
	 * however far apart the two clocks are.
	 */
	lease.lease_until_unix_ms = sent + idgen_lease_ttl_ms;
	lease.valid_until_unix_ms = valid_until(lease.lease_until_unix_ms);

	/* a lease that would not fit a layout of the registry is rolled back */
	load_epochs(&epochs);
	if (!block_fits(w, &epochs, lease.first_worker, misfit, sizeof(misfit)))
		ereport(ERROR,
				(errmsg("the leased workers do not fit %s", misfit)));
	flush_audit(w);
	registry_commit();
	w->backoff_ms = 0;
	w->last_error[0] = '\0';
	note_local_hw(w, lease.hw_unix_ms);

	/* published only once the lease and its high-water mark are durable */
	w->lease = lease;
	w->have_lease = true;
	w->logged_missing = false;
	note_skew(w, sent, received, registry_value(rows, 0, 4));
	idgen_publish_epochs(&epochs);
	if (w->skewed)
		idgen_publish_lease_held(&lease, IDGEN_STATE_CLOCK_SKEW, w->skew_reason);
	else
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
release_rows(IdgenWorker *w)
{
	const char *p[5];

	p[0] = w->owner;
	p[1] = int_text(w->region);
	p[2] = int_text(w->lease.first_worker);
	p[3] = int_text(w->worker_count);
	p[4] = int_text(w->lease.generation);
	registry_exec(release_sql, 5, p);
}

/*
 * A restore of idgen.worker_lease rows over the node's block made the node
 * give its lease up (idgen_yield_lease): it stopped issuing then, and now
 * gives back what is still its own of the block (marks kept) and leases
 * anew, above the restored high-water marks.  No collision: the rows
 * changed inside this instance, by the restore, after the node stopped.
 * Called inside a registry unit, which the caller commits; the release
 * waits for the restore to commit.
 */
static void
lease_yielded(IdgenWorker *w)
{
	char		detail[200];

	snprintf(detail, sizeof(detail),
			 "the lease of workers %d-%d of region %d (generation %lld) was given up to a restore of idgen.worker_lease",
			 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
			 w->region, (long long) w->lease.generation);
	ereport(LOG, (errmsg("idgen: %s; leasing anew", detail)));
	queue_audit(w, "lease_yielded", detail);
	w->have_lease = false;
	w->next_attempt_mono = 0;
	release_rows(w);
	flush_audit(w);
}

static void
renew(IdgenWorker *w)
{
	IdgenState	state = idgen_lease_state();
	bool		fleet = w->registry_version >= REGISTRY_FLEET_VERSION;
	const char *p[10];
	RegistryRows *rows;
	int64		sent;
	int64		received;

	registry_begin("idgen: renewing the worker lease");
	/* after a failure: the registry may have been updated, or replaced */
	if (w->registry_version == 0)
	{
		if (!registry_ready(w))
		{
			registry_commit();
			return;
		}
		fleet = w->registry_version >= REGISTRY_FLEET_VERSION;
	}
	sent = idgen_wall_unix_ms();
	p[0] = w->owner;
	p[1] = int_text(w->region);
	p[2] = int_text(w->lease.first_worker);
	p[3] = int_text(w->worker_count);
	p[4] = int_text(w->lease.generation);
	p[5] = int_text(sent);
	p[6] = int_text(idgen_lease_ttl_ms);
	/* a clock the registry disagrees with does not move the mark */
	p[7] = int_text(state == IDGEN_STATE_CLOCK_SKEW ? w->lease.hw_unix_ms : hw_target());
	p[8] = idgen_operator_disabled() ? "disabled" : idgen_state_name(state);
	p[9] = w->have_skew ? int_text(w->skew.offset_ms) : NULL;
	rows = registry_exec(fleet ? renew_sql : renew_sql_04, fleet ? 10 : 8, p);
	received = idgen_wall_unix_ms();
	if (rows->nrows != 1 || rows->ncols != 5)
		elog(ERROR, "idgen: idgen.renew_node_lease returned %d rows of %d columns",
			 rows->nrows, rows->ncols);

	if (strcmp(registry_value(rows, 0, 0), "t") == 0)
	{
		int64		hw = text_int(registry_value(rows, 0, 1));
		int64		lease_until = sent + idgen_lease_ttl_ms;
		IdgenEpochList epochs;

		load_epochs(&epochs);
		flush_audit(w);
		registry_commit();
		w->backoff_ms = 0;
		w->last_error[0] = '\0';
		note_local_hw(w, hw);
		w->lease.lease_until_unix_ms = lease_until;
		w->lease.valid_until_unix_ms = valid_until(lease_until);
		w->lease.hw_unix_ms = hw;
		/* the epochs first: the longer lease must not reach a switch unknown */
		idgen_publish_epochs(&epochs);
		idgen_publish_renewal(lease_until, w->lease.valid_until_unix_ms, hw);
		note_skew(w, sent, received, registry_value(rows, 0, 4));
		if (w->skewed)
		{
			idgen_publish_lease_state(IDGEN_STATE_CLOCK_SKEW, w->skew_reason);
			/* look again soon, not only when the renewal is due */
			w->next_attempt_mono = monotonic_ms() + IDGEN_RETRY_MS;
		}
		else if (state == IDGEN_STATE_WAITING_FOR_LEASE ||
				 state == IDGEN_STATE_CLOCK_SKEW)
			idgen_publish_lease(&w->lease);
		return;
	}
	else
	{
		const char *other = registry_value(rows, 0, 2);
		int64		other_gen = registry_value(rows, 0, 3) ?
			text_int(registry_value(rows, 0, 3)) : 0;
		int64		now = idgen_wall_unix_ms();
		bool		still_valid = now < w->lease.lease_until_unix_ms;
		char		reason[256];

		/* the rows were restored over: we stopped before the restore committed */
		if (idgen_take_yield(w->lease.first_worker, w->lease.generation))
		{
			lease_yielded(w);
			registry_commit();
			return;
		}

		/*
		 * Taken by another holder after our lease ended: nothing overlapped
		 * (we stopped before it ended, the registry let go only after), we
		 * lost the lease and lease anew.
		 */
		if (other != NULL && !still_valid)
		{
			snprintf(reason, sizeof(reason),
					 "the lease of workers %d-%d of region %d (generation %lld) ran out and was taken by \"%s\"",
					 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
					 w->region, (long long) w->lease.generation, other);
			clip_to_whole_chars(reason);
			registry_commit();
			idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
			w->have_lease = false;
			ereport(LOG, (errmsg("idgen: %s; leasing anew", reason)));
			queue_audit(w, "lease_lost", reason);
			return;
		}

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
					 "fenced or released by an operator");
		clip_to_whole_chars(reason);
		idgen_publish_lease_state(IDGEN_STATE_FENCED, reason);
		w->have_lease = false;
		ereport(WARNING, (errmsg("idgen: node fenced: %s", reason)));

		if (other != NULL && still_valid)
		{
			const char *c[3];

			c[0] = w->owner;
			c[1] = other;
			c[2] = reason;
			/* counted before the insert, which may fail: it was found */
			idgen_stats_count_collision();
			registry_exec("INSERT INTO idgen.collision (id, first_owner, second_owner, detail) VALUES (NULL, $1, $2, $3)",
						  3, c);
			queue_audit(w, "collision", reason);
		}
		else
			queue_audit(w, "fenced", reason);

		/* give back whatever of the block is still ours, marks kept */
		release_rows(w);
		flush_audit(w);
		registry_commit();
	}
}

static void
release(IdgenWorker *w)
{
	idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, "shutting down");
	if (!w->have_lease)
		return;
	registry_begin("idgen: releasing the worker lease");
	release_rows(w);
	registry_commit();
	w->have_lease = false;
}

/* When a published lease runs out unrenewed, say so in the state. */
static void
check_validity(IdgenWorker *w, const char *why)
{
	int64		now = idgen_wall_unix_ms();
	IdgenState	state = idgen_lease_state();

	if (w->have_lease && now >= w->lease.valid_until_unix_ms &&
		(state == IDGEN_STATE_ACTIVE || state == IDGEN_STATE_CLOCK_SKEW))
	{
		char		reason[256];

		snprintf(reason, sizeof(reason), "the lease could not be renewed in time: %s",
				 why ? why : "renewal failed");
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
	}
}

/*
 * A lease whose validity ended unrenewed is given up.  The generator has
 * stopped by itself; once the registry answers again the node leases
 * anew, at a new generation and above every high-water mark it recorded,
 * instead of picking up a lease it stopped trusting.  Its own rows count
 * as free to it, so it usually gets its block back.
 */
static void
lease_ran_out(IdgenWorker *w)
{
	char		detail[200];

	check_validity(w, w->last_error[0] ? w->last_error : NULL);
	snprintf(detail, sizeof(detail),
			 "the lease of workers %d-%d of region %d (generation %lld) ran out unrenewed",
			 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
			 w->region, (long long) w->lease.generation);
	ereport(LOG, (errmsg("idgen: %s; leasing anew", detail)));
	queue_audit(w, "lease_lost", detail);
	w->have_lease = false;
}

/* Bookkeeping after a unit of work failed. */
static void
work_failed(IdgenWorker *w, const char *message)
{
	int64		cap = Max(IDGEN_BACKOFF_MIN_MS,
						  Min(IDGEN_BACKOFF_MAX_MS, idgen_lease_ttl_ms / 4));
	IdgenState	state = idgen_lease_state();

	idgen_count_lease_failure();
	/* a registry that stays down says so once, not at every attempt */
	if (strcmp(message, w->last_error) != 0 && !shutdown_requested)
		ereport(LOG,
				(errmsg("idgen: lease work failed: %s", message)));
	strlcpy(w->last_error, message, sizeof(w->last_error));
	w->registry_version = 0;
	w->backoff_ms = idgen_backoff_next(w->backoff_ms, IDGEN_BACKOFF_MIN_MS, cap);
	w->next_attempt_mono = monotonic_ms() + w->backoff_ms;
	if (!w->have_lease &&
		(state == IDGEN_STATE_STARTING || state == IDGEN_STATE_WAITING_FOR_LEASE))
	{
		char		reason[256];

		snprintf(reason, sizeof(reason), "could not lease a worker id: %s", message);
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
	}
	check_validity(w, message);
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
	local_begin("idgen: cleaning expired request keys");
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
	local_commit();
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
	IdgenState	state;
	int64		mono = monotonic_ms();

	watch_clock(w);
	check_horizon(w);

	/* stays fenced until an operator runs idgen_enable() */
	if (idgen_lease_state() == IDGEN_STATE_FENCED)
	{
		if (mono >= w->next_attempt_mono)
			flush_audit_unit(w);
		return;
	}
	if (w->have_lease && idgen_take_yield(w->lease.first_worker, w->lease.generation))
	{
		registry_begin("idgen: giving the worker lease up to a restore");
		lease_yielded(w);
		registry_commit();
	}
	if (w->have_lease && idgen_wall_unix_ms() >= w->lease.valid_until_unix_ms)
		lease_ran_out(w);

	state = idgen_lease_state();
	if (!w->have_lease)
	{
		if (mono >= w->next_attempt_mono)
		{
			w->next_attempt_mono = mono + IDGEN_RETRY_MS;
			try_acquire(w);
		}
	}
	else if ((renewal_due(w) || state == IDGEN_STATE_WAITING_FOR_LEASE ||
			  state == IDGEN_STATE_CLOCK_SKEW) &&
			 mono >= w->next_attempt_mono)
		renew(w);
	if (mono >= w->next_attempt_mono)
		flush_audit_unit(w);
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

	/* the node's own tables, and the registry too unless idgen.registry is set */
	BackgroundWorkerInitializeConnection(idgen_database, NULL, 0);

	/* the high-water mark must be on disk before the generator uses it */
	SetConfigOption("synchronous_commit", "local", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("statement_timeout", "10s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("lock_timeout", "5s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("application_name", "idgen lease worker", PGC_USERSET, PGC_S_OVERRIDE);

	build_identity(&w);
	/* a restarted worker keeps what its predecessor trusted */
	idgen_pace_init(&w.pace, idgen_pace_trusted_offset());
	w.remote = registry_is_remote();
	w.local_hw = read_local_hw();
	registry_init(stop_requested);
	idgen_set_bgworker(IDGEN_MY_PROC_INDEX, w.owner);
	before_shmem_exit(forget_bgworker, (Datum) 0);

	if (idgen_config_is_broken())
	{
		ereport(LOG,
				(errmsg("idgen: the node's settings are invalid; see idgen_status() for why")));
	}
	if (w.remote)
		ereport(LOG,
				(errmsg("idgen: leasing worker ids from the shared registry (%s) as %s",
						registry_display(), w.owner)));

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
				registry_abort();
				AbortCurrentTransaction();
				pgstat_report_activity(STATE_IDLE, NULL);
				work_failed(&w, edata->message);
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

	/* a last, short attempt: the release must not hold up the shutdown */
	registry_set_final(IDGEN_RELEASE_TIMEOUT_MS);
	PG_TRY();
	{
		release(&w);
	}
	PG_CATCH();
	{
		/* the lease simply expires; its high-water mark is already durable */
		FlushErrorState();
		registry_abort();
		AbortCurrentTransaction();
	}
	PG_END_TRY();
	registry_close();
	proc_exit(0);
}
