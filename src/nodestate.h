/*
 * nodestate.h - the node's one shared-memory struct, and who may touch what
 *
 * Everything idgen keeps in shared memory is in IdgenShared: the tick words
 * the generators advance (generate.c), the configuration they issue under,
 * which the background worker and the operator's functions change through
 * the writer API (nodestate_writer.h), the clock's shared part (clock.h),
 * and the counters behind idgen_status() (adt/sql_status.c) and the
 * idgen.stats view (adt/sql_stats.c).
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
 *   config, epochs Written only under lock (exclusive), between two
 *                  increments of config_seq (odd while a write is under
 *                  way): a seqlock, idgen_config_begin() .. _end(), which
 *                  derives the state, issue window and limit from what
 *                  the write changed.  Readers copy it without any lock and
 *                  retry on a changed sequence (idgen_read_config).  A
 *                  generator rereads config_seq after its compare-and-swap
 *                  and throws its reservation away if the configuration
 *                  changed in between: that leaves a gap, never an ID made
 *                  under a lease the node no longer holds.
 *   lock           An LWLock (tranche "idgen").  Writers take it exclusive:
 *                  the background worker and SQL functions (idgen_disable(),
 *                  idgen_enable(), a restore's yield) through
 *                  nodestate_writer.h, and a generator that makes an epoch
 *                  switch (idgen_switch_epoch), all in normal processes.
 *                  Readers of the fields below that the seqlock does not cover
 *                  (reasons, owner, clock skew, the stats baseline) take it
 *                  shared.  Nothing under it raises an error.
 *   lease_state .. Protected by lock; the reasons are strings, which is why
 *   stats_reset_at this is an LWLock and not a spinlock.
 *   mark_lock      The tranche's second LWLock: the one writer of the node's
 *   local_mark     durable mark file holds it for the write (localmark.h),
 *                  taken only conditionally, never while holding lock;
 *                  local_mark, an atomic, is stored after the file is durable.
 *   slots          One per PGPROC, each written only by its own backend with
 *                  plain (unlocked) atomic stores; readers add them up.
 *                  ids counts 64-bit IDs, ids128 the 128-bit ones.  A stats
 *                  reset never writes them: it stores a baseline instead.
 *   counters       Atomics, touched only off the fast path.
 *
 * The background worker (worker/) is the only writer of the lease part
 * of the configuration: which workers the node holds and until when.  The
 * high-water mark made durable it shares with the generators, which raise
 * it themselves when the worker is late (localmark.h), for the lease in
 * force only.  No tick is ever issued past that
 * mark, and none after the lease's validity ends, so a node that crashes,
 * stalls or is fenced cannot have issued anything its successor might.
 *
 * Names: a layout's time origin (origin_unix_ms, the Unix ms its time field
 * counts from) is not a layout epoch (epoch_version, the version of the
 * layout in force).
 */
#ifndef IDGEN_NODESTATE_H
#define IDGEN_NODESTATE_H

#include "compat.h"

#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "storage/lwlock.h"

#include "clock.h"
#include "core/epochs.h"
#include "core/layout.h"
#include "core/tick.h"

/* node states, as idgen_status() names them */
typedef enum IdgenState
{
	IDGEN_STATE_STARTING = 0,
	IDGEN_STATE_ACTIVE,
	IDGEN_STATE_WAITING_FOR_LEASE,
	IDGEN_STATE_DISABLED,
	IDGEN_STATE_FENCED,
	IDGEN_STATE_CLOCK_BEHIND,
	IDGEN_STATE_RECOVERY,
	IDGEN_STATE_CLOCK_SKEW
} IdgenState;

#define IDGEN_OWNER_LEN 192

