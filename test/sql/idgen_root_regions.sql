--
-- A root registry's own leases and the regions it leases out (issue 22):
-- a root grants no node or outside lease in a region it has leased to a
-- regional registry, renews none there, and a region lease granted while
-- the root's own nodes hold leases in the region starts above their end
-- plus their allowance.  Both were duplicate paths: a node pointed at the
-- root and a node of the regional registry held the same worker of the
-- same region at once.  A root knows the regions it leases out from
-- idgen.leased_out_regions (test/regress.conf: 1 to 7), not only from its
-- rows, which a root restored from before a region's first grant lacks.
-- In transactions rolled back but for one node lease, released; this
-- instance's own node issues in region 0, which is never leased out here.
--

\c postgres
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS idgen;
RESET client_min_messages;

CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, ' until .*$', ' until <time>');
END
$$;
-- a remote node's lease in region r, as its background worker asks (30 s)
CREATE FUNCTION pg_temp.node_lease(r integer, who text, OUT first_worker integer,
    OUT lease_until timestamptz, OUT generation bigint)
    LANGUAGE sql AS $$
SELECT a.first_worker, a.lease_until, a.generation
FROM idgen.acquire_node_lease('node:root-test-' || who, 'root-test-sysid-' || who, 1, r, -1, 1, 10,
                              idgen.clock(), interval '30 s', idgen.clock(), NULL, interval '0',
                              true, interval '2 s') AS a
$$;

CREATE TEMP TABLE saved_incarnation AS SELECT since FROM idgen.registry_incarnation;
SHOW idgen.leased_out_regions;

-- a root restored from a backup taken before its first region grant: no
-- row says it is a root, but its setting does.  It leases no region the
-- setting leaves out, grants its own nodes nothing in one it names, and
-- holds a layout switch after the change of its incarnation
BEGIN;
DELETE FROM idgen.region_lease;
UPDATE idgen.registry_incarnation SET since = idgen.clock() - interval '30 hours';
SELECT pg_temp.try($$SELECT * FROM idgen_lease_region('test-root-regional', 0, interval '1 hour')$$)
       AS region_not_leased_out;
DO $$
BEGIN
    PERFORM * FROM idgen_lease_region('test-root-regional', 0, interval '1 hour');
EXCEPTION WHEN OTHERS THEN
    DECLARE d text; h text;
    BEGIN
        GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
        RAISE NOTICE 'detail: %', d;
        RAISE NOTICE 'hint: %', h;
    END;
END
$$;
SELECT pg_temp.try($$SELECT * FROM pg_temp.node_lease(2, 'r')$$) AS node_in_named_region_no_row;
SELECT first_worker >= 0 AS region_0_granted FROM pg_temp.node_lease(0, 'r');
UPDATE idgen.registry_incarnation SET since = idgen.clock();
SELECT pg_temp.try(format('SELECT idgen_schedule_layout(%L, %s)', idgen.clock() + interval '1 hour',
                          (SELECT region_bits || ', ' || worker_bits || ', ' || seq_bits FROM idgen.epoch WHERE version = 1)))
       ~ '^22023: cannot schedule layout .* the root may have lost region leases that run past it$'
       AS hold_without_rows;
ROLLBACK;

-- the root's own node in region 2 while the setting leaves region 2 out
-- (committed: the setting changes between), then the setting names it
-- and region 2 is leased out: the region lease starts above the node
-- lease's end plus its 2 s allowance
ALTER SYSTEM SET idgen.leased_out_regions = '1, 3, 4, 5, 6, 7';
SELECT pg_reload_conf();
SELECT pg_sleep(1);
SHOW idgen.leased_out_regions;
BEGIN;
DELETE FROM idgen.region_lease WHERE region = 2;
UPDATE idgen.registry_incarnation SET since = idgen.clock() - interval '30 hours';
SELECT first_worker AS a_worker, lease_until AS a_until, generation AS a_gen
FROM pg_temp.node_lease(2, 'a') \gset
COMMIT;
SELECT :a_worker >= 0 AS root_node_granted;
-- blanks only are no region: nothing is leased out, nothing fails
ALTER SYSTEM SET idgen.leased_out_regions = '  ';
SELECT pg_reload_conf();
SELECT pg_sleep(1);
SELECT idgen.leased_out_regions() AS blanks_only;
ALTER SYSTEM RESET idgen.leased_out_regions;
SELECT pg_reload_conf();
SELECT pg_sleep(1);
SHOW idgen.leased_out_regions;

BEGIN;
-- a root that has leased no region yet (the rows of earlier files gone)
DELETE FROM idgen.region_lease;
UPDATE idgen.registry_incarnation SET since = idgen.clock() - interval '30 hours';
SELECT start_after >= :'a_until'::timestamptz + interval '2 s' AS region_starts_above_root_node
FROM idgen_lease_region('test-root-regional', 2, interval '1 hour');

-- from then on the root grants no node lease there, renews none there,
-- (nor an outside lease: idgen_lease_worker() asks the same check);
-- a region the root does not lease out is granted as before
SELECT pg_temp.try($$SELECT * FROM pg_temp.node_lease(2, 'b')$$) AS other_node_in_leased_region;
SELECT pg_temp.try(format($$SELECT idgen.renew_node_lease('node:root-test-a', 2, %s, 1, %s, idgen.clock(),
                                  interval '30 s', idgen.clock(), 'active', 0, interval '2 s')$$,
                          :a_worker, :a_gen)) AS root_node_renewal;
SELECT first_worker >= 0 AS region_0_granted FROM pg_temp.node_lease(0, 'c');

-- a region given back stays the regional level's: its next owner starts
-- above the final mark, and the root still grants nothing there
SELECT idgen_release_region(2, generation, 'test-root-regional', idgen.clock())
FROM idgen.region_lease WHERE region = 2;
SELECT pg_temp.try($$SELECT * FROM pg_temp.node_lease(2, 'd')$$) AS node_in_released_region;

-- the refusal's detail and hint say what to do
DO $$
BEGIN
    PERFORM * FROM pg_temp.node_lease(2, 'e');
EXCEPTION WHEN OTHERS THEN
    DECLARE d text; h text;
    BEGIN
        GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
        RAISE NOTICE 'detail: %', regexp_replace(d, 'generation \d+', 'generation <n>');
        RAISE NOTICE 'hint: %', h;
    END;
END
$$;
ROLLBACK;

-- the node lease committed above goes back; the incarnation as it was
SELECT idgen.release_node_lease('node:root-test-a', 2, :a_worker, 1, :a_gen, idgen.clock());
UPDATE idgen.registry_incarnation SET since = (SELECT since FROM saved_incarnation);
