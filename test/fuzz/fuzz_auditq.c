/*
 * fuzz_auditq.c - libFuzzer target for the lease worker's audit queue
 *
 * The bytes are read two ways:
 *   - as a queue: decoding must stay inside them (they sit in a buffer of
 *     exactly their size, so AddressSanitizer sees any read past it),
 *     every record's fields lie inside the buffer, the count agrees with
 *     walking the records, and a queue that decodes is exactly the
 *     encoding of its records again: there is one way to write a queue;
 *   - as fields: the first byte says where the action ends, the rest is
 *     split there into action and detail, then queued twice with an empty
 *     record between; decoding gives back the same fields, byte for byte.
 */
#include <string.h>

#include "auditq.h"
#include "fuzz.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
as_queue(const uint8_t *data, size_t size)
{
	char	   *buf = malloc(size > 0 ? size : 1);
	char	   *again = malloc(size > 0 ? size : 1);
	size_t		pos = 0;
	size_t		out = 0;
	long		n = 0;
	long		count;
	IdgenAuditRecord rec;
	IdgenAuditqResult r;

	FUZZ_ASSERT(buf != NULL && again != NULL);
	if (size > 0)
		memcpy(buf, data, size);
	count = idgen_auditq_count(buf, size);
	while ((r = idgen_auditq_next(buf, size, &pos, &rec)) == IDGEN_AUDITQ_RECORD)
	{
		size_t		rs = idgen_auditq_record_size(rec.action_len, rec.detail_len);

		FUZZ_ASSERT(rec.action >= buf && rec.action_len <= size &&
					(size_t) (rec.action - buf) <= size - rec.action_len);
		FUZZ_ASSERT(rec.detail >= buf && rec.detail_len <= size &&
					(size_t) (rec.detail - buf) <= size - rec.detail_len);
		FUZZ_ASSERT(rs >= IDGEN_AUDITQ_OVERHEAD && rs <= size - out);
		FUZZ_ASSERT(idgen_auditq_encode(again + out, rec.action, rec.action_len,
										rec.detail, rec.detail_len) == rs);
		out += rs;
		FUZZ_ASSERT(out == pos);
		n++;
	}
	FUZZ_ASSERT(pos <= size);
	if (r == IDGEN_AUDITQ_END)
	{
		FUZZ_ASSERT(pos == size);
		FUZZ_ASSERT(count == n);
		FUZZ_ASSERT(size == 0 || memcmp(again, buf, size) == 0);
	}
	else
	{
		FUZZ_ASSERT(r == IDGEN_AUDITQ_MALFORMED);
		FUZZ_ASSERT(count == -1);
	}
	free(buf);
	free(again);
}

static void
as_fields(const uint8_t *data, size_t size)
{
	const char *action = (const char *) data + (size > 0 ? 1 : 0);
	size_t		rest = size > 0 ? size - 1 : 0;
	size_t		alen = size > 0 ? data[0] % (rest + 1) : 0;
	const char *detail = action + alen;
	size_t		dlen = rest - alen;
	size_t		rs = idgen_auditq_record_size(alen, dlen);
	size_t		len = 2 * rs + IDGEN_AUDITQ_OVERHEAD;
	char	   *buf = malloc(len);
	size_t		at = 0;
	size_t		pos = 0;
	int			i;
	IdgenAuditRecord rec;

	FUZZ_ASSERT(buf != NULL);
	at += idgen_auditq_encode(buf + at, action, alen, detail, dlen);
	at += idgen_auditq_encode(buf + at, "", 0, "", 0);
	at += idgen_auditq_encode(buf + at, action, alen, detail, dlen);
	FUZZ_ASSERT(at == len);
	FUZZ_ASSERT(idgen_auditq_count(buf, len) == 3);
	for (i = 0; i < 3; i++)
	{
		FUZZ_ASSERT(idgen_auditq_next(buf, len, &pos, &rec) == IDGEN_AUDITQ_RECORD);
		if (i == 1)
		{
			FUZZ_ASSERT(rec.action_len == 0 && rec.detail_len == 0);
			continue;
		}
		FUZZ_ASSERT(rec.action_len == alen && rec.detail_len == dlen);
		FUZZ_ASSERT(alen == 0 || memcmp(rec.action, action, alen) == 0);
		FUZZ_ASSERT(dlen == 0 || memcmp(rec.detail, detail, dlen) == 0);
	}
	FUZZ_ASSERT(idgen_auditq_next(buf, len, &pos, &rec) == IDGEN_AUDITQ_END);
	/* one byte short, the last record is cut: refused */
	FUZZ_ASSERT(idgen_auditq_count(buf, len - 1) == -1);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_queue(data, size);
	as_fields(data, size);
	return 0;
}
