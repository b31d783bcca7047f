/*
 * localmark.h - the node's own note of its high-water mark
 *
 * A file in the data directory, IDGEN_LOCAL_HW_FILE, holding one number:
 * Unix milliseconds at or above every high-water mark the registry has
 * confirmed to this node.  It is written ahead of the registry's mark by
 * IDGEN_LOCAL_SLACK_MS, so it costs a file sync only every few seconds, and
 * the registry uses it (idgen.acquire_node_lease) only when its own mark
 * has fallen behind it by more than that: a dropped extension, a restored
 * old backup of the registry.
 */
#ifndef IDGEN_LOCALMARK_H
#define IDGEN_LOCALMARK_H

#include "worker.h"

#define IDGEN_LOCAL_HW_FILE "pg_idgen_high_water"
#define IDGEN_LOCAL_SLACK_MS 5000

/* what the file says, or -1 when there is none (or it does not parse) */
extern int64 localmark_read(void);

/*
 * Keep the note at least IDGEN_LOCAL_SLACK_MS/2 above hw, durably, in
 * w->local_hw too; raises an error when the file cannot be written.
 */
extern void localmark_note(IdgenWorker *w, int64 hw);

#endif							/* IDGEN_LOCALMARK_H */
