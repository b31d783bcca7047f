/* idgen--0.1.sql: install script of idgen 0.1 */

\echo Use "CREATE EXTENSION idgen" to load this file. \quit

-- ---------------------------------------------------------------------
-- The 64-bit type.  Stored like int8, so comparison, hashing, sorting and
-- BRIN reuse PostgreSQL's int8 internals; only input, binary receive and
-- the casts from signed integers are idgen's own, because they must
-- reject negative values.
-- ---------------------------------------------------------------------

CREATE TYPE @extschema@.idgen;

CREATE FUNCTION @extschema@.idgen_in(cstring) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_out(@extschema@.idgen) RETURNS cstring
    AS 'MODULE_PATHNAME', 'idgen_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_recv(internal) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_send(@extschema@.idgen) RETURNS bytea
    AS 'int8send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.idgen (
    INPUT = @extschema@.idgen_in,
    OUTPUT = @extschema@.idgen_out,
    RECEIVE = @extschema@.idgen_recv,
    SEND = @extschema@.idgen_send,
    LIKE = pg_catalog.int8
);

COMMENT ON TYPE @extschema@.idgen IS 'unique, time-sortable 64-bit ID (time | region | worker | sequence), never negative';
COMMENT ON FUNCTION @extschema@.idgen_in(cstring) IS 'text input of idgen: decimal digits only';
COMMENT ON FUNCTION @extschema@.idgen_out(@extschema@.idgen) IS 'text output of idgen';
COMMENT ON FUNCTION @extschema@.idgen_recv(internal) IS 'binary input of idgen, int8 wire format';
COMMENT ON FUNCTION @extschema@.idgen_send(@extschema@.idgen) IS 'binary output of idgen, int8 wire format';

-- ---------------------------------------------------------------------
-- Comparison.  Same-type operators plus cross-type ones with bigint and
-- integer, so "id = 42" or "id = $1::bigint" picks an idgen operator and
-- can use the index instead of falling back to the implicit bigint cast.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_eq(@extschema@.idgen, @extschema@.idgen) RETURNS boolean AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_ne(@extschema@.idgen, @extschema@.idgen) RETURNS boolean AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_lt(@extschema@.idgen, @extschema@.idgen) RETURNS boolean AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_le(@extschema@.idgen, @extschema@.idgen) RETURNS boolean AS 'int8le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_gt(@extschema@.idgen, @extschema@.idgen) RETURNS boolean AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_ge(@extschema@.idgen, @extschema@.idgen) RETURNS boolean AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_cmp(@extschema@.idgen, @extschema@.idgen) RETURNS integer AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_sortsupport(internal) RETURNS void AS 'btint8sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_hash(@extschema@.idgen) RETURNS integer AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_hash_extended(@extschema@.idgen, bigint) RETURNS bigint AS 'hashint8extended' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.idgen_eq(@extschema@.idgen, @extschema@.idgen) IS 'implementation of = for idgen';
COMMENT ON FUNCTION @extschema@.idgen_ne(@extschema@.idgen, @extschema@.idgen) IS 'implementation of <> for idgen';
COMMENT ON FUNCTION @extschema@.idgen_lt(@extschema@.idgen, @extschema@.idgen) IS 'implementation of < for idgen';
COMMENT ON FUNCTION @extschema@.idgen_le(@extschema@.idgen, @extschema@.idgen) IS 'implementation of <= for idgen';
COMMENT ON FUNCTION @extschema@.idgen_gt(@extschema@.idgen, @extschema@.idgen) IS 'implementation of > for idgen';
COMMENT ON FUNCTION @extschema@.idgen_ge(@extschema@.idgen, @extschema@.idgen) IS 'implementation of >= for idgen';
COMMENT ON FUNCTION @extschema@.idgen_cmp(@extschema@.idgen, @extschema@.idgen) IS 'btree comparison of idgen';
COMMENT ON FUNCTION @extschema@.idgen_sortsupport(internal) IS 'btree sort support of idgen';
COMMENT ON FUNCTION @extschema@.idgen_hash(@extschema@.idgen) IS 'hash of idgen, equal to the hash of the same bigint';
COMMENT ON FUNCTION @extschema@.idgen_hash_extended(@extschema@.idgen, bigint) IS 'seeded 64-bit hash of idgen, for hash partitioning';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.idgen, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.idgen_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.idgen, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.idgen_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.idgen, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.idgen_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.idgen, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.idgen_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.idgen, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.idgen_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.idgen, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.idgen_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);

