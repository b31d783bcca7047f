/*
 * gwpool.c - the registry calls of HTTP requests, on threads of their own
 * (gwpool.h)
 *
 * Jobs wait in one queue.  --pool threads take them, each with its own
 * registry connection.  Keyed requests travel in groups: a thread takes
 * every keyed job queued (up to GW_GROUP_MAX) and sends them in one call
 * of idgen.gateway_remember(), one statement and one commit for all; a
 * job's answer waits for that commit.  So keyed requests cost the
 * registry one round trip per group, not two and a commit each.
 *
 * Deadlines: each job must be answered by its deadline.  A watch thread
 * answers queued jobs whose deadline passed (503) while every pool thread
 * is busy; a statement is waited for until the earliest deadline of its
 * group, then its connection is dropped (the registry's own
 * statement_timeout and lock_timeout, set per session by
 * gw_registry_connect(), end it there).
 *
 * The purge of expired records runs on a thread and connection of its own,
 * a few hundred rows a statement (idgen.gateway_purge() skips locked rows),
 * so it never stands in the way of a lease renewal or a request.
 */
#include "gwpool.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clockms.h"
#include "gwjson.h"
#include "idtext.h"
#include "libpq-fe.h"

#define GW_GROUP_MAX 64
#define GW_QUEUE_MAX 4096
#define GW_PURGE_BATCH 500
#define GW_PURGE_EVERY_MS 60000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t stop_cv = PTHREAD_COND_INITIALIZER;
static GwJob *head;
static GwJob *tail;
static int	queued;
static bool stopping;
static pthread_t *workers;
static int	nworkers;
static pthread_t watch_thread;
static pthread_t purge_thread;
static bool started;

static int64_t
mono_ms(void)
{
	return idgen_clock_ms(CLOCK_MONOTONIC);
}

static void
set_answer(GwAnswer *a, int status, int retry_after_s, const char *code, const char *msg)
{
	free(a->body);
	a->status = status;
	a->retry_after_s = retry_after_s;
	a->content_type = NULL;
	a->body = gw_error_json(code, msg);
}

static void
timed_out(GwJob *job)
{
	char		msg[160];

	snprintf(msg, sizeof(msg), "the registry did not answer within %lld ms (--registry-timeout)",
			 (long long) gw_opt.registry_timeout_ms);
	set_answer(&job->answer, 503, 1, "registry_timeout", msg);
}

static void
finish(GwJob *job)
{
	if (job->kind == GW_JOB_KEYED)
	{
		free(job->refusal.body);
		job->refusal.body = NULL;
	}
	job->done(job);
}

void
gw_pool_submit(GwJob *job)
{
	bool		refused;

	job->deadline_ms = mono_ms() + gw_opt.registry_timeout_ms;
	job->next = NULL;
	pthread_mutex_lock(&mu);
	refused = stopping || queued >= GW_QUEUE_MAX;
	if (!refused)
	{
		if (tail)
			tail->next = job;
		else
			head = job;
		tail = job;
		queued++;
		pthread_cond_signal(&work_cv);
	}
	pthread_mutex_unlock(&mu);
	if (refused)
	{
		set_answer(&job->answer, 503, 1, "registry_busy",
				   "too many requests are waiting for the registry");
		finish(job);
	}
}

/* unlink job from the queue (under mu); prev is its predecessor or NULL */
static void
unlink_job(GwJob *prev, GwJob *job)
{
	if (prev)
		prev->next = job->next;
	else
		head = job->next;
	if (tail == job)
		tail = prev;
	job->next = NULL;
	queued--;
}

/*
 * Take work (under mu): the first job, and with a keyed one every other
 * keyed job queued, up to GW_GROUP_MAX.  Returns how many, into jobs[].
 */
static int
take_jobs(GwJob **jobs)
{
	GwJob	   *first = head;
	GwJob	   *prev;
	GwJob	   *j;
	int			n = 0;

	unlink_job(NULL, first);
	jobs[n++] = first;
	if (first->kind != GW_JOB_KEYED)
		return n;
	prev = NULL;
	j = head;
	while (j != NULL && n < GW_GROUP_MAX)
	{
		GwJob	   *next = j->next;

		if (j->kind == GW_JOB_KEYED)
		{
			unlink_job(prev, j);
			jobs[n++] = j;
		}
		else
			prev = j;
		j = next;
	}
	return n;
}

/* ---- statements with a deadline ---- */

