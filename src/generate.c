/*
 * generate.c - the ID reservation: a short fast path and its slow path
 *
 * The fast path (idgen_reserve) copies the hot part of the configuration,
 * reads the clock once, checks it against the configuration's one issue
 * window (nodestate.c computes it at every write) and advances the tick
 * word with one compare-and-swap: no lock, no table access, no
 * allocation, no WAL.  Everything else -- waiting for a lease, a high-water
 * mark or a clock, switching layout epochs, and every refusal -- is the
 * slow path's, which makes each check in turn and says which one failed.
 * The slow path starts over from the configuration: whatever the fast path
 * saw, it decides anew.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "utils/guc.h"

#include "base.h"
#include "clock.h"
#include "errcodes.h"
#include "generate.h"
#include "localmark.h"
#include "nodestate.h"
#include "settings.h"
#include "core/tick.h"

static IdgenBackendSlot *my_slot = NULL;
static bool recovery_over = false;

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

static void
idgen_refuse_state(IdgenState state)
{
	char		reason[256];

	idgen_state_reason(state, reason, sizeof(reason));

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

/*
 * Sleep need_ms (at least 1) for the wall clock to catch up; the first
 * such sleep of a call starts its wait and counts it.
 */
static void
idgen_clock_sleep(int64 *wait_started, int64 now_mono, int64 need_ms)
{
	if (*wait_started < 0)
	{
		*wait_started = now_mono;
		pg_atomic_fetch_add_u64(&idgen_shared->clock_waits, 1);
	}
	pg_usleep((need_ms > 0 ? need_ms : 1) * 1000L);
	CHECK_FOR_INTERRUPTS();
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

	/*
	 * The clock need not have stepped back: the lease may start above the
	 * mark of another holder of the block (a fenced lease, one that ended
	 * uncleanly), ahead of the clock, which the node waits to pass.
	 */
	if (idgen_foreign_mark_wait() >= 0)
		ereport(ERROR,
				(errcode(IDGEN_ERRCODE_CLOCK_BEHIND),
				 errmsg("idgen cannot issue for %lld ms: its lease starts above a mark ahead of the clock",
						(long long) behind_ms),
				 errdetail("An earlier holder of the node's workers (a fenced lease, or one that ended without a clean release) may have issued IDs up to that mark, so this node's IDs start above it; IDs may run at most idgen.max_drift (%d ms) ahead of the wall clock, and this call waited %d ms of idgen.max_clock_wait (%d ms).",
						   idgen_max_drift_ms, waited_ms, idgen_max_clock_wait_ms),
				 errhint("Issuing resumes by itself once the clock passes the mark; idgen_status().reason says when. Nothing is wrong with the clock.")));
	ereport(ERROR,
			(errcode(IDGEN_ERRCODE_CLOCK_BEHIND),
			 errmsg("system clock is %lld ms behind the idgen logical clock",
					(long long) behind_ms),
			 errdetail("IDs may run at most idgen.max_drift (%d ms) ahead of the wall clock, and this call waited %d ms of idgen.max_clock_wait (%d ms).",
					   idgen_max_drift_ms, waited_ms, idgen_max_clock_wait_ms),
			 errhint("Check the system clock and its time synchronisation; issuing resumes by itself once the clock catches up.")));
}

/* describe a reservation made under cfg */
static inline void
idgen_fill_batch(IdgenBatch *batch, const IdgenConfig *cfg, uint64 first,
				 uint64 count)
{
	batch->first_tick = first;
	batch->count = count;
	batch->counter_bits = cfg->counter_bits;
	batch->time_shift = cfg->time_shift;
	batch->node_bits = cfg->node_bits;
	batch->origin_unix_ms = cfg->origin_unix_ms;
	batch->epoch_version = cfg->epoch_version;
	batch->tail_keyed = false;
}

/*
 * The slow path: every check the issue window stands for, one by one, with
 * the waits that may let a reservation through after all, and the errors
 * that say why not.  Also the first reservation of a backend, which asks
 * whether recovery is over.
 */