-- cross-type comparison with bigint and integer, through int8's internals

CREATE FUNCTION @extschema@.idgen_eq_bigint(@extschema@.idgen, bigint) RETURNS boolean AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_eq_bigint(@extschema@.idgen, bigint) IS 'implementation of = between idgen and bigint';
CREATE FUNCTION @extschema@.idgen_ne_bigint(@extschema@.idgen, bigint) RETURNS boolean AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_ne_bigint(@extschema@.idgen, bigint) IS 'implementation of <> between idgen and bigint';
CREATE FUNCTION @extschema@.idgen_lt_bigint(@extschema@.idgen, bigint) RETURNS boolean AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_lt_bigint(@extschema@.idgen, bigint) IS 'implementation of < between idgen and bigint';
CREATE FUNCTION @extschema@.idgen_le_bigint(@extschema@.idgen, bigint) RETURNS boolean AS 'int8le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_le_bigint(@extschema@.idgen, bigint) IS 'implementation of <= between idgen and bigint';
CREATE FUNCTION @extschema@.idgen_gt_bigint(@extschema@.idgen, bigint) RETURNS boolean AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_gt_bigint(@extschema@.idgen, bigint) IS 'implementation of > between idgen and bigint';
CREATE FUNCTION @extschema@.idgen_ge_bigint(@extschema@.idgen, bigint) RETURNS boolean AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_ge_bigint(@extschema@.idgen, bigint) IS 'implementation of >= between idgen and bigint';
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.idgen, RIGHTARG = bigint,
    FUNCTION = @extschema@.idgen_eq_bigint,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.idgen, RIGHTARG = bigint,
    FUNCTION = @extschema@.idgen_ne_bigint,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.idgen, RIGHTARG = bigint,
    FUNCTION = @extschema@.idgen_lt_bigint,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.idgen, RIGHTARG = bigint,
    FUNCTION = @extschema@.idgen_le_bigint,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.idgen, RIGHTARG = bigint,
    FUNCTION = @extschema@.idgen_gt_bigint,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.idgen, RIGHTARG = bigint,
    FUNCTION = @extschema@.idgen_ge_bigint,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE FUNCTION @extschema@.bigint_eq_idgen(bigint, @extschema@.idgen) RETURNS boolean AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bigint_eq_idgen(bigint, @extschema@.idgen) IS 'implementation of = between bigint and idgen';
