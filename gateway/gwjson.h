/*
 * gwjson.h - the strict JSON reader behind idgen-gateway's request bodies
 *
 * Pure C.  It reads exactly one JSON object whose members are strings or
 * numbers (RFC 8259 grammar, UTF-8 validated), and only the members the
 * caller names: an unknown member, a repeated one, a member of the wrong
 * kind, nesting, or anything after the closing brace is a 400.  That is all
 * the gateway's bodies need, and refusing the rest keeps two readers of the
 * same body (the gateway and a proxy before it) from seeing different
 * requests.
 */
#ifndef IDGEN_GWJSON_H
#define IDGEN_GWJSON_H

#include "gwparse.h"

#define GW_JSON_STRING	0x1
#define GW_JSON_NUMBER	0x2

typedef struct GwJsonField
{
	/* set by the caller */
	const char *name;
	unsigned	kinds;			/* GW_JSON_STRING | GW_JSON_NUMBER */

	/* set by gw_json_object */
	int			present;
	unsigned	kind;			/* the one it had */
	char		str[GW_NAME_MAX + 1];	/* a string, decoded, NUL-terminated */
	size_t		str_len;
	int			str_too_long;	/* longer than GW_NAME_MAX bytes (str empty) */
	int			str_has_nul;	/* held \u0000 (str not usable as C text) */
	int			num_is_integer; /* no fraction, no exponent, fits int64 */
	int64_t		num;			/* when num_is_integer */
} GwJsonField;

/*
 * Read body as one object of the named fields.  Strings are checked as
 * valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF);
 * \u escapes must pair surrogates properly.  Fields not in the body keep
 * present = 0.
 */
extern GwProblem gw_json_object(const char *body, size_t len,
								GwJsonField *fields, int nfields);

/*
 * Length of the valid UTF-8 sequence at p (at most len bytes) and its code
 * point, or 0 when the bytes there are not one.
 */
extern size_t gw_utf8_next(const unsigned char *p, size_t len, uint32_t *cp);

/*
 * len bytes of s as a quoted JSON string into out: '"', '\\' and control
 * characters (C0, DEL) escaped, every byte that is not part of valid UTF-8
 * written as \ufffd, so the result is valid JSON whatever s holds.
 * Returns the length the whole string needs (without the NUL), as
 * snprintf does; out is cut but terminated when cap is short.
 */
extern size_t gw_json_escape(const char *s, size_t len, char *out, size_t cap);

#endif							/* IDGEN_GWJSON_H */
