-- idgen_convert: idgen_convert_column(tbl, col) (new in 0.4) turns an
-- existing bigint / bigserial / identity / integer key into idgen with
-- DEFAULT idgen_next().  It drops the identity or the serial's sequence,
-- keeps every value, leaves foreign keys that point at the column as
-- bigint (the cross-type operators of idgen_ops make them work), and
-- refuses values an idgen cannot hold or new IDs could not stay above.  It
-- is all or nothing, and each conversion is audited.  Generated IDs are
-- never printed.
-- (idgen_convert_1.out is the output on PostgreSQL 18 and later, whose
-- EXPLAIN marks a node that enable_seqscan = off disabled "Disabled: true")
SET timezone = 'UTC';

-- helpers: the facts about a column, and a conversion's outcome with its
-- SQLSTATE (the lowest ID issued now, which a message may quote, is masked)
CREATE FUNCTION conv_facts(tbl regclass, col name,
    OUT type text, OUT "default" text, OUT identity text, OUT serial_sequence text,
    OUT not_null boolean)
LANGUAGE sql STABLE AS
$$
SELECT format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid),
       CASE a.attidentity WHEN 'a' THEN 'always' WHEN 'd' THEN 'by default' ELSE '' END,
       pg_get_serial_sequence(tbl::text, col::text), a.attnotnull
FROM pg_attribute a
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = tbl AND a.attname = col AND NOT a.attisdropped
$$;
CREATE FUNCTION conv_try(tbl text, col name,
    OUT state text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM idgen_convert_column(tbl::regclass, col);
    state := '00000';
    message := 'converted';
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                            detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    message := regexp_replace(message, '\(from \d+\)', '(from <lowest ID issued now>)');
END
$$;
CREATE FUNCTION conv_run(stmt text, OUT state text, OUT message text, OUT detail text)
LANGUAGE plpgsql AS
$$
BEGIN
    EXECUTE stmt;
    state := '00000';
    message := 'ok';
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                            detail = PG_EXCEPTION_DETAIL;
END
$$;

-- an administrator's function: not for PUBLIC
SELECT has_function_privilege('public', 'idgen_convert_column(regclass, name)', 'EXECUTE')
    AS public_may_convert;
-- STRICT: NULL arguments do nothing
SELECT idgen_convert_column(NULL, 'id') IS NULL AS null_table,
       idgen_convert_column('pg_class', NULL) IS NULL AS null_column;

--
-- A bigserial key with a foreign key pointing at it
--
CREATE TABLE conv_parent (id bigserial PRIMARY KEY, name text NOT NULL);
CREATE TABLE conv_child (parent_id bigint NOT NULL REFERENCES conv_parent (id), note text);
INSERT INTO conv_parent (name) SELECT 'parent ' || g FROM generate_series(1, 100) g;
INSERT INTO conv_child SELECT g % 100 + 1, 'child ' || g FROM generate_series(1, 300) g;
CREATE TEMP TABLE conv_parent_before AS SELECT id, name FROM conv_parent;
SELECT * FROM conv_facts('conv_parent', 'id');
SELECT to_regclass('conv_parent_id_seq') IS NOT NULL AS sequence_exists;

-- the sequence goes (NOTICE); the values 1 to 100 lie in the range space,
-- which the WARNING says, with what to do about ranges
SELECT idgen_convert_column('conv_parent', 'id');

-- the column is an idgen defaulting to idgen_next(), the sequence is gone,
-- and the primary key indexes it with idgen's operator class
SELECT * FROM conv_facts('conv_parent', 'id');
SELECT to_regclass('conv_parent_id_seq') IS NULL AS sequence_gone;
SELECT i.indexrelid::regclass AS index, i.indisprimary, o.opcname
FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0]
WHERE i.indrelid = 'conv_parent'::regclass;
-- every value and every row is unchanged
SELECT (SELECT count(*) FROM conv_parent) AS rows_now,
       (SELECT count(*) FROM conv_parent_before b JOIN conv_parent p ON p.id = b.id AND p.name = b.name)
           AS rows_unchanged,
       (SELECT min(id) FROM conv_parent) AS min_id, (SELECT max(id) FROM conv_parent) AS max_id;
-- the child's column stays bigint; its foreign key is still there and
-- valid, now comparing bigint with idgen
SELECT * FROM conv_facts('conv_child', 'parent_id');
SELECT conname, confrelid::regclass AS references, convalidated,
       conpfeqop[1]::regoperator AS pk_eq_fk, conppeqop[1]::regoperator AS pk_eq_pk,
       conffeqop[1]::regoperator AS fk_eq_fk
