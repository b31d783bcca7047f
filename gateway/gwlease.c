/*
 * gwlease.c - the gateway's lease path: the I/O of the lease client
 *
 * What to do and what an answer means is decided by the lease client's
 * state machine, src/leaseclient.c, the one every holder runs (issue 19):
 * this file only asks the registry, on the lease thread's own connection,
 * and feeds the machine the clock readings and answers.  Every statement
 * runs on its own (autocommit): a lease of N workers is N short
 * statements, each locking only what idgen_lease_worker() locks, never one
 * long transaction holding the registry's locks across reads.
 *
 * Renewals and releases go by holder where the registry can
 * (idgen_renew_worker and idgen_release_worker with the owner, 0.7); a
 * 0.6 registry, which lacks them (SQLSTATE 42883), gets the calls by
 * generation alone, and then a fenced lease is not released (the call
 * could release another holder's lease at the same generation).
 */
#include "gateway.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libpq-fe.h"

#include "fleet.h"
#include "gwdecode.h"
#include "gwdemand.h"
#include "leaseclient.h"

#define SQL_MS(expr) "floor(extract(epoch FROM " expr ") * 1000)::bigint"

static PGconn *lease_conn;
static bool lease_conn_drop;	/* it answered that it cannot write (gwregistry.c) */
static int64_t retention_ms = 86400000;

/* the registry has the by-holder calls until it says otherwise */
static bool renew_by_owner = true;
static bool release_by_owner = true;

static IdgenLeaseClient lc;
static GwLeaseSet set;
static bool started;
/* why there is no lease, while leasing anew fails: it ran out, or none yet */
static GwRefusal no_lease_why = GW_NO_LEASE;

/* --workers auto: the set's size follows the demand (gwdemand.h) */
static GwDemand demand;
static int	auto_workers = 1;

/* how many workers a new lease takes */
static int
lease_count(void)
{
	return gw_opt.workers > 0 ? gw_opt.workers : auto_workers;
}

static void
result_error(PGresult *res, char *err, size_t err_len)
{
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	snprintf(err, err_len, "%s", msg ? msg : PQerrorMessage(lease_conn));
	err[strcspn(err, "\n")] = '\0';
	if (gw_registry_result_drops_connection(lease_conn, res))
		lease_conn_drop = true;
}

static bool
is_state(PGresult *res, const char *sqlstate)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	return state != NULL && strcmp(state, sqlstate) == 0;
}

/*
 * A renewal refused because the lease is gone (fenced, released, run out:
 * "worker W of region R is not leased at generation G") ends it now.  A
 * regional registry refuses with 55000 for its region lease too (not
 * held yet after its start or promotion, lapsed, handed off): the
 * worker's lease is still in force until its end there, so the gateway
 * issues on its validity and tries again, as a node does.
 */
static bool
is_fence(PGresult *res)
{
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	return is_state(res, "55000") && msg != NULL &&
		strstr(msg, " is not leased at generation ") != NULL;
}

static bool
lease_conn_ready(char *err, size_t err_len)
{
	if (lease_conn != NULL && PQstatus(lease_conn) == CONNECTION_OK && !lease_conn_drop)
		return true;
	if (lease_conn != NULL)
		PQfinish(lease_conn);
	lease_conn_drop = false;
	lease_conn = gw_registry_connect(err, err_len);
	return lease_conn != NULL;
}

