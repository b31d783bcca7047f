/*
 * lease.h - the lease protocol: the node's block of worker ids
 *
 * The worker leases a block of worker ids from the registry (a new
 * generation on every acquisition), renews it every tenth of its TTL,
 * keeps the node's own durable high-water mark (localmark.h) ahead of the
 * generator whether the registry answers or not, and gives the block back
 * at shutdown with its final mark (lease protocol v2, docs/fleets.md).  Every acquisition
 * and renewal also reads the registry's layout epochs (handed to the
 * generator before the lease they come with) and measures the registry's
 * clock against the node's.  A renewal that finds the rows no longer the
 * node's own stops the node at once: fenced by an operator, or a collision
 * with another holder.
 *
 * Each call that talks to the registry is one registry unit; an error is
 * raised to the caller (the worker's loop), which aborts the unit and
 * backs off.  Shared memory is written only after the unit committed.
 */
#ifndef IDGEN_LEASE_H
#define IDGEN_LEASE_H

#include "worker.h"

/* lease a block; on success publishes it, else says why in the state */
extern void lease_try_acquire(IdgenWorker *w);

/* true when the held lease should be renewed */
extern bool lease_renewal_due(IdgenWorker *w);

/* every step: the local mark ahead of demand, the window within validity */
extern void lease_keep(IdgenWorker *w);

/* true once the held lease's validity has ended */
extern bool lease_ran_out_due(IdgenWorker *w);

/* renew the held lease, or find it fenced, lost or given up to a restore */
extern void lease_renew(IdgenWorker *w);

/*
 * The held lease was given up to a restore of idgen.worker_lease
 * (idgen_take_yield() said so): release it; inside the caller's registry
 * unit.
 */
extern void lease_yielded(IdgenWorker *w);

/* the held lease's validity ended unrenewed: give it up, to lease anew */
extern void lease_ran_out(IdgenWorker *w);

/* when the published lease has run out unrenewed, say so in the state */
extern void lease_check_validity(IdgenWorker *w, const char *why);

/* at shutdown: give the lease back, marks kept */
extern void lease_release(IdgenWorker *w, const char *why);

#endif							/* IDGEN_LEASE_H */
