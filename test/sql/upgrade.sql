--
-- The upgrade chain: install the first release and walk ALTER EXTENSION
-- UPDATE to the current one, checking each step works, then compare the
-- objects with a fresh install.
--
SET client_min_messages = warning;
SELECT current_database() AS origdb \gset
SELECT md5(string_agg(pg_describe_object(classid, objid, objsubid), E'\n'
                      ORDER BY pg_describe_object(classid, objid, objsubid))) AS fresh_objects
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen') \gset
SELECT default_version AS current_version FROM pg_available_extensions WHERE name = 'idgen' \gset

DROP DATABASE IF EXISTS idgen_upgrade;
CREATE DATABASE idgen_upgrade;
\c idgen_upgrade
SET client_min_messages = warning;

CREATE EXTENSION idgen VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT idgen_next() > idgen_min_at('2026-01-01') AS generates;
SELECT state IS NOT NULL AS has_state, cardinality(proargnames) AS status_columns
FROM idgen_status(), pg_proc WHERE proname = 'idgen_status';
SELECT count(*) FROM information_schema.columns WHERE table_schema = 'idgen' AND table_name = 'worker_lease';

ALTER EXTENSION idgen UPDATE TO '0.2';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT state IS NOT NULL AND owner IS NOT NULL AS has_lease_columns, cardinality(proargnames) AS status_columns
FROM idgen_status(), pg_proc WHERE proname = 'idgen_status';
SELECT count(*) > 0 AS has_worker_lease FROM information_schema.columns
WHERE table_schema = 'idgen' AND table_name = 'worker_lease';

ALTER EXTENSION idgen UPDATE TO '0.3';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT substr(idgen_next128()::text, 15, 1) = '7' AS generates_uuidv7;
SELECT count(*) = 3 AS keyed_batch FROM idgen_next_batch(3, 'upgrade-test');

ALTER EXTENSION idgen UPDATE TO '0.4';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT idgen_unmask(idgen_mask(x)) = x AS mask_round_trip FROM (SELECT idgen_next() AS x) AS s;
SELECT idgen_next() >= now() - interval '1 minute' AS time_predicate;

ALTER EXTENSION idgen UPDATE TO '0.5';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';

-- the chain ends where a fresh install starts
SELECT extversion = :'current_version' AS at_current_version FROM pg_extension WHERE extname = 'idgen';
SELECT md5(string_agg(pg_describe_object(classid, objid, objsubid), E'\n'
                      ORDER BY pg_describe_object(classid, objid, objsubid))) = :'fresh_objects'
       AS same_objects_as_fresh_install
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen');

\c :origdb
DROP DATABASE idgen_upgrade;
