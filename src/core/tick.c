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
