/* idgen.sql: the schema of the current version of idgen, in one file.
 *
 * The Makefile copies it to sql/idgen--<version>.sql, the script a fresh
 * CREATE EXTENSION idgen runs.  The upgrade scripts idgen--A--B.sql at the
 * top of the tree carry only the changes from one version to the next,
 * from idgen--0.1.sql (the oldest install, kept for them) on;
 * test/sql/upgrade.sql checks that the walked chain and this file give the
 * same objects, definition by definition.  A schema change goes into both:
 * here, and into the upgrade script of the version it comes with.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
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
    OUT clock_refusals bigint,
    OUT owner text, OUT high_water timestamptz, OUT lease_renewals bigint,
    OUT lease_failures bigint, OUT fencing_events bigint,
    OUT clock_jumps_forward bigint, OUT clock_steps_back bigint,
    OUT registry text, OUT clock_skew_ms bigint,
    OUT registry_incarnation text, OUT last_registry_answer timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_status' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_status() IS 'this node''s generator: state and why, lease, logical vs wall clock, counters, registry, its incarnation and last answer, and clock skew';

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

-- ---------------------------------------------------------------------
-- Catalog
-- ---------------------------------------------------------------------

CREATE TABLE idgen.worker_lease (
    region      integer NOT NULL CHECK (region >= 0),
    worker      integer NOT NULL CHECK (worker >= 0),
    owner       text,
    generation  bigint NOT NULL DEFAULT 0,
    lease_until timestamptz,
    high_water  timestamptz,
    node_sysid  text,
    timeline    integer,
    ttl         interval,
    acquired_at timestamptz,
    renewed_at  timestamptz,
    remote      boolean NOT NULL DEFAULT false,
    heartbeat_at timestamptz,
    clock_offset_ms bigint,
    node_state  text,
    drift_allowance interval,
    grant_floor timestamptz,
    PRIMARY KEY (region, worker),
    CHECK ((owner IS NULL) = (lease_until IS NULL))
);
COMMENT ON TABLE idgen.worker_lease IS 'worker ids: who holds each, its fencing generation, lease expiry and high-water mark of issued time';
COMMENT ON COLUMN idgen.worker_lease.owner IS 'holder of the lease; NULL when free';
COMMENT ON COLUMN idgen.worker_lease.generation IS 'fencing token, incremented on every acquisition and fence';
COMMENT ON COLUMN idgen.worker_lease.high_water IS 'no ID with a later time was ever issued under this worker; the next holder starts above it';
COMMENT ON COLUMN idgen.worker_lease.node_sysid IS 'system identifier of the idgen node that last held the worker; NULL for outside generators';
COMMENT ON COLUMN idgen.worker_lease.timeline IS 'timeline of the node that last wrote the row';
COMMENT ON COLUMN idgen.worker_lease.remote IS 'leased by a node over its connection to this registry (idgen.registry): the row exists only here, so its expiry can be trusted';
COMMENT ON COLUMN idgen.worker_lease.heartbeat_at IS 'registry clock at the holder''s last lease or renewal';
COMMENT ON COLUMN idgen.worker_lease.clock_offset_ms IS 'the holder''s clock minus the registry''s, as last measured';
COMMENT ON COLUMN idgen.worker_lease.node_state IS 'the state the holding node reported at its last renewal';
COMMENT ON COLUMN idgen.worker_lease.drift_allowance IS 'how far past the registry''s clock the holder may stamp IDs (its max_drift plus max_skew): after an unclean end the next holder starts above lease_until plus this';
COMMENT ON COLUMN idgen.worker_lease.grant_floor IS 'the high-water mark an outside lease started above: a release with the holder''s final mark never sets high_water below it (NULL for a lease granted before 0.7: its release keeps the mark)';
REVOKE ALL ON idgen.worker_lease FROM PUBLIC;
-- rows nobody ever held carry nothing: the lease functions make them on
-- the fly, and a restore of them would only collide with the new server's
SELECT pg_catalog.pg_extension_config_dump('idgen.worker_lease',
    'WHERE owner IS NOT NULL OR generation > 0 OR high_water IS NOT NULL');

CREATE TABLE idgen.audit_log (
    at     timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    actor  text NOT NULL DEFAULT pg_catalog."session_user"(),
    action text NOT NULL,
    detail text
);
CREATE INDEX ON idgen.audit_log (at);
COMMENT ON TABLE idgen.audit_log IS 'privileged actions and safety events: leases, fences, disables, clock jumps, collisions';
REVOKE ALL ON idgen.audit_log FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.audit_log', '');

CREATE TABLE idgen.collision (
    id           @extschema@.idgen,
    first_owner  text,
    second_owner text,
    observed_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    detail       text
);
COMMENT ON TABLE idgen.collision IS 'duplicate IDs found by audits, and workers seen with two holders';
REVOKE ALL ON idgen.collision FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.collision', '');

CREATE TABLE idgen.node_control (
    node_sysid text PRIMARY KEY,
    disabled_reason text NOT NULL,
    disabled_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    disabled_by text NOT NULL DEFAULT pg_catalog."session_user"()
);
COMMENT ON TABLE idgen.node_control IS 'nodes an operator disabled; survives restarts until idgen_enable()';
REVOKE ALL ON idgen.node_control FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.node_control', '');

-- ---------------------------------------------------------------------
-- Internal functions: idgen's clock, and the lease protocol the background
-- worker runs.  Not for PUBLIC.
-- ---------------------------------------------------------------------

-- the clock idgen issues by (honours idgen.test_clock_offset), so leases
-- and high-water marks are compared on one time scale
CREATE FUNCTION idgen.clock() RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_clock' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.clock() IS 'the wall clock idgen issues IDs by';

CREATE FUNCTION idgen.node_sysid() RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_node_sysid' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.node_sysid() IS 'this instance''s system identifier, as the lease table records it';

CREATE FUNCTION idgen.wake_worker() RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_wake_worker' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.wake_worker() IS 'ask the background worker to check its lease now';
REVOKE ALL ON FUNCTION idgen.wake_worker() FROM PUBLIC;

CREATE FUNCTION idgen.set_disabled(disabled boolean, reason text) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_set_disabled' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.set_disabled(boolean, text) IS 'switch issuing off or on in shared memory';
REVOKE ALL ON FUNCTION idgen.set_disabled(boolean, text) FROM PUBLIC;

-- a node of a fleet holds no lease table of its own: leases are made in
-- the shared registry, where every node sees them
CREATE FUNCTION idgen.require_registry() RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database();
    IF coalesce(current_setting('idgen.registry', true), '') <> '' THEN
        RAISE EXCEPTION 'this node leases worker ids from a shared registry'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.registry is set, so worker and range leases are made in the registry, where the whole fleet sees them; a lease taken on a node could collide with another node''s IDs.',
                  HINT = format('Call this function in the registry (%s).',
                                (SELECT s.registry FROM @extschema@.idgen_status() AS s));
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.require_registry() IS 'raise unless this is the registry database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_registry() FROM PUBLIC;

-- one advisory-lock key serialises node leases, fences and ranges; an
-- outside lease takes its row by the row lock alone (idgen_lease_worker)
CREATE FUNCTION idgen.lock_registry() RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ SELECT pg_advisory_xact_lock(7596555481923411968) $$;
COMMENT ON FUNCTION idgen.lock_registry() IS 'transaction lock taken by node leases, fences and range leases (outside leases lock only the row they take)';
REVOKE ALL ON FUNCTION idgen.lock_registry() FROM PUBLIC;

CREATE FUNCTION idgen.audit(action text, detail text) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ INSERT INTO idgen.audit_log (action, detail) VALUES ($1, $2) $$;
COMMENT ON FUNCTION idgen.audit(text, text) IS 'append one row to idgen.audit_log';
REVOKE ALL ON FUNCTION idgen.audit(text, text) FROM PUBLIC;

/*
 * The registry's incarnation (lease protocol v2, R7; docs/fleets.md): which
 * running instance answers the lease calls.  A promotion, a timeline
 * switch, a restore from a backup and a plain restart all look the same
 * from here (a restore cannot be told from a restart), and each may have
 * lost grants and renewals the nodes saw committed.  So for a hold after
 * the change no block is granted: every lease the lost writes may have
 * made runs out first.  Renewals of rows this instance has go on.
 */
CREATE TABLE idgen.registry_incarnation (
    system_identifier bigint NOT NULL,
    timeline          integer NOT NULL,
    postmaster_start  timestamptz NOT NULL,
    since             timestamptz,
    restart_only      boolean NOT NULL DEFAULT false,
    hold_until        timestamptz,
    local_exempt      boolean NOT NULL DEFAULT false,
    generation_floor  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX registry_incarnation_one_row ON idgen.registry_incarnation ((true));
COMMENT ON TABLE idgen.registry_incarnation IS 'the registry instance that answers lease calls (one row), and since when: grants wait a hold after it changes';
COMMENT ON COLUMN idgen.registry_incarnation.since IS 'when lease calls first met this incarnation; NULL: the first one they met, when the table was empty';
COMMENT ON COLUMN idgen.registry_incarnation.restart_only IS 'the change was a restart of the same system on the same timeline (or a restore that looks like one)';
COMMENT ON COLUMN idgen.registry_incarnation.hold_until IS 'until when no block is granted, judged at the change from the leases that may still run then; NULL: a change recorded by 0.6, judged by its rule';
COMMENT ON COLUMN idgen.registry_incarnation.local_exempt IS 'the registry''s own node is granted its block without the hold: a plain restart with no remote or outside lease that may still run';
COMMENT ON COLUMN idgen.registry_incarnation.generation_floor IS 'no generation granted in this incarnation lies below it, nor at or below one granted in an earlier incarnation, also one this registry lost';
REVOKE ALL ON idgen.registry_incarnation FROM PUBLIC;
-- not dumped: it describes the running instance, not the registry's data
-- (a physical copy carries it, and so holds; a logical restore of leases
-- is idgen.restore_worker_lease's matter)

-- the instance running now, as (system identifier, timeline, postmaster start)
CREATE FUNCTION idgen.running_incarnation(OUT system_identifier bigint, OUT timeline integer,
                                          OUT postmaster_start timestamptz)
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT c.system_identifier,
       ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer,
       pg_postmaster_start_time()
FROM pg_control_system() AS c
$$;
COMMENT ON FUNCTION idgen.running_incarnation() IS 'the registry instance running now: system identifier, timeline, postmaster start';
REVOKE ALL ON FUNCTION idgen.running_incarnation() FROM PUBLIC;


/*
 * Compare the recorded incarnation with the running one, record a change
 * (since = now) and say until when no block may be granted: since plus the
 * largest lease (ttl) a lost write may have made, at least idgen.lease_ttl,
 * plus the largest drift allowance, so its IDs lie behind us too.  A
 * restart on the same timeline of a registry that never leased to anyone
 * but its own node (no remote or outside row) holds nothing: a single
 * instance does not stop its own node for a hold at every restart.
 */
-- how far apart the clocks of the registry's members may be (the registry's
-- idgen.max_skew, 0 if it turns the check off): after a failover or a
-- restore the registry's clock may run that much behind the one that
-- granted, so expiries it judges and holds it keeps allow for it
CREATE FUNCTION idgen.registry_clock_allowance() RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, interval '1 s')
$$;
COMMENT ON FUNCTION idgen.registry_clock_allowance() IS 'how far the clocks of the registry''s members may differ: its idgen.max_skew';
REVOKE ALL ON FUNCTION idgen.registry_clock_allowance() FROM PUBLIC;

/*
 * What may still run from before a change of incarnation (R7; issue 19):
 * the hold lasts as long as a lease the registry may have lost could run,
 * not as long as the longest lease it ever granted.  A lease whose row here
 * ended before the last write this copy holds (its latest grant, renewal or
 * heartbeat) had no renewal since, as a renewal needs a running lease, and
 * a released one is over.  The others may have been renewed by writes this
 * copy lacks:
 *   - a node's: its TTL counts in the hold, and the registry's own node is
 *     spared the hold only when no remote or outside lease may still run;
 *   - an outside holder's: its row keeps the worker instead, its mark
 *     raised to the change plus its TTL plus the clock allowance, so that
 *     worker alone waits while everyone else goes on.
 * Grants this copy lacks altogether are covered by the registry's own
 * idgen.lease_ttl, as before, with the largest allowance of any node.
 */
CREATE FUNCTION idgen.incarnation_hold(p_since timestamptz, p_restart boolean,
    OUT hold_until timestamptz, OUT local_exempt boolean)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    skew interval := idgen.registry_clock_allowance();
    v_lease_ttl interval := coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s');
    last_write timestamptz;
    v_ttl interval;
    v_allowance interval;
BEGIN
    SELECT least(p_since, coalesce(max(greatest(l.renewed_at, l.acquired_at, l.heartbeat_at)),
                                   p_since))
      INTO last_write
    FROM idgen.worker_lease AS l;
    UPDATE idgen.worker_lease AS l
    SET high_water = greatest(l.high_water, p_since + l.ttl + skew)
    WHERE l.owner IS NOT NULL AND l.node_sysid IS NULL AND l.ttl IS NOT NULL
      AND l.lease_until > last_write;
    SELECT greatest(v_lease_ttl, max(l.ttl) FILTER (WHERE l.owner IS NOT NULL AND l.node_sysid IS NOT NULL
                                              AND l.lease_until > last_write)),
           greatest(idgen.registry_drift_allowance(v_lease_ttl),
                    max(l.drift_allowance) FILTER (WHERE l.node_sysid IS NOT NULL
                                                     OR (l.owner IS NOT NULL
                                                         AND l.lease_until > last_write))),
           p_restart AND NOT coalesce(bool_or(l.owner IS NOT NULL
                                              AND (l.remote OR l.node_sysid IS NULL)
                                              AND (l.lease_until > last_write
                                                   OR l.lease_until + coalesce(l.drift_allowance, interval '0')
                                                      + skew > p_since)), false)
      INTO v_ttl, v_allowance, local_exempt
    FROM idgen.worker_lease AS l;
    hold_until := p_since + v_ttl + v_allowance + skew;
END
$$;
COMMENT ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) IS 'at a change of incarnation: until when no block is granted (the leases that may still run, at least idgen.lease_ttl, plus allowances), and whether the registry''s own node is spared; raises the marks of outside leases that may have been renewed unseen';
REVOKE ALL ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) FROM PUBLIC;

