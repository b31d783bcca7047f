-- idgen_generate: IDs from this node's generator, in one session.
-- No other session generates while this test runs, so the counters of
-- idgen_status() move only by what this file issues.  Raw IDs and times
-- are never printed: only facts about them.
SET timezone = 'UTC';

-- the node is up, with the default identity: region 0, workers 0-15
SELECT state, reason, region, worker, workers, generation >= 1 AS leased,
       lease_until > wall_clock AS lease_valid, high_water IS NOT NULL AS has_high_water,
       horizon, wall_clock IS NOT NULL AS has_wall_clock
FROM idgen_status();

SELECT ids_issued AS ids_0, batches AS batches_0 FROM idgen_status() \gset

--
-- idgen_next()
--
-- 10000 IDs in one statement, in row order: strictly ascending, distinct
CREATE TEMP TABLE gen_one AS
SELECT g AS n, idgen_next() AS id FROM generate_series(1, 10000) AS g;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS not_ascending,
       count(*) FILTER (WHERE id IS NULL) AS nulls
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM gen_one) s;
-- ascending across statements too
DO $$
DECLARE
    prev idgen := idgen_next();
    cur idgen;
    bad integer := 0;
BEGIN
    FOR i IN 1 .. 10000 LOOP
        cur := idgen_next();
        IF cur <= prev THEN
            bad := bad + 1;
        END IF;
        prev := cur;
    END LOOP;
    RAISE NOTICE '10000 calls to idgen_next(): % not above the one before', bad;
END
$$;
-- later statements give larger IDs than every ID before
SELECT idgen_next() > max(id) AS next_above_all FROM gen_one;

-- what a generated ID is made of: this node's region and workers, epoch 1,
-- and the time it was issued
SELECT count(*) AS ids,
       count(*) FILTER (WHERE d.region = 0) AS region_0,
       count(*) FILTER (WHERE d.worker BETWEEN 0 AND 15) AS worker_0_to_15,
       count(*) FILTER (WHERE d.seq BETWEEN 0 AND 4095) AS seq_in_range,
       count(*) FILTER (WHERE d.epoch = 1) AS epoch_1,
       count(*) FILTER (WHERE d.ts = idgen_timestamp(g.id)) AS ts_agrees,
       count(*) FILTER (WHERE idgen_min_at(d.ts) <= g.id AND g.id <= idgen_max_at(d.ts)) AS within_its_ms
FROM gen_one g, idgen_decode(g.id) d;
-- issued within a few seconds of now (the logical clock may lead the wall
-- clock by at most idgen.max_drift = 1 s)
SELECT ts BETWEEN statement_timestamp() - interval '1 minute' AND clock_timestamp() + interval '2 seconds'
       AS ts_is_now,
       region, worker BETWEEN 0 AND 15 AS worker_0_to_15, epoch
FROM idgen_decode(idgen_next());
SELECT idgen_timestamp(idgen_next()) >= '2025-01-01 00:00:00+00' AS after_epoch,
       pg_typeof(idgen_next()) AS type;

--
-- A table with an idgen primary key
--
CREATE TABLE gen_t (id idgen PRIMARY KEY DEFAULT idgen_next(), v text);
INSERT INTO gen_t (v) SELECT 'row ' || g FROM generate_series(1, 1000) AS g;
INSERT INTO gen_t (v) VALUES ('one more') RETURNING id > 0 AS got_id, v;
-- rows sort by ID in insertion order
SELECT count(*) AS rows_in_order
FROM (SELECT v, row_number() OVER (ORDER BY id) AS r FROM gen_t WHERE v LIKE 'row %') s
WHERE v = 'row ' || r;
-- look rows up by ID
SELECT v FROM gen_t WHERE id = (SELECT id FROM gen_t WHERE v = 'row 500');
SELECT v FROM gen_t WHERE id = (SELECT id FROM gen_t WHERE v = 'row 500')::bigint;
SELECT count(*) FROM gen_t WHERE id > (SELECT id FROM gen_t WHERE v = 'row 990');
-- an explicit ID still goes through the unique index
INSERT INTO gen_t VALUES (42, 'explicit');
INSERT INTO gen_t VALUES (42, 'again');
SELECT v FROM gen_t WHERE id = 42;
\set VERBOSITY terse
INSERT INTO gen_t VALUES ((SELECT id FROM gen_t WHERE v = 'row 1'), 'duplicate of row 1');
\set VERBOSITY default
DELETE FROM gen_t WHERE id = 42;

--
-- idgen_next_batch(n)
--
SELECT idgen_next() AS before_batch \gset
CREATE TEMP TABLE gen_batch AS
SELECT n, id FROM idgen_next_batch(1000) WITH ORDINALITY AS b(id, n);
SELECT idgen_next() AS after_batch \gset
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS not_ascending,
       bool_and(id > :'before_batch'::idgen) AS all_above_before,
       bool_and(id < :'after_batch'::idgen) AS all_below_after
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM gen_batch) s;
-- many times over, mostly within one millisecond: a batch's IDs are the
-- ones it reserved, so the next ID is above all of them
DO $$
DECLARE
    batch_max idgen;
    batch_n bigint;
    next_id idgen;
    bad integer := 0;
    dups integer := 0;
BEGIN
    FOR i IN 1 .. 200 LOOP
        SELECT max(b), count(*) INTO batch_max, batch_n FROM idgen_next_batch(1 + i % 7) AS b;
        next_id := idgen_next();
        IF next_id <= batch_max OR batch_n <> 1 + i % 7 THEN
            bad := bad + 1;
        END IF;
        IF next_id = batch_max THEN
            dups := dups + 1;
        END IF;
    END LOOP;
    RAISE NOTICE '200 batches: % with an ID not below the next idgen_next(), % sharing an ID with it',
        bad, dups;
