/*
 * test_layout.c - unit tests of src/layout.c: the 64-bit bit layout
 */
#include <limits.h>

#include "layout.h"
#include "unit.h"

/* layouts that idgen_layout_check accepts, default first, extremes after */
static const IdgenLayout layouts[] = {
	{IDGEN_DEFAULT_EPOCH_UNIX_MS, 3, 7, 12},
	{0, 0, 0, 1},				/* 62 time bits */
	{IDGEN_DEFAULT_EPOCH_UNIX_MS, 0, 10, 12},
	{IDGEN_DEFAULT_EPOCH_UNIX_MS, 5, 5, 17},	/* exactly 36 time bits */
	{0, 22, 0, 5},				/* widest region field */
	{INT64_C(253402300799999), 0, 22, 5},	/* widest worker field, last epoch */
	{INT64_C(1288834974657), 5, 5, 12},
	{IDGEN_DEFAULT_EPOCH_UNIX_MS, 0, 5, 22},	/* widest sequence field */
	{IDGEN_DEFAULT_EPOCH_UNIX_MS, 4, 0, 1},
};
#define NLAYOUTS ((int) (sizeof(layouts) / sizeof(layouts[0])))

static uint64_t
width_mask(int bits)
{
	return (UINT64_C(1) << bits) - 1;
}

static void
describe(const IdgenLayout *l, const char *what)
{
	unit_context("%s, layout %d/%d/%d epoch %" PRId64, what, l->region_bits,
				 l->worker_bits, l->seq_bits, l->origin_unix_ms);
}

/* fields valid for the layout, spread over the whole range of each */
static IdgenFields
random_fields(const IdgenLayout *l)
{
	IdgenFields f;

	f.ms = (int64_t) (unit_bits(idgen_layout_time_bits(l)));
	f.region = (uint32_t) unit_bits(l->region_bits);
	f.worker = (uint32_t) unit_bits(l->worker_bits);
	f.seq = (uint32_t) unit_bits(l->seq_bits);
	return f;
}

static IdgenFields
fields(int64_t ms, uint32_t region, uint32_t worker, uint32_t seq)
{
	IdgenFields f;

	f.ms = ms;
	f.region = region;
	f.worker = worker;
	f.seq = seq;
	return f;
}

static uint64_t
compose4(const IdgenLayout *l, int64_t ms, uint32_t region, uint32_t worker,
		 uint32_t seq)
{
	IdgenFields f = fields(ms, region, worker, seq);

	return idgen_layout_compose(l, &f);
}

static void
test_default(void)
{
	IdgenLayout l;
	int64_t		horizon_unix_ms;

	unit_context("default layout");
	idgen_layout_default(&l);
	CHECK_I64(l.origin_unix_ms, ==, 1735689600000);
	CHECK_I64(l.region_bits, ==, 3);
	CHECK_I64(l.worker_bits, ==, 7);
	CHECK_I64(l.seq_bits, ==, 12);
	CHECK_I64(idgen_layout_time_bits(&l), ==, 41);
	CHECK_I64(idgen_layout_time_shift(&l), ==, 22);
	CHECK_ACCEPTS(idgen_layout_check(&l));

	/* 2^41 - 1 ms after 2025-01-01: 2094-09-07T15:47:35.551Z */
	CHECK_I64(idgen_layout_max_ms(&l), ==, INT64_C(2199023255551));
	horizon_unix_ms = l.origin_unix_ms + idgen_layout_max_ms(&l);
	CHECK_I64(horizon_unix_ms, ==, INT64_C(3934712855551));
	/* more than 69 years of 365.25 days */
	CHECK_I64(idgen_layout_max_ms(&l), >, INT64_C(69) * 36525 * 864000);

	/* the last ID of the last millisecond is exactly the largest bigint */
	CHECK_U64(compose4(&l, idgen_layout_max_ms(&l), 7, 127, 4095), ==,
			  IDGEN_ID_MAX);
	CHECK_U64(compose4(&l, 0, 0, 0, 0), ==, 0);
	CHECK_U64(compose4(&l, 1, 0, 0, 0), ==, UINT64_C(1) << 22);
	CHECK_U64(compose4(&l, 0, 1, 0, 0), ==, UINT64_C(1) << 19);
	CHECK_U64(compose4(&l, 0, 0, 1, 0), ==, UINT64_C(1) << 12);
	CHECK_U64(compose4(&l, 0, 0, 0, 1), ==, 1);
}

