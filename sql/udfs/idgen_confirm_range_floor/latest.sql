CREATE OR REPLACE FUNCTION @extschema@.idgen_confirm_range_floor(floor @extschema@.idgen)
    RETURNS @extschema@.idgen
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    f idgen.range_floor;
    was text;
    top bigint;
    v_floor bigint;
    v_gen bigint;
BEGIN
    PERFORM idgen.require_registry();
    IF floor::bigint < 1 OR floor >= idgen.range_space_end() THEN
        RAISE EXCEPTION 'a range floor lies in the range space, 1 to %, not %',
                        idgen.range_space_end()::bigint - 1, floor
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM idgen.lock_registry();
    SELECT * INTO f FROM idgen.range_floor FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO idgen.range_floor DEFAULT VALUES RETURNING * INTO f;
    END IF;
    was := coalesce(idgen.range_grant_refusal(f), 'grants went on');
    SELECT max(l.range_end::bigint) INTO top FROM idgen.range_lease AS l;
    v_floor := greatest(f.floor::bigint, idgen_confirm_range_floor.floor::bigint, coalesce(top + 1, 1));
    IF v_floor >= idgen.range_space_end()::bigint THEN
        v_floor := idgen.range_space_end()::bigint - 1;
    END IF;
    SELECT greatest(f.generation_floor, coalesce(max(l.generation) + 1, 1),
                    (SELECT s.last_value + 1 FROM idgen.range_generation AS s),
                    floor(extract(epoch FROM idgen.clock() + 2 * idgen.registry_clock_allowance() + interval '1 s')
                          * 1000000)::bigint)
      INTO v_gen
    FROM idgen.range_lease AS l;
    PERFORM pg_catalog.setval('idgen.range_generation', v_gen, false);
    -- the restore trigger must not see this row as a restored one
    UPDATE idgen.range_floor AS r
    SET floor = v_floor::@extschema@.idgen, generation_floor = v_gen,
        incarnation = idgen.range_incarnation(), confirmed_at = pg_catalog.clock_timestamp(),
        confirmed_by = pg_catalog."session_user"(), waiting_reason = NULL;
    PERFORM idgen.audit('range_floor_confirmed',
        format('ranges start at %s or above (floor given %s, highest range end held %s), generations at %s or above, in incarnation %s; before: %s',
               v_floor, idgen_confirm_range_floor.floor, coalesce(top::text, 'none'), v_gen,
               idgen.range_incarnation(), was));
    RETURN v_floor::@extschema@.idgen;
END
$$;
