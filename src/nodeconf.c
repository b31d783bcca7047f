/*
 * nodeconf.c - the node's shape: its region and its block of worker ids
 *
 * Read once, when shared memory is set up (nodestate.c), and by the lease
 * protocol (lease.c) for a pinned block; changing them needs a restart.
 */
#include "base.h"

#include "utils/guc.h"

#include "layout.h"
#include "nodeconf.h"

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
idgen_nodeconf_define_gucs(void)
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
