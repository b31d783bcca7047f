-- privileges.sql - what an ordinary role may and may not do with idgen
--
-- idgen_pgtap_user is created here and holds nothing beyond what PUBLIC
-- holds.  It must be able to generate and decode IDs of both widths, ask
-- for keyed (retry-safe) batches, read the layouts in idgen.epoch and look
-- at idgen_status(); it must not be able to lease, renew, release or fence
-- workers, lease numeric ranges or report their use, switch the node off
-- or on, run audits, call the background worker's internal functions, or
-- read or write the registry tables, the stored keyed batches or the range
-- leases.  The one SECURITY DEFINER function it may call is
-- idgen.keyed_batch(), which only ever touches the caller's own batches.
-- SECURITY DEFINER functions must pin their search_path.
--
-- idgen_pgtap_auditor is granted idgen_check_unique() and nothing else: it
-- may audit its own tables, but must not gain its owner's rights by it.
--
-- idgen_pgtap_monitor is a member of pg_monitor: it may read idgen.stats,
-- which an ordinary role may not, and may not reset it.
--
-- Every SECURITY DEFINER function is listed with who may execute it, so a
-- new one fails this file until its grants have been reviewed here.
--
-- Run by test/t/090_pgtap.pl in the registry database; everything,
-- including the roles, is rolled back.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(116);