/* what idgen_layout_check must decide, written out independently */
static int
layout_ok(const IdgenLayout *l)
{
	if (l->region_bits < 0 || l->region_bits > 22)
		return 0;
	if (l->worker_bits < 0 || l->worker_bits > 22)
		return 0;
	if (l->seq_bits < 1 || l->seq_bits > 22)
		return 0;
	if (l->region_bits + l->worker_bits + l->seq_bits > 63 - 36)
		return 0;
	return l->origin_unix_ms >= 0 && l->origin_unix_ms <= INT64_C(253402300799999);
}

static void
test_check(void)
{
	IdgenLayout l;
	IdgenLayout base = {IDGEN_DEFAULT_EPOCH_UNIX_MS, 3, 7, 12};
	static const int64_t epochs[] = {
		INT64_MIN, -1, 0, 1, IDGEN_DEFAULT_EPOCH_UNIX_MS,
		INT64_C(253402300799999), INT64_C(253402300800000), INT64_MAX
	};
	static const int wild[] = {INT_MIN, -1000, 1000, INT_MAX};
	int			i;
	int			r;
	int			w;
	int			s;

	for (i = 0; i < NLAYOUTS; i++)
	{
		describe(&layouts[i], "table");
		CHECK_ACCEPTS(idgen_layout_check(&layouts[i]));
	}

	/* every combination around the field limits, against the oracle */
	for (r = -2; r <= 24; r++)
		for (w = -2; w <= 24; w++)
			for (s = -2; s <= 24; s++)
			{
				l = base;
				l.region_bits = r;
				l.worker_bits = w;
				l.seq_bits = s;
				describe(&l, "grid");
				if (layout_ok(&l))
					CHECK_ACCEPTS(idgen_layout_check(&l));
				else
					CHECK_REFUSES(idgen_layout_check(&l));
			}

	/* each field at its limits with the others harmless */
	unit_context("field limits");
	l = base;
	l.region_bits = 0;
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.region_bits = -1;
	CHECK_REFUSES(idgen_layout_check(&l));
	l = base;
	l.worker_bits = 0;
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.worker_bits = -1;
	CHECK_REFUSES(idgen_layout_check(&l));
	l = base;
	l.seq_bits = 1;
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.seq_bits = 0;
	CHECK_REFUSES(idgen_layout_check(&l));
	l = (IdgenLayout) {0, 22, 0, 1};
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.region_bits = 23;
	CHECK_REFUSES(idgen_layout_check(&l));
	l = (IdgenLayout) {0, 0, 22, 1};
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.worker_bits = 23;
	CHECK_REFUSES(idgen_layout_check(&l));
	l = (IdgenLayout) {0, 0, 0, 22};
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.seq_bits = 23;
	CHECK_REFUSES(idgen_layout_check(&l));

	/* the time field: 36 bits is the least accepted, 35 refused */
	l = (IdgenLayout) {0, 5, 10, 12};
	CHECK_I64(idgen_layout_time_bits(&l), ==, 36);
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.seq_bits = 13;
	CHECK_I64(idgen_layout_time_bits(&l), ==, 35);
	CHECK_REFUSES(idgen_layout_check(&l));
	l = (IdgenLayout) {0, 22, 0, 6};
	CHECK_REFUSES(idgen_layout_check(&l));
	l = (IdgenLayout) {0, 0, 22, 6};
	CHECK_REFUSES(idgen_layout_check(&l));
	l = (IdgenLayout) {0, 0, 6, 22};
	CHECK_REFUSES(idgen_layout_check(&l));

	/* absurd widths are refused without arithmetic overflow */
	for (i = 0; i < (int) (sizeof(wild) / sizeof(wild[0])); i++)
	{
		unit_context("wild width %d", wild[i]);
		l = base;
		l.region_bits = wild[i];
		CHECK_REFUSES(idgen_layout_check(&l));
		l = base;
		l.worker_bits = wild[i];
		CHECK_REFUSES(idgen_layout_check(&l));
		l = base;
		l.seq_bits = wild[i];
		CHECK_REFUSES(idgen_layout_check(&l));
	}

	for (i = 0; i < (int) (sizeof(epochs) / sizeof(epochs[0])); i++)
	{
		l = base;
		l.origin_unix_ms = epochs[i];
		describe(&l, "epoch");
		if (layout_ok(&l))
			CHECK_ACCEPTS(idgen_layout_check(&l));
		else
			CHECK_REFUSES(idgen_layout_check(&l));
	}
	unit_context("epoch limits");
	l = base;
	l.origin_unix_ms = 0;
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.origin_unix_ms = -1;
	CHECK_REFUSES(idgen_layout_check(&l));
	l.origin_unix_ms = INT64_C(253402300799999);	/* 9999-12-31T23:59:59.999Z */
	CHECK_ACCEPTS(idgen_layout_check(&l));
	l.origin_unix_ms++;
	CHECK_REFUSES(idgen_layout_check(&l));
}

