/*
 * clockwatch.h - what the background worker watches of time
 *
 * At every step the worker looks at the wall clock against the monotonic
 * clock (steps back and large jumps forward are audited, and the pacing of
 * clockpace.h decides which steps forward the generator follows), and once
 * a day at the horizon of the layout's time field.  A lease's round trip
 * can confirm a held step: the registry's clock is another machine's.
 */
#ifndef IDGEN_CLOCKWATCH_H
#define IDGEN_CLOCKWATCH_H

#include "worker.h"

/* one look at the wall clock; audits and publishes what it finds */
extern void clockwatch_observe(IdgenWorker *w);

/*
 * Follow a held step of the wall clock now when the registry's clock
 * agrees with it; skew is the last lease's measurement, made with the
 * paced clock.
 */
extern void clockwatch_confirm_by_registry(IdgenWorker *w, const IdgenSkew *skew);

/* once a day, warn when the layout's time field runs out soon */
extern void clockwatch_check_horizon(IdgenWorker *w);

/* settings (GUCs) this module defines */

#endif							/* IDGEN_CLOCKWATCH_H */
