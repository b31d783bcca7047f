/*
 * gwpool.h - the registry calls of HTTP requests, off the HTTP threads
 * (gwpool.c)
 *
 * An Idempotency-Key request or an admin call becomes a job: the HTTP
 * thread suspends its connection and queues the job; a pool thread, on a
 * registry connection of its own, runs it and calls done(), which resumes
 * the connection.  So a registry that is slow or locked holds pool threads
 * only, never the threads that serve unkeyed requests and /healthz.  Every
 * job has a deadline (--registry-timeout from its arrival): past it, 503.
 */
#ifndef IDGEN_GWPOOL_H
#define IDGEN_GWPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "gateway.h"
#include "gwbatch.h"

typedef enum GwJobKind
{
	GW_JOB_KEYED,				/* /v1/ids with an Idempotency-Key */
	GW_JOB_WORKER_LEASE,
	GW_JOB_RANGE_LEASE
} GwJobKind;

typedef struct GwJob
{
	GwJobKind	kind;
	int64_t		deadline_ms;	/* CLOCK_MONOTONIC; set by gw_pool_submit() */
	/* GW_JOB_KEYED: the scope, the key and what was asked */
	uint8_t		token_sha256[32];
	char		key[GW_NAME_MAX + 1];
	int			count;
	int			want128;
	/* the reservation made for it, unless the generator refused */
	bool		have_batch;
	GwBatch		batch;
	uint8_t		seed[GW_SEED_LEN];
	GwAnswer	refusal;		/* the answer if no record is found */
	/* the admin calls */
	GwWorkerLeaseRequest worker;
	GwRangeLeaseRequest range;
	/* the outcome, then done(job) exactly once, from any thread */
	GwAnswer	answer;
	void		(*done) (struct GwJob *job);
	void	   *arg;
	struct GwJob *next;
} GwJob;

/* start the pool threads, the deadline watch and the purge thread */
extern int	gw_pool_start(char *err, size_t err_len);
/* answer every job still queued (503), stop and join the threads */
extern void gw_pool_stop(void);
/* queue a job; done() may be called before this returns */
extern void gw_pool_submit(GwJob *job);

#endif							/* IDGEN_GWPOOL_H */
