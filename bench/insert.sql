-- bench/insert.sql: INSERT of INSERT_ROWS rows keyed by a bigint identity,
-- an idgen, a uuid and an idgen128.  psql variables: INSERT_ROUNDS,
-- INSERT_ROWS.
--
-- Each step: a fresh table, a CHECKPOINT (so no step pays for the dirty
-- buffers of the one before), the timed INSERT ... SELECT, and the table
-- dropped again, so the next one has shared_buffers to itself.  Round 0 is
-- a warm-up at a tenth of the rows.

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET work_mem = '1GB';

\echo == insert: warm-up, round 0 at a tenth of the rows
SELECT format('DROP TABLE IF EXISTS public.%I', v.tbl),
	   format('CREATE TABLE public.%I (%s, v integer)', v.tbl, v.id_column),
	   'CHECKPOINT',
	   format('SELECT bench.insert_measure(0, %s, %L, %s)', v.ord - 1, v.name,
			  greatest(:INSERT_ROWS / 10, 1)),
	   format('DROP TABLE public.%I', v.tbl)
FROM bench.insert_variant AS v
ORDER BY v.ord
\gexec

\echo == insert: :INSERT_ROUNDS rounds of :INSERT_ROWS rows, order rotated each round
SELECT format('DROP TABLE IF EXISTS public.%I', v.tbl),
	   format('CREATE TABLE public.%I (%s, v integer)', v.tbl, v.id_column),
	   'CHECKPOINT',
	   format('SELECT bench.insert_measure(%s, %s, %L, %s)', p.round, p.pos, v.name,
			  :INSERT_ROWS),
	   format('DROP TABLE public.%I', v.tbl)
FROM bench.plan(:INSERT_ROUNDS, (SELECT count(*)::integer FROM bench.insert_variant)) AS p
JOIN bench.insert_variant AS v ON v.ord = p.ord
ORDER BY p.round, p.pos
\gexec
