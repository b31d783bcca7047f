-- idgen_time: idgen and idgen128 compared with timestamptz (new in 0.4).
-- An ID and a timestamp compare by millisecond: the ID's millisecond
-- (idgen_timestamp) against the millisecond that contains the timestamp,
-- so "id <op> ts" means "idgen_timestamp(id) <op> date_trunc('milliseconds',
-- ts)".  The operators are members of the types' btree families, so a time
-- range on the ID column is an index range scan.  There is no cross-type
-- "=": two timestamps in one millisecond would both equal the same ID.
-- Generated IDs are never printed: only counts, booleans and plans.
SET timezone = 'UTC';

--
-- The operators in the catalog
--
-- < <= > >= in both directions for both types, never = or <>; each has a
-- commutator and a negator; none hashes or merges (there is no equality)
SELECT o.oprleft::regtype AS left, o.oprright::regtype AS right,
       string_agg(o.oprname, ' ' ORDER BY o.oprname COLLATE "C") AS operators,
       bool_and(o.oprcom <> 0 AND o.oprnegate <> 0) AS have_commutator_and_negator,
       bool_or(o.oprcanhash OR o.oprcanmerge) AS hash_or_merge
FROM pg_operator o
WHERE (o.oprleft IN ('idgen'::regtype, 'idgen128'::regtype) AND o.oprright = 'timestamptz'::regtype)
   OR (o.oprleft = 'timestamptz'::regtype AND o.oprright IN ('idgen'::regtype, 'idgen128'::regtype))
GROUP BY o.oprleft, o.oprright
ORDER BY o.oprleft::regtype::text COLLATE "C", o.oprright::regtype::text COLLATE "C";
-- the commutator of "id < ts" is "ts > id", its negator "id >= ts", and so on
SELECT o.oid::regoperator AS operator, o.oprcom::regoperator AS commutator,
       o.oprnegate::regoperator AS negator, o.oprcode AS function
FROM pg_operator o
WHERE (o.oprleft IN ('idgen'::regtype, 'idgen128'::regtype) AND o.oprright = 'timestamptz'::regtype)
   OR (o.oprleft = 'timestamptz'::regtype AND o.oprright IN ('idgen'::regtype, 'idgen128'::regtype))
ORDER BY o.oid::regoperator::text COLLATE "C";
-- members of the btree families: strategies 1 2 4 5 (no 3, equality) and
-- a comparison function for each pair of types
SELECT f.opfname AS family, m.amoplefttype::regtype AS left, m.amoprighttype::regtype AS right,
       string_agg(m.amopstrategy || ':' || o.oprname, ' ' ORDER BY m.amopstrategy) AS strategies,
       (SELECT p.amproc::regproc FROM pg_amproc p
        WHERE p.amprocfamily = f.oid AND p.amproclefttype = m.amoplefttype
          AND p.amprocrighttype = m.amoprighttype AND p.amprocnum = 1) AS cmp
FROM pg_amop m
JOIN pg_opfamily f ON f.oid = m.amopfamily
JOIN pg_operator o ON o.oid = m.amopopr
WHERE f.opfmethod = (SELECT oid FROM pg_am WHERE amname = 'btree')
  AND 'timestamptz'::regtype IN (m.amoplefttype, m.amoprighttype)
GROUP BY f.oid, f.opfname, m.amoplefttype, m.amoprighttype
ORDER BY f.opfname COLLATE "C", m.amoplefttype::regtype::text COLLATE "C";
-- not in the hash or BRIN families
SELECT count(*) AS time_members_elsewhere
FROM pg_amop m JOIN pg_opfamily f ON f.oid = m.amopfamily
WHERE f.opfmethod <> (SELECT oid FROM pg_am WHERE amname = 'btree')
  AND 'timestamptz'::regtype IN (m.amoplefttype, m.amoprighttype)
  AND (m.amoplefttype IN ('idgen'::regtype, 'idgen128'::regtype)
       OR m.amoprighttype IN ('idgen'::regtype, 'idgen128'::regtype));

--
-- Truth tables around one millisecond, 2026-03-01 00:00:00.123 UTC
--
-- the lowest and the highest ID of that millisecond against timestamps just
-- before it, at its start, inside it, at its last microsecond and at the
-- next millisecond: both IDs give the same answers, because only the
-- millisecond counts
SELECT CASE WHEN i.id = idgen_min_at('2026-03-01 00:00:00.123+00') THEN 'min_at' ELSE 'max_at' END AS id,
       t.ts, i.id < t.ts AS lt, i.id <= t.ts AS le, i.id > t.ts AS gt, i.id >= t.ts AS ge,
       t.ts < i.id AS ts_lt, t.ts <= i.id AS ts_le, t.ts > i.id AS ts_gt, t.ts >= i.id AS ts_ge
FROM (VALUES (idgen_min_at('2026-03-01 00:00:00.123+00')),
             (idgen_max_at('2026-03-01 00:00:00.123+00'))) AS i(id),
     (VALUES ('2026-03-01 00:00:00.122999+00'::timestamptz),
             ('2026-03-01 00:00:00.123+00'),
             ('2026-03-01 00:00:00.1235+00'),
             ('2026-03-01 00:00:00.123999+00'),
             ('2026-03-01 00:00:00.124+00')) AS t(ts)
