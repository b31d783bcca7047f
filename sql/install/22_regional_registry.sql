-- =====================================================================
-- 0.9: the regional registry (issue 22, item 2; DESIGN "Regions that
-- stand alone", docs/regions.md "A regional registry").  A registry whose
-- idgen.parent_registry is set leases the regions of idgen.owned_regions
-- from that root; its background worker (src/worker/regionlease.c) keeps
-- one row here per owned region, and the node and outside lease functions
-- grant only inside a held, valid one (G4).  A registry without a parent
-- keeps no rows, and grants as before.
-- =====================================================================

CREATE TABLE idgen.held_region (
    region           integer PRIMARY KEY CHECK (region >= 0),
    owner            text NOT NULL,
    generation       bigint,
    valid_until      timestamptz,
    root_lease_until timestamptz,
    start_after      timestamptz,
    leased_at        timestamptz,
    renewed_at       timestamptz,
    last_error       text,
    handoff_at       timestamptz,
    released_at      timestamptz,
    final_mark       timestamptz,
    node_allowance   interval,
    CHECK (generation IS NOT NULL OR valid_until IS NULL),
    CHECK (released_at IS NULL OR (handoff_at IS NOT NULL AND generation IS NULL))
);
COMMENT ON TABLE idgen.held_region IS 'on a regional registry: the region leases it holds from its parent (idgen.parent_registry), one row per owned region; no rows: not a regional registry';
COMMENT ON COLUMN idgen.held_region.owner IS 'the name this registry leases under (idgen.region_owner()), which survives its restarts and failovers';
COMMENT ON COLUMN idgen.held_region.generation IS 'the region lease''s fencing token from the root; NULL: not held (not yet leased, refused, released)';
COMMENT ON COLUMN idgen.held_region.valid_until IS 'end of the region lease''s validity on this registry: its request plus the ttl less the margin, counted on CLOCK_BOOTTIME and shown by the wall clock; no node or outside lease in the region ends after it';
COMMENT ON COLUMN idgen.held_region.root_lease_until IS 'the lease''s end as the root recorded it (the root''s clock)';
COMMENT ON COLUMN idgen.held_region.start_after IS 'the floor from the root: every lease granted in the region starts above it';
COMMENT ON COLUMN idgen.held_region.leased_at IS 'when the current region lease was granted';
COMMENT ON COLUMN idgen.held_region.renewed_at IS 'the last grant or renewal the root answered';
COMMENT ON COLUMN idgen.held_region.last_error IS 'why the last lease or renewal failed; NULL after a success';
COMMENT ON COLUMN idgen.held_region.handoff_at IS 'when idgen_handoff_region() stopped every grant and renewal in the region here; NULL: not being handed off';
COMMENT ON COLUMN idgen.held_region.released_at IS 'when the handoff gave the region back to the root, once every lease granted in it had ended; it is not leased here again while the region stays in idgen.owned_regions';
COMMENT ON COLUMN idgen.held_region.final_mark IS 'the mark the handoff released the region with: the highest ID time any lease granted in it may have reached; the next owner starts above it';
COMMENT ON COLUMN idgen.held_region.node_allowance IS 'the node leases'' allowance the region lease was asked with (this registry''s max_drift plus max_skew): a lease whose holder asks more ends that much sooner than the validity; NULL counts as none';
REVOKE ALL ON idgen.held_region FROM PUBLIC;

/*
 * The owner name a regional registry leases its regions under: its system
 * identifier, which its physical standbys share (a Patroni cluster is one
 * owner), and its cluster_name if set.  Neither changes at a restart or a
 * failover, so the root gives a restarted registry its running lease back.
 */
CREATE FUNCTION idgen.region_owner() RETURNS text
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT 'regional:' || idgen.node_sysid()
       || coalesce('/' || nullif(current_setting('cluster_name', true), ''), '')
$$;
COMMENT ON FUNCTION idgen.region_owner() IS 'the owner name this registry leases regions from its parent under: its system identifier and cluster_name';
REVOKE ALL ON FUNCTION idgen.region_owner() FROM PUBLIC;

/*
 * G4 on the regional registry: the cap of a lease granted or renewed now
 * in p_region (the region lease's validity) and the floor a grant starts
 * above; both NULL on a registry without a parent.  A region not owned, or
 * whose lease is not held or lapsed, is refused with the reason.
 */
\ir ../udfs/held_region_bounds/latest.sql
COMMENT ON FUNCTION idgen.held_region_bounds(integer, timestamptz, interval) IS 'on a regional registry: until when a lease granted now in the region may run and the floor it starts above; refuses a region not owned or whose lease is not held (NULLs without a parent)';
REVOKE ALL ON FUNCTION idgen.held_region_bounds(integer, timestamptz, interval) FROM PUBLIC;

/*
 * Handoff (G6): stops every grant and renewal in the region here at once;
 * the background worker releases the region to the root, with the final
 * mark, once every lease granted in it has ended or been released.
 */
\ir ../udfs/idgen_handoff_region/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_handoff_region(integer) IS 'on a regional registry: stop granting and renewing leases in the region, and give it back to the root with its final mark once they have ended, for another registry to lease';
REVOKE ALL ON FUNCTION @extschema@.idgen_handoff_region(integer) FROM PUBLIC;

-- the region leases as an operator reads them
\ir ../udfs/idgen_region_status/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_region_status() IS 'on a regional registry: each owned region, whether its lease from the root is held, its generation, validity, floor and the last error';
REVOKE ALL ON FUNCTION @extschema@.idgen_region_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_region_status() TO pg_monitor;

-- pg_dump keeps the rows; a row restored on another system is not its
-- lease (the owner differs: idgen.held_region_bounds refuses it)
SELECT pg_catalog.pg_extension_config_dump('idgen.held_region', '');
