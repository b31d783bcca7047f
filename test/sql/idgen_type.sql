-- idgen_type: the idgen data type on its own, without generating anything:
-- text and binary I/O, casts, operators, index and join support, decoding.
-- (idgen_type_1.out is the output on PostgreSQL 17 and later, whose EXPLAIN
-- prints "InitPlan 1" without "(returns $0)" and leaves out the IS NOT NULL
-- index condition of min()/max() on a NOT NULL column)
SET timezone = 'UTC';

--
-- Text input and output
--
SELECT '0'::idgen AS zero,
       '1'::idgen AS one,
       '9223372036854775807'::idgen AS max,
       '00042'::idgen AS leading_zeros,
       '0000000000000000000000000000009223372036854775807'::idgen AS many_zeros_max;
-- output is canonical, so text round trips are exact
SELECT v, v::idgen::text AS out, v::idgen::text::idgen = v::idgen AS round_trip
FROM (VALUES ('0'), ('7'), ('4194304'), ('1152921504606846976'),
             ('9223372036854775806'), ('9223372036854775807')) AS t(v);

-- bad input: the message quotes the value, with 22P02 for bad syntax and
-- 22003 for digits out of range
SELECT ''::idgen;
SELECT '-1'::idgen;
SELECT '9223372036854775808'::idgen;

-- helpers: an input's outcome as text, and whether a plan has a node
CREATE FUNCTION idgen_plan_has(query text, node text) RETURNS boolean
LANGUAGE plpgsql AS
$$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line LIKE '%' || node || '%' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END
$$;

-- every kind of bad input, with its SQLSTATE
CREATE FUNCTION idgen_try_in(v text) RETURNS text LANGUAGE plpgsql AS
$$
BEGIN
    RETURN v::idgen::text;
EXCEPTION WHEN others THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
SELECT label, replace(replace(idgen_try_in(v), E'\n', '\n'), E'\t', '\t') AS result
FROM (VALUES
    ('empty', ''),
    ('minus', '-1'),
    ('minus zero', '-0'),
    ('plus', '+1'),
    ('leading space', ' 1'),
    ('trailing space', '1 '),
    ('only spaces', '   '),
    ('inner space', '1 2'),
    ('newline', E'1\n'),
    ('tab', E'\t1'),
    ('hex', '0x10'),
    ('exponent', '1e3'),
    ('fraction', '1.5'),
    ('trailing dot', '1.'),
    ('letters after digits', '12abc'),
    ('letters', 'abc'),
    ('underscore', '1_000'),
    ('comma', '1,000'),
    ('2^63', '9223372036854775808'),
    ('2^64', '18446744073709551616'),
    ('20 nines', '99999999999999999999'),
    ('100 digits', repeat('1', 100)),
    ('huge, then a letter', repeat('9', 100) || 'x'),
    ('zeros, then 2^63', repeat('0', 50) || '9223372036854775808')
) AS t(label, v);

-- the long value appears whole in the message
SELECT length(idgen_try_in(repeat('7', 5000))) > 5000 AS message_quotes_whole_value;

-- NULL in, NULL out
SELECT NULL::idgen IS NULL AS null_stays_null;

--
-- Binary I/O: the int8 wire format
--
SELECT v, idgen_send(v::idgen) = int8send(v::bigint) AS same_bytes_as_int8,
       encode(idgen_send(v::idgen), 'hex') AS bytes
FROM (VALUES ('0'), ('1'), ('256'), ('4197339040'), ('9223372036854775807')) AS t(v);

