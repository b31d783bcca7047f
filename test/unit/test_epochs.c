/*
 * test_epochs.c - unit tests of src/epochs.c: planning layout epochs and
 * finding the epoch of an ID
 */
#include "epochs.h"
#include "unit.h"

/* 2027-01-01T00:00:00Z */
#define T2027 INT64_C(1798761600000)
#define DAY_MS INT64_C(86400000)

static uint64_t
max_id_at(const IdgenEpoch *e, int64_t unix_ms)
{
	return idgen_layout_max_at(&e->layout, unix_ms - e->layout.origin_unix_ms);
}

static uint64_t
min_id_at(const IdgenEpoch *e, int64_t unix_ms)
{
	return idgen_layout_min_at(&e->layout, unix_ms - e->layout.origin_unix_ms);
}

static void
test_init(void)
{
	IdgenEpochList list;
	IdgenLayout def;

	unit_context("initial list");
	idgen_epochs_init(&list);
	idgen_layout_default(&def);
	CHECK(list.count == 1);
	CHECK(list.epochs[0].version == 1);
	CHECK_U64(list.epochs[0].boundary, ==, 0);
	CHECK_I64(list.epochs[0].start_unix_ms, ==, def.origin_unix_ms);
	CHECK(idgen_epochs_for_id(&list, 0)->version == 1);
	CHECK(idgen_epochs_for_id(&list, (uint64_t) IDGEN_ID_MAX)->version == 1);
	CHECK(idgen_epochs_at(&list, 0)->version == 1);
	CHECK(idgen_epochs_version(&list, 1) == &list.epochs[0]);
	CHECK(idgen_epochs_version(&list, 2) == NULL);
	CHECK(idgen_epochs_version(&list, 0) == NULL);
}

/* moving bits between fields below the time keeps the time field as it is */
static void
test_same_shift(void)
{
	IdgenEpochList list;
	IdgenEpoch next;
	int64_t		start = T2027 + 12345;

	unit_context("same shift");
	idgen_epochs_init(&list);
	CHECK_ACCEPTS(idgen_epochs_plan(&list, start, 2, 8, 12, &next));
	CHECK_I64(next.layout.origin_unix_ms, ==, list.epochs[0].layout.origin_unix_ms);
	CHECK(next.version == 2);
	CHECK_U64(next.boundary, ==, min_id_at(&next, start));
	CHECK_U64(next.boundary, ==, max_id_at(&list.epochs[0], start - 1) + 1);
	CHECK_ACCEPTS(idgen_epochs_append(&list, &next));
	CHECK(list.count == 2);
	CHECK(idgen_epochs_for_id(&list, next.boundary)->version == 2);
	CHECK(idgen_epochs_for_id(&list, next.boundary - 1)->version == 1);
	CHECK(idgen_epochs_at(&list, start)->version == 2);
	CHECK(idgen_epochs_at(&list, start - 1)->version == 1);
}

/* the properties every planned epoch must have, checked against the list */
static void
check_planned(IdgenEpochList *list, const IdgenEpoch *e)
{
	const IdgenEpoch *prev = &list->epochs[list->count - 1];
	int			shift = idgen_layout_time_shift(&e->layout);
	int64_t		ms = e->start_unix_ms - e->layout.origin_unix_ms;
	uint64_t	max_old = max_id_at(prev, e->start_unix_ms - 1);

	/* above everything before the switch, and only just */
	CHECK_U64(e->boundary, >, max_old);
	CHECK_U64(e->boundary, ==, (uint64_t) ms << shift);
	if (ms > 0)
		CHECK_U64(idgen_layout_min_at(&e->layout, ms - 1), <=, max_old);
	CHECK_U64(e->boundary, ==, min_id_at(e, e->start_unix_ms));
	CHECK(e->boundary <= (uint64_t) IDGEN_ID_MAX);
	/* the catalog's copy of it is accepted back */
	CHECK_ACCEPTS(idgen_epochs_append(list, e));
	CHECK(idgen_epochs_for_id(list, e->boundary)->version == e->version);
	CHECK(idgen_epochs_for_id(list, max_old)->version == e->version - 1);
	CHECK(idgen_epochs_for_id(list, max_id_at(e, e->start_unix_ms + 1000))->version == e->version);
	CHECK(idgen_epochs_at(list, e->start_unix_ms)->version == e->version);
	CHECK(idgen_epochs_at(list, e->start_unix_ms - 1)->version == e->version - 1);
	CHECK(idgen_epoch_horizon_unix_ms(e) > e->start_unix_ms);
}

