/*
 * nodestate_writer.h - the writer API of the node's shared state
 *
 * Called by the background worker (src/worker/) and by the operator's SQL
 * functions (adt/sql_admin.c); on the generators' path only to publish a
 * mark a generator raised itself (idgen_publish_mark, localmark.h), which
 * is off the fast path.  Each call
 * takes the node's lock; the configuration changes are seqlock writes
 * (nodestate.h has the protocol).
 */
#ifndef IDGEN_NODESTATE_WRITER_H
#define IDGEN_NODESTATE_WRITER_H

#include "nodestate.h"

/* the lease, as the background worker publishes it */
typedef struct IdgenLease
{
	int			first_worker;
	int64		generation;
	int64		lease_until_unix_ms;
	int64		valid_until_unix_ms;	/* lease_until less a safety margin */
	int64		valid_until_mono_ms;	/* the same on idgen_pace_clock_ms() */
	int64		hw_unix_ms;		/* durable high-water mark */
	int64		start_after_unix_ms;	/* issue only above this; -1: none */
	/*
	 * The registry's starting mark when it lies above everything this node
	 * issued and ahead of its clock: another holder of the block (a fenced
	 * lease, one that ended uncleanly) may have issued up to it, and the
	 * node waits for its clock to pass it; -1: none.
	 */
	int64		foreign_mark_unix_ms;
	/* when the clock passes it, on idgen_pace_clock_ms(): a clock that
	 * steps back later must not read as the mark again */
	int64		foreign_mark_pace_ms;
} IdgenLease;

/* the registry's epochs, read with the lease, handed over before it */
extern void idgen_publish_epochs(const IdgenEpochList *list);

extern void idgen_publish_lease(const IdgenLease *lease);
extern void idgen_publish_lease_held(const IdgenLease *lease, IdgenState state,
									 const char *reason);
/* renewed: a later validity; else only a new mark or a shorter window */
extern void idgen_publish_renewal(const IdgenLease *lease, bool renewed);
extern void idgen_publish_lease_state(IdgenState state, const char *reason);
extern void idgen_publish_active_reason(const char *reason);
/*
 * A durable mark raised for the lease of this generation; false, and
 * nothing changed, when another lease (or none) is in force now.
 */
extern bool idgen_publish_mark(int64 generation, int64 hw_unix_ms);
extern bool idgen_yield_lease(const char *owner, int region, int worker,
							  int64 generation, const char *reason);
extern bool idgen_take_yield(int first_worker, int64 generation);
extern IdgenState idgen_lease_state(void);

extern bool idgen_operator_disabled(void);
extern void idgen_set_operator_disabled(bool disabled, const char *reason);

extern void idgen_set_bgworker(int procno, const char *owner);
extern void idgen_publish_registry_answer(bool known, int64 offset_ms,
										   const char *incarnation);

#endif							/* IDGEN_NODESTATE_WRITER_H */
