/*
 * base.h - what every PostgreSQL-facing module of idgen includes first
 *
 * The compatibility header and the time conversions.  Each module declares
 * its own API, and the settings (GUCs) it defines, in its own header:
 * nodestate.h, clock.h, generate.h, adt/sql_generate.h, registry.h, ...
 */
#ifndef IDGEN_BASE_H
#define IDGEN_BASE_H

#include "compat.h"

#include "datatype/timestamp.h"
#include "fmgr.h"

/* time conversions between Unix milliseconds and timestamptz */
static inline TimestampTz
idgen_unix_ms_to_timestamptz(int64 unix_ms)
{
	return (TimestampTz) ((unix_ms -
						   (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
						   SECS_PER_DAY * 1000) * 1000);
}

static inline int64
idgen_timestamptz_to_unix_ms(TimestampTz ts)
{
	/* to ms first (floor), then shift epochs: no overflow near the limits */
	int64		ms = ts >= 0 ? ts / 1000 : -((-ts + 999) / 1000);

	return ms + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;
}

#endif							/* IDGEN_BASE_H */
