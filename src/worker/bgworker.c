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
 * This file is the loop: registration, signals, the step the loop takes
 * every IDGEN_STEP_MS (worker_step()) and the backoff after a failed one.
 * The work is in its modules, each with its header:
 *
 *   lease.c       the lease protocol and its SQL: acquire, renew, release,
 *                 fencing and collisions, skew, epochs, high-water marks;
 *   clockwatch.c  the wall clock against the monotonic one, the pacing of
 *                 clock steps, the layout's horizon;
 *   nodelocal.c   the node's own tables in idgen.database;
 *   audit.c       the queue of records for the registry's audit log;
 *   leaseanswer.c what an answer says besides the lease: skew, epochs,
 *                 the registry's incarnation;
 *   regionlease.c on a regional registry (idgen.parent_registry set): its
 *                 region leases from the root, on a connection of its own;
 * and, in the node runtime, localmark.c: the node's own durable
 * high-water mark, which the generators raise too when this worker is late.
 *
 * They share the worker's state (worker.h) and call only downwards: this
 * file calls all of them, lease.c the four others, leaseanswer.c and
 * clockwatch.c audit.c, regionlease.c lease.c's upkeep of the mark while
 * it waits for the root; none calls back.
 *
 * Each unit of work is its own transaction.  An error in one is logged and
 * counted, and the next attempt waits a little longer (up to 500 ms);
 * meanwhile the node issues on its own durable mark (localmark.c) for the
 * rest of its lease.  A lease whose renewals keep failing runs out: the
 * generator refuses from that moment on by itself, and the worker then gives the
 * lease up and leases anew, at a new generation above the old high-water
 * mark, once the registry answers again.  Losing the connection to a
 * remote registry is just such a failure.
 */
#include "worker.h"

#include <unistd.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "audit.h"
#include "bgworker.h"
#include "clock.h"
#include "clockwatch.h"
#include "lease.h"
#include "localmark.h"
#include "nodelocal.h"
#include "nodestate_writer.h"
#include "registry.h"
#include "regionlease.h"

/* how often the worker takes a step: looks at its lease and the clock */
#define IDGEN_STEP_MS 100
/*
 * The first wait after a failed unit of work; it doubles from there, up to
 * 500 ms: an attempt costs the registry one refused connection, and a node
 * issues again within a second of its registry answering (R5,
 * docs/concepts.md).
 */
#define IDGEN_BACKOFF_MIN_MS 250
#define IDGEN_BACKOFF_MAX_MS 500
/* how long the release at shutdown may wait for a remote registry */
#define IDGEN_RELEASE_TIMEOUT_MS 2000

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

/* the worker, for its upkeep while a registry request is under way */
static IdgenWorker *the_worker = NULL;

static void
while_waiting(void)
{
	if (the_worker != NULL)
		lease_keep(the_worker);
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
	lease_check_validity(w, message);
}

/*
 * The lease given back in one short attempt, which must not hold up a
 * shutdown or a move; leaves the registry's waits short.  A release that
 * fails leaves the lease to run out; its high-water mark is durable.
 */
static void
release_briefly(IdgenWorker *w, const char *why)
{
	registry_set_final(IDGEN_RELEASE_TIMEOUT_MS);
	PG_TRY();
	{
		lease_release(w, why);
	}
	PG_CATCH();
	{
		FlushErrorState();
		registry_abort();
		AbortCurrentTransaction();
	}
	PG_END_TRY();
}

/*
 * idgen.registry changed by a reload: the node moves to another shared
 * registry (docs/regions.md, "Runbook: a region moved").  It stops issuing,
 * gives the lease back to the old registry over the connection it has,
 * with its mark as the final one, as at shutdown, and leases at the new
 * one at the next step, above its own mark (localmark.h) as after any
 * lost lease.  Without that connection (a new one would reach the new
 * registry) the old lease runs out there; the node has stopped using it.
 * A fenced node stays fenced: an operator's idgen_enable() ends that.  The
 * new registry is another incarnation from the start, not a change of the
 * old one's.
 */
