/*
 * lease_regions.pml - nested leases (issue 22) as a Promela model, for SPIN
 *
 * Two levels of src/lease.pml's V2 protocol: a root registry leases whole
 * regions to regional registries; a regional registry leases (region,
 * worker) blocks, in regions it holds, to the issuers (nodes, gateways)
 * under it.  scripts/model_check.sh checks it exhaustively in `make test`:
 * the fixed rules must pass, each first-design hole (-DHOLE_...) must fail.
 * docs/regions.md "The model" explains the runs; DESIGN "Regions that stand
 * alone" is the contract.
 *
 *   here                    there (issue 22)
 *   ----------------------  -------------------------------------------------
 *   Root, RP[r]             the root's idgen.region_lease row of region r;
 *     racq / rren / rrel    idgen_lease_region / idgen_renew_region /
 *                           idgen_release_region
 *     root failover         the root promoted from a standby copy RS that may
 *                           lack the newest writes (a region grant)
 *     schedule              idgen_schedule_layout on the root (-DLAYOUT)
 *   Regional(g)             a regional registry: its region leases (rh, rvu,
 *                           rgen, rsa) and its worker_lease rows NR_[g][r]
 *     handoff               idgen_handoff_region: stop granting, wait for
 *                           the granted leases, release with the final mark
 *     regional failover     its Patroni failover to a copy NS[g] that may
 *                           lack node grants; it leases its regions again
 *                           (its owner name survives, so the root lets it)
 *   Issuer(i)               a node or gateway under registry reg_of[i], for
 *                           region want[i], worker 0
 *
 * Time: the integer t_now is real time; every monotonic clock (CLOCK_BOOTTIME
 * of a holder) is t_now, and validity counts from the request:
 * s + ttl - MARGIN (R1).  Registry clocks are t_now too (src/lease.pml's
 * RSKEW runs check a registry clock behind; a region lease has the same
 * rule).  An issuer's wall clock, which stamps IDs, is t_now + off[i], off
 * in -SKEW..SKEW, and an ID may run DRIFT ahead of it; ALLOW (max_drift +
 * max_skew) covers both (R4).  A call is one step; a lost answer is left out
 * here (src/lease.pml checks it: it only shortens the holder's view).  An
 * outage or a cut between a region and the root is a run in which the
 * calls across it are not made, so every cut and every outage is covered.
 *
 * Rules (the fixed model; docs/regions.md names them G1-G7):
 *   G1 a region lease is valid on its holder from the request for
 *      RTTL - MARGIN; the root grants a region only when it is free, released,
 *      or run out on its clock, or to the same owner; renewals by (owner,
 *      generation) of a lease not run out (R2/R8 one level up)
 *   G2 a takeover of a region not released starts above its old end plus
 *      ALLOW; a release leaves its final mark (R4)
 *   G3 the root, after a failover (a new incarnation), grants no region
 *      until RTTL + ALLOW have passed; renewals go on (R7)
 *   G4 a regional registry grants and renews node leases only in a region
 *      it holds, while the region lease is valid, and never past its
 *      validity (the granted ttl is min(NTTL, rvu - now))
 *   G5 a regional registry after its failover grants nothing until
 *      NTTL + ALLOW have passed (R7 at the regional level), and leases its
 *      regions again before it grants
 *   G6 handoff: no new grant or renewal in the region, wait until every
 *      node lease there has ended (or was released), release the region
 *      with the final mark max(hw, lease_until + ALLOW)
 *   G7 (-DLAYOUT) the root refuses a switch at TS unless every live region
 *      lease ends, plus ALLOW, by TS; epochs travel down with each grant
 *      and renewal
 *
 * Holes of the first design (each must fail):
 *   HOLE_GRANT_PAST_REGION  G4 missing: node leases granted and renewed to
 *                           the full NTTL while the region row is there,
 *                           whatever the region lease's validity
 *   HOLE_NO_ROOT_HOLD       G3 missing
 *   HOLE_NO_REGIONAL_HOLD   G5 missing
 *   HOLE_HANDOFF_NO_WAIT    G6 without the wait: released with high_water
 *   HOLE_LAYOUT_NODE_RULE   G7 replaced by the node-level "too soon" rule
 *                           (TS a fixed lead ahead), which a region that
 *                           does not renew in time never hears
 *
 * Properties:
 *   P1  no two issuers hold the same (region, worker) with validities that
 *       overlap in real time
 *   P2  (strong form, as lease.pml) an ID lies above every ID another
 *       issuer issued before in the same ID cell; a cell is (region,
 *       worker) under the layout the ID's millisecond is in (-DLAYOUT: the
 *       new layout maps region r to the cell of region 1 - r, so an issuer
 *       that missed the switch collides with one that applied it)
 *   P3  an issuer's IDs ascend
 *
 * REACH_HANDOFF, REACH_LAYOUT: an assertion that fails once the new owner
 * of a handed-off region issues, or an ID of the new layout is issued, so
 * that a failing run shows the passing run is not vacuous.
 *
 * Configurations: -DROOT_FAILOVER, -DREGIONAL_FAILOVER (both issuers under
 * registry 0, registry 1 idle), -DHANDOFF, -DLAYOUT (registry g owns region
 * g, issuer i is under registry i in region i); none of them: two
 * registries contest region 0, one issuer under each (a region cut off and
 * taken over).
 */

