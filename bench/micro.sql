-- bench/micro.sql: the per-ID cost of idgen_next(), idgen_next128() and
-- their peers (setup.sql lists them), all in this one session.  psql
-- variables: ROUNDS, N.
--
-- work_mem is 1GB so every FunctionScan keeps its tuplestore (5 M rows of
-- generate_series or idgen_next_batch) in memory: no variant pays for
-- spilling to disk and the others not.
--
-- Round 0 is a warm-up at a tenth of the size, left out of the medians.
-- Rounds 1..ROUNDS run every variant once each, in an order rotated by one
-- place per round.  \gexec runs each generated statement on its own, so
-- each measurement is its own transaction.

\set ON_ERROR_STOP 1
SET work_mem = '1GB';

\echo == micro: warm-up, round 0 at N/10
SELECT format('SELECT bench.measure(0, %s, %L, %s)', v.ord - 1, v.name, greatest(v.n / 10, 1))
FROM bench.variant AS v
ORDER BY v.ord
\gexec

\echo == micro: :ROUNDS rounds, order rotated each round
SELECT format('SELECT bench.measure(%s, %s, %L)', p.round, p.pos, v.name)
FROM bench.plan(:ROUNDS, (SELECT count(*)::integer FROM bench.variant)) AS p
JOIN bench.variant AS v ON v.ord = p.ord
ORDER BY p.round, p.pos
\gexec

\echo == ahead: how far the IDs of one :N row statement run ahead of the wall clock
SELECT format('SELECT bench.measure_ahead(%s, %L, %s)', r, w, :N)
FROM generate_series(1, 3) AS r,
	 unnest(ARRAY['newest', 'per row', 'batch lead']) WITH ORDINALITY AS u(w, o)
ORDER BY r, o
\gexec
