/*
 * idgen.c - the module's entry point
 *
 * _PG_init in PostgreSQL's order: each module defines its own settings
 * (the ones that work without preloading first), then, when preloaded, the
 * shared memory, the background worker and the utility hook.
 */
#include "base.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "bgworker.h"
#include "clock.h"
#include "clockwatch.h"
#include "generate.h"
#include "generate_sql.h"
#include "nodestate.h"
#include "registry.h"
#include "utility_hook.h"
#include "nodeconf.h"

PG_MODULE_MAGIC;

void
_PG_init(void)
{
	/* settings that work in any backend, preloaded or not */
	idgen_clock_define_gucs();
	idgen_generate_define_gucs();
	clockwatch_define_gucs();
	idgen_generate_sql_define_gucs();
	registry_define_gucs();

	if (!process_shared_preload_libraries_in_progress)
		return;

	registry_define_preload_gucs();
	idgen_nodeconf_define_gucs();

	MarkGUCPrefixReserved("idgen");

	if (IsBinaryUpgrade)
		return;

	idgen_shmem_request();
	idgen_register_bgworker();
	idgen_install_utility_hook();
}
