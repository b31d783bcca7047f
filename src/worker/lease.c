/*
 * lease.c - the lease protocol: the node's block of worker ids (lease.h)
 *
 * Every statement here goes to the registry through registry_exec(), in
 * one registry unit per attempt: a lease, its high-water mark, the
 * layout epochs that come with it and the audit records queued meanwhile
 * commit together, and only then reach shared memory.  The statements'
 * text is here; the functions they call are idgen.acquire_node_lease,
 * idgen.renew_node_lease and idgen.release_node_lease of the registry.
 */
#include "worker.h"

#include "utils/timestamp.h"

#include "audit.h"
#include "clockwatch.h"
#include "lease.h"
#include "leaseanswer.h"
#include "localmark.h"
#include "nodelocal.h"
#include "registry.h"
#include "settings.h"

/*
 * The lease protocol.  A registry at 0.6 or later takes the holder's drift
 * allowance, answers with its incarnation and may hold grants back after
 * it changed (docs/fleets.md); one at 0.5 records the fleet's heartbeats
 * and answers with its own clock; an older one (only possible for a local
 * registry not yet updated) gets the calls of its version.  Every variant
 * answers the same columns, the last the registry's hold floor (R1a).
 */
/*
 * How long the registry granted, by its own clock: the TTL asked, or less
 * on a regional registry, which never grants past its region lease's
 * validity (G4, docs/regions.md).  The node counts its validity on that.
 */
#define GRANTED_MS_SQL "floor(extract(epoch FROM lease_until - registry_clock) * 1000)::bigint "

static const char *const acquire_sql_06 =
"SELECT first_worker, generation, " SQL_MS("high_water") ", "
SQL_MS("start_after") ", " SQL_MS("registry_clock") ", incarnation, "
"CASE WHEN isfinite(hold_until) THEN " SQL_MS("hold_until") " END, " SQL_REGISTRY_HOLD_FLOOR ", "
GRANTED_MS_SQL
"FROM idgen.acquire_node_lease($1, $2, $3::integer, $4::integer, $5::integer, "
"$6::integer, $7::integer, " SQL_TS(8) ", $9::bigint * interval '1 ms', "
SQL_TS(10) ", " SQL_TS(11) ", $12::bigint * interval '1 ms', $13::boolean, "
"$14::bigint * interval '1 ms')";

static const char *const acquire_sql =
"SELECT first_worker, generation, " SQL_MS("high_water") ", "
SQL_MS("start_after") ", " SQL_MS("registry_clock") ", NULL::text, NULL::bigint, " SQL_REGISTRY_HOLD_FLOOR ", NULL::bigint "
"FROM idgen.acquire_node_lease($1, $2, $3::integer, $4::integer, $5::integer, "
"$6::integer, $7::integer, " SQL_TS(8) ", $9::bigint * interval '1 ms', "
SQL_TS(10) ", " SQL_TS(11) ", $12::bigint * interval '1 ms', $13::boolean)";

static const char *const acquire_sql_04 =
"SELECT first_worker, generation, " SQL_MS("high_water") ", "
SQL_MS("start_after") ", NULL::bigint, NULL::text, NULL::bigint, " SQL_REGISTRY_HOLD_FLOOR ", NULL::bigint "
"FROM idgen.acquire_node_lease($1, $2, $3::integer, $4::integer, $5::integer, "
"$6::integer, $7::integer, " SQL_TS(8) ", $9::bigint * interval '1 ms', "
SQL_TS(10) ", " SQL_TS(11) ", $12::bigint * interval '1 ms')";

static const char *const renew_sql_06 =
"SELECT ok, " SQL_MS("high_water") ", other_owner, other_generation, "
SQL_MS("registry_clock") ", incarnation, " SQL_REGISTRY_HOLD_FLOOR ", "
GRANTED_MS_SQL
"FROM idgen.renew_node_lease($1, $2::integer, $3::integer, $4::integer, "
"$5::bigint, " SQL_TS(6) ", $7::bigint * interval '1 ms', " SQL_TS(8) ", $9, "
"$10::bigint, $11::bigint * interval '1 ms')";

