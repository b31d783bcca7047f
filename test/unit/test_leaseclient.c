/*
 * test_leaseclient.c - the lease client's state machine (leaseclient.c)
 *
 * The node's rules, worked through by hand: validity from the sending
 * (R1), the renewal schedule (R2, the 70 % ride-through), a holder frozen
 * past its validity gives the lease up instead of renewing it (issue 19
 * item 1), the renewal cutoff before a switch is no fence (item 7), a too
 * short TTL is refused (item 11), epochs never go back (item 3), validity
 * never outlasts the registry's hold floor (R1a); then a random walk of
 * clocks and answers against the invariants.
 */
#include "leaseclient.h"
#include "unit.h"

#define WALL0 INT64_C(1790000000000)

static void
test_validity(void)
{
	IdgenLeaseClient lc;
	int64_t		wait;

	unit_context("validity");
	idgen_lc_init(&lc, 30000, 1000);
	CHECK(idgen_lc_next(&lc, 1000, &wait) == IDGEN_LC_LEASE);
	/* sent at boot 1000; the registry read WALL0 + 5 and granted 30 s */
	idgen_lc_granted(&lc, 1000, WALL0 + 5, WALL0 + 30005);
	CHECK_I64(lc.valid_until_boot_ms, ==, 1000 + 30000 - 1500);
	CHECK_I64(lc.floor_unix_ms, ==, WALL0 + 6);
	CHECK_I64(idgen_lc_stamp_limit(&lc, 2000), ==, WALL0 + 30004);
	CHECK(idgen_lc_valid(&lc, 29499));
	CHECK(!idgen_lc_valid(&lc, 29500));
	CHECK_I64(idgen_lc_stamp_limit(&lc, 29500), ==, -1);
	/* a short TTL: the margin is at least 100 ms */
	CHECK_I64(idgen_lc_margin_ms(1000), ==, 100);
	CHECK_I64(idgen_lc_margin_ms(30000), ==, 1500);
	/* a grant longer than asked counts as asked */
	idgen_lc_init(&lc, 3000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 60000);
	CHECK_I64(lc.valid_until_boot_ms, ==, 3000 - 150);
}

static void
test_schedule(void)
{
	IdgenLeaseClient lc;
	int64_t		wait;
	int64_t		t;
	int64_t		worst = INT64_MAX;

	unit_context("schedule");
	CHECK_I64(idgen_lc_renew_every_ms(30000), ==, 2000);
	CHECK_I64(idgen_lc_renew_every_ms(10000), ==, 1000);
	idgen_lc_init(&lc, 10000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 10000);
	CHECK(idgen_lc_next(&lc, 999, &wait) == IDGEN_LC_WAIT);
	CHECK_I64(wait, ==, 1);
	CHECK(idgen_lc_next(&lc, 1000, &wait) == IDGEN_LC_RENEW);

	/*
	 * Renewing on schedule, answered at once: whenever an outage starts,
	 * the validity left covers >= 70 % of the TTL.
	 */
	for (t = 0; t < 20000; t++)
	{
		if (idgen_lc_next(&lc, t, &wait) == IDGEN_LC_RENEW)
			CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_RENEWED, t, t, WALL0 + t,
								  WALL0 + t, WALL0 + t + 10000) == IDGEN_LC_GO_ON);
		if (lc.valid_until_boot_ms - t < worst)
			worst = lc.valid_until_boot_ms - t;
	}
	CHECK_I64(worst, >=, 7000);

	/* a lease cut short at a switch 800 ms away: renewed within 400 ms */
	idgen_lc_init(&lc, 10000, 100);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 800);
	CHECK_I64(lc.valid_until_boot_ms, ==, 700);
	CHECK(idgen_lc_next(&lc, 349, &wait) == IDGEN_LC_WAIT);
	CHECK(idgen_lc_next(&lc, 350, &wait) == IDGEN_LC_RENEW);

	/* a grant too close to a switch to use: leased anew once it passed */
	idgen_lc_init(&lc, 10000, 100);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 60);
	CHECK(!idgen_lc_valid(&lc, 0));
	CHECK(idgen_lc_next(&lc, 1, &wait) == IDGEN_LC_GIVE_UP);
	CHECK(idgen_lc_next(&lc, 1, &wait) == IDGEN_LC_WAIT);
	CHECK_I64(wait, ==, 59);
	CHECK(idgen_lc_next(&lc, 60, &wait) == IDGEN_LC_LEASE);
}

