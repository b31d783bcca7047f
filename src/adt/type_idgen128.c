/*
 * type_idgen128.c - the 128-bit idgen128 type: a UUIDv7 that decodes
 *
 * Stored exactly like uuid, so comparison, hashing, sorting (with
 * abbreviated keys) and BRIN reuse PostgreSQL's uuid functions (see the
 * install script).  What is here checks that a value really is a UUIDv7
 * and makes new ones from the node's logical clock.
 */
#include "base.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

#include "sql_epoch.h"
#include "generate.h"
#include "sql_generate.h"
#include "core/idtext.h"
#include "core/siphash.h"
#include "core/uuid7.h"

static const char *
variant_name(uint8 byte8)
{
	if ((byte8 & 0x80) == 0)
		return "0 (NCS)";
	if ((byte8 & 0xC0) == 0x80)
		return "10 (RFC 9562)";
	if ((byte8 & 0xE0) == 0xC0)
		return "110 (Microsoft)";
	return "111 (reserved)";
}

static void
check_v7(const uint8 *bytes, const char *shown, int sqlstate, const char *what)
{
	if (!idgen_uuid7_is_v7(bytes))
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("%s for type idgen128: \"%s\"", what, shown),
				 errdetail("An idgen128 is a UUIDv7 (version 7, variant 10); this value has version %d and variant %s.",
						   bytes[6] >> 4, variant_name(bytes[8]))));
}

/* idgen128_in: uuid's spellings, but only a version 7 / variant 10 value */
PG_FUNCTION_INFO_V1(idgen128_in);
Datum
idgen128_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	pg_uuid_t  *uuid = palloc(sizeof(pg_uuid_t));

	if (idgen_parse_uuid(text, strlen(text), uuid->data) != IDGEN_PARSE_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type idgen128: \"%s\"", text),
				 errdetail("An idgen128 is written as a UUID: 32 hexadecimal digits, optionally with hyphens and braces.")));
	check_v7(uuid->data, text, ERRCODE_INVALID_TEXT_REPRESENTATION,
			 "invalid input syntax");
	PG_RETURN_UUID_P(uuid);
}

/* idgen128_out: the canonical lowercase form */
PG_FUNCTION_INFO_V1(idgen128_out);
Datum
idgen128_out(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *uuid = PG_GETARG_UUID_P(0);
	char	   *buf = palloc(37);

	idgen_format_uuid(uuid->data, buf);
	PG_RETURN_CSTRING(buf);
}

/* idgen128_recv: uuid's wire format, checked like text input */
PG_FUNCTION_INFO_V1(idgen128_recv);
Datum
idgen128_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	pg_uuid_t  *uuid;
	char		shown[37];

	if (buf->len - buf->cursor != UUID_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary length for type idgen128: %d bytes",
						buf->len - buf->cursor),
				 errdetail("An idgen128 is sent as exactly 16 bytes.")));
	uuid = palloc(sizeof(pg_uuid_t));
	memcpy(uuid->data, pq_getmsgbytes(buf, UUID_LEN), UUID_LEN);
	if (!idgen_uuid7_is_v7(uuid->data))
	{
		idgen_format_uuid(uuid->data, shown);
		check_v7(uuid->data, shown, ERRCODE_INVALID_BINARY_REPRESENTATION,
				 "invalid binary value");
	}
	PG_RETURN_UUID_P(uuid);
}

/* idgen128(uuid): the explicit cast, checking version and variant */
PG_FUNCTION_INFO_V1(idgen128_from_uuid);
Datum
idgen128_from_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *in = PG_GETARG_UUID_P(0);
	char		shown[37];

	if (!idgen_uuid7_is_v7(in->data))
	{
		idgen_format_uuid(in->data, shown);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("uuid \"%s\" is not a UUIDv7, so it cannot be cast to idgen128", shown),
				 errdetail("It has version %d and variant %s; an idgen128 has version 7 and variant 10.",
						   in->data[6] >> 4, variant_name(in->data[8]))));
	}
	PG_RETURN_UUID_P(in);
}

/*
 * 48 random bits per ID, from pg_strong_random in bulk: one call per 680
 * IDs instead of one per ID keeps the generator fast.
 */