ORDER BY 1, 2;
-- the same for idgen128: the lowest and highest UUIDv7 of that millisecond
-- (unix ms 1772323200123 = 0x019ca6b1dc7b)
SELECT right(i.id::text, 27) AS id_after_ms,
       t.ts, i.id < t.ts AS lt, i.id <= t.ts AS le, i.id > t.ts AS gt, i.id >= t.ts AS ge,
       t.ts < i.id AS ts_lt, t.ts <= i.id AS ts_le, t.ts > i.id AS ts_gt, t.ts >= i.id AS ts_ge
FROM (VALUES ('019ca6b1-dc7b-7000-8000-000000000000'::idgen128),
             ('019ca6b1-dc7b-7fff-bfff-ffffffffffff'::idgen128)) AS i(id),
     (VALUES ('2026-03-01 00:00:00.122999+00'::timestamptz),
             ('2026-03-01 00:00:00.123+00'),
             ('2026-03-01 00:00:00.1235+00'),
             ('2026-03-01 00:00:00.123999+00'),
             ('2026-03-01 00:00:00.124+00')) AS t(ts)
ORDER BY 1, 2;
SELECT idgen_timestamp('019ca6b1-dc7b-7000-8000-000000000000'::idgen128) AS ts_of_lowest,
       idgen_timestamp('019ca6b1-dc7b-7fff-bfff-ffffffffffff'::idgen128) AS ts_of_highest;
-- NULL on either side gives NULL
SELECT idgen_min_at('2026-03-01') < NULL::timestamptz AS id_null_ts,
       NULL::idgen < '2026-03-01'::timestamptz AS null_id_ts,
       NULL::timestamptz >= '019ca6b1-dc7b-7000-8000-000000000000'::idgen128 AS null_ts_id128;

--
-- 20,000 IDs of each type, compared with many timestamps
--
-- 1,000 chosen milliseconds: 500 in a row from 2026-03-01 00:00:00 and 500
-- scattered over the first five months of 2026, from 2026-01-01 00:00:00,
-- the first millisecond a node may issue IDs in (earlier IDs are the range
-- space)
CREATE TABLE time_ms (ms timestamptz PRIMARY KEY);
INSERT INTO time_ms
SELECT '2026-03-01 00:00:00+00'::timestamptz + g * interval '1 millisecond'
FROM generate_series(0, 499) g;
INSERT INTO time_ms
SELECT '2026-01-01 00:00:00+00'::timestamptz + (g * 15485863 % 13000000000) * interval '1 millisecond'
FROM generate_series(0::bigint, 499) g;
SELECT count(*) AS chosen_ms, min(ms), max(ms) FROM time_ms;

-- idgen: ten IDs in each chosen millisecond, from the lowest any node can
-- issue in it (idgen_min_at) to the highest (idgen_max_at); the four IDs
-- of the last millisecond before the horizon, up to the largest idgen; and
-- real idgen_next() IDs, issued now
CREATE TABLE time64 (id idgen PRIMARY KEY, src text NOT NULL);
INSERT INTO time64
SELECT (idgen_min_at(ms)::bigint
        + (idgen_max_at(ms)::bigint - idgen_min_at(ms)::bigint) * k / 9)::idgen, 'chosen'
FROM time_ms, generate_series(0, 9) k;
INSERT INTO time64
SELECT (idgen_min_at(t)::bigint + (idgen_max_at(t)::bigint - idgen_min_at(t)::bigint) * k / 3)::idgen,
       'horizon'
FROM (VALUES ('2094-09-07 15:47:35.551+00'::timestamptz)) AS h(t), generate_series(0, 3) k;
INSERT INTO time64 SELECT idgen_next(), 'generated' FROM generate_series(1, 9996);
SELECT src, count(*) FROM time64 GROUP BY src ORDER BY src;
-- every ID has a time (none is in the range space), the chosen ones their
-- own millisecond
SELECT count(*) AS ids, count(idgen_timestamp(id)) AS with_time,
       count(*) FILTER (WHERE src = 'chosen' AND idgen_timestamp(id) NOT IN (SELECT ms FROM time_ms))
           AS chosen_elsewhere,
       max(id) = '9223372036854775807'::idgen AS has_largest
FROM time64;

-- idgen128: the same milliseconds, ten UUIDv7s in each composed as text
-- (48-bit ms, then version 7 and the rest), from the lowest of the
-- millisecond (...-7000-8000-000000000000) to the highest
-- (...-7fff-bfff-ffffffffffff); the lowest and highest UUIDv7 of all (unix
-- ms 0 and 2^48 - 1); and real idgen_next128() IDs
CREATE FUNCTION time_uuid7(ms timestamptz, tail text) RETURNS idgen128
LANGUAGE sql IMMUTABLE STRICT AS
$$ SELECT (lpad(to_hex((extract(epoch FROM ms) * 1000)::bigint), 12, '0') || tail)::idgen128 $$;
CREATE TABLE time_tail (k integer PRIMARY KEY, tail text NOT NULL);
INSERT INTO time_tail VALUES
    (0, '70008000000000000000'), (1, '70008000000000000001'), (2, '7001800000000000ffff'),
    (3, '712399abcdef01234567'), (4, '7800a000000000000000'), (5, '7abcb123456789abcdef'),
    (6, '7ffe8000000000000000'), (7, '7fffa000000000000000'), (8, '7fffbffffffffffffffe'),
    (9, '7fffbfffffffffffffff');
