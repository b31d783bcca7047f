/*
 * test_mask.c - unit tests of src/siphash.c and src/mask.c: SipHash-2-4,
 * the keyed permutations of IDs and their public tokens
 *
 * What is checked:
 *   - SipHash-2-4 against the 64 reference outputs of the SipHash paper's
 *     appendix (key 00 01 .. 0f, messages of 0 to 63 bytes 00 01 02 ..);
 *   - known answers under two fixed secrets for the 64- and 128-bit
 *     permutations, tokens and fingerprints, frozen when the layout in
 *     mask.h was settled and computed a second time by a separate
 *     reading of that layout, so any change to the token format shows;
 *   - the permutations over many inputs: unmask(mask(x)) = x, results
 *     below 2^63, distinct inputs give distinct outputs, a flipped input
 *     bit changes about half of the output bits, out-of-domain values
 *     refused;
 *   - tokens: round trip, length and alphabet, upper case accepted, every
 *     single-bit change of the bytes refused by the tag, the other width
 *     recognised, every malformed spelling refused;
 *   - base32 on its own: round trips, bad characters, lengths and padding.
 */
#include <stdlib.h>

#include "mask.h"
#include "siphash.h"
#include "unit.h"

/* SipHash-2-4 of bytes 00 .. i-1 under key 00 .. 0f, as 64-bit numbers */
static const uint64_t sip_vectors[64] = {
	UINT64_C(0x726fdb47dd0e0e31), UINT64_C(0x74f839c593dc67fd),
	UINT64_C(0x0d6c8009d9a94f5a), UINT64_C(0x85676696d7fb7e2d),
	UINT64_C(0xcf2794e0277187b7), UINT64_C(0x18765564cd99a68d),
	UINT64_C(0xcbc9466e58fee3ce), UINT64_C(0xab0200f58b01d137),
	UINT64_C(0x93f5f5799a932462), UINT64_C(0x9e0082df0ba9e4b0),
	UINT64_C(0x7a5dbbc594ddb9f3), UINT64_C(0xf4b32f46226bada7),
	UINT64_C(0x751e8fbc860ee5fb), UINT64_C(0x14ea5627c0843d90),
	UINT64_C(0xf723ca908e7af2ee), UINT64_C(0xa129ca6149be45e5),
	UINT64_C(0x3f2acc7f57c29bdb), UINT64_C(0x699ae9f52cbe4794),
	UINT64_C(0x4bc1b3f0968dd39c), UINT64_C(0xbb6dc91da77961bd),
	UINT64_C(0xbed65cf21aa2ee98), UINT64_C(0xd0f2cbb02e3b67c7),
	UINT64_C(0x93536795e3a33e88), UINT64_C(0xa80c038ccd5ccec8),
	UINT64_C(0xb8ad50c6f649af94), UINT64_C(0xbce192de8a85b8ea),
	UINT64_C(0x17d835b85bbb15f3), UINT64_C(0x2f2e6163076bcfad),
	UINT64_C(0xde4daaaca71dc9a5), UINT64_C(0xa6a2506687956571),
	UINT64_C(0xad87a3535c49ef28), UINT64_C(0x32d892fad841c342),
	UINT64_C(0x7127512f72f27cce), UINT64_C(0xa7f32346f95978e3),
	UINT64_C(0x12e0b01abb051238), UINT64_C(0x15e034d40fa197ae),
	UINT64_C(0x314dffbe0815a3b4), UINT64_C(0x027990f029623981),
	UINT64_C(0xcadcd4e59ef40c4d), UINT64_C(0x9abfd8766a33735c),
	UINT64_C(0x0e3ea96b5304a7d0), UINT64_C(0xad0c42d6fc585992),
	UINT64_C(0x187306c89bc215a9), UINT64_C(0xd4a60abcf3792b95),
	UINT64_C(0xf935451de4f21df2), UINT64_C(0xa9538f0419755787),
	UINT64_C(0xdb9acddff56ca510), UINT64_C(0xd06c98cd5c0975eb),
	UINT64_C(0xe612a3cb9ecba951), UINT64_C(0xc766e62cfcadaf96),
	UINT64_C(0xee64435a9752fe72), UINT64_C(0xa192d576b245165a),
	UINT64_C(0x0a8787bf8ecb74b2), UINT64_C(0x81b3e73d20b49b6f),
	UINT64_C(0x7fa8220ba3b2ecea), UINT64_C(0x245731c13ca42499),
	UINT64_C(0xb78dbfaf3a8d83bd), UINT64_C(0xea1ad565322a1a0b),
	UINT64_C(0x60e61c23a3795013), UINT64_C(0x6606d7e446282b93),
	UINT64_C(0x6ca4ecb15c5f91e1), UINT64_C(0x9f626da15c9625f3),
	UINT64_C(0xe51b38608ef25f57), UINT64_C(0x958a324ceb064572),
};

