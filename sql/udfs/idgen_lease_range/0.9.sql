CREATE OR REPLACE FUNCTION @extschema@.idgen_lease_range(owner text, count bigint, request_key text DEFAULT NULL,
    OUT range_start @extschema@.idgen, OUT range_end @extschema@.idgen, OUT generation bigint)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r idgen.range_lease;
    f idgen.range_floor;
    refusal text;
    top @extschema@.idgen;
    next_start bigint;
    ctl text;
BEGIN
    PERFORM idgen.require_registry();
    -- numeric ranges come from one space per deployment: two regional
    -- registries granting from it would hand out the same IDs
    IF pg_catalog.current_setting('idgen.parent_registry', true) <> '' THEN
        RAISE EXCEPTION 'cannot lease a range on a regional registry'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Numeric ranges are counted in one space for the whole deployment, which only the root registry (idgen.parent_registry) grants from; every regional registry granting its own would hand out the same IDs.',
                  HINT = 'Lease ranges from the root registry.';
    END IF;
    IF owner IS NULL OR owner = '' THEN
        RAISE EXCEPTION 'a range lease needs an owner' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF count IS NULL OR count < 1 THEN
        RAISE EXCEPTION 'range size must be at least 1, not %', count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF length(request_key) > 200 OR length(owner) > 200 THEN
        RAISE EXCEPTION 'a range owner and request key have at most 200 characters'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    ctl := substring(owner FROM E'[\\x01-\\x1f\\x7f]');
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a range owner must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. An owner name appears in the audit log, so it must be printable.',
                                  strpos(owner, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    ctl := substring(request_key FROM E'[\\x01-\\x1f\\x7f]');
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a request key must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. A range''s request key appears in the audit log, so it must be printable.',
                                  strpos(request_key, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    PERFORM idgen.lock_registry();

    -- the same key returns the same range: a lost client gets it back
    IF request_key IS NOT NULL THEN
        SELECT * INTO r FROM idgen.range_lease AS l
        WHERE l.owner = idgen_lease_range.owner AND l.request_key = idgen_lease_range.request_key;
        IF FOUND THEN
            IF r.range_end::bigint - r.range_start::bigint + 1 <> count THEN
                RAISE EXCEPTION 'request key "%" of owner "%" leased a range of % IDs, not %',
                                request_key, owner, r.range_end::bigint - r.range_start::bigint + 1, count
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            range_start := r.range_start;
            range_end := r.range_end;
            generation := r.generation;
            RETURN;
        END IF;
    END IF;

    SELECT * INTO f FROM idgen.range_floor FOR UPDATE;
    refusal := CASE WHEN FOUND THEN idgen.range_grant_refusal(f) ELSE 'idgen.range_floor has no row' END;
    IF refusal IS NOT NULL THEN
        SELECT max(l.range_end) INTO top FROM idgen.range_lease AS l;
        RAISE EXCEPTION 'no range is granted until an operator confirms the range floor'
            USING ERRCODE = 'IA006',
                  DETAIL = format('Range grants wait because %s: the registry may have lost ranges it granted, and the next grant would hand their IDs out again. The highest range it has ends at %s.',
                                  refusal, coalesce(top::text, 'none (no range)')),
                  HINT = 'Find the highest range ID any holder was granted (their own records, idgen_range_consumed reports, the audit log kept elsewhere) and run SELECT idgen_confirm_range_floor(''N'') with N above it; if the change lost nothing (a clean restart, a failover to a synchronous standby), N = 1 confirms the ranges the registry has. See docs/fleets.md, "Ranges after a restore".';
    END IF;

    SELECT coalesce(max(l.range_end::bigint) + 1, 1) INTO next_start FROM idgen.range_lease AS l;
    next_start := greatest(next_start, f.floor::bigint);
    IF count > idgen.range_space_end()::bigint - next_start THEN
        RAISE EXCEPTION 'the range space has no room for % more IDs', count
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('Ranges come from IDs below %s; %s of them are left.',
                                  idgen.range_space_end(), idgen.range_space_end()::bigint - next_start);
    END IF;
    range_start := next_start;
    range_end := next_start + count - 1;
    generation := pg_catalog.nextval('idgen.range_generation');
    -- a restore's SEQUENCE SET may have put the counter back below leases
    -- made since: a fencing token is never handed out twice
    SELECT greatest(idgen_lease_range.generation, pg_catalog.max(l.generation) + 1, f.generation_floor)
      INTO generation
    FROM idgen.range_lease AS l;
    IF generation > pg_catalog.currval('idgen.range_generation') THEN
        PERFORM pg_catalog.setval('idgen.range_generation', generation);
    END IF;
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
    -- the floor follows every grant, so a range_lease row deleted by hand
    -- is never granted again either
    UPDATE idgen.range_floor AS fl
    SET granting_xact = pg_catalog.pg_current_xact_id(),
        floor = greatest(fl.floor::bigint, range_end::bigint + 1)::@extschema@.idgen,
        generation_floor = greatest(fl.generation_floor, generation + 1);
    INSERT INTO idgen.range_lease (range_start, range_end, owner, generation, request_key)
    VALUES (range_start, range_end, owner, generation, request_key);
    PERFORM idgen.audit('range_leased',
        format('owner %s range %s-%s (%s IDs) generation %s key %s',
               owner, range_start, range_end, count, generation, coalesce(request_key, 'none')));
END
$$;