-- idgen_recv through COPY BINARY: a round trip, then values it must refuse
\getenv abs_builddir PG_ABS_BUILDDIR
\set idgen_bin :abs_builddir '/results/idgen_type_id.data'
\set bigint_bin :abs_builddir '/results/idgen_type_bigint.data'
\set int_bin :abs_builddir '/results/idgen_type_int.data'
CREATE TABLE idgen_copy (id idgen);
INSERT INTO idgen_copy VALUES ('0'), ('1'), ('4197339040'), ('9223372036854775807'), (NULL);
COPY idgen_copy TO :'idgen_bin' (FORMAT binary);
CREATE TABLE idgen_copy_back (id idgen);
COPY idgen_copy_back FROM :'idgen_bin' (FORMAT binary);
SELECT count(*) AS rows_back,
       count(*) FILTER (WHERE b.id IS NULL) AS nulls_back,
       (SELECT count(*) FROM idgen_copy) AS rows_sent,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM idgen_copy c WHERE c.id = b.id)) AS matched
FROM idgen_copy_back b;
-- a negative int8 on the wire is not an idgen
CREATE TABLE bigint_copy (v bigint);
INSERT INTO bigint_copy VALUES (-1);
COPY bigint_copy TO :'bigint_bin' (FORMAT binary);
COPY idgen_copy_back FROM :'bigint_bin' (FORMAT binary);
-- nor are 4 bytes
CREATE TABLE int_copy (v integer);
INSERT INTO int_copy VALUES (1);
COPY int_copy TO :'int_bin' (FORMAT binary);
COPY idgen_copy_back FROM :'int_bin' (FORMAT binary);
-- a non-negative int8 is
TRUNCATE bigint_copy;
INSERT INTO bigint_copy VALUES (0), (9223372036854775807);
COPY bigint_copy TO :'bigint_bin' (FORMAT binary);
TRUNCATE idgen_copy_back;
COPY idgen_copy_back FROM :'bigint_bin' (FORMAT binary);
SELECT id FROM idgen_copy_back ORDER BY id;
DROP TABLE idgen_copy, idgen_copy_back, bigint_copy, int_copy;

--
-- Casts
--
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod
FROM pg_cast
WHERE castsource = 'idgen'::regtype OR casttarget = 'idgen'::regtype
ORDER BY castsource::regtype::text COLLATE "C", casttarget::regtype::text COLLATE "C";

-- idgen -> bigint is implicit: arithmetic and bigint functions just work
SELECT pg_typeof('5'::idgen + 1) AS plus_type, '5'::idgen + 1 AS plus,
       abs('9223372036854775807'::idgen) AS abs_max,
       '9223372036854775807'::idgen::bigint AS as_bigint;
-- explicit casts from bigint and integer
SELECT 42::bigint::idgen AS from_bigint, 42::idgen AS from_integer,
       9223372036854775807::bigint::idgen AS from_bigint_max,
       2147483647::idgen AS from_int_max, 0::idgen AS from_zero;
-- negatives are refused with 22003
SELECT (-1)::bigint::idgen;
SELECT (-9223372036854775808)::bigint::idgen;
SELECT (-1)::integer::idgen;
SELECT (-2147483648)::idgen;
-- bigint/integer -> idgen is an assignment cast: INSERT and UPDATE use it
CREATE TABLE idgen_assign (id idgen);
INSERT INTO idgen_assign VALUES (7), (8::bigint), ('9');
INSERT INTO idgen_assign VALUES (-1);
INSERT INTO idgen_assign VALUES (-1::bigint);
UPDATE idgen_assign SET id = id::bigint + 10 WHERE id = 7;
SELECT id FROM idgen_assign ORDER BY id;
DROP TABLE idgen_assign;
-- ... but not implicit: no bigint argument silently becomes an idgen
SELECT idgen_timestamp(42::bigint);
SELECT idgen_timestamp(42);

--
-- Operators
--
-- every comparison is declared for idgen/idgen and across bigint and integer
SELECT oprleft::regtype AS left, oprright::regtype AS right,
       string_agg(oprname, ' ' ORDER BY oprname) AS operators,
       bool_and(oprcom <> 0 AND oprnegate <> 0) AS have_commutator_and_negator,
       bool_and(oprcanhash) FILTER (WHERE oprname = '=') AS eq_hashes,
       bool_and(oprcanmerge) FILTER (WHERE oprname = '=') AS eq_merges
