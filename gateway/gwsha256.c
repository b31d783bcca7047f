/*
 * gwsha256.c - SHA-256 (FIPS 180-4) for the gateway's token digests
 *
 * Pure C99.  The tokens file holds SHA-256 digests of bearer tokens, so the
 * gateway hashes each presented token once per request; a plain,
 * portable implementation is fast enough for that and keeps the gateway
 * free of a crypto library dependency for this one use.
 */
#include "gwrequest.h"

#include <string.h>

typedef struct Sha256
{
	uint32_t	h[8];
	uint8_t		block[64];
	size_t		used;			/* bytes in block, below 64 */
	uint64_t	total;			/* bytes hashed so far */
} Sha256;

/* the first 32 bits of the fractional parts of the cube roots of the first 64 primes */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
sha256_init(Sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(s->h, h0, sizeof(h0));
	s->used = 0;
	s->total = 0;
}

static void
sha256_block(Sha256 *s, const uint8_t *p)
{
	uint32_t	w[64];
	uint32_t	a, b, c, d, e, f, g, h;
	int			t;

	for (t = 0; t < 16; t++)
		w[t] = ((uint32_t) p[4 * t] << 24) | ((uint32_t) p[4 * t + 1] << 16) |
			((uint32_t) p[4 * t + 2] << 8) | (uint32_t) p[4 * t + 3];
	for (t = 16; t < 64; t++)
	{
		uint32_t	s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t	s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}

	a = s->h[0];
	b = s->h[1];
	c = s->h[2];
	d = s->h[3];
	e = s->h[4];
	f = s->h[5];
	g = s->h[6];
	h = s->h[7];
	for (t = 0; t < 64; t++)
	{
		uint32_t	sum1 = ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25);
		uint32_t	ch = (e & f) ^ (~e & g);
		uint32_t	t1 = h + sum1 + ch + sha256_k[t] + w[t];
		uint32_t	sum0 = ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22);
		uint32_t	maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t	t2 = sum0 + maj;

		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

/* whole blocks straight from the input; the tail waits in s->block */
static void
sha256_update(Sha256 *s, const uint8_t *p, size_t len)
{
	s->total += len;
	while (len >= 64)
	{
		sha256_block(s, p);
		p += 64;
		len -= 64;
	}
	memcpy(s->block, p, len);
	s->used = len;
}

static void
sha256_final(Sha256 *s, uint8_t out[32])
{
	uint64_t	bits = s->total * 8;
	int			i;

	/* a 1 bit, zeros up to 56 bytes into a block, then the length in bits */
	s->block[s->used++] = 0x80;
	if (s->used > 56)
	{
		memset(s->block + s->used, 0, 64 - s->used);
		sha256_block(s, s->block);
		s->used = 0;
	}
	memset(s->block + s->used, 0, 56 - s->used);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (uint8_t) (bits >> (56 - 8 * i));
	sha256_block(s, s->block);

	for (i = 0; i < 8; i++)
	{
		out[4 * i] = (uint8_t) (s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t) (s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t) (s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t) s->h[i];
	}
}

void
gw_sha256(const void *data, size_t len, uint8_t out[32])
{
	Sha256		s;

	sha256_init(&s);
	sha256_update(&s, len > 0 ? (const uint8_t *) data : (const uint8_t *) "", len);
	sha256_final(&s, out);
	memset(&s, 0, sizeof(s));
}
