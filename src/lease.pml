/*
 * lease.pml - the lease protocol as a Promela model, for SPIN
 *
 * scripts/model_check.sh checks it exhaustively in `make test` (`make
 * model` alone): V2 (the protocol being built, DESIGN13 R1-R8, with the fix
 * of RENEWABLE below) must pass, V1 (src/worker/lease.c and sql/install/06_registry.sql today)
 * and V2 with R7's renewal rule as written must fail, which shows the model
 * can fail.  docs/fleets.md "The model" explains it; docs/concepts.md has
 * the rules in a line each.  Change this file
 * together with the code it models:
 *
 *   here                       there
 *   -------------------------  ----------------------------------------------
 *   proctype Node              the background worker (src/bgworker.c loop)
 *     acquire / serve_acq      lease_try_acquire() (src/lease.c) and
 *                              idgen.acquire_node_lease (sql/udfs/acquire_node_lease/)
 *     renew / serve_ren        lease_renew() and idgen.renew_node_lease
 *     release / serve_rel      lease_release() and idgen.release_node_lease
 *     got_grant, got_renewal   what lease.c does with an answer: publishes
 *                              the lease, raises the mark (localmark_raise()),
 *                              or stops (fenced, R8c)
 *     ran out                  lease_ran_out()
 *     advance                  V2: the local durable mark (src/localmark.c)
 *                              raised ahead of demand (R3), by the worker
 *                              or, when it is late, by the generator
 *     issue                    the generator's gates and stamp (src/generate.c,
 *                              the tick floor of src/tick.c, max_drift of
 *                              src/clock.c)
 *     crash                    kill -9 of the node: volatile state lost, the
 *                              local mark kept; the paced clock restarts from
 *                              a wall clock that may have jumped
 *     step back / ahead        wall clock steps: the paced clock follows a step
 *                              back at once, a step ahead only where the node
 *                              has issued already (idgen_pace_observe(),
 *                              src/clockpace.c; idgen.clock_jump_confirm > TTL)
 *   proctype Registry          the registry PostgreSQL: crash, restart, failover
 *                              to a standby, restore from a backup; the copy S
 *                              is the standby (asynchronous) or a backup
 *   P.incrow, P.since          V2 R7 idgen.registry_incarnation
 *   proctype Gateway           -DOUTSIDE: outside holders (idgen-gateway,
 *                              idgen_lease_worker); src/lease_outside.pml
 *
 *   constant  GUC (one tick stands for about idgen.max_drift)
 *   TTL       idgen.lease_ttl
 *   MARGIN    V2: max(ttl/20, 100 ms) (R1); V1: ttl/5 (valid_until())
 *   SKEW      idgen.max_skew (note_skew())
 *   DRIFT     idgen.max_drift
 *   ALLOW     drift allowance idgen.max_drift + idgen.max_skew (R4)
 *   HOLD      R7 hold: lease_ttl + drift allowance
 *   LEAD      V1: localmark_reserve_ms() (max_drift/2), the registry mark's lead; V2:
 *             the local mark's lead.  The V1 hole needs LEAD > the gap.
 *   RSKEW     how far a standby's or a restored registry's clock may be
 *             behind the old primary's (0 unless set)
 *
 * Configurations (-D): V1 or V2; SYNC (V2: grants wait for the synchronous
 * standby, R6; V1 commits with synchronous_commit = local, so its standby
 * may lack any grant); RESTORE (V2: the registry may also be restored from
 * a backup); R7_AS_WRITTEN (V2 with DESIGN13's renewal rule, unsafe);
 * RSKEW=n with or without FIXRSKEW (registry clocks that disagree; the
 * allowance in the renewal rule and in R7's floor, FIXRSKEW_RENEW_ONLY: in
 * the renewal rule only, unsafe); OFFSETS (node clocks apart from the start);
 * LOGICAL (the registry may be restored with pg_restore, which loses R7's
 * row); OUTSIDE (the issuers are gateways: lease_outside.pml names its own
 * switches; with it the copy may also predate the first lease call ever
 * and lack R7's row, unless R7_IN_COPY); BACKUP_HAS_ROW (copies only of a
 * leased row); NO_P1 (P1 unchecked, so that a counterexample ends in the
 * duplicate itself); FENCE (V2: an operator may fence the block once,
 * idgen_fence_worker() of every row, on the primary; a copy taken before
 * it and a failover or restore after it lose the fence and what the
 * primary granted after it) with or without FENCE_KEEPS_END (the fence
 * keeps the fenced lease's end: nobody is granted the block before it).
 *
 * Abstractions: real time is the integer t_now, the monotonic clock of a
 * node is t_now (its rate error is what MARGIN covers); one block of workers,
 * which every issuer wants; an ID is (ms, counter), CMAX counter values per
 * millisecond (1 by default: a full millisecond borrows the next one, up to
 * DRIFT ahead).  A lease call is one step: the request, the registry's
 * transaction and the answer at the same tick; the answer may be lost after
 * the commit.  (A request that waits, or an answer that is late, only makes
 * the node's view of its lease shorter than the registry's, so one step
 * loses no unsafe run.)  Renewals and releases happen at any time, which
 * covers every renewal schedule (R2 is about availability, not safety).
 * Outside generators (the gateway, idgen_lease_worker) are modelled apart,
 * with -DOUTSIDE (lease_outside.pml), without nodes.  A split brain (two
 * registries answering at once, R8e) is left out: a failover happens only
 * once the primary is down.  Layout switches are left out of this model; see
 * docs/fleets.md "The model".
 *
 * Properties:
 *   P1  no block held by two issuers with overlapping validity (real time)
 *   P2  no (block, ms, counter) issued twice.  Checked in the stronger form
 *       the protocol promises, which needs no record of issued IDs: an ID
 *       lies above every ID another issuer issued on the block before (a
 *       successor starts above its predecessors).  -DP2_EXACT checks the
 *       plain form instead, with a witness ID chosen lazily.
 *   P3  an issuer's IDs never go backwards (also across its restarts)
 *
 * The state space is kept small: one registry event (restart, failover or
 * restore) and one copy of the registry's data per run; the runs of
 * scripts/model_check.sh split node crashes and clock steps from registry
 * events, and use TTL = 3 ticks over 6 or 7 ticks of time.
 */

