/* idgen--0.3--0.4.sql: time predicates on IDs */

\echo Use "ALTER EXTENSION idgen UPDATE TO '0.4'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Time predicates: idgen and idgen128 compared with timestamptz by
-- millisecond, in the types' btree families, so
--     WHERE id >= now() - interval '1 day'
-- is an index range scan on the ID.  No cross-type "=": two timestamps in
-- one millisecond would both equal an ID, and the planner would conclude
-- they equal each other.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_lt_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_lt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_lt_ts(@extschema@.idgen, timestamptz) IS 'implementation of < between idgen and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen_le_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_le_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_le_ts(@extschema@.idgen, timestamptz) IS 'implementation of <= between idgen and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen_gt_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_gt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_gt_ts(@extschema@.idgen, timestamptz) IS 'implementation of > between idgen and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen_ge_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_ge_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_ge_ts(@extschema@.idgen, timestamptz) IS 'implementation of >= between idgen and timestamptz, by millisecond';
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.idgen, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen_lt_ts,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR @extschema@.< (@extschema@.idgen, timestamptz) IS 'the ID''s millisecond is earlier than the timestamp''s';
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.idgen, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen_le_ts,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR @extschema@.<= (@extschema@.idgen, timestamptz) IS 'the ID''s millisecond is not later than the timestamp''s';
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.idgen, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen_gt_ts,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR @extschema@.> (@extschema@.idgen, timestamptz) IS 'the ID''s millisecond is later than the timestamp''s';
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.idgen, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen_ge_ts,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR @extschema@.>= (@extschema@.idgen, timestamptz) IS 'the ID''s millisecond is not earlier than the timestamp''s';
CREATE FUNCTION @extschema@.idgen_cmp_ts(@extschema@.idgen, timestamptz) RETURNS integer AS 'MODULE_PATHNAME', 'idgen_cmp_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_cmp_ts(@extschema@.idgen, timestamptz) IS 'btree comparison of idgen with timestamptz by millisecond';
ALTER OPERATOR FAMILY @extschema@.idgen_ops USING btree ADD
    OPERATOR 1 @extschema@.< (@extschema@.idgen, timestamptz),
    OPERATOR 2 @extschema@.<= (@extschema@.idgen, timestamptz),
    OPERATOR 4 @extschema@.>= (@extschema@.idgen, timestamptz),
    OPERATOR 5 @extschema@.> (@extschema@.idgen, timestamptz),
    FUNCTION 1 (@extschema@.idgen, timestamptz) @extschema@.idgen_cmp_ts(@extschema@.idgen, timestamptz);

