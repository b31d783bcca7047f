-- catalog.sql - idgen's catalog schema, as pg_dump, operators and other
-- tests rely on it
--
-- The tables of schema idgen with their contract columns and keys, layout
-- epoch 1, the append-only rule of idgen.epoch, registration of every
-- catalog table for pg_dump, the constraints
-- of the 0.3 tables batch_request and range_lease, and a comment on every
-- extension function, table and sequence.
-- Run by test/t/090_pgtap.pl in the registry database, where the
-- background worker created the extension; everything is rolled back.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(112);

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
SELECT has_table('idgen', 'batch_request', 'idgen.batch_request exists');
SELECT has_table('idgen', 'range_lease', 'idgen.range_lease exists');
SELECT has_sequence('idgen', 'range_generation', 'idgen.range_generation exists');
SELECT has_table('idgen', 'range_floor', 'idgen.range_floor exists');
SELECT has_view('idgen', 'range_grants', 'idgen.range_grants exists');

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

SELECT col_type_is('idgen', 'batch_request', 'owner_role', 'name', 'batch_request.owner_role is name');
SELECT col_type_is('idgen', 'batch_request', 'request_key', 'text', 'batch_request.request_key is text');
SELECT col_type_is('idgen', 'batch_request', 'width', 'smallint', 'batch_request.width is smallint');
SELECT col_type_is('idgen', 'batch_request', 'count', 'integer', 'batch_request.count is integer');
SELECT col_type_is('idgen', 'batch_request', 'ids', 'idgen[]', 'batch_request.ids is idgen[]');
SELECT col_type_is('idgen', 'batch_request', 'ids128', 'idgen128[]', 'batch_request.ids128 is idgen128[]');
SELECT col_type_is('idgen', 'batch_request', 'created_at', 'timestamp with time zone', 'batch_request.created_at is timestamptz');
SELECT col_type_is('idgen', 'batch_request', 'expires_at', 'timestamp with time zone', 'batch_request.expires_at is timestamptz');
SELECT col_not_null('idgen', 'batch_request', 'expires_at', 'batch_request.expires_at is NOT NULL: every stored batch expires');

SELECT col_type_is('idgen', 'range_lease', 'range_start', 'idgen', 'range_lease.range_start is idgen');
SELECT col_type_is('idgen', 'range_lease', 'range_end', 'idgen', 'range_lease.range_end is idgen');
SELECT col_type_is('idgen', 'range_lease', 'owner', 'text', 'range_lease.owner is text');
SELECT col_type_is('idgen', 'range_lease', 'generation', 'bigint', 'range_lease.generation is bigint');
SELECT col_type_is('idgen', 'range_lease', 'request_key', 'text', 'range_lease.request_key is text');
SELECT col_type_is('idgen', 'range_lease', 'consumed', 'idgen', 'range_lease.consumed is idgen');
SELECT col_not_null('idgen', 'range_lease', 'range_end', 'range_lease.range_end is NOT NULL');
SELECT col_not_null('idgen', 'range_lease', 'owner', 'range_lease.owner is NOT NULL');
SELECT col_not_null('idgen', 'range_lease', 'generation', 'range_lease.generation is NOT NULL: a fencing token is never unknown');

SELECT col_is_pk('idgen', 'epoch', 'version', 'epoch is keyed by version');
SELECT col_is_pk('idgen', 'worker_lease', ARRAY['region', 'worker']::name[], 'worker_lease is keyed by (region, worker): one row, so one holder, per worker');
SELECT col_is_pk('idgen', 'node_control', 'node_sysid', 'node_control is keyed by node_sysid');
SELECT col_is_pk('idgen', 'batch_request', ARRAY['owner_role', 'request_key', 'width']::name[],
    'batch_request is keyed by (owner_role, request_key, width): one batch per role, key and width');
SELECT col_is_pk('idgen', 'range_lease', 'range_start', 'range_lease is keyed by range_start');
SELECT col_is_unique('idgen', 'range_lease', ARRAY['owner', 'request_key']::name[],
    'range_lease has one range per (owner, request_key)');

