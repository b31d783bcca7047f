-- idgen128: the 128-bit type, a UUIDv7 that decodes.  Text and binary I/O,
-- casts to and from uuid, operators (also across uuid), index support,
-- sort order, decoding, and generating with idgen_next128() and
-- idgen_next128_batch().  Generated IDs are never printed: only facts
-- about them.
--
-- layout (src/uuid7.h), big-endian bits:
--   0-47 unix ms | 48-51 version 0111 | 52-63 node field, high 12 bits |
--   64-65 variant 10 | 66-75 node field, low 10 bits | 76-79 layout epoch |
--   80-127 random
-- The node field is the 64-bit layout's region | worker | seq (3 | 7 | 12).
SET timezone = 'UTC';

-- helpers: a UUIDv7 composed from its fields, a statement's outcome as
-- text, and whether a plan has a node
CREATE FUNCTION i128_make(unix_ms bigint, node integer, epoch integer, tail bigint)
RETURNS idgen128 LANGUAGE sql IMMUTABLE STRICT AS
$$
SELECT (lpad(to_hex(unix_ms), 12, '0')
        || lpad(to_hex(28672 | (node >> 10)), 4, '0')                    -- 0111 | node high 12
        || lpad(to_hex(32768 | ((node & 1023) << 4) | epoch), 4, '0')    -- 10 | node low 10 | epoch
        || lpad(to_hex(tail), 12, '0'))::idgen128
$$;
CREATE FUNCTION i128_try(query text) RETURNS text LANGUAGE plpgsql AS
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
CREATE FUNCTION i128_plan_has(query text, node text) RETURNS boolean
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

--
-- Text input and output
--
-- a hand-built UUIDv7: 2026-01-01 00:00:01 UTC (unix ms 1767225601000 =
-- 0x19b76daabe8), node field 5 << 19 | 100 << 12 | 4000 = 3035040
-- (high 12 bits 0xb93, low 10 bits 0x3a0), epoch 1, tail 0x0123456789ab
SELECT i128_make(1767225601000, 3035040, 1, x'0123456789ab'::bigint) AS composed,
       i128_make(1767225601000, 3035040, 1, x'0123456789ab'::bigint)
           = '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128 AS is_the_literal;
-- every spelling uuid accepts, idgen128 accepts too, and prints canonically:
-- lowercase, hyphenated, no braces
SELECT label, v::idgen128 AS out, v::idgen128::text = v::uuid::text AS same_as_uuid,
       v::idgen128 = '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128 AS same_value
FROM (VALUES ('canonical', '019b76da-abe8-7b93-ba01-0123456789ab'),
             ('uppercase', '019B76DA-ABE8-7B93-BA01-0123456789AB'),
             ('mixed case', '019b76DA-abe8-7B93-bA01-0123456789Ab'),
             ('braces', '{019b76da-abe8-7b93-ba01-0123456789ab}'),
             ('no hyphens', '019b76daabe87b93ba010123456789ab'),
             ('braces, no hyphens', '{019b76daabe87b93ba010123456789ab}'),
             ('hyphen after every 4 digits', '019b-76da-abe8-7b93-ba01-0123-4567-89ab'),
             ('some hyphens', '019b76daabe8-7b93ba01-0123456789ab')) AS t(label, v);
-- text round trips are exact
SELECT v::idgen128::text = v AS round_trip
FROM (VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'), ('00000000-0000-7000-8000-000000000000'),
             ('ffffffff-ffff-7fff-bfff-ffffffffffff')) AS t(v);

