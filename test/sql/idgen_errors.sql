-- idgen_errors: every refusal reachable here, with its SQLSTATE.  The
-- codes sort refusals by what the caller should do: class IR, retry soon
-- (the clock or a lease is awaited); class IA, an operator must act; 25006,
-- never on this node (a standby).  The refusals this test cannot reach are
-- shown by TAP tests: recovery in 030_standby.pl, fenced in 040_fence.pl,
-- the horizon in 060_horizon.pl, a missing lease, the high-water mark, a
-- layout switch and a batch at the horizon in 062_refusals.pl.  (A session
-- clock moved past the horizon here would also pass the layout epoch that
-- idgen_layout schedules, and switch the whole node to it.)
SET timezone = 'UTC';
\set SHOW_CONTEXT never
-- idgen_disable() and idgen_enable() work in the node's own database, and
-- elsewhere they say so in their own words, not in the lease functions'
\set VERBOSITY default
SELECT idgen_disable('regress: in the wrong database');
SELECT idgen_enable();
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT idgen_enable();
ROLLBACK;
\c postgres
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS idgen;
RESET client_min_messages;

-- the SQLSTATE, message and hint of a refused statement, counts masked
CREATE FUNCTION pg_temp.refusal(stmt text, OUT code text, OUT message text, OUT hint text)
    LANGUAGE plpgsql AS
$$
BEGIN
    EXECUTE stmt;
    code := 'none';
    message := 'not refused';
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                            hint = PG_EXCEPTION_HINT;
    message := regexp_replace(message, '\d+ (ms|IDs)', 'N \1', 'g');
END
$$;

SELECT state FROM idgen_status();

--
-- Operator: disabled (IA001)
--
SELECT idgen_disable('regress: showing the SQLSTATE');
SELECT * FROM pg_temp.refusal('SELECT idgen_next()');
SELECT * FROM pg_temp.refusal('SELECT * FROM idgen_next_batch(3)');
SELECT * FROM pg_temp.refusal('SELECT idgen_next128()');
-- psql shows the code too
\set VERBOSITY sqlstate
SELECT idgen_next();
\set VERBOSITY default
SELECT idgen_enable();
SELECT state, idgen_next() > 0 AS issues_again FROM idgen_status();

--
-- Retry soon: the system clock is behind the logical clock (IR001)
--
SET idgen.test_clock_offset = -5000;
SELECT * FROM pg_temp.refusal('SELECT idgen_next()');
SELECT * FROM pg_temp.refusal('SELECT idgen_next128()');
RESET idgen.test_clock_offset;

--
-- Operator: the system clock is wrong, before 2026 (IA005)
--
SET idgen.test_clock_offset_days = -36500;
SELECT * FROM pg_temp.refusal('SELECT idgen_next()');
RESET idgen.test_clock_offset_days;

--
-- A handler for a class catches every code in it
--
CREATE FUNCTION pg_temp.caught_as(stmt text) RETURNS text LANGUAGE plpgsql AS
$$
BEGIN
    BEGIN
        EXECUTE stmt;
        RETURN 'issued';
    EXCEPTION
        WHEN SQLSTATE 'IR000' THEN RETURN 'retry soon';
        WHEN SQLSTATE 'IA000' THEN RETURN 'call an operator';
        WHEN read_only_sql_transaction THEN RETURN 'not on this node';
    END;
END
$$;
SET idgen.test_clock_offset = -5000;
SELECT pg_temp.caught_as('SELECT idgen_next()') AS clock_behind;
RESET idgen.test_clock_offset;
SELECT idgen_disable('regress: the class handler');
SELECT pg_temp.caught_as('SELECT idgen_next()') AS disabled;
SELECT idgen_enable();
SELECT pg_temp.caught_as('SELECT idgen_next()') AS active;

--
-- Not refusals, the caller's own mistakes: standard codes
--
SELECT * FROM pg_temp.refusal('SELECT count(*) FROM idgen_next_batch(-1)');
SELECT * FROM pg_temp.refusal('SELECT count(*) FROM idgen_next_batch(2000000000)');

SELECT state FROM idgen_status();
