/*
 * test_typeid.c - unit tests of src/typeid.c: TypeID text
 *
 * Every published vector of the TypeID specification (test/data/typeid/,
 * read at run time): each valid TypeID parses to its prefix and UUID and
 * is written back from them character for character; each invalid one is
 * refused.  Then what the vectors do not pin down: the prefix rules at
 * their edges, every character of the alphabet in every position, random
 * round trips, and that TypeID text sorts like the UUID's bytes (so
 * ORDER BY on the text is the ID's order, for one prefix).
 */
#include <stdlib.h>

#include "typeid.h"
#include "unit.h"

#ifndef TYPEID_DATA
#define TYPEID_DATA "../data/typeid"
#endif

#define MAX_FILE 65536
#define MAX_FIELD 256

static char *
read_file(const char *name)
{
	char		path[512];
	FILE	   *f;
	char	   *buf = malloc(MAX_FILE);
	size_t		n;

	snprintf(path, sizeof(path), "%s/%s", TYPEID_DATA, name);
	f = fopen(path, "rb");
	if (f == NULL || buf == NULL)
	{
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	n = fread(buf, 1, MAX_FILE - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/*
 * The next "key": "value" at or after *pos, within the current object (up
 * to the next '}').  The vectors use no escapes; one would be a failure.
 * Returns 1 and the value, 0 if the object has no such key.
 */
static int
field(const char *json, const char *obj, const char *key, char *out)
{
	char		pat[64];
	const char *end = strchr(obj, '}');
	const char *p;
	size_t		n = 0;

	snprintf(pat, sizeof(pat), "\"%s\": \"", key);
	p = strstr(obj, pat);
	if (p == NULL || (end != NULL && p > end))
		return 0;
	p += strlen(pat);
	while (*p != '"' && *p != '\0' && n < MAX_FIELD - 1)
	{
		CHECK(*p != '\\');
		out[n++] = *p++;
	}
	out[n] = '\0';
	(void) json;
	return 1;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* 8-4-4-4-12 lower-case hex to bytes */
static int
uuid_from_hex(const char *s, uint8_t out[16])
{
	int			n = 0;

	for (; *s != '\0'; s++)
	{
		int			hi;
		int			lo;

		if (*s == '-')
			continue;
		hi = hexval(s[0]);
		lo = hexval(s[1]);
		if (hi < 0 || lo < 0 || n == 16)
			return 0;
		out[n++] = (uint8_t) (hi << 4 | lo);
		s++;
	}
	return n == 16;
}

static void
test_valid_vectors(void)
{
	char	   *json = read_file("valid.json");
	const char *obj = json;
	int			count = 0;

	while ((obj = strchr(obj, '{')) != NULL)
	{
		char		name[MAX_FIELD];
		char		tid[MAX_FIELD];
		char		prefix[MAX_FIELD];
		char		uuidtext[MAX_FIELD];
		uint8_t		want[16];
		uint8_t		got[16];
		size_t		plen = 99;
		char		out[IDGEN_TYPEID_MAX_LEN + 1];
		size_t		outlen = 0;

		CHECK(field(json, obj, "name", name));
		CHECK(field(json, obj, "typeid", tid));
		CHECK(field(json, obj, "prefix", prefix));
		CHECK(field(json, obj, "uuid", uuidtext));
		unit_context("valid vector %s: %s", name, tid);
		CHECK(uuid_from_hex(uuidtext, want));

		CHECK_ACCEPTS(idgen_typeid_parse(tid, strlen(tid), &plen, got));
		CHECK_U64(plen, ==, strlen(prefix));
		CHECK(strncmp(tid, prefix, strlen(prefix)) == 0);
		CHECK(memcmp(got, want, 16) == 0);

		CHECK_ACCEPTS(idgen_typeid_format(prefix, strlen(prefix), want, out, &outlen));
		CHECK_STR(out, tid);
		CHECK_U64(outlen, ==, strlen(tid));
		count++;
		obj++;
	}
	unit_context("");
	/* the file as published has 9; fewer means it was not read right */
	CHECK_I64(count, >=, 9);
	free(json);
}

static void
test_invalid_vectors(void)
{
	char	   *json = read_file("invalid.json");
	const char *obj = json;
	int			count = 0;

	while ((obj = strchr(obj, '{')) != NULL)
	{
		char		name[MAX_FIELD];
		char		tid[MAX_FIELD];
		uint8_t		got[16];
		size_t		plen;

		CHECK(field(json, obj, "name", name));
		CHECK(field(json, obj, "typeid", tid));
		unit_context("invalid vector %s: \"%s\"", name, tid);
		CHECK_REFUSES(idgen_typeid_parse(tid, strlen(tid), &plen, got));
		count++;
		obj++;
	}
	unit_context("");
	CHECK_I64(count, >=, 21);
	free(json);
}

static void
test_prefix_rules(void)
{
	char		p[80];
	int			c;

	memset(p, 'a', sizeof(p));
	CHECK_ACCEPTS(idgen_typeid_check_prefix(p, 0));
	CHECK_ACCEPTS(idgen_typeid_check_prefix(p, 1));
	CHECK_ACCEPTS(idgen_typeid_check_prefix(p, 63));
	CHECK_REFUSES(idgen_typeid_check_prefix(p, 64));
	CHECK_ACCEPTS(idgen_typeid_check_prefix("a_b", 3));
	CHECK_ACCEPTS(idgen_typeid_check_prefix("a__b", 4));
	CHECK_REFUSES(idgen_typeid_check_prefix("_", 1));
	CHECK_REFUSES(idgen_typeid_check_prefix("_a", 2));
	CHECK_REFUSES(idgen_typeid_check_prefix("a_", 2));
	CHECK_REFUSES(idgen_typeid_check_prefix("a\0b", 3));
	/* of all bytes only a-z, and '_' inside */
	for (c = 0; c < 256; c++)
	{
		char		q[3] = {'a', (char) c, 'a'};
		int			ok = (c >= 'a' && c <= 'z') || c == '_';

		unit_context("byte %d inside a prefix", c);
		CHECK((idgen_typeid_check_prefix(q, 3) == NULL) == ok);
	}
	unit_context("");
}

/* each of the 32 characters in each position, and every other byte */
static void
test_alphabet(void)
{
	static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";
	char		t[27];
	uint8_t		u[16];
	size_t		plen;
	int			pos;
	int			c;

	for (pos = 0; pos < 26; pos++)
		for (c = 0; c < 256; c++)
		{
			const char *hit;
			int			ok;

			memset(t, '0', 26);
			t[26] = '\0';
			t[pos] = (char) c;
			hit = c == 0 ? NULL : strchr(alphabet, c);
			ok = hit != NULL && (pos > 0 || hit - alphabet <= 7);
			unit_context("byte %d at position %d", c, pos);
			CHECK((idgen_typeid_parse(t, 26, &plen, u) == NULL) == ok);
			if (ok)
			{
				char		out[IDGEN_TYPEID_MAX_LEN + 1];
				size_t		n;
				int			i;
				int			nonzero = 0;

				/* one 5-bit group: the value lands at its place */
				CHECK_ACCEPTS(idgen_typeid_format("", 0, u, out, &n));
				CHECK_STR(out, t);
				for (i = 0; i < 16; i++)
					nonzero += u[i] != 0;
				CHECK((hit == alphabet) == (nonzero == 0));
			}
		}
	unit_context("");
	/* the last character is the low 5 bits, the first the top 3 */
	memset(u, 0, 16);
	u[15] = 31;
	{
		char		out[IDGEN_TYPEID_MAX_LEN + 1];
		size_t		n;

		CHECK_ACCEPTS(idgen_typeid_format("", 0, u, out, &n));
		CHECK_STR(out, "0000000000000000000000000z");
		memset(u, 0, 16);
		u[0] = 0xE0;
		CHECK_ACCEPTS(idgen_typeid_format("x", 1, u, out, &n));
		CHECK_STR(out, "x_70000000000000000000000000");
		CHECK_U64(n, ==, 28);
	}
}

static void
random_uuid(uint8_t u[16])
{
	uint64_t	a = unit_rand();
	uint64_t	b = unit_rand();
	int			i;

	for (i = 0; i < 8; i++)
	{
		u[i] = (uint8_t) (a >> (56 - 8 * i));
		u[8 + i] = (uint8_t) (b >> (56 - 8 * i));
	}
	/* now and then long runs of 0x00 or 0xff */
	if (unit_below(4) == 0)
	{
		size_t		from = unit_below(16);

		memset(u + from, unit_below(2) ? 0xff : 0x00, 16 - from);
	}
	if (unit_below(8) == 0)
		memset(u, 0xff, 16);
}

static void
test_round_trips(void)
{
	int			k;

	for (k = 0; k < 20000; k++)
	{
		uint8_t		u[16];
		uint8_t		v[16];
		uint8_t		back[16];
		char		prefix[64];
		size_t		plen = unit_below(64);
		size_t		got_plen;
		char		a[IDGEN_TYPEID_MAX_LEN + 1];
		char		b[IDGEN_TYPEID_MAX_LEN + 1];
		size_t		alen;
		size_t		blen;
		size_t		i;
		int			cu;
		int			ct;

		for (i = 0; i < plen; i++)
			prefix[i] = (char) ('a' + unit_below(26));
		if (plen > 2)
			prefix[1 + unit_below(plen - 2)] = '_';
		random_uuid(u);
		random_uuid(v);
		unit_context("round trip %d", k);
		CHECK_ACCEPTS(idgen_typeid_format(prefix, plen, u, a, &alen));
		CHECK_U64(alen, ==, strlen(a));
		CHECK_U64(alen, ==, plen + (plen > 0) + 26);
		CHECK_ACCEPTS(idgen_typeid_parse(a, alen, &got_plen, back));
		CHECK_U64(got_plen, ==, plen);
		CHECK(memcmp(back, u, 16) == 0);

		/* the text orders like the bytes, behind the same prefix */
		CHECK_ACCEPTS(idgen_typeid_format(prefix, plen, v, b, &blen));
		cu = memcmp(u, v, 16);
		ct = strcmp(a, b);
		CHECK((cu > 0) == (ct > 0) && (cu < 0) == (ct < 0));
	}
	unit_context("");
}

static void
test_shapes(void)
{
	uint8_t		u[16];
	size_t		plen;
	char		out[IDGEN_TYPEID_MAX_LEN + 1];
	size_t		n;

	/* an invalid prefix is refused on the way out too */
	memset(u, 0, 16);
	CHECK_REFUSES(idgen_typeid_format("User", 4, u, out, &n));
	CHECK_REFUSES(idgen_typeid_format("_a", 2, u, out, &n));
	/* lengths around 26, with and without a prefix */
	CHECK_REFUSES(idgen_typeid_parse("0000000000000000000000000", 25, &plen, u));
	CHECK_REFUSES(idgen_typeid_parse("000000000000000000000000000", 27, &plen, u));
	CHECK_REFUSES(idgen_typeid_parse("a_0000000000000000000000000", 27, &plen, u));
	CHECK_ACCEPTS(idgen_typeid_parse("a_00000000000000000000000000", 28, &plen, u));
	CHECK_U64(plen, ==, 1);
	/* only the given bytes count: a NUL inside is a byte like any other */
	{
		char		t[28];

		memcpy(t, "a_", 2);
		memset(t + 2, '0', 26);
		t[15] = '\0';
		CHECK_REFUSES(idgen_typeid_parse(t, 28, &plen, u));
		t[15] = '0';
		CHECK_ACCEPTS(idgen_typeid_parse(t, 28, &plen, u));
	}
	/* the longest TypeID */
	{
		char		t[IDGEN_TYPEID_MAX_LEN + 2];

		memset(t, 'q', 63);
		t[63] = '_';
		memset(t + 64, '7', 26);
		CHECK_ACCEPTS(idgen_typeid_parse(t, IDGEN_TYPEID_MAX_LEN, &plen, u));
		CHECK_U64(plen, ==, 63);
		memmove(t + 1, t, IDGEN_TYPEID_MAX_LEN);
		CHECK_REFUSES(idgen_typeid_parse(t, IDGEN_TYPEID_MAX_LEN + 1, &plen, u));
	}
}

int
main(void)
{
	test_valid_vectors();
	test_invalid_vectors();
	test_prefix_rules();
	test_alphabet();
	test_round_trips();
	test_shapes();
	return unit_finish("test_typeid");
}