FROM pg_constraint WHERE conrelid = 'conv_child'::regclass AND contype = 'f';
-- ... and still enforced, both ways: 23503
SELECT s.stmt, r.*
FROM (VALUES ('INSERT INTO conv_child VALUES (1000, ''no such parent'')'),
             ('UPDATE conv_child SET parent_id = 101 WHERE note = ''child 1'''),
             ('DELETE FROM conv_parent WHERE id = 5'),
             ('UPDATE conv_parent SET id = 1000 WHERE id = 5'),
             ('INSERT INTO conv_child VALUES (100, ''an old parent'')')) AS s(stmt),
     LATERAL conv_run(s.stmt) r;
-- new rows get IDs from idgen_next(), above every existing value
INSERT INTO conv_parent (name) SELECT 'new ' || g FROM generate_series(1, 5) g;
SELECT count(*) AS new_rows,
       bool_and(id > (SELECT max(id) FROM conv_parent_before)) AS above_every_old_value,
       bool_and(id >= idgen.range_space_end()) AS generated_ids,
       bool_and(idgen_timestamp(id) > now() - interval '1 hour') AS issued_just_now
FROM conv_parent WHERE name LIKE 'new %';
-- which a bigint child can point at
INSERT INTO conv_child SELECT id, 'child of ' || name FROM conv_parent WHERE name LIKE 'new %';
SELECT count(*) AS children_of_new FROM conv_child c
WHERE c.parent_id IN (SELECT id FROM conv_parent WHERE name LIKE 'new %');
-- a join between the bigint child and the idgen parent finds every pair,
-- with idgen's cross-type operator, bigint = idgen
SELECT count(*) AS pairs, count(DISTINCT p.id) AS parents
FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id;
CREATE VIEW conv_join AS
SELECT c.note, p.name FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id;
SELECT DISTINCT o.oid::regoperator AS operator, o.oprnamespace::regnamespace AS schema
FROM pg_depend d JOIN pg_operator o ON o.oid = d.refobjid
WHERE d.classid = 'pg_rewrite'::regclass
  AND d.objid = (SELECT oid FROM pg_rewrite WHERE ev_class = 'conv_join'::regclass)
  AND d.refclassid = 'pg_operator'::regclass;
DROP VIEW conv_join;
-- as a hash join, a nested loop over the primary key, and a merge join
ANALYZE conv_parent;
ANALYZE conv_child;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id;
SELECT count(*) AS hash_join_pairs FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id;
SET enable_hashjoin = off;
SET enable_nestloop = on;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT p.name FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id
    WHERE c.note = 'child 42';
SELECT p.name FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id WHERE c.note = 'child 42';
RESET enable_seqscan;
SET enable_nestloop = off;
SET enable_mergejoin = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id;
SELECT count(*) AS merge_join_pairs FROM conv_child c JOIN conv_parent p ON c.parent_id = p.id;
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_mergejoin;
-- converting it again is refused: it is an idgen already
SELECT * FROM conv_try('conv_parent', 'id');

--
-- An identity column (GENERATED ALWAYS), with a value set by hand
--
CREATE TABLE conv_ident (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text);
INSERT INTO conv_ident (v) VALUES ('a'), ('b'), ('c');
INSERT INTO conv_ident OVERRIDING SYSTEM VALUE VALUES (5000, 'by hand');
SELECT * FROM conv_facts('conv_ident', 'id');
SELECT to_regclass('conv_ident_id_seq') IS NOT NULL AS sequence_exists;
-- no NOTICE: dropping the identity drops its sequence
SELECT idgen_convert_column('conv_ident', 'id');
SELECT * FROM conv_facts('conv_ident', 'id');
SELECT to_regclass('conv_ident_id_seq') IS NULL AS sequence_gone;
SELECT id, v FROM conv_ident ORDER BY id;
-- an explicit value is an ordinary insert now, a missing one an idgen
INSERT INTO conv_ident VALUES (6000, 'explicit');
INSERT INTO conv_ident (v) VALUES ('generated');
SELECT v, id > 6000 AS above_6000, idgen_timestamp(id) IS NOT NULL AS has_time
FROM conv_ident WHERE v IN ('explicit', 'generated') ORDER BY v;