CREATE FUNCTION idgen.registry_incarnation_check(p_local boolean DEFAULT false,
    OUT incarnation text, OUT hold_until timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    i idgen.registry_incarnation;
    h record;
    v_hold interval;
BEGIN
    SELECT * INTO r FROM idgen.running_incarnation();
    incarnation := format('%s/%s/%s', r.system_identifier, r.timeline,
                          floor(extract(epoch FROM r.postmaster_start) * 1000)::bigint);
    SELECT * INTO i FROM idgen.registry_incarnation AS x
    WHERE x.system_identifier = r.system_identifier AND x.timeline = r.timeline
      AND x.postmaster_start = r.postmaster_start;
    IF NOT FOUND THEN
        -- one caller records the change; the others wait for its row lock
        UPDATE idgen.registry_incarnation AS x
        SET system_identifier = r.system_identifier, timeline = r.timeline,
            postmaster_start = r.postmaster_start, since = idgen.clock(),
            restart_only = (x.system_identifier = r.system_identifier
                            AND x.timeline = r.timeline),
            hold_until = NULL, local_exempt = false
        WHERE (x.system_identifier, x.timeline, x.postmaster_start)
              IS DISTINCT FROM (r.system_identifier, r.timeline, r.postmaster_start)
        RETURNING x.* INTO i;
        IF FOUND THEN
            -- judged once, from the rows as the change found them
            SELECT * INTO h FROM idgen.incarnation_hold(i.since, i.restart_only);
            UPDATE idgen.registry_incarnation AS x
            SET hold_until = h.hold_until, local_exempt = h.local_exempt,
                generation_floor = greatest(x.generation_floor,
                                            floor(extract(epoch FROM h.hold_until) * 1000000)::bigint)
            RETURNING x.* INTO i;
            PERFORM idgen.audit('registry_incarnation',
                format('the registry is a new incarnation %s since %s: no block is granted until %s%s',
                       incarnation, i.since, i.hold_until,
                       CASE WHEN i.local_exempt THEN ' but to its own node' ELSE '' END));
        ELSE
            -- the first lease call ever: nothing was granted before it,
            -- unless the lease table has a history already (a registry
            -- database restored or moved without its incarnation row, which
            -- is not dumped): then this is a change like any other
            INSERT INTO idgen.registry_incarnation (system_identifier, timeline, postmaster_start,
                                                    since, restart_only)
            SELECT r.system_identifier, r.timeline, r.postmaster_start,
                   CASE WHEN EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                                     WHERE l.generation > 0 OR l.high_water IS NOT NULL)
                        THEN idgen.clock() END,
                   false
            WHERE NOT EXISTS (SELECT 1 FROM idgen.registry_incarnation)
            ON CONFLICT DO NOTHING
            RETURNING * INTO i;
            IF FOUND AND i.since IS NOT NULL THEN
                SELECT * INTO h FROM idgen.incarnation_hold(i.since, false);
                UPDATE idgen.registry_incarnation AS x
                SET hold_until = h.hold_until, local_exempt = false,
                    generation_floor = greatest(x.generation_floor,
                                                floor(extract(epoch FROM h.hold_until) * 1000000)::bigint)
                RETURNING x.* INTO i;
                PERFORM idgen.audit('registry_incarnation',
                    format('the registry database has leases but no incarnation: it was restored or moved, so it is a new incarnation %s since %s and no block is granted until %s',
                           incarnation, i.since, i.hold_until));
            ELSIF NOT FOUND THEN
                SELECT * INTO i FROM idgen.registry_incarnation AS x;
            END IF;
        END IF;
    END IF;
    IF i.since IS NULL OR (p_local AND i.local_exempt) THEN
        hold_until := '-infinity';
    ELSIF i.hold_until IS NOT NULL THEN
        hold_until := i.hold_until;
    ELSIF p_local AND i.restart_only
          AND NOT EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                          WHERE l.remote OR (l.node_sysid IS NULL AND l.generation > 0)) THEN
        -- a change recorded before 0.7 (hold_until NULL): its rule
        hold_until := '-infinity';
    ELSE
        SELECT greatest(max(l.ttl),
                        coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                                 interval '30 s'))
               + coalesce(max(l.drift_allowance), interval '0')
          INTO v_hold
        FROM idgen.worker_lease AS l;
        hold_until := i.since + v_hold + idgen.registry_clock_allowance();
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.registry_incarnation_check(boolean) IS 'the running registry incarnation, recorded when it changed, and until when no block may be granted (to the local node, p_local, none after a plain restart with no remote or outside lease that may still run)';
REVOKE ALL ON FUNCTION idgen.registry_incarnation_check(boolean) FROM PUBLIC;

/*
 * A dump of a registry is being restored here (a trigger saw its rows).
 * The registry it was taken from may have granted and renewed after the
 * dump, and those writes are lost, like a physical copy's; and the
 * incarnation row is not in a dump, so the restore would otherwise meet a
 * "first" incarnation and hold nothing.  So a restore is a change of
 * incarnation that is no plain restart: no block is granted until a lease
 * the lost writes may have made has run out (idgen.lease_ttl, or a
 * restored node lease's TTL if longer, plus allowances and the clock
 * allowance), and generations go on above that instant's floor.  The
 * registry it came from must be stopped before this one grants.
 */
CREATE FUNCTION idgen.note_restore(p_ttl interval, p_allowance interval) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    v_now timestamptz := idgen.clock();
    v_lease_ttl interval := coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s');
    v_hold timestamptz;
BEGIN
    -- only the registry database: elsewhere nobody leases by these rows
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database() THEN
        RETURN NULL;
    END IF;
    SELECT * INTO r FROM idgen.running_incarnation();
    v_hold := v_now + greatest(v_lease_ttl, p_ttl)
              + greatest(idgen.registry_drift_allowance(v_lease_ttl), p_allowance)
              + idgen.registry_clock_allowance();
    UPDATE idgen.registry_incarnation AS x
    SET system_identifier = r.system_identifier, timeline = r.timeline,
        postmaster_start = r.postmaster_start, since = v_now, restart_only = false,
        hold_until = greatest(x.hold_until, v_hold), local_exempt = false,
        generation_floor = greatest(x.generation_floor,
                                    floor(extract(epoch FROM greatest(x.hold_until, v_hold))
                                          * 1000000)::bigint)
    RETURNING x.hold_until INTO v_hold;
    IF NOT FOUND THEN
        INSERT INTO idgen.registry_incarnation (system_identifier, timeline, postmaster_start,
                                                since, restart_only, hold_until, local_exempt,
                                                generation_floor)
        VALUES (r.system_identifier, r.timeline, r.postmaster_start, v_now, false, v_hold, false,
                floor(extract(epoch FROM v_hold) * 1000000)::bigint);
    END IF;
    RETURN v_hold;
END
$$;
COMMENT ON FUNCTION idgen.note_restore(interval, interval) IS 'a dump is being restored into the registry: record it as a change of incarnation and hold (a restored node lease''s ttl and allowance count); returns the end of the hold';
REVOKE ALL ON FUNCTION idgen.note_restore(interval, interval) FROM PUBLIC;

-- a grant's generation: one above the row's, and never below this
-- incarnation's floor, so that no generation repeats across incarnations
-- (docs/fleets.md, "Generations")
CREATE FUNCTION idgen.next_generation(old bigint) RETURNS bigint
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT greatest(coalesce(old, 0) + 1,
                coalesce((SELECT max(i.generation_floor) FROM idgen.registry_incarnation AS i), 0))
$$;
COMMENT ON FUNCTION idgen.next_generation(bigint) IS 'the generation of a new grant or fence of a row at generation old: above it and at least the incarnation''s floor';
REVOKE ALL ON FUNCTION idgen.next_generation(bigint) FROM PUBLIC;

-- how far a holder's IDs may lie past the registry's clock (R4)
CREATE FUNCTION idgen.drift_allowance(max_drift interval, max_skew interval, ttl interval)
    RETURNS interval
    LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS
$$
-- max_skew = 0 turns the skew check off: the skew is bounded by nothing we
-- know, so take the lease's length as its bound (docs/fleets.md)
SELECT max_drift + CASE WHEN max_skew = interval '0' THEN ttl ELSE max_skew END
$$;
COMMENT ON FUNCTION idgen.drift_allowance(interval, interval, interval) IS 'how far past the registry''s clock a holder may stamp IDs: max_drift plus max_skew (plus the ttl when max_skew is 0)';
REVOKE ALL ON FUNCTION idgen.drift_allowance(interval, interval, interval) FROM PUBLIC;

-- the registry's own allowance, for outside holders that send none
CREATE FUNCTION idgen.registry_drift_allowance(ttl interval) RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.drift_allowance(
    coalesce(nullif(current_setting('idgen.max_drift', true), '')::interval, interval '1 s'),
    coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, interval '1 s'),
    ttl)
$$;
COMMENT ON FUNCTION idgen.registry_drift_allowance(interval) IS 'the drift allowance by the registry''s own idgen.max_drift and idgen.max_skew';
REVOKE ALL ON FUNCTION idgen.registry_drift_allowance(interval) FROM PUBLIC;

/*
 * A row may be taken when nobody holds it, or when its lease has expired
 * and the expiry can be trusted.  An expiry written by another timeline of
 * this cluster cannot: after a promotion the old primary may still be
 * running and renewing that lease in its own copy of this table.
 */
CREATE FUNCTION idgen.row_is_free(l idgen.worker_lease, now timestamptz,
                                  sysid text, tli integer) RETURNS boolean
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT l.owner IS NULL
    OR (l.lease_until <= now
        AND (l.node_sysid IS NULL OR (l.node_sysid = sysid AND l.timeline = tli)))
$$;
COMMENT ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) IS 'may this worker be taken now';
REVOKE ALL ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) FROM PUBLIC;

/*
 * Lease a block of workers for a node, here or over a connection from
 * another instance (p_remote).  Leases run by the registry's clock: a
 * node's clock decides nothing about when another node's lease ends.  The
 * high-water marks are times of the IDs, so they stay on the node's clock.
 * The answer carries the registry's clock, for the node's skew check, and
 * the registry's incarnation.
 *
 * A row is free when nobody holds it, when its holder is the caller itself
 * (a lease it gave up after it ran out), or when its lease expired and the
 * expiry can be trusted: always for a row leased over a connection, which
 * exists only here; for a row this instance's own node leased, only from
 * the same timeline, as after a promotion the old primary may still renew
 * it in its own copy of this table.
 *
 * Such a row stays taken however long ago its lease ended and its mark
 * passed.  Our copy stopped at the promotion; an old primary that still
 * runs (a split brain) renews the row in its own copy and keeps issuing at
 * its current time, so its IDs go on past both the lease end and the mark
 * we see, and starting above that mark (start_after) would not keep ours
 * apart from its.  Even a dead old primary may have renewed, and issued,
 * after the last change that reached us.  Nothing in this table tells a
 * dead old primary from a live one, so each unclean failover leaves its
 * block behind, and enough of them fill the region: the background worker
 * then names those blocks in idgen_status().reason.  Only an operator who
 * knows an old primary is gone for good frees its rows, with
 * idgen_fence_worker(), idgen.max_drift after its last ID; the next lease
 * of them starts above their marks.
 *
 * Takeover (lease protocol v2, R4; docs/fleets.md).  A node issues on its
 * own durable mark, not the registry's, so after a lease that was not
 * given back cleanly the registry's high_water says little: the successor
 * starts above the old lease's end plus the old holder's drift allowance
 * (its max_drift plus max_skew), which bounds every ID it can have issued
 * before it stopped.  A clean release leaves the holder's final mark in
 * high_water and the row free.  A block of a node's own earlier start on
 * a local registry needs neither: its local mark covers it.
 *
 * Incarnation hold (R7): after the registry's incarnation changed, no
 * block is granted until the hold ends (first_worker -2, hold_until says
 * when), and the first grants start above hold_until
 * (idgen.registry_incarnation_check() says when there is none).
 */
CREATE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval, p_remote boolean,
    p_drift_allowance interval,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz, OUT registry_clock timestamptz,
    OUT incarnation text, OUT hold_until timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz;
    v_region_bits integer;
    v_worker_bits integer;
    nblocks integer;
    start_block integer;
    b integer;
    fw integer;
    busy integer;
    locked integer;
    node_floor timestamptz;
    block_floor timestamptz;
    gen bigint;
    hw_cap timestamptz;
BEGIN
    -- the layout in force, and every one scheduled after it, must hold the node
    SELECT min(e.region_bits), min(e.worker_bits) INTO v_region_bits, v_worker_bits
    FROM idgen.epoch AS e
    WHERE e.version >= coalesce((SELECT max(x.version) FROM idgen.epoch AS x
                                 WHERE x.start_time <= idgen.clock()), 1);
    IF p_region < 0 OR p_region >= (1 << v_region_bits) THEN
        RAISE EXCEPTION 'region % is outside the registry''s layout', p_region
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The layout has %s region bits: regions 0 to %s.',
                                  v_region_bits, (1 << v_region_bits) - 1),
                  HINT = 'Set idgen.region_id of the node to a region the layout holds.';
    END IF;
    IF p_block > (1 << v_worker_bits)
       OR (p_pinned_worker >= 0 AND p_pinned_worker + p_block > (1 << v_worker_bits)) THEN
        RAISE EXCEPTION 'a block of % workers does not fit the registry''s layout', p_block
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The layout has %s worker bits: workers 0 to %s.',
                                  v_worker_bits, (1 << v_worker_bits) - 1),
                  HINT = 'Lower idgen.workers_per_node of the node, or its idgen.worker_id.';
    END IF;
    nblocks := (1 << least(p_worker_bits, v_worker_bits)) / p_block;

    PERFORM idgen.lock_registry();
    v_now := idgen.clock();
    registry_clock := v_now;
    SELECT c.incarnation, c.hold_until INTO incarnation, hold_until
    FROM idgen.registry_incarnation_check(NOT p_remote) AS c;
    IF hold_until > v_now THEN
        first_worker := -2;
        RETURN;
    END IF;

    SELECT max(l.high_water) INTO node_floor
    FROM idgen.worker_lease AS l WHERE l.node_sysid = p_sysid;

    -- later timelines start elsewhere, away from blocks an old primary may reuse
    start_block := ((p_timeline - 1) * (nblocks / 2 + 1)) % nblocks;

    FOR i IN 0 .. nblocks - 1 LOOP
        b := (start_block + i) % nblocks;
        fw := b * p_block;
        CONTINUE WHEN p_pinned_worker >= 0 AND fw <> p_pinned_worker;

        -- every row of the block made, then each one locked before we judge
        -- it: an outside lease takes a row by its row lock alone, without
        -- the registry lock, and passes over rows locked here; a row locked
        -- elsewhere (a renewal, release or lease in flight) makes the block
        -- busy for now, so we never wait on another holder's transaction
        INSERT INTO idgen.worker_lease (region, worker)
        SELECT p_region, w FROM generate_series(fw, fw + p_block - 1) AS w
        ON CONFLICT DO NOTHING;
        SELECT count(*) INTO locked
        FROM (SELECT 1 FROM idgen.worker_lease AS l
              WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block
              FOR UPDATE SKIP LOCKED) AS s;
        CONTINUE WHEN locked < p_block;
        SELECT count(*) FILTER (WHERE NOT coalesce(
                   l.owner IS NULL OR l.owner = p_owner
                   OR (l.lease_until <= v_now
                       AND (l.node_sysid IS NULL OR l.remote
                            OR (NOT p_remote AND l.node_sysid = p_sysid
                                AND l.timeline = p_timeline))), false)),
               -- an unclean end: above whatever the holder may have stamped
               max(CASE WHEN l.owner IS NOT NULL AND l.owner <> p_owner
                             AND (p_remote OR l.remote OR l.node_sysid IS DISTINCT FROM p_sysid)
                        THEN greatest(l.high_water,
                                      l.lease_until + coalesce(l.drift_allowance, interval '0'))
                        ELSE l.high_water END),
               max(l.generation)
          INTO busy, block_floor, gen
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;
        CONTINUE WHEN busy > 0;

        first_worker := fw;
        generation := idgen.next_generation(gen);
        lease_until := v_now + p_ttl;
        start_after := greatest(node_floor, block_floor,
                                CASE WHEN hold_until > '-infinity' THEN hold_until END);
        -- the node's own durable note of its high-water mark outranks a
        -- registry that lost it (dropped, or restored from an old backup)
        IF p_local_floor IS NOT NULL
           AND (start_after IS NULL OR start_after < p_local_floor - p_local_slack) THEN
            PERFORM idgen.audit('registry_behind_node',
                format('registry high-water %s is behind the node''s local mark %s; starting above the local mark',
                       coalesce(start_after::text, 'none'), p_local_floor));
            start_after := p_local_floor;
        END IF;
        -- the mark may lead our clock by what the node asked over its own,
        -- plus the skew allowed: a node whose clock jumped ahead must not
        -- carry its block's marks, and so every later holder, along with it
        -- (idgen.max_skew = 0 turns the skew check off, and this cap with it)
        hw_cap := CASE WHEN coalesce(current_setting('idgen.max_skew', true)::interval,
                                     interval '1 s') = interval '0'
                       THEN 'infinity'
                       ELSE v_now + greatest(p_high_water - p_node_clock, interval '0')
                            + coalesce(current_setting('idgen.max_skew', true)::interval,
                                       interval '1 s') END;
        high_water := greatest(least(p_high_water, hw_cap),
                               start_after + (p_high_water - p_node_clock));

        UPDATE idgen.worker_lease AS l
        SET owner = p_owner, generation = acquire_node_lease.generation,
            lease_until = acquire_node_lease.lease_until,
            high_water = acquire_node_lease.high_water,
            node_sysid = p_sysid, timeline = p_timeline, ttl = p_ttl,
            acquired_at = v_now, renewed_at = v_now,
            remote = coalesce(p_remote, false), heartbeat_at = v_now,
            -- until the node measures it: includes the one-way delay
            clock_offset_ms = floor(extract(epoch FROM p_node_clock - v_now) * 1000)::bigint,
            node_state = 'leased',
            drift_allowance = p_drift_allowance
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;

        PERFORM idgen.audit('lease_acquired',
            format('region %s workers %s-%s generation %s owner %s start_after %s',
                   p_region, fw, fw + p_block - 1, generation, p_owner,
                   coalesce(start_after::text, 'none')));
        RETURN;
    END LOOP;
    first_worker := -1;
END
$$;
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval) IS 'lease a block of workers for a node, local or remote, by the takeover and incarnation rules (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval) FROM PUBLIC;

