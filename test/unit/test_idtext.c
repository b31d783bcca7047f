/*
 * test_idtext.c - unit tests of src/idtext.c: strict decimal ID text, and
 * UUID text as PostgreSQL's uuid input reads it
 */
#include <stdlib.h>

#include "idtext.h"
#include "unit.h"

#define U63_MAX UINT64_C(9223372036854775807)

static IdgenParseResult
parse_len(const char *text, size_t len, uint64_t *value)
{
	unit_context("parsing \"%.60s\" (%zu bytes)", text, len);
	return idgen_parse_u63(text, len, value);
}

static IdgenParseResult
parse(const char *text, uint64_t *value)
{
	return parse_len(text, strlen(text), value);
}

static void
expect_ok(const char *text, uint64_t expected)
{
	uint64_t	value = ~expected;

	CHECK_I64(parse(text, &value), ==, IDGEN_PARSE_OK);
	CHECK_U64(value, ==, expected);
}

static void
test_accepts(void)
{
	expect_ok("0", 0);
	expect_ok("7", 7);
	expect_ok("007", 7);
	expect_ok("00", 0);
	expect_ok("10", 10);
	expect_ok("4294967296", UINT64_C(4294967296));
	expect_ok("9223372036854775806", U63_MAX - 1);
	expect_ok("9223372036854775807", U63_MAX);
	/* leading zeros never count toward the range */
	expect_ok("000000000000000000000000000000000000000001", 1);
	expect_ok("000000000000000000000000000000", 0);
	expect_ok("00000000009223372036854775807", U63_MAX);
}

static void
test_rejects(void)
{
	static const char *const syntax[] = {
		"", "-1", "+1", "-0", " 1", "1 ", "\t1", "1\n", "0x10", "0X10", "1e3",
		"1E3", "1.5", "1.", ".5", "12abc", "abc", "1,000", "1_000", "٣",
		"9223372036854775807 ", "-9223372036854775808", "NaN", "inf",
		"99999999999999999999999999999x", "x99999999999999999999999999999",
		"9223372036854775808-", "\xef\xbc\x91"	/* fullwidth digit one */
	};
	static const char *const range[] = {
		"9223372036854775808", "9223372036854775809", "9999999999999999999",
		"10000000000000000000", "18446744073709551615",
		"18446744073709551616",	/* 2^64: wraps a careless parser to 0 */
		"27670116110564327424",	/* 3 * 2^63: wraps to 2^63 */
		"999999999999999999999999999999",
		"0009223372036854775808"
	};
	uint64_t	value;
	int			i;
	int			c;
	char		one[2];

	for (i = 0; i < (int) (sizeof(syntax) / sizeof(syntax[0])); i++)
		CHECK_I64(parse(syntax[i], &value), ==, IDGEN_PARSE_SYNTAX);
	for (i = 0; i < (int) (sizeof(range) / sizeof(range[0])); i++)
		CHECK_I64(parse(range[i], &value), ==, IDGEN_PARSE_RANGE);

	/* bytes after an embedded NUL are part of the input, not ignored */
	CHECK_I64(parse_len("12\0", 3, &value), ==, IDGEN_PARSE_SYNTAX);
	CHECK_I64(parse_len("1\0002", 3, &value), ==, IDGEN_PARSE_SYNTAX);
	CHECK_I64(parse_len("\0", 1, &value), ==, IDGEN_PARSE_SYNTAX);
	/* and bytes past len are not looked at */
	CHECK_I64(parse_len("123abc", 3, &value), ==, IDGEN_PARSE_OK);
	CHECK_U64(value, ==, 123);
	CHECK_I64(parse_len("99999999999999999999", 0, &value), ==, IDGEN_PARSE_SYNTAX);
	CHECK_I64(parse_len("92233720368547758079", 19, &value), ==, IDGEN_PARSE_OK);
	CHECK_U64(value, ==, U63_MAX);
	CHECK_I64(parse_len("92233720368547758079", 20, &value), ==, IDGEN_PARSE_RANGE);

	/* syntax wins over range, wherever the bad byte is */
	CHECK_I64(parse("999999999999999999999999999999x", &value), ==, IDGEN_PARSE_SYNTAX);
	CHECK_I64(parse("99999999999999999999 ", &value), ==, IDGEN_PARSE_SYNTAX);
	CHECK_I64(parse("-99999999999999999999", &value), ==, IDGEN_PARSE_SYNTAX);
	CHECK_I64(parse_len("99999999999999999999\0", 21, &value), ==, IDGEN_PARSE_SYNTAX);

	/* every single byte: only the ten digits parse */
	for (c = 0; c < 256; c++)
	{
		IdgenParseResult r;

		one[0] = (char) c;
		one[1] = '\0';
		unit_context("single byte %d", c);
		r = idgen_parse_u63(one, 1, &value);
		if (c >= '0' && c <= '9')
		{
			CHECK_I64(r, ==, IDGEN_PARSE_OK);
			CHECK_U64(value, ==, (uint64_t) (c - '0'));
		}
		else
			CHECK_I64(r, ==, IDGEN_PARSE_SYNTAX);
	}
}

