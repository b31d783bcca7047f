/*
 * test_gwbody.c - idgen-gateway's request bodies and answers
 * (gateway/gwjson.c, gwrequest.c, gwdecode.c): the two lease bodies, the
 * strict JSON reader, UTF-8, JSON escaping, and decoding IDs as
 * idgen_decode() does
 */
#include <stdlib.h>

#include "unit.h"
#include "uuid7.h"
#include "gwdecode.h"
#include "gwjson.h"
#include "gwrequest.h"

/* ---------------------------------------------------------------- */

static GwProblem
wl(const char *body, GwWorkerLeaseRequest *out)
{
	unit_context("worker lease %s", body);
	return gw_parse_worker_lease(body, strlen(body), out);
}

static void
wl_bad(const char *body, int status)
{
	GwWorkerLeaseRequest r;
	GwProblem	p = wl(body, &r);

	CHECK_I64(p.status, ==, status);
	CHECK(p.reason != NULL && p.reason[0] != '\0');
}

static void
wl_ttl(const char *body, int64_t ttl_ms)
{
	GwWorkerLeaseRequest r;
	GwProblem	p = wl(body, &r);

	CHECK_I64(p.status, ==, 0);
	CHECK_I64(r.ttl_ms, ==, ttl_ms);
	CHECK_STR(r.owner, "app");
}

