/*
 * generate.h - reserving IDs from the node's logical clock
 *
 * One reservation is one clock read and one compare-and-swap on the tick
 * word of the layout epoch in force (nodestate.h has the protocol).  A
 * reservation of count IDs is count consecutive ticks, all under one
 * layout; it raises an ERROR rather than hand out an ID the node cannot
 * vouch for.
 */
#ifndef IDGEN_GENERATE_H
#define IDGEN_GENERATE_H

#include "postgres.h"

#include "core/layout.h"

typedef struct IdgenBatch
{
	uint64		first_tick;
	uint64		count;
	int			counter_bits;
	int			time_shift;
	uint64		node_bits;
	int64		origin_unix_ms;	/* the layout's time origin */
	int			epoch_version;	/* the layout epoch the ticks belong to */

	/*
	 * A keyed batch's idgen128 tails are SipHash-2-4 of each tick under
	 * this key, so that a retry makes them again; other batches draw
	 * random ones.
	 */
	bool		tail_keyed;
	uint8		tail_key[16];
} IdgenBatch;

/* which type an ID is made for: they are counted apart */
typedef enum IdgenWidth
{
	IDGEN_WIDTH_64 = 0,
	IDGEN_WIDTH_128
} IdgenWidth;

extern int64 idgen_generate_one(void);
extern void idgen_generate_single(IdgenBatch *batch, IdgenWidth width);
extern void idgen_generate_batch(uint64 count, IdgenBatch *batch, IdgenWidth width);

static inline int64
idgen_batch_id(const IdgenBatch *batch, uint64 i)
{
	return (int64) idgen_tick_to_id(batch->first_tick + i, batch->counter_bits,
									batch->time_shift, batch->node_bits);
}

/* settings (GUCs) this module defines */
extern int	idgen_lease_wait_ms;
extern void idgen_generate_define_gucs(void);

#endif							/* IDGEN_GENERATE_H */
