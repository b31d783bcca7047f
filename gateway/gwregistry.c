/*
 * gwregistry.c - what idgen-gateway says to the registry (gateway.h)
 *
 * The connections: the lease path's (gwlease.c) and the request path's
 * (gwpool.c) are opened here.  Every session is bounded by --registry-timeout
 * (gw_registry_connect), and one that answered it cannot write is closed
 * (gw_registry_result_drops_connection).  Every
 * time travels as Unix milliseconds, so neither side's TimeZone matters;
 * sessions run with TimeZone UTC for the timestamps the admin endpoints
 * return.
 */
#include "gateway.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpq-fe.h"

#include "fleet.h"
#include "idtext.h"

static char registry_where[256];

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
	char		rnd_hex[2 * sizeof(rnd) + 1];

	idgen_conninfo_display(gw_opt.registry, registry_where, sizeof(registry_where));
	if (!gw_random_bytes(rnd, sizeof(rnd)))
	{
		snprintf(err, err_len, "cannot read random bytes: getrandom() failed: %s", strerror(errno));
		return -1;
	}
	idgen_hex_encode(rnd, sizeof(rnd), rnd_hex);
	snprintf(owner_base, sizeof(owner_base), "gateway:%s:%s", gw_opt.name, rnd_hex);
	return 0;
}

/* the first line of a failed result's message */

const char *
gw_registry_owner(void)
{
	return owner_base;
}
