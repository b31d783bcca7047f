/*
 * bgworker.h - the idgen background worker: its registration and its loop
 *
 * The loop is here (bgworker.c); the work of each step is in lease.c (the
 * lease protocol), clockwatch.c (the clocks), nodelocal.c (the node's own
 * tables) and audit.c (the audit queue), which share the worker's state
 * through worker.h; the local high-water note is the node runtime's
 * localmark.c, shared with the generators.
 */
#ifndef IDGEN_BGWORKER_H
#define IDGEN_BGWORKER_H

#include "postgres.h"

/* the worker's entry point, named in its BackgroundWorker entry */
PGDLLEXPORT void idgen_bgworker_main(Datum main_arg);

#endif							/* IDGEN_BGWORKER_H */
