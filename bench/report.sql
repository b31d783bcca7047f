-- bench/report.sql: the summary of bench.result as markdown, on stdout.
-- Medians over the measured rounds (round 0, the warm-up, is left out).
-- psql variable: PGBENCH_CLIENTS.

\set ON_ERROR_STOP 1

-- median per micro variant, and the per-ID figures the ratios use
CREATE TEMP VIEW micro AS
SELECT v.ord, v.name, v.n, v.query,
	   percentile_cont(0.5) WITHIN GROUP (ORDER BY r.elapsed_us) AS med_us,
	   min(r.elapsed_us) AS min_us,
	   max(r.elapsed_us) AS max_us,
	   count(*) AS rounds,
	   sum(r.seq_exhaustions) AS seq_exhaustions,
	   sum(r.clock_waits) AS clock_waits,
	   percentile_cont(0.5) WITHIN GROUP (ORDER BY r.elapsed_us) * 1000.0 / v.n AS ns_per_id
FROM bench.variant AS v
JOIN bench.result AS r ON r.section = 'micro' AND r.variant = v.name AND r.round > 0
GROUP BY v.ord, v.name, v.n, v.query;

CREATE TEMP VIEW floor_ns AS
SELECT ns_per_id FROM micro WHERE name = 'floor';

\echo '## Per-ID cost, server-side (median of the rounds)'
\echo
\echo 'Each query timed inside a plpgsql function (clock_timestamp() around EXECUTE), work_mem = 1GB so every FunctionScan tuplestore stays in memory. "over floor" subtracts the floor query per row.'
\echo
SELECT bench.md_table($q$
	SELECT m.name AS "variant",
		   replace(m.query, '$N', 'N') AS "query",
		   to_char(m.n, 'FM9,999,999,999') AS "N",
		   m.rounds AS "rounds",
		   to_char(m.med_us / 1000.0, 'FM999,990.0') AS "median ms",
		   to_char(m.min_us / 1000.0, 'FM999,990.0') || '–' ||
			   to_char(m.max_us / 1000.0, 'FM999,990.0') AS "min–max ms",
		   to_char(m.ns_per_id, 'FM999,990.0') AS "ns/ID",
		   CASE WHEN m.name = 'floor' THEN ''
				ELSE to_char(m.ns_per_id - f.ns_per_id, 'FM999,990.0') END AS "ns/ID over floor",
		   to_char(1e9 / m.ns_per_id / 1e6, 'FM999,990.00') AS "M IDs/s"
	FROM micro AS m, floor_ns AS f
	ORDER BY m.ord
$q$);
\echo

\echo '## Ratios (per ID, medians)'
\echo
\echo '"net of floor" compares the costs above the floor query; "fastest runs" compares each variant''s fastest round, the one least disturbed by anything else on the machine. bench.uuidv7_sql() is a UUIDv7 built in SQL from clock_timestamp() and gen_random_uuid() with overlay() and set_bit() (see setup.sql).'
\echo
SELECT bench.md_table($q$
	WITH x AS (SELECT name, ns_per_id AS ns, min_us * 1000.0 / n AS best_ns FROM micro),
	pairs (ord, label, num, den, op, target) AS (VALUES
		(1, 'idgen_next() / random()', 'idgen_next()', 'random()', '≤', 1.25),
		(2, 'nextval CACHE 1 / idgen_next()', 'nextval CACHE 1', 'idgen_next()', '≥', 2.2),
		(3, 'gen_random_uuid() / idgen_next()', 'gen_random_uuid()', 'idgen_next()', '≥', 9),
		(4, 'idgen_next_batch(N) / floor generate_series', 'idgen_next_batch(N)', 'floor', '≤', 1.2),
		(5, 'nextval CACHE 1000 / idgen_next() (info)', 'nextval CACHE 1000', 'idgen_next()', NULL, NULL),
		(6, 'gen_random_uuid() / idgen_next128()', 'gen_random_uuid()', 'idgen_next128()', '≥', 5),
		(7, 'bench.uuidv7_sql() / idgen_next128()', 'bench.uuidv7_sql()', 'idgen_next128()', '≥', 4),
		(8, 'idgen_next128() / idgen_next() (info)', 'idgen_next128()', 'idgen_next()', NULL, NULL))
	SELECT p.label AS "ratio",
		   to_char(a.ns / b.ns, 'FM990.000') AS "measured",
		   coalesce(p.op || ' ' || p.target, '') AS "target",
		   CASE WHEN p.op = '≤' THEN CASE WHEN a.ns / b.ns <= p.target THEN 'yes' ELSE 'NO' END
				WHEN p.op = '≥' THEN CASE WHEN a.ns / b.ns >= p.target THEN 'yes' ELSE 'NO' END
				ELSE '' END AS "within target",
		   CASE WHEN p.den = 'floor' THEN ''
				ELSE to_char((a.ns - f.ns_per_id) / nullif(b.ns - f.ns_per_id, 0), 'FM990.000')
		   END AS "same, net of floor",
		   to_char(a.best_ns / b.best_ns, 'FM990.000') AS "fastest runs"
	FROM pairs AS p
	JOIN x AS a ON a.name = p.num
	JOIN x AS b ON b.name = p.den
	CROSS JOIN floor_ns AS f
	ORDER BY p.ord
$q$);
\echo

