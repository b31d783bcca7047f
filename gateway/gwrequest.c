/*
 * gwrequest.c - what idgen-gateway reads from a request (see gwrequest.h)
 *
 * Pure C99.  ID text goes through src/idtext.c, the parser the idgen and
 * idgen128 types use, so the gateway accepts the same spellings as SQL
 * (apart from the UUID shape, see gw_parse_id).
 */
#include "gwrequest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gwjson.h"
#include "idtext.h"

static const GwProblem gw_ok = {0, NULL};

/* -------------------------------------------------------------------- */
/* routes                                                               */
/* -------------------------------------------------------------------- */

static int
path_is(const char *path, size_t len, const char *want)
{
	return strlen(want) == len && memcmp(path, want, len) == 0;
}

GwProblem
gw_route(const char *method, const char *path, size_t path_len,
		 GwRoute *route, char id[GW_ID_TEXT_MAX])
{
	static const char decode_head[] = "/v1/ids/";
	static const char decode_tail[] = "/decode";
	const size_t head_len = sizeof(decode_head) - 1;
	const size_t tail_len = sizeof(decode_tail) - 1;
	GwRoute		found = GW_ROUTE_NONE;
	int			want_post = 0;
	int			is_get;
	int			is_post;

	*route = GW_ROUTE_NONE;
	id[0] = '\0';
	if (path == NULL)
		path_len = 0;
	if (method == NULL)
		method = "";
	/* methods are case-sensitive (RFC 9110 9.1) */
	is_get = strcmp(method, "GET") == 0;
	is_post = strcmp(method, "POST") == 0;

	if (path_is(path, path_len, "/v1/ids"))
		found = GW_ROUTE_IDS;
	else if (path_is(path, path_len, "/healthz"))
		found = GW_ROUTE_HEALTHZ;
	else if (path_is(path, path_len, "/metrics"))
		found = GW_ROUTE_METRICS;
	else if (path_is(path, path_len, "/internal/workers/lease"))
	{
		found = GW_ROUTE_WORKER_LEASE;
		want_post = 1;
	}
	else if (path_is(path, path_len, "/internal/ranges/lease"))
	{
		found = GW_ROUTE_RANGE_LEASE;
		want_post = 1;
	}
	else if (path_len >= head_len + tail_len &&
			 memcmp(path, decode_head, head_len) == 0 &&
			 memcmp(path + path_len - tail_len, decode_tail, tail_len) == 0)
	{
		const char *seg = path + head_len;
		size_t		seg_len = path_len - head_len - tail_len;

		/* one segment: "/v1/ids/a/b/decode" is no route */
		if (memchr(seg, '/', seg_len) != NULL)
			return gw_problem(404, "no such path");
		if (is_get)
		{
			if (seg_len == 0)
				return gw_problem(400, "the id in the path is empty");
			if (seg_len >= GW_ID_TEXT_MAX)
				return gw_problem(400, "the id in the path is too long");
			if (memchr(seg, '\0', seg_len) != NULL)
				return gw_problem(400, "the id in the path is not a decimal idgen or a uuid");
			memcpy(id, seg, seg_len);
			id[seg_len] = '\0';
		}
		found = GW_ROUTE_DECODE;
	}

	if (found == GW_ROUTE_NONE)
		return gw_problem(404, "no such path");
	if (want_post ? !is_post : !is_get)
	{
		id[0] = '\0';
		return gw_problem(405, want_post ? "this path takes post only" : "this path takes get only");
	}
	*route = found;
	return gw_ok;
}

/* -------------------------------------------------------------------- */
/* query parameters and the id of a decode path                         */
/* -------------------------------------------------------------------- */

GwProblem
gw_parse_count(const char *text, int32_t *count)
{
	uint64_t	v;

	if (text == NULL)
	{
		*count = 1;
		return gw_ok;
	}
	if (idgen_parse_u63(text, strlen(text), &v) != IDGEN_PARSE_OK ||
		v < 1 || v > GW_COUNT_MAX)
		return gw_problem(400, "count must be a whole number from 1 to 100000");
	*count = (int32_t) v;
	return gw_ok;
}

GwProblem
gw_parse_type(const char *text, int *want128)
{
	if (text == NULL || strcmp(text, "idgen") == 0)
		*want128 = 0;
	else if (strcmp(text, "idgen128") == 0)
		*want128 = 1;
	else
		return gw_problem(400, "type must be idgen or idgen128");
	return gw_ok;
}

