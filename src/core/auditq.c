/*
 * auditq.c - length-prefixed audit records; see auditq.h
 */
#include "auditq.h"

#include <string.h>

static void
put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char) (v >> 24);
	p[1] = (unsigned char) (v >> 16);
	p[2] = (unsigned char) (v >> 8);
	p[3] = (unsigned char) v;
}

static uint32_t
get_u32(const unsigned char *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

size_t
idgen_auditq_record_size(size_t action_len, size_t detail_len)
{
	if ((uint64_t) action_len > UINT32_MAX || (uint64_t) detail_len > UINT32_MAX)
		return 0;
	/* subtracting first: the sum itself could wrap where size_t is small */
	if (action_len > SIZE_MAX - IDGEN_AUDITQ_OVERHEAD ||
		detail_len > SIZE_MAX - IDGEN_AUDITQ_OVERHEAD - action_len)
		return 0;
	return IDGEN_AUDITQ_OVERHEAD + action_len + detail_len;
}

size_t
idgen_auditq_encode(char *dst, const char *action, size_t action_len,
					const char *detail, size_t detail_len)
{
	size_t		size = idgen_auditq_record_size(action_len, detail_len);
	unsigned char *p = (unsigned char *) dst;

	if (size == 0)
		return 0;
	*p++ = IDGEN_AUDITQ_MARK;
	put_u32(p, (uint32_t) action_len);
	p += 4;
	/* memcpy wants valid pointers even for no bytes: an empty field may be NULL */
	if (action_len > 0)
		memcpy(p, action, action_len);
	p += action_len;
	put_u32(p, (uint32_t) detail_len);
	p += 4;
	if (detail_len > 0)
		memcpy(p, detail, detail_len);
	return size;
}

/*
 * One field at *at of the size bytes at base.  Every comparison is against
 * what is left, never a sum that could pass the end.
 */
static int
read_field(const unsigned char *base, size_t size, size_t *at,
		   const char **field, size_t *field_len)
{
	uint32_t	n;

	if (size - *at < 4)
		return 0;
	n = get_u32(base + *at);
	*at += 4;
	if (n > size - *at)
		return 0;
	*field = (const char *) (base + *at);
	*field_len = n;
	*at += n;
	return 1;
}

IdgenAuditqResult
idgen_auditq_next(const char *buf, size_t len, size_t *pos, IdgenAuditRecord *rec)
{
	const unsigned char *base = (const unsigned char *) buf;
	size_t		at = *pos;
	IdgenAuditRecord r;

	if (at >= len)
		return at == len ? IDGEN_AUDITQ_END : IDGEN_AUDITQ_MALFORMED;
	if (base[at] != IDGEN_AUDITQ_MARK)
		return IDGEN_AUDITQ_MALFORMED;
	at++;
	if (!read_field(base, len, &at, &r.action, &r.action_len) ||
		!read_field(base, len, &at, &r.detail, &r.detail_len))
		return IDGEN_AUDITQ_MALFORMED;
	*rec = r;
	*pos = at;
	return IDGEN_AUDITQ_RECORD;
}

long
idgen_auditq_count(const char *buf, size_t len)
{
	size_t		pos = 0;
	long		n = 0;
	IdgenAuditRecord rec;
	IdgenAuditqResult r;

	while ((r = idgen_auditq_next(buf, len, &pos, &rec)) == IDGEN_AUDITQ_RECORD)
		n++;
	return r == IDGEN_AUDITQ_END ? n : -1;
}