CREATE FUNCTION @extschema@.bigint_ne_idgen(bigint, @extschema@.idgen) RETURNS boolean AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bigint_ne_idgen(bigint, @extschema@.idgen) IS 'implementation of <> between bigint and idgen';
CREATE FUNCTION @extschema@.bigint_lt_idgen(bigint, @extschema@.idgen) RETURNS boolean AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bigint_lt_idgen(bigint, @extschema@.idgen) IS 'implementation of < between bigint and idgen';
CREATE FUNCTION @extschema@.bigint_le_idgen(bigint, @extschema@.idgen) RETURNS boolean AS 'int8le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bigint_le_idgen(bigint, @extschema@.idgen) IS 'implementation of <= between bigint and idgen';
CREATE FUNCTION @extschema@.bigint_gt_idgen(bigint, @extschema@.idgen) RETURNS boolean AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bigint_gt_idgen(bigint, @extschema@.idgen) IS 'implementation of > between bigint and idgen';
CREATE FUNCTION @extschema@.bigint_ge_idgen(bigint, @extschema@.idgen) RETURNS boolean AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bigint_ge_idgen(bigint, @extschema@.idgen) IS 'implementation of >= between bigint and idgen';
CREATE OPERATOR @extschema@.= (
    LEFTARG = bigint, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.bigint_eq_idgen,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = bigint, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.bigint_ne_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = bigint, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.bigint_lt_idgen,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = bigint, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.bigint_le_idgen,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = bigint, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.bigint_gt_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = bigint, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.bigint_ge_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE FUNCTION @extschema@.idgen_eq_integer(@extschema@.idgen, integer) RETURNS boolean AS 'int84eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_eq_integer(@extschema@.idgen, integer) IS 'implementation of = between idgen and integer';
CREATE FUNCTION @extschema@.idgen_ne_integer(@extschema@.idgen, integer) RETURNS boolean AS 'int84ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_ne_integer(@extschema@.idgen, integer) IS 'implementation of <> between idgen and integer';
CREATE FUNCTION @extschema@.idgen_lt_integer(@extschema@.idgen, integer) RETURNS boolean AS 'int84lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_lt_integer(@extschema@.idgen, integer) IS 'implementation of < between idgen and integer';
CREATE FUNCTION @extschema@.idgen_le_integer(@extschema@.idgen, integer) RETURNS boolean AS 'int84le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_le_integer(@extschema@.idgen, integer) IS 'implementation of <= between idgen and integer';
CREATE FUNCTION @extschema@.idgen_gt_integer(@extschema@.idgen, integer) RETURNS boolean AS 'int84gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_gt_integer(@extschema@.idgen, integer) IS 'implementation of > between idgen and integer';
CREATE FUNCTION @extschema@.idgen_ge_integer(@extschema@.idgen, integer) RETURNS boolean AS 'int84ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_ge_integer(@extschema@.idgen, integer) IS 'implementation of >= between idgen and integer';
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.idgen, RIGHTARG = integer,
    FUNCTION = @extschema@.idgen_eq_integer,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.idgen, RIGHTARG = integer,
    FUNCTION = @extschema@.idgen_ne_integer,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.idgen, RIGHTARG = integer,
    FUNCTION = @extschema@.idgen_lt_integer,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.idgen, RIGHTARG = integer,
    FUNCTION = @extschema@.idgen_le_integer,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.idgen, RIGHTARG = integer,
    FUNCTION = @extschema@.idgen_gt_integer,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.idgen, RIGHTARG = integer,
    FUNCTION = @extschema@.idgen_ge_integer,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE FUNCTION @extschema@.integer_eq_idgen(integer, @extschema@.idgen) RETURNS boolean AS 'int48eq' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.integer_eq_idgen(integer, @extschema@.idgen) IS 'implementation of = between integer and idgen';
CREATE FUNCTION @extschema@.integer_ne_idgen(integer, @extschema@.idgen) RETURNS boolean AS 'int48ne' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.integer_ne_idgen(integer, @extschema@.idgen) IS 'implementation of <> between integer and idgen';
CREATE FUNCTION @extschema@.integer_lt_idgen(integer, @extschema@.idgen) RETURNS boolean AS 'int48lt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.integer_lt_idgen(integer, @extschema@.idgen) IS 'implementation of < between integer and idgen';
CREATE FUNCTION @extschema@.integer_le_idgen(integer, @extschema@.idgen) RETURNS boolean AS 'int48le' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.integer_le_idgen(integer, @extschema@.idgen) IS 'implementation of <= between integer and idgen';
CREATE FUNCTION @extschema@.integer_gt_idgen(integer, @extschema@.idgen) RETURNS boolean AS 'int48gt' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.integer_gt_idgen(integer, @extschema@.idgen) IS 'implementation of > between integer and idgen';
CREATE FUNCTION @extschema@.integer_ge_idgen(integer, @extschema@.idgen) RETURNS boolean AS 'int48ge' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.integer_ge_idgen(integer, @extschema@.idgen) IS 'implementation of >= between integer and idgen';
CREATE OPERATOR @extschema@.= (
    LEFTARG = integer, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.integer_eq_idgen,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = integer, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.integer_ne_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
    LEFTARG = integer, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.integer_lt_idgen,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = integer, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.integer_le_idgen,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
    LEFTARG = integer, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.integer_gt_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = integer, RIGHTARG = @extschema@.idgen,
    FUNCTION = @extschema@.integer_ge_idgen,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);


-- every operator says what it is
COMMENT ON OPERATOR @extschema@.= (@extschema@.idgen, @extschema@.idgen) IS 'equal: idgen = idgen';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.idgen, @extschema@.idgen) IS 'not equal: idgen <> idgen';
COMMENT ON OPERATOR @extschema@.< (@extschema@.idgen, @extschema@.idgen) IS 'less than: idgen < idgen';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.idgen, @extschema@.idgen) IS 'less than or equal: idgen <= idgen';
COMMENT ON OPERATOR @extschema@.> (@extschema@.idgen, @extschema@.idgen) IS 'greater than: idgen > idgen';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.idgen, @extschema@.idgen) IS 'greater than or equal: idgen >= idgen';
COMMENT ON OPERATOR @extschema@.= (@extschema@.idgen, bigint) IS 'equal: idgen = bigint';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.idgen, bigint) IS 'not equal: idgen <> bigint';
COMMENT ON OPERATOR @extschema@.< (@extschema@.idgen, bigint) IS 'less than: idgen < bigint';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.idgen, bigint) IS 'less than or equal: idgen <= bigint';
COMMENT ON OPERATOR @extschema@.> (@extschema@.idgen, bigint) IS 'greater than: idgen > bigint';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.idgen, bigint) IS 'greater than or equal: idgen >= bigint';
COMMENT ON OPERATOR @extschema@.= (bigint, @extschema@.idgen) IS 'equal: bigint = idgen';
COMMENT ON OPERATOR @extschema@.<> (bigint, @extschema@.idgen) IS 'not equal: bigint <> idgen';
COMMENT ON OPERATOR @extschema@.< (bigint, @extschema@.idgen) IS 'less than: bigint < idgen';
COMMENT ON OPERATOR @extschema@.<= (bigint, @extschema@.idgen) IS 'less than or equal: bigint <= idgen';
COMMENT ON OPERATOR @extschema@.> (bigint, @extschema@.idgen) IS 'greater than: bigint > idgen';
COMMENT ON OPERATOR @extschema@.>= (bigint, @extschema@.idgen) IS 'greater than or equal: bigint >= idgen';
COMMENT ON OPERATOR @extschema@.= (@extschema@.idgen, integer) IS 'equal: idgen = integer';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.idgen, integer) IS 'not equal: idgen <> integer';
COMMENT ON OPERATOR @extschema@.< (@extschema@.idgen, integer) IS 'less than: idgen < integer';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.idgen, integer) IS 'less than or equal: idgen <= integer';
COMMENT ON OPERATOR @extschema@.> (@extschema@.idgen, integer) IS 'greater than: idgen > integer';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.idgen, integer) IS 'greater than or equal: idgen >= integer';
COMMENT ON OPERATOR @extschema@.= (integer, @extschema@.idgen) IS 'equal: integer = idgen';
COMMENT ON OPERATOR @extschema@.<> (integer, @extschema@.idgen) IS 'not equal: integer <> idgen';
COMMENT ON OPERATOR @extschema@.< (integer, @extschema@.idgen) IS 'less than: integer < idgen';
COMMENT ON OPERATOR @extschema@.<= (integer, @extschema@.idgen) IS 'less than or equal: integer <= idgen';
COMMENT ON OPERATOR @extschema@.> (integer, @extschema@.idgen) IS 'greater than: integer > idgen';
COMMENT ON OPERATOR @extschema@.>= (integer, @extschema@.idgen) IS 'greater than or equal: integer >= idgen';

