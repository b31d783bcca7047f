/*
 * gwdecode.h - idgen_decode() outside PostgreSQL, for idgen-gateway's
 * decode endpoint and the idgen command-line tool
 *
 * Pure C, on the extension's own layout, epoch and UUIDv7 code, so an ID
 * decodes the same way in SQL, over HTTP and on the command line.
 */
#ifndef IDGEN_GWDECODE_H
#define IDGEN_GWDECODE_H

#include "epochs.h"
#include "gwrequest.h"

typedef struct GwDecoded
{
	int			is128;
	int			is_v7;			/* a 128-bit value is an idgen128 (UUIDv7) */
	int			has_ts;			/* 0: ts is NULL (a leased range's ID) */
	int64_t		unix_ms;
	int			has_node;		/* 0: region, worker and seq are NULL */
	uint32_t	region;
	uint32_t	worker;
	uint32_t	seq;
	int			epoch;			/* 0 for a leased range's ID */
} GwDecoded;

/*
 * Build *list from idgen.epoch's rows in version order, checked as the
 * extension checks them (adt/sql_epoch.c): row 1 is the built-in layout, each
 * later one follows idgen_epochs_append()'s rules.  Returns NULL, or why
 * the rows are refused (static text, or "row N: ..." in err).
 */
extern const char *gw_epochs_from_rows(IdgenEpochList *list, const IdgenEpoch *rows,
									   int nrows, char *err, size_t err_len);

/*
 * An ID's columns as idgen_decode() gives them with the epochs in list: a
 * 64-bit ID below the range space has no time or node fields and epoch 0;
 * a 128-bit one under an epoch the list does not know has no node fields.
 * A 128-bit value that is not a UUIDv7 is decoded as one anyway with
 * is_v7 = 0 (idgen_decode() refuses it as input).
 */
extern void gw_decode(const IdgenEpochList *list, const GwId *id, GwDecoded *out);

/*
 * A Unix millisecond as timestamptz shows it in UTC, the fraction's
 * trailing zeros dropped: its text "2026-03-01 12:34:56.789+00", and its
 * JSON form (to_json) "2026-03-01T12:34:56.789+00:00".  40 bytes do.
 */
extern void gw_format_unix_ms(int64_t unix_ms, char *buf, size_t len);
extern void gw_format_unix_ms_json(int64_t unix_ms, char *buf, size_t len);

/* the id as text: decimal, or the canonical lower-case UUID; 37 bytes */
extern void gw_format_id(const GwId *id, char *buf, size_t len);

/*
 * {"id": "...", "ts": "...", "region": N, "worker": N, "seq": N,
 * "epoch": N}, ts in its JSON form, NULL fields as null: the decode
 * endpoint's answer, and row_to_json() of idgen_decode() with the id.  Returns the length written as
 * snprintf does (the output is cut, still terminated, when len is short).
 */
extern int	gw_decoded_json(const GwId *id, const GwDecoded *d, char *buf, size_t len);

#endif							/* IDGEN_GWDECODE_H */