static const char *const renew_sql =
"SELECT ok, " SQL_MS("high_water") ", other_owner, other_generation, "
SQL_MS("registry_clock") ", NULL::text, " SQL_REGISTRY_HOLD_FLOOR ", NULL::bigint "
"FROM idgen.renew_node_lease($1, $2::integer, $3::integer, $4::integer, "
"$5::bigint, " SQL_TS(6) ", $7::bigint * interval '1 ms', " SQL_TS(8) ", $9, "
"$10::bigint)";

static const char *const renew_sql_04 =
"SELECT ok, " SQL_MS("high_water") ", other_owner, other_generation, NULL::bigint, "
"NULL::text, " SQL_REGISTRY_HOLD_FLOOR ", NULL::bigint "
"FROM idgen.renew_node_lease($1, $2::integer, $3::integer, $4::integer, "
"$5::bigint, " SQL_TS(6) ", $7::bigint * interval '1 ms', " SQL_TS(8) ")";

static const char *const release_sql_06 =
"SELECT idgen.release_node_lease($1, $2::integer, $3::integer, $4::integer, $5::bigint, "
SQL_TS(6) ")";

static const char *const release_sql =
"SELECT idgen.release_node_lease($1, $2::integer, $3::integer, $4::integer, $5::bigint)";

/*
 * How long a lease's first raise of the mark waits for a generator that is
 * writing it: a frozen one fails the unit, which is retried, instead of
 * holding the worker up for good.
 */
#define IDGEN_MARK_WAIT_MS 2000

/* the registry's extension version as major * 100 + minor */
#define REGISTRY_FLEET_VERSION 5
#define REGISTRY_V2_VERSION 6

/* parameters and results travel as text */
static char *
int_text(int64 v)
{
	return psprintf(INT64_FORMAT, v);
}

/*
 * A lease answered to a request sent at wall time sent_wall and pace clock
 * time sent_mono (idgen_pace_clock_ms(), which no clock step moves) ends
 * on the node a TTL after the sending, less a margin for the two clocks'
 * rates (R1, docs/concepts.md): the registry read its clock after we sent,
 * so its end is later, however far apart the two clocks are.  The lease
 * client (leaseclient.c, the one every holder runs) works it out on the
 * monotonic clock; the wall clock window, which bounds the IDs' stamps,
 * is the same length from the wall clock's sending.
 */
/* the registry's grant, at most the TTL asked; NULL: the TTL */
static int64
granted_ms(const char *answer)
{
	int64		g;

	if (answer == NULL)
		return idgen_lease_ttl_ms;
	g = answer_int(answer);
	return Max(0, Min(g, idgen_lease_ttl_ms));
}

static void
take_validity(IdgenWorker *w, IdgenLease *lease, int64 sent_wall, int64 sent_mono,
			  int64 granted)
{
	lease->lease_until_unix_ms = sent_wall + granted;
	lease->valid_until_mono_ms = w->lc.valid_until_boot_ms;
	lease->valid_until_unix_ms = sent_wall + (w->lc.valid_until_boot_ms - sent_mono);
}

/*
 * How far past the registry's clock this node may stamp IDs: its clock is
 * within max_skew of the registry's (checked at every answer) and its IDs
 * within max_drift of its clock.  With the skew check off (0) nothing
 * bounds the skew; the lease's length stands in (docs/fleets.md).
 */
