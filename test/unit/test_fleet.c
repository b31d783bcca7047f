/*
 * test_fleet.c - a node and its registry: the clock-skew estimate and when
 * it stops a node, the retry backoff, and what of a connection string may
 * be shown
 */
#include "unit.h"
#include "fleet.h"

/*
 * One round trip between a node whose clock is true_offset ms off and a
 * registry with the true clock: the request leaves at real time t0, the
 * registry reads its clock at some point of the trip, the answer arrives
 * at t1.
 */
static IdgenSkew
trip(int64_t t0, int64_t rtt, int64_t at, int64_t true_offset)
{
	IdgenSkew	s;

	idgen_skew_estimate(t0 + true_offset, t0 + rtt + true_offset, t0 + at, &s);
	return s;
}

static void
test_skew(void)
{
	IdgenSkew	s;
	int			i;

	unit_context("fixed cases");
	s = trip(1000, 10, 5, 0);
	CHECK_I64(s.offset_ms, ==, 0);
	CHECK_I64(s.uncertainty_ms, ==, 6);
	CHECK(!idgen_skew_exceeds(&s, 1000));

	/* 10 s ahead over a quick loopback trip: certainly beyond 1 s */
	s = trip(1796000000000, 2, 1, 10000);
	CHECK_I64(s.offset_ms, ==, 10000);
	CHECK(idgen_skew_exceeds(&s, 1000));
	s = trip(1796000000000, 2, 1, -10000);
	CHECK_I64(s.offset_ms, ==, -10000);
	CHECK(idgen_skew_exceeds(&s, 1000));

	/* just beyond and just within, uncertainty taken off */
	s = trip(0, 10, 5, 1007);
	CHECK_I64(s.offset_ms, ==, 1007);
	CHECK(!idgen_skew_exceeds(&s, 1001));
	CHECK(idgen_skew_exceeds(&s, 1000));

	/* a slow trip makes the estimate too vague to stop a node */
	s = trip(0, 5000, 0, 0);
	CHECK_I64(s.uncertainty_ms, >=, 2500);
	CHECK(!idgen_skew_exceeds(&s, 1000));
	s = trip(0, 5000, 2500, 3000);
	CHECK(!idgen_skew_exceeds(&s, 1000));

	/* max_skew 0 turns the guard off */
	s = trip(0, 2, 1, 3600000);
	CHECK(!idgen_skew_exceeds(&s, 0));

	/* a wall clock that stepped back during the trip proves nothing */
	idgen_skew_estimate(2000, 1000, 1500, &s);
	CHECK(!idgen_skew_exceeds(&s, 1));

	/* extreme offsets do not overflow */
	s.offset_ms = INT64_MIN;
	s.uncertainty_ms = 10;
	CHECK(idgen_skew_exceeds(&s, 1000));
	s.offset_ms = INT64_MAX;
	CHECK(idgen_skew_exceeds(&s, 1000));

	/*
	 * Wherever in the trip the registry reads its clock, the true offset
	 * lies within the uncertainty, so a node is stopped only when its
	 * clock really is beyond max_skew.
	 */
	for (i = 0; i < 200000; i++)
	{
		int64_t		rtt = (int64_t) unit_below(3000);
		int64_t		at = rtt > 0 ? (int64_t) unit_below((uint64_t) rtt + 1) : 0;
		int64_t		off = (int64_t) unit_below(40001) - 20000;
		int64_t		max_skew = (int64_t) unit_below(3000);
		int64_t		err;

		unit_context("rtt %" PRId64 " at %" PRId64 " offset %" PRId64 " max %" PRId64,
					 rtt, at, off, max_skew);
		s = trip(1796000000000 + (int64_t) unit_below(1000000), rtt, at, off);
		err = s.offset_ms - off;
		CHECK_I64(err < 0 ? -err : err, <=, s.uncertainty_ms);
		if (idgen_skew_exceeds(&s, max_skew))
			CHECK_I64(off < 0 ? -off : off, >, max_skew);
		/* and a quick trip catches a clock well beyond the bound */
		if (rtt <= 10 && max_skew > 0 && (off > max_skew + 20 || off < -max_skew - 20))
			CHECK(idgen_skew_exceeds(&s, max_skew));
	}
	unit_context("");
}

static void
test_backoff(void)
{
	int64_t		b = 0;
	int			i;

	CHECK_I64(idgen_backoff_next(0, 250, 1000), ==, 250);
	CHECK_I64(idgen_backoff_next(250, 250, 1000), ==, 500);
	CHECK_I64(idgen_backoff_next(500, 250, 1000), ==, 1000);
	CHECK_I64(idgen_backoff_next(1000, 250, 1000), ==, 1000);
	CHECK_I64(idgen_backoff_next(700, 250, 1000), ==, 1000);
	/* a cap below the floor is the floor */
	CHECK_I64(idgen_backoff_next(0, 250, 100), ==, 250);
	CHECK_I64(idgen_backoff_next(250, 250, 100), ==, 250);
	/* no overflow however long it runs */
	for (i = 0; i < 200; i++)
	{
		int64_t		next = idgen_backoff_next(b, 250, INT64_MAX);

		CHECK_I64(next, >=, b);
		b = next;
	}
	CHECK_I64(b, ==, INT64_MAX);
}

static void
shows(const char *conninfo, const char *expected)
{
	char		buf[200];

	unit_context("%s", conninfo);
	CHECK(idgen_conninfo_display(conninfo, buf, sizeof(buf)));
	CHECK_STR(buf, expected);
	CHECK(strstr(buf, "secret") == NULL);
	CHECK(strstr(buf, "alice") == NULL);
}

static void
test_conninfo(void)
{
	char		buf[200];
	char		small[12];

	shows("host=reg.example port=5433 dbname=fleet user=alice password=secret",
		  "host=reg.example port=5433 dbname=fleet");
	shows("postgresql://alice:secret@reg.example:5433/fleet?sslmode=require",
		  "host=reg.example port=5433 dbname=fleet");
	shows("hostaddr=10.0.0.5 password=secret", "host=10.0.0.5 port=(default) dbname=(default)");
	shows("host=a,b port=1,2 dbname=x password=secret", "host=a,b port=1,2 dbname=x");
	shows("", "host=(default) port=(default) dbname=(default)");

	/* what does not parse is not quoted back */
	unit_context("invalid");
	CHECK(!idgen_conninfo_display("host=x password=secret nonsense", buf, sizeof(buf)));
	CHECK_STR(buf, "(invalid connection string)");
	CHECK(!idgen_conninfo_display("bogus_option=secret", buf, sizeof(buf)));
	CHECK(strstr(buf, "secret") == NULL);

	/* a short buffer is cut, never overrun */
	unit_context("short buffer");
	CHECK(idgen_conninfo_display("host=reg.example password=secret", small, sizeof(small)));
	CHECK_U64(strlen(small), ==, sizeof(small) - 1);
	unit_context("");
}

int
main(void)
{
	test_skew();
	test_backoff();
	test_conninfo();
	return unit_finish("test_fleet");
}
