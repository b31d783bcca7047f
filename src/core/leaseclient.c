/*
 * leaseclient.c - the lease client's state machine (see leaseclient.h)
 */
#include "leaseclient.h"

#include <stdio.h>

void
idgen_lc_init(IdgenLeaseClient *lc, int64_t ttl_ms, int64_t max_skew_ms)
{
	lc->ttl_ms = ttl_ms;
	lc->max_skew_ms = max_skew_ms > 0 ? max_skew_ms : 0;
	lc->hold_floor_ms = 0;
	lc->state = IDGEN_LC_NONE;
	lc->sent_boot_ms = 0;
	lc->valid_until_boot_ms = 0;
	lc->cap_unix_ms = 0;
	lc->floor_unix_ms = 0;
	lc->granted_ms = 0;
	lc->next_boot_ms = 0;
	lc->switch_unix_ms = INT64_MAX;
	lc->backoff_ms = 0;
	lc->fences = 0;
	lc->leases = 0;
}

void
idgen_lc_set_max_skew(IdgenLeaseClient *lc, int64_t max_skew_ms)
{
	lc->max_skew_ms = max_skew_ms > 0 ? max_skew_ms : 0;
}

void
idgen_lc_set_hold_floor(IdgenLeaseClient *lc, int64_t hold_floor_ms)
{
	lc->hold_floor_ms = hold_floor_ms > 0 ? hold_floor_ms : 0;
}

int64_t
idgen_lc_bounded_ms(const IdgenLeaseClient *lc, int64_t granted_ms)
{
	return lc->hold_floor_ms > 0 && lc->hold_floor_ms < granted_ms ?
		lc->hold_floor_ms : granted_ms;
}

void
idgen_lc_set_next_switch(IdgenLeaseClient *lc, int64_t switch_unix_ms)
{
	lc->switch_unix_ms = switch_unix_ms;
}

const char *
idgen_lc_ttl_problem(int64_t ttl_ms, int64_t max_skew_ms)
{
	if (ttl_ms <= 0)
		return "a lease TTL must be positive";
	if (max_skew_ms > 0 && ttl_ms * 2 <= max_skew_ms * 3)
		return "the lease TTL is at or under 1.5 x the registry's idgen.max_skew, which refuses renewals in the last idgen.max_skew of a lease: such a lease could not be renewed";
	return NULL;
}

int64_t
idgen_lc_margin_ms(int64_t granted_ms)
{
	return granted_ms / 20 > IDGEN_LC_MARGIN_MIN_MS ? granted_ms / 20 : IDGEN_LC_MARGIN_MIN_MS;
}

int64_t
idgen_lc_renew_every_ms(int64_t ttl_ms)
{
	return ttl_ms / 10 < IDGEN_LC_RENEW_MAX_MS ? ttl_ms / 10 : IDGEN_LC_RENEW_MAX_MS;
}

bool
idgen_lc_valid(const IdgenLeaseClient *lc, int64_t boot_ms)
{
	return (lc->state == IDGEN_LC_HELD || lc->state == IDGEN_LC_ENDING) &&
		boot_ms < lc->valid_until_boot_ms;
}

int64_t
idgen_lc_stamp_limit(const IdgenLeaseClient *lc, int64_t boot_ms)
{
	return idgen_lc_valid(lc, boot_ms) ? lc->cap_unix_ms - 1 : -1;
}

/* the lease is over for us: lease anew at once (the registry's hold rules) */
static void
lc_drop(IdgenLeaseClient *lc, int64_t boot_ms)
{
	lc->state = IDGEN_LC_NONE;
	lc->next_boot_ms = boot_ms;
	lc->backoff_ms = 0;
}

static void
lc_backoff(IdgenLeaseClient *lc, int64_t boot_ms)
{
	lc->backoff_ms = lc->backoff_ms < IDGEN_LC_RETRY_MS ? IDGEN_LC_RETRY_MS :
		lc->backoff_ms * 2 > IDGEN_LC_BACKOFF_MAX_MS ? IDGEN_LC_BACKOFF_MAX_MS :
		lc->backoff_ms * 2;
	lc->next_boot_ms = boot_ms + lc->backoff_ms;
}

