/*
 * fuzz_mask.c - libFuzzer target for masked IDs: token text and the keyed
 * permutations
 *
 * Text: the input's bytes, as they are and once more pulled toward the
 * token alphabet (see toward_alphabet), go to idgen_mask_token_parse.  Its
 * verdict must match ref_parse below, a second reading of the token
 * grammar of mask.h written bit by bit rather than with an accumulator:
 *
 *     token := 20 or 32 characters of 0-9 a-z A-Z except i l o u (any case)
 *              and, at 20 characters, the last one's low 4 bits are 0
 *
 * On success both readings give the same bytes, the key id is the first
 * byte, the width follows the length, and encoding the bytes again gives
 * the input in lower case: one spelling per token.  Opening the token
 * under a fixed secret never crashes and answers foreign or wrong width
 * (or, if the fuzzer ever forges a tag, gives an ID that masks back to the
 * same token).
 *
 * Values: the input read as a secret (32 bytes), a key id, a byte that
 * picks tag bits, a 64-bit value (top bit cleared: idgen values are below
 * 2^63) and 16 bytes.  Masking then unmasking gives the value back, the
 * 64-bit result stays below 2^63, out-of-domain values are refused, tokens
 * of both widths open to the value under their own secret, and flipping a
 * bit of a token's tag (the input picks which) gets it refused.
 */
#include <string.h>

#include "fuzz.h"
#include "mask.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TEXT 64

static const char digits[] = "0123456789abcdefghjkmnpqrstvwxyz";

static const uint8_t fixed_secret[IDGEN_MASK_SECRET_LEN] = {
	0x6d, 0x61, 0x73, 0x6b, 0x20, 0x66, 0x75, 0x7a,
	0x7a, 0x20, 0x66, 0x65, 0x69, 0x73, 0x74, 0x65,
	0x6c, 0x20, 0x6b, 0x65, 0x79, 0x20, 0x61, 0x6e,
	0x64, 0x20, 0x74, 0x61, 0x67, 0x20, 0x6b, 0x21,
};

/* a character's value, either case, by search; -1 if not a digit */
static int
ref_value(uint8_t c)
{
	int			i;

	if (c >= 'A' && c <= 'Z')
		c = (uint8_t) (c + ('a' - 'A'));
	for (i = 0; i < 32; i++)
		if ((uint8_t) digits[i] == c)
			return i;
	return -1;
}

/* bit b of the text (0 = most significant bit of the first character) */
static int
text_bit(const uint8_t *t, size_t b)
{
	return (ref_value(t[b / 5]) >> (4 - b % 5)) & 1;
}

/* the grammar above; returns the number of bytes (12 or 20) or 0 */
static size_t
ref_parse(const uint8_t *t, size_t len, uint8_t *out)
{
	size_t		nbytes;
	size_t		b;
	size_t		i;

	if (len == IDGEN_MASK_TOKEN64_CHARS)
		nbytes = IDGEN_MASK_TOKEN64_BYTES;
	else if (len == IDGEN_MASK_TOKEN128_CHARS)
		nbytes = IDGEN_MASK_TOKEN128_BYTES;
	else
		return 0;
	for (i = 0; i < len; i++)
		if (ref_value(t[i]) < 0)
			return 0;
	for (b = nbytes * 8; b < len * 5; b++)
		if (text_bit(t, b) != 0)
			return 0;
	memset(out, 0, nbytes);
	for (b = 0; b < nbytes * 8; b++)
		out[b / 8] |= (uint8_t) (text_bit(t, b) << (7 - b % 8));
	return nbytes;
}

/*
 * Bytes of the alphabet (either case) stay; any other byte becomes one of
 * a few likely ones (digits, letters of both cases, and the near misses
 * i, l, o, u, '-' and NUL), so the fuzzer reaches well-formed and almost
 * well-formed tokens often.
 */
static void
toward_alphabet(const uint8_t *in, size_t len, uint8_t *out)
{
	static const char others[16] = {
		'0', 'z', 'g', 'G', '7', 'Q', 'i', 'm', 'L', 'x', '-', 'o', 'u', '\0', 'V', '1'
	};
	size_t		i;

	for (i = 0; i < len; i++)
		out[i] = ref_value(in[i]) >= 0 ? in[i] : (uint8_t) others[in[i] % 16];
}

