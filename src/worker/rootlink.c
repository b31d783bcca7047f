/*
 * rootlink.c - a regional registry's libpq connection to its root
 *
 * See rootlink.h.  The connection is the background worker's own (not
 * registry.c's, which is SPI on this registry), and every wait on it is
 * bounded and keeps the node's own mark up meanwhile.
 */
#include "worker.h"

#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/latch.h"

#include "core/clockms.h"
#include "lease.h"
#include "rootlink.h"
#include "settings.h"

/* how often a wait for the root wakes for the node's upkeep */
#define ROOTLINK_WAIT_STEP_MS 100

char		rootlink_error[400];
char		rootlink_state[6];
char		rootlink_schema[2 * NAMEDATALEN + 3];

static PGconn *root = NULL;
static bool (*stop_check) (void) = NULL;
static bool final_phase = false;
static IdgenWorker *upkeep = NULL;

void
rootlink_init(bool (*should_stop) (void))
{
	stop_check = should_stop;
}

void
rootlink_set_upkeep(IdgenWorker *w)
{
	upkeep = w;
}

void
rootlink_set_final(void)
{
	final_phase = true;
}

const char *
rootlink_display(void)
{
	static char buf[300];

	(void) idgen_conninfo_display(idgen_parent_registry, buf, sizeof(buf));
	return buf;
}

void
rootlink_drop(void)
{
	if (root != NULL)
	{
		PQfinish(root);
		ReleaseExternalFD();
		root = NULL;
	}
}

void
rootlink_set_error(const char *what, const char *detail, const char *state)
{
	char		msg[300];
	int			n;

	strlcpy(msg, detail ? detail : "", sizeof(msg));
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	snprintf(rootlink_error, sizeof(rootlink_error), "%s%s%s", what, msg[0] ? ": " : "", msg);
	strlcpy(rootlink_state, state ? state : "", sizeof(rootlink_state));
}

static bool
rootlink_wait(int events, int64 deadline)
{
	for (;;)
	{
		int64		left = deadline - idgen_clock_ms(CLOCK_MONOTONIC);
		int			rc;

		if (!final_phase && stop_check && stop_check())
		{
			rootlink_set_error("shutting down", NULL, NULL);
			return false;
		}
		if (left <= 0)
		{
			rootlink_set_error("the root registry did not answer in time", NULL, NULL);
			return false;
		}
		/* the node issues on meanwhile: its own mark stays ahead */
		if (upkeep != NULL && !final_phase)
			lease_keep(upkeep);
		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
							   PQsocket(root), Min(left, ROOTLINK_WAIT_STEP_MS),
							   PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
			ResetLatch(MyLatch);
		if (rc & events)
			return true;
	}
}

static bool
rootlink_connect(void)
{
	/*
	 * The user's string comes after ours and may override them; the server
	 * gives up on a statement before we do.  read-write: of the hosts a
	 * string lists, the root's primary.
	 */
	const char *keys[] = {"keepalives", "keepalives_idle", "keepalives_interval",
		"keepalives_count", "target_session_attrs", "options", "dbname",
	"fallback_application_name", NULL};
	const char *vals[] = {"1", "5", "2", "3", "read-write",
		"-c statement_timeout=1500 -c lock_timeout=1000 -c idle_in_transaction_session_timeout=5000 -c datestyle=ISO",
	idgen_parent_registry, "idgen region lease worker", NULL};
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	int64		deadline = idgen_clock_ms(CLOCK_MONOTONIC) + ROOTLINK_CALL_TIMEOUT_MS;
	PGresult   *res;

	if (!AcquireExternalFD())
	{
		rootlink_set_error("too many open files to connect to the root registry", NULL, NULL);
		return false;
	}
	root = PQconnectStartParams(keys, vals, 1);
	if (root == NULL)
	{
		ReleaseExternalFD();
		rootlink_set_error("out of memory connecting to the root registry", NULL, NULL);
		return false;
	}
	while (st != PGRES_POLLING_OK)
	{
		if (PQstatus(root) == CONNECTION_BAD || st == PGRES_POLLING_FAILED)
		{
			rootlink_set_error("could not connect to the root registry", PQerrorMessage(root), NULL);
			rootlink_drop();
			return false;
		}
		if (!rootlink_wait(st == PGRES_POLLING_READING ? WL_SOCKET_READABLE :
					   WL_SOCKET_WRITEABLE, deadline))
		{
			rootlink_drop();
			return false;
		}
		st = PQconnectPoll(root);
	}

	/* where the root's region lease functions are */
	res = rootlink_run("SELECT quote_ident(n.nspname) FROM pg_catalog.pg_extension AS e "
				   "JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace "
				   "WHERE e.extname = 'idgen'", 0, NULL);
	if (res == NULL)
		return false;
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		rootlink_set_error("the root registry has no idgen extension in that database", NULL, NULL);
		PQclear(res);
		rootlink_drop();
		return false;
	}
	strlcpy(rootlink_schema, PQgetvalue(res, 0, 0), sizeof(rootlink_schema));
	PQclear(res);
	ereport(LOG,
			(errmsg("idgen: connected to the root registry (%s)", rootlink_display())));
	return true;
}