-- the call of 0.5 nodes: no drift allowance sent, so none stored (their
-- registry mark bounds them); the same rules otherwise
CREATE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval, p_remote boolean,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz, OUT registry_clock timestamptz)
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT a.first_worker, a.generation, a.lease_until, a.high_water, a.start_after, a.registry_clock
FROM idgen.acquire_node_lease(p_owner, p_sysid, p_timeline, p_region, p_pinned_worker,
                              p_block, p_worker_bits, p_node_clock, p_ttl, p_high_water,
                              p_local_floor, p_local_slack, p_remote, NULL::interval) AS a
$$;
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) IS 'lease a block of workers for a node, local or remote (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) FROM PUBLIC;

/*
 * Renew a node's block by the registry's clock, raise its high-water mark
 * and record the heartbeat, but only while every row is still the node's
 * own at the node's generation.  Otherwise report who holds the first row
 * that is not ours, so the node can stop.  Renewals go on through an
 * incarnation hold (the rows are here); the answer names the incarnation.
 */
CREATE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint, p_drift_allowance interval,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz,
    OUT incarnation text)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    n integer;
    v_now timestamptz := idgen.clock();
    -- as at acquisition: no mark further ahead of our clock than the node's
    -- lead over its own, plus the skew allowed
    hw_cap timestamptz := CASE WHEN coalesce(current_setting('idgen.max_skew', true)::interval,
                                             interval '1 s') = interval '0'
                               THEN 'infinity'
                               ELSE v_now + greatest(p_high_water - p_node_clock, interval '0')
                                    + coalesce(current_setting('idgen.max_skew', true)::interval,
                                               interval '1 s') END;
BEGIN
    registry_clock := v_now;
    SELECT c.incarnation INTO incarnation FROM idgen.registry_incarnation_check() AS c;
    UPDATE idgen.worker_lease AS l
    SET lease_until = v_now + p_ttl,
        high_water = greatest(l.high_water, least(p_high_water, hw_cap)),
        renewed_at = v_now, heartbeat_at = v_now,
        clock_offset_ms = coalesce(p_clock_offset_ms,
                                   floor(extract(epoch FROM p_node_clock - v_now) * 1000)::bigint),
        node_state = p_node_state,
        -- never lowered while the lease runs: the holder may have stamped by the old one
        drift_allowance = CASE WHEN l.drift_allowance IS NULL OR p_drift_allowance IS NULL
                               THEN coalesce(p_drift_allowance, l.drift_allowance)
                               ELSE greatest(l.drift_allowance, p_drift_allowance) END
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND l.owner = p_owner AND l.generation = p_generation
      -- an expired lease is never brought back: after a failover or a
      -- restore the block may have been granted again by the registry
      -- that was lost, so its holder leases anew, under the hold
      AND l.lease_until > v_now + idgen.registry_clock_allowance();
    GET DIAGNOSTICS n = ROW_COUNT;

    IF n = p_block THEN
        ok := true;
        lease_until := v_now + p_ttl;
        SELECT min(l.high_water) INTO high_water
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= p_first_worker
          AND l.worker < p_first_worker + p_block;
        RETURN;
    END IF;

    ok := false;
    SELECT l.owner, l.generation INTO other_owner, other_generation
    FROM idgen.worker_lease AS l
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND (l.owner IS DISTINCT FROM p_owner OR l.generation <> p_generation)
    ORDER BY l.worker LIMIT 1;
    -- every row still ours, but its lease over here: generation -1 says so
    IF NOT FOUND THEN
        other_generation := -1;
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval) IS 'renew a node''s block, raise its high-water mark, record its heartbeat and drift allowance (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval) FROM PUBLIC;

-- the call of 0.5 nodes
CREATE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz)
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT r.ok, r.lease_until, r.high_water, r.other_owner, r.other_generation, r.registry_clock
FROM idgen.renew_node_lease(p_owner, p_region, p_first_worker, p_block, p_generation,
                            p_node_clock, p_ttl, p_high_water, p_node_state,
                            p_clock_offset_ms, NULL::interval) AS r
$$;
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) IS 'renew a node''s block, raise its high-water mark and record its heartbeat (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) FROM PUBLIC;

/*
 * A clean release: the holder stopped issuing and tells its final mark
 * (p_high_water, at or above every ID it issued), so a successor starts
 * above that instead of above the lease's end plus the drift allowance.
 */
CREATE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
                                         p_block integer, p_generation bigint,
                                         p_high_water timestamptz) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
UPDATE idgen.worker_lease AS l
SET owner = NULL, lease_until = NULL,
    high_water = greatest(l.high_water, p_high_water)
WHERE l.region = p_region AND l.worker >= p_first_worker
  AND l.worker < p_first_worker + p_block
  AND l.owner = p_owner AND l.generation = p_generation;
$$;
COMMENT ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz) IS 'give a node''s block back, with the final high-water mark of its IDs';
REVOKE ALL ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz) FROM PUBLIC;

CREATE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
                                         p_block integer, p_generation bigint) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
UPDATE idgen.worker_lease AS l
SET owner = NULL, lease_until = NULL
WHERE l.region = p_region AND l.worker >= p_first_worker
  AND l.worker < p_first_worker + p_block
  AND l.owner = p_owner AND l.generation = p_generation;
$$;
COMMENT ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) IS 'give a node''s block back at shutdown, keeping its high-water mark';
REVOKE ALL ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Leases for outside generators (application servers, bulk loaders)
-- ---------------------------------------------------------------------

/*
 * Lease a worker for an outside generator (issue 19, items 5 and 15).  One
 * statement takes the row, and it locks that row only: rows another
 * session has locked (a lease or renewal in flight, however long its
 * transaction stays open) are skipped, not waited for, and no registry-wide
 * lock is taken, so a holder stalled in its lease transaction blocks
 * nobody's lease or renewal.  Rows only this function and the restore
 * triggers create or take without the registry lock; a node's lease locks
 * every row of its block before it judges them (idgen.acquire_node_lease).
 * The ROW EXCLUSIVE table lock orders a lease after a restore or a layout
 * being scheduled (both lock the table against writers), so the hold and
 * the lease end are judged with what they wrote.  Calls of one owner run
 * one at a time: the same owner gets its lease back, by the renewal rule
 * (it runs for more than the clock allowance) and only outside a hold.
 */
CREATE FUNCTION @extschema@.idgen_lease_worker(owner text, ttl interval,
    OUT region integer, OUT worker integer, OUT generation bigint, OUT lease_until timestamptz)
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    until timestamptz;
    my_region integer;
    worker_bits integer;
    w integer;
    made boolean;
    ctl text := substring(owner FROM E'[\\x01-\\x1f\\x7f]');
    hold timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    IF ttl <= interval '0' OR ttl > interval '1 day' THEN
        RAISE EXCEPTION 'lease ttl must lie between 0 and 1 day, not %', ttl
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A lease''s end becomes its worker''s high-water mark: a far-off end would keep anyone from using the worker until then.';
    END IF;
    IF owner = '' OR owner LIKE 'node:%' THEN
        RAISE EXCEPTION 'invalid lease owner: "%"', owner
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'An owner is a non-empty name, and names starting with "node:" are reserved for idgen nodes.';
    END IF;
    -- the name is quoted in idgen_status(), idgen.fleet, the audit log and
    -- the server log, where it must read as what it is
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a lease owner must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. An owner name appears in idgen_status(), idgen.fleet and the audit log, so it must be printable.',
                                  strpos(owner, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    LOCK TABLE idgen.worker_lease IN ROW EXCLUSIVE MODE;
    PERFORM pg_advisory_xact_lock(1768186977, hashtext(idgen_lease_worker.owner));
    now := idgen.clock();

    -- after the registry's incarnation changed, leases it lost run out
    -- first: for the same owner too, whose lease here may be a copy older
    -- than the one it lost
    SELECT c.hold_until INTO hold FROM idgen.registry_incarnation_check() AS c;
    IF hold > now THEN
        RAISE EXCEPTION 'the registry grants no worker until %', hold
            USING ERRCODE = 'IR006',
                  DETAIL = 'The registry is a new incarnation (restarted, promoted or restored), so it may have lost leases it granted; it grants no worker until those have run out.',
                  HINT = 'Retry after that time.';
    END IF;
    until := idgen.outside_lease_end(now, idgen_lease_worker.ttl);

    -- the same owner asking again gets its lease back (a stable retry
    -- identity), by the renewal rule: never one that ends within the clock
    -- allowance, which a registry that lost writes may have granted again
    UPDATE idgen.worker_lease AS x
    SET lease_until = until,
        high_water = greatest(x.high_water, until),
        ttl = idgen_lease_worker.ttl, renewed_at = now
    FROM (SELECT c.region, c.worker FROM idgen.worker_lease AS c
          WHERE c.owner = idgen_lease_worker.owner AND c.node_sysid IS NULL
            AND c.lease_until > now + idgen.registry_clock_allowance()
          ORDER BY c.region, c.worker LIMIT 1
          FOR UPDATE) AS t
    WHERE x.region = t.region AND x.worker = t.worker
    RETURNING x.region, x.worker, x.generation, x.lease_until
    INTO region, worker, generation, lease_until;
    IF FOUND THEN
        RETURN;
    END IF;

    my_region := coalesce(nullif(current_setting('idgen.region_id', true), ''), '0')::integer;
    -- the narrowest worker field of the layout in force and every later one
    SELECT pg_catalog.min(e.worker_bits) INTO worker_bits FROM idgen.epoch AS e
    WHERE e.version >= (SELECT pg_catalog.max(x.version) FROM idgen.epoch AS x
                        WHERE x.start_time <= now);

    LOOP
        -- from the top of the worker range down (nodes take blocks from the
        -- bottom); an outside holder cannot be told where to start, so its
        -- worker's history must already lie in the past
        UPDATE idgen.worker_lease AS x
        SET owner = idgen_lease_worker.owner, generation = idgen.next_generation(x.generation),
            lease_until = until,
            high_water = until, grant_floor = coalesce(x.high_water, '-infinity'),
            node_sysid = NULL, ttl = idgen_lease_worker.ttl,
            acquired_at = now, renewed_at = now,
            drift_allowance = idgen.registry_drift_allowance(idgen_lease_worker.ttl)
        FROM (SELECT c.region, c.worker FROM idgen.worker_lease AS c
              WHERE c.region = my_region AND c.worker < (1 << worker_bits)
                AND (c.owner IS NULL OR (c.lease_until <= now AND c.node_sysid IS NULL))
                AND coalesce(c.high_water + coalesce(c.drift_allowance, interval '0'),
                             '-infinity') < now
              ORDER BY c.worker DESC LIMIT 1
              FOR UPDATE SKIP LOCKED) AS t
        WHERE x.region = t.region AND x.worker = t.worker
        RETURNING x.region, x.worker, x.generation, x.lease_until
        INTO region, worker, generation, lease_until;
        IF FOUND THEN
            PERFORM idgen.audit('worker_leased',
                format('region %s worker %s generation %s owner %s until %s',
                       region, worker, generation, idgen_lease_worker.owner, lease_until));
            RETURN;
        END IF;
        -- no row is free: make the highest one nobody has made yet, passing
        -- over one another session is making (its transaction may stay open)
        made := false;
        FOR w IN REVERSE (1 << worker_bits) - 1 .. 0 LOOP
            CONTINUE WHEN EXISTS (SELECT 1 FROM idgen.worker_lease AS c
                                  WHERE c.region = my_region AND c.worker = w);
            CONTINUE WHEN NOT pg_try_advisory_xact_lock(7596555481923411969 + my_region::bigint * 4194304 + w);
            INSERT INTO idgen.worker_lease (region, worker) VALUES (my_region, w)
            ON CONFLICT DO NOTHING;
            made := true;
            EXIT;
        END LOOP;
        EXIT WHEN NOT made;
    END LOOP;

    RAISE EXCEPTION 'no free worker id in region %', my_region
        USING ERRCODE = 'insufficient_resources',
              HINT = 'Release unused leases with idgen_release_worker() or wait for leases to expire.';
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back; it ends at the next layout switch at the latest (a renewal that names the newest epoch goes past it)';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_worker(text, interval) FROM PUBLIC;

/*
 * Renew an outside lease (R2 for outside holders): by the registry's
 * clock, only while it runs for more than the clock allowance (an expired
 * lease is never brought back: the registry that lost writes may have
 * granted it again), and only the holder's own grant.  p_owner NULL is the
 * call of 0.6 gateways, by (region, worker, generation) alone, which names
 * one grant as generations never repeat (idgen.next_generation).  A lease
 * ends at the next layout switch at the latest, unless the holder names the
 * newest epoch it has read (p_known_epoch) and that is the newest there is,
 * and its worker fits every layout from now on: it then issues in the new
 * layout after the switch, and its lease runs its TTL (issue 19, item 7).
 */
CREATE FUNCTION idgen.renew_outside_lease(p_region integer, p_worker integer,
                                          p_generation bigint, p_owner text,
                                          p_known_epoch integer) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz := idgen.clock();
    v_past boolean;
    v_until timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    SELECT p_known_epoch >= max(e.version)
           AND NOT coalesce(bool_or(e.start_time > v_now
                                    AND (p_region >= (1 << e.region_bits)
                                         OR p_worker >= (1 << e.worker_bits))), false)
      INTO v_past
    FROM idgen.epoch AS e;
    UPDATE idgen.worker_lease AS x
    SET lease_until = CASE WHEN v_past THEN v_now + x.ttl
                           ELSE idgen.outside_lease_end(v_now, x.ttl) END,
        high_water = greatest(x.high_water,
                              CASE WHEN v_past THEN v_now + x.ttl
                                   ELSE idgen.outside_lease_end(v_now, x.ttl) END),
        renewed_at = v_now
    WHERE x.region = p_region AND x.worker = p_worker AND x.generation = p_generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL
      AND (p_owner IS NULL OR x.owner = p_owner)
      AND x.lease_until > v_now + idgen.registry_clock_allowance()
    RETURNING x.lease_until INTO v_until;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('worker %s of region %s is not leased at generation %s%s',
                                    p_worker, p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The lease expired, was released, or was fenced; the holder must stop issuing IDs.',
                  HINT = 'Lease a worker again with idgen_lease_worker().';
    END IF;
    RETURN v_until;
END
$$;
COMMENT ON FUNCTION idgen.renew_outside_lease(integer, integer, bigint, text, integer) IS 'renew an outside lease of this holder (any holder at that generation if p_owner is NULL); past a layout switch only for a holder that read the newest epoch';
REVOKE ALL ON FUNCTION idgen.renew_outside_lease(integer, integer, bigint, text, integer) FROM PUBLIC;

-- the call of 0.6 gateways: (region, worker, generation) names one grant
CREATE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint)
    RETURNS timestamptz
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.renew_outside_lease(region, worker, generation, NULL, NULL)
$$;
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) IS 'renew an outside generator''s lease; fails once fenced or expired';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint,
                                              owner text, known_epoch integer DEFAULT NULL)
    RETURNS timestamptz
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT CASE WHEN region IS NULL OR worker IS NULL OR generation IS NULL OR owner IS NULL
            THEN NULL
            ELSE idgen.renew_outside_lease(region, worker, generation, owner, known_epoch) END
$$;
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer) IS 'renew this holder''s outside lease; fails once fenced, expired or another''s; with the newest layout epoch known, it may run past the next switch';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer) FROM PUBLIC;

/*
 * Give an outside lease back.  With the holder's final mark (p_high_water,
 * at or above every ID it issued) the worker's mark becomes that, never
 * below the mark the lease started above (grant_floor; unknown for a lease
 * granted before 0.7, which keeps its mark), so the worker is granted again
 * once that mark plus the allowance has passed, not at the lease's planned
 * end (issue 19, item 8).  Without one (0.6 gateways), the mark stays at
 * the lease's end.
 */
CREATE FUNCTION idgen.release_outside_lease(p_region integer, p_worker integer,
                                            p_generation bigint, p_owner text,
                                            p_high_water timestamptz) RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz := idgen.clock();
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL,
        high_water = CASE WHEN p_high_water IS NULL THEN greatest(x.high_water, v_now)
                          ELSE greatest(p_high_water, coalesce(x.grant_floor, x.high_water)) END
    WHERE x.region = p_region AND x.worker = p_worker AND x.generation = p_generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL
      AND (p_owner IS NULL OR x.owner = p_owner);
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('worker %s of region %s is not leased at generation %s%s',
                                    p_worker, p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    PERFORM idgen.audit('worker_released',
        format('region %s worker %s generation %s%s', p_region, p_worker, p_generation,
               CASE WHEN p_high_water IS NULL THEN ''
                    ELSE format(' final mark %s', p_high_water) END));
END
$$;
COMMENT ON FUNCTION idgen.release_outside_lease(integer, integer, bigint, text, timestamptz) IS 'give an outside lease back (this holder''s, or any at that generation if p_owner is NULL), with the holder''s final mark if given';
REVOKE ALL ON FUNCTION idgen.release_outside_lease(integer, integer, bigint, text, timestamptz) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint)
    RETURNS void
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.release_outside_lease(region, worker, generation, NULL, NULL)
$$;
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) IS 'give an outside generator''s worker back';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint,
                                                owner text, high_water timestamptz)
    RETURNS void
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.release_outside_lease(region, worker, generation, owner, high_water)
$$;
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) IS 'give this holder''s outside worker back with its final mark: the worker is granted again once that mark plus the allowance has passed';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) FROM PUBLIC;

