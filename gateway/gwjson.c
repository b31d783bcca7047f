/*
 * gwjson.c - a strict reader of one flat JSON object (see gwjson.h)
 *
 * Every byte is looked at once, front to back, and never past len: the body
 * need not be NUL-terminated and may hold any bytes.
 */
#include "gwjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idtext.h"

static const GwProblem gw_json_ok = {0, NULL};

#define BAD(why) gw_problem(400, why)

static const char bad_json[] = "the request body is not valid json";
static const char bad_utf8[] = "the request body is not valid utf-8";

typedef struct Reader
{
	const unsigned char *p;
	const unsigned char *end;
} Reader;

size_t
gw_utf8_next(const unsigned char *p, size_t len, uint32_t *cp)
{
	unsigned char b0;
	unsigned char lo = 0x80;
	unsigned char hi = 0xBF;
	size_t		n;
	size_t		i;
	uint32_t	v;

	if (len == 0)
		return 0;
	b0 = p[0];
	if (b0 < 0x80)
	{
		*cp = b0;
		return 1;
	}
	/* the second byte's range rules out overlong forms, surrogates and > U+10FFFF */
	if (b0 >= 0xC2 && b0 <= 0xDF)
	{
		n = 2;
		v = b0 & 0x1F;
	}
	else if (b0 >= 0xE0 && b0 <= 0xEF)
	{
		n = 3;
		v = b0 & 0x0F;
		if (b0 == 0xE0)
			lo = 0xA0;
		else if (b0 == 0xED)
			hi = 0x9F;
	}
	else if (b0 >= 0xF0 && b0 <= 0xF4)
	{
		n = 4;
		v = b0 & 0x07;
		if (b0 == 0xF0)
			lo = 0x90;
		else if (b0 == 0xF4)
			hi = 0x8F;
	}
	else
		return 0;
	if (len < n)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 1; i < n; i++)
	{
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3F);
	}
	*cp = v;
	return n;
}

