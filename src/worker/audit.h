/*
 * audit.h - the background worker's audit queue, on the PostgreSQL side
 *
 * Whatever the worker has to tell the registry's audit log (a clock step,
 * a lost lease, a collision) is queued first, in the byte encoding of
 * auditq.h, and written at its next registry transaction: inside the
 * lease's own transaction when there is one, so the record commits with
 * what it describes, or in a unit of its own.  While the registry is away
 * the queue holds up to IDGEN_MAX_PENDING_AUDIT records; more are dropped.
 */
#ifndef IDGEN_AUDIT_H
#define IDGEN_AUDIT_H

#include "worker.h"

/* audit records kept while the registry cannot take them */
#define IDGEN_MAX_PENDING_AUDIT 1000

/* queue one record; once the queue is full, or the record too long, it is dropped */
extern void audit_queue(IdgenWorker *w, const char *action, const char *detail);

/* write the queue inside the caller's registry unit, which commits it */
extern void audit_flush(IdgenWorker *w);

/* write the queue in a registry unit of its own, if anything is queued */
extern void audit_flush_unit(IdgenWorker *w);

#endif							/* IDGEN_AUDIT_H */
