-- idgen_stats: idgen.stats counts what the generator does, 64-bit and
-- 128-bit IDs apart, and only monitoring roles may read it.  Counters are
-- compared before and after, so what earlier tests issued does not matter.
-- Nothing is timed; the one clock test leaves seconds of margin, as
-- idgen_clock does.

-- one row, about this node, and as idgen_status() sees it
SELECT count(*) AS rows FROM idgen.stats;
SELECT s.node_sysid = idgen.node_sysid() AS same_node, s.region = t.region AS same_region,
       s.worker IS NOT DISTINCT FROM t.worker AS same_worker, s.state = t.state AS same_state,
       s.started_at <= clock_timestamp() AS started_in_the_past
FROM idgen.stats AS s, idgen_status() AS t;
-- never reset yet, the generator's counters are idgen_status()'s (only
-- this session generates; the background worker's counters may move)
SELECT s.ids_idgen + s.ids_idgen128 = t.ids_issued AS ids, s.batches = t.batches AS batches,
       s.sequence_exhaustions = t.sequence_exhaustions AS exhaustions,
       s.clock_waits = t.clock_waits AS waits, s.clock_wait_ms = t.clock_wait_ms AS wait_ms,
       s.clock_rollbacks = t.clock_rollbacks AS rollbacks, s.clock_refusals = t.clock_refusals AS refusals
FROM idgen.stats AS s, idgen_status() AS t;

--
-- IDs by type and batches
--
SELECT ids_idgen AS ids64_0, ids_idgen128 AS ids128_0, batches AS batches_0 FROM idgen.stats \gset
SELECT count(idgen_next()) FROM generate_series(1, 3);
SELECT count(idgen_next128()) FROM generate_series(1, 2);
-- in FROM (the batch fills a tuplestore) and in a select list (it streams)
SELECT count(*) FROM idgen_next_batch(5);
SELECT count(*) FROM idgen_next128_batch(4);
SELECT count(x) FROM (SELECT idgen_next_batch(6) AS x) AS s;
-- an empty batch reserves nothing
SELECT count(*) FROM idgen_next_batch(0);
-- a keyed batch counts once: asked again, it is read back, not issued
SELECT count(*) FROM idgen_next_batch(7, 'idgen_stats key');
SELECT count(*) FROM idgen_next_batch(7, 'idgen_stats key');
SELECT count(*) FROM idgen_next128_batch(2, 'idgen_stats key');
SELECT count(*) FROM idgen_next128_batch(2, 'idgen_stats key');
SELECT ids_idgen - :ids64_0 AS ids64_added, ids_idgen128 - :ids128_0 AS ids128_added,
       batches - :batches_0 AS batches_added
FROM idgen.stats;
-- idgen_status() still counts both widths together
SELECT s.ids_idgen + s.ids_idgen128 = t.ids_issued AS ids_issued_is_both_widths
FROM idgen.stats AS s, idgen_status() AS t;

--
-- Reset: idgen.stats starts from zero, idgen_status() goes on counting
--
-- wait (up to 5 s) until the logical clock is not ahead of the wall clock,
-- as earlier tests may have left it
DO $$
BEGIN
    FOR i IN 1 .. 500 LOOP
        EXIT WHEN (SELECT drift_ms FROM idgen.stats) = 0;
        PERFORM pg_sleep(0.01);
    END LOOP;
END
$$;
SELECT ids_issued AS status_ids_0 FROM idgen_status() \gset
SELECT idgen.reset_stats();
SELECT ids_idgen, ids_idgen128, batches, sequence_exhaustions, clock_waits, clock_wait_ms,
       drift_ms, max_drift_ms, clock_rollbacks, clock_refusals,
       stats_reset BETWEEN started_at AND clock_timestamp() AS reset_recorded
FROM idgen.stats;
SELECT count(idgen_next()) FROM generate_series(1, 2);
SELECT ids_idgen AS ids64_since_reset FROM idgen.stats;
SELECT ids_issued - :status_ids_0 AS status_ids_added FROM idgen_status();

--
-- Drift: a batch wider than one millisecond's IDs must borrow the next
-- millisecond, so the logical clock runs at least 1 ms ahead
--
SELECT count(*) FROM idgen_next_batch((SELECT t.workers * (1 << l.seq_bits) + 1
                                       FROM idgen_status() AS t, idgen.default_layout() AS l));
SELECT max_drift_ms >= 1 AS drift_seen, max_drift_ms >= drift_ms AS max_not_below_now,
       batches AS batches_since_reset
FROM idgen.stats;

--
-- A clock 5 s behind: one rollback seen, one call refused at once (no
-- wait), and a drift of seconds noted on the way (read back with the clock
-- right again, so this view's own look does not see it)
--
SELECT clock_rollbacks AS rollbacks_0, clock_refusals AS refusals_0, clock_waits AS waits_0
FROM idgen.stats \gset
SET idgen.test_clock_offset = -5000;
DO $$
BEGIN
    PERFORM idgen_next();
    RAISE NOTICE 'idgen_next() issued an ID 5 s behind the logical clock';
EXCEPTION WHEN SQLSTATE 'IR001' THEN
    RAISE NOTICE 'idgen_next() refused';
END
$$;
RESET idgen.test_clock_offset;
SELECT clock_rollbacks - :rollbacks_0 AS rollbacks_added, clock_refusals - :refusals_0 AS refusals_added,
       clock_waits - :waits_0 AS waits_added, max_drift_ms > 1000 AS drift_of_seconds_seen
FROM idgen.stats;

--
-- Privileges: pg_monitor reads idgen.stats; PUBLIC neither reads it nor
-- calls the function behind it; only a superuser resets
--
CREATE ROLE regress_idgen_monitor IN ROLE pg_monitor;
CREATE ROLE regress_idgen_plain;
SET ROLE regress_idgen_monitor;
SELECT count(*) AS rows, bool_and(ids_idgen >= 0 AND ids_idgen128 >= 0) AS counters FROM idgen.stats;
\set VERBOSITY sqlstate
SELECT idgen.reset_stats();
SET ROLE regress_idgen_plain;
SELECT * FROM idgen.stats;
SELECT * FROM idgen.stats_counters();
SELECT idgen.reset_stats();
\set VERBOSITY default
-- what PUBLIC gets instead: idgen_status()
SELECT count(*) AS status_rows FROM idgen_status();
RESET ROLE;
SELECT has_table_privilege('regress_idgen_plain', 'idgen.stats', 'SELECT') AS plain_select,
       has_table_privilege('pg_monitor', 'idgen.stats', 'SELECT') AS monitor_select,
       has_table_privilege('pg_monitor', 'idgen.stats', 'INSERT, UPDATE, DELETE') AS monitor_write,
       has_function_privilege('pg_monitor', 'idgen.stats_counters()', 'EXECUTE') AS monitor_execute,
       has_function_privilege('pg_monitor', 'idgen.reset_stats()', 'EXECUTE') AS monitor_reset;
DROP ROLE regress_idgen_monitor;
DROP ROLE regress_idgen_plain;
