/*
 * typeid.h - TypeID text: a type prefix and a UUID in Crockford base32
 *
 * Pure C, no PostgreSQL headers, so it can be unit-tested and fuzzed alone.
 * The form is the one of the TypeID specification (version 0.3, the one
 * whose published test vectors test/data/typeid/ holds):
 *
 *     typeid  := suffix | prefix '_' suffix
 *     prefix  := 1 to 63 of [a-z_], neither first nor last '_'
 *     suffix  := 26 of 0123456789abcdefghjkmnpqrstvwxyz, the first 0-7
 *
 * The suffix is the UUID's 128 bits, most significant first, as 26 groups
 * of 5 bits behind two zero bits (hence a first character of 0-7).  The
 * prefix ends at the last '_', so it may hold underscores itself.  Only
 * lower case is accepted, in the prefix and in the suffix, and none of
 * Crockford's lenient spellings (i, l, o, u, hyphens): every UUID and prefix
 * has exactly one TypeID.
 */
#ifndef IDGEN_TYPEID_H
#define IDGEN_TYPEID_H

#include <stddef.h>
#include <stdint.h>

#define IDGEN_TYPEID_PREFIX_MAX 63
#define IDGEN_TYPEID_SUFFIX_LEN 26
/* the longest TypeID, without its NUL */
#define IDGEN_TYPEID_MAX_LEN (IDGEN_TYPEID_PREFIX_MAX + 1 + IDGEN_TYPEID_SUFFIX_LEN)

/*
 * The functions return NULL when all is well, and otherwise why not, as a
 * sentence that can stand as an error's detail.
 */

/* is this (len bytes, possibly empty) a valid prefix */
extern const char *idgen_typeid_check_prefix(const char *prefix, size_t len);

/*
 * Write prefix, '_' (only behind a non-empty prefix) and the 26 characters
 * of uuid to out, which needs IDGEN_TYPEID_MAX_LEN + 1 bytes, with a NUL.
 * *out_len gets the length.  Fails only on an invalid prefix.
 */
extern const char *idgen_typeid_format(const char *prefix, size_t prefix_len,
									   const uint8_t uuid[16], char *out,
									   size_t *out_len);

/*
 * Read exactly len bytes of TypeID text.  On success the prefix is the first
 * *prefix_len bytes of text (0: none) and uuid holds the 16 bytes.
 */
extern const char *idgen_typeid_parse(const char *text, size_t len,
									  size_t *prefix_len, uint8_t uuid[16]);

#endif							/* IDGEN_TYPEID_H */