CREATE TABLE time128 (id idgen128 PRIMARY KEY, src text NOT NULL);
INSERT INTO time128 SELECT time_uuid7(ms, tail), 'chosen' FROM time_ms, time_tail;
INSERT INTO time128 VALUES
    ('00000000-0000-7000-8000-000000000000', 'extreme'),
    ('00000000-0000-7fff-bfff-ffffffffffff', 'extreme'),
    ('ffffffff-ffff-7000-8000-000000000000', 'extreme'),
    ('ffffffff-ffff-7fff-bfff-ffffffffffff', 'extreme');
INSERT INTO time128 SELECT idgen_next128(), 'generated' FROM generate_series(1, 9996);
SELECT src, count(*) FROM time128 GROUP BY src ORDER BY src;
SELECT count(*) AS ids,
       count(*) FILTER (WHERE src = 'chosen' AND idgen_timestamp(id) NOT IN (SELECT ms FROM time_ms))
           AS chosen_elsewhere,
       min(idgen_timestamp(id)) AS earliest, max(idgen_timestamp(id)) AS latest
FROM time128;
VACUUM ANALYZE time64;
VACUUM ANALYZE time128;

-- the timestamps: infinities, before 1970, before the 64-bit epoch, in the
-- range space, around 2026-01-01, exact millisecond boundaries, sub-
-- millisecond parts (1 us, 500 us, 999 us) inside the run of chosen
-- milliseconds and at its ends, between the chosen and the generated IDs,
-- and around the 64-bit horizon and the end of the 48-bit ms
CREATE TABLE time_probe (ts timestamptz PRIMARY KEY, derived boolean NOT NULL DEFAULT false);
INSERT INTO time_probe VALUES
    ('-infinity'),
    ('1969-12-31 23:59:59.999+00'), ('1969-12-31 23:59:59.9995+00'),
    ('1970-01-01 00:00:00+00'), ('1970-01-01 00:00:00.0005+00'), ('1970-01-01 00:00:00.001+00'),
    ('2024-12-31 23:59:59.999999+00'), ('2025-06-01 00:00:00+00'),
    ('2025-12-31 23:59:59.999+00'), ('2025-12-31 23:59:59.999999+00'),
    ('2026-01-01 00:00:00+00'), ('2026-01-01 00:00:00.000001+00'),
    ('2026-01-01 00:00:00.000999+00'), ('2026-01-01 00:00:00.001+00'),
    ('2026-02-28 23:59:59.999+00'), ('2026-02-28 23:59:59.999999+00'),
    ('2026-03-01 00:00:00+00'), ('2026-03-01 00:00:00.000001+00'),
    ('2026-03-01 00:00:00.0005+00'), ('2026-03-01 00:00:00.000999+00'),
    ('2026-03-01 00:00:00.001+00'), ('2026-03-01 00:00:00.123+00'),
    ('2026-03-01 00:00:00.1234+00'), ('2026-03-01 00:00:00.123999+00'),
    ('2026-03-01 00:00:00.124+00'), ('2026-03-01 00:00:00.499+00'),
    ('2026-03-01 00:00:00.4995+00'), ('2026-03-01 00:00:00.5+00'),
    ('2026-06-01 00:00:00+00'),
    ('2094-09-07 15:47:35.55+00'), ('2094-09-07 15:47:35.551+00'),
    ('2094-09-07 15:47:35.5515+00'), ('2094-09-07 15:47:35.552+00'),
    ('3000-01-01 00:00:00+00'),
    ('10889-08-02 05:31:50.654999+00'), ('10889-08-02 05:31:50.655+00'),
    ('10889-08-02 05:31:50.6559+00'), ('10889-08-02 05:31:50.656+00'),
    ('294276-12-31 23:59:59.999999+00'),
    ('infinity');
-- and around every 40th chosen millisecond: 1 us before it, at its start,
-- 1 us and 999 us into it
INSERT INTO time_probe
SELECT m.ms + d * interval '1 microsecond', true
FROM (SELECT ms, row_number() OVER (ORDER BY ms) AS n FROM time_ms) m,
     (VALUES (-1), (0), (1), (999)) AS v(d)
WHERE m.n % 40 = 0
ON CONFLICT DO NOTHING;
SELECT count(*) AS probes FROM time_probe;

-- row by row, every operator in both directions agrees with the defined
-- meaning, for every ID and every timestamp
SELECT 'idgen' AS type, count(*) AS pairs,
       count(*) FILTER (WHERE
           (t.id <  p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) <  date_trunc('milliseconds', p.ts))
        OR (t.id <= p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) <= date_trunc('milliseconds', p.ts))
        OR (t.id >  p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) >  date_trunc('milliseconds', p.ts))
        OR (t.id >= p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) >= date_trunc('milliseconds', p.ts))
        OR (p.ts <  t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) <  idgen_timestamp(t.id))
        OR (p.ts <= t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) <= idgen_timestamp(t.id))
        OR (p.ts >  t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) >  idgen_timestamp(t.id))
        OR (p.ts >= t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) >= idgen_timestamp(t.id)))
           AS disagreements
