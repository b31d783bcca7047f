/*
 * layout.c - composing and decomposing 64-bit IDs
 *
 * Pure C; see layout.h for the bit layout.
 */
#include "layout.h"

#include <stddef.h>

void
idgen_layout_default(IdgenLayout *layout)
{
	layout->origin_unix_ms = IDGEN_DEFAULT_EPOCH_UNIX_MS;
	layout->region_bits = IDGEN_DEFAULT_REGION_BITS;
	layout->worker_bits = IDGEN_DEFAULT_WORKER_BITS;
	layout->seq_bits = IDGEN_DEFAULT_SEQ_BITS;
}

/* Returns NULL when the layout is usable, else why it is not. */
const char *
idgen_layout_check(const IdgenLayout *layout)
{
	if (layout->region_bits < 0 || layout->region_bits > IDGEN_MAX_FIELD_BITS)
		return "region bits must be between 0 and 22";
	if (layout->worker_bits < 0 || layout->worker_bits > IDGEN_MAX_FIELD_BITS)
		return "worker bits must be between 0 and 22";
	if (layout->seq_bits < 1 || layout->seq_bits > IDGEN_MAX_FIELD_BITS)
		return "sequence bits must be between 1 and 22";
	if (idgen_layout_time_bits(layout) < IDGEN_MIN_TIME_BITS)
		return "the time field would be shorter than 36 bits (about two years)";
	/* keep Unix-ms arithmetic on the horizon far from int64 overflow */
	if (layout->origin_unix_ms < 0 ||
		layout->origin_unix_ms > INT64_C(253402300799999))
		return "the epoch must lie between 1970 and 9999";
	return NULL;
}

uint64_t
idgen_layout_compose(const IdgenLayout *layout, const IdgenFields *fields)
{
	int			seq_bits = layout->seq_bits;
	int			worker_shift = seq_bits;
	int			region_shift = seq_bits + layout->worker_bits;
	uint64_t	region_mask = (UINT64_C(1) << layout->region_bits) - 1;
	uint64_t	worker_mask = (UINT64_C(1) << layout->worker_bits) - 1;
	uint64_t	seq_mask = (UINT64_C(1) << seq_bits) - 1;
	uint64_t	ms_mask = (uint64_t) idgen_layout_max_ms(layout);

	return (((uint64_t) fields->ms & ms_mask) << idgen_layout_time_shift(layout)) |
		(((uint64_t) fields->region & region_mask) << region_shift) |
		(((uint64_t) fields->worker & worker_mask) << worker_shift) |
		((uint64_t) fields->seq & seq_mask);
}

void
idgen_layout_decompose(const IdgenLayout *layout, uint64_t id,
					   IdgenFields *fields)
{
	int			seq_bits = layout->seq_bits;
	uint64_t	region_mask = (UINT64_C(1) << layout->region_bits) - 1;
	uint64_t	worker_mask = (UINT64_C(1) << layout->worker_bits) - 1;
	uint64_t	seq_mask = (UINT64_C(1) << seq_bits) - 1;

	id &= (uint64_t) IDGEN_ID_MAX;
	fields->ms = (int64_t) (id >> idgen_layout_time_shift(layout));
	fields->region = (uint32_t) ((id >> (seq_bits + layout->worker_bits)) & region_mask);
	fields->worker = (uint32_t) ((id >> seq_bits) & worker_mask);
	fields->seq = (uint32_t) (id & seq_mask);
}

uint64_t
idgen_layout_min_at(const IdgenLayout *layout, int64_t ms)
{
	if (ms < 0)
		return 0;
	if (ms > idgen_layout_max_ms(layout))
		return (uint64_t) IDGEN_ID_MAX;
	return (uint64_t) ms << idgen_layout_time_shift(layout);
}

uint64_t
idgen_layout_max_at(const IdgenLayout *layout, int64_t ms)
{
	int			shift = idgen_layout_time_shift(layout);

	if (ms < 0)
		return 0;
	if (ms > idgen_layout_max_ms(layout))
		return (uint64_t) IDGEN_ID_MAX;
	return ((uint64_t) ms << shift) | ((UINT64_C(1) << shift) - 1);
}

const char *
idgen_node_check(const IdgenLayout *layout, int64_t region,
				 int64_t first_worker, int block_bits)
{
	if (region < 0 || region >= (INT64_C(1) << layout->region_bits))
		return "region is outside the layout's region field";
	if (block_bits < 0 || block_bits > layout->worker_bits)
		return "the worker block is larger than the layout's worker field";
	if (first_worker < 0 || first_worker >= (INT64_C(1) << layout->worker_bits))
		return "worker is outside the layout's worker field";
	if (first_worker & ((INT64_C(1) << block_bits) - 1))
		return "worker is not the first of an aligned worker block";
	return NULL;
}

uint64_t
idgen_node_bits(const IdgenLayout *layout, uint32_t region,
				uint32_t first_worker)
{
	IdgenFields f = {0, region, first_worker, 0};

	return idgen_layout_compose(layout, &f);
}
