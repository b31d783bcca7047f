/* idgen--0.2--0.3.sql: idgen128 (a UUIDv7 that decodes), retry-safe
 * batches, numeric range leases */

\echo Use "ALTER EXTENSION idgen UPDATE TO '0.3'" to load this file. \quit

-- ---------------------------------------------------------------------
-- The 128-bit type.  Stored like uuid, so comparison, hashing, sorting
-- (abbreviated keys included) and BRIN reuse PostgreSQL's uuid internals;
-- input, receive and the cast from uuid check that a value is a UUIDv7.
-- ---------------------------------------------------------------------

CREATE TYPE @extschema@.idgen128;

CREATE FUNCTION @extschema@.idgen128_in(cstring) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen128_out(@extschema@.idgen128) RETURNS cstring
    AS 'MODULE_PATHNAME', 'idgen128_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen128_recv(internal) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen128_send(@extschema@.idgen128) RETURNS bytea
    AS 'uuid_send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.idgen128 (
    INPUT = @extschema@.idgen128_in,
    OUTPUT = @extschema@.idgen128_out,
    RECEIVE = @extschema@.idgen128_recv,
    SEND = @extschema@.idgen128_send,
    LIKE = pg_catalog.uuid
);

COMMENT ON TYPE @extschema@.idgen128 IS 'unique, time-sortable 128-bit ID: an RFC 9562 UUIDv7 with region, worker and sequence inside';
COMMENT ON FUNCTION @extschema@.idgen128_in(cstring) IS 'text input of idgen128: UUID text of a version 7 value';
COMMENT ON FUNCTION @extschema@.idgen128_out(@extschema@.idgen128) IS 'text output of idgen128, canonical lowercase';
COMMENT ON FUNCTION @extschema@.idgen128_recv(internal) IS 'binary input of idgen128, uuid wire format';
COMMENT ON FUNCTION @extschema@.idgen128_send(@extschema@.idgen128) IS 'binary output of idgen128, uuid wire format';

CREATE FUNCTION @extschema@.idgen128_eq(@extschema@.idgen128, @extschema@.idgen128) RETURNS boolean AS 'uuid_eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_eq(@extschema@.idgen128, @extschema@.idgen128) IS 'implementation of = between idgen128 and idgen128';
CREATE FUNCTION @extschema@.idgen128_ne(@extschema@.idgen128, @extschema@.idgen128) RETURNS boolean AS 'uuid_ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_ne(@extschema@.idgen128, @extschema@.idgen128) IS 'implementation of <> between idgen128 and idgen128';
CREATE FUNCTION @extschema@.idgen128_lt(@extschema@.idgen128, @extschema@.idgen128) RETURNS boolean AS 'uuid_lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_lt(@extschema@.idgen128, @extschema@.idgen128) IS 'implementation of < between idgen128 and idgen128';
CREATE FUNCTION @extschema@.idgen128_le(@extschema@.idgen128, @extschema@.idgen128) RETURNS boolean AS 'uuid_le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_le(@extschema@.idgen128, @extschema@.idgen128) IS 'implementation of <= between idgen128 and idgen128';
CREATE FUNCTION @extschema@.idgen128_gt(@extschema@.idgen128, @extschema@.idgen128) RETURNS boolean AS 'uuid_gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_gt(@extschema@.idgen128, @extschema@.idgen128) IS 'implementation of > between idgen128 and idgen128';
CREATE FUNCTION @extschema@.idgen128_ge(@extschema@.idgen128, @extschema@.idgen128) RETURNS boolean AS 'uuid_ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_ge(@extschema@.idgen128, @extschema@.idgen128) IS 'implementation of >= between idgen128 and idgen128';
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.idgen128_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
COMMENT ON OPERATOR @extschema@.= (@extschema@.idgen128, @extschema@.idgen128) IS 'equal: idgen128 = idgen128';
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.idgen128, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.idgen128_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR @extschema@.<> (@extschema@.idgen128, @extschema@.idgen128) IS 'not equal: idgen128 <> idgen128';
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.idgen128, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.idgen128_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR @extschema@.< (@extschema@.idgen128, @extschema@.idgen128) IS 'less than: idgen128 < idgen128';
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.idgen128_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR @extschema@.<= (@extschema@.idgen128, @extschema@.idgen128) IS 'less than or equal: idgen128 <= idgen128';
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.idgen128, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.idgen128_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR @extschema@.> (@extschema@.idgen128, @extschema@.idgen128) IS 'greater than: idgen128 > idgen128';
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.idgen128_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR @extschema@.>= (@extschema@.idgen128, @extschema@.idgen128) IS 'greater than or equal: idgen128 >= idgen128';
CREATE FUNCTION @extschema@.idgen128_eq_uuid(@extschema@.idgen128, uuid) RETURNS boolean AS 'uuid_eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_eq_uuid(@extschema@.idgen128, uuid) IS 'implementation of = between idgen128 and uuid';
CREATE FUNCTION @extschema@.idgen128_ne_uuid(@extschema@.idgen128, uuid) RETURNS boolean AS 'uuid_ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_ne_uuid(@extschema@.idgen128, uuid) IS 'implementation of <> between idgen128 and uuid';
CREATE FUNCTION @extschema@.idgen128_lt_uuid(@extschema@.idgen128, uuid) RETURNS boolean AS 'uuid_lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_lt_uuid(@extschema@.idgen128, uuid) IS 'implementation of < between idgen128 and uuid';
CREATE FUNCTION @extschema@.idgen128_le_uuid(@extschema@.idgen128, uuid) RETURNS boolean AS 'uuid_le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_le_uuid(@extschema@.idgen128, uuid) IS 'implementation of <= between idgen128 and uuid';
CREATE FUNCTION @extschema@.idgen128_gt_uuid(@extschema@.idgen128, uuid) RETURNS boolean AS 'uuid_gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_gt_uuid(@extschema@.idgen128, uuid) IS 'implementation of > between idgen128 and uuid';
CREATE FUNCTION @extschema@.idgen128_ge_uuid(@extschema@.idgen128, uuid) RETURNS boolean AS 'uuid_ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_ge_uuid(@extschema@.idgen128, uuid) IS 'implementation of >= between idgen128 and uuid';
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = uuid,
    FUNCTION = @extschema@.idgen128_eq_uuid,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
