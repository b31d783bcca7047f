/*
 * epochs.c - the rules of layout epochs
 *
 * Pure C; see epochs.h.
 */
#include "epochs.h"

#include <stddef.h>

void
idgen_epochs_init(IdgenEpochList *list)
{
	IdgenEpoch *first = &list->epochs[0];

	list->count = 1;
	first->version = 1;
	idgen_layout_default(&first->layout);
	first->start_unix_ms = first->layout.origin_unix_ms;
	first->boundary = 0;
}

/*
 * The lowest time field value, in the new layout, whose IDs all lie above
 * every ID the previous epoch can hold up to the millisecond before start.
 */
static const char *
place_after(const IdgenEpoch *prev, int64_t start_unix_ms,
			const IdgenLayout *shape, int64_t *ms_out)
{
	uint64_t	max_old;
	uint64_t	ms;
	int			shift = idgen_layout_time_shift(shape);

	max_old = idgen_layout_max_at(&prev->layout,
								  start_unix_ms - 1 - prev->layout.origin_unix_ms);
	/* max_old + 1 <= 2^63, so neither the sum nor the rounding overflows */
	ms = (max_old + 1 + ((UINT64_C(1) << shift) - 1)) >> shift;
	if (ms > (uint64_t) idgen_layout_max_ms(shape))
		return "its time field cannot hold IDs above those of the previous layout";
	*ms_out = (int64_t) ms;
	return NULL;
}

const char *
idgen_epochs_plan(const IdgenEpochList *list, int64_t start_unix_ms,
				  int region_bits, int worker_bits, int seq_bits,
				  IdgenEpoch *out)
{
	const IdgenEpoch *prev = &list->epochs[list->count - 1];
	IdgenLayout shape;
	const char *problem;
	int64_t		ms;

	if (list->count >= IDGEN_MAX_EPOCHS)
		return "there are 15 layout epochs already, the most an idgen128 can name";
	if (region_bits < 0 || worker_bits < 0 || seq_bits < 0 ||
		region_bits > IDGEN_MAX_FIELD_BITS || worker_bits > IDGEN_MAX_FIELD_BITS ||
		seq_bits > IDGEN_MAX_FIELD_BITS)
		return "each field must have between 0 and 22 bits (the sequence at least 1)";
	if (region_bits + worker_bits + seq_bits > IDGEN_MAX_NODE_BITS)
		return "region, worker and sequence bits add up to more than 22, the node field of an idgen128";
	if (start_unix_ms <= prev->start_unix_ms)
		return "it must apply after the start of the latest layout epoch";

	shape.origin_unix_ms = 0;
	shape.region_bits = region_bits;
	shape.worker_bits = worker_bits;
	shape.seq_bits = seq_bits;
	problem = idgen_layout_check(&shape);
	if (problem != NULL)
		return problem;

	problem = place_after(prev, start_unix_ms, &shape, &ms);
	if (problem != NULL)
		return problem;
	if (start_unix_ms - ms < 0)
		return "its time field would have to start before 1970 to sort above the previous layout's IDs";
	shape.origin_unix_ms = start_unix_ms - ms;
	problem = idgen_layout_check(&shape);
	if (problem != NULL)
		return problem;

	out->version = prev->version + 1;
	out->start_unix_ms = start_unix_ms;
	out->layout = shape;
	out->boundary = idgen_layout_min_at(&shape, ms);
	return NULL;
}

const char *
idgen_epochs_append(IdgenEpochList *list, const IdgenEpoch *epoch)
{
	const IdgenEpoch *prev = &list->epochs[list->count - 1];
	IdgenEpoch	e = *epoch;
	const char *problem;
	int64_t		ms;
	int64_t		min_ms;

	if (list->count >= IDGEN_MAX_EPOCHS)
		return "more than 15 layout epochs";
	if (e.version != prev->version + 1)
		return "epoch numbers are not consecutive";
	if (e.start_unix_ms <= prev->start_unix_ms)
		return "an epoch starts no later than the one before it";
	problem = idgen_layout_check(&e.layout);
	if (problem != NULL)
		return problem;
	if (idgen_layout_time_shift(&e.layout) > IDGEN_MAX_NODE_BITS)
		return "more than 22 bits below the time field";
	ms = e.start_unix_ms - e.layout.origin_unix_ms;
	if (ms < 0 || ms > idgen_layout_max_ms(&e.layout))
		return "the epoch's start lies outside its own time field";
	/* the same rule idgen_epochs_plan() placed it by */
	if (place_after(prev, e.start_unix_ms, &e.layout, &min_ms) != NULL || ms < min_ms)
		return "its IDs would not all sort above the previous layout's";
	e.boundary = idgen_layout_min_at(&e.layout, ms);
	list->epochs[list->count++] = e;
	return NULL;
}

