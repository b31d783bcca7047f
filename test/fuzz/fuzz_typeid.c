/*
 * fuzz_typeid.c - libFuzzer target for TypeID text (src/typeid.c)
 *
 * Text: the input's bytes, as they are and once more pulled toward the
 * TypeID alphabet (see toward_alphabet), go to idgen_typeid_parse.  Its
 * verdict must match ref_parse below, a second reading of the grammar in
 * typeid.h that decodes the suffix arithmetically (value * 32 + digit in
 * 128 bits, refusing a carry out of the top) instead of bit by bit.  On
 * success both give the same prefix and bytes, and idgen_typeid_format
 * writes exactly the input back: a TypeID has one spelling.
 *
 * Format: the first 16 bytes are a UUID and the rest, pulled toward
 * [a-z_], a prefix; when the prefix is valid the TypeID written parses
 * back to both, and an invalid one is refused by both functions alike.
 */
#include <string.h>

#include "fuzz.h"
#include "typeid.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TEXT 128

static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

static int
ref_digit(uint8_t c)
{
	const char *p;

	if (c == '\0')
		return -1;
	p = strchr(alphabet, c);
	return p == NULL ? -1 : (int) (p - alphabet);
}

static int
ref_prefix_ok(const uint8_t *p, size_t len)
{
	size_t		i;

	if (len == 0)
		return 1;
	if (len > 63 || p[0] == '_' || p[len - 1] == '_')
		return 0;
	for (i = 0; i < len; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || p[i] == '_'))
			return 0;
	return 1;
}

static int
ref_parse(const uint8_t *t, size_t len, size_t *plen, uint8_t out[16])
{
	const uint8_t *sep = NULL;
	const uint8_t *s;
	uint64_t	hi = 0;
	uint64_t	lo = 0;
	size_t		i;

	for (i = 0; i < len; i++)
		if (t[i] == '_')
			sep = t + i;
	if (sep == t)
		return 0;
	*plen = sep == NULL ? 0 : (size_t) (sep - t);
	if (!ref_prefix_ok(t, *plen))
		return 0;
	s = sep == NULL ? t : sep + 1;
	if ((size_t) (t + len - s) != 26)
		return 0;
	for (i = 0; i < 26; i++)
	{
		int			d = ref_digit(s[i]);

		if (d < 0 || (hi >> 59) != 0)
			return 0;
		hi = (hi << 5) | (lo >> 59);
		lo = (lo << 5) | (uint64_t) d;
	}
	for (i = 0; i < 8; i++)
	{
		out[i] = (uint8_t) (hi >> (56 - 8 * i));
		out[8 + i] = (uint8_t) (lo >> (56 - 8 * i));
	}
	return 1;
}

/*
 * Bytes of the alphabet and '_' stay; any other byte becomes one of a few
 * likely ones (digits, letters, the excluded i l o u, upper case, '_').
 */
static void
toward_alphabet(const uint8_t *in, size_t len, uint8_t *out)
{
	static const char others[16] = {
		'0', '7', '8', 'z', '_', 'a', 'i', 'l', 'o', 'u', 'A', '_', '-', '\0', 'q', '_'
	};
	size_t		i;

	for (i = 0; i < len; i++)
		out[i] = (ref_digit(in[i]) >= 0 || in[i] == '_')
			? in[i] : (uint8_t) others[in[i] % 16];
}

static void
check_text(const uint8_t *t, size_t len)
{
	uint8_t		got[16];
	uint8_t		want[16];
	size_t		plen = 999;
	size_t		want_plen = 998;
	const char *why;
	int			ok;
	char	   *buf;
	size_t		n = 0;

	memset(got, 0x5A, sizeof(got));
	why = idgen_typeid_parse((const char *) t, len, &plen, got);
	ok = ref_parse(t, len, &want_plen, want);
	FUZZ_ASSERT((why == NULL) == ok);
	if (!ok)
	{
		FUZZ_ASSERT(why[0] != '\0');
		return;
	}
	FUZZ_ASSERT(plen == want_plen);
	FUZZ_ASSERT(memcmp(got, want, 16) == 0);

	/* exactly the bytes typeid.h asks for, so ASan sees any overrun */
	buf = malloc(IDGEN_TYPEID_MAX_LEN + 1);
	FUZZ_ASSERT(buf != NULL);
	FUZZ_ASSERT(idgen_typeid_format((const char *) t, plen, got, buf, &n) == NULL);
	FUZZ_ASSERT(n == len && memcmp(buf, t, len) == 0 && buf[n] == '\0');
	free(buf);
}

static void
check_format(const uint8_t *data, size_t size)
{
	uint8_t		u[16] = {0};
	uint8_t		prefix[MAX_TEXT];
	uint8_t		back[16];
	size_t		plen = size > 16 ? size - 16 : 0;
	size_t		got_plen = 0;
	char	   *buf;
	size_t		n = 0;
	const char *why;
	size_t		i;

	memcpy(u, data, size < 16 ? size : 16);
	if (plen > MAX_TEXT)
		plen = MAX_TEXT;
	for (i = 0; i < plen; i++)
		prefix[i] = data[16 + i] % 32 < 26 ? (uint8_t) ('a' + data[16 + i] % 32)
			: data[16 + i] % 32 < 30 ? '_' : data[16 + i];
	buf = malloc(IDGEN_TYPEID_MAX_LEN + 1);
	FUZZ_ASSERT(buf != NULL);
	why = idgen_typeid_format((const char *) prefix, plen, u, buf, &n);
	FUZZ_ASSERT((why == NULL) == ref_prefix_ok(prefix, plen));
	FUZZ_ASSERT((why == NULL) ==
				(idgen_typeid_check_prefix((const char *) prefix, plen) == NULL));
	if (why == NULL)
	{
		FUZZ_ASSERT(n == plen + (plen > 0) + 26 && buf[n] == '\0');
		FUZZ_ASSERT(ref_digit((uint8_t) buf[n - 26]) <= 7);
		FUZZ_ASSERT(idgen_typeid_parse(buf, n, &got_plen, back) == NULL);
		FUZZ_ASSERT(got_plen == plen && memcmp(buf, prefix, plen) == 0);
		FUZZ_ASSERT(memcmp(back, u, 16) == 0);
	}
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		near[MAX_TEXT];
	size_t		len = size < MAX_TEXT ? size : MAX_TEXT;

	check_text(data, size);
	toward_alphabet(data, len, near);
	check_text(near, len);
	check_format(data, size);
	return 0;
}