COMMENT ON OPERATOR @extschema@.= (@extschema@.idgen128, uuid) IS 'equal: idgen128 = uuid';
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.idgen128, RIGHTARG = uuid,
    FUNCTION = @extschema@.idgen128_ne_uuid,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR @extschema@.<> (@extschema@.idgen128, uuid) IS 'not equal: idgen128 <> uuid';
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.idgen128, RIGHTARG = uuid,
    FUNCTION = @extschema@.idgen128_lt_uuid,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR @extschema@.< (@extschema@.idgen128, uuid) IS 'less than: idgen128 < uuid';
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = uuid,
    FUNCTION = @extschema@.idgen128_le_uuid,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR @extschema@.<= (@extschema@.idgen128, uuid) IS 'less than or equal: idgen128 <= uuid';
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.idgen128, RIGHTARG = uuid,
    FUNCTION = @extschema@.idgen128_gt_uuid,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR @extschema@.> (@extschema@.idgen128, uuid) IS 'greater than: idgen128 > uuid';
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.idgen128, RIGHTARG = uuid,
    FUNCTION = @extschema@.idgen128_ge_uuid,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR @extschema@.>= (@extschema@.idgen128, uuid) IS 'greater than or equal: idgen128 >= uuid';
CREATE FUNCTION @extschema@.uuid_eq_idgen128(uuid, @extschema@.idgen128) RETURNS boolean AS 'uuid_eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_eq_idgen128(uuid, @extschema@.idgen128) IS 'implementation of = between uuid and idgen128';
CREATE FUNCTION @extschema@.uuid_ne_idgen128(uuid, @extschema@.idgen128) RETURNS boolean AS 'uuid_ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_ne_idgen128(uuid, @extschema@.idgen128) IS 'implementation of <> between uuid and idgen128';
CREATE FUNCTION @extschema@.uuid_lt_idgen128(uuid, @extschema@.idgen128) RETURNS boolean AS 'uuid_lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_lt_idgen128(uuid, @extschema@.idgen128) IS 'implementation of < between uuid and idgen128';
CREATE FUNCTION @extschema@.uuid_le_idgen128(uuid, @extschema@.idgen128) RETURNS boolean AS 'uuid_le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_le_idgen128(uuid, @extschema@.idgen128) IS 'implementation of <= between uuid and idgen128';
CREATE FUNCTION @extschema@.uuid_gt_idgen128(uuid, @extschema@.idgen128) RETURNS boolean AS 'uuid_gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_gt_idgen128(uuid, @extschema@.idgen128) IS 'implementation of > between uuid and idgen128';
CREATE FUNCTION @extschema@.uuid_ge_idgen128(uuid, @extschema@.idgen128) RETURNS boolean AS 'uuid_ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_ge_idgen128(uuid, @extschema@.idgen128) IS 'implementation of >= between uuid and idgen128';
CREATE OPERATOR @extschema@.= (
    LEFTARG = uuid, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.uuid_eq_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
COMMENT ON OPERATOR @extschema@.= (uuid, @extschema@.idgen128) IS 'equal: uuid = idgen128';
CREATE OPERATOR @extschema@.<> (
    LEFTARG = uuid, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.uuid_ne_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR @extschema@.<> (uuid, @extschema@.idgen128) IS 'not equal: uuid <> idgen128';
CREATE OPERATOR @extschema@.< (
    LEFTARG = uuid, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.uuid_lt_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR @extschema@.< (uuid, @extschema@.idgen128) IS 'less than: uuid < idgen128';
CREATE OPERATOR @extschema@.<= (
    LEFTARG = uuid, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.uuid_le_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR @extschema@.<= (uuid, @extschema@.idgen128) IS 'less than or equal: uuid <= idgen128';
CREATE OPERATOR @extschema@.> (
    LEFTARG = uuid, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.uuid_gt_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR @extschema@.> (uuid, @extschema@.idgen128) IS 'greater than: uuid > idgen128';
CREATE OPERATOR @extschema@.>= (
    LEFTARG = uuid, RIGHTARG = @extschema@.idgen128,
    FUNCTION = @extschema@.uuid_ge_idgen128,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR @extschema@.>= (uuid, @extschema@.idgen128) IS 'greater than or equal: uuid >= idgen128';

CREATE FUNCTION @extschema@.idgen128_cmp(@extschema@.idgen128, @extschema@.idgen128) RETURNS integer AS 'uuid_cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen128_cmp_uuid(@extschema@.idgen128, uuid) RETURNS integer AS 'uuid_cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.uuid_cmp_idgen128(uuid, @extschema@.idgen128) RETURNS integer AS 'uuid_cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen128_sortsupport(internal) RETURNS void AS 'uuid_sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen128_hash(@extschema@.idgen128) RETURNS integer AS 'uuid_hash' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen128_hash_extended(@extschema@.idgen128, bigint) RETURNS bigint AS 'uuid_hash_extended' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_cmp(@extschema@.idgen128, @extschema@.idgen128) IS 'btree comparison of idgen128';
COMMENT ON FUNCTION @extschema@.idgen128_cmp_uuid(@extschema@.idgen128, uuid) IS 'btree comparison of idgen128 with uuid';
COMMENT ON FUNCTION @extschema@.uuid_cmp_idgen128(uuid, @extschema@.idgen128) IS 'btree comparison of uuid with idgen128';
COMMENT ON FUNCTION @extschema@.idgen128_sortsupport(internal) IS 'btree sort support of idgen128, with abbreviated keys';
COMMENT ON FUNCTION @extschema@.idgen128_hash(@extschema@.idgen128) IS 'hash of idgen128, equal to the hash of the same uuid';
COMMENT ON FUNCTION @extschema@.idgen128_hash_extended(@extschema@.idgen128, bigint) IS 'seeded 64-bit hash of idgen128, for hash partitioning';

CREATE OPERATOR FAMILY @extschema@.idgen128_ops USING btree;
COMMENT ON OPERATOR FAMILY @extschema@.idgen128_ops USING btree IS 'btree operators of idgen128, with uuid';
-- btequalimage: equal values are bitwise equal, so deduplication is safe
CREATE OPERATOR CLASS @extschema@.idgen128_ops
    DEFAULT FOR TYPE @extschema@.idgen128 USING btree FAMILY @extschema@.idgen128_ops AS
    OPERATOR 1 @extschema@.< ,
    OPERATOR 2 @extschema@.<= ,
    OPERATOR 3 @extschema@.= ,
    OPERATOR 4 @extschema@.>= ,
    OPERATOR 5 @extschema@.> ,
    FUNCTION 1 @extschema@.idgen128_cmp(@extschema@.idgen128, @extschema@.idgen128),
    FUNCTION 2 @extschema@.idgen128_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);
COMMENT ON OPERATOR CLASS @extschema@.idgen128_ops USING btree IS 'default btree operator class of idgen128';

ALTER OPERATOR FAMILY @extschema@.idgen128_ops USING btree ADD
    OPERATOR 1 @extschema@.< (@extschema@.idgen128, uuid),
    OPERATOR 2 @extschema@.<= (@extschema@.idgen128, uuid),
    OPERATOR 3 @extschema@.= (@extschema@.idgen128, uuid),
    OPERATOR 4 @extschema@.>= (@extschema@.idgen128, uuid),
    OPERATOR 5 @extschema@.> (@extschema@.idgen128, uuid),
    FUNCTION 1 (@extschema@.idgen128, uuid) @extschema@.idgen128_cmp_uuid(@extschema@.idgen128, uuid),
    OPERATOR 1 @extschema@.< (uuid, @extschema@.idgen128),
    OPERATOR 2 @extschema@.<= (uuid, @extschema@.idgen128),
    OPERATOR 3 @extschema@.= (uuid, @extschema@.idgen128),
    OPERATOR 4 @extschema@.>= (uuid, @extschema@.idgen128),
    OPERATOR 5 @extschema@.> (uuid, @extschema@.idgen128),
    FUNCTION 1 (uuid, @extschema@.idgen128) @extschema@.uuid_cmp_idgen128(uuid, @extschema@.idgen128),
    OPERATOR 1 pg_catalog.< (uuid, uuid),
    OPERATOR 2 pg_catalog.<= (uuid, uuid),
    OPERATOR 3 pg_catalog.= (uuid, uuid),
    OPERATOR 4 pg_catalog.>= (uuid, uuid),
    OPERATOR 5 pg_catalog.> (uuid, uuid),
    FUNCTION 1 (uuid, uuid) pg_catalog.uuid_cmp(uuid, uuid),
    FUNCTION 2 (uuid, uuid) pg_catalog.uuid_sortsupport(internal);

CREATE OPERATOR FAMILY @extschema@.idgen128_hash_ops USING hash;
COMMENT ON OPERATOR FAMILY @extschema@.idgen128_hash_ops USING hash IS 'hash operators of idgen128, with uuid';
CREATE OPERATOR CLASS @extschema@.idgen128_hash_ops
    DEFAULT FOR TYPE @extschema@.idgen128 USING hash FAMILY @extschema@.idgen128_hash_ops AS
    OPERATOR 1 @extschema@.= ,
    FUNCTION 1 @extschema@.idgen128_hash(@extschema@.idgen128),
    FUNCTION 2 @extschema@.idgen128_hash_extended(@extschema@.idgen128, bigint);
COMMENT ON OPERATOR CLASS @extschema@.idgen128_hash_ops USING hash IS 'default hash operator class of idgen128';
ALTER OPERATOR FAMILY @extschema@.idgen128_hash_ops USING hash ADD
    OPERATOR 1 @extschema@.= (@extschema@.idgen128, uuid),
    OPERATOR 1 @extschema@.= (uuid, @extschema@.idgen128),
    OPERATOR 1 pg_catalog.= (uuid, uuid),
    FUNCTION 1 (uuid) pg_catalog.uuid_hash(uuid),
    FUNCTION 2 (uuid) pg_catalog.uuid_hash_extended(uuid, bigint);

CREATE OPERATOR CLASS @extschema@.idgen128_minmax_ops
    DEFAULT FOR TYPE @extschema@.idgen128 USING brin AS
    OPERATOR 1 @extschema@.< ,
    OPERATOR 2 @extschema@.<= ,
    OPERATOR 3 @extschema@.= ,
    OPERATOR 4 @extschema@.>= ,
    OPERATOR 5 @extschema@.> ,
    FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
    FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);
COMMENT ON OPERATOR CLASS @extschema@.idgen128_minmax_ops USING brin IS 'default BRIN minmax operator class of idgen128';
COMMENT ON OPERATOR FAMILY @extschema@.idgen128_minmax_ops USING brin IS 'BRIN minmax operators of idgen128';

-- casts: every idgen128 is a uuid; a uuid is an idgen128 only if it is a UUIDv7
CREATE FUNCTION @extschema@.idgen128(uuid) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128(uuid) IS 'cast from uuid; only version 7, variant 10 values';
CREATE CAST (@extschema@.idgen128 AS uuid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (uuid AS @extschema@.idgen128) WITH FUNCTION @extschema@.idgen128(uuid);
COMMENT ON CAST (@extschema@.idgen128 AS uuid) IS 'every idgen128 is a uuid with the same bytes';
COMMENT ON CAST (uuid AS @extschema@.idgen128) IS 'explicit cast; refuses anything but a UUIDv7';

-- generating and decoding
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

-- ---------------------------------------------------------------------
-- Retry-safe batches: the same request key returns the same IDs, from any
-- session of the same login role, until idgen.request_retention has passed.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.batch_request (
    owner_role  name NOT NULL,
    request_key text NOT NULL,
    width       smallint NOT NULL CHECK (width IN (64, 128)),
    count       integer NOT NULL CHECK (count >= 0),
    ids         @extschema@.idgen[],
    ids128      @extschema@.idgen128[],
    created_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (owner_role, request_key, width),
    CHECK ((width = 64) = (ids IS NOT NULL) AND (width = 128) = (ids128 IS NOT NULL))
);
CREATE INDEX ON idgen.batch_request (expires_at);
COMMENT ON TABLE idgen.batch_request IS 'batches issued under a request key, kept for idgen.request_retention so a retry gets the same IDs';
REVOKE ALL ON idgen.batch_request FROM PUBLIC;

CREATE FUNCTION idgen.request_retention() RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$ SELECT coalesce(nullif(current_setting('idgen.request_retention', true), ''), '1d')::interval $$;
COMMENT ON FUNCTION idgen.request_retention() IS 'how long a request key keeps its batch';

/*
 * The batch for (session_user, key, width): the stored one while it lives,
 * else a new one stored under the key.  A concurrent caller with the same
 * key waits on the unique index until the first commits, then reads its
 * batch; if the first rolls back, the second makes its own.
 */
\ir ../udfs/keyed_batch/0.3.sql
COMMENT ON FUNCTION idgen.keyed_batch(integer, text, smallint) IS 'the batch stored under a request key, or a new one';
REVOKE ALL ON FUNCTION idgen.keyed_batch(integer, text, smallint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION idgen.keyed_batch(integer, text, smallint) TO PUBLIC;

CREATE FUNCTION @extschema@.idgen_next_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$ SELECT pg_catalog.unnest(k.ids) FROM idgen.keyed_batch($1, $2, 64::smallint) AS k $$;
COMMENT ON FUNCTION @extschema@.idgen_next_batch(integer, text) IS 'count IDs, ascending; the same request key returns the same IDs again (retry identity)';

CREATE FUNCTION @extschema@.idgen_next128_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen128
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$ SELECT pg_catalog.unnest(k.ids128) FROM idgen.keyed_batch($1, $2, 128::smallint) AS k $$;
COMMENT ON FUNCTION @extschema@.idgen_next128_batch(integer, text) IS 'count 128-bit IDs, ascending; the same request key returns the same IDs again';

-- ---------------------------------------------------------------------
-- Numeric range leases (segment mode): blocks of IDs an outside generator
-- hands out by itself, carved from the IDs of times before 2026-01-01,
-- which no node ever generates.
-- ---------------------------------------------------------------------

CREATE FUNCTION idgen.range_space_end() RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_range_space_end' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.range_space_end() IS 'first ID above the range space: no range reaches it, no generated ID is below it';

CREATE SEQUENCE idgen.range_generation;
COMMENT ON SEQUENCE idgen.range_generation IS 'fencing tokens of range leases';
REVOKE ALL ON SEQUENCE idgen.range_generation FROM PUBLIC;

CREATE TABLE idgen.range_lease (
    range_start @extschema@.idgen PRIMARY KEY,
    range_end   @extschema@.idgen NOT NULL,
    owner       text NOT NULL,
    generation  bigint NOT NULL,
    request_key text,
    consumed    @extschema@.idgen,
    leased_at   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    updated_at  timestamptz,
    CHECK (range_start >= 1::bigint AND range_end >= range_start),
    CHECK (range_end < idgen.range_space_end()),
    CHECK (consumed IS NULL OR (consumed >= range_start AND consumed <= range_end)),
    UNIQUE (owner, request_key),
    EXCLUDE USING gist (pg_catalog.int8range(range_start::bigint, range_end::bigint, '[]') WITH &&)
);
COMMENT ON TABLE idgen.range_lease IS 'numeric ranges leased to outside generators; they never overlap each other or generated IDs';
COMMENT ON COLUMN idgen.range_lease.consumed IS 'highest ID of the range its holder reported as used';
REVOKE ALL ON idgen.range_lease FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.range_lease', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.range_generation', '');

\ir ../udfs/idgen_lease_range/0.3.sql
COMMENT ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text) IS 'lease a block of numeric IDs for an outside generator; the same request key returns the same range';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_range_consumed(range_start @extschema@.idgen, upto @extschema@.idgen)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.range_lease AS l
    SET consumed = CASE WHEN l.consumed IS NULL OR l.consumed < upto THEN upto ELSE l.consumed END,
        updated_at = pg_catalog.clock_timestamp()
    WHERE l.range_start = idgen_range_consumed.range_start
      AND upto >= l.range_start AND upto <= l.range_end;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no leased range starts at % and contains %', range_start, upto
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_range_consumed(@extschema@.idgen, @extschema@.idgen) IS 'a range holder reports how far it has used its range';
REVOKE ALL ON FUNCTION @extschema@.idgen_range_consumed(@extschema@.idgen, @extschema@.idgen) FROM PUBLIC;
