/*
 * fleet.c - clock skew, retry backoff and connection-string display for
 * nodes of a fleet (see fleet.h)
 */
#include "fleet.h"

#include <stdio.h>
#include <string.h>

#include "libpq-fe.h"

void
idgen_skew_estimate(int64_t sent_ms, int64_t received_ms, int64_t registry_ms,
					IdgenSkew *skew)
{
	int64_t		rtt = received_ms - sent_ms;

	/* a wall clock stepped back during the round trip: trust nothing */
	if (rtt < 0)
	{
		skew->offset_ms = 0;
		skew->uncertainty_ms = INT64_MAX;
		return;
	}
	skew->offset_ms = sent_ms + rtt / 2 - registry_ms;
	skew->uncertainty_ms = (rtt + 1) / 2 + 1;
}

bool
idgen_skew_exceeds(const IdgenSkew *skew, int64_t max_skew_ms)
{
	int64_t		off = skew->offset_ms;
	uint64_t	mag;

	if (max_skew_ms <= 0 || skew->uncertainty_ms == INT64_MAX)
		return false;
	/* |INT64_MIN| does not fit an int64 */
	mag = off < 0 ? (uint64_t) (-(off + 1)) + 1 : (uint64_t) off;
	if (mag <= (uint64_t) skew->uncertainty_ms)
		return false;
	return mag - (uint64_t) skew->uncertainty_ms > (uint64_t) max_skew_ms;
}

int64_t
idgen_backoff_next(int64_t current_ms, int64_t min_ms, int64_t max_ms)
{
	int64_t		next;

	if (max_ms < min_ms)
		max_ms = min_ms;
	if (current_ms < min_ms)
		return min_ms;
	next = current_ms > max_ms / 2 ? max_ms : current_ms * 2;
	return next > max_ms ? max_ms : next;
}

bool
idgen_conninfo_display(const char *conninfo, char *buf, size_t buflen)
{
	PQconninfoOption *opts;
	PQconninfoOption *o;
	const char *host = NULL;
	const char *hostaddr = NULL;
	const char *port = NULL;
	const char *dbname = NULL;
	char	   *err = NULL;

	opts = PQconninfoParse(conninfo ? conninfo : "", &err);
	if (opts == NULL)
	{
		if (err)
			PQfreemem(err);
		snprintf(buf, buflen, "(invalid connection string)");
		return false;
	}
	for (o = opts; o->keyword != NULL; o++)
	{
		if (o->val == NULL || o->val[0] == '\0')
			continue;
		if (strcmp(o->keyword, "host") == 0)
			host = o->val;
		else if (strcmp(o->keyword, "hostaddr") == 0)
			hostaddr = o->val;
		else if (strcmp(o->keyword, "port") == 0)
			port = o->val;
		else if (strcmp(o->keyword, "dbname") == 0)
			dbname = o->val;
	}
	snprintf(buf, buflen, "host=%s port=%s dbname=%s",
			 host ? host : hostaddr ? hostaddr : "(default)",
			 port ? port : "(default)",
			 dbname ? dbname : "(default)");
	PQconninfoFree(opts);
	return true;
}
