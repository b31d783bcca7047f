/*
 * lease_outside.pml - outside holders in the lease model (-DOUTSIDE)
 *
 * Included by lease.pml.  The issuers are gateways (idgen-gateway, or any
 * outside generator) instead of nodes, each leasing the one worker:
 *
 *   here                       there
 *   -------------------------  ----------------------------------------------
 *   proctype Gateway           the gateway's lease thread (gateway/gwmain.c
 *                              lease_loop) and generator (gateway/gwissue.c)
 *     lease / serve_lease      gw_registry_lease() and idgen_lease_worker
 *     renew / serve_renew      gw_registry_renew() and idgen_renew_worker
 *     release / serve_release  gw_registry_release() and idgen_release_worker
 *     hw[i]                    the cap: the lease end the registry recorded
 *                              as the worker's high-water mark
 *                              (GwLeaseSet.cap_unix_ms)
 *     floor_[i]                the registry's clock read after the lease
 *                              (floor_unix_ms), or the last ID if higher
 *
 * The rules, as 0.6 has them (-DMATCH=0, no GIVEUP, no LHOLD, OLD_HOLD):
 * renew and release match region, worker and generation only; a gateway
 * whose validity ended goes on renewing (it drops the lease only when the
 * registry refuses the renewal); a logical restore, or a lease call that
 * finds no idgen.registry_incarnation row, holds nothing; the hold
 * is max(every row's ttl, lease_ttl) + allowance.  The rules of issue 19:
 *   MATCH=1   renew and release also match the owner (the holder's name)
 *   MATCH=2   ... or a token unique to each grant instead (generations, or
 *             tokens, never repeat across incarnations)
 *   GIVEUP    a gateway whose validity ended renews no more: it gives the
 *             lease up (and releases it, or not) and leases anew
 *   LHOLD     the incarnation hold after a logical restore too: the
 *             restore itself starts it
 *   FIRSTHOLD a lease call that finds no idgen.registry_incarnation row
 *             holds too (0.6: the first incarnation ever, no hold), as the
 *             data may be a copy older than the first lease call
 *   (default) the hold from the rows that may still be live only (item 4):
 *             max(ttl of live rows, lease_ttl) + allowance + RALLOW
 * Adversarial switches: SAMEOWNER (both gateways under one owner name),
 * SPLIT_ISSUE (a gateway checks its validity, is frozen, and stamps the ID
 * afterwards by the clock of then), GTTL (the gateways' ttl, against TTL,
 * the registry's idgen.lease_ttl), RALLOW (the registry clock allowance,
 * idgen.max_skew of the registry, against RSKEW, how far behind a new
 * primary's clock really is), RELEASE_MARK (a release lowers high_water
 * to the holder's last ID, as item 8 may have it).
 *   HFLOOR    R1a: a gateway's validity from an answer is at most the hold
 *             floor, TTL (the registry's idgen.lease_ttl), however long
 *             its grant (GTTL): leaseclient.c idgen_lc_set_hold_floor
 *
 * A frozen gateway (SIGSTOP, a paused VM) is one that takes no step while
 * time and the registry go on: every run has one.
 */

#ifndef MATCH
#define MATCH 1
#endif
#ifndef GTTL
#define GTTL TTL
#endif
#ifndef RALLOW
#define RALLOW RSKEW
#endif
#ifdef SAMEOWNER
#define OWNER(i) 1
#else
#define OWNER(i) (i + 1)
#endif

byte tokens = 0;	/* MATCH 2: tokens handed out, never restored (random) */
bool pend[NI];		/* SPLIT_ISSUE: validity checked, the stamp to come */

/* the renewal's or release's row is the caller's grant */
#if MATCH == 0
#define HOLDER(i) (P.owner != 0 && P.gen == gen[i])
#elif MATCH == 1
#define HOLDER(i) (P.owner == OWNER(i) && P.gen == gen[i])
#else
#define HOLDER(i) (P.owner != 0 && P.gen == gen[i] && P.tok == tok[i])
#endif

/* the hold: the ttl of rows that may still be live, or of every row (0.6) */
#ifdef OLD_HOLD
#define ROWTTL P.ttl
#else
#define ROWTTL ((P.owner != 0 && P.lu + ALLOW + RALLOW > RC) -> P.ttl : 0)
#endif
#define HOLD_UNTIL (P.since + MAX(TTL, ROWTTL) + ALLOW + RALLOW)

/* the length a gateway counts its validity on, from the sending */
#ifdef HFLOOR
#define GVALID MIN(GTTL, TTL)
#else
#define GVALID GTTL
#endif

/*
 * When the renewal was sent.  0.6 sends at any time, also once the validity
 * ended.  GIVEUP sends only while valid, but the registry may serve the
 * request later (a lock wait, a slow network): then it was sent at the
 * latest just before the validity ended, and the latest send gives the
 * longest validity, so that one stands for every earlier one.
 */
#ifdef GIVEUP
#define SENT_AT(i) MIN(t_now, vu[i] - 1)
#else
#define SENT_AT(i) t_now
#endif

