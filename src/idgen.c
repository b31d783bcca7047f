/*
 * idgen.c - the module's entry point
 *
 * _PG_init in PostgreSQL's order: the settings (the ones that work without
 * preloading first: the clock's, the generator's and the SQL functions' in
 * their modules, the rest in settings.c), then, when preloaded, the shared
 * memory, the background worker and the utility hook.
 */
#include "base.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "postmaster/bgworker.h"

#include "adt/sql_generate.h"
#include "clock.h"
#include "generate.h"
#include "nodestate.h"
#include "settings.h"
#include "utility_hook.h"

PG_MODULE_MAGIC;

/*
 * The background worker (worker/bgworker.c) is named by its library and
 * function, so registering it needs none of the worker's headers.
 */
static void
register_lease_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "idgen");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "idgen_bgworker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "idgen lease worker");
	snprintf(worker.bgw_type, BGW_MAXLEN, "idgen lease worker");
	RegisterBackgroundWorker(&worker);
}

void
_PG_init(void)
{
	/* settings that work in any backend, preloaded or not */
	idgen_clock_define_gucs();
	idgen_generate_define_gucs();
	settings_define_clockwatch_gucs();
	idgen_generate_sql_define_gucs();
	settings_define_registry_gucs();

	if (!process_shared_preload_libraries_in_progress)
		return;

	settings_define_registry_preload_gucs();
	settings_define_shape_gucs();
	settings_define_region_gucs();

	MarkGUCPrefixReserved("idgen");

	if (IsBinaryUpgrade)
		return;

	idgen_shmem_request();
	register_lease_worker();
	idgen_install_utility_hook();
}