static void
move_registry(IdgenWorker *w)
{
	const char *why = "moving to another registry (idgen.registry changed)";
	char		to[300];

	strlcpy(to, registry_display(), sizeof(to));
	if (idgen_lease_state() == IDGEN_STATE_FENCED)
		ereport(LOG,
				(errmsg("idgen: idgen.registry changed while the node is fenced: it will lease at %s once enabled", to)));
	else
	{
		ereport(LOG,
				(errmsg("idgen: idgen.registry changed: giving the lease back and leasing at %s", to)));
		if (registry_connected())
		{
			release_briefly(w, why);
			registry_set_final(0);
		}
		else
			idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE, why);
	}
	registry_close();
	audit_queue(w, "registry_moved", psprintf("moved to %s", to));
	w->have_lease = false;
	w->registry_version = 0;
	w->have_skew = false;
	w->incarnation[0] = '\0';
	w->prev_incarnation[0] = '\0';
	w->backoff_ms = 0;
	w->next_attempt_mono = 0;
}

/* one step of the worker, every IDGEN_STEP_MS or when woken */
static void
worker_step(IdgenWorker *w)
{
	IdgenState	state;
	int64		mono = monotonic_ms();

	clockwatch_observe(w);
	clockwatch_check_horizon(w);

	/* stays fenced until an operator runs idgen_enable() */
	if (idgen_lease_state() == IDGEN_STATE_FENCED)
	{
		if (mono >= w->next_attempt_mono)
			audit_flush_unit(w);
		return;
	}
	if (w->have_lease && idgen_take_yield(w->lease.first_worker, w->lease.generation))
	{
		registry_begin("idgen: giving the worker lease up to a restore");
		lease_yielded(w);
		registry_commit();
	}
	if (w->have_lease && lease_ran_out_due(w))
		lease_ran_out(w);
	lease_keep(w);

	state = idgen_lease_state();
	if (!w->have_lease)
	{
		if (mono >= w->next_attempt_mono)
		{
			w->next_attempt_mono = mono + IDGEN_RETRY_MS;
			lease_try_acquire(w);
		}
	}
	else if ((lease_renewal_due(w) || state == IDGEN_STATE_WAITING_FOR_LEASE ||
			  state == IDGEN_STATE_CLOCK_SKEW) &&
			 mono >= w->next_attempt_mono)
		lease_renew(w);
	if (mono >= w->next_attempt_mono)
		audit_flush_unit(w);
	if (w->have_lease)
		nodelocal_clean_expired(w);
	/* last: a slow root delays nothing above (bounded waits, own errors) */
	regionlease_step(w);
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

	/*
	 * Commits keep the server's synchronous_commit: a grant or renewal in a
	 * local registry with synchronous standbys is on them before the node
	 * trusts it (R6).  The generator's own mark is a file (localmark.h).
	 */
	SetConfigOption("statement_timeout", "10s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("lock_timeout", "5s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("application_name", "idgen lease worker", PGC_USERSET, PGC_S_OVERRIDE);

	build_identity(&w);
	/* a restarted worker keeps what its predecessor trusted */
	idgen_pace_init(&w.pace, idgen_pace_trusted_offset());
	w.remote = registry_is_remote();
	(void) localmark_load();
	the_worker = &w;
	registry_init(stop_requested, while_waiting);
	regionlease_init(stop_requested);
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
				worker_step(&w);
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
			lease_check_validity(&w, NULL);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(work_ctx);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 IDGEN_STEP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			char	   *registry_before = pstrdup(idgen_registry);

			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			if (w.remote && strcmp(registry_before, idgen_registry) != 0)
				move_registry(&w);
			pfree(registry_before);
		}
	}

	release_briefly(&w, "shutting down");
	regionlease_release_all(&w);
	registry_close();
	proc_exit(0);
}