static uint64
random48(void)
{
	static uint8 pool[4080];
	static int	used = sizeof(pool);
	uint64		r = 0;
	int			i;

	if (used + 6 > (int) sizeof(pool))
	{
		if (!pg_strong_random(pool, sizeof(pool)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate random bytes for idgen128")));
		used = 0;
	}
	for (i = 0; i < 6; i++)
		r = (r << 8) | pool[used++];
	return r;
}

/* the tail of a keyed batch's i-th ID: the same on every retry */
static uint64
keyed_tail(const IdgenBatch *batch, uint64 i)
{
	uint8		tick[8];
	uint64		t = batch->first_tick + i;
	int			k;

	for (k = 0; k < 8; k++)
		tick[k] = (uint8) (t >> (8 * k));
	return idgen_siphash24(batch->tail_key, tick, sizeof(tick)) & ((UINT64CONST(1) << 48) - 1);
}

static pg_uuid_t *
batch_uuid(const IdgenBatch *batch, uint64 i)
{
	uint64		id = (uint64) idgen_batch_id(batch, i);
	IdgenUuid7Fields f;
	pg_uuid_t  *uuid = palloc(sizeof(pg_uuid_t));

	f.unix_ms = (int64) (id >> batch->time_shift) + batch->origin_unix_ms;
	f.node = (uint32) (id & ((UINT64CONST(1) << batch->time_shift) - 1));
	f.epoch = batch->epoch_version;
	f.random = batch->tail_keyed ? keyed_tail(batch, i) : random48();
	idgen_uuid7_compose(&f, uuid->data);
	return uuid;
}

/* idgen_next128(): the next 128-bit ID of this node */
PG_FUNCTION_INFO_V1(idgen_next128);
Datum
idgen_next128(PG_FUNCTION_ARGS)
{
	IdgenBatch	batch;

	idgen_generate_single(&batch, IDGEN_WIDTH_128);
	PG_RETURN_UUID_P(batch_uuid(&batch, 0));
}

static Datum
batch_id128(const IdgenBatch *batch, uint64 i)
{
	return UUIDPGetDatum(batch_uuid(batch, i));
}

/* idgen_next128_batch(count): like idgen_next_batch, 128 bits wide */
PG_FUNCTION_INFO_V1(idgen_next128_batch);
Datum
idgen_next128_batch(PG_FUNCTION_ARGS)
{
	return idgen_batch_srf(fcinfo, IDGEN_WIDTH_128, batch_id128);
}

/* idgen.batch_run_ids128(run): a keyed idgen128 batch's IDs again */
PG_FUNCTION_INFO_V1(idgen_batch_run_ids128);
Datum
idgen_batch_run_ids128(PG_FUNCTION_ARGS)
{
	IdgenBatch	batch;

	idgen_batch_from_args(fcinfo, &batch);
	return idgen_batch_srf_given(fcinfo, &batch, batch_id128);
}

/* idgen_decode(idgen128): (ts, region, worker, seq, epoch) */
PG_FUNCTION_INFO_V1(idgen128_decode);
Datum
idgen128_decode(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *uuid = PG_GETARG_UUID_P(0);
	IdgenUuid7Fields f;
	const IdgenEpoch *e;
	IdgenFields fields;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "idgen_decode must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);

	idgen_uuid7_decompose(uuid->data, &f);
	values[0] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(f.unix_ms));
	values[4] = Int32GetDatum(f.epoch);
	/* the node field is the low bits of the 64-bit layout of its epoch */
	e = idgen_epochs_version(idgen_epoch_list(), f.epoch);
	if (e != NULL)
	{
		idgen_layout_decompose(&e->layout, (uint64) f.node, &fields);
		values[1] = Int32GetDatum((int32) fields.region);
		values[2] = Int32GetDatum((int32) fields.worker);
		values[3] = Int32GetDatum((int32) fields.seq);
	}
	else
	{
		/* a UUIDv7 made elsewhere, or under an epoch not known here */
		nulls[1] = nulls[2] = nulls[3] = true;
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* idgen_timestamp(idgen128): the UUIDv7's millisecond */
PG_FUNCTION_INFO_V1(idgen128_timestamp);
Datum
idgen128_timestamp(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *uuid = PG_GETARG_UUID_P(0);
	IdgenUuid7Fields f;

	idgen_uuid7_decompose(uuid->data, &f);
	PG_RETURN_TIMESTAMPTZ(idgen_unix_ms_to_timestamptz(f.unix_ms));
}

/*
 * idgen128_larger / idgen128_smaller: the steps of max() and min(), also
 * their combine functions.  uuid has no such functions before PostgreSQL
 * 16; the order is uuid's, bytewise.  Returning an argument itself is what
 * text_larger does too: the aggregate machinery copies it when it keeps it.
 */
PG_FUNCTION_INFO_V1(idgen128_larger);
Datum
idgen128_larger(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *a = PG_GETARG_UUID_P(0);
	pg_uuid_t  *b = PG_GETARG_UUID_P(1);

	PG_RETURN_UUID_P(memcmp(a->data, b->data, UUID_LEN) >= 0 ? a : b);
}

PG_FUNCTION_INFO_V1(idgen128_smaller);
Datum
idgen128_smaller(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *a = PG_GETARG_UUID_P(0);
	pg_uuid_t  *b = PG_GETARG_UUID_P(1);

	PG_RETURN_UUID_P(memcmp(a->data, b->data, UUID_LEN) <= 0 ? a : b);
}
