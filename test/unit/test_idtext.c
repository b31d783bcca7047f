/*
 * test_idtext.c - unit tests of src/idtext.c: strict decimal ID text
 */
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

int
main(void)
{
	test_accepts();
	test_rejects();
	test_round_trip();
	return unit_finish("test_idtext");
}
