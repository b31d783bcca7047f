/*
 * nodestate.c - the node's shared memory, its seqlock and the configuration
 * derived at every write
 *
 * The struct and its locking protocol are in nodestate.h.  Here: setting
 * the memory up, the two halves of a seqlock write (idgen_config_begin,
 * idgen_config_end), and what every write derives from the fields it
 * changed (the state, the issue window, the limit, the epoch in force and
 * its tick floor).  Who changes the lease, the operator's switch and the
 * registry's answer is nodestate_writer.c; the copy idgen_status() shows
 * is adt/sql_status.c.
 */
#include "nodestate.h"

#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "base.h"
#include "clock.h"
#include "settings.h"
#include "core/tick.h"

#define IDGEN_LWLOCK_TRANCHE "idgen"

IdgenShared *idgen_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static int
idgen_slot_count(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS;
}

static Size
idgen_shmem_size(void)
{
	return add_size(offsetof(IdgenShared, slots),
					mul_size(idgen_slot_count(), sizeof(IdgenBackendSlot)));
}

static void
idgen_shmem_request_hook(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(idgen_shmem_size());
	RequestNamedLWLockTranche(IDGEN_LWLOCK_TRANCHE, 2);
}

/*
 * The one range of wall-clock times (Unix ms) in which a generator may
 * issue without a further check (tick.h): the state is active, the clock
 * is past the range space and the time origin, and before the lease's
 * validity ends, the next layout epoch begins and the time field runs
 * out.  Outside it the generator's slow path makes each check in turn, to
 * wait or to say which one refused.
 */
static void
idgen_set_window(IdgenConfig *cfg)
{
	IdgenIssueWindow w = idgen_issue_window(cfg->state == IDGEN_STATE_ACTIVE,
											IDGEN_RANGE_SPACE_END_UNIX_MS,
											cfg->origin_unix_ms, cfg->horizon_ms,
											cfg->valid_until_unix_ms,
											cfg->switch_at_unix_ms);

	cfg->window_start_unix_ms = w.start;
	cfg->window_end_unix_ms = w.end;
}

/*
 * The node's shape comes from the GUCs; which workers it holds comes later,
 * from the background worker's lease.  A bad combination of settings does
 * not stop the server: the node comes up disabled and says why.
 */
static void
idgen_configure_node(IdgenShared *sh)
{
	IdgenConfig *cfg = &sh->config;
	const char *problem;
	int			block_bits = 0;

	idgen_epochs_init(&sh->epochs.list);
	cfg->layout = sh->epochs.list.epochs[0].layout;
	cfg->epoch_version = 1;
	cfg->switch_at_unix_ms = PG_INT64_MAX;
	while ((1 << block_bits) < idgen_workers_per_node)
		block_bits++;
	cfg->block_bits = block_bits;

	cfg->region = idgen_region_id;
	cfg->first_worker = -1;
	cfg->worker_count = 1 << block_bits;
	cfg->counter_bits = block_bits + cfg->layout.seq_bits;
	cfg->time_shift = idgen_layout_time_shift(&cfg->layout);
	cfg->origin_unix_ms = cfg->layout.origin_unix_ms;
	cfg->horizon_ms = idgen_layout_max_ms(&cfg->layout);
	cfg->hw_ms = -1;
	cfg->limit_ms = -1;
	cfg->valid_until_unix_ms = 0;
	cfg->lease_until_unix_ms = 0;
	cfg->generation = 0;
	cfg->node_bits = 0;

	problem = idgen_node_check(&cfg->layout, cfg->region,
							   idgen_worker_id >= 0 ? idgen_worker_id : 0,
							   block_bits);
	if (problem != NULL)
	{
		sh->config_broken = true;
		snprintf(sh->disabled_reason, sizeof(sh->disabled_reason),
				 "configuration: %s (idgen.region_id = %d, idgen.worker_id = %d, idgen.workers_per_node = %d)",
				 problem, idgen_region_id, idgen_worker_id,
				 idgen_workers_per_node);
	}
	sh->lease_state = IDGEN_STATE_STARTING;
	strlcpy(sh->reason, "the background worker has not leased a worker id yet",
			sizeof(sh->reason));
	cfg->state = sh->config_broken ? IDGEN_STATE_DISABLED : IDGEN_STATE_STARTING;
	idgen_set_window(cfg);
}

