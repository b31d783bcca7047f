/*
 * fuzz_gwrequest.c - libFuzzer target for idgen-gateway's request parsing
 *
 * The first byte picks what the rest is fed to (the route, the JSON bodies
 * or the tokens file with an Authorization header); then every text
 * function (count, type, id, Idempotency-Key, duration), the route and the
 * body parsers meet the bytes up to the first NUL too, so one input
 * reaches all of them.  Besides not crashing or reading past the input:
 *   - every answer is the one a plain restatement of the rules gives (the
 *     reference_* functions): route and status, count, type, id, key,
 *     duration;
 *   - a problem is a 4xx with a reason that can go into a JSON string as
 *     it is (a refused route is GW_ROUTE_NONE); a body over GW_BODY_MAX
 *     is a 413, any other refused body a 400;
 *   - an accepted body has a clean 1..GW_NAME_MAX-byte owner (and request
 *     key), a ttl in (0, 1 day] or -1, and written out again, escaped by
 *     gw_json_escape or with \u escapes only, it reads back the same;
 *   - gw_json_escape of any bytes is a JSON string the reader accepts;
 *   - a tokens file with a line added for a token authenticates that token
 *     and not the token with one byte changed.
 */
#include <string.h>

#include "fuzz.h"
#include "gwjson.h"
#include "gwrequest.h"
#include "idtext.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_problem(GwProblem p)
{
	size_t		i;

	if (p.status != 0)
	{
		FUZZ_ASSERT(p.status >= 400 && p.status <= 499);
		FUZZ_ASSERT(p.reason != NULL && p.reason[0] != '\0');
		/* safe in a JSON string as it is: printable ASCII, no quote or backslash */
		for (i = 0; p.reason[i] != '\0'; i++)
			FUZZ_ASSERT(p.reason[i] >= 0x20 && p.reason[i] < 0x7F &&
						p.reason[i] != '"' && p.reason[i] != '\\');
	}
	else
		FUZZ_ASSERT(p.reason == NULL);
}

static void
check_name(const char *s, size_t cap)
{
	size_t		n = strnlen(s, cap + 1);
	size_t		i;

	FUZZ_ASSERT(n >= 1 && n <= cap);
	for (i = 0; i < n; i++)
		FUZZ_ASSERT((unsigned char) s[i] >= 0x20 && (unsigned char) s[i] != 0x7F);
}

/* the route a method and path should get, restated; 0 for none */
static int
reference_route(const char *method, const char *path, size_t len, GwRoute *route)
{
	static const struct
	{
		const char *path;
		const char *method;
		GwRoute		route;
	}			fixed[] = {
		{"/v1/ids", "GET", GW_ROUTE_IDS},
		{"/healthz", "GET", GW_ROUTE_HEALTHZ},
		{"/metrics", "GET", GW_ROUTE_METRICS},
		{"/internal/workers/lease", "POST", GW_ROUTE_WORKER_LEASE},
		{"/internal/ranges/lease", "POST", GW_ROUTE_RANGE_LEASE}
	};
	size_t		i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i].path) == len && memcmp(fixed[i].path, path, len) == 0)
		{
			*route = fixed[i].route;
			return strcmp(method, fixed[i].method) == 0 ? 200 : 405;
		}
	/* /v1/ids/{one segment of 1..63 bytes, no NUL}/decode */
	if (len >= 15 && memcmp(path, "/v1/ids/", 8) == 0 &&
		memcmp(path + len - 7, "/decode", 7) == 0 &&
		memchr(path + 8, '/', len - 15) == NULL)
	{
		*route = GW_ROUTE_DECODE;
		if (strcmp(method, "GET") != 0)
			return 405;
		if (len - 15 == 0 || len - 15 >= GW_ID_TEXT_MAX || memchr(path + 8, '\0', len - 15) != NULL)
			return 400;
		return 200;
	}
	return 404;
}