#if !defined(V1) && !defined(V2)
#error define V1 or V2
#endif
#if defined(OUTSIDE) && !defined(V2)
#error OUTSIDE needs V2
#endif
#if defined(FENCE) && (!defined(V2) || defined(OUTSIDE))
#error FENCE needs V2 and nodes
#endif

#ifndef NI
#define NI 2
#endif
#ifndef TMAX
#define TMAX 12
#endif
#ifndef TTL
#define TTL 4
#endif
#define MARGIN 1
#define SKEW 1
#define DRIFT 1
#define ALLOW (DRIFT + SKEW)
#define HOLD (TTL + ALLOW)
#ifndef LEAD
#define LEAD 2
#endif
#ifndef RSKEW
#define RSKEW 0
#endif
/* a node's paced clock is t_now + off, off in -OFFMAX .. OFFMAX */
#define OFFMAX (SKEW + 1)
#ifndef CMAX
#define CMAX 1
#endif
#define GMAX 3
/* since of the first incarnation ever met (NULL): no hold */
#define NOHOLD (-20)
#ifndef REG_EVENTS
#define REG_EVENTS 1
#endif
#ifndef NODE_CRASHES
#define NODE_CRASHES 1
#endif
#ifndef RELEASES
#define RELEASES 1
#endif
#ifndef CLOCK_STEPS
#define CLOCK_STEPS 1
#endif

/* ---- the registry: the block's worker_lease row and R7's row ---- */
typedef Data {
	byte owner;		/* 0: nobody; else issuer + 1 */
	byte gen;
	short lu;		/* lease_until, registry clock */
	short hw;		/* high_water */
	bool rel;		/* V2: released cleanly, hw is the holder's ceiling */
	byte ttl;		/* OUTSIDE: the lease's ttl */
	byte tok;		/* OUTSIDE, MATCH 2: the grant's token */
	byte incrow;	/* registry_incarnation: the incarnation recorded */
	short since;
};

/* a row never leased: OUTSIDE, high_water NULL (its history in the past) */
#ifdef OUTSIDE
#define HW0 NOHOLD
#else
#define HW0 0
#endif
#define CLEAR(a) a.owner = 0; a.gen = 0; a.lu = 0; a.hw = HW0; a.rel = false; \
	a.ttl = 0; a.tok = 0; a.incrow = 0; a.since = 0
#define COPY(a, b) a.owner = b.owner; a.gen = b.gen; a.lu = b.lu; a.hw = b.hw; \
	a.rel = b.rel; a.ttl = b.ttl; a.tok = b.tok; a.incrow = b.incrow; \
	a.since = b.since

