/*
 * fuzz_epochs.c - libFuzzer target for layout epochs: the parameters of
 * idgen_schedule_layout() and rows read back from idgen.epoch
 *
 * Each 8-byte record of the input asks to plan an epoch (a start some time
 * after the last one, and three field widths, any of them out of range),
 * or, with its flag set, offers a raw catalog row instead.  Whatever is
 * accepted must keep the invariants decoding depends on: epochs ascend in
 * start and boundary, every ID of one lies below the next one's boundary,
 * and an ID is found in the epoch that issued it.
 */
#include "epochs.h"
#include "fuzz.h"

/* 2026-06-01T00:00:00Z */
#define START_BASE INT64_C(1780272000000)

static void
check_list(const IdgenEpochList *list)
{
	int			i;

	for (i = 1; i < list->count; i++)
	{
		const IdgenEpoch *prev = &list->epochs[i - 1];
		const IdgenEpoch *e = &list->epochs[i];
		uint64_t	max_prev = idgen_layout_max_at(&prev->layout,
												   e->start_unix_ms - 1 - prev->layout.origin_unix_ms);

		FUZZ_ASSERT(e->version == prev->version + 1);
		FUZZ_ASSERT(e->start_unix_ms > prev->start_unix_ms);
		FUZZ_ASSERT(e->boundary > max_prev);
		FUZZ_ASSERT(e->boundary > prev->boundary);
		FUZZ_ASSERT(idgen_layout_time_shift(&e->layout) <= IDGEN_MAX_NODE_BITS);
		FUZZ_ASSERT(idgen_epochs_for_id(list, e->boundary) == e);
		FUZZ_ASSERT(idgen_epochs_for_id(list, max_prev) == prev);
		FUZZ_ASSERT(idgen_epochs_at(list, e->start_unix_ms) == e);
		FUZZ_ASSERT(idgen_epochs_at(list, e->start_unix_ms - 1) == prev);
		FUZZ_ASSERT(idgen_layout_min_at(&e->layout,
										e->start_unix_ms - e->layout.origin_unix_ms) == e->boundary);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzReader	r = {data, size};
	IdgenEpochList list;

	idgen_epochs_init(&list);
	while (r.left > 0)
	{
		uint8_t		flags = fuzz_u8(&r);
		int64_t		gap = (int64_t) fuzz_u8(&r) << 24 | (int64_t) fuzz_u8(&r) << 16 |
			(int64_t) fuzz_u8(&r) << 8 | fuzz_u8(&r);
		int			region = (int8_t) fuzz_u8(&r);
		int			worker = (int8_t) fuzz_u8(&r);
		int			seq = (int8_t) fuzz_u8(&r);
		const IdgenEpoch *last = &list.epochs[list.count - 1];
		int64_t		start = (list.count == 1 ? START_BASE : last->start_unix_ms) +
			(flags & 2 ? -gap : gap * (flags & 4 ? 1000 : 1));
		IdgenEpoch	e;
		int			before = list.count;

		if (flags & 1)
		{
			/* a catalog row: any epoch start at all */
			e.version = last->version + 1 - ((flags >> 3) & 1);
			e.start_unix_ms = start;
			e.layout.origin_unix_ms = start - gap * 977;
			e.layout.region_bits = region;
			e.layout.worker_bits = worker;
			e.layout.seq_bits = seq;
			e.boundary = 0;
			if (idgen_epochs_append(&list, &e) == NULL)
				FUZZ_ASSERT(list.count == before + 1);
			else
				FUZZ_ASSERT(list.count == before);
		}
		else if (idgen_epochs_plan(&list, start, region, worker, seq, &e) == NULL)
		{
			FUZZ_ASSERT(e.version == before + 1);
			FUZZ_ASSERT(idgen_epochs_append(&list, &e) == NULL);
		}
		check_list(&list);
	}
	return 0;
}