static void
fuzz_route(const char *text, size_t len)
{
	static const char *const methods[] = {"GET", "POST", "PUT", "get", ""};
	size_t		m;

	for (m = 0; m < sizeof(methods) / sizeof(methods[0]); m++)
	{
		GwRoute		route = GW_ROUTE_METRICS;
		GwRoute		want = GW_ROUTE_NONE;
		char		id[GW_ID_TEXT_MAX];
		GwProblem	p;
		int			status;

		memset(id, 'x', sizeof(id));
		p = gw_route(methods[m], text, len, &route, id);
		check_problem(p);
		status = reference_route(methods[m], text, len, &want);
		FUZZ_ASSERT(p.status == (status == 200 ? 0 : status));
		FUZZ_ASSERT(memchr(id, '\0', sizeof(id)) != NULL);
		if (p.status != 0)
			FUZZ_ASSERT(route == GW_ROUTE_NONE);
		else
		{
			FUZZ_ASSERT(route == want);
			if (route == GW_ROUTE_DECODE)
			{
				GwId		gid;

				FUZZ_ASSERT(strlen(id) == len - 15 && memcmp(id, text + 8, len - 15) == 0);
				check_problem(gw_parse_id(id, &gid));
			}
			else
				FUZZ_ASSERT(id[0] == '\0');
		}
	}
}

/*
 * Plain restatements of what each text function accepts, to hold the
 * answers against: slow and obvious rather than clever.
 */
static int
all_digits(const char *s, size_t n)
{
	size_t		i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* the digits' value, or -1 when above 2^63 - 1 */
static int64_t
digits_value(const char *s, size_t n)
{
	unsigned __int128 v = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		v = v * 10 + (unsigned) (s[i] - '0');
		if (v > (unsigned __int128) INT64_MAX)
			return -1;
	}
	return (int64_t) v;
}

static int
canonical_uuid(const char *s)
{
	size_t		i;

	if (strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++)
	{
		int			dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : strchr("0123456789abcdefABCDEF", s[i]) == NULL)
			return 0;
	}
	return 1;
}

static int64_t
reference_duration(const char *s)
{
	static const char *const units[] = {"", "ms", "s", "min", "h", "d"};
	static const int64_t ms[] = {1000, 1, 1000, 60000, 3600000, 86400000};
	size_t		d = 0;
	size_t		u;

	while (s[d] >= '0' && s[d] <= '9')
		d++;
	if (d == 0 || digits_value(s, d) < 0)
		return -1;
	for (u = 0; u < 6; u++)
		if (strcmp(s + d, units[u]) == 0)
		{
			unsigned __int128 v = (unsigned __int128) digits_value(s, d) * (unsigned __int128) ms[u];

			return v > (unsigned __int128) INT64_MAX ? -1 : (int64_t) v;
		}
	return -1;
}

static void
fuzz_text(const char *s)
{
	size_t		n = strlen(s);
	int32_t		count = 0;
	int			w = -1;
	GwId		id;
	GwProblem	p;
	int64_t		ms;
	size_t		i;
	int			printable = n >= 1 && n <= GW_NAME_MAX;

	p = gw_parse_count(s, &count);
	check_problem(p);
	{
		int64_t		v = all_digits(s, n) ? digits_value(s, n) : -1;
		int			good = v >= 1 && v <= GW_COUNT_MAX;

		FUZZ_ASSERT((p.status == 0) == good);
		FUZZ_ASSERT(p.status == 0 ? count == v : p.status == 400);
	}

	p = gw_parse_type(s, &w);
	check_problem(p);
	FUZZ_ASSERT((p.status == 0) == (strcmp(s, "idgen") == 0 || strcmp(s, "idgen128") == 0));
	if (p.status == 0)
		FUZZ_ASSERT(w == (strcmp(s, "idgen128") == 0));

	p = gw_parse_id(s, &id);
	check_problem(p);
	if (canonical_uuid(s))
		FUZZ_ASSERT(p.status == 0 && id.is128);
	else if (all_digits(s, n) && digits_value(s, n) >= 0)
		FUZZ_ASSERT(p.status == 0 && !id.is128 && id.v64 == digits_value(s, n));
	else
		FUZZ_ASSERT(p.status == 400);
	if (p.status == 0 && !id.is128)
	{
		char		buf[20];
		uint64_t	back;
		int			len;

		len = idgen_format_u63((uint64_t) id.v64, buf);
		FUZZ_ASSERT(idgen_parse_u63(buf, (size_t) len, &back) == IDGEN_PARSE_OK);
		FUZZ_ASSERT(back == (uint64_t) id.v64);
		FUZZ_ASSERT(gw_parse_id(buf, &id).status == 0);
	}
	else if (p.status == 0)
	{
		char		buf[37];
		uint8_t		before[16];

		/* only the canonical form is accepted, so it prints back as given, up to case */
		memcpy(before, id.v128, 16);
		idgen_format_uuid(id.v128, buf);
		for (i = 0; i < 36; i++)
			FUZZ_ASSERT(buf[i] == s[i] || (s[i] >= 'A' && s[i] <= 'F' && buf[i] == s[i] - 'A' + 'a'));
		FUZZ_ASSERT(gw_parse_id(buf, &id).status == 0);
		FUZZ_ASSERT(id.is128 && memcmp(before, id.v128, 16) == 0);
	}

	for (i = 0; i < n; i++)
		if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] > 0x7E)
			printable = 0;
	p = gw_parse_idempotency_key(s);
	check_problem(p);
	FUZZ_ASSERT(p.status == (printable ? 0 : 400));

	ms = gw_parse_duration_ms(s);
	FUZZ_ASSERT(ms == reference_duration(s));
}

