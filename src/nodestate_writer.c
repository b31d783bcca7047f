/*
 * nodestate_writer.c - how the background worker and the operator's
 * functions change what the generators issue under
 *
 * The lease (installed, renewed, stopped, yielded to a restore), the
 * layout epochs it came with, the operator's switch (idgen_disable(),
 * idgen_enable()) and the registry's last answer.  Each change of the
 * configuration is one seqlock write under the node's lock
 * (idgen_config_begin/end in nodestate.c, which derive the state, window
 * and limit); nodestate.h says who writes what.
 */
#include "nodestate_writer.h"

#include "mb/pg_wchar.h"

#include "clock.h"

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

void
idgen_set_bgworker(int procno, const char *owner)
{
	LWLockAcquire(idgen_shared->lock, LW_EXCLUSIVE);
	idgen_shared->bgworker_procno = procno;
	if (owner)
		strlcpy(idgen_shared->owner, owner, sizeof(idgen_shared->owner));
	LWLockRelease(idgen_shared->lock);
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
	cfg->valid_until_mono_ms = lease->valid_until_mono_ms;
	cfg->hw_ms = lease->hw_unix_ms - cfg->origin_unix_ms;
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
	sh->foreign_mark_unix_ms = lease->foreign_mark_unix_ms;
	sh->foreign_mark_pace_ms = lease->foreign_mark_pace_ms;
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

/*
 * The lease's validity and mark as the worker keeps them (a renewal, its
 * local mark, a window cut to the monotonic validity); a stopped lease
 * stays stopped.
 */
void
idgen_publish_renewal(const IdgenLease *lease, bool renewed)
{
	IdgenConfig *cfg = &idgen_shared->config;

	idgen_config_begin();
	cfg->lease_until_unix_ms = lease->lease_until_unix_ms;
	if (cfg->valid_until_unix_ms != 0)
		cfg->valid_until_unix_ms = lease->valid_until_unix_ms;
	cfg->valid_until_mono_ms = lease->valid_until_mono_ms;
	cfg->hw_ms = Max(cfg->hw_ms, lease->hw_unix_ms - cfg->origin_unix_ms);
	idgen_set_limit(cfg);
	idgen_config_end();
	if (renewed)
		pg_atomic_fetch_add_u64(&idgen_shared->lease_renewals, 1);
}

bool
idgen_publish_mark(int64 generation, int64 hw_unix_ms)
{
	IdgenConfig *cfg = &idgen_shared->config;
	bool		ours;

	idgen_config_begin();
	ours = cfg->state == IDGEN_STATE_ACTIVE && cfg->generation == generation;
	if (ours)
	{
		cfg->hw_ms = Max(cfg->hw_ms, hw_unix_ms - cfg->origin_unix_ms);
		idgen_set_limit(cfg);
	}
	idgen_config_end();
	return ours;
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
 * Why calls are refused while the lease holds: the reason alone, and only
 * while the state is still active, which a backend's yield (below) may
 * have changed since the worker looked.
 */
void
idgen_publish_active_reason(const char *reason)
{
	IdgenShared *sh = idgen_shared;

	idgen_config_begin();
	if (sh->lease_state == IDGEN_STATE_ACTIVE)
		strlcpy(sh->reason, reason ? reason : "", sizeof(sh->reason));
	idgen_config_end();
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

	LWLockAcquire(idgen_shared->lock, LW_EXCLUSIVE);
	yielded = idgen_shared->yielded_generation == generation &&
		idgen_shared->yielded_first_worker == first_worker;
	if (yielded)
		idgen_shared->yielded_generation = 0;
	LWLockRelease(idgen_shared->lock);
	return yielded;
}

IdgenState
idgen_lease_state(void)
{
	IdgenState	state;

	LWLockAcquire(idgen_shared->lock, LW_SHARED);
	state = idgen_shared->lease_state;
	LWLockRelease(idgen_shared->lock);
	return state;
}

bool
idgen_operator_disabled(void)
{
	bool		disabled;

	LWLockAcquire(idgen_shared->lock, LW_SHARED);
	disabled = idgen_shared->operator_disabled;
	LWLockRelease(idgen_shared->lock);
	return disabled;
}

void
idgen_set_operator_disabled(bool disabled, const char *reason)
{
	IdgenShared *sh = idgen_shared;
	const char *text = disabled && reason ? reason : "";
	/* cut back to a whole character: idgen_status() must show valid text */
	int			len = pg_mbcliplen(text, strlen(text), sizeof(sh->disabled_reason) - 1);

	idgen_config_begin();
	if (sh->config_broken)
	{
		idgen_config_end();
		return;
	}
	sh->operator_disabled = disabled;
	memcpy(sh->disabled_reason, text, len);
	sh->disabled_reason[len] = '\0';
	idgen_config_end();
}

/*
 * The registry answered, as this incarnation ("" if it did not say), with
 * what the worker measured against its clock.
 */
void
idgen_publish_registry_answer(bool known, int64 offset_ms, const char *incarnation)
{
	LWLockAcquire(idgen_shared->lock, LW_EXCLUSIVE);
	idgen_shared->have_clock_skew = known;
	idgen_shared->clock_skew_ms = offset_ms;
	strlcpy(idgen_shared->registry_incarnation, incarnation, 64);
	idgen_shared->last_answer_unix_ms = idgen_wall_unix_ms();
	LWLockRelease(idgen_shared->lock);
}
