/*
 * regionlease.h - a regional registry's region leases from its root
 *
 * On a registry whose idgen.parent_registry is set, the background worker
 * leases each region of idgen.owned_regions from that root
 * (idgen_lease_region), renews it every tenth of idgen.region_lease_ttl,
 * releases it at shutdown with its final mark, and records each one in
 * idgen.held_region, which the node and outside lease functions read to
 * grant only inside it (G4, docs/regions.md).  With the setting empty the
 * module does nothing but clear rows a former parent left.
 *
 * Its connection to the root is its own (rootlink.h), every wait on it
 * bounded, so a root that is slow or away delays the worker's node lease
 * work by a few seconds at most, and only at a region's renewal.  At each
 * lease and renewal it first takes the root's layout epochs into this
 * registry's idgen.epoch and then confirms them to the root (G7).
 */
#ifndef IDGEN_REGIONLEASE_H
#define IDGEN_REGIONLEASE_H

#include "worker.h"

/* once, at the worker's start: should_stop() ends a wait for the root */
extern void regionlease_init(bool (*should_stop) (void));

/* every step of the worker: lease, renew, notice a lapse; never raises */
extern void regionlease_step(IdgenWorker *w);

/* at shutdown: give every held region back with its final mark */
extern void regionlease_release_all(IdgenWorker *w);

#endif							/* IDGEN_REGIONLEASE_H */
