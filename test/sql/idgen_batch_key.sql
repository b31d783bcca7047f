-- idgen_batch_key: retry-safe batches, idgen_next_batch(count, request_key)
-- and idgen_next128_batch(count, request_key).  The same key returns the
-- same IDs again, per login role (session_user) and per width, until
-- idgen.request_retention has passed; a retry issues no new IDs.  Raw IDs
-- are never printed: psql variables carry them from one statement to the
-- next, and only facts about them are shown.
SET timezone = 'UTC';
-- error context would show line numbers inside idgen.keyed_batch()
\set SHOW_CONTEXT never

-- an outcome as text: the SQLSTATE and message of an error
CREATE FUNCTION bk_try(query text) RETURNS text LANGUAGE plpgsql AS
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
-- The same key, the same IDs (64 bits)
--
SELECT idgen_next() AS before_k1 \gset
SELECT ids_issued AS issued_0 FROM idgen_status() \gset
SELECT array_agg(id ORDER BY n)::text AS k1 FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n) \gset
SELECT ids_issued - :issued_0 AS ids_issued_by_first_call FROM idgen_status();
SELECT idgen_next() AS after_k1 \gset
-- a keyed batch is a batch like any other: count IDs, ascending, issued
-- between the IDs before and after it
SELECT cardinality(a) AS ids, (SELECT count(DISTINCT x) FROM unnest(a) AS x) AS distinct_ids,
       (SELECT bool_and(a[i] < a[i + 1]) FROM generate_series(1, cardinality(a) - 1) AS i) AS ascending,
       a[1] > :'before_k1'::idgen AS above_before, a[cardinality(a)] < :'after_k1'::idgen AS below_after
FROM (SELECT :'k1'::idgen[] AS a) s;
-- asked again: the same IDs in the same order, and no new ID issued
SELECT ids_issued AS issued_1 FROM idgen_status() \gset
SELECT array_agg(id ORDER BY n)::text = :'k1' AS same_ids
FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n);
SELECT ids_issued - :issued_1 AS ids_issued_by_retry FROM idgen_status();
-- again and again, one transaction each, and within one transaction
DO $$
DECLARE
    first_ids text := (SELECT array_agg(id ORDER BY n)::text FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n));
    differ integer := 0;
BEGIN
    FOR i IN 1 .. 50 LOOP
        IF (SELECT array_agg(id ORDER BY n)::text FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n))
           IS DISTINCT FROM first_ids THEN
            differ := differ + 1;
        END IF;
    END LOOP;
    RAISE NOTICE '50 retries of key-1: % gave other IDs', differ;
END
$$;
SELECT array_agg(id ORDER BY n)::text = :'k1' AS same_ids_in_another_transaction
FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n);
-- the stored batch is never handed out again: IDs issued later lie above it
SELECT idgen_next() > (SELECT max(x) FROM unnest(:'k1'::idgen[]) AS x) AS next_above_stored_batch,
       (SELECT min(b) FROM idgen_next_batch(1000) AS b) > (SELECT max(x) FROM unnest(:'k1'::idgen[]) AS x)
           AS unkeyed_batch_above_stored_batch,
       (SELECT count(*) FROM idgen_next_batch(1000) AS b WHERE b = ANY (:'k1'::idgen[])) AS reissued;
-- the batch is stored under (session_user, key, width)
SELECT owner_role = session_user AS owner_is_session_user, request_key, width, count,
       (SELECT array_agg(x)::text FROM idgen.batch_ids(b) AS x) = :'k1' AS stored_ids, ids128 IS NULL AS no_ids128,
       round(extract(epoch FROM expires_at - created_at)) AS kept_seconds
FROM idgen.batch_request AS b WHERE request_key = 'key-1';

--
-- Different keys, different IDs
--
SELECT array_agg(id ORDER BY n)::text AS k2 FROM idgen_next_batch(5, 'key-2') WITH ORDINALITY AS b(id, n) \gset
SELECT array_agg(id ORDER BY n)::text AS k3 FROM idgen_next_batch(5, 'KEY-1') WITH ORDINALITY AS b(id, n) \gset
SELECT :'k2' <> :'k1' AS key_2_differs, :'k3' <> :'k1' AS keys_are_case_sensitive,
       (SELECT count(*) FROM unnest(:'k1'::idgen[]) AS x WHERE x = ANY (:'k2'::idgen[]) OR x = ANY (:'k3'::idgen[]))
           AS shared_ids,
       (SELECT min(x) FROM unnest(:'k2'::idgen[]) AS x) > (SELECT max(x) FROM unnest(:'k1'::idgen[]) AS x)
           AS key_2_above_key_1;
