/*
 * test_gwdemand.c - how many workers idgen-gateway holds with --workers
 * auto (gateway/gwdemand.c): it grows at 3/4 of the set's capacity, up to
 * the cap; it shrinks only after a long quiet, and not into a set the same
 * demand would grow again; a failed growth waits; and over random demand
 * the count stays a power of two within its bounds and moves by one step
 * per window at most.
 */
#include "unit.h"
#include "gwdemand.h"

/* default layout: 4096 IDs per millisecond and worker */
#define SEQ 12
#define PER_WORKER ((uint64_t) 4096 * 1000)

static GwDemand d;
static uint64_t issued;
static int64_t now;

/* one window of `rate` IDs/s with `workers` held; the answer */
static int
second_at(uint64_t rate, int workers)
{
	issued += rate;
	now += GW_DEMAND_WINDOW_MS;
	return gw_demand_target(&d, issued, now, workers, SEQ);
}

static void
start(int cap)
{
	gw_demand_init(&d, cap, GW_DEMAND_IDLE_MS);
	issued = 1000;
	now = 5000000;
	/* the first reading only starts the window */
	CHECK_I64(gw_demand_target(&d, issued, now, 1, SEQ), ==, 1);
}

static void
test_capacity(void)
{
	unit_context("capacity");
	CHECK_U64(gw_demand_capacity(1, 12), ==, PER_WORKER);
	CHECK_U64(gw_demand_capacity(8, 12), ==, 8 * PER_WORKER);
	CHECK_U64(gw_demand_capacity(2, 4), ==, 32000);
	CHECK_U64(gw_demand_capacity(0, 12), ==, 0);
	CHECK_U64(gw_demand_capacity(1, -1), ==, 0);
	CHECK_U64(gw_demand_capacity(1, 41), ==, 0);
}

static void
test_grow(void)
{
	int			w;

	unit_context("grow");
	start(8);
	/* within a window nothing is decided */
	CHECK_I64(gw_demand_target(&d, issued + PER_WORKER, now + 999, 1, SEQ), ==, 1);
	/* under 3/4: stay */
	CHECK_I64(second_at(PER_WORKER / 4 * 3 - 1000, 1), ==, 1);
	/* at 3/4: double */
	CHECK_I64(second_at(PER_WORKER / 4 * 3, 1), ==, 2);
	CHECK_U64(d.last_rate, ==, PER_WORKER / 4 * 3);
	/* a saturated set doubles each window up to the cap, never past it */
	w = 2;
	w = second_at(2 * PER_WORKER, w);
	CHECK_I64(w, ==, 4);
	w = second_at(4 * PER_WORKER, w);
	CHECK_I64(w, ==, 8);
	w = second_at(8 * PER_WORKER, w);
	CHECK_I64(w, ==, 8);
	w = second_at(100 * PER_WORKER, w);
	CHECK_I64(w, ==, 8);

	unit_context("cap");
	start(2);
	CHECK_I64(second_at(PER_WORKER, 1), ==, 2);
	CHECK_I64(second_at(2 * PER_WORKER, 2), ==, 2);
	start(1);
	CHECK_I64(second_at(PER_WORKER, 1), ==, 1);

	unit_context("a small layout");
	gw_demand_init(&d, 8, GW_DEMAND_IDLE_MS);
	issued = 0;
	now = 0;
	CHECK_I64(gw_demand_target(&d, issued, now, 1, 3), ==, 1);
	issued += 6000;
	now += 1000;
	CHECK_I64(gw_demand_target(&d, issued, now, 1, 3), ==, 2);
}

static void
test_window_length(void)
{
	unit_context("a long window is a rate, not a count");
	start(8);
	/* 3/4 of a second's capacity spread over 4 s is a low rate */
	issued += PER_WORKER / 4 * 3;
	now += 4 * GW_DEMAND_WINDOW_MS;
	CHECK_I64(gw_demand_target(&d, issued, now, 1, SEQ), ==, 1);
	CHECK_U64(d.last_rate, ==, PER_WORKER / 16 * 3);
	/* 2.5 windows at 3/4 of capacity per second */
	issued += PER_WORKER / 4 * 3 * 5 / 2;
	now += GW_DEMAND_WINDOW_MS * 5 / 2;
	CHECK_I64(gw_demand_target(&d, issued, now, 1, SEQ), ==, 2);
}