-- refused: not a UUIDv7, or not a UUID at all; 22P02 and the value quoted
SELECT '6ba7b810-9dad-41d1-80b4-00c04fd430c8'::idgen128;
SELECT '019b76da-abe8-7b93-ca01-0123456789ab'::idgen128;
SELECT 'not a uuid'::idgen128;
SELECT '019b76da-abe8-7b93-ba01-0123456789a'::idgen128;
SELECT label, i128_try(format('SELECT %L::idgen128::text', v)) AS result
FROM (VALUES
    ('version 4', '6ba7b810-9dad-41d1-80b4-00c04fd430c8'),
    ('version 1', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
    ('version 6', '1ec9414c-232a-6b00-b3c8-9e6bdeced846'),
    ('version 8', '019b76da-abe8-8b93-ba01-0123456789ab'),
    ('version f, variant 11 (max)', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
    ('nil', '00000000-0000-0000-0000-000000000000'),
    ('v7, variant 0 (NCS)', '019b76da-abe8-7b93-3a01-0123456789ab'),
    ('v7, variant 110 (Microsoft)', '019b76da-abe8-7b93-ca01-0123456789ab'),
    ('v7, variant 111', '019b76da-abe8-7b93-ea01-0123456789ab'),
    ('empty', ''),
    ('garbage', 'not a uuid'),
    ('31 digits', '019b76da-abe8-7b93-ba01-0123456789a'),
    ('33 digits', '019b76da-abe8-7b93-ba01-0123456789abc'),
    ('non-hex digit', '019b76da-abe8-7b93-ba01-0123456789ag'),
    ('leading space', ' 019b76da-abe8-7b93-ba01-0123456789ab'),
    ('trailing space', '019b76da-abe8-7b93-ba01-0123456789ab '),
    ('open brace only', '{019b76da-abe8-7b93-ba01-0123456789ab'),
    ('close brace only', '019b76da-abe8-7b93-ba01-0123456789ab}'),
    ('hyphen inside a pair', '019b76d-aabe8-7b93-ba01-0123456789ab'),
    ('leading hyphen', '-019b76da-abe8-7b93-ba01-0123456789ab'),
    ('trailing hyphen', '019b76da-abe8-7b93-ba01-0123456789ab-'),
    ('double hyphen', '019b76da--abe8-7b93-ba01-0123456789ab'),
    ('urn prefix', 'urn:uuid:019b76da-abe8-7b93-ba01-0123456789ab')
) AS t(label, v);
-- whatever uuid refuses, idgen128 refuses too
SELECT count(*) AS uuid_refuses_but_idgen128_accepts
FROM (VALUES (''), ('not a uuid'), ('019b76da-abe8-7b93-ba01-0123456789a'),
             ('019b76da-abe8-7b93-ba01-0123456789abc'), (' 019b76da-abe8-7b93-ba01-0123456789ab'),
             ('{019b76da-abe8-7b93-ba01-0123456789ab'), ('019b76d-aabe8-7b93-ba01-0123456789ab'),
             ('019b76da--abe8-7b93-ba01-0123456789ab')) AS t(v)
WHERE i128_try(format('SELECT %L::uuid::text', v)) NOT LIKE 'ok: %'
  AND i128_try(format('SELECT %L::idgen128::text', v)) LIKE 'ok: %';
-- a long value appears whole in the message
SELECT length(i128_try(format('SELECT %L::idgen128::text', repeat('7', 5000)))) > 5000
    AS message_quotes_whole_value;
-- NULL in, NULL out
SELECT NULL::idgen128 IS NULL AS null_stays_null;

--
-- Binary I/O: uuid's wire format
--
SELECT idgen128_send(v::idgen128) = uuid_send(v::uuid) AS same_bytes_as_uuid,
       encode(idgen128_send(v::idgen128), 'hex') AS bytes
FROM (VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'), ('00000000-0000-7000-8000-000000000000'),
             ('ffffffff-ffff-7fff-bfff-ffffffffffff')) AS t(v);
-- idgen128_recv through COPY BINARY: a round trip, then values it must refuse
\getenv abs_builddir PG_ABS_BUILDDIR
\set i128_bin :abs_builddir '/results/idgen128_id.data'
\set uuid_bin :abs_builddir '/results/idgen128_uuid.data'
\set int8_bin :abs_builddir '/results/idgen128_int8.data'
CREATE TABLE i128_copy (id idgen128);
INSERT INTO i128_copy VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'), ('00000000-0000-7000-8000-000000000000'),
                             ('ffffffff-ffff-7fff-bfff-ffffffffffff'), (NULL);
INSERT INTO i128_copy SELECT idgen_next128() FROM generate_series(1, 100);
COPY i128_copy TO :'i128_bin' (FORMAT binary);
CREATE TABLE i128_copy_back (id idgen128);
COPY i128_copy_back FROM :'i128_bin' (FORMAT binary);
SELECT count(*) AS rows_back,
       count(*) FILTER (WHERE b.id IS NULL) AS nulls_back,
       (SELECT count(*) FROM i128_copy) AS rows_sent,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM i128_copy c WHERE c.id = b.id)) AS matched