static pg_noinline void
idgen_reserve_slow(uint64 count, IdgenBatch *batch)
{
	IdgenShared *sh = idgen_shared;
	int64		wait_started = -1;
	int			waited_ms = 0;
	int64		lease_wait_started = -1;
	/* how long the worker has to raise the mark before the caller does */
	int			mark_grace_ms = idgen_max_clock_wait_ms / 4;
	/* one raise of the mark a call; -1: none tried */
	int			raise_result = -1;

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
		int64		now_unix;
		int64		now_ms;
		uint64		old;
		pg_atomic_uint64 *tick;
		IdgenReservation res;
		IdgenTickResult r;
		int64		end_ms;
		IdgenIssueLimits limits;
		int64		hard_limit_ms;

		idgen_read_config(&cfg, &seq);
		if (unlikely(cfg.state != IDGEN_STATE_ACTIVE))
		{
			/*
			 * Right after start-up the first lease may be moments away; a
			 * lease lost later is not won back that soon, and the caller
			 * hears so within idgen.max_clock_wait (R5,
			 * docs/concepts.md).
			 */
			if ((cfg.state == IDGEN_STATE_STARTING ||
				 cfg.state == IDGEN_STATE_WAITING_FOR_LEASE) &&
				idgen_wait_step(&lease_wait_started,
								cfg.state == IDGEN_STATE_STARTING ?
								idgen_lease_wait_ms : idgen_max_clock_wait_ms, 10))
			{
				idgen_wake_bgworker();
				continue;
			}
			idgen_refuse_state(cfg.state);
		}

		now_unix = idgen_clock_read();
		now_ms = now_unix - cfg.origin_unix_ms;

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

		/* a lease that was not renewed in time is no lease, by either clock */
		if (unlikely(now_unix >= cfg.valid_until_unix_ms ||
					 idgen_pace_clock_ms() >= cfg.valid_until_mono_ms))
		{
			idgen_wake_bgworker();
			if (idgen_wait_step(&lease_wait_started, idgen_max_clock_wait_ms, 10))
				continue;
			pg_atomic_fetch_add_u64(&sh->clock_refusals, 1);
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

		/* the whole issue limit: the fast path's stops short of the mark */
		limits = idgen_config_limits(&cfg);
		hard_limit_ms = idgen_issue_limit(&limits);
		tick = &sh->ticks[cfg.epoch_version].value;
		old = pg_atomic_read_u64(tick);
		for (;;)
		{
			r = idgen_tick_reserve(old, now_ms, cfg.counter_bits, count,
								   idgen_max_drift_ms, hard_limit_ms, &res);
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

			/*
			 * Within the mark's last quarter reserve its keeper, the
			 * background worker, is late (held up in a registry
			 * transaction, behind a slow disk, starved of CPU): raise it
			 * now, by the worker's rule (localmark.h), so that no call has
			 * to wait for it.  Never waits for the lock, whoever holds it
			 * is raising it; these IDs are below the mark already.
			 */
			if ((int64) (res.last >> cfg.counter_bits) > cfg.limit_ms && raise_result < 0)
			{
				idgen_wake_bgworker();
				(void) localmark_raise_for_lease(cfg.generation, 0);
			}
			idgen_fill_batch(batch, &cfg, res.first, count);
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
								   (long long) cfg.origin_unix_ms),
						 errhint("Set the system clock correctly.")));
				break;
			case IDGEN_TICK_LIMIT:
				/* which limit: the next epoch, the horizon, or the mark */
				end_ms = idgen_tick_end_ms(old, now_ms, cfg.counter_bits, count);
				switch (idgen_limit_passed(&limits, end_ms))
				{
					case IDGEN_LIMIT_SWITCH:
						{
							/*
							 * One call's IDs are all of one layout: wait for
							 * the wall clock to reach the new one, as for any
							 * clock that runs behind, whatever the mark says.
							 */
							int64		need_ms = cfg.switch_at_unix_ms - now_unix;
							int64		now_mono = idgen_monotonic_ms();

							waited_ms = wait_started < 0 ? 0 : (int) (now_mono - wait_started);
							if (waited_ms + need_ms > idgen_max_clock_wait_ms)
							{
								pg_atomic_fetch_add_u64(&sh->clock_wait_ms, waited_ms);
								idgen_refuse_switch(count, cfg.epoch_version, need_ms,
													end_ms - (limits.switch_ms - 1),
													waited_ms);
							}
							idgen_clock_sleep(&wait_started, now_mono, need_ms);
						}
						break;
					case IDGEN_LIMIT_HORIZON:
						/* past the horizon no mark, and no wait, can help */
						if (end_ms == PG_INT64_MAX)
							idgen_refuse_horizon(cfg.horizon_ms);
						idgen_refuse_batch_horizon(count, cfg.epoch_version,
												   cfg.horizon_ms + 1 - now_ms,
												   end_ms - cfg.horizon_ms);
						break;
					case IDGEN_LIMIT_LEASE:
					case IDGEN_LIMIT_MARK:
						/* the durable high-water mark is behind: ask for more */
						idgen_want_hw(now_ms + cfg.origin_unix_ms + idgen_max_drift_ms);
						idgen_wake_bgworker();
						if (idgen_wait_step(&lease_wait_started, mark_grace_ms, 5))
							continue;

						/*
						 * The worker is late (held up in a registry
						 * transaction, behind a slow disk, starved): while
						 * the lease is valid that costs no call, since the
						 * generator raises the mark itself, by the worker's
						 * rule (localmark.h); one try per call.
						 */
						if (raise_result < 0)
						{
							raise_result = localmark_raise_for_lease(cfg.generation,
																	 idgen_max_clock_wait_ms - mark_grace_ms);
							if (raise_result == LOCALMARK_RAISED)
								continue;
						}
						if (idgen_wait_step(&lease_wait_started, idgen_max_clock_wait_ms, 5))
							continue;
						pg_atomic_fetch_add_u64(&sh->clock_refusals, 1);
						ereport(ERROR,
								(errcode(IDGEN_ERRCODE_HIGH_WATER),
								 errmsg("idgen high-water mark was not raised in time"),
								 cfg.hw_ms >= now_ms ?
								 errdetail("IDs are issued only up to a time made durable on this node first; it stands %lld ms ahead of the clock, too little for this request, and this call could not raise it: %s.",
										   (long long) (cfg.hw_ms - now_ms),
										   localmark_raise_problem(raise_result)) :
								 errdetail("IDs are issued only up to a time made durable on this node first; it stands %lld ms behind the clock, and this call could not raise it: %s.",
										   (long long) (now_ms - cfg.hw_ms),
										   localmark_raise_problem(raise_result)),
								 errhint("Check the idgen background worker and its registry (%s) in the server log.",
										 registry_display())));
				}
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
					idgen_clock_sleep(&wait_started, now_mono, need_ms);
				}
				break;
			case IDGEN_TICK_OK:
				break;
		}
	}
}