FROM pg_operator
WHERE oprleft = 'idgen'::regtype OR oprright = 'idgen'::regtype
GROUP BY oprleft, oprright
ORDER BY oprleft::regtype::text COLLATE "C", oprright::regtype::text COLLATE "C";

-- truth tables: 1 vs 2, 2 vs 2, 3 vs 2 in every type combination
SELECT 'idgen/idgen' AS types, a, b, a = b AS eq, a <> b AS ne, a < b AS lt,
       a <= b AS le, a > b AS gt, a >= b AS ge
FROM (VALUES (1::idgen, 2::idgen), (2::idgen, 2::idgen), (3::idgen, 2::idgen)) AS t(a, b);
SELECT 'idgen/bigint' AS types, a, b, a = b AS eq, a <> b AS ne, a < b AS lt,
       a <= b AS le, a > b AS gt, a >= b AS ge
FROM (VALUES (1::idgen, 2::bigint), (2::idgen, 2::bigint), (3::idgen, 2::bigint)) AS t(a, b);
SELECT 'bigint/idgen' AS types, a, b, a = b AS eq, a <> b AS ne, a < b AS lt,
       a <= b AS le, a > b AS gt, a >= b AS ge
FROM (VALUES (1::bigint, 2::idgen), (2::bigint, 2::idgen), (3::bigint, 2::idgen)) AS t(a, b);
SELECT 'idgen/integer' AS types, a, b, a = b AS eq, a <> b AS ne, a < b AS lt,
       a <= b AS le, a > b AS gt, a >= b AS ge
FROM (VALUES (1::idgen, 2::integer), (2::idgen, 2::integer), (3::idgen, 2::integer)) AS t(a, b);
SELECT 'integer/idgen' AS types, a, b, a = b AS eq, a <> b AS ne, a < b AS lt,
       a <= b AS le, a > b AS gt, a >= b AS ge
FROM (VALUES (1::integer, 2::idgen), (2::integer, 2::idgen), (3::integer, 2::idgen)) AS t(a, b);
-- beyond the range of integer, and at the top of the range
SELECT '5000000000'::idgen > 2147483647 AS above_int_max,
       2147483647 < '5000000000'::idgen AS int_below,
       '9223372036854775807'::idgen = 9223372036854775807::bigint AS max_eq_bigint,
       '9223372036854775807'::idgen > '9223372036854775806'::idgen AS max_gt,
       '0'::idgen > -1 AS zero_gt_minus_one_int,
       '0'::idgen > (-1)::bigint AS zero_gt_minus_one_bigint;
-- the parser picks idgen's own operators, not int8's through the implicit cast
CREATE VIEW idgen_ops_used AS
SELECT '1'::idgen = '2'::idgen AS a, '1'::idgen = 2::bigint AS b, 1::bigint = '2'::idgen AS c,
       '1'::idgen = 2 AS d, 1 = '2'::idgen AS e, '1'::idgen < '2' AS f;
SELECT DISTINCT o.oprleft::regtype::text COLLATE "C" AS left, o.oprright::regtype::text COLLATE "C" AS right,
       o.oprname, o.oprnamespace::regnamespace AS schema
FROM pg_depend d JOIN pg_operator o ON o.oid = d.refobjid
WHERE d.classid = 'pg_rewrite'::regclass
  AND d.objid = (SELECT oid FROM pg_rewrite WHERE ev_class = 'idgen_ops_used'::regclass)
  AND d.refclassid = 'pg_operator'::regclass
ORDER BY 1, 2, 3;
DROP VIEW idgen_ops_used;

--
-- Indexes: force index paths to prove the operator classes are used
--
CREATE TABLE idgen_idx (id idgen NOT NULL, v integer);
INSERT INTO idgen_idx SELECT g * 10, g FROM generate_series(0, 9999) g;
CREATE INDEX idgen_idx_btree ON idgen_idx (id);
VACUUM ANALYZE idgen_idx;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- the operator classes are complete in the eyes of their access methods
SELECT amname, opcname, amvalidate(c.oid) AS valid
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE opcintype = 'idgen'::regtype
ORDER BY amname, opcname;

