/*
 * gwbatch.h - a reservation's IDs as JSON, and as the few bytes an
 * Idempotency-Key record keeps of it (gwbatch.c, pure C)
 *
 * A record stores the reservation (its first tick, count, layout and
 * workers) and, for idgen128, the seed its random bits come from: the
 * answer is computed again from it, the same IDs in the same order, on any
 * gateway.  About 60 bytes, whatever the count.
 */
#ifndef IDGEN_GWBATCH_H
#define IDGEN_GWBATCH_H

#include <stddef.h>
#include <stdint.h>

#include "gateway.h"

#define GW_SEED_LEN 16
/* the longest encoding: the header, the seed, GW_MAX_WORKERS workers */
#define GW_BATCH_RECORD_MAX (38 + GW_SEED_LEN + 4 * GW_MAX_WORKERS)

/*
 * {"ids": [...]}\n for a reservation, malloc'd (NULL when out of memory).
 * An idgen128's 48 random bits come from seed when it is given (so the
 * answer can be computed again), else from getrandom().
 */
extern char *gw_batch_json(const GwBatch *b, int want128, const uint8_t *seed);

/* the record of a reservation; returns its length */
extern size_t gw_batch_encode(const GwBatch *b, const uint8_t *seed,
							  uint8_t out[GW_BATCH_RECORD_MAX]);

/*
 * A record back into a reservation and its seed (*has_seed 0 when none);
 * returns 0, or -1 for a record that is not one (then nothing is trusted).
 */
extern int	gw_batch_decode(const uint8_t *in, size_t len, GwBatch *b,
							uint8_t seed[GW_SEED_LEN], int *has_seed);

#endif							/* IDGEN_GWBATCH_H */