#ifndef TMAX
#define TMAX 8
#endif
#ifndef RTTL
#define RTTL 4
#endif
#ifndef NTTL
#define NTTL 3
#endif
#define MARGIN 1
#define SKEW 1
#define DRIFT 1
#define ALLOW (DRIFT + SKEW)
#define RHOLD (RTTL + ALLOW)
#define NHOLD (NTTL + ALLOW)
/* the switch's lead: above every ID issued already (ALLOW ahead of now) */
#ifndef SWLEAD
#define SWLEAD (ALLOW + 1)
#endif
#define GMAX 4
#define NI 2
#define NG 2
#ifdef LAYOUT
#define NR 2
#else
#define NR 1
#endif
#define NOHOLD (-20)

#define MAX(a, b) ((a) > (b) -> (a) : (b))
#define MIN(a, b) ((a) < (b) -> (a) : (b))

/* a lease row: the root's region_lease or a regional worker_lease */
typedef Row {
	byte owner;		/* 0: nobody; else holder + 1 */
	byte gen;
	short lu;		/* lease_until, the registry's clock */
	short hw;		/* high_water: the floor of the next holder */
	bool rel;		/* released cleanly: hw is the final mark */
};
#define CLEAR(a) a.owner = 0; a.gen = 0; a.lu = 0; a.hw = 0; a.rel = false
#define COPY(a, b) a.owner = b.owner; a.gen = b.gen; a.lu = b.lu; a.hw = b.hw; a.rel = b.rel

short t_now = 0;
bool handed = false;	/* ghost: a handoff has released the region */

/* ---- the root ---- */
Row RP[NR];			/* the primary's region leases */
Row RS[NR];			/* the standby's copy (asynchronous) */
short rsince = NOHOLD;	/* when the running incarnation began (G3) */
bool rcopied = false;
byte root_events = 0;
short ep_ts = 0;		/* -DLAYOUT: the switch's first millisecond; 0: none */

/* ---- the regional registries ---- */
bool rh[NG * NR];		/* holds the region lease (volatile, per primary) */
byte rgen[NG * NR];
short rvu[NG * NR];		/* the region lease's validity, monotonic */
short rsa[NG * NR];		/* the region's floor from the root */
bool rwant[NG * NR];	/* the region is in its idgen.owned_regions */
bool handing[NG * NR];	/* handoff under way */
Row NR_[NG * NR];		/* its worker_lease row of (region, worker 0) */
Row NS[NG * NR];		/* its standby's copy */
short nsince[NG];
bool ncopied = false;
byte reg_events = 0;
byte handoffs = 0;
bool rep[NG];			/* has read the layout epoch */
#define IX(g, r) ((g) * NR + (r))