-- btree, same type and across types
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id = '420';
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id = 420;
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id = 420::bigint;
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE 420 = id;
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE 420::bigint = id;
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id >= 100 AND id < 200::bigint;
SELECT v FROM idgen_idx WHERE id = '420';
SELECT v FROM idgen_idx WHERE id = 420;
SELECT v FROM idgen_idx WHERE id = 420::bigint;
SELECT v FROM idgen_idx WHERE 420 = id;
SELECT v FROM idgen_idx WHERE 420::bigint = id;
SELECT count(*) FROM idgen_idx WHERE id = 421;
SELECT v FROM idgen_idx WHERE id >= 100 AND id < 200::bigint ORDER BY id;
SELECT count(*) FROM idgen_idx WHERE id > 99000 AND id <= '99990';
SELECT count(*) FROM idgen_idx WHERE id <> 0;
-- ordered scans come straight from the index
EXPLAIN (COSTS OFF) SELECT id FROM idgen_idx ORDER BY id DESC LIMIT 3;
SELECT id FROM idgen_idx ORDER BY id DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT min(id), max(id) FROM idgen_idx;
SELECT min(id), max(id) FROM idgen_idx;
-- an IN list becomes one index scan with an array
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id IN ('10', '20', '30');
SELECT v FROM idgen_idx WHERE id IN ('10', '20', '30') ORDER BY v;
-- the btree deduplicates, which btequalimage allows
SELECT amproc::regproc FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
WHERE f.opfname = 'idgen_ops' AND p.amprocnum = 4;
-- a unique index refuses duplicates, across spellings of the same value
CREATE TABLE idgen_unique (id idgen PRIMARY KEY);
INSERT INTO idgen_unique VALUES ('42');
INSERT INTO idgen_unique VALUES (42);
INSERT INTO idgen_unique VALUES ('00042');
DROP TABLE idgen_unique;
DROP INDEX idgen_idx_btree;

-- hash
CREATE INDEX idgen_idx_hash ON idgen_idx USING hash (id);
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id = '420';
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id = 420::bigint;
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id = 420;
SELECT v FROM idgen_idx WHERE id = '420';
SELECT v FROM idgen_idx WHERE id = 420::bigint;
SELECT v FROM idgen_idx WHERE id = 420;
SELECT count(*) FROM idgen_idx WHERE id = 425;
-- equal values hash alike in every type of the family
SELECT idgen_hash('5000000000') = hashint8(5000000000) AS hash_as_int8,
       idgen_hash('42') = hashint4(42) AS hash_as_int4,
       idgen_hash_extended('5000000000', 7) = hashint8extended(5000000000, 7) AS ext_as_int8,
       idgen_hash_extended('42', 7) = hashint4extended(42, 7) AS ext_as_int4;
DROP INDEX idgen_idx_hash;

-- BRIN (bitmap scans only)
CREATE INDEX idgen_idx_brin ON idgen_idx USING brin (id) WITH (pages_per_range = 1);
RESET enable_bitmapscan;
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id = '420';
EXPLAIN (COSTS OFF) SELECT v FROM idgen_idx WHERE id BETWEEN '1000' AND '1100';
SELECT v FROM idgen_idx WHERE id = '420';
SELECT count(*), min(v), max(v) FROM idgen_idx WHERE id BETWEEN '1000' AND '1100';
SELECT count(*) FROM idgen_idx WHERE id > '99900';
-- across types too, as the btree and hash indexes do
SELECT idgen_plan_has('SELECT v FROM idgen_idx WHERE id = 420', 'Bitmap Index Scan on idgen_idx_brin') AS brin_integer,
       idgen_plan_has('SELECT v FROM idgen_idx WHERE id >= 1000::bigint AND id <= 1100::bigint',
                      'Bitmap Index Scan on idgen_idx_brin') AS brin_bigint;