static void
drop(PGconn **conn)
{
	if (*conn)
		PQfinish(*conn);
	*conn = NULL;
}

/*
 * Run one statement, waiting for it until deadline.  Returns its result
 * (the caller clears it), or NULL with err set; a connection that failed,
 * timed out or answered that it cannot write is dropped.
 */
static PGresult *
exec_until(PGconn **conn, const char *sql, int n, const char *const *params,
		   int64_t deadline, char *err, size_t err_len)
{
	PGresult   *last = NULL;
	PGresult   *res;

	if (*conn == NULL || PQstatus(*conn) != CONNECTION_OK)
	{
		drop(conn);
		if (mono_ms() >= deadline)
		{
			snprintf(err, err_len, "no time left to connect to the registry");
			return NULL;
		}
		*conn = gw_registry_connect(err, err_len);
		if (*conn == NULL)
			return NULL;
	}
	if (!PQsendQueryParams(*conn, sql, n, NULL, params, NULL, NULL, 0))
	{
		snprintf(err, err_len, "%s", PQerrorMessage(*conn));
		err[strcspn(err, "\n")] = '\0';
		drop(conn);
		return NULL;
	}
	for (;;)
	{
		while (PQisBusy(*conn))
		{
			struct pollfd pfd = {PQsocket(*conn), POLLIN, 0};
			int64_t		left = deadline - mono_ms();

			if (left <= 0)
			{
				/* the registry's statement_timeout ends the statement */
				snprintf(err, err_len, "the registry did not answer within %lld ms (--registry-timeout)",
						 (long long) gw_opt.registry_timeout_ms);
				PQclear(last);
				drop(conn);
				return NULL;
			}
			if (poll(&pfd, 1, (int) left) < 0 && errno != EINTR)
				break;
			if (!PQconsumeInput(*conn))
				break;
		}
		if (PQstatus(*conn) != CONNECTION_OK)
		{
			snprintf(err, err_len, "%s", PQerrorMessage(*conn));
			err[strcspn(err, "\n")] = '\0';
			PQclear(last);
			drop(conn);
			return NULL;
		}
		res = PQgetResult(*conn);
		if (res == NULL)
			break;
		PQclear(last);
		last = res;
	}
	if (last != NULL && gw_registry_result_drops_connection(*conn, last))
		drop(conn);
	return last;
}

/* an SQL error as an answer: the registry's own words, with a fitting status */
static void
sql_error_answer(PGresult *res, const char *err, GwAnswer *a)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *msg = primary ? primary : (err && err[0] ? err : "the registry failed");

	if (state == NULL)
		set_answer(a, 503, 1, "registry_unavailable", msg);
	else if (strcmp(state, "57014") == 0 || strcmp(state, "55P03") == 0 ||
			 strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
			 strcmp(state, "25006") == 0 || strncmp(state, "08", 2) == 0 ||
			 strncmp(state, "57P", 3) == 0)
		/* timed out, locked, a conflict, read-only, going away: try again */
		set_answer(a, 503, 1, "registry_unavailable", msg);
	else if (strncmp(state, "22", 2) == 0)
		set_answer(a, 400, 0, "invalid_request", msg);
	else if (strncmp(state, "53", 2) == 0)
		set_answer(a, 503, 5, "no_capacity", msg);
	else if (strcmp(state, "55000") == 0)
		set_answer(a, 409, 0, "conflict", msg);
	else if (strcmp(state, "IA006") == 0)
		/*
		 * Range grants wait for an operator's confirmation of the floor
		 * (after a restart, failover or restore of the registry): the
		 * request is fine and will succeed then, but no time can be named,
		 * so 503 without Retry-After.
		 */
		set_answer(a, 503, 0, "range_floor_unconfirmed", msg);
	else
		set_answer(a, 500, 0, "registry_error", msg);
}

/* ---- admin calls ---- */