FROM time64 t CROSS JOIN time_probe p
UNION ALL
SELECT 'idgen128', count(*),
       count(*) FILTER (WHERE
           (t.id <  p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) <  date_trunc('milliseconds', p.ts))
        OR (t.id <= p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) <= date_trunc('milliseconds', p.ts))
        OR (t.id >  p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) >  date_trunc('milliseconds', p.ts))
        OR (t.id >= p.ts) IS DISTINCT FROM (idgen_timestamp(t.id) >= date_trunc('milliseconds', p.ts))
        OR (p.ts <  t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) <  idgen_timestamp(t.id))
        OR (p.ts <= t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) <= idgen_timestamp(t.id))
        OR (p.ts >  t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) >  idgen_timestamp(t.id))
        OR (p.ts >= t.id) IS DISTINCT FROM (date_trunc('milliseconds', p.ts) >= idgen_timestamp(t.id)))
FROM time128 t CROSS JOIN time_probe p;

-- as WHERE clauses: for each operator, "id <op> ts" and the commuted
-- "ts <op'> id" count the same rows, and as many as the defined meaning
-- does (counted once, set-wise, in time_meaning); once through the primary
-- key and once through a sequential scan
CREATE FUNCTION time_counts(tbl regclass, ts timestamptz,
                            OUT lt bigint, OUT le bigint, OUT gt bigint, OUT ge bigint,
                            OUT commuted_agree boolean)
LANGUAGE plpgsql AS
$$
DECLARE
    op text;
    commuted text;
    via_op bigint;
    via_commuted bigint;
BEGIN
    commuted_agree := true;
    FOREACH op IN ARRAY ARRAY['<', '<=', '>', '>='] LOOP
        commuted := CASE op WHEN '<' THEN '>' WHEN '<=' THEN '>=' WHEN '>' THEN '<' ELSE '<=' END;
        EXECUTE format('SELECT count(*) FROM %s WHERE id %s $1', tbl, op)
            INTO via_op USING ts;
        EXECUTE format('SELECT count(*) FROM %s WHERE $1 %s id', tbl, commuted)
            INTO via_commuted USING ts;
        commuted_agree := commuted_agree AND via_op = via_commuted;
        CASE op
            WHEN '<' THEN lt := via_op;
            WHEN '<=' THEN le := via_op;
            WHEN '>' THEN gt := via_op;
            ELSE ge := via_op;
        END CASE;
    END LOOP;
END
$$;
CREATE TABLE time_meaning AS
SELECT 'time64'::regclass AS tbl, p.ts, p.derived,
       count(*) FILTER (WHERE idgen_timestamp(t.id) <  date_trunc('milliseconds', p.ts)) AS lt,
       count(*) FILTER (WHERE idgen_timestamp(t.id) <= date_trunc('milliseconds', p.ts)) AS le,
       count(*) FILTER (WHERE idgen_timestamp(t.id) >  date_trunc('milliseconds', p.ts)) AS gt,
       count(*) FILTER (WHERE idgen_timestamp(t.id) >= date_trunc('milliseconds', p.ts)) AS ge
FROM time_probe p CROSS JOIN time64 t GROUP BY p.ts, p.derived
UNION ALL
SELECT 'time128'::regclass, p.ts, p.derived,
       count(*) FILTER (WHERE idgen_timestamp(t.id) <  date_trunc('milliseconds', p.ts)),
       count(*) FILTER (WHERE idgen_timestamp(t.id) <= date_trunc('milliseconds', p.ts)),
       count(*) FILTER (WHERE idgen_timestamp(t.id) >  date_trunc('milliseconds', p.ts)),
       count(*) FILTER (WHERE idgen_timestamp(t.id) >= date_trunc('milliseconds', p.ts))
FROM time_probe p CROSS JOIN time128 t GROUP BY p.ts, p.derived;
-- through the index, the listed timestamps one by one
SET enable_seqscan = off;
SELECT m.ts, c.lt, c.le, c.gt, c.ge,
       c.commuted_agree AND (c.lt, c.le, c.gt, c.ge) = (m.lt, m.le, m.gt, m.ge) AS agree
FROM time_meaning m, LATERAL time_counts(m.tbl, m.ts) c
WHERE m.tbl = 'time64'::regclass AND NOT m.derived
ORDER BY m.ts;
SELECT m.ts, c.lt, c.le, c.gt, c.ge,
       c.commuted_agree AND (c.lt, c.le, c.gt, c.ge) = (m.lt, m.le, m.gt, m.ge) AS agree
FROM time_meaning m, LATERAL time_counts(m.tbl, m.ts) c
WHERE m.tbl = 'time128'::regclass AND NOT m.derived
ORDER BY m.ts;
-- every timestamp, through the index and then without it
SELECT m.tbl, 'index' AS way, count(*) AS probes,
       bool_and(c.commuted_agree AND (c.lt, c.le, c.gt, c.ge) = (m.lt, m.le, m.gt, m.ge)) AS all_agree
