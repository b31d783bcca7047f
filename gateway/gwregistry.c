/*
 * gwregistry.c - what idgen-gateway says to the registry (gateway.h)
 *
 * The lease thread has a connection of its own (the request path's are in
 * gwpool.c).  Every session is bounded by --registry-timeout
 * (gw_registry_connect), and one that answered it cannot write is closed
 * (gw_registry_result_drops_connection).  Every
 * time travels as Unix milliseconds, so neither side's TimeZone matters;
 * sessions run with TimeZone UTC for the timestamps the admin endpoints
 * return.
 */
#include "gateway.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpq-fe.h"

#include "fleet.h"
#include "gwdecode.h"

#define SQL_MS(expr) "floor(extract(epoch FROM " expr ") * 1000)::bigint"

static PGconn *lease_conn;
static bool lease_conn_drop;	/* it answered that it cannot write */
static char registry_where[256];

static int64_t retention_ms = 86400000;

/* the owner names of this run: a copy or a restart is always a new owner */
static char owner_base[160];

/*
 * A connection to the registry, its session bounded by --registry-timeout:
 * the registry gives up on a statement, a lock wait and a transaction left
 * open by a stalled gateway by itself, and lets go of what it locked.
 */
PGconn *
gw_registry_connect(char *err, size_t err_len)
{
	/*
	 * A registry that stops answering must not hang the lease thread: the
	 * lease runs out by itself (the gateway refuses meanwhile), and a new
	 * connection is tried.  read-write: a member that cannot grant leases
	 * is passed over for the next host of the string.  These come first,
	 * so the connection string can override them.
	 */
	static const char *const keys[] = {"connect_timeout", "keepalives", "keepalives_idle",
		"keepalives_interval", "keepalives_count", "tcp_user_timeout",
	"target_session_attrs", "dbname", NULL};
	int64_t		t = gw_opt.registry_timeout_ms;
	char		connect_s[24];
	char		settings[300];
	const char *vals[] = {connect_s, "1", "5", "2", "3", "10000", "read-write", gw_opt.registry, NULL};
	PGconn	   *conn;
	PGresult   *res;

	/* libpq's least connect_timeout is 2 s */
	snprintf(connect_s, sizeof(connect_s), "%lld", (long long) (t < 2000 ? 2 : (t + 999) / 1000));
	conn = PQconnectdbParams(keys, vals, 1);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		snprintf(err, err_len, "cannot connect to the registry (%s): %s",
				 registry_where, PQerrorMessage(conn));
		/* one line: libpq ends its messages with a newline */
		err[strcspn(err, "\n")] = '\0';
		PQfinish(conn);
		return NULL;
	}
	/* the registry gives up before the gateway does (the lock wait first) */
	snprintf(settings, sizeof(settings),
			 "SET application_name = 'idgen-gateway'; SET TimeZone = 'UTC'; "
			 "SET statement_timeout = %lld; SET lock_timeout = %lld; "
			 "SET idle_in_transaction_session_timeout = %lld",
			 (long long) (t * 3 / 4 > 50 ? t * 3 / 4 : 50), (long long) (t / 2 > 25 ? t / 2 : 25),
			 (long long) (t * 2 > 5000 ? t * 2 : 5000));
	res = PQexec(conn, settings);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

		snprintf(err, err_len, "cannot set up the registry session (%s): %s",
				 registry_where, msg ? msg : PQerrorMessage(conn));
		err[strcspn(err, "\n")] = '\0';
		PQclear(res);
		PQfinish(conn);
		return NULL;
	}
	PQclear(res);
	return conn;
}

/*
 * After a demotion libpq may still be connected to the old primary, now
 * read-only: every write fails there with 25006 for good.  Such a
 * connection (or a broken one) must be closed; the next one, read-write,
 * finds the member that can write.
 */
