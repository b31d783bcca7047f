CREATE OR REPLACE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz := idgen.clock();
BEGIN
    PERFORM idgen.require_registry();
    PERFORM idgen.lock_registry();
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL,
        high_water = greatest(x.high_water, now)
    WHERE x.region = idgen_release_worker.region AND x.worker = idgen_release_worker.worker
      AND x.generation = idgen_release_worker.generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % is not leased at generation %',
                        worker, region, generation
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    PERFORM idgen.audit('worker_released',
        format('region %s worker %s generation %s', region, worker, generation));
END
$$;
