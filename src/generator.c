/*
 * generator.c - the shared-memory ID generator and its SQL entry points
 *
 * Every backend of a node draws IDs from one logical clock kept in shared
 * memory.  The hot path is one clock read and one compare-and-swap: no
 * lock, no table access, no allocation, no WAL.
 *
 * Locking protocol
 *   ticks[k]       Atomic: the last tick issued under layout epoch k (a
 *                  tick's meaning depends on the layout, so each epoch has
 *                  its own).  Advanced only by compare-and-swap from the
 *                  value the reservation was computed from, so reservations
 *                  are disjoint and strictly ascending across all backends.
 *                  A backend that read the configuration before an epoch
 *                  switch can only touch the old epoch's word, and then
 *                  throws its reservation away (below).
 *   config, epochs Written only under config_lock, between two increments
 *                  of config_seq (odd while a write is under way).  Readers
 *                  copy it without a lock and retry on a changed sequence.
 *                  A generator rereads config_seq after its compare-and-swap
 *                  and throws its reservation away if the configuration
 *                  changed in between: that leaves a gap, never an ID made
 *                  under a lease the node no longer holds.
 *   max_wall_ms    Atomic maximum of the wall clocks seen, raised about once
 *                  a millisecond; a clock read more than a millisecond below
 *                  it is a rollback.
 *   slots          One per PGPROC, each written only by its own backend with
 *                  plain (unlocked) atomic stores; readers add them up.
 *                  ids counts 64-bit IDs, ids128 the 128-bit ones.
 *   other counters Atomics, touched only off the fast path.
 *
 * The background worker (bgworker.c) is the only writer of the lease part
 * of the configuration: which workers the node holds, until when, and the
 * high-water mark it has made durable.  No tick is ever issued past that
 * mark, and none after the lease's validity ends, so a node that crashes,
 * stalls or is fenced cannot have issued anything its successor might.
 */
#include "idgen.h"

#include <time.h>

#include "access/xlog.h"
#include "funcapi.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "epochs.h"
#include "errcodes.h"
#include "registry.h"
#include "clockpace.h"
#include "tick.h"

typedef struct IdgenConfig
{
	IdgenState	state;
	int			counter_bits;	/* log2(workers) + sequence bits */
	int			time_shift;
	uint64		node_bits;
	int64		epoch_unix_ms;
	int64		limit_ms;		/* min(horizon_ms, hw_ms): no tick past it */
	int64		horizon_ms;		/* last millisecond the time field holds */
	int64		hw_ms;			/* durable high-water mark, layout ms */
	int64		valid_until_unix_ms;	/* stop issuing at this wall time */
	int64		switch_at_unix_ms;	/* next epoch starts; INT64_MAX: none */
	int			epoch_version;	/* the layout epoch issuing now */
	/* the hot path copies only the fields above; the rest is for status */
	int64		lease_until_unix_ms;
	int64		generation;
	int			region;
	int			first_worker;
	int			worker_count;
	int			block_bits;		/* log2(worker_count) */
	IdgenLayout layout;
} IdgenConfig;

typedef struct IdgenNodeEpochs
{
	bool		loaded;			/* false until read from the registry */
	IdgenEpochList list;
} IdgenNodeEpochs;

/* one tick word per epoch, each alone on its cache line */
typedef struct IdgenTickWord
{
	pg_atomic_uint64 value;
	char		pad[PG_CACHE_LINE_SIZE - sizeof(pg_atomic_uint64)];
} IdgenTickWord;

typedef struct IdgenBackendSlot
{
	pg_atomic_uint64 ids;
	pg_atomic_uint64 ids128;
	pg_atomic_uint64 batches;
	char		pad[PG_CACHE_LINE_SIZE - 3 * sizeof(pg_atomic_uint64)];
} IdgenBackendSlot;

typedef struct IdgenShared
{
	/* written on every reservation; index 0 unused, k: epoch k */
	IdgenTickWord ticks[IDGEN_MAX_EPOCHS + 1];

	/* written about once a millisecond */
	pg_atomic_uint64 max_wall_ms;
	/* latest millisecond (Unix) a generator waited for the high-water mark */
	pg_atomic_uint64 hw_wanted_unix_ms;
	char		pad1[PG_CACHE_LINE_SIZE - sizeof(pg_atomic_uint64)];

	/*
	 * Read on every reservation, written by the background worker about
	 * once in 100 ms and by a generator about once in 20 ms: the wall
	 * clock's pacing (clockpace.h).  pace_offset_ms is the trusted
	 * wall - monotonic difference (an int64); a raw wall reading at or
	 * below pace_ceiling_ms needs no pacing check.
	 */
	pg_atomic_uint64 pace_offset_ms;
	pg_atomic_uint64 pace_ceiling_ms;

	/* read on every reservation, rarely written */
	pg_atomic_uint32 config_seq;
	IdgenConfig config;
	IdgenNodeEpochs epochs;		/* every epoch the registry has */
	slock_t		config_lock;
	/* the rest of this group is protected by config_lock */
	IdgenState	lease_state;	/* what the lease alone allows */
	bool		operator_disabled;
	bool		config_broken;	/* bad GUCs: never lease */
	char		reason[256];	/* why the lease state is what it is */
	char		disabled_reason[256];
	char		owner[IDGEN_OWNER_LEN];
	int			bgworker_procno;	/* -1 while no background worker runs */
	uint64		start_token;
	bool		have_clock_skew;	/* measured against a registry yet */
	int64		clock_skew_ms;	/* this node's clock minus the registry's */
	/*
	 * Unix ms at or below which earlier leases may have issued (the highest
	 * start_after any lease brought); -1: none.  Every epoch's tick word is
	 * raised above it, when a lease brings it and when the node switches
	 * into the epoch later: a mark from a later epoch than the one in force
	 * must still bind that epoch once it begins.
	 */
	int64		issued_floor_unix_ms;
	/* a lease given up under a restore (idgen_yield_lease); 0: none */
	int			yielded_first_worker;
	int64		yielded_generation;

	/* off the fast path */
	pg_atomic_uint64 seq_exhaustions;
	pg_atomic_uint64 clock_rollbacks;
	pg_atomic_uint64 clock_waits;
	pg_atomic_uint64 clock_wait_ms;
	pg_atomic_uint64 clock_refusals;
	pg_atomic_uint64 lease_renewals;
	pg_atomic_uint64 lease_failures;
	pg_atomic_uint64 fencing_events;
	pg_atomic_uint64 clock_jumps_forward;
	pg_atomic_uint64 clock_steps_back;
	IdgenBackendSlot shared_slot;	/* for processes without a PGPROC index */

	int			nslots;
	IdgenBackendSlot slots[FLEXIBLE_ARRAY_MEMBER];
} IdgenShared;