static void
random_bits(int *r, int *w, int *s)
{
	int			total = (int) (unit_rand() % 23);	/* 0..22 below time */

	*s = 1 + (int) (unit_rand() % (uint64_t) (total > 0 ? total : 1));
	if (*s > total)
		*s = total > 0 ? total : 1;
	total -= *s;
	*r = total > 0 ? (int) (unit_rand() % (uint64_t) (total + 1)) : 0;
	*w = total - *r;
	if (*w < 0)
		*w = 0;
}

/* chains of random epochs: each sorts above the one before */
static void
test_random_chains(void)
{
	int			chain;
	int			full_chains = 0;

	for (chain = 0; chain < 3000; chain++)
	{
		IdgenEpochList list;
		int64_t		start = T2027 + (int64_t) (unit_rand() % (uint64_t) (3650 * DAY_MS));
		uint64_t	last_boundary = 0;
		int			step;

		idgen_epochs_init(&list);
		for (step = 0; step < 60 && list.count < IDGEN_MAX_EPOCHS; step++)
		{
			IdgenEpoch	e;
			int			r,
						w,
						s;
			const char *problem;

			random_bits(&r, &w, &s);
			unit_context("chain %d epoch %d: %d/%d/%d at %" PRId64,
						 chain, list.count + 1, r, w, s, start);
			problem = idgen_epochs_plan(&list, start, r, w, s, &e);
			if (problem == NULL)
			{
				check_planned(&list, &e);
				CHECK_U64(e.boundary, >, last_boundary);
				last_boundary = e.boundary;
			}
			start += 1 + (int64_t) (unit_rand() % (uint64_t) (400 * DAY_MS));
		}
		unit_context("chain %d full", chain);
		if (list.count == IDGEN_MAX_EPOCHS)
		{
			IdgenEpoch	e;

			CHECK_REFUSES(idgen_epochs_plan(&list, start + DAY_MS, 3, 7, 12, &e));
			full_chains++;
		}
		/* every epoch's IDs are found in that epoch */
		{
			int			i;

			for (i = 1; i < list.count; i++)
			{
				const IdgenEpoch *e = &list.epochs[i];
				int64_t		end = i + 1 < list.count ?
					list.epochs[i + 1].start_unix_ms - 1 : e->start_unix_ms + DAY_MS;

				CHECK(idgen_epochs_for_id(&list, min_id_at(e, e->start_unix_ms))->version == e->version);
				CHECK(idgen_epochs_for_id(&list, max_id_at(e, end))->version == e->version);
			}
		}
	}
	/* some random chains must reach the 15-epoch limit */
	unit_context("random chains");
	CHECK(full_chains > 50);
}

static void
test_refusals(void)
{
	IdgenEpochList list;
	IdgenEpoch	e;
	IdgenEpoch	bad;
	int64_t		horizon;

	idgen_epochs_init(&list);
	unit_context("refusals");
	/* not after the latest start */
	CHECK_REFUSES(idgen_epochs_plan(&list, list.epochs[0].start_unix_ms, 3, 7, 12, &e));
	CHECK_REFUSES(idgen_epochs_plan(&list, list.epochs[0].start_unix_ms - 1, 3, 7, 12, &e));
	/* more than 22 bits below the time field */
	CHECK_REFUSES(idgen_epochs_plan(&list, T2027, 4, 7, 12, &e));
	CHECK_REFUSES(idgen_epochs_plan(&list, T2027, 0, 0, 23, &e));
	/* impossible widths */
	CHECK_REFUSES(idgen_epochs_plan(&list, T2027, -1, 7, 12, &e));
	CHECK_REFUSES(idgen_epochs_plan(&list, T2027, 3, 7, 0, &e));
	/* after the previous layout ran out nothing sorts above it */
	horizon = idgen_epoch_horizon_unix_ms(&list.epochs[0]);
	CHECK_REFUSES(idgen_epochs_plan(&list, horizon + 1000, 3, 7, 12, &e));
	CHECK_REFUSES(idgen_epochs_plan(&list, horizon + 1000, 2, 2, 2, &e));

	/* a tampered catalog row is not taken */
	CHECK_ACCEPTS(idgen_epochs_plan(&list, T2027, 3, 7, 12, &e));
	bad = e;
	bad.version = 3;
	CHECK_REFUSES(idgen_epochs_append(&list, &bad));
	bad = e;
	bad.layout.origin_unix_ms += 1;	/* its start sorts a millisecond low */
	CHECK_REFUSES(idgen_epochs_append(&list, &bad));
	bad = e;
	bad.layout.seq_bits = 13;
	CHECK_REFUSES(idgen_epochs_append(&list, &bad));
	bad = e;
	bad.start_unix_ms = list.epochs[0].start_unix_ms;
	CHECK_REFUSES(idgen_epochs_append(&list, &bad));
	CHECK(list.count == 1);
	CHECK_ACCEPTS(idgen_epochs_append(&list, &e));
	CHECK(list.count == 2);
}

