-- catalog.sql - idgen's catalog schema, as pg_dump, operators and other
-- tests rely on it
--
-- The tables of schema idgen with their contract columns and keys, layout
-- epoch 1, the append-only rule of idgen.epoch, registration of every
-- catalog table for pg_dump, and a comment on every extension function.
-- Run by test/t/090_pgtap.pl in the registry database, where the
-- background worker created the extension; everything is rolled back.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(54);

-- ---------------------------------------------------------------------
-- tables and columns
-- ---------------------------------------------------------------------

SELECT has_extension('idgen', 'extension idgen is installed');
SELECT has_schema('idgen', 'schema idgen exists');
SELECT has_table('idgen', 'epoch', 'idgen.epoch exists');
SELECT has_table('idgen', 'worker_lease', 'idgen.worker_lease exists');
SELECT has_table('idgen', 'audit_log', 'idgen.audit_log exists');
SELECT has_table('idgen', 'collision', 'idgen.collision exists');
SELECT has_table('idgen', 'node_control', 'idgen.node_control exists');

SELECT col_type_is('idgen', 'epoch', 'version', 'integer', 'epoch.version is integer');
SELECT col_type_is('idgen', 'epoch', 'start_time', 'timestamp with time zone', 'epoch.start_time is timestamptz');
SELECT col_type_is('idgen', 'epoch', 'epoch_start', 'timestamp with time zone', 'epoch.epoch_start is timestamptz');
SELECT col_type_is('idgen', 'epoch', 'time_bits', 'integer', 'epoch.time_bits is integer');
SELECT col_type_is('idgen', 'epoch', 'region_bits', 'integer', 'epoch.region_bits is integer');
SELECT col_type_is('idgen', 'epoch', 'worker_bits', 'integer', 'epoch.worker_bits is integer');
SELECT col_type_is('idgen', 'epoch', 'seq_bits', 'integer', 'epoch.seq_bits is integer');
SELECT col_type_is('idgen', 'epoch', 'horizon', 'timestamp with time zone', 'epoch.horizon is timestamptz');

SELECT col_type_is('idgen', 'worker_lease', 'region', 'integer', 'worker_lease.region is integer');
SELECT col_type_is('idgen', 'worker_lease', 'worker', 'integer', 'worker_lease.worker is integer');
SELECT col_type_is('idgen', 'worker_lease', 'owner', 'text', 'worker_lease.owner is text');
SELECT col_type_is('idgen', 'worker_lease', 'generation', 'bigint', 'worker_lease.generation is bigint');
SELECT col_type_is('idgen', 'worker_lease', 'lease_until', 'timestamp with time zone', 'worker_lease.lease_until is timestamptz');
SELECT col_type_is('idgen', 'worker_lease', 'high_water', 'timestamp with time zone', 'worker_lease.high_water is timestamptz');
SELECT col_type_is('idgen', 'worker_lease', 'node_sysid', 'text', 'worker_lease.node_sysid is text');
SELECT col_not_null('idgen', 'worker_lease', 'generation', 'worker_lease.generation is NOT NULL: a fencing token is never unknown');

SELECT col_type_is('idgen', 'audit_log', 'at', 'timestamp with time zone', 'audit_log.at is timestamptz');
SELECT col_type_is('idgen', 'audit_log', 'actor', 'text', 'audit_log.actor is text');
SELECT col_type_is('idgen', 'audit_log', 'action', 'text', 'audit_log.action is text');
SELECT col_type_is('idgen', 'audit_log', 'detail', 'text', 'audit_log.detail is text');

SELECT col_type_is('idgen', 'collision', 'id', 'idgen', 'collision.id is idgen');
SELECT col_type_is('idgen', 'collision', 'first_owner', 'text', 'collision.first_owner is text');
SELECT col_type_is('idgen', 'collision', 'second_owner', 'text', 'collision.second_owner is text');
SELECT col_type_is('idgen', 'collision', 'observed_at', 'timestamp with time zone', 'collision.observed_at is timestamptz');

SELECT col_type_is('idgen', 'node_control', 'node_sysid', 'text', 'node_control.node_sysid is text');
SELECT col_type_is('idgen', 'node_control', 'disabled_reason', 'text', 'node_control.disabled_reason is text');
SELECT col_type_is('idgen', 'node_control', 'disabled_at', 'timestamp with time zone', 'node_control.disabled_at is timestamptz');
SELECT col_type_is('idgen', 'node_control', 'disabled_by', 'text', 'node_control.disabled_by is text');

SELECT col_is_pk('idgen', 'epoch', 'version', 'epoch is keyed by version');
SELECT col_is_pk('idgen', 'worker_lease', ARRAY['region', 'worker']::name[], 'worker_lease is keyed by (region, worker): one row, so one holder, per worker');
SELECT col_is_pk('idgen', 'node_control', 'node_sysid', 'node_control is keyed by node_sysid');

-- a held lease always has an expiry, and a free worker none
SELECT throws_ok(
    $$INSERT INTO idgen.worker_lease (region, worker, owner) VALUES (0, 100000, 'no-expiry')$$,
    '23514', NULL,
    'worker_lease refuses an owner without lease_until');

