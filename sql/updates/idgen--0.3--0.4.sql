/* idgen--0.3--0.4.sql: time predicates on IDs, migrating existing keys,
 * masked public IDs */

\echo Use "ALTER EXTENSION idgen UPDATE TO '0.4'" to load this file. \quit

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
-- Migration: an existing bigint / bigserial / identity key becomes idgen
-- ---------------------------------------------------------------------

/*
 * Runs as its caller, who must own the table.  Everything happens in the
 * caller's transaction: either the column is converted and defaults to
 * idgen_next(), or nothing changed.
 */
\ir ../udfs/idgen_convert_column/0.4.sql
COMMENT ON FUNCTION @extschema@.idgen_convert_column(regclass, name) IS 'turn a bigint/serial/identity column into idgen with DEFAULT idgen_next(); refuses if new IDs could not stay above existing values';
REVOKE ALL ON FUNCTION @extschema@.idgen_convert_column(regclass, name) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Masked public IDs: idgen_mask(id) is an opaque token that shows neither
-- the ID's time nor its order, region, worker or sequence, so it does not
-- tell how many IDs a system makes; idgen_unmask(token) gives the ID back.
-- A keyed permutation with a tag (src/mask.h); the keys are here, out of
-- PUBLIC's reach.  The newest key masks, every key unmasks.
-- ---------------------------------------------------------------------

-- no key is made here: a restored dump brings its own key 1, and one made
-- now would collide with it; the first idgen_mask() makes key 1
CREATE TABLE idgen.mask_key (
    key_id      smallint PRIMARY KEY CHECK (key_id BETWEEN 1 AND 255),
    secret      bytea NOT NULL CHECK (pg_catalog.length(secret) = 32),
    fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{16}$'),
    created_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    created_by  text NOT NULL DEFAULT pg_catalog."session_user"()
);
COMMENT ON TABLE idgen.mask_key IS 'keys of idgen_mask(): the highest key_id masks, every key unmasks; secret, never readable by PUBLIC';
COMMENT ON COLUMN idgen.mask_key.key_id IS 'the key''s number, written into each token it makes; never reused';
COMMENT ON COLUMN idgen.mask_key.secret IS '32 random bytes: 16 key the permutation, 16 key the token tag';
COMMENT ON COLUMN idgen.mask_key.fingerprint IS 'names the key without revealing it: hex of the first 8 bytes of SipHash-2-4 of "idgen-fingerprint" under the permutation key';
REVOKE ALL ON idgen.mask_key FROM PUBLIC;
-- keys must survive dump and restore, or every token ever handed out dies
SELECT pg_catalog.pg_extension_config_dump('idgen.mask_key', '');

-- rows alone do not invalidate the relcache: this tells every backend's key
-- cache about a rotation, a restore or a hand edit
CREATE FUNCTION idgen.mask_key_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'idgen_mask_key_changed' LANGUAGE C;
COMMENT ON FUNCTION idgen.mask_key_changed() IS 'trigger: makes every session read idgen.mask_key again';
REVOKE ALL ON FUNCTION idgen.mask_key_changed() FROM PUBLIC;
CREATE TRIGGER mask_key_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON idgen.mask_key
    FOR EACH STATEMENT EXECUTE FUNCTION idgen.mask_key_changed();

CREATE VIEW idgen.mask_key_info AS
SELECT k.key_id, k.fingerprint, k.created_at, k.created_by,
       k.key_id = pg_catalog.max(k.key_id) OVER () AS active
FROM idgen.mask_key AS k;
COMMENT ON VIEW idgen.mask_key_info IS 'mask keys without their secrets; active: the key that masks now';
REVOKE ALL ON idgen.mask_key_info FROM PUBLIC;

/*
 * SECURITY DEFINER, to read idgen.mask_key.  STABLE: a rotation changes
 * what idgen_mask() returns.  idgen_mask is PARALLEL UNSAFE because its
 * first call in a database writes key 1; unmasking only reads, and gives
 * the same ID in any process, so it is PARALLEL SAFE.
 */
CREATE FUNCTION @extschema@.idgen_mask(id @extschema@.idgen) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_mask'
    LANGUAGE C STABLE STRICT PARALLEL UNSAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen) IS 'opaque public token of an ID (20 characters): hides its time, order and the volume of IDs; idgen_unmask() turns it back';

CREATE FUNCTION @extschema@.idgen_mask(id @extschema@.idgen128) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen128_mask'
    LANGUAGE C STABLE STRICT PARALLEL UNSAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen128) IS 'opaque public token of a 128-bit ID (32 characters); idgen_unmask128() turns it back';

CREATE FUNCTION @extschema@.idgen_unmask(token text) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_unmask'
    LANGUAGE C STABLE STRICT PARALLEL SAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_unmask(text) IS 'the ID behind a token of idgen_mask(idgen), under any key this database ever had';

CREATE FUNCTION @extschema@.idgen_unmask128(token text) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen_unmask128'
    LANGUAGE C STABLE STRICT PARALLEL SAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_unmask128(text) IS 'the 128-bit ID behind a token of idgen_mask(idgen128)';

REVOKE ALL ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen128) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.idgen_unmask(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.idgen_unmask128(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen) TO PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen128) TO PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_unmask(text) TO PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_unmask128(text) TO PUBLIC;

-- an administrator's: a new key masks from now on, old tokens still unmask
CREATE FUNCTION @extschema@.idgen_rotate_mask_key() RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_rotate_mask_key'
    LANGUAGE C VOLATILE PARALLEL UNSAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_rotate_mask_key() IS 'add a mask key, which masks from now on (old tokens keep unmasking); returns its fingerprint; audited';
REVOKE ALL ON FUNCTION @extschema@.idgen_rotate_mask_key() FROM PUBLIC;
