/*
 * leaseclient.h - the lease client: one state machine for every holder
 *
 * Pure C, no PostgreSQL headers (like layout.c, tick.c, epochs.c), so a
 * node's background worker, idgen-gateway and the unit tests and fuzzer
 * all run this one copy.  The caller does the I/O; the machine decides:
 *
 *  - what to do next (idgen_lc_next): lease, renew, wait, give an ended
 *    lease up, or release a fenced one and lease anew;
 *  - how long a lease is valid (R1, docs/concepts.md): counted on
 *    CLOCK_BOOTTIME from the sending of the request that got it,
 *        valid_until = sent + g - max(g / 20, 100 ms),  g = min(granted, H)
 *    where granted is what the registry granted (the TTL, or less for a
 *    lease cut short at a layout switch): the registry read its clock after
 *    the sending, so its end comes later whatever the two clocks say.  H is
 *    the registry's idgen.lease_ttl, the least a hold after a change of
 *    incarnation lasts: a grant the registry lost with its row is covered
 *    by that alone, so no holder may count on a longer one than H after it
 *    last heard the registry (R1a; 0: unknown, the grant alone counts);
 *  - when to renew (R2): min(min(ttl, H) / 10, 2 s) after the last answered
 *    sending, and sooner for a lease that ends earlier (at a switch), so an
 *    outage that starts just before a renewal still leaves >= 70 % of the
 *    TTL and a fence is noticed within 2 s;
 *  - what an answer means (idgen_lc_answer): renewed, fenced or taken while
 *    valid (a real fence: stop, release, lease anew), a renewal refused in
 *    the registry's cutoff before a lease end at a layout switch the holder
 *    knows of (no fence: the lease runs to its end), expired by the
 *    registry's clock (lease
 *    anew, no fence), refused (wait and try again), unreachable (keep
 *    issuing within validity, retry soon);
 *  - how far IDs may be stamped (idgen_lc_stamp_limit): below the lease
 *    end the registry recorded (the next holder's floor), and nothing
 *    once the validity has ended.
 *
 * A lease whose validity ended unrenewed is never renewed: it is given up
 * and leased anew (at a new generation, above every mark), as a holder
 * that was frozen (a paused VM) cannot know whether the registry lost its
 * grant and gave the worker to someone else meanwhile (issue 19 item 1).
 */
#ifndef IDGEN_LEASECLIENT_H
#define IDGEN_LEASECLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "epochs.h"

/* the renewal schedule's ceiling (R2) */
#define IDGEN_LC_RENEW_MAX_MS 2000
/* the validity margin's floor (R1) */
#define IDGEN_LC_MARGIN_MIN_MS 100
/* retry of an unanswered renewal, and the first backoff of a lease */
#define IDGEN_LC_RETRY_MS 200
#define IDGEN_LC_BACKOFF_MAX_MS 5000

typedef enum IdgenLcState
{
	IDGEN_LC_NONE = 0,			/* no lease: lease when due */
	IDGEN_LC_HELD,				/* valid until valid_until_boot_ms */
	IDGEN_LC_ENDING,			/* valid, but the registry renews it no more */
	IDGEN_LC_FENCED				/* taken away while valid: release, lease anew */
} IdgenLcState;

typedef enum IdgenLcAction
{
	IDGEN_LC_WAIT = 0,			/* nothing to do until *wait_ms has passed */
	IDGEN_LC_LEASE,				/* ask for a new lease */
	IDGEN_LC_RENEW,				/* ask to renew the lease */
	IDGEN_LC_GIVE_UP,			/* validity ended: stop; no release, lease anew */
	IDGEN_LC_RELEASE			/* fenced: stop, release what is still ours */
} IdgenLcAction;

typedef enum IdgenLcAnswer
{
	IDGEN_LC_ANS_RENEWED = 0,	/* the registry extended the lease */
	IDGEN_LC_ANS_FENCED,		/* not leased at our generation any more */
	IDGEN_LC_ANS_TAKEN,			/* held by another owner */
	IDGEN_LC_ANS_EXPIRED,		/* the registry's clock says it is over */
	IDGEN_LC_ANS_REFUSED,		/* a lease not granted (no worker, a hold) */
	IDGEN_LC_ANS_UNREACHABLE	/* no answer at all */
} IdgenLcAnswer;

/* what the caller is told to do after an answer */
typedef enum IdgenLcVerdict
{
	IDGEN_LC_GO_ON = 0,			/* keep issuing (within validity) */
	IDGEN_LC_STOP_FENCED,		/* a real fence: stop at once, count it */
	IDGEN_LC_STOP_ENDED,		/* the lease is over: stop, lease anew */
	IDGEN_LC_RUNS_OUT			/* no more renewals: issue up to its end */
} IdgenLcVerdict;

