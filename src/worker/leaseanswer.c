/*
 * leaseanswer.c - what a registry's answer tells the node (leaseanswer.h)
 */
#include "worker.h"

#include "mb/pg_wchar.h"
#include "port/pg_bitutils.h"

#include "audit.h"
#include "clockwatch.h"
#include "adt/sql_epoch.h"
#include "leaseanswer.h"
#include "registry.h"

int64
answer_int(const char *s)
{
	char	   *end;
	long long	v;

	if (s == NULL)
		elog(ERROR, "idgen: unexpected NULL from the registry");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		elog(ERROR, "idgen: unexpected number from the registry: \"%s\"", s);
	return (int64) v;
}

/*
 * snprintf cuts a long text at a byte count, which can fall inside a
 * character of a name it quotes; text that is not valid in the database
 * encoding must not reach idgen_status(), the registry or the audit queue,
 * so cut back to the last whole character.
 */
void
answer_clip(char *buf)
{
	int			len = strlen(buf);

	buf[pg_mbcliplen(buf, len, len)] = '\0';
}

/*
 * Compare the node's clock with the registry's over the round trip that
 * just ended.  registry_ms is NULL when the registry did not say.
 */
void
answer_note_skew(IdgenWorker *w, int64 sent, int64 received, const char *registry_ms)
{
	IdgenSkew	skew;
	bool		was = w->skewed;

	if (registry_ms == NULL)
	{
		idgen_publish_registry_answer(false, 0, w->incarnation);
		w->have_skew = false;
		w->skewed = false;
		return;
	}
	idgen_skew_estimate(sent, received, answer_int(registry_ms), &skew);
	clockwatch_confirm_by_registry(w, &skew);
	w->have_skew = skew.uncertainty_ms != PG_INT64_MAX;
	w->skew = skew;
	idgen_publish_registry_answer(w->have_skew, skew.offset_ms, w->incarnation);
	w->skewed = idgen_skew_exceeds(&skew, idgen_max_skew_ms);
	if (w->skewed)
		snprintf(w->skew_reason, sizeof(w->skew_reason),
				 "this node's clock is %lld ms %s the registry's (give or take %lld ms); idgen.max_skew is %d ms",
				 (long long) (skew.offset_ms < 0 ? -skew.offset_ms : skew.offset_ms),
				 skew.offset_ms < 0 ? "behind" : "ahead of",
				 (long long) skew.uncertainty_ms, idgen_max_skew_ms);
	if (w->skewed && !was)
	{
		ereport(WARNING,
				(errmsg("idgen: stopped issuing: %s", w->skew_reason)));
		audit_queue(w, "clock_skew", w->skew_reason);
	}
	else if (!w->skewed && was)
	{
		char		detail[160];

		snprintf(detail, sizeof(detail),
				 "this node's clock is within %d ms of the registry's again (offset %lld ms)",
				 idgen_max_skew_ms, (long long) skew.offset_ms);
		ereport(LOG, (errmsg("idgen: %s; issuing resumes", detail)));
		audit_queue(w, "clock_skew_cleared", detail);
	}
}

/*
 * The registry's layout epochs, read in the lease's own transaction after
 * its lease statement: a layout scheduled meanwhile (which waits for, or
 * makes wait, that statement's row locks) is seen.
 */
