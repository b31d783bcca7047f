/*
 * test_tscclock.c - the TSC-extrapolated wall clock against a simulated
 * counter and wall clock: calibration, accuracy between samples, steps of
 * the wall clock in either direction, a counter that goes backwards
 */
#include "unit.h"
#include "tscclock.h"

/* the simulation: a counter at 2.9 GHz and a wall clock that may step */
static uint64_t sim_tsc;
static int64_t sim_offset_ns;
static long sim_reads;

#define SIM_GHZ_NUM 29
#define SIM_GHZ_DEN 10
#define SIM_START_NS INT64_C(1796000000000000000)

static int64_t
sim_true_ns(void)
{
	return SIM_START_NS + (int64_t) (sim_tsc * SIM_GHZ_DEN / SIM_GHZ_NUM);
}

static int64_t
sim_read_ns(void)
{
	sim_reads++;
	return sim_true_ns() + sim_offset_ns;
}

static void
advance_ns(int64_t ns)
{
	sim_tsc += (uint64_t) ns * SIM_GHZ_NUM / SIM_GHZ_DEN;
}

static int64_t
now(IdgenTscClock *c)
{
	return idgen_tscclock_ns(c, sim_tsc, sim_read_ns);
}

int
main(void)
{
	IdgenTscClock c = {0};
	int64_t		worst = 0;
	long		reads_before;
	int			i;

	sim_tsc = 1000;

	unit_context("calibration");
	for (i = 0; i < 100 && !c.calibrated; i++)
	{
		CHECK_I64(now(&c), ==, sim_read_ns());
		advance_ns(100000);
	}
	CHECK(c.calibrated);

	unit_context("between samples");
	reads_before = sim_reads;
	for (i = 0; i < 200000; i++)
	{
		int64_t		err = now(&c) - sim_true_ns();

		if (err < 0)
			err = -err;
		if (err > worst)
			worst = err;
		advance_ns(997);		/* about 0.2 s in all */
	}
	/* a few microseconds, far below the millisecond IDs carry */
	CHECK(worst < 10000);
	/* one real read per 50 ms sync interval, not one per call */
	CHECK(sim_reads - reads_before < 10);

	unit_context("wall clock stepped back 5 s");
	sim_offset_ns = -INT64_C(5000000000);
	advance_ns(IDGEN_TSC_SYNC_NS + 1000);
	CHECK_I64(now(&c), ==, sim_true_ns() + sim_offset_ns);
	advance_ns(1000000);
	CHECK(now(&c) - (sim_true_ns() + sim_offset_ns) < 10000);
	CHECK(now(&c) - (sim_true_ns() + sim_offset_ns) > -10000);

	unit_context("wall clock jumped forward 1 h");
	sim_offset_ns += INT64_C(3600000000000);
	advance_ns(IDGEN_TSC_SYNC_NS + 1000);
	CHECK_I64(now(&c), ==, sim_true_ns() + sim_offset_ns);

	unit_context("a counter that goes backwards makes it read the wall clock");
	sim_tsc -= 1000000;
	reads_before = sim_reads;
	CHECK_I64(now(&c), ==, sim_true_ns() + sim_offset_ns);
	CHECK(sim_reads == reads_before + 1);

	unit_context("a long pause is bridged by a fresh sample");
	advance_ns(INT64_C(3600000000000));
	CHECK_I64(now(&c), ==, sim_true_ns() + sim_offset_ns);

	unit_context("a wall clock that does not move never calibrates a silly rate");
	{
		IdgenTscClock d = {0};

		sim_offset_ns = 0;
		for (i = 0; i < 1000; i++)
		{
			(void) idgen_tscclock_ns(&d, sim_tsc, sim_read_ns);
			sim_tsc += 1000000;
		}
		CHECK(!d.calibrated || (d.mult > (UINT64_C(1) << 32) / 20 &&
								d.mult < (UINT64_C(10) << 32)));
	}

	return unit_finish("test_tscclock");
}
