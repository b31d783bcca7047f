/*
 * gwoptions.c - idgen-gateway's command line (gwoptions.h)
 *
 * Every option is checked here, its length first: a value is echoed in
 * the message cut to a few dozen printable bytes, so that a megabyte of
 * garbage makes a one-line error, never a long or a split one.
 */
#include "gwoptions.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gwrequest.h"

GwOptions	gw_opt;

const char	gw_usage_text[] =
"usage: idgen-gateway --registry CONNINFO --tokens FILE --state-dir DIR [options]\n"
"  --registry CONNINFO   libpq connection string of the idgen registry\n"
"  --listen HOST:PORT    where to listen (HOST defaults to 127.0.0.1; port 8080)\n"
"  --tokens FILE         bearer tokens: name:scope[,scope]:sha256hex per line\n"
"  --state-dir DIR       holds the local durable mark (and a lock)\n"
"  --tls-cert F --tls-key F   serve HTTPS with this PEM certificate and key\n"
"  --lease-ttl DURATION  worker lease TTL (default 30s; renewed every tenth, at most 2 s)\n"
"  --region N            refuse to run unless the registry leases region N\n"
"  --workers N|auto      workers to lease: 1, 2, 4 or 8, or auto (the default):\n"
"                        one, and more while demand nears what they issue\n"
"                        (each gives 4096 IDs per millisecond with the\n"
"                        default layout), fewer again when idle\n"
"  --max-workers N       with auto, at most 1, 2, 4 or 8 (default 8)\n"
"  --workers-idle DURATION   with auto, a worker is given back after demand\n"
"                        stayed under a quarter of the workers' capacity this\n"
"                        long (default 30s)\n"
"  --rate-limit N[/s]    requests per second per token (default: no limit)\n"
"  --name NAME           this gateway's name in lease owners, at most 64 of\n"
"                        A-Z a-z 0-9 . _ - (default: host name)\n"
"  --threads N           request threads (default 2)\n"
"  --pool N              registry connections for requests (default 4)\n"
"  --max-connections N   open HTTP connections at most (default 1000, or what\n"
"                        the descriptor limit leaves room for)\n"
"  --max-connections-per-ip N   from one client address at most (default 100;\n"
"                        0: no limit)\n"
"  --header-timeout DURATION    a request's header and body must arrive within\n"
"                        this of the connection's start (default 10s)\n"
"  --registry-timeout DURATION  deadline of every registry call (default 2s)\n"
"  --idempotency-keys N  Idempotency-Key records per token and retention\n"
"                        window (default 100000); past it 429\n"
"  --version             print the version and exit\n"
"  paths at most 1024 bytes, CONNINFO at most 4096\n";

enum
{
	OPT_REGISTRY = 256,
	OPT_LISTEN,
	OPT_TOKENS,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_LEASE_TTL,
	OPT_REGION,
	OPT_WORKERS,
	OPT_MAX_WORKERS,
	OPT_WORKERS_IDLE,
	OPT_STATE_DIR,
	OPT_NAME,
	OPT_RATE_LIMIT,
	OPT_THREADS,
	OPT_POOL,
	OPT_MAX_CONNECTIONS,
	OPT_MAX_CONNECTIONS_PER_IP,
	OPT_HEADER_TIMEOUT,
	OPT_REGISTRY_TIMEOUT,
	OPT_IDEMPOTENCY_KEYS
};