void
answer_load_epochs(IdgenEpochList *list)
{
	RegistryRows *rows;
	IdgenEpoch	epochs[IDGEN_MAX_EPOCHS + 1];
	int			i;

	rows = registry_exec("SELECT version, " SQL_MS("start_time") ", " SQL_MS("epoch_start") ", "
						 "region_bits, worker_bits, seq_bits FROM idgen.epoch ORDER BY version",
						 0, NULL);
	if (rows->ncols != 6 || rows->nrows < 1 || rows->nrows > IDGEN_MAX_EPOCHS)
		elog(ERROR, "idgen: the registry's idgen.epoch has %d rows of %d columns",
			 rows->nrows, rows->ncols);
	for (i = 0; i < rows->nrows; i++)
	{
		int			c;

		for (c = 0; c < 6; c++)
			if (registry_value(rows, i, c) == NULL)
				elog(ERROR, "idgen: the registry's idgen.epoch has a NULL in row %d", i + 1);
		epochs[i].version = (int) answer_int(registry_value(rows, i, 0));
		epochs[i].start_unix_ms = answer_int(registry_value(rows, i, 1));
		epochs[i].layout.origin_unix_ms = answer_int(registry_value(rows, i, 2));
		epochs[i].layout.region_bits = (int) answer_int(registry_value(rows, i, 3));
		epochs[i].layout.worker_bits = (int) answer_int(registry_value(rows, i, 4));
		epochs[i].layout.seq_bits = (int) answer_int(registry_value(rows, i, 5));
		epochs[i].boundary = 0;
	}
	idgen_epochs_from_rows(list, epochs, rows->nrows);
}

/*
 * Does the node's block fit the layout in force now and every one scheduled
 * after it?  If not, says why in *reason.  (The registry checks this too,
 * when it leases.)
 */
bool
answer_block_fits(IdgenWorker *w, const IdgenEpochList *list, int first_worker,
		   char *reason, size_t reason_len)
{
	int64		now = idgen_wall_unix_ms();
	IdgenLayout narrowest = idgen_epochs_at(list, now)->layout;
	const char *problem;

	idgen_epochs_min_bits(list, now, &narrowest.region_bits, &narrowest.worker_bits);
	problem = idgen_node_check(&narrowest, w->region, first_worker,
							   pg_leftmost_one_pos32((uint32) w->worker_count));
	if (problem == NULL)
		return true;
	snprintf(reason, reason_len,
			 "the layouts from now on (at narrowest %d region and %d worker bits): %s (region %d, workers %d-%d)",
			 narrowest.region_bits, narrowest.worker_bits, problem, w->region,
			 first_worker, first_worker + w->worker_count - 1);
	return false;
}

/*
 * The registry's incarnation, as an answer named it (R8, docs/concepts.md):
 * a change is logged and audited, and the node goes on only through
 * renewals of its own rows, which need the rows at its owner and
 * generation anyway.  An incarnation that comes back after another one
 * answered means two registries answer at once: returns false, with why in
 * *reason.
 */
bool
answer_note_incarnation(IdgenWorker *w, const char *incarnation, char *reason,
				 size_t reason_len)
{
	char		detail[256];

	if (incarnation == NULL || strcmp(incarnation, w->incarnation) == 0)
		return true;
	if (w->prev_incarnation[0] && strcmp(incarnation, w->prev_incarnation) == 0)
	{
		snprintf(reason, reason_len,
				 "two registries answer at once: the registry (%s) answered as incarnation %s, then %s, then %s again (a registry split brain)",
				 registry_display(), incarnation, w->incarnation, incarnation);
		answer_clip(reason);
		return false;
	}
	if (w->incarnation[0])
	{
		snprintf(detail, sizeof(detail),
				 "the registry (%s) is a new incarnation: %s, was %s",
				 registry_display(), incarnation, w->incarnation);
		answer_clip(detail);
		ereport(LOG, (errmsg("idgen: %s", detail)));
		audit_queue(w, "registry_incarnation_changed", detail);
		strlcpy(w->prev_incarnation, w->incarnation, sizeof(w->prev_incarnation));
	}
	strlcpy(w->incarnation, incarnation, sizeof(w->incarnation));
	return true;
}

/* two registries answered: stop at once, and say so */
void
answer_split_brain(IdgenWorker *w, const char *reason)
{
	idgen_publish_lease_state(IDGEN_STATE_FENCED, reason);
	w->have_lease = false;
	ereport(WARNING, (errmsg("idgen: node fenced: %s", reason)));
	audit_queue(w, "registry_split_brain", reason);
}