IdgenLcAction
idgen_lc_next(IdgenLeaseClient *lc, int64_t boot_ms, int64_t *wait_ms)
{
	int64_t		due;

	*wait_ms = 0;
	switch (lc->state)
	{
		case IDGEN_LC_NONE:
			if (boot_ms >= lc->next_boot_ms)
				return IDGEN_LC_LEASE;
			*wait_ms = lc->next_boot_ms - boot_ms;
			return IDGEN_LC_WAIT;
		case IDGEN_LC_FENCED:
			lc_drop(lc, boot_ms);
			return IDGEN_LC_RELEASE;
		case IDGEN_LC_HELD:
		case IDGEN_LC_ENDING:
			/*
			 * Never renewed once its validity has ended: a holder that was
			 * away cannot know what the registry did meanwhile.
			 */
			if (boot_ms >= lc->valid_until_boot_ms)
			{
				lc_drop(lc, boot_ms);

				/*
				 * A lease cut short at a layout switch is leased anew only
				 * once the switch has passed: before it, every grant would
				 * end there again, too short to use.
				 */
				if (lc->granted_ms < idgen_lc_bounded_ms(lc, lc->ttl_ms) &&
					lc->sent_boot_ms + lc->granted_ms > boot_ms)
					lc->next_boot_ms = lc->sent_boot_ms + lc->granted_ms;
				return IDGEN_LC_GIVE_UP;
			}
			if (lc->state == IDGEN_LC_ENDING)
			{
				*wait_ms = lc->valid_until_boot_ms - boot_ms;
				return IDGEN_LC_WAIT;
			}
			/* heard from at least every H, with room to ride an outage */
			due = lc->sent_boot_ms +
				idgen_lc_renew_every_ms(idgen_lc_bounded_ms(lc, lc->ttl_ms));
			/* a lease cut short (at a layout switch) is renewed sooner */
			if (lc->sent_boot_ms + (lc->valid_until_boot_ms - lc->sent_boot_ms) / 2 < due)
				due = lc->sent_boot_ms + (lc->valid_until_boot_ms - lc->sent_boot_ms) / 2;
			if (lc->next_boot_ms > due)
				due = lc->next_boot_ms;
			if (due > lc->valid_until_boot_ms)
				due = lc->valid_until_boot_ms;
			if (boot_ms >= due)
				return IDGEN_LC_RENEW;
			*wait_ms = due - boot_ms;
			return IDGEN_LC_WAIT;
	}
	return IDGEN_LC_WAIT;
}

/*
 * validity of a grant of until - registry, counted from sent (R1), and no
 * longer than the registry's hold floor (R1a; docs/concepts.md)
 */
static void
lc_set_validity(IdgenLeaseClient *lc, int64_t sent_boot_ms, int64_t granted)
{
	int64_t		counted;

	if (granted > lc->ttl_ms)
		granted = lc->ttl_ms;
	if (granted < 0)
		granted = 0;
	lc->granted_ms = granted;
	lc->sent_boot_ms = sent_boot_ms;
	counted = idgen_lc_bounded_ms(lc, granted);
	lc->valid_until_boot_ms = sent_boot_ms + counted - idgen_lc_margin_ms(counted);
	if (lc->valid_until_boot_ms < sent_boot_ms)
		lc->valid_until_boot_ms = sent_boot_ms;
}

void
idgen_lc_granted(IdgenLeaseClient *lc, int64_t sent_boot_ms,
				 int64_t registry_unix_ms, int64_t until_unix_ms)
{
	lc_set_validity(lc, sent_boot_ms, until_unix_ms - registry_unix_ms);
	lc->cap_unix_ms = until_unix_ms;
	/* earlier holders stopped below the registry's clock at the grant */
	lc->floor_unix_ms = registry_unix_ms + 1;
	lc->state = IDGEN_LC_HELD;
	lc->next_boot_ms = 0;
	lc->backoff_ms = 0;
	lc->leases++;
}