static void
test_shrink(void)
{
	int			w = 8;
	int			i;
	int			windows = 0;

	unit_context("shrink");
	start(8);
	/* busy at 8 */
	w = second_at(7 * PER_WORKER, 8);
	CHECK_I64(w, ==, 8);
	/* quiet: nothing for GW_DEMAND_IDLE_MS, then one step */
	for (i = 0; i < GW_DEMAND_IDLE_MS / GW_DEMAND_WINDOW_MS - 1; i++)
	{
		w = second_at(100, w);
		CHECK_I64(w, ==, 8);
	}
	w = second_at(100, w);
	CHECK_I64(w, ==, 4);
	/* and the next step only after another quiet spell */
	while (w == 4 && windows < 1000)
	{
		w = second_at(100, w);
		windows++;
	}
	CHECK_I64(w, ==, 2);
	CHECK_I64(windows, ==, GW_DEMAND_IDLE_MS / GW_DEMAND_WINDOW_MS);

	unit_context("a busy window restarts the quiet");
	start(8);
	w = second_at(2 * PER_WORKER, 4);
	CHECK_I64(w, ==, 4);
	for (i = 0; i < 20; i++)
		w = second_at(0, w);
	/* a quarter of 4 workers' capacity: busy enough to keep them */
	w = second_at(PER_WORKER, w);
	CHECK_I64(w, ==, 4);
	for (i = 0; i < GW_DEMAND_IDLE_MS / GW_DEMAND_WINDOW_MS - 1; i++)
		w = second_at(0, w);
	CHECK_I64(w, ==, 4);
	w = second_at(0, w);
	CHECK_I64(w, ==, 2);

	unit_context("one worker is the floor");
	start(8);
	for (i = 0; i < 200; i++)
		CHECK_I64(second_at(0, 1), ==, 1);

	unit_context("no swing: what a shrink leaves, the same demand keeps");
	start(8);
	/* just under a quarter of 4 workers: to 2, where it is under half */
	w = 4;
	for (i = 0; i < 60 && w == 4; i++)
		w = second_at(PER_WORKER - 4096, w);
	CHECK_I64(w, ==, 2);
	for (i = 0; i < 100; i++)
		w = second_at(PER_WORKER - 4096, w);
	CHECK_I64(w, ==, 2);
}

static void
test_idle_setting(void)
{
	int			w = 4;
	int			i;

	unit_context("--workers-idle");
	gw_demand_init(&d, 8, 3000);
	issued = 0;
	now = 0;
	CHECK_I64(gw_demand_target(&d, issued, now, w, SEQ), ==, 4);
	for (i = 0; i < 2; i++)
		CHECK_I64(second_at(0, w), ==, 4);
	CHECK_I64(second_at(0, w), ==, 2);
	/* 0 or less: the default */
	gw_demand_init(&d, 8, 0);
	CHECK_I64(d.idle_ms, ==, GW_DEMAND_IDLE_MS);
}

static void
test_failed(void)
{
	int			w;

	unit_context("a failed growth waits");
	start(8);
	w = second_at(PER_WORKER, 1);
	CHECK_I64(w, ==, 2);
	/* the lease thread could not get the worker */
	gw_demand_grow_failed(&d, now);
	w = 1;
	for (int i = 0; i < GW_DEMAND_RETRY_MS / GW_DEMAND_WINDOW_MS - 1; i++)
		CHECK_I64(second_at(PER_WORKER, w), ==, 1);
	CHECK_I64(second_at(PER_WORKER, w), ==, 2);
}

static void
test_back(void)
{
	unit_context("a clock or a counter that went back starts over");
	start(8);
	issued += PER_WORKER;
	CHECK_I64(gw_demand_target(&d, issued, now - 5000, 1, SEQ), ==, 1);
	CHECK_I64(gw_demand_target(&d, issued - 10, now + 5000, 1, SEQ), ==, 1);
	/* and measures from there */
	issued = issued - 10 + PER_WORKER;
	now += 6000;
	CHECK_I64(gw_demand_target(&d, issued, now, 1, SEQ), ==, 2);
}

static void
test_random(void)
{
	int			w = 1;
	int			cap;
	int			i;

	unit_context("random demand");
	for (cap = 1; cap <= 8; cap *= 2)
	{
		start(cap);
		w = 1;
		for (i = 0; i < 20000; i++)
		{
			uint64_t	r = unit_rand();
			int			next;

			/* demand up to what w workers can give, as a real set is capped */
			issued += r % (gw_demand_capacity(w, SEQ) + 1);
			now += 1 + (int64_t) ((r >> 32) % 3000);
			if (((r >> 40) & 63) == 0)
				gw_demand_grow_failed(&d, now);
			next = gw_demand_target(&d, issued, now, w, SEQ);
			CHECK(next == w || next == 2 * w || 2 * next == w);
			CHECK(next >= 1 && next <= cap);
			CHECK((next & (next - 1)) == 0);
			w = next;
		}
	}
}

int
main(void)
{
	test_capacity();
	test_grow();
	test_window_length();
	test_shrink();
	test_idle_setting();
	test_failed();
	test_back();
	test_random();
	return unit_finish("test_gwdemand");
}
