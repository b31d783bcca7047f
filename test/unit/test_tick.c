/*
 * test_tick.c - unit tests of the logical clock in src/tick.h and tick.c
 *
 * The tests drive idgen_tick_reserve the way the generator does: one shared
 * "last tick", replaced by res.last after every successful reservation.
 */
#include "layout.h"
#include "tick.h"
#include "unit.h"

/* far beyond any clock used below, so only the tests about it hit the limit */
#define NO_LIMIT INT64_C(4611686018427387903)

#define TICK(ms, counter, bits) (((uint64_t) (ms) << (bits)) | (uint64_t) (counter))
#define MS(tick, bits) ((int64_t) ((tick) >> (bits)))

/* reserve and, on success, move the shared last tick like the generator */
static IdgenTickResult
reserve(uint64_t *last, int64_t now_ms, int bits, uint64_t count,
		int64_t max_ahead_ms, int64_t limit_ms, IdgenReservation *res)
{
	IdgenTickResult r;

	/* defined contents even when a broken reserve leaves them alone */
	res->first = res->last = 0;
	res->exhausted = false;
	r = idgen_tick_reserve(*last, now_ms, bits, count, max_ahead_ms, limit_ms,
						   res);
	if (r == IDGEN_TICK_OK)
	{
		CHECK_U64(res->first, >, *last);
		CHECK_U64(res->last - res->first + 1, ==, count);
		CHECK_I64(MS(res->last, bits), <=, now_ms + (max_ahead_ms > 0 ? max_ahead_ms : 0));
		*last = res->last;
	}
	return r;
}