static void
check_text(const uint8_t *t, size_t len)
{
	IdgenMaskToken tok;
	uint8_t		want[IDGEN_MASK_TOKEN_MAX_BYTES];
	char		again[IDGEN_MASK_TOKEN_MAX_CHARS + 1];
	size_t		ref_n;
	size_t		i;
	IdgenMaskResult r;
	uint64_t	id64 = 0;
	uint8_t		id128[16];

	memset(&tok, 0x5A, sizeof(tok));
	r = idgen_mask_token_parse((const char *) t, len, &tok);
	ref_n = ref_parse(t, len, want);
	FUZZ_ASSERT(r == IDGEN_MASK_OK || r == IDGEN_MASK_MALFORMED);
	FUZZ_ASSERT((r == IDGEN_MASK_OK) == (ref_n != 0));
	if (r != IDGEN_MASK_OK)
		return;

	FUZZ_ASSERT(tok.nbytes == ref_n);
	FUZZ_ASSERT(memcmp(tok.bytes, want, ref_n) == 0);
	FUZZ_ASSERT(tok.key_id == want[0]);
	FUZZ_ASSERT(tok.width == (len == IDGEN_MASK_TOKEN64_CHARS ? 64 : 128));

	/* the canonical spelling is the input in lower case */
	idgen_base32_encode(tok.bytes, tok.nbytes, again);
	FUZZ_ASSERT(strlen(again) == len);
	for (i = 0; i < len; i++)
	{
		uint8_t		c = t[i];

		if (c >= 'A' && c <= 'Z')
			c = (uint8_t) (c + ('a' - 'A'));
		FUZZ_ASSERT((uint8_t) again[i] == c);
	}

	/* opening under some key: no crash, and a sensible verdict */
	r = idgen_mask_token_open64(fixed_secret, &tok, &id64);
	if (tok.width != 64)
		FUZZ_ASSERT(r == IDGEN_MASK_WRONG_WIDTH);
	else if (r == IDGEN_MASK_OK)
	{
		FUZZ_ASSERT(id64 < IDGEN_MASK_DOMAIN64);
		FUZZ_ASSERT(idgen_mask_token64(fixed_secret, tok.key_id, id64, again));
		FUZZ_ASSERT(idgen_mask_token_parse(again, strlen(again), &tok) == IDGEN_MASK_OK);
		FUZZ_ASSERT(memcmp(tok.bytes, want, ref_n) == 0);
	}
	else
		FUZZ_ASSERT(r == IDGEN_MASK_FOREIGN);

	r = idgen_mask_token_open128(fixed_secret, &tok, id128);
	if (tok.width != 128)
		FUZZ_ASSERT(r == IDGEN_MASK_WRONG_WIDTH);
	else if (r == IDGEN_MASK_OK)
	{
		idgen_mask_token128(fixed_secret, tok.key_id, id128, again);
		FUZZ_ASSERT(idgen_mask_token_parse(again, strlen(again), &tok) == IDGEN_MASK_OK);
		FUZZ_ASSERT(memcmp(tok.bytes, want, ref_n) == 0);
	}
	else
		FUZZ_ASSERT(r == IDGEN_MASK_FOREIGN);
}

/* a bit of the tag (chosen by the input) flipped: the token is refused */
static void
check_tag_flip(const uint8_t secret[IDGEN_MASK_SECRET_LEN], const char *text,
			   uint8_t which)
{
	IdgenMaskToken tok;
	size_t		bit = which % (IDGEN_MASK_TAG_LEN * 8);

	FUZZ_ASSERT(idgen_mask_token_parse(text, strlen(text), &tok) == IDGEN_MASK_OK);
	FUZZ_ASSERT(idgen_mask_token_verify(secret, &tok));
	tok.bytes[tok.nbytes - IDGEN_MASK_TAG_LEN + bit / 8] ^= (uint8_t) (1 << (bit % 8));
	FUZZ_ASSERT(!idgen_mask_token_verify(secret, &tok));
}