static void
test_round_trip(void)
{
	int			i;
	int			n;

	for (i = 0; i < NLAYOUTS; i++)
	{
		const IdgenLayout *l = &layouts[i];

		describe(l, "round trip");
		for (n = 0; n < 20000; n++)
		{
			IdgenFields in = random_fields(l);
			IdgenFields out;
			uint64_t	id = idgen_layout_compose(l, &in);
			uint64_t	raw = unit_rand();

			idgen_layout_decompose(l, id, &out);
			CHECK_I64(out.ms, ==, in.ms);
			CHECK_U64(out.region, ==, in.region);
			CHECK_U64(out.worker, ==, in.worker);
			CHECK_U64(out.seq, ==, in.seq);
			CHECK_U64(id, <=, IDGEN_ID_MAX);

			/* any 64-bit word: decompose drops the sign bit, compose restores the rest */
			idgen_layout_decompose(l, raw, &out);
			CHECK_I64(out.ms, >=, 0);
			CHECK_I64(out.ms, <=, idgen_layout_max_ms(l));
			CHECK_U64(out.region, <=, width_mask(l->region_bits));
			CHECK_U64(out.worker, <=, width_mask(l->worker_bits));
			CHECK_U64(out.seq, <=, width_mask(l->seq_bits));
			CHECK_U64(idgen_layout_compose(l, &out), ==, raw & IDGEN_ID_MAX);
		}
	}
}

static void
test_sign_bit(void)
{
	int			i;
	int			n;

	for (i = 0; i < NLAYOUTS; i++)
	{
		const IdgenLayout *l = &layouts[i];
		int64_t		max_ms = idgen_layout_max_ms(l);

		describe(l, "sign bit");
		CHECK_U64(compose4(l, max_ms, (uint32_t) width_mask(l->region_bits),
						   (uint32_t) width_mask(l->worker_bits),
						   (uint32_t) width_mask(l->seq_bits)), ==, IDGEN_ID_MAX);
		/* out-of-range input must not reach bit 63 either */
		CHECK_U64(compose4(l, -1, UINT32_MAX, UINT32_MAX, UINT32_MAX) >> 63, ==, 0);
		CHECK_U64(compose4(l, INT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX) >> 63, ==, 0);
		CHECK_U64(compose4(l, INT64_MIN, 0, 0, 0) >> 63, ==, 0);
		for (n = 0; n < 2000; n++)
		{
			uint64_t	id = compose4(l, (int64_t) unit_rand(),
									  (uint32_t) unit_rand(),
									  (uint32_t) unit_rand(),
									  (uint32_t) unit_rand());

			CHECK_U64(id >> 63, ==, 0);
		}
	}
}

static void
test_ordering(void)
{
	int			i;
	int			n;

	for (i = 0; i < NLAYOUTS; i++)
	{
		const IdgenLayout *l = &layouts[i];
		int64_t		max_ms = idgen_layout_max_ms(l);
		uint32_t	rmax = (uint32_t) width_mask(l->region_bits);
		uint32_t	wmax = (uint32_t) width_mask(l->worker_bits);
		uint32_t	smax = (uint32_t) width_mask(l->seq_bits);

		describe(l, "ordering");
		for (n = 0; n < 10000; n++)
		{
			IdgenFields a = random_fields(l);
			IdgenFields b = random_fields(l);
			uint64_t	ida;
			uint64_t	idb;

			if (a.ms == b.ms)
			{
				if (a.ms == max_ms)
					a.ms--;
				else
					b.ms++;
			}
			ida = idgen_layout_compose(l, &a);
			idb = idgen_layout_compose(l, &b);
			if (a.ms < b.ms)
				CHECK_U64(ida, <, idb);
			else
				CHECK_U64(ida, >, idb);
		}

		/* the largest ID of one millisecond sits right below the next one */
		for (n = 0; n < 1000; n++)
		{
			int64_t		ms = (int64_t) unit_below((uint64_t) max_ms);

			CHECK_U64(compose4(l, ms, rmax, wmax, smax) + 1, ==,
					  compose4(l, ms + 1, 0, 0, 0));
		}
		CHECK_U64(compose4(l, max_ms - 1, rmax, wmax, smax), <,
				  compose4(l, max_ms, 0, 0, 0));
	}
}