SELECT count(*) FROM idgen_idx WHERE id >= 1000::bigint AND id <= 1100;
DROP INDEX idgen_idx_brin;
RESET enable_seqscan;

-- hash partitioning uses the extended hash
CREATE TABLE idgen_part (id idgen) PARTITION BY HASH (id);
CREATE TABLE idgen_part_0 PARTITION OF idgen_part FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE idgen_part_1 PARTITION OF idgen_part FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO idgen_part SELECT id FROM idgen_idx;
SELECT (SELECT count(*) FROM idgen_part_0) > 0 AS part_0_used,
       (SELECT count(*) FROM idgen_part_1) > 0 AS part_1_used,
       (SELECT count(*) FROM idgen_part) AS total;
EXPLAIN (COSTS OFF) SELECT * FROM idgen_part WHERE id = '420';
DROP TABLE idgen_part;

--
-- Sorting
--
-- numeric order, not text order; sortsupport does the work
CREATE TABLE idgen_sort (id idgen);
INSERT INTO idgen_sort VALUES ('100'), ('9'), ('10'), ('9223372036854775807'), ('0'),
                              ('4194304'), ('1'), (NULL), ('99');
SELECT id FROM idgen_sort ORDER BY id;
SELECT id FROM idgen_sort ORDER BY id DESC NULLS LAST;
SELECT array_agg(id ORDER BY id) AS sorted, min(id), max(id) FROM idgen_sort;
-- a big sort agrees with sorting the same values as bigint
SELECT count(*) AS disagreements
FROM (SELECT row_number() OVER (ORDER BY id) AS r1,
             row_number() OVER (ORDER BY id::bigint) AS r2, id
      FROM (SELECT ((g * 7919) % 100003)::idgen AS id FROM generate_series(1, 100003) g) s) t
WHERE r1 <> r2;
SELECT count(*) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev
      FROM (SELECT (((g::bigint * 2654435761) % 1000000007) << 30)::idgen AS id
            FROM generate_series(1, 50000) g) s) t
WHERE id < prev OR id::bigint < prev::bigint;
-- DISTINCT and GROUP BY use the type's equality
SELECT count(DISTINCT id) AS distinct_ids FROM (SELECT (g % 13)::idgen AS id FROM generate_series(1, 1000) g) s;
SELECT id, count(*) FROM (SELECT (g % 3)::idgen AS id FROM generate_series(1, 9) g) s GROUP BY id ORDER BY id;
DROP TABLE idgen_sort;

--
-- Joins
--
CREATE TABLE idgen_j1 (id idgen, v integer);
CREATE TABLE idgen_j2 (id idgen, w integer);
CREATE TABLE idgen_jb (b bigint, x integer);
INSERT INTO idgen_j1 SELECT g * 2, g FROM generate_series(1, 5000) g;
INSERT INTO idgen_j2 SELECT g * 3, g FROM generate_series(1, 5000) g;
INSERT INTO idgen_jb SELECT g * 5, g FROM generate_series(1, 5000) g;
ANALYZE idgen_j1, idgen_j2, idgen_jb;
SET enable_nestloop = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM idgen_j1 a JOIN idgen_j2 b ON a.id = b.id;
SELECT count(*), min(a.id), max(a.id) FROM idgen_j1 a JOIN idgen_j2 b ON a.id = b.id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.b;
SELECT count(*), min(a.id), max(a.id) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.b;
-- and with integer
SELECT idgen_plan_has('SELECT count(*) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.x', 'Hash Join') AS hash_join_integer;
SELECT count(*), min(a.id), max(a.id) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.x;
RESET enable_mergejoin;
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM idgen_j1 a JOIN idgen_j2 b ON a.id = b.id;
SELECT count(*), min(a.id), max(a.id) FROM idgen_j1 a JOIN idgen_j2 b ON a.id = b.id;
-- a merge join across types sorts each side in the idgen_ops family
SELECT idgen_plan_has('SELECT count(*) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.b', 'Merge Join') AS merge_join_bigint,
       idgen_plan_has('SELECT count(*) FROM idgen_j1 a JOIN idgen_jb c ON c.b = a.id', 'Merge Join') AS merge_join_bigint_commuted,
       idgen_plan_has('SELECT count(*) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.x', 'Merge Join') AS merge_join_integer;
