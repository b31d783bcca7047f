/*
 * gwmain.c - idgen-gateway: command line, start-up and the lease thread
 *
 *   idgen-gateway --registry CONNINFO --listen HOST:PORT --tokens FILE
 *                 --state-dir DIR [--tls-cert F --tls-key F]
 *                 [--lease-ttl 30s] [--region N] [--workers N]
 *                 [--rate-limit N/s] [--name NAME] [--threads N]
 *
 * See docs/gateway.md.  The main thread, once the server runs, is the
 * lease thread: it steps the lease client (gwlease.c), which leases and
 * renews the worker set on the node's schedule, keeps the local durable
 * mark ahead of demand, and purges expired Idempotency-Key records.
 */
#include "gateway.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

GwOptions	gw_opt;

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void) sig;
	stop_requested = 1;
}

static void
gw_log(const char *fmt, ...)
{
	va_list		ap;
	char		ts[32];
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(stderr, "%s idgen-gateway: ", ts);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: idgen-gateway --registry CONNINFO --tokens FILE --state-dir DIR [options]\n"
			"  --registry CONNINFO   libpq connection string of the idgen registry\n"
			"  --listen HOST:PORT    where to listen (HOST defaults to 127.0.0.1; port 8080)\n"
			"  --tokens FILE         bearer tokens: name:scope[,scope]:sha256hex per line\n"
			"  --state-dir DIR       holds the local durable mark (and a lock)\n"
			"  --tls-cert F --tls-key F   serve HTTPS with this PEM certificate and key\n"
			"  --lease-ttl DURATION  worker lease TTL (default 30s; renewed every tenth, at most 2 s)\n"
			"  --region N            refuse to run unless the registry leases region N\n"
			"  --workers N           workers to lease, 1, 2, 4 or 8 (default 1); each adds\n"
			"                        4096 IDs per millisecond with the default layout\n"
			"  --rate-limit N[/s]    requests per second per token (default: no limit)\n"
			"  --name NAME           this gateway's name in lease owners (default: host name)\n"
			"  --threads N           request threads (default 2)\n"
			"  --pool N              registry connections for requests (default 4)\n");
}

static bool
parse_int(const char *s, int lo, int hi, int *out)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return false;
	*out = (int) v;
	return true;
}