bool
gw_registry_result_drops_connection(PGconn *conn, PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *standby = conn ? PQparameterStatus(conn, "in_hot_standby") : NULL;
	const char *ro = conn ? PQparameterStatus(conn, "default_transaction_read_only") : NULL;

	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
		return true;
	if (state != NULL && (strcmp(state, "25006") == 0 || strncmp(state, "08", 2) == 0 ||
						  strncmp(state, "57P", 3) == 0))
		return true;
	return (standby != NULL && strcmp(standby, "on") == 0) ||
		(ro != NULL && strcmp(ro, "on") == 0);
}

int
gw_registry_init(char *err, size_t err_len)
{
	uint8_t		rnd[8];
	FILE	   *f;
	int			i;

	idgen_conninfo_display(gw_opt.registry, registry_where, sizeof(registry_where));
	f = fopen("/dev/urandom", "rb");
	if (f == NULL || fread(rnd, 1, sizeof(rnd), f) != sizeof(rnd))
	{
		if (f)
			fclose(f);
		snprintf(err, err_len, "cannot read /dev/urandom");
		return -1;
	}
	fclose(f);
	snprintf(owner_base, sizeof(owner_base), "gateway:%s:", gw_opt.name);
	for (i = 0; i < 8; i++)
		snprintf(owner_base + strlen(owner_base), sizeof(owner_base) - strlen(owner_base), "%02x", rnd[i]);
	return 0;
}

/* the first line of a failed result's message */
static void
result_error(PGconn *conn, PGresult *res, char *err, size_t err_len)
{
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	snprintf(err, err_len, "%s", msg ? msg : PQerrorMessage(conn));
	err[strcspn(err, "\n")] = '\0';
	if (conn == lease_conn && gw_registry_result_drops_connection(conn, res))
		lease_conn_drop = true;
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

static bool
exec_ok(PGconn *conn, const char *sql, char *err, size_t err_len)
{
	PGresult   *res = PQexec(conn, sql);
	bool		ok = PQresultStatus(res) == PGRES_COMMAND_OK ||
		PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		result_error(conn, res, err, err_len);
	PQclear(res);
	return ok;
}

static int64_t
value_ms(PGresult *res, int row, int col)
{
	return strtoll(PQgetvalue(res, row, col), NULL, 10);
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
		result_error(lease_conn, res, err, err_len);
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
	if (problem != NULL)
	{
		if (problem != err)
			snprintf(err, err_len, "%s", problem);
		PQclear(res);
		return false;
	}
	PQclear(res);
	return true;
}

/*
 * The registry's idgen.max_drift, idgen.max_skew and retention (its
 * settings rule the fleet), and its clock over a round trip of its own, for
 * the skew check.  Part of the lease or renewal transaction.
 */
static bool
load_settings_and_clock(int64_t *registry_after_ms, char *err, size_t err_len)
{
	PGresult   *res;
	int64_t		sent = gw_wall_ms();
	int64_t		received;
	IdgenSkew	skew;
	int64_t		max_skew;
	char		why[256];

	res = PQexec(lease_conn,
				 "SELECT " SQL_MS("idgen.clock()") ", "
				 SQL_MS("coalesce(nullif(current_setting('idgen.max_drift', true), '')::interval, '1s')") ", "
				 SQL_MS("coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, '1s')") ", "
				 SQL_MS("idgen.request_retention()"));
	received = gw_wall_ms();
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		result_error(lease_conn, res, err, err_len);
		PQclear(res);
		return false;
	}
	*registry_after_ms = value_ms(res, 0, 0);
	max_skew = value_ms(res, 0, 2);
	gw_issue_set_limits(value_ms(res, 0, 1), max_skew);
	retention_ms = value_ms(res, 0, 3);
	PQclear(res);

	idgen_skew_estimate(sent, received, *registry_after_ms, &skew);
	if (idgen_skew_exceeds(&skew, max_skew))
	{
		snprintf(why, sizeof(why),
				 "this gateway's clock is %lld ms %s the registry's (give or take %lld ms); idgen.max_skew is %lld ms",
				 (long long) (skew.offset_ms < 0 ? -skew.offset_ms : skew.offset_ms),
				 skew.offset_ms < 0 ? "behind" : "ahead of",
				 (long long) skew.uncertainty_ms, (long long) max_skew);
		gw_issue_set_skew(true, why);
	}
	else
		gw_issue_set_skew(false, NULL);
	return true;
}

