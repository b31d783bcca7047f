/*
 * auditq.h - the background worker's queue of audit records, as bytes
 *
 * Pure C: no PostgreSQL headers, so the encoding can be unit-tested and
 * fuzzed.
 *
 * The worker queues audit records while it cannot write them (the
 * registry is away, or the record is made outside a registry transaction)
 * and writes them at its next registry transaction.  A record's text comes
 * from anywhere: a holder's name read from the registry, an error message,
 * an operator's reason.  So no byte may act as a separator.  Each record is
 * a marker byte and two fields, each field a 4-byte big-endian length and
 * that many bytes:
 *
 *     0xA5 | len(action) | action | len(detail) | detail
 *
 * Any byte value can appear in a field, and a field may be empty.  The
 * decoder reads nothing outside the buffer and refuses, instead of
 * guessing, a buffer that is not a whole number of such records.
 */
#ifndef IDGEN_AUDITQ_H
#define IDGEN_AUDITQ_H

#include <stddef.h>
#include <stdint.h>

/* the first byte of every record: a stray text byte is rarely 0xA5 */
#define IDGEN_AUDITQ_MARK 0xA5
/* the marker and two lengths */
#define IDGEN_AUDITQ_OVERHEAD 9

typedef struct IdgenAuditRecord
{
	const char *action;			/* points into the buffer; not terminated */
	size_t		action_len;
	const char *detail;			/* likewise */
	size_t		detail_len;
} IdgenAuditRecord;

typedef enum IdgenAuditqResult
{
	IDGEN_AUDITQ_END = 0,		/* no bytes left */
	IDGEN_AUDITQ_RECORD,		/* one record read */
	IDGEN_AUDITQ_MALFORMED		/* the bytes at the position are no record */
} IdgenAuditqResult;

/*
 * How many bytes the record of fields this long takes, or 0 when a field
 * is too long for its 4-byte length (or the sum for a size_t).
 */
extern size_t idgen_auditq_record_size(size_t action_len, size_t detail_len);

/*
 * Write one record to dst, which has idgen_auditq_record_size() bytes of
 * room; returns that size, or 0 (writing nothing) when it is 0.
 */
extern size_t idgen_auditq_encode(char *dst,
								  const char *action, size_t action_len,
								  const char *detail, size_t detail_len);

/*
 * Read the record at *pos of buf[0, len).  On IDGEN_AUDITQ_RECORD, rec
 * points into buf and *pos is past the record; otherwise neither changes.
 */
extern IdgenAuditqResult idgen_auditq_next(const char *buf, size_t len,
										   size_t *pos, IdgenAuditRecord *rec);

/* How many records buf[0, len) holds, or -1 when any of it is malformed. */
extern long idgen_auditq_count(const char *buf, size_t len);

#endif							/* IDGEN_AUDITQ_H */
