--
-- A regional registry's gating (issue 22, item 2; G4, docs/regions.md):
-- with rows in idgen.held_region (which its background worker keeps when
-- idgen.parent_registry is set; simulated here) the node and outside lease
-- functions grant only in a held, valid region lease, never past its
-- validity, and above its floor; without rows nothing changes.  All in one
-- transaction rolled back, so this instance's own worker never sees a row.
--

\c postgres
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS idgen;
RESET client_min_messages;

-- a call's refusal as "SQLSTATE: message", times masked
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' ||
           regexp_replace(regexp_replace(SQLERRM, ' (at|until) .*$', ' \1 <time>'),
                          '"regional:[0-9][^"]*"', '"<this registry>"', 'g');
END
$$;
-- a node's lease in region r as a remote node asks for it (30 s)
CREATE FUNCTION pg_temp.node_lease(r integer, OUT first_worker integer,
    OUT granted interval, OUT lease_until timestamptz, OUT start_after timestamptz,
    OUT generation bigint)
    LANGUAGE sql AS $$
SELECT a.first_worker, a.lease_until - a.registry_clock, a.lease_until, a.start_after, a.generation
FROM idgen.acquire_node_lease('node:regional-test-' || r, 'regional-test-sysid-' || r, 1, r, -1, 1, 10,
                              idgen.clock(), interval '30 s', idgen.clock(), NULL, interval '0',
                              true, interval '2 s') AS a
$$;

BEGIN;

-- no rows: a registry without a parent grants as before, the whole ttl
SELECT count(*) AS held_rows FROM idgen.held_region;
SELECT first_worker >= 0 AS granted, granted = interval '30 s' AS whole_ttl
FROM pg_temp.node_lease(0);
SELECT count(*) AS status_rows FROM idgen_region_status();

-- a regional registry holding region 3 until 10 s from now, floor 1 s ahead
INSERT INTO idgen.held_region (region, owner, generation, valid_until, start_after, renewed_at)
VALUES (3, idgen.region_owner(), 7, idgen.clock() + interval '10 s',
        idgen.clock() + interval '1 s', idgen.clock());
SELECT region, owner = idgen.region_owner() AS own_name, held, generation,
       remaining > interval '9 s' AND remaining <= interval '10 s' AS remaining_10s,
       start_after > idgen.clock() AS floor_ahead, last_error
FROM idgen_region_status();

-- a grant inside it: capped at the region lease's validity, above its floor
SELECT n.first_worker >= 0 AS granted,
       n.lease_until <= h.valid_until AS ends_by_region_lease,
       n.granted <= interval '10 s' AS capped_below_ttl,
       n.start_after >= h.start_after AS above_region_floor
FROM pg_temp.node_lease(3) AS n, idgen.held_region AS h WHERE h.region = 3;

-- its renewal: capped too
SELECT r.ok, r.lease_until <= h.valid_until AS renewal_ends_by_region_lease
FROM idgen.worker_lease AS l,
     idgen.renew_node_lease(l.owner, l.region, l.worker, 1, l.generation, idgen.clock(),
                            interval '30 s', idgen.clock(), 'active', 0, interval '2 s') AS r,
     idgen.held_region AS h
WHERE l.owner = 'node:regional-test-3' AND h.region = 3;

-- the region lease was asked for node allowances of 1 s: a node that
-- asks 2 s (its max_drift plus max_skew) ends 1 s before the validity, so
-- its IDs stay within what the root adds for the next owner's floor; one
-- that asks more than the validity leaves is refused
UPDATE idgen.held_region SET node_allowance = interval '1 s' WHERE region = 3;
SELECT r.ok, r.lease_until <= h.valid_until - interval '1 s' AS renewal_ends_allowance_sooner
FROM idgen.worker_lease AS l,
     idgen.renew_node_lease(l.owner, l.region, l.worker, 1, l.generation, idgen.clock(),
                            interval '30 s', idgen.clock(), 'active', 0, interval '2 s') AS r,
     idgen.held_region AS h