IdgenLcVerdict
idgen_lc_answer(IdgenLeaseClient *lc, IdgenLcAnswer answer, int64_t sent_boot_ms,
				int64_t boot_ms, int64_t wall_ms, int64_t registry_unix_ms,
				int64_t until_unix_ms)
{
	bool		held = lc->state == IDGEN_LC_HELD || lc->state == IDGEN_LC_ENDING;

	if (!held)
	{
		/* no lease to renew: an answer about one is stale; a grant failed */
		if (lc->state == IDGEN_LC_NONE &&
			(answer == IDGEN_LC_ANS_REFUSED || answer == IDGEN_LC_ANS_UNREACHABLE))
			lc_backoff(lc, boot_ms);
		return IDGEN_LC_STOP_ENDED;
	}

	switch (answer)
	{
		case IDGEN_LC_ANS_RENEWED:
			/*
			 * An answer that comes after the validity ended revives nothing,
			 * even if the registry's word would reach further: while this
			 * holder was away the registry may have lost its grant and given
			 * the worker to another.  Nor does a stale one, or one to a
			 * renewal sent once the validity had ended.
			 */
			if (boot_ms >= lc->valid_until_boot_ms)
			{
				lc_drop(lc, boot_ms);
				return IDGEN_LC_STOP_ENDED;
			}
			if (sent_boot_ms < lc->sent_boot_ms || lc->state != IDGEN_LC_HELD)
				return lc->state == IDGEN_LC_ENDING ? IDGEN_LC_RUNS_OUT : IDGEN_LC_GO_ON;
			lc_set_validity(lc, sent_boot_ms,
							until_unix_ms - (registry_unix_ms >= 0 ? registry_unix_ms : wall_ms));
			/* the registry raised the mark to the end: the cap only grows */
			if (until_unix_ms > lc->cap_unix_ms)
				lc->cap_unix_ms = until_unix_ms;
			lc->next_boot_ms = 0;
			if (boot_ms >= lc->valid_until_boot_ms)
			{
				lc_drop(lc, boot_ms);
				return IDGEN_LC_STOP_ENDED;
			}
			return IDGEN_LC_GO_ON;

		case IDGEN_LC_ANS_FENCED:
		case IDGEN_LC_ANS_TAKEN:
			if (boot_ms >= lc->valid_until_boot_ms)
			{
				/* it ran out first: nothing was taken from a valid lease */
				lc_drop(lc, boot_ms);
				return IDGEN_LC_STOP_ENDED;
			}

			/*
			 * The registry renews no lease in its last max_skew (give or
			 * take the two clocks' max_skew): a lease ending at a layout
			 * switch meets that every time, and is still ours to its end.
			 * Only there: anywhere else a refusal may mean another holder.
			 */
			if (answer == IDGEN_LC_ANS_FENCED &&
				lc->cap_unix_ms >= lc->switch_unix_ms &&
				lc->cap_unix_ms - wall_ms <= 2 * lc->max_skew_ms + IDGEN_LC_RETRY_MS)
			{
				lc->state = IDGEN_LC_ENDING;
				return IDGEN_LC_RUNS_OUT;
			}
			lc->state = IDGEN_LC_FENCED;
			lc->fences++;
			return IDGEN_LC_STOP_FENCED;

		case IDGEN_LC_ANS_EXPIRED:
			lc_drop(lc, boot_ms);
			return IDGEN_LC_STOP_ENDED;

		case IDGEN_LC_ANS_REFUSED:
		case IDGEN_LC_ANS_UNREACHABLE:
			if (boot_ms >= lc->valid_until_boot_ms)
			{
				lc_drop(lc, boot_ms);
				return IDGEN_LC_STOP_ENDED;
			}
			/* ride it through: try again soon, issue meanwhile */
			lc->next_boot_ms = boot_ms + IDGEN_LC_RETRY_MS;
			return lc->state == IDGEN_LC_ENDING ? IDGEN_LC_RUNS_OUT : IDGEN_LC_GO_ON;
	}
	return IDGEN_LC_GO_ON;
}

static bool
epoch_equal(const IdgenEpoch *a, const IdgenEpoch *b)
{
	return a->version == b->version && a->start_unix_ms == b->start_unix_ms &&
		a->layout.origin_unix_ms == b->layout.origin_unix_ms &&
		a->layout.region_bits == b->layout.region_bits &&
		a->layout.worker_bits == b->layout.worker_bits &&
		a->layout.seq_bits == b->layout.seq_bits &&
		a->boundary == b->boundary;
}

const char *
idgen_lc_epochs_merge(IdgenEpochList *known, bool have_known,
					  const IdgenEpochList *fresh, char *why, int why_len)
{
	int			i;

	if (have_known)
	{
		if (fresh->count < known->count)
		{
			snprintf(why, why_len,
					 "the registry's idgen.epoch lacks layout epoch %d, which this holder has seen (restored from an older backup, or failed over to a standby that lacked it); IDs in an older layout could collide with those of the newer one",
					 known->epochs[fresh->count].version);
			return why;
		}
		for (i = 0; i < known->count; i++)
			if (!epoch_equal(&known->epochs[i], &fresh->epochs[i]))
			{
				snprintf(why, why_len,
						 "the registry's layout epoch %d differs from the one this holder has seen; epochs never change once scheduled",
						 known->epochs[i].version);
				return why;
			}
	}
	*known = *fresh;
	return NULL;
}