FROM i128_copy_back b;
-- a UUIDv4 on the wire is not an idgen128 (22P03, the value quoted)
CREATE TABLE uuid_copy (v uuid);
INSERT INTO uuid_copy VALUES ('6ba7b810-9dad-41d1-80b4-00c04fd430c8');
COPY uuid_copy TO :'uuid_bin' (FORMAT binary);
COPY i128_copy_back FROM :'uuid_bin' (FORMAT binary);
-- nor are 8 bytes
CREATE TABLE int8_copy (v bigint);
INSERT INTO int8_copy VALUES (1);
COPY int8_copy TO :'int8_bin' (FORMAT binary);
COPY i128_copy_back FROM :'int8_bin' (FORMAT binary);
-- a UUIDv7 sent as uuid is
TRUNCATE uuid_copy, i128_copy_back;
INSERT INTO uuid_copy VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'), ('ffffffff-ffff-7fff-bfff-ffffffffffff');
COPY uuid_copy TO :'uuid_bin' (FORMAT binary);
COPY i128_copy_back FROM :'uuid_bin' (FORMAT binary);
SELECT id FROM i128_copy_back ORDER BY id;
DROP TABLE i128_copy, i128_copy_back, uuid_copy, int8_copy;

--
-- Casts
--
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod
FROM pg_cast
WHERE castsource = 'idgen128'::regtype OR casttarget = 'idgen128'::regtype
ORDER BY castsource::regtype::text COLLATE "C", casttarget::regtype::text COLLATE "C";
-- idgen128 -> uuid is implicit: uuid columns and functions take it as is
CREATE TABLE i128_uuid_col (u uuid);
INSERT INTO i128_uuid_col VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'::idgen128);
SELECT u, pg_typeof(u) FROM i128_uuid_col;
SELECT uuid_send('019b76da-abe8-7b93-ba01-0123456789ab'::idgen128) = idgen128_send('019b76da-abe8-7b93-ba01-0123456789ab')
    AS uuid_function_takes_idgen128;
SELECT ARRAY['019b76da-abe8-7b93-ba01-0123456789ab'::idgen128]::uuid[] AS as_uuid_array;
DROP TABLE i128_uuid_col;
-- uuid -> idgen128 is explicit, and checks version and variant
SELECT '019b76da-abe8-7b93-ba01-0123456789ab'::uuid::idgen128 AS from_uuid,
       CAST('ffffffff-ffff-7fff-bfff-ffffffffffff'::uuid AS idgen128) AS from_uuid_max,
       idgen128('00000000-0000-7000-8000-000000000000'::uuid) AS cast_function;
SELECT '6ba7b810-9dad-41d1-80b4-00c04fd430c8'::uuid::idgen128;
SELECT label, i128_try(format('SELECT %L::uuid::idgen128::text', v)) AS result
FROM (VALUES ('version 4', '6ba7b810-9dad-41d1-80b4-00c04fd430c8'),
             ('nil', '00000000-0000-0000-0000-000000000000'),
             ('v7, variant 110', '019b76da-abe8-7b93-ca01-0123456789ab')) AS t(label, v);
-- a random UUID (version 4) never passes
\set VERBOSITY sqlstate
SELECT gen_random_uuid()::idgen128;
\set VERBOSITY default
SELECT count(*) FILTER (WHERE i128_try('SELECT gen_random_uuid()::idgen128::text') LIKE '22023: uuid "%" is not a UUIDv7, so it cannot be cast to idgen128')
    AS random_uuids_refused
FROM generate_series(1, 100);
-- ... but is not implicit, nor an assignment cast
CREATE TABLE i128_col (id idgen128);
INSERT INTO i128_col VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'::uuid);
INSERT INTO i128_col VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'::uuid::idgen128);
SELECT idgen_timestamp('019b76da-abe8-7b93-ba01-0123456789ab'::uuid);
DROP TABLE i128_col;
-- text casts go through the I/O functions
SELECT '019B76DA-ABE8-7B93-BA01-0123456789AB'::text::idgen128 AS from_text,
       '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128::text AS to_text,
       pg_typeof('019b76da-abe8-7b93-ba01-0123456789ab'::idgen128::varchar) AS to_varchar;

--
-- Operators
--
-- every comparison is declared for idgen128/idgen128 and across uuid
SELECT oprleft::regtype AS left, oprright::regtype AS right,
       string_agg(oprname, ' ' ORDER BY oprname) AS operators,
       bool_and(oprcom <> 0 AND oprnegate <> 0) AS have_commutator_and_negator,
       bool_and(oprcanhash) FILTER (WHERE oprname = '=') AS eq_hashes,
       bool_and(oprcanmerge) FILTER (WHERE oprname = '=') AS eq_merges
