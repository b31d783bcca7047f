/*
 * gwoptions.h - idgen-gateway's command line, pure C (gwoptions.c)
 *
 * gw_options_parse() checks every option, its length included, before
 * anything acts on one: fixed buffers elsewhere (the lease owner names,
 * the mark file's paths) rely on these bounds.  It has no side effect
 * but on *opt, so the unit tests call it with many argument vectors.
 */
#ifndef IDGEN_GWOPTIONS_H
#define IDGEN_GWOPTIONS_H

#include <stddef.h>
#include <stdint.h>

/* the bounds gw_options_parse() enforces, in bytes */
#define GW_OPT_NAME_MAX 64			/* --name: [A-Za-z0-9._-], in owner names */
#define GW_OPT_CONNINFO_MAX 4096	/* --registry */
#define GW_OPT_PATH_MAX 1024		/* --tokens, --state-dir, --tls-cert, --tls-key */
#define GW_OPT_HOST_MAX 255			/* the host of --listen */
#define GW_OPT_WORKERS_MAX 8		/* --workers, --max-workers */

typedef struct GwOptions
{
	const char *registry;		/* libpq connection string */
	const char *listen_host;
	int			listen_port;
	const char *tokens_file;
	const char *tls_cert;
	const char *tls_key;
	int64_t		lease_ttl_ms;
	int			region;			/* -1: the registry's idgen.region_id */
	int			workers;		/* leased workers, a power of two; 0: auto */
	int			max_workers;	/* with auto, at most this many (a power of two) */
	int64_t		workers_idle_ms;	/* with auto, idle this long: give one back */
	int			max_workers_set;	/* --max-workers or --workers-idle given */
	const char *state_dir;
	const char *name;			/* this gateway's name in lease owners */
	double		rate_limit;		/* requests per second per token; 0: none */
	int			threads;		/* request threads */
	int			pool_size;		/* registry connections for requests */
	int			max_connections;	/* open HTTP connections at most */
	int			max_connections_set;	/* given on the command line */
	int			max_connections_per_ip; /* from one address; 0: no limit */
	int64_t		header_timeout_ms;	/* a request's header and body, at most */
	int64_t		registry_timeout_ms;	/* deadline of every registry call */
	int64_t		idempotency_keys;	/* records per token and retention window */
	char		listen_host_buf[GW_OPT_HOST_MAX + 1];
} GwOptions;

/* what gw_options_parse() found */
typedef enum GwOptionsResult
{
	GW_OPTIONS_OK = 0,
	GW_OPTIONS_HELP,			/* --help: print the usage, exit 0 */
	GW_OPTIONS_VERSION,			/* --version: print the version, exit 0 */
	GW_OPTIONS_BAD				/* err says why: exit 2 */
} GwOptionsResult;

/* the defaults, with name as the default --name (NULL: "gateway") */
extern void gw_options_defaults(GwOptions *opt, const char *name);

/*
 * Parse argv into *opt (set to the defaults first).  Uses getopt_long and
 * resets its state, so it may be called again; argv may be permuted.
 */
extern GwOptionsResult gw_options_parse(int argc, char **argv, GwOptions *opt,
										char *err, size_t err_len);

/* true when s may be a --name: 1 to GW_OPT_NAME_MAX of [A-Za-z0-9._-] */
extern int	gw_name_is_valid(const char *s);

extern const char gw_usage_text[];

#endif							/* IDGEN_GWOPTIONS_H */
