/*
 * typeid.c - TypeID text (see typeid.h for the grammar)
 *
 * The suffix is read and written one bit at a time: 130 bits, the first two
 * always zero, the rest the UUID's bits in order.  Slower than shifting
 * words, but plainly the definition, and a TypeID is 26 characters.
 */
#include "typeid.h"

static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

/* the value of a suffix character, or -1: lower case only, no i l o u */
static int
digit_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'h')
		return 10 + (c - 'a');
	switch (c)
	{
		case 'j':
			return 18;
		case 'k':
			return 19;
		case 'm':
			return 20;
		case 'n':
			return 21;
		case 'p':
			return 22;
		case 'q':
			return 23;
		case 'r':
			return 24;
		case 's':
			return 25;
		case 't':
			return 26;
		case 'v':
			return 27;
		case 'w':
			return 28;
		case 'x':
			return 29;
		case 'y':
			return 30;
		case 'z':
			return 31;
		default:
			return -1;
	}
}

/* bit k (0 = most significant) of the 130-bit suffix number */
static int
suffix_bit(const uint8_t uuid[16], int k)
{
	int			b = k - 2;

	if (b < 0)
		return 0;
	return (uuid[b / 8] >> (7 - b % 8)) & 1;
}

const char *
idgen_typeid_check_prefix(const char *prefix, size_t len)
{
	size_t		i;

	if (len == 0)
		return NULL;
	if (len > IDGEN_TYPEID_PREFIX_MAX)
		return "A TypeID prefix has at most 63 characters.";
	for (i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) prefix[i];

		if (!((c >= 'a' && c <= 'z') || c == '_'))
			return "A TypeID prefix has only the lower-case letters a to z and underscores.";
	}
	if (prefix[0] == '_' || prefix[len - 1] == '_')
		return "A TypeID prefix neither starts nor ends with an underscore.";
	return NULL;
}

const char *
idgen_typeid_format(const char *prefix, size_t prefix_len,
					const uint8_t uuid[16], char *out, size_t *out_len)
{
	const char *bad = idgen_typeid_check_prefix(prefix, prefix_len);
	size_t		n = 0;
	int			i;

	if (bad != NULL)
		return bad;
	for (i = 0; i < (int) prefix_len; i++)
		out[n++] = prefix[i];
	if (prefix_len > 0)
		out[n++] = '_';
	for (i = 0; i < IDGEN_TYPEID_SUFFIX_LEN; i++)
	{
		int			v = 0;
		int			j;

		for (j = 0; j < 5; j++)
			v = (v << 1) | suffix_bit(uuid, i * 5 + j);
		out[n++] = alphabet[v];
	}
	out[n] = '\0';
	*out_len = n;
	return NULL;
}

const char *
idgen_typeid_parse(const char *text, size_t len, size_t *prefix_len,
				   uint8_t uuid[16])
{
	const char *suffix;
	size_t		plen = 0;
	size_t		sep = len;
	const char *bad;
	int			i;

	if (len == 0)
		return "A TypeID is not empty.";
	/* the prefix runs up to the last underscore */
	for (i = (int) len - 1; i >= 0; i--)
		if (text[i] == '_')
		{
			sep = (size_t) i;
			break;
		}
	if (sep < len)
	{
		if (sep == 0)
			return "A TypeID without a prefix has no underscore in front.";
		plen = sep;
		bad = idgen_typeid_check_prefix(text, plen);
		if (bad != NULL)
			return bad;
		suffix = text + sep + 1;
		len -= sep + 1;
	}
	else
		suffix = text;

	if (len != IDGEN_TYPEID_SUFFIX_LEN)
		return "A TypeID ends in exactly 26 characters of base32.";
	for (i = 0; i < IDGEN_TYPEID_SUFFIX_LEN; i++)
		if (digit_value((unsigned char) suffix[i]) < 0)
			return "A TypeID's base32 characters are 0-9 and the lower-case letters a-z without i, l, o and u.";
	if (digit_value((unsigned char) suffix[0]) > 7)
		return "A TypeID's base32 part starts with 0-7: it holds 128 bits.";

	for (i = 0; i < 16; i++)
		uuid[i] = 0;
	for (i = 0; i < IDGEN_TYPEID_SUFFIX_LEN; i++)
	{
		int			v = digit_value((unsigned char) suffix[i]);
		int			j;

		for (j = 0; j < 5; j++)
		{
			int			b = i * 5 + j - 2;

			/* the two leading bits are zero: checked above */
			if (b >= 0 && ((v >> (4 - j)) & 1))
				uuid[b / 8] |= (uint8_t) (0x80 >> (b % 8));
		}
	}
	*prefix_len = plen;
	return NULL;
}
