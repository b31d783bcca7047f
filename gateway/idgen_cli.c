/*
 * idgen_cli.c - the idgen command-line tool for operators
 *
 *     idgen decode [--registry CONNINFO] [--json] ID
 *     idgen status [--registry CONNINFO] [--json]
 *
 * decode takes an ID apart as idgen_decode() does, with the extension's own
 * layout, epoch and UUIDv7 code compiled in: with the built-in layout alone,
 * or with the layout epochs of a registry's idgen.epoch (an ID issued after
 * a layout change decodes right only with them).  status shows
 * idgen_status() of the instance CONNINFO names and, where the role may read
 * it, the registry's idgen.fleet.
 *
 * Exit status: 0 done, 1 the server could not be asked or refused, 2 a
 * usage error or an ID that is neither an idgen nor an idgen128.
 */
/* strnlen, under -std=c99 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpq-fe.h"

#include "epochs.h"
#include "gwdecode.h"
#include "gwjson.h"
#include "gwrequest.h"
#include "uuid7.h"

/* set by the Makefile from idgen.control; a build without it says so */
#ifndef IDGEN_VERSION
#define IDGEN_VERSION "(version unknown)"
#endif

#define EXIT_SERVER 1
#define EXIT_USAGE 2

#define INT8OID 20
#define INT2OID 21
#define INT4OID 23
#define BOOLOID 16

static const char usage_text[] =
	"usage: idgen decode [--registry CONNINFO] [--json] ID\n"
	"       idgen status [--registry CONNINFO] [--json]\n"
	"\n"
	"  decode    an idgen (decimal) or idgen128 (UUID) as idgen_decode() shows it;\n"
	"            with --registry, under the layout epochs of that registry's\n"
	"            idgen.epoch, else under the built-in layout\n"
	"  status    idgen_status() of the instance CONNINFO names (without\n"
	"            --registry, the one libpq's environment names: PGHOST,\n"
	"            PGPORT, PGDATABASE, PGUSER, PGSERVICE, ...), and its\n"
	"            idgen.fleet when there is one the role may read\n"
	"\n"
	"  --registry CONNINFO   a libpq connection string or URI\n"
	"  --json                one JSON object instead of key: value lines\n"
	"  --version             print the version and exit\n";

typedef struct Options
{
	const char *command;
	const char *registry;
	const char *id;
	int			json;
} Options;

/* longest --registry taken (as idgen-gateway's) and longest ID text shown */
#define CONNINFO_MAX 4096
#define SHOWN_MAX 40

/* an argument as shown in a message: cut, non-printables as '?' */
static const char *
shown(const char *s, char *buf)
{
	size_t		n;

	for (n = 0; s[n] != '\0' && n < SHOWN_MAX; n++)
		buf[n] = s[n] >= 0x20 && s[n] < 0x7f ? s[n] : '?';
	if (s[n] != '\0')
	{
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

static void
fail_usage(const char *msg)
{
	fprintf(stderr, "idgen: %s\n%s", msg, usage_text);
	exit(EXIT_USAGE);
}

static void
parse_args(int argc, char **argv, Options *o)
{
	int			i;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "help") == 0)
		{
			fputs(usage_text, stdout);
			exit(0);
		}
		else if (strcmp(a, "--version") == 0 || strcmp(a, "version") == 0)
		{
			printf("idgen %s\n", IDGEN_VERSION);
			exit(0);
		}
		else if (strcmp(a, "--json") == 0)
			o->json = 1;
		else if (strcmp(a, "--registry") == 0)
		{
			if (i + 1 >= argc)
				fail_usage("--registry needs a connection string");
			o->registry = argv[++i];
		}
		else if (strncmp(a, "--registry=", 11) == 0)
			o->registry = a + 11;
		else if (strcmp(a, "--") == 0 && o->command != NULL && o->id == NULL && i + 1 < argc)
			o->id = argv[++i];
		else if (a[0] == '-' && a[1] == '-')
		{
			char		b[SHOWN_MAX + 4];

			fprintf(stderr, "idgen: unknown option \"%s\"\n%s", shown(a, b), usage_text);
			exit(EXIT_USAGE);
		}
		else if (o->command == NULL)
			o->command = a;
		else if (o->id == NULL)
			o->id = a;
		else
			fail_usage("too many arguments");
	}
	if (o->command == NULL)
		fail_usage("no command given");
	if (o->registry != NULL && strnlen(o->registry, CONNINFO_MAX + 1) > CONNINFO_MAX)
		fail_usage("--registry is longer than 4096 bytes");
	if (strcmp(o->command, "decode") == 0)
	{
		if (o->id == NULL)
			fail_usage("decode needs an ID");
	}
	else if (strcmp(o->command, "status") == 0)
	{
		if (o->id != NULL)
			fail_usage("status takes no ID");
		/* without --registry: libpq's environment and defaults, as psql */
		if (o->registry != NULL && o->registry[0] == '\0')
			fail_usage("--registry needs a connection string");
	}
	else
	{
		char		b[SHOWN_MAX + 4];

		fprintf(stderr, "idgen: unknown command \"%s\"\n%s", shown(o->command, b), usage_text);
		exit(EXIT_USAGE);
	}
}