static void
test_frozen(void)
{
	IdgenLeaseClient lc;
	int64_t		wait;

	/* item 1: frozen past the validity, the holder never renews */
	unit_context("frozen holder");
	idgen_lc_init(&lc, 3000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 3000);
	CHECK(idgen_lc_next(&lc, 60000, &wait) == IDGEN_LC_GIVE_UP);
	CHECK(lc.state == IDGEN_LC_NONE);
	CHECK_I64(idgen_lc_stamp_limit(&lc, 60000), ==, -1);
	CHECK(idgen_lc_next(&lc, 60000, &wait) == IDGEN_LC_LEASE);
	/* a renewal that was in flight and answered late revives nothing */
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_RENEWED, 100, 60001, WALL0 + 60001,
						  WALL0 + 60001, WALL0 + 63001) == IDGEN_LC_STOP_ENDED);
	CHECK(!idgen_lc_valid(&lc, 60001));

	/* sent while valid, answered after the validity ended: stop too */
	idgen_lc_init(&lc, 3000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 3000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_RENEWED, 300, 50000, WALL0 + 50000,
						  WALL0 + 400, WALL0 + 3400) == IDGEN_LC_STOP_ENDED);
	CHECK(lc.state == IDGEN_LC_NONE);
}

/*
 * R1a: a lease longer than the registry's idgen.lease_ttl (H) counts only
 * H from the last answered sending, renews every min(H / 10, 2 s), and a
 * holder frozen past H gives it up, however long its grant.
 */