FROM time_meaning m, LATERAL time_counts(m.tbl, m.ts) c
GROUP BY m.tbl ORDER BY m.tbl::text COLLATE "C";
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT m.tbl, 'seqscan' AS way, count(*) AS probes,
       bool_and(c.commuted_agree AND (c.lt, c.le, c.gt, c.ge) = (m.lt, m.le, m.gt, m.ge)) AS all_agree
FROM time_meaning m, LATERAL time_counts(m.tbl, m.ts) c
GROUP BY m.tbl ORDER BY m.tbl::text COLLATE "C";
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
-- relative to now: the generated IDs are from the last moments, so the
-- counts depend on timing; each one agrees with the meaning
SELECT v.label,
       (c64.lt, c64.le, c64.gt, c64.ge) = (SELECT count(*) FILTER (WHERE idgen_timestamp(id) <  date_trunc('milliseconds', v.ts)),
                                                   count(*) FILTER (WHERE idgen_timestamp(id) <= date_trunc('milliseconds', v.ts)),
                                                   count(*) FILTER (WHERE idgen_timestamp(id) >  date_trunc('milliseconds', v.ts)),
                                                   count(*) FILTER (WHERE idgen_timestamp(id) >= date_trunc('milliseconds', v.ts))
                                            FROM time64) AND c64.commuted_agree AS agree_64,
       (c128.lt, c128.le, c128.gt, c128.ge) = (SELECT count(*) FILTER (WHERE idgen_timestamp(id) <  date_trunc('milliseconds', v.ts)),
                                                       count(*) FILTER (WHERE idgen_timestamp(id) <= date_trunc('milliseconds', v.ts)),
                                                       count(*) FILTER (WHERE idgen_timestamp(id) >  date_trunc('milliseconds', v.ts)),
                                                       count(*) FILTER (WHERE idgen_timestamp(id) >= date_trunc('milliseconds', v.ts))
                                                FROM time128) AND c128.commuted_agree AS agree_128
FROM (VALUES ('now() - 1 day', now() - interval '1 day'),
             ('now() - 1 hour', now() - interval '1 hour'),
             ('now()', now()),
             ('clock_timestamp()', clock_timestamp())) AS v(label, ts),
     LATERAL time_counts('time64', v.ts) c64,
     LATERAL time_counts('time128', v.ts) c128
ORDER BY v.label;
-- every generated ID is from the last day
SELECT (SELECT count(*) FROM time64 WHERE id >= now() - interval '1 day') AS last_day_64,
       (SELECT count(*) FROM time128 WHERE now() - interval '1 day' <= id) AS last_day_128;

--
-- One millisecond spread over several index pages: 1,000 IDs in each of
-- three consecutive milliseconds, so leaf pages begin and end inside a
-- millisecond.  Every way to read the rows gives the same counts: a
-- sequential scan, index scans both ways and a bitmap scan.
--
CREATE TABLE time_dense (id idgen PRIMARY KEY);
INSERT INTO time_dense
SELECT (idgen_min_at(t)::bigint + g * 4096)::idgen
FROM (VALUES ('2026-04-01 12:00:00.499+00'::timestamptz), ('2026-04-01 12:00:00.5+00'),
             ('2026-04-01 12:00:00.501+00')) AS v(t),
     generate_series(0, 999) g;
CREATE TABLE time_dense128 (id idgen128 PRIMARY KEY);
INSERT INTO time_dense128
SELECT time_uuid7(t, '7' || lpad(to_hex(g), 3, '0') || '8000000000000000')
FROM (VALUES ('2026-04-01 12:00:00.499+00'::timestamptz), ('2026-04-01 12:00:00.5+00'),
             ('2026-04-01 12:00:00.501+00')) AS v(t),
     generate_series(0, 999) g;
VACUUM ANALYZE time_dense;
VACUUM ANALYZE time_dense128;
-- the index of each spans several leaf pages
SELECT relname, relpages > 3 AS several_pages
FROM pg_class WHERE relname IN ('time_dense_pkey', 'time_dense128_pkey') ORDER BY relname;
CREATE FUNCTION time_dense_counts(tbl regclass, ts timestamptz, upto timestamptz,
    OUT lt bigint, OUT le bigint, OUT gt bigint, OUT ge bigint, OUT ge_commuted bigint,
    OUT ge_and_lt bigint, OUT ge_desc bigint, OUT le_desc bigint)
LANGUAGE plpgsql AS
$$
BEGIN
    EXECUTE format('SELECT count(*) FROM %s WHERE id < $1', tbl) INTO lt USING ts;
    EXECUTE format('SELECT count(*) FROM %s WHERE id <= $1', tbl) INTO le USING ts;
    EXECUTE format('SELECT count(*) FROM %s WHERE id > $1', tbl) INTO gt USING ts;
    EXECUTE format('SELECT count(*) FROM %s WHERE id >= $1', tbl) INTO ge USING ts;
    EXECUTE format('SELECT count(*) FROM %s WHERE $1 <= id', tbl) INTO ge_commuted USING ts;
    EXECUTE format('SELECT count(*) FROM %s WHERE id >= $1 AND id < $2', tbl) INTO ge_and_lt USING ts, upto;
    EXECUTE format('SELECT count(*) FROM (SELECT id FROM %s WHERE id >= $1 ORDER BY id DESC) s', tbl)
        INTO ge_desc USING ts;
    EXECUTE format('SELECT count(*) FROM (SELECT id FROM %s WHERE id <= $1 ORDER BY id DESC) s', tbl)
        INTO le_desc USING ts;
