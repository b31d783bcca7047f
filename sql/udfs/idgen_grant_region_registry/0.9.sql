CREATE OR REPLACE FUNCTION @extschema@.idgen_grant_region_registry(role regrole) RETURNS SETOF text
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.grant_to(role, ARRAY['idgen'::regnamespace, '@extschema@'::regnamespace], ARRAY[
    'EXECUTE ON FUNCTION @extschema@.idgen_lease_region(text, integer, interval, interval, integer)',
    'EXECUTE ON FUNCTION @extschema@.idgen_renew_region(integer, bigint, text, timestamptz, integer)',
    'EXECUTE ON FUNCTION @extschema@.idgen_release_region(integer, bigint, text, timestamptz)'])
$$;