static void
test_hold_floor(void)
{
	IdgenLeaseClient lc;
	int64_t		wait;
	int64_t		t;
	int64_t		worst = INT64_MAX;

	unit_context("hold floor");
	/* a gateway's --lease-ttl 60 s against a registry's lease_ttl 10 s */
	idgen_lc_init(&lc, 60000, 1000);
	idgen_lc_set_hold_floor(&lc, 10000);
	idgen_lc_granted(&lc, 1000, WALL0, WALL0 + 60000);
	CHECK_I64(lc.valid_until_boot_ms, ==, 1000 + 10000 - 500);
	/* the row still reserves the worker for the whole grant */
	CHECK_I64(lc.cap_unix_ms, ==, WALL0 + 60000);
	CHECK_I64(lc.granted_ms, ==, 60000);
	CHECK(idgen_lc_valid(&lc, 10499));
	CHECK(!idgen_lc_valid(&lc, 10500));
	/* frozen 20 s (past H, well within 60 s): given up, not renewed */
	CHECK(idgen_lc_next(&lc, 21000, &wait) == IDGEN_LC_GIVE_UP);
	CHECK_I64(idgen_lc_stamp_limit(&lc, 21000), ==, -1);
	/* and leased anew at once: the full grant was not the short part */
	CHECK(idgen_lc_next(&lc, 21000, &wait) == IDGEN_LC_LEASE);

	/* renewals every H / 10; a renewal's answer is bounded the same way */
	idgen_lc_init(&lc, 60000, 1000);
	idgen_lc_set_hold_floor(&lc, 10000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 60000);
	CHECK(idgen_lc_next(&lc, 999, &wait) == IDGEN_LC_WAIT);
	CHECK(idgen_lc_next(&lc, 1000, &wait) == IDGEN_LC_RENEW);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_RENEWED, 1000, 1100, WALL0 + 1100,
						  WALL0 + 1050, WALL0 + 61050) == IDGEN_LC_GO_ON);
	CHECK_I64(lc.valid_until_boot_ms, ==, 1000 + 10000 - 500);
	CHECK_I64(lc.cap_unix_ms, ==, WALL0 + 61050);
	/* unreachable registry: rides through to sent + H - margin, no further */
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_UNREACHABLE, 2000, 9000, WALL0 + 9000,
						  -1, -1) == IDGEN_LC_GO_ON);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_UNREACHABLE, 9000, 10500, WALL0 + 10500,
						  -1, -1) == IDGEN_LC_STOP_ENDED);
	CHECK(!idgen_lc_valid(&lc, 10500));

	/* on schedule: >= 70 % of H left whenever an outage starts */
	idgen_lc_init(&lc, 60000, 1000);
	idgen_lc_set_hold_floor(&lc, 10000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 60000);
	for (t = 0; t < 30000; t++)
	{
		if (idgen_lc_next(&lc, t, &wait) == IDGEN_LC_RENEW)
			CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_RENEWED, t, t, WALL0 + t,
								  WALL0 + t, WALL0 + t + 60000) == IDGEN_LC_GO_ON);
		if (lc.valid_until_boot_ms - t < worst)
			worst = lc.valid_until_boot_ms - t;
	}
	CHECK_I64(worst, >=, 7000);

	/* H at or above the TTL, or unknown (0): the grant alone, as before */
	idgen_lc_init(&lc, 30000, 1000);
	idgen_lc_set_hold_floor(&lc, 30000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 30000);
	CHECK_I64(lc.valid_until_boot_ms, ==, 30000 - 1500);
	idgen_lc_set_hold_floor(&lc, 0);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 30000);
	CHECK_I64(lc.valid_until_boot_ms, ==, 30000 - 1500);
	CHECK_I64(idgen_lc_bounded_ms(&lc, 60000), ==, 60000);

	/* a grant cut short at a switch below H still waits for the switch */
	idgen_lc_init(&lc, 60000, 100);
	idgen_lc_set_hold_floor(&lc, 10000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 150);
	CHECK(idgen_lc_next(&lc, 100, &wait) == IDGEN_LC_GIVE_UP);
	CHECK(idgen_lc_next(&lc, 100, &wait) == IDGEN_LC_WAIT);
	CHECK_I64(wait, ==, 50);
	/* one cut short above H is leased anew at once: it is long enough */
	idgen_lc_granted(&lc, 200, WALL0 + 200, WALL0 + 20200);
	CHECK_I64(lc.valid_until_boot_ms, ==, 200 + 10000 - 500);
	CHECK(idgen_lc_next(&lc, 9700, &wait) == IDGEN_LC_GIVE_UP);
	CHECK(idgen_lc_next(&lc, 9700, &wait) == IDGEN_LC_LEASE);
}

