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
#include "regionepochs.h"
#include "regionlease.h"
#include "rootlink.h"
#include "settings.h"

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
	int64		granted_ms;		/* the last answer's length: less before an epoch
								 * this registry had not confirmed (G7) */
	int64		valid_boot_ms;	/* the validity's end on CLOCK_BOOTTIME */
	int64		valid_wall_ms;	/* the same end as written, by the wall clock */
	int64		sent_boot_ms;	/* sending of the last answered request */
	int64		next_attempt_boot_ms;
	int64		backoff_ms;
	bool		handing_off;	/* idgen_handoff_region(): nothing granted here */
	bool		leases_ended;	/* ... and every lease granted here has ended */
	bool		handed_off;		/* given back to the root: never leased again */
	int64		skew_share_ms;	/* the allowance's share for this registry's
								 * clock ahead of the root's, as asked */
	char		last_error[256];
} HeldRegion;

static HeldRegion held[IDGEN_MAX_OWNED_REGIONS];
static int	nheld = 0;
static int	next_region = 0;	/* round robin over the owned regions */
static bool started = false;	/* start-up done (active or not) */
static bool active = false;		/* a parent is set and idgen.held_region is there */
static int64 next_check_boot_ms = 0;
static int64 next_handoff_poll_boot_ms = 0;
static bool logged_old = false;
static char owner_name[128];

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

void
regionlease_init(bool (*should_stop) (void))
{
	rootlink_init(should_stop);
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

	snprintf(msg, sizeof(msg), "%s: %s", what, rootlink_error);
	r->backoff_ms = r->backoff_ms == 0 ? REGIONLEASE_BACKOFF_MIN_MS :
		Min(r->backoff_ms * 2, cap);
	r->next_attempt_boot_ms = boot_ms() + r->backoff_ms;
	if (strcmp(msg, r->last_error) != 0)
		ereport(LOG,
				(errmsg("idgen: region %d: %s (root registry %s)", r->region, msg,
						rootlink_display())));
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
	MemoryContext caller = CurrentMemoryContext;

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
		MemoryContextStrdup(caller, registry_value(rows, 0, 0)) : NULL;
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
	next_handoff_poll_boot_ms = 0;
	ereport(LOG,
			(errmsg("idgen: leasing region(s) %s from the root registry (%s) as \"%s\"",
					list, rootlink_display(), owner_name)));
}

static void
record_validity(HeldRegion *r, int64 sent_boot, int64 sent_wall, int64 ttl_ms)
{
	r->granted_ms = ttl_ms;
	r->valid_boot_ms = sent_boot + ttl_ms - idgen_lc_margin_ms(ttl_ms);
	r->valid_wall_ms = sent_wall + (r->valid_boot_ms - sent_boot);
	r->sent_boot_ms = sent_boot;
	r->backoff_ms = 0;
	r->next_attempt_boot_ms = 0;
	r->last_error[0] = '\0';
}

/*
 * The allowance a region lease is asked with: how far past the lease's end
 * on the root's clock the region's IDs may lie, which the root adds to that
 * end for the next owner's floor when the region is not given back.  Two
 * parts: the node leases' own allowance (max_drift plus max_skew, by this
 * registry's settings, with max_skew 0 the lease ttl as
 * idgen.drift_allowance() takes it; a node asking for more is granted a
 * lease that ends sooner, idgen.held_region_bounds), and this registry's
 * clock ahead of the root's: max_skew, or 1 s where max_skew is 0 (which
 * turns off a node's check, never this one).  root_clock_agrees() holds
 * every answer to the share the lease was asked with, so a later reload
 * of max_skew cannot widen it.
 */
#define REGION_SKEW_SHARE_DEFAULT_MS 1000

static int64
region_node_allowance_ms(void)
{
	return (int64) idgen_max_drift_ms +
		(idgen_max_skew_ms > 0 ? idgen_max_skew_ms : idgen_lease_ttl_ms);
}

static int64
region_skew_share_ms(void)
{
	return idgen_max_skew_ms > 0 ? idgen_max_skew_ms : REGION_SKEW_SHARE_DEFAULT_MS;
}

/*
 * The root's clock was read between sent_wall and recv_wall: this
 * registry's clock was at most recv_wall - root_clock ahead of it then.
 * Only ahead matters (IDs stamped behind lie below the root's floor).
 */
