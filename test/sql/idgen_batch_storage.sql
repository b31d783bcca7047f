-- idgen_batch_storage: what a keyed batch keeps (issue 19, item 12).  A
-- batch is a reserved run of ticks, so idgen.batch_request keeps the run
-- (its first tick, the layout's fields, for idgen128 the key of its random
-- tails), a few dozen bytes whatever the count, and a retry regenerates the
-- IDs from it.  One login role keeps at most idgen.request_max_per_role
-- live keys; past it a new key is refused with 53400.  Records of 0.6,
-- which hold the IDs themselves, are still answered from their arrays.
-- Raw IDs are never printed.
SET timezone = 'UTC';
\set SHOW_CONTEXT never
DELETE FROM idgen.batch_request;

CREATE FUNCTION bs_try(query text) RETURNS text LANGUAGE plpgsql AS
$$
DECLARE
    result text;
BEGIN
    EXECUTE query INTO result;
    RETURN 'ok: ' || coalesce(result, 'NULL');
EXCEPTION WHEN others THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

--
-- The size of a stored batch does not grow with its count
--
SELECT count(*) AS ids FROM idgen_next_batch(100000, 'big-64');
SELECT count(*) AS ids FROM idgen_next128_batch(100000, 'big-128');
SELECT count(*) AS ids FROM idgen_next_batch(10, 'small-64');
SELECT request_key, width, count, pg_column_size(b.*) <= 250 AS at_most_250_bytes
FROM idgen.batch_request AS b ORDER BY request_key;
-- the whole table, TOAST and indexes included, stays small
SELECT pg_total_relation_size('idgen.batch_request') < 200000 AS table_under_200_kb;
-- and a retry regenerates the very same IDs, for either width
SELECT array_agg(id ORDER BY n)::text AS b64 FROM idgen_next_batch(100000, 'big-64') WITH ORDINALITY AS b(id, n) \gset
SELECT array_agg(id ORDER BY n)::text AS b128 FROM idgen_next128_batch(100000, 'big-128') WITH ORDINALITY AS b(id, n) \gset
SELECT ids_issued AS issued_0 FROM idgen_status() \gset
SELECT (SELECT array_agg(id ORDER BY n)::text FROM idgen_next_batch(100000, 'big-64') WITH ORDINALITY AS b(id, n)) = :'b64'
           AS same_64,
       (SELECT array_agg(id ORDER BY n)::text FROM idgen_next128_batch(100000, 'big-128') WITH ORDINALITY AS b(id, n)) = :'b128'
           AS same_128;
SELECT ids_issued - :issued_0 AS ids_issued_by_retries FROM idgen_status();
SELECT cardinality(a) AS ids, (SELECT count(DISTINCT x) FROM unnest(a) AS x) AS distinct_ids,
       (SELECT bool_and(a[i] < a[i + 1]) FROM generate_series(1, cardinality(a) - 1) AS i) AS ascending
FROM (SELECT :'b128'::idgen128[] AS a) s;
-- the 48 random bits of the idgen128s are not all alike
SELECT count(DISTINCT right(x::text, 12)) > 99000 AS random_tails_differ
FROM unnest(:'b128'::idgen128[]) AS x;
-- what is stored is what was returned
SELECT (SELECT array_agg(x ORDER BY n)::text FROM idgen.batch_request AS r,
        idgen.batch_ids(r) WITH ORDINALITY AS u(x, n) WHERE r.request_key = 'big-64') = :'b64' AS stored_64,
       (SELECT array_agg(x ORDER BY n)::text FROM idgen.batch_request AS r,
        idgen.batch_ids128(r) WITH ORDINALITY AS u(x, n) WHERE r.request_key = 'big-128') = :'b128' AS stored_128;
-- the regenerating functions are the extension's own
SELECT has_function_privilege('public', 'idgen.batch_ids(idgen.batch_request)', 'EXECUTE') AS public_batch_ids,
       has_function_privilege('public', 'idgen.reserve_batch(integer, smallint)', 'EXECUTE') AS public_reserve;

--
-- A record of 0.6, with the IDs themselves, is answered from them
--
SELECT array_agg(b)::text AS old FROM idgen_next_batch(4) AS b \gset
INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, expires_at)
VALUES (session_user, 'old-64', 64, 4, :'old'::idgen[], now() + interval '1 hour');
SELECT array_agg(id ORDER BY n)::text = :'old' AS old_record_answered
FROM idgen_next_batch(4, 'old-64') WITH ORDINALITY AS b(id, n);
SELECT bs_try($$SELECT count(*) FROM idgen_next_batch(5, 'old-64')$$) AS old_record_other_count;

--
-- At most idgen.request_max_per_role live keys per login role
--
SHOW idgen.request_max_per_role;
DELETE FROM idgen.batch_request;
CREATE ROLE regress_idgen_batch_cap;
SET idgen.request_max_per_role = 3;
SET SESSION AUTHORIZATION regress_idgen_batch_cap;
-- the role cannot lift its own cap
SELECT bs_try($$SELECT set_config('idgen.request_max_per_role', '1000', false)$$) AS raise_own_cap;
SELECT count(*) AS cap_1 FROM idgen_next_batch(1000, 'cap-1');
SELECT count(*) AS cap_2 FROM idgen_next128_batch(1000, 'cap-2');
SELECT count(*) AS cap_3 FROM idgen_next_batch(1000, 'cap-3');
-- the fourth key: 53400
SELECT * FROM idgen_next_batch(1000, 'cap-4');
SELECT bs_try($$SELECT count(*) FROM idgen_next128_batch(1, 'cap-5')$$) AS fifth_128;
-- a retry of a kept key still gets its batch
SELECT count(*) AS cap_1_retry FROM idgen_next_batch(1000, 'cap-1');
RESET SESSION AUTHORIZATION;
-- other roles have their own count
SELECT count(*) AS superuser_key FROM idgen_next_batch(1, 'cap-4');
-- expired keys do not count
UPDATE idgen.batch_request SET expires_at = now() - interval '1 second'
WHERE owner_role = 'regress_idgen_batch_cap' AND request_key = 'cap-1';
SET SESSION AUTHORIZATION regress_idgen_batch_cap;
SELECT count(*) AS cap_4_after_expiry FROM idgen_next_batch(1000, 'cap-4');
RESET SESSION AUTHORIZATION;
SELECT owner_role, count(*) FILTER (WHERE expires_at > now()) AS live
FROM idgen.batch_request WHERE owner_role = 'regress_idgen_batch_cap' GROUP BY owner_role;
RESET idgen.request_max_per_role;

DELETE FROM idgen.batch_request;
DROP ROLE regress_idgen_batch_cap;
DROP FUNCTION bs_try(text);
RESET timezone;