-- a held lease always has an expiry, and a free worker none
SELECT throws_ok(
    $$INSERT INTO idgen.worker_lease (region, worker, owner) VALUES (0, 100000, 'no-expiry')$$,
    '23514', NULL,
    'worker_lease refuses an owner without lease_until');

-- ---------------------------------------------------------------------
-- batch_request: a batch of one width, its IDs in the matching column
-- ---------------------------------------------------------------------

SELECT throws_ok(
    $$INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, expires_at)
      VALUES ('pgtap', 'width-32', 32, 0, '{}', now())$$,
    '23514', NULL,
    'batch_request refuses a width other than 64 and 128');
SELECT throws_ok(
    $$INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids128, expires_at)
      VALUES ('pgtap', 'wrong-column', 64, 0, '{}', now())$$,
    '23514', NULL,
    'batch_request refuses a 64-bit batch without ids');
SELECT throws_ok(
    $$INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, ids128, expires_at)
      VALUES ('pgtap', 'both-columns', 128, 0, '{}', '{}', now())$$,
    '23514', NULL,
    'batch_request refuses a 128-bit batch that also has ids');
SELECT throws_ok(
    $$INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, expires_at)
      VALUES ('pgtap', 'negative', 64, -1, '{}', now())$$,
    '23514', NULL,
    'batch_request refuses a negative count');
SELECT lives_ok(
    $$INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, ids128, expires_at)
      VALUES ('pgtap', 'k', 64, 0, '{}', NULL, now()), ('pgtap', 'k', 128, 0, NULL, '{}', now())$$,
    'batch_request holds one key in both widths');
SELECT throws_ok(
    $$INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, expires_at)
      VALUES ('pgtap', 'k', 64, 1, '{1}', now())$$,
    '23505', NULL,
    'batch_request refuses a second batch for the same role, key and width');
SELECT results_eq(
    $$WITH ins AS (INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, expires_at)
                   VALUES ('pgtap', 'k', 64, 0, '{}', now()) RETURNING 1)
      SELECT count(*)::integer FROM ins$$,
    $$VALUES (0)$$,
    'batch_request skips the same batch once more, as a restore brings it');

-- ---------------------------------------------------------------------
-- range_lease: ranges never overlap and never start at 0
-- ---------------------------------------------------------------------

SELECT lives_ok(
    $$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
      VALUES (9000000000000, 9000000000099, 'pgtap-a', 1)$$,
    'range_lease takes a range');
SELECT throws_ok(
    $$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
      VALUES (9000000000050, 9000000000149, 'pgtap-b', 2)$$,
    '23P01', NULL,
    'range_lease refuses a range overlapping another');
SELECT throws_ok(
    $$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
      VALUES (8999999999900, 9000000000000, 'pgtap-b', 2)$$,
    '23P01', NULL,
    'range_lease refuses a range sharing one ID with another');
SELECT lives_ok(
    $$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
      VALUES (9000000000100, 9000000000199, 'pgtap-b', 2)$$,
    'range_lease takes the adjacent range');
SELECT throws_ok(
    $$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
      VALUES (0, 9, 'pgtap-c', 3)$$,
    '23514', NULL,
    'range_lease refuses ID 0');
SELECT throws_ok(
    $$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
      VALUES (9000000000300, 9000000000299, 'pgtap-c', 3)$$,
    '23514', NULL,
    'range_lease refuses a range that ends before it starts');
SELECT throws_ok(
    $$UPDATE idgen.range_lease SET consumed = 9000000000100 WHERE range_start = 9000000000000$$,
    '23514', NULL,
    'range_lease refuses a consumed mark outside its range');
SELECT throws_ok(
    $$INSERT INTO idgen.range_lease (range_start, range_end, owner, generation, request_key)
      VALUES (9000000000200, 9000000000200, 'pgtap-a', 4, 'key'),
             (9000000000201, 9000000000201, 'pgtap-a', 5, 'key')$$,
    '23505', NULL,
    'range_lease refuses a second range for the same owner and request key');
SELECT is(
    (SELECT idgen_decode((idgen.range_space_end()::bigint - 1)::idgen)::text),
    '(,,,,0)',
    'the ID just below idgen.range_space_end() is a range-space ID: epoch 0, no time or node');