static void
test_min_max_at(void)
{
	int			i;
	int			n;

	for (i = 0; i < NLAYOUTS; i++)
	{
		const IdgenLayout *l = &layouts[i];
		int64_t		max_ms = idgen_layout_max_ms(l);
		uint32_t	rmax = (uint32_t) width_mask(l->region_bits);
		uint32_t	wmax = (uint32_t) width_mask(l->worker_bits);
		uint32_t	smax = (uint32_t) width_mask(l->seq_bits);

		describe(l, "min_at/max_at");
		for (n = 0; n < 5000; n++)
		{
			IdgenFields f = random_fields(l);
			uint64_t	id = idgen_layout_compose(l, &f);
			uint64_t	lo = idgen_layout_min_at(l, f.ms);
			uint64_t	hi = idgen_layout_max_at(l, f.ms);
			IdgenFields g;

			CHECK_U64(lo, <=, id);
			CHECK_U64(id, <=, hi);
			CHECK_U64(lo, ==, compose4(l, f.ms, 0, 0, 0));
			CHECK_U64(hi, ==, compose4(l, f.ms, rmax, wmax, smax));
			idgen_layout_decompose(l, lo, &g);
			CHECK_I64(g.ms, ==, f.ms);
			idgen_layout_decompose(l, hi, &g);
			CHECK_I64(g.ms, ==, f.ms);
			/* neighbouring milliseconds tile the ID space without a gap */
			if (f.ms < max_ms)
				CHECK_U64(hi + 1, ==, idgen_layout_min_at(l, f.ms + 1));
			if (f.ms > 0)
				CHECK_U64(idgen_layout_max_at(l, f.ms - 1) + 1, ==, lo);
		}

		CHECK_U64(idgen_layout_min_at(l, 0), ==, 0);
		CHECK_U64(idgen_layout_max_at(l, max_ms), ==, IDGEN_ID_MAX);
		/* clamped below the epoch and past the horizon */
		CHECK_U64(idgen_layout_min_at(l, -1), ==, 0);
		CHECK_U64(idgen_layout_max_at(l, -1), ==, 0);
		CHECK_U64(idgen_layout_min_at(l, INT64_MIN), ==, 0);
		CHECK_U64(idgen_layout_max_at(l, INT64_MIN), ==, 0);
		CHECK_U64(idgen_layout_min_at(l, max_ms + 1), ==, IDGEN_ID_MAX);
		CHECK_U64(idgen_layout_max_at(l, max_ms + 1), ==, IDGEN_ID_MAX);
		CHECK_U64(idgen_layout_min_at(l, INT64_MAX), ==, IDGEN_ID_MAX);
		CHECK_U64(idgen_layout_max_at(l, INT64_MAX), ==, IDGEN_ID_MAX);
	}
}