static void
test_answers(void)
{
	IdgenLeaseClient lc;
	int64_t		wait;

	unit_context("answers");
	/* a real fence: stop, release, lease anew; counted */
	idgen_lc_init(&lc, 30000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 30000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_FENCED, 2000, 2010, WALL0 + 2010, -1, -1) ==
		  IDGEN_LC_STOP_FENCED);
	CHECK_U64(lc.fences, ==, 1);
	CHECK(!idgen_lc_valid(&lc, 2011));
	/* no renewal is believed after a fence */
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_RENEWED, 2000, 2012, WALL0 + 2012,
						  WALL0 + 2012, WALL0 + 32012) == IDGEN_LC_STOP_ENDED);
	CHECK(!idgen_lc_valid(&lc, 2013));
	CHECK(idgen_lc_next(&lc, 2013, &wait) == IDGEN_LC_RELEASE);
	CHECK(idgen_lc_next(&lc, 2013, &wait) == IDGEN_LC_LEASE);

	/* refused near its end, where no switch is: a fence */
	idgen_lc_init(&lc, 30000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 5000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_FENCED, 4200, 4210, WALL0 + 4210, -1, -1) ==
		  IDGEN_LC_STOP_FENCED);

	/* item 7: refused in the registry's cutoff before a switch: no fence */
	idgen_lc_init(&lc, 30000, 1000);
	idgen_lc_set_next_switch(&lc, WALL0 + 5000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 5000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_FENCED, 4200, 4210, WALL0 + 4210, -1, -1) ==
		  IDGEN_LC_RUNS_OUT);
	CHECK_U64(lc.fences, ==, 0);
	CHECK(idgen_lc_valid(&lc, 4300));
	CHECK(idgen_lc_next(&lc, 4300, &wait) == IDGEN_LC_WAIT);
	CHECK(idgen_lc_next(&lc, 4750, &wait) == IDGEN_LC_GIVE_UP);

	/* taken by another while valid: always a fence */
	idgen_lc_init(&lc, 30000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 5000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_TAKEN, 4200, 4210, WALL0 + 4210, -1, -1) ==
		  IDGEN_LC_STOP_FENCED);

	/* fenced after the validity ended: it ran out, no fence */
	idgen_lc_init(&lc, 3000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 3000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_FENCED, 2800, 2900, WALL0 + 2900, -1, -1) ==
		  IDGEN_LC_STOP_ENDED);
	CHECK_U64(lc.fences, ==, 0);

	/* expired by the registry's clock: lease anew */
	idgen_lc_init(&lc, 30000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 30000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_EXPIRED, 2000, 2010, WALL0 + 2010, -1, -1) ==
		  IDGEN_LC_STOP_ENDED);
	CHECK(idgen_lc_next(&lc, 2010, &wait) == IDGEN_LC_LEASE);

	/* unreachable: issue on, retry soon */
	idgen_lc_init(&lc, 30000, 1000);
	idgen_lc_granted(&lc, 0, WALL0, WALL0 + 30000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_UNREACHABLE, 2000, 7000, WALL0 + 7000, -1, -1) ==
		  IDGEN_LC_GO_ON);
	CHECK(idgen_lc_valid(&lc, 7000));
	CHECK(idgen_lc_next(&lc, 7100, &wait) == IDGEN_LC_WAIT);
	CHECK(idgen_lc_next(&lc, 7200, &wait) == IDGEN_LC_RENEW);

	/* a refused grant backs off, doubling */
	idgen_lc_init(&lc, 30000, 1000);
	CHECK(idgen_lc_answer(&lc, IDGEN_LC_ANS_REFUSED, 0, 0, WALL0, -1, -1) ==
		  IDGEN_LC_STOP_ENDED);
	CHECK(idgen_lc_next(&lc, 100, &wait) == IDGEN_LC_WAIT);
	CHECK(idgen_lc_next(&lc, 200, &wait) == IDGEN_LC_LEASE);
	idgen_lc_answer(&lc, IDGEN_LC_ANS_REFUSED, 200, 200, WALL0, -1, -1);
	CHECK_I64(lc.next_boot_ms, ==, 600);
}

static void
test_ttl(void)
{
	unit_context("ttl");
	CHECK(idgen_lc_ttl_problem(1500, 1000) != NULL);
	CHECK(idgen_lc_ttl_problem(1000, 1000) != NULL);
	CHECK(idgen_lc_ttl_problem(1501, 1000) == NULL);
	CHECK(idgen_lc_ttl_problem(30000, 1000) == NULL);
	CHECK(idgen_lc_ttl_problem(1000, 0) == NULL);
}