/* s as a JSON string with every character a \\u escape (pairs above U+FFFF) */
static size_t
escape_all(const char *s, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *) s;
	size_t		left = strlen(s);
	size_t		n = 0;

	out[n++] = '"';
	while (left > 0)
	{
		uint32_t	cp;
		uint32_t	units[2];
		int			nunits = 1;
		int			u;
		size_t		len = gw_utf8_next(p, left, &cp);

		FUZZ_ASSERT(len > 0);	/* the parsers only accept valid UTF-8 */
		units[0] = cp;
		if (cp >= 0x10000)
		{
			units[0] = 0xD800 + ((cp - 0x10000) >> 10);
			units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
			nunits = 2;
		}
		for (u = 0; u < nunits; u++)
		{
			out[n++] = '\\';
			out[n++] = 'u';
			out[n++] = hex[(units[u] >> 12) & 0xF];
			out[n++] = hex[(units[u] >> 8) & 0xF];
			out[n++] = hex[(units[u] >> 4) & 0xF];
			out[n++] = hex[units[u] & 0xF];
		}
		p += len;
		left -= len;
	}
	out[n++] = '"';
	out[n] = '\0';
	return n;
}

/* an accepted request, written out again both ways, reads back the same */
static void
round_trip_worker(const GwWorkerLeaseRequest *w)
{
	char		owner[GW_NAME_MAX * 12 + 3];
	char		body[GW_NAME_MAX * 12 + 64];
	GwWorkerLeaseRequest again;
	int			form;

	for (form = 0; form < 2; form++)
	{
		int			n;

		if (form == 0)
			gw_json_escape(w->owner, strlen(w->owner), owner, sizeof(owner));
		else
			escape_all(w->owner, owner);
		if (w->ttl_ms >= 0)
			n = snprintf(body, sizeof(body), "{\"ttl\":\"%lldms\",\"owner\":%s}",
						 (long long) w->ttl_ms, owner);
		else
			n = snprintf(body, sizeof(body), "{\"owner\":%s}", owner);
		FUZZ_ASSERT(n > 0 && (size_t) n < sizeof(body));
		if ((size_t) n > GW_BODY_MAX)
			continue;
		FUZZ_ASSERT(gw_parse_worker_lease(body, (size_t) n, &again).status == 0);
		FUZZ_ASSERT(strcmp(again.owner, w->owner) == 0);
		FUZZ_ASSERT(again.ttl_ms == w->ttl_ms);
	}
}

