/*
 * idgen.h - declarations shared by the PostgreSQL-facing C files
 */
#ifndef IDGEN_H
#define IDGEN_H

#include "compat.h"

#include "datatype/timestamp.h"
#include "fmgr.h"

#include "epochs.h"
#include "layout.h"

/* node states, as idgen_status() names them */
typedef enum IdgenState
{
	IDGEN_STATE_STARTING = 0,
	IDGEN_STATE_ACTIVE,
	IDGEN_STATE_WAITING_FOR_LEASE,
	IDGEN_STATE_DISABLED,
	IDGEN_STATE_FENCED,
	IDGEN_STATE_CLOCK_BEHIND,
	IDGEN_STATE_RECOVERY,
	IDGEN_STATE_CLOCK_SKEW
} IdgenState;

/* GUCs (idgen.c) */
extern int	idgen_region_id;
extern int	idgen_worker_id;
extern int	idgen_workers_per_node;
extern int	idgen_max_drift_ms;
extern int	idgen_max_clock_wait_ms;
extern int	idgen_test_clock_offset_ms;
extern int	idgen_test_clock_offset_days;
extern int64 idgen_clock_offset_total_ms;
extern int	idgen_horizon_warning_min;
extern char *idgen_database;
extern char *idgen_registry;
extern int	idgen_max_skew_ms;
extern int	idgen_clock_jump_confirm_ms;
extern int	idgen_lease_ttl_ms;
extern int	idgen_lease_wait_ms;
extern int	idgen_request_retention_s;

#define IDGEN_OWNER_LEN 192

/* generator.c */
extern void idgen_shmem_request(void);
extern void idgen_shmem_startup(void);
extern bool idgen_is_loaded(void);
extern void idgen_require_loaded(void);
extern int64 idgen_wall_unix_ms(void);
extern int64 idgen_raw_wall_unix_ms(void);
extern int64 idgen_pace_clock_ms(void);
extern int64 idgen_pace_trusted_offset(void);
extern void idgen_pace_publish(int64 trusted_offset_ms);

typedef struct IdgenBatch
{
	uint64		first_tick;
	uint64		count;
	int			counter_bits;
	int			time_shift;
	uint64		node_bits;
	int64		epoch_unix_ms;
	int			epoch_version;	/* the layout epoch the ticks belong to */
} IdgenBatch;

/* which type an ID is made for: they are counted apart */
typedef enum IdgenWidth
{
	IDGEN_WIDTH_64 = 0,
	IDGEN_WIDTH_128
} IdgenWidth;

extern int64 idgen_generate_one(void);
extern void idgen_generate_single(IdgenBatch *batch, IdgenWidth width);
extern void idgen_generate_batch(uint64 count, IdgenBatch *batch, IdgenWidth width);
extern Datum idgen_batch_srf(FunctionCallInfo fcinfo, IdgenWidth width,
							 Datum (*make_id) (const IdgenBatch *batch, uint64 i));

static inline int64
idgen_batch_id(const IdgenBatch *batch, uint64 i)
{
	return (int64) idgen_tick_to_id(batch->first_tick + i, batch->counter_bits,
									batch->time_shift, batch->node_bits);
}

/* a consistent copy of the generator's state for idgen_status() */
typedef struct IdgenStatusSnapshot
{
	IdgenState	state;
	char		reason[256];
	int			region;
	int			first_worker;
	int			worker_count;
	int64		generation;
	int64		lease_until_unix_ms;
	int64		hw_unix_ms;
	char		owner[IDGEN_OWNER_LEN];
	uint64		lease_renewals;
	uint64		lease_failures;
	uint64		fencing_events;
	uint64		clock_jumps_forward;
	uint64		clock_steps_back;
	int64		logical_unix_ms;	/* last issued millisecond, or -1 */
	int64		wall_unix_ms;
	int64		horizon_unix_ms;
	uint64		ids_issued;		/* both widths */
	uint64		ids_issued64;
	uint64		ids_issued128;
	uint64		batches;
	uint64		seq_exhaustions;
	uint64		clock_rollbacks;
	uint64		clock_waits;
	uint64		clock_wait_ms;
	uint64		clock_refusals;
	bool		have_clock_skew;
	int64		clock_skew_ms;	/* this node's clock minus the registry's */
} IdgenStatusSnapshot;

extern void idgen_status_snapshot(IdgenStatusSnapshot *snap);
extern const char *idgen_state_name(IdgenState state);

/* layout epochs (generator.c keeps the node's copy) */
extern void idgen_publish_epochs(const IdgenEpochList *list);
extern bool idgen_epochs_copy(IdgenEpochList *list, uint32 *seq_out);
extern uint32 idgen_config_version(void);

/* epoch_sql.c: the epochs that decode IDs here */
extern const IdgenEpochList *idgen_epoch_list(void);
extern void idgen_epochs_read_spi(IdgenEpochList *list);
extern void idgen_epochs_from_rows(IdgenEpochList *list, const IdgenEpoch *rows,
								   int nrows);

/* decode.c */
extern const IdgenEpoch *idgen_decode_id(int64 id, IdgenFields *fields);

/* the lease, as the background worker publishes it (generator.c) */
typedef struct IdgenLease
{
	int			first_worker;
	int64		generation;
	int64		lease_until_unix_ms;
	int64		valid_until_unix_ms;	/* lease_until less a safety margin */
	int64		hw_unix_ms;		/* durable high-water mark */
	int64		start_after_unix_ms;	/* issue only above this; -1: none */
} IdgenLease;

extern void idgen_publish_lease(const IdgenLease *lease);
extern void idgen_publish_lease_held(const IdgenLease *lease, IdgenState state,
									 const char *reason);
extern void idgen_publish_renewal(int64 lease_until_unix_ms,
								  int64 valid_until_unix_ms, int64 hw_unix_ms);
extern void idgen_publish_lease_state(IdgenState state, const char *reason);
extern bool idgen_yield_lease(const char *owner, int region, int worker,
							  int64 generation, const char *reason);
extern bool idgen_take_yield(int first_worker, int64 generation);
extern IdgenState idgen_lease_state(void);
extern bool idgen_operator_disabled(void);
extern void idgen_set_operator_disabled(bool disabled, const char *reason);
extern bool idgen_config_is_broken(void);
extern void idgen_node_shape(int *region, int *worker_count, int *worker_bits);
extern uint64 idgen_start_token(void);
extern void idgen_set_bgworker(int procno, const char *owner);
extern void idgen_wake_bgworker(void);
extern void idgen_publish_clock_skew(bool known, int64 offset_ms);
extern void idgen_count_lease_failure(void);
extern void idgen_count_clock_jump(bool forward);
extern int64 idgen_logical_unix_ms(void);
extern int64 idgen_hw_wanted_unix_ms(void);
extern int64 idgen_horizon_unix_ms(void);

/* bgworker.c */
extern void idgen_register_bgworker(void);

/* stats.c: counters kept beside the generator's, off its fast path */
extern void idgen_stats_shmem_request(void);
extern void idgen_stats_note_drift(int64 ahead_ms);
extern void idgen_stats_count_collision(void);

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