static int64_t
value_ms(PGresult *res, int row, int col)
{
	return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

int64_t
gw_registry_retention_ms(void)
{
	return retention_ms;
}

/*
 * The registry's layout epochs, checked as a node checks them: epoch 1 is
 * the built-in layout and every later one follows idgen_epochs_plan()'s
 * rules, or nothing is trusted.
 */
static bool
load_epochs(IdgenEpochList *list, char *err, size_t err_len)
{
	PGresult   *res = PQexec(lease_conn,
							 "SELECT version, " SQL_MS("start_time") ", " SQL_MS("epoch_start")
							 ", region_bits, worker_bits, seq_bits FROM idgen.epoch ORDER BY version");
	IdgenEpoch	rows[IDGEN_MAX_EPOCHS];
	const char *problem;
	int			i;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		result_error(res, err, err_len);
		PQclear(res);
		return false;
	}
	if (PQntuples(res) < 1 || PQntuples(res) > IDGEN_MAX_EPOCHS)
	{
		snprintf(err, err_len, "the registry's idgen.epoch has %d rows", PQntuples(res));
		PQclear(res);
		return false;
	}
	for (i = 0; i < PQntuples(res); i++)
	{
		rows[i].version = atoi(PQgetvalue(res, i, 0));
		rows[i].start_unix_ms = value_ms(res, i, 1);
		rows[i].layout.origin_unix_ms = value_ms(res, i, 2);
		rows[i].layout.region_bits = atoi(PQgetvalue(res, i, 3));
		rows[i].layout.worker_bits = atoi(PQgetvalue(res, i, 4));
		rows[i].layout.seq_bits = atoi(PQgetvalue(res, i, 5));
		rows[i].boundary = 0;
	}
	problem = gw_epochs_from_rows(list, rows, PQntuples(res), err, err_len);
	PQclear(res);
	if (problem != NULL)
	{
		if (problem != err)
			snprintf(err, err_len, "%s", problem);
		return false;
	}
	return true;
}

/*
 * The registry's idgen.max_drift, idgen.max_skew, idgen.clock_jump_confirm
 * and retention (its settings rule the fleet), its idgen.lease_ttl (the
 * least any hold after a change of its incarnation lasts, which bounds this
 * gateway's validity whatever --lease-ttl, R1a in docs/concepts.md), and its
 * clock over a round trip of its own, for the skew check and to confirm a
 * step of the wall clock (the registry's clock is another machine's).
 */
static bool
load_settings_and_clock(int64_t *registry_ms, int64_t *max_skew, int64_t *hold_floor,
						char *err, size_t err_len)
{
	PGresult   *res;
	int64_t		sent = gw_clock_ms();
	int64_t		raw_sent = gw_wall_ms();
	int64_t		received;
	int64_t		raw_received;
	IdgenSkew	skew;
	IdgenSkew	raw_skew;
	char		why[256];

	res = PQexec(lease_conn,
				 "SELECT " SQL_MS("idgen.clock()") ", "
				 SQL_MS("coalesce(nullif(current_setting('idgen.max_drift', true), '')::interval, '1s')") ", "
				 SQL_MS("coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, '1s')") ", "
				 SQL_MS("idgen.request_retention()") ", "
				 SQL_MS("coalesce(nullif(current_setting('idgen.clock_jump_confirm', true), '')::interval, '60s')") ", "
				 SQL_MS("coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval, '30s')"));
	received = gw_clock_ms();
	raw_received = gw_wall_ms();
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		result_error(res, err, err_len);
		PQclear(res);
		return false;
	}
	*registry_ms = value_ms(res, 0, 0);
	*max_skew = value_ms(res, 0, 2);
	gw_issue_set_limits(value_ms(res, 0, 1), *max_skew, value_ms(res, 0, 4));
	retention_ms = value_ms(res, 0, 3);
	*hold_floor = value_ms(res, 0, 5);
	PQclear(res);

	/* a step of the wall clock the registry's clock agrees with is real */
	idgen_skew_estimate(raw_sent, raw_received, *registry_ms, &raw_skew);
	if (*max_skew > 0 && !idgen_skew_exceeds(&raw_skew, *max_skew) &&
		(raw_skew.offset_ms < 0 ? -raw_skew.offset_ms : raw_skew.offset_ms) +
		raw_skew.uncertainty_ms <= *max_skew)
		gw_issue_clock_confirmed();

	/* the skew that matters is the one of the clock IDs are stamped by */
	idgen_skew_estimate(sent, received, *registry_ms, &skew);
	if (idgen_skew_exceeds(&skew, *max_skew))
	{
		snprintf(why, sizeof(why),
				 "this gateway's clock is %lld ms %s the registry's (give or take %lld ms); idgen.max_skew is %lld ms",
				 (long long) (skew.offset_ms < 0 ? -skew.offset_ms : skew.offset_ms),
				 skew.offset_ms < 0 ? "behind" : "ahead of",
				 (long long) skew.uncertainty_ms, (long long) *max_skew);
		gw_issue_set_skew(true, why);
	}
	else
		gw_issue_set_skew(false, NULL);
	return true;
}