Data P;				/* the primary's data */
Data S;				/* the standby's (asynchronous) or a backup's: a prefix of P */
byte inc = 1;		/* the running incarnation (init records it in P and S) */
short roff = 0;		/* registry clock = t_now + roff */
byte reg_events = 0;
bool copied = false;
#ifdef FENCE
bool fenced = false;
#endif

short t_now = 0;

/* ---- the issuers ---- */
bool hl[NI];		/* holds a lease it trusts */
byte gen[NI];
short vu[NI];		/* valid until: monotonic (V2) or paced wall (V1) */
short hw[NI];		/* V1: the registry mark the node issues below */
short floor_[NI];	/* issues above: start_after, the local floor */
bool skewed[NI];
short off[NI];
short lm[NI];		/* durable local mark (V2 R3; V1 the local note) */
short last_ms[NI];	/* volatile: the generator's last stamp */
byte last_ctr[NI];
byte crashes = 0;
byte releases = 0;
byte steps = 0;
byte tok[NI];		/* OUTSIDE, MATCH 2: the token of the grant it holds */

/* ghosts for the properties: they survive crashes */
short g_ms[NI];
byte g_ctr[NI];
bool g_any[NI];
#ifdef P2_EXACT
bool w_set = false;	/* P2 witness: one issued ID, chosen lazily */
short w_ms;
byte w_ctr;
#endif

#define PC(i) (t_now + off[i])
#define RC (t_now + roff)
#define MAX(a, b) ((a) > (b) -> (a) : (b))
#define MIN(a, b) ((a) < (b) -> (a) : (b))
#define ABS(a) ((a) < 0 -> -(a) : (a))

#ifdef V1
#define VALID(i) (hl[i] && PC(i) < vu[i])
#define SENT(i) PC(i)
#else
#define VALID(i) (hl[i] && t_now < vu[i])
#define SENT(i) t_now
#endif

/* P1: at most one issuer holds the block with a validity it trusts */
inline p1_check()
{
#ifdef NO_P1
	skip
#else
	for (x : 0 .. NI - 1) {
		for (y : 0 .. NI - 1) {
			assert(x == y || !(VALID(x) && VALID(y)))
		}
	};
	x = 0; y = 0
#endif
}

/* V2 R7: each lease call notes a changed incarnation, since = now */
inline note_incarnation()
{
#ifdef V2
	if
#if defined(LOGICAL) || defined(OUTSIDE)
	/* no row (after pg_restore, or data copied before the first lease call
	 * ever): 0.6 takes it for the first incarnation ever met and holds
	 * nothing (since NULL); FIRSTHOLD holds then too */
	:: P.incrow == 0 -> P.incrow = inc;
#ifdef FIRSTHOLD
		P.since = RC
#else
		P.since = NOHOLD
#endif
	:: P.incrow != 0 && P.incrow != inc -> P.incrow = inc; P.since = RC
#else
	:: P.incrow != inc -> P.incrow = inc; P.since = RC
#endif
	:: else -> skip
	fi
#else
	skip
#endif
}

/* R7's floor; FIXRSKEW_RENEW_ONLY leaves the allowance out of it (unsafe) */
#if defined(FIXRSKEW) && !defined(FIXRSKEW_RENEW_ONLY)
#define R7_FLOOR (P.since + HOLD + RSKEW)
#else
#define R7_FLOOR (P.since + HOLD)
#endif

/*
 * Which rows a renewal extends.  V1, and R7 as written: any row of the
 * caller's owner and generation, expired or not.  After a failover to a
 * standby that lacks a takeover of an expired row, that revives the old
 * holder while the lost grant's holder issues.  The fix: only a row whose
 * lease has not run out by the registry's clock (less RSKEW with
 * FIXRSKEW); an expired holder leases anew, under R4 and the hold.
 */
#if defined(V1) || defined(R7_AS_WRITTEN)
#define RENEWABLE true
#elif defined(FIXRSKEW)
#define RENEWABLE (P.lu > RC + RSKEW)
#else
#define RENEWABLE (P.lu > RC)
#endif

/*
 * A row a fence freed (no owner, not released, leased before).  With
 * FENCE_KEEPS_END it keeps the fenced lease's end in lu and nobody is
 * granted it before that end on the registry's clock: a copy that lost the
 * fence and the next grant then finds the fenced lease run out, and
 * refuses its holder's renewal (RENEWABLE).  Without it the fence frees the
 * row at once (lu no longer counts), as idgen_fence_worker() does in 0.9.
 */