static PGconn *
connect_to(const char *conninfo)
{
	const char *keys[] = {"fallback_application_name", "dbname", NULL};
	const char *values[] = {"idgen", conninfo, NULL};
	PGconn	   *conn;

	/* no conninfo: only the environment (PGHOST, PGSERVICE, ...) decides */
	if (conninfo == NULL)
		keys[1] = NULL;
	conn = PQconnectdbParams(keys, values, 1);

	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "idgen: could not connect to %s: %s",
				conninfo != NULL ? "the registry" : "the server libpq's environment names",
				conn != NULL ? PQerrorMessage(conn) : "out of memory\n");
		PQfinish(conn);
		exit(EXIT_SERVER);
	}
	return conn;
}

/* a query's result, or the server's message and exit 1 */
static PGresult *
query(PGconn *conn, const char *sql, const char *what)
{
	PGresult   *res = PQexec(conn, sql);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		fprintf(stderr, "idgen: %s failed: %s", what, PQerrorMessage(conn));
		PQclear(res);
		PQfinish(conn);
		exit(EXIT_SERVER);
	}
	return res;
}

static int
cell_int64(const PGresult *res, int row, int col, int64_t *out)
{
	const char *s;
	char	   *end;
	long long	v;

	if (PQgetisnull(res, row, col))
		return 0;
	s = PQgetvalue(res, row, col);
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0')
		return 0;
	*out = (int64_t) v;
	return 1;
}

/* the registry's layout epochs, checked as the extension checks them */
static void
read_epochs(const char *conninfo, IdgenEpochList *list)
{
	PGconn	   *conn = connect_to(conninfo);
	PGresult   *res;
	IdgenEpoch	rows[IDGEN_MAX_EPOCHS];
	char		err[200];
	const char *problem;
	int			n;
	int			i;

	res = query(conn,
				"SELECT version, "
				"floor(extract(epoch FROM start_time) * 1000)::bigint, "
				"floor(extract(epoch FROM epoch_start) * 1000)::bigint, "
				"region_bits, worker_bits, seq_bits "
				"FROM idgen.epoch ORDER BY version",
				"reading idgen.epoch");
	n = PQntuples(res);
	if (n > IDGEN_MAX_EPOCHS)
	{
		fprintf(stderr, "idgen: idgen.epoch has more than %d rows\n", IDGEN_MAX_EPOCHS);
		PQclear(res);
		PQfinish(conn);
		exit(EXIT_SERVER);
	}
	for (i = 0; i < n; i++)
	{
		int64_t		v[6];
		int			c;

		for (c = 0; c < 6; c++)
			if (!cell_int64(res, i, c, &v[c]))
			{
				fprintf(stderr, "idgen: idgen.epoch row %d has an unreadable column %d\n", i + 1, c + 1);
				PQclear(res);
				PQfinish(conn);
				exit(EXIT_SERVER);
			}
		memset(&rows[i], 0, sizeof(rows[i]));
		rows[i].version = (int) v[0];
		rows[i].start_unix_ms = v[1];
		rows[i].layout.origin_unix_ms = v[2];
		rows[i].layout.region_bits = (int) v[3];
		rows[i].layout.worker_bits = (int) v[4];
		rows[i].layout.seq_bits = (int) v[5];
	}
	PQclear(res);
	PQfinish(conn);
	problem = gw_epochs_from_rows(list, rows, n, err, sizeof(err));
	if (problem != NULL)
	{
		fprintf(stderr, "idgen: %s\n", problem);
		exit(EXIT_SERVER);
	}
}

