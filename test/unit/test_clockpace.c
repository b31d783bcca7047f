/*
 * test_clockpace.c - which steps of the wall clock the node follows
 *
 * The background worker looks at the clocks every 100 ms; these tests do
 * the same with made-up readings: a jump that comes back, one that lasts,
 * a clock that keeps moving, steps back and their correction, a clock that
 * was behind what the node had issued, and an outside confirmation.  A
 * randomized run checks the properties that matter to the IDs: the paced
 * clock never runs ahead of the monotonic account by more than the slack
 * unless a step was confirmed, and it never goes back while the wall clock
 * does not.
 */
#include "clockpace.h"
#include "unit.h"

#define TICK 100
#define CONFIRM 60000
#define LEAD 1000
#define BOOT0 5000000			/* monotonic ms at the start */
#define WALL0 INT64_C(1790000000000)	/* wall ms at the start */

/* run the worker's look every TICK ms over [from, to) with a fixed offset */
static IdgenPaceEvent
observe_span(IdgenPace *p, int64_t from, int64_t to, int64_t wall_offset,
			 int64_t issued, int *events)
{
	IdgenPaceEvent last = IDGEN_PACE_STEADY;
	int64_t		t;

	for (t = from; t < to; t += TICK)
	{
		IdgenPaceEvent e = idgen_pace_observe(p, WALL0 + t + wall_offset,
											  BOOT0 + t, issued, LEAD, CONFIRM);

		if (e != IDGEN_PACE_STEADY)
		{
			last = e;
			if (events)
				(*events)++;
		}
	}
	return last;
}

static int64_t
paced_at(const IdgenPace *p, int64_t t, int64_t wall_offset)
{
	return idgen_paced_ms(WALL0 + t + wall_offset, BOOT0 + t, p->trusted_offset_ms);
}

static void
test_jump_that_comes_back(void)
{
	IdgenPace	p;
	int			events = 0;

	unit_context("a 30 s jump for 2 s");
	idgen_pace_init(&p, WALL0 - BOOT0);
	CHECK(observe_span(&p, 0, 1000, 0, -1, &events) == IDGEN_PACE_STEADY);
	CHECK(events == 0);
	CHECK(idgen_pace_observe(&p, WALL0 + 1000 + 30000, BOOT0 + 1000, WALL0 + 999,
							 LEAD, CONFIRM) == IDGEN_PACE_STEP_SEEN);
	CHECK(observe_span(&p, 1100, 3000, 30000, WALL0 + 2000, NULL) == IDGEN_PACE_STEADY);
	/* while held back, IDs keep to the monotonic clock */
	CHECK_I64(paced_at(&p, 2500, 30000), <=, WALL0 + 2500 + IDGEN_PACE_SLACK_MS);
	CHECK_I64(paced_at(&p, 2500, 30000), >=, WALL0 + 2500);
	CHECK(idgen_pace_observe(&p, WALL0 + 3000, BOOT0 + 3000, WALL0 + 3000,
							 LEAD, CONFIRM) == IDGEN_PACE_STEP_WITHDRAWN);
	CHECK_I64(p.trusted_offset_ms, ==, WALL0 - BOOT0);
	CHECK_I64(paced_at(&p, 3500, 0), ==, WALL0 + 3500);
}

static void
test_jump_that_lasts(void)
{
	IdgenPace	p;
	int64_t		t;

	unit_context("a 30 s jump that lasts");
	idgen_pace_init(&p, WALL0 - BOOT0);
	CHECK(idgen_pace_observe(&p, WALL0 + 30000, BOOT0, WALL0, LEAD, CONFIRM) ==
		  IDGEN_PACE_STEP_SEEN);
	for (t = TICK; t < CONFIRM; t += TICK)
		CHECK(idgen_pace_observe(&p, WALL0 + t + 30000, BOOT0 + t, WALL0 + t,
								 LEAD, CONFIRM) == IDGEN_PACE_STEADY);
	CHECK_I64(p.trusted_offset_ms, ==, WALL0 - BOOT0);
	CHECK(idgen_pace_observe(&p, WALL0 + t + 30000, BOOT0 + t, WALL0 + t,
							 LEAD, CONFIRM) == IDGEN_PACE_STEP_CONFIRMED);
	CHECK_I64(p.trusted_offset_ms, ==, WALL0 - BOOT0 + 30000);
	CHECK_I64(paced_at(&p, t + 1, 30000), ==, WALL0 + t + 1 + 30000);
}

static void
test_clock_that_keeps_moving(void)
{
	IdgenPace	p;
	int64_t		t;
	int64_t		off = 0;

	unit_context("a clock that keeps stepping ahead");
	idgen_pace_init(&p, WALL0 - BOOT0);
	/* a step of 5 s more every 10 s: never still for the whole wait */
	for (t = 0; t < 10 * CONFIRM; t += TICK)
	{
		if (t % 10000 == 0)
			off += 5000;
		CHECK(idgen_pace_observe(&p, WALL0 + t + off, BOOT0 + t, WALL0 + t,
								 LEAD, CONFIRM) != IDGEN_PACE_STEP_CONFIRMED);
	}
	CHECK_I64(p.trusted_offset_ms, ==, WALL0 - BOOT0);
}