WHERE l.owner = 'node:regional-test-3' AND h.region = 3;
SELECT pg_temp.try($$SELECT idgen.acquire_node_lease('node:regional-test-big', 'regional-test-sysid-big', 1, 3, -1, 1, 10,
                              idgen.clock(), interval '30 s', idgen.clock(), NULL, interval '0',
                              true, interval '20 s')$$) AS allowance_past_validity;
UPDATE idgen.held_region SET node_allowance = NULL WHERE region = 3;
-- half a second left, under the clock allowance: no grant, which no
-- renewal could follow (a new generation each time, again and again)
UPDATE idgen.held_region SET valid_until = idgen.clock() + interval '500 ms' WHERE region = 3;
SELECT pg_temp.try($$SELECT pg_temp.node_lease(3)$$) AS within_clock_allowance;
UPDATE idgen.held_region SET valid_until = idgen.clock() + interval '10 s' WHERE region = 3;

-- another region's node: refused, naming the problem
SELECT pg_temp.try($$SELECT pg_temp.node_lease(4)$$) AS region_not_owned;

-- the region lease lapsed: no grant, no renewal
UPDATE idgen.held_region SET valid_until = idgen.clock() - interval '1 s' WHERE region = 3;
SELECT pg_temp.try($$SELECT pg_temp.node_lease(3)$$) AS lapsed_grant;
SELECT pg_temp.try($$SELECT idgen.renew_node_lease(l.owner, l.region, l.worker, 1, l.generation,
    idgen.clock(), interval '30 s', idgen.clock(), 'active', 0, interval '2 s')
    FROM idgen.worker_lease AS l WHERE l.owner = 'node:regional-test-3'$$) AS lapsed_renewal;
SELECT held FROM idgen_region_status();

-- not held (not yet leased since the worker started, or refused by the root)
UPDATE idgen.held_region SET generation = NULL, valid_until = NULL WHERE region = 3;
SELECT pg_temp.try($$SELECT pg_temp.node_lease(3)$$) AS not_yet_leased;
UPDATE idgen.held_region SET last_error = 'the root refused the renewal' WHERE region = 3;
SELECT pg_temp.try($$SELECT pg_temp.node_lease(3)$$) AS refused_by_root;

-- a row from another registry (a dump restored here) is not this one's lease
UPDATE idgen.held_region SET owner = 'regional:another', generation = 9,
       valid_until = idgen.clock() + interval '10 s', last_error = NULL WHERE region = 3;
SELECT pg_temp.try($$SELECT pg_temp.node_lease(3)$$) AS other_owner;

-- outside leases (gateways) in this registry's region (idgen.region_id 0)
SELECT pg_temp.try($$SELECT idgen_lease_worker('regional-test-gw', interval '1 hour')$$) AS outside_not_owned;
INSERT INTO idgen.held_region (region, owner, generation, valid_until, start_after)
VALUES (0, idgen.region_owner(), 8, idgen.clock() + interval '10 s', idgen.clock() + interval '1 s');
SELECT pg_temp.try($$SELECT idgen_lease_worker('regional-test-gw', interval '1 hour')$$) AS outside_floor_ahead;
UPDATE idgen.held_region SET start_after = idgen.clock() - interval '1 s' WHERE region = 0;
SELECT w.lease_until <= h.valid_until AS outside_ends_by_region_lease
FROM idgen_lease_worker('regional-test-gw', interval '1 hour') AS w, idgen.held_region AS h
WHERE h.region = 0;
SELECT idgen_renew_worker(l.region, l.worker, l.generation, l.owner) <= h.valid_until
       AS outside_renewal_ends_by_region_lease
FROM idgen.worker_lease AS l, idgen.held_region AS h
WHERE l.owner = 'regional-test-gw' AND h.region = 0;

-- the table is the administrator's; the status is pg_monitor's too
SELECT has_table_privilege('pg_monitor', 'idgen.held_region', 'SELECT') AS monitor_reads_table,
       has_function_privilege('pg_monitor', 'idgen_region_status()', 'EXECUTE') AS monitor_reads_status,
       has_function_privilege('public', 'idgen.held_region_bounds(integer, timestamptz, interval)', 'EXECUTE') AS public_bounds;

ROLLBACK;
SELECT count(*) AS held_rows_after FROM idgen.held_region;