typedef struct IdgenConfig
{
	/*
	 * The issue window, derived from the fields below at every write: the
	 * wall clock (Unix ms) may issue without a further check iff it lies in
	 * [window_start, window_end).  Empty unless the state is active; it ends
	 * at the lease's validity, the next layout epoch and the horizon, and
	 * starts at the range space's end and the time origin.
	 */
	int64		window_start_unix_ms;
	int64		window_end_unix_ms;
	int64		origin_unix_ms; /* the layout's time origin */
	int64		limit_ms;		/* the fast path's: no tick past it (the
								 * issue limit, within a soft margin of the
								 * mark: idgen_set_limit) */
	uint64		node_bits;
	int			counter_bits;	/* log2(workers) + sequence bits */
	int			time_shift;
	int			epoch_version;	/* the layout epoch issuing now */
	/* the fast path copies only the fields above */
	IdgenState	state;
	int64		horizon_ms;		/* last millisecond the time field holds */
	int64		hw_ms;			/* durable high-water mark, layout ms */
	int64		valid_until_unix_ms;	/* stop issuing at this wall time */
	int64		valid_until_mono_ms;	/* ... and at this idgen_pace_clock_ms() */
	int64		switch_at_unix_ms;	/* next epoch starts; INT64_MAX: none */
	int64		lease_until_unix_ms;
	int64		generation;
	int			region;
	int			first_worker;
	int			worker_count;
	int			block_bits;		/* log2(worker_count) */
	IdgenLayout layout;
} IdgenConfig;

#define IDGEN_HOT_CONFIG_SIZE offsetof(IdgenConfig, state)

/*
 * The parts of a configuration's issue limit (tick.h), in layout ms.  A
 * node checks its lease against the clock (the issue window), so the lease
 * adds no part here.
 */
static inline IdgenIssueLimits
idgen_config_limits(const IdgenConfig *cfg)
{
	IdgenIssueLimits l;

	l.horizon_ms = cfg->horizon_ms;
	l.switch_ms = cfg->switch_at_unix_ms == INT64_MAX ? INT64_MAX :
		cfg->switch_at_unix_ms - cfg->origin_unix_ms;
	l.mark_ms = cfg->hw_ms;
	l.lease_ms = INT64_MAX;
	return l;
}

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

/* the counters idgen.reset_stats() starts again from zero (adt/sql_stats.c) */
typedef enum IdgenStatCounter
{
	STAT_IDS64 = 0,
	STAT_IDS128,
	STAT_BATCHES,
	STAT_SEQ_EXHAUSTIONS,
	STAT_CLOCK_WAITS,
	STAT_CLOCK_WAIT_MS,
	STAT_CLOCK_ROLLBACKS,
	STAT_CLOCK_REFUSALS,
	STAT_CLOCK_JUMPS_FORWARD,
	STAT_CLOCK_STEPS_BACK,
	STAT_LEASE_RENEWALS,
	STAT_LEASE_FAILURES,
	STAT_FENCING_EVENTS,
	STAT_COLLISIONS,
	STAT_NCOUNTERS
} IdgenStatCounter;

typedef struct IdgenShared
{
	/* written on every reservation; index 0 unused, k: epoch k */
	IdgenTickWord ticks[IDGEN_MAX_EPOCHS + 1];

	/* read on every reservation; its first line written about once a ms */
	IdgenClockShared clock;

	/* read on every reservation, rarely written */
	pg_atomic_uint32 config_seq;
	IdgenConfig config;
	IdgenNodeEpochs epochs;		/* every epoch the registry has */
	LWLock	   *lock;
	/* the rest of this group is protected by lock */
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
	char		registry_incarnation[64];	/* of its last answer; "": none */
	int64		last_answer_unix_ms;	/* when it last answered; 0: never */

	/*
	 * Unix ms at or below which earlier leases may have issued (the highest
	 * start_after any lease brought); -1: none.  Every epoch's tick word is
	 * raised above it, when a lease brings it and when the node switches
	 * into the epoch later: a mark from a later epoch than the one in force
	 * must still bind that epoch once it begins.
	 */
	int64		issued_floor_unix_ms;
	/* foreign_mark_unix_ms and _pace_ms of the lease held (nodestate_writer.h) */
	int64		foreign_mark_unix_ms;
	int64		foreign_mark_pace_ms;
	/* a lease given up under a restore (idgen_yield_lease); 0: none */
	int			yielded_first_worker;
	int64		yielded_generation;
	/* idgen.stats: counter values at the last reset, subtracted on reading */
	TimestampTz stats_reset_at; /* 0: never reset */
	uint64		stats_baseline[STAT_NCOUNTERS];

	/*
	 * The node's durable high-water mark (localmark.h): mark_lock (the
	 * tranche's second LWLock) is held by its one writer for the whole write
	 * of the file; local_mark is the value the file holds, plus one (zero:
	 * none), stored once the file is durable, read without a lock.
	 */
	LWLock	   *mark_lock;
	pg_atomic_uint64 local_mark;

	/* off the fast path */
	TimestampTz started_at;		/* when this shared memory was set up */
	/* latest millisecond (Unix) a generator waited for the high-water mark */
	pg_atomic_uint64 hw_wanted_unix_ms;
	pg_atomic_uint64 seq_exhaustions;
	pg_atomic_uint64 clock_waits;
	pg_atomic_uint64 clock_wait_ms;
	pg_atomic_uint64 clock_refusals;
	pg_atomic_uint64 lease_renewals;
	pg_atomic_uint64 lease_failures;
	pg_atomic_uint64 fencing_events;
	pg_atomic_uint64 clock_jumps_forward;
	pg_atomic_uint64 clock_steps_back;
	pg_atomic_uint64 collisions;	/* the watchdog found its workers taken */
	pg_atomic_uint64 max_drift_ms;	/* atomic maximum; a stats reset zeroes it */
	IdgenBackendSlot shared_slot;	/* for processes without a PGPROC index */

	int			nslots;
	IdgenBackendSlot slots[FLEXIBLE_ARRAY_MEMBER];
} IdgenShared;

