/*
 * gwdemand.c - how many workers the gateway holds, after its demand
 * (gwdemand.h)
 */
#include "gwdemand.h"

#include <string.h>

void
gw_demand_init(GwDemand *d, int max_workers, int64_t idle_ms)
{
	memset(d, 0, sizeof(*d));
	d->max_workers = max_workers < 1 ? 1 : max_workers;
	d->idle_ms = idle_ms > 0 ? idle_ms : GW_DEMAND_IDLE_MS;
}

uint64_t
gw_demand_capacity(int workers, int seq_bits)
{
	if (workers < 1 || seq_bits < 0 || seq_bits > 40)
		return 0;
	return ((uint64_t) workers << seq_bits) * 1000;
}

int
gw_demand_target(GwDemand *d, uint64_t issued, int64_t now_ms, int workers, int seq_bits)
{
	uint64_t	capacity = gw_demand_capacity(workers, seq_bits);
	int64_t		span;
	uint64_t	rate;

	if (!d->started || now_ms < d->window_start_ms || issued < d->window_start_ids)
	{
		/* the first reading, or a clock or counter that went back: start over */
		d->started = true;
		d->window_start_ms = now_ms;
		d->window_start_ids = issued;
		d->busy_until_ms = now_ms + d->idle_ms;
		return workers;
	}
	span = now_ms - d->window_start_ms;
	if (span < GW_DEMAND_WINDOW_MS)
		return workers;

	rate = (issued - d->window_start_ids) / (uint64_t) span * 1000 +
		(issued - d->window_start_ids) % (uint64_t) span * 1000 / (uint64_t) span;
	d->last_rate = rate;
	d->window_start_ms = now_ms;
	d->window_start_ids = issued;

	if (rate >= capacity / 4)
		d->busy_until_ms = now_ms + d->idle_ms;

	if (rate >= capacity / 4 * 3 && workers < d->max_workers && now_ms >= d->retry_after_ms)
	{
		/* the new set is judged afresh: no shrink for a while */
		d->busy_until_ms = now_ms + d->idle_ms;
		return workers * 2;
	}
	if (workers > 1 && now_ms >= d->busy_until_ms)
	{
		d->busy_until_ms = now_ms + d->idle_ms;
		return workers / 2;
	}
	if (workers > d->max_workers)
		return d->max_workers;
	return workers;
}

void
gw_demand_grow_failed(GwDemand *d, int64_t now_ms)
{
	d->retry_after_ms = now_ms + GW_DEMAND_RETRY_MS;
}
