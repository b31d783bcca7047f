/*
 * registry.c - the background worker's statements to the lease registry
 *
 * Local registry (idgen.registry empty): SPI in this instance's
 * idgen.database, one transaction per unit of work.
 *
 * Remote registry: one libpq connection of the background worker's own,
 * used without ever blocking on the network.  Connecting and every
 * statement wait on the latch and the socket together with a deadline, so
 * SIGTERM, postmaster death and a registry that stopped answering all end
 * the wait: a registry that is down must cost the node its lease (the
 * generator stops at the lease's end by itself), never its ability to shut
 * down.  Keepalives and a server-side statement_timeout bound what the
 * registry does with a request whose node has given up on it.
 */
#include "base.h"

#include <time.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "core/clockms.h"
#include "core/fleet.h"
#include "registry.h"

/* a request to the remote registry gives up after this long */
#define REGISTRY_MIN_TIMEOUT_MS 1000
#define REGISTRY_MAX_TIMEOUT_MS 10000
/* a wait for the remote registry wakes this often for the caller's upkeep */
#define REGISTRY_WAIT_STEP_MS 100

static PGconn *conn = NULL;
static bool (*stop_check) (void) = NULL;
static void (*wait_hook) (void) = NULL;
static bool aborting = false;	/* in registry_abort(): no upkeep, no errors */
static bool final_phase = false;
static int	final_timeout_ms = 0;
static MemoryContext result_cxt = NULL;
/* the context local_begin() was called in, current again after the commit */
static MemoryContext local_caller_cxt = NULL;
/* why the last low-level remote call failed */
static char remote_error[512];


void
registry_init(bool (*should_stop) (void), void (*while_waiting) (void))
{
	stop_check = should_stop;
	wait_hook = while_waiting;
}


static int64
mono_ms(void)
{
	return idgen_clock_ms(CLOCK_MONOTONIC);
}

/*
 * How long one request may take: a quarter of the lease, so a hung
 * registry leaves time to retry before the lease runs out.
 */
static int
request_timeout_ms(void)
{
	int			t = idgen_lease_ttl_ms / 4;

	if (final_phase)
		return final_timeout_ms;
	return Max(REGISTRY_MIN_TIMEOUT_MS, Min(REGISTRY_MAX_TIMEOUT_MS, t));
}

/* ---------------------------------------------------------------------
 * Local: SPI in idgen.database
 * --------------------------------------------------------------------- */

void
local_begin(const char *activity)
{
	local_caller_cxt = CurrentMemoryContext;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, activity);
}

void
local_commit(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	/*
	 * The commit leaves TopMemoryContext current, where what the caller
	 * allocates next would stay for the process's life: back to the
	 * context the transaction was begun in (the worker's step context).
	 */
	MemoryContextSwitchTo(local_caller_cxt);
	pgstat_report_activity(STATE_IDLE, NULL);
}

static RegistryRows *
local_exec(const char *sql, int nparams, const char *const *params)
{
	Oid		   *types = NULL;
	Datum	   *values = NULL;
	char	   *nulls = NULL;
	RegistryRows *rows;
	MemoryContext old;
	int			rc;
	int			i;

	if (nparams > 0)
	{
		types = palloc(nparams * sizeof(Oid));
		values = palloc(nparams * sizeof(Datum));
		nulls = palloc(nparams * sizeof(char));
		for (i = 0; i < nparams; i++)
		{
			types[i] = TEXTOID;
			nulls[i] = params[i] ? ' ' : 'n';
			values[i] = params[i] ? CStringGetTextDatum(params[i]) : (Datum) 0;
		}
	}
	rc = SPI_execute_with_args(sql, nparams, types, values, nulls, false, 0);
	if (rc < 0)
		elog(ERROR, "idgen: \"%s\" failed: %s", sql, SPI_result_code_string(rc));

	/* the rows outlive the transaction: copy them out of SPI's memory */
	old = MemoryContextSwitchTo(result_cxt);
	rows = palloc0(sizeof(RegistryRows));
	if (SPI_tuptable != NULL)
	{
		int			ncols = SPI_tuptable->tupdesc->natts;
		int			r;

		rows->nrows = (int) SPI_processed;
		rows->ncols = ncols;
		rows->values = palloc0(Max(1, rows->nrows * ncols) * sizeof(char *));
		for (r = 0; r < rows->nrows; r++)
			for (i = 0; i < ncols; i++)
			{
				char	   *v = SPI_getvalue(SPI_tuptable->vals[r],
											 SPI_tuptable->tupdesc, i + 1);

				rows->values[r * ncols + i] = v ? pstrdup(v) : NULL;
			}
	}
	MemoryContextSwitchTo(old);
	return rows;
}

