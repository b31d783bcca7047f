/*
 * timecmp.c - comparing IDs with timestamps, so "id >= now() - interval
 * '1 day'" is answered from the ID's btree index
 *
 * An ID compares with a timestamp by millisecond: the ID's millisecond
 * against the millisecond that contains the timestamp.  That is monotone in
 * the ID, which is all a btree operator family needs.  There is no
 * cross-type equality on purpose: two timestamps within one millisecond
 * would both "equal" the same ID, and the planner would take that as a
 * proof that they equal each other.
 */
#include "idgen.h"

#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "uuid7.h"

/* the ID's millisecond minus the timestamp's, as -1, 0 or 1 */
static int
cmp_id_ts(int64 id, TimestampTz ts)
{
	IdgenLayout layout;
	int64		id_ms;
	int64		ts_ms;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		return 1;
	if (TIMESTAMP_IS_NOEND(ts))
		return -1;
	idgen_current_layout(&layout);
	id_ms = (id >> idgen_layout_time_shift(&layout)) + layout.epoch_unix_ms;
	ts_ms = idgen_timestamptz_to_unix_ms(ts);
	return (id_ms > ts_ms) - (id_ms < ts_ms);
}

static int
cmp_id128_ts(const pg_uuid_t *id, TimestampTz ts)
{
	IdgenUuid7Fields f;
	int64		ts_ms;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		return 1;
	if (TIMESTAMP_IS_NOEND(ts))
		return -1;
	idgen_uuid7_decompose(id->data, &f);
	ts_ms = idgen_timestamptz_to_unix_ms(ts);
	return (f.unix_ms > ts_ms) - (f.unix_ms < ts_ms);
}

#define IDGEN_TS_CMP_FUNCS(name, getid, cmpfn) \
PG_FUNCTION_INFO_V1(name##_cmp_ts); \
Datum name##_cmp_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_INT32(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1))); } \
PG_FUNCTION_INFO_V1(name##_lt_ts); \
Datum name##_lt_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) < 0); } \
PG_FUNCTION_INFO_V1(name##_le_ts); \
Datum name##_le_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) <= 0); } \
PG_FUNCTION_INFO_V1(name##_gt_ts); \
Datum name##_gt_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) > 0); } \
PG_FUNCTION_INFO_V1(name##_ge_ts); \
Datum name##_ge_ts(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(0), PG_GETARG_TIMESTAMPTZ(1)) >= 0); } \
PG_FUNCTION_INFO_V1(ts_cmp_##name); \
Datum ts_cmp_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_INT32(-cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0))); } \
PG_FUNCTION_INFO_V1(ts_lt_##name); \
Datum ts_lt_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) > 0); } \
PG_FUNCTION_INFO_V1(ts_le_##name); \
Datum ts_le_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) >= 0); } \
PG_FUNCTION_INFO_V1(ts_gt_##name); \
Datum ts_gt_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) < 0); } \
PG_FUNCTION_INFO_V1(ts_ge_##name); \
Datum ts_ge_##name(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmpfn(getid(1), PG_GETARG_TIMESTAMPTZ(0)) <= 0); }

IDGEN_TS_CMP_FUNCS(idgen, PG_GETARG_INT64, cmp_id_ts)
IDGEN_TS_CMP_FUNCS(idgen128, PG_GETARG_UUID_P, cmp_id128_ts)
