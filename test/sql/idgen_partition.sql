-- idgen_partition: time predicates prune range partitions on an ID key
-- (new in 0.6).  "id >= now() - interval '1 hour'" on a table partitioned
-- BY RANGE (id), with bounds from idgen_min_at(), scans only the partitions
-- that can hold rows of that time range: when a query on a partitioned
-- table is planned, each time comparison is replaced by the ID comparisons
-- it is equal to
-- (id < ts by id <= idgen.ids_before(ts), id >= ts by
-- id >= idgen.ids_from(ts) AND id > idgen.ids_before(ts), ...), and those
-- are operators of the key's btree family.  The 64-bit bounds are STABLE
-- (a later layout epoch can move them), so partitions are pruned when the
-- executor starts, for a constant as for now() or a parameter: EXPLAIN
-- shows "Subplans Removed".  The 128-bit bounds are IMMUTABLE: a constant
-- is pruned while planning.  Every answer is the same as on a table
-- without partitions and as the operator itself, also at the edges of
-- milliseconds and of partitions whose bounds lie inside one.
-- (idgen_partition_1.out is the output on PostgreSQL 16 and later, whose
-- pg_get_viewdef() leaves a one-table view's column names unqualified)
SET timezone = 'UTC';

-- the bound functions
SELECT p.oid::regprocedure AS function, p.prorettype::regtype AS returns,
       p.provolatile AS volatility, p.proisstrict AS strict, p.proparallel AS parallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p
WHERE p.proname IN ('ids_before', 'ids_through', 'ids_from', 'ids_after', 'ids128_from', 'ids128_after')
ORDER BY p.proname COLLATE "C";

--
-- Day partitions over 2026-03-01 to 03-04, and the day of 03-02 cut in
-- three by bounds a quarter and three quarters into the millisecond
-- 2026-03-02 12:00:00.5 (a bound may be any ID)
--
CREATE TABLE part (id idgen NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE part_old PARTITION OF part
    FOR VALUES FROM (MINVALUE) TO (idgen_min_at('2026-03-01 00:00:00+00'));
CREATE TABLE part_d1 PARTITION OF part
    FOR VALUES FROM (idgen_min_at('2026-03-01 00:00:00+00')) TO (idgen_min_at('2026-03-02 00:00:00+00'));
CREATE TABLE part_d2a PARTITION OF part
    FOR VALUES FROM (idgen_min_at('2026-03-02 00:00:00+00'))
    TO ((idgen_min_at('2026-03-02 12:00:00.5+00')::bigint + 1048576)::idgen);
CREATE TABLE part_d2b PARTITION OF part
    FOR VALUES FROM ((idgen_min_at('2026-03-02 12:00:00.5+00')::bigint + 1048576)::idgen)
    TO ((idgen_min_at('2026-03-02 12:00:00.5+00')::bigint + 3145728)::idgen);
CREATE TABLE part_d2c PARTITION OF part
    FOR VALUES FROM ((idgen_min_at('2026-03-02 12:00:00.5+00')::bigint + 3145728)::idgen)
    TO (idgen_min_at('2026-03-03 00:00:00+00'));
CREATE TABLE part_d3 PARTITION OF part
    FOR VALUES FROM (idgen_min_at('2026-03-03 00:00:00+00')) TO (idgen_min_at('2026-03-04 00:00:00+00'));
CREATE TABLE part_new PARTITION OF part
    FOR VALUES FROM (idgen_min_at('2026-03-04 00:00:00+00')) TO (MAXVALUE);

-- the milliseconds the rows and the probes are made of: each day boundary
-- and the millisecond before it, the cut millisecond and its neighbours,
-- and some ordinary ones
CREATE TABLE part_ms (ms timestamptz PRIMARY KEY);
INSERT INTO part_ms
SELECT d + o * interval '1 millisecond'
FROM (VALUES ('2026-03-01 00:00:00+00'::timestamptz), ('2026-03-02 00:00:00+00'),
             ('2026-03-03 00:00:00+00'), ('2026-03-04 00:00:00+00'),
             ('2026-03-02 12:00:00.5+00')) AS b(d),
     generate_series(-1, 1) o;
INSERT INTO part_ms
VALUES ('2026-02-27 08:00:00+00'), ('2026-03-01 13:14:15.161+00'), ('2026-03-03 17:59:59.999+00'),
       ('2026-03-09 00:00:00+00');
-- rows: in every one of those milliseconds the lowest ID, one in the
-- middle and the highest; 1,000 spread over the cut millisecond, so that
-- all three of its partitions hold some of it; range-space IDs (no time)
-- and the largest idgen
CREATE TABLE flat (id idgen PRIMARY KEY);
INSERT INTO flat
SELECT DISTINCT (idgen_min_at(ms)::bigint + (idgen_max_at(ms)::bigint - idgen_min_at(ms)::bigint) * k / 2)::idgen
FROM part_ms, generate_series(0, 2) k;
INSERT INTO flat
SELECT (idgen_min_at('2026-03-02 12:00:00.5+00')::bigint + g * 4096 + 7)::idgen
FROM generate_series(0, 999) g
ON CONFLICT DO NOTHING;
INSERT INTO flat VALUES ('1'), ('4194303'), ('9223372036854775807');
INSERT INTO part SELECT id FROM flat;
ANALYZE flat;
ANALYZE part;
SELECT tableoid::regclass AS partition, count(*), min(idgen_timestamp(id)) AS first, max(idgen_timestamp(id)) AS last
FROM part GROUP BY tableoid ORDER BY tableoid::regclass::text COLLATE "C";

--
-- Plans: only the partitions that can hold matching rows are scanned
--
-- from 06:00 on 03-03: part_d3 and part_new
EXPLAIN (COSTS OFF) SELECT count(*) FROM part WHERE id >= '2026-03-03 06:00:00+00'::timestamptz;
-- around the cut millisecond: < keeps what lies below it (up to part_d2a,
-- which holds its lowest IDs), <= and > split at its highest ID (in
-- part_d2c), >= keeps part_d2a on
EXPLAIN (COSTS OFF) SELECT count(*) FROM part WHERE id < '2026-03-02 12:00:00.5+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part WHERE id <= '2026-03-02 12:00:00.5+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part WHERE id > '2026-03-02 12:00:00.5+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part WHERE id >= '2026-03-02 12:00:00.5+00'::timestamptz;
-- the timestamp on the left, a range of one day, BETWEEN
EXPLAIN (COSTS OFF) SELECT count(*) FROM part WHERE '2026-03-03 06:00:00+00'::timestamptz > id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part
    WHERE id >= '2026-03-01 00:00:00+00'::timestamptz AND id < '2026-03-02 00:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part
    WHERE id BETWEEN '2026-03-03 01:00:00+00'::timestamptz AND '2026-03-03 02:00:00+00'::timestamptz;
-- a parameter in a generic plan: pruned when the executor starts
SET plan_cache_mode = force_generic_plan;
PREPARE part_since(timestamptz) AS SELECT count(*) FROM part WHERE id >= $1;
EXPLAIN (COSTS OFF) EXECUTE part_since('2026-03-03 06:00:00+00');
EXECUTE part_since('2026-03-03 06:00:00+00');
DEALLOCATE part_since;
RESET plan_cache_mode;
-- and the pruned plans answer like the whole table
SELECT (SELECT count(*) FROM part WHERE id >= '2026-03-03 06:00:00+00'::timestamptz) AS part_since_0306,
       (SELECT count(*) FROM flat WHERE idgen_timestamp(id) >= '2026-03-03 06:00:00+00') AS flat_since_0306,
       (SELECT count(*) FROM part WHERE id BETWEEN '2026-03-01 00:00:00+00'::timestamptz
                                                AND '2026-03-01 23:59:59.999+00'::timestamptz) AS part_day1,
       (SELECT count(*) FROM flat WHERE idgen_timestamp(id) >= '2026-03-01' AND idgen_timestamp(id) < '2026-03-02')
           AS flat_day1;

--
-- Every time comparison, on every probe, gives the same rows with pruning
-- as on the table without partitions, and as the operator itself row by
-- row (part_truth's generated columns: a stored expression is not planned
-- as a query, so it runs the comparison function as it is).  Probes: the
-- start of each chosen millisecond, a microsecond before it, half a
-- millisecond in, its last microsecond; and the infinities.
--
CREATE TABLE part_probe (ts timestamptz PRIMARY KEY);
INSERT INTO part_probe
SELECT DISTINCT ms + d FROM part_ms,
    (VALUES (interval '0'), (interval '-1 microsecond'), (interval '500 microseconds'),
            (interval '999 microseconds')) AS v(d);
INSERT INTO part_probe VALUES ('-infinity'), ('infinity');
CREATE TABLE part_truth (
    id idgen NOT NULL,
    ts timestamptz NOT NULL,
    lt boolean GENERATED ALWAYS AS (id < ts) STORED,
    le boolean GENERATED ALWAYS AS (id <= ts) STORED,
    gt boolean GENERATED ALWAYS AS (id > ts) STORED,
    ge boolean GENERATED ALWAYS AS (id >= ts) STORED,
    ts_gt boolean GENERATED ALWAYS AS (ts > id) STORED,
    ts_ge boolean GENERATED ALWAYS AS (ts >= id) STORED,
    ts_lt boolean GENERATED ALWAYS AS (ts < id) STORED,
    ts_le boolean GENERATED ALWAYS AS (ts <= id) STORED);
INSERT INTO part_truth (id, ts) SELECT id, ts FROM flat, part_probe;
CREATE FUNCTION part_compare(OUT probes bigint, OUT comparisons bigint, OUT disagreements bigint)
LANGUAGE plpgsql AS
$$
DECLARE
    p timestamptz;
    op text;
    cond text;
    truth bigint;
    n_part bigint;
    n_flat bigint;
    n_lit bigint;
BEGIN
    probes := 0;
    comparisons := 0;
    disagreements := 0;
    FOR p IN SELECT ts FROM part_probe ORDER BY ts LOOP
        probes := probes + 1;
        FOREACH op IN ARRAY ARRAY['lt', 'le', 'gt', 'ge', 'ts_gt', 'ts_ge', 'ts_lt', 'ts_le'] LOOP
            cond := CASE op WHEN 'lt' THEN 'id < $1' WHEN 'le' THEN 'id <= $1'
                            WHEN 'gt' THEN 'id > $1' WHEN 'ge' THEN 'id >= $1'
                            WHEN 'ts_gt' THEN '$1 > id' WHEN 'ts_ge' THEN '$1 >= id'
                            WHEN 'ts_lt' THEN '$1 < id' ELSE '$1 <= id' END;
            EXECUTE format('SELECT count(*) FROM part_truth WHERE ts = $1 AND %I', op) INTO truth USING p;
            EXECUTE 'SELECT count(*) FROM part WHERE ' || cond INTO n_part USING p;
            EXECUTE 'SELECT count(*) FROM flat WHERE ' || cond INTO n_flat USING p;
            -- the timestamp as a literal in the query text, too
            EXECUTE 'SELECT count(*) FROM part WHERE '
                    || replace(cond, '$1', quote_literal(p::text) || '::timestamptz') INTO n_lit;
            comparisons := comparisons + 1;
            IF n_part <> truth OR n_flat <> truth OR n_lit <> truth THEN
                disagreements := disagreements + 1;
                RAISE NOTICE 'disagreement at % %: truth %, partitioned %, flat %, literal %',
                             p, op, truth, n_part, n_flat, n_lit;
            END IF;
        END LOOP;
    END LOOP;
END
$$;
SELECT * FROM part_compare();
-- the truth table is not trivial: per operator, how many pairs hold
SELECT count(*) AS pairs, count(*) FILTER (WHERE lt) AS lt, count(*) FILTER (WHERE le) AS le,
       count(*) FILTER (WHERE gt) AS gt, count(*) FILTER (WHERE ge) AS ge,
       bool_and(lt = ts_gt AND le = ts_ge AND gt = ts_lt AND ge = ts_le) AS commuted_agree,
       bool_and(lt = NOT ge AND le = NOT gt) AS negations_agree
FROM part_truth;
-- and the same with the planner kept from pruning and from indexes
SET enable_partition_pruning = off;
SELECT * FROM part_compare();
RESET enable_partition_pruning;

--
-- now(): a table with a partition of old IDs, one from two days ago to
-- tomorrow, and one of the future; the last hour is in the middle one
--
DO $$
BEGIN
    EXECUTE format('CREATE TABLE part_now (id idgen NOT NULL) PARTITION BY RANGE (id)');
    EXECUTE format('CREATE TABLE part_now_old PARTITION OF part_now FOR VALUES FROM (MINVALUE) TO (%L)',
                   idgen_min_at(now() - interval '2 days'));
    EXECUTE format('CREATE TABLE part_now_recent PARTITION OF part_now FOR VALUES FROM (%L) TO (%L)',
                   idgen_min_at(now() - interval '2 days'), idgen_min_at(now() + interval '1 day'));
    EXECUTE format('CREATE TABLE part_now_future PARTITION OF part_now FOR VALUES FROM (%L) TO (MAXVALUE)',
                   idgen_min_at(now() + interval '1 day'));
END
$$;
INSERT INTO part_now SELECT idgen_next() FROM generate_series(1, 10);
INSERT INTO part_now VALUES (idgen_min_at(now() - interval '3 days')), (idgen_max_at(now() - interval '2 hours'));
EXPLAIN (COSTS OFF) SELECT count(*) FROM part_now WHERE id >= now() - interval '1 hour';
EXPLAIN (COSTS OFF) SELECT count(*) FROM part_now WHERE now() - interval '1 hour' <= id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part_now WHERE id < now() - interval '2 days 1 hour';
SELECT (SELECT count(*) FROM part_now WHERE id >= now() - interval '1 hour') AS last_hour,
       (SELECT count(*) FROM part_now WHERE id < now() - interval '1 hour') AS before_last_hour,
       (SELECT count(*) FROM part_now WHERE id < now() - interval '2 days 1 hour') AS before_two_days;
-- with an index on each partition, the kept partitions are index scans
CREATE INDEX ON part_now (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM part_now WHERE id >= now() - interval '1 hour';
RESET enable_seqscan;
RESET enable_bitmapscan;

--
-- idgen128: partitions of UUIDv7 IDs by day; its bound functions do not
-- depend on the layout (IMMUTABLE), so a constant is pruned when planning
--
CREATE TABLE part128 (id idgen128 NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE part128_old PARTITION OF part128
    FOR VALUES FROM (MINVALUE) TO (idgen128_min_at('2026-03-01 00:00:00+00'));
CREATE TABLE part128_d1 PARTITION OF part128
    FOR VALUES FROM (idgen128_min_at('2026-03-01 00:00:00+00')) TO (idgen128_min_at('2026-03-02 00:00:00+00'));
CREATE TABLE part128_d2 PARTITION OF part128
    FOR VALUES FROM (idgen128_min_at('2026-03-02 00:00:00+00')) TO (idgen128_min_at('2026-03-03 00:00:00+00'));
CREATE TABLE part128_new PARTITION OF part128
    FOR VALUES FROM (idgen128_min_at('2026-03-03 00:00:00+00')) TO (MAXVALUE);
CREATE TABLE flat128 (id idgen128 PRIMARY KEY);
INSERT INTO flat128
SELECT DISTINCT v FROM part_ms, LATERAL (VALUES (idgen128_min_at(ms)), (idgen128_max_at(ms))) AS x(v);
INSERT INTO flat128 VALUES ('00000000-0000-7000-8000-000000000000'), ('ffffffff-ffff-7fff-bfff-ffffffffffff')
ON CONFLICT DO NOTHING;
INSERT INTO part128 SELECT id FROM flat128;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part128 WHERE id >= '2026-03-02 06:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part128 WHERE id < '2026-03-02 00:00:00+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part128 WHERE id <= '2026-03-01 23:59:59.9995+00'::timestamptz;
EXPLAIN (COSTS OFF) SELECT count(*) FROM part128 WHERE now() - interval '1 hour' < id;
-- the same answers as the whole table, for every probe and operator
SELECT count(*) AS comparisons,
       count(*) FILTER (WHERE
           (SELECT count(*) FROM part128 WHERE id < p.ts) <> (SELECT count(*) FROM flat128 f WHERE idgen_timestamp(f.id) < date_trunc('milliseconds', p.ts))
        OR (SELECT count(*) FROM part128 WHERE id <= p.ts) <> (SELECT count(*) FROM flat128 f WHERE idgen_timestamp(f.id) <= date_trunc('milliseconds', p.ts))
        OR (SELECT count(*) FROM part128 WHERE id > p.ts) <> (SELECT count(*) FROM flat128 f WHERE idgen_timestamp(f.id) > date_trunc('milliseconds', p.ts))
        OR (SELECT count(*) FROM part128 WHERE id >= p.ts) <> (SELECT count(*) FROM flat128 f WHERE idgen_timestamp(f.id) >= date_trunc('milliseconds', p.ts)))
           AS disagreements
FROM part_probe p WHERE p.ts NOT IN ('-infinity', 'infinity');
SELECT (SELECT count(*) FROM part128 WHERE id < '-infinity'::timestamptz) AS below_minus_infinity,
       (SELECT count(*) FROM part128 WHERE id > '-infinity'::timestamptz) AS above_minus_infinity,
       (SELECT count(*) FROM part128 WHERE id <= 'infinity'::timestamptz) AS up_to_infinity,
       (SELECT count(*) FROM part128 WHERE id >= 'infinity'::timestamptz) AS from_infinity,
       (SELECT count(*) FROM flat128) AS all_rows;

--
-- What the rewriting leaves alone: a stored expression keeps the time
-- operator (an index on it is allowed: it is immutable); so does a query
-- on a table without partitions, where the operator's index support
-- serves and a partial index on a time predicate still matches it; and a
-- view shows what was written
--
CREATE TABLE part_expr (id idgen, after_noon boolean GENERATED ALWAYS AS (id >= '2026-03-02 12:00:00+00'::timestamptz) STORED);
CREATE INDEX part_expr_idx ON part_expr ((id < '2026-03-02 12:00:00+00'::timestamptz));
INSERT INTO part_expr (id) VALUES (idgen_min_at('2026-03-02 11:59:59.999+00')), (idgen_min_at('2026-03-02 12:00:00+00'));
SELECT idgen_timestamp(id) AS ts, after_noon FROM part_expr ORDER BY id;
CREATE INDEX part_expr_recent ON part_expr (id) WHERE id >= '2026-03-02 12:00:00+00'::timestamptz;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM part_expr WHERE id >= '2026-03-02 12:00:00+00'::timestamptz;
SELECT idgen_timestamp(id) AS ts FROM part_expr WHERE id >= '2026-03-02 12:00:00+00'::timestamptz;
RESET enable_seqscan;
CREATE VIEW part_recent AS SELECT id FROM part WHERE id >= now() - interval '1 day';
SELECT pg_get_viewdef('part_recent'::regclass);
DROP VIEW part_recent;

DROP TABLE part, flat, part_ms, part_probe, part_truth, part_now, part128, flat128, part_expr;
DROP FUNCTION part_compare();
RESET timezone;
