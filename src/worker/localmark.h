/*
 * localmark.h - the node's own durable high-water mark
 *
 * A file in the data directory, IDGEN_LOCAL_HW_FILE, holding one number:
 * Unix milliseconds at or above every ID this node has issued.  The
 * generator issues only up to it (lease protocol v2, R3; docs/concepts.md),
 * and the background worker keeps it ahead of demand, written durably
 * before the generator may use it, whether the registry answers or not.
 * A node that restarts starts above it.  The registry gets it at every
 * lease (idgen.acquire_node_lease uses it when its own mark has fallen
 * behind by more than IDGEN_LOCAL_SLACK_MS: a dropped extension, a
 * restored old backup of the registry) and, best effort, at renewals.
 */
#ifndef IDGEN_LOCALMARK_H
#define IDGEN_LOCALMARK_H

#include "worker.h"

#define IDGEN_LOCAL_HW_FILE "pg_idgen_high_water"
#define IDGEN_LOCAL_SLACK_MS 5000

/* what the file says, or -1 when there is none (or it does not parse) */
extern int64 localmark_read(void);

/*
 * Raise the mark to at least mark, durably, and in w->local_hw too; raises
 * an error when the file cannot be written.
 */
extern void localmark_set(IdgenWorker *w, int64 mark);

#endif							/* IDGEN_LOCALMARK_H */
