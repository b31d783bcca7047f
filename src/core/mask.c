/*
 * mask.c - keyed permutations of IDs and their text tokens; see mask.h
 */
#include "mask.h"

#include <string.h>

#include "siphash.h"

#define FEISTEL_ROUNDS 8
#define DOMAIN_BYTE_64 0x40
#define DOMAIN_BYTE_128 0x80

static const char base32_digits[] = "0123456789abcdefghjkmnpqrstvwxyz";

static const char fingerprint_input[] = "idgen-fingerprint";

/* the two halves of a secret */
static inline const uint8_t *
feistel_key(const uint8_t secret[IDGEN_MASK_SECRET_LEN])
{
	return secret;
}

static inline const uint8_t *
tag_key(const uint8_t secret[IDGEN_MASK_SECRET_LEN])
{
	return secret + IDGEN_SIPHASH_KEY_LEN;
}

static inline void
store_be64(uint8_t *p, uint64_t v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (56 - 8 * i));
}

static inline uint64_t
load_be64(const uint8_t *p)
{
	uint64_t	v = 0;
	int			i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

/* ------------------------------------------------------------------
 * The 64-bit network and its cycle walk
 * ------------------------------------------------------------------ */

static inline uint32_t
round64(const uint8_t *key, int round, uint32_t half)
{
	uint8_t		msg[6];

	msg[0] = DOMAIN_BYTE_64;
	msg[1] = (uint8_t) round;
	msg[2] = (uint8_t) (half >> 24);
	msg[3] = (uint8_t) (half >> 16);
	msg[4] = (uint8_t) (half >> 8);
	msg[5] = (uint8_t) half;
	return (uint32_t) idgen_siphash24(key, msg, sizeof(msg));
}

static uint64_t
feistel64_encrypt(const uint8_t *key, uint64_t x)
{
	uint32_t	l = (uint32_t) (x >> 32);
	uint32_t	r = (uint32_t) x;
	int			i;

	for (i = 0; i < FEISTEL_ROUNDS; i++)
	{
		uint32_t	next_r = l ^ round64(key, i, r);

		l = r;
		r = next_r;
	}
	return ((uint64_t) l << 32) | r;
}

static uint64_t
feistel64_decrypt(const uint8_t *key, uint64_t y)
{
	uint32_t	l = (uint32_t) (y >> 32);
	uint32_t	r = (uint32_t) y;
	int			i;

	for (i = FEISTEL_ROUNDS - 1; i >= 0; i--)
	{
		uint32_t	prev_l = r ^ round64(key, i, l);

		r = l;
		l = prev_l;
	}
	return ((uint64_t) l << 32) | r;
}

/*
 * Cycle walking: the network permutes [0, 2^64); following x's cycle until
 * it comes back below 2^63 permutes [0, 2^63).  The walk ends because x's
 * own cycle returns to x, which is below 2^63; that is why values outside
 * the domain are refused rather than walked (their cycle might never come
 * back down).
 */
bool
idgen_mask_permute64(const uint8_t secret[IDGEN_MASK_SECRET_LEN], uint64_t id,
					 uint64_t *out)
{
	uint64_t	y;

	if (id >= IDGEN_MASK_DOMAIN64)
		return false;
	y = feistel64_encrypt(feistel_key(secret), id);
	while (y >= IDGEN_MASK_DOMAIN64)
		y = feistel64_encrypt(feistel_key(secret), y);
	*out = y;
	return true;
}

bool
idgen_mask_unpermute64(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
					   uint64_t masked, uint64_t *out)
{
	uint64_t	x;

	if (masked >= IDGEN_MASK_DOMAIN64)
		return false;
	x = feistel64_decrypt(feistel_key(secret), masked);
	while (x >= IDGEN_MASK_DOMAIN64)
		x = feistel64_decrypt(feistel_key(secret), x);
	*out = x;
	return true;
}

/* ------------------------------------------------------------------
 * The 128-bit network
 * ------------------------------------------------------------------ */

static inline uint64_t
round128(const uint8_t *key, int round, uint64_t half)
{
	uint8_t		msg[10];

	msg[0] = DOMAIN_BYTE_128;
	msg[1] = (uint8_t) round;
	store_be64(msg + 2, half);
	return idgen_siphash24(key, msg, sizeof(msg));
}

void
idgen_mask_permute128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
					  const uint8_t id[16], uint8_t out[16])
{
	const uint8_t *key = feistel_key(secret);
	uint64_t	l = load_be64(id);
	uint64_t	r = load_be64(id + 8);
	int			i;

	for (i = 0; i < FEISTEL_ROUNDS; i++)
	{
		uint64_t	next_r = l ^ round128(key, i, r);

		l = r;
		r = next_r;
	}
	store_be64(out, l);
	store_be64(out + 8, r);
}