/* one statement; its result (the caller clears it), or NULL with rootlink_error */
PGresult *
rootlink_run(const char *sql, int nparams, const char *const *params)
{
	int64		deadline = idgen_clock_ms(CLOCK_MONOTONIC) + ROOTLINK_CALL_TIMEOUT_MS;
	PGresult   *last = NULL;
	PGresult   *res;

	if (!PQsendQueryParams(root, sql, nparams, NULL, params, NULL, NULL, 0))
	{
		rootlink_set_error("could not send to the root registry", PQerrorMessage(root), NULL);
		rootlink_drop();
		return NULL;
	}
	for (;;)
	{
		while (PQisBusy(root))
		{
			if (!rootlink_wait(WL_SOCKET_READABLE, deadline) || !PQconsumeInput(root))
			{
				if (rootlink_error[0] == '\0' || PQstatus(root) == CONNECTION_BAD)
					rootlink_set_error("lost the connection to the root registry",
								   PQerrorMessage(root), NULL);
				if (last)
					PQclear(last);
				rootlink_drop();
				return NULL;
			}
		}
		res = PQgetResult(root);
		if (res == NULL)
			break;
		if (last)
			PQclear(last);
		last = res;
	}
	if (last == NULL)
	{
		rootlink_set_error("no result from the root registry", PQerrorMessage(root), NULL);
		rootlink_drop();
		return NULL;
	}
	return last;
}

bool
rootlink_ensure(void)
{
	rootlink_error[0] = '\0';
	rootlink_state[0] = '\0';
	if (root != NULL && PQstatus(root) != CONNECTION_OK)
		rootlink_drop();
	return root != NULL || rootlink_connect();
}

/*
 * One statement of one row: its values (palloc'd, NULL for SQL NULL) in
 * out[0..nout-1], or false with rootlink_error and rootlink_state (the SQLSTATE of
 * a refusal, "" when there was no answer).
 */
bool
rootlink_query(const char *sql, int nparams, const char *const *params,
		   char **out, int nout)
{
	PGresult   *res;
	int			i;

	if (!rootlink_ensure())
		return false;
	res = rootlink_run(sql, nparams, params);
	if (res == NULL)
		return false;
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

		rootlink_set_error("the root registry refused",
					   primary ? primary : PQresultErrorMessage(res),
					   PQresultErrorField(res, PG_DIAG_SQLSTATE));
		if (PQstatus(root) == CONNECTION_BAD || strcmp(rootlink_state, "25006") == 0)
			rootlink_drop();
		PQclear(res);
		return false;
	}
	if (PQntuples(res) != 1 || PQnfields(res) < nout)
	{
		rootlink_set_error("the root registry answered an unexpected result", NULL, NULL);
		PQclear(res);
		return false;
	}
	for (i = 0; i < nout; i++)
		out[i] = PQgetisnull(res, 0, i) ? NULL : pstrdup(PQgetvalue(res, 0, i));
	PQclear(res);
	return true;
}

