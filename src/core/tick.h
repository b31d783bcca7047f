/*
 * tick.h - the node's logical clock: reserving ticks for IDs
 *
 * Pure C, no PostgreSQL headers.  A tick is (ms << counter_bits) | counter
 * (see layout.h).  The generator keeps the last issued tick in one shared
 * atomic word; this file decides what the next reservation is, or why there
 * is none.  Keeping the decision pure lets the unit tests drive it through
 * clock rollbacks, exhaustion and limits without a server.
 */
#ifndef IDGEN_TICK_H
#define IDGEN_TICK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Ticks stay below 2^63 (an ID's 63 bits) and counts below 2^62, so
 * last + count never wraps a uint64.
 */
#define IDGEN_TICK_CEILING (UINT64_C(1) << 63)
#define IDGEN_COUNT_CEILING (UINT64_C(1) << 62)

typedef enum IdgenTickResult
{
	IDGEN_TICK_OK = 0,
	IDGEN_TICK_CLOCK_BEHIND,	/* would run more than max_ahead_ms ahead */
	IDGEN_TICK_LIMIT,			/* would pass limit_ms (horizon, high-water) */
	IDGEN_TICK_TOO_MANY,		/* count can never fit, however long we wait */
	IDGEN_TICK_BEFORE_EPOCH		/* the wall clock is before the layout's epoch */
} IdgenTickResult;

typedef struct IdgenReservation
{
	uint64_t	first;			/* first tick of the reservation */
	uint64_t	last;			/* last tick: the new shared value */
	bool		exhausted;		/* had to borrow a millisecond ahead of the clock */
} IdgenReservation;

/*
 * Reserve count (>= 1) consecutive ticks after last_tick.
 *
 * now_ms is the wall clock in ms since the layout's epoch.  The reservation
 * starts at the later of last_tick + 1 and the clock, so it never goes
 * backwards; its last tick may lie at most max_ahead_ms ahead of now_ms and
 * never past limit_ms.  Inline: it is on the per-ID hot path.
 */

static inline IdgenTickResult
idgen_tick_reserve(uint64_t last_tick, int64_t now_ms, int counter_bits,
				   uint64_t count, int64_t max_ahead_ms, int64_t limit_ms,
				   IdgenReservation *res)
{
	uint64_t	clock_tick;
	uint64_t	start;
	uint64_t	end;
	int64_t		end_ms;
	int64_t		last_ms = (int64_t) (last_tick >> counter_bits);

	if (now_ms < 0)
		return IDGEN_TICK_BEFORE_EPOCH;
	if (max_ahead_ms < 0)
		max_ahead_ms = 0;

	/*
	 * A batch wider than the whole window we may run ahead can never be
	 * satisfied: say so now rather than wait for a clock that won't help.
	 */
	if (count == 0 || count >= IDGEN_COUNT_CEILING ||
		((count - 1) >> counter_bits) > (uint64_t) max_ahead_ms)
		return IDGEN_TICK_TOO_MANY;

	if ((uint64_t) now_ms >= (IDGEN_TICK_CEILING >> counter_bits) ||
		last_tick >= IDGEN_TICK_CEILING)
		return IDGEN_TICK_LIMIT;

	clock_tick = (uint64_t) now_ms << counter_bits;
	start = last_tick + 1 > clock_tick ? last_tick + 1 : clock_tick;
	end = start + (count - 1);
	end_ms = (int64_t) (end >> counter_bits);

	if (end_ms > limit_ms)
		return IDGEN_TICK_LIMIT;
	/* a difference of two non-negative values cannot overflow */
	if (end_ms - now_ms > max_ahead_ms)
		return IDGEN_TICK_CLOCK_BEHIND;

	res->first = start;
	res->last = end;
	res->exhausted = end_ms > now_ms && end_ms > last_ms;
	return IDGEN_TICK_OK;
}

/*
 * The issue window: the wall-clock times, [start, end) in Unix ms, at which
 * a reservation needs no check beyond idgen_tick_reserve().  It stands for
 * all of these: the node is active; now >= floor_unix_ms (the end of the
 * range space); now >= origin_unix_ms (the layout's time field starts
 * there); now < valid_until_unix_ms (the lease); now < switch_at_unix_ms
 * (the next layout epoch); now - origin_unix_ms <= horizon_ms (the last
 * millisecond the time field holds).  origin_unix_ms and horizon_ms are
 * not negative.  Computed once per configuration, so the per-ID check is
 * one compare (idgen_in_issue_window).
 */