/* the digits of v the slow way, for comparison */
static void
reference_format(uint64_t v, char *buf)
{
	char		rev[24];
	int			n = 0;
	int			i;

	do
	{
		rev[n++] = (char) ('0' + (int) (v % 10));
		v /= 10;
	} while (v > 0);
	for (i = 0; i < n; i++)
		buf[i] = rev[n - 1 - i];
	buf[n] = '\0';
}

static void
round_trip(uint64_t v)
{
	/* exactly the 20 bytes idtext.h promises are enough */
	char		buf[20];
	char		want[24];
	uint64_t	back = ~v;
	int			len;

	unit_context("round trip of %" PRIu64, v);
	len = idgen_format_u63(v, buf);
	reference_format(v, want);
	CHECK_I64(len, ==, (int64_t) strlen(want));
	CHECK_STR(buf, want);
	CHECK_I64(idgen_parse_u63(buf, (size_t) len, &back), ==, IDGEN_PARSE_OK);
	CHECK_U64(back, ==, v);
}

static void
test_round_trip(void)
{
	uint64_t	p;
	int			n;
	char		buf[20];

	round_trip(0);
	round_trip(1);
	round_trip(9);
	round_trip(10);
	round_trip(U63_MAX);
	round_trip(U63_MAX - 1);
	/* every power of ten and its neighbours */
	for (p = 1; p <= U63_MAX / 10; p *= 10)
	{
		round_trip(p * 10 - 1);
		round_trip(p * 10);
		round_trip(p * 10 + 1);
	}
	/* every width, then anything */
	for (n = 0; n < 63; n++)
		round_trip(unit_rand() >> (1 + n));
	for (n = 0; n < 100000; n++)
		round_trip(unit_rand() & U63_MAX);

	unit_context("format lengths");
	CHECK_I64(idgen_format_u63(0, buf), ==, 1);
	CHECK_STR(buf, "0");
	CHECK_I64(idgen_format_u63(U63_MAX, buf), ==, 19);
	CHECK_STR(buf, "9223372036854775807");
}

/*
 * UUID text.  idgen_parse_uuid is meant to accept exactly what PostgreSQL's
 * uuid input accepts: 32 hex digits in either case, a hyphen allowed after
 * any group of four digits but the last, and optionally braces around it
 * all; nothing else (no spaces, no prefix, no doubled hyphen).
 */

/* PostgreSQL's documentation example, a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 */
static const uint8_t doc_uuid[16] = {
	0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8,
	0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11
};
static const char doc_text[] = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
static const char doc_digits[] = "a0eebc999c0b4ef8bb6d6bb9bd380a11";

static int
is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		(c >= 'A' && c <= 'F');
}

static int
hex_digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

static IdgenParseResult
parse_uuid_len(const char *text, size_t len, uint8_t out[16])
{
	unit_context("parsing UUID \"%.60s\" (%zu bytes)", text, len);
	return idgen_parse_uuid(text, len, out);
}