/* idgen_lease_worker: a worker whose history lies in the past */
inline serve_lease(i)
{
	note_incarnation();
	free = ((P.owner == 0 || P.lu <= RC) && P.hw + ALLOW < RC && RC >= HOLD_UNTIL);
	if
	:: free && P.gen < GMAX ->
		P.owner = OWNER(i); P.gen++; P.lu = RC + GTTL; P.hw = P.lu;
		P.ttl = GTTL; P.rel = false;
#if MATCH == 2
		tokens++; P.tok = tokens;
#endif
		ok = true
	:: else -> ok = false
	fi
}

/* idgen_renew_worker: only a lease that still runs, less the allowance */
inline serve_renew(i)
{
	if
	:: HOLDER(i) && P.lu > RC + RALLOW ->
		P.lu = RC + P.ttl; P.hw = MAX(P.hw, P.lu);
		ok = true
	:: else -> ok = false
	fi
}

/* idgen_release_worker; the gateway has stopped issuing */
inline serve_release(i)
{
	if
	:: HOLDER(i) ->
		P.owner = 0; P.lu = 0;
#ifdef RELEASE_MARK
		P.hw = last_ms[i];
#else
		P.hw = MAX(P.hw, RC);
#endif
	:: else -> skip
	fi
}

/* one ID: the gateway's gates; the cap is an absolute instant */
inline gw_issue(i)
{
	c = PC(i);
	ms = MAX(c, MAX(last_ms[i], floor_[i] + 1));
	if
	:: ms == last_ms[i] && last_ctr[i] + 1 < CMAX -> ctr = last_ctr[i] + 1
	:: ms == last_ms[i] && last_ctr[i] + 1 >= CMAX -> ms++; ctr = 0
	:: else -> ctr = 0
	fi;
	if
#ifdef NOCAP
	:: ms <= c + DRIFT -> record_id(i)
#else
	:: ms <= c + DRIFT && ms < hw[i] -> record_id(i)
#endif
	:: else -> skip
	fi;
	c = 0; ms = 0; ctr = 0
}

proctype Gateway(byte i)
{
	byte x, y, ctr;
	bool free, ok;
	short c, ms, s;
end:
	do
	:: atomic { !hl[i] && !pend[i] ->
		s = t_now;
		serve_lease(i);
		printf("t=%d gateway %d lease: granted %d gen %d lease_until %d (registry clock %d, hold until %d)\n",
		       t_now, i, ok, P.gen, P.lu, RC, HOLD_UNTIL);
		if
		:: ok ->
			hl[i] = true; gen[i] = P.gen; tok[i] = P.tok;
			vu[i] = s + GVALID - MARGIN;
			hw[i] = P.lu;
			floor_[i] = MAX(RC, last_ms[i]);
			skewed[i] = (ABS(PC(i) - RC) > SKEW);
			p1_check()
		:: ok -> printf("t=%d gateway %d: the answer is lost\n", t_now, i)
		:: else -> skip
		fi;
		ok = false; free = false; s = 0
	}
	/* gw_registry_renew(), at any time; 0.6 also once the validity ended */
	:: atomic { hl[i] && !pend[i] ->
		s = SENT_AT(i);
		serve_renew(i);
		printf("t=%d gateway %d renews gen %d (sent at %d): ok %d lease_until %d\n", t_now, i, gen[i], s, ok, P.lu);
		if
		:: ok ->
			/* a late answer that leaves it invalid changes nothing: it
			 * was last valid before vu[i], whatever it sends next */
			if
			:: s + GVALID - MARGIN > MAX(vu[i], t_now) -> vu[i] = s + GVALID - MARGIN
			:: else -> skip
			fi;
			hw[i] = MAX(hw[i], P.lu);
			skewed[i] = (ABS(PC(i) - RC) > SKEW);
			p1_check()
		:: ok -> skip	/* the answer is lost */
		:: !ok ->		/* refused (55000): stop, release, lease anew */
			hl[i] = false; serve_release(i); drop_lease(i); tok[i] = 0
		fi;
		ok = false; s = 0
	}
#ifdef GIVEUP
	/* the validity ended unrenewed: give the lease up, lease anew */
	:: atomic { hl[i] && !pend[i] && !VALID(i) ->
		hl[i] = false;
		if
		:: serve_release(i)
		:: skip
		fi;
		printf("t=%d gateway %d gives gen %d up\n", t_now, i, gen[i]);
		drop_lease(i); tok[i] = 0
	}
#endif
	:: atomic { hl[i] && !pend[i] && releases < RELEASES ->
		releases++;
		hl[i] = false;
		serve_release(i);
		printf("t=%d gateway %d releases gen %d\n", t_now, i, gen[i]);
		drop_lease(i); tok[i] = 0
	}
#ifdef SPLIT_ISSUE
	:: atomic { hl[i] && !pend[i] && !skewed[i] && VALID(i) -> pend[i] = true }
	/* frozen between the check and the stamp: the clock of now, the cap */
	:: atomic { pend[i] -> pend[i] = false; gw_issue(i) }
#else
	:: atomic { hl[i] && !skewed[i] && VALID(i) -> gw_issue(i) }
#endif
	od
}
