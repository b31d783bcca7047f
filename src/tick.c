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
