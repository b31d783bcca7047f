-- idgen_typeid: TypeID text for idgen128 and uuid (new in 0.6).
-- "user_01h455vb4pex5vsknk084sn02q": a lower-case prefix, an underscore
-- (none without a prefix) and the UUID in 26 characters of Crockford
-- base32.  The vectors below are a sample of the TypeID specification's
-- (test/data/typeid/, all of which test/unit/test_typeid.c checks).
SET timezone = 'UTC';

-- errors as SQLSTATE and message, so each refusal shows its class
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS
$$
DECLARE
    r text;
BEGIN
    EXECUTE q INTO r;
    RETURN 'ok: ' || coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
-- and the reason alone, the error's detail
CREATE FUNCTION pg_temp.why(q text) RETURNS text LANGUAGE plpgsql AS
$$
DECLARE
    d text;
BEGIN
    EXECUTE q;
    RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || d;
END
$$;

-- the functions
SELECT p.oid::regprocedure AS function, p.prorettype::regtype AS returns,
       p.provolatile AS volatility, p.proisstrict AS strict, p.proparallel AS parallel,
       pg_get_function_arguments(p.oid) AS arguments,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p
WHERE p.proname IN ('idgen_typeid', 'idgen128_from_typeid', 'uuid_from_typeid', 'typeid_prefix')
ORDER BY p.oid::regprocedure::text COLLATE "C";

