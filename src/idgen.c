/*
 * idgen.c - module entry point and configuration
 */
#include "idgen.h"

#include "utils/guc.h"

#include "clock.h"
#include "fleet.h"
#include "layout.h"
#include "nodestate.h"
#include "utility_hook.h"

PG_MODULE_MAGIC;

int			idgen_region_id = 0;
int			idgen_worker_id = -1;
int			idgen_workers_per_node = 16;
int			idgen_max_drift_ms = 1000;
int			idgen_max_clock_wait_ms = 200;
int			idgen_test_clock_offset_ms = 0;
int			idgen_test_clock_offset_days = 0;
int64		idgen_clock_offset_total_ms = 0;
int			idgen_horizon_warning_min = 1825 * 24 * 60;
char	   *idgen_database = NULL;
char	   *idgen_registry = NULL;
int			idgen_max_skew_ms = 1000;
int			idgen_clock_jump_confirm_ms = 60000;
int			idgen_lease_ttl_ms = 30000;
int			idgen_lease_wait_ms = 5000;
int			idgen_request_retention_s = 86400;

/* the two test offsets add up to one number, read on the hot path */
static void
assign_offset_ms(int newval, void *extra)
{
	idgen_clock_offset_total_ms = (int64) newval +
		(int64) idgen_test_clock_offset_days * 86400000;
}

static void
assign_offset_days(int newval, void *extra)
{
	idgen_clock_offset_total_ms = (int64) idgen_test_clock_offset_ms +
		(int64) newval * 86400000;
}

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

#if PG_VERSION_NUM < 160000
void		_PG_init(void);
#endif

void
_PG_init(void)
{
	/* settings that work in any backend, preloaded or not */
	DefineCustomIntVariable("idgen.max_drift",
							"How far the logical clock may run ahead of the wall clock.",
							"Covers bursts and small clock rollbacks; beyond it generation waits or refuses.",
							&idgen_max_drift_ms,
							1000, 0, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.max_clock_wait",
							"How long one call may wait for the wall clock to catch up.",
							NULL,
							&idgen_max_clock_wait_ms,
							200, 0, 60 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.clock_jump_confirm",
							"How long a step of the wall clock ahead of the monotonic clock must last before IDs follow it.",
							"Until then IDs keep to the monotonic clock, so a clock that jumps ahead and comes back stamps no ID in the future; 0 follows every step at once.",
							&idgen_clock_jump_confirm_ms,
							60000, 0, 86400 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.test_clock_offset",
							"Shifts the clock idgen reads, for testing clock rollback.",
							"Superuser only; never set it in production.",
							&idgen_test_clock_offset_ms,
							0, -86400 * 1000, 86400 * 1000,
							PGC_SUSET, GUC_UNIT_MS | GUC_NOT_IN_SAMPLE,
							NULL, assign_offset_ms, NULL);
	DefineCustomIntVariable("idgen.test_clock_offset_days",
							"Shifts the clock idgen reads by whole days, for testing the horizon.",
							"Superuser only; never set it in production: IDs issued under it stay issued.",
							&idgen_test_clock_offset_days,
							0, -36500, 36500,
							PGC_SUSET, GUC_NOT_IN_SAMPLE,
							NULL, assign_offset_days, NULL);
	DefineCustomIntVariable("idgen.horizon_warning",
							"Warn this long before the layout's time field runs out.",
							NULL,
							&idgen_horizon_warning_min,
							1825 * 24 * 60, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MIN,
							NULL, NULL, NULL);

	DefineCustomIntVariable("idgen.lease_ttl",
							"How long a worker lease lasts without renewal.",
							"The background worker renews it when half has passed; the node stops issuing a fifth of it before expiry.",
							&idgen_lease_ttl_ms,
							30000, 1000, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.max_skew",
							"How far this node's clock may be from the registry's before the node stops issuing.",
							"Checked at every lease and renewal; 0 turns the check off.",
							&idgen_max_skew_ms,
							1000, 0, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("idgen.lease_wait",
							"How long a call may wait for a worker lease, at start-up or while one is renewed.",
							NULL,
							&idgen_lease_wait_ms,
							5000, 0, 600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("idgen.request_retention",
							"How long a request key returns the same batch of IDs.",
							NULL,
							&idgen_request_retention_s,
							86400, 1, 365 * 86400,
							PGC_SIGHUP, GUC_UNIT_S,
							NULL, NULL, NULL);

	if (!process_shared_preload_libraries_in_progress)
		return;

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

	MarkGUCPrefixReserved("idgen");

	if (IsBinaryUpgrade)
		return;

	idgen_shmem_request();
	idgen_register_bgworker();
	idgen_install_utility_hook();
}
