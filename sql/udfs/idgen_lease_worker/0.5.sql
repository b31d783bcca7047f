CREATE OR REPLACE FUNCTION @extschema@.idgen_lease_worker(owner text, ttl interval,
    OUT region integer, OUT worker integer, OUT generation bigint, OUT lease_until timestamptz)
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    until timestamptz;
    my_region integer;
    worker_bits integer;
    w integer;
    l idgen.worker_lease;
    ctl text := substring(owner FROM E'[\\x01-\\x1f\\x7f]');
BEGIN
    PERFORM idgen.require_registry();
    IF ttl <= interval '0' OR ttl > interval '1 day' THEN
        RAISE EXCEPTION 'lease ttl must lie between 0 and 1 day, not %', ttl
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A lease''s end becomes its worker''s high-water mark: a far-off end would keep anyone from using the worker until then.';
    END IF;
    IF owner = '' OR owner LIKE 'node:%' THEN
        RAISE EXCEPTION 'invalid lease owner: "%"', owner
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'An owner is a non-empty name, and names starting with "node:" are reserved for idgen nodes.';
    END IF;
    -- the name is quoted in idgen_status(), idgen.fleet, the audit log and
    -- the server log, where it must read as what it is
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a lease owner must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. An owner name appears in idgen_status(), idgen.fleet and the audit log, so it must be printable.',
                                  strpos(owner, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    PERFORM idgen.lock_registry();
    now := idgen.clock();
    until := idgen.outside_lease_end(now, idgen_lease_worker.ttl);

    -- the same owner asking again gets its lease back: a stable retry identity
    SELECT * INTO l FROM idgen.worker_lease AS x
    WHERE x.owner = idgen_lease_worker.owner AND x.node_sysid IS NULL AND x.lease_until > now
    ORDER BY x.region, x.worker LIMIT 1
    FOR UPDATE;
    IF FOUND THEN
        UPDATE idgen.worker_lease AS x
        SET lease_until = until,
            high_water = greatest(x.high_water, until),
            ttl = idgen_lease_worker.ttl, renewed_at = now
        WHERE x.region = l.region AND x.worker = l.worker;
        region := l.region; worker := l.worker; generation := l.generation;
        lease_until := until;
        RETURN;
    END IF;

    my_region := coalesce(nullif(current_setting('idgen.region_id', true), ''), '0')::integer;
    -- the narrowest worker field of the layout in force and every later one
    SELECT pg_catalog.min(e.worker_bits) INTO worker_bits FROM idgen.epoch AS e
    WHERE e.version >= (SELECT pg_catalog.max(x.version) FROM idgen.epoch AS x
                        WHERE x.start_time <= now);

    -- from the top of the worker range down: nodes take blocks from the bottom
    FOR w IN REVERSE (1 << worker_bits) - 1 .. 0 LOOP
        INSERT INTO idgen.worker_lease (region, worker) VALUES (my_region, w)
        ON CONFLICT DO NOTHING;
        -- lock first: a renewal in flight must commit before we judge the row
        SELECT * INTO l FROM idgen.worker_lease AS x
        WHERE x.region = my_region AND x.worker = w
        FOR UPDATE;
        -- an outside holder cannot be told where to start, so its worker's
        -- history must already lie in the past
        CONTINUE WHEN NOT idgen.row_is_free(l, now, idgen.node_sysid(),
                                           coalesce(l.timeline, 0))
                  OR (l.node_sysid IS NOT NULL AND l.owner IS NOT NULL)
                  OR coalesce(l.high_water, '-infinity') >= now;
        UPDATE idgen.worker_lease AS x
        SET owner = idgen_lease_worker.owner, generation = x.generation + 1,
            lease_until = until,
            high_water = until,
            node_sysid = NULL, ttl = idgen_lease_worker.ttl,
            acquired_at = now, renewed_at = now
        WHERE x.region = my_region AND x.worker = w
        RETURNING x.region, x.worker, x.generation, x.lease_until
        INTO region, worker, generation, lease_until;
        PERFORM idgen.audit('worker_leased',
            format('region %s worker %s generation %s owner %s until %s',
                   region, worker, generation, idgen_lease_worker.owner, lease_until));
        RETURN;
    END LOOP;

    RAISE EXCEPTION 'no free worker id in region %', my_region
        USING ERRCODE = 'insufficient_resources',
              HINT = 'Release unused leases with idgen_release_worker() or wait for leases to expire.';
END
$$;