static void
round_trip_range(const GwRangeLeaseRequest *r)
{
	char		owner[GW_NAME_MAX * 12 + 3];
	char		key[GW_NAME_MAX * 12 + 3];
	char		body[GW_NAME_MAX * 24 + 96];
	GwRangeLeaseRequest again;
	int			n;

	escape_all(r->owner, owner);
	gw_json_escape(r->request_key, strlen(r->request_key), key, sizeof(key));
	if (r->has_request_key)
		n = snprintf(body, sizeof(body), "{\"request_key\":%s,\"count\":%lld,\"owner\":%s}",
					 key, (long long) r->count, owner);
	else
		n = snprintf(body, sizeof(body), "{\"count\":%lld,\"owner\":%s}",
					 (long long) r->count, owner);
	FUZZ_ASSERT(n > 0 && (size_t) n < sizeof(body));
	if ((size_t) n > GW_BODY_MAX)
		return;
	FUZZ_ASSERT(gw_parse_range_lease(body, (size_t) n, &again).status == 0);
	FUZZ_ASSERT(strcmp(again.owner, r->owner) == 0);
	FUZZ_ASSERT(again.count == r->count);
	FUZZ_ASSERT(again.has_request_key == r->has_request_key);
	FUZZ_ASSERT(strcmp(again.request_key, r->request_key) == 0);
}

static void
fuzz_bodies(const char *body, size_t len)
{
	GwWorkerLeaseRequest w;
	GwRangeLeaseRequest r;
	GwProblem	p;

	p = gw_parse_worker_lease(body, len, &w);
	check_problem(p);
	if (len > GW_BODY_MAX)
		FUZZ_ASSERT(p.status == 413);
	else
		FUZZ_ASSERT(p.status == 0 || p.status == 400);
	if (p.status == 0)
	{
		check_name(w.owner, GW_NAME_MAX);
		FUZZ_ASSERT(w.ttl_ms == -1 || (w.ttl_ms > 0 && w.ttl_ms <= 86400000));
		round_trip_worker(&w);
	}

	p = gw_parse_range_lease(body, len, &r);
	check_problem(p);
	if (len > GW_BODY_MAX)
		FUZZ_ASSERT(p.status == 413);
	else
		FUZZ_ASSERT(p.status == 0 || p.status == 400);
	if (p.status == 0)
	{
		check_name(r.owner, GW_NAME_MAX);
		FUZZ_ASSERT(r.count >= 1);
		if (r.has_request_key)
			check_name(r.request_key, GW_NAME_MAX);
		else
			FUZZ_ASSERT(r.request_key[0] == '\0');
		round_trip_range(&r);
	}

	/* the escaper's output is always one valid JSON string */
	{
		char		out[GW_BODY_MAX * 6 + 8];
		char		obj[GW_BODY_MAX * 6 + 16];
		size_t		n = gw_json_escape(body, len > GW_BODY_MAX ? GW_BODY_MAX : len,
									   out, sizeof(out));
		GwJsonField f;
		int			m;

		FUZZ_ASSERT(n < sizeof(out) && strlen(out) == n);
		memset(&f, 0, sizeof(f));
		f.name = "s";
		f.kinds = GW_JSON_STRING;
		m = snprintf(obj, sizeof(obj), "{\"s\":%s}", out);
		/* the reader takes at most GW_BODY_MAX bytes: check what fits */
		if ((size_t) m <= GW_BODY_MAX)
			FUZZ_ASSERT(gw_json_object(obj, (size_t) m, &f, 1).status == 0);
	}
}

static void
check_tokens(const GwTokens *t)
{
	int			k;

	for (k = 0; k < t->count; k++)
	{
		size_t		n = strlen(t->tokens[k].name);

		FUZZ_ASSERT(n >= 1 && n <= GW_TOKEN_NAME_MAX);
		FUZZ_ASSERT(t->tokens[k].scopes != 0 &&
					(t->tokens[k].scopes & ~(unsigned) (GW_SCOPE_IDS | GW_SCOPE_DECODE | GW_SCOPE_ADMIN)) == 0);
	}
}

static int
bearer_token_ok(const char *tok, size_t len)
{
	size_t		i;

	if (len == 0 || len > 1024)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char) tok[i] <= 0x20 || (unsigned char) tok[i] >= 0x7F)
			return 0;
	return 1;
}

/*
 * The bytes up to the first newline are a bearer token; the rest is a
 * tokens file, to which a line for that token (name "fz") is added.  When
 * the file parses and the token is one a header can carry, authenticating
 * with it must find "fz", and with one byte changed must not.
 */
