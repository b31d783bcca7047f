CREATE OR REPLACE FUNCTION @extschema@.idgen_grant_node(role regrole) RETURNS SETOF text
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.grant_to(role, ARRAY['idgen'::regnamespace], ARRAY[
    'EXECUTE ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval)',
    'EXECUTE ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean)',
    'EXECUTE ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval)',
    'EXECUTE ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint)',
    'EXECUTE ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz)',
    'EXECUTE ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint)',
    'EXECUTE ON FUNCTION idgen.lock_registry()',
    'EXECUTE ON FUNCTION idgen.held_region_bounds(integer, timestamptz, interval)',
    'EXECUTE ON FUNCTION idgen.audit(text, text)',
    'EXECUTE ON FUNCTION idgen.registry_incarnation_check(boolean)',
    'EXECUTE ON FUNCTION idgen.running_incarnation()',
    'EXECUTE ON FUNCTION idgen.incarnation_hold(timestamptz, boolean)',
    'EXECUTE ON FUNCTION idgen.registry_clock_allowance()',
    'EXECUTE ON FUNCTION idgen.registry_drift_allowance(interval)',
    'EXECUTE ON FUNCTION idgen.drift_allowance(interval, interval, interval)',
    'EXECUTE ON FUNCTION idgen.next_generation(bigint)',
    'SELECT, INSERT, UPDATE ON TABLE idgen.worker_lease',
    'SELECT, INSERT, UPDATE ON TABLE idgen.registry_incarnation',
    'INSERT ON TABLE idgen.audit_log',
    'INSERT ON TABLE idgen.collision'])
$$;
