/*
 * fleet.h - the arithmetic of a node talking to a shared registry
 *
 * Pure C (libpq's client header at most, no PostgreSQL server headers), so
 * it is unit-tested on its own: how far the node's clock is from the
 * registry's, how long to wait before the next attempt to reach it, and
 * what of a connection string may be shown.
 */
#ifndef IDGEN_FLEET_H
#define IDGEN_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The node's clock minus the registry's, from one round trip: the node read
 * sent_ms before the request and received_ms after the answer, and the
 * registry read registry_ms somewhere in between.  The registry's reading
 * is matched to the middle of the round trip; it can have been taken at
 * any point of it, so the estimate is only good to half the round trip
 * (plus a millisecond for each clock's truncation).
 */
typedef struct IdgenSkew
{
	int64_t		offset_ms;		/* node minus registry */
	int64_t		uncertainty_ms; /* |true offset - offset_ms| <= this */
} IdgenSkew;

extern void idgen_skew_estimate(int64_t sent_ms, int64_t received_ms,
								int64_t registry_ms, IdgenSkew *skew);

/*
 * True only when the clocks are certainly further apart than max_skew_ms:
 * a slow round trip makes the estimate vague, and a vague estimate must
 * not stop a node whose clock may well be right.  max_skew_ms <= 0 turns
 * the guard off.
 */
extern bool idgen_skew_exceeds(const IdgenSkew *skew, int64_t max_skew_ms);

/* the next wait after a failed attempt: doubled, within [min_ms, max_ms] */
extern int64_t idgen_backoff_next(int64_t current_ms, int64_t min_ms,
								  int64_t max_ms);

/*
 * Write "host=... port=... dbname=..." for a libpq connection string into
 * buf: where the registry is, never who connects or with what password.
 * Returns false (and a fixed text in buf) when the string does not parse;
 * the parser's own message is not used, as it may quote the string.
 */
extern bool idgen_conninfo_display(const char *conninfo, char *buf,
								   size_t buflen);

#endif							/* IDGEN_FLEET_H */
