/*
 * test_gwoptions.c - idgen-gateway's command line (gateway/gwoptions.c):
 * every option with good, overlong, empty and odd values, each refusal
 * naming its option, and random argument vectors (built under ASan and
 * UBSan like every unit test, so an overflow here is a failure)
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "unit.h"
#include "gwoptions.h"

#define MAXARGS 16

static char err[512];
static GwOptions opt;

/* parse "prog REQUIRED... extra...": the required options come first */
static GwOptionsResult
parse_with(int with_required, const char *const *extra, int nextra)
{
	static char *argv[3 * MAXARGS];
	static char copies[3 * MAXARGS][128];
	int			argc = 0;
	int			i;
	static const char *const required[] = {
		"--registry", "host=r", "--tokens", "/t", "--state-dir", "/s"
	};

	argv[argc++] = (char *) "idgen-gateway";
	if (with_required)
		for (i = 0; i < 6; i++)
		{
			snprintf(copies[argc], sizeof(copies[argc]), "%s", required[i]);
			argv[argc] = copies[argc];
			argc++;
		}
	for (i = 0; i < nextra && argc < 3 * MAXARGS - 1; i++)
		argv[argc++] = (char *) extra[i];
	argv[argc] = NULL;
	gw_options_defaults(&opt, "host-1");
	return gw_options_parse(argc, argv, &opt, err, sizeof(err));
}