/*
 * Reserve count ticks and describe them in *batch.  Raises an ERROR when
 * the node may not issue: it never hands out an ID it cannot vouch for.
 * The fast path: inside the issue window, one compare-and-swap (retried
 * only while other backends move the word) and done; anything else is the
 * slow path's.
 */
static pg_attribute_always_inline void
idgen_reserve(uint64 count, IdgenBatch *batch)
{
	IdgenShared *sh = idgen_shared;
	IdgenConfig cfg;
	uint32		seq;
	int64		now_unix;
	int64		now_ms;
	pg_atomic_uint64 *tick;
	uint64		old;
	IdgenReservation res;

	if (unlikely(sh == NULL || !recovery_over))
		goto slow;
	idgen_read_config_part(&cfg, IDGEN_HOT_CONFIG_SIZE, &seq);
	now_unix = idgen_clock_read();
	if (unlikely(!idgen_in_issue_window(cfg.window_start_unix_ms,
										cfg.window_end_unix_ms, now_unix)))
		goto slow;

	now_ms = now_unix - cfg.origin_unix_ms;
	tick = &sh->ticks[cfg.epoch_version].value;
	old = pg_atomic_read_u64(tick);
	do
	{
		if (unlikely(idgen_tick_reserve(old, now_ms, cfg.counter_bits, count,
										idgen_max_drift_ms, cfg.limit_ms,
										&res) != IDGEN_TICK_OK))
			goto slow;
	} while (!pg_atomic_compare_exchange_u64(tick, &old, res.last));

	/* running ahead of the wall clock is the rare path: note how far */
	if (unlikely((int64) (res.last >> cfg.counter_bits) > now_ms))
		idgen_stats_note_drift((int64) (res.last >> cfg.counter_bits) - now_ms);
	/* the compare-and-swap was a full barrier; a write since: start over */
	if (unlikely(pg_atomic_read_u32(&sh->config_seq) != seq))
		goto slow;
	/* a batch borrows ahead by design; count only single IDs */
	if (unlikely(res.exhausted) && count == 1)
		pg_atomic_fetch_add_u64(&sh->seq_exhaustions, 1);
	idgen_fill_batch(batch, &cfg, res.first, count);
	return;

slow:
	idgen_reserve_slow(count, batch);
}

/* idgen_next()'s: the reservation inline, not a call to an exported function */
int64
idgen_generate_one(void)
{
	IdgenBatch	batch;

	idgen_reserve(1, &batch);
	idgen_count(1, false, IDGEN_WIDTH_64);
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

/* the settings of this module (see _PG_init) */
int			idgen_lease_wait_ms = 5000;

void
idgen_generate_define_gucs(void)
{
	DefineCustomIntVariable("idgen.lease_wait",
							"How long a call may wait for a worker lease, at start-up or while one is renewed.",
							NULL,
							&idgen_lease_wait_ms,
							5000, 0, 600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
}
