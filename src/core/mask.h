/*
 * mask.h - masked public IDs: a keyed permutation of IDs and the text
 * tokens that carry them
 *
 * Pure C, no PostgreSQL headers.  A token shows neither an ID's time nor
 * its order, region, worker or sequence, so it does not leak how many IDs
 * a system makes; whoever holds the key turns it back into the ID.
 *
 * Secret: 32 bytes.  The first 16 key the Feistel network, the last 16
 * key the tag.
 *
 * Permutation of idgen values, [0, 2^63): a Feistel network on 64 bits,
 * two 32-bit halves, 8 rounds, made a permutation of [0, 2^63) by cycle
 * walking (encrypt again while the result is 2^63 or more; on average
 * twice).  Permutation of idgen128 values: a Feistel network on 128 bits,
 * two 64-bit halves, 8 rounds, over all 16 bytes, so not even the UUID
 * version shows.  The round function of round r on half h is SipHash-2-4
 * under the Feistel key of
 *
 *     width byte (0x40 for 64-bit, 0x80 for 128-bit) | r | h big-endian
 *
 * truncated to the low 32 bits for the 64-bit network; the width byte
 * keeps the two networks' round functions apart.
 *
 * Token: the bytes
 *
 *     key id (1) | permuted value, big-endian (8 or 16) | tag (3)
 *
 * where the tag is the first 3 bytes of SipHash-2-4 under the tag key of
 * key id | permuted value, written in lowercase Crockford base32
 * (0-9 a-z without i l o u), 5 bits a character, most significant first,
 * no padding: 12 bytes make 20 characters (the last 4 bits are 0), 20
 * bytes make 32.  Decoding takes upper case too and nothing else: no
 * hyphens, no i/l/o aliases, no other lengths, no non-zero padding bits,
 * so every token has exactly one spelling.  The tag tells a token made
 * under a key from a foreign or altered one; it is 24 bits, so a guessed
 * token passes one time in 2^24.
 *
 * Key fingerprint: the first 8 bytes of SipHash-2-4 under the Feistel key
 * of "idgen-fingerprint", in lowercase hex.  It names a key without
 * revealing it; no round function input is 17 bytes long, so it is no
 * round function output either.
 */
#ifndef IDGEN_MASK_H
#define IDGEN_MASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDGEN_MASK_SECRET_LEN 32
#define IDGEN_MASK_KEY_ID_MIN 1
#define IDGEN_MASK_KEY_ID_MAX 255
#define IDGEN_MASK_TAG_LEN 3

/* the 64-bit permutation works on [0, IDGEN_MASK_DOMAIN64) */
#define IDGEN_MASK_DOMAIN64 (UINT64_C(1) << 63)

/* token sizes: bytes, and characters without the terminating NUL */
#define IDGEN_MASK_TOKEN64_BYTES (1 + 8 + IDGEN_MASK_TAG_LEN)
#define IDGEN_MASK_TOKEN128_BYTES (1 + 16 + IDGEN_MASK_TAG_LEN)
#define IDGEN_MASK_TOKEN64_CHARS 20
#define IDGEN_MASK_TOKEN128_CHARS 32
#define IDGEN_MASK_TOKEN_MAX_BYTES IDGEN_MASK_TOKEN128_BYTES
#define IDGEN_MASK_TOKEN_MAX_CHARS IDGEN_MASK_TOKEN128_CHARS

#define IDGEN_MASK_FINGERPRINT_CHARS 16

/* the permutations; false (and *out untouched) if id is out of the domain */
extern bool idgen_mask_permute64(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
								 uint64_t id, uint64_t *out);
extern bool idgen_mask_unpermute64(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
								   uint64_t masked, uint64_t *out);
extern void idgen_mask_permute128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
								  const uint8_t id[16], uint8_t out[16]);
extern void idgen_mask_unpermute128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
									const uint8_t masked[16], uint8_t out[16]);

/*
 * Tokens.  out gets the characters and a NUL (IDGEN_MASK_TOKEN64_CHARS + 1
 * or IDGEN_MASK_TOKEN128_CHARS + 1 bytes).  idgen_mask_token64 returns
 * false, writing nothing, if id is 2^63 or more.
 */
extern bool idgen_mask_token64(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
							   uint8_t key_id, uint64_t id, char *out);
extern void idgen_mask_token128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
								uint8_t key_id, const uint8_t id[16],
								char *out);

/* a token taken apart, before anything is known about its key */
typedef struct IdgenMaskToken
{
	int			width;			/* 64 or 128 */
	uint8_t		key_id;			/* 0-255; 0 is never a real key's */
	size_t		nbytes;			/* IDGEN_MASK_TOKEN64_BYTES or ..128_BYTES */
	uint8_t		bytes[IDGEN_MASK_TOKEN_MAX_BYTES];
} IdgenMaskToken;

typedef enum IdgenMaskResult
{
	IDGEN_MASK_OK = 0,
	IDGEN_MASK_MALFORMED,		/* not a token: length or characters */
	IDGEN_MASK_FOREIGN,			/* a token, but not made with this key */
	IDGEN_MASK_WRONG_WIDTH		/* a token of the other width */
} IdgenMaskResult;

/*
 * Step one of unmasking: base32 to bytes, and the key id to look up.
 * Returns IDGEN_MASK_OK or IDGEN_MASK_MALFORMED.
 */
extern IdgenMaskResult idgen_mask_token_parse(const char *text, size_t len,
											  IdgenMaskToken *tok);

/*
 * Why a text is not a token, for the error message (idgen_mask_token_parse
 * said IDGEN_MASK_MALFORMED): the length, the first character that is no
 * base32 digit (its offset in *at), or a last character whose padding bits
 * are not 0 (a token never has one, so that every token has one spelling).
 */
typedef enum IdgenMaskMalformed
{
	IDGEN_MASK_NOT_MALFORMED = 0,
	IDGEN_MASK_BAD_LENGTH,
	IDGEN_MASK_BAD_DIGIT,
	IDGEN_MASK_BAD_LAST_DIGIT
} IdgenMaskMalformed;

extern IdgenMaskMalformed idgen_mask_token_malformed(const char *text, size_t len,
													 size_t *at);

/*
 * Step two: check the tag under the token's key and undo the permutation.
 * Returns IDGEN_MASK_OK, IDGEN_MASK_FOREIGN (tag mismatch, or a value no
 * mask could have made) or IDGEN_MASK_WRONG_WIDTH.
 */
extern IdgenMaskResult idgen_mask_token_open64(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
											   const IdgenMaskToken *tok,
											   uint64_t *id);
extern IdgenMaskResult idgen_mask_token_open128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
												const IdgenMaskToken *tok,
												uint8_t id[16]);

/* the tag check alone */
extern bool idgen_mask_token_verify(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
									const IdgenMaskToken *tok);

/* out gets IDGEN_MASK_FINGERPRINT_CHARS hex digits and a NUL */
extern void idgen_mask_fingerprint(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
								   char *out);

/*
 * Crockford base32 as tokens use it, exposed for tests.  encode writes
 * idgen_base32_len(n) characters and a NUL; decode wants exactly that many
 * characters for n bytes and returns false on anything else.
 */
extern size_t idgen_base32_len(size_t nbytes);
extern void idgen_base32_encode(const uint8_t *in, size_t nbytes, char *out);
extern bool idgen_base32_decode(const char *text, size_t len, uint8_t *out,
								size_t nbytes);

#endif							/* IDGEN_MASK_H */
