/* idgen--0.7--0.8.sql: changes since 0.7 (sql/idgen.sql is the whole schema) */

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
CREATE FUNCTION idgen.grant_to(p_role regrole, p_schemas regnamespace[], p_what text[])
    RETURNS SETOF text
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_owner oid := (SELECT e.extowner FROM pg_extension AS e WHERE e.extname = 'idgen');
    v_schema regnamespace;
    v_what text;
    v_sql text;
BEGIN
    IF NOT pg_has_role(current_user, v_owner, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of extension idgen or a superuser may grant its privileges'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = format('The extension belongs to %s.', v_owner::regrole),
                  HINT = 'Call this function as a superuser.';
    END IF;
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database() THEN
        RAISE WARNING 'this is not idgen.database (%): nodes and gateways lease there',
                      current_setting('idgen.database', true)
            USING HINT = 'Call this function in the registry''s idgen.database.';
    END IF;
    IF NOT has_database_privilege(p_role, current_database(), 'CONNECT') THEN
        v_sql := format('GRANT CONNECT ON DATABASE %I TO %s', current_database(), p_role);
        EXECUTE v_sql;
        RETURN NEXT v_sql;
    END IF;
    FOREACH v_schema IN ARRAY p_schemas LOOP
        IF NOT has_schema_privilege(p_role, v_schema, 'USAGE') THEN
            v_sql := format('GRANT USAGE ON SCHEMA %s TO %s', v_schema, p_role);
            EXECUTE v_sql;
            RETURN NEXT v_sql;
        END IF;
    END LOOP;
    FOREACH v_what IN ARRAY p_what LOOP
        v_sql := format('GRANT %s TO %s', v_what, p_role);
        EXECUTE v_sql;
        RETURN NEXT v_sql;
    END LOOP;
END
$$;
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
CREATE FUNCTION @extschema@.idgen_grant_node(role regrole) RETURNS SETOF text
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.grant_to(role, ARRAY['idgen'::regnamespace], ARRAY[
    'EXECUTE ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval)',
    'EXECUTE ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean)',
    'EXECUTE ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval)',
    'EXECUTE ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint)',
    'EXECUTE ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz)',
    'EXECUTE ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint)',
    'EXECUTE ON FUNCTION idgen.lock_registry()',
    'EXECUTE ON FUNCTION idgen.audit(text, text)',
    'EXECUTE ON FUNCTION idgen.registry_incarnation_check(boolean)',
    'EXECUTE ON FUNCTION idgen.running_incarnation()',
    'EXECUTE ON FUNCTION idgen.incarnation_hold(timestamptz, boolean)',
    'EXECUTE ON FUNCTION idgen.registry_clock_allowance()',
    'EXECUTE ON FUNCTION idgen.registry_drift_allowance(interval)',
    'EXECUTE ON FUNCTION idgen.drift_allowance(interval, interval, interval)',
    'EXECUTE ON FUNCTION idgen.next_generation(bigint)',
    'SELECT, INSERT, UPDATE ON TABLE idgen.worker_lease',
    'SELECT, INSERT, UPDATE ON TABLE idgen.registry_incarnation',
    'INSERT ON TABLE idgen.audit_log',
    'INSERT ON TABLE idgen.collision'])
$$;
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
CREATE FUNCTION @extschema@.idgen_grant_gateway(role regrole) RETURNS SETOF text
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.grant_to(role, ARRAY['idgen'::regnamespace, '@extschema@'::regnamespace], ARRAY[
    'EXECUTE ON FUNCTION @extschema@.idgen_lease_worker(text, interval)',
    'EXECUTE ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer)',
    'EXECUTE ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint)',
    'EXECUTE ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz)',
    'EXECUTE ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint)',
    'EXECUTE ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text)',
    'EXECUTE ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint)',
    'EXECUTE ON FUNCTION idgen.gateway_purge(integer)'])
$$;
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
CREATE FUNCTION idgen.require_node_database(caller text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    db text := current_setting('idgen.database', true);
BEGIN
    IF db IS NULL THEN
        RAISE EXCEPTION 'idgen is not loaded through shared_preload_libraries'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Add idgen to shared_preload_libraries.';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION '%() needs READ COMMITTED isolation', caller
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'It writes the node''s own switch row, which the background worker and other sessions change too; it must see their rows as committed, not as of an older snapshot.';
    END IF;
    IF db <> current_database() THEN
        RAISE EXCEPTION '%() works in database "%", not "%"', caller, db, current_database()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.database names the database where this node keeps its own state (its switches, its lease and its audit log); the background worker reads idgen_disable() and idgen_enable() there.',
                  HINT = format('Connect to database %s.', db);
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.require_node_database(text) IS 'raise, naming the caller, unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_disable(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database('idgen_disable');
    IF reason = '' THEN
        RAISE EXCEPTION 'a reason is required to disable idgen'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO idgen.node_control (node_sysid, disabled_reason)
    VALUES (idgen.node_sysid(), reason)
    ON CONFLICT (node_sysid) DO UPDATE
        SET disabled_reason = excluded.disabled_reason,
            disabled_at = excluded.disabled_at, disabled_by = excluded.disabled_by;
    PERFORM idgen.set_disabled(true, reason);
    PERFORM idgen.audit('disabled', reason);
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_disable(text) IS 'stop issuing IDs on this node, with a reason; lasts across restarts';
REVOKE ALL ON FUNCTION @extschema@.idgen_disable(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_enable() RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database('idgen_enable');
    DELETE FROM idgen.node_control WHERE node_sysid = idgen.node_sysid();
    PERFORM idgen.set_disabled(false, NULL);
    PERFORM idgen.audit('enabled', NULL);
    PERFORM idgen.wake_worker();
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_enable() IS 'resume issuing on this node after idgen_disable() or a fence';
REVOKE ALL ON FUNCTION @extschema@.idgen_enable() FROM PUBLIC;