static void
test_node(void)
{
	IdgenLayout l;
	int			i;
	int64_t		w;
	int			b;

	idgen_layout_default(&l);
	unit_context("node check, default layout");
	CHECK_ACCEPTS(idgen_node_check(&l, 0, 0, 0));
	CHECK_ACCEPTS(idgen_node_check(&l, 7, 127, 0));
	CHECK_ACCEPTS(idgen_node_check(&l, 7, 0, 7));
	CHECK_REFUSES(idgen_node_check(&l, -1, 0, 0));
	CHECK_REFUSES(idgen_node_check(&l, 8, 0, 0));
	CHECK_REFUSES(idgen_node_check(&l, INT64_MIN, 0, 0));
	CHECK_REFUSES(idgen_node_check(&l, INT64_MAX, 0, 0));
	CHECK_REFUSES(idgen_node_check(&l, 0, -1, 0));
	CHECK_REFUSES(idgen_node_check(&l, 0, 128, 0));
	CHECK_REFUSES(idgen_node_check(&l, 0, INT64_MIN, 0));
	CHECK_REFUSES(idgen_node_check(&l, 0, INT64_MAX, 0));
	CHECK_REFUSES(idgen_node_check(&l, 0, 0, -1));
	CHECK_REFUSES(idgen_node_check(&l, 0, 0, 8));
	CHECK_REFUSES(idgen_node_check(&l, 0, 0, INT_MIN));
	CHECK_REFUSES(idgen_node_check(&l, 0, 0, INT_MAX));
	CHECK_REFUSES(idgen_node_check(&l, 0, 1, 1));
	CHECK_ACCEPTS(idgen_node_check(&l, 0, 2, 1));
	CHECK_REFUSES(idgen_node_check(&l, 0, 4, 3));
	CHECK_ACCEPTS(idgen_node_check(&l, 0, 8, 3));
	CHECK_ACCEPTS(idgen_node_check(&l, 0, 64, 6));
	CHECK_REFUSES(idgen_node_check(&l, 0, 96, 6));
	CHECK_REFUSES(idgen_node_check(&l, 0, 64, 7));

	/* every worker and block size of every table layout */
	for (i = 0; i < NLAYOUTS; i++)
	{
		const IdgenLayout *t = &layouts[i];
		int64_t		nworkers = INT64_C(1) << t->worker_bits;
		int64_t		nregions = INT64_C(1) << t->region_bits;
		int64_t		step = nworkers > 4096 ? 4093 : 1;

		describe(t, "node check");
		CHECK_ACCEPTS(idgen_node_check(t, nregions - 1, 0, 0));
		CHECK_REFUSES(idgen_node_check(t, nregions, 0, 0));
		CHECK_REFUSES(idgen_node_check(t, 0, nworkers, 0));
		CHECK_REFUSES(idgen_node_check(t, 0, 0, t->worker_bits + 1));
		for (w = 0; w < nworkers; w += step)
			for (b = 0; b <= t->worker_bits; b++)
			{
				int			aligned = (w % (INT64_C(1) << b)) == 0;

				if (aligned)
					CHECK_ACCEPTS(idgen_node_check(t, 0, w, b));
				else
					CHECK_REFUSES(idgen_node_check(t, 0, w, b));
			}

		/* node bits are the ID of millisecond 0, sequence 0 */
		for (w = 0; w < 200; w++)
		{
			uint32_t	region = (uint32_t) unit_bits(t->region_bits);
			uint32_t	worker = (uint32_t) unit_bits(t->worker_bits);
			uint64_t	bits = idgen_node_bits(t, region, worker);
			IdgenFields f;

			CHECK_U64(bits, ==, compose4(t, 0, region, worker, 0));
			idgen_layout_decompose(t, bits, &f);
			CHECK_I64(f.ms, ==, 0);
			CHECK_U64(f.region, ==, region);
			CHECK_U64(f.worker, ==, worker);
			CHECK_U64(f.seq, ==, 0);
		}
	}
}

static void
test_tick_to_id(void)
{
	int			i;
	int			n;

	for (i = 0; i < NLAYOUTS; i++)
	{
		const IdgenLayout *l = &layouts[i];
		int			shift = idgen_layout_time_shift(l);
		int64_t		max_ms = idgen_layout_max_ms(l);

		describe(l, "tick_to_id");
		for (n = 0; n < 5000; n++)
		{
			int			block_bits = (int) unit_below((uint64_t) l->worker_bits + 1);
			int			counter_bits = block_bits + l->seq_bits;
			uint32_t	region = (uint32_t) unit_bits(l->region_bits);
			uint32_t	first = (uint32_t) (unit_bits(l->worker_bits) &
											~width_mask(block_bits));
			uint64_t	node = idgen_node_bits(l, region, first);
			int64_t		ms = (int64_t) unit_bits(idgen_layout_time_bits(l));
			uint64_t	counter = unit_bits(counter_bits);
			uint64_t	tick = ((uint64_t) ms << counter_bits) | counter;
			uint64_t	id = idgen_tick_to_id(tick, counter_bits, shift, node);
			uint64_t	next;
			IdgenFields f;

			CHECK_ACCEPTS(idgen_node_check(l, region, first, block_bits));
			CHECK_U64(id, ==,
					  compose4(l, ms, region,
							   first + (uint32_t) (counter >> l->seq_bits),
							   (uint32_t) (counter & width_mask(l->seq_bits))));

			/* the ID stays inside the node's own block of workers */
			idgen_layout_decompose(l, id, &f);
			CHECK_U64(f.region, ==, region);
			CHECK_U64(f.worker, >=, first);
			CHECK_U64(f.worker, <, (uint64_t) first + (UINT64_C(1) << block_bits));

			/* the next tick, even across a millisecond, is a larger ID */
			if (tick + 1 <= (((uint64_t) max_ms << counter_bits) |
							 width_mask(counter_bits)))
			{
				next = idgen_tick_to_id(tick + 1, counter_bits, shift, node);
				CHECK_U64(next, >, id);
			}
		}
	}
}

int
main(void)
{
	test_default();
	test_check();
	test_round_trip();
	test_sign_bit();
	test_ordering();
	test_min_max_at();
	test_node();
	test_tick_to_id();
	return unit_finish("test_layout");
}