static void
run_admin(PGconn **conn, GwJob *job)
{
	char		num[32];
	char		err[512] = "";
	const char *params[3];
	const char *sql;
	int			n;
	PGresult   *res;

	if (job->kind == GW_JOB_WORKER_LEASE)
	{
		snprintf(num, sizeof(num), "%lld", (long long) (job->worker.ttl_ms >= 0 ?
														job->worker.ttl_ms : gw_opt.lease_ttl_ms));
		params[0] = job->worker.owner;
		params[1] = num;
		n = 2;
		sql = "SELECT pg_catalog.json_build_object('region', region, 'worker', worker, "
			"'generation', generation, 'lease_until', lease_until)::text "
			"FROM idgen_lease_worker($1, $2::bigint * interval '1 ms')";
	}
	else
	{
		snprintf(num, sizeof(num), "%lld", (long long) job->range.count);
		params[0] = job->range.owner;
		params[1] = num;
		params[2] = job->range.has_request_key ? job->range.request_key : NULL;
		n = 3;
		/* the range's ends as decimal strings, as every ID here */
		sql = "SELECT pg_catalog.json_build_object('range_start', range_start::text, "
			"'range_end', range_end::text, 'generation', generation)::text "
			"FROM idgen_lease_range($1, $2::bigint, $3)";
	}
	res = exec_until(conn, sql, n, params, job->deadline_ms, err, sizeof(err));
	if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
	{
		job->answer.status = 200;
		job->answer.body = strdup(PQgetvalue(res, 0, 0));
	}
	else if (res == NULL && strstr(err, "--registry-timeout") != NULL)
		timed_out(job);
	else
		sql_error_answer(res, err, &job->answer);
	PQclear(res);
}

/* ---- keyed requests, a group at a time ---- */

typedef struct Buf
{
	char	   *data;
	size_t		len;
	size_t		cap;
} Buf;