static const struct option longopts[] = {
	{"registry", required_argument, NULL, OPT_REGISTRY},
	{"listen", required_argument, NULL, OPT_LISTEN},
	{"tokens", required_argument, NULL, OPT_TOKENS},
	{"tls-cert", required_argument, NULL, OPT_TLS_CERT},
	{"tls-key", required_argument, NULL, OPT_TLS_KEY},
	{"lease-ttl", required_argument, NULL, OPT_LEASE_TTL},
	{"region", required_argument, NULL, OPT_REGION},
	{"workers", required_argument, NULL, OPT_WORKERS},
	{"max-workers", required_argument, NULL, OPT_MAX_WORKERS},
	{"workers-idle", required_argument, NULL, OPT_WORKERS_IDLE},
	{"state-dir", required_argument, NULL, OPT_STATE_DIR},
	{"name", required_argument, NULL, OPT_NAME},
	{"rate-limit", required_argument, NULL, OPT_RATE_LIMIT},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"pool", required_argument, NULL, OPT_POOL},
	{"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
	{"max-connections-per-ip", required_argument, NULL, OPT_MAX_CONNECTIONS_PER_IP},
	{"header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT},
	{"registry-timeout", required_argument, NULL, OPT_REGISTRY_TIMEOUT},
	{"idempotency-keys", required_argument, NULL, OPT_IDEMPOTENCY_KEYS},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0}
};