-- ---------------------------------------------------------------------
-- epoch 1: the built-in layout
-- ---------------------------------------------------------------------

SELECT results_eq(
    $$SELECT version, time_bits, region_bits, worker_bits, seq_bits FROM idgen.epoch WHERE version = 1$$,
    $$VALUES (1, 41, 3, 7, 12)$$,
    'epoch 1 is the default layout: 41 time, 3 region, 7 worker, 12 sequence bits');
SELECT is(
    (SELECT epoch_start FROM idgen.epoch WHERE version = 1),
    '2025-01-01 00:00:00+00'::timestamptz,
    'epoch 1 counts time from 2025-01-01 00:00 UTC');
SELECT ok(
    (SELECT start_time = epoch_start
            AND horizon = epoch_start + 2199023255552 * interval '1 millisecond'
       FROM idgen.epoch WHERE version = 1),
    'epoch 1 applies from its epoch start, and its horizon is 2^41 ms later');
SELECT results_eq(
    $$SELECT epoch_start, time_bits, region_bits, worker_bits, seq_bits, horizon FROM idgen.default_layout()$$,
    $$SELECT epoch_start, time_bits, region_bits, worker_bits, seq_bits, horizon FROM idgen.epoch WHERE version = 1$$,
    'idgen.default_layout() and epoch 1 agree');

-- ---------------------------------------------------------------------
-- idgen.epoch is append-only
-- ---------------------------------------------------------------------

SELECT has_trigger('idgen', 'epoch', 'epoch_append_only', 'idgen.epoch has the row trigger epoch_append_only');
SELECT has_trigger('idgen', 'epoch', 'epoch_no_truncate', 'idgen.epoch has the statement trigger epoch_no_truncate');
SELECT throws_ok(
    $$UPDATE idgen.epoch SET time_bits = 40, seq_bits = 13 WHERE version = 1$$,
    '55000', 'idgen.epoch is append-only',
    'UPDATE of idgen.epoch is refused');
SELECT throws_ok(
    $$DELETE FROM idgen.epoch WHERE version = 1$$,
    '55000', 'idgen.epoch is append-only',
    'DELETE from idgen.epoch is refused');
SELECT throws_ok(
    $$TRUNCATE idgen.epoch$$,
    '55000', 'idgen.epoch is append-only',
    'TRUNCATE of idgen.epoch is refused');
SELECT results_eq(
    $$SELECT version, time_bits, region_bits, worker_bits, seq_bits FROM idgen.epoch WHERE version = 1$$,
    $$VALUES (1, 41, 3, 7, 12)$$,
    'epoch 1 is unchanged after the refused statements');
SELECT throws_ok(
    $$INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits, worker_bits, seq_bits, horizon)
      VALUES (99, now(), now(), 41, 3, 7, 13, now())$$,
    '23514', NULL,
    'a layout whose fields do not add up to 63 bits is refused');

-- ---------------------------------------------------------------------
-- pg_dump: every catalog table is a configuration table; epoch 1 is
-- excluded because CREATE EXTENSION recreates it
-- ---------------------------------------------------------------------

SELECT results_eq(
    $$SELECT c::regclass::text, cond COLLATE "default"
        FROM pg_extension AS e, unnest(e.extconfig, e.extcondition) AS u(c, cond)
       WHERE e.extname = 'idgen'
         AND c::regclass::text IN ('idgen.epoch', 'idgen.worker_lease', 'idgen.audit_log',
                                   'idgen.collision', 'idgen.node_control')
       ORDER BY 1$$,
    $$VALUES ('idgen.audit_log', ''), ('idgen.collision', ''), ('idgen.epoch', 'WHERE version > 1'),
             ('idgen.node_control', ''), ('idgen.worker_lease', '')$$,
    'the catalog tables are registered with pg_extension_config_dump, epoch without row 1');
SELECT is_empty(
    $$SELECT c.oid::regclass::text
        FROM pg_class AS c
       WHERE c.relnamespace = 'idgen'::regnamespace AND c.relkind IN ('r', 'p')
         AND c.oid <> ALL (SELECT unnest(extconfig) FROM pg_extension WHERE extname = 'idgen')$$,
    'no table in schema idgen is left out of pg_dump');

-- ---------------------------------------------------------------------
-- comments
-- ---------------------------------------------------------------------

SELECT is_empty(
    $$SELECT p.oid::regprocedure::text
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_proc AS p ON p.oid = d.objid
       WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
         AND d.deptype = 'e' AND obj_description(p.oid, 'pg_proc') IS NULL$$,
    'every function of the extension has a comment');
SELECT is_empty(
    $$SELECT c.oid::regclass::text
        FROM pg_depend AS d
        JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'idgen'
        JOIN pg_class AS c ON c.oid = d.objid
       WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_extension'::regclass
         AND d.deptype = 'e' AND c.relkind IN ('r', 'p', 'v', 'm')
         AND obj_description(c.oid, 'pg_class') IS NULL$$,
    'every table and view of the extension has a comment');

SELECT * FROM finish();
ROLLBACK;
