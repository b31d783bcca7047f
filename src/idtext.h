/*
 * idtext.h - strict parsing of ID text
 *
 * Pure C, no PostgreSQL headers, so the parsers can be fuzzed alone.
 */
#ifndef IDGEN_IDTEXT_H
#define IDGEN_IDTEXT_H

#include <stddef.h>
#include <stdint.h>

typedef enum IdgenParseResult
{
	IDGEN_PARSE_OK = 0,
	IDGEN_PARSE_SYNTAX,			/* not a plain run of decimal digits */
	IDGEN_PARSE_RANGE			/* digits, but above 2^63 - 1 */
} IdgenParseResult;

/*
 * Parse exactly len bytes as an unsigned decimal no larger than 2^63 - 1.
 * Only the digits 0-9 are accepted: no sign, space, hex prefix, exponent
 * or fraction, so every ID has one obvious spelling apart from leading
 * zeros.
 */
extern IdgenParseResult idgen_parse_u63(const char *text, size_t len,
										uint64_t *value);

/* Writes the decimal form and a NUL; buf needs 20 bytes.  Returns length. */
extern int	idgen_format_u63(uint64_t value, char *buf);

#endif							/* IDGEN_IDTEXT_H */
