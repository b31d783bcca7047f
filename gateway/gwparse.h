/*
 * gwparse.h - what idgen-gateway's pure parsers (gwrequest.c, gwjson.c)
 * share: the answer to wrong input (the HTTP status and a short lower-case
 * reason, static text that is safe in a JSON string as it is) and the
 * limits on what they read.  A header of its own so that the request
 * parsers and the JSON reader use both without including each other.
 */
#ifndef IDGEN_GWPARSE_H
#define IDGEN_GWPARSE_H

#include <stddef.h>
#include <stdint.h>

/* status 0: no problem */
typedef struct GwProblem
{
	int			status;
	const char *reason;
} GwProblem;

/* request bodies larger than this are a 413 */
#define GW_BODY_MAX 4096
/* owner names and request keys, in bytes */
#define GW_NAME_MAX 200

#endif							/* IDGEN_GWPARSE_H */
