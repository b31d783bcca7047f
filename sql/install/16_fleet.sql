-- =====================================================================
-- Fleets: nodes leasing from a shared registry (idgen.registry)
-- =====================================================================

-- the node's own tables: idgen_disable() and idgen_enable() work on every
-- node of a fleet, also while the registry is away
\ir ../udfs/require_node_database/latest.sql
COMMENT ON FUNCTION idgen.require_node_database() IS 'raise unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database() FROM PUBLIC;

-- the same for idgen_disable() and idgen_enable(), in their own words
\ir ../udfs/require_node_database_caller/latest.sql
COMMENT ON FUNCTION idgen.require_node_database(text) IS 'raise, naming the caller, unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database(text) FROM PUBLIC;

-- every holder of the registry: nodes with their blocks, outside generators
CREATE VIEW idgen.fleet AS
SELECT l.owner AS holder,
       CASE WHEN l.node_sysid IS NULL THEN 'outside' ELSE 'node' END AS kind,
       l.node_sysid,
       l.region,
       min(l.worker) AS first_worker,
       max(l.worker) AS last_worker,
       max(l.generation) AS generation,
       min(l.lease_until) AS lease_until,
       min(l.lease_until) > idgen.clock() AS live,
       min(l.high_water) AS high_water,
       max(l.heartbeat_at) AS last_heartbeat,
       max(l.clock_offset_ms) AS clock_offset_ms,
       max(l.node_state) AS node_state,
       bool_or(l.remote) AS remote,
       greatest(min(l.lease_until) - idgen.clock(), interval '0') AS outage_budget,
       max(l.drift_allowance) AS drift_allowance
FROM idgen.worker_lease AS l
WHERE l.owner IS NOT NULL
GROUP BY l.owner, l.node_sysid, l.region;
COMMENT ON VIEW idgen.fleet IS 'the registry''s holders: each node''s region, workers, generation, lease expiry, high-water mark, last heartbeat and clock offset';
COMMENT ON COLUMN idgen.fleet.live IS 'the lease has not yet expired by the registry''s clock';
COMMENT ON COLUMN idgen.fleet.clock_offset_ms IS 'the holder''s clock minus the registry''s, as last measured';
COMMENT ON COLUMN idgen.fleet.last_heartbeat IS 'registry clock when the holder last had an answer from the registry';
COMMENT ON COLUMN idgen.fleet.outage_budget IS 'how much longer the holder may issue without another answer from the registry (its lease''s end by the registry''s clock, less now)';
COMMENT ON COLUMN idgen.fleet.drift_allowance IS 'how far past the registry''s clock the holder may stamp IDs; a successor after an unclean end starts above lease_until plus this';
REVOKE ALL ON idgen.fleet FROM PUBLIC;
GRANT SELECT ON idgen.fleet TO pg_monitor;
