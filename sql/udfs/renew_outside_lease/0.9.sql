CREATE OR REPLACE FUNCTION idgen.renew_outside_lease(p_region integer, p_worker integer,
                                          p_generation bigint, p_owner text,
                                          p_known_epoch integer) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz := idgen.clock();
    v_past boolean;
    v_until timestamptz;
    v_cap timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    -- a regional registry renews only inside a held region lease, never
    -- past its validity (G4; NULL without a parent)
    SELECT b.lease_cap INTO v_cap
    FROM idgen.held_region_bounds(p_region, v_now,
                                  (SELECT l.drift_allowance FROM idgen.worker_lease AS l
                                   WHERE l.region = p_region AND l.worker = p_worker
                                     AND l.generation = p_generation)) AS b;
    SELECT p_known_epoch >= max(e.version)
           AND NOT coalesce(bool_or(e.start_time > v_now
                                    AND (p_region >= (1 << e.region_bits)
                                         OR p_worker >= (1 << e.worker_bits))), false)
      INTO v_past
    FROM idgen.epoch AS e;
    UPDATE idgen.worker_lease AS x
    SET lease_until = least(CASE WHEN v_past THEN v_now + x.ttl
                                 ELSE idgen.outside_lease_end(v_now, x.ttl) END, v_cap),
        high_water = greatest(x.high_water,
                              least(CASE WHEN v_past THEN v_now + x.ttl
                                         ELSE idgen.outside_lease_end(v_now, x.ttl) END, v_cap)),
        renewed_at = v_now
    WHERE x.region = p_region AND x.worker = p_worker AND x.generation = p_generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL
      AND (p_owner IS NULL OR x.owner = p_owner)
      AND x.lease_until > v_now + idgen.registry_clock_allowance()
    RETURNING x.lease_until INTO v_until;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('worker %s of region %s is not leased at generation %s%s',
                                    p_worker, p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The lease expired, was released, or was fenced; the holder must stop issuing IDs.',
                  HINT = 'Lease a worker again with idgen_lease_worker().';
    END IF;
    RETURN v_until;
END
$$;
