/*
 * gwhttp.c - idgen-gateway's HTTP server (gateway.h)
 *
 * libmicrohttpd runs the connections in a pool of threads.  Every request
 * is routed and checked by the pure-C parsers of gwrequest.c before
 * anything acts on it; every answer, errors included, is a JSON body.
 * /healthz and /metrics need no token (load balancers and Prometheus
 * scrape them; the gateway listens on loopback unless told otherwise);
 * neither shows a lease owner name without an admin token.
 *
 * Slow clients: libmicrohttpd limits the connections (in all and per
 * address); gwconn.c gives every connection a header deadline.
 */
#include "gateway.h"

#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "gwconn.h"
#include "gwbatch.h"
#include "gwdecode.h"
#include "gwjson.h"
#include "gwpool.h"
#include "clockms.h"
#include "idtext.h"

static struct MHD_Daemon *daemon_handle;
static const GwTokens *tokens;
static char *tls_cert_pem;
static char *tls_key_pem;

/* per-token request budgets (--rate-limit): token buckets, one lock */
typedef struct Bucket
{
	double		level;
	double		at;				/* seconds, CLOCK_MONOTONIC */
} Bucket;
static Bucket *buckets;
static pthread_mutex_t bucket_mu = PTHREAD_MUTEX_INITIALIZER;

/* one request's state across libmicrohttpd's calls */
typedef struct Req
{
	double		started;
	char		body[GW_BODY_MAX];
	size_t		len;
	bool		too_big;
	bool		queued;			/* req->job went to the pool: answer it when back */
	GwJob		job;
} Req;

static double
mono_seconds(void)
{
	return idgen_clock_seconds(CLOCK_MONOTONIC);
}

static enum MHD_Result
send_answer(struct MHD_Connection *conn, Req *req, GwAnswer *a)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	const char *body = a->body ? a->body : "{\"error\": \"out_of_memory\", \"message\": \"out of memory\"}\n";

	if (a->body == NULL)
		a->status = 500;
	gw_conn_answering(conn, true);
	resp = MHD_create_response_from_buffer(strlen(body), (void *) body,
										   a->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
							a->body && a->content_type ? a->content_type : "application/json");
	if (a->retry_after_s > 0 && (a->status == 429 || a->status == 503))
	{
		char		s[16];

		snprintf(s, sizeof(s), "%d", a->retry_after_s);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, s);
	}
	if (a->status == 401)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	ret = MHD_queue_response(conn, (unsigned int) a->status, resp);
	MHD_destroy_response(resp);
	gw_metric_http(a->status);
	gw_metric_latency(mono_seconds() - req->started);
	return ret;
}

static void
problem_answer(GwAnswer *a, GwProblem p)
{
	static const char *const codes[][2] = {
		{"400", "bad_request"}, {"401", "unauthorized"}, {"403", "forbidden"},
		{"404", "not_found"}, {"405", "method_not_allowed"},
		{"413", "payload_too_large"}, {"429", "rate_limited"}
	};
	const char *code = "error";
	char		s[8];
	size_t		i;

	snprintf(s, sizeof(s), "%d", p.status);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(codes[i][0], s) == 0)
			code = codes[i][1];
	a->status = p.status;
	a->body = gw_error_json(code, p.reason ? p.reason : code);
}

/* true when the token may make another request now */
static bool
rate_ok(const GwToken *t, int *retry_after_s)
{
	Bucket	   *b = &buckets[t - tokens->tokens];
	double		now = mono_seconds();
	bool		ok;

	pthread_mutex_lock(&bucket_mu);
	b->level += (now - b->at) * gw_opt.rate_limit;
	if (b->level > gw_opt.rate_limit)
		b->level = gw_opt.rate_limit;	/* a burst of one second's worth */
	b->at = now;
	ok = b->level >= 1.0;
	if (ok)
		b->level -= 1.0;
	else
		*retry_after_s = (int) ceil((1.0 - b->level) / gw_opt.rate_limit);
	pthread_mutex_unlock(&bucket_mu);
	if (*retry_after_s < 1)
		*retry_after_s = 1;
	return ok;
}

/* ---- issue 19 items 5 and 12: the registry's part of a request, off these threads ---- */

/* the pool finished the request's job: answer it on an HTTP thread again */
static void
job_done(GwJob *job)
{
	MHD_resume_connection((struct MHD_Connection *) job->arg);
}

/* hand the request's job to the pool; the answer comes once it is done */
static enum MHD_Result
dispatch(struct MHD_Connection *conn, Req *req)
{
	req->queued = true;
	req->job.done = job_done;
	req->job.arg = conn;
	/* the whole request is in: the header deadline no longer applies */
	gw_conn_answering(conn, true);
	MHD_suspend_connection(conn);
	gw_pool_submit(&req->job);
	return MHD_YES;
}