static void
idgen_shmem_startup_hook(void)
{
	bool		found;
	int			i;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	idgen_shared = ShmemInitStruct("idgen", idgen_shmem_size(), &found);
	if (!found)
	{
		IdgenShared *sh = idgen_shared;

		memset(sh, 0, idgen_shmem_size());
		for (i = 0; i <= IDGEN_MAX_EPOCHS; i++)
			pg_atomic_init_u64(&sh->ticks[i].value, 0);
		idgen_clock_shmem_init(&sh->clock);
		pg_atomic_init_u64(&sh->hw_wanted_unix_ms, 0);
		pg_atomic_init_u32(&sh->config_seq, 0);
		sh->lock = &(GetNamedLWLockTranche(IDGEN_LWLOCK_TRANCHE))[0].lock;
		sh->mark_lock = &(GetNamedLWLockTranche(IDGEN_LWLOCK_TRANCHE))[1].lock;
		pg_atomic_init_u64(&sh->local_mark, 0);
		sh->bgworker_procno = -1;
		sh->issued_floor_unix_ms = -1;
		sh->foreign_mark_unix_ms = -1;
		sh->foreign_mark_pace_ms = -1;
		/* a per-start token: this start is a different lease owner */
		if (!pg_strong_random(&sh->start_token, sizeof(sh->start_token)))
			sh->start_token = (uint64) GetCurrentTimestamp() ^ (uint64) MyProcPid;
		idgen_configure_node(sh);
		pg_atomic_init_u64(&sh->seq_exhaustions, 0);
		pg_atomic_init_u64(&sh->clock_waits, 0);
		pg_atomic_init_u64(&sh->clock_wait_ms, 0);
		pg_atomic_init_u64(&sh->clock_refusals, 0);
		pg_atomic_init_u64(&sh->lease_renewals, 0);
		pg_atomic_init_u64(&sh->lease_failures, 0);
		pg_atomic_init_u64(&sh->fencing_events, 0);
		pg_atomic_init_u64(&sh->clock_jumps_forward, 0);
		pg_atomic_init_u64(&sh->clock_steps_back, 0);
		pg_atomic_init_u64(&sh->collisions, 0);
		pg_atomic_init_u64(&sh->max_drift_ms, 0);
		/* set up again after a crash, like the counters */
		sh->started_at = GetCurrentTimestamp();
		pg_atomic_init_u64(&sh->shared_slot.ids, 0);
		pg_atomic_init_u64(&sh->shared_slot.ids128, 0);
		pg_atomic_init_u64(&sh->shared_slot.batches, 0);
		sh->nslots = idgen_slot_count();
		for (i = 0; i < sh->nslots; i++)
		{
			pg_atomic_init_u64(&sh->slots[i].ids, 0);
			pg_atomic_init_u64(&sh->slots[i].ids128, 0);
			pg_atomic_init_u64(&sh->slots[i].batches, 0);
		}
	}
	idgen_clock_attach(&idgen_shared->clock);
	LWLockRelease(AddinShmemInitLock);
}

void
idgen_shmem_request(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = idgen_shmem_request_hook;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = idgen_shmem_startup_hook;
}

bool
idgen_is_loaded(void)
{
	return idgen_shared != NULL;
}

void
idgen_require_loaded(void)
{
	if (idgen_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("idgen is not loaded through shared_preload_libraries"),
				 errdetail("IDs are generated in shared memory, which only a preloaded library can set up; the types and decoding functions work without it."),
				 errhint("Add idgen to shared_preload_libraries.")));
}

void
idgen_wake_bgworker(void)
{
	int			procno;

	if (idgen_shared == NULL)
		return;
	LWLockAcquire(idgen_shared->lock, LW_SHARED);
	procno = idgen_shared->bgworker_procno;
	LWLockRelease(idgen_shared->lock);
	if (procno >= 0)
		SetLatch(&GetPGProcByNumber(procno)->procLatch);
}