static void
skip_ws(Reader *r)
{
	while (r->p < r->end &&
		   (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int
hex4(const unsigned char *p, const unsigned char *end, uint32_t *v)
{
	uint32_t	acc = 0;
	int			i;

	if (end - p < 4)
		return 0;
	for (i = 0; i < 4; i++)
	{
		int			d = idgen_hex_value(p[i]);

		if (d < 0)
			return 0;
		acc = (acc << 4) | (uint32_t) d;
	}
	*v = acc;
	return 1;
}

/* a decoded string goes here; past cap only its length is counted */
typedef struct StrOut
{
	char	   *buf;
	size_t		cap;			/* bytes, without the NUL */
	size_t		len;
	int			too_long;
	int			has_nul;
} StrOut;

static void
str_put(StrOut *o, const unsigned char *bytes, size_t n)
{
	if (!o->too_long && o->len + n <= o->cap)
		memcpy(o->buf + o->len, bytes, n);
	else
		o->too_long = 1;
	o->len += n;
}

static void
str_put_cp(StrOut *o, uint32_t cp)
{
	unsigned char b[4];
	size_t		n;

	if (cp == 0)
	{
		o->has_nul = 1;
		return;
	}
	if (cp < 0x80)
	{
		b[0] = (unsigned char) cp;
		n = 1;
	}
	else if (cp < 0x800)
	{
		b[0] = (unsigned char) (0xC0 | (cp >> 6));
		b[1] = (unsigned char) (0x80 | (cp & 0x3F));
		n = 2;
	}
	else if (cp < 0x10000)
	{
		b[0] = (unsigned char) (0xE0 | (cp >> 12));
		b[1] = (unsigned char) (0x80 | ((cp >> 6) & 0x3F));
		b[2] = (unsigned char) (0x80 | (cp & 0x3F));
		n = 3;
	}
	else
	{
		b[0] = (unsigned char) (0xF0 | (cp >> 18));
		b[1] = (unsigned char) (0x80 | ((cp >> 12) & 0x3F));
		b[2] = (unsigned char) (0x80 | ((cp >> 6) & 0x3F));
		b[3] = (unsigned char) (0x80 | (cp & 0x3F));
		n = 4;
	}
	str_put(o, b, n);
}

/* at the opening quote; leaves r after the closing one */
static GwProblem
read_string(Reader *r, StrOut *o)
{
	r->p++;
	for (;;)
	{
		unsigned char c;

		if (r->p >= r->end)
			return BAD(bad_json);
		c = *r->p;
		if (c == '"')
		{
			r->p++;
			break;
		}
		if (c < 0x20)
			return BAD(bad_json);	/* raw control characters must be escaped */
		if (c == '\\')
		{
			uint32_t	cp;

			if (r->end - r->p < 2)
				return BAD(bad_json);
			c = r->p[1];
			r->p += 2;
			switch (c)
			{
				case '"':
				case '\\':
				case '/':
					str_put_cp(o, c);
					continue;
				case 'b':
					str_put_cp(o, '\b');
					continue;
				case 'f':
					str_put_cp(o, '\f');
					continue;
				case 'n':
					str_put_cp(o, '\n');
					continue;
				case 'r':
					str_put_cp(o, '\r');
					continue;
				case 't':
					str_put_cp(o, '\t');
					continue;
				case 'u':
					break;
				default:
					return BAD(bad_json);
			}
			if (!hex4(r->p, r->end, &cp))
				return BAD(bad_json);
			r->p += 4;
			if (cp >= 0xDC00 && cp <= 0xDFFF)
				return BAD(bad_utf8);	/* a low surrogate with no high one */
			if (cp >= 0xD800 && cp <= 0xDBFF)
			{
				uint32_t	low;

				/* a high surrogate must be followed by an escaped low one */
				if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
					!hex4(r->p + 2, r->end, &low) || low < 0xDC00 || low > 0xDFFF)
					return BAD(bad_utf8);
				r->p += 6;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
			}
			str_put_cp(o, cp);
			continue;
		}
		if (c < 0x80)
		{
			str_put(o, r->p, 1);
			r->p++;
		}
		else
		{
			uint32_t	cp;
			size_t		n = gw_utf8_next(r->p, (size_t) (r->end - r->p), &cp);

			if (n == 0)
				return BAD(bad_utf8);
			str_put(o, r->p, n);
			r->p += n;
		}
	}
	return gw_json_ok;
}

static int
is_digit(const Reader *r)
{
	return r->p < r->end && *r->p >= '0' && *r->p <= '9';
}

/* RFC 8259's number grammar; an integer is worked out when it is one */
static GwProblem
read_number(Reader *r, int *is_integer, int64_t *value)
{
	int			negative = 0;
	int			overflow = 0;
	int			integer = 1;
	uint64_t	acc = 0;

	if (r->p < r->end && *r->p == '-')
	{
		negative = 1;
		r->p++;
	}
	if (!is_digit(r))
		return BAD(bad_json);
	if (*r->p == '0')
		r->p++;					/* no leading zeros: "01" fails below */
	else
	{
		while (is_digit(r))
		{
			unsigned	d = *r->p - '0';

			if (acc > (UINT64_C(9223372036854775807) - d) / 10)
				overflow = 1;
			else if (!overflow)
				acc = acc * 10 + d;
			r->p++;
		}
	}
	if (r->p < r->end && *r->p == '.')
	{
		r->p++;
		integer = 0;
		if (!is_digit(r))
			return BAD(bad_json);
		while (is_digit(r))
			r->p++;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E'))
	{
		r->p++;
		integer = 0;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (!is_digit(r))
			return BAD(bad_json);
		while (is_digit(r))
			r->p++;
	}
	*is_integer = integer && !overflow;
	*value = *is_integer ? (negative ? -(int64_t) acc : (int64_t) acc) : 0;
	return gw_json_ok;
}

GwProblem
gw_json_object(const char *body, size_t len, GwJsonField *fields, int nfields)
{
	Reader		r;
	int			i;

	for (i = 0; i < nfields; i++)
	{
		fields[i].present = 0;
		fields[i].kind = 0;
		fields[i].str[0] = '\0';
		fields[i].str_len = 0;
		fields[i].str_too_long = 0;
		fields[i].str_has_nul = 0;
		fields[i].num_is_integer = 0;
		fields[i].num = 0;
	}
	if (len > GW_BODY_MAX)
		return gw_problem(413, "the request body is too large");
	if (body == NULL || len == 0)
		return BAD("the request body is empty");

	r.p = (const unsigned char *) body;
	r.end = r.p + len;
	skip_ws(&r);
	if (r.p >= r.end)
		return BAD("the request body is empty");
	if (*r.p != '{')
		return BAD("the request body is not a json object");
	r.p++;
	skip_ws(&r);
	if (r.p < r.end && *r.p == '}')
		r.p++;
	else
	{
		for (;;)
		{
			char		key[64];
			StrOut		k = {key, sizeof(key) - 1, 0, 0, 0};
			GwJsonField *f = NULL;
			GwProblem	p;

			skip_ws(&r);
			if (r.p >= r.end || *r.p != '"')
				return BAD(bad_json);
			p = read_string(&r, &k);
			if (p.status != 0)
				return p;
			if (!k.too_long && !k.has_nul)
			{
				for (i = 0; i < nfields; i++)
					if (strlen(fields[i].name) == k.len &&
						memcmp(fields[i].name, key, k.len) == 0)
						f = &fields[i];
			}
			if (f == NULL)
				return BAD("the request body has an unknown member");
			if (f->present)
				return BAD("the request body has a member twice");
			f->present = 1;

			skip_ws(&r);
			if (r.p >= r.end || *r.p != ':')
				return BAD(bad_json);
			r.p++;
			skip_ws(&r);
			if (r.p >= r.end)
				return BAD(bad_json);
			if (*r.p == '"')
			{
				StrOut		v = {f->str, GW_NAME_MAX, 0, 0, 0};

				if (!(f->kinds & GW_JSON_STRING))
					return BAD("a member of the request body has the wrong type");
				p = read_string(&r, &v);
				if (p.status != 0)
					return p;
				f->kind = GW_JSON_STRING;
				f->str_len = v.len;
				f->str_too_long = v.too_long;
				f->str_has_nul = v.has_nul;
				f->str[v.too_long ? 0 : v.len] = '\0';
			}
			else if (*r.p == '-' || (*r.p >= '0' && *r.p <= '9'))
			{
				if (!(f->kinds & GW_JSON_NUMBER))
					return BAD("a member of the request body has the wrong type");
				p = read_number(&r, &f->num_is_integer, &f->num);
				if (p.status != 0)
					return p;
				f->kind = GW_JSON_NUMBER;
			}
			else if (*r.p == '{' || *r.p == '[' || *r.p == 't' ||
					 *r.p == 'f' || *r.p == 'n')
				return BAD("a member of the request body has the wrong type");
			else
				return BAD(bad_json);

			skip_ws(&r);
			if (r.p >= r.end)
				return BAD(bad_json);
			if (*r.p == '}')
			{
				r.p++;
				break;
			}
			if (*r.p != ',')
				return BAD(bad_json);
			r.p++;
		}
	}
	skip_ws(&r);
	if (r.p != r.end)
		return BAD("the request body has text after its object");
	return gw_json_ok;
}

/* appends to a bounded buffer, counting what would not fit */
typedef struct Out
{
	char	   *buf;
	size_t		cap;
	size_t		len;
} Out;

static void
out_put(Out *o, const char *s, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		if (o->cap > 0 && o->len + 1 < o->cap)
			o->buf[o->len] = s[i];
		o->len++;
	}
}

/*
 * The character at p (at most len bytes, len > 0) as JSON string text into
 * esc: '"', '\\' and control characters escaped, a byte that does not start
 * valid UTF-8 as \ufffd.  *used: how many bytes of p it stands for.
 * Returns the length of esc.
 */
static size_t
escape_char(const unsigned char *p, size_t len, char esc[6], size_t *used)
{
	uint32_t	cp;
	size_t		n = gw_utf8_next(p, len, &cp);

	if (n == 0)
	{
		*used = 1;
		memcpy(esc, "\\ufffd", 6);
		return 6;
	}
	*used = n;
	if (cp == '"' || cp == '\\')
	{
		esc[0] = '\\';
		esc[1] = (char) cp;
		return 2;
	}
	if (cp < 0x20 || cp == 0x7F)
	{
		uint8_t		byte = (uint8_t) cp;
		char		digits[3];

		idgen_hex_encode(&byte, 1, digits);
		memcpy(esc, "\\u00", 4);
		memcpy(esc + 4, digits, 2);
		return 6;
	}
	memcpy(esc, p, n);
	return n;
}

size_t
gw_json_escape(const char *s, size_t len, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *) s;
	Out			o = {out, cap, 0};

	out_put(&o, "\"", 1);
	while (len > 0)
	{
		char		esc[6];
		size_t		used;
		size_t		n = escape_char(p, len, esc, &used);

		out_put(&o, esc, n);
		p += used;
		len -= used;
	}
	out_put(&o, "\"", 1);
	if (cap > 0)
		out[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len;
}

size_t
gw_json_string(char *buf, size_t len, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		left = strlen(s);

	/* the quotes and the NUL, or nothing */
	if (len + 3 > cap)
		return len;
	buf[len++] = '"';
	while (left > 0)
	{
		char		esc[6];
		size_t		used;
		size_t		n = escape_char(p, left, esc, &used);

		/* whole characters only, and room kept for the closing quote */
		if (len + n + 2 > cap)
			break;
		memcpy(buf + len, esc, n);
		len += n;
		p += used;
		left -= used;
	}
	buf[len++] = '"';
	buf[len] = '\0';
	return len;
}

char *
gw_error_json(const char *code, const char *message)
{
	size_t		cap = 64 + 6 * (strlen(code) + strlen(message));
	char	   *buf = malloc(cap);
	size_t		len;

	if (buf == NULL)
		return NULL;
	len = (size_t) snprintf(buf, cap, "{\"error\": ");
	len = gw_json_string(buf, len, cap, code);
	len += (size_t) snprintf(buf + len, cap - len, ", \"message\": ");
	len = gw_json_string(buf, len, cap, message);
	snprintf(buf + len, cap - len, "}\n");
	return buf;
}
