/*
 * gwdecode.c - idgen_decode() outside PostgreSQL (see gwdecode.h)
 *
 * The rules are adt/sql_decode.c's and adt/type_idgen128.c's: a 64-bit ID's epoch is
 * found from its value, a 128-bit ID names its own.
 */
#include "gwdecode.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "idtext.h"
#include "layout.h"
#include "uuid7.h"

const char *
gw_epochs_from_rows(IdgenEpochList *list, const IdgenEpoch *rows, int nrows,
					char *err, size_t err_len)
{
	int			version;
	const char *problem = idgen_epochs_load(list, rows, nrows, &version);

	if (problem == NULL)
		return NULL;
	snprintf(err, err_len, "idgen.epoch row %d is not a valid layout epoch: %s",
			 version, problem);
	return err;
}

void
gw_decode(const IdgenEpochList *list, const GwId *id, GwDecoded *out)
{
	IdgenFields fields;

	memset(out, 0, sizeof(*out));
	out->is128 = id->is128;
	if (!id->is128)
	{
		const IdgenEpoch *e = idgen_epochs_for_id(list, (uint64_t) id->v64);

		idgen_layout_decompose(&e->layout, (uint64_t) id->v64, &fields);
		/* a leased range's ID: no time, node or sequence; epoch 0 says so */
		if (fields.ms + e->layout.origin_unix_ms < IDGEN_RANGE_SPACE_END_UNIX_MS)
			return;
		out->has_ts = 1;
		out->unix_ms = fields.ms + e->layout.origin_unix_ms;
		out->has_node = 1;
		out->region = fields.region;
		out->worker = fields.worker;
		out->seq = fields.seq;
		out->epoch = e->version;
	}
	else
	{
		IdgenUuid7Fields f;
		const IdgenEpoch *e;

		out->is_v7 = idgen_uuid7_is_v7(id->v128);
		idgen_uuid7_decompose(id->v128, &f);
		out->has_ts = 1;
		out->unix_ms = f.unix_ms;
		out->epoch = f.epoch;
		/* the node field is the low bits of the 64-bit layout of its epoch */
		e = idgen_epochs_version(list, f.epoch);
		if (e != NULL)
		{
			idgen_layout_decompose(&e->layout, (uint64_t) f.node, &fields);
			out->has_node = 1;
			out->region = fields.region;
			out->worker = fields.worker;
			out->seq = fields.seq;
		}
	}
}

/* floor division, so instants before 1970 fall in the right day */
static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* json: "2026-03-01T12:34:56.789+00:00" rather than "2026-03-01 12:34:56.789+00" */
static void
format_unix_ms(int64_t unix_ms, int json, char *buf, size_t len)
{
	int64_t		days = floor_div(unix_ms, INT64_C(86400000));
	int64_t		in_day = unix_ms - days * INT64_C(86400000);
	int64_t		era;
	int64_t		doe;
	int64_t		yoe;
	int64_t		doy;
	int64_t		mp;
	int64_t		year;
	int			month;
	int			day;
	int			ms = (int) (in_day % 1000);
	char		frac[8] = "";

	/*
	 * The proleptic Gregorian calendar in 400-year eras counted from
	 * 0000-03-01, so the leap day falls at the end of a year.
	 */
	days += 719468;
	era = floor_div(days, 146097);
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	day = (int) (doy - (153 * mp + 2) / 5 + 1);
	month = (int) (mp < 10 ? mp + 3 : mp - 9);
	year = yoe + era * 400 + (month <= 2 ? 1 : 0);

	/* timestamptz's text drops trailing zeros of the fraction */
	if (ms != 0)
	{
		snprintf(frac, sizeof(frac), ".%03d", ms);
		while (frac[strlen(frac) - 1] == '0')
			frac[strlen(frac) - 1] = '\0';
	}
	snprintf(buf, len, "%04" PRId64 "-%02d-%02d%c%02d:%02d:%02d%s%s",
			 year, month, day, json ? 'T' : ' ', (int) (in_day / 3600000),
			 (int) (in_day / 60000 % 60), (int) (in_day / 1000 % 60), frac,
			 json ? "+00:00" : "+00");
}

void
gw_format_unix_ms(int64_t unix_ms, char *buf, size_t len)
{
	format_unix_ms(unix_ms, 0, buf, len);
}

void
gw_format_unix_ms_json(int64_t unix_ms, char *buf, size_t len)
{
	format_unix_ms(unix_ms, 1, buf, len);
}

void
gw_format_id(const GwId *id, char *buf, size_t len)
{
	char		tmp[37];

	if (id->is128)
		idgen_format_uuid(id->v128, tmp);
	else
		idgen_format_u63((uint64_t) id->v64, tmp);
	snprintf(buf, len, "%s", tmp);
}

int
gw_decoded_json(const GwId *id, const GwDecoded *d, char *buf, size_t len)
{
	char		idtext[37];
	char		ts[48] = "null";
	char		region[16] = "null";
	char		worker[16] = "null";
	char		seq[16] = "null";

	gw_format_id(id, idtext, sizeof(idtext));
	if (d->has_ts)
	{
		ts[0] = '"';
		gw_format_unix_ms_json(d->unix_ms, ts + 1, sizeof(ts) - 2);
		strcat(ts, "\"");
	}
	if (d->has_node)
	{
		snprintf(region, sizeof(region), "%" PRIu32, d->region);
		snprintf(worker, sizeof(worker), "%" PRIu32, d->worker);
		snprintf(seq, sizeof(seq), "%" PRIu32, d->seq);
	}
	return snprintf(buf, len,
					"{\"id\": \"%s\", \"ts\": %s, \"region\": %s, \"worker\": %s, "
					"\"seq\": %s, \"epoch\": %d}",
					idtext, ts, region, worker, seq, d->epoch);
}
