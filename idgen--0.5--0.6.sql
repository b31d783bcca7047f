/* idgen--0.5--0.6.sql: changes since 0.5 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.6'" to load this file. \quit

-- ---------------------------------------------------------------------
-- min() and max() of both types (0.6).  They return the type itself, so
-- idgen_timestamp(max(id)) works; without them max(id) of an idgen went
-- through the implicit cast to bigint's max() and idgen128 had none.  An
-- idgen argument matches these exactly, so they win over bigint's.  The
-- sort operators let the planner answer them with a one-row index scan.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_larger(@extschema@.idgen, @extschema@.idgen) RETURNS @extschema@.idgen AS 'int8larger' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_larger(@extschema@.idgen, @extschema@.idgen) IS 'the larger of two idgen, the step of max()';
CREATE FUNCTION @extschema@.idgen_smaller(@extschema@.idgen, @extschema@.idgen) RETURNS @extschema@.idgen AS 'int8smaller' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_smaller(@extschema@.idgen, @extschema@.idgen) IS 'the smaller of two idgen, the step of min()';
CREATE FUNCTION @extschema@.idgen128_larger(@extschema@.idgen128, @extschema@.idgen128) RETURNS @extschema@.idgen128 AS 'MODULE_PATHNAME', 'idgen128_larger' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_larger(@extschema@.idgen128, @extschema@.idgen128) IS 'the larger of two idgen128, the step of max()';
CREATE FUNCTION @extschema@.idgen128_smaller(@extschema@.idgen128, @extschema@.idgen128) RETURNS @extschema@.idgen128 AS 'MODULE_PATHNAME', 'idgen128_smaller' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_smaller(@extschema@.idgen128, @extschema@.idgen128) IS 'the smaller of two idgen128, the step of min()';

CREATE AGGREGATE @extschema@.max(@extschema@.idgen) (
    SFUNC = @extschema@.idgen_larger, STYPE = @extschema@.idgen,
    COMBINEFUNC = @extschema@.idgen_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.idgen) IS 'the largest (latest) idgen; an index scan on a btree index';
CREATE AGGREGATE @extschema@.min(@extschema@.idgen) (
    SFUNC = @extschema@.idgen_smaller, STYPE = @extschema@.idgen,
    COMBINEFUNC = @extschema@.idgen_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.idgen) IS 'the smallest (earliest) idgen; an index scan on a btree index';
CREATE AGGREGATE @extschema@.max(@extschema@.idgen128) (
    SFUNC = @extschema@.idgen128_larger, STYPE = @extschema@.idgen128,
    COMBINEFUNC = @extschema@.idgen128_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.idgen128) IS 'the largest (latest) idgen128; an index scan on a btree index';
CREATE AGGREGATE @extschema@.min(@extschema@.idgen128) (
    SFUNC = @extschema@.idgen128_smaller, STYPE = @extschema@.idgen128,
    COMBINEFUNC = @extschema@.idgen128_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.idgen128) IS 'the smallest (earliest) idgen128; an index scan on a btree index';

-- ---------------------------------------------------------------------
-- TypeID text (0.6): "user_01h455vb4pex5vsknk084sn02q", a lower-case type
-- prefix, an underscore and the UUID in 26 characters of Crockford base32,
-- as the TypeID specification (version 0.3) writes it.  For the APIs that
-- show IDs that way; the column keeps its idgen128 or uuid.  Reading takes
-- the expected prefix: NULL (the default) accepts any, '' none.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_typeid(id @extschema@.idgen128, prefix text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_typeid(@extschema@.idgen128, text) IS 'TypeID text of a 128-bit ID behind a type prefix (empty: none)';
CREATE FUNCTION @extschema@.idgen_typeid(u uuid, prefix text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_typeid(uuid, text) IS 'TypeID text of any UUID behind a type prefix (empty: none)';
CREATE FUNCTION @extschema@.idgen128_from_typeid(t text, prefix text DEFAULT NULL) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_from_typeid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_from_typeid(text, text) IS 'the idgen128 of TypeID text; refuses another prefix than the one given, and a UUID that is not version 7';
CREATE FUNCTION @extschema@.uuid_from_typeid(t text, prefix text DEFAULT NULL) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_from_typeid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_from_typeid(text, text) IS 'the UUID of TypeID text, any version; refuses another prefix than the one given';
CREATE FUNCTION @extschema@.typeid_prefix(t text) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_prefix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_prefix(text) IS 'the type prefix of TypeID text (empty: none); refuses invalid TypeID text';

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
-- idgen-gateway: the answers it gave under an Idempotency-Key, kept for
-- idgen.request_retention so a retry gets the same IDs from any gateway of
-- the registry, also after a restart.  Written only by the gateway (its
-- role needs SELECT, INSERT, UPDATE and DELETE on it); dumped, so a retry
-- after a restore of the registry still gets its IDs.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.gateway_request (
    token       text NOT NULL,
    request_key text NOT NULL,
    width       smallint NOT NULL CHECK (width IN (64, 128)),
    count       integer NOT NULL CHECK (count >= 1),
    ids         text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (token, request_key)
);
CREATE INDEX ON idgen.gateway_request (created_at);
COMMENT ON TABLE idgen.gateway_request IS 'idgen-gateway''s answers under an Idempotency-Key, kept for idgen.request_retention so a retry gets the same IDs';
COMMENT ON COLUMN idgen.gateway_request.token IS 'name of the bearer token (from the gateway''s tokens file) that asked';
COMMENT ON COLUMN idgen.gateway_request.ids IS 'the JSON answer as sent: {"ids": [...]}';
REVOKE ALL ON idgen.gateway_request FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_request', '');