void
idgen_mask_unpermute128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
						const uint8_t masked[16], uint8_t out[16])
{
	const uint8_t *key = feistel_key(secret);
	uint64_t	l = load_be64(masked);
	uint64_t	r = load_be64(masked + 8);
	int			i;

	for (i = FEISTEL_ROUNDS - 1; i >= 0; i--)
	{
		uint64_t	prev_l = r ^ round128(key, i, l);

		r = l;
		l = prev_l;
	}
	store_be64(out, l);
	store_be64(out + 8, r);
}

/* ------------------------------------------------------------------
 * Crockford base32
 * ------------------------------------------------------------------ */

size_t
idgen_base32_len(size_t nbytes)
{
	return (nbytes * 8 + 4) / 5;
}

void
idgen_base32_encode(const uint8_t *in, size_t nbytes, char *out)
{
	uint32_t	acc = 0;
	int			bits = 0;
	size_t		n = 0;
	size_t		i;

	for (i = 0; i < nbytes; i++)
	{
		acc = (acc << 8) | in[i];
		bits += 8;
		while (bits >= 5)
		{
			bits -= 5;
			out[n++] = base32_digits[(acc >> bits) & 31];
		}
		acc &= (UINT32_C(1) << bits) - 1;
	}
	if (bits > 0)
		out[n++] = base32_digits[(acc << (5 - bits)) & 31];
	out[n] = '\0';
}

/* a digit's value, either case; -1 for anything else (i, l, o, u too) */
static int
base32_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		c = (unsigned char) (c - 'A' + 'a');
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
	{
		const char *p = memchr(base32_digits + 10, c, 22);

		return p != NULL ? (int) (p - base32_digits) : -1;
	}
	return -1;
}

bool
idgen_base32_decode(const char *text, size_t len, uint8_t *out, size_t nbytes)
{
	uint32_t	acc = 0;
	int			bits = 0;
	size_t		n = 0;
	size_t		i;

	if (len != idgen_base32_len(nbytes))
		return false;
	for (i = 0; i < len; i++)
	{
		int			v = base32_value((unsigned char) text[i]);

		if (v < 0)
			return false;
		acc = (acc << 5) | (uint32_t) v;
		bits += 5;
		if (bits >= 8)
		{
			bits -= 8;
			out[n++] = (uint8_t) (acc >> bits);
			acc &= (UINT32_C(1) << bits) - 1;
		}
	}
	/* the padding bits of the last character must be 0: one spelling only */
	return n == nbytes && acc == 0;
}

/* ------------------------------------------------------------------
 * Tokens
 * ------------------------------------------------------------------ */

static void
compute_tag(const uint8_t secret[IDGEN_MASK_SECRET_LEN], const uint8_t *body,
			size_t body_len, uint8_t tag[IDGEN_MASK_TAG_LEN])
{
	uint8_t		h[IDGEN_SIPHASH_OUT_LEN];

	idgen_siphash24_bytes(tag_key(secret), body, body_len, h);
	memcpy(tag, h, IDGEN_MASK_TAG_LEN);
}

/* body = key id and permuted value; the tag follows it */
static void
seal_and_encode(const uint8_t secret[IDGEN_MASK_SECRET_LEN], uint8_t *bytes,
				size_t nbytes, char *out)
{
	compute_tag(secret, bytes, nbytes - IDGEN_MASK_TAG_LEN,
				bytes + nbytes - IDGEN_MASK_TAG_LEN);
	idgen_base32_encode(bytes, nbytes, out);
}

bool
idgen_mask_token64(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
				   uint8_t key_id, uint64_t id, char *out)
{
	uint8_t		bytes[IDGEN_MASK_TOKEN64_BYTES];
	uint64_t	masked;

	if (!idgen_mask_permute64(secret, id, &masked))
		return false;
	bytes[0] = key_id;
	store_be64(bytes + 1, masked);
	seal_and_encode(secret, bytes, sizeof(bytes), out);
	return true;
}