/* s as shown in a message: at most 40 bytes, non-printables as '?' */
static const char *
shown(const char *s, char *buf, size_t cap)
{
	size_t		n = 0;

	while (s[n] != '\0' && n < 40 && n + 4 < cap)
	{
		unsigned char c = (unsigned char) s[n];

		buf[n] = c >= 0x20 && c < 0x7f ? (char) c : '?';
		n++;
	}
	if (s[n] != '\0' && n + 4 <= cap)
	{
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

static GwOptionsResult
bad(char *err, size_t err_len, const char *opt, const char *value, const char *why)
{
	char		b[48];

	if (value != NULL)
		snprintf(err, err_len, "invalid %s \"%s\": %s", opt, shown(value, b, sizeof(b)), why);
	else
		snprintf(err, err_len, "%s", why);
	return GW_OPTIONS_BAD;
}

static int
parse_int(const char *s, int lo, int hi, int *out)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return 0;
	*out = (int) v;
	return 1;
}

int
gw_name_is_valid(const char *s)
{
	size_t		n;

	for (n = 0; s[n] != '\0'; n++)
	{
		char		c = s[n];

		if (n >= GW_OPT_NAME_MAX ||
			!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return n > 0;
}

/* HOST:PORT, [HOST]:PORT or PORT */
static int
parse_listen(const char *s, GwOptions *opt)
{
	const char *colon;
	const char *port;
	size_t		hlen;
	const char *host;

	if (s[0] == '[')
	{
		const char *close = strchr(s, ']');

		if (close == NULL || close[1] != ':')
			return 0;
		host = s + 1;
		hlen = (size_t) (close - s - 1);
		port = close + 2;
	}
	else if ((colon = strrchr(s, ':')) != NULL)
	{
		host = s;
		hlen = (size_t) (colon - s);
		port = colon + 1;
	}
	else
	{
		host = s;
		hlen = 0;
		port = s;
	}
	if (hlen > GW_OPT_HOST_MAX || !parse_int(port, 1, 65535, &opt->listen_port))
		return 0;
	memcpy(opt->listen_host_buf, host, hlen);
	opt->listen_host_buf[hlen] = '\0';
	opt->listen_host = hlen > 0 ? opt->listen_host_buf : "127.0.0.1";
	return 1;
}

/* a non-empty string of at most max bytes */
static int
bounded(const char *s, size_t max)
{
	return s[0] != '\0' && strnlen(s, max + 1) <= max;
}

void
gw_options_defaults(GwOptions *opt, const char *name)
{
	memset(opt, 0, sizeof(*opt));
	opt->listen_host = "127.0.0.1";
	opt->listen_port = 8080;
	opt->lease_ttl_ms = 30000;
	opt->region = -1;
	opt->workers = 0;
	opt->max_workers = GW_OPT_WORKERS_MAX;
	opt->workers_idle_ms = 30000;
	opt->threads = 2;
	opt->pool_size = 4;
	opt->max_connections = 1000;
	opt->max_connections_per_ip = 100;
	opt->header_timeout_ms = 10000;
	opt->registry_timeout_ms = 2000;
	opt->idempotency_keys = 100000;
	opt->name = name != NULL && gw_name_is_valid(name) ? name : "gateway";
}

GwOptionsResult
gw_options_parse(int argc, char **argv, GwOptions *opt, char *err, size_t err_len)
{
	char		pathwhy[64];
	int			c;

	snprintf(pathwhy, sizeof(pathwhy), "a path of 1 to %d bytes expected", GW_OPT_PATH_MAX);
	err[0] = '\0';
	/* 0, not 1: glibc then starts afresh, as for a first call */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1)
	{
		const char *a = optarg;

		switch (c)
		{
			case OPT_REGISTRY:
				if (!bounded(a, GW_OPT_CONNINFO_MAX))
					return bad(err, err_len, "--registry", a,
							   "a connection string of 1 to 4096 bytes expected");
				opt->registry = a;
				break;
			case OPT_LISTEN:
				if (strnlen(a, GW_OPT_HOST_MAX + 16) > GW_OPT_HOST_MAX + 8 || !parse_listen(a, opt))
					return bad(err, err_len, "--listen", a,
							   "HOST:PORT expected (a host of at most 255 bytes, a port of 1 to 65535)");
				break;
			case OPT_TOKENS:
				if (!bounded(a, GW_OPT_PATH_MAX))
					return bad(err, err_len, "--tokens", a, pathwhy);
				opt->tokens_file = a;
				break;
			case OPT_TLS_CERT:
				if (!bounded(a, GW_OPT_PATH_MAX))
					return bad(err, err_len, "--tls-cert", a, pathwhy);
				opt->tls_cert = a;
				break;
			case OPT_TLS_KEY:
				if (!bounded(a, GW_OPT_PATH_MAX))
					return bad(err, err_len, "--tls-key", a, pathwhy);
				opt->tls_key = a;
				break;
			case OPT_STATE_DIR:
				if (!bounded(a, GW_OPT_PATH_MAX))
					return bad(err, err_len, "--state-dir", a, pathwhy);
				opt->state_dir = a;
				break;
			case OPT_LEASE_TTL:
				opt->lease_ttl_ms = gw_parse_duration_ms(a);
				if (opt->lease_ttl_ms < 1000 || opt->lease_ttl_ms > 86400000)
					return bad(err, err_len, "--lease-ttl", a, "1s to 1d expected");
				break;
			case OPT_HEADER_TIMEOUT:
				opt->header_timeout_ms = gw_parse_duration_ms(a);
				if (opt->header_timeout_ms < 1000 || opt->header_timeout_ms > 3600000)
					return bad(err, err_len, "--header-timeout", a, "1s to 1h expected");
				break;
			case OPT_REGISTRY_TIMEOUT:
				opt->registry_timeout_ms = gw_parse_duration_ms(a);
				if (opt->registry_timeout_ms < 100 || opt->registry_timeout_ms > 60000)
					return bad(err, err_len, "--registry-timeout", a, "100ms to 1min expected");
				break;
			case OPT_IDEMPOTENCY_KEYS:
				{
					int			keys;

					if (!parse_int(a, 0, 1000000000, &keys))
						return bad(err, err_len, "--idempotency-keys", a, "0 to 1000000000 expected");
					opt->idempotency_keys = keys;
				}
				break;
			case OPT_REGION:
				if (!parse_int(a, 0, 1 << 22, &opt->region))
					return bad(err, err_len, "--region", a, "0 to 4194304 expected");
				break;
			case OPT_WORKERS:
				if (strcmp(a, "auto") == 0)
					opt->workers = 0;
				else if (!parse_int(a, 1, GW_OPT_WORKERS_MAX, &opt->workers) ||
						 (opt->workers & (opt->workers - 1)) != 0)
					return bad(err, err_len, "--workers", a, "1, 2, 4, 8 or auto expected");
				break;
			case OPT_MAX_WORKERS:
				if (!parse_int(a, 1, GW_OPT_WORKERS_MAX, &opt->max_workers) ||
					(opt->max_workers & (opt->max_workers - 1)) != 0)
					return bad(err, err_len, "--max-workers", a, "1, 2, 4 or 8 expected");
				opt->max_workers_set = 1;
				break;
			case OPT_WORKERS_IDLE:
				opt->workers_idle_ms = gw_parse_duration_ms(a);
				if (opt->workers_idle_ms < 1000 || opt->workers_idle_ms > 3600000)
					return bad(err, err_len, "--workers-idle", a, "1s to 1h expected");
				opt->max_workers_set = 1;
				break;
			case OPT_NAME:
				if (!gw_name_is_valid(a))
					return bad(err, err_len, "--name", a,
							   "1 to 64 of A-Z a-z 0-9 . _ - expected");
				opt->name = a;
				break;
			case OPT_RATE_LIMIT:
				{
					char	   *end;

					errno = 0;
					opt->rate_limit = strtod(a, &end);
					/* isfinite: inf and nan would poison the token buckets */
					if (errno != 0 || end == a || (*end != '\0' && strcmp(end, "/s") != 0) ||
						!isfinite(opt->rate_limit) || !(opt->rate_limit > 0) ||
						opt->rate_limit > 1e9)
						return bad(err, err_len, "--rate-limit", a,
								   "N or N/s expected, N above 0 and at most 1e9");
				}
				break;
			case OPT_THREADS:
				if (!parse_int(a, 1, 64, &opt->threads))
					return bad(err, err_len, "--threads", a, "1 to 64 expected");
				break;
			case OPT_POOL:
				if (!parse_int(a, 1, 64, &opt->pool_size))
					return bad(err, err_len, "--pool", a, "1 to 64 expected");
				break;
			case OPT_MAX_CONNECTIONS:
				if (!parse_int(a, 1, 1000000, &opt->max_connections))
					return bad(err, err_len, "--max-connections", a, "1 to 1000000 expected");
				opt->max_connections_set = 1;
				break;
			case OPT_MAX_CONNECTIONS_PER_IP:
				if (!parse_int(a, 0, 1000000, &opt->max_connections_per_ip))
					return bad(err, err_len, "--max-connections-per-ip", a,
							   "0 (no limit) to 1000000 expected");
				break;
			case 'h':
				return GW_OPTIONS_HELP;
			case 'V':
				return GW_OPTIONS_VERSION;
			case ':':
				{
					char		b[48];

					snprintf(err, err_len, "option %s needs a value",
							 shown(argv[optind - 1], b, sizeof(b)));
				}
				return GW_OPTIONS_BAD;
			default:
				{
					char		b[48];

					snprintf(err, err_len, "unknown or ambiguous option \"%s\"",
							 shown(argv[optind - 1], b, sizeof(b)));
				}
				return GW_OPTIONS_BAD;
		}
	}
	if (optind < argc)
		return bad(err, err_len, "argument", argv[optind], "this program takes no arguments");
	if (opt->registry == NULL)
		return bad(err, err_len, NULL, NULL, "--registry CONNINFO is required");
	if (opt->tokens_file == NULL)
		return bad(err, err_len, NULL, NULL, "--tokens FILE is required");
	if (opt->state_dir == NULL)
		return bad(err, err_len, NULL, NULL, "--state-dir DIR is required");
	if ((opt->tls_cert == NULL) != (opt->tls_key == NULL))
		return bad(err, err_len, NULL, NULL, "--tls-cert and --tls-key go together");
	if (opt->max_workers_set && opt->workers != 0)
		return bad(err, err_len, NULL, NULL,
				   "--max-workers and --workers-idle go with --workers auto; a fixed --workers N leases N");
	if (opt->max_connections_per_ip > opt->max_connections)
		opt->max_connections_per_ip = opt->max_connections;
	return GW_OPTIONS_OK;
}