/*
 * When the lease's validity ends, on CLOCK_BOOTTIME: from the sending of
 * the request, for what the registry granted (the TTL, or less when the
 * lease ends at a layout switch), less a margin for the two clocks' rates
 * (a fifth of it) and at least 200 ms.  The registry counts from a later
 * instant, so the gateway stops first.
 */
static int64_t
validity_end(int64_t sent_boot, int64_t until_ms, int64_t registry_ms)
{
	int64_t		granted = until_ms - registry_ms;
	int64_t		margin;

	if (granted > gw_opt.lease_ttl_ms)
		granted = gw_opt.lease_ttl_ms;
	margin = granted / 5 > 200 ? granted / 5 : 200;
	return sent_boot + granted - margin;
}

bool
gw_registry_lease(GwLeaseSet *set, char *err, size_t err_len)
{
	char		owner[200];
	char		ttl[32];
	const char *params[2];
	int64_t		sent_boot;
	int64_t		before_ms;
	int64_t		after_ms;
	int64_t		min_until = INT64_MAX;
	IdgenEpochList epochs;
	PGresult   *res;
	int			i;

	if (!lease_conn_ready(err, err_len))
		return false;
	if (!exec_ok(lease_conn, "BEGIN", err, err_len))
		return false;
	res = PQexec(lease_conn, "SELECT " SQL_MS("idgen.clock()"));
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		result_error(lease_conn, res, err, err_len);
		PQclear(res);
		goto fail;
	}
	before_ms = value_ms(res, 0, 0);
	PQclear(res);

	/* the lease's validity counts from here, before the registry's clock read */
	sent_boot = gw_boot_ms();
	snprintf(ttl, sizeof(ttl), "%lld", (long long) gw_opt.lease_ttl_ms);
	set->count = gw_opt.workers;
	for (i = 0; i < gw_opt.workers; i++)
	{
		snprintf(owner, sizeof(owner), "%s/%d", owner_base, i);
		params[0] = owner;
		params[1] = ttl;
		res = PQexecParams(lease_conn,
						   "SELECT region, worker, generation, " SQL_MS("lease_until")
						   " FROM idgen_lease_worker($1, $2::bigint * interval '1 ms')",
						   2, NULL, params, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		{
			result_error(lease_conn, res, err, err_len);
			PQclear(res);
			goto fail;
		}
		set->region = atoi(PQgetvalue(res, 0, 0));
		set->workers[i] = atoi(PQgetvalue(res, 0, 1));
		set->generations[i] = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
		if (value_ms(res, 0, 3) < min_until)
			min_until = value_ms(res, 0, 3);
		PQclear(res);
	}
	if (gw_opt.region >= 0 && set->region != gw_opt.region)
	{
		snprintf(err, err_len,
				 "the registry leases workers of region %d (its idgen.region_id), not of --region %d",
				 set->region, gw_opt.region);
		goto fail;
	}
	if (!load_settings_and_clock(&after_ms, err, err_len) ||
		!load_epochs(&epochs, err, err_len))
		goto fail;
	/* the registry's clock must not have gone back across the lease */
	if (after_ms < before_ms)
	{
		snprintf(err, err_len, "the registry's clock went back by %lld ms during the lease",
				 (long long) (before_ms - after_ms));
		goto fail;
	}
	if (!exec_ok(lease_conn, "COMMIT", err, err_len))
		return false;

	/*
	 * Earlier holders of these workers stopped below their high-water
	 * marks, which lay before the registry's clock inside the lease: start
	 * above its reading after it.  Stay below the lease end, which the
	 * registry made the workers' new high-water marks.
	 */
	set->floor_unix_ms = after_ms + 1;
	set->cap_unix_ms = min_until;
	set->valid_until_boot_ms = validity_end(sent_boot, min_until, after_ms);
	gw_issue_set_epochs(&epochs);
	gw_metric_lease(true);
	return true;

fail:
	res = PQexec(lease_conn, "ROLLBACK");
	PQclear(res);
	gw_metric_lease(false);
	return false;
}