/* NULL unless loaded through shared_preload_libraries */
extern IdgenShared *idgen_shared;

/* set-up, from _PG_init */
extern void idgen_shmem_request(void);
extern bool idgen_is_loaded(void);
extern void idgen_require_loaded(void);

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

/* the reason the node is in state (disabled or otherwise), copied */
extern void idgen_state_reason(IdgenState state, char *reason, Size size);
extern const char *idgen_state_name(IdgenState state);

/*
 * The write side of the seqlock, for nodestate_writer.c and
 * idgen_switch_epoch() only.  Between begin and end the caller holds the
 * lock exclusive and may change config, epochs and the lock's fields; the
 * helpers derive what depends on them.  end sets the state and the window.
 */
extern void idgen_config_begin(void);
extern void idgen_config_end(void);
/* issue under the epoch in force at now_unix; arm the switch to the next */
extern void idgen_follow_epochs(IdgenShared *sh, int64 now_unix);
/* the tick word of the epoch in force starts above epoch start and floor */
extern void idgen_raise_tick_floor(IdgenShared *sh, int64 epoch_start_unix_ms);
extern void idgen_set_limit(IdgenConfig *cfg);

/* the logical clock runs ahead of the wall clock past idgen.max_drift */
extern bool idgen_logical_clock_ahead(void);

/* the same rule on a configuration, tick word and wall reading of one's own */
static inline bool
idgen_clock_runs_ahead(const IdgenConfig *cfg, uint64 last, int64 wall_unix_ms)
{
	return cfg->state == IDGEN_STATE_ACTIVE && last != 0 &&
		(int64) (last >> cfg->counter_bits) + cfg->origin_unix_ms >
		wall_unix_ms + idgen_max_drift_ms;
}
/* another holder's mark the node waits for, or -1 (nodestate.c) */
extern int64 idgen_foreign_mark_wait(void);

/* layout epochs (the node keeps its copy here) */
extern bool idgen_epochs_copy(IdgenEpochList *list, uint32 *seq_out);
extern uint32 idgen_config_version(void);
/* the first reservation past a switch time makes the switch */
extern void idgen_switch_epoch(void);

extern bool idgen_config_is_broken(void);
extern void idgen_node_shape(int *region, int *worker_count, int *worker_bits);
extern uint64 idgen_start_token(void);
extern void idgen_wake_bgworker(void);
extern int64 idgen_logical_unix_ms(void);
extern int64 idgen_horizon_unix_ms(void);
extern void idgen_want_hw(int64 unix_ms);
extern int64 idgen_hw_wanted_unix_ms(void);

/* counters, off the fast path */
extern void idgen_stats_note_drift(int64 ahead_ms);

static inline void
idgen_count_lease_failure(void)
{
	pg_atomic_fetch_add_u64(&idgen_shared->lease_failures, 1);
}

static inline void
idgen_count_clock_jump(bool forward)
{
	pg_atomic_fetch_add_u64(forward ? &idgen_shared->clock_jumps_forward :
							&idgen_shared->clock_steps_back, 1);
}

/* the watchdog found its workers held by someone else */
static inline void
idgen_stats_count_collision(void)
{
	if (idgen_shared != NULL)
		pg_atomic_fetch_add_u64(&idgen_shared->collisions, 1);
}

#endif							/* IDGEN_NODESTATE_H */
