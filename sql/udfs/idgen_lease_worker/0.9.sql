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
    made boolean;
    ctl text := substring(owner FROM E'[\\x01-\\x1f\\x7f]');
    hold timestamptz;
    region_cap timestamptz;
    region_floor timestamptz;
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
    LOCK TABLE idgen.worker_lease IN ROW EXCLUSIVE MODE;
    PERFORM pg_advisory_xact_lock(1768186977, hashtext(idgen_lease_worker.owner));
    now := idgen.clock();

    -- after the registry's incarnation changed, leases it lost run out
    -- first: for the same owner too, whose lease here may be a copy older
    -- than the one it lost
    SELECT c.hold_until INTO hold FROM idgen.registry_incarnation_check() AS c;
    IF hold > now THEN
        RAISE EXCEPTION 'the registry grants no worker until %', hold
            USING ERRCODE = 'IR006',
                  DETAIL = 'The registry is a new incarnation (restarted, promoted or restored), so it may have lost leases it granted; it grants no worker until those have run out.',
                  HINT = 'Retry after that time.';
    END IF;
    my_region := coalesce(nullif(current_setting('idgen.region_id', true), ''), '0')::integer;
    -- a regional registry grants only inside a region lease it holds and
    -- never past its validity (G4; NULLs without a parent)
    SELECT b.lease_cap, b.start_floor INTO region_cap, region_floor
    FROM idgen.held_region_bounds(my_region, now, idgen.registry_drift_allowance(idgen_lease_worker.ttl)) AS b;
    -- an outside holder cannot be told where to start: the region's floor
    -- from the root must lie in the past
    IF region_floor >= now THEN
        RAISE EXCEPTION 'region % grants no worker until %', my_region, region_floor
            USING ERRCODE = 'IR006',
                  DETAIL = 'The region lease from the root starts above that floor, and an outside holder cannot be told to start above it.',
                  HINT = 'Retry after that time.';
    END IF;
    until := least(idgen.outside_lease_end(now, idgen_lease_worker.ttl), region_cap);

    -- the same owner asking again gets its lease back (a stable retry
    -- identity), by the renewal rule: never one that ends within the clock
    -- allowance, which a registry that lost writes may have granted again
    UPDATE idgen.worker_lease AS x
    SET lease_until = until,
        high_water = greatest(x.high_water, until),
        ttl = idgen_lease_worker.ttl, renewed_at = now
    FROM (SELECT c.region, c.worker FROM idgen.worker_lease AS c
          WHERE c.owner = idgen_lease_worker.owner AND c.node_sysid IS NULL
            AND c.lease_until > now + idgen.registry_clock_allowance()
          ORDER BY c.region, c.worker LIMIT 1
          FOR UPDATE) AS t
    WHERE x.region = t.region AND x.worker = t.worker
    RETURNING x.region, x.worker, x.generation, x.lease_until
    INTO region, worker, generation, lease_until;
    IF FOUND THEN
        RETURN;
    END IF;

    -- the narrowest worker field of the layout in force and every later one
    SELECT pg_catalog.min(e.worker_bits) INTO worker_bits FROM idgen.epoch AS e
    WHERE e.version >= (SELECT pg_catalog.max(x.version) FROM idgen.epoch AS x
                        WHERE x.start_time <= now);

    LOOP
        -- from the top of the worker range down (nodes take blocks from the
        -- bottom); an outside holder cannot be told where to start, so its
        -- worker's history must already lie in the past
        UPDATE idgen.worker_lease AS x
        SET owner = idgen_lease_worker.owner, generation = idgen.next_generation(x.generation),
            lease_until = until,
            high_water = until, grant_floor = coalesce(x.high_water, '-infinity'),
            node_sysid = NULL, ttl = idgen_lease_worker.ttl,
            acquired_at = now, renewed_at = now,
            drift_allowance = idgen.registry_drift_allowance(idgen_lease_worker.ttl)
        FROM (SELECT c.region, c.worker FROM idgen.worker_lease AS c
              WHERE c.region = my_region AND c.worker < (1 << worker_bits)
                AND (c.owner IS NULL OR (c.lease_until <= now AND c.node_sysid IS NULL))
                AND coalesce(c.high_water + coalesce(c.drift_allowance, interval '0'),
                             '-infinity') < now
              ORDER BY c.worker DESC LIMIT 1
              FOR UPDATE SKIP LOCKED) AS t
        WHERE x.region = t.region AND x.worker = t.worker
        RETURNING x.region, x.worker, x.generation, x.lease_until
        INTO region, worker, generation, lease_until;
        IF FOUND THEN
            PERFORM idgen.audit('worker_leased',
                format('region %s worker %s generation %s owner %s until %s',
                       region, worker, generation, idgen_lease_worker.owner, lease_until));
            RETURN;
        END IF;
        -- no row is free: make the highest one nobody has made yet, passing
        -- over one another session is making (its transaction may stay open)
        made := false;
        FOR w IN REVERSE (1 << worker_bits) - 1 .. 0 LOOP
            CONTINUE WHEN EXISTS (SELECT 1 FROM idgen.worker_lease AS c
                                  WHERE c.region = my_region AND c.worker = w);
            CONTINUE WHEN NOT pg_try_advisory_xact_lock(7596555481923411969 + my_region::bigint * 4194304 + w);
            INSERT INTO idgen.worker_lease (region, worker) VALUES (my_region, w)
            ON CONFLICT DO NOTHING;
            made := true;
            EXIT;
        END LOOP;
        EXIT WHEN NOT made;
    END LOOP;

    RAISE EXCEPTION 'no free worker id in region %', my_region
        USING ERRCODE = 'insufficient_resources',
              HINT = 'Release unused leases with idgen_release_worker() or wait for leases to expire.';
END
$$;
