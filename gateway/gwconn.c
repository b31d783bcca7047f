/*
 * gwconn.c - idgen-gateway's header deadline (gwconn.h)
 *
 * libmicrohttpd's idle timeout is reset by every byte, so a client that
 * trickles a header a byte at a time would hold its connection for ever.
 * Every connection is therefore tracked here with a deadline: its request
 * (header and body) must have arrived within --header-timeout of its start
 * (of the previous answer's end, plus the idle timeout, on a kept-alive
 * connection), or the reaper thread shuts its socket down and
 * libmicrohttpd closes it.
 */
#include "gateway.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "clockms.h"
#include "gwconn.h"

/*
 * A connection and its deadline.  Only the reaper reads fd, and only under
 * conn_mu: the entry is unlinked under it in the close notification, which
 * libmicrohttpd makes before it closes the socket, so a shutdown() never
 * reaches a descriptor number that was reused meanwhile.
 */
typedef struct Conn
{
	int			fd;
	double		deadline;		/* CLOCK_MONOTONIC seconds */
	bool		answering;		/* its request arrived: no deadline until answered */
	bool		shut;
	struct Conn *prev;
	struct Conn *next;
} Conn;
static Conn *conns;
static pthread_mutex_t conn_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t reaper;
static bool reaper_running;
static volatile bool reaper_stop;

static double
mono_seconds(void)
{
	return idgen_clock_seconds(CLOCK_MONOTONIC);
}

static Conn *
conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? (Conn *) ci->socket_context : NULL;
}

/*
 * true: the request has arrived (the deadline stops); false: the answer
 * went out, and the next request on this connection gets the idle timeout
 * and a header timeout of its own.
 */
void
gw_conn_answering(struct MHD_Connection *conn, bool answering)
{
	Conn	   *c = conn_of(conn);

	if (c == NULL)
		return;
	pthread_mutex_lock(&conn_mu);
	c->answering = answering;
	if (!answering)
		c->deadline = mono_seconds() + GW_IDLE_TIMEOUT_S + gw_opt.header_timeout_ms / 1000.0;
	pthread_mutex_unlock(&conn_mu);
}

void
gw_conn_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
				  enum MHD_ConnectionNotificationCode code)
{
	Conn	   *c;

	(void) cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
	{
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		c = calloc(1, sizeof(Conn));
		*socket_context = c;
		if (c == NULL || ci == NULL)
			return;
		c->fd = ci->connect_fd;
		c->deadline = mono_seconds() + gw_opt.header_timeout_ms / 1000.0;
		pthread_mutex_lock(&conn_mu);
		c->next = conns;
		if (conns)
			conns->prev = c;
		conns = c;
		pthread_mutex_unlock(&conn_mu);
	}
	else if (code == MHD_CONNECTION_NOTIFY_CLOSED && (c = *socket_context) != NULL)
	{
		pthread_mutex_lock(&conn_mu);
		if (c->prev)
			c->prev->next = c->next;
		else if (conns == c)
			conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
		pthread_mutex_unlock(&conn_mu);
		free(c);
		*socket_context = NULL;
	}
}

/* shuts down the connections past their deadline, five times a second */
static void *
reap(void *arg)
{
	struct timespec nap = {0, 200 * 1000000};

	(void) arg;
	while (!reaper_stop)
	{
		double		now = mono_seconds();
		Conn	   *c;

		pthread_mutex_lock(&conn_mu);
		for (c = conns; c != NULL; c = c->next)
		{
			if (!c->answering && !c->shut && now > c->deadline)
			{
				/* libmicrohttpd sees the end of the stream and closes it */
				shutdown(c->fd, SHUT_RDWR);
				c->shut = true;
				gw_metric_header_timeout();
			}
		}
		pthread_mutex_unlock(&conn_mu);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int
gw_conn_reaper_start(void)
{
	reaper_stop = false;
	if (pthread_create(&reaper, NULL, reap, NULL) != 0)
		return -1;
	reaper_running = true;
	return 0;
}

void
gw_conn_reaper_stop(void)
{
	if (reaper_running)
	{
		reaper_stop = true;
		pthread_join(reaper, NULL);
		reaper_running = false;
	}
}