const IdgenEpoch *
idgen_epochs_for_id(const IdgenEpochList *list, uint64_t id)
{
	int			i;

	for (i = list->count - 1; i > 0; i--)
	{
		if (list->epochs[i].boundary <= id)
			return &list->epochs[i];
	}
	return &list->epochs[0];
}

const IdgenEpoch *
idgen_epochs_at(const IdgenEpochList *list, int64_t unix_ms)
{
	int			i;

	for (i = list->count - 1; i > 0; i--)
	{
		if (list->epochs[i].start_unix_ms <= unix_ms)
			return &list->epochs[i];
	}
	return &list->epochs[0];
}

int64_t
idgen_epochs_compare_ms(const IdgenEpochList *list, uint64_t id)
{
	const IdgenEpoch *e = idgen_epochs_for_id(list, id);
	IdgenFields fields;
	int64_t		ms;

	idgen_layout_decompose(&e->layout, id, &fields);
	ms = fields.ms + e->layout.origin_unix_ms;
	if (e < &list->epochs[list->count - 1] && ms >= e[1].start_unix_ms)
		ms = e[1].start_unix_ms - 1;
	return ms;
}

int64_t
idgen_epochs_last_id_before(const IdgenEpochList *list, int64_t unix_ms)
{
	const IdgenEpoch *e = idgen_epochs_at(list, unix_ms);
	int64_t		rel = unix_ms - e->layout.origin_unix_ms;
	bool		last = e == &list->epochs[list->count - 1];

	/*
	 * Every ID of the earlier epochs is before unix_ms, and none of the later
	 * ones (they start after it); of e's own IDs those below its lowest ID of
	 * that millisecond.  Before the first epoch's time field starts no ID is
	 * (e is then the first epoch, whose boundary is 0).
	 */
	if (rel <= 0)
		return (int64_t) e->boundary - 1;
	if (rel > idgen_layout_max_ms(&e->layout))
		return last ? IDGEN_ID_MAX : (int64_t) e[1].boundary - 1;
	return (int64_t) idgen_layout_min_at(&e->layout, rel) - 1;
}

const IdgenEpoch *
idgen_epochs_version(const IdgenEpochList *list, int version)
{
	if (version < 1 || version > list->count)
		return NULL;
	return &list->epochs[version - 1];
}

void
idgen_epochs_min_bits(const IdgenEpochList *list, int64_t unix_ms,
					  int *region_bits, int *worker_bits)
{
	const IdgenEpoch *e = idgen_epochs_at(list, unix_ms);
	int			i;

	*region_bits = e->layout.region_bits;
	*worker_bits = e->layout.worker_bits;
	for (i = e->version; i < list->count; i++)
	{
		if (list->epochs[i].layout.region_bits < *region_bits)
			*region_bits = list->epochs[i].layout.region_bits;
		if (list->epochs[i].layout.worker_bits < *worker_bits)
			*worker_bits = list->epochs[i].layout.worker_bits;
	}
}

const char *
idgen_epochs_load(IdgenEpochList *list, const IdgenEpoch *rows, int nrows,
				  int *bad_version)
{
	int			i;

	idgen_epochs_init(list);
	if (nrows > IDGEN_MAX_EPOCHS)
	{
		*bad_version = IDGEN_MAX_EPOCHS + 1;
		return "there are more layout epochs than an idgen128 can name";
	}
	for (i = 0; i < nrows; i++)
	{
		const IdgenEpoch *e = &rows[i];
		const char *problem = NULL;

		if (i == 0)
		{
			const IdgenEpoch *first = &list->epochs[0];

			if (e->version != 1 || e->start_unix_ms != first->start_unix_ms ||
				e->layout.origin_unix_ms != first->layout.origin_unix_ms ||
				e->layout.region_bits != first->layout.region_bits ||
				e->layout.worker_bits != first->layout.worker_bits ||
				e->layout.seq_bits != first->layout.seq_bits)
				problem = "epoch 1 is not the built-in layout";
		}
		else
			problem = idgen_epochs_append(list, e);
		if (problem != NULL)
		{
			*bad_version = e->version;
			idgen_epochs_init(list);
			return problem;
		}
	}
	return NULL;
}