FROM pg_operator
WHERE oprleft = 'idgen128'::regtype OR oprright = 'idgen128'::regtype
GROUP BY oprleft, oprright
ORDER BY oprleft::regtype::text COLLATE "C", oprright::regtype::text COLLATE "C";
-- truth tables: less, equal, greater, in every type combination; the values
-- differ only in the last byte, then only in the first
CREATE TABLE i128_pairs (label text, a text, b text);
INSERT INTO i128_pairs VALUES
    ('last byte <', '019b76da-abe8-7b93-ba01-0123456789aa', '019b76da-abe8-7b93-ba01-0123456789ab'),
    ('equal', '019b76da-abe8-7b93-ba01-0123456789ab', '019b76da-abe8-7b93-ba01-0123456789ab'),
    ('last byte >', '019b76da-abe8-7b93-ba01-0123456789ac', '019b76da-abe8-7b93-ba01-0123456789ab'),
    ('first byte 01 < 81', '019b76da-abe8-7b93-ba01-0123456789ab', '819b76da-abe8-7b93-ba01-0123456789ab'),
    ('first byte 81 > 01', '819b76da-abe8-7b93-ba01-0123456789ab', '019b76da-abe8-7b93-ba01-0123456789ab');
SELECT 'idgen128/idgen128' AS types, label, a::idgen128 = b::idgen128 AS eq, a::idgen128 <> b::idgen128 AS ne,
       a::idgen128 < b::idgen128 AS lt, a::idgen128 <= b::idgen128 AS le,
       a::idgen128 > b::idgen128 AS gt, a::idgen128 >= b::idgen128 AS ge
FROM i128_pairs;
SELECT 'idgen128/uuid' AS types, label, a::idgen128 = b::uuid AS eq, a::idgen128 <> b::uuid AS ne,
       a::idgen128 < b::uuid AS lt, a::idgen128 <= b::uuid AS le,
       a::idgen128 > b::uuid AS gt, a::idgen128 >= b::uuid AS ge
FROM i128_pairs;
SELECT 'uuid/idgen128' AS types, label, a::uuid = b::idgen128 AS eq, a::uuid <> b::idgen128 AS ne,
       a::uuid < b::idgen128 AS lt, a::uuid <= b::idgen128 AS le,
       a::uuid > b::idgen128 AS gt, a::uuid >= b::idgen128 AS ge
FROM i128_pairs;
-- the same answers as uuid's own operators
SELECT count(*) AS disagreements_with_uuid
FROM i128_pairs
WHERE (a::idgen128 = b::idgen128) <> (a::uuid = b::uuid) OR (a::idgen128 < b::idgen128) <> (a::uuid < b::uuid)
   OR (a::idgen128 > b::uuid) <> (a::uuid > b::uuid) OR (a::uuid <= b::idgen128) <> (a::uuid <= b::uuid);
DROP TABLE i128_pairs;
-- the parser picks idgen128's own operators, not uuid's through the implicit cast
CREATE VIEW i128_ops_used AS
SELECT '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128 = '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128 AS a,
       '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128 = '019b76da-abe8-7b93-ba01-0123456789ab'::uuid AS b,
       '019b76da-abe8-7b93-ba01-0123456789ab'::uuid < '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128 AS c,
       '019b76da-abe8-7b93-ba01-0123456789ab'::idgen128 >= '019b76da-abe8-7b93-ba01-0123456789ab' AS d;
SELECT DISTINCT o.oprleft::regtype::text COLLATE "C" AS left, o.oprright::regtype::text COLLATE "C" AS right,
       o.oprname, o.oprnamespace::regnamespace AS schema
FROM pg_depend d JOIN pg_operator o ON o.oid = d.refobjid
WHERE d.classid = 'pg_rewrite'::regclass
  AND d.objid = (SELECT oid FROM pg_rewrite WHERE ev_class = 'i128_ops_used'::regclass)
  AND d.refclassid = 'pg_operator'::regclass
ORDER BY 1, 2, 3;
DROP VIEW i128_ops_used;

