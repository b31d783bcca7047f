/*
 * regionepochs.c - the root's layout epochs, taken by a regional registry
 *
 * See regionepochs.h.  The copy goes through the root connection
 * (rootlink.c) and this registry's SPI (registry.c), one epoch per local
 * transaction, so an epoch that cannot be taken leaves those before it.
 */
#include "worker.h"

#include "access/xact.h"
#include "libpq-fe.h"
#include "utils/memutils.h"

#include "registry.h"
#include "regionepochs.h"
#include "rootlink.h"

char		epoch_problem[256];
static char epoch_problem_logged[256];

/*
 * G7: the root's layout epochs, taken into this registry's idgen.epoch,
 * from which its node and outside leases pass them on.  The insert trigger
 * (idgen.restore_epoch) skips one this registry has alike and refuses one
 * that differs or starts where its nodes may have issued already.  Answers
 * the newest version the two registries have alike, which a lease or a
 * renewal may name as confirmed, or -1 when they differ (then nothing is
 * confirmed, and the root ends the region leases before its next epoch),
 * with the reason in epoch_problem.  An epoch that could not be taken (a
 * lock timeout in the trigger, or a conflict) ends the walk: the newest
 * taken before it is still confirmed.  Instants travel as text in ISO
 * form with their offset (the root connection's datestyle is ISO), which
 * reads back exactly; an integer times an interval goes through a double
 * and rounds far horizons.
 */

int
regionepochs_sync(void)
{
	PGresult   *res;
	volatile int newest = 1;
	int			i;
	MemoryContext ctx = CurrentMemoryContext;

	epoch_problem[0] = '\0';
	rootlink_error[0] = '\0';
	rootlink_state[0] = '\0';
	if (!rootlink_ensure())
		return -1;
	res = rootlink_run("SELECT version, start_time::text, epoch_start::text, time_bits, "
					   "region_bits, worker_bits, seq_bits, horizon::text "
					   "FROM idgen.epoch WHERE version >= 2 ORDER BY version", 0, NULL);
	if (res == NULL)
		return -1;
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQnfields(res) != 8)
	{
		rootlink_set_error("the root registry refused to list its layout epochs",
					   PQresultErrorMessage(res), PQresultErrorField(res, PG_DIAG_SQLSTATE));
		PQclear(res);
		return -1;
	}
	for (i = 0; i < PQntuples(res); i++)
	{
		const char *p[8];
		int			c;
		volatile bool added = false;
		volatile bool failed = false;

		for (c = 0; c < 8; c++)
			p[c] = PQgetvalue(res, i, c);
		PG_TRY();
		{
			RegistryRows *rows;

			registry_begin("idgen: taking a layout epoch from the root registry");
			rows = registry_exec("WITH added AS (INSERT INTO idgen.epoch (version, start_time, epoch_start, "
								 "time_bits, region_bits, worker_bits, seq_bits, horizon) VALUES ($1::integer, "
								 "$2::timestamptz, $3::timestamptz, $4::integer, $5::integer, $6::integer, "
								 "$7::integer, $8::timestamptz) RETURNING 1) SELECT count(*) FROM added",
								 8, p);
			added = rows->nrows == 1 && strcmp(registry_value(rows, 0, 0), "1") == 0;
			registry_commit();
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(ctx);
			edata = CopyErrorData();
			FlushErrorState();
			AbortCurrentTransaction();
			snprintf(epoch_problem, sizeof(epoch_problem),
					 "the root registry's layout epoch %s was not taken: %s", p[0], edata->message);
			FreeErrorData(edata);
			failed = true;
		}
		PG_END_TRY();
		if (failed)
			break;
		if (added)
			ereport(LOG,
					(errmsg("idgen: took layout epoch %s from the root registry (%s/%s/%s region/worker/sequence bits)",
							p[0], p[4], p[5], p[6])));
		newest = atoi(p[0]);
	}
	PQclear(res);
	if (newest > 0)
	{
		RegistryRows *rows;
		int			here;

		registry_begin("idgen: reading the layout epochs");
		rows = registry_exec("SELECT max(version) FROM idgen.epoch", 0, NULL);
		here = rows->nrows == 1 && registry_value(rows, 0, 0) ?
			atoi(registry_value(rows, 0, 0)) : 1;
		registry_commit();
		if (here > newest)
		{
			snprintf(epoch_problem, sizeof(epoch_problem),
					 "layout epoch %d is here but not on the root registry (scheduled here before it became regional, or lost by the root)",
					 here);
			newest = -1;
		}
	}
	/* a problem that repeats is logged once */
	if (epoch_problem[0] && strcmp(epoch_problem, epoch_problem_logged) != 0)
		ereport(LOG, (errmsg("idgen: %s; no region lease confirms a newer layout", epoch_problem)));
	strlcpy(epoch_problem_logged, epoch_problem, sizeof(epoch_problem_logged));
	return newest;
}