static bool
buf_add(Buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
	{
		size_t		cap = (b->len + n + 1) * 2;
		char	   *d = realloc(b->data, cap);

		if (d == NULL)
			return false;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
	return true;
}

/* append an array element: s quoted (NULL: SQL NULL), after a comma if not the first */
static bool
arr_add(Buf *b, const char *s)
{
	if (!buf_add(b, b->len > 1 ? "," : "", b->len > 1 ? 1 : 0))
		return false;
	if (s == NULL)
		return buf_add(b, "NULL", 4);
	if (!buf_add(b, "\"", 1))
		return false;
	for (; *s; s++)
	{
		if ((*s == '"' || *s == '\\') && !buf_add(b, "\\", 1))
			return false;
		if (!buf_add(b, s, 1))
			return false;
	}
	return buf_add(b, "\"", 1);
}

static int
job_order(const void *x, const void *y)
{
	const GwJob *a = *(GwJob *const *) x;
	const GwJob *b = *(GwJob *const *) y;
	int			c = memcmp(a->token_sha256, b->token_sha256, 32);

	return c != 0 ? c : strcmp(a->key, b->key);
}

static bool
same_request(const GwJob *a, const GwJob *b)
{
	return memcmp(a->token_sha256, b->token_sha256, 32) == 0 && strcmp(a->key, b->key) == 0;
}

/* the answer of a record found (width, count, batch as hex) */
static void
answer_from_record(GwJob *job, int width, int count, const char *batch_hex)
{
	uint8_t		rec[GW_BATCH_RECORD_MAX];
	uint8_t		seed[GW_SEED_LEN];
	int			has_seed;
	int			len = idgen_hex_decode(batch_hex, strlen(batch_hex), rec, sizeof(rec));
	GwBatch		b;

	if (width != (job->want128 ? 128 : 64) || count != job->count)
	{
		set_answer(&job->answer, 409, 0, "idempotency_key_reused",
				   "this Idempotency-Key was used with another count or type");
		return;
	}
	if (len < 0 || gw_batch_decode(rec, (size_t) len, &b, seed, &has_seed) != 0 ||
		b.count != (uint32_t) count || (width == 128 && !has_seed))
	{
		set_answer(&job->answer, 500, 0, "registry_error",
				   "the stored answer of this Idempotency-Key cannot be read");
		return;
	}
	job->answer.status = 200;
	job->answer.body = gw_batch_json(&b, job->want128, has_seed ? seed : NULL);
}

/* the answer of this job, given the row the registry returned for it */
static void
answer_keyed(GwJob *job, PGresult *res, int row)
{
	const char *outcome = PQgetvalue(res, row, 0);

	if (strcmp(outcome, "stored") == 0 || strcmp(outcome, "found") == 0)
		answer_from_record(job, atoi(PQgetvalue(res, row, 1)), atoi(PQgetvalue(res, row, 2)),
						   PQgetvalue(res, row, 3));
	else if (strcmp(outcome, "over_cap") == 0)
	{
		char		msg[200];

		snprintf(msg, sizeof(msg),
				 "this token stored %lld Idempotency-Key records in this window of idgen.request_retention, the most --idempotency-keys allows",
				 (long long) gw_opt.idempotency_keys);
		set_answer(&job->answer, 429, 60, "idempotency_keys_exceeded", msg);
	}
	else
	{
		/* no record and no IDs: why the generator refused */
		job->answer = job->refusal;
		job->refusal.body = NULL;
	}
}

static void
run_keyed(PGconn **conn, GwJob **jobs, int n)
{
	Buf			tok = {0}, key = {0}, width = {0}, count = {0}, batch = {0};
	int64_t		deadline = INT64_MAX;
	char		cap[32];
	char		err[512] = "";
	const char *params[6];
	int		   *row_of = calloc((size_t) n, sizeof(int));
	int			rows = 0;
	bool		ok = row_of != NULL;
	PGresult   *res = NULL;
	int			i;

	/* one lock order for every group: concurrent groups never deadlock */
	qsort(jobs, (size_t) n, sizeof(GwJob *), job_order);
	ok = ok && buf_add(&tok, "{", 1) && buf_add(&key, "{", 1) && buf_add(&width, "{", 1) &&
		buf_add(&count, "{", 1) && buf_add(&batch, "{", 1);
	for (i = 0; ok && i < n; i++)
	{
		char		h[2 * GW_BATCH_RECORD_MAX + 1];
		char		num[16];

		if (jobs[i]->deadline_ms < deadline)
			deadline = jobs[i]->deadline_ms;
		/* one row for each (token, key): a retry in the same group shares it */
		if (i > 0 && same_request(jobs[i - 1], jobs[i]))
		{
			row_of[i] = row_of[i - 1];
			continue;
		}
		row_of[i] = rows++;
		idgen_hex_encode(jobs[i]->token_sha256, 32, h);
		ok = arr_add(&tok, h) && arr_add(&key, jobs[i]->key);
		snprintf(num, sizeof(num), "%d", jobs[i]->want128 ? 128 : 64);
		ok = ok && arr_add(&width, num);
		snprintf(num, sizeof(num), "%d", jobs[i]->count);
		ok = ok && arr_add(&count, num);
		if (ok && jobs[i]->have_batch)
		{
			uint8_t		rec[GW_BATCH_RECORD_MAX];
			size_t		len = gw_batch_encode(&jobs[i]->batch,
											  jobs[i]->want128 ? jobs[i]->seed : NULL, rec);

			idgen_hex_encode(rec, len, h);
			ok = arr_add(&batch, h);
		}
		else if (ok)
			ok = arr_add(&batch, NULL);
	}
	ok = ok && buf_add(&tok, "}", 1) && buf_add(&key, "}", 1) && buf_add(&width, "}", 1) &&
		buf_add(&count, "}", 1) && buf_add(&batch, "}", 1);
	if (ok)
	{
		snprintf(cap, sizeof(cap), "%lld", (long long) gw_opt.idempotency_keys);
		params[0] = tok.data;
		params[1] = key.data;
		params[2] = width.data;
		params[3] = count.data;
		params[4] = batch.data;
		params[5] = cap;
		res = exec_until(conn,
						 "SELECT outcome, width, count, batch FROM idgen.gateway_remember("
						 "$1::text[], $2::text[], $3::smallint[], $4::integer[], $5::text[], $6::bigint)",
						 6, params, deadline, err, sizeof(err));
	}
	else
		snprintf(err, sizeof(err), "out of memory");
	for (i = 0; i < n; i++)
	{
		if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == rows)
			answer_keyed(jobs[i], res, row_of[i]);
		else if (res == NULL && strstr(err, "--registry-timeout") != NULL)
			timed_out(jobs[i]);
		else
			sql_error_answer(res, err, &jobs[i]->answer);
	}
	PQclear(res);
	free(row_of);
	free(tok.data);
	free(key.data);
	free(width.data);
	free(count.data);
	free(batch.data);
}

static void *
worker_main(void *arg)
{
	PGconn	   *conn = NULL;
	GwJob	   *jobs[GW_GROUP_MAX];

	(void) arg;
	for (;;)
	{
		int			n;
		int			live = 0;
		int			i;
		int64_t		now;

		pthread_mutex_lock(&mu);
		while (!stopping && head == NULL)
			pthread_cond_wait(&work_cv, &mu);
		if (stopping)
		{
			pthread_mutex_unlock(&mu);
			break;
		}
		n = take_jobs(jobs);
		pthread_mutex_unlock(&mu);

		/* what waited past its deadline is answered now, not run */
		now = mono_ms();
		for (i = 0; i < n; i++)
		{
			if (jobs[i]->deadline_ms <= now)
			{
				timed_out(jobs[i]);
				finish(jobs[i]);
			}
			else
				jobs[live++] = jobs[i];
		}
		if (live == 0)
			continue;
		if (jobs[0]->kind == GW_JOB_KEYED)
			run_keyed(&conn, jobs, live);
		else
			run_admin(&conn, jobs[0]);
		for (i = 0; i < live; i++)
			finish(jobs[i]);
	}
	drop(&conn);
	return NULL;
}

