--
-- A root registry's own leases and the regions it leases out (issue 22):
-- a root grants no node or outside lease in a region it has leased to a
-- regional registry, renews none there, and a region lease granted while
-- the root's own nodes hold leases in the region starts above their end
-- plus their allowance.  Both were duplicate paths: a node pointed at the
-- root and a node of the regional registry held the same worker of the
-- same region at once.  All in one transaction, rolled back; this
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

BEGIN;
-- a root that has leased no region yet (the rows of earlier files gone)
DELETE FROM idgen.region_lease;
UPDATE idgen.registry_incarnation SET since = idgen.clock() - interval '30 hours';

-- the root's own node in region 2, then region 2 leased out: the region
-- lease starts above the node lease's end plus its 2 s allowance
SELECT first_worker AS a_worker, lease_until AS a_until, generation AS a_gen
FROM pg_temp.node_lease(2, 'a') \gset
SELECT :a_worker >= 0 AS root_node_granted;
SELECT start_after >= :'a_until'::timestamptz + interval '2 s' AS region_starts_above_root_node
FROM idgen_lease_region('test-root-regional', 2, interval '1 hour');

-- from then on the root grants no node lease there, renews none there,
-- (nor an outside lease: idgen_lease_worker() asks the same check);
-- another region is granted as before
SELECT pg_temp.try($$SELECT * FROM pg_temp.node_lease(2, 'b')$$) AS other_node_in_leased_region;
SELECT pg_temp.try(format($$SELECT idgen.renew_node_lease('node:root-test-a', 2, %s, 1, %s, idgen.clock(),
                                  interval '30 s', idgen.clock(), 'active', 0, interval '2 s')$$,
                          :a_worker, :a_gen)) AS root_node_renewal;
SELECT first_worker >= 0 AS region_3_granted FROM pg_temp.node_lease(3, 'c');

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