/*
 * Only the canonical 8-4-4-4-12 form of a UUID: it is what the gateway
 * hands out, and the looser spellings the uuid type takes (braces, hyphens
 * anywhere) would give one ID many URLs.
 */
static int
is_canonical_uuid(const char *text, size_t len)
{
	size_t		i;

	if (len != 36)
		return 0;
	for (i = 0; i < len; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (text[i] != '-')
				return 0;
		}
		else if (idgen_hex_value((unsigned char) text[i]) < 0)
			return 0;
	}
	return 1;
}

GwProblem
gw_parse_id(const char *text, GwId *id)
{
	size_t		len;
	uint64_t	v;

	memset(id, 0, sizeof(*id));
	if (text == NULL)
		return gw_problem(400, "the id is missing");
	len = strlen(text);
	if (is_canonical_uuid(text, len))
	{
		if (idgen_parse_uuid(text, len, id->v128) != IDGEN_PARSE_OK)
			return gw_problem(400, "the id is not a decimal idgen or a uuid");
		id->is128 = 1;
		return gw_ok;
	}
	switch (idgen_parse_u63(text, len, &v))
	{
		case IDGEN_PARSE_OK:
			id->v64 = (int64_t) v;
			return gw_ok;
		case IDGEN_PARSE_RANGE:
			return gw_problem(400, "the id is above 9223372036854775807");
		default:
			return gw_problem(400, "the id is not a decimal idgen or a uuid");
	}
}

/* -------------------------------------------------------------------- */
/* request bodies                                                       */
/* -------------------------------------------------------------------- */

/*
 * An owner or request key: text that will be quoted in idgen_status(), the
 * audit log and the server log, so no control characters (C0, DEL and C1,
 * the last a superset of what the SQL functions refuse).  The JSON reader
 * has already checked it is valid UTF-8.
 */