CREATE ROLE idgen_pgtap_user NOLOGIN;
CREATE ROLE idgen_pgtap_auditor NOLOGIN;
CREATE ROLE idgen_pgtap_monitor NOLOGIN IN ROLE pg_monitor;
GRANT EXECUTE ON FUNCTION idgen_check_unique(regclass, name) TO idgen_pgtap_auditor;
-- idgen_check_unique() runs as its caller, so an auditor also needs to write the findings
GRANT INSERT ON idgen.collision, idgen.audit_log TO idgen_pgtap_auditor;
CREATE SCHEMA idgen_pgtap_probe AUTHORIZATION idgen_pgtap_auditor;
-- a table partitioned by ID, where time predicates are planned into the
-- bounds of schema idgen
CREATE TABLE idgen_pgtap_parts (id idgen NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE idgen_pgtap_parts_all PARTITION OF idgen_pgtap_parts FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
GRANT SELECT ON idgen_pgtap_parts TO idgen_pgtap_user;

-- ---------------------------------------------------------------------
-- admin and internal functions: no EXECUTE
-- ---------------------------------------------------------------------

SELECT function_privs_are('idgen_lease_worker', ARRAY['text', 'interval'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_lease_worker(text, interval)');
SELECT function_privs_are('idgen_renew_worker', ARRAY['integer', 'integer', 'bigint'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_renew_worker(integer, integer, bigint)');
SELECT function_privs_are('idgen_release_worker', ARRAY['integer', 'integer', 'bigint'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_release_worker(integer, integer, bigint)');
SELECT function_privs_are('idgen_renew_worker', ARRAY['integer', 'integer', 'bigint', 'text', 'integer'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_renew_worker(integer, integer, bigint, text, integer)');
SELECT function_privs_are('idgen_release_worker', ARRAY['integer', 'integer', 'bigint', 'text', 'timestamp with time zone'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_release_worker(integer, integer, bigint, text, timestamptz)');
SELECT function_privs_are('idgen_fence_worker', ARRAY['integer', 'integer'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_fence_worker(integer, integer)');
SELECT function_privs_are('idgen_disable', ARRAY['text'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_disable(text)');
SELECT function_privs_are('idgen_enable', ARRAY[]::name[], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_enable()');
SELECT function_privs_are('idgen_check_unique', ARRAY['regclass', 'name'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_check_unique(regclass, name)');
SELECT function_privs_are('idgen_lease_range', ARRAY['text', 'bigint', 'text'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_lease_range(text, bigint, text)');
SELECT function_privs_are('idgen_range_consumed', ARRAY['idgen', 'idgen'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_range_consumed(idgen, idgen)');
SELECT function_privs_are('idgen_rotate_mask_key', ARRAY[]::name[], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_rotate_mask_key()');
SELECT function_privs_are('idgen_confirm_range_floor', ARRAY['idgen'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_confirm_range_floor(idgen)');
SELECT function_privs_are('idgen_grant_node', ARRAY['regrole'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_grant_node(regrole)');
SELECT function_privs_are('idgen_grant_gateway', ARRAY['regrole'], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen_grant_gateway(regrole)');

-- the internal functions, by name, whatever their argument lists become
SELECT ok(
    EXISTS (SELECT FROM pg_proc WHERE pronamespace = 'idgen'::regnamespace AND proname = f.name)
    AND NOT EXISTS (SELECT FROM pg_proc
                     WHERE pronamespace = 'idgen'::regnamespace AND proname = f.name
                       AND has_function_privilege('idgen_pgtap_user', oid, 'EXECUTE')),
    'an ordinary role cannot execute idgen.' || f.name)
FROM (VALUES ('acquire_node_lease'), ('renew_node_lease'), ('release_node_lease'),
             ('set_disabled'), ('wake_worker'), ('audit'), ('lock_registry'),
             ('require_registry'), ('row_is_free'), ('epoch_append_only'),
             ('grant_to')) AS f(name)
ORDER BY f.name;

-- and every other function in schema idgen, except the harmless readers,
-- keyed_batch, which the keyed idgen_next_batch() and
-- idgen_next128_batch() call as their caller, the functions that make a
-- stored batch's IDs again (batch_ids and batch_run_ids: values any role
-- could cast from bigint), and the time bounds that
-- planned time predicates call (idgen.ids_before() and its siblings)
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text FROM pg_proc AS p
       WHERE p.pronamespace = 'idgen'::regnamespace
         AND p.oid::regprocedure::text NOT IN ('idgen.clock()', 'idgen.node_sysid()', 'idgen.default_layout()',
                                               'idgen.range_space_end()', 'idgen.request_retention()',
                                               'idgen.keyed_batch(integer,text,smallint)')
         AND p.proname NOT IN ('batch_ids', 'batch_ids128', 'batch_run_ids', 'batch_run_ids128')
         AND p.proname NOT IN ('ids_before', 'ids_through', 'ids_from', 'ids_after', 'ids128_from', 'ids128_after')
         AND has_function_privilege('idgen_pgtap_user', p.oid, 'EXECUTE')$$,
    'an ordinary role can execute no function in schema idgen but clock, node_sysid, default_layout, range_space_end, request_retention, keyed_batch, the batch readers and the time bounds');

SELECT is_empty(
    $$SELECT p.oid::regprocedure::text
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_proc AS p ON p.oid = d.objid
       WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND p.prosecdef
         AND p.oid NOT IN ('idgen.keyed_batch(integer,text,smallint)'::regprocedure,
                           'idgen_mask(idgen)'::regprocedure, 'idgen_mask(idgen128)'::regprocedure,
                           'idgen_unmask(text)'::regprocedure, 'idgen_unmask128(text)'::regprocedure)
         AND has_function_privilege('idgen_pgtap_user', p.oid, 'EXECUTE')$$,
    'an ordinary role can execute none of the extension''s SECURITY DEFINER functions but idgen.keyed_batch() and the mask functions');

-- ---------------------------------------------------------------------
-- generating, decoding and status: EXECUTE for everyone
-- ---------------------------------------------------------------------

SELECT function_privs_are('idgen_next', ARRAY[]::name[], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_next()');
SELECT function_privs_are('idgen_next_batch', ARRAY['integer'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_next_batch(integer)');
SELECT function_privs_are('idgen_decode', ARRAY['idgen'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_decode(idgen)');
SELECT function_privs_are('idgen_status', ARRAY[]::name[], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_status()');
SELECT function_privs_are('idgen_timestamp', ARRAY['idgen'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_timestamp(idgen)');
SELECT function_privs_are('idgen_min_at', ARRAY['timestamp with time zone'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_min_at(timestamptz)');
SELECT function_privs_are('idgen_max_at', ARRAY['timestamp with time zone'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_max_at(timestamptz)');
SELECT function_privs_are('idgen_next128', ARRAY[]::name[], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_next128()');
SELECT function_privs_are('idgen_next128_batch', ARRAY['integer'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_next128_batch(integer)');
SELECT function_privs_are('idgen_next128_batch', ARRAY['integer', 'text'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_next128_batch(integer, text)');
SELECT function_privs_are('idgen_next_batch', ARRAY['integer', 'text'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_next_batch(integer, text)');
SELECT function_privs_are('idgen_decode', ARRAY['idgen128'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_decode(idgen128)');
SELECT function_privs_are('idgen_timestamp', ARRAY['idgen128'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_timestamp(idgen128)');
SELECT function_privs_are('idgen', 'keyed_batch', ARRAY['integer', 'text', 'smallint'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen.keyed_batch(integer, text, smallint)');
-- masking: SECURITY DEFINER, to read the keys an ordinary role cannot
SELECT function_privs_are('idgen_mask', ARRAY['idgen'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_mask(idgen)');
SELECT function_privs_are('idgen_mask', ARRAY['idgen128'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_mask(idgen128)');
SELECT function_privs_are('idgen_unmask', ARRAY['text'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_unmask(text)');
SELECT function_privs_are('idgen_unmask128', ARRAY['text'], 'idgen_pgtap_user', ARRAY['EXECUTE'],
    'an ordinary role can execute idgen_unmask128(text)');
SELECT table_privs_are('idgen', 'mask_key', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.mask_key');

-- ---------------------------------------------------------------------
-- the catalog: only idgen.epoch is readable, nothing is writable
-- ---------------------------------------------------------------------

SELECT schema_privs_are('idgen', 'idgen_pgtap_user', ARRAY['USAGE'],
    'an ordinary role may use schema idgen but not create in it');
SELECT table_privs_are('idgen', 'worker_lease', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.worker_lease');
SELECT table_privs_are('idgen', 'audit_log', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.audit_log');
SELECT table_privs_are('idgen', 'collision', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.collision');
SELECT table_privs_are('idgen', 'node_control', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.node_control');
SELECT table_privs_are('idgen', 'batch_request', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.batch_request');
SELECT table_privs_are('idgen', 'range_lease', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.range_lease');
SELECT sequence_privs_are('idgen', 'range_generation', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.range_generation');
SELECT table_privs_are('idgen', 'range_floor', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.range_floor');
SELECT table_privs_are('idgen', 'range_grants', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.range_grants');
SELECT table_privs_are('idgen', 'epoch', 'idgen_pgtap_user', ARRAY['SELECT'],
    'an ordinary role may only SELECT idgen.epoch');
SELECT table_privs_are('idgen', 'epoch_boundaries', 'idgen_pgtap_user', ARRAY['SELECT'],
    'an ordinary role may only SELECT idgen.epoch_boundaries');
SELECT is_empty(
    $$SELECT c.oid::regclass::text FROM pg_class AS c
       WHERE c.relnamespace = 'idgen'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
         AND c.relname NOT IN ('epoch', 'epoch_boundaries')
         AND (has_table_privilege('idgen_pgtap_user', c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
              OR has_any_column_privilege('idgen_pgtap_user', c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))$$,
    'an ordinary role has no privilege on any other relation in schema idgen');

-- ---------------------------------------------------------------------
-- monitoring: idgen.stats is pg_monitor's, not PUBLIC's
-- ---------------------------------------------------------------------

SELECT has_view('idgen', 'stats', 'idgen.stats exists');
SELECT table_privs_are('idgen', 'stats', 'pg_monitor', ARRAY['SELECT'],
    'pg_monitor may only SELECT idgen.stats');
SELECT table_privs_are('idgen', 'stats', 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role has no privilege on idgen.stats');
SELECT function_privs_are('idgen', 'stats_counters', ARRAY[]::name[], 'pg_monitor', ARRAY['EXECUTE'],
    'pg_monitor can execute idgen.stats_counters(), which the view calls');
SELECT function_privs_are('idgen', 'stats_counters', ARRAY[]::name[], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen.stats_counters()');
SELECT function_privs_are('idgen', 'reset_stats', ARRAY[]::name[], 'pg_monitor', ARRAY[]::name[],
    'pg_monitor cannot execute idgen.reset_stats()');
SELECT function_privs_are('idgen', 'reset_stats', ARRAY[]::name[], 'idgen_pgtap_user', ARRAY[]::name[],
    'an ordinary role cannot execute idgen.reset_stats()');

-- ---------------------------------------------------------------------
-- SECURITY DEFINER and SQL functions pin their search_path
-- ---------------------------------------------------------------------

-- who besides its owner may execute each SECURITY DEFINER function: only
-- the keyed batches and the mask functions are for everyone
SELECT results_eq(
    $$SELECT p.oid::regprocedure::text AS function,
             coalesce((SELECT string_agg(g.name, ',' ORDER BY g.name COLLATE "C")
                       FROM (SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC'
                                         ELSE a.grantee::regrole::text END AS name
                             FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) AS a
                             WHERE a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner) AS g),
                      '') AS executors
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_proc AS p ON p.oid = d.objid
       WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND p.prosecdef
       ORDER BY p.oid::regprocedure::text COLLATE "C"$$,
    $$VALUES ('idgen.gateway_purge(integer)', ''),
             ('idgen.gateway_remember(text[],text[],smallint[],integer[],text[],bigint)', ''),
             ('idgen.held_region_bounds(integer,timestamp with time zone,interval)', ''),
             ('idgen.keyed_batch(integer,text,smallint)', 'PUBLIC'),
             ('idgen.running_incarnation()', ''),
             ('idgen_confirm_range_floor(idgen)', ''),
             ('idgen_disable(text)', ''),
             ('idgen_enable()', ''),
             ('idgen_fence_region(integer)', ''),
             ('idgen_fence_worker(integer,integer)', ''),
             ('idgen_handoff_region(integer)', ''),
             ('idgen_lease_range(text,bigint,text)', ''),
             ('idgen_lease_region(text,integer,interval,interval,integer)', ''),
             ('idgen_lease_worker(text,interval)', ''),
             ('idgen_mask(idgen)', 'PUBLIC'),
             ('idgen_mask(idgen128)', 'PUBLIC'),
             ('idgen_range_consumed(idgen,idgen)', ''),
             ('idgen_region_status()', 'pg_monitor'),
             ('idgen_release_region(integer,bigint,text,timestamp with time zone)', ''),
             ('idgen_release_worker(integer,integer,bigint)', ''),
             ('idgen_release_worker(integer,integer,bigint,text,timestamp with time zone)', ''),
             ('idgen_renew_region(integer,bigint,text,timestamp with time zone,integer)', ''),
             ('idgen_renew_worker(integer,integer,bigint)', ''),
             ('idgen_renew_worker(integer,integer,bigint,text,integer)', ''),
             ('idgen_rotate_mask_key()', ''),
             ('idgen_unmask(text)', 'PUBLIC'),
             ('idgen_unmask128(text)', 'PUBLIC')$$,
    'the extension''s SECURITY DEFINER functions, and who besides their owner may execute each');

SELECT is_empty(
    $$SELECT p.oid::regprocedure::text
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_proc AS p ON p.oid = d.objid
       WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND p.prosecdef
         AND NOT EXISTS (SELECT FROM unnest(p.proconfig) AS c WHERE c LIKE 'search\_path=%')$$,
    'every SECURITY DEFINER function of the extension has SET search_path');
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text || ': ' || c
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_proc AS p ON p.oid = d.objid
        CROSS JOIN LATERAL unnest(p.proconfig) AS c
       WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND p.prosecdef
         AND c LIKE 'search\_path=%'
         AND (c ~* '\mpublic\M' OR c LIKE '%$user%' OR c NOT LIKE 'search\_path=pg\_catalog%')$$,
    'SECURITY DEFINER functions search pg_catalog first and no schema an ordinary role can write');
-- unlisted, pg_temp would be searched first for tables and types
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text || ': ' || c
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_proc AS p ON p.oid = d.objid
        CROSS JOIN LATERAL unnest(p.proconfig) AS c
       WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND p.prosecdef
         AND c LIKE 'search\_path=%'
         AND c !~ ',\s*"?pg_temp"?$'$$,
    'SECURITY DEFINER functions list pg_temp, last');
SELECT is_empty(
    $$SELECT p.oid::regprocedure::text
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_proc AS p ON p.oid = d.objid
        JOIN pg_language AS l ON l.oid = p.prolang
       WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
         AND l.lanname IN ('sql', 'plpgsql')
         AND NOT EXISTS (SELECT FROM unnest(p.proconfig) AS c WHERE c LIKE 'search\_path=%')$$,
    'every SQL and PL/pgSQL function of the extension has SET search_path');

-- ---------------------------------------------------------------------
-- the same, tried for real as the ordinary role
-- ---------------------------------------------------------------------

SET LOCAL ROLE idgen_pgtap_user;

SELECT throws_ok($$SELECT idgen_lease_worker('pgtap', '1 minute')$$,
    '42501', 'permission denied for function idgen_lease_worker',
    'as an ordinary role: idgen_lease_worker() is refused');
SELECT throws_ok($$SELECT idgen_fence_worker(0, 0)$$,
    '42501', 'permission denied for function idgen_fence_worker',
    'as an ordinary role: idgen_fence_worker() is refused');
SELECT throws_ok($$SELECT idgen_disable('pgtap')$$,
    '42501', 'permission denied for function idgen_disable',
    'as an ordinary role: idgen_disable() is refused');
SELECT throws_ok($$SELECT idgen_check_unique('idgen.epoch', 'version')$$,
    '42501', 'permission denied for function idgen_check_unique',
    'as an ordinary role: idgen_check_unique() is refused');
SELECT throws_ok($$SELECT idgen.set_disabled(true, 'pgtap')$$,
    '42501', 'permission denied for function set_disabled',
    'as an ordinary role: idgen.set_disabled() is refused');
SELECT throws_ok($$SELECT * FROM idgen.worker_lease$$,
    '42501', 'permission denied for table worker_lease',
    'as an ordinary role: reading idgen.worker_lease is refused');
SELECT throws_ok($$SELECT * FROM idgen.audit_log$$,
    '42501', 'permission denied for table audit_log',
    'as an ordinary role: reading idgen.audit_log is refused');
SELECT throws_ok($$INSERT INTO idgen.worker_lease (region, worker) VALUES (0, 100000)$$,
    '42501', 'permission denied for table worker_lease',
    'as an ordinary role: inserting into idgen.worker_lease is refused');
SELECT throws_ok($$UPDATE idgen.collision SET detail = NULL$$,
    '42501', 'permission denied for table collision',
    'as an ordinary role: updating idgen.collision is refused');
SELECT throws_ok($$DELETE FROM idgen.node_control$$,
    '42501', 'permission denied for table node_control',
    'as an ordinary role: deleting from idgen.node_control is refused');
SELECT throws_ok(
    $$INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits, worker_bits, seq_bits, horizon)
      VALUES (99, now(), now(), 41, 3, 7, 12, now())$$,
    '42501', 'permission denied for table epoch',
    'as an ordinary role: inserting a layout into idgen.epoch is refused');
SELECT throws_ok($$SELECT * FROM idgen_lease_range('pgtap', 10)$$,
    '42501', 'permission denied for function idgen_lease_range',
    'as an ordinary role: idgen_lease_range() is refused');
SELECT throws_ok($$SELECT idgen_range_consumed('1', '1')$$,
    '42501', 'permission denied for function idgen_range_consumed',
    'as an ordinary role: idgen_range_consumed() is refused');
SELECT throws_ok($$SELECT * FROM idgen.batch_request$$,
    '42501', 'permission denied for table batch_request',
    'as an ordinary role: reading the stored keyed batches is refused');
SELECT throws_ok($$UPDATE idgen.batch_request SET expires_at = now()$$,
    '42501', 'permission denied for table batch_request',
    'as an ordinary role: updating the stored keyed batches is refused');
SELECT throws_ok($$DELETE FROM idgen.batch_request$$,
    '42501', 'permission denied for table batch_request',
    'as an ordinary role: deleting stored keyed batches is refused');
SELECT throws_ok($$SELECT * FROM idgen.range_lease$$,
    '42501', 'permission denied for table range_lease',
    'as an ordinary role: reading idgen.range_lease is refused');
SELECT throws_ok($$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation) VALUES (1, 10, 'pgtap', 1)$$,
    '42501', 'permission denied for table range_lease',
    'as an ordinary role: inserting into idgen.range_lease is refused');
SELECT throws_ok($$SELECT nextval('idgen.range_generation')$$,
    '42501', 'permission denied for sequence range_generation',
    'as an ordinary role: drawing a range generation is refused');
SELECT throws_ok($$SELECT idgen_confirm_range_floor('1')$$,
    '42501', 'permission denied for function idgen_confirm_range_floor',
    'as an ordinary role: idgen_confirm_range_floor() is refused');
SELECT throws_ok($$SELECT * FROM idgen.stats$$,
    '42501', 'permission denied for view stats',
    'as an ordinary role: reading idgen.stats is refused');
SELECT throws_ok($$SELECT * FROM idgen.stats_counters()$$,
    '42501', 'permission denied for function stats_counters',
    'as an ordinary role: idgen.stats_counters() is refused');
SELECT throws_ok($$SELECT idgen.reset_stats()$$,
    '42501', 'permission denied for function reset_stats',
    'as an ordinary role: idgen.reset_stats() is refused');
SELECT throws_ok($$SET idgen.test_clock_offset = -1000$$,
    '42501', 'permission denied to set parameter "idgen.test_clock_offset"',
    'as an ordinary role: shifting idgen''s clock is refused');

SELECT lives_ok($$SELECT count(*) FROM idgen.epoch$$,
    'as an ordinary role: idgen.epoch can be read');
SELECT lives_ok($$SELECT idgen_next()$$,
    'as an ordinary role: idgen_next() issues an ID');
SELECT lives_ok($$SELECT count(*) FROM idgen_next_batch(3)$$,
    'as an ordinary role: idgen_next_batch() issues IDs');
SELECT lives_ok($$SELECT * FROM idgen_decode(idgen_next())$$,
    'as an ordinary role: idgen_decode() works');
SELECT lives_ok($$SELECT idgen_timestamp(idgen_next()), idgen_min_at(now()), idgen_max_at(now())$$,
    'as an ordinary role: idgen_timestamp(), idgen_min_at() and idgen_max_at() work');
SELECT lives_ok($$SELECT * FROM idgen_status()$$,
    'as an ordinary role: idgen_status() works');
SELECT lives_ok($$SELECT count(*) FROM idgen_pgtap_parts
                  WHERE id >= now() - interval '1 hour' AND id <= now() AND id > '2026-01-01'::timestamptz$$,
    'as an ordinary role: time predicates on a partitioned table, planned into the bounds of schema idgen, work');
SELECT lives_ok($$SELECT idgen_next128()$$,
    'as an ordinary role: idgen_next128() issues an ID');
SELECT lives_ok($$SELECT count(*) FROM idgen_next128_batch(3)$$,
    'as an ordinary role: idgen_next128_batch() issues IDs');
SELECT lives_ok($$SELECT * FROM idgen_decode(idgen_next128()), idgen_timestamp(idgen_next128())$$,
    'as an ordinary role: idgen_decode(idgen128) and idgen_timestamp(idgen128) work');
SELECT lives_ok($$SELECT count(*) FROM idgen_next_batch(3, 'pgtap-key')$$,
    'as an ordinary role: idgen_next_batch(count, request_key) issues IDs');
SELECT lives_ok($$SELECT count(*) FROM idgen_next128_batch(3, 'pgtap-key')$$,
    'as an ordinary role: idgen_next128_batch(count, request_key) issues IDs');
SELECT results_eq($$SELECT * FROM idgen_next_batch(3, 'pgtap-key')$$,
    $$SELECT idgen.batch_ids(b) FROM idgen.keyed_batch(3, 'pgtap-key', 64::smallint) AS b$$,
    'as an ordinary role: a keyed batch asked again, directly from idgen.keyed_batch(), is the same batch');

RESET ROLE;

-- ---------------------------------------------------------------------
-- a member of pg_monitor reads idgen.stats, and only reads it
-- ---------------------------------------------------------------------

SET LOCAL ROLE idgen_pgtap_monitor;
SELECT results_eq($$SELECT count(*) FROM idgen.stats WHERE node_sysid = idgen.node_sysid()$$,
    $$VALUES (1::bigint)$$,
    'as a pg_monitor member: idgen.stats has one row, this node''s');
SELECT ok((SELECT ids_idgen + ids_idgen128 > 0 FROM idgen.stats),
    'as a pg_monitor member: idgen.stats counts the IDs issued above');
SELECT throws_ok($$SELECT idgen.reset_stats()$$,
    '42501', 'permission denied for function reset_stats',
    'as a pg_monitor member: idgen.reset_stats() is refused');
SELECT throws_ok($$SELECT * FROM idgen.worker_lease$$,
    '42501', 'permission denied for table worker_lease',
    'as a pg_monitor member: reading idgen.worker_lease is still refused');
RESET ROLE;

-- ---------------------------------------------------------------------
-- a role granted idgen_check_unique() (and INSERT on the findings tables)
-- audits its own tables with it ...
-- ---------------------------------------------------------------------

SET LOCAL ROLE idgen_pgtap_auditor;
CREATE TABLE idgen_pgtap_probe.t (id bigint);
INSERT INTO idgen_pgtap_probe.t VALUES (1), (2), (2), (3), (3), (3);
SELECT is(idgen_check_unique('idgen_pgtap_probe.t', 'id'), 2::bigint,
    'a role granted idgen_check_unique() can audit its own table: two duplicated values');
RESET ROLE;
SELECT is((SELECT count(*) FROM idgen.collision WHERE first_owner = 'idgen_pgtap_probe.t.id'), 2::bigint,
    'idgen_check_unique() recorded both duplicated values in idgen.collision');

-- ... but must not run the relation's code with its owner's rights.  The
-- probe raises only when it finds itself running as a superuser.
SET LOCAL ROLE idgen_pgtap_auditor;
CREATE FUNCTION idgen_pgtap_probe.probe() RETURNS bigint LANGUAGE plpgsql AS $probe$
BEGIN
    IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'probe ran as superuser %', current_user;
    END IF;
    RETURN 1;
END
$probe$;
CREATE VIEW idgen_pgtap_probe.v AS SELECT idgen_pgtap_probe.probe() AS id;
DO $probe$
BEGIN
    PERFORM idgen_check_unique('idgen_pgtap_probe.v', 'id');
    PERFORM set_config('idgen_pgtap.probe', 'returned', true);
EXCEPTION WHEN OTHERS THEN
    PERFORM set_config('idgen_pgtap.probe', SQLERRM, true);
END
$probe$;
RESET ROLE;
SELECT unalike(current_setting('idgen_pgtap.probe'), 'probe ran as superuser%',
    'idgen_check_unique() does not run code of the audited relation as a superuser');

SELECT * FROM finish();
ROLLBACK;