static IdgenShared *idgen_shared = NULL;

static void idgen_follow_epochs(IdgenShared *sh, int64 now_unix);
static void idgen_set_limit(IdgenConfig *cfg);
static void idgen_switch_epoch(void);
static IdgenBackendSlot *my_slot = NULL;
static bool recovery_over = false;

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
	cfg->epoch_unix_ms = cfg->layout.epoch_unix_ms;
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
		pg_atomic_init_u64(&sh->max_wall_ms, 0);
		pg_atomic_init_u64(&sh->hw_wanted_unix_ms, 0);
		/* the clock at start-up is trusted: nothing else is known */
		pg_atomic_init_u64(&sh->pace_offset_ms,
						   (uint64) (idgen_raw_wall_unix_ms() - idgen_pace_clock_ms()));
		pg_atomic_init_u64(&sh->pace_ceiling_ms, 0);
		pg_atomic_init_u32(&sh->config_seq, 0);
		SpinLockInit(&sh->config_lock);
		sh->bgworker_procno = -1;
		sh->issued_floor_unix_ms = -1;
		/* a per-start token: this start is a different lease owner */
		if (!pg_strong_random(&sh->start_token, sizeof(sh->start_token)))
			sh->start_token = (uint64) GetCurrentTimestamp() ^ (uint64) MyProcPid;
		idgen_configure_node(sh);
		pg_atomic_init_u64(&sh->seq_exhaustions, 0);
		pg_atomic_init_u64(&sh->clock_rollbacks, 0);
		pg_atomic_init_u64(&sh->clock_waits, 0);
		pg_atomic_init_u64(&sh->clock_wait_ms, 0);
		pg_atomic_init_u64(&sh->clock_refusals, 0);
		pg_atomic_init_u64(&sh->lease_renewals, 0);
		pg_atomic_init_u64(&sh->lease_failures, 0);
		pg_atomic_init_u64(&sh->fencing_events, 0);
		pg_atomic_init_u64(&sh->clock_jumps_forward, 0);
		pg_atomic_init_u64(&sh->clock_steps_back, 0);
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

/* monotonic, and counting a suspend, which the wall clock also sees pass */
#ifdef CLOCK_BOOTTIME
#define IDGEN_PACE_CLOCK CLOCK_BOOTTIME
#else
#define IDGEN_PACE_CLOCK CLOCK_MONOTONIC
#endif

