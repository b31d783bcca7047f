/*
 * sql_epoch.c - layout epochs as SQL sees them: the list decoding uses,
 * reading idgen.epoch, and planning a new layout for idgen_schedule_layout()
 *
 * Which list decodes an ID: the node's own, in shared memory, once the
 * background worker has read it from the registry (every database of the
 * node then decodes alike, whichever of them holds the registry); before
 * that, or without shared_preload_libraries, this database's idgen.epoch,
 * cached per backend until a change to the table invalidates it.
 */
#include "base.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"

#include "sql_epoch.h"
#include "nodestate.h"

static IdgenEpochList shared_copy;
static bool shared_copy_valid = false;
static uint32 shared_copy_seq;

static IdgenEpochList local_list;
static bool local_valid = false;
static Oid	local_relid = InvalidOid;
static bool callback_registered = false;

static void
epoch_relcache_callback(Datum arg, Oid relid)
{
	/* InvalidOid: every relation's cache was reset */
	if (relid == InvalidOid || relid == local_relid)
		local_valid = false;
}

/* a column of an idgen.epoch row, which has no NULLs */
static Datum
epoch_column(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("idgen.epoch has a NULL in column %d", col)));
	return d;
}

/*
 * Build *list from idgen.epoch's rows, in version order.  Every row is
 * checked against the rules it was planned by: a hand-edited catalog that
 * breaks them stops the node rather than have it issue under a layout whose
 * IDs could collide.
 */
void
idgen_epochs_from_rows(IdgenEpochList *list, const IdgenEpoch *rows, int nrows)
{
	int			version;
	const char *problem = idgen_epochs_load(list, rows, nrows, &version);

	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("idgen.epoch row %d is not a valid layout epoch: %s",
						version, problem),
				 errdetail("Layout epochs are only added by idgen_schedule_layout(), which keeps every epoch's IDs above the previous epoch's."),
				 errhint("Restore idgen.epoch as idgen_schedule_layout() wrote it.")));
}

/* Read this database's idgen.epoch into *list, with SPI already connected. */
void
idgen_epochs_read_spi(IdgenEpochList *list)
{
	IdgenEpoch	rows[IDGEN_MAX_EPOCHS + 1];
	uint64		i;
	int			rc;

	rc = SPI_execute("SELECT version, start_time, epoch_start, region_bits, worker_bits, seq_bits "
					 "FROM idgen.epoch ORDER BY version", true, IDGEN_MAX_EPOCHS + 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading idgen.epoch failed: %s", SPI_result_code_string(rc));
	if (SPI_processed > IDGEN_MAX_EPOCHS)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("idgen.epoch has more than %d rows", IDGEN_MAX_EPOCHS)));
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		rows[i].version = DatumGetInt32(epoch_column(tup, desc, 1));
		rows[i].start_unix_ms =
			idgen_timestamptz_to_unix_ms(DatumGetTimestampTz(epoch_column(tup, desc, 2)));
		rows[i].layout.origin_unix_ms =
			idgen_timestamptz_to_unix_ms(DatumGetTimestampTz(epoch_column(tup, desc, 3)));
		rows[i].layout.region_bits = DatumGetInt32(epoch_column(tup, desc, 4));
		rows[i].layout.worker_bits = DatumGetInt32(epoch_column(tup, desc, 5));
		rows[i].layout.seq_bits = DatumGetInt32(epoch_column(tup, desc, 6));
		rows[i].boundary = 0;
	}
	idgen_epochs_from_rows(list, rows, (int) SPI_processed);
}

static void
load_local_list(void)
{
	Oid			nsp;
	Oid			relid;

	if (!callback_registered)
	{
		CacheRegisterRelcacheCallback(epoch_relcache_callback, (Datum) 0);
		callback_registered = true;
	}
	nsp = get_namespace_oid("idgen", true);
	relid = OidIsValid(nsp) ? get_relname_relid("epoch", nsp) : InvalidOid;
	if (!OidIsValid(relid))
	{
		/* no catalog here (yet): only the built-in layout can be known */
		idgen_epochs_init(&local_list);
		return;
	}
	local_relid = relid;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	idgen_epochs_read_spi(&local_list);
	SPI_finish();
	local_valid = true;
}

const IdgenEpochList *
idgen_epoch_list(void)
{
	if (idgen_is_loaded())
	{
		uint32		seq = idgen_config_version();

		if (shared_copy_valid && seq == shared_copy_seq)
			return &shared_copy;
		shared_copy_valid = idgen_epochs_copy(&shared_copy, &shared_copy_seq);
		if (shared_copy_valid)
			return &shared_copy;
	}
	if (!local_valid)
		load_local_list();
	return &local_list;
}

/*
 * idgen.epoch_changed(): statement trigger on idgen.epoch.  Inserted rows do
 * not invalidate the relcache by themselves; this makes every backend's
 * cached list notice a new epoch or a restore.
 */
PG_FUNCTION_INFO_V1(idgen_epoch_changed);
Datum
idgen_epoch_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "idgen_epoch_changed: not called as a trigger");
	CacheInvalidateRelcache(trigdata->tg_relation);
	return PointerGetDatum(NULL);
}

/*
 * idgen.plan_layout(applies_at, region_bits, worker_bits, seq_bits): the
 * next epoch as idgen.epoch would store it, placed so that its IDs sort
 * above every earlier one; raises with the reason when no such layout
 * exists.  Reads idgen.epoch, which idgen_schedule_layout() has locked.
 */
PG_FUNCTION_INFO_V1(idgen_plan_layout);
Datum
idgen_plan_layout(PG_FUNCTION_ARGS)
{
	TimestampTz applies_at = PG_GETARG_TIMESTAMPTZ(0);
	int32		region_bits = PG_GETARG_INT32(1);
	int32		worker_bits = PG_GETARG_INT32(2);
	int32		seq_bits = PG_GETARG_INT32(3);
	IdgenEpochList list;
	IdgenEpoch	next;
	const char *problem;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "idgen.plan_layout must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);

	if (TIMESTAMP_NOT_FINITE(applies_at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a layout must apply from a finite time")));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	idgen_epochs_read_spi(&list);
	SPI_finish();

	problem = idgen_epochs_plan(&list, idgen_timestamptz_to_unix_ms(applies_at),
								region_bits, worker_bits, seq_bits, &next);
	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot schedule layout %d/%d/%d (region/worker/sequence bits): %s",
						region_bits, worker_bits, seq_bits, problem),
				 errdetail("A new layout must keep every ID it issues above every ID issued before it, and fit in an idgen128."),
				 errhint("See idgen.epoch for the layouts so far.")));

	values[0] = Int32GetDatum(next.version);
	values[1] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(next.layout.origin_unix_ms));
	values[2] = Int32GetDatum(idgen_layout_time_bits(&next.layout));
	values[3] = TimestampTzGetDatum(idgen_unix_ms_to_timestamptz(idgen_epoch_horizon_unix_ms(&next)));
	values[4] = Int64GetDatum((int64) next.boundary);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