/* ---------------------------------------------------------------------
 * Remote: the worker's own libpq connection
 *
 * The low-level calls below never raise an error: they return false with
 * the reason in remote_error, so registry_abort() can use them from an
 * error handler.
 * --------------------------------------------------------------------- */

static void
remote_drop(void)
{
	if (conn != NULL)
	{
		PQfinish(conn);
		ReleaseExternalFD();
		conn = NULL;
	}
}

static void
set_remote_error(const char *what, const char *detail)
{
	char		msg[400];
	int			n;

	strlcpy(msg, detail ? detail : "", sizeof(msg));
	/* libpq's messages end in a newline */
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	snprintf(remote_error, sizeof(remote_error), "%s%s%s", what,
			 msg[0] ? ": " : "", msg);
}

/*
 * Wait until the socket is ready for events, the deadline passes, or the
 * worker is told to stop.
 */
static bool
remote_wait(int events, int64 deadline)
{
	for (;;)
	{
		int64		left = deadline - mono_ms();
		int			rc;

		if (!final_phase && stop_check && stop_check())
		{
			set_remote_error("shutting down", NULL);
			return false;
		}
		if (left <= 0)
		{
			set_remote_error("the registry did not answer in time", NULL);
			return false;
		}
		/* the node issues on meanwhile: wake every step for its upkeep */
		if (wait_hook && !final_phase && !aborting)
			wait_hook();
		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
							   PQsocket(conn), Min(left, REGISTRY_WAIT_STEP_MS),
							   PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
			ResetLatch(MyLatch);
		if (rc & events)
			return true;
	}
}

static bool
remote_connect(void)
{
	/*
	 * The user's string comes after the keepalive settings, so it may
	 * override them; application_name only if it names none.  read-write:
	 * of the hosts a string lists, the one that can grant leases, never a
	 * standby or an old primary demoted to one.
	 */
	const char *keys[] = {"keepalives", "keepalives_idle", "keepalives_interval",
		"keepalives_count", "target_session_attrs", "dbname", "fallback_application_name", NULL};
	const char *vals[] = {"1", "5", "2", "3", "read-write", idgen_registry,
	"idgen lease worker", NULL};
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	int64		deadline = mono_ms() + request_timeout_ms();

	if (!AcquireExternalFD())
	{
		set_remote_error("too many open files to connect to the registry", NULL);
		return false;
	}
	conn = PQconnectStartParams(keys, vals, 1);
	if (conn == NULL)
	{
		ReleaseExternalFD();
		set_remote_error("out of memory connecting to the registry", NULL);
		return false;
	}
	while (st != PGRES_POLLING_OK)
	{
		if (PQstatus(conn) == CONNECTION_BAD || st == PGRES_POLLING_FAILED)
		{
			set_remote_error("could not connect to the registry", PQerrorMessage(conn));
			remote_drop();
			return false;
		}
		if (!remote_wait(st == PGRES_POLLING_READING ? WL_SOCKET_READABLE :
						 WL_SOCKET_WRITEABLE, deadline))
		{
			remote_drop();
			return false;
		}
		st = PQconnectPoll(conn);
	}
	return true;
}

