/*
 * gwmetrics.c - what idgen-gateway tells its operators: counters as
 * Prometheus text, the names of its refusals, and its log (gateway.h)
 *
 * Plain atomic counters: request threads bump them without a lock, and a
 * scrape reads each one on its own (a scrape is not a snapshot).  Every
 * module reports here, and this module calls none of them back: what a
 * scrape shows of the generator (its health, its lease) comes in as an
 * argument.
 */
#include "gateway.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

static uint64_t issued[2];
static uint64_t refusals[GW_REFUSAL_COUNT];
static uint64_t renewals[2];	/* ok, failed */
static uint64_t leases[2];
static uint64_t rollbacks;
static uint64_t fences;
static uint64_t header_timeouts;

/* the HTTP statuses counted by their own label; the rest as "other" */
static const int statuses[] = {200, 400, 401, 403, 404, 405, 409, 413, 429, 500, 503};
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))
static uint64_t http[NSTATUS + 1];

/* request latency buckets, in seconds */
static const double bounds[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))
static uint64_t buckets[NBOUNDS + 1];
static uint64_t latency_count;
static uint64_t latency_sum_ns;

void
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

const char *
gw_refusal_name(GwRefusal r)
{
	static const char *const names[GW_REFUSAL_COUNT] = {
		"ok", "no_lease", "fenced", "lease_expired", "clock_behind",
		"clock_skew", "clock_invalid", "mark", "too_many", "epochs_lost"
	};

	return r >= 0 && r < GW_REFUSAL_COUNT ? names[r] : "unknown";
}