SELECT count(*), min(a.id), max(a.id) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.b;
SELECT count(*), min(a.id), max(a.id) FROM idgen_j1 a JOIN idgen_jb c ON a.id = c.x;
RESET enable_hashjoin;
RESET enable_nestloop;
-- every plan gives the same answer
SELECT count(*) FROM idgen_j1 a JOIN idgen_j2 b ON a.id::bigint = b.id::bigint;
SELECT count(*) FROM idgen_j1 a JOIN idgen_jb c ON a.id::bigint = c.b;
SELECT count(*) FROM idgen_j1 a JOIN idgen_jb c ON a.id::bigint = c.x;
DROP TABLE idgen_j1, idgen_j2, idgen_jb;
DROP TABLE idgen_idx;

--
-- Decoding constructed IDs
-- layout: 41-bit ms since 2025-01-01 UTC | 3-bit region | 7-bit worker | 12-bit seq
-- The IDs of times before 2026-01-01 (ms < 31536000000) are the range space
-- of idgen_lease_range(): no node generates them, so they decode to no time,
-- node or sequence.  The IDs built here lie at or after 2026-01-01; the range
-- space has a block of its own below.
--
-- the first ID outside the range space: ms 31536000000 (2026-01-01), all else 0
SELECT 31536000000::bigint << 22 AS first_id_of_2026,
       (31536000000::bigint << 22) = idgen.range_space_end()::bigint AS is_range_space_end,
       (31536000000::bigint << 22) = idgen_min_at('2026-01-01 00:00:00+00')::bigint AS is_min_at_2026;
SELECT * FROM idgen_decode('132271570944000000'::idgen);
SELECT * FROM idgen_decode('9223372036854775807'::idgen);
-- ms 31536001000 (2026-01-01 00:00:01), region 5, worker 100, seq 4000:
-- 31536001000 << 22 | 5 << 19 | 100 << 12 | 4000 = 132271575141339040
SELECT * FROM idgen_decode('132271575141339040'::idgen);
SELECT ((31536001000::bigint << 22) | (5 << 19) | (100 << 12) | 4000) = 132271575141339040 AS layout_arithmetic;
SELECT idgen_timestamp('132271575141339040'::idgen), idgen_timestamp('132271570944000000'::idgen),
       idgen_timestamp('9223372036854775807'::idgen);
-- one field at a time, on top of the first ID of 2026
SELECT label, (idgen_decode((132271570944000000 + v)::idgen)).*
FROM (VALUES ('seq 1', 1), ('seq 4095', 4095), ('worker 1', 4096),
             ('worker 127', 520192), ('region 1', 524288), ('region 7', 3670016),
             ('ms 1', 4194304), ('ms 1234', 5175771136)) AS t(label, v);
-- compose from fields, decode, and get the same fields back
CREATE TABLE idgen_fields AS
SELECT ms, region, worker, seq,
       ((ms << 22) | (region::bigint << 19) | (worker::bigint << 12) | seq)::idgen AS id
FROM (VALUES (31536000000::bigint, 0, 0, 0), (31536000001, 1, 1, 1), (31622400000, 3, 64, 2048),
             (63072000000, 7, 127, 4095), (1234567890123, 2, 17, 99),
             (2199023255551, 7, 127, 4095), (2199023255551, 0, 0, 0)) AS f(ms, region, worker, seq);
SELECT count(*) AS ids,
       count(*) FILTER (WHERE d.region <> f.region OR d.worker <> f.worker OR d.seq <> f.seq
                           OR d.epoch <> 1
                           OR d.ts <> '2025-01-01 00:00:00+00'::timestamptz + f.ms * interval '1 millisecond'
                           OR idgen_timestamp(f.id) <> d.ts
                           OR d IS NULL OR d.ts IS NULL) AS mismatches