\echo '## IDs ahead of the wall clock'
\echo
\echo 'In ms, negative: behind. An ID''s time is idgen_timestamp(id), the start of its millisecond, so each figure reads up to 1 ms low. "batch lead" is the lead one idgen_next_batch(N) reserves at once (N / IDs per ms).'
\echo
SELECT bench.md_table($q$
	WITH w (ord, what, statement, measured_as, target) AS (VALUES
		(1, 'newest', 'SELECT max(idgen_next()) FROM generate_series(1, N)',
		 'newest ID''s time - clock_timestamp() right after the statement', 5),
		(2, 'per row', 'SELECT max(idgen_timestamp(idgen_next()) - clock_timestamp()) FROM generate_series(1, N)',
		 'max over the IDs of (ID''s time - clock_timestamp() right after it)', NULL),
		(3, 'batch lead', 'SELECT max(id) FROM idgen_next_batch(N) AS id',
		 'newest ID''s time - clock_timestamp() right before the statement', NULL))
	SELECT w.what AS "measure",
		   w.statement AS "statement",
		   w.measured_as AS "measured as",
		   to_char(min(r.n), 'FM9,999,999,999') AS "N",
		   count(*) AS "runs",
		   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ahead_ms), 'FM999,990.000') AS "median ms",
		   to_char(max(r.ahead_ms), 'FM999,990.000') AS "max ms",
		   coalesce('≤ ' || w.target, '(info)') AS "target",
		   CASE WHEN w.target IS NULL THEN ''
				WHEN percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ahead_ms) <= w.target THEN 'yes'
				ELSE 'NO' END AS "within target",
		   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.elapsed_us) / 1000.0, 'FM999,990.0') AS "statement ms",
		   sum(r.seq_exhaustions) AS "sequence exhaustions",
		   sum(r.clock_waits) AS "clock waits"
	FROM w
	JOIN bench.result AS r ON r.section = 'ahead' AND r.variant = w.what
	GROUP BY w.ord, w.what, w.statement, w.measured_as, w.target
	ORDER BY w.ord
$q$);
\echo

