CREATE OR REPLACE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_now timestamptz, p_ttl interval, p_high_water timestamptz,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    n integer;
BEGIN
    UPDATE idgen.worker_lease AS l
    SET lease_until = p_now + p_ttl,
        high_water = greatest(l.high_water, p_high_water),
        renewed_at = p_now
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND l.owner = p_owner AND l.generation = p_generation;
    GET DIAGNOSTICS n = ROW_COUNT;

    IF n = p_block THEN
        ok := true;
        lease_until := p_now + p_ttl;
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