/* fewer bits below the time field: the time field starts earlier */
static void
test_shift_changes(void)
{
	IdgenEpochList list;
	IdgenEpoch	e;

	unit_context("narrower");
	idgen_epochs_init(&list);
	CHECK_ACCEPTS(idgen_epochs_plan(&list, T2027, 2, 5, 12, &e));
	CHECK_I64(e.layout.origin_unix_ms, <, list.epochs[0].layout.origin_unix_ms);
	check_planned(&list, &e);
	/* six bits fewer would need a time field starting before 1970 */
	idgen_epochs_init(&list);
	CHECK_REFUSES(idgen_epochs_plan(&list, T2027, 2, 4, 10, &e));

	unit_context("wider");
	idgen_epochs_init(&list);
	CHECK_ACCEPTS(idgen_epochs_plan(&list, T2027, 3, 7, 12, &e));
	check_planned(&list, &e);
	CHECK_ACCEPTS(idgen_epochs_plan(&list, T2027 + DAY_MS, 4, 8, 10, &e));
	CHECK_I64(e.layout.origin_unix_ms, ==, list.epochs[0].layout.origin_unix_ms);
	check_planned(&list, &e);
}

static void
test_min_bits(void)
{
	IdgenEpochList list;
	IdgenEpoch	e;
	int			r,
				w;

	unit_context("min bits");
	idgen_epochs_init(&list);
	CHECK_ACCEPTS(idgen_epochs_plan(&list, T2027, 5, 5, 12, &e));
	CHECK_ACCEPTS(idgen_epochs_append(&list, &e));
	CHECK_ACCEPTS(idgen_epochs_plan(&list, T2027 + DAY_MS, 2, 9, 11, &e));
	CHECK_ACCEPTS(idgen_epochs_append(&list, &e));
	idgen_epochs_min_bits(&list, T2027 - 1, &r, &w);
	CHECK(r == 2 && w == 5);
	idgen_epochs_min_bits(&list, T2027, &r, &w);
	CHECK(r == 2 && w == 5);
	idgen_epochs_min_bits(&list, T2027 + DAY_MS, &r, &w);
	CHECK(r == 2 && w == 9);
}

/*
 * Comparing IDs with times: compare_ms never decreases as IDs grow, and
 * last_id_before is its exact threshold, checked on IDs around every
 * epoch's boundary (the gap below it, which no node issues, included), at
 * the ends of the ID range, and at random; with milliseconds around each
 * epoch's start, before the first time field and past the horizon.
 */
static void
check_time_order(const IdgenEpochList *list, int chain)
{
	uint64_t	ids[200];
	int64_t		mss[100];
	int			n_ids = 0;
	int			n_ms = 0;
	int			i;
	int			j;
	const IdgenEpoch *last = &list->epochs[list->count - 1];

	ids[n_ids++] = 0;
	ids[n_ids++] = 1;
	ids[n_ids++] = (uint64_t) IDGEN_ID_MAX;
	ids[n_ids++] = (uint64_t) IDGEN_ID_MAX - 1;
	mss[n_ms++] = INT64_C(-1);
	mss[n_ms++] = 0;
	mss[n_ms++] = list->epochs[0].layout.origin_unix_ms;
	mss[n_ms++] = list->epochs[0].layout.origin_unix_ms + 1;
	mss[n_ms++] = idgen_epoch_horizon_unix_ms(last);
	mss[n_ms++] = idgen_epoch_horizon_unix_ms(last) - 1;
	mss[n_ms++] = idgen_epoch_horizon_unix_ms(last) + 1;
	for (i = 0; i < list->count; i++)
	{
		const IdgenEpoch *e = &list->epochs[i];
		int64_t		d;

		for (d = -2; d <= 2; d++)
		{
			ids[n_ids++] = e->boundary + (uint64_t) (d + 2) - (e->boundary >= 2 ? 2 : 0);
			mss[n_ms++] = e->start_unix_ms + d;
		}
		if (i > 0)
		{
			/* the gap: above what the previous layout can have issued */
			uint64_t	old_max = max_id_at(&e[-1], e->start_unix_ms - 1);

			ids[n_ids++] = old_max;
			ids[n_ids++] = old_max + 1;
			ids[n_ids++] = old_max + (e->boundary - old_max) / 2;
			ids[n_ids++] = e->boundary - 1;
		}
	}
	while (n_ids < 200)
		ids[n_ids++] = unit_rand() & (uint64_t) IDGEN_ID_MAX;
	while (n_ms < 100)
		mss[n_ms++] = list->epochs[0].start_unix_ms - DAY_MS +
			(int64_t) (unit_rand() % (uint64_t) (idgen_epoch_horizon_unix_ms(last) -
												 list->epochs[0].start_unix_ms + 2 * DAY_MS));

	for (i = 0; i < n_ids; i++)
	{
		int64_t		ms_i = idgen_epochs_compare_ms(list, ids[i]);

		for (j = 0; j < n_ids; j++)
			if (ids[i] < ids[j])
			{
				unit_context("chain %d: ids %" PRIu64 " < %" PRIu64, chain, ids[i], ids[j]);
				CHECK_I64(ms_i, <=, idgen_epochs_compare_ms(list, ids[j]));
			}
		for (j = 0; j < n_ms; j++)
		{
			int64_t		limit = idgen_epochs_last_id_before(list, mss[j]);

			unit_context("chain %d: id %" PRIu64 " at ms %" PRId64, chain, ids[i], mss[j]);
			CHECK_I64(limit, >=, -1);
			CHECK((ms_i < mss[j]) == ((int64_t) ids[i] <= limit));
		}
	}
	unit_context("");
}