END
$$;
-- 1,000 IDs below the middle millisecond, 1,000 in it, 1,000 above
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT 'seqscan' AS way, d.*
FROM time_dense_counts('time_dense', '2026-04-01 12:00:00.5+00', '2026-04-01 12:00:00.501+00') d;
SELECT 'seqscan 128' AS way, d.*
FROM time_dense_counts('time_dense128', '2026-04-01 12:00:00.5+00', '2026-04-01 12:00:00.501+00') d;
RESET enable_indexscan;
RESET enable_indexonlyscan;
SET enable_seqscan = off;
SELECT 'index' AS way, d.*
FROM time_dense_counts('time_dense', '2026-04-01 12:00:00.5+00', '2026-04-01 12:00:00.501+00') d;
SELECT 'index 128' AS way, d.*
FROM time_dense_counts('time_dense128', '2026-04-01 12:00:00.5+00', '2026-04-01 12:00:00.501+00') d;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SELECT 'bitmap' AS way, d.*
FROM time_dense_counts('time_dense', '2026-04-01 12:00:00.5+00', '2026-04-01 12:00:00.501+00') d;
SELECT 'bitmap 128' AS way, d.*
FROM time_dense_counts('time_dense128', '2026-04-01 12:00:00.5+00', '2026-04-01 12:00:00.501+00') d;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_seqscan;

--
-- Range partitions whose bounds lie inside a millisecond: partition pruning
-- keeps every partition that may hold rows of the timestamp's millisecond
--
CREATE TABLE time_part (id idgen NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE time_part_1 PARTITION OF time_part
    FOR VALUES FROM (MINVALUE) TO ('165067674879000576');
CREATE TABLE time_part_2 PARTITION OF time_part
    FOR VALUES FROM ('165067674879000576') TO ('165067674881097728');
CREATE TABLE time_part_3 PARTITION OF time_part
    FOR VALUES FROM ('165067674881097728') TO (MAXVALUE);
INSERT INTO time_part SELECT id FROM time_dense;
-- the bounds: a quarter and three quarters into the middle millisecond
SELECT b.v, idgen_timestamp(b.v::idgen) AS ts,
       b.v::bigint - idgen_min_at('2026-04-01 12:00:00.5+00')::bigint AS into_the_ms
FROM (VALUES ('165067674879000576'), ('165067674881097728')) AS b(v);
SELECT tableoid::regclass AS partition, count(*), min(idgen_timestamp(id)), max(idgen_timestamp(id))
FROM time_part GROUP BY tableoid ORDER BY tableoid::regclass::text COLLATE "C";
SELECT o.op,
       (SELECT count(*) FROM time_part WHERE CASE o.op WHEN '<' THEN id < '2026-04-01 12:00:00.5+00'::timestamptz
                                                       WHEN '<=' THEN id <= '2026-04-01 12:00:00.5+00'::timestamptz
                                                       WHEN '>' THEN id > '2026-04-01 12:00:00.5+00'::timestamptz
                                                       ELSE id >= '2026-04-01 12:00:00.5+00'::timestamptz END)
           AS no_pruning,
       o.pruned
FROM (VALUES
    ('<', (SELECT count(*) FROM time_part WHERE id < '2026-04-01 12:00:00.5+00'::timestamptz)),
    ('<=', (SELECT count(*) FROM time_part WHERE id <= '2026-04-01 12:00:00.5+00'::timestamptz)),
    ('>', (SELECT count(*) FROM time_part WHERE id > '2026-04-01 12:00:00.5+00'::timestamptz)),
    ('>=', (SELECT count(*) FROM time_part WHERE id >= '2026-04-01 12:00:00.5+00'::timestamptz))) AS o(op, pruned)
ORDER BY o.op;
DROP TABLE time_part, time_dense, time_dense128;
DROP FUNCTION time_dense_counts(regclass, timestamptz, timestamptz);

--
-- Range-space IDs (below idgen.range_space_end(), handed out by
-- idgen_lease_range) have no time: idgen_timestamp() is NULL for them.
-- The operators still order them, by their bits, like idgen_min_at() and
-- idgen_max_at() do: "id < ts" is "id < idgen_min_at(ts)", "id <= ts" is
-- "id <= idgen_max_at(ts)", "id > ts" is "id > idgen_max_at(ts)" and
-- "id >= ts" is "id >= idgen_min_at(ts)" for timestamps from the 64-bit
-- epoch (2025-01-01) to the horizon.  So a time range from 2026 on never
-- holds one, and they all lie before 2026-01-01.
--
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE idgen_timestamp(i.id) IS NULL) AS pairs_without_time,
       count(*) FILTER (WHERE
           (i.id <  t.ts) IS DISTINCT FROM (i.id <  idgen_min_at(t.ts))
        OR (i.id <= t.ts) IS DISTINCT FROM (i.id <= idgen_max_at(t.ts))
        OR (i.id >  t.ts) IS DISTINCT FROM (i.id >  idgen_max_at(t.ts))
        OR (i.id >= t.ts) IS DISTINCT FROM (i.id >= idgen_min_at(t.ts))
        OR (t.ts >  i.id) IS DISTINCT FROM (i.id <  idgen_min_at(t.ts))
        OR (t.ts >= i.id) IS DISTINCT FROM (i.id <= idgen_max_at(t.ts))
        OR (t.ts <  i.id) IS DISTINCT FROM (i.id >  idgen_max_at(t.ts))
        OR (t.ts <= i.id) IS DISTINCT FROM (i.id >= idgen_min_at(t.ts))) AS disagreements
