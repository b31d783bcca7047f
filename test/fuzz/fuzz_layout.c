/*
 * fuzz_layout.c - libFuzzer target for the 64-bit bit layout
 *
 * The input is read as
 *     region bits, worker bits, sequence bits   1 byte each, -2..24
 *     epoch kind, epoch                         1 + 8 bytes
 *     ID, second ID                             8 + 8 bytes
 *     worker block size                         1 byte
 * (missing bytes read as 0).  idgen_layout_check must accept exactly the
 * layouts an independent reading of the rules accepts; for those, every
 * 64-bit word decomposes into in-range fields that compose back to the word
 * without its sign bit, lies within min_at..max_at of its millisecond, is
 * the tick_to_id of the node owning its worker block, and orders by time
 * against the second ID.  Refused layouts are never used: their shifts
 * would be out of range.
 */
#include "fuzz.h"
#include "layout.h"

#define U63_MAX UINT64_C(9223372036854775807)

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
layout_ok(const IdgenLayout *l)
{
	return l->region_bits >= 0 && l->region_bits <= 22 &&
		l->worker_bits >= 0 && l->worker_bits <= 22 &&
		l->seq_bits >= 1 && l->seq_bits <= 22 &&
		63 - l->region_bits - l->worker_bits - l->seq_bits >= 36 &&
		l->origin_unix_ms >= 0 && l->origin_unix_ms <= INT64_C(253402300799999);
}

static int64_t
pick_epoch(uint8_t kind, uint64_t raw)
{
	switch (kind % 4)
	{
		case 0:
			return IDGEN_DEFAULT_EPOCH_UNIX_MS;
		case 1:
			return (int64_t) raw;
		case 2:
			return (int64_t) (raw % UINT64_C(253402300800000));
		default:
			return -1 - (int64_t) (raw % 1000);
	}
}

static uint64_t
width_mask(int bits)
{
	return (UINT64_C(1) << bits) - 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzReader	in = {data, size};
	IdgenLayout l;
	IdgenFields f;
	IdgenFields g;
	uint8_t		kind;
	uint64_t	raw;
	uint64_t	id;
	uint64_t	id2;
	uint64_t	m;
	uint64_t	m2;
	uint64_t	lo;
	uint64_t	hi;
	int			block_bits;
	int			counter_bits;
	uint32_t	first;
	uint64_t	counter;
	uint64_t	tick;
	IdgenFields back;

	l.region_bits = (int) (fuzz_u8(&in) % 27) - 2;
	l.worker_bits = (int) (fuzz_u8(&in) % 27) - 2;
	l.seq_bits = (int) (fuzz_u8(&in) % 27) - 2;
	kind = fuzz_u8(&in);
	raw = fuzz_u64(&in);
	l.origin_unix_ms = pick_epoch(kind, raw);
	id = fuzz_u64(&in);
	id2 = fuzz_u64(&in);

	FUZZ_ASSERT((idgen_layout_check(&l) == NULL) == layout_ok(&l));
	if (!layout_ok(&l))
		return 0;

	/* decompose, then compose: the word without its sign bit */
	m = id & U63_MAX;
	idgen_layout_decompose(&l, id, &f);
	FUZZ_ASSERT(f.ms >= 0 && f.ms <= idgen_layout_max_ms(&l));
	FUZZ_ASSERT(f.region <= width_mask(l.region_bits));
	FUZZ_ASSERT(f.worker <= width_mask(l.worker_bits));
	FUZZ_ASSERT(f.seq <= width_mask(l.seq_bits));
	FUZZ_ASSERT(idgen_layout_compose(&l, &f) == m);

	/* inside its millisecond's bounds, and the bounds are of that millisecond */
	lo = idgen_layout_min_at(&l, f.ms);
	hi = idgen_layout_max_at(&l, f.ms);
	FUZZ_ASSERT(lo <= m && m <= hi);
	FUZZ_ASSERT(hi <= U63_MAX);
	idgen_layout_decompose(&l, lo, &back);
	FUZZ_ASSERT(back.ms == f.ms);
	idgen_layout_decompose(&l, hi, &back);
	FUZZ_ASSERT(back.ms == f.ms);

	/* the node owning the ID's aligned worker block issues it from one tick */
	block_bits = (int) (fuzz_u8(&in) % (uint8_t) (l.worker_bits + 1));
	counter_bits = block_bits + l.seq_bits;
	first = f.worker & (uint32_t) ~width_mask(block_bits);
	FUZZ_ASSERT(idgen_node_check(&l, f.region, first, block_bits) == NULL);
	counter = ((uint64_t) (f.worker - first) << l.seq_bits) | f.seq;
	tick = ((uint64_t) f.ms << counter_bits) | counter;
	FUZZ_ASSERT(idgen_tick_to_id(tick, counter_bits, idgen_layout_time_shift(&l),
								 idgen_node_bits(&l, f.region, first)) == m);

	/* time decides the order of two IDs; equal IDs have equal fields */
	m2 = id2 & U63_MAX;
	idgen_layout_decompose(&l, id2, &g);
	if (f.ms < g.ms)
		FUZZ_ASSERT(m < m2);
	else if (f.ms > g.ms)
		FUZZ_ASSERT(m > m2);
	else
		FUZZ_ASSERT(idgen_layout_min_at(&l, g.ms) == lo &&
					lo <= m2 && m2 <= hi);
	FUZZ_ASSERT((m == m2) == (f.ms == g.ms && f.region == g.region &&
							  f.worker == g.worker && f.seq == g.seq));
	return 0;
}
