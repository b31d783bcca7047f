/*
 * sql_admin.c - small SQL-callable pieces behind the operator functions
 *
 * The policy (who may call what, what gets audited) lives in the install
 * script's SECURITY DEFINER functions; these only touch shared memory or
 * report facts the SQL cannot get by itself.
 */
#include "base.h"

#include "access/xlog.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "clock.h"
#include "nodestate.h"

/* idgen.clock(): the wall clock idgen issues by, test offset included */
PG_FUNCTION_INFO_V1(idgen_clock);
Datum
idgen_clock(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMPTZ(idgen_unix_ms_to_timestamptz(idgen_wall_unix_ms()));
}

/* idgen.node_sysid(): text, because a uint64 does not fit bigint */
PG_FUNCTION_INFO_V1(idgen_node_sysid);
Datum
idgen_node_sysid(PG_FUNCTION_ARGS)
{
	char		buf[32];

	snprintf(buf, sizeof(buf), UINT64_FORMAT, GetSystemIdentifier());
	PG_RETURN_TEXT_P(cstring_to_text(buf));
}

/* idgen.wake_worker(): let the background worker look at its lease now */
PG_FUNCTION_INFO_V1(idgen_wake_worker);
Datum
idgen_wake_worker(PG_FUNCTION_ARGS)
{
	idgen_wake_bgworker();
	PG_RETURN_VOID();
}

/*
 * idgen.set_disabled(disabled, reason): the shared-memory half of
 * idgen_disable()/idgen_enable().  Enabling also lifts a fence, so the
 * background worker leases a fresh worker id.
 */
PG_FUNCTION_INFO_V1(idgen_set_disabled);
Datum
idgen_set_disabled(PG_FUNCTION_ARGS)
{
	bool		disabled;
	char	   *reason = NULL;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("disabled must not be null")));
	disabled = PG_GETARG_BOOL(0);
	if (!PG_ARGISNULL(1))
		reason = text_to_cstring(PG_GETARG_TEXT_PP(1));

	idgen_require_loaded();
	idgen_set_operator_disabled(disabled, reason);
	if (!disabled && idgen_lease_state() == IDGEN_STATE_FENCED)
		idgen_publish_lease_state(IDGEN_STATE_WAITING_FOR_LEASE,
								  "re-leasing after idgen_enable()");
	idgen_wake_bgworker();
	PG_RETURN_VOID();
}

/*
 * idgen.yield_lease(reason, owner, region, worker, generation): a restore
 * of the registry's rows over the node's running lease stops the node at
 * once (see idgen_yield_lease); false when that lease is not the node's,
 * or idgen is not preloaded.  A NULL owner means whatever the node holds.
 */
PG_FUNCTION_INFO_V1(idgen_yield_lease_sql);
Datum
idgen_yield_lease_sql(PG_FUNCTION_ARGS)
{
	char	   *reason;
	char	   *owner = NULL;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a reason is required to give up a lease")));
	reason = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (!PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
			PG_RETURN_BOOL(false);
		owner = text_to_cstring(PG_GETARG_TEXT_PP(1));
	}
	PG_RETURN_BOOL(idgen_yield_lease(owner, owner ? PG_GETARG_INT32(2) : 0,
									 owner ? PG_GETARG_INT32(3) : 0,
									 owner ? PG_GETARG_INT64(4) : 0, reason));
}