FROM (SELECT id FROM time64
      UNION ALL
      SELECT v::idgen FROM (VALUES ('0'), ('1'), ('4194303'), ('4194304'), ('123456789012345'))
          AS r(v)
      UNION ALL
      SELECT (idgen.range_space_end()::bigint + d)::idgen FROM generate_series(-2, 1) d) AS i(id),
     (SELECT ts FROM time_probe
      WHERE ts >= '2025-01-01 00:00:00+00' AND ts < '2094-09-07 15:47:35.552+00'
      UNION ALL
      VALUES ('2025-01-01 00:00:00+00'::timestamptz), ('2025-01-01 00:00:00.0005+00'),
             ('2025-01-01 00:00:00.001+00'), ('2025-01-01 00:00:00.029+00'),
             ('2025-01-01 00:00:00.03+00')) AS t(ts);
SELECT r.id,
       r.id < '2026-01-01 00:00:00+00'::timestamptz AS before_2026,
       r.id >= '2026-01-01 00:00:00+00'::timestamptz AS from_2026,
       r.id >= now() - interval '1 day' AS within_a_day
FROM (VALUES ('1'::idgen), ((idgen.range_space_end()::bigint - 1)::idgen)) AS r(id);

--
-- Plans: with sequential scans off, every form of time range is an index
-- condition on the primary key, for both types
--
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time64 WHERE id >= now() - interval '1 day';
EXPLAIN (COSTS OFF) SELECT count(*) FROM time64 WHERE id < '2026-06-01'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time64 WHERE now() - interval '1 hour' <= id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time64
    WHERE id >= '2026-03-01 00:00:00.1+00'::timestamptz AND id < '2026-03-01 00:00:00.2+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time64
    WHERE '2026-03-01 00:00:00.1+00'::timestamptz <= id AND '2026-03-01 00:00:00.2+00'::timestamptz > id;
EXPLAIN (COSTS OFF) SELECT src FROM time64 WHERE id > '2026-03-01 00:00:00.1+00'::timestamptz
    ORDER BY id LIMIT 3;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time128 WHERE id >= now() - interval '1 day';
EXPLAIN (COSTS OFF) SELECT count(*) FROM time128 WHERE id < '2026-06-01'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time128 WHERE now() - interval '1 hour' <= id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time128
    WHERE id >= '2026-03-01 00:00:00.1+00'::timestamptz AND id < '2026-03-01 00:00:00.2+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time128
    WHERE '2026-03-01 00:00:00.1+00'::timestamptz <= id AND '2026-03-01 00:00:00.2+00'::timestamptz > id;
EXPLAIN (COSTS OFF) SELECT src FROM time128 WHERE id > '2026-03-01 00:00:00.1+00'::timestamptz
    ORDER BY id LIMIT 3;
-- the answers of those plans
SELECT (SELECT count(*) FROM time64 WHERE id < '2026-06-01'::timestamptz) AS before_june_64,
       (SELECT count(*) FROM time128 WHERE id < '2026-06-01'::timestamptz) AS before_june_128,
       (SELECT count(*) FROM time64
        WHERE id >= '2026-03-01 00:00:00.1+00'::timestamptz AND id < '2026-03-01 00:00:00.2+00'::timestamptz)
           AS ms_100_to_199_64,
       (SELECT count(*) FROM time128
        WHERE '2026-03-01 00:00:00.1+00'::timestamptz <= id AND '2026-03-01 00:00:00.2+00'::timestamptz > id)
           AS ms_100_to_199_128,
       (SELECT count(*) FROM time64 WHERE id >= now() - interval '1 day')
           = (SELECT count(*) FROM time64 WHERE idgen_timestamp(id) >= date_trunc('milliseconds', now() - interval '1 day'))
           AS last_day_64_agrees,
       (SELECT count(*) FROM time128 WHERE now() - interval '1 hour' <= id)
           = (SELECT count(*) FROM time128 WHERE idgen_timestamp(id) >= date_trunc('milliseconds', now() - interval '1 hour'))
           AS last_hour_128_agrees;