static bool
parse_listen(const char *s)
{
	static char host[256];
	const char *colon;
	const char *port;

	if (s[0] == '[')
	{
		const char *close = strchr(s, ']');

		if (close == NULL || (size_t) (close - s - 1) >= sizeof(host))
			return false;
		memcpy(host, s + 1, (size_t) (close - s - 1));
		host[close - s - 1] = '\0';
		port = close[1] == ':' ? close + 2 : NULL;
	}
	else if ((colon = strrchr(s, ':')) != NULL)
	{
		if ((size_t) (colon - s) >= sizeof(host))
			return false;
		memcpy(host, s, (size_t) (colon - s));
		host[colon - s] = '\0';
		port = colon + 1;
	}
	else
	{
		host[0] = '\0';
		port = s;
	}
	gw_opt.listen_host = host[0] ? host : "127.0.0.1";
	return port != NULL && parse_int(port, 1, 65535, &gw_opt.listen_port);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf = NULL;
	size_t		cap = 0;
	size_t		n = 0;

	if (f == NULL)
		return NULL;
	for (;;)
	{
		size_t		got;

		if (n + 4096 > cap)
		{
			char	   *nb = realloc(buf, cap = cap * 2 + 8192);

			if (nb == NULL)
				break;
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/*
 * The lease thread: the lease client (gwlease.c, src/leaseclient.c)
 * decides what is due; here it is only stepped, and the mark kept ahead.
 * Returns false when the gateway cannot run (said in the log).
 */
static bool
lease_loop(void)
{
	int64_t		next_purge = gw_boot_ms() + 60000;
	bool		ok = true;

	while (!stop_requested)
	{
		int64_t		now = gw_boot_ms();
		int64_t		wait;
		struct timespec nap = {0, 20 * 1000000};

		gw_issue_keep_mark();
		wait = gw_lease_step();
		if (wait < 0)
		{
			ok = false;
			break;
		}
		if (now >= next_purge)
		{
			gw_registry_purge();
			next_purge = now + 60000;
		}
		if (wait == 0)
			continue;
		nanosleep(&nap, NULL);
	}
	gw_lease_shutdown();
	return ok;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"registry", required_argument, NULL, 'r'},
		{"listen", required_argument, NULL, 'l'},
		{"tokens", required_argument, NULL, 't'},
		{"tls-cert", required_argument, NULL, 'c'},
		{"tls-key", required_argument, NULL, 'k'},
		{"lease-ttl", required_argument, NULL, 'T'},
		{"region", required_argument, NULL, 'R'},
		{"workers", required_argument, NULL, 'w'},
		{"state-dir", required_argument, NULL, 's'},
		{"name", required_argument, NULL, 'n'},
		{"rate-limit", required_argument, NULL, 'L'},
		{"threads", required_argument, NULL, 'j'},
		{"pool", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	static char hostname[64];
	char		err[1024];
	char	   *text;
	size_t		len;
	GwTokens	toks;
	int			c;

	gw_opt.listen_host = "127.0.0.1";
	gw_opt.listen_port = 8080;
	gw_opt.lease_ttl_ms = 30000;
	gw_opt.region = -1;
	gw_opt.workers = 1;
	gw_opt.threads = 2;
	gw_opt.pool_size = 4;
	if (gethostname(hostname, sizeof(hostname) - 1) != 0)
		strcpy(hostname, "gateway");
	gw_opt.name = hostname;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
	{
		switch (c)
		{
			case 'r':
				gw_opt.registry = optarg;
				break;
			case 'l':
				if (!parse_listen(optarg))
				{
					fprintf(stderr, "idgen-gateway: invalid --listen \"%s\": HOST:PORT expected\n", optarg);
					return 2;
				}
				break;
			case 't':
				gw_opt.tokens_file = optarg;
				break;
			case 'c':
				gw_opt.tls_cert = optarg;
				break;
			case 'k':
				gw_opt.tls_key = optarg;
				break;
			case 'T':
				gw_opt.lease_ttl_ms = gw_parse_duration_ms(optarg);
				if (gw_opt.lease_ttl_ms < 1000 || gw_opt.lease_ttl_ms > 86400000)
				{
					fprintf(stderr, "idgen-gateway: invalid --lease-ttl \"%s\": 1s to 1d expected\n", optarg);
					return 2;
				}
				break;
			case 'R':
				if (!parse_int(optarg, 0, 1 << 22, &gw_opt.region))
				{
					fprintf(stderr, "idgen-gateway: invalid --region \"%s\"\n", optarg);
					return 2;
				}
				break;
			case 'w':
				if (!parse_int(optarg, 1, GW_MAX_WORKERS, &gw_opt.workers) ||
					(gw_opt.workers & (gw_opt.workers - 1)) != 0)
				{
					fprintf(stderr, "idgen-gateway: invalid --workers \"%s\": 1, 2, 4 or 8\n", optarg);
					return 2;
				}
				break;
			case 's':
				gw_opt.state_dir = optarg;
				break;
			case 'n':
				gw_opt.name = optarg;
				break;
			case 'L':
				{
					char	   *end;

					gw_opt.rate_limit = strtod(optarg, &end);
					if (end == optarg || (*end != '\0' && strcmp(end, "/s") != 0) ||
						!(gw_opt.rate_limit > 0))
					{
						fprintf(stderr, "idgen-gateway: invalid --rate-limit \"%s\": N or N/s expected\n", optarg);
						return 2;
					}
				}
				break;
			case 'j':
				if (!parse_int(optarg, 1, 64, &gw_opt.threads))
				{
					fprintf(stderr, "idgen-gateway: invalid --threads \"%s\"\n", optarg);
					return 2;
				}
				break;
			case 'p':
				if (!parse_int(optarg, 1, 64, &gw_opt.pool_size))
				{
					fprintf(stderr, "idgen-gateway: invalid --pool \"%s\"\n", optarg);
					return 2;
				}
				break;
			case 'h':
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (optind < argc || gw_opt.registry == NULL || gw_opt.tokens_file == NULL ||
		gw_opt.state_dir == NULL || (gw_opt.tls_cert == NULL) != (gw_opt.tls_key == NULL))
	{
		usage(stderr);
		return 2;
	}

	text = slurp(gw_opt.tokens_file, &len);
	if (text == NULL)
	{
		fprintf(stderr, "idgen-gateway: cannot read the tokens file %s: %s\n",
				gw_opt.tokens_file, strerror(errno));
		return 1;
	}
	if (gw_tokens_parse(text, len, &toks, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "idgen-gateway: %s: %s\n", gw_opt.tokens_file, err);
		return 1;
	}
	free(text);

	if (gw_issue_init(gw_opt.state_dir, err, sizeof(err)) != 0 ||
		gw_registry_init(err, sizeof(err)) != 0)
	{
		fprintf(stderr, "idgen-gateway: %s\n", err);
		return 1;
	}

	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	if (gw_http_start(&toks, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "idgen-gateway: %s\n", err);
		return 1;
	}
	gw_log("listening on %s:%d%s", gw_opt.listen_host, gw_opt.listen_port,
		  gw_opt.tls_cert ? " (TLS)" : "");
	if (!lease_loop())
	{
		gw_http_stop();
		gw_log("stopped: cannot run with this registry");
		gw_tokens_free(&toks);
		return 1;
	}
	gw_http_stop();
	gw_log("stopped");
	gw_tokens_free(&toks);
	return 0;
}
