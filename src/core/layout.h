/*
 * layout.h - the bit layout of a 64-bit idgen ID
 *
 * Pure C: no PostgreSQL headers, so the layout can be unit-tested and
 * fuzzed on its own.
 *
 * An ID is 63 usable bits (the sign bit is always 0 so it fits bigint):
 *
 *     | time (ms since the layout's epoch) | region | worker | sequence |
 *
 * A node owns an aligned block of 2^k consecutive worker numbers and treats
 * (worker - first worker, sequence) as one counter of k + seq_bits bits.
 * That keeps a node's IDs ascending while giving it 2^k times the
 * per-millisecond capacity of a single Snowflake worker.
 */
#ifndef IDGEN_LAYOUT_H
#define IDGEN_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define IDGEN_ID_BITS 63
#define IDGEN_ID_MAX INT64_C(9223372036854775807)

/* 2025-01-01T00:00:00Z in Unix milliseconds */
#define IDGEN_DEFAULT_EPOCH_UNIX_MS INT64_C(1735689600000)
#define IDGEN_DEFAULT_REGION_BITS 3
#define IDGEN_DEFAULT_WORKER_BITS 7
#define IDGEN_DEFAULT_SEQ_BITS 12

/*
 * IDs whose time lies before 2026-01-01 are never generated: that part of
 * the ID space is handed out as numeric ranges (idgen_lease_range), so a
 * range can never meet a generated ID.
 */
#define IDGEN_RANGE_SPACE_END_UNIX_MS INT64_C(1767225600000)

/* fewer time bits than this would run out within about two years */
#define IDGEN_MIN_TIME_BITS 36
#define IDGEN_MAX_FIELD_BITS 22

typedef struct IdgenLayout
{
	int64_t		origin_unix_ms;	/* Unix ms at which the time field is 0 */
	int			region_bits;
	int			worker_bits;
	int			seq_bits;
} IdgenLayout;

typedef struct IdgenFields
{
	int64_t		ms;				/* milliseconds since the layout's epoch */
	uint32_t	region;
	uint32_t	worker;
	uint32_t	seq;
} IdgenFields;

extern void idgen_layout_default(IdgenLayout *layout);
extern const char *idgen_layout_check(const IdgenLayout *layout);

static inline int
idgen_layout_time_bits(const IdgenLayout *layout)
{
	return IDGEN_ID_BITS - layout->region_bits - layout->worker_bits -
		layout->seq_bits;
}

/* bits below the time field */
static inline int
idgen_layout_time_shift(const IdgenLayout *layout)
{
	return layout->region_bits + layout->worker_bits + layout->seq_bits;
}

static inline int64_t
idgen_layout_max_ms(const IdgenLayout *layout)
{
	return (INT64_C(1) << idgen_layout_time_bits(layout)) - 1;
}

extern uint64_t idgen_layout_compose(const IdgenLayout *layout,
									 const IdgenFields *fields);
extern void idgen_layout_decompose(const IdgenLayout *layout, uint64_t id,
								   IdgenFields *fields);

/* lowest and highest ID of any node in one millisecond (clamped) */
extern uint64_t idgen_layout_min_at(const IdgenLayout *layout, int64_t ms);
extern uint64_t idgen_layout_max_at(const IdgenLayout *layout, int64_t ms);

/*
 * A node's part of the ID: everything but time and its private counter.
 * block_bits is log2 of the number of workers the node owns; first_worker
 * must be a multiple of 2^block_bits.
 */
extern const char *idgen_node_check(const IdgenLayout *layout, int64_t region,
									int64_t first_worker, int block_bits);
extern uint64_t idgen_node_bits(const IdgenLayout *layout, uint32_t region,
								uint32_t first_worker);

/*
 * A tick is (ms << counter_bits) | counter: the node's logical clock and
 * sequence as one number, so "next" is a plain increment that carries into
 * the next millisecond when the counter is exhausted.
 */
static inline uint64_t
idgen_tick_to_id(uint64_t tick, int counter_bits, int time_shift,
				 uint64_t node_bits)
{
	uint64_t	ms = tick >> counter_bits;
	uint64_t	counter = tick & ((UINT64_C(1) << counter_bits) - 1);

	return (ms << time_shift) | node_bits | counter;
}

#endif							/* IDGEN_LAYOUT_H */
