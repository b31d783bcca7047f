/*
 * gwregistry.c - what idgen-gateway says to the registry (gateway.h)
 *
 * The lease thread has a connection of its own; request threads share a
 * small pool (Idempotency-Key records and the admin endpoints).  Every
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
static char registry_where[256];

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER;
static PGconn **pool;
static int	pool_free;			/* pool[0 .. pool_free - 1] are idle (may be NULL) */

static int64_t retention_ms = 86400000;

/* the owner names of this run: a copy or a restart is always a new owner */
static char owner_base[160];

static PGconn *
connect_registry(char *err, size_t err_len)
{
	/*
	 * A registry that stops answering must not hang the lease thread: the
	 * lease runs out by itself (the gateway refuses meanwhile), and a new
	 * connection is tried.  These come first, so the connection string
	 * can override them.
	 */
	static const char *const keys[] = {"connect_timeout", "keepalives", "keepalives_idle",
	"keepalives_interval", "keepalives_count", "tcp_user_timeout", "dbname", NULL};
	const char *vals[] = {"5", "1", "5", "2", "3", "10000", gw_opt.registry, NULL};
	PGconn	   *conn = PQconnectdbParams(keys, vals, 1);
	PGresult   *res;

	if (PQstatus(conn) != CONNECTION_OK)
	{
		snprintf(err, err_len, "cannot connect to the registry (%s): %s",
				 registry_where, PQerrorMessage(conn));
		/* one line: libpq ends its messages with a newline */
		err[strcspn(err, "\n")] = '\0';
		PQfinish(conn);
		return NULL;
	}
	res = PQexec(conn, "SET application_name = 'idgen-gateway'; SET TimeZone = 'UTC'");
	PQclear(res);
	return conn;
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
	pool = calloc(gw_opt.pool_size, sizeof(PGconn *));
	pool_free = gw_opt.pool_size;
	return 0;
}

/* the first line of a failed result's message */
static void
result_error(PGconn *conn, PGresult *res, char *err, size_t err_len)
{
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	snprintf(err, err_len, "%s", msg ? msg : PQerrorMessage(conn));
	err[strcspn(err, "\n")] = '\0';
}

