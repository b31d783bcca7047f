/*
 * regionepochs.h - the root's layout epochs, taken by a regional registry
 *
 * G7 (docs/regions.md): before each region lease and renewal, the
 * regional registry's worker copies the root's idgen.epoch rows it lacks
 * into its own idgen.epoch, where its node and outside leases pass them
 * on, and names to the root the newest epoch both have alike.
 */
#ifndef IDGEN_REGIONEPOCHS_H
#define IDGEN_REGIONEPOCHS_H

/* why the root's epochs are not all taken ("" when they are) */
extern char epoch_problem[256];

/*
 * Takes the root's epochs; answers the newest version both registries
 * have alike, or -1 when they differ or the root could not be read (then
 * epoch_problem or rootlink_error says why).  Raises on a local error.
 */
extern int	regionepochs_sync(void);

#endif							/* IDGEN_REGIONEPOCHS_H */
