/*
 * sql_typeid.c - TypeID text in SQL: idgen_typeid(), idgen128_from_typeid(),
 * uuid_from_typeid() and typeid_prefix()
 *
 * The text form is pure C (typeid.h).  What is here are the errors: a bad
 * TypeID, one with another prefix than the caller asked for, or (for
 * idgen128) one that does not hold a UUIDv7 is invalid input, 22P02; a bad
 * prefix argument is an invalid parameter, 22023.  The reading functions
 * take the expected prefix as an optional second argument: NULL (the
 * default) accepts any prefix, '' only a TypeID without one.  They are not
 * STRICT for that reason, and return NULL for a NULL TypeID themselves.
 */
#include "base.h"

#include "utils/builtins.h"
#include "utils/uuid.h"

#include "core/typeid.h"
#include "core/uuid7.h"

static text *
make_typeid(const pg_uuid_t *uuid, text *prefix)
{
	char		out[IDGEN_TYPEID_MAX_LEN + 1];
	size_t		len;
	const char *why;

	why = idgen_typeid_format(VARDATA_ANY(prefix), VARSIZE_ANY_EXHDR(prefix),
							  uuid->data, out, &len);
	if (why != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid TypeID prefix: \"%s\"", text_to_cstring(prefix)),
				 errdetail("%s", why)));
	return cstring_to_text_with_len(out, (int) len);
}

/* idgen_typeid(idgen128 or uuid, prefix): both are 16 bytes the same way */
PG_FUNCTION_INFO_V1(idgen_typeid_from_uuid);
Datum
idgen_typeid_from_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(make_typeid(PG_GETARG_UUID_P(0), PG_GETARG_TEXT_PP(1)));
}

/*
 * Read the TypeID in argument 0, checking its prefix against argument 1
 * unless that is NULL.  Returns the prefix length.
 */
static size_t
read_typeid(FunctionCallInfo fcinfo, pg_uuid_t *uuid)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	const char *data = VARDATA_ANY(t);
	size_t		len = VARSIZE_ANY_EXHDR(t);
	size_t		plen;
	const char *why;

	why = idgen_typeid_parse(data, len, &plen, uuid->data);
	if (why != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid TypeID: \"%s\"", text_to_cstring(t)),
				 errdetail("%s", why)));
	if (PG_NARGS() > 1 && !PG_ARGISNULL(1))
	{
		text	   *want = PG_GETARG_TEXT_PP(1);
		size_t		wlen = VARSIZE_ANY_EXHDR(want);

		why = idgen_typeid_check_prefix(VARDATA_ANY(want), wlen);
		if (why != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid TypeID prefix: \"%s\"", text_to_cstring(want)),
					 errdetail("%s", why)));
		if (wlen != plen || memcmp(VARDATA_ANY(want), data, plen) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("wrong TypeID prefix in \"%s\": expected \"%s\"",
							text_to_cstring(t), text_to_cstring(want)),
					 plen == 0
					 ? errdetail("It has no prefix.")
					 : errdetail("Its prefix is \"%.*s\".", (int) plen, data)));
	}
	return plen;
}

/* uuid_from_typeid(text, prefix): any UUID, also the nil and max ones */
PG_FUNCTION_INFO_V1(idgen_uuid_from_typeid);
Datum
idgen_uuid_from_typeid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *uuid;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	uuid = palloc(sizeof(pg_uuid_t));
	(void) read_typeid(fcinfo, uuid);
	PG_RETURN_UUID_P(uuid);
}

/* idgen128_from_typeid(text, prefix): as idgen128's input, only a UUIDv7 */
PG_FUNCTION_INFO_V1(idgen128_from_typeid);
Datum
idgen128_from_typeid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *uuid;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	uuid = palloc(sizeof(pg_uuid_t));
	(void) read_typeid(fcinfo, uuid);
	if (!idgen_uuid7_is_v7(uuid->data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid TypeID for type idgen128: \"%s\"",
						text_to_cstring(PG_GETARG_TEXT_PP(0))),
				 errdetail("An idgen128 is a UUIDv7 (version 7, variant 10); this TypeID holds version %d and variant bits %d%d.",
						   uuid->data[6] >> 4, (uuid->data[8] >> 7) & 1,
						   (uuid->data[8] >> 6) & 1),
				 errhint("uuid_from_typeid() reads any UUID.")));
	PG_RETURN_UUID_P(uuid);
}

/* typeid_prefix(text): the prefix of a valid TypeID, '' if it has none */
PG_FUNCTION_INFO_V1(idgen_typeid_prefix);
Datum
idgen_typeid_prefix(PG_FUNCTION_ARGS)
{
	pg_uuid_t	uuid;
	size_t		plen = read_typeid(fcinfo, &uuid);

	PG_RETURN_TEXT_P(cstring_to_text_with_len(VARDATA_ANY(PG_GETARG_TEXT_PP(0)),
											  (int) plen));
}
