/*
 * settings.c - the node's settings (GUCs) and what they say
 *
 * Every idgen.* setting of the node runtime and the background worker is
 * defined here, so that the hot path, the SQL functions and the worker read
 * the same variables without the node runtime including a worker header.
 * The shape (region, worker block) is read once, when shared memory is set
 * up (nodestate.c), and by the lease protocol (worker/lease.c) for a pinned
 * block; changing it needs a restart.
 */
#include "base.h"

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
							   PGC_POSTMASTER, GUC_SUPERUSER_ONLY,
							   check_registry, NULL, NULL);
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