END
$$;
-- and every ID of a batch lies above the ID issued just before it
DO $$
DECLARE
    before_id idgen;
    batch_min idgen;
    bad integer := 0;
BEGIN
    FOR i IN 1 .. 200 LOOP
        before_id := idgen_next();
        SELECT min(b) INTO batch_min FROM idgen_next_batch(3) AS b;
        IF batch_min <= before_id THEN
            bad := bad + 1;
        END IF;
    END LOOP;
    RAISE NOTICE '200 batches: % with an ID not above the idgen_next() before', bad;
END
$$;
-- the batch's IDs decode like any other
SELECT count(*) FILTER (WHERE d.region = 0 AND d.worker BETWEEN 0 AND 15 AND d.epoch = 1) AS well_formed
FROM gen_batch g, idgen_decode(g.id) d;
-- no overlap with the IDs of idgen_next()
SELECT count(*) AS overlap FROM gen_batch b JOIN gen_one o ON o.id = b.id;

-- more than one millisecond holds (16 workers x 4096 = 65536 per ms)
CREATE TEMP TABLE gen_big AS
SELECT n, id FROM idgen_next_batch(200000) WITH ORDINALITY AS b(id, n);
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS not_ascending,
       count(DISTINCT idgen_timestamp(id)) >= 4 AS spans_4_or_more_ms,
       min(id) > (SELECT max(id) FROM gen_batch) AS above_earlier_batch
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM gen_big) s;
SELECT count(*) FILTER (WHERE d.region = 0 AND d.worker BETWEEN 0 AND 15 AND d.epoch = 1) AS well_formed
FROM gen_big g, idgen_decode(g.id) d;

-- a batch in the select list, and two batches in one statement
SELECT count(*) AS ids, count(DISTINCT x) AS distinct_ids
FROM (SELECT idgen_next_batch(10) AS x UNION ALL SELECT idgen_next_batch(10)) s;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids
FROM (SELECT id FROM idgen_next_batch(5) AS id UNION ALL SELECT id FROM idgen_next_batch(5) AS id) s;

-- edge cases
SELECT count(*) AS zero_batch FROM idgen_next_batch(0);
SELECT count(*) AS one_batch FROM idgen_next_batch(1);
SELECT count(*) AS null_batch FROM idgen_next_batch(NULL);
SELECT * FROM idgen_next_batch(-1);
SELECT * FROM idgen_next_batch(-2147483648);
SELECT * FROM idgen_next_batch(2000000000);
SELECT * FROM idgen_next_batch(2147483647);
-- the largest batch is (max_drift + 1) ms worth: 1001 x 65536 = 65601536
SELECT * FROM idgen_next_batch(65601537);

--
-- Time-range queries on the primary key
--
CREATE TABLE gen_events (id idgen PRIMARY KEY DEFAULT idgen_next(), phase text);
INSERT INTO gen_events (phase) SELECT 'early' FROM generate_series(1, 300);
-- sleeps only separate the phases by whole milliseconds; nothing is timed
SELECT pg_sleep(0.02);
SELECT clock_timestamp() AS t1 \gset
INSERT INTO gen_events (phase) SELECT 'middle' FROM generate_series(1, 500);
SELECT clock_timestamp() AS t2 \gset
SELECT pg_sleep(0.02);
INSERT INTO gen_events (phase) SELECT 'late' FROM generate_series(1, 200);
VACUUM ANALYZE gen_events;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM gen_events
WHERE id BETWEEN idgen_min_at('2025-06-01 00:00:00+00') AND idgen_max_at('2025-06-01 00:00:01+00');
EXPLAIN (COSTS OFF)
SELECT phase FROM gen_events
WHERE id >= idgen_min_at('2025-06-01 00:00:00+00') AND id < idgen_min_at('2025-06-01 00:00:01+00');
SELECT phase, count(*) FROM gen_events
WHERE id BETWEEN idgen_min_at(:'t1') AND idgen_max_at(:'t2')
GROUP BY phase ORDER BY phase COLLATE "C";
SELECT phase, count(*) FROM gen_events
WHERE id > idgen_max_at(:'t2')
GROUP BY phase ORDER BY phase COLLATE "C";
SELECT phase, count(*) FROM gen_events
WHERE id < idgen_min_at(:'t1')
GROUP BY phase ORDER BY phase COLLATE "C";
RESET enable_seqscan;
RESET enable_bitmapscan;
-- the same answer without the index
SELECT count(*) FROM gen_events
WHERE idgen_timestamp(id) BETWEEN date_trunc('milliseconds', :'t1'::timestamptz)
                              AND date_trunc('milliseconds', :'t2'::timestamptz);

--
-- idgen_status() counters
--
-- ids_issued and batches grew by exactly what this file issued
SELECT ids_issued - :ids_0 AS ids_issued_here, batches - :batches_0 AS batches_here
FROM idgen_status();
SELECT ids_issued AS ids_1, batches AS batches_1 FROM idgen_status() \gset
SELECT count(idgen_next()) FROM generate_series(1, 7);
SELECT count(*) FROM idgen_next_batch(5);
SELECT count(*) FROM idgen_next_batch(3);
-- refused calls issue nothing
SELECT count(*) FROM idgen_next_batch(-1);
SELECT count(*) FROM idgen_next_batch(2000000000);
SELECT state, ids_issued - :ids_1 AS ids_issued_delta, batches - :batches_1 AS batches_delta,
       logical_clock IS NOT NULL AS has_logical_clock,
       drift_ms BETWEEN -60000 AND 1000 AS drift_within_bounds
FROM idgen_status();

DROP TABLE gen_t, gen_events;
RESET timezone;
