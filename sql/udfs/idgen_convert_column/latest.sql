CREATE OR REPLACE FUNCTION @extschema@.idgen_convert_column(tbl regclass, col name) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    att pg_attribute;
    lo bigint;
    hi bigint;
    floor_id bigint;
    owned_seq regclass;
    is_identity boolean;
BEGIN
    SELECT * INTO att FROM pg_attribute AS a
    WHERE a.attrelid = tbl AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', col, tbl
            USING ERRCODE = 'undefined_column';
    END IF;
    IF att.atttypid = '@extschema@.idgen'::regtype THEN
        RAISE EXCEPTION 'column "%" of relation % is already an idgen', col, tbl
            USING ERRCODE = 'duplicate_object';
    END IF;
    IF att.atttypid NOT IN ('bigint'::regtype, 'integer'::regtype) THEN
        RAISE EXCEPTION 'column "%" of relation % is of type %, not bigint or integer',
                        col, tbl, att.atttypid::regtype
            USING ERRCODE = 'datatype_mismatch';
    END IF;

    -- no writer may add values while we look at them
    EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', tbl);
    EXECUTE format('SELECT min(%1$I)::bigint, max(%1$I)::bigint FROM %2$s', col, tbl) INTO lo, hi;

    IF lo < 0 THEN
        RAISE EXCEPTION 'column "%" of relation % holds negative values (the lowest is %)', col, tbl, lo
            USING ERRCODE = 'numeric_value_out_of_range',
                  DETAIL = 'An idgen is never negative.';
    END IF;
    -- every ID issued from now on must lie above every existing value
    floor_id := @extschema@.idgen_min_at(idgen.clock())::bigint;
    IF hi >= floor_id THEN
        RAISE EXCEPTION 'column "%" of relation % holds values up to %, which the IDs idgen issues now (from %) would not stay above',
                        col, tbl, hi, floor_id
            USING ERRCODE = 'numeric_value_out_of_range',
                  DETAIL = 'New IDs must sort above every existing value, or they could collide with one.',
                  HINT = 'Renumber the column below the current IDs first.';
    END IF;

    is_identity := att.attidentity <> '';
    owned_seq := pg_get_serial_sequence(tbl::text, col)::regclass;
    IF is_identity THEN
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY', tbl, col);
    ELSE
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP DEFAULT', tbl, col);
        IF owned_seq IS NOT NULL THEN
            RAISE NOTICE 'dropping sequence %, which fed column "%"', owned_seq, col;
            EXECUTE format('DROP SEQUENCE %s', owned_seq);
        END IF;
    END IF;
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE @extschema@.idgen USING %I::bigint::@extschema@.idgen',
                   tbl, col, col);
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT @extschema@.idgen_next()', tbl, col);

    IF hi IS NOT NULL AND hi < idgen.range_space_end()::bigint THEN
        RAISE WARNING 'the existing values % to % of %.% lie in the range space', lo, hi, tbl, col
            USING DETAIL = 'Numeric ranges (idgen_lease_range) are carved from the same IDs.',
                  HINT = format('If you use ranges, reserve them first: SELECT idgen_lease_range(%L, %s) in database %s.',
                                'converted ' || tbl::text || '.' || col, hi + 1,
                                coalesce(current_setting('idgen.database', true), 'postgres'));
    END IF;
    INSERT INTO idgen.audit_log (action, detail)
    VALUES ('convert_column', format('%s.%s from %s, values %s to %s', tbl, col,
                                     att.atttypid::regtype, coalesce(lo::text, 'none'),
                                     coalesce(hi::text, 'none')));
END
$$;