static int
name_is_clean(const GwJsonField *f)
{
	const unsigned char *p = (const unsigned char *) f->str;
	size_t		left = f->str_len;

	if (f->str_too_long || f->str_has_nul || left == 0)
		return 0;
	while (left > 0)
	{
		uint32_t	cp;
		size_t		n = gw_utf8_next(p, left, &cp);

		if (n == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
			return 0;
		p += n;
		left -= n;
	}
	return 1;
}

/* a lease request's owner: present, short enough, clean (name_is_clean) */
static GwProblem
owner_check(const GwJsonField *f)
{
	if (!f->present)
		return gw_problem(400, "owner is missing");
	if (f->str_too_long)
		return gw_problem(400, "owner is longer than 200 bytes");
	if (!name_is_clean(f))
		return gw_problem(400, "owner must be non-empty printable text");
	return gw_ok;
}

#define MS_PER_DAY INT64_C(86400000)

GwProblem
gw_parse_worker_lease(const char *body, size_t len, GwWorkerLeaseRequest *out)
{
	GwJsonField f[2];
	GwProblem	p;

	memset(out, 0, sizeof(*out));
	out->ttl_ms = -1;
	memset(f, 0, sizeof(f));
	f[0].name = "owner";
	f[0].kinds = GW_JSON_STRING;
	f[1].name = "ttl";
	f[1].kinds = GW_JSON_STRING | GW_JSON_NUMBER;
	p = gw_json_object(body, len, f, 2);
	if (p.status != 0)
		return p;

	p = owner_check(&f[0]);
	if (p.status != 0)
		return p;
	/* idgen_lease_worker keeps these for idgen nodes */
	if (strncmp(f[0].str, "node:", 5) == 0)
		return gw_problem(400, "owner names starting with node: are reserved for idgen nodes");

	if (f[1].present)
	{
		int64_t		ms;

		if (f[1].kind == GW_JSON_STRING)
			ms = f[1].str_too_long || f[1].str_has_nul ? -1 :
				gw_parse_duration_ms(f[1].str);
		else if (f[1].num_is_integer && f[1].num >= 0 &&
				 f[1].num <= MS_PER_DAY / 1000)
			ms = f[1].num * 1000;
		else
			ms = -1;
		/* idgen_lease_worker's bounds: more than 0, at most a day */
		if (ms <= 0 || ms > MS_PER_DAY)
			return gw_problem(400, "ttl must be a duration above 0 and at most 1 day");
		out->ttl_ms = ms;
	}
	memcpy(out->owner, f[0].str, f[0].str_len + 1);
	return gw_ok;
}

GwProblem
gw_parse_range_lease(const char *body, size_t len, GwRangeLeaseRequest *out)
{
	GwJsonField f[3];
	GwProblem	p;

	memset(out, 0, sizeof(*out));
	memset(f, 0, sizeof(f));
	f[0].name = "owner";
	f[0].kinds = GW_JSON_STRING;
	f[1].name = "count";
	f[1].kinds = GW_JSON_NUMBER;
	f[2].name = "request_key";
	f[2].kinds = GW_JSON_STRING;
	p = gw_json_object(body, len, f, 3);
	if (p.status != 0)
		return p;

	p = owner_check(&f[0]);
	if (p.status != 0)
		return p;
	if (!f[1].present)
		return gw_problem(400, "count is missing");
	if (!f[1].num_is_integer || f[1].num < 1)
		return gw_problem(400, "count must be a whole number of at least 1");
	if (f[2].present)
	{
		if (f[2].str_too_long)
			return gw_problem(400, "request_key is longer than 200 bytes");
		if (!name_is_clean(&f[2]))
			return gw_problem(400, "request_key must be non-empty printable text");
		out->has_request_key = 1;
		memcpy(out->request_key, f[2].str, f[2].str_len + 1);
	}
	memcpy(out->owner, f[0].str, f[0].str_len + 1);
	out->count = f[1].num;
	return gw_ok;
}

/* -------------------------------------------------------------------- */
/* headers and durations                                                */
/* -------------------------------------------------------------------- */

GwProblem
gw_parse_idempotency_key(const char *text)
{
	size_t		i;

	if (text == NULL || text[0] == '\0')
		return gw_problem(400, "the idempotency key is empty");
	for (i = 0; text[i] != '\0'; i++)
	{
		if (i >= GW_NAME_MAX)
			return gw_problem(400, "the idempotency key is longer than 200 bytes");
		if ((unsigned char) text[i] < 0x20 || (unsigned char) text[i] > 0x7E)
			return gw_problem(400, "the idempotency key must be printable ascii");
	}
	return gw_ok;
}

/*
 * The units PostgreSQL's time settings take, written right after the
 * digits; no fractions, signs or spaces.
 */
int64_t
gw_parse_duration_ms(const char *text)
{
	static const struct
	{
		const char *unit;
		int64_t		ms;
	}			units[] = {
		{"", 1000}, {"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000},
		{"d", 86400000}
	};
	size_t		digits = 0;
	uint64_t	v;
	size_t		i;

	if (text == NULL)
		return -1;
	while (text[digits] >= '0' && text[digits] <= '9')
		digits++;
	if (digits == 0 || idgen_parse_u63(text, digits, &v) != IDGEN_PARSE_OK)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
	{
		if (strcmp(text + digits, units[i].unit) == 0)
		{
			if (v > (uint64_t) (INT64_MAX / units[i].ms))
				return -1;
			return (int64_t) v * units[i].ms;
		}
	}
	return -1;
}

/* -------------------------------------------------------------------- */
/* tokens                                                               */
/* -------------------------------------------------------------------- */

static int
is_name_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		(c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/* one line, without its line end; NULL when fine, else why not */
static const char *
token_line(const char *s, size_t len, GwToken *t)
{
	size_t		i = 0;
	size_t		n;

	memset(t, 0, sizeof(*t));
	while (i < len && s[i] != ':')
	{
		if (!is_name_char((unsigned char) s[i]))
			return "a token name is made of A-Z, a-z, 0-9, _, . and -";
		i++;
	}
	if (i == 0)
		return "the token name is empty";
	if (i > GW_TOKEN_NAME_MAX)
		return "the token name is longer than 64 bytes";
	if (i == len)
		return "expected name:scopes:sha256hex";
	memcpy(t->name, s, i);
	t->name[i] = '\0';
	i++;

	for (;;)
	{
		static const struct
		{
			const char *name;
			unsigned	bit;
		}			scopes[] = {
			{"ids", GW_SCOPE_IDS}, {"decode", GW_SCOPE_DECODE}, {"admin", GW_SCOPE_ADMIN}
		};
		size_t		start = i;
		unsigned	bit = 0;

		while (i < len && s[i] != ',' && s[i] != ':')
			i++;
		for (n = 0; n < sizeof(scopes) / sizeof(scopes[0]); n++)
			if (strlen(scopes[n].name) == i - start &&
				memcmp(scopes[n].name, s + start, i - start) == 0)
				bit = scopes[n].bit;
		if (bit == 0)
			return "a scope is ids, decode or admin";
		if (t->scopes & bit)
			return "a scope is listed twice";
		t->scopes |= bit;
		if (i == len)
			return "expected name:scopes:sha256hex";
		if (s[i++] == ':')
			break;
	}

	if (len - i != 64 || idgen_hex_decode(s + i, 64, t->sha256, 32) != 32)
		return "the digest must be 64 hex digits (sha-256 of the token)";
	return NULL;
}

int
gw_tokens_parse(const char *text, size_t len, GwTokens *out,
				char *err, size_t err_len)
{
	size_t		lines = 1;
	size_t		i;
	size_t		pos = 0;
	int			lineno = 0;

	out->tokens = NULL;
	out->count = 0;
	if (err != NULL && err_len > 0)
		err[0] = '\0';
	if (text == NULL)
		len = 0;
	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			lines++;
	if (lines > 1000000)
	{
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "the tokens file has more than 1000000 lines");
		return -1;
	}
	out->tokens = calloc(lines, sizeof(GwToken));
	if (out->tokens == NULL)
	{
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "out of memory");
		return -1;
	}

	while (pos < len)
	{
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t		n = nl != NULL ? (size_t) (nl - line) : len - pos;
		size_t		start = 0;
		const char *why = NULL;
		int			k;

		pos += n + (nl != NULL ? 1 : 0);
		lineno++;
		/* leading and trailing blanks, and a CR before the LF */
		while (start < n && (line[start] == ' ' || line[start] == '\t'))
			start++;
		while (n > start && (line[n - 1] == ' ' || line[n - 1] == '\t' ||
							 line[n - 1] == '\r'))
			n--;
		if (start == n || line[start] == '#')
			continue;

		why = token_line(line + start, n - start, &out->tokens[out->count]);
		for (k = 0; why == NULL && k < out->count; k++)
		{
			if (strcmp(out->tokens[k].name, out->tokens[out->count].name) == 0)
				why = "a token of this name is listed before";
			else if (memcmp(out->tokens[k].sha256, out->tokens[out->count].sha256, 32) == 0)
				why = "the same token is listed before under another name";
		}
		if (why != NULL)
		{
			if (err != NULL && err_len > 0)
				snprintf(err, err_len, "line %d: %s", lineno, why);
			gw_tokens_free(out);
			return -1;
		}
		out->count++;
	}
	return 0;
}

void
gw_tokens_free(GwTokens *tokens)
{
	if (tokens->tokens != NULL)
		memset(tokens->tokens, 0, sizeof(GwToken) * (size_t) tokens->count);
	free(tokens->tokens);
	tokens->tokens = NULL;
	tokens->count = 0;
}

/* the longest bearer token looked at; real ones are a few dozen bytes */
#define GW_BEARER_MAX 1024

const GwToken *
gw_authenticate(const GwTokens *tokens, const char *authorization)
{
	static const char scheme[] = "bearer";
	const char *tok;
	size_t		len;
	size_t		i;
	uint8_t		digest[32];
	size_t		found = 0;		/* index + 1 of the match, 0 for none */
	int			k;

	if (tokens == NULL || tokens->count <= 0 || authorization == NULL)
		return NULL;
	/* the scheme is case-insensitive (RFC 9110 11.1), then one or more spaces */
	for (i = 0; i < sizeof(scheme) - 1; i++)
	{
		char		c = authorization[i];

		if (c >= 'A' && c <= 'Z')
			c = (char) (c - 'A' + 'a');
		if (c != scheme[i])
			return NULL;
	}
	tok = authorization + i;
	if (*tok != ' ')
		return NULL;
	while (*tok == ' ')
		tok++;
	for (len = 0; tok[len] != '\0'; len++)
	{
		if (len >= GW_BEARER_MAX)
			return NULL;
		if ((unsigned char) tok[len] <= 0x20 || (unsigned char) tok[len] >= 0x7F)
			return NULL;
	}
	if (len == 0)
		return NULL;

	gw_sha256(tok, len, digest);
	/*
	 * Every digest is compared in full and the match is picked without a
	 * branch on the bytes, so the time does not tell how many leading bytes
	 * of some digest a guess got right.
	 */
	for (k = 0; k < tokens->count; k++)
	{
		unsigned	diff = 0;
		size_t		mask;

		for (i = 0; i < 32; i++)
			diff |= (unsigned) (digest[i] ^ tokens->tokens[k].sha256[i]);
		/* all ones when diff is 0, else 0 */
		mask = (size_t) 0 - (size_t) (((diff | (0u - diff)) >> (sizeof(unsigned) * 8 - 1)) ^ 1u);
		found = (found & ~mask) | (((size_t) k + 1) & mask);
	}
	memset(digest, 0, sizeof(digest));
	return found == 0 ? NULL : &tokens->tokens[found - 1];
}
