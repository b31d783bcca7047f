/*
 * clockpace.c - confirming steps of the wall clock (see clockpace.h)
 */
#include "clockpace.h"

void
idgen_pace_init(IdgenPace *pace, int64_t trusted_offset_ms)
{
	pace->trusted_offset_ms = trusted_offset_ms;
	pace->ahead_offset_ms = 0;
	pace->ahead_since_ms = -1;
	pace->behind_since_ms = -1;
}

static void
pace_trust(IdgenPace *pace, int64_t offset)
{
	pace->trusted_offset_ms = offset;
	pace->ahead_since_ms = -1;
	pace->behind_since_ms = -1;
}

IdgenPaceEvent
idgen_pace_observe(IdgenPace *pace, int64_t wall_ms, int64_t mono_ms,
				   int64_t issued_ms, int64_t lead_ms, int64_t confirm_after_ms)
{
	int64_t		offset = wall_ms - mono_ms;
	bool		was_ahead = pace->ahead_since_ms >= 0;

	if (offset > pace->trusted_offset_ms + IDGEN_PACE_SLACK_MS)
	{
		int64_t		trusted_now = idgen_pace_limit(pace->trusted_offset_ms, mono_ms);

		pace->behind_since_ms = -1;

		/*
		 * The node has issued there already, so following moves nothing; or
		 * it issued further ahead of the trusted clock than any batch may
		 * borrow, so that clock is behind for certain and no better a guide.
		 */
		if (issued_ms >= 0 &&
			(wall_ms <= issued_ms + IDGEN_PACE_SLACK_MS ||
			 trusted_now < issued_ms - lead_ms))
		{
			pace_trust(pace, offset);
			return IDGEN_PACE_STEP_FOLLOWED;
		}

		/*
		 * A clock that moves again while a step is pending starts its wait
		 * anew: only a reading that holds still for the whole wait counts.
		 */
		if (!was_ahead ||
			offset > pace->ahead_offset_ms + IDGEN_PACE_SLACK_MS ||
			offset < pace->ahead_offset_ms - IDGEN_PACE_SLACK_MS)
		{
			pace->ahead_offset_ms = offset;
			pace->ahead_since_ms = mono_ms;
			if (!was_ahead)
				return IDGEN_PACE_STEP_SEEN;
		}
		if (mono_ms - pace->ahead_since_ms >= confirm_after_ms)
		{
			pace_trust(pace, offset);
			return IDGEN_PACE_STEP_CONFIRMED;
		}
		return IDGEN_PACE_STEADY;
	}

	if (offset < pace->trusted_offset_ms - IDGEN_PACE_SLACK_MS)
	{
		pace->ahead_since_ms = -1;
		if (pace->behind_since_ms < 0)
			pace->behind_since_ms = mono_ms;
		else if (mono_ms - pace->behind_since_ms >= confirm_after_ms)
		{
			pace_trust(pace, offset);
			return IDGEN_PACE_BACK_ACCEPTED;
		}
		return was_ahead ? IDGEN_PACE_STEP_WITHDRAWN : IDGEN_PACE_STEADY;
	}

	/* drift: the kernel slews both clocks alike, so this stays tiny */
	pace_trust(pace, offset);
	return was_ahead ? IDGEN_PACE_STEP_WITHDRAWN : IDGEN_PACE_STEADY;
}

bool
idgen_pace_confirm(IdgenPace *pace, int64_t wall_ms, int64_t mono_ms)
{
	int64_t		offset = wall_ms - mono_ms;

	if (offset <= pace->trusted_offset_ms + IDGEN_PACE_SLACK_MS)
		return false;
	pace_trust(pace, offset);
	return true;
}