/*
 * GET /v1/ids.  Returns true when the answer waits for the registry (an
 * Idempotency-Key): then req->job is filled for dispatch().  The IDs are
 * reserved here either way; a record found or stored is the answer, and
 * IDs reserved for a retry go unused rather than be sent twice.
 */
static bool
answer_ids(struct MHD_Connection *conn, const GwToken *t, GwAnswer *a, Req *req)
{
	const char *key = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Idempotency-Key");
	int32_t		count;
	int			want128;
	GwProblem	p;
	GwBatch		batch;
	char		reason[512];
	char		msg[600];
	GwRefusal	r;

	p = gw_parse_count(MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "count"), &count);
	if (p.status == 0)
		p = gw_parse_type(MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "type"), &want128);
	if (p.status == 0 && key != NULL)
		p = gw_parse_idempotency_key(key);
	if (p.status != 0)
	{
		problem_answer(a, p);
		return false;
	}
	r = gw_issue_reserve((uint32_t) count, &batch, reason, sizeof(reason), &a->retry_after_s);
	if (r != GW_OK)
		snprintf(msg, sizeof(msg), "cannot issue IDs: %s", reason);
	else
		gw_metric_issued((uint64_t) count, want128);
	if (key == NULL)
	{
		if (r != GW_OK)
		{
			a->status = 503;
			a->body = gw_error_json(gw_refusal_name(r), msg);
			return false;
		}
		a->status = 200;
		a->body = gw_batch_json(&batch, want128, NULL);
		return false;
	}
	/* scoped by the token itself (its hash), never by its name alone */
	memcpy(req->job.token_sha256, t->sha256, sizeof(req->job.token_sha256));
	snprintf(req->job.key, sizeof(req->job.key), "%s", key);
	req->job.kind = GW_JOB_KEYED;
	req->job.count = count;
	req->job.want128 = want128;
	req->job.have_batch = r == GW_OK;
	req->job.batch = batch;
	/* an idgen128's random bits come from a seed the record keeps */
	if (r == GW_OK && want128 &&
		!gw_random_bytes(req->job.seed, sizeof(req->job.seed)))
	{
		r = GW_MARK;
		snprintf(msg, sizeof(msg), "cannot issue IDs: no random bytes for an idgen128 seed");
		req->job.have_batch = false;
	}
	if (r != GW_OK)
	{
		/* a stored answer is still given; else this refusal */
		req->job.refusal.status = 503;
		req->job.refusal.retry_after_s = a->retry_after_s;
		req->job.refusal.body = gw_error_json(gw_refusal_name(r), msg);
	}
	return true;
}

/* ---- end of the registry's part ---- */

static void
answer_decode(const char *text, GwAnswer *a)
{
	GwId		id;
	GwProblem	p = gw_parse_id(text, &id);
	IdgenEpochList epochs;
	GwDecoded	d;
	char	   *buf;

	if (p.status != 0)
	{
		problem_answer(a, p);
		return;
	}
	/* decoded as idgen_decode() does, with the registry's epochs */
	gw_issue_get_epochs(&epochs);
	gw_decode(&epochs, &id, &d);
	if (id.is128 && !d.is_v7)
	{
		/* idgen128's input refuses it too */
		GwProblem	bad = {400, "not an idgen128: a UUID of version 7 and variant 10 expected"};

		problem_answer(a, bad);
		return;
	}
	buf = malloc(256);
	if (buf == NULL)
		return;
	gw_decoded_json(&id, &d, buf, 254);
	strcat(buf, "\n");
	a->status = 200;
	a->body = buf;
}

/*
 * /healthz.  Anyone (a load balancer) learns ok or the class of refusal;
 * only an admin token sees the reason, the lease owner and the workers:
 * the owner name is what idgen_lease_worker's same-owner path matches, so
 * it must not be shown to whoever can reach the port.
 */
static void
answer_health(struct MHD_Connection *conn, GwAnswer *a)
{
	char		reason[512];
	GwRefusal	r = gw_issue_health(reason, sizeof(reason));
	const GwToken *t = gw_authenticate(tokens, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
																		   MHD_HTTP_HEADER_AUTHORIZATION));
	char	   *buf = malloc(1024);
	size_t		len;
	GwLeaseSet	set;
	int			i;

	if (buf == NULL)
		return;
	len = (size_t) snprintf(buf, 1024, "{\"status\": \"%s\"",
							r == GW_OK ? "ok" : gw_refusal_name(r));
	if (t != NULL && (t->scopes & GW_SCOPE_ADMIN) != 0)
	{
		len += (size_t) snprintf(buf + len, 1024 - len, ", \"reason\": ");
		len = gw_json_string(buf, len, 600, reason);
		len += (size_t) snprintf(buf + len, 1024 - len, ", \"owner\": ");
		len = gw_json_string(buf, len, 900, gw_registry_owner());
		/* what it holds, for operators (and idgen_fence_worker) */
		if (gw_issue_lease(&set))
		{
			len += (size_t) snprintf(buf + len, 1024 - len, ", \"region\": %d, \"workers\": [", set.region);
			for (i = 0; i < set.count; i++)
				len += (size_t) snprintf(buf + len, 1024 - len, "%s%d", i ? ", " : "", set.workers[i]);
			len += (size_t) snprintf(buf + len, 1024 - len, "]");
		}
	}
	snprintf(buf + len, 1024 - len, "}\n");
	a->status = r == GW_OK ? 200 : 503;
	a->retry_after_s = r == GW_OK ? 0 : 1;
	a->body = buf;
}