static void
test_step_back_and_correction(void)
{
	IdgenPace	p;

	unit_context("a step back of 5 s, put right after 3 s");
	idgen_pace_init(&p, WALL0 - BOOT0);
	CHECK(observe_span(&p, 0, 3000, -5000, WALL0, NULL) == IDGEN_PACE_STEADY);
	/* the step back itself is issued by at once (the wall is lower) */
	CHECK_I64(paced_at(&p, 2000, -5000), ==, WALL0 + 2000 - 5000);
	/* putting it right is followed at once: nothing moved past the old reading */
	CHECK(observe_span(&p, 3000, 4000, 0, WALL0, NULL) == IDGEN_PACE_STEADY);
	CHECK_I64(paced_at(&p, 3500, 0), ==, WALL0 + 3500);

	unit_context("a step back that lasts becomes the new normal");
	idgen_pace_init(&p, WALL0 - BOOT0);
	CHECK(observe_span(&p, 0, CONFIRM + 2 * TICK, -5000, -1, NULL) ==
		  IDGEN_PACE_BACK_ACCEPTED);
	CHECK_I64(p.trusted_offset_ms, ==, WALL0 - BOOT0 - 5000);
}

static void
test_clock_behind_what_was_issued(void)
{
	IdgenPace	p;

	unit_context("restarted an hour behind, then put right");
	idgen_pace_init(&p, WALL0 - BOOT0 - 3600000);
	/* the node issued up to WALL0 + 500 before the restart */
	CHECK(idgen_pace_observe(&p, WALL0 + 5000, BOOT0 + 5000, WALL0 + 500,
							 LEAD, CONFIRM) == IDGEN_PACE_STEP_FOLLOWED);
	CHECK_I64(paced_at(&p, 5100, 0), ==, WALL0 + 5100);

	unit_context("a step landing where the node has issued already");
	idgen_pace_init(&p, WALL0 - BOOT0);
	CHECK(idgen_pace_observe(&p, WALL0 + 900, BOOT0, WALL0 + 900, LEAD, CONFIRM) ==
		  IDGEN_PACE_STEP_FOLLOWED);

	unit_context("a batch that borrowed ahead is no proof the clock is behind");
	idgen_pace_init(&p, WALL0 - BOOT0);
	CHECK(idgen_pace_observe(&p, WALL0 + 30000, BOOT0, WALL0 + LEAD, LEAD, CONFIRM) ==
		  IDGEN_PACE_STEP_SEEN);
}

static void
test_outside_confirmation(void)
{
	IdgenPace	p;

	unit_context("the registry's clock agrees with a step");
	idgen_pace_init(&p, WALL0 - BOOT0);
	CHECK(idgen_pace_observe(&p, WALL0 + 3000, BOOT0, WALL0, LEAD, CONFIRM) ==
		  IDGEN_PACE_STEP_SEEN);
	CHECK(idgen_pace_confirm(&p, WALL0 + 3100, BOOT0 + 100));
	CHECK_I64(p.trusted_offset_ms, ==, WALL0 - BOOT0 + 3000);
	CHECK(!idgen_pace_confirm(&p, WALL0 + 3200, BOOT0 + 200));
	CHECK(idgen_pace_observe(&p, WALL0 + 3300, BOOT0 + 300, WALL0 + 3300, LEAD,
							 CONFIRM) == IDGEN_PACE_STEADY);
}

/*
 * Random walks of the wall clock against the monotonic one.  Whatever it
 * does, the paced reading is at most the slack ahead of the monotonic
 * account of the last trusted offset, and between two looks it never goes
 * back unless the wall clock itself did.
 */
static void
test_random_walks(void)
{
	int			walk;

	for (walk = 0; walk < 2000; walk++)
	{
		IdgenPace	p;
		int64_t		off = 0;
		int64_t		t;
		int64_t		prev_paced = INT64_MIN;
		int64_t		prev_wall = INT64_MIN;
		int64_t		issued = -1;

		unit_context("random walk %d", walk);
		idgen_pace_init(&p, WALL0 - BOOT0);
		for (t = 0; t < 200 * TICK; t += TICK)
		{
			int64_t		trusted = p.trusted_offset_ms;
			int64_t		wall;
			int64_t		paced;
			IdgenPaceEvent e;

			switch (unit_below(20))
			{
				case 0:
					off += (int64_t) unit_below(60000);
					break;
				case 1:
					off -= (int64_t) unit_below(60000);
					break;
				case 2:
					off += (int64_t) unit_below(3) - 1;
					break;
				default:
					break;
			}
			wall = WALL0 + t + off;
			paced = idgen_paced_ms(wall, BOOT0 + t, trusted);
			CHECK_I64(paced, <=, BOOT0 + t + trusted + IDGEN_PACE_SLACK_MS);
			CHECK_I64(paced, <=, wall);
			if (wall >= prev_wall && prev_paced != INT64_MIN)
				CHECK_I64(paced, >=, prev_paced);
			if (paced > issued)
				issued = paced;
			e = idgen_pace_observe(&p, wall, BOOT0 + t, issued, LEAD, CONFIRM);
			/* a step is trusted only by waiting, by proof, or by drift */
			if (p.trusted_offset_ms > trusted + IDGEN_PACE_SLACK_MS)
				CHECK(e == IDGEN_PACE_STEP_CONFIRMED || e == IDGEN_PACE_STEP_FOLLOWED);
			prev_paced = idgen_paced_ms(wall, BOOT0 + t, p.trusted_offset_ms);
			prev_wall = wall;
		}
	}
}

int
main(void)
{
	test_jump_that_comes_back();
	test_jump_that_lasts();
	test_clock_that_keeps_moving();
	test_step_back_and_correction();
	test_clock_behind_what_was_issued();
	test_outside_confirmation();
	test_random_walks();
	return unit_finish("test_clockpace");
}