static inline void
add(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static inline uint64_t
get(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

void
gw_metric_issued(uint64_t n, int want128)
{
	add(&issued[want128 ? 1 : 0], n);
}

void
gw_metric_refusal(GwRefusal r)
{
	if (r > GW_OK && r < GW_REFUSAL_COUNT)
		add(&refusals[r], 1);
}

void
gw_metric_http(int status)
{
	size_t		i;

	for (i = 0; i < NSTATUS; i++)
		if (statuses[i] == status)
			break;
	add(&http[i], 1);
}

void
gw_metric_latency(double seconds)
{
	size_t		i;

	for (i = 0; i < NBOUNDS; i++)
		if (seconds <= bounds[i])
			break;
	add(&buckets[i], 1);
	add(&latency_count, 1);
	add(&latency_sum_ns, (uint64_t) (seconds * 1e9));
}

void
gw_metric_renewal(bool ok)
{
	add(&renewals[ok ? 0 : 1], 1);
}

void
gw_metric_lease(bool ok)
{
	add(&leases[ok ? 0 : 1], 1);
}

void
gw_metric_rollback(void)
{
	add(&rollbacks, 1);
}

void
gw_metric_fenced(void)
{
	add(&fences, 1);
}

void
gw_metric_header_timeout(void)
{
	add(&header_timeouts, 1);
}

char *
gw_metrics_text(const GwGeneratorGauges *gen)
{
	size_t		cap = 16384;
	char	   *buf = malloc(cap);
	size_t		len = 0;
	size_t		i;
	uint64_t	cum = 0;

#define OUT(...) (len += (size_t) snprintf(buf + len, cap - len, __VA_ARGS__))
	if (buf == NULL)
		return NULL;
	OUT("# HELP idgen_gateway_ids_issued_total IDs handed out, by type.\n"
		"# TYPE idgen_gateway_ids_issued_total counter\n");
	OUT("idgen_gateway_ids_issued_total{type=\"idgen\"} %llu\n", (unsigned long long) get(&issued[0]));
	OUT("idgen_gateway_ids_issued_total{type=\"idgen128\"} %llu\n", (unsigned long long) get(&issued[1]));
	OUT("# HELP idgen_gateway_refusals_total Requests for IDs refused, by reason.\n"
		"# TYPE idgen_gateway_refusals_total counter\n");
	for (i = 1; i < GW_REFUSAL_COUNT; i++)
		OUT("idgen_gateway_refusals_total{reason=\"%s\"} %llu\n",
			gw_refusal_name((GwRefusal) i), (unsigned long long) get(&refusals[i]));
	OUT("# HELP idgen_gateway_lease_renewals_total Renewals of the worker lease, by outcome.\n"
		"# TYPE idgen_gateway_lease_renewals_total counter\n");
	OUT("idgen_gateway_lease_renewals_total{result=\"ok\"} %llu\n", (unsigned long long) get(&renewals[0]));
	OUT("idgen_gateway_lease_renewals_total{result=\"failed\"} %llu\n", (unsigned long long) get(&renewals[1]));
	OUT("# HELP idgen_gateway_leases_total Leases of a worker set, by outcome.\n"
		"# TYPE idgen_gateway_leases_total counter\n");
	OUT("idgen_gateway_leases_total{result=\"ok\"} %llu\n", (unsigned long long) get(&leases[0]));
	OUT("idgen_gateway_leases_total{result=\"failed\"} %llu\n", (unsigned long long) get(&leases[1]));
	OUT("# HELP idgen_gateway_fenced_total Times a renewal found the lease fenced or taken.\n"
		"# TYPE idgen_gateway_fenced_total counter\n"
		"idgen_gateway_fenced_total %llu\n", (unsigned long long) get(&fences));
	OUT("# HELP idgen_gateway_clock_rollbacks_total Steps back of the wall clock seen.\n"
		"# TYPE idgen_gateway_clock_rollbacks_total counter\n"
		"idgen_gateway_clock_rollbacks_total %llu\n", (unsigned long long) get(&rollbacks));
	OUT("# HELP idgen_gateway_header_timeouts_total Connections closed because their request did not arrive within --header-timeout.\n"
		"# TYPE idgen_gateway_header_timeouts_total counter\n"
		"idgen_gateway_header_timeouts_total %llu\n", (unsigned long long) get(&header_timeouts));
	OUT("# HELP idgen_gateway_up 1 when the gateway can issue IDs.\n"
		"# TYPE idgen_gateway_up gauge\n"
		"idgen_gateway_up %d\n", gen->up ? 1 : 0);
	OUT("# HELP idgen_gateway_workers Workers leased now (with --workers auto they follow the demand); 0 without a lease.\n"
		"# TYPE idgen_gateway_workers gauge\n"
		"idgen_gateway_workers %d\n", gen->workers);
	OUT("# HELP idgen_gateway_lease_validity_seconds How much longer the gateway may issue without another answer from the registry; 0 without a valid lease.\n"
		"# TYPE idgen_gateway_lease_validity_seconds gauge\n"
		"idgen_gateway_lease_validity_seconds %.3f\n", gen->validity_ms / 1000.0);
	OUT("# HELP idgen_gateway_lease_ttl_seconds The lease TTL the validity counts on: --lease-ttl, at most the registry's idgen.lease_ttl.\n"
		"# TYPE idgen_gateway_lease_ttl_seconds gauge\n"
		"idgen_gateway_lease_ttl_seconds %.3f\n", gen->ttl_ms / 1000.0);
	OUT("# HELP idgen_gateway_http_responses_total Responses, by status.\n"
		"# TYPE idgen_gateway_http_responses_total counter\n");
	for (i = 0; i < NSTATUS; i++)
		OUT("idgen_gateway_http_responses_total{status=\"%d\"} %llu\n", statuses[i],
			(unsigned long long) get(&http[i]));
	OUT("idgen_gateway_http_responses_total{status=\"other\"} %llu\n",
		(unsigned long long) get(&http[NSTATUS]));
	OUT("# HELP idgen_gateway_request_duration_seconds Time from a request's arrival to its answer.\n"
		"# TYPE idgen_gateway_request_duration_seconds histogram\n");
	for (i = 0; i < NBOUNDS; i++)
	{
		cum += get(&buckets[i]);
		OUT("idgen_gateway_request_duration_seconds_bucket{le=\"%g\"} %llu\n", bounds[i],
			(unsigned long long) cum);
	}
	cum += get(&buckets[NBOUNDS]);
	OUT("idgen_gateway_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long) cum);
	OUT("idgen_gateway_request_duration_seconds_sum %.9f\n", get(&latency_sum_ns) / 1e9);
	OUT("idgen_gateway_request_duration_seconds_count %llu\n", (unsigned long long) get(&latency_count));
#undef OUT
	return buf;
}
