/*
 * gateway.h - idgen-gateway: the daemon's modules and what they share
 *
 *   gwmain.c      start-up, the lease thread's loop
 *   gwoptions.c   the command line, pure C (gwoptions.h)
 *   gwdemand.c    how many workers to hold after the demand, pure C
 *                 (gwdemand.h)
 *   gwissue.c     the generator: worker lease set, layout epochs, ticks,
 *                 the local durable mark; composes IDs with src/'s pure C
 *   gwlease.c     the lease path's registry I/O, driving the lease client
 *                 (src/leaseclient.c), which decides everything about it
 *   gwregistry.c  the registry's connections: opened bounded, dropped when
 *                 they cannot write
 *   gwpool.c      the request path's registry calls, on threads of their
 *                 own (gwpool.h); the purge of expired records
 *   gwbatch.c     a reservation as JSON and as a stored record (gwbatch.h)
 *   gwhttp.c      the HTTP server (libmicrohttpd): routes, auth, limits
 *   gwconn.c      each connection's header deadline (gwconn.h)
 *   gwmetrics.c   counters and the Prometheus text
 *   gwrequest.c   request parsing, pure C (gwrequest.h)
 *
 * Threads: libmicrohttpd's request threads call gw_issue_reserve() and
 * never wait on the registry: what needs it (Idempotency-Key records, the
 * admin calls) is queued to gwpool.c's threads; one lease thread leases, renews, reads the epochs and
 * settings and keeps the local mark ahead.  The generator's state is under
 * one mutex, held only for a reservation's arithmetic.
 */
#ifndef IDGEN_GATEWAY_H
#define IDGEN_GATEWAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "epochs.h"
#include "gwoptions.h"
#include "gwrequest.h"
#include "leaseclient.h"

/* leased workers at most (a power of two; see gwissue.c) */
#define GW_MAX_WORKERS GW_OPT_WORKERS_MAX

/* the command line's settings (gwoptions.c) */
extern GwOptions gw_opt;

/* one line on stderr, with the time in UTC (gwmetrics.c) */
extern void gw_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* time, in milliseconds */
extern int64_t gw_wall_ms(void);	/* CLOCK_REALTIME */
extern int64_t gw_boot_ms(void);	/* CLOCK_BOOTTIME: counts suspend too */
/* the wall clock as IDs are stamped by: a step ahead only once confirmed */
extern int64_t gw_clock_ms(void);

/* ---- the generator (gwissue.c) ---- */

/* why the gateway cannot issue now; GW_OK when it can */
typedef enum GwRefusal
{
	GW_OK = 0,
	GW_NO_LEASE,				/* none yet, or being leased anew */
	GW_FENCED,					/* a renewal found the lease taken away */
	GW_LEASE_EXPIRED,			/* not renewed in time */
	GW_CLOCK_BEHIND,			/* the wall clock went back beyond max_drift */
	GW_CLOCK_SKEW,				/* too far from the registry's clock */
	GW_CLOCK_INVALID,			/* before 2026, or past a layout's horizon */
	GW_MARK,					/* the local durable mark could not be written */
	GW_TOO_MANY,				/* more IDs than one reservation can hold */
	GW_EPOCHS_LOST,				/* the registry lost a layout epoch seen before */
	GW_REFUSAL_COUNT
} GwRefusal;

/* its label in metrics and /health (gwmetrics.c) */
extern const char *gw_refusal_name(GwRefusal r);

/* a lease set as the registry gave it, for gw_issue_install_lease() */
typedef struct GwLeaseSet
{
	int			count;
	int			region;
	int			workers[GW_MAX_WORKERS];
	int64_t		generations[GW_MAX_WORKERS];
	int64_t		cap_unix_ms;	/* IDs stay below the registry's lease end */
	int64_t		floor_unix_ms;	/* registry clock after the lease: IDs start above */
	int64_t		valid_until_boot_ms;
} GwLeaseSet;

/* a reservation: the IDs are computed from it outside the lock */
typedef struct GwBatch
{
	uint64_t	first_tick;
	uint32_t	count;
	int			counter_bits;
	int			seq_bits;
	int			time_shift;
	uint64_t	region_bits;	/* region << (worker_bits + seq_bits) */
	uint64_t	worker_bits[GW_MAX_WORKERS];	/* worker << seq_bits, ascending */
	int64_t		origin_unix_ms;
	int			epoch_version;
} GwBatch;

extern int	gw_issue_init(const char *state_dir, char *err, size_t err_len);
/* a fresh reading: kept if it holds every epoch seen, else a refusal */
extern void gw_issue_set_epochs(const IdgenEpochList *epochs);
extern void gw_issue_get_epochs(IdgenEpochList *epochs);
extern void gw_issue_set_limits(int64_t max_drift_ms, int64_t max_skew_ms,
								int64_t jump_confirm_ms);
