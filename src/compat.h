/*
 * compat.h - every PostgreSQL version difference idgen cares about
 *
 * idgen is tested on PostgreSQL 15 and builds on 15 through 18.  Version
 * guards live here and nowhere else.
 */
#ifndef IDGEN_COMPAT_H
#define IDGEN_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "idgen requires PostgreSQL 15 or later (it uses shmem_request_hook)"
#endif

#include "miscadmin.h"
#include "storage/proc.h"

/* index of this process's PGPROC, for per-backend shared counters */
#if PG_VERSION_NUM >= 170000
#define IDGEN_MY_PROC_INDEX ((int) MyProcNumber)
#else
#define IDGEN_MY_PROC_INDEX (MyProc ? MyProc->pgprocno : -1)
#endif

#endif							/* IDGEN_COMPAT_H */