-- btree support for the cross-type comparisons
CREATE FUNCTION @extschema@.idgen_cmp_bigint(@extschema@.idgen, bigint) RETURNS integer AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.bigint_cmp_idgen(bigint, @extschema@.idgen) RETURNS integer AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_cmp_integer(@extschema@.idgen, integer) RETURNS integer AS 'btint84cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.integer_cmp_idgen(integer, @extschema@.idgen) RETURNS integer AS 'btint48cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_cmp_bigint(@extschema@.idgen, bigint) IS 'btree comparison of idgen with bigint';
COMMENT ON FUNCTION @extschema@.bigint_cmp_idgen(bigint, @extschema@.idgen) IS 'btree comparison of bigint with idgen';
COMMENT ON FUNCTION @extschema@.idgen_cmp_integer(@extschema@.idgen, integer) IS 'btree comparison of idgen with integer';
COMMENT ON FUNCTION @extschema@.integer_cmp_idgen(integer, @extschema@.idgen) IS 'btree comparison of integer with idgen';

-- ---------------------------------------------------------------------
-- Operator classes
-- ---------------------------------------------------------------------

CREATE OPERATOR FAMILY @extschema@.idgen_ops USING btree;
COMMENT ON OPERATOR FAMILY @extschema@.idgen_ops USING btree IS 'btree operators of idgen, with bigint and integer';

