-- bench/chart.sql: the figures bench/chart.gp draws, from this run's
-- bench.result, as tab-separated lines on stdout (no header): label,
-- median ns/ID, fastest and slowest round's ns/ID, family (0 the floor,
-- 1 idgen, 2 its peers), N, and the bar's caption, formatted as the
-- report's per-ID table formats the same medians so the two agree.
-- Listed top to bottom as drawn; the floor first, so every bar reads
-- against it.

\set ON_ERROR_STOP 1

COPY (
	WITH shown (ord, name, label, family) AS (VALUES
		(1, 'floor', 'no-op floor: count(*) FROM generate_series', 0),
		(2, 'idgen_next_batch(N)', 'idgen_next_batch(N)', 1),
		(3, 'idgen_next()', 'idgen_next()', 1),
		(4, 'idgen_next128()', 'idgen_next128()', 1),
		(5, 'nextval CACHE 1000', 'nextval() CACHE 1000', 2),
		(6, 'nextval CACHE 1', 'nextval() CACHE 1', 2),
		(7, 'gen_random_uuid()', 'gen_random_uuid()', 2))
	SELECT s.label,
		   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY r.elapsed_us) * 1000.0 / v.n)::numeric, 1),
		   round(min(r.elapsed_us) * 1000.0 / v.n, 1),
		   round(max(r.elapsed_us) * 1000.0 / v.n, 1),
		   s.family,
		   v.n,
		   to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.elapsed_us) * 1000.0 / v.n,
				   'FM999,990.0') || ' ns  (' ||
			   to_char(1e9 / (percentile_cont(0.5) WITHIN GROUP (ORDER BY r.elapsed_us) * 1000.0 / v.n) / 1e6,
					   'FM999,990.00') || ' M IDs/s)'
	FROM shown AS s
	JOIN bench.variant AS v ON v.name = s.name
	JOIN bench.result AS r ON r.section = 'micro' AND r.variant = v.name AND r.round > 0
	GROUP BY s.ord, s.label, s.family, v.n
	ORDER BY s.ord
) TO STDOUT WITH (FORMAT text);
