/*
 * type_idgen.c - input, output and casts of the 64-bit idgen type
 *
 * idgen is stored exactly like int8, so comparison, hashing, sorting and
 * BRIN reuse PostgreSQL's int8 functions (see the install script); only
 * what must reject negatives or odd spellings lives here.
 */
#include "base.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "core/idtext.h"

/* idgen_in: strict decimal, so a value has one spelling (bar leading zeros) */
PG_FUNCTION_INFO_V1(idgen_in);
Datum
idgen_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	uint64		value;

	switch (idgen_parse_u63(text, strlen(text), &value))
	{
		case IDGEN_PARSE_OK:
			break;
		case IDGEN_PARSE_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value \"%s\" is out of range for type idgen", text),
					 errdetail("An idgen is between 0 and 9223372036854775807.")));
			break;
		case IDGEN_PARSE_SYNTAX:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type idgen: \"%s\"", text),
					 errdetail("An idgen is written as decimal digits only, without sign, spaces or separators.")));
			break;
	}
	PG_RETURN_INT64((int64) value);
}

/* idgen_out: values are never negative, so plain unsigned formatting */
PG_FUNCTION_INFO_V1(idgen_out);
Datum
idgen_out(PG_FUNCTION_ARGS)
{
	int64		value = PG_GETARG_INT64(0);
	char	   *buf = palloc(21);

	idgen_format_u63((uint64) value, buf);
	PG_RETURN_CSTRING(buf);
}

/* idgen_recv: int8 wire format, but a negative value is not an idgen */
PG_FUNCTION_INFO_V1(idgen_recv);
Datum
idgen_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int64		value;

	if (buf->len - buf->cursor != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary length for type idgen: %d bytes",
						buf->len - buf->cursor),
				 errdetail("An idgen is sent as exactly 8 bytes.")));
	value = pq_getmsgint64(buf);
	if (value < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value %lld is out of range for type idgen",
						(long long) value)));
	PG_RETURN_INT64(value);
}

/* idgen_from_bigint: the assignment cast; negatives are never IDs */
PG_FUNCTION_INFO_V1(idgen_from_bigint);
Datum
idgen_from_bigint(PG_FUNCTION_ARGS)
{
	int64		value = PG_GETARG_INT64(0);

	if (value < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bigint value %lld is out of range for type idgen",
						(long long) value),
				 errdetail("An idgen is between 0 and 9223372036854775807.")));
	PG_RETURN_INT64(value);
}

/* idgen_from_integer: lets integer literals be assigned to idgen columns */
PG_FUNCTION_INFO_V1(idgen_from_integer);
Datum
idgen_from_integer(PG_FUNCTION_ARGS)
{
	int32		value = PG_GETARG_INT32(0);

	if (value < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("integer value %d is out of range for type idgen", value),
				 errdetail("An idgen is between 0 and 9223372036854775807.")));
	PG_RETURN_INT64((int64) value);
}