FROM idgen_fields f, idgen_decode(f.id) d;
DROP TABLE idgen_fields;
-- the same over many IDs spread across the whole range: those of times
-- before 2026 decode as range-space IDs, the others to their fields
SELECT count(*) FILTER (WHERE f.ms < 31536000000) AS range_space_ids,
       count(*) FILTER (WHERE f.ms >= 31536000000) AS generator_space_ids,
       count(*) FILTER (WHERE (d.ts, d.region, d.worker, d.seq, d.epoch) IS DISTINCT FROM
                              (CASE WHEN f.ms < 31536000000 THEN (NULL::timestamptz, NULL::integer, NULL::integer,
                                                                  NULL::integer, 0)
                                    ELSE ('2025-01-01 00:00:00+00'::timestamptz + f.ms * interval '1 millisecond',
                                          f.region, f.worker, f.seq, 1) END)
                           OR idgen_timestamp(f.id) IS DISTINCT FROM d.ts) AS mismatches
FROM (SELECT g, ms, region, worker, seq,
             ((ms << 22) | (region::bigint << 19) | (worker::bigint << 12) | seq)::idgen AS id
      FROM (SELECT g, ((g::bigint * 1000000007) % 2199023255552) AS ms,
                   g % 8 AS region, (g * 31) % 128 AS worker, (g * 977) % 4096 AS seq
            FROM generate_series(0, 9999) g) s) f,
     LATERAL idgen_decode(f.id) d;

--
-- Range-space IDs: below idgen.range_space_end(), the IDs of times before
-- 2026-01-01, which idgen_lease_range() hands out as numeric blocks.  They
-- decode with epoch 0 and no time, region, worker or sequence.
--
SELECT label, v, (idgen_decode(v::idgen)).*, idgen_timestamp(v::idgen) AS ts_of_id
FROM (VALUES ('zero', '0'), ('one', '1'), ('seq 4095 of ms 0', '4095'), ('worker 1 of ms 0', '4096'),
             ('region 7 of ms 0', '3670016'), ('ms 1', '4194304'),
             ('ms 1000, region 5, worker 100, seq 4000', '4197339040'),
             ('ms 1234', '5175771136'),
             ('last ID of 2025', '132271570943999999')) AS t(label, v);
-- the boundary, from both sides
SELECT (idgen_decode((idgen.range_space_end()::bigint - 1)::idgen)).epoch AS epoch_below,
       idgen_timestamp((idgen.range_space_end()::bigint - 1)::idgen) AS ts_below,
       (idgen_decode(idgen.range_space_end())).epoch AS epoch_at,
       idgen_timestamp(idgen.range_space_end()) AS ts_at;
-- idgen_min_at / idgen_max_at still bound the IDs of a millisecond of 2025,
-- which are range-space IDs
SELECT idgen_min_at('2025-06-01 00:00:00+00') AS min_at, idgen_max_at('2025-06-01 00:00:00+00') AS max_at,
       idgen_max_at('2025-06-01 00:00:00+00') < idgen.range_space_end() AS below_range_space_end,
       (idgen_decode(idgen_min_at('2025-06-01 00:00:00+00'))).epoch AS min_at_epoch;

--
-- idgen_min_at / idgen_max_at
--
SELECT t, idgen_min_at(t) AS min_at, idgen_max_at(t) AS max_at
FROM (VALUES ('2025-01-01 00:00:00+00'::timestamptz),
             ('2025-01-01 00:00:00.000999+00'),
             ('2025-01-01 00:00:00.001+00'),
             ('2025-01-01 00:00:00.0019+00'),
             ('2025-01-01 00:00:01.234+00'),
             ('2025-01-01 02:00:01.234+02'),
             ('2094-09-07 15:47:35.551+00'),
             ('2094-09-07 15:47:35.551999+00')) AS v(t);