static void
expect_uuid(const char *text, const uint8_t want[16])
{
	uint8_t		out[16];

	memset(out, 0x5A, sizeof(out));
	CHECK_I64(parse_uuid_len(text, strlen(text), out), ==, IDGEN_PARSE_OK);
	CHECK(memcmp(out, want, 16) == 0);
}

static void
expect_uuid_syntax_len(const char *text, size_t len)
{
	uint8_t		out[16];

	CHECK_I64(parse_uuid_len(text, len, out), ==, IDGEN_PARSE_SYNTAX);
}

static void
test_uuid_accepts(void)
{
	static const char *const doc_spellings[] = {
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",		/* canonical */
		"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",		/* uppercase */
		"A0eeBc99-9C0b-4Ef8-bB6d-6bB9bD380A11",		/* mixed case */
		"a0eebc999c0b4ef8bb6d6bb9bd380a11",			/* no hyphens */
		"A0EEBC999C0B4EF8BB6D6BB9BD380A11",
		"a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",	/* after every 4 digits */
		"A0EE-BC99-9C0B-4EF8-BB6D-6BB9-BD38-0A11",
		"a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11",		/* PostgreSQL's doc example */
		"a0ee-bc999c0b4ef8bb6d6bb9bd380a11",		/* only the first place */
		"a0eebc999c0b4ef8bb6d6bb9bd38-0a11",		/* only the last place */
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",	/* braces */
		"{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}",
		"{a0eebc999c0b4ef8bb6d6bb9bd380a11}",
		"{a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11}",
		"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
	};
	static const uint8_t nil[16] = {0};
	static const uint8_t max[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	static const uint8_t counting[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10
	};
	uint8_t		out[16];
	int			i;

	for (i = 0; i < (int) (sizeof(doc_spellings) / sizeof(doc_spellings[0])); i++)
		expect_uuid(doc_spellings[i], doc_uuid);

	expect_uuid("00000000-0000-0000-0000-000000000000", nil);
	expect_uuid("{00000000000000000000000000000000}", nil);
	expect_uuid("ffffffff-ffff-ffff-ffff-ffffffffffff", max);
	expect_uuid("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", max);
	expect_uuid("01234567-89ab-cdef-fedc-ba9876543210", counting);
	expect_uuid("0123456789ABCDEFFEDCBA9876543210", counting);
	/* an idgen128 vector from test_uuid7.c */
	{
		static const uint8_t v7[16] = {
			0x01, 0x9b, 0x76, 0xda, 0xa8, 0x00, 0x7b, 0x93,
			0xbf, 0xf1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01
		};

		expect_uuid("019b76da-a800-7b93-bff1-000000000001", v7);
	}

	/* bytes past len are not looked at */
	memset(out, 0x5A, sizeof(out));
	CHECK_I64(parse_uuid_len("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11zzz", 36, out),
			  ==, IDGEN_PARSE_OK);
	CHECK(memcmp(out, doc_uuid, 16) == 0);
	memset(out, 0x5A, sizeof(out));
	CHECK_I64(parse_uuid_len("{a0eebc999c0b4ef8bb6d6bb9bd380a11}-", 34, out),
			  ==, IDGEN_PARSE_OK);
	CHECK(memcmp(out, doc_uuid, 16) == 0);
}

/*
 * Every one of the 2^7 ways to put hyphens after groups of four digits,
 * with and without braces, in lower and upper case: all the same UUID.
 */
static void
test_uuid_hyphen_places(void)
{
	int			mask;
	int			braces;
	int			upper;

	for (mask = 0; mask < 128; mask++)
		for (braces = 0; braces < 2; braces++)
			for (upper = 0; upper < 2; upper++)
			{
				char		text[48];
				int			n = 0;
				int			d;

				if (braces)
					text[n++] = '{';
				for (d = 0; d < 32; d++)
				{
					char		c = doc_digits[d];

					if (upper && c >= 'a' && c <= 'f')
						c = (char) (c - 'a' + 'A');
					text[n++] = c;
					if (d % 4 == 3 && d < 31 && (mask & (1 << (d / 4))))
						text[n++] = '-';
				}
				if (braces)
					text[n++] = '}';
				text[n] = '\0';
				expect_uuid(text, doc_uuid);
			}
}

static void
test_uuid_rejects(void)
{
	static const char *const bad[] = {
		"", "-", "{", "}", "{}", "{-}", "--", "0", "a0",
		/* 31 and 33 digits, plain, hyphenated and braced */
		"a0eebc999c0b4ef8bb6d6bb9bd380a1",
		"a0eebc999c0b4ef8bb6d6bb9bd380a110",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
		"0a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11a0eebc999c0b4ef8bb6d6bb9bd380a11",
		/* spaces, inside or outside */
		" a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
		"\ta0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\n",
		" {a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11} ",
		"{ a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 }",
		"a0eebc99 9c0b 4ef8 bb6d 6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9 bd380a11",
		/* hyphens at the start, at the end, doubled or mid-group */
		"-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
		"-a0eebc999c0b4ef8bb6d6bb9bd380a11",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11-",
		"{-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-}",
		"-{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}-",
		"a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d--6bb9bd380a11",
		"a0ee--bc999c0b4ef8bb6d6bb9bd380a11",
		"a0-eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc-99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a-11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1-1",
		"a0eeb-c999c0b4ef8bb6d6bb9bd380a11",
		/* braces that do not pair up */
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"}a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11{",
		"{{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}}",
		"{{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11{",
		"}a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"(a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11)",
		"[a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11]",
		"{a0eebc99-9c0b-4ef8}-{bb6d-6bb9bd380a11}",
		/* not hex */
		"g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1G",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1/",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1:",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1@",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1`",
		"zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz",
		"0xa0eebc999c0b4ef8bb6d6bb9bd380a11",
		"0xa0eebc999c0b4ef8bb6d6bb9bd380a",
		"urn:uuid:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc99_9c0b_4ef8_bb6d_6bb9bd380a11",
		"a0eebc99+9c0b+4ef8+bb6d+6bb9bd380a11",
		"a0eebc99\xe2\x80\x90" "9c0b-4ef8-bb6d-6bb9bd380a11",	/* U+2010 hyphen */
		"\xef\xbc\x90" "0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",	/* fullwidth 0 */
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1\xff",
	};
	char		buf[64];
	int			i;

	for (i = 0; i < (int) (sizeof(bad) / sizeof(bad[0])); i++)
		expect_uuid_syntax_len(bad[i], strlen(bad[i]));

	/* an embedded NUL is a byte of the input like any other */
	expect_uuid_syntax_len("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\0", 37);
	expect_uuid_syntax_len("\0a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", 37);
	expect_uuid_syntax_len("a0eebc99\0" "9c0b-4ef8-bb6d-6bb9bd380a11", 36);
	expect_uuid_syntax_len("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1\0", 36);
	expect_uuid_syntax_len("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\0" "0", 38);
	expect_uuid_syntax_len("{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\0}", 39);
	expect_uuid_syntax_len("{\0a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", 39);
	expect_uuid_syntax_len("\0", 1);
	expect_uuid_syntax_len("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32);

	/* a NUL at each place of the canonical form */
	for (i = 0; i <= 36; i++)
	{
		memcpy(buf, doc_text, 36);
		if (i < 36)
			buf[i] = '\0';
		else
			buf[36] = '\0';
		expect_uuid_syntax_len(buf, 36 + (i == 36));
	}

	/* cut short: every proper prefix of the canonical and braced forms */
	for (i = 0; i < 36; i++)
		expect_uuid_syntax_len(doc_text, (size_t) i);
	for (i = 0; i < 38; i++)
		expect_uuid_syntax_len("{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", (size_t) i);
}

/* the canonical form with one byte replaced, inserted or removed */
static void
test_uuid_single_edits(void)
{
	char		buf[48];
	uint8_t		out[16];
	uint8_t		want[16];
	int			p;
	int			c;

	/* replaced: fine exactly when a digit becomes any hex digit */
	for (p = 0; p < 36; p++)
		for (c = 0; c < 256; c++)
		{
			int			hyphen_place = p == 8 || p == 13 || p == 18 || p == 23;
			int			ok = hyphen_place ? c == '-' : is_hex(c);
			IdgenParseResult r;

			memcpy(buf, doc_text, 37);
			buf[p] = (char) c;
			r = parse_uuid_len(buf, 36, out);
			CHECK_I64(r, ==, ok ? IDGEN_PARSE_OK : IDGEN_PARSE_SYNTAX);
			if (ok && r == IDGEN_PARSE_OK)
			{
				/* the digit's place in the byte string */
				int			d = p - (p > 8) - (p > 13) - (p > 18) - (p > 23);

				memcpy(want, doc_uuid, 16);
				if (!hyphen_place)
				{
					if (d % 2 == 0)
						want[d / 2] = (uint8_t) ((hex_digit_value(c) << 4) | (want[d / 2] & 0x0F));
					else
						want[d / 2] = (uint8_t) ((want[d / 2] & 0xF0) | hex_digit_value(c));
				}
				CHECK(memcmp(out, want, 16) == 0);
			}
		}

	/*
	 * inserted: only a hyphen, only between two digits, and only where the
	 * digits before it are a whole number of groups of four (4..28)
	 */
	for (p = 0; p <= 36; p++)
		for (c = 0; c < 256; c++)
		{
			int			digits_before = 0;
			int			ok;
			int			k;

			for (k = 0; k < p; k++)
				digits_before += is_hex((unsigned char) doc_text[k]);
			ok = c == '-' && digits_before % 4 == 0 &&
				digits_before >= 4 && digits_before <= 28 &&
				p > 0 && doc_text[p - 1] != '-' &&
				p < 36 && doc_text[p] != '-';
			memcpy(buf, doc_text, (size_t) p);
			buf[p] = (char) c;
			memcpy(buf + p + 1, doc_text + p, (size_t) (36 - p));
			buf[37] = '\0';
			memset(out, 0x5A, sizeof(out));
			CHECK_I64(parse_uuid_len(buf, 37, out), ==,
					  ok ? IDGEN_PARSE_OK : IDGEN_PARSE_SYNTAX);
			if (ok)
				CHECK(memcmp(out, doc_uuid, 16) == 0);
		}

	/* removed: a hyphen may go, a digit may not */
	for (p = 0; p < 36; p++)
	{
		int			ok = doc_text[p] == '-';

		memcpy(buf, doc_text, (size_t) p);
		memcpy(buf + p, doc_text + p + 1, (size_t) (36 - p));
		memset(out, 0x5A, sizeof(out));
		CHECK_I64(parse_uuid_len(buf, 35, out), ==,
				  ok ? IDGEN_PARSE_OK : IDGEN_PARSE_SYNTAX);
		if (ok)
			CHECK(memcmp(out, doc_uuid, 16) == 0);
	}
}

static void
uuid_round_trip(const uint8_t in[16])
{
	static const char digits[] = "0123456789abcdef";
	/* exactly the 37 bytes idtext.h promises are enough, on the heap */
	char	   *buf = malloc(37);
	char		upper[37];
	char		braced[39];
	uint8_t		back[16];
	int			i;
	int			n = 0;

	if (buf == NULL)
	{
		CHECK(buf != NULL);
		return;
	}
	idgen_format_uuid(in, buf);
	unit_context("UUID round trip of %.36s", buf);
	CHECK_I64(strlen(buf), ==, 36);
	/* 8-4-4-4-12, lowercase, each digit the right nibble */
	for (i = 0; i < 36; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
			CHECK(buf[i] == '-');
		else
		{
			int			nibble = (n % 2 == 0) ? in[n / 2] >> 4 : in[n / 2] & 15;

			CHECK(buf[i] == digits[nibble]);
			n++;
		}
	}
	memset(back, 0x5A, sizeof(back));
	CHECK_I64(idgen_parse_uuid(buf, 36, back), ==, IDGEN_PARSE_OK);
	CHECK(memcmp(back, in, 16) == 0);

	/* the same value in upper case and in braces */
	for (i = 0; i < 37; i++)
		upper[i] = (buf[i] >= 'a' && buf[i] <= 'f') ? (char) (buf[i] - 'a' + 'A') : buf[i];
	memset(back, 0x5A, sizeof(back));
	CHECK_I64(idgen_parse_uuid(upper, 36, back), ==, IDGEN_PARSE_OK);
	CHECK(memcmp(back, in, 16) == 0);
	braced[0] = '{';
	memcpy(braced + 1, buf, 36);
	braced[37] = '}';
	braced[38] = '\0';
	memset(back, 0x5A, sizeof(back));
	CHECK_I64(idgen_parse_uuid(braced, 38, back), ==, IDGEN_PARSE_OK);
	CHECK(memcmp(back, in, 16) == 0);
	free(buf);
}

static void
test_uuid_round_trip(void)
{
	uint8_t		b[16];
	int			n;
	int			i;

	memset(b, 0, 16);
	uuid_round_trip(b);
	memset(b, 0xFF, 16);
	uuid_round_trip(b);
	uuid_round_trip(doc_uuid);
	/* every byte value in every place */
	for (i = 0; i < 16; i++)
		for (n = 0; n < 256; n++)
		{
			memset(b, 0, 16);
			b[i] = (uint8_t) n;
			uuid_round_trip(b);
		}
	for (n = 0; n < 20000; n++)
	{
		uint64_t	hi = unit_rand();
		uint64_t	lo = unit_rand();

		for (i = 0; i < 8; i++)
		{
			b[i] = (uint8_t) (hi >> (8 * i));
			b[8 + i] = (uint8_t) (lo >> (8 * i));
		}
		uuid_round_trip(b);
	}
}

/* the one hex-digit helper: every byte, and encode/decode round trips */
static void
test_hex(void)
{
	uint8_t		bytes[32];
	uint8_t		back[32];
	char		text[65];
	int			c;
	int			i;

	unit_context("hex digit values");
	for (c = 0; c < 256; c++)
	{
		int			want = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		CHECK_I64(idgen_hex_value((unsigned char) c), ==, want);
	}

	unit_context("hex encode and decode");
	idgen_hex_encode((const uint8_t *) "\x00\x9f\xff", 3, text);
	CHECK_STR(text, "009fff");
	CHECK_I64(idgen_hex_decode("009FfF", 6, back, 3), ==, 3);
	CHECK(back[0] == 0x00 && back[1] == 0x9f && back[2] == 0xff);
	CHECK_I64(idgen_hex_decode("009", 3, back, 3), ==, -1);	/* odd */
	CHECK_I64(idgen_hex_decode("0099", 4, back, 1), ==, -1);	/* too long */
	CHECK_I64(idgen_hex_decode("0g", 2, back, 1), ==, -1);
	CHECK_I64(idgen_hex_decode("", 0, back, 1), ==, 0);
	for (i = 0; i < 2000; i++)
	{
		size_t		n = (size_t) unit_below(33);
		size_t		k;

		for (k = 0; k < n; k++)
			bytes[k] = (uint8_t) unit_below(256);
		idgen_hex_encode(bytes, n, text);
		CHECK_U64(strlen(text), ==, 2 * n);
		CHECK_I64(idgen_hex_decode(text, 2 * n, back, sizeof(back)), ==, (int64_t) n);
		CHECK(memcmp(bytes, back, n) == 0);
	}
	unit_context("");
}

int
main(void)
{
	test_accepts();
	test_rejects();
	test_round_trip();
	test_uuid_accepts();
	test_uuid_hyphen_places();
	test_uuid_rejects();
	test_uuid_single_edits();
	test_uuid_round_trip();
	test_hex();
	return unit_finish("test_idtext");
}