#if defined(FENCE) && defined(FENCE_KEEPS_END)
#define FENCE_CLOSED (P.owner == 0 && !P.rel && P.gen > 0 && P.lu > RC)
#else
#define FENCE_CLOSED false
#endif

/* idgen.acquire_node_lease: ok says whether it granted */
inline serve_acq(i)
{
	note_incarnation();
	free = (P.owner == 0 || P.rel || P.lu <= RC || P.owner == i + 1) && !FENCE_CLOSED;
#ifdef V2
	if
	:: RC < P.since + HOLD -> free = false		/* R7 hold */
	:: else -> skip
	fi;
#endif
	if
	:: free && P.gen < GMAX ->
#ifdef V1
		sa = P.hw;
		P.owner = i + 1; P.gen++; P.lu = RC + TTL;
		/* high_water = greatest(least(p_high_water, cap), start_after + lead) */
		P.hw = MAX(MIN(PC(i) + LEAD, RC + LEAD + SKEW), sa + LEAD);
#else
		if
		:: P.owner != 0 && !P.rel -> sa = MAX(P.hw, P.lu + ALLOW)	/* R4 */
		:: else -> sa = P.hw
		fi;
		sa = MAX(sa, R7_FLOOR);
		P.owner = i + 1; P.gen++; P.lu = RC + TTL; P.rel = false;
		P.hw = MAX(P.hw, sa);
#endif
		ok = true
	:: else -> ok = false
	fi
}

/* idgen.renew_node_lease */
inline serve_ren(i)
{
	note_incarnation();
	if
	:: P.owner == i + 1 && P.gen == gen[i] && !P.rel && RENEWABLE ->
		P.lu = RC + TTL;
#ifdef V1
		P.hw = MAX(P.hw, MIN(PC(i) + LEAD, RC + LEAD + SKEW));
#else
		P.hw = MAX(P.hw, lm[i]);	/* best effort (R3) */
#endif
		ok = true
	:: else -> ok = false
	fi
}

/* idgen.release_node_lease; the node has stopped, its ceiling is last_ms */
inline serve_rel(i)
{
	note_incarnation();
	if
	:: P.owner == i + 1 && P.gen == gen[i] && !P.rel ->
		P.owner = 0;
#ifdef V2
		P.rel = true;
		P.hw = MAX(P.hw, last_ms[i]);
#endif
	:: else -> skip
	fi
}

inline drop_lease(i)
{
	hl[i] = false; gen[i] = 0; vu[i] = 0; hw[i] = 0; floor_[i] = 0; skewed[i] = false
}

/* the ID (ms, ctr) goes out: check P3 and P2, note it */
inline record_id(i)
{
	/* P3 */
	assert(!g_any[i] || ms > g_ms[i] || (ms == g_ms[i] && ctr > g_ctr[i]));
	/* P2 */
#ifdef P2_EXACT
	assert(!w_set || ms != w_ms || ctr != w_ctr);
	if
	:: !w_set -> w_set = true; w_ms = ms; w_ctr = ctr
	:: true -> skip
	fi;
#else
	for (x : 0 .. NI - 1) {
		assert(x == i || !g_any[x] || ms > g_ms[x] || (ms == g_ms[x] && ctr > g_ctr[x]))
	};
	x = 0;
#endif
	g_any[i] = true; g_ms[i] = ms; g_ctr[i] = ctr;
	last_ms[i] = ms; last_ctr[i] = ctr; floor_[i] = 0;
#ifdef OUTSIDE
	printf("t=%d gateway %d issues (%d, %d)\n", t_now, i, ms, ctr)
#else
	printf("t=%d node %d issues (%d, %d)\n", t_now, i, ms, ctr)
#endif
}

/* one ID: the generator's gates, the tick floor and the counter */
inline issue(i)
{
#ifdef V2
	/* the local durable mark kept ahead of demand: by the background worker,
	 * or by the generator itself when the worker is late (src/localmark.c) */
	lm[i] = MAX(lm[i], PC(i) + LEAD);
#endif
	c = PC(i);
	ms = MAX(c, MAX(last_ms[i], floor_[i] + 1));
	if
	:: ms == last_ms[i] && last_ctr[i] + 1 < CMAX -> ctr = last_ctr[i] + 1
	:: ms == last_ms[i] && last_ctr[i] + 1 >= CMAX -> ms++; ctr = 0
	:: else -> ctr = 0
	fi;
	if
#ifdef V1
	:: ms <= c + DRIFT && ms < hw[i] ->
#else
	:: ms <= c + DRIFT && ms < lm[i] ->
#endif
		record_id(i)
	:: else -> skip	/* refused: waits for the clock or the mark */
	fi;
	c = 0; ms = 0; ctr = 0
}