--
-- Indexes: force index paths to prove the operator classes are used
--
-- 10000 hand-built IDs, one per second from 2026-01-01, with varied node
-- fields and tails; v numbers them in order
CREATE TABLE i128_idx (id idgen128 NOT NULL, v integer);
INSERT INTO i128_idx
SELECT i128_make(1767225600000 + g * 1000, (g * 7919) % 4194304, 1, (g::bigint * 2654435761) % 281474976710656), g
FROM generate_series(0, 9999) g;
SELECT id AS id_42 FROM i128_idx WHERE v = 42 \gset
SELECT id AS id_1000 FROM i128_idx WHERE v = 1000 \gset
SELECT id AS id_1100 FROM i128_idx WHERE v = 1100 \gset
SELECT :'id_42' AS id_42, :'id_1000' AS id_1000, :'id_1100' AS id_1100;
CREATE INDEX i128_idx_btree ON i128_idx (id);
VACUUM ANALYZE i128_idx;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- the operator classes are complete in the eyes of their access methods
SELECT amname, opcname, opcdefault, amvalidate(c.oid) AS valid
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE opcintype = 'idgen128'::regtype
ORDER BY amname, opcname;

-- btree, same type and across uuid
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id = :'id_42';
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id = :'id_42'::uuid;
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE :'id_42'::uuid = id;
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id >= :'id_1000' AND id < :'id_1100'::uuid;
SELECT v FROM i128_idx WHERE id = :'id_42';
SELECT v FROM i128_idx WHERE id = :'id_42'::uuid;
SELECT v FROM i128_idx WHERE :'id_42'::uuid = id;
SELECT count(*), min(v), max(v) FROM i128_idx WHERE id >= :'id_1000' AND id < :'id_1100'::uuid;
SELECT count(*), min(v), max(v) FROM i128_idx WHERE id > :'id_1000'::uuid AND :'id_1100'::uuid >= id;
SELECT count(*) FROM i128_idx WHERE id = '019b76da-abe8-7b93-ba01-0123456789ab';
-- ordered scans come straight from the index
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx ORDER BY id DESC LIMIT 3;
SELECT v FROM i128_idx ORDER BY id DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id > :'id_1000' ORDER BY id LIMIT 3;
SELECT v FROM i128_idx WHERE id > :'id_1000' ORDER BY id LIMIT 3;
-- the index order is the order of the times the IDs were built from
SELECT count(*) AS rows, count(*) FILTER (WHERE r - 1 <> v) AS out_of_order
FROM (SELECT v, row_number() OVER (ORDER BY id) AS r FROM i128_idx) s;
-- the btree deduplicates, which btequalimage allows
SELECT amproc::regproc FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
WHERE f.opfname = 'idgen128_ops' AND p.amprocnum = 4;
-- a unique index refuses duplicates, across spellings of the same value
CREATE TABLE i128_unique (id idgen128 PRIMARY KEY);
INSERT INTO i128_unique VALUES ('019b76da-abe8-7b93-ba01-0123456789ab');
INSERT INTO i128_unique VALUES ('{019B76DAABE87B93BA010123456789AB}');
INSERT INTO i128_unique VALUES ('019b76da-abe8-7b93-ba01-0123456789ab'::uuid::idgen128);
DROP TABLE i128_unique;
DROP INDEX i128_idx_btree;

-- hash
CREATE INDEX i128_idx_hash ON i128_idx USING hash (id);
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id = :'id_42';
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id = :'id_42'::uuid;
SELECT v FROM i128_idx WHERE id = :'id_42';
SELECT v FROM i128_idx WHERE id = :'id_42'::uuid;
SELECT count(*) FROM i128_idx WHERE id = '019b76da-abe8-7b93-ba01-0123456789ab';
-- equal values hash alike as idgen128 and as uuid
SELECT count(*) FILTER (WHERE idgen128_hash(id) = uuid_hash(id::uuid)) AS hash_as_uuid,
       count(*) FILTER (WHERE idgen128_hash_extended(id, 7) = uuid_hash_extended(id::uuid, 7)) AS ext_as_uuid
FROM i128_idx;
DROP INDEX i128_idx_hash;

-- BRIN (bitmap scans only)
CREATE INDEX i128_idx_brin ON i128_idx USING brin (id) WITH (pages_per_range = 1);
RESET enable_bitmapscan;
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id = :'id_42';
EXPLAIN (COSTS OFF) SELECT v FROM i128_idx WHERE id BETWEEN :'id_1000' AND :'id_1100';
SELECT v FROM i128_idx WHERE id = :'id_42';
SELECT count(*), min(v), max(v) FROM i128_idx WHERE id BETWEEN :'id_1000' AND :'id_1100';
DROP INDEX i128_idx_brin;
RESET enable_seqscan;