/*
 * A member that answers it cannot write (25006: a standby, or an old
 * primary demoted and still reachable) keeps doing so: the connection is
 * closed, and the next one (target_session_attrs=read-write) finds the
 * member that can.  A connection that stayed would fail every renewal
 * until the lease ran out.
 */
static bool
remote_read_only(PGresult *res)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	const char *standby = PQparameterStatus(conn, "in_hot_standby");
	const char *ro = PQparameterStatus(conn, "default_transaction_read_only");

	return (state != NULL && strcmp(state, "25006") == 0) ||
		(standby != NULL && strcmp(standby, "on") == 0) ||
		(ro != NULL && strcmp(ro, "on") == 0);
}

/*
 * Send one statement and collect its result.  Returns the last result (the
 * caller clears it), or NULL with remote_error set.  A connection that
 * failed or timed out is dropped.
 */
static PGresult *
remote_run(const char *sql, int nparams, const char *const *params)
{
	int64		deadline = mono_ms() + request_timeout_ms();
	PGresult   *last = NULL;
	PGresult   *res;
	bool		sent;

	if (nparams > 0)
		sent = PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);
	else
		sent = PQsendQuery(conn, sql);
	if (!sent)
	{
		set_remote_error("could not send to the registry", PQerrorMessage(conn));
		remote_drop();
		return NULL;
	}
	for (;;)
	{
		while (PQisBusy(conn))
		{
			if (!remote_wait(WL_SOCKET_READABLE, deadline))
			{
				/* the registry sees the closed socket and rolls back */
				if (last)
					PQclear(last);
				remote_drop();
				return NULL;
			}
			if (!PQconsumeInput(conn))
			{
				set_remote_error("lost the connection to the registry",
								 PQerrorMessage(conn));
				if (last)
					PQclear(last);
				remote_drop();
				return NULL;
			}
		}
		res = PQgetResult(conn);
		if (res == NULL)
			break;
		/* keep the first error; later results of the string are moot */
		if (last != NULL && PQresultStatus(last) == PGRES_FATAL_ERROR)
			PQclear(res);
		else
		{
			if (last)
				PQclear(last);
			last = res;
		}
	}
	if (last == NULL)
	{
		set_remote_error("no result from the registry", PQerrorMessage(conn));
		remote_drop();
		return NULL;
	}
	if (PQresultStatus(last) != PGRES_TUPLES_OK &&
		PQresultStatus(last) != PGRES_COMMAND_OK)
	{
		const char *primary = PQresultErrorField(last, PG_DIAG_MESSAGE_PRIMARY);

		set_remote_error("the registry refused", primary ? primary :
						 PQresultErrorMessage(last));
		if (PQstatus(conn) == CONNECTION_BAD || remote_read_only(last))
			remote_drop();
		/* a failed statement still answers: hand the error back */
		return last;
	}
	return last;
}

static void
remote_raise(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("idgen registry (%s): %s", registry_display(), remote_error)));
}

/* raise the registry's own error, SQLSTATE and all */
static void
remote_raise_result(PGresult *res)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
	const char *hint = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT);
	int			code = ERRCODE_CONNECTION_FAILURE;
	char	   *msg = pstrdup(primary ? primary : PQresultErrorMessage(res));
	char	   *det = detail ? pstrdup(detail) : NULL;
	char	   *hin = hint ? pstrdup(hint) : NULL;

	if (state && strlen(state) == 5)
		code = MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4]);
	PQclear(res);
	ereport(ERROR,
			(errcode(code),
			 errmsg("idgen registry (%s): %s", registry_display(), msg),
			 det ? errdetail_internal("%s", det) : 0,
			 hin ? errhint("%s", hin) : 0));
}

