--
-- Layout epochs: the built-in epoch, and every refusal of
-- idgen_schedule_layout() with its reason.  Switching layouts for real is
-- tested under load in test/t/061_layout_switch.pl.
--

SELECT version, start_time, boundary, region_bits, worker_bits, seq_bits, horizon
FROM idgen.epoch_boundaries;

-- layouts are scheduled in the registry only
SELECT idgen_schedule_layout(now() + interval '1 day', 3, 7, 12);

\c postgres
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS idgen;
RESET client_min_messages;

SELECT idgen_schedule_layout(NULL, 3, 7, 12);
SELECT idgen_schedule_layout(now() + interval '1 day', 3, 7, NULL);

-- field widths
SELECT idgen_schedule_layout(now() + interval '1 day', -1, 7, 12);
SELECT idgen_schedule_layout(now() + interval '1 day', 3, 7, 0);
SELECT idgen_schedule_layout(now() + interval '1 day', 23, 0, 1);

-- too soon: nodes learn of a layout when they renew their leases
\set VERBOSITY terse
SELECT idgen_schedule_layout('2026-06-01 00:00:00+00', 3, 7, 12);
\set VERBOSITY default

-- an idgen128 holds 22 bits below its time field
SELECT idgen_schedule_layout(now() + interval '1 day', 4, 7, 12);
SELECT idgen_schedule_layout(now() + interval '1 day', 0, 0, 23);

-- fewer bits below the time field: the time field must start earlier to
-- sort above the IDs before it, and here it would have to start before 1970
SELECT idgen_schedule_layout(now() + interval '1 day', 1, 4, 12);

-- the node holds workers 0-15: a 3-bit worker field cannot hold them
\set VERBOSITY terse
SELECT idgen_schedule_layout(now() + interval '1 day', 3, 3, 12);
\set VERBOSITY default

-- a time field that runs out within idgen.horizon_warning of its start
SELECT idgen_schedule_layout('2090-01-01 00:00:00+00', 3, 7, 12);
-- after the current layout's horizon nothing sorts above its IDs
SELECT idgen_schedule_layout('2095-01-01 00:00:00+00', 2, 8, 12);

-- lease functions, and so this one, need READ COMMITTED
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT idgen_schedule_layout(now() + interval '1 day', 2, 8, 12);
ROLLBACK;

-- not for PUBLIC
CREATE ROLE idgen_layout_user;
SET ROLE idgen_layout_user;
SELECT idgen_schedule_layout(now() + interval '1 day', 2, 8, 12);
SELECT count(*) AS epochs_visible FROM idgen.epoch_boundaries;
RESET ROLE;
DROP ROLE idgen_layout_user;

-- every refusal left the catalog as it was
SELECT count(*) AS epochs FROM idgen.epoch;

-- the catalog is append-only
DELETE FROM idgen.epoch;
UPDATE idgen.epoch SET seq_bits = 13;

-- a layout two hours ahead is accepted
SELECT idgen_schedule_layout(now() + interval '2 hours', 2, 8, 12) AS epoch;
SELECT version, region_bits, worker_bits, seq_bits,
       start_time > now() + interval '119 minutes' AS two_hours_ahead,
       boundary = idgen_min_at(start_time) AS boundary_is_first_id_at_start
FROM idgen.epoch_boundaries ORDER BY version;
-- nothing may be slipped in before it
SELECT idgen_schedule_layout(now() + interval '1 hour', 3, 7, 12);

-- an outside generator's lease never spans the switch: it composes its IDs
-- with the layout it leased under
SELECT lease_until = (SELECT start_time FROM idgen.epoch WHERE version = 2) AS ends_at_switch,
       worker < 128 AS fits_every_layout
FROM idgen_lease_worker('layout-test-generator', interval '1 day') \gset
\echo :ends_at_switch :fits_every_layout
SELECT idgen_renew_worker(region, worker, generation)
       = (SELECT start_time FROM idgen.epoch WHERE version = 2) AS renewal_ends_at_switch
FROM idgen.worker_lease WHERE owner = 'layout-test-generator';
SELECT idgen_release_worker(region, worker, generation)
FROM idgen.worker_lease WHERE owner = 'layout-test-generator';
-- IDs issued now still belong to epoch 1
SELECT (idgen_decode(idgen_next())).epoch AS epoch_now;