-- hash partitioning uses the extended hash
CREATE TABLE i128_part (id idgen128) PARTITION BY HASH (id);
CREATE TABLE i128_part_0 PARTITION OF i128_part FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE i128_part_1 PARTITION OF i128_part FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO i128_part SELECT id FROM i128_idx;
SELECT (SELECT count(*) FROM i128_part_0) > 0 AS part_0_used,
       (SELECT count(*) FROM i128_part_1) > 0 AS part_1_used,
       (SELECT count(*) FROM i128_part) AS total;
DROP TABLE i128_part;

-- joins with a uuid column, hashed and merged
CREATE TABLE i128_uuids (u uuid, w integer);
INSERT INTO i128_uuids SELECT id, v FROM i128_idx WHERE v % 3 = 0;
ANALYZE i128_idx, i128_uuids;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT i128_plan_has('SELECT count(*) FROM i128_idx a JOIN i128_uuids b ON a.id = b.u', 'Hash Join') AS hash_join;
SELECT count(*), bool_and(a.v = b.w) AS same_rows FROM i128_idx a JOIN i128_uuids b ON a.id = b.u;
RESET enable_mergejoin;
SET enable_hashjoin = off;
SELECT i128_plan_has('SELECT count(*) FROM i128_idx a JOIN i128_uuids b ON a.id = b.u', 'Merge Join') AS merge_join;
SELECT count(*), bool_and(a.v = b.w) AS same_rows FROM i128_idx a JOIN i128_uuids b ON a.id = b.u;
RESET enable_hashjoin;
RESET enable_nestloop;
DROP TABLE i128_uuids;
DROP TABLE i128_idx;

--
-- Sorting: the order of the bytes, exactly as uuid sorts
--
CREATE TABLE i128_sort (id idgen128);
INSERT INTO i128_sort VALUES ('819b76da-abe8-7b93-ba01-0123456789ab'), ('019b76da-abe8-7b93-ba01-0123456789ab'),
                             ('019b76da-abe8-7b93-ba01-0123456789aa'), ('ffffffff-ffff-7fff-bfff-ffffffffffff'),
                             ('00000000-0000-7000-8000-000000000000'), (NULL),
                             ('019b76da-abe8-7b93-bb01-0123456789aa'), ('019b76da-abe8-7b94-8001-0123456789aa');
SELECT id FROM i128_sort ORDER BY id;
SELECT id FROM i128_sort ORDER BY id DESC NULLS LAST;
SELECT (array_agg(id ORDER BY id))[1] AS lowest, (array_agg(id ORDER BY id DESC))[1] AS highest
FROM i128_sort WHERE id IS NOT NULL;
DROP TABLE i128_sort;
-- a big sort (sortsupport, abbreviated keys) agrees with uuid's order and
-- with the order of the bytes; times spread over all 48 bits, so the first
-- byte takes values above 0x7f too
SELECT count(*) AS ids,
       count(*) FILTER (WHERE r_id <> r_uuid) AS disagreements_with_uuid,
       count(*) FILTER (WHERE r_id <> r_bytes) AS disagreements_with_bytes,
       count(*) FILTER (WHERE get_byte(idgen128_send(id), 0) >= 128) AS first_byte_above_7f
FROM (SELECT id, row_number() OVER (ORDER BY id) AS r_id,
             row_number() OVER (ORDER BY id::uuid) AS r_uuid,
             row_number() OVER (ORDER BY idgen128_send(id)) AS r_bytes
      FROM (SELECT i128_make((g::bigint * 98765432109) % 281474976710656, (g * 7919) % 4194304,
                             1 + g % 15, (g::bigint * 2654435761) % 281474976710656) AS id
            FROM generate_series(1, 100000) g) s) t;
-- DISTINCT and GROUP BY use the type's equality
SELECT count(DISTINCT id) AS distinct_ids
FROM (SELECT i128_make(1767225600000 + g % 13, 0, 1, 0) AS id FROM generate_series(1, 1000) g) s;

