/*
 * gwconn.h - idgen-gateway's header deadline (gwconn.c): every HTTP
 * connection's request must arrive within --header-timeout
 */
#ifndef IDGEN_GWCONN_H
#define IDGEN_GWCONN_H

#include <stdbool.h>

#include <microhttpd.h>

/* the idle timeout of a kept-alive connection, seconds (libmicrohttpd's) */
#define GW_IDLE_TIMEOUT_S 60

/* MHD_OPTION_NOTIFY_CONNECTION: a connection starts, or has closed */
extern void gw_conn_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
						   enum MHD_ConnectionNotificationCode code);

/*
 * true: the request has arrived (its deadline stops); false: the answer
 * went out, and the next request on this connection gets the idle timeout
 * and a header timeout of its own.
 */
extern void gw_conn_answering(struct MHD_Connection *conn, bool answering);

/* the thread that shuts down connections past their deadline */
extern int	gw_conn_reaper_start(void);
extern void gw_conn_reaper_stop(void);

#endif							/* IDGEN_GWCONN_H */