static void
check_values(const uint8_t *data, size_t size)
{
	FuzzReader	rd = {data, size};
	uint8_t		secret[IDGEN_MASK_SECRET_LEN];
	uint8_t		key_id;
	uint8_t		flip;
	uint64_t	raw;
	uint64_t	v;
	uint64_t	m = 0;
	uint64_t	back = 0;
	uint8_t		v128[16];
	uint8_t		m128[16];
	uint8_t		back128[16];
	char		text[IDGEN_MASK_TOKEN_MAX_CHARS + 1];
	IdgenMaskToken tok;
	size_t		i;

	for (i = 0; i < IDGEN_MASK_SECRET_LEN; i++)
		secret[i] = fuzz_u8(&rd);
	key_id = fuzz_u8(&rd);
	flip = fuzz_u8(&rd);
	raw = fuzz_u64(&rd);
	v = raw & (IDGEN_MASK_DOMAIN64 - 1);
	for (i = 0; i < 16; i++)
		v128[i] = fuzz_u8(&rd);

	/* 64-bit: a permutation of [0, 2^63) */
	FUZZ_ASSERT(idgen_mask_permute64(secret, v, &m));
	FUZZ_ASSERT(m < IDGEN_MASK_DOMAIN64);
	FUZZ_ASSERT(idgen_mask_unpermute64(secret, m, &back));
	FUZZ_ASSERT(back == v);
	FUZZ_ASSERT(idgen_mask_unpermute64(secret, v, &back));
	FUZZ_ASSERT(back < IDGEN_MASK_DOMAIN64);
	FUZZ_ASSERT(idgen_mask_permute64(secret, back, &m) && m == v);
	if (raw != v)
	{
		FUZZ_ASSERT(!idgen_mask_permute64(secret, raw, &m));
		FUZZ_ASSERT(!idgen_mask_unpermute64(secret, raw, &m));
		FUZZ_ASSERT(!idgen_mask_token64(secret, key_id, raw, text));
	}

	FUZZ_ASSERT(idgen_mask_token64(secret, key_id, v, text));
	FUZZ_ASSERT(strlen(text) == IDGEN_MASK_TOKEN64_CHARS);
	FUZZ_ASSERT(idgen_mask_token_parse(text, strlen(text), &tok) == IDGEN_MASK_OK);
	FUZZ_ASSERT(tok.key_id == key_id && tok.width == 64);
	FUZZ_ASSERT(idgen_mask_token_open64(secret, &tok, &back) == IDGEN_MASK_OK);
	FUZZ_ASSERT(back == v);
	check_tag_flip(secret, text, flip);

	/* 128-bit: a permutation of all 16-byte values */
	idgen_mask_permute128(secret, v128, m128);
	idgen_mask_unpermute128(secret, m128, back128);
	FUZZ_ASSERT(memcmp(back128, v128, 16) == 0);
	idgen_mask_unpermute128(secret, v128, back128);
	idgen_mask_permute128(secret, back128, m128);
	FUZZ_ASSERT(memcmp(m128, v128, 16) == 0);

	idgen_mask_token128(secret, key_id, v128, text);
	FUZZ_ASSERT(strlen(text) == IDGEN_MASK_TOKEN128_CHARS);
	FUZZ_ASSERT(idgen_mask_token_parse(text, strlen(text), &tok) == IDGEN_MASK_OK);
	FUZZ_ASSERT(tok.key_id == key_id && tok.width == 128);
	FUZZ_ASSERT(idgen_mask_token_open128(secret, &tok, back128) == IDGEN_MASK_OK);
	FUZZ_ASSERT(memcmp(back128, v128, 16) == 0);
	FUZZ_ASSERT(idgen_mask_token_open64(secret, &tok, &back) == IDGEN_MASK_WRONG_WIDTH);
	check_tag_flip(secret, text, (uint8_t) (flip >> 3));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		near[MAX_TEXT];
	size_t		len = size < MAX_TEXT ? size : MAX_TEXT;

	check_text(data, size);
	toward_alphabet(data, len, near);
	check_text(near, len);
	check_values(data, size);
	return 0;
}