/*
 * A lease request, parsed into the job by the caller: a good one goes to
 * the registry pool as kind (true), a bad one is answered here.
 */
static bool
lease_job(GwAnswer *a, Req *req, GwJobKind kind, GwProblem parsed)
{
	if (parsed.status != 0)
	{
		problem_answer(a, parsed);
		return false;
	}
	req->job.kind = kind;
	return true;
}

static enum MHD_Result
handle(void *cls, struct MHD_Connection *conn, const char *url,
	   const char *method, const char *version, const char *upload_data,
	   size_t *upload_data_size, void **con_cls)
{
	Req		   *req = *con_cls;
	GwAnswer	a = {0, NULL, 0, NULL};
	GwRoute		route;
	char		id[GW_ID_TEXT_MAX];
	GwProblem	p;
	const GwToken *t = NULL;
	unsigned	need = 0;

	(void) cls;
	(void) version;
	if (req == NULL)
	{
		const char *cl;

		req = calloc(1, sizeof(Req));
		if (req == NULL)
			return MHD_NO;
		req->started = mono_seconds();
		*con_cls = req;
		/* a body announced too large is refused before it is read */
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl != NULL && strtoull(cl, NULL, 10) > GW_BODY_MAX)
		{
			GwProblem	big = {413, "the request body is larger than 4096 bytes"};

			problem_answer(&a, big);
			return send_answer(conn, req, &a);
		}
		return MHD_YES;
	}
	if (*upload_data_size > 0)
	{
		if (req->len + *upload_data_size > GW_BODY_MAX)
			req->too_big = true;
		else
		{
			memcpy(req->body + req->len, upload_data, *upload_data_size);
			req->len += *upload_data_size;
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->queued)
		return send_answer(conn, req, &req->job.answer);
	if (req->too_big)
	{
		GwProblem	big = {413, "the request body is larger than 4096 bytes"};

		problem_answer(&a, big);
		return send_answer(conn, req, &a);
	}

	p = gw_route(method, url, strlen(url), &route, id);
	if (p.status != 0)
	{
		problem_answer(&a, p);
		return send_answer(conn, req, &a);
	}
	switch (route)
	{
		case GW_ROUTE_IDS:
			need = GW_SCOPE_IDS;
			break;
		case GW_ROUTE_DECODE:
			need = GW_SCOPE_DECODE;
			break;
		case GW_ROUTE_WORKER_LEASE:
		case GW_ROUTE_RANGE_LEASE:
			need = GW_SCOPE_ADMIN;
			break;
		default:
			break;
	}
	if (need != 0)
	{
		t = gw_authenticate(tokens, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
																MHD_HTTP_HEADER_AUTHORIZATION));
		if (t == NULL)
		{
			GwProblem	no = {401, "a valid bearer token is required"};

			problem_answer(&a, no);
			return send_answer(conn, req, &a);
		}
		if ((t->scopes & need) == 0)
		{
			GwProblem	no = {403, "this token lacks the scope this request needs"};

			problem_answer(&a, no);
			return send_answer(conn, req, &a);
		}
		if (gw_opt.rate_limit > 0 && !rate_ok(t, &a.retry_after_s))
		{
			GwProblem	no = {429, "this token's request rate limit is exceeded"};

			problem_answer(&a, no);
			return send_answer(conn, req, &a);
		}
	}

	switch (route)
	{
		case GW_ROUTE_IDS:
			if (answer_ids(conn, t, &a, req))
				return dispatch(conn, req);
			break;
		case GW_ROUTE_DECODE:
			answer_decode(id, &a);
			break;
		case GW_ROUTE_WORKER_LEASE:
			if (lease_job(&a, req, GW_JOB_WORKER_LEASE,
						  gw_parse_worker_lease(req->body, req->len, &req->job.worker)))
				return dispatch(conn, req);
			break;
		case GW_ROUTE_RANGE_LEASE:
			if (lease_job(&a, req, GW_JOB_RANGE_LEASE,
						  gw_parse_range_lease(req->body, req->len, &req->job.range)))
				return dispatch(conn, req);
			break;
		case GW_ROUTE_HEALTHZ:
			answer_health(conn, &a);
			break;
		case GW_ROUTE_METRICS:
			a.status = 200;
			{
				char		reason[256];
				GwGeneratorGauges gen;
				GwLeaseSet	held;

				gen.up = gw_issue_health(reason, sizeof(reason)) == GW_OK;
				gen.workers = gw_issue_lease(&held) ? held.count : 0;
				gw_issue_lease_times(&gen.validity_ms, &gen.ttl_ms);
				a.body = gw_metrics_text(&gen);
			}
			/* Prometheus's text exposition format */
			a.content_type = "text/plain; version=0.0.4";
			break;
		case GW_ROUTE_NONE:
			{
				GwProblem	nf = {404, "no such endpoint"};

				problem_answer(&a, nf);
			}
			break;
	}
	return send_answer(conn, req, &a);
}

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		  enum MHD_RequestTerminationCode toe)
{
	(void) cls;
	(void) toe;
	free(*con_cls);
	*con_cls = NULL;
	gw_conn_answering(conn, false);
}

