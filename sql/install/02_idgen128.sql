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

-- ---------------------------------------------------------------------
-- Functions: comparison with idgen128 and uuid, btree and hash support,
-- min() and max() steps, the cast's function.  All but the cast reuse
-- uuid's internals.
-- ---------------------------------------------------------------------

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

CREATE FUNCTION @extschema@.idgen128_larger(@extschema@.idgen128, @extschema@.idgen128) RETURNS @extschema@.idgen128 AS 'MODULE_PATHNAME', 'idgen128_larger' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_larger(@extschema@.idgen128, @extschema@.idgen128) IS 'the larger of two idgen128, the step of max()';
CREATE FUNCTION @extschema@.idgen128_smaller(@extschema@.idgen128, @extschema@.idgen128) RETURNS @extschema@.idgen128 AS 'MODULE_PATHNAME', 'idgen128_smaller' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_smaller(@extschema@.idgen128, @extschema@.idgen128) IS 'the smaller of two idgen128, the step of min()';

-- the cast from uuid, which checks for a UUIDv7
CREATE FUNCTION @extschema@.idgen128(uuid) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128(uuid) IS 'cast from uuid; only version 7, variant 10 values';

-- ---------------------------------------------------------------------
-- Casts: every idgen128 is a uuid; a uuid is an idgen128 only if it is a UUIDv7
-- ---------------------------------------------------------------------

CREATE CAST (@extschema@.idgen128 AS uuid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (uuid AS @extschema@.idgen128) WITH FUNCTION @extschema@.idgen128(uuid);
COMMENT ON CAST (@extschema@.idgen128 AS uuid) IS 'every idgen128 is a uuid with the same bytes';
COMMENT ON CAST (uuid AS @extschema@.idgen128) IS 'explicit cast; refuses anything but a UUIDv7';

-- ---------------------------------------------------------------------
-- Operators: idgen128 with itself and with uuid, both ways
-- ---------------------------------------------------------------------

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
-- ---------------------------------------------------------------------
-- min() and max() of idgen128 (0.6), as idgen's (01_idgen.sql)
-- ---------------------------------------------------------------------

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
-- Operator classes
-- ---------------------------------------------------------------------

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
