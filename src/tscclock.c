/*
 * tscclock.c - the TSC-extrapolated wall clock; see tscclock.h
 */
#include "tscclock.h"

/* 0.05 to 10 ns per tick: any real TSC runs between 100 MHz and 20 GHz */
#define IDGEN_TSC_MULT_MIN (UINT64_C(1) << 32) / 20
#define IDGEN_TSC_MULT_MAX (UINT64_C(10) << 32)

static uint64_t
sync_ticks(uint64_t mult)
{
	return ((uint64_t) IDGEN_TSC_SYNC_NS << 32) / mult;
}

static void
rebase(IdgenTscClock *c, uint64_t tsc, int64_t ns)
{
	c->base_tsc = tsc;
	c->base_ns = ns;
	c->next_sync_tsc = tsc + sync_ticks(c->mult);
}

int64_t
idgen_tscclock_ns(IdgenTscClock *c, uint64_t tsc, int64_t (*read_ns) (void))
{
	int64_t		ns;

	if (!c->calibrated)
	{
		ns = read_ns();
		if (c->cal_tsc == 0 || tsc <= c->cal_tsc || ns < c->cal_ns)
		{
			c->cal_tsc = tsc;
			c->cal_ns = ns;
		}
		else if (ns - c->cal_ns >= IDGEN_TSC_CALIBRATE_NS)
		{
			uint64_t	mult = ((uint64_t) (ns - c->cal_ns) << 32) /
				(tsc - c->cal_tsc);

			if (mult >= IDGEN_TSC_MULT_MIN && mult <= IDGEN_TSC_MULT_MAX)
			{
				c->mult = mult;
				c->calibrated = true;
				rebase(c, tsc, ns);
			}
			else
			{
				c->cal_tsc = tsc;
				c->cal_ns = ns;
			}
		}
		return ns;
	}

	/* the window is bounded, so (tsc - base) * mult cannot overflow */
	if (tsc >= c->base_tsc && tsc < c->next_sync_tsc)
		return c->base_ns + (int64_t) (((tsc - c->base_tsc) * c->mult) >> 32);

	ns = read_ns();
	if (tsc > c->base_tsc && tsc - c->base_tsc <= 4 * sync_ticks(c->mult))
	{
		int64_t		predicted = c->base_ns +
			(int64_t) (((tsc - c->base_tsc) * c->mult) >> 32);
		int64_t		error = ns - predicted;

		/* no step: refine the rate over this interval, within 1% */
		if (error < IDGEN_TSC_STEP_NS && error > -IDGEN_TSC_STEP_NS &&
			ns > c->base_ns)
		{
			uint64_t	mult = ((uint64_t) (ns - c->base_ns) << 32) /
				(tsc - c->base_tsc);

			if (mult > c->mult - c->mult / 100 && mult < c->mult + c->mult / 100)
				c->mult = mult;
		}
	}
	rebase(c, tsc, ns);
	return ns;
}
