/* idgen--0.7--0.8.sql: changes since 0.7 (sql/install/ holds the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.8'" to load this file. \quit


-- =====================================================================
-- 0.8: grant helpers (issue 21, items 7 and 8).  One call gives a role
-- what a fleet node's background worker, or idgen-gateway, needs on the
-- registry, so no page lists signatures that a release then changes.
-- =====================================================================

/*
 * Run each "PRIVILEGES ON OBJECT" of p_what as GRANT ... TO p_role and
 * return the statements run.  CONNECT on this database and USAGE on the
 * schemas are granted only when the role lacks them (PUBLIC has them unless
 * an administrator took them away, and they are not the extension's to
 * give).  The caller's own rights grant: a GRANT that is not its to make
 * would only warn, so a caller who does not own the extension is refused
 * first.  GRANT repeats nothing that was granted, so a second call changes
 * nothing.
 */
\ir ../udfs/grant_to/0.8.sql
COMMENT ON FUNCTION idgen.grant_to(regrole, regnamespace[], text[]) IS 'grant a role the listed privileges on the extension''s objects (and CONNECT and schema USAGE if it lacks them); returns the GRANT statements run';
REVOKE ALL ON FUNCTION idgen.grant_to(regrole, regnamespace[], text[]) FROM PUBLIC;

/*
 * A fleet node's background worker, connected to the registry as p_role
 * (src/lease.c, src/audit.c, src/leaseanswer.c): the lease protocol's
 * three calls, in every form a node of this or an earlier release sends
 * (so a rolling upgrade keeps the older nodes leasing), the functions they
 * call with the caller's rights, the lease and incarnation rows they read
 * and write, and the audit and collision rows a node appends.  idgen.epoch
 * and idgen.clock() it reads as PUBLIC does.
 */
\ir ../udfs/idgen_grant_node/0.8.sql
COMMENT ON FUNCTION @extschema@.idgen_grant_node(regrole) IS 'grant a role what a fleet node''s background worker needs on the registry (run it there, as a superuser, and again after ALTER EXTENSION idgen UPDATE); returns the GRANT statements run';
REVOKE ALL ON FUNCTION @extschema@.idgen_grant_node(regrole) FROM PUBLIC;

/*
 * idgen-gateway, connected to the registry as p_role (gateway/gwlease.c,
 * gwpool.c): the outside-generator calls in both forms (0.6 gateways send
 * the 3-argument renewal and release), the range lease of its admin
 * endpoint, and the two functions that keep its Idempotency-Key records;
 * all run with the extension's rights.  Not idgen_confirm_range_floor(): an
 * admin token would confirm a floor the gateway cannot know.
 */
\ir ../udfs/idgen_grant_gateway/0.8.sql
COMMENT ON FUNCTION @extschema@.idgen_grant_gateway(regrole) IS 'grant a role what idgen-gateway needs on the registry (run it there, as a superuser, and again after ALTER EXTENSION idgen UPDATE); returns the GRANT statements run';
REVOKE ALL ON FUNCTION @extschema@.idgen_grant_gateway(regrole) FROM PUBLIC;

-- A monitoring role needs no helper: the extension grants idgen.stats,
-- idgen.stats_counters() and idgen.fleet to pg_monitor, and idgen_status()
-- is PUBLIC's; membership in pg_monitor is the one grant
-- (docs/monitoring.md).

-- ---------------------------------------------------------------------
-- idgen_disable() and idgen_enable() in another database say so in their
-- own words (issue 21), not in the lease functions'
-- ---------------------------------------------------------------------
\ir ../udfs/require_node_database_caller/0.8.sql
COMMENT ON FUNCTION idgen.require_node_database(text) IS 'raise, naming the caller, unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database(text) FROM PUBLIC;
\ir ../udfs/idgen_disable/0.8.sql
\ir ../udfs/idgen_enable/0.8.sql
