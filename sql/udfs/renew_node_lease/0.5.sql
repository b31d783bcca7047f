CREATE OR REPLACE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    n integer;
    v_now timestamptz := idgen.clock();
    -- as at acquisition: no mark further ahead of our clock than the node's
    -- lead over its own, plus the skew allowed
    hw_cap timestamptz := CASE WHEN coalesce(current_setting('idgen.max_skew', true)::interval,
                                             interval '1 s') = interval '0'
                               THEN 'infinity'
                               ELSE v_now + greatest(p_high_water - p_node_clock, interval '0')
                                    + coalesce(current_setting('idgen.max_skew', true)::interval,
                                               interval '1 s') END;
BEGIN
    registry_clock := v_now;
    UPDATE idgen.worker_lease AS l
    SET lease_until = v_now + p_ttl,
        high_water = greatest(l.high_water, least(p_high_water, hw_cap)),
        renewed_at = v_now, heartbeat_at = v_now,
        clock_offset_ms = coalesce(p_clock_offset_ms,
                                   floor(extract(epoch FROM p_node_clock - v_now) * 1000)::bigint),
        node_state = p_node_state
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND l.owner = p_owner AND l.generation = p_generation;
    GET DIAGNOSTICS n = ROW_COUNT;

    IF n = p_block THEN
        ok := true;
        lease_until := v_now + p_ttl;
        SELECT min(l.high_water) INTO high_water
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= p_first_worker
          AND l.worker < p_first_worker + p_block;
        RETURN;
    END IF;

    ok := false;
    SELECT l.owner, l.generation INTO other_owner, other_generation
    FROM idgen.worker_lease AS l
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND (l.owner IS DISTINCT FROM p_owner OR l.generation <> p_generation)
    ORDER BY l.worker LIMIT 1;
END
$$;
