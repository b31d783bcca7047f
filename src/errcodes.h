/*
 * errcodes.h - the SQLSTATEs of idgen's refusals
 *
 * A refusal's code tells the caller what to do about it, so clients can
 * act on the class alone (in PL/pgSQL, WHEN SQLSTATE 'IR000' catches the
 * whole class):
 *
 *   IR...   retry soon: the node is waiting for the clock or for a lease,
 *           and resumes by itself
 *   IA...   an operator must act: the node was stopped, or cannot issue
 *           until its settings, its clock or its layout are fixed
 *   25006   never on this node: a standby, which holds no lease.  It is
 *           the code PostgreSQL itself gives nextval() and every other
 *           write on a standby, so clients that already route 25006 to the
 *           primary need nothing new.
 *
 * The SQL standard leaves classes beginning with 5-9 or I-Z to
 * implementations.  PostgreSQL uses 5x, P0, XX and (on the client side) Y,
 * and ODBC uses IM; "IR" and "IA" collide with none.  The caller's own
 * mistakes (a bad batch size, bad input) and a library that is not
 * preloaded keep PostgreSQL's standard codes.  The README's error table
 * lists every code; keep the two in step.
 */
#ifndef IDGEN_ERRCODES_H
#define IDGEN_ERRCODES_H

#include "utils/elog.h"

/* retry soon */
#define IDGEN_ERRCODE_CLOCK_BEHIND		MAKE_SQLSTATE('I','R','0','0','1')
#define IDGEN_ERRCODE_NO_LEASE			MAKE_SQLSTATE('I','R','0','0','2')
#define IDGEN_ERRCODE_HIGH_WATER		MAKE_SQLSTATE('I','R','0','0','3')
#define IDGEN_ERRCODE_LAYOUT_SWITCH		MAKE_SQLSTATE('I','R','0','0','4')
#define IDGEN_ERRCODE_CLOCK_SKEW		MAKE_SQLSTATE('I','R','0','0','5')
/* raised by the registry's SQL only (idgen_lease_worker): kept here for the list */
#define IDGEN_ERRCODE_REGISTRY_HOLD		MAKE_SQLSTATE('I','R','0','0','6')

/* an operator must act */
#define IDGEN_ERRCODE_DISABLED			MAKE_SQLSTATE('I','A','0','0','1')
#define IDGEN_ERRCODE_FENCED			MAKE_SQLSTATE('I','A','0','0','2')
#define IDGEN_ERRCODE_MISCONFIGURED		MAKE_SQLSTATE('I','A','0','0','3')
#define IDGEN_ERRCODE_HORIZON			MAKE_SQLSTATE('I','A','0','0','4')
#define IDGEN_ERRCODE_CLOCK_INVALID		MAKE_SQLSTATE('I','A','0','0','5')
/*
 * raised by the registry's SQL only (idgen_lease_range): no new range until
 * an operator confirms the range floor (idgen_confirm_range_floor); kept
 * here for the list
 */
#define IDGEN_ERRCODE_RANGE_FLOOR		MAKE_SQLSTATE('I','A','0','0','6')

/* never on this node */
#define IDGEN_ERRCODE_RECOVERY			ERRCODE_READ_ONLY_SQL_TRANSACTION

#endif							/* IDGEN_ERRCODES_H */
