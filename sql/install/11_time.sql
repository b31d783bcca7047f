-- ---------------------------------------------------------------------
-- Time predicates: idgen and idgen128 compared with timestamptz by
-- millisecond, so
--     WHERE id >= now() - interval '1 day'
-- is an index range scan on the ID.  The operators are not in the btree
-- families (every ID of a millisecond would compare "equal" to a timestamp
-- in it, which a btree descent cannot cope with); a planner support
-- function turns them into ID comparisons against the bounds of the
-- timestamp's millisecond instead.  No "=" either: two timestamps in one
-- millisecond would both equal an ID.
-- ---------------------------------------------------------------------

CREATE FUNCTION idgen.time_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'idgen_time_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.time_support(internal) IS 'planner support: index conditions for ID-vs-timestamp comparisons';
REVOKE ALL ON FUNCTION idgen.time_support(internal) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen128_min_at(ts timestamptz) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_min_at' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_min_at(timestamptz) IS 'lowest UUIDv7 of that millisecond, for index range scans';
CREATE FUNCTION @extschema@.idgen128_max_at(ts timestamptz) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_max_at' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_max_at(timestamptz) IS 'highest UUIDv7 of that millisecond, for index range scans';

CREATE FUNCTION @extschema@.idgen_lt_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_lt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.idgen_lt_ts(@extschema@.idgen, timestamptz) IS 'implementation of < between idgen and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen_le_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_le_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.idgen_le_ts(@extschema@.idgen, timestamptz) IS 'implementation of <= between idgen and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen_gt_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_gt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.idgen_gt_ts(@extschema@.idgen, timestamptz) IS 'implementation of > between idgen and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen_ge_ts(@extschema@.idgen, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen_ge_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
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

CREATE FUNCTION @extschema@.ts_lt_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_lt_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.ts_lt_idgen(timestamptz, @extschema@.idgen) IS 'implementation of < between timestamptz and idgen, by millisecond';
CREATE FUNCTION @extschema@.ts_le_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_le_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.ts_le_idgen(timestamptz, @extschema@.idgen) IS 'implementation of <= between timestamptz and idgen, by millisecond';
CREATE FUNCTION @extschema@.ts_gt_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_gt_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.ts_gt_idgen(timestamptz, @extschema@.idgen) IS 'implementation of > between timestamptz and idgen, by millisecond';
CREATE FUNCTION @extschema@.ts_ge_idgen(timestamptz, @extschema@.idgen) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_ge_idgen' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
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

CREATE FUNCTION @extschema@.idgen128_lt_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_lt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.idgen128_lt_ts(@extschema@.idgen128, timestamptz) IS 'implementation of < between idgen128 and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen128_le_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_le_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.idgen128_le_ts(@extschema@.idgen128, timestamptz) IS 'implementation of <= between idgen128 and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen128_gt_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_gt_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.idgen128_gt_ts(@extschema@.idgen128, timestamptz) IS 'implementation of > between idgen128 and timestamptz, by millisecond';
CREATE FUNCTION @extschema@.idgen128_ge_ts(@extschema@.idgen128, timestamptz) RETURNS boolean AS 'MODULE_PATHNAME', 'idgen128_ge_ts' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
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

CREATE FUNCTION @extschema@.ts_lt_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_lt_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.ts_lt_idgen128(timestamptz, @extschema@.idgen128) IS 'implementation of < between timestamptz and idgen128, by millisecond';
CREATE FUNCTION @extschema@.ts_le_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_le_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.ts_le_idgen128(timestamptz, @extschema@.idgen128) IS 'implementation of <= between timestamptz and idgen128, by millisecond';
CREATE FUNCTION @extschema@.ts_gt_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_gt_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
COMMENT ON FUNCTION @extschema@.ts_gt_idgen128(timestamptz, @extschema@.idgen128) IS 'implementation of > between timestamptz and idgen128, by millisecond';
CREATE FUNCTION @extschema@.ts_ge_idgen128(timestamptz, @extschema@.idgen128) RETURNS boolean AS 'MODULE_PATHNAME', 'ts_ge_idgen128' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE
    SUPPORT idgen.time_support;
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


-- ---------------------------------------------------------------------
-- Time predicates prune partitions (0.6).  When a query is planned, the
-- support function of the ID-vs-timestamptz operators (idgen.time_support)
-- puts in their place equal comparisons of the ID with these bounds (see
-- src/timecmp.c): id >= ts becomes id >= idgen.ids_from(ts) AND
-- id > idgen.ids_before(ts), id < ts becomes id <= idgen.ids_before(ts),
-- and so on.  Those operators are in the btree families, so a table
-- PARTITION BY RANGE (id) scans only the partitions of the time range.
-- Queries call the bounds, so PUBLIC may.
-- ---------------------------------------------------------------------

CREATE FUNCTION idgen.ids_before(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_before' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_before(timestamptz) IS 'the highest idgen earlier than the millisecond of ts, -1 if none: id < ts is id <= this';
CREATE FUNCTION idgen.ids_through(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_through' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_through(timestamptz) IS 'the highest idgen not later than the millisecond of ts, -1 if none: id <= ts is id <= this';
CREATE FUNCTION idgen.ids_from(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_from' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_from(timestamptz) IS 'the lowest idgen not earlier than the millisecond of ts (the largest idgen if none is): id >= ts is id >= this and id > idgen.ids_before(ts)';
CREATE FUNCTION idgen.ids_after(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_after' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_after(timestamptz) IS 'the lowest idgen later than the millisecond of ts (the largest idgen if none is): id > ts is id >= this and id > idgen.ids_through(ts)';
CREATE FUNCTION idgen.ids128_from(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_ids128_from' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids128_from(timestamptz) IS 'the lowest idgen128 not earlier than the millisecond of ts (all ones if none is): id >= ts is id >= this, id < ts is id < this';
CREATE FUNCTION idgen.ids128_after(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_ids128_after' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids128_after(timestamptz) IS 'the lowest idgen128 later than the millisecond of ts (all ones if none is): id > ts is id >= this, id <= ts is id < this';
