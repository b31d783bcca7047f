/*
 * sql_generate.h - the SQL functions that hand out IDs
 */
#ifndef IDGEN_GENERATE_SQL_H
#define IDGEN_GENERATE_SQL_H

#include "postgres.h"

#include "fmgr.h"

#include "generate.h"

/*
 * The set-returning body of every batch function; make_id turns the i-th
 * reserved tick into the Datum of the function's type.
 */
extern Datum idgen_batch_srf(FunctionCallInfo fcinfo, IdgenWidth width,
							 Datum (*make_id) (const IdgenBatch *batch, uint64 i));

/* the same for a batch reserved before (a keyed batch regenerated) */
extern Datum idgen_batch_srf_given(FunctionCallInfo fcinfo, const IdgenBatch *given,
								   Datum (*make_id) (const IdgenBatch *batch, uint64 i));

/* a reserved run of ticks as idgen.batch_request keeps it, from the arguments */
extern void idgen_batch_from_args(FunctionCallInfo fcinfo, IdgenBatch *batch);

/* settings (GUCs) this module defines */
extern int	idgen_request_retention_s;
extern int	idgen_request_max_per_role;
extern void idgen_generate_sql_define_gucs(void);

#endif							/* IDGEN_GENERATE_SQL_H */
