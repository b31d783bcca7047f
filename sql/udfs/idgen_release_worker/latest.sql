CREATE OR REPLACE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint,
                                                owner text, high_water timestamptz)
    RETURNS void
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.release_outside_lease(region, worker, generation, owner, high_water)
$$;
