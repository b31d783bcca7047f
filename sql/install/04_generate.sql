-- ---------------------------------------------------------------------
-- Generating (VOLATILE; PARALLEL SAFE because all state is in shared
-- memory, so a parallel worker draws from the same clock)
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_next() RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_next' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_next() IS 'next 64-bit ID of this node; needs shared_preload_libraries = ''idgen''';

CREATE FUNCTION @extschema@.idgen_next_batch(count integer) RETURNS SETOF @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_next_batch' LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION @extschema@.idgen_next_batch(integer) IS 'count IDs reserved in one step, ascending; 0 gives none, a negative count is an error';

-- ---------------------------------------------------------------------
-- Decoding (IMMUTABLE: an issued ID's meaning never changes)
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_decode(id @extschema@.idgen,
    OUT ts timestamptz, OUT region integer, OUT worker integer, OUT seq integer, OUT epoch integer)
    AS 'MODULE_PATHNAME', 'idgen_decode' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_decode(@extschema@.idgen) IS 'unpack an ID: time, region, worker, sequence and layout epoch';

CREATE FUNCTION @extschema@.idgen_timestamp(id @extschema@.idgen) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_timestamp(@extschema@.idgen) IS 'the millisecond an ID was issued in';

-- STABLE, not IMMUTABLE: a later layout may change what a future instant maps to
CREATE FUNCTION @extschema@.idgen_min_at(ts timestamptz) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_min_at' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_min_at(timestamptz) IS 'lowest ID any node can issue in that millisecond, for index range scans';

CREATE FUNCTION @extschema@.idgen_max_at(ts timestamptz) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_max_at' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_max_at(timestamptz) IS 'highest ID any node can issue in that millisecond, for index range scans';

-- ---------------------------------------------------------------------
-- Status
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_status(
    OUT state text, OUT reason text,
    OUT region integer, OUT worker integer, OUT workers integer,
    OUT generation bigint, OUT lease_until timestamptz,
    OUT logical_clock timestamptz, OUT wall_clock timestamptz, OUT drift_ms bigint,
    OUT horizon timestamptz,
    OUT ids_issued bigint, OUT batches bigint, OUT sequence_exhaustions bigint,
    OUT clock_rollbacks bigint, OUT clock_waits bigint, OUT clock_wait_ms bigint,
    OUT clock_refusals bigint,
    OUT owner text, OUT high_water timestamptz, OUT lease_renewals bigint,
    OUT lease_failures bigint, OUT fencing_events bigint,
    OUT clock_jumps_forward bigint, OUT clock_steps_back bigint,
    OUT registry text, OUT clock_skew_ms bigint,
    OUT registry_incarnation text, OUT last_registry_answer timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_status' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_status() IS 'this node''s generator: state and why, lease, logical vs wall clock, counters, registry, its incarnation and last answer, and clock skew';

-- ---------------------------------------------------------------------
-- Generating and decoding idgen128
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_next128() RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen_next128' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_next128() IS 'next 128-bit ID (a UUIDv7) of this node; needs shared_preload_libraries = ''idgen''';

CREATE FUNCTION @extschema@.idgen_next128_batch(count integer) RETURNS SETOF @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen_next128_batch' LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION @extschema@.idgen_next128_batch(integer) IS 'count 128-bit IDs reserved in one step, ascending';

CREATE FUNCTION @extschema@.idgen_decode(id @extschema@.idgen128,
    OUT ts timestamptz, OUT region integer, OUT worker integer, OUT seq integer, OUT epoch integer)
    AS 'MODULE_PATHNAME', 'idgen128_decode' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_decode(@extschema@.idgen128) IS 'unpack a 128-bit ID: time, region, worker, sequence and layout epoch';

CREATE FUNCTION @extschema@.idgen_timestamp(id @extschema@.idgen128) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen128_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_timestamp(@extschema@.idgen128) IS 'the millisecond of a 128-bit ID';