/*
 * Operator repair: expire a lease and bump its generation.  The high-water
 * mark rises to the lease's end plus the holder's drift allowance: a node of
 * a fleet issues on its own durable mark until its lease ends (it may not
 * hear of the fence before), and an outside holder's mark already covers its
 * whole lease, so whoever takes the worker next and starts above the mark
 * cannot meet the old holder's IDs.  This instance's own node stops at once.
 */
CREATE FUNCTION @extschema@.idgen_fence_worker(region integer, worker integer)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    old idgen.worker_lease;
BEGIN
    PERFORM idgen.require_registry();
    PERFORM idgen.lock_registry();
    SELECT * INTO old FROM idgen.worker_lease AS x
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % has never been leased', worker, region
            USING ERRCODE = 'undefined_object';
    END IF;
    -- the holder may issue on its own mark until its lease ends, unless it
    -- is this instance's own node, which hears of the fence at once: the
    -- next holder starts above that end plus its drift allowance
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL, generation = idgen.next_generation(x.generation),
        high_water = CASE WHEN x.lease_until IS NULL
                               OR (NOT x.remote AND x.node_sysid = idgen.node_sysid()
                                   AND x.timeline = (SELECT r.timeline FROM idgen.running_incarnation() AS r))
                          THEN x.high_water
                          ELSE greatest(x.high_water,
                                        x.lease_until + coalesce(x.drift_allowance, interval '0')) END
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker;
    PERFORM idgen.audit('worker_fenced',
        format('region %s worker %s generation %s -> %s, previous owner %s',
               region, worker, old.generation, old.generation + 1,
               coalesce(old.owner, 'none')));
    PERFORM idgen.wake_worker();
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) IS 'operator repair: expire a lease and bump its generation so the holder stops';
REVOKE ALL ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Operator switches and audits
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_disable(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database('idgen_disable');
    IF reason = '' THEN
        RAISE EXCEPTION 'a reason is required to disable idgen'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO idgen.node_control (node_sysid, disabled_reason)
    VALUES (idgen.node_sysid(), reason)
    ON CONFLICT (node_sysid) DO UPDATE
        SET disabled_reason = excluded.disabled_reason,
            disabled_at = excluded.disabled_at, disabled_by = excluded.disabled_by;
    PERFORM idgen.set_disabled(true, reason);
    PERFORM idgen.audit('disabled', reason);
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_disable(text) IS 'stop issuing IDs on this node, with a reason; lasts across restarts';
REVOKE ALL ON FUNCTION @extschema@.idgen_disable(text) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_enable() RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database('idgen_enable');
    DELETE FROM idgen.node_control WHERE node_sysid = idgen.node_sysid();
    PERFORM idgen.set_disabled(false, NULL);
    PERFORM idgen.audit('enabled', NULL);
    PERFORM idgen.wake_worker();
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_enable() IS 'resume issuing on this node after idgen_disable() or a fence';
REVOKE ALL ON FUNCTION @extschema@.idgen_enable() FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_check_unique(tbl regclass, col name) RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    coltype regtype;
    id_expr text;
    dup_values bigint;
BEGIN
    SELECT a.atttypid::regtype INTO coltype FROM pg_attribute AS a
    WHERE a.attrelid = tbl AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', col, tbl
            USING ERRCODE = 'undefined_column';
    END IF;
    -- only integer-valued columns can name the duplicate as an idgen
    id_expr := CASE WHEN coltype IN ('bigint'::regtype, '@extschema@.idgen'::regtype)
                    THEN 'v::bigint::@extschema@.idgen' ELSE 'NULL' END;
    EXECUTE format(
        'WITH d AS (SELECT %1$I AS v, count(*) AS n FROM %2$s WHERE %1$I IS NOT NULL GROUP BY 1 HAVING count(*) > 1),
              ins AS (INSERT INTO idgen.collision (id, first_owner, second_owner, detail)
                      SELECT %3$s, %4$L, %4$L, format(''value %%s appears %%s times'', v, n) FROM d)
         SELECT count(*) FROM d', col, tbl, id_expr, tbl::text || '.' || quote_ident(col))
    INTO dup_values;
    INSERT INTO idgen.audit_log (action, detail)
    VALUES ('check_unique', format('%s.%s: %s duplicated values', tbl, col, dup_values));
    RETURN dup_values;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_check_unique(regclass, name) IS 'audit a column for duplicate values; findings go to idgen.collision';
-- runs as the caller (reading a table as its owner would run the caller's
-- code with the owner's rights): an auditor needs SELECT on the table and
-- INSERT on idgen.collision and idgen.audit_log
REVOKE ALL ON FUNCTION @extschema@.idgen_check_unique(regclass, name) FROM PUBLIC;

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
    first_tick  bigint,
    counter_bits smallint,
    time_shift  smallint,
    node_bits   bigint,
    origin_unix_ms bigint,
    epoch       integer,
    tail_key    bytea,
    PRIMARY KEY (owner_role, request_key, width),
    CONSTRAINT batch_request_check
        CHECK (CASE WHEN first_tick IS NULL
                        THEN (width = 64) = (ids IS NOT NULL) AND (width = 128) = (ids128 IS NOT NULL)
                        ELSE ids IS NULL AND ids128 IS NULL AND counter_bits IS NOT NULL
                             AND time_shift IS NOT NULL AND node_bits IS NOT NULL
                             AND origin_unix_ms IS NOT NULL AND epoch IS NOT NULL
                             AND (width = 128) = (tail_key IS NOT NULL) END)
);
CREATE INDEX ON idgen.batch_request (expires_at);
COMMENT ON TABLE idgen.batch_request IS 'batches issued under a request key, kept for idgen.request_retention so a retry gets the same IDs';
REVOKE ALL ON idgen.batch_request FROM PUBLIC;
COMMENT ON COLUMN idgen.batch_request.ids IS 'the IDs of a 64-bit batch stored by 0.6; NULL for a batch stored as its run (first_tick and after)';
COMMENT ON COLUMN idgen.batch_request.ids128 IS 'the IDs of a 128-bit batch stored by 0.6; NULL for a batch stored as its run';
COMMENT ON COLUMN idgen.batch_request.first_tick IS 'the first tick of the reserved run; with counter_bits, time_shift and node_bits it makes the IDs again (idgen.batch_ids)';
COMMENT ON COLUMN idgen.batch_request.tail_key IS 'SipHash key of a 128-bit batch''s random tails, so that a retry makes the same idgen128s';

CREATE FUNCTION idgen.request_retention() RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$ SELECT coalesce(nullif(current_setting('idgen.request_retention', true), ''), '1d')::interval $$;
COMMENT ON FUNCTION idgen.request_retention() IS 'how long a request key keeps its batch';

CREATE FUNCTION idgen.reserve_batch(count integer, width smallint,
    OUT first_tick bigint, OUT counter_bits smallint, OUT time_shift smallint,
    OUT node_bits bigint, OUT origin_unix_ms bigint, OUT epoch integer, OUT tail_key bytea)
    AS 'MODULE_PATHNAME', 'idgen_reserve_batch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.reserve_batch(integer, smallint) IS 'reserve count ticks as idgen_next_batch(count) does and return the run (and, 128 bits wide, a random key for the tails) instead of the IDs';
REVOKE ALL ON FUNCTION idgen.reserve_batch(integer, smallint) FROM PUBLIC;

-- a run's IDs are what any cast to idgen could make: no secret, no grant needed
CREATE FUNCTION idgen.batch_run_ids(first_tick bigint, count integer, counter_bits smallint,
                                    time_shift smallint, node_bits bigint)
    RETURNS SETOF @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_batch_run_ids' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION idgen.batch_run_ids(bigint, integer, smallint, smallint, bigint) IS 'the IDs of a reserved run of ticks, ascending: a keyed batch made again';

CREATE FUNCTION idgen.batch_run_ids128(first_tick bigint, count integer, counter_bits smallint,
                                       time_shift smallint, node_bits bigint, origin_unix_ms bigint,
                                       epoch integer, tail_key bytea)
    RETURNS SETOF @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen_batch_run_ids128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION idgen.batch_run_ids128(bigint, integer, smallint, smallint, bigint, bigint, integer, bytea) IS 'the 128-bit IDs of a reserved run of ticks, ascending, their tails made from tail_key: a keyed batch made again';

-- a stored batch's IDs: made again from its run, or a record of 0.6's array
CREATE FUNCTION idgen.batch_ids(r idgen.batch_request) RETURNS SETOF @extschema@.idgen
    LANGUAGE sql STABLE PARALLEL SAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
SELECT x FROM idgen.batch_run_ids(r.first_tick, r.count, r.counter_bits, r.time_shift, r.node_bits) AS x
WHERE r.width = 64
UNION ALL
SELECT x FROM pg_catalog.unnest(r.ids) AS x
$$;
COMMENT ON FUNCTION idgen.batch_ids(idgen.batch_request) IS 'the IDs a stored 64-bit keyed batch returns';

CREATE FUNCTION idgen.batch_ids128(r idgen.batch_request) RETURNS SETOF @extschema@.idgen128
    LANGUAGE sql STABLE PARALLEL SAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
SELECT x FROM idgen.batch_run_ids128(r.first_tick, r.count, r.counter_bits, r.time_shift, r.node_bits,
                                     r.origin_unix_ms, r.epoch, r.tail_key) AS x
WHERE r.width = 128
UNION ALL
SELECT x FROM pg_catalog.unnest(r.ids128) AS x
$$;
COMMENT ON FUNCTION idgen.batch_ids128(idgen.batch_request) IS 'the IDs a stored 128-bit keyed batch returns';

/*
 * The batch for (session_user, key, width): the stored one while it lives,
 * else a new one stored under the key.  A concurrent caller with the same
 * key waits on the unique index until the first commits, then reads its
 * batch; if the first rolls back, the second makes its own.  What is
 * stored is the reserved run, not the IDs; a role keeps at most
 * idgen.request_max_per_role live keys (sessions of one role racing for
 * the last places may pass it by one each).
 */
CREATE FUNCTION idgen.keyed_batch(p_count integer, p_key text, p_width smallint)
    RETURNS idgen.batch_request
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    r idgen.batch_request;
    run record;
    kept bigint;
    cap integer := coalesce(nullif(current_setting('idgen.request_max_per_role', true), ''), '10000')::integer;
    ctl text := substring(p_key FROM E'[\\x01-\\x1f\\x7f]');
BEGIN
    IF p_count < 0 THEN
        RAISE EXCEPTION 'batch size must not be negative: %', p_count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_count > 1000000 THEN
        RAISE EXCEPTION 'a batch with a request key holds at most 1000000 IDs, not %', p_count
            USING ERRCODE = 'program_limit_exceeded',
                  HINT = 'Split the request into several keyed batches.';
    END IF;
    IF p_key = '' OR length(p_key) > 200 THEN
        RAISE EXCEPTION 'a request key has 1 to 200 characters, not %', length(p_key)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a request key must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. A request key is quoted in errors, so it must be printable.',
                                  strpos(p_key, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;

    -- a few expired requests go with every call, so no table grows unbounded
    DELETE FROM idgen.batch_request AS b
    WHERE b.ctid = ANY (ARRAY(SELECT x.ctid FROM idgen.batch_request AS x
                              WHERE x.expires_at < pg_catalog.clock_timestamp()
                              LIMIT 16 FOR UPDATE SKIP LOCKED));

    LOOP
        now := pg_catalog.clock_timestamp();
        SELECT * INTO r FROM idgen.batch_request AS b
        WHERE b.owner_role = session_user AND b.request_key = p_key AND b.width = p_width;
        IF FOUND AND r.expires_at > now THEN
            IF r.count <> p_count THEN
                RAISE EXCEPTION 'request key "%" was used for a batch of % IDs, not %',
                                p_key, r.count, p_count
                    USING ERRCODE = 'invalid_parameter_value',
                          DETAIL = 'A retry must ask for the same batch it retries.';
            END IF;
            RETURN r;
        END IF;
        IF FOUND THEN
            DELETE FROM idgen.batch_request AS b
            WHERE b.owner_role = session_user AND b.request_key = p_key
              AND b.width = p_width AND b.expires_at <= now;
        END IF;
        -- counted no further than the cap: the count costs at most that
        SELECT count(*) INTO kept
        FROM (SELECT 1 FROM idgen.batch_request AS b
              WHERE b.owner_role = session_user AND b.expires_at > now LIMIT cap) AS s;
        IF kept >= cap THEN
            RAISE EXCEPTION 'role "%" keeps % request keys, the most idgen.request_max_per_role allows',
                            session_user, cap
                USING ERRCODE = 'configuration_limit_exceeded',
                      DETAIL = format('A request key is kept for idgen.request_retention (%s s) after its batch.',
                                      extract(epoch FROM idgen.request_retention())::bigint),
                      HINT = 'Retry later, when older keys have expired, or ask an administrator for a higher idgen.request_max_per_role for this role (ALTER ROLE ... SET).';
        END IF;
        BEGIN
            SELECT * INTO run FROM idgen.reserve_batch(p_count, p_width);
            INSERT INTO idgen.batch_request (owner_role, request_key, width, count, expires_at,
                                             first_tick, counter_bits, time_shift, node_bits,
                                             origin_unix_ms, epoch, tail_key)
            VALUES (session_user, p_key, p_width, p_count, now + idgen.request_retention(),
                    run.first_tick, run.counter_bits, run.time_shift, run.node_bits,
                    run.origin_unix_ms, run.epoch, run.tail_key)
            RETURNING * INTO r;
            RETURN r;
        EXCEPTION WHEN unique_violation THEN
            -- someone else stored this key meanwhile: read theirs, which only
            -- a READ COMMITTED snapshot taken from now on can see
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'request key "%" was stored by a concurrent transaction', p_key
                    USING ERRCODE = 'serialization_failure',
                          HINT = 'Retry the transaction.';
            END IF;
        END;
    END LOOP;
END
$$;
COMMENT ON FUNCTION idgen.keyed_batch(integer, text, smallint) IS 'the batch stored under a request key, or a new one: its row of idgen.batch_request';
REVOKE ALL ON FUNCTION idgen.keyed_batch(integer, text, smallint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION idgen.keyed_batch(integer, text, smallint) TO PUBLIC;

CREATE FUNCTION @extschema@.idgen_next_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
WITH k AS MATERIALIZED (SELECT * FROM idgen.keyed_batch($1, $2, 64::smallint))
SELECT x FROM k, idgen.batch_run_ids(k.first_tick, k.count, k.counter_bits, k.time_shift, k.node_bits) AS x
UNION ALL
SELECT x FROM k, pg_catalog.unnest(k.ids) AS x
$$;
COMMENT ON FUNCTION @extschema@.idgen_next_batch(integer, text) IS 'count IDs, ascending; the same request key returns the same IDs again (retry identity)';

CREATE FUNCTION @extschema@.idgen_next128_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen128
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
WITH k AS MATERIALIZED (SELECT * FROM idgen.keyed_batch($1, $2, 128::smallint))
SELECT x FROM k, idgen.batch_run_ids128(k.first_tick, k.count, k.counter_bits, k.time_shift, k.node_bits,
                                        k.origin_unix_ms, k.epoch, k.tail_key) AS x
UNION ALL
SELECT x FROM k, pg_catalog.unnest(k.ids128) AS x
$$;
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

/*
 * The range floor.  Ranges are not time-bound, so no hold covers a range
 * the registry granted and then lost (a restore from a backup, a
 * failover to a standby that lacked the grant, a crash with commits not
 * yet flushed): its next grant would start inside it.  The registry
 * cannot tell a restore of a physical copy from a plain restart, so after
 * any change of its incarnation (restart, promotion, timeline switch,
 * start of a copy) and after a pg_restore of its rows, it grants no new
 * range until an operator confirms a floor, one the holders' own records
 * prove (idgen_confirm_range_floor); ranges then start at or above it.
 * The confirmation is for the incarnation it was made in: the row names
 * it.  A row restored from a dump (an INSERT, which the registry itself
 * never makes) withdraws the confirmation.
 */
CREATE TABLE idgen.range_floor (
    floor            @extschema@.idgen NOT NULL DEFAULT '1',
    generation_floor bigint NOT NULL DEFAULT 0,
    incarnation      text,
    confirmed_at     timestamptz,
    confirmed_by     text,
    waiting_reason   text,
    granting_xact    xid8
);
CREATE UNIQUE INDEX range_floor_one_row ON idgen.range_floor ((true));
COMMENT ON TABLE idgen.range_floor IS 'one row: the incarnation in which range grants were confirmed, and the floor no range starts below';
COMMENT ON COLUMN idgen.range_floor.floor IS 'no range is granted below it: the highest floor an operator confirmed, or the end of the last range granted plus one';
COMMENT ON COLUMN idgen.range_floor.generation_floor IS 'the lowest generation the next range may have: above every one a lost grant may have had';
COMMENT ON COLUMN idgen.range_floor.incarnation IS 'the registry incarnation (system id/timeline/postmaster start ms) in which ranges may be granted; NULL: none, until a confirmation';
COMMENT ON COLUMN idgen.range_floor.waiting_reason IS 'why grants wait beyond a change of incarnation (a restore of range rows); NULL when none';
COMMENT ON COLUMN idgen.range_floor.granting_xact IS 'the transaction of the last grant: its own insert into idgen.range_lease is no restore';
REVOKE ALL ON idgen.range_floor FROM PUBLIC;
-- dumped (idgen.range_floor is registered at the end of this file, where
-- the upgrade script registers it too: pg_dump keeps the order): its
-- restore tells a restored registry that its ranges came from a dump
-- (idgen.restore_range_floor)

-- the running instance as idgen_status() names an incarnation
CREATE FUNCTION idgen.range_incarnation() RETURNS text
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT format('%s/%s/%s', r.system_identifier, r.timeline,
              floor(extract(epoch FROM r.postmaster_start) * 1000)::bigint)
FROM idgen.running_incarnation() AS r
$$;
COMMENT ON FUNCTION idgen.range_incarnation() IS 'the running registry instance, as system id/timeline/postmaster start ms';
REVOKE ALL ON FUNCTION idgen.range_incarnation() FROM PUBLIC;

-- a fresh install has granted nothing yet: grants go on in this incarnation
INSERT INTO idgen.range_floor (incarnation, confirmed_at, confirmed_by)
VALUES (idgen.range_incarnation(), pg_catalog.clock_timestamp(), 'CREATE EXTENSION');

-- why range grants wait, or NULL when they may go on
CREATE FUNCTION idgen.range_grant_refusal(f idgen.range_floor) RETURNS text
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT CASE
    WHEN pg_catalog.pg_is_in_recovery() THEN 'this server is a standby'
    WHEN f.incarnation IS NOT DISTINCT FROM idgen.range_incarnation() THEN NULL
    WHEN f.waiting_reason IS NOT NULL THEN f.waiting_reason
    WHEN f.incarnation IS NULL THEN 'no floor was ever confirmed'
    ELSE format('the registry is a new incarnation %s (restarted, promoted or restored) since ranges were confirmed in %s at %s',
                idgen.range_incarnation(), f.incarnation, f.confirmed_at)
END
$$;
COMMENT ON FUNCTION idgen.range_grant_refusal(idgen.range_floor) IS 'why range grants wait for an operator''s confirmation, or NULL when they go on';
REVOKE ALL ON FUNCTION idgen.range_grant_refusal(idgen.range_floor) FROM PUBLIC;

CREATE VIEW idgen.range_grants AS
SELECT idgen.range_grant_refusal(f) IS NULL AS granting,
       idgen.range_grant_refusal(f) AS waiting_for,
       greatest(f.floor::bigint,
                (SELECT coalesce(max(l.range_end::bigint) + 1, 1) FROM idgen.range_lease AS l))::@extschema@.idgen
           AS next_start,
       (SELECT max(l.range_end::bigint) FROM idgen.range_lease AS l) AS highest_range_end,
       f.floor, f.generation_floor, f.incarnation AS confirmed_incarnation,
       f.confirmed_at, f.confirmed_by
FROM idgen.range_floor AS f;
COMMENT ON VIEW idgen.range_grants IS 'whether range grants go on or wait for an operator to confirm a floor (idgen_confirm_range_floor), and where the next range starts';
REVOKE ALL ON idgen.range_grants FROM PUBLIC;

/*
 * Range leases: the generation comes from idgen.range_generation, which a
 * restored dump sets back to its own value; it never goes below a
 * generation a lease of this registry already has, nor below the
 * generation floor of the last confirmation.  A new range is granted only
 * in the incarnation idgen.range_floor names (a fresh install's, or the
 * one an operator confirmed a floor in), at or above that floor.  A keyed
 * retry of a range the table has returns it at any time: nothing new is
 * granted.  The grant commits with synchronous_commit on at least: one
 * the session had turned off or local could be lost by a crash or a
 * failover after it was answered.
 *
 * Names and keys are printable text.  An owner's name is quoted in
 * idgen_status(), idgen.fleet, the audit log and the server log, a request
 * key in the audit log and in errors: a control character there (a
 * newline above all) would make them read as something else.  An
 * operator's reason for idgen_disable() stays free text.
 */
CREATE FUNCTION @extschema@.idgen_lease_range(owner text, count bigint, request_key text DEFAULT NULL,
    OUT range_start @extschema@.idgen, OUT range_end @extschema@.idgen, OUT generation bigint)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r idgen.range_lease;
    f idgen.range_floor;
    refusal text;
    top @extschema@.idgen;
    next_start bigint;
    ctl text;
BEGIN
    PERFORM idgen.require_registry();
    IF owner IS NULL OR owner = '' THEN
        RAISE EXCEPTION 'a range lease needs an owner' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF count IS NULL OR count < 1 THEN
        RAISE EXCEPTION 'range size must be at least 1, not %', count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF length(request_key) > 200 OR length(owner) > 200 THEN
        RAISE EXCEPTION 'a range owner and request key have at most 200 characters'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    ctl := substring(owner FROM E'[\\x01-\\x1f\\x7f]');
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a range owner must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. An owner name appears in the audit log, so it must be printable.',
                                  strpos(owner, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    ctl := substring(request_key FROM E'[\\x01-\\x1f\\x7f]');
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a request key must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. A range''s request key appears in the audit log, so it must be printable.',
                                  strpos(request_key, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    PERFORM idgen.lock_registry();

    -- the same key returns the same range: a lost client gets it back
    IF request_key IS NOT NULL THEN
        SELECT * INTO r FROM idgen.range_lease AS l
        WHERE l.owner = idgen_lease_range.owner AND l.request_key = idgen_lease_range.request_key;
        IF FOUND THEN
            IF r.range_end::bigint - r.range_start::bigint + 1 <> count THEN
                RAISE EXCEPTION 'request key "%" of owner "%" leased a range of % IDs, not %',
                                request_key, owner, r.range_end::bigint - r.range_start::bigint + 1, count
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            range_start := r.range_start;
            range_end := r.range_end;
            generation := r.generation;
            RETURN;
        END IF;
    END IF;

    SELECT * INTO f FROM idgen.range_floor FOR UPDATE;
    refusal := CASE WHEN FOUND THEN idgen.range_grant_refusal(f) ELSE 'idgen.range_floor has no row' END;
    IF refusal IS NOT NULL THEN
        SELECT max(l.range_end) INTO top FROM idgen.range_lease AS l;
        RAISE EXCEPTION 'no range is granted until an operator confirms the range floor'
            USING ERRCODE = 'IA006',
                  DETAIL = format('Range grants wait because %s: the registry may have lost ranges it granted, and the next grant would hand their IDs out again. The highest range it has ends at %s.',
                                  refusal, coalesce(top::text, 'none (no range)')),
                  HINT = 'Find the highest range ID any holder was granted (their own records, idgen_range_consumed reports, the audit log kept elsewhere) and run SELECT idgen_confirm_range_floor(''N'') with N above it; if the change lost nothing (a clean restart, a failover to a synchronous standby), N = 1 confirms the ranges the registry has. See docs/fleets.md, "Ranges after a restore".';
    END IF;

    SELECT coalesce(max(l.range_end::bigint) + 1, 1) INTO next_start FROM idgen.range_lease AS l;
    next_start := greatest(next_start, f.floor::bigint);
    IF count > idgen.range_space_end()::bigint - next_start THEN
        RAISE EXCEPTION 'the range space has no room for % more IDs', count
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('Ranges come from IDs below %s; %s of them are left.',
                                  idgen.range_space_end(), idgen.range_space_end()::bigint - next_start);
    END IF;
    range_start := next_start;
    range_end := next_start + count - 1;
    generation := pg_catalog.nextval('idgen.range_generation');
    -- a restore's SEQUENCE SET may have put the counter back below leases
    -- made since: a fencing token is never handed out twice
    SELECT greatest(idgen_lease_range.generation, pg_catalog.max(l.generation) + 1, f.generation_floor)
      INTO generation
    FROM idgen.range_lease AS l;
    IF generation > pg_catalog.currval('idgen.range_generation') THEN
        PERFORM pg_catalog.setval('idgen.range_generation', generation);
    END IF;
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
    -- the floor follows every grant, so a range_lease row deleted by hand
    -- is never granted again either
    UPDATE idgen.range_floor AS fl
    SET granting_xact = pg_catalog.pg_current_xact_id(),
        floor = greatest(fl.floor::bigint, range_end::bigint + 1)::@extschema@.idgen,
        generation_floor = greatest(fl.generation_floor, generation + 1);
    INSERT INTO idgen.range_lease (range_start, range_end, owner, generation, request_key)
    VALUES (range_start, range_end, owner, generation, request_key);
    PERFORM idgen.audit('range_leased',
        format('owner %s range %s-%s (%s IDs) generation %s key %s',
               owner, range_start, range_end, count, generation, coalesce(request_key, 'none')));
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text) IS 'lease a block of numeric IDs for an outside generator; the same request key returns the same range; after a restart, failover or restore new ranges wait for idgen_confirm_range_floor()';
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

/*
 * An operator confirms the floor: no range was granted at or above it, by
 * the holders' own records.  Ranges start at it, or after the highest one
 * the registry has if that is higher (a floor below it confirms what the
 * table says, the answer to a restart known to have lost nothing); a
 * later confirmation never lowers it.  Generations start above every one
 * a lost grant may have had, by the clock, a floor no lost write can
 * move: a confirmation's generations count up from its microseconds plus
 * twice the registry's clock allowance plus a second, and grants are
 * serialised and take more than a microsecond each, so a lost grant's
 * generation lay below its own time plus that; this registry's clock runs
 * behind the lost grant's by the allowance at most, and the new count
 * starts above it.  (Generations of 0.6 and of a fresh install count
 * from 1, far below.)  Returns where the next range starts.
 */
CREATE FUNCTION @extschema@.idgen_confirm_range_floor(floor @extschema@.idgen)
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
COMMENT ON FUNCTION @extschema@.idgen_confirm_range_floor(@extschema@.idgen) IS 'an operator confirms that no range was granted at or above floor: range grants, which wait after a restart, failover or restore, go on from there (returns the next range''s start)';
REVOKE ALL ON FUNCTION @extschema@.idgen_confirm_range_floor(@extschema@.idgen) FROM PUBLIC;

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

-- ---------------------------------------------------------------------
-- Layout epochs
-- ---------------------------------------------------------------------

-- rows alone do not invalidate the relcache: this tells every backend's
-- cached list of epochs about a new one, or a restore
CREATE FUNCTION idgen.epoch_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'idgen_epoch_changed' LANGUAGE C;
COMMENT ON FUNCTION idgen.epoch_changed() IS 'trigger: makes every session read idgen.epoch again';
REVOKE ALL ON FUNCTION idgen.epoch_changed() FROM PUBLIC;
CREATE TRIGGER epoch_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON idgen.epoch
    FOR EACH STATEMENT EXECUTE FUNCTION idgen.epoch_changed();

/*
 * Where the next epoch's time field must start for its IDs to sort above
 * every earlier one.  Reads idgen.epoch (STABLE); raises when no such
 * layout exists.  Only idgen_schedule_layout() needs it.
 */
CREATE FUNCTION idgen.plan_layout(applies_at timestamptz, region_bits integer,
                                  worker_bits integer, seq_bits integer,
                                  OUT version integer, OUT epoch_start timestamptz,
                                  OUT time_bits integer, OUT horizon timestamptz,
                                  OUT boundary @extschema@.idgen)
    AS 'MODULE_PATHNAME', 'idgen_plan_layout' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION idgen.plan_layout(timestamptz, integer, integer, integer) IS 'the next layout epoch, placed above every earlier ID; raises if impossible';
REVOKE ALL ON FUNCTION idgen.plan_layout(timestamptz, integer, integer, integer) FROM PUBLIC;

-- an epoch's lowest ID: its time field at its start, all other fields 0
CREATE VIEW idgen.epoch_boundaries AS
SELECT e.version, e.start_time,
       @extschema@.idgen(((EXTRACT(epoch FROM e.start_time - e.epoch_start) * 1000)::bigint)
                         << (e.region_bits + e.worker_bits + e.seq_bits)) AS boundary,
       e.region_bits, e.worker_bits, e.seq_bits, e.horizon
FROM idgen.epoch AS e;
COMMENT ON VIEW idgen.epoch_boundaries IS 'each layout epoch with the lowest ID it owns: an ID belongs to the last epoch whose boundary is at or below it';
GRANT SELECT ON idgen.epoch_boundaries TO PUBLIC;

/*
 * Add a bit layout from applies_at on.  Runs in the registry, where every
 * node reads idgen.epoch with each lease renewal.  Refused, with the
 * reason, when it could not be made safe:
 *   - too soon: every node must have renewed (and so learned of it) before
 *     it applies, and no node may have issued IDs at or after it already;
 *   - a held worker, or this node's settings, do not fit the new fields;
 *   - its IDs cannot sort above the previous layout's, it does not fit an
 *     idgen128, or its time field runs out within idgen.horizon_warning.
 * The SHARE lock makes lease renewals wait for this transaction, so none
 * extends a lease past applies_at without seeing the new row.
 */
CREATE FUNCTION @extschema@.idgen_schedule_layout(applies_at timestamptz, region_bits integer,
                                                 worker_bits integer, seq_bits integer)
    RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    ttl interval := pg_catalog.current_setting('idgen.lease_ttl')::interval;
    warning interval := pg_catalog.current_setting('idgen.horizon_warning')::interval;
    per_node integer := pg_catalog.current_setting('idgen.workers_per_node')::integer;
    my_region integer := pg_catalog.current_setting('idgen.region_id')::integer;
    my_worker integer := pg_catalog.current_setting('idgen.worker_id')::integer;
    layout text;
    now_ts timestamptz;
    last_lease timestamptz;
    last_issued timestamptz;
    earliest timestamptz;
    bad record;
    plan record;
BEGIN
    IF applies_at IS NULL OR region_bits IS NULL OR worker_bits IS NULL OR seq_bits IS NULL THEN
        RAISE EXCEPTION 'idgen_schedule_layout() needs a time and three field widths, none NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM idgen.require_registry();
    layout := pg_catalog.format('%s/%s/%s (region/worker/sequence bits)',
                                region_bits, worker_bits, seq_bits);
    IF region_bits NOT BETWEEN 0 AND 22 OR worker_bits NOT BETWEEN 0 AND 22
       OR seq_bits NOT BETWEEN 1 AND 22 THEN
        RAISE EXCEPTION 'cannot schedule layout %: each field has 0 to 22 bits, the sequence at least 1', layout
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    applies_at := pg_catalog.date_trunc('milliseconds', applies_at);

    LOCK TABLE idgen.epoch IN EXCLUSIVE MODE;
    LOCK TABLE idgen.worker_lease IN SHARE MODE;

    now_ts := idgen.clock();
    SELECT pg_catalog.max(l.lease_until) FILTER (WHERE l.owner IS NOT NULL),
           pg_catalog.max(l.high_water)
      INTO last_lease, last_issued
      FROM idgen.worker_lease AS l;
    earliest := GREATEST(now_ts + 2 * ttl,
                         COALESCE(last_lease, now_ts) + ttl,
                         COALESCE(last_issued, now_ts) + interval '1 millisecond');
    IF applies_at < earliest THEN
        RAISE EXCEPTION 'cannot schedule layout % from %: that is too soon', layout, applies_at
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('Every node must learn of a new layout before it applies, and nodes learn of it when they renew their leases: the latest lease runs until %s and IDs may have been issued up to %s, with idgen.lease_ttl = %s.',
                                             COALESCE(last_lease::text, 'none'), COALESCE(last_issued::text, 'none'), ttl),
                  HINT = pg_catalog.format('Schedule it at %s or later.', earliest);
    END IF;

    SELECT l.region, l.worker, l.owner INTO bad
      FROM idgen.worker_lease AS l
     WHERE l.owner IS NOT NULL
       AND (l.region >= (1 << region_bits) OR l.worker >= (1 << worker_bits))
     ORDER BY l.region, l.worker
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'cannot schedule layout %: worker % of region % does not fit it', layout, bad.worker, bad.region
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The worker is leased by %s; the new layout holds regions 0-%s and workers 0-%s.',
                                             bad.owner, (1 << region_bits) - 1, (1 << worker_bits) - 1),
                  HINT = 'Keep enough region and worker bits for every node of the fleet.';
    END IF;
    IF my_region >= (1 << region_bits) OR my_worker >= (1 << worker_bits)
       OR per_node > (1 << worker_bits) THEN
        RAISE EXCEPTION 'cannot schedule layout %: this node''s settings do not fit it', layout
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('idgen.region_id = %s, idgen.worker_id = %s and idgen.workers_per_node = %s; the new layout holds regions 0-%s and %s workers.',
                                             my_region, my_worker, per_node, (1 << region_bits) - 1, 1 << worker_bits);
    END IF;

    SELECT * INTO plan FROM idgen.plan_layout(applies_at, region_bits, worker_bits, seq_bits);
    IF plan.horizon < applies_at + warning THEN
        RAISE EXCEPTION 'cannot schedule layout %: its time field runs out at %', layout, plan.horizon
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('To sort above the IDs before it, its time field starts at %s; %s time bits then end within idgen.horizon_warning (%s) of %s.',
                                             plan.epoch_start, plan.time_bits, warning, applies_at),
                  HINT = 'Put fewer bits below the time field.';
    END IF;

    INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits,
                             worker_bits, seq_bits, horizon)
    VALUES (plan.version, applies_at, plan.epoch_start, plan.time_bits, region_bits,
            worker_bits, seq_bits, plan.horizon);
    PERFORM idgen.audit('schedule_layout',
                        pg_catalog.format('epoch %s: layout %s from %s, time field from %s, horizon %s, first ID %s',
                                          plan.version, layout, applies_at, plan.epoch_start,
                                          plan.horizon, plan.boundary));
    PERFORM idgen.wake_worker();
    RETURN plan.version;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_schedule_layout(timestamptz, integer, integer, integer) IS 'add a bit layout from applies_at on, in the registry; unsafe layouts are refused with the reason';
REVOKE ALL ON FUNCTION @extschema@.idgen_schedule_layout(timestamptz, integer, integer, integer) FROM PUBLIC;

-- ==============================================================
-- Statistics: idgen.stats, the counters of the generator and the
-- watchdog, for monitoring (pg_monitor), not for PUBLIC
-- =====================================================================

-- VOLATILE: every call reads live counters; PARALLEL SAFE: they are all in
-- shared memory, like idgen_status()'s
CREATE FUNCTION idgen.stats_counters(
    OUT node_sysid text, OUT region integer, OUT worker integer, OUT state text,
    OUT ids_idgen bigint, OUT ids_idgen128 bigint, OUT batches bigint,
    OUT sequence_exhaustions bigint, OUT clock_waits bigint, OUT clock_wait_ms bigint,
    OUT drift_ms bigint, OUT max_drift_ms bigint,
    OUT clock_rollbacks bigint, OUT clock_refusals bigint,
    OUT clock_jumps_forward bigint, OUT clock_steps_back bigint,
    OUT lease_renewals bigint, OUT lease_failures bigint, OUT fencing_events bigint,
    OUT collisions bigint, OUT started_at timestamptz, OUT stats_reset timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_stats_counters' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.stats_counters() IS 'the row behind the idgen.stats view; needs shared_preload_libraries = ''idgen''';
REVOKE ALL ON FUNCTION idgen.stats_counters() FROM PUBLIC;
-- a view's reader needs EXECUTE on the functions the view calls
GRANT EXECUTE ON FUNCTION idgen.stats_counters() TO pg_monitor;

CREATE FUNCTION idgen.reset_stats() RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_reset_stats' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.reset_stats() IS 'idgen.stats counts from zero again (idgen_status() does not reset)';
REVOKE ALL ON FUNCTION idgen.reset_stats() FROM PUBLIC;

CREATE VIEW idgen.stats AS
SELECT s.node_sysid, s.region, s.worker, s.state,
       s.ids_idgen, s.ids_idgen128, s.batches, s.sequence_exhaustions,
       s.clock_waits, s.clock_wait_ms, s.drift_ms, s.max_drift_ms,
       s.clock_rollbacks, s.clock_refusals, s.clock_jumps_forward, s.clock_steps_back,
       s.lease_renewals, s.lease_failures, s.fencing_events, s.collisions,
       s.started_at, s.stats_reset
FROM idgen.stats_counters() AS s;
COMMENT ON VIEW idgen.stats IS 'counters of this node''s generator and watchdog, one row; counted since stats_reset, or since started_at when never reset';
COMMENT ON COLUMN idgen.stats.node_sysid IS 'system identifier of this node, as idgen.worker_lease records it';
COMMENT ON COLUMN idgen.stats.region IS 'region of this node (idgen.region_id)';
COMMENT ON COLUMN idgen.stats.worker IS 'first worker id of the block this node leases; NULL while it holds none';
COMMENT ON COLUMN idgen.stats.state IS 'the generator''s state, as idgen_status() names it';
COMMENT ON COLUMN idgen.stats.ids_idgen IS '64-bit IDs issued (idgen_next() and the idgen batch functions)';
COMMENT ON COLUMN idgen.stats.ids_idgen128 IS '128-bit IDs issued (idgen_next128() and the idgen128 batch functions)';
COMMENT ON COLUMN idgen.stats.batches IS 'batch reservations of either width; an empty batch and a keyed batch returned again are not counted';
COMMENT ON COLUMN idgen.stats.sequence_exhaustions IS 'single IDs that had to borrow the next millisecond because this one''s sequence was used up';
COMMENT ON COLUMN idgen.stats.clock_waits IS 'calls that waited for the wall clock to catch up with the logical clock';
COMMENT ON COLUMN idgen.stats.clock_wait_ms IS 'milliseconds spent in those waits';
COMMENT ON COLUMN idgen.stats.drift_ms IS 'how far the logical clock is ahead of the wall clock now; 0 when it is not';
COMMENT ON COLUMN idgen.stats.max_drift_ms IS 'the largest drift seen: when a reservation ran ahead of the wall clock, a call had to wait or refuse, or this view was read';
COMMENT ON COLUMN idgen.stats.clock_rollbacks IS 'times a generating call saw the wall clock go back';
COMMENT ON COLUMN idgen.stats.clock_refusals IS 'calls refused for time reasons: clock too far behind, time field exhausted, lease or high-water mark not renewed in time';
COMMENT ON COLUMN idgen.stats.clock_jumps_forward IS 'forward jumps of the wall clock against the monotonic clock, seen by the background worker';
COMMENT ON COLUMN idgen.stats.clock_steps_back IS 'backward steps of the wall clock against the monotonic clock, seen by the background worker';
COMMENT ON COLUMN idgen.stats.lease_renewals IS 'worker lease renewals that succeeded';
COMMENT ON COLUMN idgen.stats.lease_failures IS 'rounds of the background worker''s lease work (acquiring, renewing) that failed with an error';
COMMENT ON COLUMN idgen.stats.fencing_events IS 'times this node was fenced: its lease was taken away or its generation changed';
COMMENT ON COLUMN idgen.stats.collisions IS 'times the background worker found this node''s workers held by another holder while its lease was valid (recorded in idgen.collision)';
COMMENT ON COLUMN idgen.stats.started_at IS 'when the counters started: server start, or restart after a crash';
COMMENT ON COLUMN idgen.stats.stats_reset IS 'last idgen.reset_stats(); NULL if never';
REVOKE ALL ON idgen.stats FROM PUBLIC;
GRANT SELECT ON idgen.stats TO pg_monitor;

/*
 * Privileges review (issue 7), over every function of the extension:
 *  - every SECURITY DEFINER function (idgen_lease_worker, idgen_renew_worker,
 *    idgen_release_worker, idgen_fence_worker, idgen_disable, idgen_enable,
 *    idgen_lease_range, idgen_range_consumed, idgen.keyed_batch, idgen_mask
 *    (both), idgen_unmask, idgen_unmask128, idgen_rotate_mask_key) already
 *    has SET search_path = pg_catalog, pg_temp and names the extension's
 *    objects with their schema; so do all SQL and PL/pgSQL functions;
 *  - EXECUTE is revoked from PUBLIC on every function that changes lease,
 *    node or key state, reads the registry or keys for its caller, or is
 *    internal; PUBLIC keeps the generating, decoding, time and status
 *    functions, the keyed batches (idgen.keyed_batch scopes them to
 *    session_user), the mask functions, and harmless readers (idgen.clock,
 *    idgen.node_sysid -- PUBLIC may call pg_control_system() too --,
 *    idgen.default_layout, idgen.range_space_end, idgen.request_retention);
 *  - the LEAKPROOF time comparisons raise no errors for any input.
 * No ALTER FUNCTION was needed; test/pgtap/privileges.sql asserts the result.
 */

-- =====================================================================
-- Fleets: nodes leasing from a shared registry (idgen.registry)
-- =====================================================================

-- the node's own tables: idgen_disable() and idgen_enable() work on every
-- node of a fleet, also while the registry is away
CREATE FUNCTION idgen.require_node_database() RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    db text := current_setting('idgen.database', true);
BEGIN
    IF db IS NULL THEN
        RAISE EXCEPTION 'idgen is not loaded through shared_preload_libraries'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Add idgen to shared_preload_libraries.';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'idgen lease functions need READ COMMITTED isolation'
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'They wait for each other''s row locks and must then see the rows as committed, not as of an older snapshot.';
    END IF;
    IF db <> current_database() THEN
        RAISE EXCEPTION 'idgen worker leases live in database "%", not "%"', db, current_database()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.database names the database whose idgen.worker_lease table is this node''s registry; a lease taken anywhere else could collide with the node''s own workers.',
                  HINT = format('Connect to database %s.', db);
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.require_node_database() IS 'raise unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database() FROM PUBLIC;

-- the same for idgen_disable() and idgen_enable(), in their own words
CREATE FUNCTION idgen.require_node_database(caller text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    db text := current_setting('idgen.database', true);
BEGIN
    IF db IS NULL THEN
        RAISE EXCEPTION 'idgen is not loaded through shared_preload_libraries'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Add idgen to shared_preload_libraries.';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION '%() needs READ COMMITTED isolation', caller
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'It writes the node''s own switch row, which the background worker and other sessions change too; it must see their rows as committed, not as of an older snapshot.';
    END IF;
    IF db <> current_database() THEN
        RAISE EXCEPTION '%() works in database "%", not "%"', caller, db, current_database()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.database names the database where this node keeps its own state (its switches, its lease and its audit log); the background worker reads idgen_disable() and idgen_enable() there.',
                  HINT = format('Connect to database %s.', db);
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.require_node_database(text) IS 'raise, naming the caller, unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database(text) FROM PUBLIC;

-- every holder of the registry: nodes with their blocks, outside generators
CREATE VIEW idgen.fleet AS
SELECT l.owner AS holder,
       CASE WHEN l.node_sysid IS NULL THEN 'outside' ELSE 'node' END AS kind,
       l.node_sysid,
       l.region,
       min(l.worker) AS first_worker,
       max(l.worker) AS last_worker,
       max(l.generation) AS generation,
       min(l.lease_until) AS lease_until,
       min(l.lease_until) > idgen.clock() AS live,
       min(l.high_water) AS high_water,
       max(l.heartbeat_at) AS last_heartbeat,
       max(l.clock_offset_ms) AS clock_offset_ms,
       max(l.node_state) AS node_state,
       bool_or(l.remote) AS remote,
       greatest(min(l.lease_until) - idgen.clock(), interval '0') AS outage_budget,
       max(l.drift_allowance) AS drift_allowance
FROM idgen.worker_lease AS l
WHERE l.owner IS NOT NULL
GROUP BY l.owner, l.node_sysid, l.region;
COMMENT ON VIEW idgen.fleet IS 'the registry''s holders: each node''s region, workers, generation, lease expiry, high-water mark, last heartbeat and clock offset';
COMMENT ON COLUMN idgen.fleet.live IS 'the lease has not yet expired by the registry''s clock';
COMMENT ON COLUMN idgen.fleet.clock_offset_ms IS 'the holder''s clock minus the registry''s, as last measured';
COMMENT ON COLUMN idgen.fleet.last_heartbeat IS 'registry clock when the holder last had an answer from the registry';
COMMENT ON COLUMN idgen.fleet.outage_budget IS 'how much longer the holder may issue without another answer from the registry (its lease''s end by the registry''s clock, less now)';
COMMENT ON COLUMN idgen.fleet.drift_allowance IS 'how far past the registry''s clock the holder may stamp IDs; a successor after an unclean end starts above lease_until plus this';
REVOKE ALL ON idgen.fleet FROM PUBLIC;
GRANT SELECT ON idgen.fleet TO pg_monitor;

-- ---------------------------------------------------------------------
-- Outside generators and layout epochs
-- ---------------------------------------------------------------------

/*
 * An outside generator composes its IDs itself, with the layout in force
 * when it leased: it cannot follow a switch.  So its lease never spans one:
 * it ends at the next scheduled epoch's start at the latest, and the
 * generator leases again after the switch, under the new layout.  (The
 * schedule refuses a start before every current lease has ended anyway.)
 */
CREATE FUNCTION idgen.outside_lease_end(now timestamptz, ttl interval) RETURNS timestamptz
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT LEAST(now + ttl, (SELECT min(e.start_time) FROM idgen.epoch AS e WHERE e.start_time > now))
$$;
COMMENT ON FUNCTION idgen.outside_lease_end(timestamptz, interval) IS 'end of an outside generator''s lease taken or renewed now: its ttl, but never past the next layout switch';
REVOKE ALL ON FUNCTION idgen.outside_lease_end(timestamptz, interval) FROM PUBLIC;

-- =====================================================================
-- Dump and restore: a registry database restores like any database
-- =====================================================================

/*
 * pg_dump writes the rows of the configuration tables, and pg_restore
 * (or psql) puts them back with COPY into a server whose background worker
 * has already created the extension and leased its own block.  A restored
 * row whose key the database already has is merged into it here instead of
 * failing on the primary key; a row the database has already, unchanged,
 * is skipped, so a dump restored twice changes nothing.  These triggers
 * fire for every INSERT, and cost the catalog's own inserts one index
 * lookup; pg_restore --disable-triggers bypasses them (and then fails on
 * the keys as before).
 */

-- retry keys come along while they live: a retry after a restore gets its
-- batch again
SELECT pg_catalog.pg_extension_config_dump('idgen.batch_request',
    'WHERE expires_at > pg_catalog.now()');

CREATE FUNCTION idgen.yield_lease(reason text, owner text, region integer, worker integer,
                                  generation bigint) RETURNS boolean
    AS 'MODULE_PATHNAME', 'idgen_yield_lease_sql' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.yield_lease(text, text, integer, integer, bigint) IS 'this node stops issuing under its lease at once and leases anew (NULL owner: whatever it holds); false if the lease is not the node''s';
REVOKE ALL ON FUNCTION idgen.yield_lease(text, text, integer, integer, bigint) FROM PUBLIC;

/*
 * A restored worker_lease row (NEW) for a worker the registry has a row
 * for already (e).  Never two holders, never a mark or generation lowered:
 *   - high_water becomes the later of the two;
 *   - the same lease (owner and generation) keeps the later expiry;
 *   - a restored live lease of an outside generator or of a remote node
 *     (they renew here once they reach this server) is carried, holder,
 *     generation and expiry, unless a live holder of this registry other
 *     than this node has the worker (it keeps it: the restored holder is
 *     refused at its next renewal, and a WARNING says so), or its
 *     generation is behind the row's;
 *   - a restored lease of a node that leased in its own instance
 *     (node_sysid set, not remote) is history: that node never renews here;
 *   - when this node's own running lease covers the worker it stops
 *     issuing at once, before the restore commits, and its background
 *     worker leases anew above the merged marks (idgen.yield_lease), so
 *     its next IDs lie above every restored one;
 *   - with no live holder on either side, the side with the later
 *     generation gives the holder columns.
 * The first restored row locks the table against every lease change
 * (renewals included) until the restore commits, before any row is
 * compared; a lease taken meanwhile waits, and then sees the merged rows.
 */
CREATE FUNCTION idgen.restore_worker_lease() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    e idgen.worker_lease;
    v_now timestamptz;
    e_live boolean;
    e_mine boolean := false;
    r_live boolean;
    carry boolean;
    merged timestamptz;
    what text;
BEGIN
    LOCK TABLE idgen.worker_lease IN SHARE ROW EXCLUSIVE MODE;
    -- the registry the dump came from may have granted after it: a hold
    -- (a restored node lease's TTL counts), and generations go on above it
    PERFORM idgen.note_restore(CASE WHEN NEW.owner IS NOT NULL AND NEW.node_sysid IS NOT NULL
                                    THEN NEW.ttl END,
                               CASE WHEN NEW.owner IS NOT NULL OR NEW.node_sysid IS NOT NULL
                                    THEN NEW.drift_allowance END);
    -- a restored outside lease may have been renewed after the dump: its
    -- worker waits for as long as such a renewal could run
    IF NEW.owner IS NOT NULL AND NEW.node_sysid IS NULL AND NEW.ttl IS NOT NULL THEN
        NEW.high_water := greatest(NEW.high_water,
                                   idgen.clock() + NEW.ttl + idgen.registry_clock_allowance());
    END IF;
    SELECT * INTO e FROM idgen.worker_lease AS x
    WHERE x.region = NEW.region AND x.worker = NEW.worker;
    IF NOT FOUND THEN
        RETURN NEW;
    END IF;
    merged := greatest(e.high_water, NEW.high_water);

    -- the same lease, an older or newer copy of it: the later of each time
    IF NEW.owner IS NOT NULL AND NEW.owner = e.owner AND NEW.generation = e.generation THEN
        IF NEW.high_water > e.high_water THEN
            PERFORM idgen.yield_lease(
                format('a restored high-water mark of worker %s of region %s lies above this node''s: leasing anew above it',
                       e.worker, e.region),
                e.owner, e.region, e.worker, e.generation);
        END IF;
        UPDATE idgen.worker_lease AS x
        SET high_water = merged, lease_until = greatest(x.lease_until, NEW.lease_until),
            grant_floor = CASE WHEN x.grant_floor IS NULL OR NEW.grant_floor IS NULL THEN NULL
                               ELSE greatest(x.grant_floor, NEW.grant_floor) END,
            renewed_at = greatest(x.renewed_at, NEW.renewed_at),
            heartbeat_at = greatest(x.heartbeat_at, NEW.heartbeat_at)
        WHERE x.region = NEW.region AND x.worker = NEW.worker;
        RETURN NULL;
    END IF;

    v_now := idgen.clock();
    e_live := e.owner IS NOT NULL AND e.lease_until > v_now;
    r_live := NEW.owner IS NOT NULL AND NEW.lease_until > v_now
              AND (NEW.node_sysid IS NULL OR NEW.remote);
    IF e_live THEN
        e_mine := idgen.yield_lease(
            format('idgen.worker_lease rows were restored over this node''s lease (worker %s of region %s, generation %s): leasing anew above the restored high-water marks',
                   e.worker, e.region, e.generation),
            e.owner, e.region, e.worker, e.generation);
    END IF;
    carry := r_live AND (NOT e_live OR e_mine)
             AND (NEW.generation > e.generation
                  OR (NEW.generation = e.generation AND e.owner IS NOT NULL));

    IF carry OR (NOT e_live AND NEW.generation > e.generation) THEN
        UPDATE idgen.worker_lease AS x
        SET owner = NEW.owner, generation = NEW.generation, lease_until = NEW.lease_until,
            high_water = merged, node_sysid = NEW.node_sysid, timeline = NEW.timeline,
            ttl = NEW.ttl, acquired_at = NEW.acquired_at, renewed_at = NEW.renewed_at,
            remote = NEW.remote, heartbeat_at = NEW.heartbeat_at,
            clock_offset_ms = NEW.clock_offset_ms, node_state = NEW.node_state,
            -- what this registry had under the worker stays below any release
            grant_floor = CASE WHEN NEW.grant_floor IS NULL THEN NULL
                               ELSE greatest(NEW.grant_floor, e.high_water) END
        WHERE x.region = NEW.region AND x.worker = NEW.worker;
        what := CASE WHEN carry THEN format('the restored lease of %s (generation %s) is carried',
                                            NEW.owner, NEW.generation)
                     ELSE format('the restored row (generation %s) is newer', NEW.generation) END;
    ELSE
        UPDATE idgen.worker_lease AS x SET high_water = merged
        WHERE x.region = NEW.region AND x.worker = NEW.worker;
        what := format('the row (generation %s, holder %s) is kept', e.generation,
                       coalesce(e.owner, 'none'));
        IF r_live THEN
            RAISE WARNING 'idgen: the restored lease of worker % of region % by "%" (generation %) is not carried',
                          NEW.worker, NEW.region, NEW.owner, NEW.generation
                USING DETAIL = format('The worker is held by "%s" at generation %s in this registry; the restored holder is refused at its next renewal and must lease again.',
                                      e.owner, e.generation);
        END IF;
    END IF;
    PERFORM idgen.audit('restore_merged',
        format('region %s worker %s: %s; high-water %s -> %s%s', NEW.region, NEW.worker, what,
               coalesce(e.high_water::text, 'none'), coalesce(merged::text, 'none'),
               CASE WHEN e_mine THEN '; this node leases anew' ELSE '' END));
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION idgen.restore_worker_lease() IS 'trigger: a restored worker_lease row whose worker exists is merged into it: marks never lowered, never two holders';
REVOKE ALL ON FUNCTION idgen.restore_worker_lease() FROM PUBLIC;
CREATE TRIGGER worker_lease_restore BEFORE INSERT ON idgen.worker_lease
    FOR EACH ROW WHEN (NEW.owner IS NOT NULL OR NEW.generation > 0 OR NEW.high_water IS NOT NULL)
    EXECUTE FUNCTION idgen.restore_worker_lease();

/*
 * A restored layout epoch.  One this registry has already, the same, is
 * skipped; another one under the same version is refused (IDs were issued
 * under one of them).  A new one must not start where this registry may
 * have issued IDs under an earlier layout already: the restore is refused
 * if any holder's high-water mark but this node's own reaches its start,
 * or this node has issued at or after it.  A node whose lease reaches its
 * start stops issuing first and leases anew, reading the epochs again;
 * renewals wait for the restore to commit (as for idgen_schedule_layout(),
 * which checks all this and more before its insert), so none extends a
 * lease past the start without seeing the epoch.
 */
CREATE FUNCTION idgen.restore_epoch() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    e idgen.epoch;
    s record;
    busy record;
BEGIN
    SELECT * INTO e FROM idgen.epoch AS x WHERE x.version = NEW.version;
    IF FOUND THEN
        IF (e.start_time, e.epoch_start, e.time_bits, e.region_bits, e.worker_bits, e.seq_bits, e.horizon)
           IS NOT DISTINCT FROM
           (NEW.start_time, NEW.epoch_start, NEW.time_bits, NEW.region_bits, NEW.worker_bits,
            NEW.seq_bits, NEW.horizon) THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'cannot restore layout epoch %: this database has another epoch %', NEW.version, NEW.version
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The restored one applies from %s with %s/%s/%s region/worker/sequence bits, this one from %s with %s/%s/%s. IDs may have been issued under either, and an epoch is never rewritten.',
                                  NEW.start_time, NEW.region_bits, NEW.worker_bits, NEW.seq_bits,
                                  e.start_time, e.region_bits, e.worker_bits, e.seq_bits),
                  HINT = 'Restore the registry into a server whose idgen.epoch has no layouts of its own beyond epoch 1.';
    END IF;

    -- only the node's registry: elsewhere no node issues by these rows
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database()
       OR coalesce(current_setting('idgen.registry', true), '') <> '' THEN
        RETURN NEW;
    END IF;
    LOCK TABLE idgen.worker_lease IN SHARE ROW EXCLUSIVE MODE;
    SELECT st.owner, st.generation, st.lease_until, st.logical_clock INTO s
    FROM @extschema@.idgen_status() AS st;
    IF s.lease_until IS NOT NULL AND s.lease_until >= NEW.start_time THEN
        PERFORM idgen.yield_lease(
            format('layout epoch %s from %s was restored: leasing anew to read it', NEW.version, NEW.start_time),
            NULL, NULL, NULL, NULL);
    END IF;
    SELECT l.owner, l.region, l.worker, l.high_water INTO busy
    FROM idgen.worker_lease AS l
    WHERE l.high_water >= NEW.start_time
      AND (l.owner IS DISTINCT FROM s.owner OR l.generation IS DISTINCT FROM s.generation)
    ORDER BY l.high_water DESC LIMIT 1;
    IF FOUND OR s.logical_clock >= NEW.start_time THEN
        RAISE EXCEPTION 'cannot restore layout epoch % from %: this registry may have issued IDs after its start',
                        NEW.version, NEW.start_time
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = CASE WHEN FOUND
                                THEN format('Worker %s of region %s (holder %s) has a high-water mark of %s under the layout before it; its IDs could repeat under the restored one.',
                                            busy.worker, busy.region, coalesce(busy.owner, 'none'), busy.high_water)
                                ELSE format('This node has issued IDs up to %s under the layout before it; they could repeat under the restored one.',
                                            s.logical_clock) END,
                  HINT = 'Restore the registry into a server that has issued no IDs since the epoch''s start.';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION idgen.restore_epoch() IS 'trigger: a restored epoch the registry has is skipped; a conflicting or unsafe one is refused';
REVOKE ALL ON FUNCTION idgen.restore_epoch() FROM PUBLIC;
CREATE TRIGGER epoch_restore BEFORE INSERT ON idgen.epoch
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_epoch();

-- a restored mask key the database has already (same id and secret) is
-- skipped; a different key under the same id fails on the primary key, as
-- tokens of both could not unmask
CREATE FUNCTION idgen.restore_mask_key() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.mask_key AS k WHERE k.key_id = NEW.key_id AND k.secret = NEW.secret;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_mask_key() IS 'trigger: a restored mask key the database has already is skipped';
REVOKE ALL ON FUNCTION idgen.restore_mask_key() FROM PUBLIC;
CREATE TRIGGER mask_key_restore BEFORE INSERT ON idgen.mask_key
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_mask_key();

-- a restored range lease the registry has already (same range, holder,
-- generation and key) keeps the further of the two reported progresses;
-- any other overlap fails on the exclusion constraint: both ranges were
-- handed out.  A row not inserted by a grant is a restore (of a dump
-- without idgen.range_floor's row, as 0.6 made) or an operator's hand:
-- either way the registry's ranges are no longer its own record, and
-- grants wait for a confirmation.
CREATE FUNCTION idgen.restore_range_lease() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM idgen.range_floor AS f
                   WHERE f.granting_xact = pg_catalog.pg_current_xact_id()) THEN
        PERFORM idgen.range_floor_withdraw(format('range leases were restored or inserted by hand at %s',
                                                  pg_catalog.clock_timestamp()));
    END IF;
    UPDATE idgen.range_lease AS l
    SET consumed = greatest(l.consumed, NEW.consumed),
        updated_at = greatest(l.updated_at, NEW.updated_at)
    WHERE l.range_start = NEW.range_start AND l.range_end = NEW.range_end
      AND l.owner = NEW.owner AND l.generation = NEW.generation
      AND l.request_key IS NOT DISTINCT FROM NEW.request_key;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_range_lease() IS 'trigger: a restored range lease the registry has already is merged into it; any restored row makes range grants wait for a confirmation';
REVOKE ALL ON FUNCTION idgen.restore_range_lease() FROM PUBLIC;
CREATE TRIGGER range_lease_restore BEFORE INSERT ON idgen.range_lease
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_range_lease();

-- range grants wait for an operator again: the registry's ranges may have
-- come from a dump whose registry granted more after it (the first such
-- row audits it; the rest of a restore finds the floor withdrawn already)
CREATE FUNCTION idgen.range_floor_withdraw(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    UPDATE idgen.range_floor AS f
    SET incarnation = NULL, waiting_reason = reason
    WHERE f.incarnation IS NOT NULL OR f.waiting_reason IS NULL;
    IF FOUND THEN
        PERFORM idgen.audit('range_floor_restored',
            format('%s: no range is granted until an operator confirms a floor (idgen_confirm_range_floor)', reason));
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.range_floor_withdraw(text) IS 'range grants wait for an operator''s confirmation again, for the reason given';
REVOKE ALL ON FUNCTION idgen.range_floor_withdraw(text) FROM PUBLIC;

-- a restored idgen.range_floor row (the registry itself never inserts
-- one): the higher floors stay, and grants wait for a confirmation
CREATE FUNCTION idgen.restore_range_floor() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    UPDATE idgen.range_floor AS f
    SET floor = greatest(f.floor, NEW.floor),
        generation_floor = greatest(f.generation_floor, NEW.generation_floor);
    IF NOT FOUND THEN
        NEW.incarnation := NULL;
        NEW.waiting_reason := format('the ranges were restored from a dump at %s', pg_catalog.clock_timestamp());
        RETURN NEW;
    END IF;
    PERFORM idgen.range_floor_withdraw(format('the ranges were restored from a dump at %s',
                                              pg_catalog.clock_timestamp()));
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION idgen.restore_range_floor() IS 'trigger: a restored range floor is merged into the registry''s, and range grants wait for a confirmation';
REVOKE ALL ON FUNCTION idgen.restore_range_floor() FROM PUBLIC;
CREATE TRIGGER range_floor_restore BEFORE INSERT ON idgen.range_floor
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_range_floor();

-- a restored retry key the database has already, with the same batch, is
-- skipped; a different batch under the same key fails on the primary key
-- (the unique violation idgen.keyed_batch waits for)
CREATE FUNCTION idgen.restore_batch_request() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.batch_request AS b
    WHERE b.owner_role = NEW.owner_role AND b.request_key = NEW.request_key
      AND b.width = NEW.width AND b.count = NEW.count
      AND b.ids IS NOT DISTINCT FROM NEW.ids AND b.ids128 IS NOT DISTINCT FROM NEW.ids128
      AND b.first_tick IS NOT DISTINCT FROM NEW.first_tick
      AND b.counter_bits IS NOT DISTINCT FROM NEW.counter_bits
      AND b.time_shift IS NOT DISTINCT FROM NEW.time_shift
      AND b.node_bits IS NOT DISTINCT FROM NEW.node_bits
      AND b.origin_unix_ms IS NOT DISTINCT FROM NEW.origin_unix_ms
      AND b.epoch IS NOT DISTINCT FROM NEW.epoch
      AND b.tail_key IS NOT DISTINCT FROM NEW.tail_key;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_batch_request() IS 'trigger: a restored retry key the database has already is skipped';
REVOKE ALL ON FUNCTION idgen.restore_batch_request() FROM PUBLIC;
CREATE TRIGGER batch_request_restore BEFORE INSERT ON idgen.batch_request
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_batch_request();

-- a restored disable the database has already, the same, is skipped
CREATE FUNCTION idgen.restore_node_control() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.node_control AS n
    WHERE n.node_sysid = NEW.node_sysid AND n.disabled_reason = NEW.disabled_reason
      AND n.disabled_at = NEW.disabled_at AND n.disabled_by = NEW.disabled_by;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_node_control() IS 'trigger: a restored node_control row the database has already is skipped';
REVOKE ALL ON FUNCTION idgen.restore_node_control() FROM PUBLIC;
CREATE TRIGGER node_control_restore BEFORE INSERT ON idgen.node_control
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_node_control();

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
-- the registry, also after a restart.  A record holds what regenerates the
-- answer (the reservation: its first tick, layout and workers, and the
-- seed of an idgen128's random bits), a few dozen bytes whatever the count.
-- Scoped by the token's SHA-256 (as in the gateway's tokens file), never by
-- its name: two tokens files may use one name for two clients.  Written
-- only through idgen.gateway_remember() and idgen.gateway_purge(), the
-- functions a gateway's role is granted; dumped, so a retry after a restore
-- of the registry still gets its IDs.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.gateway_request (
    token_sha256 bytea NOT NULL CHECK (pg_catalog.length(token_sha256) = 32),
    request_key  text NOT NULL,
    width        smallint NOT NULL CHECK (width IN (64, 128)),
    count        integer NOT NULL CHECK (count >= 1),
    batch        bytea NOT NULL CHECK (pg_catalog.length(batch) <= 512),
    created_at   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (token_sha256, request_key)
);
CREATE INDEX ON idgen.gateway_request (created_at);
COMMENT ON TABLE idgen.gateway_request IS 'idgen-gateway''s answers under an Idempotency-Key, kept for idgen.request_retention so a retry gets the same IDs';
COMMENT ON COLUMN idgen.gateway_request.token_sha256 IS 'SHA-256 of the bearer token that asked (its line in the gateway''s tokens file)';
COMMENT ON COLUMN idgen.gateway_request.batch IS 'the reservation the IDs are computed from (the gateway''s own encoding)';
REVOKE ALL ON idgen.gateway_request FROM PUBLIC;
-- (registered with the tables below: the upgrade to 0.7 made it anew, and
-- pg_dump keeps the order of registration)

-- pg_dump keeps idgen.range_floor's row (issue 19, item 2): registered
-- last, in the order the upgrade scripts register the configuration tables
SELECT pg_catalog.pg_extension_config_dump('idgen.range_floor', '');

/*
 * One row, dumped with the registry: a restore of the dump inserts it
 * again, and that tells the registry it was restored (idgen.note_restore),
 * also from a dump that holds no lease at all.  The install's own row is
 * written before the trigger exists; a restored one is not kept.
 */
CREATE TABLE idgen.restore_marker (
    marker boolean PRIMARY KEY DEFAULT true CHECK (marker)
);
COMMENT ON TABLE idgen.restore_marker IS 'one row, dumped with the registry: restoring it tells the registry that it was restored from a dump';
REVOKE ALL ON idgen.restore_marker FROM PUBLIC;
INSERT INTO idgen.restore_marker DEFAULT VALUES;
SELECT pg_catalog.pg_extension_config_dump('idgen.restore_marker', '');

CREATE FUNCTION idgen.restore_marker_restored() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_hold timestamptz;
BEGIN
    v_hold := idgen.note_restore(NULL, NULL);
    IF v_hold IS NOT NULL THEN
        PERFORM idgen.audit('registry_restored',
            format('a dump of a registry was restored here: grants made after the dump are lost and may still run, so no block is granted until %s',
                   v_hold));
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION idgen.restore_marker_restored() IS 'trigger: a restored dump''s marker makes the restore a change of incarnation, with its hold';
REVOKE ALL ON FUNCTION idgen.restore_marker_restored() FROM PUBLIC;
CREATE TRIGGER restore_marker_restored BEFORE INSERT ON idgen.restore_marker
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_marker_restored();

-- keys stored per token and window of idgen.request_retention: the cap a
-- gateway puts on one token (--idempotency-keys).  Counted in 16 shards
-- (by registry session), so concurrent groups of one token do not queue
-- on one row; the shards are summed against the cap.
CREATE TABLE idgen.gateway_quota (
    token_sha256 bytea NOT NULL CHECK (pg_catalog.length(token_sha256) = 32),
    window_no    bigint NOT NULL,
    shard        smallint NOT NULL CHECK (shard BETWEEN 0 AND 15),
    keys         bigint NOT NULL CHECK (keys >= 0),
    PRIMARY KEY (token_sha256, window_no, shard)
);
COMMENT ON TABLE idgen.gateway_quota IS 'Idempotency-Key records stored per token and window of idgen.request_retention, for the gateway''s cap per token';
REVOKE ALL ON idgen.gateway_quota FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_request', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_quota', '');

-- One call for a whole group of keyed requests, so they share one commit;
-- a few statements for the whole group, not a few per request.  Row i
-- (in order): a live record of (token, key) is the answer ('found', also
-- when this call stored it); else 'over_cap' when the token is past p_cap
-- keys in this window of idgen.request_retention; else 'none' (no batch
-- was given to store).  The caller sends each (token, key) once, sorted,
-- so concurrent groups take their locks in one order.
CREATE FUNCTION idgen.gateway_remember(p_token text[], p_key text[], p_width smallint[],
    p_count integer[], p_batch text[], p_cap bigint,
    OUT outcome text, OUT width smallint, OUT count integer, OUT batch text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    -- one plan for every call (planning the statements each time cost more
    -- than running them), and one that looks up keys: a plan made while
    -- the tables were empty must not scan them once they hold a day of keys
    SET plan_cache_mode = force_generic_plan SET enable_seqscan = off
    SET enable_hashjoin = off SET enable_mergejoin = off AS
$$
#variable_conflict use_column
DECLARE
    t_now timestamptz := clock_timestamp();
    retention interval := idgen.request_retention();
    win bigint := floor(extract(epoch FROM t_now) / greatest(extract(epoch FROM retention), 1));
    my_shard smallint := pg_backend_pid() % 16;
    over bigint[];
BEGIN
    IF p_cap IS NULL OR p_cap < 0 OR array_length(p_token, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_width, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_count, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_batch, 1) IS DISTINCT FROM array_length(p_key, 1) THEN
        RAISE EXCEPTION 'idgen.gateway_remember: arrays of one length and a cap expected'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the quota counts every new key asked for (those over the cap too:
    -- they stay over it); keys_after - n is what this shard held before,
    -- and the other shards' keys are added as committed (concurrent groups
    -- may pass the cap by a group or two, never more)
    WITH input AS (
        SELECT u.ord, decode(u.t, 'hex') AS tok, u.k, u.w, u.c, decode(u.b, 'hex') AS b
        FROM unnest(p_token, p_key, p_width, p_count, p_batch) WITH ORDINALITY AS u(t, k, w, c, b, ord)
    ), fresh AS (
        SELECT i.*, row_number() OVER (PARTITION BY i.tok ORDER BY i.ord) AS rank
        FROM input i
        WHERE i.b IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM idgen.gateway_request g
            WHERE g.token_sha256 = i.tok AND g.request_key = i.k AND g.created_at >= t_now - retention)
    ), asked AS (
        SELECT f.tok, count(*) AS n FROM fresh f GROUP BY f.tok
    ), quota AS (
        INSERT INTO idgen.gateway_quota AS q (token_sha256, window_no, shard, keys)
        SELECT a.tok, win, my_shard, a.n FROM asked a ORDER BY a.tok
        ON CONFLICT (token_sha256, window_no, shard) DO UPDATE SET keys = q.keys + excluded.keys
        RETURNING q.token_sha256 AS tok, q.keys AS keys_after
    ), ranked AS (
        SELECT f.*, f.rank <= least(a.n, greatest(0, p_cap - (q.keys_after - a.n) - coalesce((
                   SELECT sum(o.keys) FROM idgen.gateway_quota o
                   WHERE o.token_sha256 = f.tok AND o.window_no = win AND o.shard <> my_shard), 0))) AS granted
        FROM fresh f JOIN asked a ON a.tok = f.tok JOIN quota q ON q.tok = f.tok
    ), stored AS (
        -- an expired record not yet purged is replaced; a live one wins
        INSERT INTO idgen.gateway_request AS g (token_sha256, request_key, width, count, batch, created_at)
        SELECT r.tok, r.k, r.w, r.c, r.b, t_now FROM ranked r WHERE r.granted ORDER BY r.tok, r.k
        ON CONFLICT (token_sha256, request_key) DO UPDATE
        SET width = excluded.width, count = excluded.count, batch = excluded.batch,
            created_at = excluded.created_at
        WHERE g.created_at < t_now - retention
        RETURNING 1
    )
    SELECT array_agg(r.ord) FILTER (WHERE NOT r.granted) INTO over
    FROM ranked r LEFT JOIN (SELECT count(*) FROM stored) AS s ON true;
    -- a statement of its own: it sees what this call and concurrent ones stored
    RETURN QUERY
        SELECT CASE WHEN u.ord = ANY (coalesce(over, '{}')) THEN 'over_cap'
                    WHEN g.request_key IS NULL THEN 'none' ELSE 'found' END,
               g.width, g.count, encode(g.batch, 'hex')
        FROM unnest(p_token, p_key) WITH ORDINALITY AS u(t, k, ord)
        LEFT JOIN idgen.gateway_request g
            ON g.token_sha256 = decode(u.t, 'hex') AND g.request_key = u.k
            AND g.created_at >= t_now - retention AND NOT u.ord = ANY (coalesce(over, '{}'))
        ORDER BY u.ord;
END
$$;
COMMENT ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) IS 'idgen-gateway: look up, and store under a cap per token, the Idempotency-Key records of a group of requests in one transaction';
REVOKE ALL ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) FROM PUBLIC;

-- A few rows at a time, skipping rows a request holds, so the purge never
-- waits on a request nor makes one wait for long (the gateway calls it with
-- a lock_timeout, in a loop, on a connection of its own).
CREATE FUNCTION idgen.gateway_purge(p_limit integer) RETURNS integer
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
#variable_conflict use_column
DECLARE
    t_now timestamptz := clock_timestamp();
    retention interval := idgen.request_retention();
    win bigint := floor(extract(epoch FROM t_now) / greatest(extract(epoch FROM retention), 1));
    gone integer;
BEGIN
    DELETE FROM idgen.gateway_request WHERE ctid = ANY (ARRAY(
        SELECT g.ctid FROM idgen.gateway_request g WHERE g.created_at < t_now - retention
        LIMIT greatest(p_limit, 1) FOR UPDATE SKIP LOCKED));
    GET DIAGNOSTICS gone = ROW_COUNT;
    DELETE FROM idgen.gateway_quota WHERE ctid = ANY (ARRAY(
        SELECT q.ctid FROM idgen.gateway_quota q WHERE q.window_no < win - 1
        LIMIT greatest(p_limit, 1) FOR UPDATE SKIP LOCKED));
    RETURN gone;
END
$$;
COMMENT ON FUNCTION idgen.gateway_purge(integer) IS 'idgen-gateway: delete up to p_limit Idempotency-Key records past idgen.request_retention (and old quota windows); returns how many records went';
REVOKE ALL ON FUNCTION idgen.gateway_purge(integer) FROM PUBLIC;

-- =====================================================================
-- 0.8: grant helpers (issue 21, items 7 and 8).  One call gives a role
-- what a fleet node's background worker, or idgen-gateway, needs on the
-- registry, so no page lists signatures that a release then changes.
-- =====================================================================

/*
 * Run each "PRIVILEGES ON OBJECT" of p_what as GRANT ... TO p_role and
 * return the statements run.  CONNECT on this database and USAGE on the
 * schemas are granted only when the role lacks them (PUBLIC has them unless
 * an administrator took them away, and they are not the extension's to
 * give).  The caller's own rights grant: a GRANT that is not its to make
 * would only warn, so a caller who does not own the extension is refused
 * first.  GRANT repeats nothing that was granted, so a second call changes
 * nothing.
 */
CREATE FUNCTION idgen.grant_to(p_role regrole, p_schemas regnamespace[], p_what text[])
    RETURNS SETOF text
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_owner oid := (SELECT e.extowner FROM pg_extension AS e WHERE e.extname = 'idgen');
    v_schema regnamespace;
    v_what text;
    v_sql text;
BEGIN
    IF NOT pg_has_role(current_user, v_owner, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of extension idgen or a superuser may grant its privileges'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = format('The extension belongs to %s.', v_owner::regrole),
                  HINT = 'Call this function as a superuser.';
    END IF;
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database() THEN
        RAISE WARNING 'this is not idgen.database (%): nodes and gateways lease there',
                      current_setting('idgen.database', true)
            USING HINT = 'Call this function in the registry''s idgen.database.';
    END IF;
    IF NOT has_database_privilege(p_role, current_database(), 'CONNECT') THEN
        v_sql := format('GRANT CONNECT ON DATABASE %I TO %s', current_database(), p_role);
        EXECUTE v_sql;
        RETURN NEXT v_sql;
    END IF;
    FOREACH v_schema IN ARRAY p_schemas LOOP
        IF NOT has_schema_privilege(p_role, v_schema, 'USAGE') THEN
            v_sql := format('GRANT USAGE ON SCHEMA %s TO %s', v_schema, p_role);
            EXECUTE v_sql;
            RETURN NEXT v_sql;
        END IF;
    END LOOP;
    FOREACH v_what IN ARRAY p_what LOOP
        v_sql := format('GRANT %s TO %s', v_what, p_role);
        EXECUTE v_sql;
        RETURN NEXT v_sql;
    END LOOP;
END
$$;
COMMENT ON FUNCTION idgen.grant_to(regrole, regnamespace[], text[]) IS 'grant a role the listed privileges on the extension''s objects (and CONNECT and schema USAGE if it lacks them); returns the GRANT statements run';
REVOKE ALL ON FUNCTION idgen.grant_to(regrole, regnamespace[], text[]) FROM PUBLIC;

/*
 * A fleet node's background worker, connected to the registry as p_role
 * (src/lease.c, src/audit.c, src/leaseanswer.c): the lease protocol's
 * three calls, in every form a node of this or an earlier release sends
 * (so a rolling upgrade keeps the older nodes leasing), the functions they
 * call with the caller's rights, the lease and incarnation rows they read
 * and write, and the audit and collision rows a node appends.  idgen.epoch
 * and idgen.clock() it reads as PUBLIC does.
 */
CREATE FUNCTION @extschema@.idgen_grant_node(role regrole) RETURNS SETOF text
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.grant_to(role, ARRAY['idgen'::regnamespace], ARRAY[
    'EXECUTE ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval)',
    'EXECUTE ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean)',
    'EXECUTE ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval)',
    'EXECUTE ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint)',
    'EXECUTE ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz)',
    'EXECUTE ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint)',
    'EXECUTE ON FUNCTION idgen.lock_registry()',
    'EXECUTE ON FUNCTION idgen.audit(text, text)',
    'EXECUTE ON FUNCTION idgen.registry_incarnation_check(boolean)',
    'EXECUTE ON FUNCTION idgen.running_incarnation()',
    'EXECUTE ON FUNCTION idgen.incarnation_hold(timestamptz, boolean)',
    'EXECUTE ON FUNCTION idgen.registry_clock_allowance()',
    'EXECUTE ON FUNCTION idgen.registry_drift_allowance(interval)',
    'EXECUTE ON FUNCTION idgen.drift_allowance(interval, interval, interval)',
    'EXECUTE ON FUNCTION idgen.next_generation(bigint)',
    'SELECT, INSERT, UPDATE ON TABLE idgen.worker_lease',
    'SELECT, INSERT, UPDATE ON TABLE idgen.registry_incarnation',
    'INSERT ON TABLE idgen.audit_log',
    'INSERT ON TABLE idgen.collision'])
$$;
COMMENT ON FUNCTION @extschema@.idgen_grant_node(regrole) IS 'grant a role what a fleet node''s background worker needs on the registry (run it there, as a superuser, and again after ALTER EXTENSION idgen UPDATE); returns the GRANT statements run';
REVOKE ALL ON FUNCTION @extschema@.idgen_grant_node(regrole) FROM PUBLIC;

/*
 * idgen-gateway, connected to the registry as p_role (gateway/gwlease.c,
 * gwpool.c): the outside-generator calls in both forms (0.6 gateways send
 * the 3-argument renewal and release), the range lease of its admin
 * endpoint, and the two functions that keep its Idempotency-Key records;
 * all run with the extension's rights.  Not idgen_confirm_range_floor(): an
 * admin token would confirm a floor the gateway cannot know.
 */
CREATE FUNCTION @extschema@.idgen_grant_gateway(role regrole) RETURNS SETOF text
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.grant_to(role, ARRAY['idgen'::regnamespace, '@extschema@'::regnamespace], ARRAY[
    'EXECUTE ON FUNCTION @extschema@.idgen_lease_worker(text, interval)',
    'EXECUTE ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer)',
    'EXECUTE ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint)',
    'EXECUTE ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz)',
    'EXECUTE ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint)',
    'EXECUTE ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text)',
    'EXECUTE ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint)',
    'EXECUTE ON FUNCTION idgen.gateway_purge(integer)'])
$$;
COMMENT ON FUNCTION @extschema@.idgen_grant_gateway(regrole) IS 'grant a role what idgen-gateway needs on the registry (run it there, as a superuser, and again after ALTER EXTENSION idgen UPDATE); returns the GRANT statements run';
REVOKE ALL ON FUNCTION @extschema@.idgen_grant_gateway(regrole) FROM PUBLIC;

-- A monitoring role needs no helper: the extension grants idgen.stats,
-- idgen.stats_counters() and idgen.fleet to pg_monitor, and idgen_status()
-- is PUBLIC's; membership in pg_monitor is the one grant
-- (docs/monitoring.md).