--
-- An integer serial column, with names that need quoting
--
CREATE SCHEMA "Conv Schema";
CREATE TABLE "Conv Schema"."Orders" ("OrderNo" serial PRIMARY KEY, item text);
INSERT INTO "Conv Schema"."Orders" (item) SELECT 'item ' || g FROM generate_series(1, 5) g;
SELECT * FROM conv_facts('"Conv Schema"."Orders"', 'OrderNo');
SELECT idgen_convert_column('"Conv Schema"."Orders"', 'OrderNo');
SELECT * FROM conv_facts('"Conv Schema"."Orders"', 'OrderNo');
SELECT to_regclass('"Conv Schema"."Orders_OrderNo_seq"') IS NULL AS sequence_gone;
INSERT INTO "Conv Schema"."Orders" (item) VALUES ('item 6');
SELECT count(*) AS orders, count(*) FILTER (WHERE "OrderNo" <= 5) AS old_numbers,
       bool_and("OrderNo" > 5) FILTER (WHERE item = 'item 6') AS new_number_above
FROM "Conv Schema"."Orders";

--
-- An empty bigint column without a default: nothing to warn about
--
CREATE TABLE conv_empty (id bigint PRIMARY KEY);
SELECT idgen_convert_column('conv_empty', 'id');
SELECT * FROM conv_facts('conv_empty', 'id');

--
-- Refusals: each with its SQLSTATE, and the table as it was, since the
-- conversion is one step
--
-- a negative value: 22003
CREATE TABLE conv_neg (id bigserial PRIMARY KEY, v text);
INSERT INTO conv_neg (v) VALUES ('a'), ('b');
INSERT INTO conv_neg VALUES (-5, 'negative');
SELECT * FROM conv_try('conv_neg', 'id');
SELECT * FROM conv_facts('conv_neg', 'id');
SELECT to_regclass('conv_neg_id_seq') IS NOT NULL AS sequence_exists;
-- a value new IDs could not stay above: 22003
CREATE TABLE conv_big (id bigserial PRIMARY KEY);
INSERT INTO conv_big VALUES (DEFAULT), (9000000000000000000);
SELECT * FROM conv_try('conv_big', 'id');
SELECT * FROM conv_facts('conv_big', 'id');
-- ... also one of the IDs nodes will issue tomorrow
TRUNCATE conv_big;
INSERT INTO conv_big VALUES (idgen_min_at(now() + interval '1 day')::bigint);
SELECT state FROM conv_try('conv_big', 'id');
SELECT * FROM conv_facts('conv_big', 'id');
-- other types: 42804
CREATE TABLE conv_types (t text DEFAULT 'x', s smallint, n numeric, u uuid, i128 idgen128);
SELECT c.col, r.* FROM (VALUES ('t'), ('s'), ('n'), ('u'), ('i128')) AS c(col),
     LATERAL conv_try('conv_types', c.col::name) r;
SELECT * FROM conv_facts('conv_types', 't');
-- already an idgen: 42710
CREATE TABLE conv_done (id idgen PRIMARY KEY DEFAULT idgen_next());
SELECT * FROM conv_try('conv_done', 'id');
-- no such column, a dropped one, a system column: 42703
ALTER TABLE conv_neg ADD COLUMN old_id bigint;
ALTER TABLE conv_neg DROP COLUMN old_id;
SELECT c.col, r.* FROM (VALUES ('nope'), ('old_id'), ('ctid'), ('ID')) AS c(col),
     LATERAL conv_try('conv_neg', c.col::name) r;
-- no such table: 42P01, before the function runs
SELECT * FROM conv_try('conv_nope', 'id');
-- a failure halfway: the default is dropped and the sequence too before
-- ALTER TYPE finds the view on the column (0A000); all of it is undone
CREATE TABLE conv_viewed (id bigserial PRIMARY KEY, v text);
INSERT INTO conv_viewed (v) VALUES ('a'), ('b'), ('c');
CREATE VIEW conv_viewed_ids AS SELECT id FROM conv_viewed;
SELECT * FROM conv_try('conv_viewed', 'id');
SELECT * FROM conv_facts('conv_viewed', 'id');
SELECT to_regclass('conv_viewed_id_seq') IS NOT NULL AS sequence_exists;
INSERT INTO conv_viewed (v) VALUES ('d');
SELECT id, v FROM conv_viewed ORDER BY id;
-- the refused tables still work as before
INSERT INTO conv_neg (v) VALUES ('c');
SELECT id, v FROM conv_neg ORDER BY id;

--
-- The audit log: one row per conversion, none for the refusals
--
SELECT action, detail FROM idgen.audit_log
WHERE action = 'convert_column'
ORDER BY at, detail COLLATE "C";

DROP VIEW conv_viewed_ids;
DROP TABLE conv_child, conv_parent, conv_ident, "Conv Schema"."Orders", conv_empty, conv_neg,
           conv_big, conv_types, conv_done, conv_viewed;
DROP SCHEMA "Conv Schema";
DROP FUNCTION conv_run(text);
DROP FUNCTION conv_try(text, name);
DROP FUNCTION conv_facts(regclass, name);
RESET timezone;