proctype Node(byte i)
{
	byte x, y, ctr;
	bool free, ok;
	short sa, c, ms, s;
end:
	do
	/* lease_try_acquire(): the answer may be lost after the commit */
	:: atomic { !hl[i] ->
		s = SENT(i);
		serve_acq(i);
		printf("t=%d node %d acquire: granted %d gen %d start_after %d lease_until %d (registry clock %d)\n",
		       t_now, i, ok, P.gen, sa, P.lu, RC);
		if
		:: ok ->
			hl[i] = true; gen[i] = P.gen;
			vu[i] = s + TTL - MARGIN;
			skewed[i] = (ABS(PC(i) - RC) > SKEW);
			floor_[i] = MAX(sa, lm[i]);	/* the local floor outranks */
#ifdef V1
			hw[i] = P.hw; lm[i] = MAX(lm[i], P.hw);
#endif
			printf("t=%d node %d holds gen %d, valid until %d, issues above %d\n",
			       t_now, i, gen[i], vu[i], floor_[i]);
			p1_check()
		:: ok -> printf("t=%d node %d: the answer is lost\n", t_now, i)
		:: else -> skip
		fi;
		ok = false; free = false; sa = 0; s = 0
	}
	/* lease_renew(), at any time */
	:: atomic { hl[i] ->
		s = SENT(i);
		serve_ren(i);
		printf("t=%d node %d renew: ok %d lease_until %d\n", t_now, i, ok, P.lu);
		if
		:: ok ->
			vu[i] = MAX(vu[i], s + TTL - MARGIN);
			skewed[i] = (ABS(PC(i) - RC) > SKEW);
#ifdef V1
			hw[i] = MAX(hw[i], P.hw); lm[i] = MAX(lm[i], P.hw);
#endif
			p1_check()
		:: ok -> skip	/* the answer is lost */
		:: !ok -> drop_lease(i)	/* fenced at once (R8c) */
		fi;
		ok = false; s = 0
	}
	/* lease_release(): stop first, then give the block back with the ceiling */
	:: atomic { hl[i] && releases < RELEASES ->
		releases++;
		hl[i] = false;
		serve_rel(i);
		printf("t=%d node %d releases, ceiling %d\n", t_now, i, last_ms[i]);
		drop_lease(i)
	}
	:: atomic { hl[i] && !skewed[i] && VALID(i) -> issue(i) }
	/* the validity ended unrenewed: lease_ran_out() */
	:: atomic { hl[i] && !VALID(i) -> drop_lease(i) }
	/* kill -9 and restart: the paced clock restarts from the wall clock */
	:: atomic { crashes < NODE_CRASHES ->
		crashes++;
		printf("t=%d node %d crashes\n", t_now, i);
		drop_lease(i);
		last_ms[i] = 0; last_ctr[i] = 0;
		if
		:: off[i] = -OFFMAX
		:: off[i] = 0
		:: off[i] = OFFMAX
		fi
	}
	:: atomic { steps < CLOCK_STEPS && off[i] > -OFFMAX ->
		steps++; off[i]--;
		printf("t=%d node %d clock steps back to offset %d\n", t_now, i, off[i]);
		p1_check() }
	:: atomic { steps < CLOCK_STEPS && off[i] < OFFMAX && PC(i) + 1 <= last_ms[i] ->
		steps++; off[i]++;
		printf("t=%d node %d clock steps ahead to offset %d\n", t_now, i, off[i]) }
	od
}

#ifdef OUTSIDE
#include "lease_outside.pml"
#endif

/* BACKUP_HAS_ROW: the copy has the row leased (a backup taken while the
 * worker was held), so a loss keeps the lease's ttl, if not its renewals */
#ifdef BACKUP_HAS_ROW
#define COPY_OK && P.gen > 0
#define BACKUP_OK && copied
#else
#define COPY_OK
#define BACKUP_OK
#endif

inline new_clock()
{
	if
	:: roff = 0
	:: RSKEW > 0 -> roff = -RSKEW
	fi
}