-- clamped at both ends: before the epoch, past the horizon, infinities
SELECT t, idgen_min_at(t) AS min_at, idgen_max_at(t) AS max_at
FROM (VALUES ('-infinity'::timestamptz),
             ('4713-11-24 00:00:00+00 BC'),
             ('1970-01-01 00:00:00+00'),
             ('1969-12-31 23:59:59.999+00'),
             ('2024-12-31 23:59:59.999999+00'),
             ('2094-09-07 15:47:35.552+00'),
             ('3000-01-01 00:00:00+00'),
             ('294276-12-31 23:59:59.999999+00'),
             ('infinity')) AS v(t);
-- the bounds of one millisecond hold every ID of it and nothing else:
-- min_at(t) <= id <= max_at(t) for each ID whose time is t, the bounds
-- decode to t (to no time before 2026: range space), and consecutive
-- milliseconds abut
SELECT count(*) AS ms_tried, count(*) FILTER (WHERE s.ms < 31536000000) AS range_space_ms,
       count(*) FILTER (WHERE
           NOT (b.lo <= i.id AND i.id <= b.hi)
           OR idgen_timestamp(b.lo) IS DISTINCT FROM m.ts_of_ids
           OR idgen_timestamp(b.hi) IS DISTINCT FROM m.ts_of_ids
           OR idgen_timestamp(i.id) IS DISTINCT FROM m.ts_of_ids
           OR (s.ms < 2199023255551 AND b.hi::bigint + 1 <> idgen_min_at(m.t + interval '1 millisecond')::bigint)
           OR (s.ms > 0 AND idgen_max_at(m.t - interval '1 millisecond')::bigint + 1 <> b.lo::bigint)
           OR idgen_min_at(m.t + interval '999 microseconds') <> b.lo
           OR idgen_max_at(m.t + interval '999 microseconds') <> b.hi) AS violations
FROM (SELECT g, g::bigint * 1099511627 % 2199023255552 AS ms
      FROM generate_series(0, 2000) g) s,
     LATERAL (SELECT '2025-01-01 00:00:00+00'::timestamptz + s.ms * interval '1 millisecond' AS t) m0,
     -- the time idgen_timestamp() gives the IDs of t: none before 2026 (range space)
     LATERAL (SELECT m0.t, CASE WHEN m0.t >= '2026-01-01 00:00:00+00' THEN m0.t END AS ts_of_ids) m,
     LATERAL (SELECT idgen_min_at(m.t) AS lo, idgen_max_at(m.t) AS hi) b,
     LATERAL (SELECT ((s.ms << 22) | ((s.g % 8)::bigint << 19) | ((s.g % 128)::bigint << 12)
                      | (s.g % 4096))::idgen AS id) i;
-- the whole range: from -infinity to infinity covers every value
SELECT idgen_min_at('-infinity') = '0'::idgen AS from_zero,
       idgen_max_at('infinity') = '9223372036854775807'::idgen AS to_max;

--
-- Comments: every object of the extension says what it is
--
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS uncommented
FROM pg_depend d
LEFT JOIN pg_description c
       ON c.classoid = d.classid AND c.objoid = d.objid AND c.objsubid = 0
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
  AND d.deptype = 'e'
  AND d.classid IN ('pg_proc'::regclass, 'pg_operator'::regclass, 'pg_type'::regclass,
                    'pg_opclass'::regclass, 'pg_opfamily'::regclass, 'pg_cast'::regclass,
                    'pg_class'::regclass, 'pg_namespace'::regclass)
  AND c.description IS NULL
  -- a table's row type and a type's array type are parts of the object
  -- they depend on internally, whose comment they share; 17 and later list
  -- them as members too (see setup)
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT FROM pg_depend i
                       WHERE i.classid = d.classid AND i.objid = d.objid AND i.deptype = 'i'))
ORDER BY pg_describe_object(d.classid, d.objid, d.objsubid) COLLATE "C";

DROP FUNCTION idgen_try_in(text);
DROP FUNCTION idgen_plan_has(text, text);
RESET timezone;