/* ---- the issuers ---- */
byte reg_of[NI];
byte want[NI];
bool hl[NI];
byte gen[NI];
short vu[NI];
short floor_[NI];
short off[NI];
short last_ms[NI];
bool kn[NI];			/* has read the layout epoch */

/* ghosts: the last ID of each issuer and its cell */
short g_ms[NI];
byte g_cell[NI];
bool g_any[NI];

#define VALID(i) (hl[i] && t_now < vu[i])
#define PC(i) (t_now + off[i])

inline p1_check()
{
	for (x : 0 .. NI - 1) {
		for (y : 0 .. NI - 1) {
			assert(x == y || want[x] != want[y] || !(VALID(x) && VALID(y)))
		}
	};
	x = 0; y = 0
}

/* ---- the root's functions ---- */

/* idgen_lease_region(owner g, region r) */
inline serve_racq(g, r)
{
	free = (RP[r].owner == 0 || RP[r].rel || RP[r].lu <= t_now || RP[r].owner == g + 1);
#ifndef HOLE_NO_ROOT_HOLD
	if
	:: t_now < rsince + RHOLD -> free = false	/* G3 */
	:: else -> skip
	fi;
#endif
	if
	:: free && RP[r].gen < GMAX ->
		if
		:: RP[r].owner != 0 && !RP[r].rel -> sa = MAX(RP[r].hw, RP[r].lu + ALLOW)	/* G2 */
		:: else -> sa = RP[r].hw
		fi;
#ifndef HOLE_NO_ROOT_HOLD
		sa = MAX(sa, rsince + RHOLD);
#endif
		RP[r].owner = g + 1; RP[r].gen++; RP[r].lu = t_now + RTTL;
		RP[r].rel = false; RP[r].hw = sa;
		ok = true
	:: else -> ok = false
	fi
}

/* idgen_renew_region(region r, generation) */
inline serve_rren(g, r)
{
	if
	:: RP[r].owner == g + 1 && RP[r].gen == rgen[IX(g, r)] && !RP[r].rel &&
	   RP[r].lu > t_now ->
		RP[r].lu = t_now + RTTL; ok = true
	:: else -> ok = false
	fi
}

/* ---- a regional registry's functions, for issuer i ---- */

/* how long a node lease granted now may run (G4) */
#ifdef HOLE_GRANT_PAST_REGION
#define REGION_OK(g, r) (rh[IX(g, r)] && !handing[IX(g, r)])
#define NGRANT(g, r) NTTL
#else
#define REGION_OK(g, r) (rh[IX(g, r)] && !handing[IX(g, r)] && t_now < rvu[IX(g, r)])
#define NGRANT(g, r) MIN(NTTL, rvu[IX(g, r)] - t_now)
#endif

inline serve_nacq(i, g, r)
{
	k = IX(g, r);
	free = REGION_OK(g, r) &&
	       (NR_[k].owner == 0 || NR_[k].rel || NR_[k].lu <= t_now || NR_[k].owner == i + 1);
#ifndef HOLE_NO_REGIONAL_HOLD
	if
	:: t_now < nsince[g] + NHOLD -> free = false	/* G5 */
	:: else -> skip
	fi;
#endif
	if
	:: free && NR_[k].gen < GMAX ->
		if
		:: NR_[k].owner != 0 && !NR_[k].rel -> sa = MAX(NR_[k].hw, NR_[k].lu + ALLOW)
		:: else -> sa = NR_[k].hw
		fi;
		sa = MAX(sa, rsa[k]);		/* the region's floor (G2 below) */
#ifndef HOLE_NO_REGIONAL_HOLD
		sa = MAX(sa, nsince[g] + NHOLD);
#endif
		d = NGRANT(g, r);
		NR_[k].owner = i + 1; NR_[k].gen++; NR_[k].lu = t_now + d;
		NR_[k].rel = false; NR_[k].hw = sa;
		ok = true
	:: else -> ok = false
	fi
}