-- any text is a key: long, unicode, with spaces
SELECT count(*) AS long_key FROM idgen_next_batch(2, repeat('k', 200));
SELECT (SELECT array_agg(b) FROM idgen_next_batch(2, repeat('k', 200)) AS b)
     = (SELECT array_agg(b) FROM idgen_next_batch(2, repeat('k', 200)) AS b) AS long_key_same_ids;
-- one character more is refused, before it could reach the index
SELECT count(*) FROM idgen_next_batch(2, repeat('k', 201));
SELECT (SELECT array_agg(b) FROM idgen_next_batch(2, E'cl\u00e9 \u2603') AS b)
     = (SELECT array_agg(b) FROM idgen_next_batch(2, E'cl\u00e9 \u2603') AS b) AS unicode_key_same_ids;
SELECT (SELECT array_agg(b) FROM idgen_next_batch(2, ' key-1') AS b)::text <> :'k1' AS leading_space_is_another_key;

--
-- The 128-bit twin: the same, in a namespace of its own
--
SELECT ids_issued AS issued_2 FROM idgen_status() \gset
SELECT array_agg(id ORDER BY n)::text AS w1 FROM idgen_next128_batch(3, 'key-1') WITH ORDINALITY AS b(id, n) \gset
SELECT ids_issued - :issued_2 AS ids_issued_by_first_call FROM idgen_status();
SELECT ids_issued AS issued_3 FROM idgen_status() \gset
SELECT array_agg(id ORDER BY n)::text = :'w1' AS same_ids
FROM idgen_next128_batch(3, 'key-1') WITH ORDINALITY AS b(id, n);
SELECT ids_issued - :issued_3 AS ids_issued_by_retry FROM idgen_status();
SELECT cardinality(a) AS ids, (SELECT count(DISTINCT x) FROM unnest(a) AS x) AS distinct_ids,
       (SELECT bool_and(a[i] < a[i + 1]) FROM generate_series(1, cardinality(a) - 1) AS i) AS ascending,
       (SELECT count(*) FROM unnest(a) AS x
         WHERE substr(x::text, 15, 1) = '7' AND substr(x::text, 20, 1) IN ('8', '9', 'a', 'b')) AS uuid_v7
FROM (SELECT :'w1'::idgen128[] AS a) s;
SELECT array_agg(id ORDER BY n)::text <> :'w1' AS key_2_differs
FROM idgen_next128_batch(3, 'key-2') WITH ORDINALITY AS b(id, n);
-- key-1 of 64 bits holds 5 IDs, key-1 of 128 bits 3: separate namespaces
-- each is kept as its run of ticks; a 128-bit one with the key of its tails
SELECT request_key, width, count, first_tick IS NOT NULL AS has_run, tail_key IS NOT NULL AS has_tail_key
FROM idgen.batch_request WHERE request_key IN ('key-1', 'key-2') ORDER BY request_key, width;
SELECT array_agg(id ORDER BY n)::text = :'k1' AS key_1_64_unchanged
FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n);
SELECT (SELECT array_agg(x)::text FROM idgen.batch_ids128(b) AS x) = :'w1' AS stored_ids128
FROM idgen.batch_request AS b WHERE request_key = 'key-1' AND width = 128;

--
-- Refused requests
--
-- another count under a used key: 22023, for either width
SELECT * FROM idgen_next_batch(6, 'key-1');
SELECT * FROM idgen_next128_batch(5, 'key-1');
SELECT bk_try($$SELECT count(*) FROM idgen_next_batch(4, 'key-1')$$) AS fewer,
       bk_try($$SELECT count(*) FROM idgen_next_batch(0, 'key-1')$$) AS none;
-- an empty key: 22023
SELECT * FROM idgen_next_batch(5, '');
SELECT bk_try($$SELECT count(*) FROM idgen_next128_batch(5, '')$$) AS empty_key_128;
-- a control character in a key: 22023 (a newline, a tab, DEL)
SELECT * FROM idgen_next_batch(5, E'key\n1');
SELECT bk_try($$SELECT count(*) FROM idgen_next128_batch(5, E'key\t1')$$) AS tab_key_128,
       bk_try($$SELECT count(*) FROM idgen_next_batch(5, E'key\x7f')$$) AS del_key;