/* known answers: id, its permutation, its tokens under key ids 1 and 200 */
typedef struct Known64
{
	uint64_t	id;
	uint64_t	masked;
	const char *token1;
	const char *token200;
} Known64;

typedef struct Known128
{
	const char *id_hex;
	const char *masked_hex;
	const char *token1;
	const char *token77;
} Known128;

typedef struct KnownSecret
{
	uint8_t		first;			/* the secret is bytes first, first+1, ... */
	const char *fingerprint;
	Known64		k64[9];
	Known128	k128[4];
} KnownSecret;

static const KnownSecret known[2] = {
	{
		0x00, "759c5f8ec2b03e29",
		{
			{UINT64_C(0x0), UINT64_C(0x0be1e8f04d9eccdd), "045y3t7g9pfcsqew2e9g", "s05y3t7g9pfcsq9z6bfg"},
			{UINT64_C(0x1), UINT64_C(0x48d7d9b2a22acc3b), "054dfpdjm8ncreykk57g", "s14dfpdjm8ncreyv3w4g"},
			{UINT64_C(0x2), UINT64_C(0x58734dbcdf0a0a84), "05c76kdwvw50n157sp9g", "s1c76kdwvw50n14xep3g"},
			{UINT64_C(0x3), UINT64_C(0x353f02b02e9e5147), "04tky0ng5tf52hyg9bqg", "s0tky0ng5tf52hwxnsqg"},
			{UINT64_C(0x3e8), UINT64_C(0x5fcf07c5efc73f75), "05fwy1y5xz3kyxc6nbb0", "s1fwy1y5xz3kyxbad0h0"},
			{UINT64_C(0x4000000000000000), UINT64_C(0x49f2f177c94d0873), "054z5wbqs56ggwye8fgg", "s14z5wbqs56ggwt9tapg"},
			{UINT64_C(0x7fffffffffffffff), UINT64_C(0x08e6ef1b3fa76b87), "044edvrv7ykpq1zqvppg", "s04edvrv7ykpq1vzvfb0"},
			{UINT64_C(0x0123456789abcdef), UINT64_C(0x7f68f69325fd264c), "05zphxmk4qyjck1egd30", "s1zphxmk4qyjck7pdvx0"},
			{UINT64_C(0x087f7d268ea74b87), UINT64_C(0x6fb6f1b0116ef803), "05qvdwdg25qfg0w2gj4g", "s1qvdwdg25qfg0zdkar0"},
		},
		{
			{"00000000000000000000000000000000", "bf6e6a26779647c37f1fd97cc0b2657e",
			"06zpwth6eyb4fgvz3zcqsg5jcnzbpx3m", "9pzpwth6eyb4fgvz3zcqsg5jcnz9x7jn"},
			{"0190a1b2c3d47abc8def0123456789ab", "101465b45b05d68145d5249e420169e0",
			"04818sdmbc2xd0a5tmj9wgg1d7gdjsxv", "9m818sdmbc2xd0a5tmj9wgg1d7ge20dg"},
			{"ffffffffffffffffffffffffffffffff", "5a3c3d225367806d228e4582821bca53",
			"05d3rf92adkr0v92hs2r50gvs99kj5yz", "9nd3rf92adkr0v92hs2r50gvs99ycsap"},
			{"018f3c5e9a2b7c01b234567890abcdef", "64e11d9dc4d191e937a328b89546220c",
			"05je27cxrk8s3t9qmcmbh5a6486evd2m", "9nje27cxrk8s3t9qmcmbh5a64864mdjh"},
		},
	},
	{
		0x20, "06d8a2b53ba4e211",
		{
			{UINT64_C(0x0), UINT64_C(0x5dfa2d1570094039), "05ezmb8ne04m0edcdt0g", "s1ezmb8ne04m0ed5kh5g"},
			{UINT64_C(0x1), UINT64_C(0x426d6d2d76659c2e), "0516tv9desjsrbmhf4p0", "s116tv9desjsrbgaed7g"},
			{UINT64_C(0x2), UINT64_C(0x63fe9d2696a25fac), "05hzx796jth5zb58wq9g", "s1hzx796jth5zb7nsqh0"},
			{UINT64_C(0x3), UINT64_C(0x2c34257196e4c59f), "04p389bhjvjcb7w890sg", "s0p389bhjvjcb7v1mksg"},
			{UINT64_C(0x3e8), UINT64_C(0x39a24b04cab397e4), "04wt4jr4sassfs0jsmng", "s0wt4jr4sassfs3tbpy0"},
			{UINT64_C(0x4000000000000000), UINT64_C(0x2f77be56a6e9ad53), "04qqffjpmvmttmvh3c0g", "s0qqffjpmvmttmwptk0g"},
			{UINT64_C(0x7fffffffffffffff), UINT64_C(0x16eecf8bf5816abf), "04bexkwbyp0pnfvqhtyg", "s0bexkwbyp0pnfy1d38g"},
			{UINT64_C(0x0123456789abcdef), UINT64_C(0x2480a0312a504b62), "04j8181h5984prqaakzg", "s0j8181h5984prnyj8z0"},
			{UINT64_C(0x087f7d268ea74b87), UINT64_C(0x3a225f980484b127), "04x24qwr0j2b29r0bhr0", "s0x24qwr0j2b29rr2zag"},
		},
		{
			{"00000000000000000000000000000000", "53d2ecb5846fd43143239fbcbeda070b",
			"059x5v5nghqx8ca34efvsfpt0w5w47xa", "9n9x5v5nghqx8ca34efvsfpt0w5pgecg"},
			{"0190a1b2c3d47abc8def0123456789ab", "1f05c50c2badcc29f5ca0f916028c997",
			"04fgbh8c5epwrafns87s2r18s6bnw4xy", "9mfgbh8c5epwrafns87s2r18s6bt27ca"},
			{"ffffffffffffffffffffffffffffffff", "a56018bf077b1806c52b60c89f72481c",
			"06jp065z0xxhg1p55dgch7vj90e4djw1", "9pjp065z0xxhg1p55dgch7vj90e109pf"},
			{"018f3c5e9a2b7c01b234567890abcdef", "1544ae28e6e2ffc2d3f3ef9a47ce7660",
			"04am9bh8wvhfzgpkyfqsmhyeesga4qbk", "9mam9bh8wvhfzgpkyfqsmhyeesg3k93r"},
		},
	},
};