/* why the node is in state, as the last writer put it */
void
idgen_state_reason(IdgenState state, char *reason, Size size)
{
	LWLockAcquire(idgen_shared->lock, LW_SHARED);
	strlcpy(reason, state == IDGEN_STATE_DISABLED ?
			idgen_shared->disabled_reason : idgen_shared->reason, size);
	LWLockRelease(idgen_shared->lock);
}

const char *
idgen_state_name(IdgenState state)
{
	switch (state)
	{
		case IDGEN_STATE_STARTING:
			return "starting";
		case IDGEN_STATE_ACTIVE:
			return "active";
		case IDGEN_STATE_WAITING_FOR_LEASE:
			return "waiting_for_lease";
		case IDGEN_STATE_DISABLED:
			return "disabled";
		case IDGEN_STATE_FENCED:
			return "fenced";
		case IDGEN_STATE_CLOCK_BEHIND:
			return "clock_behind";
		case IDGEN_STATE_RECOVERY:
			return "recovery";
		case IDGEN_STATE_CLOCK_SKEW:
			/* the contract's states: the clock cannot be trusted (see reason) */
			return "clock_behind";
	}
	return "unknown";
}

/*
 * Writers of the configuration.  Each change happens under lock
 * inside an odd config_seq, so generators see all of it or none of it, and
 * a reservation made across a change is thrown away (nodestate.h).
 */
void
idgen_config_begin(void)
{
	LWLockAcquire(idgen_shared->lock, LW_EXCLUSIVE);
	pg_atomic_fetch_add_u32(&idgen_shared->config_seq, 1);
}

void
idgen_config_end(void)
{
	IdgenShared *sh = idgen_shared;

	if (sh->config_broken || sh->operator_disabled)
		sh->config.state = IDGEN_STATE_DISABLED;
	else
		sh->config.state = sh->lease_state;
	idgen_set_window(&sh->config);
	pg_write_barrier();
	pg_atomic_fetch_add_u32(&sh->config_seq, 1);
	LWLockRelease(sh->lock);
}

/*
 * Inside a configuration write: true if the node's block fits the layout in
 * force; if not, fences the node with the reason and returns false.
 */
static bool
idgen_fence_if_misfit(IdgenShared *sh)
{
	IdgenConfig *cfg = &sh->config;
	const char *problem = idgen_node_check(&cfg->layout, cfg->region,
										   cfg->first_worker, cfg->block_bits);

	if (problem == NULL)
		return true;
	sh->lease_state = IDGEN_STATE_FENCED;
	snprintf(sh->reason, sizeof(sh->reason),
			 "layout epoch %d does not fit this node: %s (region %d, workers %d-%d)",
			 cfg->epoch_version, problem, cfg->region, cfg->first_worker,
			 cfg->first_worker + cfg->worker_count - 1);
	cfg->valid_until_unix_ms = 0;
	return false;
}

/*
 * The write side's helpers run inside idgen_config_begin/end only: under
 * the lock exclusive, with the sequence odd, so no reader takes a half
 * written configuration for a whole one.
 */
#define ASSERT_CONFIG_WRITING() \
	Assert(LWLockHeldByMeInMode(idgen_shared->lock, LW_EXCLUSIVE) && \
		   (pg_atomic_read_u32(&idgen_shared->config_seq) & 1) != 0)

/*
 * No tick past the durable mark, the horizon, or the next epoch's start;
 * and none on the fast path within the mark's last quarter reserve
 * (idgen_mark_soft_ms()): a generator there finds the mark's keeper late
 * and raises the mark itself, long before a call has to wait for it.
 */
void
idgen_set_limit(IdgenConfig *cfg)
{
	IdgenIssueLimits l = idgen_config_limits(cfg);

	ASSERT_CONFIG_WRITING();
	if (l.mark_ms >= 0)
		l.mark_ms -= Min(l.mark_ms, idgen_mark_soft_ms(idgen_max_drift_ms));
	cfg->limit_ms = idgen_issue_limit(&l);
}