extern int64_t gw_issue_max_skew_ms(void);
/* the registry's clock agrees with the wall clock: follow a held-back step */
extern void gw_issue_clock_confirmed(void);
/* the lease client's state, published to the generator */
extern void gw_issue_install_lease(const GwLeaseSet *set, const IdgenLeaseClient *lc);
extern void gw_issue_renewed(const IdgenLeaseClient *lc);
extern void gw_issue_drop_lease(GwRefusal why, const char *reason,
								const IdgenLeaseClient *lc);
extern void gw_issue_set_skew(bool skewed, const char *reason);
extern bool gw_issue_lease(GwLeaseSet *set);
/* the newest millisecond issued (-1: none), a release's final mark */
extern int64_t gw_issue_last_ms(void);
/* keep the durable mark ahead of demand; returns false when it cannot */
extern bool gw_issue_keep_mark(void);
/* the IDs reserved since the start, and the seq_bits of the layout in use */
extern void gw_issue_demand(uint64_t *issued, int *seq_bits);

/*
 * Reserve count IDs.  GW_OK fills *batch; otherwise the refusal, its
 * reason (static or per-call text in reason) and how many seconds to tell
 * the client to wait.
 */
extern GwRefusal gw_issue_reserve(uint32_t count, GwBatch *batch,
								  char *reason, size_t reason_len,
								  int *retry_after_s);
/* the i-th ID of a batch (gwbatch.c) */
extern uint64_t gw_batch_id(const GwBatch *b, uint32_t i);
/* the state for /healthz: GW_OK, or why not and the reason text */
extern GwRefusal gw_issue_health(char *reason, size_t reason_len);
/*
 * for /metrics: how long the lease stays valid unrenewed (0 without a valid
 * one) and the TTL its validity counts on (R1a), in ms
 */
extern void gw_issue_lease_times(int64_t *validity_ms, int64_t *ttl_ms);

/* ---- the lease path (gwlease.c) ---- */

/*
 * One step of the lease thread: what the lease client says is due, done.
 * Returns how long nothing is due (ms), or -1 when the gateway cannot run
 * (a --lease-ttl the registry can never renew: logged).
 */
extern int64_t gw_lease_step(void);
/* at exit: stop issuing and release a lease still valid */
extern void gw_lease_shutdown(void);

/* ---- the registry (gwregistry.c) ---- */

/* libpq's connection and result (libpq-fe.h's PGconn, PGresult) */
struct pg_conn;
struct pg_result;

extern int	gw_registry_init(char *err, size_t err_len);
/* a new registry session, bounded by --registry-timeout; NULL and err if not */
extern struct pg_conn *gw_registry_connect(char *err, size_t err_len);

/*
 * True when a connection must be closed after this result: it is broken,
 * or the member answered that it cannot write (25006, a hot standby, or
 * default_transaction_read_only), as an old primary does after a demotion.
 * The next connection (target_session_attrs=read-write) finds the primary.
 */
extern bool gw_registry_result_drops_connection(struct pg_conn *conn,
												struct pg_result *res);
extern int64_t gw_registry_retention_ms(void);
/* the owner name of this run's leases, without the /N of each worker */
extern const char *gw_registry_owner(void);

/* an answer: an HTTP status and a JSON body (malloc'd) */
typedef struct GwAnswer
{
	int			status;
	char	   *body;
	int			retry_after_s;	/* > 0: send Retry-After */
	const char *content_type;	/* NULL: application/json */
} GwAnswer;

/* ---- random bytes (gwbatch.c) ---- */

/* len bytes of the kernel's randomness (getrandom); waits rather than fail */
extern bool gw_random_bytes(void *buf, size_t len);

/* ---- HTTP (gwhttp.c) ---- */

extern int	gw_http_start(const GwTokens *tokens, char *err, size_t err_len);
extern void gw_http_stop(void);

/* ---- metrics (gwmetrics.c) ---- */

extern void gw_metric_issued(uint64_t n, int want128);
extern void gw_metric_refusal(GwRefusal r);
extern void gw_metric_http(int status);
extern void gw_metric_latency(double seconds);
extern void gw_metric_renewal(bool ok);
extern void gw_metric_lease(bool ok);
extern void gw_metric_rollback(void);
extern void gw_metric_fenced(void);
extern void gw_metric_header_timeout(void);
/* what a scrape shows of the generator, read by the caller (gwissue.c) */
typedef struct GwGeneratorGauges
{
	bool		up;				/* gw_issue_health() is GW_OK */
	int			workers;		/* leased now; 0 without a lease */
	int64_t		validity_ms;	/* gw_issue_lease_times() */
	int64_t		ttl_ms;
} GwGeneratorGauges;

/* the scrape's text, malloc'd */
extern char *gw_metrics_text(const GwGeneratorGauges *gen);

#endif							/* IDGEN_GATEWAY_H */