/* the start of the first epoch after the registry's clock now, as known */
static int64_t
next_switch(const IdgenEpochList *epochs)
{
	int64_t		now = gw_clock_ms();
	int			i;

	for (i = 0; i < epochs->count; i++)
		if (epochs->epochs[i].start_unix_ms > now)
			return epochs->epochs[i].start_unix_ms;
	return INT64_MAX;
}

/* read the epochs and keep them (they never go back); false: not trusted */
static bool
take_epochs(char *err, size_t err_len)
{
	IdgenEpochList epochs;

	if (!load_epochs(&epochs, err, err_len))
		return false;
	/* a list that lost an epoch makes the generator refuse, not go back */
	gw_issue_set_epochs(&epochs);
	gw_issue_get_epochs(&epochs);
	idgen_lc_set_next_switch(&lc, next_switch(&epochs));
	return true;
}

static void
release_one(int region, int worker, int64_t generation, const char *owner, int64_t high_water_ms,
			bool fenced)
{
	char		r[16];
	char		w[16];
	char		g[32];
	char		hw[32];
	const char *params[5] = {r, w, g, owner, hw};
	PGresult   *res;

	snprintf(r, sizeof(r), "%d", region);
	snprintf(w, sizeof(w), "%d", worker);
	snprintf(g, sizeof(g), "%lld", (long long) generation);
	snprintf(hw, sizeof(hw), "%lld", (long long) high_water_ms);
	if (release_by_owner)
	{
		res = PQexecParams(lease_conn,
						   "SELECT idgen_release_worker($1::integer, $2::integer, $3::bigint, $4, "
						   "to_timestamp($5::bigint / 1000.0))",
						   5, NULL, params, NULL, NULL, 0);
		if (!is_state(res, "42883"))
		{
			PQclear(res);
			return;
		}
		PQclear(res);
		release_by_owner = false;
	}
	/* by generation alone: another holder at our generation would lose its lease */
	if (fenced)
		return;
	res = PQexecParams(lease_conn,
					   "SELECT idgen_release_worker($1::integer, $2::integer, $3::bigint)",
					   3, NULL, params, NULL, NULL, 0);
	PQclear(res);
}

static void
owner_of(int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%d", gw_registry_owner(), i);
}

/*
 * Release the workers of s from index `from` on, with the newest
 * millisecond issued as their final mark: called once nothing can be
 * issued under them any more.
 */
static void
release_from(const GwLeaseSet *s, int from, bool fenced)
{
	char		err[256];
	char		owner[200];
	int64_t		high_water = gw_issue_last_ms();
	int			i;

	if (!lease_conn_ready(err, sizeof(err)))
		return;
	if (high_water < lc.floor_unix_ms - 1)
		high_water = lc.floor_unix_ms - 1;
	/* one at a time: one already fenced must not keep the others */
	for (i = from; i < s->count; i++)
	{
		owner_of(i, owner, sizeof(owner));
		release_one(s->region, s->workers[i], s->generations[i], owner, high_water, fenced);
	}
}

static void
release_set(const GwLeaseSet *s, bool fenced)
{
	release_from(s, 0, fenced);
}

/*
 * Lease the worker of owner name /i into got->workers[i], in a statement
 * of its own; *min_until and *clock_ms take its end and the registry's
 * clock right after the grant.  False and err when not granted.
 */
