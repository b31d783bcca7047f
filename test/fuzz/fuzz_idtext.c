/*
 * fuzz_idtext.c - libFuzzer target for the ID text parser and formatter
 *
 * Whatever the bytes, idgen_parse_u63 must not read past them, and its
 * verdict must agree with a plain reading of the text:
 *   SYNTAX  exactly when some byte is not a digit (or there are none);
 *   RANGE   for digits whose value is above 2^63 - 1;
 *   OK      for the rest, and formatting the value gives the input back
 *           without its leading zeros, which parses to the same value.
 */
#include <string.h>

#include "fuzz.h"
#include "idtext.h"

static const char u63_max_text[] = "9223372036854775807";

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *) data;
	uint64_t	value = 0;
	uint64_t	again = 0;
	char		buf[20];
	size_t		i;
	size_t		zeros = 0;
	size_t		sig;
	int			all_digits = size > 0;
	int			too_big;
	int			len;
	IdgenParseResult r;

	for (i = 0; i < size; i++)
		if (data[i] < '0' || data[i] > '9')
			all_digits = 0;

	r = idgen_parse_u63(text, size, &value);
	if (!all_digits)
	{
		FUZZ_ASSERT(r == IDGEN_PARSE_SYNTAX);
		return 0;
	}

	/* the significant digits, keeping one digit of an all-zero input */
	while (zeros + 1 < size && text[zeros] == '0')
		zeros++;
	sig = size - zeros;
	too_big = sig > 19 ||
		(sig == 19 && memcmp(text + zeros, u63_max_text, 19) > 0);

	if (too_big)
	{
		FUZZ_ASSERT(r == IDGEN_PARSE_RANGE);
		return 0;
	}
	FUZZ_ASSERT(r == IDGEN_PARSE_OK);
	FUZZ_ASSERT(value <= UINT64_C(9223372036854775807));

	len = idgen_format_u63(value, buf);
	FUZZ_ASSERT(len >= 1 && len <= 19);
	FUZZ_ASSERT(buf[len] == '\0');
	FUZZ_ASSERT((size_t) len == sig);
	FUZZ_ASSERT(memcmp(buf, text + zeros, sig) == 0);
	FUZZ_ASSERT(idgen_parse_u63(buf, (size_t) len, &again) == IDGEN_PARSE_OK);
	FUZZ_ASSERT(again == value);
	return 0;
}
