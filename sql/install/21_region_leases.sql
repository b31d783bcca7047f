-- =====================================================================
-- 0.9: region leases on the root registry (issue 22, item 1; DESIGN
-- "Regions that stand alone", docs/regions.md).  A root registry leases
-- whole regions, for a long time, to regional registries, by the node
-- lease's rules one level up; src/lease_regions.pml checks them, and the
-- comments name the rule (G1-G7) each check keeps.
-- =====================================================================

/*
 * One row per region the root has ever leased.  owner is NULL when nobody
 * holds the region (never leased, released, fenced); lease_until is NULL
 * when it is free, and a fenced row keeps the fenced lease's end, before
 * which nobody is granted the region (a root that lost the fence and a
 * grant after it finds that lease run out in its copy, G1).
 * high_water is the region's floor: the next owner's nodes start above it
 * (a grant sets it to the floor it starts above, renewals raise it to the
 * owner's mark, a release to the final mark, a fence to the lease's end
 * plus the allowance), and a takeover of a lease that was not given back
 * starts above lease_until plus the owner's allowance as well (G2).
 */
CREATE TABLE idgen.region_lease (
    region          integer PRIMARY KEY CHECK (region >= 0),
    owner           text,
    generation      bigint NOT NULL DEFAULT 0,
    lease_until     timestamptz,
    high_water      timestamptz,
    grant_floor     timestamptz,
    ttl             interval,
    allowance       interval,
    confirmed_epoch integer,
    acquired_at     timestamptz,
    renewed_at      timestamptz,
    CHECK (owner IS NULL OR lease_until IS NOT NULL)
);
COMMENT ON TABLE idgen.region_lease IS 'the root registry''s region leases: which regional registry owns each region, at which generation, until when, and the floor its successor starts above';
COMMENT ON COLUMN idgen.region_lease.owner IS 'the regional registry holding the region (a name that survives its restarts and failovers); NULL: free';
COMMENT ON COLUMN idgen.region_lease.generation IS 'fencing token of the current grant: renewals and the release must name it; a fence raises it';
COMMENT ON COLUMN idgen.region_lease.lease_until IS 'end of the lease by the root''s clock (idgen.clock()); the owner counts its own validity from its request; kept by a fence, before which nobody is granted the region';
COMMENT ON COLUMN idgen.region_lease.high_water IS 'the region''s floor: no ID of the region lies above it under an earlier owner (with lease_until plus allowance for a lease not given back)';
COMMENT ON COLUMN idgen.region_lease.grant_floor IS 'the floor the current grant started above (start_after), answered again when the same owner leases again';
COMMENT ON COLUMN idgen.region_lease.ttl IS 'the lease''s length, which each renewal runs again';
COMMENT ON COLUMN idgen.region_lease.allowance IS 'how far past the lease''s end the region''s IDs may lie: its nodes'' max_drift plus max_skew and the owner''s skew to the root';
COMMENT ON COLUMN idgen.region_lease.confirmed_epoch IS 'the newest layout epoch the owner has confirmed at a renewal; NULL: none since the grant';
COMMENT ON COLUMN idgen.region_lease.acquired_at IS 'when the current grant was made (root clock)';
COMMENT ON COLUMN idgen.region_lease.renewed_at IS 'the last grant or renewal (root clock)';
REVOKE ALL ON idgen.region_lease FROM PUBLIC;

-- the region leases as an operator reads them
CREATE VIEW idgen.regions AS
SELECT l.region, l.owner, l.generation, l.lease_until,
       l.owner IS NOT NULL AND l.lease_until > idgen.clock() AS live,
       l.renewed_at AS last_renewal, l.confirmed_epoch, l.high_water, l.allowance, l.ttl
FROM idgen.region_lease AS l;
COMMENT ON VIEW idgen.regions IS 'region leases on the root: owner, generation, end, whether live, the last renewal and the newest layout epoch the owner confirmed';
REVOKE ALL ON idgen.regions FROM PUBLIC;
GRANT SELECT ON idgen.regions TO pg_monitor;

/*
 * The regions this root leases to regional registries, from
 * idgen.leased_out_regions: a setting, because a root restored from before
 * its first region grant has no row that says it is one (issue 22).  It
 * leases no other region, grants its own nodes no lease in these, and
 * after a change of its incarnation holds its layout switches as long as
 * a region lease it lost may run.
 */
\ir ../udfs/leased_out_regions/latest.sql
COMMENT ON FUNCTION idgen.leased_out_regions() IS 'the regions this root registry leases to regional registries (idgen.leased_out_regions); empty on every other registry';
REVOKE ALL ON FUNCTION idgen.leased_out_regions() FROM PUBLIC;

/*
 * G3 (R7 one level up): until when the root grants no region after a
 * change of its incarnation (a restart, a promotion, a restore: each may
 * have lost region grants and renewals the owners saw committed).  A lost
 * lease ran at most the longest ttl from the change (a region lease is at
 * most 1 day) and its IDs at most its allowance past that: a lost grant's
 * allowance is unknown here, so the most a grant may be given (3 hours),
 * or more if the rows or the root's own for a 1-day lease say so.  Counted
 * in seconds, in any time zone.  No change ever recorded (since NULL): no
 * hold.
 */