inline serve_nren(i, g, r)
{
	k = IX(g, r);
	if
	:: REGION_OK(g, r) && NR_[k].owner == i + 1 && NR_[k].gen == gen[i] &&
	   !NR_[k].rel && NR_[k].lu > t_now ->
		d = NGRANT(g, r);
		NR_[k].lu = MAX(NR_[k].lu, t_now + d); ok = true
	:: else -> ok = false
	fi
}

/* the ID cell of millisecond ms of issuer i */
/*
 * The ID cell: the worker bits an ID carries and the layout they are read
 * in, which its millisecond decides (-DLAYOUT: before the switch 2r + 0,
 * from it 2b + 1, where b is 1 - r under the new layout, r if the issuer
 * missed the switch and writes the old layout's bits)
 */
#ifdef LAYOUT
#define POST(m) (ep_ts > 0 && (m) >= ep_ts)
#define CELL(i, m) (POST(m) -> (kn[i] -> 2 * (1 - want[i]) + 1 : 2 * want[i] + 1) : 2 * want[i])
#else
#define CELL(i, m) want[i]
#endif

inline issue(i)
{
	c = PC(i);
	ms = MAX(c, MAX(last_ms[i] + 1, floor_[i] + 1));
	if
	:: ms <= c + DRIFT ->
		cell = CELL(i, ms);
		/* P3 */
		assert(!g_any[i] || ms > g_ms[i]);
		/* P2 */
		for (x : 0 .. NI - 1) {
			assert(x == i || !g_any[x] || g_cell[x] != cell || ms > g_ms[x])
		};
		x = 0;
		g_any[i] = true; g_ms[i] = ms; g_cell[i] = cell;
		last_ms[i] = ms;
		printf("t=%d issuer %d issues ms %d in cell %d\n", t_now, i, ms, cell);
		/* witnesses that the runs reach what they are about (must fail) */
#ifdef REACH_HANDOFF
		assert(!handed);	/* the new owner's issuer issues */
#endif
#ifdef REACH_LAYOUT
		assert(!(cell % 2 == 1 && kn[i]));	/* an ID in the new layout */
#endif
		skip
	:: else -> skip
	fi;
	c = 0; ms = 0; cell = 0
}

inline drop_lease(i)
{
	hl[i] = false; gen[i] = 0; vu[i] = 0; floor_[i] = 0
}

proctype Issuer(byte i)
{
	byte x, y, k, g, r, cell;
	bool free, ok;
	short sa, d, c, ms, s;
	g = reg_of[i]; r = want[i];
end:
	do
	:: atomic { !hl[i] ->
		s = t_now;
		serve_nacq(i, g, r);
		if
		:: ok ->
			hl[i] = true; gen[i] = NR_[k].gen;
			vu[i] = s + d - MARGIN;
			floor_[i] = MAX(sa, last_ms[i]);
			kn[i] = kn[i] || rep[g];
			printf("t=%d issuer %d leases region %d from registry %d: gen %d, valid until %d, above %d\n",
			       t_now, i, r, g, gen[i], vu[i], floor_[i]);
			p1_check()
		:: else -> skip
		fi;
		ok = false; free = false; sa = 0; s = 0; d = 0; k = 0
	}
	:: atomic { hl[i] ->
		s = t_now;
		serve_nren(i, g, r);
		if
		:: ok ->
			vu[i] = MAX(vu[i], s + d - MARGIN);
			kn[i] = kn[i] || rep[g];
			printf("t=%d issuer %d renews: valid until %d\n", t_now, i, vu[i]);
			p1_check()
		:: else ->
			printf("t=%d issuer %d renewal refused: stops\n", t_now, i);
			drop_lease(i)
		fi;
		ok = false; s = 0; d = 0; k = 0
	}
#if defined(IDS) && defined(LAYOUT)
	/* only IDs from the switch on can collide here (each region's old
	 * bits have one issuer): the run issues those alone */
	:: atomic { VALID(i) && ep_ts > 0 && PC(i) + DRIFT >= ep_ts -> issue(i) }
#elif defined(IDS)
	:: atomic { VALID(i) -> issue(i) }
#endif
	:: atomic { hl[i] && !VALID(i) -> drop_lease(i) }
	od
}