SELECT is(
    idgen.range_space_end(), idgen_min_at('2026-01-01 00:00:00+00'),
    'the range space ends where 2026-01-01 00:00 UTC begins');

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
-- excluded because CREATE EXTENSION recreates it, worker rows nobody ever
-- held carry nothing, and retry keys only while they live.  The range
-- leases and their fencing counter are dumped too.
-- ---------------------------------------------------------------------

SELECT results_eq(
    $$SELECT c::regclass::text, cond COLLATE "default"
        FROM pg_extension AS e, unnest(e.extconfig, e.extcondition) AS u(c, cond)
       WHERE e.extname = 'idgen'
         AND c::regclass::text IN ('idgen.epoch', 'idgen.worker_lease', 'idgen.audit_log',
                                   'idgen.collision', 'idgen.node_control',
                                   'idgen.range_lease', 'idgen.range_generation',
                                   'idgen.range_floor', 'idgen.batch_request', 'idgen.restore_marker')
       ORDER BY 1$$,
    $$VALUES ('idgen.audit_log', ''), ('idgen.batch_request', 'WHERE expires_at > pg_catalog.now()'),
             ('idgen.collision', ''), ('idgen.epoch', 'WHERE version > 1'),
             ('idgen.node_control', ''), ('idgen.range_floor', ''), ('idgen.range_generation', ''),
             ('idgen.range_lease', ''), ('idgen.restore_marker', ''),
             ('idgen.worker_lease', 'WHERE owner IS NOT NULL OR generation > 0 OR high_water IS NOT NULL')$$,
    'the catalog tables and sequence are registered with pg_extension_config_dump, epoch without row 1');
SELECT is_empty(
    $$SELECT c.oid::regclass::text
        FROM pg_class AS c
       WHERE c.relnamespace = 'idgen'::regnamespace AND c.relkind IN ('r', 'p', 'S')
         AND c.oid <> ALL (SELECT unnest(extconfig) FROM pg_extension WHERE extname = 'idgen')
         -- the running registry instance, not data (docs/fleets.md)
         AND c.oid <> 'idgen.registry_incarnation'::regclass$$,
    'no table or sequence in schema idgen but registry_incarnation is left out of pg_dump');
SELECT ok(
    'idgen.batch_request'::regclass = ANY (SELECT unnest(extconfig) FROM pg_extension WHERE extname = 'idgen'),
    'idgen.batch_request is dumped: a retry after a restore gets its batch again');

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
         AND d.deptype = 'e' AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
         AND obj_description(c.oid, 'pg_class') IS NULL$$,
    'every table, view and sequence of the extension has a comment');

-- the functions new in 0.3, one by one: present, part of the extension,
-- with a comment
SELECT ok(
    EXISTS (SELECT FROM pg_depend AS d
             WHERE d.classid = 'pg_proc'::regclass AND d.objid = f.sig::regprocedure
               AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
               AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen'))
    AND coalesce(obj_description(f.sig::regprocedure, 'pg_proc'), '') <> '',
    f.sig || ' belongs to the extension and has a comment')
FROM (VALUES ('idgen_next128()'), ('idgen_next128_batch(integer)'), ('idgen_next128_batch(integer,text)'),
             ('idgen_next_batch(integer,text)'), ('idgen_decode(idgen128)'), ('idgen_timestamp(idgen128)'),
             ('idgen_lease_range(text,bigint,text)'), ('idgen_range_consumed(idgen,idgen)'),
             ('idgen128(uuid)'), ('idgen.keyed_batch(integer,text,smallint)'),
             ('idgen.request_retention()'), ('idgen.range_space_end()')) AS f(sig)
ORDER BY f.sig COLLATE "C";
SELECT ok(coalesce(obj_description('idgen128'::regtype, 'pg_type'), '') <> '',
    'type idgen128 has a comment');
SELECT ok(coalesce(col_description('idgen.range_lease'::regclass,
                                   (SELECT attnum FROM pg_attribute
                                     WHERE attrelid = 'idgen.range_lease'::regclass AND attname = 'consumed')), '') <> '',
    'range_lease.consumed has a comment');

SELECT * FROM finish();
ROLLBACK;