\echo '## pgbench,' :PGBENCH_CLIENTS 'clients, -M prepared (median TPS of the rounds)'
\echo
SELECT bench.md_table($q$
	SELECT r.variant AS "script",
		   count(*) AS "rounds",
		   to_char(min(r.elapsed_us) / 1e6, 'FM9990') AS "seconds each",
		   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.tps), 'FM9,999,990') AS "median TPS",
		   string_agg(to_char(r.tps, 'FM9,999,990'), ' / ' ORDER BY r.round) AS "TPS per round",
		   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.latency_ms), 'FM990.000') AS "median latency ms",
		   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.tps) /
				   max(m.med) , 'FM990.000') AS "TPS vs idgen_next"
	FROM bench.result AS r,
		 LATERAL (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY i.tps) AS med
				  FROM bench.result AS i
				  WHERE i.section = 'pgbench' AND i.round > 0
					AND i.variant = 'SELECT idgen_next();') AS m
	WHERE r.section = 'pgbench' AND r.round > 0
	GROUP BY r.variant
	ORDER BY CASE r.variant WHEN 'SELECT idgen_next();' THEN 1
							WHEN 'SELECT nextval(''s'');' THEN 2 ELSE 3 END
$q$);
\echo

\echo '## INSERT ... SELECT g FROM generate_series(1, rows) (median of the rounds)'
\echo
\echo 'Fresh table each time, CHECKPOINT before each timed INSERT, fsync on, synchronous_commit off. Targets: the idgen key within 1.05x of the bigint identity, the idgen128 key within 1.3x of the idgen key.'
\echo
SELECT bench.md_table($q$
	WITH m AS (
		SELECT v.ord, v.name, v.tbl, v.id_column, min(r.n) AS n, count(*) AS rounds,
			   percentile_cont(0.5) WITHIN GROUP (ORDER BY r.elapsed_us) AS med_us,
			   min(r.elapsed_us) AS min_us, max(r.elapsed_us) AS max_us,
			   percentile_cont(0.5) WITHIN GROUP (ORDER BY r.pkey_bytes) AS pkey,
			   percentile_cont(0.5) WITHIN GROUP (ORDER BY r.heap_bytes) AS heap
		FROM bench.insert_variant AS v
		JOIN bench.result AS r ON r.section = 'insert' AND r.variant = v.name AND r.round > 0
		GROUP BY v.ord, v.name, v.tbl, v.id_column),
	base AS (SELECT med_us, pkey FROM m WHERE name = 'bigint identity'),
	i64 AS (SELECT med_us, pkey FROM m WHERE name = 'idgen'),
	goal (name, op, target, vs) AS (VALUES
		('idgen', '≤', 1.05, 'identity'),
		('idgen128', '≤', 1.3, 'idgen'))
	SELECT m.name AS "key",
		   format('CREATE TABLE %s (%s, v int)', m.tbl, m.id_column) AS "table",
		   to_char(m.n, 'FM9,999,999,999') AS "rows",
		   m.rounds AS "rounds",
		   to_char(m.med_us / 1000.0, 'FM999,990.0') AS "median ms",
		   to_char(m.min_us / 1000.0, 'FM999,990.0') || '–' ||
			   to_char(m.max_us / 1000.0, 'FM999,990.0') AS "min–max ms",
		   to_char(m.med_us * 1000.0 / m.n, 'FM999,990.0') AS "ns/row",
		   to_char(m.med_us / b.med_us, 'FM990.000') AS "vs identity",
		   to_char(m.med_us / i.med_us, 'FM990.000') AS "vs idgen",
		   coalesce(g.op || ' ' || g.target || ' vs ' || g.vs, '') AS "target",
		   CASE WHEN g.name IS NULL THEN ''
				WHEN (CASE g.vs WHEN 'identity' THEN m.med_us / b.med_us
								ELSE m.med_us / i.med_us END) <= g.target THEN 'yes'
				ELSE 'NO' END AS "within target",
		   to_char(m.pkey, 'FM999,999,999,999') AS "pkey bytes",
		   pg_size_pretty(m.pkey::bigint) AS "pkey size",
		   to_char(m.pkey / i.pkey, 'FM990.00') AS "pkey vs idgen",
		   CASE WHEN m.pkey = b.pkey THEN 'yes' ELSE 'no' END AS "pkey = identity's",
		   pg_size_pretty(m.heap::bigint) AS "heap size"
	FROM m CROSS JOIN base AS b CROSS JOIN i64 AS i
	LEFT JOIN goal AS g ON g.name = m.name
	ORDER BY m.ord
$q$);
