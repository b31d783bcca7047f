/*
 * regionlease.c - a regional registry's region leases from its root
 *
 * The regional half of G1-G5 (docs/regions.md): each owned region is
 * leased from the root under one owner name, idgen.region_owner() (the
 * system identifier, which a Patroni cluster's members share, and the
 * cluster_name), so a restart or a failover gets its running lease back.
 * Its validity is counted here on CLOCK_BOOTTIME from the sending of the
 * request, request + ttl - margin (the root grants exactly the ttl asked),
 * and written to idgen.held_region by the wall clock for the lease
 * functions; a wall clock that steps back lowers the written end, one that
 * steps ahead only shortens it.  A lease that ran out here is never
 * renewed: it is leased anew, and the root decides.
 *
 * At start the rows of the owned regions are reset to "not held" (a new
 * monotonic clock, G5): the lease functions grant nothing there until the
 * first answer of the root.  Rows of regions no longer owned are deleted.
 *
 * One call to the root per step at most; every failure waits a backoff
 * (1 s doubling, at most a twentieth of the ttl) and is logged once.
 * Local statements go through registry.c, which is SPI on a registry
 * (idgen.registry empty, the only kind that leases regions).
 */
#include "worker.h"

#include "access/xact.h"
#include "libpq-fe.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "core/clockms.h"
#include "core/leaseclient.h"
#include "lease.h"
#include "leaseanswer.h"
#include "registry.h"
#include "regionlease.h"
#include "settings.h"

/* how often a wait for the root wakes for the node's upkeep */
#define REGIONLEASE_WAIT_STEP_MS 100
#define REGIONLEASE_BACKOFF_MIN_MS 1000
#define REGIONLEASE_BACKOFF_MAX_MS 30000
/* how often start-up looks again for an extension too old or missing */
#define REGIONLEASE_RECHECK_MS 1000

typedef struct HeldRegion
{
	int			region;
	bool		held;			/* leased, and valid by this registry's clock */
	int64		generation;
	int64		ttl_ms;			/* granted: each renewal runs it again at the root */
	int64		valid_boot_ms;	/* the validity's end on CLOCK_BOOTTIME */
	int64		valid_wall_ms;	/* the same end as written, by the wall clock */
	int64		sent_boot_ms;	/* sending of the last answered request */
	int64		next_attempt_boot_ms;
	int64		backoff_ms;
	char		last_error[256];
} HeldRegion;

static HeldRegion held[IDGEN_MAX_OWNED_REGIONS];
static int	nheld = 0;
static int	next_region = 0;	/* round robin over the owned regions */
static bool started = false;	/* start-up done (active or not) */
static bool active = false;		/* a parent is set and idgen.held_region is there */
static int64 next_check_boot_ms = 0;
static bool logged_old = false;
static char owner_name[128];
static char root_schema[2 * NAMEDATALEN + 3];	/* the root's extension schema, quoted */

static PGconn *root = NULL;
static bool (*stop_check) (void) = NULL;
static bool final_phase = false;
static IdgenWorker *upkeep = NULL;
static char root_error[400];
static char root_state[6];
static char last_failure[256];

static int64
boot_ms(void)
{
	return idgen_clock_ms(CLOCK_BOOTTIME);
}

static char *
int_text(int64 v)
{
	return psprintf(INT64_FORMAT, v);
}

static const char *
root_display(void)
{
	static char buf[300];

	(void) idgen_conninfo_display(idgen_parent_registry, buf, sizeof(buf));
	return buf;
}

void
regionlease_init(bool (*should_stop) (void))
{
	stop_check = should_stop;
}

/* ---------------------------------------------------------------------
 * The root: the module's own libpq connection, every wait bounded.  These
 * calls never raise an error: they return false with root_error set.
 * --------------------------------------------------------------------- */

static void
root_drop(void)
{
	if (root != NULL)
	{
		PQfinish(root);
		ReleaseExternalFD();
		root = NULL;
	}
}

static void
set_root_error(const char *what, const char *detail, const char *state)
{
	char		msg[300];
	int			n;

	strlcpy(msg, detail ? detail : "", sizeof(msg));
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	snprintf(root_error, sizeof(root_error), "%s%s%s", what, msg[0] ? ": " : "", msg);
	strlcpy(root_state, state ? state : "", sizeof(root_state));
}

