/*
 * siphash.c - SipHash-2-4; see siphash.h
 *
 * Written from the algorithm as the paper states it:
 *
 *   initialisation  v0 = k0 ^ "somepseu", v1 = k1 ^ "dorandom",
 *                   v2 = k0 ^ "lygenera", v3 = k1 ^ "tedbytes"
 *                   (the four constants spell "somepseudorandomlygeneratedbytes")
 *   compression     the message in 8-byte little-endian words; the last word
 *                   holds the 0-7 leftover bytes and, in its top byte, the
 *                   message length mod 256.  Per word m: v3 ^= m, two
 *                   SipRounds, v0 ^= m.
 *   finalisation    v2 ^= 0xff, four SipRounds, result v0 ^ v1 ^ v2 ^ v3.
 *
 * A SipRound is two add-rotate-xor half rounds, (v0, v1) with (v2, v3):
 * rotations 13 and 16, then 32 on v0, then 21 and 17, then 32 on v2.
 */
#include "siphash.h"

static inline uint64_t
rotl64(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

/* 8 bytes as a little-endian word, independent of the host's byte order */
static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t	w = 0;
	int			i;

	for (i = 7; i >= 0; i--)
		w = (w << 8) | p[i];
	return w;
}

typedef struct SipState
{
	uint64_t	v0;
	uint64_t	v1;
	uint64_t	v2;
	uint64_t	v3;
} SipState;

static inline void
sip_round(SipState *s)
{
	s->v0 += s->v1;
	s->v1 = rotl64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl64(s->v0, 32);

	s->v2 += s->v3;
	s->v3 = rotl64(s->v3, 16);
	s->v3 ^= s->v2;

	s->v0 += s->v3;
	s->v3 = rotl64(s->v3, 21);
	s->v3 ^= s->v0;

	s->v2 += s->v1;
	s->v1 = rotl64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl64(s->v2, 32);
}

/* one message word: c = 2 compression rounds */
static inline void
sip_absorb(SipState *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t
idgen_siphash24(const uint8_t key[IDGEN_SIPHASH_KEY_LEN], const void *msg,
				size_t len)
{
	const uint8_t *p = (const uint8_t *) msg;
	uint64_t	k0 = load_le64(key);
	uint64_t	k1 = load_le64(key + 8);
	size_t		full = len / 8;
	size_t		left = len % 8;
	uint64_t	last;
	SipState	s;
	size_t		i;

	s.v0 = k0 ^ UINT64_C(0x736f6d6570736575);
	s.v1 = k1 ^ UINT64_C(0x646f72616e646f6d);
	s.v2 = k0 ^ UINT64_C(0x6c7967656e657261);
	s.v3 = k1 ^ UINT64_C(0x7465646279746573);

	for (i = 0; i < full; i++)
		sip_absorb(&s, load_le64(p + 8 * i));

	/* leftover bytes low to high, length in the top byte */
	last = (uint64_t) (len & 0xFF) << 56;
	for (i = 0; i < left; i++)
		last |= (uint64_t) p[8 * full + i] << (8 * i);
	sip_absorb(&s, last);

	/* d = 4 finalisation rounds */
	s.v2 ^= 0xFF;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

void
idgen_siphash24_bytes(const uint8_t key[IDGEN_SIPHASH_KEY_LEN],
					  const void *msg, size_t len,
					  uint8_t out[IDGEN_SIPHASH_OUT_LEN])
{
	uint64_t	h = idgen_siphash24(key, msg, len);
	int			i;

	for (i = 0; i < IDGEN_SIPHASH_OUT_LEN; i++)
		out[i] = (uint8_t) (h >> (8 * i));
}
