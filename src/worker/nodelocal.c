/*
 * nodelocal.c - the node's own tables (nodelocal.h)
 *
 * Plain SPI in the worker's own database connection: unlike the lease
 * statements (registry.c), these never travel to a shared registry.
 */
#include "worker.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "nodelocal.h"
#include "registry.h"
#include "utility_hook.h"

/* how often expired retry keys are cleaned out */
#define IDGEN_CLEANUP_MS 60000

/* for the node's own tables, in this instance's idgen.database */
static void
spi_run(const char *sql, int nargs, Oid *types, Datum *values, int expected)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL,
										   false, 0);

	if (rc != expected)
		elog(ERROR, "idgen: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

/* An operator's idgen_disable() lasts across restarts. */
static void
load_disabled(IdgenWorker *w)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	bool		isnull;

	values[0] = CStringGetTextDatum(w->sysid);
	spi_run("SELECT disabled_reason FROM idgen.node_control WHERE node_sysid = $1",
			1, types, values, SPI_OK_SELECT);
	if (SPI_processed > 0)
	{
		char	   *reason = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0],
															  SPI_tuptable->tupdesc,
															  1, &isnull));

		idgen_set_operator_disabled(true, reason);
	}
}

/*
 * The node's own database: the extension is there (created if missing, so
 * a single instance works with defaults alone, and the node's operator
 * functions work in idgen.database of every node of a fleet), and an
 * operator's idgen_disable() is read back.
 */
void
nodelocal_prepare(IdgenWorker *w)
{
	bool		isnull;
	bool		has_node_control = true;

	local_begin("idgen: reading the node's settings");
	/* a session's CREATE EXTENSION idgen waits for ours, or we for it */
	idgen_lock_extension_creation();
	spi_run("SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'idgen'",
			0, NULL, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
	{
		ereport(LOG,
				(errmsg(w->remote ?
						"idgen: creating extension idgen in database \"%s\" for the node's own tables" :
						"idgen: creating extension idgen in database \"%s\" to hold the worker lease table",
						idgen_database)));
		spi_run("CREATE EXTENSION idgen", 0, NULL, NULL, SPI_OK_UTILITY);
		/* in the same transaction: a plain CREATE EXTENSION then names us */
		if (!w->remote)
		{
			Oid			types[1] = {TEXTOID};
			Datum		values[1];

			values[0] = CStringGetTextDatum(psprintf("extension idgen created in database %s by the background worker",
													 idgen_database));
			spi_run("INSERT INTO idgen.audit_log (actor, action, detail) VALUES ('idgen lease worker', 'registry_created', $1)",
					1, types, values, SPI_OK_INSERT);
		}
	}
	else
	{
		char	   *version = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0],
																SPI_tuptable->tupdesc,
																1, &isnull));

		/* 0.1 had no node_control */
		has_node_control = strcmp(version, "0.1") != 0;
	}
	if (has_node_control)
		load_disabled(w);
	local_commit();
}

/*
 * Drop retry keys past their retention.  Other databases with the extension
 * clean theirs a few rows per keyed call (idgen.keyed_batch).
 */
void
nodelocal_clean_expired(IdgenWorker *w)
{
	int64		mono = monotonic_ms();

	if (mono < w->next_cleanup_mono)
		return;
	w->next_cleanup_mono = mono + IDGEN_CLEANUP_MS;
	local_begin("idgen: cleaning expired request keys");
	spi_run("SELECT pg_catalog.to_regclass('idgen.batch_request') IS NOT NULL",
			0, NULL, NULL, SPI_OK_SELECT);
	if (SPI_processed == 1)
	{
		bool		isnull;

		if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull)))
			spi_run("DELETE FROM idgen.batch_request WHERE expires_at < pg_catalog.clock_timestamp()",
					0, NULL, NULL, SPI_OK_DELETE);
	}
	local_commit();
}
