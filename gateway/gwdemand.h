/*
 * gwdemand.h - how many workers the gateway holds, after its demand (pure C)
 *
 * With --workers auto a gateway starts with one worker and leases more as
 * demand nears what its workers can issue (issue 22, item 5): each worker
 * gives 2^seq_bits IDs per millisecond, so one worker stops a gateway at
 * 4.1 M IDs/s with the default layout.  The lease thread feeds the count
 * of IDs issued so far and the clock; this module says how many workers
 * the set should hold.  No I/O, no clock of its own: the unit tests drive
 * it with made-up readings.
 *
 *  - Demand is measured over windows of at least GW_DEMAND_WINDOW_MS.
 *  - Grow (double) when a window's rate reached 3/4 of what the set can
 *    issue: a set run at capacity borrows from max_drift, and a request
 *    waits for the clock only once that is used up.
 *  - Shrink (halve) when every window for idle_ms (--workers-idle, by
 *    default GW_DEMAND_IDLE_MS) stayed under
 *    1/4 of the set's capacity: half the set then runs at under half its
 *    capacity, below the growth point, so the count does not swing.
 *  - A growth that failed (no free worker in the region, the registry
 *    unreachable) is not tried again for GW_DEMAND_RETRY_MS.
 */
#ifndef IDGEN_GWDEMAND_H
#define IDGEN_GWDEMAND_H

#include <stdbool.h>
#include <stdint.h>

#define GW_DEMAND_WINDOW_MS 1000
#define GW_DEMAND_IDLE_MS 30000
#define GW_DEMAND_RETRY_MS 10000

typedef struct GwDemand
{
	int			max_workers;	/* the cap, a power of two */
	int64_t		idle_ms;		/* this long under 1/4 of capacity: halve */
	bool		started;
	int64_t		window_start_ms;
	uint64_t	window_start_ids;
	uint64_t	last_rate;		/* IDs per second in the last full window */
	int64_t		busy_until_ms;	/* no shrink before: a window was busy */
	int64_t		retry_after_ms; /* no growth before: the last one failed */
} GwDemand;

extern void gw_demand_init(GwDemand *d, int max_workers, int64_t idle_ms);

/* IDs per second `workers` workers can issue with seq_bits per worker */
extern uint64_t gw_demand_capacity(int workers, int seq_bits);

/*
 * Feed the IDs issued so far (a counter that only grows) at now_ms, with
 * the set holding `workers` workers of seq_bits each.  Returns the number
 * of workers the set should hold: `workers`, twice it, or half of it.
 */
extern int	gw_demand_target(GwDemand *d, uint64_t issued, int64_t now_ms,
							 int workers, int seq_bits);

/* a growth failed at now_ms: wait before the next */
extern void gw_demand_grow_failed(GwDemand *d, int64_t now_ms);

#endif							/* IDGEN_GWDEMAND_H */