SELECT idgen_timestamp(id) AS ts, src
FROM time64 WHERE id > '2026-03-01 00:00:00.1+00'::timestamptz ORDER BY id LIMIT 3;
SELECT idgen_timestamp(id) AS ts, src
FROM time128 WHERE id > '2026-03-01 00:00:00.1+00'::timestamptz ORDER BY id LIMIT 3;
-- a bitmap scan works the same way
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT src FROM time64 WHERE id >= now() - interval '1 day';
EXPLAIN (COSTS OFF) SELECT src FROM time128 WHERE now() - interval '1 hour' <= id;
EXPLAIN (COSTS OFF) SELECT src FROM time64
    WHERE id >= '2026-03-01 00:00:00.1+00'::timestamptz AND id < '2026-03-01 00:00:00.2+00'::timestamptz;
SELECT count(*) AS ms_100_to_199_bitmap FROM time64
    WHERE id >= '2026-03-01 00:00:00.1+00'::timestamptz AND id < '2026-03-01 00:00:00.2+00'::timestamptz;
RESET enable_indexscan;
RESET enable_indexonlyscan;
-- a parameter in a generic plan is an index condition too
SET enable_bitmapscan = off;
SET plan_cache_mode = force_generic_plan;
PREPARE time_since(timestamptz) AS SELECT count(*) FROM time64 WHERE id >= $1;
PREPARE time_since128(timestamptz) AS SELECT count(*) FROM time128 WHERE $1 <= id;
EXPLAIN (COSTS OFF) EXECUTE time_since('2026-03-01 00:00:00.4995+00');
EXPLAIN (COSTS OFF) EXECUTE time_since128('2026-03-01 00:00:00.4995+00');
EXECUTE time_since('2026-03-01 00:00:00.4995+00');
EXECUTE time_since128('2026-03-01 00:00:00.4995+00');
DEALLOCATE time_since;
DEALLOCATE time_since128;
RESET plan_cache_mode;
-- timestamp without time zone and date convert to timestamptz implicitly
EXPLAIN (COSTS OFF) SELECT count(*) FROM time64 WHERE id >= '2026-03-01'::date;
EXPLAIN (COSTS OFF) SELECT count(*) FROM time128 WHERE id < '2026-03-01 00:00:00.1'::timestamp;
SELECT (SELECT count(*) FROM time64 WHERE id < '2026-03-01'::date) AS before_march_date,
       (SELECT count(*) FROM time64 WHERE id < '2026-03-01 00:00:00'::timestamp) AS before_march_timestamp,
       (SELECT count(*) FROM time64 WHERE id < '2026-03-01 00:00:00+00'::timestamptz) AS before_march_timestamptz;
RESET enable_bitmapscan;
RESET enable_seqscan;

--
-- Equality: there is no "=" (nor "<>") between an ID and a timestamp, so
-- "id = now()" does not resolve to a time operator (nor to anything else):
-- it is an error, 42883 undefined_function, in both directions and for
-- both types.  An untyped literal is read as the ID's own type.
--
SELECT count(*) FROM time64 WHERE id = now();
SELECT count(*) FROM time64 WHERE now() = id;
SELECT count(*) FROM time128 WHERE id = now();
SELECT count(*) FROM time64 WHERE id <> now();
SELECT count(*) FROM time64 WHERE id IN (now(), now() - interval '1 day');
SELECT count(*) FROM time64 WHERE id = '2026-03-01 00:00:00.123+00'::timestamp;
SELECT count(*) FROM time64 WHERE id >= '2026-03-01';
SELECT count(*) FROM time128 WHERE id >= '2026-03-01';
SELECT count(*) AS equality_operators FROM pg_operator
WHERE oprname IN ('=', '<>')
  AND ((oprleft IN ('idgen'::regtype, 'idgen128'::regtype) AND oprright = 'timestamptz'::regtype)
    OR (oprleft = 'timestamptz'::regtype AND oprright IN ('idgen'::regtype, 'idgen128'::regtype)));
-- the IDs of one millisecond: both bounds of it, or idgen_timestamp()
SELECT (SELECT count(*) FROM time64
        WHERE id >= '2026-03-01 00:00:00.1234+00'::timestamptz
          AND id <= '2026-03-01 00:00:00.1234+00'::timestamptz) AS in_ms_64,
       (SELECT count(*) FROM time64
        WHERE idgen_timestamp(id) = date_trunc('milliseconds', '2026-03-01 00:00:00.1234+00'::timestamptz))
           AS by_timestamp_64,
       (SELECT count(*) FROM time128
        WHERE id BETWEEN '2026-03-01 00:00:00.1234+00'::timestamptz AND '2026-03-01 00:00:00.1234+00'::timestamptz)
           AS in_ms_128;

--
-- The operator classes in the eyes of amvalidate
--
-- The btree families now hold the time operators, without "=" and without
-- timestamptz's own operators, so btvalidate reports the families as
-- incomplete (INFO) and amvalidate() is false for idgen_ops and
-- idgen128_ops; hash and BRIN are unaffected.  Index scans need only the
-- operators and comparison functions listed above.
SELECT amname, opcname, amvalidate(c.oid) AS valid
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE opcintype IN ('idgen'::regtype, 'idgen128'::regtype)
ORDER BY amname, opcname;

DROP TABLE time_meaning, time_probe, time128, time_tail, time64, time_ms;
DROP FUNCTION time_counts(regclass, timestamptz);
DROP FUNCTION time_uuid7(timestamptz, text);
RESET timezone;