static int
cmd_decode(const Options *o)
{
	IdgenEpochList list;
	GwId		id;
	GwDecoded	d;
	GwProblem	p;
	char		idtext[40];
	char		ts[48];

	p = gw_parse_id(o->id, &id);
	if (p.status != 0)
	{
		char		b[SHOWN_MAX + 4];

		fprintf(stderr, "idgen: invalid ID \"%s\": %s\n", shown(o->id, b), p.reason);
		fprintf(stderr, "An ID is an idgen in decimal (0 to 9223372036854775807) or an idgen128 as a UUID (8-4-4-4-12 hexadecimal digits).\n");
		return EXIT_USAGE;
	}
	if (id.is128)
	{
		GwDecoded	probe;

		/* refused before any connection, as idgen128's input refuses it */
		idgen_epochs_init(&list);
		gw_decode(&list, &id, &probe);
		if (!probe.is_v7)
		{
			fprintf(stderr, "idgen: \"%s\" is not an idgen128: an idgen128 is a UUIDv7 (version 7, variant 10); this value has version %d and variant %s\n",
					o->id, id.v128[6] >> 4, idgen_uuid_variant_name(id.v128[8]));
			return EXIT_USAGE;
		}
	}
	if (o->registry != NULL)
		read_epochs(o->registry, &list);
	else
		idgen_epochs_init(&list);

	gw_decode(&list, &id, &d);
	if (o->json)
	{
		char		buf[256];

		gw_decoded_json(&id, &d, buf, sizeof(buf));
		printf("%s\n", buf);
		return 0;
	}
	gw_format_id(&id, idtext, sizeof(idtext));
	printf("id: %s\n", idtext);
	if (d.has_ts)
	{
		gw_format_unix_ms(d.unix_ms, ts, sizeof(ts));
		printf("ts: %s\n", ts);
	}
	else
		printf("ts:\n");
	if (d.has_node)
		printf("region: %" PRIu32 "\nworker: %" PRIu32 "\nseq: %" PRIu32 "\n",
			   d.region, d.worker, d.seq);
	else
		printf("region:\nworker:\nseq:\n");
	printf("epoch: %d\n", d.epoch);
	return 0;
}

/* text for a terminal: control bytes would let a value rewrite the screen */
static void
put_clean(const char *s)
{
	for (; *s != '\0'; s++)
		putchar(((unsigned char) *s < 0x20 || *s == 0x7F) ? '?' : *s);
}

/* characters, not bytes, for column widths */
static int
display_width(const char *s)
{
	int			n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char) *s & 0xC0) != 0x80)
			n++;
	return n;
}

static void
put_json_string(const char *s)
{
	size_t		len = strlen(s);
	size_t		need = gw_json_escape(s, len, NULL, 0);
	char	   *buf = malloc(need + 1);

	if (buf == NULL)
	{
		fprintf(stderr, "idgen: out of memory\n");
		exit(EXIT_SERVER);
	}
	gw_json_escape(s, len, buf, need + 1);
	fputs(buf, stdout);
	free(buf);
}

static void
put_json_value(const PGresult *res, int row, int col)
{
	Oid			type = PQftype(res, col);
	const char *v = PQgetvalue(res, row, col);

	if (PQgetisnull(res, row, col))
		fputs("null", stdout);
	else if (type == INT8OID || type == INT4OID || type == INT2OID)
		fputs(v, stdout);
	else if (type == BOOLOID)
		fputs(v[0] == 't' ? "true" : "false", stdout);
	else
		put_json_string(v);
}

static void
put_json_row(const PGresult *res, int row)
{
	int			c;

	putchar('{');
	for (c = 0; c < PQnfields(res); c++)
	{
		if (c > 0)
			fputs(", ", stdout);
		put_json_string(PQfname(res, c));
		fputs(": ", stdout);
		put_json_value(res, row, c);
	}
	putchar('}');
}

static void
print_vertical(const PGresult *res)
{
	int			width = 0;
	int			c;

	for (c = 0; c < PQnfields(res); c++)
		if (display_width(PQfname(res, c)) > width)
			width = display_width(PQfname(res, c));
	for (c = 0; c < PQnfields(res); c++)
	{
		const char *v = PQgetvalue(res, 0, c);

		printf("%s:", PQfname(res, c));
		if (v[0] != '\0')
		{
			printf("%*s", width - display_width(PQfname(res, c)) + 1, "");
			put_clean(v);
		}
		putchar('\n');
	}
}

