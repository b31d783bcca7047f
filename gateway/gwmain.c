/*
 * gwmain.c - idgen-gateway: command line, start-up and the lease thread
 *
 *   idgen-gateway --registry CONNINFO --listen HOST:PORT --tokens FILE
 *                 --state-dir DIR [options: gwoptions.c]
 *
 * See docs/gateway.md.  The main thread, once the server runs, is the
 * lease thread: it steps the lease client (gwlease.c), which leases and
 * renews the worker set on the node's schedule, and keeps the local durable
 * mark ahead of demand (expired Idempotency-Key records are purged by
 * gwpool.c's thread).
 */
#include "gateway.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* set by the Makefile from idgen.control; a build without it says so */
#ifndef IDGEN_VERSION
#define IDGEN_VERSION "(version unknown)"
#endif

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void) sig;
	stop_requested = 1;
}

/*
 * Descriptors kept back from the HTTP connections: the registry
 * connections (and a reconnect's new socket beside each), the mark file
 * and its lock, the tokens and TLS files, each request thread's poller and
 * wake-up pipe, the listening socket, stdio and libpq's and libc's own.
 */
static int
fd_reserve(void)
{
	return 48 + 2 * (gw_opt.pool_size + 1) + 4 * gw_opt.threads;
}

/*
 * Fit --max-connections under RLIMIT_NOFILE with the reserve left over,
 * raising the soft limit towards the hard one if need be: a flood of
 * connections must never take the descriptors the mark file and registry
 * reconnects need.  An explicit --max-connections that cannot fit is an
 * error; the default shrinks to fit.
 */
static int
fit_descriptors(char *err, size_t err_len)
{
	struct rlimit rl;
	rlim_t		need = (rlim_t) gw_opt.max_connections + (rlim_t) fd_reserve();
	long		room;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
	{
		snprintf(err, err_len, "cannot read the descriptor limit: %s", strerror(errno));
		return -1;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
	{
		struct rlimit raised = rl;

		raised.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
			rl = raised;
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	room = (long) rl.rlim_cur - fd_reserve();
	if (gw_opt.max_connections_set || room < 1)
	{
		snprintf(err, err_len,
				 "--max-connections %d needs %lld file descriptors with the %d kept for the registry and the mark file, "
				 "but the descriptor limit (ulimit -n) is %lld: lower --max-connections or raise the limit",
				 gw_opt.max_connections, (long long) need, fd_reserve(), (long long) rl.rlim_cur);
		return -1;
	}
	gw_opt.max_connections = (int) room;
	if (gw_opt.max_connections_per_ip > gw_opt.max_connections)
		gw_opt.max_connections_per_ip = gw_opt.max_connections;
	return 0;
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
	bool		ok = true;

	while (!stop_requested)
	{
		int64_t		wait;
		struct timespec nap = {0, 20 * 1000000};

		gw_issue_keep_mark();
		wait = gw_lease_step();
		if (wait < 0)
		{
			ok = false;
			break;
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
	static char hostname[64];
	char		err[1024];
	char	   *text;
	size_t		len;
	GwTokens	toks;

	if (gethostname(hostname, sizeof(hostname) - 1) != 0)
		hostname[0] = '\0';
	/* a host name that is no valid --name leaves the default, "gateway" */
	gw_options_defaults(&gw_opt, hostname);
	switch (gw_options_parse(argc, argv, &gw_opt, err, sizeof(err)))
	{
		case GW_OPTIONS_OK:
			break;
		case GW_OPTIONS_HELP:
			fputs(gw_usage_text, stdout);
			return 0;
		case GW_OPTIONS_VERSION:
			printf("idgen-gateway %s\n", IDGEN_VERSION);
			return 0;
		case GW_OPTIONS_BAD:
			fprintf(stderr, "idgen-gateway: %s\n%s", err, gw_usage_text);
			return 2;
	}

	if (fit_descriptors(err, sizeof(err)) != 0)
	{
		fprintf(stderr, "idgen-gateway: %s\n", err);
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
	gw_log("listening on %s:%d%s, at most %d connections (%d per address), header timeout %lld ms",
		  gw_opt.listen_host, gw_opt.listen_port, gw_opt.tls_cert ? " (TLS)" : "",
		  gw_opt.max_connections, gw_opt.max_connections_per_ip,
		  (long long) gw_opt.header_timeout_ms);
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