/*
 * The registry's events.  Each is one step: the registry goes down and
 * comes back at once.  An outage needs no state of its own, because every
 * lease call of a node is optional: a run where no node calls for a while
 * is the outage.
 */
proctype Registry()
{
end:
	do
	/*
	 * Replication to the standby (asynchronous), or a backup taken.  Only
	 * the copy's last state before a failover or restore matters, and a
	 * single copy at any moment reaches every such state: so one copy.
	 */
	:: atomic { !copied && reg_events < REG_EVENTS COPY_OK ->
		copied = true; COPY(S, P);
		printf("t=%d standby/backup copy taken\n", t_now) }
	/* restart: the same data and clock, a new incarnation */
	:: atomic { reg_events < REG_EVENTS -> reg_events++; CLEAR(S); inc++;
		printf("t=%d registry restarted\n", t_now) }
	/* failover to the standby */
	:: atomic { reg_events < REG_EVENTS BACKUP_OK -> reg_events++;
#if defined(V2) && defined(SYNC)
		skip;		/* R6: the standby has every grant */
#else
		COPY(P, S);	/* it may lack the newest writes */
#endif
		CLEAR(S); inc++; new_clock();
		printf("t=%d failover to the standby copy\n", t_now) }
#ifdef FENCE
	/*
	 * idgen_fence_worker() of every row of the block, by an operator, on
	 * the primary: no owner, the generation raised, the mark raised to the
	 * lease's end plus the allowance (the holder may not hear of it and
	 * issue until then).  A copy taken before it lacks it.
	 */
	:: atomic { !fenced && P.owner != 0 && !P.rel && P.gen < GMAX ->
		fenced = true;
		P.hw = MAX(P.hw, P.lu + ALLOW);
		P.owner = 0; P.gen++;
		printf("t=%d operator fences the block: generation %d, mark %d, end %d\n",
		       t_now, P.gen, P.hw, P.lu) }
#endif
#ifdef RESTORE
	/* restore from a backup (S), perhaps on another machine */
	:: atomic { reg_events < REG_EVENTS BACKUP_OK -> reg_events++;
		COPY(P, S); CLEAR(S); inc++; new_clock();
		printf("t=%d restored from the backup copy\n", t_now) }
#endif
#ifdef LOGICAL
	/*
	 * pg_restore of a dump (S) into a new server: idgen.registry_incarnation
	 * is not in it.  The server's own node may have leased before the
	 * restore ran (the restore trigger's comment in sql/install/18_restore.sql: the
	 * extension is created and its node leases before the rows come back),
	 * which recorded the new incarnation as the first one ever (since NULL).
	 * LHOLD: the restore itself starts the hold (the restore trigger).
	 */
	:: atomic { reg_events < REG_EVENTS BACKUP_OK -> reg_events++;
		COPY(P, S); CLEAR(S); inc++; new_clock();
#ifdef LHOLD
		P.incrow = inc; P.since = RC;
#else
		if
		:: P.incrow = 0; P.since = 0
		:: P.incrow = inc; P.since = NOHOLD
		fi;
#endif
		printf("t=%d restored from the logical dump\n", t_now) }
#endif
	od
}

proctype Time()
{
end:
	do
	:: atomic { t_now < TMAX -> t_now++ }
	od
}

init
{
	atomic {
		byte k;
#ifdef OUTSIDE
		/* the copy may be older than the first lease call ever: no R7 row */
		P.incrow = 1; P.since = NOHOLD; S.since = NOHOLD;
		S.incrow = 1;
#ifndef R7_IN_COPY
		if
		:: skip
		:: S.incrow = 0
		fi;
#endif
		P.hw = HW0; S.hw = HW0;
#else
		P.incrow = 1; P.since = -HOLD; S.incrow = 1; S.since = -HOLD;
#endif
#ifdef GWOFF
		/* gateway 0's clock agrees with a new primary's that runs behind */
		if
		:: off[0] = 0
		:: off[0] = -RSKEW
		fi;
#endif
#ifdef OFFSETS
		/* clocks apart from the start (otherwise by steps and restarts) */
		for (k : 0 .. NI - 1) {
			if
			:: off[k] = -1
			:: off[k] = 0
			:: off[k] = 1
			fi
		}
		k = 0;
#endif
		run Registry();
		run Time();
		for (k : 0 .. NI - 1) {
#ifdef OUTSIDE
			run Gateway(k)
#else
			run Node(k)
#endif
		}
	}
}