static void
test_advance(void)
{
	uint64_t	last = 0;
	IdgenReservation res;
	int64_t		now;

	unit_context("advance with the clock");
	/* tick 0 is the initial "last issued" value, so it is never handed out */
	CHECK_I64(reserve(&last, 0, 12, 1, 10, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, 1);
	CHECK(!res.exhausted);

	for (now = 1000; now < 1100; now += 1 + now % 3)
	{
		CHECK_I64(reserve(&last, now, 12, 1, 10, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_U64(res.first, ==, TICK(now, 0, 12));
		CHECK_U64(res.last, ==, res.first);
		CHECK(!res.exhausted);
	}

	/* a batch in a fresh millisecond starts at its first counter */
	CHECK_I64(reserve(&last, 2000, 12, 100, 10, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(2000, 0, 12));
	CHECK_U64(res.last, ==, TICK(2000, 99, 12));
	CHECK(!res.exhausted);
	/* the next one continues where it stopped */
	CHECK_I64(reserve(&last, 2000, 12, 1, 10, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(2000, 100, 12));
}

static void
test_same_ms(void)
{
	static const int widths[] = {2, 3, 12, 14, 22, 27};
	int			i;

	for (i = 0; i < (int) (sizeof(widths) / sizeof(widths[0])); i++)
	{
		int			bits = widths[i];
		uint64_t	per_ms = UINT64_C(1) << bits;
		uint64_t	last = TICK(4999, per_ms - 1, bits);
		uint64_t	prev = last;
		uint64_t	n;
		uint64_t	step = per_ms > 5000 ? per_ms / 4099 : 1;
		IdgenReservation res;
		int			ok = 1;
		int			ascending = 1;
		int			calm = 1;

		unit_context("one millisecond, %d counter bits", bits);
		/* fill millisecond 5000, in single ticks or in small batches */
		for (n = 0; n < per_ms; n += step)
		{
			uint64_t	count = n + step <= per_ms ? step : per_ms - n;

			ok &= reserve(&last, 5000, bits, count, 3, NO_LIMIT, &res) == IDGEN_TICK_OK;
			ascending &= res.first == prev + 1;
			calm &= !res.exhausted && MS(res.last, bits) == 5000;
			prev = res.last;
		}
		CHECK(ok);
		CHECK(ascending);
		CHECK(calm);
		CHECK_U64(last, ==, TICK(5000, per_ms - 1, bits));

		/* the counter is exhausted: borrow the next millisecond */
		CHECK_I64(reserve(&last, 5000, bits, 1, 3, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_U64(res.first, ==, TICK(5001, 0, bits));
		CHECK(res.exhausted);
		/* still borrowed, but that millisecond was already taken: no new exhaustion */
		CHECK_I64(reserve(&last, 5000, bits, 1, 3, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_U64(res.first, ==, TICK(5001, 1, bits));
		CHECK(!res.exhausted);
		/* the clock reaches the borrowed millisecond: business as usual */
		CHECK_I64(reserve(&last, 5001, bits, 1, 3, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_U64(res.first, ==, TICK(5001, 2, bits));
		CHECK(!res.exhausted);
		CHECK_I64(reserve(&last, 5002, bits, 1, 3, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_U64(res.first, ==, TICK(5002, 0, bits));
		CHECK(!res.exhausted);
	}

	/* a batch that straddles two milliseconds borrows too */
	{
		uint64_t	last = 0;
		IdgenReservation res;

		unit_context("straddling batch");
		CHECK_I64(reserve(&last, 3000, 12, 4000, 2, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK(!res.exhausted);
		CHECK_I64(reserve(&last, 3000, 12, 200, 2, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_U64(res.first, ==, TICK(3000, 4000, 12));
		CHECK_U64(res.last, ==, TICK(3001, 103, 12));
		CHECK(res.exhausted);
	}

	/* with no room ahead, exhaustion means waiting for the next millisecond */
	{
		uint64_t	last = TICK(6000, 4095, 12);
		IdgenReservation res;

		unit_context("exhausted, max_ahead 0");
		CHECK_I64(reserve(&last, 6000, 12, 1, 0, NO_LIMIT, &res), ==,
				  IDGEN_TICK_CLOCK_BEHIND);
		CHECK_I64(idgen_tick_fits_at(last, 12, 1, 0), ==, 6001);
		CHECK_I64(reserve(&last, 6001, 12, 1, 0, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_U64(res.first, ==, TICK(6001, 0, 12));
		CHECK(!res.exhausted);
	}
}

static void
test_rollback(void)
{
	uint64_t	last;
	uint64_t	mark;
	IdgenReservation res;
	int64_t		fits;

	/* back 3 ms with 5 ms of slack: keep counting on the logical clock */
	unit_context("small rollback");
	last = TICK(5000, 10, 12);
	CHECK_I64(reserve(&last, 4997, 12, 1, 5, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(5000, 11, 12));
	CHECK(!res.exhausted);
	/* the rest of 5000 and all of 5001: borrowed ahead of the clock */
	CHECK_I64(reserve(&last, 4997, 12, 4084 + 4096, 5, NO_LIMIT, &res), ==,
			  IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(5000, 12, 12));
	CHECK_U64(res.last, ==, TICK(5001, 4095, 12));
	CHECK(res.exhausted);
	/* up to 4997 + 5 = 5002, and not one millisecond further */
	CHECK_I64(reserve(&last, 4997, 12, 4096, 5, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(5002, 0, 12));
	CHECK_U64(res.last, ==, TICK(5002, 4095, 12));
	CHECK(res.exhausted);
	mark = last;
	CHECK_I64(reserve(&last, 4997, 12, 1, 5, NO_LIMIT, &res), ==,
			  IDGEN_TICK_CLOCK_BEHIND);
	CHECK_U64(last, ==, mark);
	CHECK_I64(idgen_tick_fits_at(last, 12, 1, 5), ==, 4998);
	CHECK_I64(reserve(&last, 4998, 12, 1, 5, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(5003, 0, 12));

	/* back a full second with 50 ms of slack: refuse, and say until when */
	unit_context("large rollback");
	last = TICK(10000, 7, 12);
	mark = last;
	CHECK_I64(reserve(&last, 9000, 12, 1, 50, NO_LIMIT, &res), ==,
			  IDGEN_TICK_CLOCK_BEHIND);
	CHECK_U64(last, ==, mark);
	fits = idgen_tick_fits_at(last, 12, 1, 50);
	CHECK_I64(fits, ==, 9950);
	CHECK_I64(reserve(&last, fits - 1, 12, 1, 50, NO_LIMIT, &res), ==,
			  IDGEN_TICK_CLOCK_BEHIND);
	CHECK_I64(reserve(&last, fits, 12, 1, 50, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, mark + 1);
	/* once the clock passes the logical clock it takes over again */
	CHECK_I64(reserve(&last, 10020, 12, 1, 50, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(10020, 0, 12));

	/* a full counter moves the fitting time one millisecond later */
	unit_context("large rollback, full counter");
	last = TICK(10000, 4095, 12);
	CHECK_I64(reserve(&last, 9000, 12, 1, 50, NO_LIMIT, &res), ==,
			  IDGEN_TICK_CLOCK_BEHIND);
	fits = idgen_tick_fits_at(last, 12, 1, 50);
	CHECK_I64(fits, ==, 9951);
	CHECK_I64(reserve(&last, fits - 1, 12, 1, 50, NO_LIMIT, &res), ==,
			  IDGEN_TICK_CLOCK_BEHIND);
	CHECK_I64(reserve(&last, fits, 12, 1, 50, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(10001, 0, 12));
	CHECK(res.exhausted);

	/* a batch needs the clock closer still */
	unit_context("large rollback, batch");
	last = TICK(10000, 0, 12);
	CHECK_I64(reserve(&last, 9000, 12, 3 * 4096, 50, NO_LIMIT, &res), ==,
			  IDGEN_TICK_CLOCK_BEHIND);
	fits = idgen_tick_fits_at(last, 12, 3 * 4096, 50);
	CHECK_I64(fits, ==, 10003 - 50);
	CHECK_I64(reserve(&last, fits - 1, 12, 3 * 4096, 50, NO_LIMIT, &res), ==,
			  IDGEN_TICK_CLOCK_BEHIND);
	CHECK_I64(reserve(&last, fits, 12, 3 * 4096, 50, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(10000, 1, 12));
	CHECK_U64(res.last, ==, TICK(10003, 0, 12));
}

static void
test_batch_counts(void)
{
	static const int widths[] = {1, 12, 14, 19, 27};
	static const int64_t aheads[] = {0, 1, 3, 100};
	int			i;
	int			j;

	for (i = 0; i < (int) (sizeof(widths) / sizeof(widths[0])); i++)
		for (j = 0; j < (int) (sizeof(aheads) / sizeof(aheads[0])); j++)
		{
			int			bits = widths[i];
			int64_t		ahead = aheads[j];
			uint64_t	most = (uint64_t) (ahead + 1) << bits;
			uint64_t	last = TICK(700, 5, bits);
			uint64_t	mark;
			IdgenReservation res;

			unit_context("batch counts, %d bits, max_ahead %" PRId64, bits, ahead);
			CHECK_I64(reserve(&last, 800, bits, 1, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_OK);
			CHECK_U64(res.first, ==, TICK(800, 0, bits));

			/* exactly the whole window, from the start of a fresh millisecond */
			CHECK_I64(reserve(&last, 801, bits, most, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_OK);
			CHECK_U64(res.first, ==, TICK(801, 0, bits));
			CHECK_U64(res.last, ==, TICK(801 + ahead + 1, 0, bits) - 1);
			CHECK(res.exhausted == (ahead > 0));

			/* the same count once the window is partly used: wait, it will fit */
			mark = last;
			CHECK_I64(reserve(&last, 801 + ahead + 1, bits, 1, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_OK);
			CHECK_I64(reserve(&last, 801 + ahead + 1, bits, most, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_CLOCK_BEHIND);
			CHECK_I64(idgen_tick_fits_at(last, bits, most, ahead), ==, 801 + ahead + 2);
			CHECK_I64(reserve(&last, 801 + ahead + 2, bits, most, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_OK);
			CHECK_U64(res.first, >, mark);

			/* one more than the window never fits, whatever the state */
			mark = last;
			CHECK_I64(reserve(&last, 900 + ahead, bits, most + 1, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_TOO_MANY);
			CHECK_I64(reserve(&last, 0, bits, most + 1, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_TOO_MANY);
			CHECK_I64(reserve(&last, 100000, bits, most + 1, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_TOO_MANY);
			CHECK_I64(reserve(&last, 100000, bits, 0, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_TOO_MANY);
			CHECK_I64(reserve(&last, 100000, bits, UINT64_MAX, ahead, NO_LIMIT, &res), ==,
					  IDGEN_TICK_TOO_MANY);
			CHECK_I64(reserve(&last, 100000, bits, IDGEN_TICK_CEILING, INT64_MAX,
							  NO_LIMIT, &res), ==, IDGEN_TICK_TOO_MANY);
			CHECK_U64(last, ==, mark);
		}

	/* a negative max_ahead_ms counts as 0 */
	{
		uint64_t	last = 0;
		IdgenReservation res;

		unit_context("negative max_ahead");
		CHECK_I64(reserve(&last, 50, 12, 4096, -7, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
		CHECK_I64(reserve(&last, 51, 12, 4097, -7, NO_LIMIT, &res), ==,
				  IDGEN_TICK_TOO_MANY);
		CHECK_I64(reserve(&last, 50, 12, 1, -7, NO_LIMIT, &res), ==,
				  IDGEN_TICK_CLOCK_BEHIND);
		/* the wait it reports is never shorter than the one needed */
		CHECK_I64(idgen_tick_fits_at(last, 12, 1, -7), >=, 51);
		CHECK_I64(reserve(&last, 51, 12, 1, -7, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
	}
}

static void
test_limit(void)
{
	IdgenLayout layout;
	int64_t		max_ms;
	uint64_t	last;
	uint64_t	mark;
	uint64_t	node;
	IdgenReservation res;

	idgen_layout_default(&layout);
	max_ms = idgen_layout_max_ms(&layout);
	node = idgen_node_bits(&layout, 7, 127);

	unit_context("the horizon");
	last = TICK(max_ms, 4094, 12);
	CHECK_I64(reserve(&last, max_ms, 12, 1, 5, max_ms, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.first, ==, TICK(max_ms, 4095, 12));
	CHECK_U64(idgen_tick_to_id(res.first, 12, idgen_layout_time_shift(&layout), node),
			  ==, IDGEN_ID_MAX);
	mark = last;
	/* nothing after the last tick of the last millisecond: no wrap to 0 */
	CHECK_I64(reserve(&last, max_ms, 12, 1, 5, max_ms, &res), ==, IDGEN_TICK_LIMIT);
	CHECK_I64(reserve(&last, max_ms + 1, 12, 1, 5, max_ms, &res), ==, IDGEN_TICK_LIMIT);
	CHECK_I64(reserve(&last, max_ms + 100000, 12, 1, 5, max_ms, &res), ==,
			  IDGEN_TICK_LIMIT);
	/* waiting cannot help at the horizon, so it is LIMIT, not CLOCK_BEHIND */
	CHECK_I64(reserve(&last, max_ms - 10, 12, 1, 5, max_ms, &res), ==,
			  IDGEN_TICK_LIMIT);
	CHECK_U64(last, ==, mark);

	/* a clock past the limit is refused even with an untouched counter */
	unit_context("clock past the limit");
	last = 0;
	CHECK_I64(reserve(&last, max_ms + 1, 12, 1, 5, max_ms, &res), ==, IDGEN_TICK_LIMIT);
	CHECK_I64(reserve(&last, 200, 12, 1, 5, 100, &res), ==, IDGEN_TICK_LIMIT);
	CHECK_I64(reserve(&last, 100, 12, 1, 5, 100, &res), ==, IDGEN_TICK_OK);

	/* a batch reaching past the limit is refused as a whole */
	unit_context("batch at the limit");
	last = TICK(max_ms - 1, 4000, 12);
	mark = last;
	CHECK_I64(reserve(&last, max_ms - 1, 12, 4096 + 96, 5, max_ms, &res), ==,
			  IDGEN_TICK_LIMIT);
	CHECK_U64(last, ==, mark);
	CHECK_I64(reserve(&last, max_ms - 1, 12, 4096 + 95, 5, max_ms, &res), ==,
			  IDGEN_TICK_OK);
	CHECK_U64(res.last, ==, TICK(max_ms, 4095, 12));
	CHECK_I64(reserve(&last, max_ms - 1, 12, 1, 5, max_ms, &res), ==, IDGEN_TICK_LIMIT);

	/* where a refused reservation would have ended: past which limit */
	unit_context("end of a refused reservation");
	last = TICK(max_ms - 1, 4000, 12);
	CHECK_I64(idgen_tick_end_ms(last, max_ms - 1, 12, 4096 + 96), ==, max_ms + 1);
	CHECK_I64(idgen_tick_end_ms(last, max_ms - 1, 12, 4096 + 95), ==, max_ms);
	/* from the clock when it is ahead of the logical clock */
	CHECK_I64(idgen_tick_end_ms(TICK(10, 5, 12), 500, 12, 4097), ==, 501);
	CHECK_I64(idgen_tick_end_ms(TICK(10, 5, 12), 500, 12, 4096), ==, 500);
	/* from the logical clock when it is ahead */
	CHECK_I64(idgen_tick_end_ms(TICK(900, 4095, 12), 500, 12, 1), ==, 901);
	CHECK_I64(idgen_tick_end_ms(0, (int64_t) (IDGEN_TICK_CEILING >> 12), 12, 1), ==,
			  INT64_MAX);
	CHECK_I64(idgen_tick_end_ms(IDGEN_TICK_CEILING, 0, 12, 1), ==, INT64_MAX);

	/* ticks stay below 2^62 whatever limit the caller passes */
	unit_context("tick ceiling");
	last = 0;
	CHECK_I64(reserve(&last, (int64_t) (IDGEN_TICK_CEILING >> 12), 12, 1, 5,
					  INT64_MAX, &res), ==, IDGEN_TICK_LIMIT);
	CHECK_I64(reserve(&last, INT64_MAX, 12, 1, 5, INT64_MAX, &res), ==,
			  IDGEN_TICK_LIMIT);
	CHECK_I64(reserve(&last, (int64_t) (IDGEN_TICK_CEILING >> 12) - 1, 12, 1, 5,
					  INT64_MAX, &res), ==, IDGEN_TICK_OK);
	CHECK_U64(res.last, <, IDGEN_TICK_CEILING);
	last = IDGEN_TICK_CEILING;
	CHECK_I64(reserve(&last, 1000, 12, 1, 5, INT64_MAX, &res), ==, IDGEN_TICK_LIMIT);
}

static void
test_before_epoch(void)
{
	uint64_t	last = TICK(100, 0, 12);
	IdgenReservation res;

	unit_context("before the epoch");
	CHECK_I64(reserve(&last, -1, 12, 1, 5, NO_LIMIT, &res), ==, IDGEN_TICK_BEFORE_EPOCH);
	CHECK_I64(reserve(&last, -100000, 12, 1, 5, NO_LIMIT, &res), ==,
			  IDGEN_TICK_BEFORE_EPOCH);
	CHECK_I64(reserve(&last, INT64_MIN, 12, 1, 5, NO_LIMIT, &res), ==,
			  IDGEN_TICK_BEFORE_EPOCH);
	CHECK_U64(last, ==, TICK(100, 0, 12));
	last = 0;
	CHECK_I64(reserve(&last, 0, 12, 1, 5, NO_LIMIT, &res), ==, IDGEN_TICK_OK);
}

/* every CLOCK_BEHIND answer names the earliest time that works */
static void
test_fits_at_random(void)
{
	int			n;

	for (n = 0; n < 20000; n++)
	{
		int			bits = 1 + (int) unit_below(27);
		int64_t		ahead = (int64_t) unit_below(40);
		uint64_t	window = (uint64_t) (ahead + 1) << bits;
		int64_t		last_ms = 1000 + (int64_t) unit_below(100000);
		uint64_t	last = TICK(last_ms, unit_bits(bits), bits);
		int64_t		now = last_ms - (int64_t) unit_below(200);
		uint64_t	count = unit_below(3) == 0 ? 1 : 1 + unit_below(window);
		IdgenReservation res;
		IdgenTickResult r;
		int64_t		fits;
		uint64_t	copy;

		unit_context("fits_at #%d: bits %d ahead %" PRId64 " last %" PRIu64
					 " now %" PRId64 " count %" PRIu64, n, bits, ahead, last,
					 now, count);
		r = idgen_tick_reserve(last, now, bits, count, ahead, NO_LIMIT, &res);
		if (r == IDGEN_TICK_OK)
		{
			CHECK_U64(res.first, ==, last + 1);
			continue;
		}
		CHECK_I64(r, ==, IDGEN_TICK_CLOCK_BEHIND);
		fits = idgen_tick_fits_at(last, bits, count, ahead);
		CHECK_I64(fits, >, now);
		copy = last;
		CHECK_I64(reserve(&copy, fits, bits, count, ahead, NO_LIMIT, &res), ==,
				  IDGEN_TICK_OK);
		copy = last;
		CHECK_I64(reserve(&copy, fits - 1, bits, count, ahead, NO_LIMIT, &res), ==,
				  IDGEN_TICK_CLOCK_BEHIND);
	}
}

/*
 * A generator's life with a clock that jumps back and forth: every
 * reservation it gets lies strictly above the previous one and never more
 * than max_ahead_ms ahead of the clock it was made at.
 */
static void
test_simulation(void)
{
	static const int widths[] = {12, 14, 3};
	int			w;

	for (w = 0; w < (int) (sizeof(widths) / sizeof(widths[0])); w++)
	{
		int			bits = widths[w];
		int64_t		ahead = 8;
		uint64_t	window = (uint64_t) (ahead + 1) << bits;
		IdgenLayout layout;
		uint64_t	node;
		int			shift;
		uint64_t	last = 0;
		uint64_t	prev_id = 0;
		int64_t		wall = 100000;
		uint64_t	issued = 0;
		unsigned	behind = 0;
		unsigned	too_many = 0;
		unsigned	exhausted = 0;
		int			step;

		idgen_layout_default(&layout);
		layout.seq_bits = bits < 12 ? bits : 12;
		shift = idgen_layout_time_shift(&layout);
		node = idgen_node_bits(&layout, 5, 0);

		for (step = 0; step < 30000; step++)
		{
			uint64_t	roll = unit_below(100);
			uint64_t	count;
			uint64_t	before = last;
			IdgenReservation res;
			IdgenTickResult r;
			int			fine;

			/* the clock: mostly creeping on, sometimes jumping either way */
			if (roll < 60)
				wall += (int64_t) unit_below(3);
			else if (roll < 75)
				wall -= 1 + (int64_t) unit_below(ahead);
			else if (roll < 82)
				wall -= 1 + (int64_t) unit_below(200);
			else if (roll < 86)
				wall += 1 + (int64_t) unit_below(300);

			/* the batch: mostly one, sometimes many, rarely too many */
			roll = unit_below(100);
			if (roll < 70)
				count = 1;
			else if (roll < 95)
				count = 1 + unit_below(UINT64_C(1) << bits);
			else if (roll < 99)
				count = 1 + unit_below(window);
			else
				count = window + 1 + unit_below(window);

			unit_context("simulation, %d bits, step %d: wall %" PRId64
						 " last %" PRIu64 " count %" PRIu64, bits, step, wall,
						 last, count);
			r = idgen_tick_reserve(last, wall, bits, count, ahead, NO_LIMIT, &res);
			if (r == IDGEN_TICK_CLOCK_BEHIND)
			{
				int64_t		fits = idgen_tick_fits_at(last, bits, count, ahead);

				behind++;
				CHECK_I64(fits, >, wall);
				/* the generator sleeps until then (or the clock jumps past it) */
				wall = fits + (int64_t) unit_below(2);
				r = idgen_tick_reserve(last, wall, bits, count, ahead, NO_LIMIT, &res);
				CHECK_I64(r, ==, IDGEN_TICK_OK);
			}
			if (r == IDGEN_TICK_TOO_MANY)
			{
				too_many++;
				CHECK_U64(count, >, window);
				continue;
			}
			CHECK_I64(r, ==, IDGEN_TICK_OK);
			if (r != IDGEN_TICK_OK)
				continue;

			/* strictly above the previous, contiguous, within the window */
			fine = res.first > before &&
				res.last - res.first + 1 == count &&
				MS(res.last, bits) <= wall + ahead &&
				res.first == (before + 1 > TICK(wall, 0, bits) ?
							  before + 1 : TICK(wall, 0, bits));
			/* borrowing only ever reaches past the clock */
			if (res.exhausted)
				fine = fine && MS(res.last, bits) > wall &&
					MS(res.last, bits) > MS(before, bits);
			else
				fine = fine && (MS(res.last, bits) <= wall ||
								MS(res.last, bits) <= MS(before, bits));
			CHECK(fine);
			/* and the IDs built from the ticks keep the order */
			CHECK_U64(idgen_tick_to_id(res.first, bits, shift, node), >, prev_id);
			prev_id = idgen_tick_to_id(res.last, bits, shift, node);
			last = res.last;
			issued += count;
			exhausted += res.exhausted;
		}
		unit_context("simulation totals, %d bits", bits);
		/* make sure the walk visited every kind of step */
		CHECK_U64(behind, >, 100);
		CHECK_U64(too_many, >, 50);
		CHECK_U64(exhausted, >, 100);
		CHECK_U64(issued, >, 30000);
	}
}

/* a time near base, or one of the edges of int64_t */
static int64_t
window_time(int64_t base)
{
	switch (unit_below(10))
	{
		case 0:
			return INT64_MAX;
		case 1:
			return INT64_MIN;
		case 2:
			return 0;
		case 3:
			return (int64_t) unit_rand();
		default:
			return base + (int64_t) unit_below(2001) - 1000;
	}
}

/*
 * The issue window stands for the checks it replaces on the fast path: for
 * any clock reading, inside it iff every one of them passes.
 */
static void
test_issue_window(void)
{
	const int64_t floor_ms = INT64_C(1767225600000);
	int			i;

	for (i = 0; i < 2000000; i++)
	{
		int64_t		base = floor_ms + (int64_t) unit_below(1000) - 500;
		bool		active = unit_below(4) != 0;
		int64_t		origin = unit_below(8) == 0 ? 0 : base + (int64_t) unit_below(200) - 100;
		int64_t		horizon = unit_below(8) == 0 ? INT64_MAX :
			(unit_below(8) == 0 ? 0 : (int64_t) unit_below(1000));
		int64_t		valid = unit_below(8) == 0 ? 0 : window_time(base);
		int64_t		switch_at = unit_below(4) == 0 ? INT64_MAX : window_time(base);
		int64_t		now = window_time(base);
		IdgenIssueWindow w;
		bool		expect;

		if (origin < 0)
			origin = 0;
		w = idgen_issue_window(active, floor_ms, origin, horizon, valid, switch_at);
		expect = active && now >= floor_ms && now >= origin && now < valid &&
			now < switch_at && now - origin <= horizon;
		unit_context("window active %d origin %" PRId64 " horizon %" PRId64
					 " valid %" PRId64 " switch %" PRId64 " now %" PRId64,
					 active, origin, horizon, valid, switch_at, now);
		CHECK(w.end >= w.start);
		CHECK(idgen_in_issue_window(w.start, w.end, now) == expect);
	}
	unit_context("");
}

/*
 * The issue limit, as the node and the gateway both compute it, and which
 * of its parts a refused reservation passed.
 */
static void
test_issue_limit(void)
{
	IdgenIssueLimits l;
	int			i;

	unit_context("the issue limit: the earliest of its parts");
	l.horizon_ms = 1000000;
	l.switch_ms = INT64_MAX;
	l.mark_ms = 5000;
	l.lease_ms = INT64_MAX;
	CHECK_I64(idgen_issue_limit(&l), ==, 5000);
	l.mark_ms = -1;				/* no mark yet: nothing may be issued */
	CHECK_I64(idgen_issue_limit(&l), ==, -1);
	l.mark_ms = 5000;
	l.lease_ms = 4000;
	CHECK_I64(idgen_issue_limit(&l), ==, 4000);
	l.switch_ms = 3000;			/* the old layout's last millisecond is 2999 */
	CHECK_I64(idgen_issue_limit(&l), ==, 2999);
	l.mark_ms = l.lease_ms = INT64_MAX;
	l.switch_ms = INT64_MAX;
	CHECK_I64(idgen_issue_limit(&l), ==, 1000000);

	unit_context("the issue limit: which part refused");
	l.horizon_ms = 1000000;
	l.switch_ms = 3000;
	l.mark_ms = 5000;
	l.lease_ms = 4000;
	/* one call's IDs are all of one layout: the switch is waited for */
	CHECK_I64(idgen_limit_passed(&l, 3000), ==, IDGEN_LIMIT_SWITCH);
	CHECK_I64(idgen_limit_passed(&l, 2000000), ==, IDGEN_LIMIT_SWITCH);
	CHECK_I64(idgen_limit_passed(&l, INT64_MAX), ==, IDGEN_LIMIT_SWITCH);
	l.switch_ms = INT64_MAX;
	CHECK_I64(idgen_limit_passed(&l, 4001), ==, IDGEN_LIMIT_LEASE);
	CHECK_I64(idgen_limit_passed(&l, 1000001), ==, IDGEN_LIMIT_HORIZON);
	/* past the tick ceiling (tick_end_ms's INT64_MAX) is past the horizon */
	CHECK_I64(idgen_limit_passed(&l, INT64_MAX), ==, IDGEN_LIMIT_HORIZON);
	l.lease_ms = INT64_MAX;
	CHECK_I64(idgen_limit_passed(&l, 5001), ==, IDGEN_LIMIT_MARK);
	/* a switch past the horizon cannot help: the time field runs out first */
	l.switch_ms = 1000002;
	CHECK_I64(idgen_limit_passed(&l, 1000002), ==, IDGEN_LIMIT_HORIZON);
	/* a switch right after the horizon's last millisecond does */
	l.switch_ms = 1000001;
	CHECK_I64(idgen_limit_passed(&l, 1000001), ==, IDGEN_LIMIT_SWITCH);

	/*
	 * Any limits, any end past the limit: the part named is one the end
	 * really passes, the limit is what idgen_tick_reserve stops at, and a
	 * part of higher rank than the one named is not passed.
	 */
	for (i = 0; i < 20000; i++)
	{
		IdgenReservation res;
		IdgenLimitKind k;
		int64_t		limit;
		int64_t		end;
		int			bits = (int) unit_below(13);

		l.horizon_ms = 1000 + (int64_t) unit_below(100000);
		l.switch_ms = unit_below(4) == 0 ? INT64_MAX : 1 + (int64_t) unit_below(120000);
		l.mark_ms = unit_below(8) == 0 ? -1 : (int64_t) unit_below(120000);
		l.lease_ms = unit_below(3) == 0 ? INT64_MAX : (int64_t) unit_below(120000);
		limit = idgen_issue_limit(&l);
		unit_context("the issue limit, case %d: horizon %lld switch %lld mark %lld lease %lld",
					 i, (long long) l.horizon_ms, (long long) l.switch_ms,
					 (long long) l.mark_ms, (long long) l.lease_ms);
		CHECK_I64(limit, <=, l.horizon_ms);
		CHECK_I64(limit, <=, l.mark_ms);
		CHECK_I64(limit, <=, l.lease_ms);
		CHECK(l.switch_ms == INT64_MAX || limit < l.switch_ms);
		CHECK(limit == l.horizon_ms || limit == l.mark_ms ||
			  limit == l.lease_ms || limit == l.switch_ms - 1);
		/* tick 0 is never handed out, so millisecond 0 may not fit */
		if (limit >= 1)
		{
			CHECK_I64(idgen_tick_reserve(0, limit, bits, 1, 0, limit, &res), ==,
					  IDGEN_TICK_OK);
			CHECK_I64(idgen_tick_reserve(0, limit + 1, bits, 1, 0, limit, &res), ==,
					  IDGEN_TICK_LIMIT);
		}

		end = limit + 1 + (int64_t) unit_below(30000);
		k = idgen_limit_passed(&l, end);
		switch (k)
		{
			case IDGEN_LIMIT_SWITCH:
				CHECK_I64(end, >=, l.switch_ms);
				CHECK_I64(l.switch_ms - 1, <=, l.horizon_ms);
				break;
			case IDGEN_LIMIT_HORIZON:
				CHECK_I64(end, >, l.horizon_ms);
				break;
			case IDGEN_LIMIT_LEASE:
				CHECK_I64(end, >, l.lease_ms);
				CHECK_I64(end, <=, l.horizon_ms);
				break;
			case IDGEN_LIMIT_MARK:
				CHECK_I64(end, >, l.mark_ms);
				CHECK_I64(end, <=, l.lease_ms);
				CHECK_I64(end, <=, l.horizon_ms);
				break;
		}
		if (k != IDGEN_LIMIT_SWITCH)
			CHECK(l.switch_ms == INT64_MAX || end < l.switch_ms ||
				  l.switch_ms - 1 > l.horizon_ms);
	}
	unit_context("");
}

/*
 * The mark's reserve and the fast path's soft margin: the soft limit lies
 * below the mark and above the point where a raise is due, so a healthy
 * keeper raises the mark before any generator leaves the fast path for
 * it, and a late one leaves room for a raise before a call must wait.
 */
static void
test_mark_reserve(void)
{
	int			drift;

	unit_context("mark reserve");
	CHECK_I64(idgen_mark_reserve_ms(1000), ==, 500);
	CHECK_I64(idgen_mark_soft_ms(1000), ==, 125);
	CHECK_I64(idgen_mark_reserve_ms(0), ==, 50);
	CHECK_I64(idgen_mark_reserve_ms(60), ==, 50);
	for (drift = 0; drift <= 3600 * 1000; drift += drift < 2000 ? 1 : 997)
	{
		int64_t		reserve = idgen_mark_reserve_ms(drift);
		int64_t		soft = idgen_mark_soft_ms(drift);

		CHECK_I64(reserve, >=, 50);
		CHECK_I64(reserve, <=, drift > 100 ? drift : 100);
		CHECK_I64(soft, >, 0);
		CHECK_I64(soft, <, reserve / 2);
	}
	unit_context("");
}

int
main(void)
{
	test_advance();
	test_same_ms();
	test_rollback();
	test_batch_counts();
	test_limit();
	test_before_epoch();
	test_fits_at_random();
	test_simulation();
	test_issue_window();
	test_issue_limit();
	test_mark_reserve();
	return unit_finish("test_tick");
}
