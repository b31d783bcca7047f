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