proctype Regional(byte g)
{
	byte r, k, x;
	bool free, ok;
	short sa, s, mark;
end:
	do
	/* idgen_lease_region: for a region of its own it does not hold */
	:: atomic { (rwant[IX(g, 0)] && !rh[IX(g, 0)]) ||
	            (rwant[IX(g, NR - 1)] && !rh[IX(g, NR - 1)]) ->
		if
		:: rwant[IX(g, 0)] && !rh[IX(g, 0)] -> r = 0
		:: rwant[IX(g, NR - 1)] && !rh[IX(g, NR - 1)] -> r = NR - 1
		fi;
		k = IX(g, r);
		s = t_now;
		serve_racq(g, r);
		if
		:: ok ->
			rh[k] = true; rgen[k] = RP[r].gen; rvu[k] = s + RTTL - MARGIN;
			rsa[k] = sa; rep[g] = rep[g] || ep_ts > 0;
			printf("t=%d registry %d leases region %d: gen %d, valid until %d, above %d\n",
			       t_now, g, r, rgen[k], rvu[k], rsa[k])
		:: else -> skip
		fi;
		ok = false; free = false; sa = 0; s = 0; r = 0; k = 0
	}
	/* idgen_renew_region */
	:: atomic { (rh[IX(g, 0)] && !handing[IX(g, 0)]) ||
	            (rh[IX(g, NR - 1)] && !handing[IX(g, NR - 1)]) ->
		if
		:: rh[IX(g, 0)] && !handing[IX(g, 0)] -> r = 0
		:: rh[IX(g, NR - 1)] && !handing[IX(g, NR - 1)] -> r = NR - 1
		fi;
		k = IX(g, r);
		s = t_now;
		serve_rren(g, r);
		if
		:: ok ->
			rvu[k] = MAX(rvu[k], s + RTTL - MARGIN); rep[g] = rep[g] || ep_ts > 0;
			printf("t=%d registry %d renews region %d: valid until %d\n", t_now, g, r, rvu[k])
		:: else ->
			/* fenced or run out: it stops granting there (the leases it
			 * granted end by the region lease's validity, G4) */
			rh[k] = false;
			printf("t=%d registry %d: renewal of region %d refused\n", t_now, g, r)
		fi;
		ok = false; s = 0; r = 0; k = 0
	}
#ifdef HANDOFF
	/* idgen_handoff_region(0): stop granting */
	:: atomic { rh[IX(g, 0)] && !handing[IX(g, 0)] && handoffs < 1 ->
		handoffs++; handing[IX(g, 0)] = true;
		printf("t=%d registry %d hands region 0 off: no new grants\n", t_now, g) }
	/* ... wait for the granted lease, release with the final mark */
	:: atomic { handing[IX(g, 0)] &&
#ifndef HOLE_HANDOFF_NO_WAIT
		(NR_[IX(g, 0)].owner == 0 || NR_[IX(g, 0)].rel || NR_[IX(g, 0)].lu <= t_now) &&
#endif
		true ->
		k = IX(g, 0);
		mark = MAX(NR_[k].hw, rsa[k]);
#ifndef HOLE_HANDOFF_NO_WAIT
		if
		:: NR_[k].owner != 0 && !NR_[k].rel -> mark = MAX(mark, NR_[k].lu + ALLOW)
		:: else -> skip
		fi;
#endif
		if
		:: RP[0].owner == g + 1 && RP[0].gen == rgen[k] && !RP[0].rel ->
			RP[0].owner = 0; RP[0].rel = true; RP[0].hw = MAX(RP[0].hw, mark)
		:: else -> skip
		fi;
		rh[k] = false; handing[k] = false; rwant[k] = false; handed = true;
		printf("t=%d registry %d releases region 0 with the final mark %d\n", t_now, g, mark);
		mark = 0; k = 0 }
#endif
#ifdef REGIONAL_FAILOVER
	:: atomic { g == 0 && !ncopied && reg_events < 1 ->
		ncopied = true; COPY(NS[IX(g, 0)], NR_[IX(g, 0)]);
		printf("t=%d registry %d standby copy taken\n", t_now, g) }
	:: atomic { g == 0 && reg_events < 1 ->
		reg_events++;
		COPY(NR_[IX(g, 0)], NS[IX(g, 0)]); CLEAR(NS[IX(g, 0)]);
		nsince[g] = t_now;
		/* the new primary has a clock of its own: it leases its regions
		 * again before it grants (its owner name is the same) */
		for (x : 0 .. NR - 1) { rh[IX(g, x)] = false };
		x = 0; rep[g] = false;
		printf("t=%d registry %d fails over to its standby copy\n", t_now, g) }
#endif
	od
}

