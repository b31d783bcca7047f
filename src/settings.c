/*
 * settings.c - the node's settings (GUCs) and what they say
 *
 * The node's shape, the registry's and the background worker's idgen.*
 * settings are defined here, so that the hot path, the SQL functions and
 * the worker read the same variables without the node runtime including a
 * worker header.  The clock's (clock.c), the generator's (generate.c) and
 * the SQL functions' own (adt/sql_generate.c) stay with their modules.
 * The shape (region, worker block) is read once, when shared memory is set
 * up (nodestate.c), and by the lease protocol (worker/lease.c) for a pinned
 * block; changing it needs a restart.
 */
#include "base.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include <time.h>

#include "core/fleet.h"
#include "core/layout.h"
#include "settings.h"

int			idgen_region_id = 0;
int			idgen_worker_id = -1;
int			idgen_workers_per_node = 16;

/* a block that is not a power of two could not act as one wider counter */
static bool
check_workers_per_node(int *newval, void **extra, GucSource source)
{
	if (*newval <= 0 || (*newval & (*newval - 1)) != 0)
	{
		GUC_check_errdetail("idgen.workers_per_node must be a power of two.");
		return false;
	}
	return true;
}

void
settings_define_shape_gucs(void)
{
	DefineCustomIntVariable("idgen.region_id",
							"Region number of this node.",
							NULL,
							&idgen_region_id,
							0, 0, (1 << IDGEN_MAX_FIELD_BITS) - 1,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.worker_id",
							"First worker number of this node, or -1 to lease one automatically.",
							NULL,
							&idgen_worker_id,
							-1, -1, (1 << IDGEN_MAX_FIELD_BITS) - 1,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.workers_per_node",
							"How many consecutive worker numbers this node uses as one counter.",
							"A power of two; each worker adds 2^seq_bits IDs per millisecond.",
							&idgen_workers_per_node,
							16, 1, 1 << IDGEN_MAX_FIELD_BITS,
							PGC_POSTMASTER, 0,
							check_workers_per_node, NULL, NULL);
}

/* the registry and the lease */
int			idgen_lease_ttl_ms = 30000;
char	   *idgen_database = NULL;
char	   *idgen_registry = NULL;

/*
 * Only whether the string parses: libpq's own complaint may quote the
 * string, password included, and this message goes to the server log.
 */
static bool
check_registry(char **newval, void **extra, GucSource source)
{
	char		buf[8];

	/*
	 * A reload moves a node from one shared registry to another (the
	 * worker gives its lease back at the old one and leases at the new);
	 * to or from this instance's own lease table is another kind of node,
	 * whose worker works differently from its start.  A parallel worker
	 * takes its leader's settings from the defaults up, which is no change.
	 */
	if (!process_shared_preload_libraries_in_progress && !InitializingParallelWorker &&
		idgen_registry != NULL &&
		(idgen_registry[0] == '\0') != (*newval == NULL || (*newval)[0] == '\0'))
	{
		GUC_check_errdetail("idgen.registry can move a node from one shared registry to another by a reload; to or from this instance's own lease table it needs a restart.");
		return false;
	}
	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	if (!idgen_conninfo_display(*newval, buf, sizeof(buf)))
	{
		GUC_check_errdetail("idgen.registry is not a valid libpq connection string.");
		return false;
	}
	return true;
}

