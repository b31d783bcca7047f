/*
 * nodelocal.h - the node's own tables, in this instance's idgen.database
 *
 * Whichever registry the node leases from, its idgen.node_control (an
 * operator's idgen_disable()) and retry keys (idgen.batch_request) are in
 * its own idgen.database, so both work while a shared registry is away.
 * Each function is a local transaction of its own.
 */
#ifndef IDGEN_NODELOCAL_H
#define IDGEN_NODELOCAL_H

#include "worker.h"

/*
 * Make sure the extension is in idgen.database (creating it if missing)
 * and read an operator's idgen_disable() back.
 */
extern void nodelocal_prepare(IdgenWorker *w);

/* about once a minute, drop retry keys past their retention */
extern void nodelocal_clean_expired(IdgenWorker *w);

#endif							/* IDGEN_NODELOCAL_H */
