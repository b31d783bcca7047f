-- idgen_aggregate: min() and max() of idgen and idgen128 (new in 0.6).
-- They return the type itself, so idgen_timestamp(max(id)) works; their
-- sort operators let the planner answer them from the btree index with a
-- one-row index scan (an InitPlan with a Limit) instead of reading the table.
-- (idgen_aggregate_1.out is the output on PostgreSQL 17 and later, whose
-- EXPLAIN prints "InitPlan 1" without "(returns $0)" and leaves out the
-- IS NOT NULL index condition on a NOT NULL column)
SET timezone = 'UTC';

-- the aggregates in the catalog: each has the type's own > or < as its sort
-- operator, is its own combine function and is parallel safe
SELECT a.aggfnoid::regprocedure AS aggregate, p.prorettype::regtype AS returns,
       a.aggtransfn, a.aggcombinefn, a.aggsortop::regoperator AS sortop,
       a.aggtranstype::regtype AS state, p.proparallel AS parallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proargtypes[0] IN ('idgen'::regtype, 'idgen128'::regtype)
ORDER BY p.proargtypes[0]::regtype::text COLLATE "C", p.proname COLLATE "C";
-- the support functions
SELECT p.oid::regprocedure AS function, p.prorettype::regtype AS returns,
       p.provolatile AS volatility, p.proisstrict AS strict, p.proparallel AS parallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p
WHERE p.proname IN ('idgen_larger', 'idgen_smaller', 'idgen128_larger', 'idgen128_smaller')
ORDER BY p.proname COLLATE "C";

-- IDs of known times: one per hour of 2026-03-01, in both types; and a
-- bigint column beside, whose max() stays bigint's
CREATE TABLE agg64 (id idgen PRIMARY KEY, n bigint NOT NULL, grp int NOT NULL);
INSERT INTO agg64
SELECT idgen_min_at('2026-03-01 00:00:00+00'::timestamptz + h * interval '1 hour'), h, h % 3
FROM generate_series(0, 23) h;
CREATE TABLE agg128 (id idgen128 PRIMARY KEY, grp int NOT NULL);
INSERT INTO agg128
SELECT idgen128_min_at('2026-03-01 00:00:00+00'::timestamptz + h * interval '1 hour'), h % 3
FROM generate_series(0, 23) h;
ANALYZE agg64;
ANALYZE agg128;

-- what max() and min() resolve to: the type itself for the ID columns,
-- bigint for a bigint column and for an ID cast to bigint
SELECT pg_typeof(max(id)) AS max64, pg_typeof(min(id)) AS min64,
       pg_typeof(max(n)) AS max_bigint, pg_typeof(max(id::bigint)) AS max_cast
FROM agg64;
SELECT pg_typeof(max(id)) AS max128, pg_typeof(min(id)) AS min128 FROM agg128;
-- a uuid has no max() in PostgreSQL 15, and the cast from uuid to idgen128
-- is explicit, so a uuid does not reach idgen128's: still an error
SELECT max(id::uuid) FROM agg128;

-- the values, and their times
SELECT min(id) = idgen_min_at('2026-03-01 00:00:00+00') AS min_is_first,
       max(id) = idgen_min_at('2026-03-01 23:00:00+00') AS max_is_last,
       idgen_timestamp(min(id)) AS first_ts, idgen_timestamp(max(id)) AS last_ts
FROM agg64;
SELECT min(id), max(id), idgen_timestamp(min(id)) AS first_ts, idgen_timestamp(max(id)) AS last_ts
FROM agg128;
-- per group, and with a filter
SELECT grp, idgen_timestamp(min(id)) AS first_ts, idgen_timestamp(max(id)) AS last_ts, count(*)
FROM agg64 GROUP BY grp ORDER BY grp;
SELECT grp, idgen_timestamp(min(id)) AS first_ts, idgen_timestamp(max(id)) AS last_ts, count(*)
FROM agg128 GROUP BY grp ORDER BY grp;
SELECT idgen_timestamp(max(id) FILTER (WHERE grp = 1)) AS last_of_1 FROM agg64;
-- no rows, or only NULLs: NULL
SELECT max(id) AS max64, min(id) AS min64 FROM agg64 WHERE false;
SELECT max(id) AS max128, min(id) AS min128 FROM agg128 WHERE false;
SELECT max(v) AS max64, min(w) AS min128
FROM (VALUES (NULL::idgen, NULL::idgen128), (NULL, NULL)) AS t(v, w);
-- the ends of the range of each type
SELECT max(v) AS max64, min(v) AS min64
FROM (VALUES ('0'::idgen), ('9223372036854775807'), ('1')) AS t(v);
SELECT max(v) AS max128, min(v) AS min128
FROM (VALUES ('00000000-0000-7000-8000-000000000000'::idgen128),
             ('ffffffff-ffff-7fff-bfff-ffffffffffff'),
             ('019ca6b1-dc7b-7000-8000-000000000000')) AS t(v);

-- the planner answers them from the index: an InitPlan with a Limit over
-- an index-only scan, backward for max()
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT max(id) FROM agg64;
EXPLAIN (COSTS OFF) SELECT min(id) FROM agg64;
EXPLAIN (COSTS OFF) SELECT idgen_timestamp(max(id)) FROM agg64;
EXPLAIN (COSTS OFF) SELECT max(id) FROM agg128;
EXPLAIN (COSTS OFF) SELECT min(id), max(id) FROM agg128;
EXPLAIN (COSTS OFF) SELECT max(id) FROM agg64 WHERE id < '2026-03-01 12:00:00+00'::timestamptz;
-- and the answers are the same as a full scan's
SELECT (SELECT max(id) FROM agg64) = (SELECT id FROM agg64 ORDER BY id DESC LIMIT 1) AS max64_ok,
       (SELECT min(id) FROM agg128) = (SELECT id FROM agg128 ORDER BY id LIMIT 1) AS min128_ok,
       idgen_timestamp((SELECT max(id) FROM agg64 WHERE id < '2026-03-01 12:00:00+00'::timestamptz))
           AS last_before_noon;
RESET enable_seqscan;

-- in parallel: partial aggregates in the workers, combined in the leader
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
CREATE TABLE agg_par (id idgen NOT NULL, u idgen128 NOT NULL);
INSERT INTO agg_par
SELECT idgen_min_at('2026-03-01 00:00:00+00'::timestamptz + g * interval '1 second'),
       idgen128_min_at('2026-03-01 00:00:00+00'::timestamptz + g * interval '1 second')
FROM generate_series(0, 49999) g;
ANALYZE agg_par;
EXPLAIN (COSTS OFF) SELECT min(id), max(id), min(u), max(u) FROM agg_par;
SELECT idgen_timestamp(min(id)) AS min64, idgen_timestamp(max(id)) AS max64,
       idgen_timestamp(min(u)) AS min128, idgen_timestamp(max(u)) AS max128
FROM agg_par;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;

-- an untyped literal still resolves as before (to text's max)
SELECT pg_typeof(max('1')) AS max_unknown;

DROP TABLE agg64, agg128, agg_par;
RESET timezone;