CREATE FUNCTION @extschema@.ts_lt_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_lt_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_lt_idgen(timestamptz, @extschema@.idgen) IS 'implementation of < between timestamptz and idgen, by millisecond';
CREATE FUNCTION @extschema@.ts_le_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_le_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_le_idgen(timestamptz, @extschema@.idgen) IS 'implementation of <= between timestamptz and idgen, by millisecond';
CREATE FUNCTION @extschema@.ts_gt_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_gt_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_gt_idgen(timestamptz, @extschema@.idgen) IS 'implementation of > between timestamptz and idgen, by millisecond';
CREATE FUNCTION @extschema@.ts_ge_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_ge_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_ge_idgen(timestamptz, @extschema@.idgen) IS 'implementation of >= between timestamptz and idgen, by millisecond';
CREATE OPERATOR @extschema@.< (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.ts_lt_idgen,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR @extschema@.< (timestamptz, @extschema@.idgen) IS 'the timestamp''s millisecond is earlier than the ID''s';
CREATE OPERATOR @extschema@.<= (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.ts_le_idgen,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR @extschema@.<= (timestamptz, @extschema@.idgen) IS 'the timestamp''s millisecond is not later than the ID''s';
CREATE OPERATOR @extschema@.> (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.ts_gt_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR @extschema@.> (timestamptz, @extschema@.idgen) IS 'the timestamp''s millisecond is later than the ID''s';
CREATE OPERATOR @extschema@.>= (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.ts_ge_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR @extschema@.>= (timestamptz, @extschema@.idgen) IS 'the timestamp''s millisecond is not earlier than the ID''s';
CREATE FUNCTION @extschema@.ts_cmp_idgen(timestamptz, @extschema@.idgen) RETURNS integer AS 'MODULE_PATHNAME', 'ts_cmp_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_cmp_idgen(timestamptz, @extschema@.idgen) IS 'btree comparison of timestamptz with idgen by millisecond';
ALTER OPERATOR FAMILY @extschema@.idgen_ops USING btree ADD
    OPERATOR 1 @extschema@.< (timestamptz, @extschema@.idgen),
    OPERATOR 2 @extschema@.<= (timestamptz, @extschema@.idgen),
    OPERATOR 4 @extschema@.>= (timestamptz, @extschema@.idgen),
    OPERATOR 5 @extschema@.> (timestamptz, @extschema@.idgen),
    FUNCTION 1 (timestamptz, @extschema@.idgen) @extschema@.ts_cmp_idgen(timestamptz, @extschema@.idgen);

CREATE FUNCTION @extschema@.idgen128_lt_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_lt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_lt_ts(@extschema@.idgen128, timestamptz) IS 'implementation of < between idgen128 and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen128_le_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_le_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_le_ts(@extschema@.idgen128, timestamptz) IS 'implementation of <= between idgen128 and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen128_gt_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_gt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_gt_ts(@extschema@.idgen128, timestamptz) IS 'implementation of > between idgen128 and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen128_ge_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_ge_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_ge_ts(@extschema@.idgen128, timestamptz) IS 'implementation of >= between idgen128 and timestamptz, by millisecond';
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.idgen128, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen128_lt_ts,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR @extschema@.< (@extschema@.idgen128, timestamptz) IS 'the ID''s millisecond is earlier than the timestamp''s';
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen128_le_ts,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR @extschema@.<= (@extschema@.idgen128, timestamptz) IS 'the ID''s millisecond is not later than the timestamp''s';
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.idgen128, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen128_gt_ts,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR @extschema@.> (@extschema@.idgen128, timestamptz) IS 'the ID''s millisecond is later than the timestamp''s';
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = timestamptz,
    FUNCTION = @extschema@.idgen128_ge_ts,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR @extschema@.>= (@extschema@.idgen128, timestamptz) IS 'the ID''s millisecond is not earlier than the timestamp''s';
CREATE FUNCTION @extschema@.idgen128_cmp_ts(@extschema@.idgen128, timestamptz) RETURNS integer AS 'MODULE_PATHNAME', 'idgen128_cmp_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_cmp_ts(@extschema@.idgen128, timestamptz) IS 'btree comparison of idgen128 with timestamptz by millisecond';
ALTER OPERATOR FAMILY @extschema@.idgen128_ops USING btree ADD
    OPERATOR 1 @extschema@.< (@extschema@.idgen128, timestamptz),
    OPERATOR 2 @extschema@.<= (@extschema@.idgen128, timestamptz),
    OPERATOR 4 @extschema@.>= (@extschema@.idgen128, timestamptz),
    OPERATOR 5 @extschema@.> (@extschema@.idgen128, timestamptz),
    FUNCTION 1 (@extschema@.idgen128, timestamptz) @extschema@.idgen128_cmp_ts(@extschema@.idgen128, timestamptz);

CREATE FUNCTION @extschema@.ts_lt_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_lt_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_lt_idgen128(timestamptz, @extschema@.idgen128) IS 'implementation of < between timestamptz and idgen128, by millisecond';
CREATE FUNCTION @extschema@.ts_le_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_le_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_le_idgen128(timestamptz, @extschema@.idgen128) IS 'implementation of <= between timestamptz and idgen128, by millisecond';
CREATE FUNCTION @extschema@.ts_gt_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_gt_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_gt_idgen128(timestamptz, @extschema@.idgen128) IS 'implementation of > between timestamptz and idgen128, by millisecond';
CREATE FUNCTION @extschema@.ts_ge_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_ge_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_ge_idgen128(timestamptz, @extschema@.idgen128) IS 'implementation of >= between timestamptz and idgen128, by millisecond';
CREATE OPERATOR @extschema@.< (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.ts_lt_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR @extschema@.< (timestamptz, @extschema@.idgen128) IS 'the timestamp''s millisecond is earlier than the ID''s';
CREATE OPERATOR @extschema@.<= (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.ts_le_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR @extschema@.<= (timestamptz, @extschema@.idgen128) IS 'the timestamp''s millisecond is not later than the ID''s';
CREATE OPERATOR @extschema@.> (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.ts_gt_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR @extschema@.> (timestamptz, @extschema@.idgen128) IS 'the timestamp''s millisecond is later than the ID''s';
CREATE OPERATOR @extschema@.>= (
    LEFTARG = timestamptz, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.ts_ge_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR @extschema@.>= (timestamptz, @extschema@.idgen128) IS 'the timestamp''s millisecond is not earlier than the ID''s';
CREATE FUNCTION @extschema@.ts_cmp_idgen128(timestamptz, @extschema@.idgen128) RETURNS integer AS 'MODULE_PATHNAME', 'ts_cmp_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ts_cmp_idgen128(timestamptz, @extschema@.idgen128) IS 'btree comparison of timestamptz with idgen128 by millisecond';
ALTER OPERATOR FAMILY @extschema@.idgen128_ops USING btree ADD
    OPERATOR 1 @extschema@.< (timestamptz, @extschema@.idgen128),
    OPERATOR 2 @extschema@.<= (timestamptz, @extschema@.idgen128),
    OPERATOR 4 @extschema@.>= (timestamptz, @extschema@.idgen128),
    OPERATOR 5 @extschema@.> (timestamptz, @extschema@.idgen128),
    FUNCTION 1 (timestamptz, @extschema@.idgen128) @extschema@.ts_cmp_idgen128(timestamptz, @extschema@.idgen128);

-- ---------------------------------------------------------------------
-- Migration: an existing bigint / bigserial / identity key becomes idgen
-- ---------------------------------------------------------------------

/*
 * Runs as its caller, who must own the table.  Everything happens in the
 * caller's transaction: either the column is converted and defaults to
 * idgen_next(), or nothing changed.
 */
CREATE FUNCTION @extschema@.idgen_convert_column(tbl regclass, col name) RETURNS void
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
COMMENT ON FUNCTION @extschema@.idgen_convert_column(regclass, name) IS 'turn a bigint/serial/identity column into idgen with DEFAULT idgen_next(); refuses if new IDs could not stay above existing values';
REVOKE ALL ON FUNCTION @extschema@.idgen_convert_column(regclass, name) FROM PUBLIC;
