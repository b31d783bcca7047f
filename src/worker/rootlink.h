/*
 * rootlink.h - a regional registry's libpq connection to its root
 *
 * The region lease work (regionlease.c) talks to the root registry
 * (idgen.parent_registry) through this one connection, the worker's own.
 * Every wait on it is bounded (ROOTLINK_CALL_TIMEOUT_MS for connecting or
 * for one statement; the root's statement_timeout is shorter) and keeps
 * the node's own mark up meanwhile (lease_keep), so a root that is slow or
 * away delays the worker by a few seconds at most.  None of these calls
 * raises an error: a failure returns false or NULL with rootlink_error
 * (what failed, for logs and idgen_region_status()) and rootlink_state
 * (the SQLSTATE of a refusal, "" when there was no answer).
 */
#ifndef IDGEN_ROOTLINK_H
#define IDGEN_ROOTLINK_H

#include "libpq-fe.h"

#include "worker.h"

/* a call to the root (connecting, or one statement) gives up after this */
#define ROOTLINK_CALL_TIMEOUT_MS 2000

extern char rootlink_error[400];
extern char rootlink_state[6];
/* the root's extension schema, quoted, read at connecting */
extern char rootlink_schema[2 * NAMEDATALEN + 3];

/* once, at the worker's start: should_stop() ends a wait for the root */
extern void rootlink_init(bool (*should_stop) (void));

/* whose node mark a wait keeps up (NULL: none) */
extern void rootlink_set_upkeep(IdgenWorker *w);

/* shutting down: waits no longer end at should_stop(), nor keep a mark */
extern void rootlink_set_final(void);

/* connected, or connected now */
extern bool rootlink_ensure(void);
extern void rootlink_drop(void);

/* one statement; its result (the caller clears it), or NULL */
extern PGresult *rootlink_run(const char *sql, int nparams, const char *const *params);

/* one statement of one row: its values (palloc'd, NULL for SQL NULL) */
extern bool rootlink_query(const char *sql, int nparams, const char *const *params,
						   char **out, int nout);

extern void rootlink_set_error(const char *what, const char *detail, const char *state);

/* idgen.parent_registry without its password */
extern const char *rootlink_display(void);

#endif							/* IDGEN_ROOTLINK_H */