static char *
read_file(const char *path, char *err, size_t err_len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
		fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t) n + 1)) == NULL)
	{
		snprintf(err, err_len, "cannot read %s", path);
		if (f)
			fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t) n, f) != (size_t) n)
	{
		snprintf(err, err_len, "cannot read %s", path);
		fclose(f);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int
gw_http_start(const GwTokens *t, char *err, size_t err_len)
{
	struct addrinfo hints = {0};
	struct addrinfo *ai;
	char		port[16];
	unsigned	flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
		MHD_ALLOW_SUSPEND_RESUME;
	int			rc;

	tokens = t;
	buckets = calloc(t->count > 0 ? (size_t) t->count : 1, sizeof(Bucket));
	for (rc = 0; rc < t->count; rc++)
	{
		buckets[rc].level = gw_opt.rate_limit;
		buckets[rc].at = mono_seconds();
	}
	if (gw_pool_start(err, err_len) != 0)
		return -1;
	snprintf(port, sizeof(port), "%d", gw_opt.listen_port);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(gw_opt.listen_host, port, &hints, &ai);
	if (rc != 0)
	{
		snprintf(err, err_len, "cannot resolve --listen host \"%s\": %s",
				 gw_opt.listen_host, gai_strerror(rc));
		return -1;
	}
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (gw_opt.tls_cert)
	{
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS))
		{
			snprintf(err, err_len, "this libmicrohttpd has no TLS support");
			freeaddrinfo(ai);
			return -1;
		}
		tls_cert_pem = read_file(gw_opt.tls_cert, err, err_len);
		tls_key_pem = tls_cert_pem ? read_file(gw_opt.tls_key, err, err_len) : NULL;
		if (tls_key_pem == NULL)
		{
			freeaddrinfo(ai);
			return -1;
		}
		flags |= MHD_USE_TLS;
	}
	/* without TLS the option list ends where the certificate would begin */
	daemon_handle = MHD_start_daemon(flags, (uint16_t) gw_opt.listen_port, NULL, NULL,
									 handle, NULL,
									 MHD_OPTION_SOCK_ADDR, ai->ai_addr,
									 MHD_OPTION_THREAD_POOL_SIZE, (unsigned) gw_opt.threads,
									 MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
									 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) GW_IDLE_TIMEOUT_S,
									 MHD_OPTION_CONNECTION_LIMIT, (unsigned) gw_opt.max_connections,
									 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned) gw_opt.max_connections_per_ip,
									 MHD_OPTION_NOTIFY_CONNECTION, gw_conn_notify, NULL,
									 gw_opt.tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
									 tls_cert_pem,
									 MHD_OPTION_HTTPS_MEM_KEY, tls_key_pem,
									 MHD_OPTION_END);
	freeaddrinfo(ai);
	if (daemon_handle == NULL)
	{
		snprintf(err, err_len, "cannot listen on %s:%d", gw_opt.listen_host, gw_opt.listen_port);
		return -1;
	}
	if (gw_conn_reaper_start() != 0)
	{
		snprintf(err, err_len, "cannot start the connection reaper thread");
		MHD_stop_daemon(daemon_handle);
		daemon_handle = NULL;
		return -1;
	}
	return 0;
}

void
gw_http_stop(void)
{
	/* every suspended request answered first: none is left behind */
	gw_pool_stop();
	gw_conn_reaper_stop();
	if (daemon_handle)
		MHD_stop_daemon(daemon_handle);
	daemon_handle = NULL;
	/* the private key does not outlive the server in this process's memory */
	if (tls_key_pem)
	{
		explicit_bzero(tls_key_pem, strlen(tls_key_pem));
		free(tls_key_pem);
	}
	free(tls_cert_pem);
	tls_key_pem = tls_cert_pem = NULL;
}
