/*
 * clockpace.h - how far the node follows its wall clock forward
 *
 * Pure C, no PostgreSQL headers.  A wall clock that jumps ahead (an NTP or
 * VM-host mistake) and comes back would, if followed, stamp IDs in the
 * future and then make the node refuse until the clock caught up with
 * them, for as long as the jump was: the logical clock never goes back.
 * So the node issues by its wall clock only up to what a monotonic clock
 * vouches for:
 *
 *     issue_ms = min(wall_ms, boot_ms + trusted_offset_ms + IDGEN_PACE_SLACK_MS)
 *
 * where boot_ms is CLOCK_BOOTTIME (monotonic, counting suspend) and
 * trusted_offset_ms the difference wall - boot the node trusts.  The tiny
 * drift between the clocks is followed at once.  A step forward is followed
 * once it is confirmed: it lasted idgen.clock_jump_confirm, the registry's
 * clock (another machine's) agrees with the new reading, the new reading
 * is no later than what the node has already issued at (following it then
 * moves nothing), or the clock it steps away from was provably behind: the
 * node had issued further ahead of it than a batch may borrow (a restart
 * with the clock behind, put right by NTP).  Until then the node issues on the monotonic clock, which
 * keeps counting real time, so a jump that comes back costs nothing.
 *
 * A step back is used at once (the minimum above takes the wall clock),
 * but the trusted offset keeps its old value until the step has lasted as
 * long: a clock that steps back and is put right again is followed back up
 * at once, as nothing was issued past the old reading.
 *
 * The background worker is the only writer of the trusted offset; it
 * observes the clocks every 100 ms through idgen_pace_observe().
 */
#ifndef IDGEN_CLOCKPACE_H
#define IDGEN_CLOCKPACE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * How far the wall clock may run ahead of the monotonic clock's account
 * before it counts as a step.  The kernel slews both clocks alike (only a
 * step moves one against the other), so this only has to absorb reading
 * the two clocks at slightly different moments.
 */
#define IDGEN_PACE_SLACK_MS 20

typedef enum IdgenPaceEvent
{
	IDGEN_PACE_STEADY = 0,		/* nothing new */
	IDGEN_PACE_STEP_SEEN,		/* a step forward, not followed yet */
	IDGEN_PACE_STEP_CONFIRMED,	/* the step lasted: followed from now on */
	IDGEN_PACE_STEP_FOLLOWED,	/* followed at once: it costs nothing */
	IDGEN_PACE_STEP_WITHDRAWN,	/* the clock came back before it was confirmed */
	IDGEN_PACE_BACK_ACCEPTED	/* a step back lasted: the new normal */
} IdgenPaceEvent;

typedef struct IdgenPace
{
	int64_t		trusted_offset_ms;	/* wall - monotonic, as trusted */
	int64_t		ahead_offset_ms;	/* the unconfirmed step's offset */
	int64_t		ahead_since_ms; /* monotonic ms it was first seen; -1: none */
	int64_t		behind_since_ms;	/* the same for a step back; -1: none */
} IdgenPace;

extern void idgen_pace_init(IdgenPace *pace, int64_t trusted_offset_ms);

/*
 * One look at both clocks.  issued_ms is the latest wall time the node has
 * issued at (-1: none), lead_ms how far ahead of the clock a batch may
 * borrow (idgen.max_drift), confirm_after_ms how long a step must last to
 * be taken as the new normal.
 */
extern IdgenPaceEvent idgen_pace_observe(IdgenPace *pace, int64_t wall_ms,
										 int64_t mono_ms, int64_t issued_ms,
										 int64_t lead_ms,
										 int64_t confirm_after_ms);

/* An outside clock agrees with the wall clock now: follow it at once. */
extern bool idgen_pace_confirm(IdgenPace *pace, int64_t wall_ms, int64_t mono_ms);

/* The last wall reading that may be issued at, at monotonic time mono_ms. */
static inline int64_t
idgen_pace_limit(int64_t trusted_offset_ms, int64_t mono_ms)
{
	return mono_ms + trusted_offset_ms + IDGEN_PACE_SLACK_MS;
}

static inline int64_t
idgen_paced_ms(int64_t wall_ms, int64_t mono_ms, int64_t trusted_offset_ms)
{
	int64_t		limit = idgen_pace_limit(trusted_offset_ms, mono_ms);

	return wall_ms < limit ? wall_ms : limit;
}

#endif							/* IDGEN_CLOCKPACE_H */