GwRenewResult
gw_registry_renew(GwLeaseSet *set, char *err, size_t err_len)
{
	char		region[16];
	char		worker[16];
	char		gen[32];
	const char *params[3];
	int64_t		sent_boot;
	int64_t		after_ms;
	int64_t		min_until = INT64_MAX;
	IdgenEpochList epochs;
	PGresult   *res;
	int			i;

	if (!lease_conn_ready(err, err_len) || !exec_ok(lease_conn, "BEGIN", err, err_len))
		return GW_RENEW_FAILED;
	sent_boot = gw_boot_ms();
	for (i = 0; i < set->count; i++)
	{
		snprintf(region, sizeof(region), "%d", set->region);
		snprintf(worker, sizeof(worker), "%d", set->workers[i]);
		snprintf(gen, sizeof(gen), "%lld", (long long) set->generations[i]);
		params[0] = region;
		params[1] = worker;
		params[2] = gen;
		res = PQexecParams(lease_conn,
						   "SELECT " SQL_MS("idgen_renew_worker($1::integer, $2::integer, $3::bigint)"),
						   3, NULL, params, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		{
			const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
			bool		fenced = state != NULL && strcmp(state, "55000") == 0;

			result_error(lease_conn, res, err, err_len);
			PQclear(res);
			res = PQexec(lease_conn, "ROLLBACK");
			PQclear(res);
			gw_metric_renewal(false);
			return fenced ? GW_RENEW_FENCED : GW_RENEW_FAILED;
		}
		if (value_ms(res, 0, 0) < min_until)
			min_until = value_ms(res, 0, 0);
		PQclear(res);
	}
	if (!load_settings_and_clock(&after_ms, err, err_len) ||
		!load_epochs(&epochs, err, err_len) ||
		!exec_ok(lease_conn, "COMMIT", err, err_len))
	{
		res = PQexec(lease_conn, "ROLLBACK");
		PQclear(res);
		gw_metric_renewal(false);
		return GW_RENEW_FAILED;
	}
	/* the epochs first: the longer lease must not reach a switch unknown */
	gw_issue_set_epochs(&epochs);
	set->cap_unix_ms = min_until;
	set->valid_until_boot_ms = validity_end(sent_boot, min_until, after_ms);
	gw_issue_renewed(set->cap_unix_ms, set->valid_until_boot_ms);
	gw_metric_renewal(true);
	return GW_RENEW_OK;
}

void
gw_registry_release(const GwLeaseSet *set)
{
	char		err[256];
	int			i;

	if (!lease_conn_ready(err, sizeof(err)))
		return;
	for (i = 0; i < set->count; i++)
	{
		char		region[16];
		char		worker[16];
		char		gen[32];
		const char *params[3] = {region, worker, gen};
		PGresult   *res;

		snprintf(region, sizeof(region), "%d", set->region);
		snprintf(worker, sizeof(worker), "%d", set->workers[i]);
		snprintf(gen, sizeof(gen), "%lld", (long long) set->generations[i]);
		/* one at a time: one already fenced must not keep the others */
		res = PQexecParams(lease_conn,
						   "SELECT idgen_release_worker($1::integer, $2::integer, $3::bigint)",
						   3, NULL, params, NULL, NULL, 0);
		PQclear(res);
	}
}

const char *
gw_registry_owner(void)
{
	return owner_base;
}

int64_t
gw_registry_retention_ms(void)
{
	return retention_ms;
}