static bool
root_wait(int events, int64 deadline)
{
	for (;;)
	{
		int64		left = deadline - idgen_clock_ms(CLOCK_MONOTONIC);
		int			rc;

		if (!final_phase && stop_check && stop_check())
		{
			set_root_error("shutting down", NULL, NULL);
			return false;
		}
		if (left <= 0)
		{
			set_root_error("the root registry did not answer in time", NULL, NULL);
			return false;
		}
		/* the node issues on meanwhile: its own mark stays ahead */
		if (upkeep != NULL && !final_phase)
			lease_keep(upkeep);
		rc = WaitLatchOrSocket(MyLatch,
							   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events,
							   PQsocket(root), Min(left, REGIONLEASE_WAIT_STEP_MS),
							   PG_WAIT_EXTENSION);
		if (rc & WL_LATCH_SET)
			ResetLatch(MyLatch);
		if (rc & events)
			return true;
	}
}

static PGresult *root_run(const char *sql, int nparams, const char *const *params);

static bool
root_connect(void)
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
		"-c statement_timeout=1500 -c lock_timeout=1000 -c idle_in_transaction_session_timeout=5000",
	idgen_parent_registry, "idgen region lease worker", NULL};
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	int64		deadline = idgen_clock_ms(CLOCK_MONOTONIC) + REGIONLEASE_CALL_TIMEOUT_MS;
	PGresult   *res;

	if (!AcquireExternalFD())
	{
		set_root_error("too many open files to connect to the root registry", NULL, NULL);
		return false;
	}
	root = PQconnectStartParams(keys, vals, 1);
	if (root == NULL)
	{
		ReleaseExternalFD();
		set_root_error("out of memory connecting to the root registry", NULL, NULL);
		return false;
	}
	while (st != PGRES_POLLING_OK)
	{
		if (PQstatus(root) == CONNECTION_BAD || st == PGRES_POLLING_FAILED)
		{
			set_root_error("could not connect to the root registry", PQerrorMessage(root), NULL);
			root_drop();
			return false;
		}
		if (!root_wait(st == PGRES_POLLING_READING ? WL_SOCKET_READABLE :
					   WL_SOCKET_WRITEABLE, deadline))
		{
			root_drop();
			return false;
		}
		st = PQconnectPoll(root);
	}

	/* where the root's region lease functions are */
	res = root_run("SELECT quote_ident(n.nspname) FROM pg_catalog.pg_extension AS e "
				   "JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace "
				   "WHERE e.extname = 'idgen'", 0, NULL);
	if (res == NULL)
		return false;
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		set_root_error("the root registry has no idgen extension in that database", NULL, NULL);
		PQclear(res);
		root_drop();
		return false;
	}
	strlcpy(root_schema, PQgetvalue(res, 0, 0), sizeof(root_schema));
	PQclear(res);
	ereport(LOG,
			(errmsg("idgen: connected to the root registry (%s)", root_display())));
	return true;
}