static void
test_worker_lease(void)
{
	GwWorkerLeaseRequest r;
	GwProblem	p;
	char		big[GW_BODY_MAX + 100];
	char		name[GW_NAME_MAX + 2];
	int			i;

	p = wl("{\"owner\": \"app-1\", \"ttl\": \"30s\"}", &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(r.owner, "app-1");
	CHECK_I64(r.ttl_ms, ==, 30000);
	p = wl("{\"owner\":\"app-1\"}", &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_I64(r.ttl_ms, ==, -1);
	p = wl(" \r\n\t{ \"ttl\" : 45 , \"owner\" : \"x\" } \n", &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(r.owner, "x");
	CHECK_I64(r.ttl_ms, ==, 45000);
	wl_ttl("{\"owner\":\"app\",\"ttl\":\"500ms\"}", 500);
	wl_ttl("{\"owner\":\"app\",\"ttl\":\"2min\"}", 120000);
	wl_ttl("{\"owner\":\"app\",\"ttl\":\"1h\"}", 3600000);
	wl_ttl("{\"owner\":\"app\",\"ttl\":\"1d\"}", 86400000);
	wl_ttl("{\"owner\":\"app\",\"ttl\":\"86400\"}", 86400000);
	wl_ttl("{\"owner\":\"app\",\"ttl\":86400}", 86400000);
	wl_ttl("{\"owner\":\"app\",\"ttl\":1}", 1000);
	wl_ttl("{\"owner\":\"app\",\"ttl\":\"1ms\"}", 1);
	/* escapes decode */
	p = wl("{\"owner\":\"a\\\"b\\\\c\\/d\"}", &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(r.owner, "a\"b\\c/d");
	p = wl("{\"owner\":\"caf\\u00e9 \\u20AC \\ud83d\\ude00\"}", &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(r.owner, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	p = wl("{\"owner\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}", &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(r.owner, "caf\xc3\xa9 \xf0\x9f\x98\x80");
	/* the longest owner, in bytes, and one byte more */
	memset(name, 'n', GW_NAME_MAX);
	name[GW_NAME_MAX] = '\0';
	snprintf(big, sizeof(big), "{\"owner\":\"%s\"}", name);
	p = wl(big, &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_U64(strlen(r.owner), ==, GW_NAME_MAX);
	name[GW_NAME_MAX] = 'n';
	name[GW_NAME_MAX + 1] = '\0';
	snprintf(big, sizeof(big), "{\"owner\":\"%s\"}", name);
	wl_bad(big, 400);
	/* 200 bytes of two-byte characters is 100 characters: fine; 201 bytes is not */
	memset(name, 0, sizeof(name));
	for (i = 0; i < 100; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	snprintf(big, sizeof(big), "{\"owner\":\"%s\"}", name);
	CHECK_I64(wl(big, &r).status, ==, 0);
	snprintf(big, sizeof(big), "{\"owner\":\"x%s\"}", name);
	wl_bad(big, 400);

	/* 413: the size is checked first, whatever the bytes */
	memset(big, ' ', sizeof(big));
	memcpy(big, "{\"owner\":\"a\"}", 13);
	unit_context("worker lease 4097 bytes");
	CHECK_I64(gw_parse_worker_lease(big, GW_BODY_MAX, &r).status, ==, 0);
	CHECK_I64(gw_parse_worker_lease(big, GW_BODY_MAX + 1, &r).status, ==, 413);
	CHECK_I64(gw_parse_worker_lease(big, sizeof(big), &r).status, ==, 413);
	/* the length counts, not the NUL: a body cut in the middle is not json */
	unit_context("worker lease cut");
	CHECK_I64(gw_parse_worker_lease("{\"owner\":\"a\"}", 12, &r).status, ==, 400);
	CHECK_I64(gw_parse_worker_lease("{\"owner\":\"a\"}XYZ", 13, &r).status, ==, 0);
	CHECK_I64(gw_parse_worker_lease(NULL, 0, &r).status, ==, 400);
	CHECK_I64(gw_parse_worker_lease("{\"owner\":\"a\"}\0", 14, &r).status, ==, 400);
	CHECK_I64(gw_parse_worker_lease("{\"owner\":\"a\0b\"}", 15, &r).status, ==, 400);

	/* 400: not one object */
	wl_bad("", 400);
	wl_bad("   ", 400);
	wl_bad("null", 400);
	wl_bad("[]", 400);
	wl_bad("\"owner\"", 400);
	wl_bad("{", 400);
	wl_bad("{\"owner\":\"a\"", 400);
	wl_bad("{\"owner\":\"a\"}}", 400);
	wl_bad("{\"owner\":\"a\"} {}", 400);
	wl_bad("{\"owner\":\"a\"},", 400);
	wl_bad("{\"owner\":\"a\",}", 400);
	wl_bad("{,\"owner\":\"a\"}", 400);
	wl_bad("{\"owner\" \"a\"}", 400);
	wl_bad("{\"owner\":\"a\" \"ttl\":1}", 400);
	wl_bad("{owner:\"a\"}", 400);
	wl_bad("{'owner':'a'}", 400);
	wl_bad("\xef\xbb\xbf{\"owner\":\"a\"}", 400);	/* a BOM */
	wl_bad("{\"owner\":\"a\"}\x0b", 400);
	/* 400: members */
	wl_bad("{}", 400);
	wl_bad("{\"ttl\":\"30s\"}", 400);
	wl_bad("{\"owner\":\"a\",\"owner\":\"b\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":1,\"ttl\":2}", 400);
	wl_bad("{\"owner\":\"a\",\"extra\":1}", 400);
	wl_bad("{\"Owner\":\"a\"}", 400);
	wl_bad("{\"owner\\u0000\":\"a\"}", 400);
	wl_bad("{\"own\\u0065r\":\"a\",\"owner\":\"b\"}", 400);	/* the same key, escaped */
	wl_bad("{\"owner\":1}", 400);
	wl_bad("{\"owner\":null}", 400);
	wl_bad("{\"owner\":true}", 400);
	wl_bad("{\"owner\":{\"a\":\"b\"}}", 400);
	wl_bad("{\"owner\":[\"a\"]}", 400);
	wl_bad("{\"owner\":\"\"}", 400);
	wl_bad("{\"owner\":\"node:1\"}", 400);
	wl_bad("{\"owner\":\"a\\nb\"}", 400);
	wl_bad("{\"owner\":\"a\\u0001\"}", 400);
	wl_bad("{\"owner\":\"a\\u007f\"}", 400);
	wl_bad("{\"owner\":\"a\\u0085\"}", 400);
	wl_bad("{\"owner\":\"a\x7f\"}", 400);
	wl_bad("{\"owner\":\"a\xc2\x85\"}", 400);
	wl_bad("{\"owner\":\"a\\u0000\"}", 400);
	wl_bad("{\"owner\":\"a\tb\"}", 400);	/* a raw tab in a string */
	wl_bad("{\"owner\":\"a\nb\"}", 400);
	wl_bad("{\"owner\":\"a\\x41\"}", 400);
	wl_bad("{\"owner\":\"a\\u12\"}", 400);
	wl_bad("{\"owner\":\"a\\u12g4\"}", 400);
	wl_bad("{\"owner\":\"a\\", 400);
	wl_bad("{\"owner\":\"a\\\"}", 400);
	wl_bad("{\"owner\":\"a", 400);
	/* 400: utf-8 and surrogates */
	wl_bad("{\"owner\":\"\\ud83d\"}", 400);
	wl_bad("{\"owner\":\"\\ud83dx\"}", 400);
	wl_bad("{\"owner\":\"\\ude00\"}", 400);
	wl_bad("{\"owner\":\"\\ud83d\\ud83d\"}", 400);
	wl_bad("{\"owner\":\"\\ud83d\\u0041\"}", 400);
	wl_bad("{\"owner\":\"\xc3\"}", 400);
	wl_bad("{\"owner\":\"\xc3(\"}", 400);
	wl_bad("{\"owner\":\"\xc0\xaf\"}", 400);	/* overlong / */
	wl_bad("{\"owner\":\"\xe0\x80\xaf\"}", 400);
	wl_bad("{\"owner\":\"\xed\xa0\x80\"}", 400);	/* U+D800 as utf-8 */
	wl_bad("{\"owner\":\"\xf4\x90\x80\x80\"}", 400);	/* above U+10FFFF */
	wl_bad("{\"owner\":\"\xf5\x80\x80\x80\"}", 400);
	wl_bad("{\"owner\":\"\xff\"}", 400);
	wl_bad("{\"owner\":\"\x80\"}", 400);
	wl_bad("{\"\xff\":\"a\"}", 400);
	/* 400: ttl */
	wl_bad("{\"owner\":\"a\",\"ttl\":0}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":\"0s\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":-5}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":1.5}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":1e2}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":86401}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":\"25h\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":\"2d\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":99999999999999999999}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":\"\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":\"30 s\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":\"30sec\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":\"-30s\"}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":01}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":+1}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":-}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":1.}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":.5}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":1e}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":0x10}", 400);
	wl_bad("{\"owner\":\"a\",\"ttl\":null}", 400);
}

/* ---------------------------------------------------------------- */

static void
rl_bad(const char *body, int status)
{
	GwRangeLeaseRequest r;
	GwProblem	p;

	unit_context("range lease %s", body);
	p = gw_parse_range_lease(body, strlen(body), &r);
	CHECK_I64(p.status, ==, status);
	CHECK(p.reason != NULL && p.reason[0] != '\0');
}

static void
test_range_lease(void)
{
	GwRangeLeaseRequest r;
	GwProblem	p;
	const char *b;
	char		big[GW_BODY_MAX + 2];

	b = "{\"owner\":\"loader\",\"count\":1000,\"request_key\":\"batch-7\"}";
	unit_context("range lease %s", b);
	p = gw_parse_range_lease(b, strlen(b), &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(r.owner, "loader");
	CHECK_I64(r.count, ==, 1000);
	CHECK_I64(r.has_request_key, ==, 1);
	CHECK_STR(r.request_key, "batch-7");

	b = "{\"count\":1,\"owner\":\"l\"}";
	unit_context("range lease %s", b);
	p = gw_parse_range_lease(b, strlen(b), &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_I64(r.count, ==, 1);
	CHECK_I64(r.has_request_key, ==, 0);
	CHECK_STR(r.request_key, "");

	b = "{\"owner\":\"l\",\"count\":9223372036854775807}";
	unit_context("range lease %s", b);
	p = gw_parse_range_lease(b, strlen(b), &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_I64(r.count, ==, INT64_MAX);

	b = "{\"owner\":\"node:x\",\"count\":5,\"request_key\":\"k \\u00e9\"}";
	unit_context("range lease %s", b);
	p = gw_parse_range_lease(b, strlen(b), &r);
	CHECK_I64(p.status, ==, 0);
	CHECK_STR(r.request_key, "k \xc3\xa9");

	rl_bad("", 400);
	rl_bad("{}", 400);
	rl_bad("{\"count\":5}", 400);
	rl_bad("{\"owner\":\"l\"}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":0}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":-1}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":-0}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":1.0}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":1E3}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":9223372036854775808}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":\"5\"}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"count\":6}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"ttl\":6}", 400);
	rl_bad("{\"owner\":\"\",\"count\":5}", 400);
	rl_bad("{\"owner\":\"l\\u001b\",\"count\":5}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"request_key\":\"\"}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"request_key\":7}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"request_key\":null}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"request_key\":\"a\\rb\"}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"request_key\":\"\\udfff\"}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5,\"request_key\":\"k\"", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5}x", 400);
	rl_bad("{\"owner\":\"l\",\"count\":5 6}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":[5]}", 400);
	rl_bad("{\"owner\":\"l\",\"count\":{\"n\":5}}", 400);
	memset(big, ' ', sizeof(big));
	memcpy(big, "{\"owner\":\"l\",\"count\":5}", 23);
	big[sizeof(big) - 1] = '\0';
	rl_bad(big, 413);
	memset(big + 23, 'x', 201);
	memcpy(big, "{\"owner\":\"l\",\"count\":5,\"request_key\":\"", 38);
	memcpy(big + 38 + 201, "\"}", 3);
	rl_bad(big, 400);
}

/* ---------------------------------------------------------------- */

static void
test_json_reader(void)
{
	GwJsonField f[2];
	const char *b;

	/* the reader alone: a string-or-number field and a number */
	memset(f, 0, sizeof(f));
	f[0].name = "a";
	f[0].kinds = GW_JSON_STRING | GW_JSON_NUMBER;
	f[1].name = "b";
	f[1].kinds = GW_JSON_NUMBER;
	unit_context("json");
	b = "{}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 0);
	CHECK_I64(f[0].present, ==, 0);
	CHECK_I64(f[1].present, ==, 0);
	b = "{\"b\":-9223372036854775807,\"a\":\"x\"}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 0);
	CHECK_I64(f[1].num_is_integer, ==, 1);
	CHECK_I64(f[1].num, ==, -INT64_MAX);
	CHECK_I64(f[0].kind, ==, GW_JSON_STRING);
	b = "{\"b\":0,\"a\":12.5e-3}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 0);
	CHECK_I64(f[1].num, ==, 0);
	CHECK_I64(f[1].num_is_integer, ==, 1);
	CHECK_I64(f[0].kind, ==, GW_JSON_NUMBER);
	CHECK_I64(f[0].num_is_integer, ==, 0);
	b = "{\"b\":1E+2}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 0);
	CHECK_I64(f[1].num_is_integer, ==, 0);
	b = "{\"a\":\"\\u0000\"}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 0);
	CHECK_I64(f[0].str_has_nul, ==, 1);
	b = "{\"b\":\"1\"}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 400);
	b = "{\"a\":1}{\"b\":2}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 400);
	b = "{\"a\":1,\"b\":}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 400);
	b = "{\"a\":00}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 400);
	b = "{\"a\":-01}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 400);
	b = "{\"a\":1.5e+}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 400);
	b = "{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\":1}";
	CHECK_I64(gw_json_object(b, strlen(b), f, 2).status, ==, 400);

	/* utf-8 sequences one at a time */
	{
		uint32_t	cp = 0;

		CHECK_U64(gw_utf8_next((const unsigned char *) "A", 1, &cp), ==, 1);
		CHECK_U64(cp, ==, 0x41);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xc2\x80", 2, &cp), ==, 2);
		CHECK_U64(cp, ==, 0x80);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xdf\xbf", 2, &cp), ==, 2);
		CHECK_U64(cp, ==, 0x7ff);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xe0\xa0\x80", 3, &cp), ==, 3);
		CHECK_U64(cp, ==, 0x800);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xed\x9f\xbf", 3, &cp), ==, 3);
		CHECK_U64(cp, ==, 0xd7ff);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xee\x80\x80", 3, &cp), ==, 3);
		CHECK_U64(cp, ==, 0xe000);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xf0\x90\x80\x80", 4, &cp), ==, 4);
		CHECK_U64(cp, ==, 0x10000);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xf4\x8f\xbf\xbf", 4, &cp), ==, 4);
		CHECK_U64(cp, ==, 0x10ffff);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xc1\xbf", 2, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xe0\x9f\xbf", 3, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xed\xbf\xbf", 3, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xf0\x8f\xbf\xbf", 4, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xf4\x90\x80\x80", 4, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xe2\x82", 2, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xe2\x82\xac", 2, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "\xe2\x82\x41", 3, &cp), ==, 0);
		CHECK_U64(gw_utf8_next((const unsigned char *) "", 0, &cp), ==, 0);
	}
}

static void
escape_is(const char *s, size_t len, const char *want)
{
	char		buf[200];
	size_t		n;

	unit_context("escape %s", want);
	n = gw_json_escape(s, len, buf, sizeof(buf));
	CHECK_STR(buf, want);
	CHECK_U64(n, ==, strlen(want));
	CHECK_U64(gw_json_escape(s, len, NULL, 0), ==, strlen(want));
}

static void
test_json_escape(void)
{
	char		small[6];
	GwJsonField f;
	char		buf[200];
	char		body[260];
	size_t		n;

	escape_is("", 0, "\"\"");
	escape_is("abc", 3, "\"abc\"");
	escape_is("a\"b\\c/d", 7, "\"a\\\"b\\\\c/d\"");
	escape_is("\n\t\x01\x1f\x7f", 5, "\"\\u000a\\u0009\\u0001\\u001f\\u007f\"");
	escape_is("a\0b", 3, "\"a\\u0000b\"");
	escape_is("caf\xc3\xa9 \xf0\x9f\x98\x80", 10, "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
	escape_is("\xff", 1, "\"\\ufffd\"");
	escape_is("\xc3", 1, "\"\\ufffd\"");
	escape_is("\xed\xa0\x80x", 4, "\"\\ufffd\\ufffd\\ufffdx\"");
	/* a short buffer: cut, terminated, the full length returned */
	n = gw_json_escape("abcdefgh", 8, small, sizeof(small));
	CHECK_U64(n, ==, 10);
	CHECK_STR(small, "\"abcd");
	n = gw_json_escape("abc", 3, small, 1);
	CHECK_U64(n, ==, 5);
	CHECK(small[0] == '\0');

	/* what it writes, the reader reads back */
	memset(&f, 0, sizeof(f));
	f.name = "s";
	f.kinds = GW_JSON_STRING;
	gw_json_escape("q\"\\\x01 \xe2\x82\xac", 8, buf, sizeof(buf));
	snprintf(body, sizeof(body), "{\"s\": %s}", buf);
	unit_context("escape round trip");
	CHECK_I64(gw_json_object(body, strlen(body), &f, 1).status, ==, 0);
	CHECK_STR(f.str, "q\"\\\x01 \xe2\x82\xac");
}

/*
 * An error text is appended with gw_json_string (gw_error_json, /health):
 * bad bytes in it (a registry's message, a path) must still make valid
 * JSON, and so must a cut one, whatever cap leaves room for.
 */
static void
test_json_append(void)
{
	const char *bad = "no \xff\xfe lease \xc3 for \"w\"\n";
	const char *want = "no \xef\xbf\xbd\xef\xbf\xbd lease \xef\xbf\xbd for \"w\"\n";
	GwJsonField f;
	char		buf[200];
	size_t		len;
	size_t		cap;

	unit_context("append an error text with bad bytes");
	len = (size_t) snprintf(buf, sizeof(buf), "{\"m\": ");
	len = gw_json_string(buf, len, sizeof(buf), bad);
	CHECK_U64(len, ==, strlen(buf));
	CHECK_STR(buf, "{\"m\": \"no \\ufffd\\ufffd lease \\ufffd for \\\"w\\\"\\u000a\"");
	snprintf(buf + len, sizeof(buf) - len, "}");
	memset(&f, 0, sizeof(f));
	f.name = "m";
	f.kinds = GW_JSON_STRING;
	CHECK_I64(gw_json_object(buf, strlen(buf), &f, 1).status, ==, 0);
	CHECK_STR(f.str, want);

	/* every cap: whole characters only, the quotes kept, valid JSON */
	for (cap = 9; cap < 60; cap++)
	{
		char		body[220];

		unit_context("append cut at cap %zu", cap);
		len = (size_t) snprintf(buf, sizeof(buf), "{\"m\": ");
		len = gw_json_string(buf, len, cap, bad);
		CHECK_U64(len, <, cap);
		CHECK_U64(len, ==, strlen(buf));
		snprintf(body, sizeof(body), "%s}", buf);
		memset(&f, 0, sizeof(f));
		f.name = "m";
		f.kinds = GW_JSON_STRING;
		CHECK_I64(gw_json_object(body, strlen(body), &f, 1).status, ==, 0);
		CHECK(strncmp(want, f.str, f.str_len) == 0);
	}
	/* no room for the quotes: nothing appended */
	len = gw_json_string(buf, 5, 7, bad);
	CHECK_U64(len, ==, 5);
	unit_context("");
}

/* ---------------------------------------------------------------- */

static void
ts_is(int64_t ms, const char *want)
{
	char		buf[48];

	unit_context("ts %" PRId64, ms);
	gw_format_unix_ms(ms, buf, sizeof(buf));
	CHECK_STR(buf, want);
}

static void
test_decode(void)
{
	IdgenEpochList list;
	GwId		id;
	GwDecoded	d;
	char		buf[256];
	IdgenLayout l;
	IdgenFields f;

	ts_is(0, "1970-01-01 00:00:00+00");
	ts_is(1, "1970-01-01 00:00:00.001+00");
	ts_is(10, "1970-01-01 00:00:00.01+00");
	ts_is(100, "1970-01-01 00:00:00.1+00");
	ts_is(999, "1970-01-01 00:00:00.999+00");
	ts_is(-1, "1969-12-31 23:59:59.999+00");
	ts_is(IDGEN_DEFAULT_EPOCH_UNIX_MS, "2025-01-01 00:00:00+00");
	ts_is(IDGEN_RANGE_SPACE_END_UNIX_MS, "2026-01-01 00:00:00+00");
	ts_is(INT64_C(1709164800000), "2024-02-29 00:00:00+00");
	ts_is(INT64_C(1709251199999), "2024-02-29 23:59:59.999+00");
	ts_is(INT64_C(951782400000), "2000-02-29 00:00:00+00");
	ts_is(INT64_C(4107542400000), "2100-03-01 00:00:00+00");	/* 2100 has no 29 Feb */
	ts_is(INT64_C(1767225599999), "2025-12-31 23:59:59.999+00");
	ts_is(INT64_C(253402300800000), "10000-01-01 00:00:00+00");
	ts_is((INT64_C(1) << 48) - 1, "10889-08-02 05:31:50.655+00");
	gw_format_unix_ms_json(INT64_C(1709251199999), buf, sizeof(buf));
	CHECK_STR(buf, "2024-02-29T23:59:59.999+00:00");
	gw_format_unix_ms_json(0, buf, sizeof(buf));
	CHECK_STR(buf, "1970-01-01T00:00:00+00:00");
	gw_format_unix_ms_json(INT64_C(1767225600120), buf, sizeof(buf));
	CHECK_STR(buf, "2026-01-01T00:00:00.12+00:00");

	idgen_epochs_init(&list);
	idgen_layout_default(&l);

	/* a generated ID: every field, epoch 1 */
	f.ms = IDGEN_RANGE_SPACE_END_UNIX_MS - l.origin_unix_ms + 12345;
	f.region = 5;
	f.worker = 99;
	f.seq = 4000;
	id.is128 = 0;
	id.v64 = (int64_t) idgen_layout_compose(&l, &f);
	gw_decode(&list, &id, &d);
	unit_context("decode 64");
	CHECK_I64(d.has_ts, ==, 1);
	CHECK_I64(d.unix_ms, ==, IDGEN_RANGE_SPACE_END_UNIX_MS + 12345);
	CHECK_I64(d.has_node, ==, 1);
	CHECK_U64(d.region, ==, 5);
	CHECK_U64(d.worker, ==, 99);
	CHECK_U64(d.seq, ==, 4000);
	CHECK_I64(d.epoch, ==, 1);
	gw_decoded_json(&id, &d, buf, sizeof(buf));
	{
		char		want[256];

		snprintf(want, sizeof(want),
				 "{\"id\": \"%" PRId64 "\", \"ts\": \"2026-01-01T00:00:12.345+00:00\", \"region\": 5, \"worker\": 99, \"seq\": 4000, \"epoch\": 1}",
				 id.v64);
		CHECK_STR(buf, want);
	}
	/* a leased range's ID: NULLs and epoch 0 */
	id.v64 = 42;
	gw_decode(&list, &id, &d);
	CHECK_I64(d.has_ts, ==, 0);
	CHECK_I64(d.has_node, ==, 0);
	CHECK_I64(d.epoch, ==, 0);
	gw_decoded_json(&id, &d, buf, sizeof(buf));
	CHECK_STR(buf, "{\"id\": \"42\", \"ts\": null, \"region\": null, \"worker\": null, \"seq\": null, \"epoch\": 0}");

	/* a 128-bit one under epoch 1, and under an epoch not known */
	{
		IdgenUuid7Fields u;

		u.unix_ms = INT64_C(1767225600123);
		u.node = (3u << 19) | (17u << 12) | 7u;
		u.epoch = 1;
		u.random = 0xabcdef;
		id.is128 = 1;
		idgen_uuid7_compose(&u, id.v128);
		gw_decode(&list, &id, &d);
		unit_context("decode 128");
		CHECK_I64(d.is_v7, ==, 1);
		CHECK_I64(d.unix_ms, ==, u.unix_ms);
		CHECK_I64(d.has_node, ==, 1);
		CHECK_U64(d.region, ==, 3);
		CHECK_U64(d.worker, ==, 17);
		CHECK_U64(d.seq, ==, 7);
		CHECK_I64(d.epoch, ==, 1);
		u.epoch = 4;
		idgen_uuid7_compose(&u, id.v128);
		gw_decode(&list, &id, &d);
		CHECK_I64(d.has_ts, ==, 1);
		CHECK_I64(d.has_node, ==, 0);
		CHECK_I64(d.epoch, ==, 4);
		CHECK_I64(gw_parse_id("0190a3b4-c5d6-4ef8-9abc-def012345678", &id).status, ==, 0);
		gw_decode(&list, &id, &d);
		CHECK_I64(d.is_v7, ==, 0);
	}

	/* epoch rows: the built-in first, then what the planner makes */
	{
		IdgenEpoch	rows[3];
		IdgenEpochList planned;
		char		err[200];

		idgen_epochs_init(&planned);
		rows[0] = planned.epochs[0];
		unit_context("epoch rows");
		CHECK(gw_epochs_from_rows(&list, rows, 1, err, sizeof(err)) == NULL);
		CHECK_I64(list.count, ==, 1);
		CHECK(idgen_epochs_plan(&planned, INT64_C(1800000000000), 2, 8, 12, &rows[1]) == NULL);
		CHECK(gw_epochs_from_rows(&list, rows, 2, err, sizeof(err)) == NULL);
		CHECK_I64(list.count, ==, 2);
		rows[1].layout.seq_bits = 11;	/* hand-edited */
		CHECK(gw_epochs_from_rows(&list, rows, 2, err, sizeof(err)) != NULL);
		CHECK_I64(list.count, ==, 1);
		rows[0].layout.region_bits = 4;
		CHECK(gw_epochs_from_rows(&list, rows, 1, err, sizeof(err)) != NULL);
		CHECK_STR(err, "idgen.epoch row 1 is not a valid layout epoch: epoch 1 is not the built-in layout");
	}
}

int
main(void)
{
	test_worker_lease();
	test_range_lease();
	test_json_reader();
	test_json_escape();
	test_json_append();
	test_decode();
	return unit_finish("test_gwbody");
}