static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

static void
fill_secret(uint8_t secret[IDGEN_MASK_SECRET_LEN], uint8_t first)
{
	int			i;

	for (i = 0; i < IDGEN_MASK_SECRET_LEN; i++)
		secret[i] = (uint8_t) (first + i);
}

static void
random_secret(uint8_t secret[IDGEN_MASK_SECRET_LEN])
{
	int			i;

	for (i = 0; i < IDGEN_MASK_SECRET_LEN; i++)
		secret[i] = (uint8_t) unit_rand();
}

static void
random_bytes(uint8_t *b, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t) unit_rand();
}

static void
from_hex(const char *hex, uint8_t *out, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		unsigned int v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t) v;
	}
}

static int
popcount64(uint64_t v)
{
	int			n = 0;

	for (; v != 0; v &= v - 1)
		n++;
	return n;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

static int
cmp_16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

/* ------------------------------------------------------------------ */

static void
test_siphash_vectors(void)
{
	uint8_t		key[16];
	uint8_t		msg[64];
	int			i;
	int			j;

	for (i = 0; i < 16; i++)
		key[i] = (uint8_t) i;
	for (i = 0; i < 64; i++)
		msg[i] = (uint8_t) i;
	for (i = 0; i < 64; i++)
	{
		uint8_t		out[8];

		unit_context("SipHash vector %d", i);
		CHECK_U64(idgen_siphash24(key, msg, (size_t) i), ==, sip_vectors[i]);
		/* the byte form is the number least significant byte first */
		idgen_siphash24_bytes(key, msg, (size_t) i, out);
		for (j = 0; j < 8; j++)
			CHECK_U64(out[j], ==, (sip_vectors[i] >> (8 * j)) & 0xFF);
	}
	unit_context("");

	/* the paper's worked example: 15 bytes, output a129ca6149be45e5 */
	CHECK_U64(idgen_siphash24(key, msg, 15), ==, UINT64_C(0xa129ca6149be45e5));

	/* every key bit and the message length matter */
	for (i = 0; i < 128; i++)
	{
		uint8_t		k2[16];

		memcpy(k2, key, 16);
		k2[i / 8] ^= (uint8_t) (1 << (i % 8));
		unit_context("key bit %d", i);
		CHECK(idgen_siphash24(k2, msg, 15) != sip_vectors[15]);
	}
	unit_context("");
	{
		uint8_t		zeros[9] = {0};

		CHECK(idgen_siphash24(key, zeros, 8) != idgen_siphash24(key, zeros, 9));
		CHECK(idgen_siphash24(key, zeros, 0) != idgen_siphash24(key, zeros, 1));
	}
}

static void
test_known_answers(void)
{
	int			s;
	int			i;

	for (s = 0; s < 2; s++)
	{
		const KnownSecret *ks = &known[s];
		uint8_t		secret[IDGEN_MASK_SECRET_LEN];
		char		fp[IDGEN_MASK_FINGERPRINT_CHARS + 1];

		fill_secret(secret, ks->first);
		idgen_mask_fingerprint(secret, fp);
		unit_context("secret %d fingerprint", s);
		CHECK_STR(fp, ks->fingerprint);

		for (i = 0; i < 9; i++)
		{
			const Known64 *k = &ks->k64[i];
			uint64_t	m = 0;
			uint64_t	back = 0;
			char		tok[IDGEN_MASK_TOKEN64_CHARS + 1];

			unit_context("secret %d, 64-bit id %#" PRIx64, s, k->id);
			CHECK(idgen_mask_permute64(secret, k->id, &m));
			CHECK_U64(m, ==, k->masked);
			CHECK(idgen_mask_unpermute64(secret, k->masked, &back));
			CHECK_U64(back, ==, k->id);
			CHECK(idgen_mask_token64(secret, 1, k->id, tok));
			CHECK_STR(tok, k->token1);
			CHECK(idgen_mask_token64(secret, 200, k->id, tok));
			CHECK_STR(tok, k->token200);
		}
		for (i = 0; i < 4; i++)
		{
			const Known128 *k = &ks->k128[i];
			uint8_t		id[16];
			uint8_t		want[16];
			uint8_t		got[16];
			char		tok[IDGEN_MASK_TOKEN128_CHARS + 1];

			unit_context("secret %d, 128-bit id %s", s, k->id_hex);
			from_hex(k->id_hex, id, 16);
			from_hex(k->masked_hex, want, 16);
			idgen_mask_permute128(secret, id, got);
			CHECK(memcmp(got, want, 16) == 0);
			idgen_mask_unpermute128(secret, want, got);
			CHECK(memcmp(got, id, 16) == 0);
			idgen_mask_token128(secret, 1, id, tok);
			CHECK_STR(tok, k->token1);
			idgen_mask_token128(secret, 77, id, tok);
			CHECK_STR(tok, k->token77);
		}
	}
	unit_context("");
}

#define N_RANDOM 200000
#define N_SEQ 65536

static void
test_permutation64(void)
{
	uint8_t		secret[IDGEN_MASK_SECRET_LEN];
	uint64_t   *out = malloc(sizeof(uint64_t) * N_SEQ);
	uint64_t	x;
	uint64_t	m;
	uint64_t	back;
	long		bad_round_trip = 0;
	long		out_of_domain = 0;
	long		dup = 0;
	long		flips = 0;
	long		flip_bits = 0;
	int			i;

	CHECK(out != NULL);
	if (out == NULL)
		return;
	random_secret(secret);

	/* round trips over random values, biased toward the edges */
	for (i = 0; i < N_RANDOM; i++)
	{
		x = unit_bits(63);
		if (!idgen_mask_permute64(secret, x, &m) || m >= IDGEN_MASK_DOMAIN64)
			out_of_domain++;
		else if (!idgen_mask_unpermute64(secret, m, &back) || back != x)
			bad_round_trip++;
	}
	CHECK_I64(out_of_domain, ==, 0);
	CHECK_I64(bad_round_trip, ==, 0);

	/* consecutive IDs, as a busy node makes them: no two tokens alike */
	for (i = 0; i < N_SEQ; i++)
	{
		x = UINT64_C(0x0c1a2b3c4d5e0000) + (uint64_t) i;
		CHECK(idgen_mask_permute64(secret, x, &out[i]));
	}
	qsort(out, N_SEQ, sizeof(uint64_t), cmp_u64);
	for (i = 1; i < N_SEQ; i++)
		if (out[i] == out[i - 1])
			dup++;
	CHECK_I64(dup, ==, 0);

	/*
	 * Avalanche: flipping one input bit changes each of the 63 output bits
	 * with probability 1/2, so the mean distance is 31.5 and over 20000
	 * pairs its standard error is about 0.03.
	 */
	for (i = 0; i < 20000; i++)
	{
		uint64_t	m2;

		x = unit_rand() & (IDGEN_MASK_DOMAIN64 - 1);
		(void) idgen_mask_permute64(secret, x, &m);
		(void) idgen_mask_permute64(secret, x ^ (UINT64_C(1) << unit_below(63)), &m2);
		flip_bits += popcount64(m ^ m2);
		flips++;
	}
	CHECK(flip_bits > flips * 31 && flip_bits < flips * 32);

	/* the domain ends at 2^63, both ways */
	CHECK(!idgen_mask_permute64(secret, IDGEN_MASK_DOMAIN64, &m));
	CHECK(!idgen_mask_permute64(secret, UINT64_MAX, &m));
	CHECK(!idgen_mask_unpermute64(secret, IDGEN_MASK_DOMAIN64, &m));
	CHECK(!idgen_mask_unpermute64(secret, UINT64_MAX, &m));

	/* another key, another permutation; the tag key plays no part in it */
	{
		uint8_t		other[IDGEN_MASK_SECRET_LEN];
		uint64_t	m2;
		int			same = 0;

		memcpy(other, secret, sizeof(other));
		other[0] ^= 1;
		for (i = 0; i < 1000; i++)
		{
			(void) idgen_mask_permute64(secret, (uint64_t) i, &m);
			(void) idgen_mask_permute64(other, (uint64_t) i, &m2);
			same += m == m2;
		}
		CHECK_I64(same, ==, 0);

		memcpy(other, secret, sizeof(other));
		other[31] ^= 1;
		for (i = 0, same = 0; i < 1000; i++)
		{
			(void) idgen_mask_permute64(secret, (uint64_t) i, &m);
			(void) idgen_mask_permute64(other, (uint64_t) i, &m2);
			same += m == m2;
		}
		CHECK_I64(same, ==, 1000);
	}
	free(out);
}

static void
test_permutation128(void)
{
	uint8_t		secret[IDGEN_MASK_SECRET_LEN];
	uint8_t    *out = malloc(16 * (size_t) N_SEQ);
	uint8_t		id[16];
	uint8_t		m[16];
	uint8_t		back[16];
	long		bad = 0;
	long		dup = 0;
	int			i;

	CHECK(out != NULL);
	if (out == NULL)
		return;
	random_secret(secret);
	for (i = 0; i < N_RANDOM / 4; i++)
	{
		random_bytes(id, 16);
		idgen_mask_permute128(secret, id, m);
		idgen_mask_unpermute128(secret, m, back);
		if (memcmp(back, id, 16) != 0)
			bad++;
	}
	CHECK_I64(bad, ==, 0);

	/* IDs that differ only in the last bytes, as one millisecond's do */
	memset(id, 0, 16);
	id[0] = 0x01;
	id[6] = 0x70;
	id[8] = 0x80;
	for (i = 0; i < N_SEQ; i++)
	{
		id[14] = (uint8_t) (i >> 8);
		id[15] = (uint8_t) i;
		idgen_mask_permute128(secret, id, out + 16 * (size_t) i);
	}
	qsort(out, N_SEQ, 16, cmp_16);
	for (i = 1; i < N_SEQ; i++)
		if (memcmp(out + 16 * (size_t) i, out + 16 * (size_t) (i - 1), 16) == 0)
			dup++;
	CHECK_I64(dup, ==, 0);

	/* the version nibble of a UUIDv7 does not survive masking */
	{
		int			sevens = 0;

		for (i = 0; i < 1600; i++)
		{
			id[14] = (uint8_t) (i >> 8);
			id[15] = (uint8_t) i;
			idgen_mask_permute128(secret, id, m);
			sevens += (m[6] >> 4) == 7;
		}
		/* 1600/16 = 100 expected; far from all 1600 */
		CHECK(sevens > 40 && sevens < 180);
	}
	free(out);
}

/* flip each bit of a token's bytes in turn; the tag must refuse every one */
static void
check_bit_flips(const uint8_t secret[IDGEN_MASK_SECRET_LEN], const char *token)
{
	IdgenMaskToken tok;
	IdgenMaskToken bent;
	char		text[IDGEN_MASK_TOKEN_MAX_CHARS + 1];
	size_t		bit;
	long		accepted = 0;
	long		unparsed = 0;

	if (idgen_mask_token_parse(token, strlen(token), &tok) != IDGEN_MASK_OK)
	{
		CHECK(!"token parses");
		return;
	}
	for (bit = 0; bit < tok.nbytes * 8; bit++)
	{
		uint64_t	id64;
		uint8_t		id128[16];
		IdgenMaskResult r;

		bent = tok;
		bent.bytes[bit / 8] ^= (uint8_t) (0x80 >> (bit % 8));
		idgen_base32_encode(bent.bytes, bent.nbytes, text);
		if (idgen_mask_token_parse(text, strlen(text), &bent) != IDGEN_MASK_OK)
		{
			unparsed++;
			continue;
		}
		CHECK(!idgen_mask_token_verify(secret, &bent));
		r = tok.width == 64 ? idgen_mask_token_open64(secret, &bent, &id64)
			: idgen_mask_token_open128(secret, &bent, id128);
		if (r != IDGEN_MASK_FOREIGN)
			accepted++;
	}
	CHECK_I64(unparsed, ==, 0);
	CHECK_I64(accepted, ==, 0);
}

static void
test_tokens(void)
{
	uint8_t		secret[IDGEN_MASK_SECRET_LEN];
	char		tok[IDGEN_MASK_TOKEN_MAX_CHARS + 1];
	char		upper[IDGEN_MASK_TOKEN_MAX_CHARS + 1];
	IdgenMaskToken t;
	long		bad = 0;
	int			i;
	size_t		j;

	random_secret(secret);
	for (i = 0; i < 20000; i++)
	{
		uint64_t	id = unit_bits(63);
		uint64_t	back = ~id;
		uint8_t		key_id = (uint8_t) (1 + unit_below(255));
		uint8_t		id128[16];
		uint8_t		back128[16];
		int			ok = 1;

		ok &= idgen_mask_token64(secret, key_id, id, tok);
		ok &= strlen(tok) == IDGEN_MASK_TOKEN64_CHARS;
		ok &= strspn(tok, alphabet) == IDGEN_MASK_TOKEN64_CHARS;
		ok &= idgen_mask_token_parse(tok, strlen(tok), &t) == IDGEN_MASK_OK;
		ok &= t.width == 64 && t.key_id == key_id;
		ok &= idgen_mask_token_open64(secret, &t, &back) == IDGEN_MASK_OK;
		ok &= back == id;
		ok &= idgen_mask_token_open128(secret, &t, back128) == IDGEN_MASK_WRONG_WIDTH;

		/* upper case is the same token */
		for (j = 0; j <= strlen(tok); j++)
			upper[j] = (char) (tok[j] >= 'a' && tok[j] <= 'z' ? tok[j] - 32 : tok[j]);
		ok &= idgen_mask_token_parse(upper, strlen(upper), &t) == IDGEN_MASK_OK;
		ok &= idgen_mask_token_open64(secret, &t, &back) == IDGEN_MASK_OK && back == id;

		random_bytes(id128, 16);
		idgen_mask_token128(secret, key_id, id128, tok);
		ok &= strlen(tok) == IDGEN_MASK_TOKEN128_CHARS;
		ok &= strspn(tok, alphabet) == IDGEN_MASK_TOKEN128_CHARS;
		ok &= idgen_mask_token_parse(tok, strlen(tok), &t) == IDGEN_MASK_OK;
		ok &= t.width == 128 && t.key_id == key_id;
		ok &= idgen_mask_token_open128(secret, &t, back128) == IDGEN_MASK_OK;
		ok &= memcmp(back128, id128, 16) == 0;
		ok &= idgen_mask_token_open64(secret, &t, &back) == IDGEN_MASK_WRONG_WIDTH;
		if (!ok)
			bad++;
	}
	CHECK_I64(bad, ==, 0);

	/* tokens of another secret are foreign, of either width */
	{
		uint8_t		other[IDGEN_MASK_SECRET_LEN];
		uint64_t	back;
		uint8_t		back128[16];
		uint8_t		id128[16] = {0};
		long		accepted = 0;

		random_secret(other);
		for (i = 0; i < 5000; i++)
		{
			(void) idgen_mask_token64(other, 1, (uint64_t) i, tok);
			(void) idgen_mask_token_parse(tok, strlen(tok), &t);
			accepted += idgen_mask_token_open64(secret, &t, &back) != IDGEN_MASK_FOREIGN;
			id128[15] = (uint8_t) i;
			id128[14] = (uint8_t) (i >> 8);
			idgen_mask_token128(other, 1, id128, tok);
			(void) idgen_mask_token_parse(tok, strlen(tok), &t);
			accepted += idgen_mask_token_open128(secret, &t, back128) != IDGEN_MASK_FOREIGN;
		}
		CHECK_I64(accepted, ==, 0);
	}

	/* every single-bit change of the bytes, for tokens of both widths */
	for (i = 0; i < 200; i++)
	{
		uint8_t		id128[16];

		unit_context("bit flips, token %d", i);
		CHECK(idgen_mask_token64(secret, (uint8_t) (1 + i % 255), unit_bits(63), tok));
		check_bit_flips(secret, tok);
		random_bytes(id128, 16);
		idgen_mask_token128(secret, (uint8_t) (1 + i % 255), id128, tok);
		check_bit_flips(secret, tok);
	}
	unit_context("");

	/* a different character anywhere is refused, one way or the other */
	{
		uint64_t	back;
		long		accepted = 0;

		CHECK(idgen_mask_token64(secret, 1, 123456789, tok));
		for (j = 0; j < IDGEN_MASK_TOKEN64_CHARS; j++)
		{
			int			c;

			for (c = 0; c < 32; c++)
			{
				char		bent[IDGEN_MASK_TOKEN64_CHARS + 1];

				memcpy(bent, tok, sizeof(bent));
				if (bent[j] == alphabet[c])
					continue;
				bent[j] = alphabet[c];
				if (idgen_mask_token_parse(bent, IDGEN_MASK_TOKEN64_CHARS, &t) == IDGEN_MASK_OK &&
					idgen_mask_token_open64(secret, &t, &back) == IDGEN_MASK_OK)
					accepted++;
			}
		}
		CHECK_I64(accepted, ==, 0);
	}

	/* a real tag on a value no mask makes: refused, not walked forever */
	{
		uint8_t		bytes[IDGEN_MASK_TOKEN64_BYTES];
		uint64_t	back;

		memset(bytes, 0xFF, sizeof(bytes));
		bytes[0] = 1;
		/* fake the tag the way the encoder makes it */
		{
			uint8_t		h[8];

			idgen_siphash24_bytes(secret + 16, bytes, 9, h);
			memcpy(bytes + 9, h, 3);
		}
		idgen_base32_encode(bytes, sizeof(bytes), tok);
		CHECK(idgen_mask_token_parse(tok, strlen(tok), &t) == IDGEN_MASK_OK);
		CHECK(idgen_mask_token_verify(secret, &t));
		CHECK(idgen_mask_token_open64(secret, &t, &back) == IDGEN_MASK_FOREIGN);
	}

	/* an id out of the domain makes no token */
	CHECK(!idgen_mask_token64(secret, 1, IDGEN_MASK_DOMAIN64, tok));
}

static void
test_malformed(void)
{
	uint8_t		secret[IDGEN_MASK_SECRET_LEN];
	char		tok[IDGEN_MASK_TOKEN_MAX_CHARS + 1];
	char		buf[64];
	IdgenMaskToken t;
	size_t		len;
	size_t		j;
	int			c;

	random_secret(secret);
	CHECK(idgen_mask_token64(secret, 1, 42, tok));

	/* every length but 20 and 32 */
	for (len = 0; len < sizeof(buf); len++)
	{
		memset(buf, '0', len);
		buf[len] = '\0';
		unit_context("length %zu", len);
		if (len == IDGEN_MASK_TOKEN64_CHARS || len == IDGEN_MASK_TOKEN128_CHARS)
			CHECK(idgen_mask_token_parse(buf, len, &t) == IDGEN_MASK_OK);
		else
			CHECK(idgen_mask_token_parse(buf, len, &t) == IDGEN_MASK_MALFORMED);
	}
	unit_context("");

	/* every byte value in every position: only the alphabet, either case */
	for (j = 0; j < IDGEN_MASK_TOKEN64_CHARS - 1; j++)
	{
		for (c = 0; c < 256; c++)
		{
			int			lower = (c >= 'A' && c <= 'Z') ? c + 32 : c;
			int			valid = lower != '\0' && strchr(alphabet, lower) != NULL;

			memcpy(buf, tok, IDGEN_MASK_TOKEN64_CHARS + 1);
			buf[j] = (char) c;
			unit_context("byte %d at %zu", c, j);
			CHECK((idgen_mask_token_parse(buf, IDGEN_MASK_TOKEN64_CHARS, &t) == IDGEN_MASK_OK) == valid);
		}
	}
	unit_context("");

	/* the aliases Crockford's decoder allows are refused: one spelling only */
	{
		const char *aliases = "iIlLoOuU-";

		for (j = 0; aliases[j] != '\0'; j++)
		{
			memcpy(buf, tok, IDGEN_MASK_TOKEN64_CHARS + 1);
			buf[3] = aliases[j];
			CHECK(idgen_mask_token_parse(buf, IDGEN_MASK_TOKEN64_CHARS, &t) == IDGEN_MASK_MALFORMED);
		}
	}

	/* the last character of a 20-character token carries 1 bit and 4 zeros */
	for (c = 0; c < 32; c++)
	{
		memcpy(buf, tok, IDGEN_MASK_TOKEN64_CHARS + 1);
		buf[IDGEN_MASK_TOKEN64_CHARS - 1] = alphabet[c];
		unit_context("last character %c", alphabet[c]);
		CHECK((idgen_mask_token_parse(buf, IDGEN_MASK_TOKEN64_CHARS, &t) == IDGEN_MASK_OK) ==
			  (c % 16 == 0));
	}
	unit_context("");

	/* a token with room around it is not a token */
	snprintf(buf, sizeof(buf), " %s", tok);
	CHECK(idgen_mask_token_parse(buf, strlen(buf), &t) == IDGEN_MASK_MALFORMED);
	snprintf(buf, sizeof(buf), "%s\n", tok);
	CHECK(idgen_mask_token_parse(buf, strlen(buf), &t) == IDGEN_MASK_MALFORMED);
	/* and a NUL inside the length given is a bad character */
	memcpy(buf, tok, IDGEN_MASK_TOKEN64_CHARS + 1);
	buf[5] = '\0';
	CHECK(idgen_mask_token_parse(buf, IDGEN_MASK_TOKEN64_CHARS, &t) == IDGEN_MASK_MALFORMED);
}

static void
test_base32(void)
{
	uint8_t		in[24];
	uint8_t		out[24];
	char		text[64];
	size_t		n;
	int			i;
	long		bad = 0;

	/* hand-worked: 0x00 -> "00"; 0xff -> "zw"; "f" (0x66) -> "cr" */
	in[0] = 0x00;
	idgen_base32_encode(in, 1, text);
	CHECK_STR(text, "00");
	in[0] = 0xFF;
	idgen_base32_encode(in, 1, text);
	CHECK_STR(text, "zw");
	in[0] = 0x66;
	idgen_base32_encode(in, 1, text);
	CHECK_STR(text, "cr");
	/* five bytes make exactly eight characters: 00 44 32 14 c7 -> 01234567 */
	in[0] = 0x00;
	in[1] = 0x44;
	in[2] = 0x32;
	in[3] = 0x14;
	in[4] = 0xC7;
	idgen_base32_encode(in, 5, text);
	CHECK_STR(text, "01234567");
	idgen_base32_encode(in, 0, text);
	CHECK_STR(text, "");

	CHECK_U64(idgen_base32_len(IDGEN_MASK_TOKEN64_BYTES), ==, IDGEN_MASK_TOKEN64_CHARS);
	CHECK_U64(idgen_base32_len(IDGEN_MASK_TOKEN128_BYTES), ==, IDGEN_MASK_TOKEN128_CHARS);

	for (i = 0; i < 20000; i++)
	{
		n = (size_t) unit_below(sizeof(in) + 1);
		random_bytes(in, n);
		idgen_base32_encode(in, n, text);
		memset(out, 0xA5, sizeof(out));
		if (strlen(text) != idgen_base32_len(n) ||
			!idgen_base32_decode(text, strlen(text), out, n) ||
			memcmp(in, out, n) != 0)
			bad++;
		/* one character more or less is refused */
		if (n > 0 && idgen_base32_decode(text, strlen(text) - 1, out, n))
			bad++;
		text[strlen(text) + 1] = '\0';
		text[strlen(text)] = '0';
		if (idgen_base32_decode(text, strlen(text), out, n))
			bad++;
	}
	CHECK_I64(bad, ==, 0);
}

/*
 * What the error message says of a malformed token: a changed character is
 * found where it is, whichever one it is, and a well-formed token is never
 * reported as malformed.
 */
static void
test_malformed_reason(void)
{
	uint8_t		secret[IDGEN_MASK_SECRET_LEN] = {0};
	char		tok[IDGEN_MASK_TOKEN128_CHARS + 1];
	char		buf[IDGEN_MASK_TOKEN128_CHARS + 2];
	const char *bad = "iloU!-\x80 ";
	size_t		at;
	size_t		i;
	size_t		k;

	CHECK(idgen_mask_token64(secret, 1, 123456789, tok));
	CHECK(idgen_mask_token_malformed(tok, strlen(tok), &at) == IDGEN_MASK_NOT_MALFORMED);
	CHECK(idgen_mask_token_malformed(tok, strlen(tok) - 1, &at) == IDGEN_MASK_BAD_LENGTH);
	CHECK(idgen_mask_token_malformed("", 0, &at) == IDGEN_MASK_BAD_LENGTH);
	for (i = 0; i < IDGEN_MASK_TOKEN64_CHARS; i++)
	{
		for (k = 0; bad[k]; k++)
		{
			memcpy(buf, tok, IDGEN_MASK_TOKEN64_CHARS + 1);
			buf[i] = bad[k];
			CHECK(idgen_mask_token_malformed(buf, IDGEN_MASK_TOKEN64_CHARS, &at) == IDGEN_MASK_BAD_DIGIT);
			CHECK(at == i);
		}
	}
	/* 20 characters carry 100 bits for 96: a last digit with padding set */
	memcpy(buf, tok, IDGEN_MASK_TOKEN64_CHARS + 1);
	buf[IDGEN_MASK_TOKEN64_CHARS - 1] = 'z';
	CHECK(idgen_mask_token_malformed(buf, IDGEN_MASK_TOKEN64_CHARS, &at) == IDGEN_MASK_BAD_LAST_DIGIT);
	CHECK(at == IDGEN_MASK_TOKEN64_CHARS - 1);
	idgen_mask_token128(secret, 1, (const uint8_t *) "0123456789abcdef", tok);
	CHECK(idgen_mask_token_malformed(tok, strlen(tok), &at) == IDGEN_MASK_NOT_MALFORMED);
}

int
main(void)
{
	test_siphash_vectors();
	test_known_answers();
	test_permutation64();
	test_permutation128();
	test_tokens();
	test_malformed();
	test_malformed_reason();
	test_base32();
	return unit_finish("test_mask");
}
