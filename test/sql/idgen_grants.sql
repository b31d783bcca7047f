-- idgen_grant_node() and idgen_grant_gateway(): what they give a role (and
-- that it is enough to run the calls, as that role), that a second call
-- grants nothing new, and that only the extension's owner may call them.
-- The roles are dropped at the end.
CREATE ROLE idgen_grants_node LOGIN;
CREATE ROLE idgen_grants_gateway LOGIN;
CREATE ROLE idgen_grants_nobody;

-- the statements run (this database is not idgen.database: a warning)
SELECT idgen_grant_node('idgen_grants_node');
SELECT idgen_grant_gateway('idgen_grants_gateway');

-- again: the same statements, and the same privileges afterwards
CREATE TEMP TABLE acl_before AS
SELECT c.oid::regclass::text AS object, c.relacl::text AS acl FROM pg_class c WHERE c.relnamespace = 'idgen'::regnamespace
UNION ALL
SELECT p.oid::regprocedure::text, p.proacl::text FROM pg_proc p
WHERE p.pronamespace IN ('idgen'::regnamespace, 'public'::regnamespace);
SET client_min_messages = error;
SELECT count(*) AS statements FROM idgen_grant_node('idgen_grants_node');
SELECT count(*) AS statements FROM idgen_grant_gateway('idgen_grants_gateway');
RESET client_min_messages;
SELECT count(*) AS changed FROM (
    SELECT c.oid::regclass::text AS object, c.relacl::text AS acl FROM pg_class c WHERE c.relnamespace = 'idgen'::regnamespace
    UNION ALL
    SELECT p.oid::regprocedure::text, p.proacl::text FROM pg_proc p
    WHERE p.pronamespace IN ('idgen'::regnamespace, 'public'::regnamespace)
    EXCEPT SELECT * FROM acl_before) AS d;

-- what each role holds beyond PUBLIC's: functions, then tables
SELECT r.role, p.oid::regprocedure AS function
FROM (VALUES ('idgen_grants_node'), ('idgen_grants_gateway')) AS r(role)
JOIN pg_proc p ON has_function_privilege(r.role, p.oid, 'EXECUTE')
                  AND NOT has_function_privilege('idgen_grants_nobody', p.oid, 'EXECUTE')
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
                AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
ORDER BY r.role, p.oid::regprocedure::text COLLATE "C";
SELECT r.role, c.oid::regclass AS "table",
       array_to_string(ARRAY(SELECT m FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS m
                             WHERE has_table_privilege(r.role, c.oid, m)), ', ') AS privileges
FROM (VALUES ('idgen_grants_node'), ('idgen_grants_gateway')) AS r(role)
JOIN pg_class c ON c.relnamespace = 'idgen'::regnamespace AND c.relkind IN ('r', 'v', 'S')
WHERE has_any_column_privilege(r.role, c.oid, 'SELECT, INSERT, UPDATE')
  AND NOT has_any_column_privilege('idgen_grants_nobody', c.oid, 'SELECT')
ORDER BY r.role, c.oid::regclass::text COLLATE "C";

-- enough for a node's lease, renewal and release, as the node role
BEGIN;
SET LOCAL ROLE idgen_grants_node;
SELECT first_worker AS worker, generation > 0 AS has_generation
FROM idgen.acquire_node_lease('node:regress', 'regress-sysid', 1, 0, -1, 16, 7, idgen.clock(), '30 s',
                              idgen.clock(), NULL, '0', true, '2 s') \gset
SELECT :worker >= 0 OR :worker = -2 AS leased_or_held;
SELECT ok OR other_generation IS NOT NULL AS answered
FROM idgen.renew_node_lease('node:regress', 0, greatest(:worker, 0), 16, 1, idgen.clock(), '30 s',
                            idgen.clock(), 'active', 0, '2 s');
SELECT idgen.release_node_lease('node:regress', 0, greatest(:worker, 0), 16, 1, idgen.clock());
ROLLBACK;

-- nothing of an operator's: no fence, disable, floor or key
SELECT f, has_function_privilege('idgen_grants_node', f, 'EXECUTE') AS node,
       has_function_privilege('idgen_grants_gateway', f, 'EXECUTE') AS gateway
FROM unnest(ARRAY['idgen_fence_worker(integer,integer)', 'idgen_disable(text)', 'idgen_enable()',
                  'idgen_confirm_range_floor(idgen)', 'idgen_rotate_mask_key()',
                  'idgen_grant_node(regrole)', 'idgen_grant_gateway(regrole)']) AS f;

-- not PUBLIC's, and a caller who does not own the extension is refused
SELECT has_function_privilege('idgen_grants_nobody', 'idgen_grant_node(regrole)', 'EXECUTE') AS nobody_node,
       has_function_privilege('idgen_grants_nobody', 'idgen_grant_gateway(regrole)', 'EXECUTE') AS nobody_gateway;
GRANT EXECUTE ON FUNCTION idgen_grant_node(regrole), idgen.grant_to(regrole, regnamespace[], text[])
    TO idgen_grants_nobody;
SET ROLE idgen_grants_nobody;
\set VERBOSITY terse
SELECT idgen_grant_node('idgen_grants_nobody');
\set VERBOSITY default
RESET ROLE;

DROP OWNED BY idgen_grants_node, idgen_grants_gateway, idgen_grants_nobody;
DROP ROLE idgen_grants_node, idgen_grants_gateway, idgen_grants_nobody;