typedef struct IdgenIssueWindow
{
	int64_t		start;
	int64_t		end;			/* >= start; equal: empty */
} IdgenIssueWindow;

static inline IdgenIssueWindow
idgen_issue_window(bool active, int64_t floor_unix_ms, int64_t origin_unix_ms,
				   int64_t horizon_ms, int64_t valid_until_unix_ms,
				   int64_t switch_at_unix_ms)
{
	IdgenIssueWindow w;

	w.start = floor_unix_ms > origin_unix_ms ? floor_unix_ms : origin_unix_ms;
	w.end = w.start;
	if (active)
	{
		int64_t		end = valid_until_unix_ms < switch_at_unix_ms ?
			valid_until_unix_ms : switch_at_unix_ms;

		/* the first millisecond past the horizon, unless past INT64_MAX */
		if (horizon_ms < INT64_MAX - 1 - origin_unix_ms &&
			origin_unix_ms + horizon_ms + 1 < end)
			end = origin_unix_ms + horizon_ms + 1;
		if (end > w.start)
			w.end = end;
	}
	return w;
}

/* now in [start, end)?  One unsigned compare, for any int64_t values. */
static inline bool
idgen_in_issue_window(int64_t start, int64_t end, int64_t now)
{
	return (uint64_t) now - (uint64_t) start < (uint64_t) end - (uint64_t) start;
}

/* the wall-clock ms at which a CLOCK_BEHIND reservation would fit */
extern int64_t idgen_tick_fits_at(uint64_t last_tick, int counter_bits,
								  uint64_t count, int64_t max_ahead_ms);

/*
 * The millisecond a LIMIT reservation would have ended in, so the caller
 * can tell which limit stopped it; INT64_MAX past the tick ceiling.
 */
extern int64_t idgen_tick_end_ms(uint64_t last_tick, int64_t now_ms,
								 int counter_bits, uint64_t count);

/*
 * The issue limit: the last millisecond (since the layout's time origin) a
 * reservation may reach, the earliest of these.  The node and the gateway
 * fill it in from their own state and share the rule: what the limit is,
 * and which of its parts refused a reservation (idgen_limit_passed).
 */
typedef struct IdgenIssueLimits
{
	int64_t		horizon_ms;		/* the last millisecond the time field holds */
	int64_t		switch_ms;		/* the next layout epoch's first millisecond;
								 * INT64_MAX: none */
	int64_t		mark_ms;		/* the durable high-water mark; -1: none yet */
	int64_t		lease_ms;		/* the last millisecond the lease may stamp;
								 * INT64_MAX: the mark bounds it already */
} IdgenIssueLimits;

/* which part of the issue limit a reservation would pass, and what helps */
typedef enum IdgenLimitKind
{
	IDGEN_LIMIT_SWITCH,			/* the next layout epoch: wait for it */
	IDGEN_LIMIT_HORIZON,		/* the time field runs out: nothing helps */
	IDGEN_LIMIT_LEASE,			/* the lease ends: wait for its renewal */
	IDGEN_LIMIT_MARK			/* the durable mark: raise it, then retry */
} IdgenLimitKind;

/* the issue limit, idgen_tick_reserve()'s limit_ms */
extern int64_t idgen_issue_limit(const IdgenIssueLimits *l);

/*
 * Why a reservation that idgen_tick_reserve() refused with IDGEN_TICK_LIMIT
 * stopped, given the millisecond it would have ended in
 * (idgen_tick_end_ms()): a switch that comes before the horizon first,
 * since one call's IDs are all of one layout and the next may hold them;
 * then the horizon; then the lease; else the mark.
 */
extern IdgenLimitKind idgen_limit_passed(const IdgenIssueLimits *l,
										 int64_t end_ms);

/*
 * The node's durable mark is kept this far ahead of demand (half of
 * max_drift, at least 50 ms): a node restarting after a crash starts above
 * the mark, so a mark within max_drift of the clock lets it issue at once.
 * A raise is due when less than half the reserve is left.  Once less than
 * a quarter is left the mark's keeper is late, and the generators leave
 * the fast path to raise it themselves (src/localmark.h): their soft limit
 * is the mark less that quarter.
 */
extern int64_t idgen_mark_reserve_ms(int max_drift_ms);
extern int64_t idgen_mark_soft_ms(int max_drift_ms);

#endif							/* IDGEN_TICK_H */
