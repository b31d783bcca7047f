/*
 * idtext.c - strict parsing and formatting of 64-bit ID text
 */
#include "idtext.h"

#define IDGEN_U63_MAX UINT64_C(9223372036854775807)

IdgenParseResult
idgen_parse_u63(const char *text, size_t len, uint64_t *value)
{
	uint64_t	acc = 0;
	int			overflow = 0;
	size_t		i;

	if (len == 0)
		return IDGEN_PARSE_SYNTAX;

	/* look at every byte first: "9999...9x" is bad syntax, not overflow */
	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) text[i];

		if (c < '0' || c > '9')
			return IDGEN_PARSE_SYNTAX;
		if (!overflow)
		{
			unsigned	digit = c - '0';

			if (acc > (IDGEN_U63_MAX - digit) / 10)
				overflow = 1;
			else
				acc = acc * 10 + digit;
		}
	}
	if (overflow)
		return IDGEN_PARSE_RANGE;
	*value = acc;
	return IDGEN_PARSE_OK;
}

int
idgen_format_u63(uint64_t value, char *buf)
{
	char		tmp[20];
	int			n = 0;
	int			i;

	do
	{
		tmp[n++] = (char) ('0' + value % 10);
		value /= 10;
	} while (value != 0);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

static int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

IdgenParseResult
idgen_parse_uuid(const char *text, size_t len, uint8_t out[16])
{
	size_t		pos = 0;
	int			braces = 0;
	int			i;

	if (len > 0 && text[0] == '{')
	{
		braces = 1;
		pos = 1;
	}
	for (i = 0; i < 16; i++)
	{
		int			hi;
		int			lo;

		if (pos + 2 > len)
			return IDGEN_PARSE_SYNTAX;
		hi = hex_value((unsigned char) text[pos]);
		lo = hex_value((unsigned char) text[pos + 1]);
		if (hi < 0 || lo < 0)
			return IDGEN_PARSE_SYNTAX;
		out[i] = (uint8_t) ((hi << 4) | lo);
		pos += 2;
		/* a hyphen may follow every group of four digits but the last */
		if (pos < len && text[pos] == '-' && (i % 2) == 1 && i < 15)
			pos++;
	}
	if (braces)
	{
		if (pos >= len || text[pos] != '}')
			return IDGEN_PARSE_SYNTAX;
		pos++;
	}
	return pos == len ? IDGEN_PARSE_OK : IDGEN_PARSE_SYNTAX;
}

void
idgen_format_uuid(const uint8_t in[16], char *buf)
{
	static const char digits[] = "0123456789abcdef";
	int			i;
	int			n = 0;

	for (i = 0; i < 16; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[n++] = '-';
		buf[n++] = digits[in[i] >> 4];
		buf[n++] = digits[in[i] & 0xF];
	}
	buf[n] = '\0';
}
