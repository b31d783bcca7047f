/*
 * bgworker.h - the idgen background worker: its registration and its loop
 *
 * The loop is here (bgworker.c); the work of each step is in lease.c (the
 * lease protocol), clockwatch.c (the clocks), nodelocal.c (the node's own
 * tables), audit.c (the audit queue) and localmark.c (the local high-water
 * note), which share the worker's state through worker.h.
 */
#ifndef IDGEN_BGWORKER_H
#define IDGEN_BGWORKER_H

#include "postgres.h"

/* from _PG_init, while shared_preload_libraries load */

/* the worker's entry point, named in its BackgroundWorker entry */
PGDLLEXPORT void idgen_bgworker_main(Datum main_arg);

#endif							/* IDGEN_BGWORKER_H */
