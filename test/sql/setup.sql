-- setup: the first test.  pg_regress created the extension already
-- (--load-extension=idgen); check the facts about the installation that
-- must not vary between runs.

-- installed at the default version, from the control file
SELECT e.extversion, a.default_version, e.extversion = a.default_version AS is_default,
       e.extrelocatable, e.extnamespace::regnamespace AS schema
FROM pg_extension e
JOIN pg_available_extensions a ON a.name = e.extname
WHERE e.extname = 'idgen';

-- the library is preloaded, so the generator has its shared memory
SELECT 'idgen' = ANY (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))
    AS preloaded;

-- the objects that belong to the extension, by kind.  A type that is part
-- of another object (a table's or view's row type, a type's array type: it
-- has an internal dependency on that object) is not counted: PostgreSQL 17
-- lists those as members as well (commit e5bc945, "Explicitly list
-- dependent types as extension members in pg_depend"), 15 and 16 list only
-- the object they belong to, and the count would differ (32 against 2)
SELECT d.classid::regclass AS catalog, count(*) AS objects
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
  AND d.deptype = 'e'
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT FROM pg_depend i
                       WHERE i.classid = d.classid AND i.objid = d.objid AND i.deptype = 'i'))
GROUP BY d.classid
ORDER BY d.classid::regclass::text COLLATE "C";

-- the SQL surface by name, so a renamed or dropped function shows up (the
-- functions behind the comparison operators of idgen and idgen128 are
-- left out: idgen_type and idgen128 test those operators)
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility,
       p.proisstrict AS strict, p.proparallel AS parallel
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
  AND d.deptype = 'e'
  AND p.proname !~ '^(idgen|bigint|integer)_(eq|ne|lt|le|gt|ge|cmp)(_(idgen|bigint|integer))?$'
  AND p.proname !~ '^(idgen128|uuid)_(eq|ne|lt|le|gt|ge|cmp)(_(idgen128|uuid))?$'
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- the types: idgen is 8 bytes, passed by value, with int8's alignment and
-- storage; idgen128 is stored exactly like uuid
SELECT typname, typlen, typbyval, typalign, typstorage, typcategory, typarray <> 0 AS has_array
FROM pg_type WHERE oid IN ('idgen'::regtype, 'idgen128'::regtype, 'uuid'::regtype)
ORDER BY typname COLLATE "C";

-- the catalog: epoch 1 is the built-in layout
-- 41-bit ms since 2025-01-01 UTC | 3-bit region | 7-bit worker | 12-bit seq
SET timezone = 'UTC';
SELECT version, start_time, epoch_start, time_bits, region_bits, worker_bits,
       seq_bits, horizon
FROM idgen.epoch ORDER BY version;
SELECT * FROM idgen.default_layout();
SELECT horizon = epoch_start + (2::numeric ^ 41 / 1000) * interval '1 second' AS horizon_is_2_pow_41_ms
FROM idgen.default_layout();

-- pg_dump keeps layouts added after installation, the registry tables
-- (worker rows someone held), the leased ranges and their fencing counter,
-- and the retry keys that still live
SELECT u.config::regclass AS config_table, c.relkind, u.condition
FROM pg_extension e, unnest(e.extconfig, e.extcondition) WITH ORDINALITY AS u(config, condition, n)
JOIN pg_class c ON c.oid = u.config
WHERE e.extname = 'idgen'
ORDER BY u.n;

-- idgen.epoch is append-only, and PUBLIC may only read it
UPDATE idgen.epoch SET seq_bits = seq_bits WHERE version = 1;
DELETE FROM idgen.epoch;
TRUNCATE idgen.epoch;
SELECT count(*) AS epochs_left FROM idgen.epoch;
SELECT has_schema_privilege('public', 'idgen', 'USAGE') AS schema_usage,
       has_schema_privilege('public', 'idgen', 'CREATE') AS schema_create,
       has_table_privilege('public', 'idgen.epoch', 'SELECT') AS epoch_select,
       has_table_privilege('public', 'idgen.epoch', 'INSERT') AS epoch_insert,
       has_table_privilege('public', 'idgen.epoch', 'UPDATE') AS epoch_update,
       has_function_privilege('public', 'idgen.epoch_append_only()', 'EXECUTE') AS trigger_execute;

RESET timezone;