static bool
root_clock_agrees(const HeldRegion *r, const char *root_clock, int64 sent_wall,
				  int64 recv_wall)
{
	int64		ahead = recv_wall - answer_int(root_clock);
	int64		bound = r->skew_share_ms;

	if (idgen_max_skew_ms > 0)
		bound = Min(bound, idgen_max_skew_ms);
	if (ahead <= bound)
		return true;
	rootlink_set_error(psprintf("this registry's clock may be up to " INT64_FORMAT " ms ahead of the root's (the answer took " INT64_FORMAT " ms), more than idgen.max_skew (" INT64_FORMAT " ms)",
								ahead, recv_wall - sent_wall, bound),
					   "The root's floor for the region's next owner counts the region's IDs by its own clock, allowing idgen.max_skew for this registry's.",
					   NULL);
	return false;
}

static void
lease_region(HeldRegion *r)
{
	int64		ttl_ms = (int64) idgen_region_lease_ttl_s * 1000;
	int64		sent_boot;
	int64		sent_wall;
	int64		granted_ms;
	int			known;
	int64		recv_wall;
	int64		node_allowance_ms;
	const char *p[7];
	char	   *out[5];
	char	   *sql;

	/* the schema is read at connecting */
	rootlink_error[0] = '\0';
	if (!rootlink_ensure())
	{
		note_failure(r, "could not lease the region");
		return;
	}
	/* G7: the root's epochs first, so the lease may run into them */
	known = regionepochs_sync();
	if (known < 0)
	{
		if (epoch_problem[0])
			rootlink_set_error(epoch_problem, NULL, NULL);
		note_failure(r, "could not lease the region");
		return;
	}
	p[0] = owner_name;
	p[1] = int_text(r->region);
	p[2] = int_text(idgen_region_lease_ttl_s);
	p[3] = int_text(known);
	node_allowance_ms = region_node_allowance_ms();
	r->skew_share_ms = region_skew_share_ms();
	p[4] = int_text(node_allowance_ms + r->skew_share_ms);
	sent_boot = boot_ms();
	sent_wall = idgen_wall_unix_ms();
	sql = psprintf("SELECT generation, " SQL_MS("lease_until") ", "
				   "CASE WHEN isfinite(start_after) THEN " SQL_MS("start_after") " END, "
				   SQL_MS("lease_until - idgen.clock()") ", " SQL_MS("idgen.clock()")
				   " FROM %s.idgen_lease_region($1, $2::integer, $3::bigint * interval '1 s', "
				   "allowance => $5::bigint * interval '1 ms', known_epoch => $4::integer)",
				   rootlink_schema);
	if (!rootlink_query(sql, 5, p, out, 5))
	{
		note_failure(r, "could not lease the region");
		return;
	}
	recv_wall = idgen_wall_unix_ms();
	if (!root_clock_agrees(r, out[4], sent_wall, recv_wall))
	{
		note_failure(r, "could not lease the region");
		return;
	}
	/* less than the ttl before an epoch the root has and we had not read */
	granted_ms = Min(ttl_ms, answer_int(out[3]));
	if (granted_ms <= 0 ||
		boot_ms() >= sent_boot + granted_ms - idgen_lc_margin_ms(granted_ms))
	{
		rootlink_set_error("the answer came after the lease's validity", NULL, NULL);
		note_failure(r, "could not lease the region");
		return;
	}
	record_validity(r, sent_boot, sent_wall, granted_ms);
	r->ttl_ms = ttl_ms;
	r->generation = answer_int(out[0]);
	p[0] = int_text(r->region);
	p[1] = owner_name;
	p[2] = out[0];
	p[3] = int_text(r->valid_wall_ms);
	p[4] = out[1];
	p[5] = out[2];
	p[6] = int_text(node_allowance_ms);
	local_run("idgen: recording a region lease",
			  "UPDATE idgen.held_region SET owner = $2, generation = $3::bigint, "
			  "valid_until = " SQL_TS(4) ", root_lease_until = " SQL_TS(5) ", "
			  "start_after = " SQL_TS(6) ", node_allowance = $7::bigint * interval '1 ms', "
			  "leased_at = idgen.clock(), "
			  "renewed_at = idgen.clock(), last_error = NULL WHERE region = $1::integer",
			  7, p);
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
	int64		granted_ms;
	char	   *mark;
	int			known;
	const char *p[5];
	char	   *out[3];

	rootlink_error[0] = '\0';
	if (!rootlink_ensure())
	{
		note_failure(r, "could not renew the region lease");
		return;
	}
	/*
	 * G7: the root's epochs taken first, then confirmed: this registry's
	 * node leases read them from now on, so the region lease may run into
	 * them.  Epochs that differ confirm nothing: the root ends the lease
	 * before its next one.
	 */
	known = regionepochs_sync();
	/* the mark as it is now, after the epochs were taken */
	mark = region_mark(r->region, false);
	p[0] = int_text(r->region);
	p[1] = int_text(r->generation);
	p[2] = owner_name;
	p[3] = mark;
	p[4] = known > 0 ? int_text(known) : NULL;
	sent_boot = boot_ms();
	sent_wall = idgen_wall_unix_ms();
	if (!rootlink_query(psprintf("SELECT " SQL_MS("r") ", " SQL_MS("r - idgen.clock()") ", "
							 SQL_MS("idgen.clock()")
							 " FROM %s.idgen_renew_region($1::integer, "
							 "$2::bigint, $3, " SQL_TS(4) ", $5::integer) AS r", rootlink_schema),
					5, p, out, 3))
	{
		/* not leased at our generation any more: the root renews it no more */
		if (strcmp(rootlink_state, "55000") == 0)
		{
			char		why[400];

			snprintf(why, sizeof(why), "the root refused the renewal: %s", rootlink_error);
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
	/* not counted: the validity it has runs out on its own */
	if (!root_clock_agrees(r, out[2], sent_wall, idgen_wall_unix_ms()))
	{
		note_failure(r, "could not renew the region lease");
		return;
	}
	/*
	 * The root never shortens a lease, but before an epoch this registry
	 * has not confirmed it does not lengthen it either: then the validity
	 * is what is left of it, counted from this request.
	 */
	granted_ms = Min(ttl_ms, answer_int(out[1]));
	if (granted_ms <= 0 ||
		boot_ms() >= sent_boot + granted_ms - idgen_lc_margin_ms(granted_ms))
	{
		/* too late to count: it lapses on its own; not again at once */
		r->next_attempt_boot_ms = boot_ms() + REGIONLEASE_BACKOFF_MIN_MS;
		return;
	}
	if (r->last_error[0] && strcmp(r->last_error, epoch_problem) != 0)
		ereport(LOG,
				(errmsg("idgen: region %d: the root registry renews the lease again",
						r->region)));
	/* a renewal extends, never shortens what was counted before */
	if (sent_boot + granted_ms - idgen_lc_margin_ms(granted_ms) < r->valid_boot_ms)
	{
		r->next_attempt_boot_ms = boot_ms() + REGIONLEASE_BACKOFF_MIN_MS;
		return;
	}
	record_validity(r, sent_boot, sent_wall, granted_ms);
	if (epoch_problem[0])
		strlcpy(r->last_error, epoch_problem, sizeof(r->last_error));
	p[0] = int_text(r->region);
	p[1] = int_text(r->valid_wall_ms);
	p[2] = out[0];
	p[3] = epoch_problem[0] ? epoch_problem : NULL;
	local_run("idgen: recording a region lease renewal",
			  "UPDATE idgen.held_region SET valid_until = " SQL_TS(2) ", "
			  "root_lease_until = " SQL_TS(3) ", renewed_at = idgen.clock(), "
			  "last_error = $4 WHERE region = $1::integer", 4, p);
}

/*
 * G6's last step: the region given back to the root with the final mark
 * (NULL: the root takes the lease's end plus its allowance).  False with
 * rootlink_error when the root did not take it.
 */
static bool
release_at_root(HeldRegion *r, const char *mark)
{
	const char *p[4];
	char	   *out[1];

	p[0] = int_text(r->region);
	p[1] = int_text(r->generation);
	p[2] = owner_name;
	p[3] = mark;
	return rootlink_query(psprintf("SELECT %s.idgen_release_region($1::integer, $2::bigint, $3, "
								   SQL_TS(4) ")", rootlink_schema[0] ? rootlink_schema : "public"),
						  4, p, out, 1);
}

/* the handoff is done: the region is not leased here again */
static void
record_handed_off(HeldRegion *r, const char *mark, const char *why)
{
	const char *p[3];

	r->held = false;
	r->handed_off = true;
	p[0] = int_text(r->region);
	p[1] = mark;
	p[2] = why;
	local_run("idgen: recording a region handed off",
			  "UPDATE idgen.held_region SET generation = NULL, valid_until = NULL, "
			  "released_at = idgen.clock(), final_mark = " SQL_TS(2) ", last_error = $3 "
			  "WHERE region = $1::integer", 3, p);
	ereport(LOG,
			(errmsg("idgen: region %d handed off: %s; the registry that leases it next starts above %s",
					r->region, why ? why : "released to the root registry",
					mark ? timestamptz_to_str(idgen_unix_ms_to_timestamptz(answer_int(mark))) :
					"the region lease's end plus its allowance")));
}

/*
 * Which regions idgen_handoff_region() stopped, and whether every lease
 * granted in each has ended (or been released) on this registry's clock.
 */
static void
poll_handoffs(void)
{
	RegistryRows *rows;
	int			i,
				k;

	registry_begin("idgen: reading region handoffs");
	rows = registry_exec("SELECT h.region, h.released_at IS NOT NULL, NOT EXISTS ("
						 "SELECT 1 FROM idgen.worker_lease AS l WHERE l.region = h.region "
						 "AND l.owner IS NOT NULL AND l.lease_until > idgen.clock()) "
						 "FROM idgen.held_region AS h WHERE h.handoff_at IS NOT NULL", 0, NULL);
	for (i = 0; i < rows->nrows; i++)
		for (k = 0; k < nheld; k++)
			if (held[k].region == atoi(registry_value(rows, i, 0)))
			{
				if (!held[k].handing_off && strcmp(registry_value(rows, i, 1), "t") != 0)
					ereport(LOG,
							(errmsg("idgen: region %d is being handed off: no lease is granted or renewed there; it goes back to the root once the leases granted in it have ended",
									held[k].region)));
				held[k].handing_off = true;
				held[k].handed_off = strcmp(registry_value(rows, i, 1), "t") == 0;
				held[k].leases_ended = strcmp(registry_value(rows, i, 2), "t") == 0;
			}
	registry_commit();
}

/*
 * G6: every lease granted in the region has ended (none is granted or
 * renewed since the handoff began), so the final mark read now covers
 * every ID issued in it here; the root takes it as the next owner's floor.
 */
static void
hand_off(HeldRegion *r)
{
	char	   *mark;

	rootlink_error[0] = '\0';
	if (!rootlink_ensure())
	{
		note_failure(r, "could not hand the region off");
		return;
	}
	mark = region_mark(r->region, true);
	if (release_at_root(r, mark))
		record_handed_off(r, mark, NULL);
	else if (strcmp(rootlink_state, "55000") == 0)
	{
		/* fenced or run out at the root: it is not ours there any more */
		record_handed_off(r, mark,
						  psprintf("the root refused the release (%s); the region lease runs out there",
								   rootlink_error));
	}
	else
		note_failure(r, "could not hand the region off");
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

	if (boot_ms() >= next_handoff_poll_boot_ms)
	{
		poll_handoffs();
		next_handoff_poll_boot_ms = boot_ms() + REGIONLEASE_RECHECK_MS;
	}
	for (k = 0; k < nheld; k++)
		if (held[k].held)
			check_validity(&held[k]);
	for (k = 0; k < nheld; k++)
	{
		int			i = (next_region + k) % nheld;
		HeldRegion *r = &held[i];
		int64		now = boot_ms();

		if (r->handed_off || now < r->next_attempt_boot_ms)
			continue;
		/*
		 * A region being handed off stays leased (leased again after a
		 * restart, which the root answers with the running lease) until
		 * it is given back with its mark.
		 */
		if (r->held && r->handing_off && r->leases_ended)
			hand_off(r);
		else if (!r->held)
			lease_region(r);
		else if (now >= r->sent_boot_ms + Min(r->ttl_ms / 10, r->granted_ms / 3))
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
	rootlink_set_upkeep(w);
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
	rootlink_set_upkeep(NULL);
}

void
regionlease_release_all(IdgenWorker *w)
{
	volatile int i;

	if (!active)
		return;
	rootlink_set_final();
	for (i = 0; i < nheld; i++)
	{
		HeldRegion *r = &held[i];
		MemoryContext ctx = CurrentMemoryContext;

		if (!r->held)
			continue;
		PG_TRY();
		{
			char	   *mark;

			/*
			 * No grant or renewal there from now on; the update waits for
			 * those under way (they share-lock the row), so the final mark
			 * read next covers every lease granted in the region (G6).
			 */
			note_not_held(r, "released at shutdown");
			mark = region_mark(r->region, true);
			if (release_at_root(r, mark))
			{
				ereport(LOG,
						(errmsg("idgen: released region %d to the root registry", r->region)));
				/* a handoff under way ends here: the mark covers its leases */
				if (r->handing_off)
					record_handed_off(r, mark, "released at shutdown");
			}
			else
				ereport(LOG,
						(errmsg("idgen: region %d: could not release the region lease: %s; it runs out at the root",
								r->region, rootlink_error)));
		}
		PG_CATCH();
		{
			MemoryContextSwitchTo(ctx);
			FlushErrorState();
			AbortCurrentTransaction();
		}
		PG_END_TRY();
	}
	rootlink_drop();
}