/* the system's wall clock as it is, without pacing or the test offset */
int64
idgen_raw_wall_unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64
idgen_pace_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(IDGEN_PACE_CLOCK, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The wall clock is ahead of pace_ceiling_ms: see how far the monotonic
 * clock vouches for it (clockpace.h).  A reading it vouches for raises the
 * ceiling, so the next one needs no second clock read.
 */
static pg_noinline int64
idgen_paced_wall(int64 wall)
{
	IdgenShared *sh = idgen_shared;
	int64		limit = idgen_pace_limit((int64) pg_atomic_read_u64(&sh->pace_offset_ms),
										 idgen_pace_clock_ms());
	uint64		ceiling;

	if (wall > limit)
		return limit;
	ceiling = pg_atomic_read_u64(&sh->pace_ceiling_ms);
	while (ceiling < (uint64) limit &&
		   !pg_atomic_compare_exchange_u64(&sh->pace_ceiling_ms, &ceiling, (uint64) limit))
		;
	return wall;
}

/*
 * The wall clock IDs are issued by, read once per ID:
 * clock_gettime(CLOCK_REALTIME), which the vDSO answers in user space.
 * (An extrapolation from the TSC was 9 ns faster, bench/clock_read.sh, but
 * its rate came from samples that a preemption could skew, leaving a
 * backend's clock milliseconds off for its life.)  A reading past
 * pace_ceiling_ms goes through the pacing check, which holds back a step
 * forward that the monotonic clock does not confirm; the test offset is
 * added after it, as a deliberate shift rather than a jump.
 */
int64
idgen_wall_unix_ms(void)
{
	int64		wall = idgen_raw_wall_unix_ms();

	if (likely(idgen_shared != NULL) &&
		unlikely((uint64) wall > pg_atomic_read_u64(&idgen_shared->pace_ceiling_ms)))
		wall = idgen_paced_wall(wall);
	return wall + idgen_clock_offset_total_ms;
}

/* what the background worker trusts of the wall clock (clockpace.h) */
int64
idgen_pace_trusted_offset(void)
{
	return (int64) pg_atomic_read_u64(&idgen_shared->pace_offset_ms);
}

void
idgen_pace_publish(int64 trusted_offset_ms)
{
	IdgenShared *sh = idgen_shared;

	if ((int64) pg_atomic_read_u64(&sh->pace_offset_ms) == trusted_offset_ms)
		return;
	pg_atomic_write_u64(&sh->pace_offset_ms, (uint64) trusted_offset_ms);
	/* a lower offset must not leave a higher ceiling behind */
	pg_atomic_write_u64(&sh->pace_ceiling_ms, 0);
}

#define IDGEN_HOT_CONFIG_SIZE offsetof(IdgenConfig, lease_until_unix_ms)

/* Copy size bytes of what config_seq guards, consistently. */
static inline void
idgen_seq_copy(void *dst, const void *src, Size size, uint32 *seq_out)
{
	IdgenShared *sh = idgen_shared;

	for (;;)
	{
		uint32		seq = pg_atomic_read_u32(&sh->config_seq);

		if (seq & 1)
		{
			pg_spin_delay();
			continue;
		}
		pg_read_barrier();
		memcpy(dst, src, size);
		pg_read_barrier();
		if (pg_atomic_read_u32(&sh->config_seq) == seq)
		{
			*seq_out = seq;
			return;
		}
	}
}

/* Copy the first size bytes of the configuration, consistently. */
static inline void
idgen_read_config_part(IdgenConfig *cfg, Size size, uint32 *seq_out)
{
	idgen_seq_copy(cfg, &idgen_shared->config, size, seq_out);
}

static inline void
idgen_read_config(IdgenConfig *cfg, uint32 *seq_out)
{
	idgen_read_config_part(cfg, sizeof(IdgenConfig), seq_out);
}

static IdgenBackendSlot *
idgen_my_slot(void)
{
	if (my_slot == NULL)
	{
		int			i = IDGEN_MY_PROC_INDEX;

		my_slot = (i >= 0 && i < idgen_shared->nslots) ?
			&idgen_shared->slots[i] : &idgen_shared->shared_slot;
	}
	return my_slot;
}

static inline void
idgen_count(uint64 ids, bool batch, IdgenWidth width)
{
	IdgenBackendSlot *slot = idgen_my_slot();
	pg_atomic_uint64 *counter = width == IDGEN_WIDTH_128 ? &slot->ids128 : &slot->ids;

	if (slot == &idgen_shared->shared_slot)
	{
		pg_atomic_fetch_add_u64(counter, ids);
		if (batch)
			pg_atomic_fetch_add_u64(&slot->batches, 1);
		return;
	}
	pg_atomic_write_u64(counter, pg_atomic_read_u64(counter) + ids);
	if (batch)
		pg_atomic_write_u64(&slot->batches,
							pg_atomic_read_u64(&slot->batches) + 1);
}

/*
 * Keep max_wall_ms and count rollbacks.  seen was read before the clock, so
 * a reading below it means the wall clock really went back: whoever stored
 * seen read its clock before we read ours, and every backend reads the same
 * kernel clock, so even a millisecond below it is a step back.  The first
 * backend to lower the mark counts the rollback, once.
 */
static inline void
idgen_note_wall(uint64 seen, int64 now_unix_ms)
{
	IdgenShared *sh = idgen_shared;
	uint64		now = (uint64) now_unix_ms;

	if (likely(now == seen))
		return;
	if (now > seen)
	{
		while (!pg_atomic_compare_exchange_u64(&sh->max_wall_ms, &seen, now))
		{
			if (seen >= now)
				break;
		}
		return;
	}
	if (pg_atomic_compare_exchange_u64(&sh->max_wall_ms, &seen, now))
		pg_atomic_fetch_add_u64(&sh->clock_rollbacks, 1);
}

static int64
idgen_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
idgen_refuse_state(IdgenState state)
{
	char		reason[256];

	SpinLockAcquire(&idgen_shared->config_lock);
	strlcpy(reason, state == IDGEN_STATE_DISABLED ?
			idgen_shared->disabled_reason : idgen_shared->reason,
			sizeof(reason));
	SpinLockRelease(&idgen_shared->config_lock);

	switch (state)
	{
		case IDGEN_STATE_DISABLED:
			ereport(ERROR,
					(errcode(idgen_shared->config_broken ?
							 IDGEN_ERRCODE_MISCONFIGURED : IDGEN_ERRCODE_DISABLED),
					 errmsg("idgen is disabled on this node"),
					 errdetail("Reason: %s", reason[0] ? reason : "not given."),
					 idgen_shared->config_broken ?
					 errhint("Fix the settings and restart the server; idgen_enable() cannot override them.") :
					 errhint("Fix the cause, then run idgen_enable().")));
			break;
		case IDGEN_STATE_FENCED:
			ereport(ERROR,
					(errcode(IDGEN_ERRCODE_FENCED),
					 errmsg("idgen is fenced on this node: its worker lease was taken away"),
					 errdetail("%s", reason[0] ? reason : "The lease's generation changed."),
					 errhint("Check idgen.collision and idgen.audit_log, then run idgen_enable() to lease a new worker id.")));
			break;
		case IDGEN_STATE_STARTING:
		case IDGEN_STATE_WAITING_FOR_LEASE:
			ereport(ERROR,
					(errcode(IDGEN_ERRCODE_NO_LEASE),
					 errmsg("idgen has no valid worker lease"),
					 errdetail("Reason: %s", reason[0] ? reason : "no lease yet."),
					 errhint("The background worker leases a worker id from the registry (%s); see idgen_status() and the server log.",
							 registry_display())));
			break;
		case IDGEN_STATE_CLOCK_SKEW:
			ereport(ERROR,
					(errcode(IDGEN_ERRCODE_CLOCK_SKEW),
					 errmsg("idgen stopped issuing: this node's clock is too far from the registry's"),
					 errdetail("Reason: %s", reason),
					 errhint("Synchronise the node's clock with the registry's (NTP); issuing resumes by itself once the clocks agree within idgen.max_skew.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("idgen cannot issue IDs in state \"%s\"",
							idgen_state_name(state)),
					 reason[0] ? errdetail("Reason: %s", reason) : 0,
					 errhint("See idgen_status() for the node's state.")));
	}
}

void
idgen_wake_bgworker(void)
{
	int			procno;

	if (idgen_shared == NULL)
		return;
	SpinLockAcquire(&idgen_shared->config_lock);
	procno = idgen_shared->bgworker_procno;
	SpinLockRelease(&idgen_shared->config_lock);
	if (procno >= 0)
		SetLatch(&GetPGProcByNumber(procno)->procLatch);
}

/*
 * One step of a bounded wait: false once budget_ms has passed since the
 * first step, else sleeps a little and returns true.
 */
static bool
idgen_wait_step(int64 *started, int budget_ms, int64 sleep_ms)
{
	int64		now = idgen_monotonic_ms();

	if (*started < 0)
		*started = now;
	if (now - *started >= budget_ms)
		return false;
	if (sleep_ms > budget_ms - (now - *started))
		sleep_ms = budget_ms - (now - *started);
	pg_usleep((sleep_ms > 0 ? sleep_ms : 1) * 1000L);
	CHECK_FOR_INTERRUPTS();
	return true;
}

static void
idgen_refuse_horizon(int64 horizon_ms)
{
	pg_atomic_fetch_add_u64(&idgen_shared->clock_refusals, 1);
	ereport(ERROR,
			(errcode(IDGEN_ERRCODE_HORIZON),
			 errmsg("idgen time field is exhausted"),
			 errdetail("The current layout's time field ends at %lld ms after its epoch; IDs past it would wrap.",
					   (long long) horizon_ms),
			 errhint("IDs need a layout with a later horizon; until then this node cannot issue.")));
}

/*
 * A reservation that would run past the horizon while the clock is still
 * before it: no high-water mark and no wait can make it fit.
 */
static void
idgen_refuse_batch_horizon(uint64 count, int epoch_version, int64 left_ms,
						   int64 past_ms)
{
	pg_atomic_fetch_add_u64(&idgen_shared->clock_refusals, 1);
	ereport(ERROR,
			(errcode(IDGEN_ERRCODE_HORIZON),
			 errmsg_plural("cannot reserve %llu ID before the layout's time field runs out",
						   "cannot reserve %llu IDs before the layout's time field runs out",
						   (unsigned long) count, (unsigned long long) count),
			 errdetail_plural("The time field of layout epoch %d runs out in %lld ms, at its horizon; this ID would lie %lld ms past it, where it would wrap.",
							  "The time field of layout epoch %d runs out in %lld ms, at its horizon; these IDs would run %lld ms past it, where they would wrap.",
							  (unsigned long) count,
							  epoch_version, (long long) left_ms, (long long) past_ms),
			 errhint("Ask for fewer IDs at a time; to issue past the horizon the node needs a layout with a later one (idgen_schedule_layout()).")));
}

/*
 * A reservation that does not fit before the next layout epoch, which
 * begins further away than a call may wait.  The clock is not at fault:
 * one call's IDs are all made under one layout, so they wait for the next.
 */
static void
idgen_refuse_switch(uint64 count, int epoch_version, int64 need_ms,
					int64 past_ms, int waited_ms)
{
	pg_atomic_fetch_add_u64(&idgen_shared->clock_refusals, 1);
	ereport(ERROR,
			(errcode(IDGEN_ERRCODE_LAYOUT_SWITCH),
			 errmsg_plural("cannot reserve %llu ID before the switch to layout epoch %d",
						   "cannot reserve %llu IDs before the switch to layout epoch %d",
						   (unsigned long) count, (unsigned long long) count,
						   epoch_version + 1),
			 errdetail_plural("It would end %lld ms past the last millisecond of layout epoch %d, and one call's IDs never span two layouts; epoch %d begins in %lld ms, and a call waits at most idgen.max_clock_wait (%d ms; this one waited %d ms).",
							  "They would end %lld ms past the last millisecond of layout epoch %d, and one call's IDs never span two layouts; epoch %d begins in %lld ms, and a call waits at most idgen.max_clock_wait (%d ms; this one waited %d ms).",
							  (unsigned long) count,
							  (long long) past_ms, epoch_version, epoch_version + 1,
							  (long long) need_ms, idgen_max_clock_wait_ms, waited_ms),
			 errhint("Retry once layout epoch %d has begun, or ask for fewer IDs at a time.",
					 epoch_version + 1)));
}

static void
idgen_refuse_clock(int64 behind_ms, int waited_ms)
{
	pg_atomic_fetch_add_u64(&idgen_shared->clock_refusals, 1);
	ereport(ERROR,
			(errcode(IDGEN_ERRCODE_CLOCK_BEHIND),
			 errmsg("system clock is %lld ms behind the idgen logical clock",
					(long long) behind_ms),
			 errdetail("IDs may run at most idgen.max_drift (%d ms) ahead of the wall clock, and this call waited %d ms of idgen.max_clock_wait (%d ms).",
					   idgen_max_drift_ms, waited_ms, idgen_max_clock_wait_ms),
			 errhint("Check the system clock and its time synchronisation; issuing resumes by itself once the clock catches up.")));
}


/*
 * Reserve count ticks and describe them in *batch.  Raises an ERROR when
 * the node may not issue: it never hands out an ID it cannot vouch for.
 */
static void
idgen_reserve(uint64 count, IdgenBatch *batch)
{
	IdgenShared *sh = idgen_shared;
	int64		wait_started = -1;
	int			waited_ms = 0;
	int64		lease_wait_started = -1;

	idgen_require_loaded();
	/* once out of recovery a backend never goes back: ask only until then */
	if (unlikely(!recovery_over) && !(recovery_over = !RecoveryInProgress()))
		ereport(ERROR,
				(errcode(IDGEN_ERRCODE_RECOVERY),
				 errmsg("cannot generate idgen IDs during recovery"),
				 errdetail("A standby holds no worker lease, so its IDs could repeat the primary's."),
				 errhint("Generate IDs on the primary.")));

	for (;;)
	{
		IdgenConfig cfg;
		uint32		seq;
		uint64		seen;
		int64		now_unix;
		int64		now_ms;
		uint64		old;
		pg_atomic_uint64 *tick;
		IdgenReservation res;
		IdgenTickResult r;
		int64		end_ms;
		int64		epoch_end_ms;

		idgen_read_config_part(&cfg, IDGEN_HOT_CONFIG_SIZE, &seq);
		if (unlikely(cfg.state != IDGEN_STATE_ACTIVE))
		{
			/* right after start-up the first lease may be moments away */
			if ((cfg.state == IDGEN_STATE_STARTING ||
				 cfg.state == IDGEN_STATE_WAITING_FOR_LEASE) &&
				idgen_wait_step(&lease_wait_started, idgen_lease_wait_ms, 10))
			{
				idgen_wake_bgworker();
				continue;
			}
			idgen_refuse_state(cfg.state);
		}

		seen = pg_atomic_read_u64(&sh->max_wall_ms);
		pg_read_barrier();
		now_unix = idgen_wall_unix_ms();
		idgen_note_wall(seen, now_unix);
		now_ms = now_unix - cfg.epoch_unix_ms;

		/* time before the range space's end is not ours to generate */
		if (unlikely(now_unix < IDGEN_RANGE_SPACE_END_UNIX_MS))
			ereport(ERROR,
					(errcode(IDGEN_ERRCODE_CLOCK_INVALID),
					 errmsg("system clock is before 2026-01-01"),
					 errdetail("IDs of earlier times are reserved for numeric ranges (idgen_lease_range), so idgen does not generate them."),
					 errhint("Set the system clock correctly.")));

		/* a new layout epoch has begun: move to it before anything else */
		if (unlikely(now_unix >= cfg.switch_at_unix_ms))
		{
			idgen_switch_epoch();
			continue;
		}

		/* past the layout's horizon the time field would wrap: never */
		if (unlikely(now_ms > cfg.horizon_ms))
			idgen_refuse_horizon(cfg.horizon_ms);

		/* a lease that was not renewed in time is no lease */
		if (unlikely(now_unix >= cfg.valid_until_unix_ms))
		{
			idgen_wake_bgworker();
			if (idgen_wait_step(&lease_wait_started, idgen_lease_wait_ms, 10))
				continue;
			pg_atomic_fetch_add_u64(&sh->clock_refusals, 1);
			idgen_read_config(&cfg, &seq);
			ereport(ERROR,
					(errcode(IDGEN_ERRCODE_NO_LEASE),
					 errmsg("idgen worker lease was not renewed in time"),
					 errdetail("The lease of workers %d-%d (generation %lld) stopped being valid %lld ms ago.",
							   cfg.first_worker, cfg.first_worker + cfg.worker_count - 1,
							   (long long) cfg.generation,
							   (long long) (now_unix - cfg.valid_until_unix_ms)),
					 errhint("Check the idgen background worker and its registry (%s) in the server log.",
							 registry_display())));
		}

		tick = &sh->ticks[cfg.epoch_version].value;
		old = pg_atomic_read_u64(tick);
		for (;;)
		{
			r = idgen_tick_reserve(old, now_ms, cfg.counter_bits, count,
								   idgen_max_drift_ms, cfg.limit_ms, &res);
			if (r != IDGEN_TICK_OK ||
				pg_atomic_compare_exchange_u64(tick, &old, res.last))
				break;
		}

		if (likely(r == IDGEN_TICK_OK))
		{
			/* running ahead of the wall clock is the rare path: note how far */
			if (unlikely((int64) (res.last >> cfg.counter_bits) > now_ms))
				idgen_stats_note_drift((int64) (res.last >> cfg.counter_bits) - now_ms);
			/* the compare-and-swap was a full barrier */
			if (unlikely(pg_atomic_read_u32(&sh->config_seq) != seq))
				continue;
			/* a batch borrows ahead by design; count only single IDs */
			if (unlikely(res.exhausted) && count == 1)
				pg_atomic_fetch_add_u64(&sh->seq_exhaustions, 1);
			if (wait_started >= 0)
				pg_atomic_fetch_add_u64(&sh->clock_wait_ms,
										idgen_monotonic_ms() - wait_started);
			batch->first_tick = res.first;
			batch->count = count;
			batch->counter_bits = cfg.counter_bits;
			batch->time_shift = cfg.time_shift;
			batch->node_bits = cfg.node_bits;
			batch->epoch_unix_ms = cfg.epoch_unix_ms;
			batch->epoch_version = cfg.epoch_version;
			return;
		}

		switch (r)
		{
			case IDGEN_TICK_TOO_MANY:
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("cannot reserve %llu IDs at once",
								(unsigned long long) count),
						 errdetail("This node issues at most %llu IDs per millisecond and may run at most idgen.max_drift (%d ms) ahead of the clock, so one batch holds at most %llu IDs.",
								   (unsigned long long) (UINT64CONST(1) << cfg.counter_bits),
								   idgen_max_drift_ms,
								   (unsigned long long) ((uint64) (idgen_max_drift_ms + 1) << cfg.counter_bits)),
						 errhint("Request smaller batches or raise idgen.max_drift.")));
				break;
			case IDGEN_TICK_BEFORE_EPOCH:
				ereport(ERROR,
						(errcode(IDGEN_ERRCODE_CLOCK_INVALID),
						 errmsg("system clock is before the idgen epoch"),
						 errdetail("The clock reads %lld ms since the Unix epoch; the layout's time field starts at %lld.",
								   (long long) now_unix,
								   (long long) cfg.epoch_unix_ms),
						 errhint("Set the system clock correctly.")));
				break;
			case IDGEN_TICK_LIMIT:
				/* which limit: the next epoch, the horizon, or the mark */
				end_ms = idgen_tick_end_ms(old, now_ms, cfg.counter_bits, count);
				epoch_end_ms = cfg.switch_at_unix_ms == PG_INT64_MAX ? PG_INT64_MAX :
					cfg.switch_at_unix_ms - 1 - cfg.epoch_unix_ms;
				if (end_ms > epoch_end_ms && epoch_end_ms <= cfg.horizon_ms)
				{
					/*
					 * The reservation needs time past the old layout's last
					 * millisecond, and one call's IDs are all of one layout:
					 * wait for the wall clock to reach the new one, as for
					 * any clock that runs behind, whatever the mark says.
					 */
					int64		need_ms = cfg.switch_at_unix_ms - now_unix;
					int64		now_mono = idgen_monotonic_ms();

					waited_ms = wait_started < 0 ? 0 : (int) (now_mono - wait_started);
					if (waited_ms + need_ms > idgen_max_clock_wait_ms)
					{
						pg_atomic_fetch_add_u64(&sh->clock_wait_ms, waited_ms);
						idgen_refuse_switch(count, cfg.epoch_version, need_ms,
											end_ms - epoch_end_ms, waited_ms);
					}
					if (wait_started < 0)
					{
						wait_started = now_mono;
						pg_atomic_fetch_add_u64(&sh->clock_waits, 1);
					}
					pg_usleep((need_ms > 0 ? need_ms : 1) * 1000L);
					CHECK_FOR_INTERRUPTS();
					break;
				}
				/* past the horizon no mark, and no wait, can help */
				if (end_ms > cfg.horizon_ms && end_ms != PG_INT64_MAX)
					idgen_refuse_batch_horizon(count, cfg.epoch_version,
											   cfg.horizon_ms + 1 - now_ms,
											   end_ms - cfg.horizon_ms);
				if (cfg.hw_ms < cfg.horizon_ms)
				{
					/* the durable high-water mark is behind: ask for more */
					uint64		want = (uint64) (now_ms + cfg.epoch_unix_ms +
												 idgen_max_drift_ms);
					uint64		wanted = pg_atomic_read_u64(&sh->hw_wanted_unix_ms);

					while (wanted < want &&
						   !pg_atomic_compare_exchange_u64(&sh->hw_wanted_unix_ms,
														   &wanted, want))
						;
					idgen_wake_bgworker();
					if (idgen_wait_step(&lease_wait_started, idgen_lease_wait_ms, 5))
						continue;
					pg_atomic_fetch_add_u64(&sh->clock_refusals, 1);
					ereport(ERROR,
							(errcode(IDGEN_ERRCODE_HIGH_WATER),
							 errmsg("idgen high-water mark was not raised in time"),
							 cfg.hw_ms >= now_ms ?
							 errdetail("IDs are issued only up to a time made durable in idgen.worker_lease first; it stands %lld ms ahead of the clock, too little for this request.",
									   (long long) (cfg.hw_ms - now_ms)) :
							 errdetail("IDs are issued only up to a time made durable in idgen.worker_lease first; it stands %lld ms behind the clock.",
									   (long long) (now_ms - cfg.hw_ms)),
							 errhint("Check the idgen background worker and its registry (%s) in the server log.",
									 registry_display())));
				}
				idgen_refuse_horizon(cfg.horizon_ms);
				break;
			case IDGEN_TICK_CLOCK_BEHIND:
				{
					int64		fits_at = idgen_tick_fits_at(old, cfg.counter_bits,
															 count, idgen_max_drift_ms);
					int64		need_ms = fits_at - now_ms;
					int64		now_mono = idgen_monotonic_ms();

					waited_ms = wait_started < 0 ? 0 : (int) (now_mono - wait_started);
					idgen_stats_note_drift((int64) (old >> cfg.counter_bits) - now_ms);

					/* no point sleeping when the wait cannot be long enough */
					if (waited_ms + need_ms > idgen_max_clock_wait_ms)
					{
						pg_atomic_fetch_add_u64(&sh->clock_wait_ms, waited_ms);
						idgen_refuse_clock((int64) (old >> cfg.counter_bits) - now_ms,
										   waited_ms);
					}
					if (wait_started < 0)
					{
						wait_started = now_mono;
						pg_atomic_fetch_add_u64(&sh->clock_waits, 1);
					}
					pg_usleep((need_ms > 0 ? need_ms : 1) * 1000L);
					CHECK_FOR_INTERRUPTS();
				}
				break;
			case IDGEN_TICK_OK:
				break;
		}
	}
}