-- more than 1000000 IDs under a key: 54000
SELECT * FROM idgen_next_batch(1000001, 'key-big');
SELECT bk_try($$SELECT count(*) FROM idgen_next_batch(2147483647, 'key-big')$$) AS int_max,
       bk_try($$SELECT count(*) FROM idgen_next128_batch(1000001, 'key-big')$$) AS too_many_128;
-- a negative count: 22023
SELECT bk_try($$SELECT count(*) FROM idgen_next_batch(-1, 'key-neg')$$) AS negative,
       bk_try($$SELECT count(*) FROM idgen_next128_batch(-1, 'key-neg')$$) AS negative_128;
-- NULL key or count: no rows (the functions are STRICT)
SELECT count(*) AS null_key FROM idgen_next_batch(5, NULL);
SELECT count(*) AS null_key_128 FROM idgen_next128_batch(5, NULL);
SELECT count(*) AS null_count FROM idgen_next_batch(NULL, 'key-null');
-- none of these stored anything
SELECT count(*) AS stored_by_refused_calls FROM idgen.batch_request
WHERE request_key IN ('', 'key-big', 'key-neg', 'key-null', E'key\n1', E'key\t1', E'key\x7f');
-- zero IDs is a batch too: stored, and the same (empty) again
SELECT count(*) AS zero_ids FROM idgen_next_batch(0, 'key-zero');
SELECT count(*) AS zero_ids_again FROM idgen_next_batch(0, 'key-zero');
SELECT bk_try($$SELECT count(*) FROM idgen_next_batch(1, 'key-zero')$$) AS then_one;

--
-- A rolled-back batch is not kept
--
BEGIN;
SELECT array_agg(id ORDER BY n)::text AS rb FROM idgen_next_batch(5, 'key-rb') WITH ORDINALITY AS b(id, n) \gset
ROLLBACK;
SELECT array_agg(id ORDER BY n)::text <> :'rb' AS new_ids_after_rollback,
       (SELECT min(x) FROM unnest(array_agg(id)) AS x) > (SELECT max(x) FROM unnest(:'rb'::idgen[]) AS x)
           AS above_rolled_back_ids
FROM idgen_next_batch(5, 'key-rb') WITH ORDINALITY AS b(id, n);

--
-- Keys belong to the login role: another role's key-1 is another key
--
-- an ordinary role needs no grant: PUBLIC may call the keyed functions
CREATE ROLE regress_idgen_batch_key;
SELECT has_function_privilege('regress_idgen_batch_key', 'idgen_next_batch(integer, text)', 'EXECUTE') AS batch_64,
       has_function_privilege('regress_idgen_batch_key', 'idgen_next128_batch(integer, text)', 'EXECUTE') AS batch_128,
       has_function_privilege('regress_idgen_batch_key', 'idgen.keyed_batch(integer, text, smallint)', 'EXECUTE') AS keyed_batch,
       has_table_privilege('regress_idgen_batch_key', 'idgen.batch_request', 'SELECT') AS read_batch_request,
       has_table_privilege('regress_idgen_batch_key', 'idgen.batch_request', 'INSERT, UPDATE, DELETE') AS write_batch_request;
SET SESSION AUTHORIZATION regress_idgen_batch_key;
SELECT session_user, current_user;
SELECT array_agg(id ORDER BY n)::text AS r1 FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n) \gset
SELECT :'r1' <> :'k1' AS other_role_other_ids,
       (SELECT count(*) FROM unnest(:'r1'::idgen[]) AS x WHERE x = ANY (:'k1'::idgen[])) AS shared_ids;
SELECT array_agg(id ORDER BY n)::text = :'r1' AS same_ids_for_this_role
FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n);
-- a count the superuser's key-1 never had: no conflict, the namespaces differ
SELECT count(*) AS other_role_key_2_of_7 FROM idgen_next_batch(7, 'key-2');
SELECT count(*) AS other_role_key_1_128 FROM idgen_next128_batch(4, 'key-1');
-- the stored batches stay out of reach
SELECT count(*) FROM idgen.batch_request;
DELETE FROM idgen.batch_request;
SELECT bk_try($$SELECT array_agg(x)::text FROM idgen.batch_ids(idgen.keyed_batch(5, 'key-1', 64::smallint)) AS x$$) = 'ok: ' || :'r1'
    AS keyed_batch_returns_own_batch;