#define ARGS(...) (const char *const[]){__VA_ARGS__}, \
	(int) (sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* refused with exit status 2's result and a message naming what */
static void
refused(const char *what, const char *const *extra, int nextra)
{
	unit_context("%s %s", nextra > 0 ? extra[0] : "", nextra > 1 ? extra[1] : "");
	CHECK(parse_with(1, extra, nextra) == GW_OPTIONS_BAD);
	CHECK(strstr(err, what) != NULL);
	/* one short line, whatever came in */
	CHECK(strchr(err, '\n') == NULL);
	CHECK(strlen(err) < 200);
}

static void
test_defaults(void)
{
	unit_context("defaults");
	CHECK(parse_with(1, NULL, 0) == GW_OPTIONS_OK);
	CHECK_STR(opt.registry, "host=r");
	CHECK_STR(opt.listen_host, "127.0.0.1");
	CHECK_I64(opt.listen_port, ==, 8080);
	CHECK_I64(opt.lease_ttl_ms, ==, 30000);
	/* --workers auto: 0, growing up to --max-workers */
	CHECK_I64(opt.workers, ==, 0);
	CHECK_I64(opt.max_workers, ==, 8);
	CHECK_I64(opt.max_workers_set, ==, 0);
	CHECK_I64(opt.workers_idle_ms, ==, 30000);
	CHECK_I64(opt.max_connections, ==, 1000);
	CHECK_I64(opt.max_connections_set, ==, 0);
	CHECK_I64(opt.max_connections_per_ip, ==, 100);
	CHECK_I64(opt.header_timeout_ms, ==, 10000);
	CHECK_STR(opt.name, "host-1");
	/* a host name that is no valid --name falls back */
	gw_options_defaults(&opt, "a host:with/odd chars");
	CHECK_STR(opt.name, "gateway");
	gw_options_defaults(&opt, NULL);
	CHECK_STR(opt.name, "gateway");

	unit_context("required");
	CHECK(parse_with(0, NULL, 0) == GW_OPTIONS_BAD);
	CHECK(strstr(err, "--registry") != NULL);
	CHECK(parse_with(0, ARGS("--registry", "x", "--tokens", "t")) == GW_OPTIONS_BAD);
	CHECK(strstr(err, "--state-dir") != NULL);
	CHECK(parse_with(0, ARGS("--help")) == GW_OPTIONS_HELP);
	CHECK(parse_with(0, ARGS("--version")) == GW_OPTIONS_VERSION);
}

static void
test_good(void)
{
	unit_context("good values");
	CHECK(parse_with(1, ARGS("--listen", "0.0.0.0:9000", "--name", "gw.a_b-1",
							 "--lease-ttl", "5min", "--workers", "8", "--region", "7",
							 "--rate-limit", "2.5/s", "--threads", "64", "--pool", "1",
							 "--max-connections", "50", "--max-connections-per-ip", "0",
							 "--header-timeout", "3s")) == GW_OPTIONS_OK);
	CHECK_STR(opt.listen_host, "0.0.0.0");
	CHECK_I64(opt.listen_port, ==, 9000);
	CHECK_STR(opt.name, "gw.a_b-1");
	CHECK_I64(opt.lease_ttl_ms, ==, 300000);
	CHECK_I64(opt.workers, ==, 8);
	CHECK_I64(opt.region, ==, 7);
	CHECK(opt.rate_limit == 2.5);
	CHECK_I64(opt.max_connections, ==, 50);
	CHECK_I64(opt.max_connections_set, ==, 1);
	CHECK_I64(opt.max_connections_per_ip, ==, 0);
	CHECK_I64(opt.header_timeout_ms, ==, 3000);

	CHECK(parse_with(1, ARGS("--listen", "[::1]:81")) == GW_OPTIONS_OK);
	CHECK_STR(opt.listen_host, "::1");
	CHECK_I64(opt.listen_port, ==, 81);
	CHECK(parse_with(1, ARGS("--listen", "82")) == GW_OPTIONS_OK);
	CHECK_STR(opt.listen_host, "127.0.0.1");
	CHECK(parse_with(1, ARGS("--listen=localhost:83", "--name=x")) == GW_OPTIONS_OK);
	CHECK_STR(opt.listen_host, "localhost");
	CHECK_STR(opt.name, "x");
	/* a per-IP limit above the total is the total */
	CHECK(parse_with(1, ARGS("--max-connections", "10")) == GW_OPTIONS_OK);
	CHECK_I64(opt.max_connections_per_ip, ==, 10);
	CHECK(parse_with(1, ARGS("--tls-cert", "/c", "--tls-key", "/k")) == GW_OPTIONS_OK);
}

static void
test_bounds(void)
{
	static char big[200000];
	static char path[2000];
	static char name65[66];
	static char name64[65];
	static char conninfo[4100];
	static char host[300];

	memset(big, 'x', sizeof(big) - 1);
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	memset(name65, 'n', 65);
	memset(name64, 'n', 64);
	memset(conninfo, 'c', 4097);
	memset(host, 'h', 256);
	memcpy(host + 256, ":80", 4);

	unit_context("--name 64");
	CHECK(parse_with(1, ARGS("--name", name64)) == GW_OPTIONS_OK);
	refused("--name", ARGS("--name", name65));
	refused("--name", ARGS("--name", big));
	refused("--name", ARGS("--name", ""));
	refused("--name", ARGS("--name", "a b"));
	refused("--name", ARGS("--name", "a:b"));
	refused("--name", ARGS("--name", "a/b"));
	refused("--name", ARGS("--name", "a\nb"));
	refused("--name", ARGS("--name", "\xc3\xa9t\xc3\xa9"));
	refused("--registry", ARGS("--registry", conninfo));
	refused("--registry", ARGS("--registry", ""));
	refused("--registry", ARGS("--registry", big));
	refused("--tokens", ARGS("--tokens", path));
	refused("--state-dir", ARGS("--state-dir", path));
	refused("--state-dir", ARGS("--state-dir", ""));
	refused("--tls-cert", ARGS("--tls-cert", path, "--tls-key", "/k"));
	refused("--tls-key", ARGS("--tls-cert", "/c", "--tls-key", path));
	refused("--tls-key", ARGS("--tls-cert", "/c"));
	refused("--listen", ARGS("--listen", host));
	refused("--listen", ARGS("--listen", big));
	refused("--listen", ARGS("--listen", ""));
	refused("--listen", ARGS("--listen", "[::1"));
	refused("--listen", ARGS("--listen", "[::1]"));
	refused("--listen", ARGS("--listen", "h:0"));
	refused("--listen", ARGS("--listen", "h:65536"));
	refused("--listen", ARGS("--listen", "h:99999999999999999999999"));
	refused("--listen", ARGS("--listen", "h:1x"));
	refused("--lease-ttl", ARGS("--lease-ttl", "999s"  "99999999999999999999999"));
	refused("--lease-ttl", ARGS("--lease-ttl", "99999999999999999999999s"));
	refused("--lease-ttl", ARGS("--lease-ttl", "-1s"));
	refused("--lease-ttl", ARGS("--lease-ttl", "999ms"));
	refused("--lease-ttl", ARGS("--lease-ttl", "2d"));
	refused("--lease-ttl", ARGS("--lease-ttl", "1x"));
	refused("--header-timeout", ARGS("--header-timeout", "0"));
	refused("--header-timeout", ARGS("--header-timeout", "2h"));
	refused("--region", ARGS("--region", "-1"));
	refused("--region", ARGS("--region", "4194305"));
	refused("--region", ARGS("--region", "99999999999999999999"));
	refused("--workers", ARGS("--workers", "3"));
	refused("--workers", ARGS("--workers", "16"));
	refused("--workers", ARGS("--workers", "0"));
	refused("--workers", ARGS("--workers", "Auto"));
	refused("--workers", ARGS("--workers", "auto8"));
	refused("--max-workers", ARGS("--max-workers", "3"));
	refused("--max-workers", ARGS("--max-workers", "16"));
	refused("--max-workers", ARGS("--max-workers", "0"));
	refused("--max-workers", ARGS("--max-workers", "auto"));
	/* a cap on a fixed count would say nothing: refused, named */
	refused("--max-workers", ARGS("--workers", "2", "--max-workers", "4"));
	refused("--max-workers", ARGS("--max-workers", "4", "--workers", "2"));
	refused("--workers-idle", ARGS("--workers", "1", "--workers-idle", "5s"));
	refused("--workers-idle", ARGS("--workers-idle", "999ms"));
	refused("--workers-idle", ARGS("--workers-idle", "2h"));
	refused("--workers-idle", ARGS("--workers-idle", "soon"));

	unit_context("--workers auto");
	CHECK(parse_with(1, ARGS("--workers", "auto", "--max-workers", "4")) == GW_OPTIONS_OK);
	CHECK_I64(opt.workers, ==, 0);
	CHECK_I64(opt.max_workers, ==, 4);
	CHECK(parse_with(1, ARGS("--workers-idle", "3s")) == GW_OPTIONS_OK);
	CHECK_I64(opt.workers_idle_ms, ==, 3000);
	CHECK(parse_with(1, ARGS("--max-workers", "1")) == GW_OPTIONS_OK);
	CHECK_I64(opt.workers, ==, 0);
	CHECK_I64(opt.max_workers, ==, 1);
	CHECK(parse_with(1, ARGS("--workers", "8", "--workers", "auto")) == GW_OPTIONS_OK);
	CHECK_I64(opt.workers, ==, 0);
	unit_context("good values");
	refused("--rate-limit", ARGS("--rate-limit", "inf"));
	refused("--rate-limit", ARGS("--rate-limit", "nan"));
	refused("--rate-limit", ARGS("--rate-limit", "1e400"));
	refused("--rate-limit", ARGS("--rate-limit", "0"));
	refused("--rate-limit", ARGS("--rate-limit", "-5"));
	refused("--rate-limit", ARGS("--rate-limit", "5/min"));
	refused("--rate-limit", ARGS("--rate-limit", ""));
	refused("--threads", ARGS("--threads", "0"));
	refused("--threads", ARGS("--threads", "65"));
	refused("--pool", ARGS("--pool", "1e3"));
	refused("--max-connections", ARGS("--max-connections", "0"));
	refused("--max-connections", ARGS("--max-connections", "many"));
	refused("--max-connections-per-ip", ARGS("--max-connections-per-ip", "-1"));
	refused("unknown", ARGS("--bogus"));
	refused("argument", ARGS(big));
	refused("needs a value", ARGS("--name"));
	refused("argument", ARGS("stray"));
}

/* random vectors of options and values: no crash, a clean answer */
static void
test_random(void)
{
	static const char *const names[] = {
		"--registry", "--listen", "--tokens", "--tls-cert", "--tls-key", "--lease-ttl",
		"--region", "--workers", "--max-workers", "--workers-idle", "--state-dir", "--name", "--rate-limit", "--threads",
		"--pool", "--max-connections", "--max-connections-per-ip", "--header-timeout",
		"--help", "--", "-h", "--na", "--max", "x"
	};
	static const char alphabet[] = "09:[]/.-_a sx\n\x7f\xff%eE+";
	static char values[MAXARGS][300];
	const char *argv[MAXARGS];
	int			round;

	for (round = 0; round < 20000; round++)
	{
		int			n = (int) (unit_rand() % MAXARGS);
		int			i;
		GwOptionsResult r;

		for (i = 0; i < n; i++)
		{
			if (unit_rand() % 2)
				argv[i] = names[unit_rand() % (sizeof(names) / sizeof(names[0]))];
			else
			{
				size_t		len = (size_t) (unit_rand() % (sizeof(values[i]) - 1));
				size_t		k;

				for (k = 0; k < len; k++)
					values[i][k] = alphabet[unit_rand() % (sizeof(alphabet) - 1)];
				values[i][len] = '\0';
				argv[i] = values[i];
			}
		}
		unit_context("random round %d", round);
		r = parse_with((int) (unit_rand() % 2), argv, n);
		CHECK(r == GW_OPTIONS_OK || r == GW_OPTIONS_HELP || r == GW_OPTIONS_VERSION ||
			  r == GW_OPTIONS_BAD);
		if (r == GW_OPTIONS_BAD)
			CHECK(err[0] != '\0' && strchr(err, '\n') == NULL && strlen(err) < 200);
		if (r == GW_OPTIONS_OK)
		{
			CHECK(gw_name_is_valid(opt.name));
			CHECK(strlen(opt.registry) <= GW_OPT_CONNINFO_MAX);
			CHECK(strlen(opt.state_dir) <= GW_OPT_PATH_MAX);
			CHECK(strlen(opt.listen_host) <= GW_OPT_HOST_MAX);
		}
	}
}

int
main(void)
{
	test_defaults();
	test_good();
	test_bounds();
	test_random();
	return unit_finish("test_gwoptions");
}
