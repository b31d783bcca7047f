/*
 * sql_status.h - the status snapshot behind idgen_status() and idgen.stats
 */
#ifndef IDGEN_SQL_STATUS_H
#define IDGEN_SQL_STATUS_H

#include "nodestate.h"

/*
 * A copy of the node's state at one moment, for idgen_status() and the
 * idgen.stats view: the configuration from one seqlock read, the strings
 * from one hold of the lock, the counters added up right after.
 */
typedef struct IdgenStatusSnapshot
{
	IdgenState	state;
	char		reason[256];
	int			region;
	int			first_worker;
	int			worker_count;
	int64		generation;
	int64		lease_until_unix_ms;
	int64		hw_unix_ms;
	char		owner[IDGEN_OWNER_LEN];
	uint64		lease_renewals;
	uint64		lease_failures;
	uint64		fencing_events;
	uint64		clock_jumps_forward;
	uint64		clock_steps_back;
	int64		logical_unix_ms;	/* last issued millisecond, or -1 */
	int64		wall_unix_ms;
	int64		horizon_unix_ms;
	uint64		ids_issued;		/* both widths */
	uint64		ids_issued64;
	uint64		ids_issued128;
	uint64		batches;
	uint64		seq_exhaustions;
	uint64		clock_rollbacks;
	uint64		clock_waits;
	uint64		clock_wait_ms;
	uint64		clock_refusals;
	bool		have_clock_skew;
	int64		clock_skew_ms;	/* this node's clock minus the registry's */
	char		registry_incarnation[64];
	int64		last_answer_unix_ms;
} IdgenStatusSnapshot;

extern void idgen_status_snapshot(IdgenStatusSnapshot *snap);

#endif							/* IDGEN_SQL_STATUS_H */
