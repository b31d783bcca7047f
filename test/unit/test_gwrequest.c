/*
 * test_gwrequest.c - idgen-gateway's request parsing (gateway/gwrequest.c,
 * gwsha256.c): routes, query parameters, IDs, Idempotency-Key, durations,
 * the tokens file, bearer authentication and SHA-256 (the bodies are in
 * test_gwbody.c)
 */
#include <stdlib.h>

#include "unit.h"
#include "gwrequest.h"

static void
hex32(const uint8_t d[32], char out[65])
{
	static const char digits[] = "0123456789abcdef";
	int			i;

	for (i = 0; i < 32; i++)
	{
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 0xF];
	}
	out[64] = '\0';
}

static void
check_sha(const void *data, size_t len, const char *want)
{
	uint8_t		d[32];
	char		h[65];

	gw_sha256(data, len, d);
	hex32(d, h);
	CHECK_STR(h, want);
}

static void
test_sha256(void)
{
	char	   *million;
	char		buf[200];
	size_t		n;

	unit_context("sha256");
	/* FIPS 180-4 examples (NIST CSRC) */
	check_sha("abc", 3,
			  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
			  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha("", 0,
			  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 112,
			  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	check_sha("The quick brown fox jumps over the lazy dog", 43,
			  "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
	million = malloc(1000000);
	CHECK(million != NULL);
	if (million != NULL)
	{
		memset(million, 'a', 1000000);
		check_sha(million, 1000000,
				  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		free(million);
	}

	/* the padding edges: 55, 56, 63, 64, 65 bytes; each differs from its neighbours */
	memset(buf, 'x', sizeof(buf));
	{
		uint8_t		prev[32];
		uint8_t		d[32];

		gw_sha256(buf, 54, prev);
		for (n = 55; n <= 129; n++)
		{
			gw_sha256(buf, n, d);
			CHECK(memcmp(d, prev, 32) != 0);
			memcpy(prev, d, 32);
		}
	}
	/* hashing the same bytes twice gives the same digest */
	{
		uint8_t		a[32];
		uint8_t		b[32];

		gw_sha256(buf, 64, a);
		gw_sha256(buf, 64, b);
		CHECK(memcmp(a, b, 32) == 0);
	}
	/* 64 'a's and 1000 'a's (known values) */
	check_sha("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 64,
			  "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

/* ---------------------------------------------------------------- */

static void
route_ok(const char *method, const char *path, GwRoute want)
{
	GwRoute		r = GW_ROUTE_NONE;
	char		id[GW_ID_TEXT_MAX];
	GwProblem	p = gw_route(method, path, strlen(path), &r, id);

	unit_context("route %s %s", method, path);
	CHECK_I64(p.status, ==, 0);
	CHECK(p.reason == NULL);
	CHECK_I64(r, ==, want);
}

static void
route_bad(const char *method, const char *path, size_t len, int status)
{
	GwRoute		r = GW_ROUTE_IDS;
	char		id[GW_ID_TEXT_MAX];
	GwProblem	p = gw_route(method, path, len, &r, id);

	unit_context("route %s %.*s", method ? method : "(null)", (int) len, path ? path : "");
	CHECK_I64(p.status, ==, status);
	CHECK(p.reason != NULL && p.reason[0] != '\0');
	CHECK_I64(r, ==, GW_ROUTE_NONE);
}

static void
test_route(void)
{
	GwRoute		r;
	char		id[GW_ID_TEXT_MAX];
	char		path[200];
	GwProblem	p;
	size_t		i;

	route_ok("GET", "/v1/ids", GW_ROUTE_IDS);
	route_ok("GET", "/healthz", GW_ROUTE_HEALTHZ);
	route_ok("GET", "/metrics", GW_ROUTE_METRICS);
	route_ok("POST", "/internal/workers/lease", GW_ROUTE_WORKER_LEASE);
	route_ok("POST", "/internal/ranges/lease", GW_ROUTE_RANGE_LEASE);
	route_ok("GET", "/v1/ids/123/decode", GW_ROUTE_DECODE);

	p = gw_route("GET", "/v1/ids/123/decode", 18, &r, id);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(id, "123");
	p = gw_route("GET", "/v1/ids/0190a3b4-0000-7000-8000-000000000001/decode", 51, &r, id);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(id, "0190a3b4-0000-7000-8000-000000000001");
	/* the route does not judge the id: gw_parse_id does */
	p = gw_route("GET", "/v1/ids/abc/decode", 18, &r, id);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(id, "abc");
	/* path_len counts, not the NUL: a longer buffer is cut */
	p = gw_route("GET", "/v1/idsXYZ", 7, &r, id);
	CHECK_I64(p.status, ==, 0);
	CHECK_I64(r, ==, GW_ROUTE_IDS);

	/* 404: unknown paths, near misses */
	route_bad("GET", "/", 1, 404);
	route_bad("GET", "", 0, 404);
	route_bad("GET", "/v1/ids/", 8, 404);
	route_bad("GET", "/v1/ids?count=1", 15, 404);
	route_bad("GET", "/V1/IDS", 7, 404);
	route_bad("GET", "/v1/id", 6, 404);
	route_bad("GET", "/v1/idss", 8, 404);
	route_bad("GET", "//v1/ids", 8, 404);
	route_bad("GET", "/healthz/", 9, 404);
	route_bad("GET", "/metrics/x", 10, 404);
	route_bad("GET", "/v1/ids/1/decode/", 17, 404);
	route_bad("GET", "/v1/ids/1/decodex", 17, 404);
	route_bad("GET", "/v1/ids/a/b/decode", 18, 404);
	route_bad("GET", "/v1/ids/decode", 14, 404);
	route_bad("GET", "/v1/ids/1/DECODE", 16, 404);
	route_bad("POST", "/internal/workers", 17, 404);
	route_bad("POST", "/internal/workers/lease/", 24, 404);
	route_bad("POST", "/internal/ranges/leases", 23, 404);
	route_bad("GET", NULL, 0, 404);
	route_bad("GET", "/v1/ids\0", 8, 404);

	/* 405: a known path, another method */
	route_bad("POST", "/v1/ids", 7, 405);
	route_bad("PUT", "/v1/ids", 7, 405);
	route_bad("get", "/v1/ids", 7, 405);
	route_bad("HEAD", "/healthz", 8, 405);
	route_bad("DELETE", "/metrics", 8, 405);
	route_bad("GET", "/internal/workers/lease", 23, 405);
	route_bad("post", "/internal/workers/lease", 23, 405);
	route_bad("GET", "/internal/ranges/lease", 22, 405);
	route_bad("POST", "/v1/ids/1/decode", 16, 405);
	route_bad("", "/v1/ids", 7, 405);
	route_bad(NULL, "/v1/ids", 7, 405);
	route_bad("GET ", "/v1/ids", 7, 405);

	/* 400: a decode path whose id is empty, too long or holds a NUL */
	route_bad("GET", "/v1/ids//decode", 15, 400);
	route_bad("GET", "/v1/ids/1\0/decode", 17, 400);
	strcpy(path, "/v1/ids/");
	for (i = 0; i < GW_ID_TEXT_MAX - 1; i++)
		path[8 + i] = '7';
	strcpy(path + 8 + GW_ID_TEXT_MAX - 1, "/decode");
	/* 63 bytes fit */
	p = gw_route("GET", path, strlen(path), &r, id);
	CHECK_I64(p.status, ==, 0);
	CHECK_U64(strlen(id), ==, GW_ID_TEXT_MAX - 1);
	/* 64 do not */
	strcpy(path + 8 + GW_ID_TEXT_MAX - 1, "7/decode");
	route_bad("GET", path, strlen(path), 400);
}

/* ---------------------------------------------------------------- */

static void
count_is(const char *text, int status, int32_t want)
{
	int32_t		c = -7;
	GwProblem	p = gw_parse_count(text, &c);

	unit_context("count %s", text ? text : "(null)");
	CHECK_I64(p.status, ==, status);
	if (status == 0)
		CHECK_I64(c, ==, want);
	else
		CHECK(p.reason != NULL && p.reason[0] != '\0');
}

static void
test_count_type(void)
{
	int			w;
	GwProblem	p;

	count_is(NULL, 0, 1);
	count_is("1", 0, 1);
	count_is("2", 0, 2);
	count_is("100", 0, 100);
	count_is("99999", 0, 99999);
	count_is("100000", 0, 100000);
	count_is("0100", 0, 100);
	count_is("100001", 400, 0);
	count_is("0", 400, 0);
	count_is("000", 400, 0);
	count_is("", 400, 0);
	count_is("-1", 400, 0);
	count_is("+1", 400, 0);
	count_is(" 1", 400, 0);
	count_is("1 ", 400, 0);
	count_is("1.0", 400, 0);
	count_is("1e3", 400, 0);
	count_is("0x10", 400, 0);
	count_is("ten", 400, 0);
	count_is("4294967297", 400, 0);
	count_is("9223372036854775808", 400, 0);
	count_is("99999999999999999999999999", 400, 0);

	unit_context("type");
	w = -1;
	CHECK_I64(gw_parse_type(NULL, &w).status, ==, 0);
	CHECK_I64(w, ==, 0);
	w = -1;
	CHECK_I64(gw_parse_type("idgen", &w).status, ==, 0);
	CHECK_I64(w, ==, 0);
	CHECK_I64(gw_parse_type("idgen128", &w).status, ==, 0);
	CHECK_I64(w, ==, 1);
	p = gw_parse_type("", &w);
	CHECK_I64(p.status, ==, 400);
	CHECK(p.reason != NULL);
	CHECK_I64(gw_parse_type("IDGEN", &w).status, ==, 400);
	CHECK_I64(gw_parse_type("idgen64", &w).status, ==, 400);
	CHECK_I64(gw_parse_type("idgen128 ", &w).status, ==, 400);
	CHECK_I64(gw_parse_type("uuid", &w).status, ==, 400);
	CHECK_I64(gw_parse_type("128", &w).status, ==, 400);
}

/* ---------------------------------------------------------------- */

static void
id64_is(const char *text, int64_t want)
{
	GwId		id;
	GwProblem	p = gw_parse_id(text, &id);

	unit_context("id %s", text);
	CHECK_I64(p.status, ==, 0);
	CHECK_I64(id.is128, ==, 0);
	CHECK_I64(id.v64, ==, want);
}

static void
id_bad(const char *text)
{
	GwId		id;
	GwProblem	p = gw_parse_id(text, &id);

	unit_context("id %s", text ? text : "(null)");
	CHECK_I64(p.status, ==, 400);
	CHECK(p.reason != NULL && p.reason[0] != '\0');
}

static void
test_id(void)
{
	GwId		id;
	static const uint8_t want[16] = {
		0x01, 0x90, 0xa3, 0xb4, 0xc5, 0xd6, 0x7e, 0xf8,
		0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78
	};

	id64_is("0", 0);
	id64_is("1", 1);
	id64_is("00042", 42);
	id64_is("123456789012345678", INT64_C(123456789012345678));
	id64_is("9223372036854775807", INT64_MAX);
	id64_is("09223372036854775807", INT64_MAX);

	unit_context("uuid");
	CHECK_I64(gw_parse_id("0190a3b4-c5d6-7ef8-9abc-def012345678", &id).status, ==, 0);
	CHECK_I64(id.is128, ==, 1);
	CHECK(memcmp(id.v128, want, 16) == 0);
	CHECK_I64(gw_parse_id("0190A3B4-C5D6-7EF8-9ABC-DEF012345678", &id).status, ==, 0);
	CHECK(memcmp(id.v128, want, 16) == 0);
	CHECK_I64(gw_parse_id("0190a3B4-c5D6-7Ef8-9aBc-DeF012345678", &id).status, ==, 0);
	CHECK(memcmp(id.v128, want, 16) == 0);
	/* any version: the decode endpoint says what it is */
	CHECK_I64(gw_parse_id("00000000-0000-0000-0000-000000000000", &id).status, ==, 0);
	CHECK_I64(id.is128, ==, 1);
	CHECK_I64(gw_parse_id("ffffffff-ffff-4fff-bfff-ffffffffffff", &id).status, ==, 0);
	CHECK_I64(id.is128, ==, 1);
	/* 36 digits is a number, not a uuid: out of range */
	id_bad("123456789012345678901234567890123456");

	id_bad(NULL);
	id_bad("");
	id_bad("9223372036854775808");
	id_bad("18446744073709551615");
	id_bad("18446744073709551616");
	id_bad("99999999999999999999999");
	id_bad("-1");
	id_bad("+1");
	id_bad("-0");
	id_bad(" 1");
	id_bad("1 ");
	id_bad("1\t");
	id_bad("1.0");
	id_bad("1e5");
	id_bad("0x1f");
	id_bad("abc");
	id_bad("１２");				/* fullwidth digits */
	id_bad("0190a3b4c5d67ef89abcdef012345678");	/* no hyphens */
	id_bad("{0190a3b4-c5d6-7ef8-9abc-def012345678}");
	id_bad("0190a3b4-c5d6-7ef8-9abc-def01234567");
	id_bad("0190a3b4-c5d6-7ef8-9abc-def0123456789");
	id_bad("0190a3b4-c5d67-ef8-9abc-def012345678");
	id_bad("0190a3b4c5d6-7ef8-9abc-def0-12345678");
	id_bad("0190a3b4-c5d6-7ef8-9abc-def01234567g");
	id_bad("0190a3b4-c5d6-7ef8-9abc_def012345678");
	id_bad(" 0190a3b4-c5d6-7ef8-9abc-def012345678");
	id_bad("0190a3b4-c5d6-7ef8-9abc-def012345678 ");
	id_bad("urn:uuid:0190a3b4-c5d6-7ef8-9abc-def012345678");
	id_bad("0190a3b4--c5d6-7ef8-9abc-def01234567");
}

/* ---------------------------------------------------------------- */

static void
key_is(const char *text, int status)
{
	GwProblem	p = gw_parse_idempotency_key(text);

	unit_context("idempotency key %s", text ? text : "(null)");
	CHECK_I64(p.status, ==, status);
	CHECK(status == 0 ? p.reason == NULL : p.reason != NULL);
}

static void
duration_is(const char *text, int64_t want)
{
	unit_context("duration %s", text ? text : "(null)");
	CHECK_I64(gw_parse_duration_ms(text), ==, want);
}

static void
test_key_duration(void)
{
	char		k[GW_NAME_MAX + 2];

	key_is("a", 0);
	key_is("order-42", 0);
	key_is("~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./ 0123", 0);
	key_is("550e8400-e29b-41d4-a716-446655440000", 0);
	memset(k, 'k', GW_NAME_MAX);
	k[GW_NAME_MAX] = '\0';
	key_is(k, 0);
	k[GW_NAME_MAX] = 'k';
	k[GW_NAME_MAX + 1] = '\0';
	key_is(k, 400);
	key_is(NULL, 400);
	key_is("", 400);
	key_is("a\tb", 400);
	key_is("a\nb", 400);
	key_is("a\x7f", 400);
	key_is("\x1b[31m", 400);
	key_is("caf\xc3\xa9", 400);

	duration_is("500ms", 500);
	duration_is("30s", 30000);
	duration_is("2min", 120000);
	duration_is("1h", 3600000);
	duration_is("1d", 86400000);
	duration_is("30", 30000);
	duration_is("0", 0);
	duration_is("0ms", 0);
	duration_is("007s", 7000);
	duration_is("9223372036854775807ms", INT64_MAX);
	duration_is("9223372036854775807s", -1);
	duration_is("9223372036854775", 9223372036854775000);
	duration_is("9223372036854776", -1);
	duration_is("9223372036854775808ms", -1);
	duration_is(NULL, -1);
	duration_is("", -1);
	duration_is("s", -1);
	duration_is("ms", -1);
	duration_is("-1s", -1);
	duration_is("+1s", -1);
	duration_is("1.5s", -1);
	duration_is("1 s", -1);
	duration_is(" 1s", -1);
	duration_is("1s ", -1);
	duration_is("1S", -1);
	duration_is("1sec", -1);
	duration_is("1m", -1);
	duration_is("1us", -1);
	duration_is("1mins", -1);
	duration_is("1hh", -1);
	duration_is("1h30min", -1);
	duration_is("0x10", -1);
	duration_is("1e3", -1);
}

/* ---------------------------------------------------------------- */

static const char digest_secret[] =
	"2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";	/* "secret" */
static const char digest_other[] =
	"d9298a10d1b0735837dc4bd85dac641b0f3cef27a47e5d53a54f2f3f5b2fcffa";	/* "other" */

static int
tokens_parse_str(const char *text, GwTokens *t, char *err, size_t err_len)
{
	return gw_tokens_parse(text, strlen(text), t, err, err_len);
}

static void
tokens_bad(const char *text, const char *want_err)
{
	GwTokens	t;
	char		err[200];

	unit_context("tokens %s", text);
	t.tokens = (GwToken *) &t;	/* must be reset */
	t.count = 99;
	CHECK_I64(tokens_parse_str(text, &t, err, sizeof(err)), ==, -1);
	CHECK(t.tokens == NULL);
	CHECK_I64(t.count, ==, 0);
	CHECK_STR(err, want_err);
}

static void
test_tokens(void)
{
	GwTokens	t;
	char		err[200];
	char		text[600];
	char		line[200];
	uint8_t		d[32];
	char		h[65];

	/* the digests above are what they say */
	gw_sha256("secret", 6, d);
	hex32(d, h);
	CHECK_STR(h, digest_secret);
	gw_sha256("other", 5, d);
	hex32(d, h);
	CHECK_STR(h, digest_other);

	snprintf(text, sizeof(text),
			 "# gateway tokens\n"
			 "\n"
			 "app:ids,decode:%s\r\n"
			 "   \t\n"
			 "  # indented comment\n"
			 "ops.admin-1:admin:%s  \n", digest_secret, digest_other);
	unit_context("tokens good");
	CHECK_I64(tokens_parse_str(text, &t, err, sizeof(err)), ==, 0);
	CHECK_I64(t.count, ==, 2);
	if (t.count == 2)
	{
		CHECK_STR(t.tokens[0].name, "app");
		CHECK_U64(t.tokens[0].scopes, ==, GW_SCOPE_IDS | GW_SCOPE_DECODE);
		gw_sha256("secret", 6, d);
		CHECK(memcmp(t.tokens[0].sha256, d, 32) == 0);
		CHECK_STR(t.tokens[1].name, "ops.admin-1");
		CHECK_U64(t.tokens[1].scopes, ==, GW_SCOPE_ADMIN);
	}

	/* authentication */
	unit_context("authenticate");
	CHECK(gw_authenticate(&t, "Bearer secret") == &t.tokens[0]);
	CHECK(gw_authenticate(&t, "bearer secret") == &t.tokens[0]);
	CHECK(gw_authenticate(&t, "BEARER secret") == &t.tokens[0]);
	CHECK(gw_authenticate(&t, "BeArEr   secret") == &t.tokens[0]);
	CHECK(gw_authenticate(&t, "Bearer other") == &t.tokens[1]);
	CHECK(gw_authenticate(&t, "Bearer secreT") == NULL);
	CHECK(gw_authenticate(&t, "Bearer secret ") == NULL);
	CHECK(gw_authenticate(&t, "Bearer secre") == NULL);
	CHECK(gw_authenticate(&t, "Bearer secrets") == NULL);
	CHECK(gw_authenticate(&t, "Bearer ") == NULL);
	CHECK(gw_authenticate(&t, "Bearer") == NULL);
	CHECK(gw_authenticate(&t, "Bearersecret") == NULL);
	CHECK(gw_authenticate(&t, "Bearer\tsecret") == NULL);
	CHECK(gw_authenticate(&t, "Basic secret") == NULL);
	CHECK(gw_authenticate(&t, "Bearer se cret") == NULL);
	CHECK(gw_authenticate(&t, " Bearer secret") == NULL);
	CHECK(gw_authenticate(&t, "secret") == NULL);
	CHECK(gw_authenticate(&t, "") == NULL);
	CHECK(gw_authenticate(&t, NULL) == NULL);
	CHECK(gw_authenticate(NULL, "Bearer secret") == NULL);
	CHECK(gw_authenticate(&t, "Bearer secret\xc3\xa9") == NULL);
	/* the digest itself is not the token */
	snprintf(line, sizeof(line), "Bearer %s", digest_secret);
	CHECK(gw_authenticate(&t, line) == NULL);
	{
		char	   *huge = malloc(5000);

		CHECK(huge != NULL);
		if (huge != NULL)
		{
			memcpy(huge, "Bearer ", 7);
			memset(huge + 7, 'a', 4992);
			huge[4999] = '\0';
			CHECK(gw_authenticate(&t, huge) == NULL);
			free(huge);
		}
	}
	gw_tokens_free(&t);
	CHECK(t.tokens == NULL);
	CHECK_I64(t.count, ==, 0);
	gw_tokens_free(&t);			/* twice is harmless */

	/* an empty file, or one of comments, has no tokens: nothing authenticates */
	unit_context("tokens empty");
	CHECK_I64(tokens_parse_str("", &t, err, sizeof(err)), ==, 0);
	CHECK_I64(t.count, ==, 0);
	CHECK(gw_authenticate(&t, "Bearer secret") == NULL);
	gw_tokens_free(&t);
	CHECK_I64(tokens_parse_str("# none\n\n", &t, err, sizeof(err)), ==, 0);
	CHECK_I64(t.count, ==, 0);
	gw_tokens_free(&t);
	CHECK_I64(gw_tokens_parse(NULL, 0, &t, err, sizeof(err)), ==, 0);
	gw_tokens_free(&t);

	/* no final newline, upper-case hex, every scope */
	snprintf(text, sizeof(text), "all:admin,ids,decode:%s", "2BB80D537B1DA3E38BD30361AA855686BDE0EACD7162FEF6A25FE97BF527A25B");
	unit_context("tokens upper");
	CHECK_I64(tokens_parse_str(text, &t, err, sizeof(err)), ==, 0);
	CHECK_I64(t.count, ==, 1);
	if (t.count == 1)
		CHECK_U64(t.tokens[0].scopes, ==, GW_SCOPE_IDS | GW_SCOPE_DECODE | GW_SCOPE_ADMIN);
	CHECK(gw_authenticate(&t, "Bearer secret") == &t.tokens[0]);
	gw_tokens_free(&t);

	/* a NULL err is allowed */
	CHECK_I64(gw_tokens_parse("x", 1, &t, NULL, 0), ==, -1);

	tokens_bad("app", "line 1: expected name:scopes:sha256hex");
	tokens_bad("app:ids", "line 1: expected name:scopes:sha256hex");
	tokens_bad("# c\napp:ids:", "line 2: the digest must be 64 hex digits (sha-256 of the token)");
	tokens_bad(":ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: the token name is empty");
	tokens_bad("a b:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a token name is made of A-Z, a-z, 0-9, _, . and -");
	tokens_bad("caf\xc3\xa9:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a token name is made of A-Z, a-z, 0-9, _, . and -");
	tokens_bad("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: the token name is longer than 64 bytes");
	tokens_bad("app::2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a scope is ids, decode or admin");
	tokens_bad("app:ids,:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a scope is ids, decode or admin");
	tokens_bad("app:IDS:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a scope is ids, decode or admin");
	tokens_bad("app:ids, decode:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a scope is ids, decode or admin");
	tokens_bad("app:root:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a scope is ids, decode or admin");
	tokens_bad("app:ids,ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b",
			   "line 1: a scope is listed twice");
	tokens_bad("app:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25",
			   "line 1: the digest must be 64 hex digits (sha-256 of the token)");
	tokens_bad("app:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b0",
			   "line 1: the digest must be 64 hex digits (sha-256 of the token)");
	tokens_bad("app:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25g",
			   "line 1: the digest must be 64 hex digits (sha-256 of the token)");
	tokens_bad("app:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b:x",
			   "line 1: the digest must be 64 hex digits (sha-256 of the token)");
	tokens_bad("app:ids:secret", "line 1: the digest must be 64 hex digits (sha-256 of the token)");
	tokens_bad("app:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b\n"
			   "app:decode:d9298a10d1b0735837dc4bd85dac641b0f3cef27a47e5d53a54f2f3f5b2fcffa",
			   "line 2: a token of this name is listed before");
	tokens_bad("a:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b\n\n"
			   "b:admin:2BB80D537B1DA3E38BD30361AA855686BDE0EACD7162FEF6A25FE97BF527A25B",
			   "line 3: the same token is listed before under another name");
	{
		static const char with_nul[] = "a:ids:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a2\0b";

		unit_context("tokens nul");
		CHECK_I64(gw_tokens_parse(with_nul, sizeof(with_nul) - 1, &t, err, sizeof(err)), ==, -1);
		CHECK_STR(err, "line 1: the digest must be 64 hex digits (sha-256 of the token)");
	}
	/* a short err buffer is cut, still terminated */
	unit_context("tokens short err");
	CHECK_I64(tokens_parse_str("x", &t, err, 8), ==, -1);
	CHECK_STR(err, "line 1:");
}

/* many tokens: the right one is found wherever it is, and a miss stays a miss */
static void
test_many_tokens(void)
{
	char	   *text = malloc(200 * 100);
	size_t		n = 0;
	int			i;
	GwTokens	t;
	char		err[100];

	CHECK(text != NULL);
	if (text == NULL)
		return;
	for (i = 0; i < 200; i++)
	{
		char		secret[32];
		uint8_t		d[32];
		char		h[65];

		snprintf(secret, sizeof(secret), "token-%d", i);
		gw_sha256(secret, strlen(secret), d);
		hex32(d, h);
		n += (size_t) snprintf(text + n, 200 * 100 - n, "t%d:ids:%s\n", i, h);
	}
	unit_context("200 tokens");
	CHECK_I64(gw_tokens_parse(text, n, &t, err, sizeof(err)), ==, 0);
	CHECK_I64(t.count, ==, 200);
	for (i = 0; i < 200 && t.count == 200; i++)
	{
		char		auth[64];

		snprintf(auth, sizeof(auth), "Bearer token-%d", i);
		CHECK(gw_authenticate(&t, auth) == &t.tokens[i]);
	}
	CHECK(gw_authenticate(&t, "Bearer token-200") == NULL);
	CHECK(gw_authenticate(&t, "Bearer token-") == NULL);
	gw_tokens_free(&t);
	free(text);
}

int
main(void)
{
	test_sha256();
	test_route();
	test_count_type();
	test_id();
	test_key_duration();
	test_tokens();
	test_many_tokens();
	return unit_finish("test_gwrequest");
}
