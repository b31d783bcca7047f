/*
 * gwrequest.h - what idgen-gateway reads from a request, apart from the server
 *
 * Pure C: no libmicrohttpd, libpq or PostgreSQL headers, so that the unit
 * tests and the fuzz target link these functions alone.  Every input is
 * untrusted bytes; every function either fills its output or returns a
 * GwProblem with the HTTP status to answer and a short lower-case reason
 * (static text, safe to put in a JSON string as it is).
 */
#ifndef IDGEN_GWREQUEST_H
#define IDGEN_GWREQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "gwparse.h"

typedef enum GwRoute
{
	GW_ROUTE_NONE = 0,
	GW_ROUTE_IDS,				/* GET /v1/ids */
	GW_ROUTE_DECODE,			/* GET /v1/ids/{id}/decode */
	GW_ROUTE_WORKER_LEASE,		/* POST /internal/workers/lease */
	GW_ROUTE_RANGE_LEASE,		/* POST /internal/ranges/lease */
	GW_ROUTE_HEALTHZ,			/* GET /healthz */
	GW_ROUTE_METRICS			/* GET /metrics */
} GwRoute;

/* the {id} of a decode path, NUL-terminated; a longer one is a 400 */
#define GW_ID_TEXT_MAX 64

/*
 * The route of a method and a path (the path without its query string, as
 * the server hands it over).  404 for an unknown path, 405 for a known path
 * with the wrong method.  For GW_ROUTE_DECODE, id gets the {id} segment.
 */
extern GwProblem gw_route(const char *method, const char *path, size_t path_len,
						  GwRoute *route, char id[GW_ID_TEXT_MAX]);

/* the most IDs one request may ask for */
#define GW_COUNT_MAX 100000

/* ?count=: NULL means 1; 1..GW_COUNT_MAX in plain decimal, else 400 */
extern GwProblem gw_parse_count(const char *text, int32_t *count);

/* ?type=: NULL or "idgen" gives 0, "idgen128" gives 1, else 400 */
extern GwProblem gw_parse_type(const char *text, int *want128);

/* the {id} of a decode request: a decimal idgen, or a UUID string */
typedef struct GwId
{
	int			is128;
	int64_t		v64;			/* when !is128: 0 .. 2^63-1 */
	uint8_t		v128[16];		/* when is128: the UUID's bytes */
} GwId;

extern GwProblem gw_parse_id(const char *text, GwId *id);


/*
 * POST /internal/workers/lease: {"owner": "...", "ttl": "30s"}; ttl may be
 * a duration string (gw_parse_duration_ms) or a number of seconds, and may
 * be left out (ttl_ms = -1).  owner: 1..GW_NAME_MAX bytes of valid UTF-8
 * without control characters.  Unknown members are a 400, and so is
 * anything that is not one JSON object.
 */
typedef struct GwWorkerLeaseRequest
{
	char		owner[GW_NAME_MAX + 1];
	int64_t		ttl_ms;
} GwWorkerLeaseRequest;

extern GwProblem gw_parse_worker_lease(const char *body, size_t len,
									   GwWorkerLeaseRequest *out);

/*
 * POST /internal/ranges/lease: {"owner": "...", "count": N,
 * "request_key": "..."}; count an integer >= 1; request_key optional
 * (has_request_key 0) or a string as owner is.
 */
typedef struct GwRangeLeaseRequest
{
	char		owner[GW_NAME_MAX + 1];
	int64_t		count;
	int			has_request_key;
	char		request_key[GW_NAME_MAX + 1];
} GwRangeLeaseRequest;

extern GwProblem gw_parse_range_lease(const char *body, size_t len,
									  GwRangeLeaseRequest *out);

/* Idempotency-Key: 1..GW_NAME_MAX printable ASCII bytes, else 400 */
extern GwProblem gw_parse_idempotency_key(const char *text);

/* "500ms", "30s", "2min", "1h", or a bare number of seconds; -1 if not */
extern int64_t gw_parse_duration_ms(const char *text);

/* scopes, as bits */
#define GW_SCOPE_IDS	0x1
#define GW_SCOPE_DECODE	0x2
#define GW_SCOPE_ADMIN	0x4

#define GW_TOKEN_NAME_MAX 64

typedef struct GwToken
{
	char		name[GW_TOKEN_NAME_MAX + 1];
	unsigned	scopes;
	uint8_t		sha256[32];
} GwToken;

typedef struct GwTokens
{
	GwToken    *tokens;
	int			count;
} GwTokens;

/*
 * The tokens file: one line per token, name:scope[,scope]:sha256hex, blank
 * lines and lines starting with # ignored.  Names are [A-Za-z0-9_.-]+ and
 * unique.  Returns 0, or -1 with "line N: why" in err.
 */
extern int	gw_tokens_parse(const char *text, size_t len, GwTokens *out,
							char *err, size_t err_len);
extern void gw_tokens_free(GwTokens *tokens);

/*
 * The token an Authorization header value ("Bearer <token>") names, or
 * NULL (a 401).  The digest comparison takes the same time wherever the
 * digests differ.
 */
extern const GwToken *gw_authenticate(const GwTokens *tokens,
									  const char *authorization);

extern void gw_sha256(const void *data, size_t len, uint8_t out[32]);

#endif							/* IDGEN_GWREQUEST_H */
