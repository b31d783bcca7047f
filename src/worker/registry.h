/*
 * registry.h - where the background worker's lease statements go
 *
 * The registry is the idgen catalog that holds the fleet's worker leases:
 * this instance's idgen.database (SPI, the default), or the PostgreSQL
 * named by idgen.registry (the worker's own libpq connection).  The lease
 * logic in lease.c is the same for both and sends every registry
 * statement through registry_exec(): parameters and results as text, so
 * the statement reads the same whichever way it travels.  Statements cast
 * their parameters ($1::integer) and return times as Unix milliseconds.
 *
 * Errors are raised with ereport(ERROR); the caller's error handler calls
 * registry_abort().  A lost connection is simply closed: the next
 * registry_begin() opens a new one.
 */
#ifndef IDGEN_REGISTRY_H
#define IDGEN_REGISTRY_H

#include "base.h"
#include "settings.h"

typedef struct RegistryRows
{
	int			nrows;
	int			ncols;
	char	  **values;			/* row-major; NULL for SQL NULL */
} RegistryRows;

static inline const char *
registry_value(const RegistryRows *rows, int row, int col)
{
	return rows->values[row * rows->ncols + col];
}

/*
 * Called once by the background worker: should_stop() is asked whenever a
 * wait for the remote registry is woken, so SIGTERM ends a wait at once;
 * while_waiting() is called at least every 100 ms of such a wait, so the
 * worker keeps its own durable mark ahead of the generators meanwhile.
 */
extern void registry_init(bool (*should_stop) (void), void (*while_waiting) (void));

/* one unit of work: a transaction in the registry */
extern void registry_begin(const char *activity);
extern RegistryRows *registry_exec(const char *sql, int nparams,
								   const char *const *params);
extern void registry_commit(void);
extern void registry_abort(void);

/* close the remote connection, if any (at exit) */
extern bool registry_connected(void);
extern void registry_close(void);

/*
 * At shutdown the final release gets a short grace period in which a
 * pending SIGTERM does not cut the wait short.
 */
extern void registry_set_final(int timeout_ms);

/* transactions in this instance's idgen.database, for the node's own tables */
extern void local_begin(const char *activity);
extern void local_commit(void);

#endif							/* IDGEN_REGISTRY_H */
