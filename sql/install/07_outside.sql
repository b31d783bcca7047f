-- ---------------------------------------------------------------------
-- Leases for outside generators (application servers, bulk loaders)
-- ---------------------------------------------------------------------

/*
 * Lease a worker for an outside generator (issue 19, items 5 and 15).  One
 * statement takes the row, and it locks that row only: rows another
 * session has locked (a lease or renewal in flight, however long its
 * transaction stays open) are skipped, not waited for, and no registry-wide
 * lock is taken, so a holder stalled in its lease transaction blocks
 * nobody's lease or renewal.  Rows only this function and the restore
 * triggers create or take without the registry lock; a node's lease locks
 * every row of its block before it judges them (idgen.acquire_node_lease).
 * The ROW EXCLUSIVE table lock orders a lease after a restore or a layout
 * being scheduled (both lock the table against writers), so the hold and
 * the lease end are judged with what they wrote.  Calls of one owner run
 * one at a time: the same owner gets its lease back, by the renewal rule
 * (it runs for more than the clock allowance) and only outside a hold.
 */
\ir ../udfs/idgen_lease_worker/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back; it ends at the next layout switch at the latest (a renewal that names the newest epoch goes past it)';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_worker(text, interval) FROM PUBLIC;

/*
 * Renew an outside lease (R2 for outside holders): by the registry's
 * clock, only while it runs for more than the clock allowance (an expired
 * lease is never brought back: the registry that lost writes may have
 * granted it again), and only the holder's own grant.  p_owner NULL is the
 * call of 0.6 gateways, by (region, worker, generation) alone, which names
 * one grant as generations never repeat (idgen.next_generation).  A lease
 * ends at the next layout switch at the latest, unless the holder names the
 * newest epoch it has read (p_known_epoch) and that is the newest there is,
 * and its worker fits every layout from now on: it then issues in the new
 * layout after the switch, and its lease runs its TTL (issue 19, item 7).
 */
\ir ../udfs/renew_outside_lease/latest.sql
COMMENT ON FUNCTION idgen.renew_outside_lease(integer, integer, bigint, text, integer) IS 'renew an outside lease of this holder (any holder at that generation if p_owner is NULL); past a layout switch only for a holder that read the newest epoch';
REVOKE ALL ON FUNCTION idgen.renew_outside_lease(integer, integer, bigint, text, integer) FROM PUBLIC;

-- the call of 0.6 gateways: (region, worker, generation) names one grant
CREATE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint)
    RETURNS timestamptz
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.renew_outside_lease(region, worker, generation, NULL, NULL)
$$;
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) IS 'renew an outside generator''s lease; fails once fenced or expired';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) FROM PUBLIC;

\ir ../udfs/idgen_renew_worker/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer) IS 'renew this holder''s outside lease; fails once fenced, expired or another''s; with the newest layout epoch known, it may run past the next switch';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer) FROM PUBLIC;

/*
 * Give an outside lease back.  With the holder's final mark (p_high_water,
 * at or above every ID it issued) the worker's mark becomes that, never
 * below the mark the lease started above (grant_floor; unknown for a lease
 * granted before 0.7, which keeps its mark), so the worker is granted again
 * once that mark plus the allowance has passed, not at the lease's planned
 * end (issue 19, item 8).  Without one (0.6 gateways), the mark stays at
 * the lease's end.
 */
\ir ../udfs/release_outside_lease/latest.sql
COMMENT ON FUNCTION idgen.release_outside_lease(integer, integer, bigint, text, timestamptz) IS 'give an outside lease back (this holder''s, or any at that generation if p_owner is NULL), with the holder''s final mark if given';
REVOKE ALL ON FUNCTION idgen.release_outside_lease(integer, integer, bigint, text, timestamptz) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint)
    RETURNS void
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.release_outside_lease(region, worker, generation, NULL, NULL)
$$;
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) IS 'give an outside generator''s worker back';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) FROM PUBLIC;

\ir ../udfs/idgen_release_worker/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) IS 'give this holder''s outside worker back with its final mark: the worker is granted again once that mark plus the allowance has passed';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) FROM PUBLIC;

/*
 * Operator repair: expire a lease and bump its generation.  The high-water
 * mark rises to the lease's end plus the holder's drift allowance: a node of
 * a fleet issues on its own durable mark until its lease ends (it may not
 * hear of the fence before), and an outside holder's mark already covers its
 * whole lease, so whoever takes the worker next and starts above the mark
 * cannot meet the old holder's IDs.  This instance's own node stops at once.
 */
\ir ../udfs/idgen_fence_worker/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) IS 'operator repair: expire a lease and bump its generation so the holder stops';
REVOKE ALL ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Outside generators and layout epochs
-- ---------------------------------------------------------------------

/*
 * An outside generator composes its IDs itself, with the layout in force
 * when it leased: it cannot follow a switch.  So its lease never spans one:
 * it ends at the next scheduled epoch's start at the latest, and the
 * generator leases again after the switch, under the new layout.  (The
 * schedule refuses a start before every current lease has ended anyway.)
 */
CREATE FUNCTION idgen.outside_lease_end(now timestamptz, ttl interval) RETURNS timestamptz
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT LEAST(now + ttl, (SELECT min(e.start_time) FROM idgen.epoch AS e WHERE e.start_time > now))
$$;
COMMENT ON FUNCTION idgen.outside_lease_end(timestamptz, interval) IS 'end of an outside generator''s lease taken or renewed now: its ttl, but never past the next layout switch';
REVOKE ALL ON FUNCTION idgen.outside_lease_end(timestamptz, interval) FROM PUBLIC;