void
settings_define_registry_gucs(void)
{
	DefineCustomIntVariable("idgen.lease_ttl",
							"How long a worker lease lasts without renewal.",
							"The background worker renews it every tenth of it (at most every 2 s); without an answer the node issues until a twentieth of it (at least 100 ms) before its end.",
							&idgen_lease_ttl_ms,
							30000, 1000, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
}

void
settings_define_registry_preload_gucs(void)
{
	DefineCustomStringVariable("idgen.database",
							   "Database where the background worker keeps the worker lease table.",
							   "The worker creates the extension there if it is missing.",
							   &idgen_database,
							   "postgres",
							   PGC_POSTMASTER, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("idgen.registry",
							   "Connection string of the shared lease registry of a fleet; empty: this instance.",
							   "The background worker leases worker ids there over its own connection. Keep passwords in a password file: the setting is readable by superusers.",
							   &idgen_registry,
							   "",
							   PGC_SIGHUP, GUC_SUPERUSER_ONLY,
							   check_registry, NULL, NULL);
}

/*
 * A regional registry (DESIGN "Regions that stand alone"): the root it
 * leases its regions from, which regions, for how long.  Empty parent:
 * no regions are leased and the node lease functions grant as before.
 */
char	   *idgen_parent_registry = NULL;
char	   *idgen_owned_regions = NULL;
int			idgen_region_lease_ttl_s = 86400;

/*
 * The root's side: the regions it leases to regional registries.  A root
 * must know it is one from something a restore of its data leaves alone:
 * restored from before its first region grant, its tables say nothing of
 * the regions it leased, and it would grant its own nodes those regions
 * and schedule layouts the regions cannot hear of in time.
 */
char	   *idgen_leased_out_regions = NULL;

/*
 * PostgreSQL only warns about a bad value in postgresql.conf and keeps the
 * default, which for these settings would lease another region, or none
 * and grant everywhere: a value refused at start-up stops the server
 * instead (settings_define_region_gucs).
 */
static char region_setting_refused[400];

static void
refuse_region_setting(const char *name, const char *detail)
{
	if (process_shared_preload_libraries_in_progress &&
		region_setting_refused[0] == '\0')
		snprintf(region_setting_refused, sizeof(region_setting_refused),
				 "%s: %s", name, detail);
}

/* as check_registry: never libpq's complaint, which may quote a password */
static bool
check_parent_registry(char **newval, void **extra, GucSource source)
{
	char		buf[8];

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	if (!idgen_conninfo_display(*newval, buf, sizeof(buf)))
	{
		GUC_check_errdetail("idgen.parent_registry is not a valid libpq connection string.");
		refuse_region_setting("idgen.parent_registry",
							  "not a valid libpq connection string.");
		return false;
	}
	return true;
}

int
settings_parse_regions(const char *list, int *regions, int max_regions,
					   char *why, int why_len)
{
	const char *p = list;
	int			n = 0;

	if (list == NULL)
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0')
		return 0;
	for (;;)
	{
		long		v = 0;
		int			digits = 0;
		int			i;

		while (*p == ' ' || *p == '\t')
			p++;
		while (*p >= '0' && *p <= '9')
		{
			v = v * 10 + (*p - '0');
			if (v >= (1L << IDGEN_MAX_FIELD_BITS))
			{
				snprintf(why, why_len, "Region numbers lie between 0 and %d.",
						 (1 << IDGEN_MAX_FIELD_BITS) - 1);
				return -1;
			}
			p++;
			digits++;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (digits == 0 || (*p != ',' && *p != '\0'))
		{
			snprintf(why, why_len,
					 "Expected a comma-separated list of region numbers, such as \"0,3\"; found \"%.20s\".",
					 *p ? p : "(end)");
			return -1;
		}
		for (i = 0; i < n; i++)
			if (regions[i] == (int) v)
			{
				snprintf(why, why_len, "Region %ld is listed twice.", v);
				return -1;
			}
		if (n >= max_regions)
		{
			snprintf(why, why_len, "At most %d regions may be listed.", max_regions);
			return -1;
		}
		regions[n++] = (int) v;
		if (*p == '\0')
			return n;
		p++;
	}
}

/* a comma list of regions, checked as settings_parse_regions() reads it */
static bool
check_region_list(const char *name, const char *value, int max_regions)
{
	int			regions[IDGEN_MAX_LEASED_OUT_REGIONS];
	char		why[160];

	Assert(max_regions <= IDGEN_MAX_LEASED_OUT_REGIONS);
	if (settings_parse_regions(value, regions, max_regions, why, sizeof(why)) < 0)
	{
		GUC_check_errdetail("%s: %s", name, why);
		refuse_region_setting(name, why);
		return false;
	}
	return true;
}

static bool
check_owned_regions(char **newval, void **extra, GucSource source)
{
	return check_region_list("idgen.owned_regions", *newval, IDGEN_MAX_OWNED_REGIONS);
}

static bool
check_leased_out_regions(char **newval, void **extra, GucSource source)
{
	return check_region_list("idgen.leased_out_regions", *newval,
							 IDGEN_MAX_LEASED_OUT_REGIONS);
}

int
settings_owned_regions(int *regions, int max_regions)
{
	char		why[160];
	int			n = settings_parse_regions(idgen_owned_regions, regions,
										   max_regions, why, sizeof(why));

	if (n <= 0 && max_regions > 0)
	{
		/* empty: the registry's own region */
		regions[0] = idgen_region_id;
		n = 1;
	}
	return n;
}

/* the root refuses a region lease shorter than 10 s or longer than a day */
static bool
check_region_lease_ttl(int *newval, void **extra, GucSource source)
{
	if (*newval < 10)
	{
		GUC_check_errdetail("idgen.region_lease_ttl must be at least 10 s.");
		refuse_region_setting("idgen.region_lease_ttl", "must be at least 10 s.");
		return false;
	}
	return true;
}

bool
registry_has_parent(void)
{
	return idgen_parent_registry != NULL && idgen_parent_registry[0] != '\0';
}

void
settings_define_region_gucs(void)
{
	DefineCustomStringVariable("idgen.parent_registry",
							   "Connection string of the root registry this registry leases its regions from; empty: none.",
							   "Set on a regional registry only. Its background worker leases the regions of idgen.owned_regions there, and its node lease functions grant only inside them. Keep passwords in a password file: the setting is readable by superusers.",
							   &idgen_parent_registry,
							   "",
							   PGC_POSTMASTER, GUC_SUPERUSER_ONLY,
							   check_parent_registry, NULL, NULL);
	DefineCustomStringVariable("idgen.owned_regions",
							   "Comma-separated regions a regional registry leases from its parent; empty: its own idgen.region_id.",
							   NULL,
							   &idgen_owned_regions,
							   "",
							   PGC_POSTMASTER, 0,
							   check_owned_regions, NULL, NULL);
	DefineCustomIntVariable("idgen.region_lease_ttl",
							"How long a region lease from the parent registry lasts without renewal.",
							"Renewed every tenth of it, so an outage of the parent shorter than 70 % of it costs nothing; at least 10 s, at most 1 day.",
							&idgen_region_lease_ttl_s,
							86400, 1, 86400,
							PGC_SIGHUP, GUC_UNIT_S,
							check_region_lease_ttl, NULL, NULL);
	DefineCustomStringVariable("idgen.leased_out_regions",
							   "Comma-separated regions a root registry leases to regional registries; empty: none.",
							   "Set on a root registry only. It leases only these regions, grants its own nodes no lease in them, and after a restart, failover or restore schedules no layout within its hold, whatever its tables say.",
							   &idgen_leased_out_regions,
							   "",
							   PGC_SIGHUP, 0,
							   check_leased_out_regions, NULL, NULL);
	if (region_setting_refused[0] == '\0' && registry_has_parent() &&
		idgen_leased_out_regions != NULL && idgen_leased_out_regions[0] != '\0')
		snprintf(region_setting_refused, sizeof(region_setting_refused),
				 "idgen.leased_out_regions: a regional registry (idgen.parent_registry is set) leases no region on; only a root registry lists regions here.");
	if (region_setting_refused[0] != '\0')
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("idgen: invalid region setting: %s", region_setting_refused),
				 errhint("A regional registry does not start with a region setting it cannot read; fix it in postgresql.conf.")));
}

bool
registry_is_remote(void)
{
	return idgen_registry != NULL && idgen_registry[0] != '\0';
}

/* where the registry is, for messages: never a password */
static char display_buf[300];

const char *
registry_display(void)
{
	if (!registry_is_remote())
		snprintf(display_buf, sizeof(display_buf),
				 "this instance, database %s",
				 idgen_database ? idgen_database : "postgres");
	else
		(void) idgen_conninfo_display(idgen_registry, display_buf,
									  sizeof(display_buf));
	return display_buf;
}

/* the clock watch of the background worker */
int			idgen_horizon_warning_min = 1825 * 24 * 60;
int			idgen_max_skew_ms = 1000;

void
settings_define_clockwatch_gucs(void)
{
	DefineCustomIntVariable("idgen.horizon_warning",
							"Warn this long before the layout's time field runs out.",
							NULL,
							&idgen_horizon_warning_min,
							1825 * 24 * 60, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MIN,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.max_skew",
							"How far this node's clock may be from the registry's before the node stops issuing.",
							"Checked at every lease and renewal; 0 turns the check off.",
							&idgen_max_skew_ms,
							1000, 0, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
}