static void
test_epochs(void)
{
	IdgenEpochList known;
	IdgenEpochList fresh;
	IdgenEpochList two;
	IdgenEpoch	e2;
	char		why[400];

	unit_context("epochs");
	idgen_epochs_init(&known);
	idgen_epochs_init(&fresh);
	CHECK(idgen_lc_epochs_merge(&known, false, &fresh, why, sizeof(why)) == NULL);
	two = fresh;
	CHECK(idgen_epochs_plan(&two, WALL0, 0, 12, 10, &e2) == NULL);
	CHECK(idgen_epochs_append(&two, &e2) == NULL);
	CHECK(idgen_lc_epochs_merge(&known, true, &two, why, sizeof(why)) == NULL);
	CHECK(known.count == 2);
	/* the registry lost epoch 2: refused, and the known list kept */
	CHECK(idgen_lc_epochs_merge(&known, true, &fresh, why, sizeof(why)) != NULL);
	CHECK(known.count == 2);
	CHECK(strstr(why, "epoch 2") != NULL);
	/* epoch 2 rewritten */
	two.epochs[1].layout.seq_bits = 11;
	CHECK(idgen_lc_epochs_merge(&known, true, &two, why, sizeof(why)) != NULL);
}

/*
 * Random walks: clocks that jump and freeze, answers of every kind, in any
 * order.  Invariants: never valid past the validity end of the last
 * answered sending; never stamps at or past the cap; no renewal after a
 * fence without a new grant; validity never longer than what was granted.
 */
static void
test_walk(void)
{
	int			run;

	unit_context("walk");
	for (run = 0; run < 2000; run++)
	{
		IdgenLeaseClient lc;
		int64_t		boot = 0;
		int64_t		wall = WALL0;
		int64_t		ttl = 1000 + (int64_t) (unit_rand() % 30000);
		bool		fenced = false;
		int			step;

		int64_t		hold = unit_rand() % 2 ? 0 : 1000 + (int64_t) (unit_rand() % 30000);

		idgen_lc_init(&lc, ttl, (int64_t) (unit_rand() % 2000));
		idgen_lc_set_hold_floor(&lc, hold);
		for (step = 0; step < 200; step++)
		{
			int64_t		wait;
			int64_t		sent = boot;
			IdgenLcAction act;
			int64_t		limit;

			boot += (int64_t) (unit_rand() % (unit_rand() % 8 == 0 ? 60000 : 500));
			wall = wall + (int64_t) (unit_rand() % 700) - 200;
			act = idgen_lc_next(&lc, boot, &wait);
			if (act == IDGEN_LC_LEASE)
			{
				if (unit_rand() % 3 == 0)
					idgen_lc_answer(&lc, IDGEN_LC_ANS_REFUSED, boot, boot, wall, -1, -1);
				else
				{
					idgen_lc_granted(&lc, boot, wall, wall + (int64_t) (unit_rand() % (2 * ttl)));
					fenced = false;
				}
			}
			else if (act == IDGEN_LC_RENEW || unit_rand() % 5 == 0)
			{
				IdgenLcAnswer a = (IdgenLcAnswer) (unit_rand() % 6);
				int64_t		answered = boot + (int64_t) (unit_rand() % 3000);
				IdgenLcVerdict v;

				v = idgen_lc_answer(&lc, a, sent, answered, wall, wall,
									wall + (int64_t) (unit_rand() % (2 * ttl)));
				boot = answered;
				if (v == IDGEN_LC_STOP_FENCED)
					fenced = true;
				if (fenced)
					CHECK(!idgen_lc_valid(&lc, boot));
			}
			else if (act == IDGEN_LC_RELEASE)
				CHECK(fenced);
			if (idgen_lc_valid(&lc, boot))
			{
				CHECK(!fenced);
				CHECK_I64(lc.valid_until_boot_ms, <=, lc.sent_boot_ms + lc.ttl_ms);
				CHECK(hold == 0 || lc.valid_until_boot_ms <= lc.sent_boot_ms + hold);
			}
			limit = idgen_lc_stamp_limit(&lc, boot);
			CHECK(limit == -1 || limit < lc.cap_unix_ms);
			CHECK(limit == -1 || boot < lc.valid_until_boot_ms);
		}
	}
}

int
main(void)
{
	test_validity();
	test_schedule();
	test_frozen();
	test_hold_floor();
	test_answers();
	test_ttl();
	test_epochs();
	test_walk();
	return unit_finish("test_leaseclient");
}