RESET SESSION AUTHORIZATION;
SELECT session_user = current_user AS back;
-- the superuser's batches are untouched, and each role has its own rows
SELECT array_agg(id ORDER BY n)::text = :'k1' AS superuser_key_1_unchanged
FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n);
SELECT owner_role = session_user AS superuser_row, request_key, width, count
FROM idgen.batch_request WHERE request_key IN ('key-1', 'key-2')
ORDER BY owner_role = session_user, request_key, width;
-- SET ROLE keeps the session user, and so its keys
SET ROLE regress_idgen_batch_key;
SELECT array_agg(id ORDER BY n)::text = :'k1' AS set_role_sees_session_users_key
FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n);
RESET ROLE;

--
-- Expiry: a key returns its batch for idgen.request_retention (1 day)
--
SHOW idgen.request_retention;
-- set in postgresql.conf only, not per session
SET idgen.request_retention = '1s';
SELECT set_config('idgen.request_retention', '1s', false);
-- so age the stored batch instead
UPDATE idgen.batch_request SET expires_at = now() - interval '1 second'
WHERE owner_role = session_user AND request_key = 'key-1' AND width = 64;
SELECT array_agg(id ORDER BY n)::text AS k1_new FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n) \gset
SELECT :'k1_new' <> :'k1' AS new_ids_after_expiry,
       (SELECT min(x) FROM unnest(:'k1_new'::idgen[]) AS x) > (SELECT max(x) FROM unnest(:'k1'::idgen[]) AS x)
           AS above_expired_batch;
-- the key now holds the new batch, for another day
SELECT array_agg(id ORDER BY n)::text = :'k1_new' AS new_batch_kept
FROM idgen_next_batch(5, 'key-1') WITH ORDINALITY AS b(id, n);
SELECT count(*) AS rows, bool_and((SELECT array_agg(x)::text FROM idgen.batch_ids(b) AS x) = :'k1_new') AS stored_ids,
       bool_and(expires_at > now() + interval '23 hours') AS expires_in_a_day
FROM idgen.batch_request AS b WHERE owner_role = session_user AND request_key = 'key-1' AND width = 64;
-- an expired key is free for another count, and the 128-bit twin too
UPDATE idgen.batch_request SET expires_at = now() - interval '1 second'
WHERE owner_role = session_user AND request_key = 'key-1';
SELECT count(*) AS key_1_with_8 FROM idgen_next_batch(8, 'key-1');
SELECT array_agg(id ORDER BY n)::text <> :'w1' AS new_ids_128_after_expiry, count(*) AS key_1_128_with_2
FROM idgen_next128_batch(2, 'key-1') WITH ORDINALITY AS b(id, n);
-- every keyed call clears a few expired batches of any key and role
UPDATE idgen.batch_request SET expires_at = now() - interval '1 second'
WHERE request_key IN ('key-2', 'KEY-1', 'key-zero');
SELECT count(*) AS expired_before FROM idgen.batch_request WHERE expires_at < now();
SELECT count(*) FROM idgen_next_batch(1, 'key-sweep');
SELECT count(*) AS expired_after FROM idgen.batch_request WHERE expires_at < now();

DROP ROLE regress_idgen_batch_key;
DELETE FROM idgen.batch_request;
DROP FUNCTION bk_try(text);
RESET timezone;

--
-- Lease owners and range request keys are printable text too: they are
-- quoted in idgen_status(), idgen.fleet and the audit log.  The lease
-- functions live in the registry database.
--
\c postgres
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS idgen;
RESET client_min_messages;
SELECT * FROM idgen_lease_worker(E'gen\n2', '1 min');
SELECT * FROM idgen_lease_worker(E'\x01gen', '1 min');
SELECT * FROM idgen_lease_worker(E'gen\x1f2', '1 min');
SELECT * FROM idgen_lease_worker(E'gen\x7f', '1 min');
SELECT * FROM idgen_lease_range(E'range\towner', 10);
SELECT * FROM idgen_lease_range('range owner', 10, E'key\r\n');
-- nothing was leased
SELECT count(*) AS leased_with_control_characters
FROM idgen.worker_lease WHERE owner ~ E'[\\x01-\\x1f\\x7f]';
SELECT count(*) AS ranges_with_control_characters
FROM idgen.range_lease WHERE owner ~ E'[\\x01-\\x1f\\x7f]' OR request_key ~ E'[\\x01-\\x1f\\x7f]';
-- any other text is a name: spaces, quotes, unicode
SELECT worker IS NOT NULL AS leased FROM idgen_lease_worker(E'g\u00e9n\u00e9rateur "2" \\ 3', '1 min');
SELECT idgen_release_worker(region, worker, generation) AS released
FROM idgen.worker_lease WHERE owner = E'g\u00e9n\u00e9rateur "2" \\ 3';
