/*
 * leaseanswer.h - what a registry's answer tells the node besides its lease
 *
 * The lease protocol (lease.c) reads more from each answer than the lease:
 * the registry's clock, to measure the skew against the node's; its layout
 * epochs, read in the lease's own transaction; and its incarnation, which
 * the node follows to notice a different registry, or two of them (lease
 * protocol v2, R8; docs/concepts.md).  Answers travel as text (registry.h).
 */
#ifndef IDGEN_LEASEANSWER_H
#define IDGEN_LEASEANSWER_H

#include "worker.h"

/* times travel as Unix milliseconds, whatever TimeZone the session has */
#define SQL_TS(n) "('epoch'::timestamptz + $" #n "::bigint * interval '1 ms')"
#define SQL_MS(col) "floor(extract(epoch FROM " col ") * 1000)::bigint"

/*
 * The registry's idgen.lease_ttl, as its incarnation hold reads it: the
 * least a hold after a change of its incarnation lasts, so the most a
 * holder may count on after it last heard the registry (R1a).  Read in the
 * answer's own statement, so a remote registry's counts (for a local one it
 * is the node's own setting).
 */
#define SQL_REGISTRY_HOLD_FLOOR \
	SQL_MS("coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval, interval '30 s')")

/* a number in an answer; raises an error on NULL or anything else */
extern int64 answer_int(const char *s);

/* cut a text snprintf filled back to its last whole character */
extern void answer_clip(char *buf);

/*
 * Compare the node's clock with the registry's over the round trip that
 * just ended (registry_ms NULL: the registry did not say), and publish it
 * with the registry's incarnation as the node's last answer.
 */
extern void answer_note_skew(IdgenWorker *w, int64 sent, int64 received,
							 const char *registry_ms);

/* the registry's layout epochs, inside the lease's registry unit */
extern void answer_load_epochs(IdgenEpochList *list);

/* does the block fit every layout from now on?  If not, why in *reason */
extern bool answer_block_fits(IdgenWorker *w, const IdgenEpochList *list,
							  int first_worker, char *reason, size_t reason_len);

/*
 * Follow the incarnation an answer named (NULL: the registry did not say):
 * false, with why in *reason, when one came back after another one
 * answered, i.e. two registries answer at once.
 */
extern bool answer_note_incarnation(IdgenWorker *w, const char *incarnation,
									char *reason, size_t reason_len);

/* two registries answered: stop at once, and say so */
extern void answer_split_brain(IdgenWorker *w, const char *reason);

#endif							/* IDGEN_LEASEANSWER_H */