--
-- Decoding constructed IDs
--
SELECT * FROM idgen_decode('019b76da-abe8-7b93-ba01-0123456789ab'::idgen128);
SELECT idgen_timestamp('019b76da-abe8-7b93-ba01-0123456789ab'::idgen128);
-- one field at a time, on top of 2026-01-01 00:00:00 UTC
SELECT label, id, (idgen_decode(id)).*
FROM (VALUES ('all zero', i128_make(1767225600000, 0, 0, 0)),
             ('seq 1', i128_make(1767225600000, 1, 1, 0)),
             ('seq 1023 (node low bits)', i128_make(1767225600000, 1023, 1, 0)),
             ('seq 1024 (node high bits)', i128_make(1767225600000, 1024, 1, 0)),
             ('seq 4095', i128_make(1767225600000, 4095, 1, 0)),
             ('worker 1', i128_make(1767225600000, 4096, 1, 0)),
             ('worker 127', i128_make(1767225600000, 127 << 12, 1, 0)),
             ('region 1', i128_make(1767225600000, 1 << 19, 1, 0)),
             ('region 7', i128_make(1767225600000, 7 << 19, 1, 0)),
             ('epoch 15', i128_make(1767225600000, 0, 15, 0)),
             ('tail all ones', i128_make(1767225600000, 0, 1, 281474976710655)),
             ('ms 1', i128_make(1767225600001, 0, 1, 0)),
             ('unix ms 0', i128_make(0, 0, 1, 0)),
             ('unix ms 2^48 - 1', i128_make(281474976710655, 4194303, 15, 281474976710655))) AS t(label, id);
-- compose from fields, decode, and get the same fields back, over many IDs
SELECT count(*) AS ids,
       count(*) FILTER (WHERE d.region <> f.node >> 19 OR d.worker <> (f.node >> 12) & 127
                           OR d.seq <> f.node & 4095 OR d.epoch <> f.epoch
                           OR extract(epoch FROM d.ts) * 1000 <> f.ms OR idgen_timestamp(f.id) <> d.ts
                           OR d.ts IS NULL) AS mismatches
FROM (SELECT ms, node, epoch, i128_make(ms, node, epoch, tail) AS id
      FROM (SELECT (g::bigint * 1000000007) % 281474976710656 AS ms, (g * 7919) % 4194304 AS node,
                   g % 16 AS epoch, (g::bigint * 2654435761) % 281474976710656 AS tail
            FROM generate_series(0, 9999) g) s) f,
     LATERAL idgen_decode(f.id) d;

--
-- Generating: idgen_next128()
--
-- 10000 IDs in one statement, in row order: strictly ascending, distinct,
-- every one version 7 and variant 10
CREATE TEMP TABLE gen128 AS
SELECT g AS n, idgen_next128() AS id FROM generate_series(1, 10000) AS g;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS not_ascending,
       count(*) FILTER (WHERE id IS NULL) AS nulls,
       count(*) FILTER (WHERE substr(id::text, 15, 1) = '7') AS version_7,
       count(*) FILTER (WHERE substr(id::text, 20, 1) IN ('8', '9', 'a', 'b')) AS variant_10
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM gen128) s;
-- ascending across statements too
DO $$
DECLARE
    prev idgen128 := idgen_next128();
    cur idgen128;
    bad integer := 0;
BEGIN
    FOR i IN 1 .. 10000 LOOP
        cur := idgen_next128();
        IF cur <= prev THEN
            bad := bad + 1;
        END IF;
        prev := cur;
    END LOOP;
    RAISE NOTICE '10000 calls to idgen_next128(): % not above the one before', bad;
END
$$;
SELECT idgen_next128() > (SELECT id FROM gen128 ORDER BY id DESC LIMIT 1) AS next_above_all,
       pg_typeof(idgen_next128()) AS type;

-- what a generated ID is made of: this node's region and workers, epoch 1,
-- and the time it was issued
SELECT count(*) AS ids,
       count(*) FILTER (WHERE d.region = 0) AS region_0,
       count(*) FILTER (WHERE d.worker BETWEEN 0 AND 15) AS worker_0_to_15,
       count(*) FILTER (WHERE d.seq BETWEEN 0 AND 4095) AS seq_in_range,
       count(*) FILTER (WHERE d.epoch = 1) AS epoch_1,
       count(*) FILTER (WHERE d.ts = idgen_timestamp(g.id)) AS ts_agrees,
       count(*) FILTER (WHERE d.ts BETWEEN statement_timestamp() - interval '1 minute'
                                       AND clock_timestamp() + interval '2 seconds') AS ts_is_now
