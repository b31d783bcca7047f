/*
 * idgen.h - what every PostgreSQL-facing module shares: the settings
 *
 * The GUCs (defined in idgen.c, which _PG_init sets up), the time
 * conversions, and the background worker's registration.  Each module
 * declares its own API in its own header: nodestate.h, clock.h,
 * generate.h, generate_sql.h, epoch_sql.h, decode.h, registry.h, ...
 */
#ifndef IDGEN_H
#define IDGEN_H

#include "compat.h"

#include "datatype/timestamp.h"
#include "fmgr.h"

/* GUCs (idgen.c) */
extern int	idgen_region_id;
extern int	idgen_worker_id;
extern int	idgen_workers_per_node;
extern int	idgen_max_drift_ms;
extern int	idgen_max_clock_wait_ms;
extern int	idgen_test_clock_offset_ms;
extern int	idgen_test_clock_offset_days;
extern int	idgen_horizon_warning_min;
extern char *idgen_database;
extern char *idgen_registry;
extern int	idgen_max_skew_ms;
extern int	idgen_clock_jump_confirm_ms;
extern int	idgen_lease_ttl_ms;
extern int	idgen_lease_wait_ms;
extern int	idgen_request_retention_s;

/* bgworker.c */
extern void idgen_register_bgworker(void);

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

#endif							/* IDGEN_H */
