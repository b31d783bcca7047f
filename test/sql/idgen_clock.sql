-- idgen_clock: clock rollback, simulated with the superuser-only test
-- setting idgen.test_clock_offset (ms added to every clock reading of
-- this session).  idgen.max_drift is the default 1000 ms: the logical clock
-- may run up to 1 s ahead of the wall clock, which covers small rollbacks;
-- larger ones are refused.  Nothing is timed: each check holds for
-- hundreds of milliseconds at least.
SET timezone = 'UTC';
SHOW idgen.max_drift;
SHOW idgen.test_clock_offset;

CREATE TEMP TABLE clk (n serial, phase text, id idgen);
CREATE FUNCTION clk_issue(p text, k integer) RETURNS void LANGUAGE sql AS
$$ INSERT INTO clk (phase, id) SELECT p, idgen_next() FROM generate_series(1, k) $$;
-- ascending in issue order, over all phases so far
CREATE VIEW clk_check AS
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS not_ascending
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM clk) s;

-- before: the clock is right
SELECT clk_issue('before', 100);
SELECT state, clock_rollbacks AS rollbacks_0, clock_refusals AS refusals_0 FROM idgen_status() \gset
SELECT :'state' AS state;

-- the clock jumps 600 ms forward: harmless, IDs follow it
SET idgen.test_clock_offset = 600;
SELECT clk_issue('ahead', 100);

-- then back to 300 ms behind true time: 900 ms back from the last IDs,
-- within idgen.max_drift, so the node keeps issuing from its logical clock
SET idgen.test_clock_offset = -300;
SELECT clk_issue('behind 300 ms', 100);
SELECT * FROM clk_check;
SELECT (SELECT min(id) FROM clk WHERE phase = 'behind 300 ms') >
       (SELECT max(id) FROM clk WHERE phase IN ('before', 'ahead')) AS above_all_earlier;
-- a batch too
INSERT INTO clk (phase, id) SELECT 'behind 300 ms, batch', id FROM idgen_next_batch(50) AS id;
SELECT * FROM clk_check;
-- the rollback was seen, and the logical clock is ahead of the wall clock
SELECT state, clock_rollbacks > :rollbacks_0 AS rollback_counted,
       drift_ms > 0 AS logical_clock_ahead, drift_ms <= 1000 AS within_max_drift,
       logical_clock > wall_clock AS logical_after_wall,
       clock_refusals = :refusals_0 AS nothing_refused
FROM idgen_status();

-- 5 s behind: too far; the node refuses rather than risk a duplicate
SET idgen.test_clock_offset = -5000;
DO $$
BEGIN
    PERFORM idgen_next();
    RAISE NOTICE 'idgen_next() issued an ID 5 s behind the logical clock';
EXCEPTION WHEN others THEN
    RAISE NOTICE 'idgen_next() refused: SQLSTATE %, message as expected: %', SQLSTATE,
        SQLERRM ~ '^system clock is \d+ ms behind the idgen logical clock$';
END
$$;
DO $$
DECLARE
    st text;
    msg text;
    det text;
    hint text;
BEGIN
    PERFORM count(*) FROM idgen_next_batch(10);
    RAISE NOTICE 'idgen_next_batch(10) issued IDs 5 s behind the logical clock';
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RAISE NOTICE 'idgen_next_batch(10) refused: SQLSTATE %', st;
    RAISE NOTICE 'message is "system clock is <n> ms behind the idgen logical clock": %',
        msg ~ '^system clock is \d+ ms behind the idgen logical clock$';
    RAISE NOTICE 'behind by more than 3 s: %',
        substring(msg FROM '(\d+) ms behind')::bigint > 3000;
    RAISE NOTICE 'detail names idgen.max_drift: %', det LIKE '%idgen.max_drift (1000 ms)%';
    RAISE NOTICE 'hint: %', hint;
END
$$;
-- nothing was issued; the refusals are counted and the state says why
SELECT count(*) AS ids_so_far FROM clk;
SELECT state, clock_refusals - :refusals_0 AS refusals_added,
       drift_ms > 1000 AS logical_clock_far_ahead
FROM idgen_status();
-- decoding and the types still work while generation is refused
-- (132271570948194304 = 31536000001 << 22: 1 ms into 2026, where the IDs a
-- node generates begin; 4194304, 1 ms into 2025, is a range-space ID)
SELECT idgen_timestamp('132271570948194304'::idgen) AS one_ms_after_2026,
       (idgen_decode('4194304'::idgen)).epoch AS range_space_epoch, '42'::idgen = 42 AS types_work;

-- the clock is right again: the node issues, above everything before
RESET idgen.test_clock_offset;
SELECT clk_issue('after', 100);
SELECT * FROM clk_check;
SELECT (SELECT min(id) FROM clk WHERE phase = 'after') >
       (SELECT max(id) FROM clk WHERE phase <> 'after') AS above_all_earlier;
SELECT state, drift_ms <= 1000 AS within_max_drift FROM idgen_status();
SELECT phase, count(*) FROM clk GROUP BY phase ORDER BY min(n);

--
-- Only a superuser may move the clock
--
CREATE ROLE regress_idgen_clock_user;
SET ROLE regress_idgen_clock_user;
SET idgen.test_clock_offset = -1000;
DO $$
BEGIN
    SET idgen.test_clock_offset = 0;
    RAISE NOTICE 'a non-superuser set idgen.test_clock_offset';
EXCEPTION WHEN others THEN
    RAISE NOTICE 'SET idgen.test_clock_offset refused: SQLSTATE %', SQLSTATE;
END
$$;
SELECT set_config('idgen.test_clock_offset', '-1000', false);
SHOW idgen.test_clock_offset;
-- generating needs no privilege
SELECT idgen_next() > 0 AS ordinary_role_generates;
RESET ROLE;
DROP ROLE regress_idgen_clock_user;

DROP VIEW clk_check;
DROP FUNCTION clk_issue(text, integer);
RESET timezone;
-- leave the node's logical clock no longer ahead of the wall clock, so the
-- tests after this one see IDs at the real time
DO $$
BEGIN
    WHILE (SELECT logical_clock > clock_timestamp() FROM idgen_status()) LOOP
        PERFORM pg_sleep(0.05);
    END LOOP;
END
$$;
