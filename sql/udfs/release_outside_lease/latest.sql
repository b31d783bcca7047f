CREATE OR REPLACE FUNCTION idgen.release_outside_lease(p_region integer, p_worker integer,
                                            p_generation bigint, p_owner text,
                                            p_high_water timestamptz) RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz := idgen.clock();
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL,
        high_water = CASE WHEN p_high_water IS NULL THEN greatest(x.high_water, v_now)
                          ELSE greatest(p_high_water, coalesce(x.grant_floor, x.high_water)) END
    WHERE x.region = p_region AND x.worker = p_worker AND x.generation = p_generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL
      AND (p_owner IS NULL OR x.owner = p_owner);
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('worker %s of region %s is not leased at generation %s%s',
                                    p_worker, p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    PERFORM idgen.audit('worker_released',
        format('region %s worker %s generation %s%s', p_region, p_worker, p_generation,
               CASE WHEN p_high_water IS NULL THEN ''
                    ELSE format(' final mark %s', p_high_water) END));
END
$$;