static int64
drift_allowance_ms(void)
{
	return idgen_max_drift_ms +
		(idgen_max_skew_ms > 0 ? idgen_max_skew_ms : idgen_lease_ttl_ms);
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

void
lease_try_acquire(IdgenWorker *w)
{
	const char *p[14];
	RegistryRows *rows;
	bool		fleet;
	bool		v2;
	int64		sent;
	int64		sent_mono;
	int64		received;
	IdgenLease	lease;
	IdgenEpochList epochs;
	char		misfit[256];
	char		split[320];
	int64		issued_floor;
	int64		granted;

	nodelocal_prepare(w);
	registry_begin("idgen: leasing a worker id");
	if (!registry_ready(w))
	{
		audit_flush(w);
		registry_commit();
		return;
	}
	fleet = w->registry_version >= REGISTRY_FLEET_VERSION;
	v2 = w->registry_version >= REGISTRY_V2_VERSION;

	sent_mono = idgen_pace_clock_ms();
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
	p[9] = int_text(localmark_target_unix_ms());
	p[10] = localmark_durable() >= 0 ? int_text(localmark_durable()) : NULL;
	p[11] = int_text(IDGEN_LOCAL_SLACK_MS);
	p[12] = w->remote ? "true" : "false";
	p[13] = int_text(drift_allowance_ms());
	rows = registry_exec(v2 ? acquire_sql_06 : fleet ? acquire_sql : acquire_sql_04,
						 v2 ? 14 : fleet ? 13 : 12, p);
	received = idgen_wall_unix_ms();
	if (rows->nrows != 1 || rows->ncols != 9)
		elog(ERROR, "idgen: idgen.acquire_node_lease returned %d rows of %d columns",
			 rows->nrows, rows->ncols);

	lease.first_worker = (int) answer_int(registry_value(rows, 0, 0));
	if (lease.first_worker < 0)
	{
		char		reason[256];
		int			stale = 0;

		/* a new incarnation of the registry holds every grant back (R7) */
		if (lease.first_worker == -2)
		{
			int64		hold = registry_value(rows, 0, 6) ?
				answer_int(registry_value(rows, 0, 6)) : 0;

			snprintf(reason, sizeof(reason),
					 "the registry (%s) is a new incarnation (restarted, promoted or restored) and grants no block until %s, when every lease it may have lost has run out",
					 registry_display(),
					 timestamptz_to_str(idgen_unix_ms_to_timestamptz(hold)));
			answer_clip(reason);
			audit_flush(w);
			registry_commit();
			w->backoff_ms = 0;
			w->last_error[0] = '\0';
			idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
			if (!w->logged_missing)
				ereport(LOG, (errmsg("idgen: %s; retrying", reason)));
			w->logged_missing = true;
			return;
		}
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
			stale = (int) answer_int(registry_value(registry_exec(
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
		audit_flush(w);
		registry_commit();
		w->backoff_ms = 0;
		w->last_error[0] = '\0';
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
		if (!w->logged_missing)
			ereport(LOG, (errmsg("idgen: %s; retrying", reason)));
		w->logged_missing = true;
		return;
	}
	lease.generation = answer_int(registry_value(rows, 0, 1));
	lease.hw_unix_ms = answer_int(registry_value(rows, 0, 2));
	/* read now: generators may have raised it under a lease still in force */
	issued_floor = localmark_durable();
	lease.start_after_unix_ms = registry_value(rows, 0, 3) ?
		answer_int(registry_value(rows, 0, 3)) : -1;
	/* a mark above our own IDs and ahead of the clock is another holder's */
	lease.foreign_mark_unix_ms =
		lease.start_after_unix_ms > issued_floor &&
		lease.start_after_unix_ms > received + idgen_max_drift_ms ?
		lease.start_after_unix_ms : -1;
	lease.foreign_mark_pace_ms = lease.foreign_mark_unix_ms < 0 ? -1 :
		idgen_pace_clock_ms() + (lease.foreign_mark_unix_ms - idgen_wall_unix_ms());
	/* above everything this node issued, whatever the registry recorded */
	lease.start_after_unix_ms = Max(lease.start_after_unix_ms, issued_floor);
	/* the node's grant is its TTL from the sending, by its own clock */
	idgen_lc_init(&w->lc, idgen_lease_ttl_ms, idgen_max_skew_ms);
	/* no longer than a hold after the registry lost it would last (R1a) */
	idgen_lc_set_hold_floor(&w->lc, answer_int(registry_value(rows, 0, 7)));
	granted = granted_ms(registry_value(rows, 0, 8));
	idgen_lc_granted(&w->lc, sent_mono, sent, sent + granted);
	take_validity(w, &lease, sent, sent_mono, granted);
	if (!answer_note_incarnation(w, registry_value(rows, 0, 5), split, sizeof(split)))
	{
		/* not ours to keep: the registry we trusted may have given it too */
		answer_split_brain(w, split);
		audit_flush(w);
		registry_commit();
		return;
	}

	/* a lease that would not fit a layout of the registry is rolled back */
	answer_load_epochs(&epochs);
	if (!answer_block_fits(w, &epochs, lease.first_worker, misfit, sizeof(misfit)))
		ereport(ERROR,
				(errmsg("the leased workers do not fit %s", misfit)));

	/*
	 * The generator issues up to the node's own durable mark, never the
	 * registry's (R3): above the new lease's floor before it is published,
	 * and before the grant is committed.  A grant the node cannot use must
	 * not stay in the registry: it would count as a lease in force, and the
	 * next grant would start above it, so that every failed try pushed the
	 * node's floor further ahead of the clock.  A higher mark than the
	 * grant needs, if the commit fails, costs nothing.
	 */
	if (localmark_raise(Max(localmark_target_unix_ms(),
							Max(lease.start_after_unix_ms, lease.hw_unix_ms) +
							localmark_reserve_ms()),
						IDGEN_MARK_WAIT_MS, ERROR) != LOCALMARK_RAISED)
		ereport(ERROR,
				(errmsg("idgen: could not raise the node's high-water mark: another process has held it for %d ms",
						IDGEN_MARK_WAIT_MS)));
	audit_flush(w);
	registry_commit();
	w->backoff_ms = 0;
	w->last_error[0] = '\0';
	lease.hw_unix_ms = localmark_durable();
	w->renew_sent_mono = sent_mono;

	/* published only once the lease and its high-water mark are durable */
	w->lease = lease;
	w->have_lease = true;
	w->logged_missing = false;
	answer_note_skew(w, sent, received, registry_value(rows, 0, 4));
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

/*
 * Renew often (R2): after the registry's last answer the node keeps at
 * least 70 % of the TTL to ride an outage through on.
 */
bool
lease_renewal_due(IdgenWorker *w)
{
	IdgenLeaseClient look = w->lc;
	int64_t		wait;

	look.ttl_ms = idgen_lease_ttl_ms;
	return idgen_lc_next(&look, idgen_pace_clock_ms(), &wait) == IDGEN_LC_RENEW;
}

/*
 * The lease is held, the calls are refused for the mark: idgen_status()
 * says why while the state stays active, and forgets it once the file
 * takes a write again.
 */
static void
note_mark_writable(IdgenWorker *w, bool writable)
{
	if (writable == !w->mark_unwritable ||
		idgen_lease_state() != IDGEN_STATE_ACTIVE)
		return;
	w->mark_unwritable = !writable;
	idgen_publish_active_reason(writable ? "" :
							  "the node's high-water mark could not be raised: its file could not be written (see the server log); IDs are issued only up to the mark");
}

/*
 * Between answers (every step of the worker): keep the node's own durable
 * mark ahead of demand, and the wall-clock window within what the
 * monotonic validity has left, in case the wall clock stepped back.
 */
void
lease_keep(IdgenWorker *w)
{
	int64		mono = idgen_pace_clock_ms();
	int64		wall = idgen_wall_unix_ms();
	bool		changed = false;

	if (!w->have_lease)
		return;
	if (wall + (w->lease.valid_until_mono_ms - mono) < w->lease.valid_until_unix_ms)
	{
		w->lease.valid_until_unix_ms = wall + (w->lease.valid_until_mono_ms - mono);
		changed = true;
	}
	/*
	 * A clock the registry disagrees with does not move the mark.  A mark
	 * that cannot be written limits issuing, which the generators refuse
	 * for, but not the lease: an error here would fail the renewal this
	 * upkeep runs inside, and the node would lose its workers over a
	 * file.  After a failed write the file is tried again a little later,
	 * not at every step.
	 */
	if (idgen_lease_state() != IDGEN_STATE_CLOCK_SKEW &&
		mono < w->lease.valid_until_mono_ms &&
		(localmark_low() || w->mark_unwritable) &&
		monotonic_ms() >= w->next_mark_try_mono)
	{
		/* a generator holding the mark's lock is raising it already */
		LocalmarkRaise r = localmark_raise(localmark_target_unix_ms(), 0, LOG);

		if (r == LOCALMARK_WRITE_FAILED)
			w->next_mark_try_mono = monotonic_ms() + IDGEN_RETRY_MS;
		note_mark_writable(w, r != LOCALMARK_WRITE_FAILED);
		changed = true;
	}
	if (localmark_durable() > w->lease.hw_unix_ms)
	{
		w->lease.hw_unix_ms = localmark_durable();
		changed = true;
	}
	if (changed)
		idgen_publish_renewal(&w->lease, false);
}

/* a clean release tells the registry the node's final mark */
static void
release_rows(IdgenWorker *w)
{
	const char *p[6];
	bool		v2;

	/*
	 * After a failure the registry's version is unknown (0), which is not
	 * an old one: a release without the mark would leave the rows' mark of
	 * the last renewal, below the IDs issued since, and the next holder of
	 * the block would start above that.  Read it; a registry that cannot
	 * say gets no release, and the lease runs out there.
	 */
	if (w->registry_version == 0 && !registry_ready(w))
		return;
	v2 = w->registry_version >= REGISTRY_V2_VERSION;

	p[0] = w->owner;
	p[1] = int_text(w->region);
	p[2] = int_text(w->lease.first_worker);
	p[3] = int_text(w->worker_count);
	p[4] = int_text(w->lease.generation);
	p[5] = int_text(Max(localmark_durable(), w->lease.hw_unix_ms));
	registry_exec(v2 ? release_sql_06 : release_sql, v2 ? 6 : 5, p);
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
void
lease_yielded(IdgenWorker *w)
{
	char		detail[200];

	snprintf(detail, sizeof(detail),
			 "the lease of workers %d-%d of region %d (generation %lld) was given up to a restore of idgen.worker_lease",
			 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
			 w->region, (long long) w->lease.generation);
	ereport(LOG, (errmsg("idgen: %s; leasing anew", detail)));
	audit_queue(w, "lease_yielded", detail);
	w->have_lease = false;
	w->next_attempt_mono = 0;
	release_rows(w);
	audit_flush(w);
}

void
lease_renew(IdgenWorker *w)
{
	IdgenState	state = idgen_lease_state();
	bool		fleet = w->registry_version >= REGISTRY_FLEET_VERSION;
	bool		v2 = w->registry_version >= REGISTRY_V2_VERSION;
	const char *p[11];
	RegistryRows *rows;
	int64		sent;
	int64		sent_mono;
	int64		received;
	char		split[320];

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
		v2 = w->registry_version >= REGISTRY_V2_VERSION;
	}
	sent_mono = idgen_pace_clock_ms();
	sent = idgen_wall_unix_ms();
	p[0] = w->owner;
	p[1] = int_text(w->region);
	p[2] = int_text(w->lease.first_worker);
	p[3] = int_text(w->worker_count);
	p[4] = int_text(w->lease.generation);
	p[5] = int_text(sent);
	p[6] = int_text(idgen_lease_ttl_ms);
	/*
	 * The registry's mark is told what the node's own allows, best effort
	 * (a clean successor may start lower): it no longer gates issuing.
	 */
	p[7] = int_text(Max(localmark_durable(), w->lease.hw_unix_ms));
	/* the fleet view shows what idgen_status() shows, a wait for the clock too */
	p[8] = idgen_operator_disabled() ? "disabled" :
		state == IDGEN_STATE_ACTIVE && idgen_logical_clock_ahead() ?
		idgen_state_name(IDGEN_STATE_CLOCK_BEHIND) : idgen_state_name(state);
	p[9] = w->have_skew ? int_text(w->skew.offset_ms) : NULL;
	p[10] = int_text(drift_allowance_ms());
	rows = registry_exec(v2 ? renew_sql_06 : fleet ? renew_sql : renew_sql_04,
						 v2 ? 11 : fleet ? 10 : 8, p);
	received = idgen_wall_unix_ms();
	if (rows->nrows != 1 || rows->ncols != 8)
		elog(ERROR, "idgen: idgen.renew_node_lease returned %d rows of %d columns",
			 rows->nrows, rows->ncols);

	if (strcmp(registry_value(rows, 0, 0), "t") == 0)
	{
		IdgenEpochList epochs;
		IdgenLease	renewed = w->lease;
		IdgenLcVerdict verdict;
		int64		granted;

		answer_load_epochs(&epochs);
		if (!answer_note_incarnation(w, registry_value(rows, 0, 5), split, sizeof(split)))
		{
			answer_split_brain(w, split);
			audit_flush(w);
			registry_commit();
			return;
		}
		audit_flush(w);
		registry_commit();
		w->backoff_ms = 0;
		w->last_error[0] = '\0';

		/*
		 * An answer that comes after the validity ended revives nothing:
		 * the lease is given up and leased anew (leaseclient.h).
		 */
		w->lc.ttl_ms = idgen_lease_ttl_ms;
		idgen_lc_set_hold_floor(&w->lc, answer_int(registry_value(rows, 0, 6)));
		granted = granted_ms(registry_value(rows, 0, 7));
		verdict = idgen_lc_answer(&w->lc, IDGEN_LC_ANS_RENEWED, sent_mono,
								  idgen_pace_clock_ms(), sent, sent,
								  sent + granted);
		if (verdict != IDGEN_LC_GO_ON)
		{
			lease_ran_out(w);
			return;
		}
		w->renew_sent_mono = sent_mono;
		take_validity(w, &renewed, sent, sent_mono, granted);
		w->lease.lease_until_unix_ms = renewed.lease_until_unix_ms;
		w->lease.valid_until_unix_ms = renewed.valid_until_unix_ms;
		w->lease.valid_until_mono_ms = renewed.valid_until_mono_ms;
		/* the epochs first: the longer lease must not reach a switch unknown */
		idgen_publish_epochs(&epochs);
		idgen_publish_renewal(&w->lease, true);
		answer_note_skew(w, sent, received, registry_value(rows, 0, 4));
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
			answer_int(registry_value(rows, 0, 3)) : 0;
		bool		still_valid = idgen_pace_clock_ms() < w->lease.valid_until_mono_ms ||
			idgen_wall_unix_ms() < w->lease.lease_until_unix_ms;
		char		reason[256];

		/* the rows were restored over: we stopped before the restore committed */
		if (idgen_take_yield(w->lease.first_worker, w->lease.generation))
		{
			lease_yielded(w);
			registry_commit();
			return;
		}

		/*
		 * Every row still ours, but the registry holds the lease as over
		 * (generation -1): it lost renewals (a failover, a restore) or its
		 * clock runs ahead of the one that granted.  It may have granted the
		 * block again before it lost that too, so the lease is not brought
		 * back: stop, and lease anew under the registry's hold.
		 */
		if (other == NULL && other_gen == -1)
		{
			snprintf(reason, sizeof(reason),
					 "the registry holds the lease of workers %d-%d of region %d (generation %lld) as expired",
					 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
					 w->region, (long long) w->lease.generation);
			registry_commit();
			idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
			w->have_lease = false;
			ereport(LOG, (errmsg("idgen: %s; leasing anew", reason)));
			audit_queue(w, "lease_lost", reason);
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
			answer_clip(reason);
			registry_commit();
			idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, reason);
			w->have_lease = false;
			ereport(LOG, (errmsg("idgen: %s; leasing anew", reason)));
			audit_queue(w, "lease_lost", reason);
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
		answer_clip(reason);
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
			audit_queue(w, "collision", reason);
		}
		else
			audit_queue(w, "fenced", reason);

		/* give back whatever of the block is still ours, marks kept */
		release_rows(w);
		audit_flush(w);
		registry_commit();
	}
}

void
lease_release(IdgenWorker *w, const char *why)
{
	idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, why);
	if (!w->have_lease)
		return;
	registry_begin("idgen: releasing the worker lease");
	release_rows(w);
	registry_commit();
	w->have_lease = false;
}

/* the lease's validity ended, by either clock (R1) */
bool
lease_ran_out_due(IdgenWorker *w)
{
	return !idgen_lc_valid(&w->lc, idgen_pace_clock_ms()) ||
		idgen_wall_unix_ms() >= w->lease.valid_until_unix_ms;
}

/* When a published lease runs out unrenewed, say so in the state. */
void
lease_check_validity(IdgenWorker *w, const char *why)
{
	IdgenState	state = idgen_lease_state();

	if (w->have_lease && lease_ran_out_due(w) &&
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
void
lease_ran_out(IdgenWorker *w)
{
	char		detail[200];

	lease_check_validity(w, w->last_error[0] ? w->last_error : NULL);
	snprintf(detail, sizeof(detail),
			 "the lease of workers %d-%d of region %d (generation %lld) ran out unrenewed",
			 w->lease.first_worker, w->lease.first_worker + w->worker_count - 1,
			 w->region, (long long) w->lease.generation);
	ereport(LOG, (errmsg("idgen: %s; leasing anew", detail)));
	audit_queue(w, "lease_lost", detail);
	w->have_lease = false;
}
