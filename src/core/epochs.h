/*
 * epochs.h - the list of bit layouts an ID can have been issued under
 *
 * Pure C: no PostgreSQL headers, so the rules can be unit-tested and fuzzed.
 *
 * idgen.epoch is append-only.  Epoch k applies from its start time on, and
 * its time field counts from its own epoch start, chosen when it is
 * scheduled so that every ID of epoch k lies above every ID any node can
 * have issued under epoch k-1 (whose IDs stop one millisecond before k's
 * start).  So each epoch owns one contiguous interval of ID values, and the
 * epoch of an ID is found from its value alone: the last epoch whose lowest
 * ID (its boundary) is at or below it.  No bits are spent on it.
 *
 * A 128-bit ID carries its epoch number in a 4-bit field instead, which is
 * why there are at most 15 epochs.
 */
#ifndef IDGEN_EPOCHS_H
#define IDGEN_EPOCHS_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"

#define IDGEN_MAX_EPOCHS 15
/* an idgen128 holds the fields below the time field in 22 bits */
#define IDGEN_MAX_NODE_BITS 22

typedef struct IdgenEpoch
{
	int			version;		/* 1, 2, ... in order of start */
	int64_t		start_unix_ms;	/* IDs are issued under it from here on */
	IdgenLayout layout;			/* layout.origin_unix_ms: its time field's 0 */
	uint64_t	boundary;		/* its lowest ID */
} IdgenEpoch;

typedef struct IdgenEpochList
{
	int			count;
	IdgenEpoch	epochs[IDGEN_MAX_EPOCHS];
} IdgenEpochList;

/* the list every deployment starts with: the built-in layout as epoch 1 */
extern void idgen_epochs_init(IdgenEpochList *list);

/*
 * Append an epoch read back from the catalog, checking that it follows the
 * rules idgen_epochs_plan() made it by (a hand-edited catalog must not be
 * trusted).  Returns NULL, or why the epoch is refused.
 */
extern const char *idgen_epochs_append(IdgenEpochList *list,
									   const IdgenEpoch *epoch);

/*
 * Build *list from the catalog's rows, in version order: row 1 must be the
 * built-in layout, every later one must pass idgen_epochs_append().
 * Returns NULL, or why a row is refused with *bad_version set to its
 * version; *list is then the built-in layout alone.
 */
extern const char *idgen_epochs_load(IdgenEpochList *list, const IdgenEpoch *rows,
									 int nrows, int *bad_version);

/*
 * Work out the next epoch: from start_unix_ms on, region_bits, worker_bits
 * and seq_bits, with the time field's start placed so that its IDs sort
 * above every earlier one.  Fills *out and returns NULL, or returns why such
 * a layout cannot be had.
 */
extern const char *idgen_epochs_plan(const IdgenEpochList *list,
									 int64_t start_unix_ms, int region_bits,
									 int worker_bits, int seq_bits,
									 IdgenEpoch *out);

/* the epoch an ID value belongs to */
extern const IdgenEpoch *idgen_epochs_for_id(const IdgenEpochList *list,
											 uint64_t id);

/* the epoch IDs are issued under at a Unix millisecond (epoch 1 before it) */
extern const IdgenEpoch *idgen_epochs_at(const IdgenEpochList *list,
										 int64_t unix_ms);

/*
 * The Unix millisecond an ID is compared with timestamps at: its time field
 * under its own epoch's layout, but never later than the millisecond before
 * the next epoch starts.  That limit moves only IDs no node can issue (those
 * above the last one the previous layout can have issued before the switch
 * and below the next epoch's boundary), and it makes the millisecond
 * non-decreasing over all ID values: a time range is one range of IDs.
 */
extern int64_t idgen_epochs_compare_ms(const IdgenEpochList *list, uint64_t id);

/*
 * The highest ID whose idgen_epochs_compare_ms() is before unix_ms, as a
 * signed number: -1 when there is none, IDGEN_ID_MAX when every ID is.  So
 * "compare_ms(id) < unix_ms" is exactly "id <= this".
 */
extern int64_t idgen_epochs_last_id_before(const IdgenEpochList *list,
										   int64_t unix_ms);

/* the epoch of a number, or NULL */
extern const IdgenEpoch *idgen_epochs_version(const IdgenEpochList *list,
											  int version);

/* the first Unix millisecond an epoch's time field cannot hold */
static inline int64_t
idgen_epoch_horizon_unix_ms(const IdgenEpoch *epoch)
{
	return epoch->layout.origin_unix_ms + idgen_layout_max_ms(&epoch->layout) + 1;
}

/*
 * The narrowest region and worker fields among the epoch in force at
 * unix_ms and every later one: a node's numbers must fit all of them.
 */
extern void idgen_epochs_min_bits(const IdgenEpochList *list, int64_t unix_ms,
								  int *region_bits, int *worker_bits);

#endif							/* IDGEN_EPOCHS_H */
