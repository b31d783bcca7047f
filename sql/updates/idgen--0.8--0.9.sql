/* idgen--0.8--0.9.sql: changes since 0.8 (sql/install/ holds the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.9'" to load this file. \quit

\ir ../install/21_region_leases.sql

-- ---------------------------------------------------------------------
-- A registry database with region leases but no incarnation row was
-- restored or moved, as one with worker leases is (G3)
-- ---------------------------------------------------------------------
\ir ../udfs/registry_incarnation_check/0.9.sql

-- ---------------------------------------------------------------------
-- A fence keeps the fenced lease's end (R4, R7): no node is granted the
-- block before it, so a registry that lost the fence and the grant after
-- it (a failover to a standby that lacked both, a restore) refuses the
-- fenced holder's renewal instead of letting it run on beside the lost
-- grant (src/lease.pml, runs fence-lost-0.9 and fence-keeps-end)
-- ---------------------------------------------------------------------
ALTER TABLE idgen.worker_lease ADD COLUMN fenced_until timestamptz;
COMMENT ON COLUMN idgen.worker_lease.fenced_until IS 'the end of the lease an operator fenced (idgen_fence_worker): no node is granted the worker before it, so a registry that lost the fence and the next grant refuses the fenced holder''s renewal';
\ir ../udfs/idgen_fence_worker/0.9.sql
\ir ../udfs/acquire_node_lease/0.9.sql

\ir ../install/22_regional_registry.sql

\ir ../udfs/idgen_schedule_layout/0.9.sql

-- numeric ranges are the root's alone: a regional registry refuses them
\ir ../udfs/idgen_lease_range/0.9.sql

-- the node and outside lease functions grant only inside a held region
-- lease on a regional registry (G4); unchanged without a parent
-- (idgen.acquire_node_lease 0.9, above, has the check too)
\ir ../udfs/renew_node_lease/0.9.sql
\ir ../udfs/idgen_lease_worker/0.9.sql
\ir ../udfs/renew_outside_lease/0.9.sql

-- a node's role calls idgen.held_region_bounds() from its lease functions
\ir ../udfs/idgen_grant_node/0.9.sql
/*
 * Roles already granted a node's rights keep working without running
 * idgen_grant_node() again: the new helper is granted to whoever may call
 * the function that calls it.
 */
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT DISTINCT a.grantee::regrole AS role
        FROM pg_catalog.pg_proc AS p, pg_catalog.aclexplode(p.proacl) AS a
        WHERE p.oid IN ('idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval)'::pg_catalog.regprocedure,
                        'idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean)'::pg_catalog.regprocedure,
                        'idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval)'::pg_catalog.regprocedure,
                        'idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint)'::pg_catalog.regprocedure)
          AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION idgen.held_region_bounds(integer, timestamptz, interval) TO %s', r.role);
    END LOOP;
END
$$;
