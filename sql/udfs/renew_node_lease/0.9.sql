CREATE OR REPLACE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint, p_drift_allowance interval,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz,
    OUT incarnation text)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    n integer;
    v_now timestamptz := idgen.clock();
    v_until timestamptz;
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
    SELECT c.incarnation INTO incarnation FROM idgen.registry_incarnation_check() AS c;
    -- on a regional registry never past the region lease's validity, and
    -- not at all outside a held one (G4; v_now + p_ttl without a parent)
    SELECT least(v_now + p_ttl, b.lease_cap) INTO v_until
    FROM idgen.held_region_bounds(p_region, v_now, p_drift_allowance) AS b;
    UPDATE idgen.worker_lease AS l
    SET lease_until = v_until,
        high_water = greatest(l.high_water, least(p_high_water, hw_cap)),
        renewed_at = v_now, heartbeat_at = v_now,
        clock_offset_ms = coalesce(p_clock_offset_ms,
                                   floor(extract(epoch FROM p_node_clock - v_now) * 1000)::bigint),
        node_state = p_node_state,
        -- never lowered while the lease runs: the holder may have stamped by the old one
        drift_allowance = CASE WHEN l.drift_allowance IS NULL OR p_drift_allowance IS NULL
                               THEN coalesce(p_drift_allowance, l.drift_allowance)
                               ELSE greatest(l.drift_allowance, p_drift_allowance) END
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND l.owner = p_owner AND l.generation = p_generation
      -- an expired lease is never brought back: after a failover or a
      -- restore the block may have been granted again by the registry
      -- that was lost, so its holder leases anew, under the hold
      AND l.lease_until > v_now + idgen.registry_clock_allowance();
    GET DIAGNOSTICS n = ROW_COUNT;

    IF n = p_block THEN
        ok := true;
        lease_until := v_until;
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
    -- every row still ours, but its lease over here: generation -1 says so
    IF NOT FOUND THEN
        other_generation := -1;
    END IF;
END
$$;
