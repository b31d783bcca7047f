/*
 * compat.h - every PostgreSQL version difference idgen cares about
 *
 * idgen is built and tested on PostgreSQL 15, 17 and 18 (make test's version
 * layer, scripts/versions.sh); 16 builds with the same guards but has no
 * Debian release to test it on.  Version guards live here and nowhere else.
 */
#ifndef IDGEN_COMPAT_H
#define IDGEN_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "idgen requires PostgreSQL 15 or later (it uses shmem_request_hook)"
#endif

#include "miscadmin.h"
#include "storage/proc.h"

/*
 * 16 moved the varlena macros (VARDATA_ANY, VARSIZE_ANY_EXHDR, ...) out of
 * postgres.h into varatt.h, which postgres.h no longer includes
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 16 declares _PG_init() in fmgr.h (with PGDLLEXPORT); before, the module
 * declares it itself or -Wmissing-prototypes warns
 */
#if PG_VERSION_NUM < 160000
extern void _PG_init(void);
#endif

/*
 * A function that does not return: 18 replaced the postfix
 * pg_attribute_noreturn() with pg_noreturn, which comes before the
 * declaration (C11 _Noreturn).  The older attribute works in front too.
 */
#if PG_VERSION_NUM >= 180000
#define IDGEN_NORETURN pg_noreturn
#else
#define IDGEN_NORETURN pg_attribute_noreturn()
#endif

/* index of this process's PGPROC, for per-backend shared counters */
#if PG_VERSION_NUM >= 170000
#define IDGEN_MY_PROC_INDEX ((int) MyProcNumber)
#else
#define IDGEN_MY_PROC_INDEX (MyProc ? MyProc->pgprocno : -1)
#endif

#endif							/* IDGEN_COMPAT_H */