-- btequalimage: equal idgens are bitwise equal, so deduplication is safe
CREATE OPERATOR CLASS @extschema@.idgen_ops
    DEFAULT FOR TYPE @extschema@.idgen USING btree FAMILY @extschema@.idgen_ops AS
    OPERATOR 1 @extschema@.< ,
    OPERATOR 2 @extschema@.<= ,
    OPERATOR 3 @extschema@.= ,
    OPERATOR 4 @extschema@.>= ,
    OPERATOR 5 @extschema@.> ,
    FUNCTION 1 @extschema@.idgen_cmp(@extschema@.idgen, @extschema@.idgen),
    FUNCTION 2 @extschema@.idgen_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);
COMMENT ON OPERATOR CLASS @extschema@.idgen_ops USING btree IS 'default btree operator class of idgen';

ALTER OPERATOR FAMILY @extschema@.idgen_ops USING btree ADD
    OPERATOR 1 @extschema@.< (@extschema@.idgen, bigint),
    OPERATOR 2 @extschema@.<= (@extschema@.idgen, bigint),
    OPERATOR 3 @extschema@.= (@extschema@.idgen, bigint),
    OPERATOR 4 @extschema@.>= (@extschema@.idgen, bigint),
    OPERATOR 5 @extschema@.> (@extschema@.idgen, bigint),
    FUNCTION 1 (@extschema@.idgen, bigint) @extschema@.idgen_cmp_bigint(@extschema@.idgen, bigint),
    OPERATOR 1 @extschema@.< (bigint, @extschema@.idgen),
    OPERATOR 2 @extschema@.<= (bigint, @extschema@.idgen),
    OPERATOR 3 @extschema@.= (bigint, @extschema@.idgen),
    OPERATOR 4 @extschema@.>= (bigint, @extschema@.idgen),
    OPERATOR 5 @extschema@.> (bigint, @extschema@.idgen),
    FUNCTION 1 (bigint, @extschema@.idgen) @extschema@.bigint_cmp_idgen(bigint, @extschema@.idgen),
    OPERATOR 1 @extschema@.< (@extschema@.idgen, integer),
    OPERATOR 2 @extschema@.<= (@extschema@.idgen, integer),
    OPERATOR 3 @extschema@.= (@extschema@.idgen, integer),
    OPERATOR 4 @extschema@.>= (@extschema@.idgen, integer),
    OPERATOR 5 @extschema@.> (@extschema@.idgen, integer),
    FUNCTION 1 (@extschema@.idgen, integer) @extschema@.idgen_cmp_integer(@extschema@.idgen, integer),
    OPERATOR 1 @extschema@.< (integer, @extschema@.idgen),
    OPERATOR 2 @extschema@.<= (integer, @extschema@.idgen),
    OPERATOR 3 @extschema@.= (integer, @extschema@.idgen),
    OPERATOR 4 @extschema@.>= (integer, @extschema@.idgen),
    OPERATOR 5 @extschema@.> (integer, @extschema@.idgen),
    FUNCTION 1 (integer, @extschema@.idgen) @extschema@.integer_cmp_idgen(integer, @extschema@.idgen);

-- The planner needs the family complete over its types (merge joins between
-- idgen and bigint look up bigint = bigint here), so bring in the integer
-- operators too.
ALTER OPERATOR FAMILY @extschema@.idgen_ops USING btree ADD
    OPERATOR 1 pg_catalog.< (bigint, bigint),
    OPERATOR 2 pg_catalog.<= (bigint, bigint),
    OPERATOR 3 pg_catalog.= (bigint, bigint),
    OPERATOR 4 pg_catalog.>= (bigint, bigint),
    OPERATOR 5 pg_catalog.> (bigint, bigint),
    FUNCTION 1 (bigint, bigint) pg_catalog.btint8cmp(bigint, bigint),
    FUNCTION 2 (bigint, bigint) pg_catalog.btint8sortsupport(internal),
    OPERATOR 1 pg_catalog.< (integer, integer),
    OPERATOR 2 pg_catalog.<= (integer, integer),
    OPERATOR 3 pg_catalog.= (integer, integer),
    OPERATOR 4 pg_catalog.>= (integer, integer),
    OPERATOR 5 pg_catalog.> (integer, integer),
    FUNCTION 1 (integer, integer) pg_catalog.btint4cmp(integer, integer),
    FUNCTION 2 (integer, integer) pg_catalog.btint4sortsupport(internal),
    OPERATOR 1 pg_catalog.< (bigint, integer),
    OPERATOR 2 pg_catalog.<= (bigint, integer),
    OPERATOR 3 pg_catalog.= (bigint, integer),
    OPERATOR 4 pg_catalog.>= (bigint, integer),
    OPERATOR 5 pg_catalog.> (bigint, integer),
    FUNCTION 1 (bigint, integer) pg_catalog.btint84cmp(bigint, integer),
    OPERATOR 1 pg_catalog.< (integer, bigint),
    OPERATOR 2 pg_catalog.<= (integer, bigint),
    OPERATOR 3 pg_catalog.= (integer, bigint),
    OPERATOR 4 pg_catalog.>= (integer, bigint),
    OPERATOR 5 pg_catalog.> (integer, bigint),
    FUNCTION 1 (integer, bigint) pg_catalog.btint48cmp(integer, bigint);