/*
 * Inside a configuration write: raise the tick word of the epoch in force
 * so that its next tick lies at or after the epoch's first millisecond and
 * above issued_floor_unix_ms.  Compare-and-swap, as generators that read
 * the configuration before this write may still be advancing the word
 * (they throw their reservation away afterwards, but the word moved).
 */
void
idgen_raise_tick_floor(IdgenShared *sh, int64 epoch_start_unix_ms)
{
	IdgenConfig *cfg = &sh->config;
	pg_atomic_uint64 *tick = &sh->ticks[cfg->epoch_version].value;
	int64		first_ms = epoch_start_unix_ms - cfg->origin_unix_ms;
	uint64		floor_tick;
	uint64		old;

	ASSERT_CONFIG_WRITING();
	if (sh->issued_floor_unix_ms >= 0)
		first_ms = Max(first_ms, sh->issued_floor_unix_ms + 1 - cfg->origin_unix_ms);
	if (first_ms <= 0)
		return;
	floor_tick = ((uint64) first_ms << cfg->counter_bits) - 1;
	old = pg_atomic_read_u64(tick);
	while (old < floor_tick &&
		   !pg_atomic_compare_exchange_u64(tick, &old, floor_tick))
		;
}

/*
 * Inside a configuration write: issue under the epoch in force at now_unix,
 * and arm the switch to the one after it.  Every tick this process issued
 * so far belongs to an earlier epoch and lies before this one's start (the
 * limit stopped it there), so the new epoch's tick word starts just below
 * its start: its first ID is its boundary or above.  Earlier leases (an
 * earlier run of this node, or another holder of the block) may have
 * issued in this very epoch, up to issued_floor_unix_ms: the word starts
 * above that too.
 */
void
idgen_follow_epochs(IdgenShared *sh, int64 now_unix)
{
	IdgenConfig *cfg = &sh->config;
	const IdgenEpoch *e = idgen_epochs_at(&sh->epochs.list, now_unix);
	const IdgenEpoch *next;

	ASSERT_CONFIG_WRITING();
	if (e->version > cfg->epoch_version)
	{
		int64		old_origin_ms = cfg->origin_unix_ms;

		cfg->layout = e->layout;
		cfg->epoch_version = e->version;
		cfg->origin_unix_ms = e->layout.origin_unix_ms;
		cfg->counter_bits = cfg->block_bits + e->layout.seq_bits;
		cfg->time_shift = idgen_layout_time_shift(&e->layout);
		cfg->horizon_ms = idgen_layout_max_ms(&e->layout);
		if (cfg->hw_ms >= 0)
			cfg->hw_ms += old_origin_ms - cfg->origin_unix_ms;
		/* the schedule refuses layouts that do not fit; never issue under one */
		if (cfg->first_worker >= 0 && idgen_fence_if_misfit(sh))
			cfg->node_bits = idgen_node_bits(&e->layout, cfg->region,
											 cfg->first_worker);
		idgen_raise_tick_floor(sh, e->start_unix_ms);
	}
	next = idgen_epochs_version(&sh->epochs.list, cfg->epoch_version + 1);
	cfg->switch_at_unix_ms = next != NULL ? next->start_unix_ms : PG_INT64_MAX;
	idgen_set_limit(cfg);
}

/* The first reservation past a switch time makes the switch. */
void
idgen_switch_epoch(void)
{
	IdgenShared *sh = idgen_shared;

	idgen_config_begin();
	idgen_follow_epochs(sh, idgen_wall_unix_ms());
	idgen_config_end();
}

/*
 * A consistent copy of the node's epochs, for decoding.  Returns false (and
 * copies nothing) before the background worker has read them; *seq tells
 * whether a copy taken earlier is still current.
 */
bool
idgen_epochs_copy(IdgenEpochList *list, uint32 *seq_out)
{
	IdgenNodeEpochs copy;

	if (idgen_shared == NULL)
		return false;
	idgen_seq_copy(&copy, &idgen_shared->epochs, sizeof(copy), seq_out);
	if (copy.loaded)
		*list = copy.list;
	return copy.loaded;
}