--
-- Valid vectors of the specification: both ways, and the prefix
--
CREATE TABLE typeid_valid (name text, typeid text, prefix text, uuid uuid);
INSERT INTO typeid_valid VALUES
    ('nil', '00000000000000000000000000', '', '00000000-0000-0000-0000-000000000000'),
    ('one', '00000000000000000000000001', '', '00000000-0000-0000-0000-000000000001'),
    ('sixteen', '0000000000000000000000000g', '', '00000000-0000-0000-0000-000000000010'),
    ('max-valid', '7zzzzzzzzzzzzzzzzzzzzzzzzz', '', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
    ('valid-alphabet', 'prefix_0123456789abcdefghjkmnpqrs', 'prefix', '0110c853-1d09-52d8-d73e-1194e95b5f19'),
    ('valid-uuidv7', 'prefix_01h455vb4pex5vsknk084sn02q', 'prefix', '01890a5d-ac96-774b-bcce-b302099a8057'),
    ('prefix-underscore', 'pre_fix_00000000000000000000000000', 'pre_fix', '00000000-0000-0000-0000-000000000000');
SELECT name,
       idgen_typeid(uuid, prefix) = typeid AS encodes,
       uuid_from_typeid(typeid) = uuid AS decodes,
       uuid_from_typeid(typeid, prefix) = uuid AS decodes_with_prefix,
       typeid_prefix(typeid) = prefix AS prefix_ok
FROM typeid_valid ORDER BY name COLLATE "C";
SELECT idgen_typeid('01890a5d-ac96-774b-bcce-b302099a8057'::uuid, 'user') AS user_typeid,
       idgen_typeid('01890a5d-ac96-774b-bcce-b302099a8057'::uuid) AS bare,
       uuid_from_typeid('user_01h455vb4pex5vsknk084sn02q') AS uuid;
-- only the version-7 one is an idgen128; the others are refused, with why
SELECT name, pg_temp.try(format('SELECT idgen128_from_typeid(%L)::text', typeid)) AS idgen128
FROM typeid_valid ORDER BY name COLLATE "C";

--
-- Invalid vectors of the specification: every reading function refuses
-- each with 22P02 and says why
--
CREATE TABLE typeid_invalid (name text, typeid text);
INSERT INTO typeid_invalid VALUES
    ('prefix-uppercase', 'PREFIX_00000000000000000000000000'),
    ('prefix-numeric', '12345_00000000000000000000000000'),
    ('prefix-period', 'pre.fix_00000000000000000000000000'),
    ('prefix-spaces', '  prefix_00000000000000000000000000'),
    ('prefix-64-chars', 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000'),
    ('separator-empty-prefix', '_00000000000000000000000000'),
    ('separator-empty', '_'),
    ('suffix-short', 'prefix_1234567890123456789012345'),
    ('suffix-long', 'prefix_123456789012345678901234567'),
    ('suffix-spaces', 'prefix_1234567890123456789012345 '),
    ('suffix-uppercase', 'prefix_0123456789ABCDEFGHJKMNPQRS'),
    ('suffix-hyphens', 'prefix_123456789-123456789-123456'),
    ('suffix-wrong-alphabet', 'prefix_ooooooiiiiiiuuuuuuulllllll'),
    ('suffix-ambiguous-crockford', 'prefix_i23456789ol23456789oi23456'),
    ('suffix-overflow', 'prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz'),
    ('prefix-underscore-start', '_prefix_00000000000000000000000000'),
    ('prefix-underscore-end', 'prefix__00000000000000000000000000'),
    ('empty', ''),
    ('prefix-empty', 'prefix_');
\set VERBOSITY default
SELECT name, pg_temp.why(format('SELECT uuid_from_typeid(%L)', typeid)) AS uuid_from_typeid
FROM typeid_invalid ORDER BY name COLLATE "C";
SELECT count(*) AS vectors,
       count(*) FILTER (WHERE pg_temp.try(format('SELECT idgen128_from_typeid(%L)::text', typeid)) LIKE '22P02: invalid TypeID: %')
           AS idgen128_refuses,
       count(*) FILTER (WHERE pg_temp.try(format('SELECT typeid_prefix(%L)', typeid)) LIKE '22P02: invalid TypeID: %')
           AS typeid_prefix_refuses,
       count(*) FILTER (WHERE pg_temp.try(format('SELECT uuid_from_typeid(%L)::text', typeid))
                              = '22P02: invalid TypeID: "' || typeid || '"') AS message_names_the_text
FROM typeid_invalid;
-- the reason is the error's detail
SELECT uuid_from_typeid('prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz');
SELECT idgen128_from_typeid('User_01h455vb4pex5vsknk084sn02q');
SELECT idgen128_from_typeid('prefix_0123456789abcdefghjkmnpqrs');

--
-- idgen128: generated IDs round-trip, and sort the same as their TypeIDs
--
CREATE TABLE typeid_ids (id idgen128 PRIMARY KEY);
INSERT INTO typeid_ids SELECT idgen_next128() FROM generate_series(1, 1000);
SELECT count(*) AS ids,
       count(*) FILTER (WHERE idgen128_from_typeid(idgen_typeid(id, 'order'), 'order') = id) AS round_trips,
       count(*) FILTER (WHERE idgen128_from_typeid(idgen_typeid(id)) = id) AS round_trips_bare,
       count(*) FILTER (WHERE uuid_from_typeid(idgen_typeid(id, 'order')) = id::uuid) AS as_uuid,
       count(*) FILTER (WHERE idgen_typeid(id, 'order') = idgen_typeid(id::uuid, 'order')) AS same_as_uuid,
       count(*) FILTER (WHERE idgen_typeid(id, 'order') ~ '^order_[0-7][0-9a-hjkmnp-tv-z]{25}$') AS shaped
FROM typeid_ids;
SELECT (SELECT array_agg(id ORDER BY id) FROM typeid_ids)
     = (SELECT array_agg(id ORDER BY idgen_typeid(id, 'order') COLLATE "C") FROM typeid_ids)
    AS text_order_is_id_order;
-- a TypeID holds exactly the idgen128: same time, same fields
SELECT count(*) FILTER (WHERE idgen_decode(idgen128_from_typeid(idgen_typeid(id, 'x'))) = idgen_decode(id))
           AS decode_agrees
FROM typeid_ids;

--
-- Prefixes: checked against the expected one when given
--
SELECT pg_temp.try($q$SELECT idgen128_from_typeid('user_01h455vb4pex5vsknk084sn02q', 'user')::text$q$) AS same_prefix,
       pg_temp.try($q$SELECT idgen128_from_typeid('user_01h455vb4pex5vsknk084sn02q')::text$q$) AS any_prefix;
SELECT idgen128_from_typeid('user_01h455vb4pex5vsknk084sn02q', 'order');
SELECT idgen128_from_typeid('01h455vb4pex5vsknk084sn02q', 'user');
SELECT idgen128_from_typeid('user_01h455vb4pex5vsknk084sn02q', '');
SELECT uuid_from_typeid('pre_fix_00000000000000000000000000', 'pre');
-- an invalid expected prefix is a bad argument, 22023, even on a match
SELECT pg_temp.try($q$SELECT uuid_from_typeid('user_01h455vb4pex5vsknk084sn02q', 'User')::text$q$) AS bad_expected;
-- the prefix rules on the way out: 63 characters at most, [a-z_], no '_'
-- first or last; each refusal is 22023
SELECT p AS prefix, pg_temp.try(format('SELECT idgen_typeid(%L::uuid, %L)', '01890a5d-ac96-774b-bcce-b302099a8057', p)) AS result
FROM (VALUES ('a'), ('a_b'), (repeat('z', 63)), (repeat('z', 64)), ('_a'), ('a_'), ('User'), ('a1'),
             ('a-b'), (' a')) AS t(p)
ORDER BY length(p), p COLLATE "C";
SELECT length(idgen_typeid('01890a5d-ac96-774b-bcce-b302099a8057'::uuid, repeat('z', 63))) AS longest;

--
-- NULLs: NULL in, NULL out; a NULL expected prefix means any
--
SELECT idgen_typeid(NULL::idgen128, 'x') IS NULL AS null_id,
       idgen_typeid('01890a5d-ac96-774b-bcce-b302099a8057'::uuid, NULL) IS NULL AS null_prefix,
       idgen128_from_typeid(NULL) IS NULL AS null_text,
       idgen128_from_typeid(NULL, 'user') IS NULL AS null_text_prefix,
       uuid_from_typeid('user_01h455vb4pex5vsknk084sn02q', NULL) AS null_means_any,
       typeid_prefix(NULL) IS NULL AS null_prefix_of;

DROP TABLE typeid_valid, typeid_invalid, typeid_ids;
RESET timezone;