proctype Root()
{
	byte r, x;
	bool ok;
end:
	do
#ifdef ROOT_FAILOVER
	:: atomic { !rcopied && root_events < 1 ->
		rcopied = true;
		for (x : 0 .. NR - 1) { COPY(RS[x], RP[x]) };
		x = 0;
		printf("t=%d root standby copy taken\n", t_now) }
	:: atomic { root_events < 1 ->
		root_events++;
		for (x : 0 .. NR - 1) { COPY(RP[x], RS[x]); CLEAR(RS[x]) };
		x = 0;
		rsince = t_now;
		printf("t=%d the root fails over to its standby copy\n", t_now) }
#endif
#ifdef LAYOUT
	/* idgen_schedule_layout: a switch SWLEAD ahead */
	:: atomic { ep_ts == 0 && t_now + SWLEAD < TMAX ->
		ok = true;
#ifndef HOLE_LAYOUT_NODE_RULE
		for (x : 0 .. NR - 1) {
			if
			:: RP[x].owner != 0 && !RP[x].rel && RP[x].lu + ALLOW > t_now + SWLEAD ->
				ok = false	/* G7: a live region owner could miss it */
			:: else -> skip
			fi
		};
		x = 0;
#endif
		if
		:: ok -> ep_ts = t_now + SWLEAD;
			for (x : 0 .. NI - 1) { assert(!g_any[x] || g_ms[x] < ep_ts) };
			x = 0;
			printf("t=%d the root schedules a layout switch at %d\n", t_now, ep_ts)
		:: else -> printf("t=%d the root refuses a layout switch at %d\n", t_now, t_now + SWLEAD)
		fi;
		ok = false }
#endif
	:: false -> skip
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
		for (k : 0 .. NG - 1) { nsince[k] = NOHOLD };
#if defined(LAYOUT)
		rwant[IX(0, 0)] = true; rwant[IX(1, 1)] = true;
		reg_of[0] = 0; want[0] = 0; reg_of[1] = 1; want[1] = 1;
#elif defined(REGIONAL_FAILOVER)
		rwant[IX(0, 0)] = true;
		reg_of[0] = 0; want[0] = 0; reg_of[1] = 0; want[1] = 0;
#else
		rwant[IX(0, 0)] = true; rwant[IX(1, 0)] = true;
		reg_of[0] = 0; want[0] = 0; reg_of[1] = 1; want[1] = 0;
#endif
#ifdef IDS
		/* issuers' wall clocks apart: either may be the one ahead */
		if
		:: off[0] = -SKEW; off[1] = SKEW
		:: off[0] = SKEW; off[1] = -SKEW
		fi;
#endif
		run Time();
		run Root();
		run Regional(0);
#ifndef REGIONAL_FAILOVER
		run Regional(1);
#endif
		for (k : 0 .. NI - 1) { run Issuer(k) }
	}
}