/* one statement; its result (the caller clears it), or NULL with root_error */
static PGresult *
root_run(const char *sql, int nparams, const char *const *params)
{
	int64		deadline = idgen_clock_ms(CLOCK_MONOTONIC) + REGIONLEASE_CALL_TIMEOUT_MS;
	PGresult   *last = NULL;
	PGresult   *res;

	if (!PQsendQueryParams(root, sql, nparams, NULL, params, NULL, NULL, 0))
	{
		set_root_error("could not send to the root registry", PQerrorMessage(root), NULL);
		root_drop();
		return NULL;
	}
	for (;;)
	{
		while (PQisBusy(root))
		{
			if (!root_wait(WL_SOCKET_READABLE, deadline) || !PQconsumeInput(root))
			{
				if (root_error[0] == '\0' || PQstatus(root) == CONNECTION_BAD)
					set_root_error("lost the connection to the root registry",
								   PQerrorMessage(root), NULL);
				if (last)
					PQclear(last);
				root_drop();
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
		set_root_error("no result from the root registry", PQerrorMessage(root), NULL);
		root_drop();
		return NULL;
	}
	return last;
}

/*
 * One statement of one row: its values (palloc'd, NULL for SQL NULL) in
 * out[0..nout-1], or false with root_error and root_state (the SQLSTATE of
 * a refusal, "" when there was no answer).
 */
static bool
root_query(const char *sql, int nparams, const char *const *params,
		   char **out, int nout)
{
	PGresult   *res;
	int			i;

	root_error[0] = '\0';
	root_state[0] = '\0';
	if (root != NULL && PQstatus(root) != CONNECTION_OK)
		root_drop();
	if (root == NULL && !root_connect())
		return false;
	res = root_run(sql, nparams, params);
	if (res == NULL)
		return false;
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

		set_root_error("the root registry refused",
					   primary ? primary : PQresultErrorMessage(res),
					   PQresultErrorField(res, PG_DIAG_SQLSTATE));
		if (PQstatus(root) == CONNECTION_BAD || strcmp(root_state, "25006") == 0)
			root_drop();
		PQclear(res);
		return false;
	}
	if (PQntuples(res) != 1 || PQnfields(res) < nout)
	{
		set_root_error("the root registry answered an unexpected result", NULL, NULL);
		PQclear(res);
		return false;
	}
	for (i = 0; i < nout; i++)
		out[i] = PQgetisnull(res, 0, i) ? NULL : pstrdup(PQgetvalue(res, 0, i));
	PQclear(res);
	return true;
}

/* ---------------------------------------------------------------------
 * idgen.held_region, in this registry's idgen.database
 * --------------------------------------------------------------------- */

static void
local_run(const char *activity, const char *sql, int nparams, const char *const *params)
{
	registry_begin(activity);
	(void) registry_exec(sql, nparams, params);
	registry_commit();
}

static void
note_failure(HeldRegion *r, const char *what)
{
	char		msg[256];
	const char *p[2];
	int64		cap = Max(REGIONLEASE_BACKOFF_MIN_MS,
						  Min(REGIONLEASE_BACKOFF_MAX_MS,
							  (int64) idgen_region_lease_ttl_s * 1000 / 20));

	snprintf(msg, sizeof(msg), "%s: %s", what, root_error);
	r->backoff_ms = r->backoff_ms == 0 ? REGIONLEASE_BACKOFF_MIN_MS :
		Min(r->backoff_ms * 2, cap);
	r->next_attempt_boot_ms = boot_ms() + r->backoff_ms;
	if (strcmp(msg, r->last_error) != 0)
		ereport(LOG,
				(errmsg("idgen: region %d: %s (root registry %s)", r->region, msg,
						root_display())));
	strlcpy(r->last_error, msg, sizeof(r->last_error));
	p[0] = int_text(r->region);
	p[1] = msg;
	local_run("idgen: recording a region lease failure",
			  "UPDATE idgen.held_region SET last_error = $2 WHERE region = $1::integer",
			  2, p);
}

/* the region is not held any more: the lease functions refuse there */
static void
note_not_held(HeldRegion *r, const char *why)
{
	const char *p[2];

	r->held = false;
	p[0] = int_text(r->region);
	p[1] = why;
	local_run("idgen: recording a region lease lost",
			  "UPDATE idgen.held_region SET generation = NULL, valid_until = NULL, "
			  "last_error = $2 WHERE region = $1::integer", 2, p);
}

/* the highest mark of the region's node and outside leases here */
static char *
region_mark(int region, bool final)
{
	const char *p[1];
	RegistryRows *rows;
	char	   *mark;

	p[0] = int_text(region);
	registry_begin("idgen: reading a region's mark");
	rows = registry_exec(final ?
						 "SELECT " SQL_MS("max(greatest(l.high_water, CASE WHEN l.owner IS NOT NULL "
										  "THEN l.lease_until + coalesce(l.drift_allowance, interval '0') END))")
						 " FROM idgen.worker_lease AS l WHERE l.region = $1::integer" :
						 "SELECT " SQL_MS("max(l.high_water)")
						 " FROM idgen.worker_lease AS l WHERE l.region = $1::integer",
						 1, p);
	mark = rows->nrows == 1 && registry_value(rows, 0, 0) ?
		pstrdup(registry_value(rows, 0, 0)) : NULL;
	registry_commit();
	return mark;
}

/* ---------------------------------------------------------------------
 * The protocol
 * --------------------------------------------------------------------- */

static void
start_up(IdgenWorker *w)
{
	RegistryRows *rows;
	bool		have_table;
	bool		have_extension;
	int			regions[IDGEN_MAX_OWNED_REGIONS];
	char		list[IDGEN_MAX_OWNED_REGIONS * 9 + 2];
	const char *p[2];
	int			i;

	if (boot_ms() < next_check_boot_ms)
		return;
	next_check_boot_ms = boot_ms() + REGIONLEASE_RECHECK_MS;

	/*
	 * A node of another registry has no held_region of its own to look
	 * after: registry_exec() would reach that registry's, never this one.
	 */
	if (w->remote)
	{
		if (registry_has_parent())
			ereport(WARNING,
					(errmsg("idgen: idgen.parent_registry is ignored on a node that leases from another registry"),
					 errdetail("Only a registry (idgen.registry empty) leases regions from a parent.")));
		started = true;
		return;
	}
	registry_begin("idgen: region leases");
	rows = registry_exec("SELECT to_regclass('idgen.held_region') IS NOT NULL, "
						 "EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'idgen')",
						 0, NULL);
	have_table = strcmp(registry_value(rows, 0, 0), "t") == 0;
	have_extension = strcmp(registry_value(rows, 0, 1), "t") == 0;
	if (!registry_has_parent())
	{
		/* rows a former parent left would keep gating the grants */
		if (have_table &&
			strcmp(registry_value(registry_exec("SELECT EXISTS (SELECT 1 FROM idgen.held_region)",
												0, NULL), 0, 0), "t") == 0)
		{
			/* only then a write: a registry may be read-only for a while */
			rows = registry_exec("DELETE FROM idgen.held_region RETURNING region", 0, NULL);
			if (rows->nrows > 0)
				ereport(LOG,
						(errmsg("idgen: idgen.parent_registry is empty: forgot %d region lease(s) from a former parent; leases are granted in every region again",
								rows->nrows)));
		}
		registry_commit();
		started = true;
		return;
	}
	if (!have_table)
	{
		registry_commit();
		/* a missing extension is made by the lease work: look again soon */
		if (have_extension && !logged_old)
			ereport(WARNING,
					(errmsg("idgen: idgen.parent_registry is set, but the extension in database \"%s\" is older than 0.9: no region is leased",
							idgen_database),
					 errhint("Run ALTER EXTENSION idgen UPDATE there.")));
		logged_old = logged_old || have_extension;
		return;
	}
	rows = registry_exec("SELECT idgen.region_owner()", 0, NULL);
	strlcpy(owner_name, registry_value(rows, 0, 0), sizeof(owner_name));

	nheld = settings_owned_regions(regions, IDGEN_MAX_OWNED_REGIONS);
	list[0] = '\0';
	for (i = 0; i < nheld; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d",
				 i ? "," : "", regions[i]);
	/* a new monotonic clock: nothing is held until the root answers (G5) */
	p[0] = psprintf("{%s}", list);
	p[1] = owner_name;
	(void) registry_exec("DELETE FROM idgen.held_region WHERE region <> ALL ($1::integer[])", 1, p);
	(void) registry_exec("INSERT INTO idgen.held_region AS h (region, owner) "
						 "SELECT r, $2 FROM unnest($1::integer[]) AS r "
						 "ON CONFLICT (region) DO UPDATE SET owner = EXCLUDED.owner, "
						 "generation = NULL, valid_until = NULL, last_error = NULL", 2, p);
	registry_commit();

	memset(held, 0, sizeof(held));
	for (i = 0; i < nheld; i++)
		held[i].region = regions[i];
	started = true;
	active = true;
	ereport(LOG,
			(errmsg("idgen: leasing region(s) %s from the root registry (%s) as \"%s\"",
					list, root_display(), owner_name)));
}

static void
record_validity(HeldRegion *r, int64 sent_boot, int64 sent_wall, int64 ttl_ms)
{
	r->valid_boot_ms = sent_boot + ttl_ms - idgen_lc_margin_ms(ttl_ms);
	r->valid_wall_ms = sent_wall + (r->valid_boot_ms - sent_boot);
	r->sent_boot_ms = sent_boot;
	r->backoff_ms = 0;
	r->next_attempt_boot_ms = 0;
	r->last_error[0] = '\0';
}

static void
lease_region(HeldRegion *r)
{
	int64		ttl_ms = (int64) idgen_region_lease_ttl_s * 1000;
	int64		sent_boot = boot_ms();
	int64		sent_wall = idgen_wall_unix_ms();
	const char *p[6];
	char	   *out[3];
	char	   *sql;

	p[0] = owner_name;
	p[1] = int_text(r->region);
	p[2] = int_text(idgen_region_lease_ttl_s);
	/* the schema is read at connecting */
	root_error[0] = '\0';
	if (root == NULL && !root_connect())
	{
		note_failure(r, "could not lease the region");
		return;
	}
	sql = psprintf("SELECT generation, " SQL_MS("lease_until") ", "
				   "CASE WHEN isfinite(start_after) THEN " SQL_MS("start_after") " END"
				   " FROM %s.idgen_lease_region($1, $2::integer, $3::bigint * interval '1 s')",
				   root_schema);
	if (!root_query(sql, 3, p, out, 3))
	{
		note_failure(r, "could not lease the region");
		return;
	}
	if (boot_ms() >= sent_boot + ttl_ms - idgen_lc_margin_ms(ttl_ms))
	{
		set_root_error("the answer came after the lease's validity", NULL, NULL);
		note_failure(r, "could not lease the region");
		return;
	}
	record_validity(r, sent_boot, sent_wall, ttl_ms);
	r->ttl_ms = ttl_ms;
	r->generation = answer_int(out[0]);
	p[0] = int_text(r->region);
	p[1] = owner_name;
	p[2] = out[0];
	p[3] = int_text(r->valid_wall_ms);
	p[4] = out[1];
	p[5] = out[2];
	local_run("idgen: recording a region lease",
			  "UPDATE idgen.held_region SET owner = $2, generation = $3::bigint, "
			  "valid_until = " SQL_TS(4) ", root_lease_until = " SQL_TS(5) ", "
			  "start_after = " SQL_TS(6) ", leased_at = idgen.clock(), "
			  "renewed_at = idgen.clock(), last_error = NULL WHERE region = $1::integer",
			  6, p);
	r->held = true;
	ereport(LOG,
			(errmsg("idgen: leased region %d from the root registry at generation " INT64_FORMAT " for %d s%s%s",
					r->region, r->generation, idgen_region_lease_ttl_s,
					out[2] ? ", above " : "",
					out[2] ? timestamptz_to_str(idgen_unix_ms_to_timestamptz(answer_int(out[2]))) : "")));
}

static void
renew_region(HeldRegion *r)
{
	/*
	 * The root renews for the ttl it granted, whatever the setting says
	 * since a reload: a new ttl counts from the next lease.
	 */
	int64		ttl_ms = r->ttl_ms;
	int64		sent_boot;
	int64		sent_wall;
	char	   *mark = region_mark(r->region, false);
	const char *p[4];
	char	   *out[1];

	p[0] = int_text(r->region);
	p[1] = int_text(r->generation);
	p[2] = owner_name;
	p[3] = mark;
	sent_boot = boot_ms();
	sent_wall = idgen_wall_unix_ms();
	root_error[0] = '\0';
	if (root == NULL && !root_connect())
	{
		note_failure(r, "could not renew the region lease");
		return;
	}
	if (!root_query(psprintf("SELECT " SQL_MS("r") " FROM %s.idgen_renew_region($1::integer, "
							 "$2::bigint, $3, " SQL_TS(4) ") AS r", root_schema),
					4, p, out, 1))
	{
		/* not leased at our generation any more: the root renews it no more */
		if (strcmp(root_state, "55000") == 0)
		{
			char		why[400];

			snprintf(why, sizeof(why), "the root refused the renewal: %s", root_error);
			ereport(LOG,
					(errmsg("idgen: region %d: %s; no lease is granted or renewed there until it is leased again",
							r->region, why)));
			note_not_held(r, why);
			strlcpy(r->last_error, why, sizeof(r->last_error));
			r->next_attempt_boot_ms = boot_ms() + REGIONLEASE_BACKOFF_MIN_MS;
			return;
		}
		note_failure(r, "could not renew the region lease");
		return;
	}
	if (boot_ms() >= sent_boot + ttl_ms - idgen_lc_margin_ms(ttl_ms))
		return;					/* too late to count: it lapses on its own */
	if (r->last_error[0])
		ereport(LOG,
				(errmsg("idgen: region %d: the root registry renews the lease again",
						r->region)));
	record_validity(r, sent_boot, sent_wall, ttl_ms);
	p[0] = int_text(r->region);
	p[1] = int_text(r->valid_wall_ms);
	p[2] = out[0];
	local_run("idgen: recording a region lease renewal",
			  "UPDATE idgen.held_region SET valid_until = " SQL_TS(2) ", "
			  "root_lease_until = " SQL_TS(3) ", renewed_at = idgen.clock(), "
			  "last_error = NULL WHERE region = $1::integer", 3, p);
}

/* the validity as the wall clock reads it now: lowered after a step back */
static void
check_validity(HeldRegion *r)
{
	int64		now_boot = boot_ms();
	int64		wall_end;

	if (now_boot >= r->valid_boot_ms)
	{
		r->held = false;
		r->next_attempt_boot_ms = 0;
		ereport(LOG,
				(errmsg("idgen: region %d: the region lease lapsed unrenewed; no lease is granted or renewed there until the root leases it again",
						r->region)));
		return;
	}
	wall_end = idgen_wall_unix_ms() + (r->valid_boot_ms - now_boot);
	if (wall_end < r->valid_wall_ms - 100)
	{
		const char *p[2];

		r->valid_wall_ms = wall_end;
		p[0] = int_text(r->region);
		p[1] = int_text(wall_end);
		local_run("idgen: lowering a region lease's end",
				  "UPDATE idgen.held_region SET valid_until = " SQL_TS(2)
				  " WHERE region = $1::integer AND valid_until > " SQL_TS(2), 2, p);
	}
}

static void
step_regions(IdgenWorker *w)
{
	int			k;

	for (k = 0; k < nheld; k++)
		if (held[k].held)
			check_validity(&held[k]);
	for (k = 0; k < nheld; k++)
	{
		int			i = (next_region + k) % nheld;
		HeldRegion *r = &held[i];
		int64		now = boot_ms();

		if (now < r->next_attempt_boot_ms)
			continue;
		if (!r->held)
			lease_region(r);
		else if (now >= r->sent_boot_ms + r->ttl_ms / 10)
			renew_region(r);
		else
			continue;
		/* one call to the root per step */
		next_region = i + 1;
		break;
	}
}

void
regionlease_step(IdgenWorker *w)
{
	MemoryContext ctx = CurrentMemoryContext;

	if (started && !active)
		return;
	upkeep = w;
	PG_TRY();
	{
		if (!started)
			start_up(w);
		else
			step_regions(w);
		last_failure[0] = '\0';
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(ctx);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		pgstat_report_activity(STATE_IDLE, NULL);
		/* a failure that repeats is logged once */
		if (strcmp(edata->message, last_failure) != 0)
			ereport(LOG,
					(errmsg("idgen: region lease work failed: %s", edata->message)));
		strlcpy(last_failure, edata->message, sizeof(last_failure));
		FreeErrorData(edata);
	}
	PG_END_TRY();
	upkeep = NULL;
}

void
regionlease_release_all(IdgenWorker *w)
{
	volatile int i;

	if (!active)
		return;
	final_phase = true;
	for (i = 0; i < nheld; i++)
	{
		HeldRegion *r = &held[i];
		MemoryContext ctx = CurrentMemoryContext;

		if (!r->held)
			continue;
		PG_TRY();
		{
			const char *p[4];
			char	   *out[1];

			/*
			 * No grant or renewal there from now on; the update waits for
			 * those under way (they share-lock the row), so the final mark
			 * read next covers every lease granted in the region (G6).
			 */
			note_not_held(r, "released at shutdown");
			p[0] = int_text(r->region);
			p[1] = int_text(r->generation);
			p[2] = owner_name;
			p[3] = region_mark(r->region, true);
			if (root_query(psprintf("SELECT %s.idgen_release_region($1::integer, $2::bigint, $3, "
									SQL_TS(4) ")", root_schema[0] ? root_schema : "public"),
						   4, p, out, 1))
			{
				ereport(LOG,
						(errmsg("idgen: released region %d to the root registry", r->region)));
			}
			else
				ereport(LOG,
						(errmsg("idgen: region %d: could not release the region lease: %s; it runs out at the root",
								r->region, root_error)));
		}
		PG_CATCH();
		{
			MemoryContextSwitchTo(ctx);
			FlushErrorState();
			AbortCurrentTransaction();
		}
		PG_END_TRY();
	}
	root_drop();
}