void
idgen_mask_token128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
					uint8_t key_id, const uint8_t id[16], char *out)
{
	uint8_t		bytes[IDGEN_MASK_TOKEN128_BYTES];

	bytes[0] = key_id;
	idgen_mask_permute128(secret, id, bytes + 1);
	seal_and_encode(secret, bytes, sizeof(bytes), out);
}

IdgenMaskResult
idgen_mask_token_parse(const char *text, size_t len, IdgenMaskToken *tok)
{
	if (len == IDGEN_MASK_TOKEN64_CHARS)
	{
		tok->width = 64;
		tok->nbytes = IDGEN_MASK_TOKEN64_BYTES;
	}
	else if (len == IDGEN_MASK_TOKEN128_CHARS)
	{
		tok->width = 128;
		tok->nbytes = IDGEN_MASK_TOKEN128_BYTES;
	}
	else
		return IDGEN_MASK_MALFORMED;
	if (!idgen_base32_decode(text, len, tok->bytes, tok->nbytes))
		return IDGEN_MASK_MALFORMED;
	tok->key_id = tok->bytes[0];
	return IDGEN_MASK_OK;
}

IdgenMaskMalformed
idgen_mask_token_malformed(const char *text, size_t len, size_t *at)
{
	IdgenMaskToken tok;
	size_t		i;

	*at = 0;
	if (len != IDGEN_MASK_TOKEN64_CHARS && len != IDGEN_MASK_TOKEN128_CHARS)
		return IDGEN_MASK_BAD_LENGTH;
	for (i = 0; i < len; i++)
	{
		if (base32_value((unsigned char) text[i]) < 0)
		{
			*at = i;
			return IDGEN_MASK_BAD_DIGIT;
		}
	}
	if (idgen_mask_token_parse(text, len, &tok) != IDGEN_MASK_OK)
	{
		*at = len - 1;
		return IDGEN_MASK_BAD_LAST_DIGIT;
	}
	return IDGEN_MASK_NOT_MALFORMED;
}

bool
idgen_mask_token_verify(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
						const IdgenMaskToken *tok)
{
	uint8_t		want[IDGEN_MASK_TAG_LEN];
	const uint8_t *got = tok->bytes + tok->nbytes - IDGEN_MASK_TAG_LEN;
	uint8_t		diff = 0;
	int			i;

	compute_tag(secret, tok->bytes, tok->nbytes - IDGEN_MASK_TAG_LEN, want);
	/* no early exit: the time taken says nothing about the right tag */
	for (i = 0; i < IDGEN_MASK_TAG_LEN; i++)
		diff |= (uint8_t) (want[i] ^ got[i]);
	return diff == 0;
}

IdgenMaskResult
idgen_mask_token_open64(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
						const IdgenMaskToken *tok, uint64_t *id)
{
	if (tok->width != 64)
		return IDGEN_MASK_WRONG_WIDTH;
	if (!idgen_mask_token_verify(secret, tok))
		return IDGEN_MASK_FOREIGN;
	/* a real tag on a value no mask makes: only a key holder could forge it */
	if (!idgen_mask_unpermute64(secret, load_be64(tok->bytes + 1), id))
		return IDGEN_MASK_FOREIGN;
	return IDGEN_MASK_OK;
}

IdgenMaskResult
idgen_mask_token_open128(const uint8_t secret[IDGEN_MASK_SECRET_LEN],
						 const IdgenMaskToken *tok, uint8_t id[16])
{
	if (tok->width != 128)
		return IDGEN_MASK_WRONG_WIDTH;
	if (!idgen_mask_token_verify(secret, tok))
		return IDGEN_MASK_FOREIGN;
	idgen_mask_unpermute128(secret, tok->bytes + 1, id);
	return IDGEN_MASK_OK;
}

void
idgen_mask_fingerprint(const uint8_t secret[IDGEN_MASK_SECRET_LEN], char *out)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t		h[IDGEN_SIPHASH_OUT_LEN];
	int			i;

	idgen_siphash24_bytes(feistel_key(secret), fingerprint_input,
						  sizeof(fingerprint_input) - 1, h);
	for (i = 0; i < IDGEN_SIPHASH_OUT_LEN; i++)
	{
		out[2 * i] = hex[h[i] >> 4];
		out[2 * i + 1] = hex[h[i] & 15];
	}
	out[IDGEN_MASK_FINGERPRINT_CHARS] = '\0';
}