/* answers queued jobs whose deadline passed while every pool thread is busy */
static void *
watch_main(void *arg)
{
	(void) arg;
	pthread_mutex_lock(&mu);
	while (!stopping)
	{
		struct timespec until;
		GwJob	   *late = NULL;
		GwJob	   *prev = NULL;
		GwJob	   *j = head;
		int64_t		now = mono_ms();

		while (j != NULL)
		{
			GwJob	   *next = j->next;

			if (j->deadline_ms <= now)
			{
				unlink_job(prev, j);
				j->next = late;
				late = j;
			}
			else
				prev = j;
			j = next;
		}
		pthread_mutex_unlock(&mu);
		while (late != NULL)
		{
			GwJob	   *next = late->next;

			timed_out(late);
			finish(late);
			late = next;
		}
		pthread_mutex_lock(&mu);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20 * 1000000;
		if (until.tv_nsec >= 1000000000)
		{
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		if (!stopping)
			pthread_cond_timedwait(&stop_cv, &mu, &until);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* deletes expired records once a minute, a few hundred at a time */
static void *
purge_main(void *arg)
{
	PGconn	   *conn = NULL;
	int64_t		next = mono_ms() + GW_PURGE_EVERY_MS;

	(void) arg;
	pthread_mutex_lock(&mu);
	while (!stopping)
	{
		struct timespec until;

		if (mono_ms() >= next)
		{
			int			gone = GW_PURGE_BATCH;

			pthread_mutex_unlock(&mu);
			while (gone == GW_PURGE_BATCH && !stopping)
			{
				char		err[512];
				char		limit[16];
				const char *params[1] = {limit};
				PGresult   *res;

				snprintf(limit, sizeof(limit), "%d", GW_PURGE_BATCH);
				res = exec_until(&conn, "SELECT idgen.gateway_purge($1::integer)", 1, params,
								 mono_ms() + gw_opt.registry_timeout_ms, err, sizeof(err));
				gone = res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 ?
					atoi(PQgetvalue(res, 0, 0)) : 0;
				PQclear(res);
			}
			next = mono_ms() + GW_PURGE_EVERY_MS;
			pthread_mutex_lock(&mu);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&stop_cv, &mu, &until);
	}
	pthread_mutex_unlock(&mu);
	drop(&conn);
	return NULL;
}

int
gw_pool_start(char *err, size_t err_len)
{
	int			i;

	workers = calloc((size_t) gw_opt.pool_size, sizeof(pthread_t));
	if (workers == NULL)
	{
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	for (i = 0; i < gw_opt.pool_size; i++)
	{
		if (pthread_create(&workers[i], NULL, worker_main, NULL) != 0)
		{
			snprintf(err, err_len, "cannot start a registry pool thread");
			return -1;
		}
		nworkers++;
	}
	if (pthread_create(&watch_thread, NULL, watch_main, NULL) != 0 ||
		pthread_create(&purge_thread, NULL, purge_main, NULL) != 0)
	{
		snprintf(err, err_len, "cannot start the registry pool's threads");
		return -1;
	}
	started = true;
	return 0;
}

void
gw_pool_stop(void)
{
	GwJob	   *left;
	int			i;

	pthread_mutex_lock(&mu);
	stopping = true;
	left = head;
	head = tail = NULL;
	queued = 0;
	pthread_cond_broadcast(&work_cv);
	pthread_cond_broadcast(&stop_cv);
	pthread_mutex_unlock(&mu);
	while (left != NULL)
	{
		GwJob	   *next = left->next;

		set_answer(&left->answer, 503, 1, "shutting_down", "the gateway is shutting down");
		finish(left);
		left = next;
	}
	for (i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
	if (started)
	{
		pthread_join(watch_thread, NULL);
		pthread_join(purge_thread, NULL);
	}
	nworkers = 0;
	started = false;
}
