-- idgen_mask: masked public IDs.  idgen_mask(id) is an opaque token,
-- idgen_unmask(token) the ID again, under keys in idgen.mask_key.  Keys are
-- random, so no token, key or fingerprint is ever printed: only facts about
-- them.  Errors about tokens are shown through pg_temp.unmask_error, which
-- puts <token> in place of the (random) token text.

-- the first two characters of a token hold its key id (8 bits of 10)
CREATE FUNCTION pg_temp.token_key_id(t text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT AS
$$ SELECT ((strpos('0123456789abcdefghjkmnpqrstvwxyz', lower(substr(t, 1, 1))) - 1) * 32
         + (strpos('0123456789abcdefghjkmnpqrstvwxyz', lower(substr(t, 2, 1))) - 1)) >> 2 $$;

-- what unmasking t (as width 64 or 128) says: 'ok', or the error
CREATE FUNCTION pg_temp.unmask_error(t text, width integer) RETURNS text
    LANGUAGE plpgsql AS
$$
DECLARE
    detail text;
    hint text;
BEGIN
    IF width = 64 THEN
        PERFORM idgen_unmask(t);
    ELSE
        PERFORM idgen_unmask128(t);
    END IF;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ' ' || replace(SQLERRM, t, '<token>')
           || coalesce(' DETAIL: ' || nullif(detail, ''), '')
           || coalesce(' HINT: ' || nullif(hint, ''), '');
END
$$;

-- t with character n replaced by another digit
CREATE FUNCTION pg_temp.bend(t text, n integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT AS
$$ SELECT overlay(t PLACING CASE WHEN substr(t, n, 1) = '0' THEN '1' ELSE '0' END FROM n FOR 1) $$;

--
-- The surface
--
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proisstrict AS strict,
       p.proparallel AS parallel, p.prosecdef AS security_definer, p.proconfig AS config
FROM pg_proc p
WHERE p.proname IN ('idgen_mask', 'idgen_unmask', 'idgen_unmask128', 'idgen_rotate_mask_key')
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- the keys are dumped with the database, and PUBLIC can neither read them
-- nor rotate, but may mask and unmask
SELECT 'idgen.mask_key'::regclass = ANY (e.extconfig) AS keys_dumped
FROM pg_extension e WHERE e.extname = 'idgen';
SELECT has_table_privilege('public', 'idgen.mask_key', 'SELECT') AS read_keys,
       has_table_privilege('public', 'idgen.mask_key', 'INSERT') AS add_keys,
       has_table_privilege('public', 'idgen.mask_key_info', 'SELECT') AS read_key_info,
       has_function_privilege('public', 'idgen_rotate_mask_key()', 'EXECUTE') AS rotate,
       has_function_privilege('public', 'idgen_mask(idgen)', 'EXECUTE') AS mask,
       has_function_privilege('public', 'idgen_mask(idgen128)', 'EXECUTE') AS mask128,
       has_function_privilege('public', 'idgen_unmask(text)', 'EXECUTE') AS unmask,
       has_function_privilege('public', 'idgen_unmask128(text)', 'EXECUTE') AS unmask128;

--
-- The first key
--
-- the install script makes none (a restored dump brings its own)
SELECT count(*) AS keys FROM idgen.mask_key;

-- the first idgen_mask() makes it, which a read-only transaction cannot
BEGIN READ ONLY;
SELECT idgen_mask(1::bigint::idgen);
ROLLBACK;
SELECT count(*) AS keys FROM idgen.mask_key;

SELECT length(idgen_mask(1::bigint::idgen)) AS token_length;
SELECT key_id, length(secret) AS secret_bytes, fingerprint ~ '^[0-9a-f]{16}$' AS fingerprint_is_hex,
       created_by = session_user AS created_by_me
FROM idgen.mask_key;
SELECT action, detail = format('key 1, fingerprint %s, made by the first idgen_mask()',
                               (SELECT fingerprint FROM idgen.mask_key WHERE key_id = 1)) AS detail_names_key
FROM idgen.audit_log WHERE action LIKE 'mask_key%' ORDER BY at;

-- with a key, a read-only transaction masks and unmasks
BEGIN READ ONLY;
SELECT idgen_unmask(idgen_mask(5::bigint::idgen)) = 5::bigint::idgen AS read_only_round_trip;
ROLLBACK;

--
-- 64-bit: a million consecutive IDs, the hardest case for hiding order (as
-- from one busy node, they differ only in their low bits), taken above the
-- range space where generated IDs live
--
CREATE TEMP TABLE m64 AS
SELECT g, x.id, idgen_mask(x.id) AS token
FROM generate_series(1, 1000000) AS g,
     LATERAL (SELECT (idgen.range_space_end()::bigint + g)::idgen AS id) AS x;

-- every token unmasks to its ID; no two alike; 20 lowercase Crockford
-- base32 characters, made with key 1
SELECT count(*) AS ids,
       count(*) FILTER (WHERE idgen_unmask(token) IS DISTINCT FROM id) AS mismatches,
       count(DISTINCT token) AS distinct_tokens,
       count(*) FILTER (WHERE token !~ '^[0-9a-hjkmnp-tv-z]{20}$') AS bad_spelling,
       count(*) FILTER (WHERE pg_temp.token_key_id(token) <> 1) AS other_key
FROM m64;

-- order is gone: ranked by ID and ranked by token (as text), the ranks
-- are uncorrelated (|r| is about 0.001 for a million random ranks)
SELECT abs(corr(r_id, r_token)) < 0.01 AS order_hidden
FROM (SELECT rank() OVER (ORDER BY id) AS r_id,
             rank() OVER (ORDER BY token COLLATE "C") AS r_token
      FROM m64) AS r;

-- and nothing of the ID shows in any one place: in the first 200000
-- tokens, each character position after the key id takes all 32 values
-- about equally often (1/32 = 0.03125 each, give or take 0.0004): each
-- carries 5 bits of the permuted value or of the tag
SELECT count(*) FILTER (WHERE n_values <> 32) AS positions_not_using_all_digits,
       count(*) FILTER (WHERE min_share < 0.028 OR max_share > 0.035) AS positions_skewed
FROM (SELECT pos, count(*) AS n_values,
             min(n)::float8 / 200000 AS min_share, max(n)::float8 / 200000 AS max_share
      FROM (SELECT pos, substr(token, pos, 1) AS c, count(*) AS n
            FROM m64, generate_series(3, 19) AS pos
            WHERE g <= 200000
            GROUP BY pos, c) AS per_char
      GROUP BY pos) AS per_pos;

-- real IDs of this node round-trip too, in either case
SELECT count(*) AS ids,
       count(*) FILTER (WHERE idgen_unmask(idgen_mask(id)) <> id) AS mismatches,
       count(*) FILTER (WHERE idgen_unmask(upper(idgen_mask(id))) <> id) AS upper_case_mismatches
FROM idgen_next_batch(10000) AS id;

-- the ends of the range, and NULL
SELECT idgen_unmask(idgen_mask(0::bigint::idgen)) = 0::bigint::idgen AS zero,
       idgen_unmask(idgen_mask(9223372036854775807::bigint::idgen))
           = 9223372036854775807::bigint::idgen AS max,
       idgen_mask(NULL::idgen) IS NULL AS mask_null,
       idgen_unmask(NULL) IS NULL AS unmask_null;

--
-- 128-bit: a hundred thousand IDs of one batch
--
CREATE TEMP TABLE m128 AS
SELECT n, id, idgen_mask(id) AS token
FROM idgen_next128_batch(100000) WITH ORDINALITY AS b(id, n);

-- every token unmasks to its ID, a valid UUIDv7 that decodes the same
SELECT count(*) AS ids,
       count(*) FILTER (WHERE idgen_unmask128(token) IS DISTINCT FROM id) AS mismatches,
       count(DISTINCT token) AS distinct_tokens,
       count(*) FILTER (WHERE token !~ '^[0-9a-hjkmnp-tv-z]{32}$') AS bad_spelling,
       count(*) FILTER (WHERE idgen_unmask128(token)::uuid::text
                              !~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$') AS not_v7,
       count(*) FILTER (WHERE idgen_decode(idgen_unmask128(token)) IS DISTINCT FROM idgen_decode(id)) AS decode_differs,
       count(*) FILTER (WHERE idgen_unmask128(upper(token)) <> id) AS upper_case_mismatches
FROM m128;

-- order is gone here too (|r| is about 0.003 for 100000 random ranks)
SELECT abs(corr(r_id, r_token)) < 0.02 AS order_hidden
FROM (SELECT rank() OVER (ORDER BY id) AS r_id,
             rank() OVER (ORDER BY token COLLATE "C") AS r_token
      FROM m128) AS r;

--
-- Tokens that are not tokens
--
-- wrong length, bad characters (i, l, o and u are not digits), padding bits
-- set in the last character, spaces
SELECT idgen_unmask('');
SELECT idgen_unmask('0123456789abcdefghj');
SELECT idgen_unmask('0123456789abcdefghjkm');
SELECT idgen_unmask('0123456789abcdefghjkmnpqrstvwxyz0');
SELECT idgen_unmask('0123456789abcdefghju');
SELECT idgen_unmask('0123456789abcdefghjo');
SELECT idgen_unmask('04-3456789abcdefghj0');
SELECT idgen_unmask('0123456789abcdefghj1');
SELECT idgen_unmask(' 123456789abcdefghj0');
SELECT idgen_unmask128('0123456789abcdefghjkmnpqrstvwxyi');
-- a long one is shown cut short
SELECT idgen_unmask(repeat('x', 100));

-- well formed, but key 200 does not exist here
SELECT idgen_unmask('s000000000000000000g');
SELECT idgen_unmask128('s0000000000000000000000000000000');
-- key 0 never exists
SELECT idgen_unmask('00000000000000000000');

-- a real token with its tag changed (character 17 of 20, 30 of 32, lies
-- wholly in the tag) is refused, as is one with its value changed
SELECT pg_temp.unmask_error(pg_temp.bend(token, 17), 64) AS tag_changed
FROM m64 WHERE g = 1;
SELECT pg_temp.unmask_error(pg_temp.bend(token, 30), 128) AS tag_changed
FROM m128 WHERE n = 1;
SELECT count(*) AS tokens,
       count(*) FILTER (WHERE pg_temp.unmask_error(pg_temp.bend(token, 17), 64) LIKE '22P02 %') AS tag_refused,
       count(*) FILTER (WHERE pg_temp.unmask_error(pg_temp.bend(token, 8), 64) LIKE '22P02 %') AS value_refused
FROM m64 WHERE g <= 100;
SELECT count(*) AS tokens,
       count(*) FILTER (WHERE pg_temp.unmask_error(pg_temp.bend(token, 30), 128) LIKE '22P02 %') AS tag_refused,
       count(*) FILTER (WHERE pg_temp.unmask_error(pg_temp.bend(token, 8), 128) LIKE '22P02 %') AS value_refused
FROM m128 WHERE n <= 100;

-- a token of the other width says which it is
SELECT pg_temp.unmask_error(token, 128) AS given_64_bit_token FROM m64 WHERE g = 1;
SELECT pg_temp.unmask_error(token, 64) AS given_128_bit_token FROM m128 WHERE n = 1;

--
-- Rotation
--
CREATE TEMP TABLE before_rotation AS
SELECT g, id, token FROM m64 WHERE g <= 10000;

SELECT idgen_rotate_mask_key() AS new_fingerprint \gset
SELECT :'new_fingerprint' ~ '^[0-9a-f]{16}$' AS fingerprint_is_hex,
       :'new_fingerprint' = (SELECT fingerprint FROM idgen.mask_key WHERE key_id = 2) AS fingerprint_matches;
SELECT key_id, active, fingerprint = :'new_fingerprint' AS is_new_key, created_by = session_user AS created_by_me
FROM idgen.mask_key_info ORDER BY key_id;
SELECT action, detail = format('key 2, fingerprint %s', :'new_fingerprint') AS detail_names_key
FROM idgen.audit_log WHERE action = 'mask_key_rotated';

-- old tokens still unmask; new ones differ, carry key 2 and unmask too
SELECT count(*) AS ids,
       count(*) FILTER (WHERE idgen_unmask(token) <> id) AS old_tokens_broken,
       count(*) FILTER (WHERE idgen_mask(id) = token) AS tokens_unchanged,
       count(*) FILTER (WHERE pg_temp.token_key_id(idgen_mask(id)) = 2) AS new_tokens_of_key_2,
       count(*) FILTER (WHERE idgen_unmask(idgen_mask(id)) <> id) AS new_tokens_broken
FROM before_rotation;
SELECT count(*) FILTER (WHERE pg_temp.token_key_id(idgen_mask(id)) = 2) AS new_128_tokens_of_key_2,
       count(*) FILTER (WHERE idgen_unmask128(idgen_mask(id)) <> id) AS new_128_tokens_broken,
       count(*) FILTER (WHERE idgen_unmask128(token) <> id) AS old_128_tokens_broken
FROM m128 WHERE n <= 1000;

-- without key 2 its tokens are foreign; with it back they unmask again (the
-- key cache follows the table through a rollback)
SELECT idgen_mask(42::bigint::idgen) AS key2_token \gset
BEGIN;
DELETE FROM idgen.mask_key WHERE key_id = 2;
SELECT pg_temp.unmask_error(:'key2_token', 64) AS without_key_2;
SELECT pg_temp.token_key_id(idgen_mask(42::bigint::idgen)) AS masking_key;
ROLLBACK;
SELECT idgen_unmask(:'key2_token') = 42::bigint::idgen AS with_key_2,
       pg_temp.token_key_id(idgen_mask(42::bigint::idgen)) AS masking_key;

--
-- Parallel workers unmask (idgen_unmask is PARALLEL SAFE)
--
CREATE TABLE mask_parallel AS SELECT id, token FROM m64 WHERE g <= 20000;
ANALYZE mask_parallel;
-- the setting is debug_parallel_query since PostgreSQL 16 and was
-- force_parallel_mode before: set whichever this server has (one row)
SELECT set_config(name, 'on', false) AS parallel_forced
FROM pg_settings WHERE name IN ('debug_parallel_query', 'force_parallel_mode');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE idgen_unmask(token) <> id) FROM mask_parallel;
SELECT count(*) AS ids, count(*) FILTER (WHERE idgen_unmask(token) <> id) AS mismatches
FROM mask_parallel;
SELECT set_config(name, reset_val, false) AS parallel_reset
FROM pg_settings WHERE name IN ('debug_parallel_query', 'force_parallel_mode');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
DROP TABLE mask_parallel;

--
-- An ordinary role
--
CREATE ROLE regress_idgen_mask_user;
SET ROLE regress_idgen_mask_user;
SELECT idgen_unmask(idgen_mask(12345::bigint::idgen)) = 12345::bigint::idgen AS masks_and_unmasks;
SELECT key_id FROM idgen.mask_key;
SELECT key_id FROM idgen.mask_key_info;
SELECT idgen_rotate_mask_key();
INSERT INTO idgen.mask_key (key_id, secret, fingerprint) VALUES (9, '\x00', '0');
RESET ROLE;
DROP ROLE regress_idgen_mask_user;
SELECT count(*) AS keys FROM idgen.mask_key;
