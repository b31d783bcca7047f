/*
 * worker.h - the background worker's state, shared by its modules
 *
 * One IdgenWorker lives on the stack of idgen_bgworker_main() for the life
 * of the process; the worker's modules (bgworker.c, lease.c, clockwatch.c,
 * nodelocal.c, audit.c, leaseanswer.c) each read and write
 * their part of it.
 * Only the worker process has one, so nothing here is shared memory and
 * nothing needs a lock.
 */
#ifndef IDGEN_WORKER_H
#define IDGEN_WORKER_H

#include "base.h"

#include <time.h>

#include "lib/stringinfo.h"

#include "core/clockpace.h"
#include "clock.h"
#include "core/fleet.h"
#include "core/leaseclient.h"
#include "nodestate_writer.h"

/*
 * how long to wait between attempts to get a lease: a node is issuing again
 * within a second of its registry answering (docs/fleets.md)
 */
#define IDGEN_RETRY_MS 500

typedef struct IdgenWorker
{
	char		owner[IDGEN_OWNER_LEN];
	char		sysid[32];
	int			timeline;
	int			region;
	int			worker_count;
	int			worker_bits;
	bool		remote;			/* the registry is another instance */
	int			registry_version;	/* of its extension; 0: not known yet */
	bool		have_lease;
	IdgenLease	lease;
	IdgenLeaseClient lc;		/* the lease client: validity and schedule */
	int64		next_attempt_mono;
	int64		backoff_ms;		/* 0 after a success */
	char		last_error[256];	/* of the current run of failures */
	int64		last_wall;
	int64		last_mono;
	/* audit records waiting for the next transaction (audit.h) */
	StringInfoData pending_audit;
	int			pending_count;
	bool		logged_missing;
	bool		have_skew;		/* skew holds a measurement */
	IdgenSkew	skew;			/* the last one */
	IdgenPace	pace;			/* which steps of the wall clock are followed */
	bool		skewed;			/* clocks beyond idgen.max_skew */
	char		skew_reason[256];
	int64		renew_sent_mono;	/* idgen_pace_clock_ms() the last renewal was sent at */
	char		incarnation[64];	/* the registry's, as its last answer said */
	char		prev_incarnation[64];	/* the one before it changed; "": none */
	int64		next_cleanup_mono;
	int64		next_horizon_mono;
	int64		next_mark_try_mono;	/* after the mark's file failed: not before */
	bool		mark_unwritable;	/* and idgen_status() says so */
} IdgenWorker;

/* the worker's timers run on this clock, which no clock step moves */
static inline int64
monotonic_ms(void)
{
	return idgen_clock_ms(CLOCK_MONOTONIC);
}

#endif							/* IDGEN_WORKER_H */