static void
remote_command(const char *sql)
{
	PGresult   *res = remote_run(sql, 0, NULL);

	if (res == NULL)
		remote_raise();
	if (PQresultStatus(res) != PGRES_COMMAND_OK &&
		PQresultStatus(res) != PGRES_TUPLES_OK)
		remote_raise_result(res);
	PQclear(res);
}

static void
remote_ensure_connected(void)
{
	char		settings[300];
	int			timeout = request_timeout_ms();

	if (conn != NULL && PQstatus(conn) == CONNECTION_OK)
		return;
	remote_drop();
	if (!remote_connect())
		remote_raise();

	/*
	 * The registry gives up on a statement a little before the node does,
	 * and on a transaction the node left open.  Commits keep the
	 * registry's own synchronous_commit: with synchronous standbys a grant
	 * is on them before the node trusts it (R6, docs/concepts.md).
	 */
	snprintf(settings, sizeof(settings),
			 "SET statement_timeout = %d; SET lock_timeout = %d; "
			 "SET idle_in_transaction_session_timeout = %d",
			 Max(timeout - 200, 500), Max(timeout / 2, 250), Max(timeout * 2, 5000));
	remote_command(settings);
	ereport(LOG,
			(errmsg("idgen: connected to the registry (%s)", registry_display())));
}

static RegistryRows *
remote_exec(const char *sql, int nparams, const char *const *params)
{
	PGresult   *res = remote_run(sql, nparams, params);
	RegistryRows *rows;
	int			r;
	int			c;

	if (res == NULL)
		remote_raise();
	if (PQresultStatus(res) != PGRES_TUPLES_OK &&
		PQresultStatus(res) != PGRES_COMMAND_OK)
		remote_raise_result(res);

	rows = palloc0(sizeof(RegistryRows));
	rows->nrows = PQntuples(res);
	rows->ncols = PQnfields(res);
	rows->values = palloc0(Max(1, rows->nrows * rows->ncols) * sizeof(char *));
	for (r = 0; r < rows->nrows; r++)
		for (c = 0; c < rows->ncols; c++)
			if (!PQgetisnull(res, r, c))
				rows->values[r * rows->ncols + c] = pstrdup(PQgetvalue(res, r, c));
	PQclear(res);
	return rows;
}

/* ---------------------------------------------------------------------
 * The interface
 * --------------------------------------------------------------------- */

void
registry_begin(const char *activity)
{
	result_cxt = CurrentMemoryContext;
	if (!registry_is_remote())
	{
		local_begin(activity);
		return;
	}
	pgstat_report_activity(STATE_RUNNING, activity);
	remote_ensure_connected();
	remote_command("BEGIN");
}

RegistryRows *
registry_exec(const char *sql, int nparams, const char *const *params)
{
	if (!registry_is_remote())
		return local_exec(sql, nparams, params);
	return remote_exec(sql, nparams, params);
}

void
registry_commit(void)
{
	if (!registry_is_remote())
	{
		local_commit();
		return;
	}
	remote_command("COMMIT");
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * After an error: the caller aborts the local transaction itself; a remote
 * transaction is rolled back, or its connection closed if that fails.
 */
void
registry_abort(void)
{
	if (conn == NULL)
		return;
	if (PQstatus(conn) != CONNECTION_OK)
	{
		remote_drop();
		return;
	}
	if (PQtransactionStatus(conn) != PQTRANS_IDLE)
	{
		PGresult   *res;

		aborting = true;
		res = remote_run("ROLLBACK", 0, NULL);
		aborting = false;
		if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK)
			remote_drop();
		if (res)
			PQclear(res);
	}
}

/* a connection to a shared registry that is still up */
bool
registry_connected(void)
{
	return conn != NULL && PQstatus(conn) == CONNECTION_OK;
}

void
registry_close(void)
{
	remote_drop();
}

void
registry_set_final(int timeout_ms)
{
	/* 0: back to the usual waits (a node moved, not stopping) */
	final_phase = timeout_ms > 0;
	final_timeout_ms = timeout_ms;
}