static bool
lease_one(int i, GwLeaseSet *got, int64_t *min_until, int64_t *clock_ms,
		  char *err, size_t err_len)
{
	char		owner[200];
	char		ttl[32];
	const char *params[2] = {owner, ttl};
	PGresult   *res;
	int			region;
	int			worker;
	int64_t		generation;

	owner_of(i, owner, sizeof(owner));
	snprintf(ttl, sizeof(ttl), "%lld", (long long) gw_opt.lease_ttl_ms);
	res = PQexecParams(lease_conn,
					   "SELECT region, worker, generation, " SQL_MS("lease_until") ", "
					   SQL_MS("idgen.clock()")
					   " FROM idgen_lease_worker($1, $2::bigint * interval '1 ms')",
					   2, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		result_error(res, err, err_len);
		PQclear(res);
		return false;
	}
	region = atoi(PQgetvalue(res, 0, 0));
	worker = atoi(PQgetvalue(res, 0, 1));
	generation = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	if (i > 0 && region != got->region)
	{
		/* one set is of one region: this one goes back at once, unused */
		PQclear(res);
		release_one(region, worker, generation, owner, *clock_ms, false);
		snprintf(err, err_len, "the registry leased a worker of region %d after one of region %d",
				 region, got->region);
		return false;
	}
	got->region = region;
	got->workers[i] = worker;
	got->generations[i] = generation;
	if (value_ms(res, 0, 3) < *min_until)
		*min_until = value_ms(res, 0, 3);
	if (value_ms(res, 0, 4) > *clock_ms)
		*clock_ms = value_ms(res, 0, 4);
	got->count = i + 1;
	PQclear(res);
	return true;
}

/* Lease the worker set, one statement per worker.  Returns -1: fatal. */
static int
do_lease(void)
{
	char		err[512];
	char		reason[700];
	int64_t		sent_boot;
	int64_t		before_ms;
	int64_t		after_ms;
	int64_t		max_skew;
	int64_t		hold_floor;
	int64_t		min_until = INT64_MAX;
	int64_t		grant_clock = 0;
	const char *problem;
	GwLeaseSet	got;
	int			i;

	memset(&got, 0, sizeof(got));
	if (!lease_conn_ready(err, sizeof(err)) ||
		!load_settings_and_clock(&before_ms, &max_skew, &hold_floor, err, sizeof(err)))
		goto fail;
	idgen_lc_set_max_skew(&lc, max_skew);
	problem = idgen_lc_ttl_problem(gw_opt.lease_ttl_ms, max_skew);
	if (problem != NULL)
	{
		gw_log("--lease-ttl %lld ms cannot be used with this registry (idgen.max_skew %lld ms): %s; use a --lease-ttl above %lld ms",
				  (long long) gw_opt.lease_ttl_ms, (long long) max_skew, problem,
				  (long long) (max_skew * 3 / 2));
		return -1;
	}

	/* the lease's validity counts from here, before the registry's clock read */
	sent_boot = gw_boot_ms();
	for (i = 0; i < lease_count(); i++)
		if (!lease_one(i, &got, &min_until, &grant_clock, err, sizeof(err)))
			goto fail;
	if (gw_opt.region >= 0 && got.region != gw_opt.region)
	{
		snprintf(err, sizeof(err),
				 "the registry leases workers of region %d (its idgen.region_id), not of --region %d",
				 got.region, gw_opt.region);
		goto fail;
	}
	if (!load_settings_and_clock(&after_ms, &max_skew, &hold_floor, err, sizeof(err)) ||
		!take_epochs(err, sizeof(err)))
		goto fail;
	idgen_lc_set_hold_floor(&lc, hold_floor);
	/* the registry's clock must not have gone back across the lease */
	if (after_ms < before_ms || after_ms < grant_clock)
	{
		snprintf(err, sizeof(err), "the registry's clock went back by %lld ms during the lease",
				 (long long) ((before_ms > grant_clock ? before_ms : grant_clock) - after_ms));
		goto fail;
	}

	/*
	 * Earlier holders of these workers stopped below their high-water
	 * marks, which lay before the registry's clock after the lease: start
	 * above that.  Stay below the lease end, the workers' new marks.
	 */
	idgen_lc_granted(&lc, sent_boot, after_ms, min_until);
	set = got;
	set.floor_unix_ms = lc.floor_unix_ms;
	set.cap_unix_ms = lc.cap_unix_ms;
	set.valid_until_boot_ms = lc.valid_until_boot_ms;
	gw_issue_install_lease(&set, &lc);
	no_lease_why = GW_NO_LEASE;
	gw_metric_lease(true);
	gw_log("leased worker%s of region %d: %d%s (generation %lld)",
			  set.count > 1 ? "s" : "", set.region, set.workers[0],
			  set.count > 1 ? " and more" : "", (long long) set.generations[0]);
	return 0;

fail:
	/* what was got is given back: it issued nothing */
	if (got.count > 0 && lease_conn != NULL && PQstatus(lease_conn) == CONNECTION_OK)
		release_set(&got, false);
	idgen_lc_answer(&lc, IDGEN_LC_ANS_REFUSED, gw_boot_ms(), gw_boot_ms(), gw_clock_ms(), -1, -1);
	snprintf(reason, sizeof(reason), "%s: %s",
			 no_lease_why == GW_LEASE_EXPIRED ?
			 "the worker lease ran out unrenewed, and cannot be leased anew" :
			 "cannot lease a worker", err);
	gw_issue_drop_lease(no_lease_why, reason, &lc);
	gw_metric_lease(false);
	gw_log("%s; retrying in %lld ms", reason, (long long) lc.backoff_ms);
	return 0;
}