static void
test_time_order(void)
{
	IdgenEpochList list;
	IdgenEpoch	e;
	int			chain;

	/* the built-in layout alone */
	idgen_epochs_init(&list);
	check_time_order(&list, -1);
	CHECK_I64(idgen_epochs_last_id_before(&list, list.epochs[0].layout.origin_unix_ms), ==, -1);
	CHECK_I64(idgen_epochs_last_id_before(&list, list.epochs[0].layout.origin_unix_ms + 1), ==,
			  (int64_t) min_id_at(&list.epochs[0], list.epochs[0].layout.origin_unix_ms + 1) - 1);
	CHECK_I64(idgen_epochs_last_id_before(&list, idgen_epoch_horizon_unix_ms(&list.epochs[0])), ==,
			  IDGEN_ID_MAX);

	/*
	 * A narrow time shift, then a wide one: the third epoch's boundary is
	 * rounded up to its wide millisecond, so below it lie IDs that the
	 * second layout reads as later than the switch
	 */
	CHECK_ACCEPTS(idgen_epochs_plan(&list, T2027, 0, 0, 20, &e));
	CHECK_ACCEPTS(idgen_epochs_append(&list, &e));
	{
		IdgenEpochList two = list;
		int64_t		sw = 0;
		int			k;

		/* a switch whose old millisecond is not a multiple of the new one */
		for (k = 0; k < 4; k++)
		{
			list = two;
			sw = T2027 + DAY_MS + k;
			CHECK_ACCEPTS(idgen_epochs_plan(&list, sw, 0, 0, 22, &e));
			CHECK_ACCEPTS(idgen_epochs_append(&list, &e));
			if (e.boundary > max_id_at(&list.epochs[1], sw - 1) + 1)
				break;
		}
		CHECK(e.boundary > max_id_at(&list.epochs[1], sw - 1) + 1);
		/* gap IDs compare at the millisecond before the switch */
		CHECK_I64(idgen_epochs_compare_ms(&list, e.boundary - 1), ==, sw - 1);
		CHECK_I64(idgen_epochs_compare_ms(&list, max_id_at(&list.epochs[1], sw - 1) + 1), ==, sw - 1);
		CHECK_I64(idgen_epochs_compare_ms(&list, max_id_at(&list.epochs[1], sw - 1)), ==, sw - 1);
		CHECK_I64(idgen_epochs_compare_ms(&list, e.boundary), ==, sw);
		CHECK_I64(idgen_epochs_last_id_before(&list, sw), ==, (int64_t) e.boundary - 1);
		CHECK_I64(idgen_epochs_last_id_before(&list, sw - 1), ==,
				  (int64_t) min_id_at(&list.epochs[1], sw - 1) - 1);
	}
	check_time_order(&list, -2);

	for (chain = 0; chain < 60; chain++)
	{
		int64_t		start = T2027 + (int64_t) (unit_rand() % (uint64_t) (3650 * DAY_MS));
		int			step;

		idgen_epochs_init(&list);
		for (step = 0; step < 20 && list.count < 6; step++)
		{
			int			r,
						w,
						s;

			random_bits(&r, &w, &s);
			if (idgen_epochs_plan(&list, start, r, w, s, &e) == NULL)
				CHECK_ACCEPTS(idgen_epochs_append(&list, &e));
			start += 1 + (int64_t) (unit_rand() % (uint64_t) (400 * DAY_MS));
		}
		check_time_order(&list, chain);
	}
}

int
main(void)
{
	test_init();
	test_same_shift();
	test_refusals();
	test_shift_changes();
	test_min_bits();
	test_random_chains();
	test_time_order();
	return unit_finish("epochs");
}
