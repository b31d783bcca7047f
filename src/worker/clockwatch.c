/*
 * clockwatch.c - what the background worker watches of time (clockwatch.h)
 *
 * The pacing itself (which steps of the wall clock IDs follow, and when)
 * is pure C in clockpace.c; this file feeds it the clocks, publishes what
 * it decides to the generator and writes each turn to the log and the
 * audit queue.
 */
#include "worker.h"

#include "utils/guc.h"

#include "audit.h"
#include "clockwatch.h"
#include "settings.h"

/* how often the horizon warning repeats */
#define IDGEN_HORIZON_EVERY_MS (24 * 3600 * 1000)
/* a wall clock that moves this much against the monotonic clock is audited */
#define IDGEN_STEP_BACK_MS 20
#define IDGEN_JUMP_FORWARD_MS 2000

/* what the audit log says of each turn of the pacing, by IdgenPaceEvent */
static const struct
{
	const char *action;
	const char *text;
}			pace_events[] =
{
	[IDGEN_PACE_STEP_SEEN] = {"clock_jump_held",
		"wall clock stepped ahead of the monotonic clock; IDs keep to the monotonic clock until the step lasts idgen.clock_jump_confirm or the registry's clock agrees"},
	[IDGEN_PACE_STEP_CONFIRMED] = {"clock_jump_confirmed",
		"wall clock step forward lasted idgen.clock_jump_confirm; IDs follow it from now on"},
	[IDGEN_PACE_STEP_FOLLOWED] = {"clock_jump_confirmed",
		"wall clock step forward followed at once: the node had issued that far ahead already"},
	[IDGEN_PACE_STEP_WITHDRAWN] = {"clock_jump_withdrawn",
		"wall clock came back before its step forward was confirmed; no ID followed the step"},
	[IDGEN_PACE_BACK_ACCEPTED] = {"clock_step_accepted",
		"wall clock step back lasted idgen.clock_jump_confirm; a step forward to the old reading waits for confirmation again"},
};

/*
 * Look at the wall clock against the monotonic clock.  Steps back and
 * large jumps forward are audited; the pacing (clockpace.h) decides from
 * here which steps forward the generator follows, and tells it.
 */
void
clockwatch_observe(IdgenWorker *w)
{
	int64		raw = idgen_raw_wall_unix_ms();
	int64		wall = raw + idgen_clock_offset_total_ms;
	int64		mono = monotonic_ms();
	int64		pace_mono = idgen_pace_clock_ms();
	int64		issued = idgen_logical_unix_ms();
	int64		trusted_before = w->pace.trusted_offset_ms;
	int64		step;
	IdgenPaceEvent event;
	char		detail[256];

	if (w->last_mono != 0)
	{
		int64		skew = (wall - w->last_wall) - (mono - w->last_mono);

		if (skew <= -IDGEN_STEP_BACK_MS || skew >= IDGEN_JUMP_FORWARD_MS)
		{
			bool		forward = skew > 0;

			idgen_count_clock_jump(forward);
			snprintf(detail, sizeof(detail),
					 "wall clock %s by %lld ms against the monotonic clock",
					 forward ? "jumped forward" : "stepped back",
					 (long long) (forward ? skew : -skew));
			ereport(LOG,
					(errmsg("idgen: %s", detail)));
			audit_queue(w, forward ? "clock_jump_forward" : "clock_step_back", detail);
		}
	}
	w->last_wall = wall;
	w->last_mono = mono;

	/* the logical clock carries the test offset; the pacing sees the raw one */
	if (issued >= 0)
		issued -= idgen_clock_offset_total_ms;
	event = idgen_pace_observe(&w->pace, raw, pace_mono, issued,
							   idgen_max_drift_ms, idgen_clock_jump_confirm_ms);
	idgen_pace_publish(w->pace.trusted_offset_ms);
	if (event == IDGEN_PACE_STEADY)
		return;
	step = (event == IDGEN_PACE_STEP_SEEN ? w->pace.ahead_offset_ms :
			w->pace.trusted_offset_ms) - trusted_before;
	snprintf(detail, sizeof(detail), "%s (step %lld ms, idgen.clock_jump_confirm %d ms)",
			 pace_events[event].text, (long long) step, idgen_clock_jump_confirm_ms);
	ereport(LOG, (errmsg("idgen: %s", detail)));
	audit_queue(w, pace_events[event].action, detail);
}

/*
 * The registry's clock is another machine's: when it agrees with a step of
 * the wall clock that is held back, the step is real, and followed now.
 * offset_ms is the skew measured with the paced clock.
 */
void
clockwatch_confirm_by_registry(IdgenWorker *w, const IdgenSkew *skew)
{
	int64		raw = idgen_raw_wall_unix_ms();
	int64		gap = raw + idgen_clock_offset_total_ms - idgen_wall_unix_ms();
	int64		raw_offset = skew->offset_ms + gap;
	int64		trusted_before = w->pace.trusted_offset_ms;
	char		detail[256];

	if (!w->remote || gap <= IDGEN_PACE_SLACK_MS ||
		skew->uncertainty_ms == PG_INT64_MAX ||
		(raw_offset < 0 ? -raw_offset : raw_offset) + skew->uncertainty_ms > idgen_max_skew_ms)
		return;
	if (!idgen_pace_confirm(&w->pace, raw, idgen_pace_clock_ms()))
		return;
	idgen_pace_publish(w->pace.trusted_offset_ms);
	snprintf(detail, sizeof(detail),
			 "wall clock step of %lld ms forward confirmed by the registry's clock (offset %lld ms); IDs follow it from now on",
			 (long long) (w->pace.trusted_offset_ms - trusted_before),
			 (long long) raw_offset);
	ereport(LOG, (errmsg("idgen: %s", detail)));
	audit_queue(w, "clock_jump_confirmed", detail);
}

/* Once a day, say so when the layout's time field runs out soon. */
void
clockwatch_check_horizon(IdgenWorker *w)
{
	int64		mono = monotonic_ms();
	int64		left_ms;
	char		detail[200];

	if (mono < w->next_horizon_mono)
		return;
	w->next_horizon_mono = mono + IDGEN_HORIZON_EVERY_MS;
	left_ms = idgen_horizon_unix_ms() - idgen_wall_unix_ms();
	if (left_ms >= (int64) idgen_horizon_warning_min * 60000)
		return;
	snprintf(detail, sizeof(detail),
			 "the time field of the current layout runs out in %lld days; past it the node refuses to issue IDs",
			 (long long) (left_ms / 86400000));
	ereport(WARNING,
			(errmsg("idgen: %s", detail),
			 errhint("IDs need a layout with a later horizon; until then this node cannot issue.")));
	audit_queue(w, "horizon_warning", detail);
}
