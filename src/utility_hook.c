/*
 * utility_hook.c - CREATE EXTENSION idgen next to the background worker's
 *
 * The background worker creates the extension in idgen.database when it
 * starts, and deployment scripts run CREATE EXTENSION IF NOT EXISTS idgen
 * there right after the server starts.  PostgreSQL's IF NOT EXISTS looks
 * only at committed rows: a session that asks while the worker's own
 * CREATE EXTENSION is still running finds nothing, inserts its row and
 * then fails on pg_extension's unique index (23505).  Two sessions racing
 * each other fail the same way.
 *
 * So every CREATE EXTENSION idgen, the worker's included (its SPI call
 * passes through here too), first takes one transaction lock per database
 * and then looks at the catalog afresh: the second in line waits for the
 * first to commit and then sees its extension, so IF NOT EXISTS skips and
 * a plain CREATE EXTENSION fails with 42710, saying so when the worker made
 * it.  The lock is an advisory lock on a fixed key (it shows in pg_locks),
 * next to the one idgen.lock_registry() takes.  Every other statement
 * passes straight through.
 */
#include "base.h"

#include "catalog/namespace.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "utility_hook.h"
#include "settings.h"

/* one above idgen.lock_registry()'s key */
#define IDGEN_CREATE_LOCK_KEY INT64CONST(7596555481923411969)

static ProcessUtility_hook_type prev_process_utility = NULL;

void
idgen_lock_extension_creation(void)
{
	LOCKTAG		tag;
	uint64		key = (uint64) IDGEN_CREATE_LOCK_KEY;

	/* as pg_advisory_xact_lock(bigint) would */
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (key >> 32), (uint32) key, 1);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);

	/* the catalog as of now, not as of before the wait */
	AcceptInvalidationMessages();
	InvalidateCatalogSnapshot();
}

/*
 * When the background worker created the extension in this database, as
 * its audit row says; NULL when it did not, or the row cannot be read
 * (only a superuser may, and idgen 0.1 has no audit log).
 */
static char *
worker_created_at(void)
{
	char	   *at = NULL;

	if (!superuser())
		return NULL;
	if (SPI_connect() != SPI_OK_CONNECT)
		return NULL;
	/* not read-only: a snapshot taken now sees what the wait waited for */
	if (SPI_execute("SELECT pg_catalog.to_regclass('idgen.audit_log') IS NOT NULL",
					false, 1) == SPI_OK_SELECT &&
		SPI_processed == 1 &&
		strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") == 0 &&
		SPI_execute("SELECT pg_catalog.max(at)::text FROM idgen.audit_log"
					" WHERE action = 'registry_created' AND actor = 'idgen lease worker'",
					false, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		char	   *value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (value != NULL)
			at = MemoryContextStrdup(TopTransactionContext, value);
	}
	SPI_finish();
	return at;
}

static void
create_extension_idgen(CreateExtensionStmt *stmt)
{
	char	   *at;

	idgen_lock_extension_creation();
	if (stmt->if_not_exists || !OidIsValid(get_extension_oid("idgen", true)))
		return;

	/* what PostgreSQL would say, and why it is there already */
	at = idgen_database != NULL && strcmp(get_database_name(MyDatabaseId), idgen_database) == 0 ?
		worker_created_at() : NULL;
	if (at == NULL)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DUPLICATE_OBJECT),
			 errmsg("extension \"%s\" already exists", stmt->extname),
			 errdetail("The idgen background worker created it in this database (idgen.database) at %s.",
					   at),
			 errhint("Use CREATE EXTENSION IF NOT EXISTS idgen: it succeeds whether or not the extension exists.")));
}

static void
idgen_process_utility(PlannedStmt *pstmt, const char *queryString,
					  bool readOnlyTree, ProcessUtilityContext context,
					  ParamListInfo params, QueryEnvironment *queryEnv,
					  DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (IsA(parsetree, CreateExtensionStmt) &&
		strcmp(((CreateExtensionStmt *) parsetree)->extname, "idgen") == 0)
		create_extension_idgen((CreateExtensionStmt *) parsetree);

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

void
idgen_install_utility_hook(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = idgen_process_utility;
}