static void
print_table(const PGresult *res)
{
	int			nf = PQnfields(res);
	int			nt = PQntuples(res);
	int		   *w = calloc((size_t) (nf > 0 ? nf : 1), sizeof(int));
	int			c;
	int			r;

	if (w == NULL)
	{
		fprintf(stderr, "idgen: out of memory\n");
		exit(EXIT_SERVER);
	}
	for (c = 0; c < nf; c++)
	{
		w[c] = display_width(PQfname(res, c));
		for (r = 0; r < nt; r++)
			if (display_width(PQgetvalue(res, r, c)) > w[c])
				w[c] = display_width(PQgetvalue(res, r, c));
	}
	for (c = 0; c < nf; c++)
		printf("%s%s%*s", c > 0 ? " | " : "", PQfname(res, c),
			   c < nf - 1 ? w[c] - display_width(PQfname(res, c)) : 0, "");
	putchar('\n');
	for (c = 0; c < nf; c++)
	{
		int			i;

		fputs(c > 0 ? "-+-" : "", stdout);
		for (i = 0; i < w[c]; i++)
			putchar('-');
	}
	putchar('\n');
	for (r = 0; r < nt; r++)
	{
		for (c = 0; c < nf; c++)
		{
			const char *v = PQgetvalue(res, r, c);

			fputs(c > 0 ? " | " : "", stdout);
			put_clean(v);
			if (c < nf - 1)
				printf("%*s", w[c] - display_width(v), "");
		}
		putchar('\n');
	}
	free(w);
}

static int
cmd_status(const Options *o)
{
	PGconn	   *conn = connect_to(o->registry);
	PGresult   *res;
	PGresult   *fleet = NULL;
	char	   *schema;
	char		sql[300];
	int			fleet_state;	/* 0 none, 1 not readable, 2 read */

	res = query(conn,
				"SELECT n.nspname FROM pg_catalog.pg_extension AS e "
				"JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace "
				"WHERE e.extname = 'idgen'",
				"looking up the idgen extension");
	if (PQntuples(res) != 1)
	{
		fprintf(stderr, "idgen: the idgen extension is not installed in database \"%s\"\n",
				PQdb(conn));
		PQclear(res);
		PQfinish(conn);
		return EXIT_SERVER;
	}
	schema = PQescapeIdentifier(conn, PQgetvalue(res, 0, 0), strlen(PQgetvalue(res, 0, 0)));
	PQclear(res);
	if (schema == NULL)
	{
		fprintf(stderr, "idgen: %s", PQerrorMessage(conn));
		PQfinish(conn);
		return EXIT_SERVER;
	}
	snprintf(sql, sizeof(sql), "SELECT * FROM %s.idgen_status()", schema);
	PQfreemem(schema);
	res = query(conn, sql, "idgen_status()");

	{
		PGresult   *probe = query(conn,
								  "SELECT CASE WHEN pg_catalog.to_regclass('idgen.fleet') IS NULL THEN 0 "
								  "WHEN pg_catalog.has_table_privilege('idgen.fleet', 'SELECT') THEN 2 "
								  "ELSE 1 END",
								  "looking up idgen.fleet");

		fleet_state = atoi(PQgetvalue(probe, 0, 0));
		PQclear(probe);
	}
	if (fleet_state == 2)
		fleet = query(conn,
					  "SELECT * FROM idgen.fleet ORDER BY region, first_worker, holder",
					  "reading idgen.fleet");

	if (o->json)
	{
		int			r;

		fputs("{\"status\": ", stdout);
		if (PQntuples(res) == 1)
			put_json_row(res, 0);
		else
			fputs("null", stdout);
		fputs(", \"fleet\": ", stdout);
		if (fleet == NULL)
			fputs("null", stdout);
		else
		{
			putchar('[');
			for (r = 0; r < PQntuples(fleet); r++)
			{
				if (r > 0)
					fputs(", ", stdout);
				put_json_row(fleet, r);
			}
			putchar(']');
		}
		fputs("}\n", stdout);
	}
	else
	{
		if (PQntuples(res) == 1)
			print_vertical(res);
		if (fleet_state == 1)
			printf("\nfleet: not shown, this role may not read idgen.fleet (it needs pg_monitor)\n");
		else if (fleet != NULL && PQntuples(fleet) == 0)
			printf("\nfleet: no holders\n");
		else if (fleet != NULL)
		{
			printf("\nfleet (%d holder%s):\n", PQntuples(fleet), PQntuples(fleet) == 1 ? "" : "s");
			print_table(fleet);
		}
	}
	PQclear(fleet);
	PQclear(res);
	PQfinish(conn);
	return 0;
}

int
main(int argc, char **argv)
{
	Options		o;

	parse_args(argc, argv, &o);
	if (strcmp(o.command, "decode") == 0)
		return cmd_decode(&o);
	return cmd_status(&o);
}
