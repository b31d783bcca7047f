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

/*
 * Parse UUID text the way PostgreSQL's uuid type does: 32 hex digits in
 * either case, a hyphen allowed after any group of four, optionally inside
 * braces.  Returns IDGEN_PARSE_OK or IDGEN_PARSE_SYNTAX.
 */
extern IdgenParseResult idgen_parse_uuid(const char *text, size_t len,
										 uint8_t out[16]);

/* canonical lowercase 8-4-4-4-12 form and a NUL; buf needs 37 bytes */
extern void idgen_format_uuid(const uint8_t in[16], char *buf);

#endif							/* IDGEN_IDTEXT_H */
