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

static PGconn *lease_conn;
static char registry_where[256];

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER;
static PGconn **pool;
static int	pool_free;			/* pool[0 .. pool_free - 1] are idle (may be NULL) */

/* the owner names of this run: a copy or a restart is always a new owner */
static char owner_base[160];

PGconn *
gw_registry_connect(char *err, size_t err_len)
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
		snprintf(owner_base + strlen(owner_base), 3, "%02x", rnd[i]);
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
		conn = gw_registry_connect(err, sizeof(err));
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