static void
fuzz_tokens(const char *bytes, size_t len, uint8_t flags)
{
	static const char digits[] = "0123456789abcdef";
	static const char *const schemes[] = {"Bearer ", "bearer ", "BEARER   ", "Basic "};
	const char *nl = memchr(bytes, '\n', len);
	size_t		tlen = nl != NULL ? (size_t) (nl - bytes) : len;
	size_t		rest = nl != NULL ? len - tlen - 1 : 0;
	const char *scheme = schemes[flags & 3];
	size_t		slen = strlen(scheme);
	char	   *file = malloc(rest + 80);
	char	   *auth = malloc(slen + tlen + 1);
	uint8_t		d[32];
	char		err[128];
	GwTokens	t;
	const GwToken *who;
	size_t		flen = 0;
	int			i;

	FUZZ_ASSERT(file != NULL && auth != NULL);
	memcpy(auth, scheme, slen);
	memcpy(auth + slen, bytes, tlen);
	auth[slen + tlen] = '\0';

	if (rest > 0)
		memcpy(file, nl + 1, rest);
	flen = rest;
	gw_sha256(bytes, tlen, d);
	memcpy(file + flen, "\nfz:ids:", 8);
	flen += 8;
	for (i = 0; i < 32; i++)
	{
		file[flen++] = digits[d[i] >> 4];
		file[flen++] = digits[d[i] & 0xF];
	}

	memset(err, 'x', sizeof(err));
	if (gw_tokens_parse(file, flen, &t, err, sizeof(err)) != 0)
	{
		FUZZ_ASSERT(t.tokens == NULL && t.count == 0);
		FUZZ_ASSERT(memchr(err, '\0', sizeof(err)) != NULL);
		FUZZ_ASSERT(strncmp(err, "line ", 5) == 0 || strcmp(err, "out of memory") == 0);
	}
	check_tokens(&t);
	who = gw_authenticate(&t, auth);
	if (who != NULL)
	{
		/* the token is the header's text after the scheme, to its NUL */
		const char *tok = auth + 6;
		uint8_t		dt[32];

		while (*tok == ' ')
			tok++;
		gw_sha256(tok, strlen(tok), dt);
		FUZZ_ASSERT(who >= t.tokens && who < t.tokens + t.count);
		FUZZ_ASSERT(memcmp(dt, who->sha256, 32) == 0);
	}
	if (t.count > 0 && (flags & 3) != 3 && bearer_token_ok(bytes, tlen))
	{
		FUZZ_ASSERT(who != NULL && strcmp(who->name, "fz") == 0);
		auth[slen + tlen - 1] ^= 1;
		who = gw_authenticate(&t, auth);
		FUZZ_ASSERT(who == NULL || strcmp(who->name, "fz") != 0);
	}
	else if ((flags & 3) == 3)
		FUZZ_ASSERT(who == NULL);
	gw_tokens_free(&t);
	FUZZ_ASSERT(t.tokens == NULL && t.count == 0);

	/* the whole input as a file of its own */
	if (gw_tokens_parse(bytes, len, &t, err, sizeof(err)) == 0)
		check_tokens(&t);
	else
		FUZZ_ASSERT(t.tokens == NULL && t.count == 0);
	gw_tokens_free(&t);
	free(file);
	free(auth);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *copy;
	char	   *auth;
	size_t		len;
	uint8_t		mode;

	if (size == 0)
		return 0;
	mode = data[0];
	data++;
	len = size - 1;

	/* the exact bytes, not NUL-terminated, for the length-taking functions */
	copy = malloc(len > 0 ? len : 1);
	FUZZ_ASSERT(copy != NULL);
	memcpy(copy, data, len);
	switch (mode % 4)
	{
		case 0:
			fuzz_route(copy, len);
			break;
		case 1:
			fuzz_bodies(copy, len);
			break;
		case 2:
			fuzz_tokens(copy, len, (uint8_t) (mode >> 2));
			break;
		default:
			break;
	}
	free(copy);

	/* every text function on the bytes up to the first NUL */
	auth = malloc(len + 1);
	FUZZ_ASSERT(auth != NULL);
	memcpy(auth, data, len);
	auth[len] = '\0';
	fuzz_text(auth);
	if (mode % 4 != 0)
		fuzz_route(auth, strlen(auth));
	if (mode % 4 != 1)
		fuzz_bodies(auth, len);
	{
		GwTokens	none = {NULL, 0};

		FUZZ_ASSERT(gw_authenticate(&none, auth) == NULL);
	}
	free(auth);
	return 0;
}