typedef struct IdgenLeaseClient
{
	int64_t		ttl_ms;			/* asked for */
	int64_t		max_skew_ms;	/* the registry's: its renewal cutoff */
	int64_t		hold_floor_ms;	/* the registry's idgen.lease_ttl; 0: unknown */
	IdgenLcState state;
	int64_t		sent_boot_ms;	/* sending of the request that last answered */
	int64_t		valid_until_boot_ms;
	int64_t		cap_unix_ms;	/* IDs stay below: the registry's lease end */
	int64_t		floor_unix_ms;	/* IDs start at or above (a grant's registry clock) */
	int64_t		granted_ms;		/* the last grant's length */
	int64_t		next_boot_ms;	/* next attempt (lease, or renewal retry) */
	int64_t		switch_unix_ms; /* the next layout switch known; INT64_MAX: none */
	int64_t		backoff_ms;
	uint64_t	fences;			/* real fences */
	uint64_t	leases;			/* grants */
} IdgenLeaseClient;

extern void idgen_lc_init(IdgenLeaseClient *lc, int64_t ttl_ms, int64_t max_skew_ms);
extern void idgen_lc_set_max_skew(IdgenLeaseClient *lc, int64_t max_skew_ms);

/*
 * The registry's idgen.lease_ttl (0: unknown), read with the answer it
 * bounds: every hold after a change of the registry's incarnation lasts at
 * least that long, and a grant the registry lost outright is covered by
 * nothing else, so validity never reaches further than that from the
 * sending of the request last answered, whatever the grant (R1a).  The
 * registry's row still reserves the worker for the whole TTL.
 */
extern void idgen_lc_set_hold_floor(IdgenLeaseClient *lc, int64_t hold_floor_ms);

/* the length validity is counted on: the TTL, at most the hold floor */
extern int64_t idgen_lc_bounded_ms(const IdgenLeaseClient *lc, int64_t granted_ms);

/*
 * The next layout switch the holder has read (INT64_MAX: none): a lease
 * that ends there is refused renewal in its last max_skew by a registry
 * that cannot renew into the next epoch, and that is no fence.
 */
extern void idgen_lc_set_next_switch(IdgenLeaseClient *lc, int64_t switch_unix_ms);

/*
 * The registry refuses a renewal in the last max_skew of a lease (its
 * members' clocks may differ that much): a TTL at or under 1.5 x max_skew
 * leaves too little of a lease to renew, and a holder would lease and
 * release in a loop.  NULL when ttl_ms is usable, else why not.
 */
extern const char *idgen_lc_ttl_problem(int64_t ttl_ms, int64_t max_skew_ms);

/* the validity margin for a grant of granted_ms (R1) */
extern int64_t idgen_lc_margin_ms(int64_t granted_ms);

/* the renewal interval for a TTL (R2) */
extern int64_t idgen_lc_renew_every_ms(int64_t ttl_ms);

/* What to do at boot_ms; *wait_ms says how long nothing is due. */
extern IdgenLcAction idgen_lc_next(IdgenLeaseClient *lc, int64_t boot_ms,
								   int64_t *wait_ms);

/*
 * A lease granted to a request sent at sent_boot_ms: the registry read
 * registry_unix_ms and recorded until_unix_ms as its end.
 */
extern void idgen_lc_granted(IdgenLeaseClient *lc, int64_t sent_boot_ms,
							 int64_t registry_unix_ms, int64_t until_unix_ms);

/*
 * The answer to a renewal sent at sent_boot_ms (or to a lease, for
 * REFUSED and UNREACHABLE), received at boot_ms with the wall clock at
 * wall_ms.  For RENEWED, registry_unix_ms and until_unix_ms as for a grant
 * (registry_unix_ms may be -1 when unknown: the grant then counts as the
 * whole TTL, capped by until_unix_ms - wall_ms).
 */
extern IdgenLcVerdict idgen_lc_answer(IdgenLeaseClient *lc, IdgenLcAnswer answer,
									  int64_t sent_boot_ms, int64_t boot_ms,
									  int64_t wall_ms, int64_t registry_unix_ms,
									  int64_t until_unix_ms);

/* the lease is valid now */
extern bool idgen_lc_valid(const IdgenLeaseClient *lc, int64_t boot_ms);

/* the last millisecond IDs may be stamped at now; -1: none */
extern int64_t idgen_lc_stamp_limit(const IdgenLeaseClient *lc, int64_t boot_ms);

/*
 * Layout epochs are only ever appended.  A fresh reading of the registry's
 * list must hold every epoch of known, unchanged; it may add later ones.
 * Returns NULL and sets *known to the merged list, or why the fresh list
 * cannot be trusted (an epoch lost by a restore or a lossy failover, or
 * rewritten), in why; known is then unchanged.
 */
extern const char *idgen_lc_epochs_merge(IdgenEpochList *known, bool have_known,
										 const IdgenEpochList *fresh,
										 char *why, int why_len);

#endif							/* IDGEN_LEASECLIENT_H */
