/*
 * tick.c - reserving ticks on the node's logical clock
 *
 * Pure C; see tick.h.
 */
#include "tick.h"

int64_t
idgen_tick_fits_at(uint64_t last_tick, int counter_bits, uint64_t count,
				   int64_t max_ahead_ms)
{
	uint64_t	end = last_tick + count;

	if (max_ahead_ms < 0)
		max_ahead_ms = 0;
	return (int64_t) (end >> counter_bits) - max_ahead_ms;
}

int64_t
idgen_tick_end_ms(uint64_t last_tick, int64_t now_ms, int counter_bits,
				  uint64_t count)
{
	uint64_t	clock_tick;
	uint64_t	start;

	if (now_ms < 0)
		now_ms = 0;
	if ((uint64_t) now_ms >= (IDGEN_TICK_CEILING >> counter_bits) ||
		last_tick >= IDGEN_TICK_CEILING || count == 0 ||
		count >= IDGEN_COUNT_CEILING)
		return INT64_MAX;
	clock_tick = (uint64_t) now_ms << counter_bits;
	start = last_tick + 1 > clock_tick ? last_tick + 1 : clock_tick;
	return (int64_t) ((start + (count - 1)) >> counter_bits);
}

int64_t
idgen_issue_limit(const IdgenIssueLimits *l)
{
	int64_t		limit = l->mark_ms < l->horizon_ms ? l->mark_ms : l->horizon_ms;

	if (l->lease_ms < limit)
		limit = l->lease_ms;
	if (l->switch_ms != INT64_MAX && l->switch_ms - 1 < limit)
		limit = l->switch_ms - 1;
	return limit;
}

IdgenLimitKind
idgen_limit_passed(const IdgenIssueLimits *l, int64_t end_ms)
{
	if (l->switch_ms != INT64_MAX && end_ms >= l->switch_ms &&
		l->switch_ms - 1 <= l->horizon_ms)
		return IDGEN_LIMIT_SWITCH;
	if (end_ms > l->horizon_ms)
		return IDGEN_LIMIT_HORIZON;
	if (end_ms > l->lease_ms)
		return IDGEN_LIMIT_LEASE;
	return IDGEN_LIMIT_MARK;
}

int64_t
idgen_mark_reserve_ms(int max_drift_ms)
{
	return max_drift_ms / 2 > 50 ? max_drift_ms / 2 : 50;
}

int64_t
idgen_mark_soft_ms(int max_drift_ms)
{
	return idgen_mark_reserve_ms(max_drift_ms) / 4;
}