CREATE OPERATOR FAMILY @extschema@.idgen_hash_ops USING hash;
COMMENT ON OPERATOR FAMILY @extschema@.idgen_hash_ops USING hash IS 'hash operators of idgen, with bigint and integer';

CREATE OPERATOR CLASS @extschema@.idgen_hash_ops
    DEFAULT FOR TYPE @extschema@.idgen USING hash FAMILY @extschema@.idgen_hash_ops AS
    OPERATOR 1 @extschema@.= ,
    FUNCTION 1 @extschema@.idgen_hash(@extschema@.idgen),
    FUNCTION 2 @extschema@.idgen_hash_extended(@extschema@.idgen, bigint);
COMMENT ON OPERATOR CLASS @extschema@.idgen_hash_ops USING hash IS 'default hash operator class of idgen';

-- int8 and int4 hash alike for equal values, so cross-type hash joins work
ALTER OPERATOR FAMILY @extschema@.idgen_hash_ops USING hash ADD
    OPERATOR 1 @extschema@.= (@extschema@.idgen, bigint),
    OPERATOR 1 @extschema@.= (bigint, @extschema@.idgen),
    OPERATOR 1 @extschema@.= (@extschema@.idgen, integer),
    OPERATOR 1 @extschema@.= (integer, @extschema@.idgen),
    FUNCTION 1 (bigint) pg_catalog.hashint8(bigint),
    FUNCTION 2 (bigint) pg_catalog.hashint8extended(bigint, bigint),
    FUNCTION 1 (integer) pg_catalog.hashint4(integer),
    FUNCTION 2 (integer) pg_catalog.hashint4extended(integer, bigint),
    OPERATOR 1 pg_catalog.= (bigint, bigint),
    OPERATOR 1 pg_catalog.= (integer, integer),
    OPERATOR 1 pg_catalog.= (bigint, integer),
    OPERATOR 1 pg_catalog.= (integer, bigint);

CREATE OPERATOR CLASS @extschema@.idgen_minmax_ops
    DEFAULT FOR TYPE @extschema@.idgen USING brin AS
    OPERATOR 1 @extschema@.< ,
    OPERATOR 2 @extschema@.<= ,
    OPERATOR 3 @extschema@.= ,
    OPERATOR 4 @extschema@.>= ,
    OPERATOR 5 @extschema@.> ,
    FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
    FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);
COMMENT ON OPERATOR CLASS @extschema@.idgen_minmax_ops USING brin IS 'default BRIN minmax operator class of idgen';
COMMENT ON OPERATOR FAMILY @extschema@.idgen_minmax_ops USING brin IS 'BRIN minmax operators of idgen, with bigint and integer';

-- so "id >= 1000" and "id = $1::bigint" can use a BRIN index too
ALTER OPERATOR FAMILY @extschema@.idgen_minmax_ops USING brin ADD
    OPERATOR 1 @extschema@.< (@extschema@.idgen, bigint),
    OPERATOR 2 @extschema@.<= (@extschema@.idgen, bigint),
    OPERATOR 3 @extschema@.= (@extschema@.idgen, bigint),
    OPERATOR 4 @extschema@.>= (@extschema@.idgen, bigint),
    OPERATOR 5 @extschema@.> (@extschema@.idgen, bigint),
    OPERATOR 1 @extschema@.< (@extschema@.idgen, integer),
    OPERATOR 2 @extschema@.<= (@extschema@.idgen, integer),
    OPERATOR 3 @extschema@.= (@extschema@.idgen, integer),
    OPERATOR 4 @extschema@.>= (@extschema@.idgen, integer),
    OPERATOR 5 @extschema@.> (@extschema@.idgen, integer);