\ir ../udfs/region_hold_until/latest.sql
COMMENT ON FUNCTION idgen.region_hold_until() IS 'until when the root grants no region after a change of its incarnation (-infinity: no hold)';
REVOKE ALL ON FUNCTION idgen.region_hold_until() FROM PUBLIC;

/*
 * G7 (global layout epochs): the start of the first layout epoch newer than
 * known, the newest one a region owner has read from the root and passed on
 * (NULL: only the built-in epoch 1, which every installation has).  No
 * region lease runs, by its end plus its allowance, into an epoch its owner
 * has not confirmed: grants and renewals end before this ('infinity': no
 * such epoch).
 */
CREATE FUNCTION idgen.unconfirmed_epoch_start(known integer) RETURNS timestamptz
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT coalesce(min(e.start_time), 'infinity')
FROM idgen.epoch AS e WHERE e.version > coalesce($1, 1)
$$;
COMMENT ON FUNCTION idgen.unconfirmed_epoch_start(integer) IS 'the start of the first layout epoch newer than the one given (infinity: none): no region lease runs into an epoch its owner has not confirmed';
REVOKE ALL ON FUNCTION idgen.unconfirmed_epoch_start(integer) FROM PUBLIC;

/*
 * Lease a region to a regional registry (owner) for ttl (10 s to 1 day),
 * with the owner's allowance (at most 3 hours; default: the root's own
 * drift allowance), both counted in seconds, and the newest layout epoch
 * the owner has read from the root (known_epoch; NULL: only epoch 1): the
 * lease ends before the first epoch newer than that (G7), and is refused
 * while one already applies.
 * Answers the generation, the lease's end on the root's clock and the floor
 * above which the region's IDs must lie (start_after); the owner counts its
 * validity from its request (G1, CLOCK_BOOTTIME on its side).  Refused
 * while another owner's lease runs (G1) and during the hold (G3); the same
 * owner gets its running lease back (G1); a takeover starts above the old
 * lease's end plus its allowance (G2).  Commits with synchronous_commit on
 * at least (R6).
 */
\ir ../udfs/idgen_lease_region/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_lease_region(text, integer, interval, interval, integer) IS 'on the root: lease a region to a regional registry; answers the generation, the end and the floor its IDs start above; the same owner gets its running lease back';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_region(text, integer, interval, interval, integer) FROM PUBLIC;

/*
 * Renew a region lease by its generation (and owner, if given) while it
 * runs for more than the clock allowance (G1), also during a hold (G3).
 * The owner reports its mark (the highest its nodes may have issued up to)
 * and the newest layout epoch it has read and passed on, which the root
 * counts before it schedules a switch (G7): the lease runs no further
 * than the first epoch newer than that, less the allowance.  Answers the
 * new end.
 */
\ir ../udfs/idgen_renew_region/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_renew_region(integer, bigint, text, timestamptz, integer) IS 'on the root: renew a region lease by its generation; fails once it ran out, was released or fenced; records the owner''s mark and confirmed layout epoch';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_region(integer, bigint, text, timestamptz, integer) FROM PUBLIC;

/*
 * Give a region back (the end of a handoff, G6) with the final mark, at or
 * above every ID issued in it under this lease; the next owner starts
 * above it.  Without a mark the lease's end plus its allowance is the mark.
 */
\ir ../udfs/idgen_release_region/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_release_region(integer, bigint, text, timestamptz) IS 'on the root: give a region lease back with the final mark its successor starts above';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_region(integer, bigint, text, timestamptz) FROM PUBLIC;

/*
 * Operator repair: end a region lease and raise its generation, so the
 * owner's next renewal fails and it stops granting there; the region is
 * granted again once the fenced lease's end has passed on the root's clock,
 * above that end plus its allowance (G1, G2).
 */
\ir ../udfs/idgen_fence_region/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_fence_region(integer) IS 'operator repair on the root: end a region lease and bump its generation so its owner''s renewals fail';
REVOKE ALL ON FUNCTION @extschema@.idgen_fence_region(integer) FROM PUBLIC;

/*
 * A restored region_lease row: the restore is a change of incarnation (G3
 * holds region grants), and a row the root has already is merged: marks
 * and generations never lowered, never two holders.
 */
\ir ../udfs/restore_region_lease/latest.sql
COMMENT ON FUNCTION idgen.restore_region_lease() IS 'trigger: a restored region lease makes the restore a change of incarnation; one the root has already is merged, never two holders';
REVOKE ALL ON FUNCTION idgen.restore_region_lease() FROM PUBLIC;
CREATE TRIGGER region_lease_restore BEFORE INSERT ON idgen.region_lease
    FOR EACH ROW WHEN (NEW.generation > 0 OR NEW.high_water IS NOT NULL)
    EXECUTE FUNCTION idgen.restore_region_lease();

/*
 * A regional registry, connected to the root as role: the three calls of
 * the region lease protocol, which run with the extension's rights.
 */
\ir ../udfs/idgen_grant_region_registry/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_grant_region_registry(regrole) IS 'grant a role what a regional registry needs on the root (run it there, as a superuser, and again after ALTER EXTENSION idgen UPDATE); returns the GRANT statements run';
REVOKE ALL ON FUNCTION @extschema@.idgen_grant_region_registry(regrole) FROM PUBLIC;

-- pg_dump keeps the region leases (the last table registered, as in the
-- upgrade chain)
SELECT pg_catalog.pg_extension_config_dump('idgen.region_lease', '');
