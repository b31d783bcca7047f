CREATE OR REPLACE FUNCTION @extschema@.idgen_lease_range(owner text, count bigint, request_key text DEFAULT NULL,
    OUT range_start @extschema@.idgen, OUT range_end @extschema@.idgen, OUT generation bigint)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r idgen.range_lease;
    next_start bigint;
BEGIN
    PERFORM idgen.require_registry();
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

    SELECT coalesce(max(l.range_end::bigint) + 1, 1) INTO next_start FROM idgen.range_lease AS l;
    IF count > idgen.range_space_end()::bigint - next_start THEN
        RAISE EXCEPTION 'the range space has no room for % more IDs', count
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('Ranges come from IDs below %s; %s of them are left.',
                                  idgen.range_space_end(), idgen.range_space_end()::bigint - next_start);
    END IF;
    range_start := next_start;
    range_end := next_start + count - 1;
    generation := pg_catalog.nextval('idgen.range_generation');
    INSERT INTO idgen.range_lease (range_start, range_end, owner, generation, request_key)
    VALUES (range_start, range_end, owner, generation, request_key);
    PERFORM idgen.audit('range_leased',
        format('owner %s range %s-%s (%s IDs) generation %s key %s',
               owner, range_start, range_end, count, generation, coalesce(request_key, 'none')));
END
$$;
