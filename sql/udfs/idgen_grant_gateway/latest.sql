CREATE OR REPLACE FUNCTION @extschema@.idgen_grant_gateway(role regrole) RETURNS SETOF text
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.grant_to(role, ARRAY['idgen'::regnamespace, '@extschema@'::regnamespace], ARRAY[
    'EXECUTE ON FUNCTION @extschema@.idgen_lease_worker(text, interval)',
    'EXECUTE ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer)',
    'EXECUTE ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint)',
    'EXECUTE ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz)',
    'EXECUTE ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint)',
    'EXECUTE ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text)',
    'EXECUTE ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint)',
    'EXECUTE ON FUNCTION idgen.gateway_purge(integer)'])
$$;
