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
-- Functions: comparison, btree and hash support, min() and max() steps,
-- and the casts' functions.  All reuse int8's internals but the casts.
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

-- btree support for the cross-type comparisons
CREATE FUNCTION @extschema@.idgen_cmp_bigint(@extschema@.idgen, bigint) RETURNS integer AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.bigint_cmp_idgen(bigint, @extschema@.idgen) RETURNS integer AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen_cmp_integer(@extschema@.idgen, integer) RETURNS integer AS 'btint84cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
CREATE FUNCTION @extschema@.integer_cmp_idgen(integer, @extschema@.idgen) RETURNS integer AS 'btint48cmp' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_cmp_bigint(@extschema@.idgen, bigint) IS 'btree comparison of idgen with bigint';
COMMENT ON FUNCTION @extschema@.bigint_cmp_idgen(bigint, @extschema@.idgen) IS 'btree comparison of bigint with idgen';
COMMENT ON FUNCTION @extschema@.idgen_cmp_integer(@extschema@.idgen, integer) IS 'btree comparison of idgen with integer';
COMMENT ON FUNCTION @extschema@.integer_cmp_idgen(integer, @extschema@.idgen) IS 'btree comparison of integer with idgen';

CREATE FUNCTION @extschema@.idgen_larger(@extschema@.idgen, @extschema@.idgen) RETURNS @extschema@.idgen AS 'int8larger' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_larger(@extschema@.idgen, @extschema@.idgen) IS 'the larger of two idgen, the step of max()';
CREATE FUNCTION @extschema@.idgen_smaller(@extschema@.idgen, @extschema@.idgen) RETURNS @extschema@.idgen AS 'int8smaller' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_smaller(@extschema@.idgen, @extschema@.idgen) IS 'the smaller of two idgen, the step of min()';

CREATE FUNCTION @extschema@.idgen(bigint) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_from_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.idgen(integer) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_from_integer' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen(bigint) IS 'cast from bigint; negative values are rejected';
COMMENT ON FUNCTION @extschema@.idgen(integer) IS 'cast from integer; negative values are rejected';

-- ---------------------------------------------------------------------
-- Casts
-- ---------------------------------------------------------------------

-- every idgen is a valid bigint, with the same bits
CREATE CAST (@extschema@.idgen AS bigint) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (bigint AS @extschema@.idgen) WITH FUNCTION @extschema@.idgen(bigint) AS ASSIGNMENT;
CREATE CAST (integer AS @extschema@.idgen) WITH FUNCTION @extschema@.idgen(integer) AS ASSIGNMENT;
COMMENT ON CAST (@extschema@.idgen AS bigint) IS 'every idgen is a bigint with the same bits';
COMMENT ON CAST (bigint AS @extschema@.idgen) IS 'assignment cast; negative values are rejected';
COMMENT ON CAST (integer AS @extschema@.idgen) IS 'assignment cast; negative values are rejected';

-- ---------------------------------------------------------------------
-- Operators.  Same-type ones plus cross-type ones with bigint and
-- integer, so "id = 42" or "id = $1::bigint" picks an idgen operator and
-- can use the index instead of falling back to the implicit bigint cast.
-- ---------------------------------------------------------------------

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

-- cross-type operators with bigint and integer
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

-- ---------------------------------------------------------------------
-- min() and max() (0.6).  They return the type itself, so
-- idgen_timestamp(max(id)) works; without them max(id) of an idgen went
-- through the implicit cast to bigint's max() and idgen128 had none.  An
-- idgen argument matches these exactly, so they win over bigint's.  The
-- sort operators let the planner answer them with a one-row index scan.
-- ---------------------------------------------------------------------

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
