/*
 * fuzz_uuid.c - libFuzzer target for UUID text and the 128-bit layout
 *
 * Text: the input's bytes, as they are and once more pulled toward the
 * UUID alphabet (see toward_alphabet), go to idgen_parse_uuid.  Its verdict
 * must match ref_parse below, a second reading of the grammar written
 * straight from PostgreSQL's documented uuid input:
 *
 *     uuid  := body | '{' body '}'
 *     body  := group ('-'? group){7}        group := 4 hex digits, any case
 *
 * and nothing else: no spaces, no prefix, no doubled or stray hyphen.  On
 * OK both readings give the same 16 bytes, idgen_format_uuid writes them
 * as canonical lowercase 8-4-4-4-12 text in exactly 37 bytes, and that text
 * parses back to the same bytes.
 *
 * Layout: the input's first 16 bytes (0-padded) go to idgen_uuid7_decompose;
 * the fields are in range, and composing them gives the 16 bytes back with
 * version 7 and variant 10 written in, so a v7 input comes back unchanged.
 */
#include <string.h>

#include "fuzz.h"
#include "idtext.h"
#include "uuid7.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* longest text looked at; a UUID in braces is 38 bytes */
#define MAX_TEXT 128

static int
ref_hex(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return 10 + (c - 'a');
	if (c >= 'A' && c <= 'F')
		return 10 + (c - 'A');
	return -1;
}

/* the grammar above, group by group; returns 1 and the bytes if it parses */
static int
ref_parse(const uint8_t *t, size_t len, uint8_t out[16])
{
	const uint8_t *body = t;
	size_t		body_len = len;
	size_t		k = 0;
	int			group;
	int			nibbles = 0;

	if (len > 0 && t[0] == '{')
	{
		if (len < 2 || t[len - 1] != '}')
			return 0;
		body = t + 1;
		body_len = len - 2;
	}
	for (group = 0; group < 8; group++)
	{
		int			d;

		if (group > 0 && k < body_len && body[k] == '-')
			k++;
		for (d = 0; d < 4; d++)
		{
			int			v;

			if (k >= body_len || (v = ref_hex(body[k])) < 0)
				return 0;
			if (nibbles % 2 == 0)
				out[nibbles / 2] = (uint8_t) (v << 4);
			else
				out[nibbles / 2] |= (uint8_t) v;
			nibbles++;
			k++;
		}
	}
	return k == body_len;
}

/*
 * Bytes of the UUID alphabet stay; any other byte becomes one of a few
 * likely ones (hex digits, hyphens, braces, and some near misses), so the
 * fuzzer reaches well-formed and almost well-formed text often.
 */
static void
toward_alphabet(const uint8_t *in, size_t len, uint8_t *out)
{
	static const char others[16] = {
		'0', 'a', '5', 'F', '-', '{', '}', '9', 'B', '-', 'c', '\0', ' ', 'g', '-', 'E'
	};
	size_t		i;

	for (i = 0; i < len; i++)
		out[i] = (ref_hex(in[i]) >= 0 || in[i] == '-' || in[i] == '{' || in[i] == '}')
			? in[i] : (uint8_t) others[in[i] % 16];
}

static void
check_text(const uint8_t *t, size_t len)
{
	static const char lower[] = "0123456789abcdef";
	uint8_t		got[16];
	uint8_t		want[16];
	uint8_t		again[16];
	char	   *buf;
	int			ok;
	int			i;
	int			n;
	IdgenParseResult r;

	memset(got, 0x5A, sizeof(got));
	r = idgen_parse_uuid((const char *) t, len, got);
	ok = ref_parse(t, len, want);
	FUZZ_ASSERT(r == IDGEN_PARSE_OK || r == IDGEN_PARSE_SYNTAX);
	FUZZ_ASSERT((r == IDGEN_PARSE_OK) == ok);
	if (!ok)
		return;
	FUZZ_ASSERT(memcmp(got, want, 16) == 0);

	/* exactly the 37 bytes idtext.h asks for, so ASan sees any overrun */
	buf = malloc(37);
	FUZZ_ASSERT(buf != NULL);
	idgen_format_uuid(got, buf);
	FUZZ_ASSERT(buf[36] == '\0');
	for (i = 0, n = 0; i < 36; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
			FUZZ_ASSERT(buf[i] == '-');
		else
		{
			FUZZ_ASSERT(buf[i] == lower[n % 2 == 0 ? got[n / 2] >> 4 : got[n / 2] & 15]);
			n++;
		}
	}
	memset(again, 0xA5, sizeof(again));
	FUZZ_ASSERT(idgen_parse_uuid(buf, 36, again) == IDGEN_PARSE_OK);
	FUZZ_ASSERT(memcmp(again, got, 16) == 0);
	free(buf);
}

static void
check_layout(const uint8_t *data, size_t size)
{
	uint8_t		in[IDGEN_UUID7_LEN] = {0};
	uint8_t		want[IDGEN_UUID7_LEN];
	uint8_t		out[IDGEN_UUID7_LEN];
	IdgenUuid7Fields f;
	IdgenUuid7Fields back;

	memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
	idgen_uuid7_decompose(in, &f);
	FUZZ_ASSERT(f.unix_ms >= 0 && f.unix_ms <= IDGEN_UUID7_MAX_UNIX_MS);
	FUZZ_ASSERT(f.node < (UINT32_C(1) << IDGEN_UUID7_NODE_BITS));
	FUZZ_ASSERT(f.epoch >= 0 && f.epoch <= 15);
	FUZZ_ASSERT(f.random < (UINT64_C(1) << IDGEN_UUID7_RANDOM_BITS));

	idgen_uuid7_compose(&f, out);
	FUZZ_ASSERT(idgen_uuid7_is_v7(out));
	memcpy(want, in, sizeof(want));
	want[6] = (uint8_t) (0x70 | (want[6] & 0x0F));
	want[8] = (uint8_t) (0x80 | (want[8] & 0x3F));
	FUZZ_ASSERT(memcmp(out, want, sizeof(out)) == 0);
	if (idgen_uuid7_is_v7(in))
		FUZZ_ASSERT(memcmp(out, in, sizeof(out)) == 0);
	FUZZ_ASSERT(idgen_uuid7_is_v7(in) ==
				((in[6] >> 4) == 7 && (in[8] >> 6) == 2));

	/* and the fields survive another lap */
	idgen_uuid7_decompose(out, &back);
	FUZZ_ASSERT(back.unix_ms == f.unix_ms && back.node == f.node &&
				back.epoch == f.epoch && back.random == f.random);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		near[MAX_TEXT];
	size_t		len = size < MAX_TEXT ? size : MAX_TEXT;

	check_text(data, size);
	toward_alphabet(data, len, near);
	check_text(near, len);
	check_layout(data, size);
	return 0;
}