FROM gen128 g, idgen_decode(g.id) d;
-- the time and node field come from the same sequence as idgen_next(): as
-- a 64-bit ID, a 128-bit ID lies strictly between the 64-bit IDs issued
-- just before and just after it
DO $$
DECLARE
    before64 idgen;
    id128 idgen128;
    after64 idgen;
    d record;
    as64 bigint;
    bad integer := 0;
BEGIN
    FOR i IN 1 .. 1000 LOOP
        before64 := idgen_next();
        id128 := idgen_next128();
        after64 := idgen_next();
        SELECT * INTO d FROM idgen_decode(id128);
        as64 := (((extract(epoch FROM d.ts) * 1000)::bigint - 1735689600000) << 22)
                | (d.region::bigint << 19) | (d.worker::bigint << 12) | d.seq;
        IF NOT (before64 < as64 AND as64 < after64) THEN
            bad := bad + 1;
        END IF;
    END LOOP;
    RAISE NOTICE '1000 idgen_next128() between two idgen_next(): % not strictly between them', bad;
END
$$;

-- the 48-bit random tail differs between neighbours, by about half its
-- bits (24 on average), and every one of its bits varies
CREATE TEMP TABLE gen128_tails AS
SELECT n, ('x' || substr(replace(id::text, '-', ''), 21, 12))::bit(48) AS tail FROM gen128;
SELECT count(*) AS neighbour_pairs,
       count(*) FILTER (WHERE tail = prev) AS same_tail,
       avg(bit_count(tail # prev)) BETWEEN 22 AND 26 AS about_24_bits_differ,
       min(bit_count(tail # prev)) >= 4 AS at_least_4_bits_differ_everywhere,
       bit_count(bit_or(tail # prev)) AS tail_bits_that_vary
FROM (SELECT n, tail, lag(tail) OVER (ORDER BY n) AS prev FROM gen128_tails) s
WHERE prev IS NOT NULL;
-- neighbours from different calls too
SELECT count(*) FILTER (WHERE bit_count(a # b) >= 4) AS differ_in_4_or_more_tail_bits
FROM (SELECT ('x' || substr(replace(idgen_next128()::text, '-', ''), 21, 12))::bit(48) AS a,
             ('x' || substr(replace(idgen_next128()::text, '-', ''), 21, 12))::bit(48) AS b
      FROM generate_series(1, 100)) s;
DROP TABLE gen128_tails;

--
-- Generating: idgen_next128_batch(n)
--
SELECT idgen_next128() AS before_batch \gset
CREATE TEMP TABLE gen128_batch AS
SELECT n, id FROM idgen_next128_batch(1000) WITH ORDINALITY AS b(id, n);
SELECT idgen_next128() AS after_batch \gset
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS not_ascending,
       bool_and(id > :'before_batch'::idgen128) AS all_above_before,
       bool_and(id < :'after_batch'::idgen128) AS all_below_after,
       count(*) FILTER (WHERE substr(id::text, 15, 1) = '7'
                          AND substr(id::text, 20, 1) IN ('8', '9', 'a', 'b')) AS v7_variant_10
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM gen128_batch) s;
SELECT count(*) FILTER (WHERE d.region = 0 AND d.worker BETWEEN 0 AND 15 AND d.epoch = 1) AS well_formed
FROM gen128_batch g, idgen_decode(g.id) d;
SELECT count(*) AS overlap FROM gen128_batch b JOIN gen128 o ON o.id = b.id;
-- more than one millisecond holds (16 workers x 4096 = 65536 per ms)
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS not_ascending,
       count(DISTINCT idgen_timestamp(id)) >= 2 AS spans_2_or_more_ms
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev
      FROM idgen_next128_batch(100000) WITH ORDINALITY AS b(id, n)) s;
-- edge cases
SELECT count(*) AS zero_batch FROM idgen_next128_batch(0);
SELECT count(*) AS one_batch FROM idgen_next128_batch(1);
SELECT count(*) AS null_batch FROM idgen_next128_batch(NULL);
SELECT * FROM idgen_next128_batch(-1);
SELECT i128_try('SELECT count(*) FROM idgen_next128_batch(-2147483648)') AS min_int;
SELECT * FROM idgen_next128_batch(65601537);
DROP TABLE gen128, gen128_batch;

DROP FUNCTION i128_make(bigint, integer, integer, bigint);
DROP FUNCTION i128_try(text);
DROP FUNCTION i128_plan_has(text, text);
RESET timezone;