static bool
lease_conn_ready(char *err, size_t err_len)
{
	if (lease_conn != NULL && PQstatus(lease_conn) == CONNECTION_OK)
		return true;
	if (lease_conn != NULL)
		PQfinish(lease_conn);
	lease_conn = connect_registry(err, err_len);
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

void
gw_registry_purge(void)
{
	char		err[256];

	if (lease_conn_ready(err, sizeof(err)))
		exec_ok(lease_conn,
				"DELETE FROM idgen.gateway_request WHERE created_at < pg_catalog.clock_timestamp() - idgen.request_retention()",
				err, sizeof(err));
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

/* ---- the request threads' pool ---- */

static PGconn *
pool_get(GwAnswer *answer)
{
	PGconn	   *conn;
	char		err[512];

	pthread_mutex_lock(&pool_mu);
	while (pool_free == 0)
		pthread_cond_wait(&pool_cv, &pool_mu);
	conn = pool[--pool_free];
	pthread_mutex_unlock(&pool_mu);
	if (conn != NULL && PQstatus(conn) != CONNECTION_OK)
	{
		PQfinish(conn);
		conn = NULL;
	}
	if (conn == NULL)
		conn = connect_registry(err, sizeof(err));
	if (conn == NULL)
	{
		answer->status = 503;
		answer->retry_after_s = 1;
		answer->body = gw_error_json("registry_unavailable", err);
		/* give the slot back empty */
		pthread_mutex_lock(&pool_mu);
		pool[pool_free++] = NULL;
		pthread_cond_signal(&pool_cv);
		pthread_mutex_unlock(&pool_mu);
	}
	return conn;
}

static void
pool_put(PGconn *conn)
{
	pthread_mutex_lock(&pool_mu);
	pool[pool_free++] = conn;
	pthread_cond_signal(&pool_cv);
	pthread_mutex_unlock(&pool_mu);
}

/* an SQL error as an answer: the registry's own words, with a fitting status */
static void
sql_error_answer(PGconn *conn, PGresult *res, GwAnswer *answer)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	char		msg[512];

	result_error(conn, res, msg, sizeof(msg));
	if (state == NULL)
	{
		answer->status = 503;
		answer->retry_after_s = 1;
		answer->body = gw_error_json("registry_unavailable", msg);
	}
	else if (strncmp(state, "22", 2) == 0)
	{
		answer->status = 400;
		answer->body = gw_error_json("invalid_request", msg);
	}
	else if (strncmp(state, "53", 2) == 0)
	{
		answer->status = 503;
		answer->retry_after_s = 5;
		answer->body = gw_error_json("no_capacity", msg);
	}
	else if (strcmp(state, "55000") == 0)
	{
		answer->status = 409;
		answer->body = gw_error_json("conflict", msg);
	}
	else if (strcmp(state, "IA006") == 0)
	{
		/*
		 * Range grants wait for an operator's confirmation of the floor
		 * (after a restart, failover or restore of the registry): the
		 * request is fine and will succeed then, but no time can be named,
		 * so 503 without Retry-After.
		 */
		answer->status = 503;
		answer->retry_after_s = 0;
		answer->body = gw_error_json("range_floor_unconfirmed", msg);
	}
	else
	{
		answer->status = 500;
		answer->body = gw_error_json("registry_error", msg);
	}
}

static PGresult *
pool_query(PGconn *conn, const char *sql, int n, const char *const *params)
{
	return PQexecParams(conn, sql, n, NULL, params, NULL, NULL, 0);
}

/* a stored answer for another count or type is a misuse of the key */
static int
stored_answer(PGresult *res, int count, int want128, char **stored, GwAnswer *answer)
{
	if (atoi(PQgetvalue(res, 0, 0)) != (want128 ? 128 : 64) ||
		atoi(PQgetvalue(res, 0, 1)) != count)
	{
		answer->status = 409;
		answer->body = gw_error_json("idempotency_key_reused",
									 "this Idempotency-Key was used with another count or type");
		return -1;
	}
	*stored = strdup(PQgetvalue(res, 0, 2));
	return 1;
}

int
gw_registry_recall(const char *token, const char *key, int count, int want128,
				   char **stored, GwAnswer *answer)
{
	PGconn	   *conn = pool_get(answer);
	const char *params[2] = {token, key};
	PGresult   *res;
	int			rc;

	if (conn == NULL)
		return -1;
	res = pool_query(conn,
					 "SELECT width, count, ids FROM idgen.gateway_request "
					 "WHERE token = $1 AND request_key = $2 "
					 "AND created_at >= pg_catalog.clock_timestamp() - idgen.request_retention()",
					 2, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		sql_error_answer(conn, res, answer);
		rc = -1;
	}
	else if (PQntuples(res) == 0)
		rc = 0;
	else
		rc = stored_answer(res, count, want128, stored, answer);
	PQclear(res);
	pool_put(conn);
	return rc;
}

int
gw_registry_remember(const char *token, const char *key, int count, int want128,
					 const char *ids_json, char **stored, GwAnswer *answer)
{
	PGconn	   *conn = pool_get(answer);
	char		width[8];
	char		cnt[16];
	const char *params[5] = {token, key, width, cnt, ids_json};
	PGresult   *res;
	int			rc;

	if (conn == NULL)
		return -1;
	snprintf(width, sizeof(width), "%d", want128 ? 128 : 64);
	snprintf(cnt, sizeof(cnt), "%d", count);
	/* an expired record not yet purged is replaced; a live one wins */
	res = pool_query(conn,
					 "INSERT INTO idgen.gateway_request AS r (token, request_key, width, count, ids) "
					 "VALUES ($1, $2, $3::smallint, $4::integer, $5) "
					 "ON CONFLICT (token, request_key) DO UPDATE "
					 "SET width = excluded.width, count = excluded.count, ids = excluded.ids, "
					 "created_at = excluded.created_at "
					 "WHERE r.created_at < pg_catalog.clock_timestamp() - idgen.request_retention() "
					 "RETURNING 1",
					 5, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		sql_error_answer(conn, res, answer);
		PQclear(res);
		pool_put(conn);
		return -1;
	}
	rc = PQntuples(res) == 1 ? 1 : 0;
	PQclear(res);
	if (rc == 0)
	{
		res = pool_query(conn,
						 "SELECT width, count, ids FROM idgen.gateway_request "
						 "WHERE token = $1 AND request_key = $2", 2, params);
		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		{
			sql_error_answer(conn, res, answer);
			rc = -1;
		}
		else
			rc = stored_answer(res, count, want128, stored, answer) == 1 ? 0 : -1;
		PQclear(res);
	}
	pool_put(conn);
	return rc;
}

static void
json_query(const char *sql, int n, const char *const *params, GwAnswer *answer)
{
	PGconn	   *conn = pool_get(answer);
	PGresult   *res;

	if (conn == NULL)
		return;
	res = pool_query(conn, sql, n, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		sql_error_answer(conn, res, answer);
	else
	{
		answer->status = 200;
		answer->body = strdup(PQgetvalue(res, 0, 0));
	}
	PQclear(res);
	pool_put(conn);
}

void
gw_registry_worker_lease(const GwWorkerLeaseRequest *req, GwAnswer *answer)
{
	char		ttl[32];
	const char *params[2] = {req->owner, ttl};

	snprintf(ttl, sizeof(ttl), "%lld",
			 (long long) (req->ttl_ms >= 0 ? req->ttl_ms : gw_opt.lease_ttl_ms));
	json_query("SELECT pg_catalog.json_build_object('region', region, 'worker', worker, "
			   "'generation', generation, 'lease_until', lease_until)::text "
			   "FROM idgen_lease_worker($1, $2::bigint * interval '1 ms')",
			   2, params, answer);
}

void
gw_registry_range_lease(const GwRangeLeaseRequest *req, GwAnswer *answer)
{
	char		count[32];
	const char *params[3] = {req->owner, count,
	req->has_request_key ? req->request_key : NULL};

	snprintf(count, sizeof(count), "%lld", (long long) req->count);
	/* the range's ends as decimal strings, as every ID here */
	json_query("SELECT pg_catalog.json_build_object('range_start', range_start::text, "
			   "'range_end', range_end::text, 'generation', generation)::text "
			   "FROM idgen_lease_range($1, $2::bigint, $3)",
			   3, params, answer);
}