-- ---------------------------------------------------------------------
-- Casts
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen(bigint) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_from_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen(integer) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_from_integer' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen(bigint) IS 'cast from bigint; negative values are rejected';
COMMENT ON FUNCTION @extschema@.idgen(integer) IS 'cast from integer; negative values are rejected';

-- every idgen is a valid bigint, with the same bits
CREATE CAST (@extschema@.idgen AS bigint) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (bigint AS @extschema@.idgen) WITH FUNCTION @extschema@.idgen(bigint) AS ASSIGNMENT;
CREATE CAST (integer AS @extschema@.idgen) WITH FUNCTION @extschema@.idgen(integer) AS ASSIGNMENT;
COMMENT ON CAST (@extschema@.idgen AS bigint) IS 'every idgen is a bigint with the same bits';
COMMENT ON CAST (bigint AS @extschema@.idgen) IS 'assignment cast; negative values are rejected';
COMMENT ON CAST (integer AS @extschema@.idgen) IS 'assignment cast; negative values are rejected';

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
    OUT clock_refusals bigint)
    AS 'MODULE_PATHNAME', 'idgen_status' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_status() IS 'this node''s generator: state and why, identity, logical vs wall clock, counters';

-- ---------------------------------------------------------------------
-- Catalog
-- ---------------------------------------------------------------------

CREATE SCHEMA idgen;
COMMENT ON SCHEMA idgen IS 'catalog of the idgen extension; written only through its functions';
REVOKE ALL ON SCHEMA idgen FROM PUBLIC;
GRANT USAGE ON SCHEMA idgen TO PUBLIC;

-- one row per bit layout, append-only
CREATE TABLE idgen.epoch (
    version integer PRIMARY KEY CHECK (version >= 1),
    start_time timestamptz NOT NULL,
    epoch_start timestamptz NOT NULL,
    time_bits integer NOT NULL,
    region_bits integer NOT NULL,
    worker_bits integer NOT NULL,
    seq_bits integer NOT NULL,
    horizon timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    CHECK (time_bits + region_bits + worker_bits + seq_bits = 63)
);
COMMENT ON TABLE idgen.epoch IS 'bit layouts, append-only: each applies from start_time on';
COMMENT ON COLUMN idgen.epoch.start_time IS 'instant from which IDs are issued under this layout';
COMMENT ON COLUMN idgen.epoch.epoch_start IS 'instant at which the time field is zero';
COMMENT ON COLUMN idgen.epoch.horizon IS 'first instant the time field cannot hold';
REVOKE ALL ON idgen.epoch FROM PUBLIC;
GRANT SELECT ON idgen.epoch TO PUBLIC;

CREATE FUNCTION idgen.epoch_append_only() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    RAISE EXCEPTION 'idgen.epoch is append-only'
        USING ERRCODE = 'object_not_in_prerequisite_state',
              DETAIL = 'Rewriting a layout that IDs were issued under would change what those IDs mean.',
              HINT = 'Schedule a new layout instead.';
END
$$;
COMMENT ON FUNCTION idgen.epoch_append_only() IS 'trigger: refuses UPDATE, DELETE and TRUNCATE of idgen.epoch';
REVOKE ALL ON FUNCTION idgen.epoch_append_only() FROM PUBLIC;

CREATE TRIGGER epoch_append_only BEFORE UPDATE OR DELETE ON idgen.epoch
    FOR EACH ROW EXECUTE FUNCTION idgen.epoch_append_only();
CREATE TRIGGER epoch_no_truncate BEFORE TRUNCATE ON idgen.epoch
    FOR EACH STATEMENT EXECUTE FUNCTION idgen.epoch_append_only();

CREATE FUNCTION idgen.default_layout(
    OUT epoch_start timestamptz, OUT time_bits integer, OUT region_bits integer,
    OUT worker_bits integer, OUT seq_bits integer, OUT horizon timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_default_layout' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.default_layout() IS 'the built-in bit layout, recorded as epoch 1';

INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits,
                         worker_bits, seq_bits, horizon)
SELECT 1, d.epoch_start, d.epoch_start, d.time_bits, d.region_bits,
       d.worker_bits, d.seq_bits, d.horizon
FROM idgen.default_layout() AS d;

SELECT pg_catalog.pg_extension_config_dump('idgen.epoch', 'WHERE version > 1');
