/*
 * sql_decode.c - taking 64-bit IDs apart, and IDs bounding a moment in time
 *
 * Each ID is read with the layout epoch it was issued under, found from its
 * value alone (see epochs.h); a moment in time is read with the epoch in
 * force then.  These work without shared_preload_libraries too (see
 * sql_epoch.c for where the list of epochs comes from).
 */
#include "base.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/timestamp.h"

#include "sql_decode.h"
#include "sql_epoch.h"

/*
 * The layout in force at ts, and ts in its milliseconds, clamped so the
 * infinities stay in range.
 */
static const IdgenLayout *
layout_at(TimestampTz ts, int64 *ms)
{
	const IdgenEpochList *list = idgen_epoch_list();
	const IdgenEpoch *e;

	if (TIMESTAMP_IS_NOBEGIN(ts))
	{
		*ms = -1;
		return &list->epochs[0].layout;
	}
	if (TIMESTAMP_IS_NOEND(ts))
	{
		e = &list->epochs[list->count - 1];
		*ms = idgen_layout_max_ms(&e->layout) + 1;
		return &e->layout;
	}
	e = idgen_epochs_at(list, idgen_timestamptz_to_unix_ms(ts));
	*ms = idgen_timestamptz_to_unix_ms(ts) - e->layout.origin_unix_ms;
	return &e->layout;
}

/* an ID's fields under its own epoch's layout; returns the epoch */
const IdgenEpoch *
idgen_decode_id(int64 id, IdgenFields *fields)
{
	const IdgenEpoch *e = idgen_epochs_for_id(idgen_epoch_list(), (uint64) id);

	idgen_layout_decompose(&e->layout, (uint64) id, fields);
	return e;
}

/* idgen_decode(idgen): (ts, region, worker, seq, epoch) */
PG_FUNCTION_INFO_V1(idgen_decode);
Datum
idgen_decode(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	const IdgenEpoch *e;
	IdgenFields fields;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "idgen_decode must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);

	e = idgen_decode_id(id, &fields);
	if (fields.ms + e->layout.origin_unix_ms < IDGEN_RANGE_SPACE_END_UNIX_MS)
	{
		/* a leased range's ID: no time, node or sequence; epoch 0 says so */
		nulls[0] = nulls[1] = nulls[2] = nulls[3] = true;
		values[4] = Int32GetDatum(0);
	}
	else
	{
		values[0] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(fields.ms +
																	  e->layout.origin_unix_ms));
		values[1] = Int32GetDatum((int32) fields.region);
		values[2] = Int32GetDatum((int32) fields.worker);
		values[3] = Int32GetDatum((int32) fields.seq);
		values[4] = Int32GetDatum(e->version);
	}

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* idgen_timestamp(idgen): the millisecond the ID was issued in */
PG_FUNCTION_INFO_V1(idgen_timestamp);
Datum
idgen_timestamp(PG_FUNCTION_ARGS)
{
	int64		id = PG_GETARG_INT64(0);
	const IdgenEpoch *e;
	IdgenFields fields;

	e = idgen_decode_id(id, &fields);
	/* a leased range's ID carries no time */
	if (fields.ms + e->layout.origin_unix_ms < IDGEN_RANGE_SPACE_END_UNIX_MS)
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ(idgen_unix_ms_to_timestamptz(fields.ms +
													   e->layout.origin_unix_ms));
}

/* idgen_min_at(ts): lowest ID any node can issue in ts's millisecond */
PG_FUNCTION_INFO_V1(idgen_min_at);
Datum
idgen_min_at(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	int64		ms;
	const IdgenLayout *layout = layout_at(ts, &ms);

	PG_RETURN_INT64((int64) idgen_layout_min_at(layout, ms));
}

/* idgen_max_at(ts): highest ID any node can issue in ts's millisecond */
PG_FUNCTION_INFO_V1(idgen_max_at);
Datum
idgen_max_at(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	int64		ms;
	const IdgenLayout *layout = layout_at(ts, &ms);

	PG_RETURN_INT64((int64) idgen_layout_max_at(layout, ms));
}

/* idgen.default_layout(): the built-in layout, as idgen.epoch stores it */
PG_FUNCTION_INFO_V1(idgen_default_layout);
Datum
idgen_default_layout(PG_FUNCTION_ARGS)
{
	IdgenLayout layout;
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "idgen.default_layout must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);

	idgen_layout_default(&layout);
	values[0] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(layout.origin_unix_ms));
	values[1] = Int32GetDatum(idgen_layout_time_bits(&layout));
	values[2] = Int32GetDatum(layout.region_bits);
	values[3] = Int32GetDatum(layout.worker_bits);
	values[4] = Int32GetDatum(layout.seq_bits);
	values[5] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(layout.origin_unix_ms +
																 idgen_layout_max_ms(&layout) + 1));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* idgen.range_space_end(): the lowest ID any node may generate */
PG_FUNCTION_INFO_V1(idgen_range_space_end);
Datum
idgen_range_space_end(PG_FUNCTION_ARGS)
{
	IdgenLayout layout;

	idgen_layout_default(&layout);
	PG_RETURN_INT64((int64) idgen_layout_min_at(&layout,
												IDGEN_RANGE_SPACE_END_UNIX_MS - layout.origin_unix_ms));
}