/* renew one worker; *until its new end */
static IdgenLcAnswer
renew_one(int i, int known_epoch, int64_t *until, char *err, size_t err_len)
{
	char		r[16];
	char		w[16];
	char		g[32];
	char		owner[200];
	char		epoch[16];
	const char *params[5] = {r, w, g, owner, epoch};
	PGresult   *res;
	IdgenLcAnswer a = IDGEN_LC_ANS_RENEWED;

	snprintf(r, sizeof(r), "%d", set.region);
	snprintf(w, sizeof(w), "%d", set.workers[i]);
	snprintf(g, sizeof(g), "%lld", (long long) set.generations[i]);
	snprintf(epoch, sizeof(epoch), "%d", known_epoch);
	owner_of(i, owner, sizeof(owner));
	res = NULL;
	if (renew_by_owner)
	{
		res = PQexecParams(lease_conn,
						   "SELECT " SQL_MS("idgen_renew_worker($1::integer, $2::integer, $3::bigint, $4, $5::integer)"),
						   5, NULL, params, NULL, NULL, 0);
		if (is_state(res, "42883"))
		{
			PQclear(res);
			res = NULL;
			renew_by_owner = false;
		}
	}
	if (res == NULL)
		res = PQexecParams(lease_conn,
						   "SELECT " SQL_MS("idgen_renew_worker($1::integer, $2::integer, $3::bigint)"),
						   3, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		*until = value_ms(res, 0, 0);
	else
	{
		result_error(res, err, err_len);
		a = is_fence(res) ? IDGEN_LC_ANS_FENCED : IDGEN_LC_ANS_UNREACHABLE;
	}
	PQclear(res);
	return a;
}

/*
 * Lease workers /set.count .. /grow_to - 1 into *grown (a copy of set with
 * them added), inside a renewal round: their validity counts from the
 * round's sending, which came before their grants.  False and err when one
 * was not granted; those got are then given back, unused.
 */
static bool
lease_more(int grow_to, GwLeaseSet *grown, int64_t *min_until, int64_t *grant_clock,
		   char *err, size_t err_len)
{
	int			i;

	*grown = set;
	for (i = set.count; i < grow_to; i++)
		if (!lease_one(i, grown, min_until, grant_clock, err, err_len))
		{
			release_from(grown, set.count, false);
			grown->count = set.count;
			return false;
		}
	return true;
}

/*
 * A renewal round of every worker held; with grow_to above the set's
 * size, more workers leased in the same round and, if all of it went
 * well, the larger set installed.
 */
static void
do_renew(int grow_to)
{
	char		err[512] = "";
	char		grow_err[512] = "";
	char		reason[700];
	int64_t		sent_boot = gw_boot_ms();
	int64_t		min_until = INT64_MAX;
	int64_t		after_ms = -1;
	int64_t		grant_clock = 0;
	int64_t		max_skew;
	int64_t		hold_floor = 0;
	IdgenEpochList known;
	IdgenLcAnswer answer = IDGEN_LC_ANS_RENEWED;
	IdgenLcVerdict v;
	GwLeaseSet	grown = set;
	bool		growing = false;
	int			i;

	gw_issue_get_epochs(&known);
	if (!lease_conn_ready(err, sizeof(err)))
		answer = IDGEN_LC_ANS_UNREACHABLE;
	for (i = 0; i < set.count && answer == IDGEN_LC_ANS_RENEWED; i++)
	{
		int64_t		until = 0;

		answer = renew_one(i, known.epochs[known.count - 1].version, &until, err, sizeof(err));
		if (answer == IDGEN_LC_ANS_RENEWED && until < min_until)
			min_until = until;
	}
	if (grow_to > set.count)
	{
		if (answer == IDGEN_LC_ANS_RENEWED && lc.state == IDGEN_LC_HELD)
			growing = lease_more(grow_to, &grown, &min_until, &grant_clock,
								 grow_err, sizeof(grow_err));

		/*
		 * A growth not granted, or a round brought forward for one that
		 * could not even renew (the registry away): the next try comes
		 * after the retry delay, not at every step while the demand lasts.
		 */
		if (!growing)
			gw_demand_grow_failed(&demand, gw_boot_ms());
	}
	/* the epochs first: the longer lease must not reach a switch unknown */
	if (answer == IDGEN_LC_ANS_RENEWED &&
		(!load_settings_and_clock(&after_ms, &max_skew, &hold_floor, err, sizeof(err)) ||
		 !take_epochs(err, sizeof(err))))
		answer = IDGEN_LC_ANS_UNREACHABLE;
	if (answer == IDGEN_LC_ANS_RENEWED)
	{
		idgen_lc_set_max_skew(&lc, max_skew);
		idgen_lc_set_hold_floor(&lc, hold_floor);
	}
	v = idgen_lc_answer(&lc, answer, sent_boot, gw_boot_ms(), gw_clock_ms(), after_ms, min_until);
	gw_metric_renewal(answer == IDGEN_LC_ANS_RENEWED && v == IDGEN_LC_GO_ON);
	if (growing && (v != IDGEN_LC_GO_ON || answer != IDGEN_LC_ANS_RENEWED || after_ms < grant_clock))
	{
		/* not a round to grow in: what was got goes back, unused */
		if (after_ms >= 0 && after_ms < grant_clock)
			snprintf(grow_err, sizeof(grow_err),
					 "the registry's clock went back by %lld ms during the lease",
					 (long long) (grant_clock - after_ms));
		release_from(&grown, set.count, false);
		gw_demand_grow_failed(&demand, gw_boot_ms());
		growing = false;
	}
	switch (v)
	{
		case IDGEN_LC_GO_ON:
			if (answer != IDGEN_LC_ANS_RENEWED)
				gw_log("cannot renew the worker lease: %s", err);
			if (growing)
			{
				/*
				 * The added workers' earlier holders stopped below the
				 * registry's clock at their grants, which lay at or below
				 * after_ms: the set starts above it, and above the last ID
				 * issued (gw_issue_install_lease).
				 */
				int			from = set.count;

				grown.floor_unix_ms = after_ms + 1;
				grown.cap_unix_ms = lc.cap_unix_ms;
				grown.valid_until_boot_ms = lc.valid_until_boot_ms;
				set = grown;
				auto_workers = set.count;
				gw_issue_install_lease(&set, &lc);
				gw_log("leased %d more worker%s of region %d for the demand (%llu IDs/s): %d workers now",
					   set.count - from, set.count - from > 1 ? "s" : "", set.region,
					   (unsigned long long) demand.last_rate, set.count);
			}
			else
			{
				if (grow_err[0] != '\0')
					gw_log("cannot lease another worker for the demand (%llu IDs/s): %s; trying again in %d s",
						   (unsigned long long) demand.last_rate, grow_err,
						   GW_DEMAND_RETRY_MS / 1000);
				gw_issue_renewed(&lc);
			}
			break;
		case IDGEN_LC_RUNS_OUT:
			gw_log("the worker lease ends at %lld (a layout switch) and is not renewed further: %s",
					  (long long) lc.cap_unix_ms, err);
			gw_issue_renewed(&lc);
			break;
		case IDGEN_LC_STOP_FENCED:
			/* stop first, then tidy up; the machine releases next */
			snprintf(reason, sizeof(reason), "the worker lease was fenced or taken: %s", err);
			gw_issue_drop_lease(GW_FENCED, reason, &lc);
			gw_metric_fenced();
			gw_log("%s; leasing anew", reason);
			break;
		case IDGEN_LC_STOP_ENDED:
			snprintf(reason, sizeof(reason), "the worker lease ran out: %s",
					 err[0] ? err : "its validity ended before the renewal was answered");
			no_lease_why = GW_LEASE_EXPIRED;
			gw_issue_drop_lease(GW_LEASE_EXPIRED, reason, &lc);
			gw_log("%s; leasing anew", reason);
			break;
	}
}

/*
 * Give back the workers above index to - 1: the smaller set is installed
 * first (it starts above the last ID issued), so nothing is issued under
 * them once they are released with the newest millisecond issued.
 */
static void
do_shrink(int to)
{
	GwLeaseSet	before = set;

	set.count = to;
	auto_workers = to;
	gw_issue_install_lease(&set, &lc);
	release_from(&before, to, false);
	gw_log("gave back %d worker%s of region %d, idle (%llu IDs/s): %d worker%s now",
		   before.count - to, before.count - to > 1 ? "s" : "", set.region,
		   (unsigned long long) demand.last_rate, to, to > 1 ? "s" : "");
}

/* --workers auto: the set size the demand asks for (gwdemand.h) */
static int
wanted_workers(void)
{
	uint64_t	issued;
	int			seq_bits;

	if (gw_opt.workers > 0 || lc.state != IDGEN_LC_HELD || !idgen_lc_valid(&lc, gw_boot_ms()))
		return set.count;
	gw_issue_demand(&issued, &seq_bits);
	return gw_demand_target(&demand, issued, gw_boot_ms(), set.count, seq_bits);
}

int64_t
gw_lease_step(void)
{
	int64_t		wait = 0;

	if (!started)
	{
		idgen_lc_init(&lc, gw_opt.lease_ttl_ms, gw_issue_max_skew_ms());
		gw_demand_init(&demand, gw_opt.max_workers, gw_opt.workers_idle_ms);
		started = true;
	}
	switch (idgen_lc_next(&lc, gw_boot_ms(), &wait))
	{
		case IDGEN_LC_WAIT:
			{
				int			want = wanted_workers();

				if (want > set.count)
				{
					/* a renewal round early, with the new workers in it */
					do_renew(want);
					wait = 0;
				}
				else if (want < set.count)
					do_shrink(want);
			}
			break;
		case IDGEN_LC_LEASE:
			if (do_lease() < 0)
				return -1;
			wait = 0;
			break;
		case IDGEN_LC_RENEW:
			do_renew(wanted_workers());
			wait = 0;
			break;
		case IDGEN_LC_GIVE_UP:

			/*
			 * Not renewed, and never released: whoever holds the worker now
			 * is not ours to disturb.  The registry counts it over by itself.
			 */
			no_lease_why = GW_LEASE_EXPIRED;
			gw_issue_drop_lease(GW_LEASE_EXPIRED,
								"the worker lease's validity ended unrenewed; leasing anew", &lc);
			gw_log("the worker lease (generation %lld) ran out unrenewed; leasing anew",
					  (long long) set.generations[0]);
			break;
		case IDGEN_LC_RELEASE:
			release_set(&set, true);
			break;
	}
	return wait;
}

void
gw_lease_shutdown(void)
{
	if (!started || !idgen_lc_valid(&lc, gw_boot_ms()))
		return;
	gw_issue_drop_lease(GW_NO_LEASE, "shutting down", NULL);
	release_set(&set, false);
}
