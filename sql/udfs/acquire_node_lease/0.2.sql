CREATE OR REPLACE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_now timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    nblocks integer := (1 << p_worker_bits) / p_block;
    start_block integer;
    b integer;
    fw integer;
    busy integer;
    node_floor timestamptz;
    block_floor timestamptz;
    gen bigint;
BEGIN
    PERFORM idgen.lock_registry();

    SELECT max(l.high_water) INTO node_floor
    FROM idgen.worker_lease AS l WHERE l.node_sysid = p_sysid;

    -- later timelines start elsewhere, away from blocks an old primary may reuse
    start_block := ((p_timeline - 1) * (nblocks / 2 + 1)) % nblocks;

    FOR i IN 0 .. nblocks - 1 LOOP
        b := (start_block + i) % nblocks;
        fw := b * p_block;
        CONTINUE WHEN p_pinned_worker >= 0 AND fw <> p_pinned_worker;

        -- lock first: a renewal in flight must commit before we judge the rows
        PERFORM 1 FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block
        FOR UPDATE;
        SELECT count(*) FILTER (WHERE NOT idgen.row_is_free(l, p_now, p_sysid, p_timeline)),
               max(l.high_water), max(l.generation)
          INTO busy, block_floor, gen
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;
        CONTINUE WHEN busy > 0;

        INSERT INTO idgen.worker_lease (region, worker)
        SELECT p_region, w FROM generate_series(fw, fw + p_block - 1) AS w
        ON CONFLICT DO NOTHING;

        first_worker := fw;
        generation := coalesce(gen, 0) + 1;
        lease_until := p_now + p_ttl;
        start_after := greatest(node_floor, block_floor);
        -- the node's own durable note of its high-water mark outranks a
        -- registry that lost it (dropped, or restored from an old backup)
        IF p_local_floor IS NOT NULL
           AND (start_after IS NULL OR start_after < p_local_floor - p_local_slack) THEN
            PERFORM idgen.audit('registry_behind_node',
                format('registry high-water %s is behind the node''s local mark %s; starting above the local mark',
                       coalesce(start_after::text, 'none'), p_local_floor));
            start_after := p_local_floor;
        END IF;
        high_water := greatest(p_high_water, start_after + (p_high_water - p_now));

        UPDATE idgen.worker_lease AS l
        SET owner = p_owner, generation = acquire_node_lease.generation,
            lease_until = acquire_node_lease.lease_until,
            high_water = acquire_node_lease.high_water,
            node_sysid = p_sysid, timeline = p_timeline, ttl = p_ttl,
            acquired_at = p_now, renewed_at = p_now
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;

        PERFORM idgen.audit('lease_acquired',
            format('region %s workers %s-%s generation %s owner %s start_after %s',
                   p_region, fw, fw + p_block - 1, generation, p_owner,
                   coalesce(start_after::text, 'none')));
        RETURN;
    END LOOP;
    first_worker := -1;
END
$$;