int64
idgen_generate_one(void)
{
	IdgenBatch	batch;

	idgen_generate_single(&batch, IDGEN_WIDTH_64);
	return idgen_batch_id(&batch, 0);
}

/* one ID's tick, for callers that build their own ID from it (idgen128) */
void
idgen_generate_single(IdgenBatch *batch, IdgenWidth width)
{
	idgen_reserve(1, batch);
	idgen_count(1, false, width);
}

void
idgen_generate_batch(uint64 count, IdgenBatch *batch, IdgenWidth width)
{
	idgen_reserve(count, batch);
	idgen_count(count, true, width);
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

void
idgen_status_snapshot(IdgenStatusSnapshot *snap)
{
	IdgenShared *sh;
	IdgenConfig cfg;
	uint32		seq;
	uint64		last;
	int			i;

	idgen_require_loaded();
	sh = idgen_shared;
	idgen_read_config(&cfg, &seq);
	SpinLockAcquire(&sh->config_lock);
	strlcpy(snap->reason, cfg.state == IDGEN_STATE_DISABLED ?
			sh->disabled_reason : sh->reason, sizeof(snap->reason));
	strlcpy(snap->owner, sh->owner, sizeof(snap->owner));
	snap->have_clock_skew = sh->have_clock_skew;
	snap->clock_skew_ms = sh->clock_skew_ms;
	SpinLockRelease(&sh->config_lock);

	last = pg_atomic_read_u64(&sh->ticks[cfg.epoch_version].value);
	snap->wall_unix_ms = idgen_wall_unix_ms();
	snap->state = cfg.state;
	if (RecoveryInProgress())
		snap->state = IDGEN_STATE_RECOVERY;
	else if (cfg.state == IDGEN_STATE_ACTIVE && last != 0 &&
			 (int64) (last >> cfg.counter_bits) + cfg.epoch_unix_ms >
			 snap->wall_unix_ms + idgen_max_drift_ms)
		snap->state = IDGEN_STATE_CLOCK_BEHIND;
	snap->region = cfg.region;
	snap->first_worker = cfg.first_worker;
	snap->worker_count = cfg.worker_count;
	snap->generation = cfg.generation;
	snap->lease_until_unix_ms = cfg.lease_until_unix_ms;
	snap->hw_unix_ms = cfg.hw_ms >= 0 ? cfg.hw_ms + cfg.epoch_unix_ms : -1;
	snap->lease_renewals = pg_atomic_read_u64(&sh->lease_renewals);
	snap->lease_failures = pg_atomic_read_u64(&sh->lease_failures);
	snap->fencing_events = pg_atomic_read_u64(&sh->fencing_events);
	snap->clock_jumps_forward = pg_atomic_read_u64(&sh->clock_jumps_forward);
	snap->clock_steps_back = pg_atomic_read_u64(&sh->clock_steps_back);
	snap->logical_unix_ms = last == 0 ? -1 :
		(int64) (last >> cfg.counter_bits) + cfg.epoch_unix_ms;
	snap->horizon_unix_ms = cfg.horizon_ms + 1 + cfg.epoch_unix_ms;
	snap->seq_exhaustions = pg_atomic_read_u64(&sh->seq_exhaustions);
	snap->clock_rollbacks = pg_atomic_read_u64(&sh->clock_rollbacks);
	snap->clock_waits = pg_atomic_read_u64(&sh->clock_waits);
	snap->clock_wait_ms = pg_atomic_read_u64(&sh->clock_wait_ms);
	snap->clock_refusals = pg_atomic_read_u64(&sh->clock_refusals);
	snap->ids_issued64 = pg_atomic_read_u64(&sh->shared_slot.ids);
	snap->ids_issued128 = pg_atomic_read_u64(&sh->shared_slot.ids128);
	snap->batches = pg_atomic_read_u64(&sh->shared_slot.batches);
	for (i = 0; i < sh->nslots; i++)
	{
		snap->ids_issued64 += pg_atomic_read_u64(&sh->slots[i].ids);
		snap->ids_issued128 += pg_atomic_read_u64(&sh->slots[i].ids128);
		snap->batches += pg_atomic_read_u64(&sh->slots[i].batches);
	}
	snap->ids_issued = snap->ids_issued64 + snap->ids_issued128;
}

/*
 * Writers of the configuration.  Each change happens under config_lock
 * inside an odd config_seq, so generators see all of it or none of it, and
 * a reservation made across a change is thrown away (see the file header).
 */
static void
idgen_config_begin(void)
{
	SpinLockAcquire(&idgen_shared->config_lock);
	pg_atomic_fetch_add_u32(&idgen_shared->config_seq, 1);
}

static void
idgen_config_end(void)
{
	IdgenShared *sh = idgen_shared;

	if (sh->config_broken || sh->operator_disabled)
		sh->config.state = IDGEN_STATE_DISABLED;
	else
		sh->config.state = sh->lease_state;
	pg_write_barrier();
	pg_atomic_fetch_add_u32(&sh->config_seq, 1);
	SpinLockRelease(&sh->config_lock);
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

/* No tick past the durable mark, the horizon, or the next epoch's start. */
static void
idgen_set_limit(IdgenConfig *cfg)
{
	int64		limit = Min(cfg->hw_ms, cfg->horizon_ms);

	if (cfg->switch_at_unix_ms != PG_INT64_MAX)
		limit = Min(limit, cfg->switch_at_unix_ms - 1 - cfg->epoch_unix_ms);
	cfg->limit_ms = limit;
}

/*
 * Inside a configuration write: raise the tick word of the epoch in force
 * so that its next tick lies at or after the epoch's first millisecond and
 * above issued_floor_unix_ms.  Compare-and-swap, as generators that read
 * the configuration before this write may still be advancing the word
 * (they throw their reservation away afterwards, but the word moved).
 */
static void
idgen_raise_tick_floor(IdgenShared *sh, int64 epoch_start_unix_ms)
{
	IdgenConfig *cfg = &sh->config;
	pg_atomic_uint64 *tick = &sh->ticks[cfg->epoch_version].value;
	int64		first_ms = epoch_start_unix_ms - cfg->epoch_unix_ms;
	uint64		floor_tick;
	uint64		old;

	if (sh->issued_floor_unix_ms >= 0)
		first_ms = Max(first_ms, sh->issued_floor_unix_ms + 1 - cfg->epoch_unix_ms);
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
static void
idgen_follow_epochs(IdgenShared *sh, int64 now_unix)
{
	IdgenConfig *cfg = &sh->config;
	const IdgenEpoch *e = idgen_epochs_at(&sh->epochs.list, now_unix);
	const IdgenEpoch *next;

	if (e->version > cfg->epoch_version)
	{
		int64		old_epoch_ms = cfg->epoch_unix_ms;

		cfg->layout = e->layout;
		cfg->epoch_version = e->version;
		cfg->epoch_unix_ms = e->layout.epoch_unix_ms;
		cfg->counter_bits = cfg->block_bits + e->layout.seq_bits;
		cfg->time_shift = idgen_layout_time_shift(&e->layout);
		cfg->horizon_ms = idgen_layout_max_ms(&e->layout);
		if (cfg->hw_ms >= 0)
			cfg->hw_ms += old_epoch_ms - cfg->epoch_unix_ms;
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
static void
idgen_switch_epoch(void)
{
	IdgenShared *sh = idgen_shared;

	idgen_config_begin();
	idgen_follow_epochs(sh, idgen_wall_unix_ms());
	idgen_config_end();
}

/*
 * The background worker hands over the registry's epochs, read in the same
 * transaction as the lease it is about to publish, before it publishes it.
 */
void
idgen_publish_epochs(const IdgenEpochList *list)
{
	IdgenShared *sh = idgen_shared;

	idgen_config_begin();
	/* epochs are only ever appended: a shorter list is an older reading */
	if (list->count >= sh->epochs.list.count)
		sh->epochs.list = *list;
	sh->epochs.loaded = true;
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

void
idgen_set_bgworker(int procno, const char *owner)
{
	SpinLockAcquire(&idgen_shared->config_lock);
	idgen_shared->bgworker_procno = procno;
	if (owner)
		strlcpy(idgen_shared->owner, owner, sizeof(idgen_shared->owner));
	SpinLockRelease(&idgen_shared->config_lock);
}

/*
 * Install a fresh lease: new workers, generation and starting floor, in
 * the given state; anything but active holds the lease without issuing.
 */
void
idgen_publish_lease_held(const IdgenLease *lease, IdgenState state,
						 const char *reason)
{
	IdgenShared *sh = idgen_shared;
	IdgenConfig *cfg = &sh->config;
	const IdgenEpoch *current;

	idgen_config_begin();
	/* a lease taken after a switch time starts in the new epoch */
	idgen_follow_epochs(sh, idgen_wall_unix_ms());
	cfg->first_worker = lease->first_worker;
	cfg->generation = lease->generation;
	cfg->node_bits = idgen_node_bits(&cfg->layout, cfg->region, lease->first_worker);
	cfg->lease_until_unix_ms = lease->lease_until_unix_ms;
	cfg->valid_until_unix_ms = state == IDGEN_STATE_ACTIVE ?
		lease->valid_until_unix_ms : 0;
	cfg->hw_ms = lease->hw_unix_ms - cfg->epoch_unix_ms;
	idgen_set_limit(cfg);
	/* a renewal that raced a restore must not bring a yielded lease back */
	if (lease->generation == sh->yielded_generation &&
		lease->first_worker == sh->yielded_first_worker)
	{
		state = IDGEN_STATE_WAITING_FOR_LEASE;
		reason = sh->reason;
		cfg->valid_until_unix_ms = 0;
	}

	/*
	 * Start strictly above everything issued under earlier leases, in this
	 * epoch now and in every later one when the node switches to it.
	 */
	sh->issued_floor_unix_ms = Max(sh->issued_floor_unix_ms,
								   lease->start_after_unix_ms);
	current = idgen_epochs_version(&sh->epochs.list, cfg->epoch_version);
	idgen_raise_tick_floor(sh, current != NULL ? current->start_unix_ms : 0);
	sh->lease_state = state;
	if (reason != sh->reason)
		strlcpy(sh->reason, reason ? reason : "", sizeof(sh->reason));
	idgen_config_end();
}

void
idgen_publish_lease(const IdgenLease *lease)
{
	idgen_publish_lease_held(lease, IDGEN_STATE_ACTIVE, NULL);
}

/* Extend the current lease and its durable high-water mark. */
void
idgen_publish_renewal(int64 lease_until_unix_ms, int64 valid_until_unix_ms,
					  int64 hw_unix_ms)
{
	IdgenConfig *cfg = &idgen_shared->config;

	idgen_config_begin();
	cfg->lease_until_unix_ms = lease_until_unix_ms;
	cfg->valid_until_unix_ms = valid_until_unix_ms;
	cfg->hw_ms = Max(cfg->hw_ms, hw_unix_ms - cfg->epoch_unix_ms);
	idgen_set_limit(cfg);
	idgen_config_end();
	pg_atomic_fetch_add_u64(&idgen_shared->lease_renewals, 1);
}

/* Stop issuing: the lease is gone, fenced, or not yet had. */
void
idgen_publish_lease_state(IdgenState state, const char *reason)
{
	IdgenShared *sh = idgen_shared;

	idgen_config_begin();
	sh->lease_state = state;
	strlcpy(sh->reason, reason ? reason : "", sizeof(sh->reason));
	if (state != IDGEN_STATE_ACTIVE)
		sh->config.valid_until_unix_ms = 0;
	idgen_config_end();
	if (state == IDGEN_STATE_FENCED)
		pg_atomic_fetch_add_u64(&sh->fencing_events, 1);
}

/*
 * idgen.worker_lease rows were restored over this node's running lease
 * (idgen.restore_worker_lease): the restored marks may lie above what the
 * node issues, or the restored holder may be live.  If owner and
 * generation name the lease the node holds now, and it covers (region,
 * worker), stop issuing under it at once, before the restore commits; the
 * background worker then leases anew, above the marks.  A NULL owner means
 * whatever lease the node holds.  Returns whether a lease was given up.
 */
bool
idgen_yield_lease(const char *owner, int region, int worker, int64 generation,
				  const char *reason)
{
	IdgenShared *sh = idgen_shared;
	IdgenConfig *cfg;
	bool		held;

	if (sh == NULL)
		return false;
	cfg = &sh->config;
	idgen_config_begin();
	held = cfg->first_worker >= 0 && cfg->generation > 0 &&
		(owner == NULL ||
		 (cfg->generation == generation && cfg->region == region &&
		  worker >= cfg->first_worker &&
		  worker < cfg->first_worker + cfg->worker_count &&
		  strcmp(sh->owner, owner) == 0));
	if (held)
	{
		sh->yielded_first_worker = cfg->first_worker;
		sh->yielded_generation = cfg->generation;
		cfg->valid_until_unix_ms = 0;
		if (sh->lease_state == IDGEN_STATE_ACTIVE ||
			sh->lease_state == IDGEN_STATE_CLOCK_SKEW)
		{
			sh->lease_state = IDGEN_STATE_WAITING_FOR_LEASE;
			strlcpy(sh->reason, reason, sizeof(sh->reason));
		}
	}
	idgen_config_end();
	if (held)
		idgen_wake_bgworker();
	return held;
}

/*
 * For the background worker: was this lease given up to a restore?  The
 * worker then drops it, so the note is cleared: every later lease is a new
 * acquisition.
 */
bool
idgen_take_yield(int first_worker, int64 generation)
{
	bool		yielded;

	SpinLockAcquire(&idgen_shared->config_lock);
	yielded = idgen_shared->yielded_generation == generation &&
		idgen_shared->yielded_first_worker == first_worker;
	if (yielded)
		idgen_shared->yielded_generation = 0;
	SpinLockRelease(&idgen_shared->config_lock);
	return yielded;
}

IdgenState
idgen_lease_state(void)
{
	IdgenState	state;

	SpinLockAcquire(&idgen_shared->config_lock);
	state = idgen_shared->lease_state;
	SpinLockRelease(&idgen_shared->config_lock);
	return state;
}

bool
idgen_operator_disabled(void)
{
	bool		disabled;

	SpinLockAcquire(&idgen_shared->config_lock);
	disabled = idgen_shared->operator_disabled;
	SpinLockRelease(&idgen_shared->config_lock);
	return disabled;
}

void
idgen_set_operator_disabled(bool disabled, const char *reason)
{
	IdgenShared *sh = idgen_shared;

	idgen_config_begin();
	if (sh->config_broken)
	{
		idgen_config_end();
		return;
	}
	sh->operator_disabled = disabled;
	strlcpy(sh->disabled_reason, disabled && reason ? reason : "",
			sizeof(sh->disabled_reason));
	idgen_config_end();
}

/* what the background worker last measured against the registry's clock */
void
idgen_publish_clock_skew(bool known, int64 offset_ms)
{
	SpinLockAcquire(&idgen_shared->config_lock);
	idgen_shared->have_clock_skew = known;
	idgen_shared->clock_skew_ms = offset_ms;
	SpinLockRelease(&idgen_shared->config_lock);
}

void
idgen_count_lease_failure(void)
{
	pg_atomic_fetch_add_u64(&idgen_shared->lease_failures, 1);
}

void
idgen_count_clock_jump(bool forward)
{
	pg_atomic_fetch_add_u64(forward ? &idgen_shared->clock_jumps_forward :
							&idgen_shared->clock_steps_back, 1);
}

/* the first Unix millisecond the current layout cannot hold */
int64
idgen_horizon_unix_ms(void)
{
	return idgen_shared->config.horizon_ms + 1 + idgen_shared->config.epoch_unix_ms;
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
	return (int64) (last >> cfg.counter_bits) + cfg.epoch_unix_ms;
}

/* idgen_next(): the next ID of this node */
PG_FUNCTION_INFO_V1(idgen_next);
Datum
idgen_next(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(idgen_generate_one());
}

/*
 * The set-returning body of every batch function: one reservation for the
 * whole batch, then the IDs one per call, as generate_series does, so a huge
 * batch streams instead of being built in memory first.  make_id turns the
 * i-th reserved tick into the Datum of the function's type; width says
 * which type's count the IDs go to.
 */
Datum
idgen_batch_srf(FunctionCallInfo fcinfo, IdgenWidth width,
				Datum (*make_id) (const IdgenBatch *batch, uint64 i))
{
	FuncCallContext *funcctx;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	/*
	 * In FROM, the executor stores the rows in a tuplestore anyway and says
	 * it prefers to be handed one: filling it directly saves a function call
	 * per row.  In a select list, stream one row per call.
	 */
	if (rsinfo != NULL && IsA(rsinfo, ReturnSetInfo) &&
		(rsinfo->allowedModes & SFRM_Materialize_Preferred) &&
		(rsinfo->allowedModes & SFRM_Materialize) &&
		rsinfo->expectedDesc != NULL)
	{
		int32		count = PG_GETARG_INT32(0);
		IdgenBatch	batch;
		MemoryContext rowcxt;
		MemoryContext oldcxt;
		bool		isnull = false;
		uint64		i;

		idgen_require_loaded();
		if (count < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("batch size must not be negative: %d", count)));
		InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
		if (count == 0)
			return (Datum) 0;
		idgen_generate_batch((uint64) count, &batch, width);

		/* by-reference IDs are made in a context emptied now and then */
		rowcxt = AllocSetContextCreate(CurrentMemoryContext, "idgen batch rows",
									   ALLOCSET_SMALL_SIZES);
		oldcxt = MemoryContextSwitchTo(rowcxt);
		for (i = 0; i < (uint64) count; i++)
		{
			Datum		value = make_id(&batch, i);

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
			if ((i & 1023) == 1023)
				MemoryContextReset(rowcxt);
		}
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(rowcxt);
		return (Datum) 0;
	}

	if (SRF_IS_FIRSTCALL())
	{
		int32		count = PG_GETARG_INT32(0);
		IdgenBatch *batch;

		/* even an empty batch says so when generation is impossible */
		idgen_require_loaded();
		if (count < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("batch size must not be negative: %d", count)));

		funcctx = SRF_FIRSTCALL_INIT();
		batch = MemoryContextAllocZero(funcctx->multi_call_memory_ctx,
									   sizeof(IdgenBatch));
		if (count > 0)
			idgen_generate_batch((uint64) count, batch, width);
		funcctx->user_fctx = batch;
		funcctx->max_calls = (uint64) count;
	}

	funcctx = SRF_PERCALL_SETUP();
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		Datum		id;

		/* SRF_RETURN_NEXT bumps call_cntr before it evaluates its argument */
		id = make_id((IdgenBatch *) funcctx->user_fctx, funcctx->call_cntr);
		SRF_RETURN_NEXT(funcctx, id);
	}
	SRF_RETURN_DONE(funcctx);
}

static Datum
batch_id64(const IdgenBatch *batch, uint64 i)
{
	return Int64GetDatum(idgen_batch_id(batch, i));
}

/* idgen_next_batch(count): count IDs reserved in one step, ascending */
PG_FUNCTION_INFO_V1(idgen_next_batch);
Datum
idgen_next_batch(PG_FUNCTION_ARGS)
{
	return idgen_batch_srf(fcinfo, IDGEN_WIDTH_64, batch_id64);
}
