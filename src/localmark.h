/*
 * localmark.h - the node's own durable high-water mark
 *
 * A file in the data directory, IDGEN_LOCAL_HW_FILE, holding one number:
 * Unix milliseconds at or above every ID this node has issued.  The
 * generator issues only up to it (lease protocol v2, R3; docs/concepts.md)
 * and a node that restarts starts above it.  The registry gets it at every
 * lease (idgen.acquire_node_lease uses it when its own mark has fallen
 * behind by more than IDGEN_LOCAL_SLACK_MS: a dropped extension, a
 * restored old backup of the registry) and, best effort, at renewals.
 *
 * Two kinds of process raise it, by the one rule below: the background
 * worker between its units of work, and a generator that reached it while
 * the worker was held up (a registry transaction, a slow disk, a starved
 * CPU), so that a late worker costs no call while the lease is valid.
 * Writers take the mark's own LWLock (IdgenShared.mark_lock) for the
 * whole write, so the file only ever grows; the value it holds is also in
 * shared memory, stored only after the file is durable.  Nobody waits for
 * that lock without a bound: a frozen holder delays the others, it never
 * hangs them.
 */
#ifndef IDGEN_LOCALMARK_H
#define IDGEN_LOCALMARK_H

#include "compat.h"

#define IDGEN_LOCAL_HW_FILE "pg_idgen_high_water"
#define IDGEN_LOCAL_SLACK_MS 5000

/*
 * The background worker, at its start: the file's value into shared
 * memory (never lowering it there); returns the mark, -1 when there is
 * none (or the file does not parse).
 */
extern int64 localmark_load(void);

/* the durable mark, -1 while there is none */
extern int64 localmark_durable(void);

/*
 * How far ahead of demand the mark is kept (half of idgen.max_drift), and
 * where a raise takes it: demand (the newest time the generators used or
 * asked for) plus that reserve.
 */
extern int64 localmark_reserve_ms(void);
extern int64 localmark_target_unix_ms(void);

/* the mark is due a raise: less than half the reserve is left */
extern bool localmark_low(void);

/* what a raise came to */
typedef enum LocalmarkRaise
{
	LOCALMARK_RAISED,			/* durable at least as asked (and published) */
	LOCALMARK_BUSY,				/* another writer held the lock past the wait */
	LOCALMARK_WRITE_FAILED,		/* the file could not be written (logged) */
	LOCALMARK_LEASE_CHANGED		/* durable, but another lease (or none) is in
								 * force now: not published */
} LocalmarkRaise;

/*
 * Make the mark at least mark, durably.  Waits up to wait_ms for another
 * writer; a failed write is reported at elevel (ERROR raises).
 */
extern LocalmarkRaise localmark_raise(int64 mark, int wait_ms, int elevel);

/*
 * A generator's raise, for the lease of the given generation: to the
 * target, then published to the configuration if that lease is still the
 * one in force.  Errors are logged, never raised.
 */
extern LocalmarkRaise localmark_raise_for_lease(int64 generation, int wait_ms);

/* what went wrong, for a refusal's detail */
extern const char *localmark_raise_problem(LocalmarkRaise result);

#endif							/* IDGEN_LOCALMARK_H */
