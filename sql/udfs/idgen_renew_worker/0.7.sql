CREATE OR REPLACE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint,
                                              owner text, known_epoch integer DEFAULT NULL)
    RETURNS timestamptz
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT CASE WHEN region IS NULL OR worker IS NULL OR generation IS NULL OR owner IS NULL
            THEN NULL
            ELSE idgen.renew_outside_lease(region, worker, generation, owner, known_epoch) END
$$;