/* changes whenever the configuration or the epochs may have */
uint32
idgen_config_version(void)
{
	return idgen_shared != NULL ? pg_atomic_read_u32(&idgen_shared->config_seq) : 0;
}

bool
idgen_config_is_broken(void)
{
	return idgen_shared->config_broken;
}

void
idgen_node_shape(int *region, int *worker_count, int *worker_bits)
{
	*region = idgen_shared->config.region;
	*worker_count = idgen_shared->config.worker_count;
	*worker_bits = idgen_shared->config.layout.worker_bits;
}

uint64
idgen_start_token(void)
{
	return idgen_shared->start_token;
}


/* the first Unix millisecond the current layout cannot hold */
int64
idgen_horizon_unix_ms(void)
{
	return idgen_shared->config.horizon_ms + 1 + idgen_shared->config.origin_unix_ms;
}

/* A generator waits for the mark to cover unix_ms: ask for it. */
void
idgen_want_hw(int64 unix_ms)
{
	uint64		want = (uint64) unix_ms;
	uint64		wanted = pg_atomic_read_u64(&idgen_shared->hw_wanted_unix_ms);

	while (wanted < want &&
		   !pg_atomic_compare_exchange_u64(&idgen_shared->hw_wanted_unix_ms,
										   &wanted, want))
		;
}

/* the furthest millisecond a generator has asked the mark to cover */
int64
idgen_hw_wanted_unix_ms(void)
{
	return (int64) pg_atomic_read_u64(&idgen_shared->hw_wanted_unix_ms);
}

/* the last issued millisecond in Unix ms, or -1 */
int64
idgen_logical_unix_ms(void)
{
	IdgenConfig cfg;
	uint32		seq;
	uint64		last;

	idgen_read_config(&cfg, &seq);
	last = pg_atomic_read_u64(&idgen_shared->ticks[cfg.epoch_version].value);
	if (last == 0)
		return -1;
	return (int64) (last >> cfg.counter_bits) + cfg.origin_unix_ms;
}

/* The logical clock ran ahead_ms ahead of the wall clock: keep the maximum. */
void
idgen_stats_note_drift(int64 ahead_ms)
{
	uint64		seen;

	if (idgen_shared == NULL || ahead_ms <= 0)
		return;
	seen = pg_atomic_read_u64(&idgen_shared->max_drift_ms);
	while (seen < (uint64) ahead_ms &&
		   !pg_atomic_compare_exchange_u64(&idgen_shared->max_drift_ms, &seen,
										   (uint64) ahead_ms))
		;
}

/*
 * Whether the logical clock runs further ahead of the wall clock than
 * idgen.max_drift lets IDs run: idgen_status() and the fleet view then say
 * clock_behind, although the lease is active.
 */
bool
idgen_logical_clock_ahead(void)
{
	IdgenConfig cfg;
	uint32		seq;
	uint64		last;

	idgen_read_config(&cfg, &seq);
	last = pg_atomic_read_u64(&idgen_shared->ticks[cfg.epoch_version].value);
	return idgen_clock_runs_ahead(&cfg, last, idgen_wall_unix_ms());
}

/*
 * The mark of another holder that the node waits for (foreign_mark_unix_ms
 * of its lease) until the clock passed it, by the pace clock; -1 when the
 * logical clock leads the wall clock for another reason (a clock that
 * stepped back, the node's own IDs after a restart).
 */
int64
idgen_foreign_mark_wait(void)
{
	IdgenShared *sh = idgen_shared;
	int64		mark;
	int64		pass_pace_ms;

	LWLockAcquire(sh->lock, LW_SHARED);
	mark = sh->foreign_mark_unix_ms;
	pass_pace_ms = sh->foreign_mark_pace_ms;
	LWLockRelease(sh->lock);
	return mark >= 0 && idgen_pace_clock_ms() < pass_pace_ms ? mark : -1;
}
