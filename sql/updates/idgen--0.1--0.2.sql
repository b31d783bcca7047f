/* idgen--0.1--0.2.sql: worker leases, high-water marks, the background
 * worker's registry, operator functions and the audit trail */

\echo Use "ALTER EXTENSION idgen UPDATE TO '0.2'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Catalog
-- ---------------------------------------------------------------------

CREATE TABLE idgen.worker_lease (
    region      integer NOT NULL CHECK (region >= 0),
    worker      integer NOT NULL CHECK (worker >= 0),
    owner       text,
    generation  bigint NOT NULL DEFAULT 0,
    lease_until timestamptz,
    high_water  timestamptz,
    node_sysid  text,
    timeline    integer,
    ttl         interval,
    acquired_at timestamptz,
    renewed_at  timestamptz,
    PRIMARY KEY (region, worker),
    CHECK ((owner IS NULL) = (lease_until IS NULL))
);
COMMENT ON TABLE idgen.worker_lease IS 'worker ids: who holds each, its fencing generation, lease expiry and high-water mark of issued time';
COMMENT ON COLUMN idgen.worker_lease.owner IS 'holder of the lease; NULL when free';
COMMENT ON COLUMN idgen.worker_lease.generation IS 'fencing token, incremented on every acquisition and fence';
COMMENT ON COLUMN idgen.worker_lease.high_water IS 'no ID with a later time was ever issued under this worker; the next holder starts above it';
COMMENT ON COLUMN idgen.worker_lease.node_sysid IS 'system identifier of the idgen node that last held the worker; NULL for outside generators';
COMMENT ON COLUMN idgen.worker_lease.timeline IS 'timeline of the node that last wrote the row';
REVOKE ALL ON idgen.worker_lease FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.worker_lease', '');

CREATE TABLE idgen.audit_log (
    at     timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    actor  text NOT NULL DEFAULT pg_catalog."session_user"(),
    action text NOT NULL,
    detail text
);
CREATE INDEX ON idgen.audit_log (at);
COMMENT ON TABLE idgen.audit_log IS 'privileged actions and safety events: leases, fences, disables, clock jumps, collisions';
REVOKE ALL ON idgen.audit_log FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.audit_log', '');

CREATE TABLE idgen.collision (
    id           @extschema@.idgen,
    first_owner  text,
    second_owner text,
    observed_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    detail       text
);
COMMENT ON TABLE idgen.collision IS 'duplicate IDs found by audits, and workers seen with two holders';
REVOKE ALL ON idgen.collision FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.collision', '');

CREATE TABLE idgen.node_control (
    node_sysid text PRIMARY KEY,
    disabled_reason text NOT NULL,
    disabled_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    disabled_by text NOT NULL DEFAULT pg_catalog."session_user"()
);
COMMENT ON TABLE idgen.node_control IS 'nodes an operator disabled; survives restarts until idgen_enable()';
REVOKE ALL ON idgen.node_control FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.node_control', '');

-- ---------------------------------------------------------------------
-- Internal functions: idgen's clock, and the lease protocol the background
-- worker runs.  Not for PUBLIC.
-- ---------------------------------------------------------------------

-- the clock idgen issues by (honours idgen.test_clock_offset), so leases
-- and high-water marks are compared on one time scale
CREATE FUNCTION idgen.clock() RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_clock' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.clock() IS 'the wall clock idgen issues IDs by';

CREATE FUNCTION idgen.node_sysid() RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_node_sysid' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.node_sysid() IS 'this instance''s system identifier, as the lease table records it';

CREATE FUNCTION idgen.wake_worker() RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_wake_worker' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.wake_worker() IS 'ask the background worker to check its lease now';
REVOKE ALL ON FUNCTION idgen.wake_worker() FROM PUBLIC;

CREATE FUNCTION idgen.set_disabled(disabled boolean, reason text) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_set_disabled' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.set_disabled(boolean, text) IS 'switch issuing off or on in shared memory';
REVOKE ALL ON FUNCTION idgen.set_disabled(boolean, text) FROM PUBLIC;

-- lease changes are made only in the registry, the database the background
-- worker leases from: a lease table anywhere else would be a second registry
\ir ../udfs/require_registry/0.2.sql
COMMENT ON FUNCTION idgen.require_registry() IS 'raise unless this is the registry database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_registry() FROM PUBLIC;

-- one advisory-lock key serialises every change of lease ownership
CREATE FUNCTION idgen.lock_registry() RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ SELECT pg_advisory_xact_lock(7596555481923411968) $$;
COMMENT ON FUNCTION idgen.lock_registry() IS 'transaction lock taken by every change of lease ownership';
REVOKE ALL ON FUNCTION idgen.lock_registry() FROM PUBLIC;

CREATE FUNCTION idgen.audit(action text, detail text) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ INSERT INTO idgen.audit_log (action, detail) VALUES ($1, $2) $$;
COMMENT ON FUNCTION idgen.audit(text, text) IS 'append one row to idgen.audit_log';
REVOKE ALL ON FUNCTION idgen.audit(text, text) FROM PUBLIC;

/*
 * A row may be taken when nobody holds it, or when its lease has expired
 * and the expiry can be trusted.  An expiry written by another timeline of
 * this cluster cannot: after a promotion the old primary may still be
 * running and renewing that lease in its own copy of this table.
 */
CREATE FUNCTION idgen.row_is_free(l idgen.worker_lease, now timestamptz,
                                  sysid text, tli integer) RETURNS boolean
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT l.owner IS NULL
    OR (l.lease_until <= now
        AND (l.node_sysid IS NULL OR (l.node_sysid = sysid AND l.timeline = tli)))
$$;
COMMENT ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) IS 'may this worker be taken now';
REVOKE ALL ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) FROM PUBLIC;

/*
 * Lease a block of workers for a node.  The block is all of one region,
 * aligned, and every row of it must be free.  Returns where the node must
 * start: strictly above every high-water mark it may have issued under,
 * its own earlier leases included, so a restart never goes back in time.
 */
\ir ../udfs/acquire_node_lease/0.2.sql
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval) IS 'lease a block of workers for a node (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval) FROM PUBLIC;

/*
 * Renew a node's block and raise its high-water mark, but only while every
 * row is still the node's own at the node's generation.  Otherwise report
 * who holds the first row that is not ours, so the node can stop.
 */
\ir ../udfs/renew_node_lease/0.2.sql
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz) IS 'renew a node''s block and raise its high-water mark (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz) FROM PUBLIC;

CREATE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
                                         p_block integer, p_generation bigint) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
UPDATE idgen.worker_lease AS l
SET owner = NULL, lease_until = NULL
WHERE l.region = p_region AND l.worker >= p_first_worker
  AND l.worker < p_first_worker + p_block
  AND l.owner = p_owner AND l.generation = p_generation;
$$;
COMMENT ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) IS 'give a node''s block back at shutdown, keeping its high-water mark';
REVOKE ALL ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Leases for outside generators (application servers, bulk loaders)
-- ---------------------------------------------------------------------

\ir ../udfs/idgen_lease_worker/0.2.sql
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_worker(text, interval) FROM PUBLIC;

\ir ../udfs/idgen_renew_worker/0.2.sql
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) IS 'renew an outside generator''s lease; fails once fenced or expired';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) FROM PUBLIC;

\ir ../udfs/idgen_release_worker/0.2.sql
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) IS 'give an outside generator''s worker back';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) FROM PUBLIC;

/*
 * Operator repair: expire a lease and bump its generation.  The high-water
 * mark stays: a node never issues past its durable mark, and an outside
 * holder's mark already covers its whole lease, so whoever takes the worker
 * next and starts above the mark cannot meet the old holder's IDs.
 */
\ir ../udfs/idgen_fence_worker/0.2.sql
COMMENT ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) IS 'operator repair: expire a lease and bump its generation so the holder stops';
REVOKE ALL ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Operator switches and audits
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_disable(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_registry();
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

CREATE FUNCTION @extschema@.idgen_enable() RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_registry();
    DELETE FROM idgen.node_control WHERE node_sysid = idgen.node_sysid();
    PERFORM idgen.set_disabled(false, NULL);
    PERFORM idgen.audit('enabled', NULL);
    PERFORM idgen.wake_worker();
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_enable() IS 'resume issuing on this node after idgen_disable() or a fence';
REVOKE ALL ON FUNCTION @extschema@.idgen_enable() FROM PUBLIC;

\ir ../udfs/idgen_check_unique/0.2.sql
COMMENT ON FUNCTION @extschema@.idgen_check_unique(regclass, name) IS 'audit a column for duplicate values; findings go to idgen.collision';
-- runs as the caller (reading a table as its owner would run the caller's
-- code with the owner's rights): an auditor needs SELECT on the table and
-- INSERT on idgen.collision and idgen.audit_log
REVOKE ALL ON FUNCTION @extschema@.idgen_check_unique(regclass, name) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Status gains the lease's owner and high-water mark
-- ---------------------------------------------------------------------

DROP FUNCTION @extschema@.idgen_status();
CREATE FUNCTION @extschema@.idgen_status(
    OUT state text, OUT reason text,
    OUT region integer, OUT worker integer, OUT workers integer,
    OUT generation bigint, OUT lease_until timestamptz,
    OUT logical_clock timestamptz, OUT wall_clock timestamptz, OUT drift_ms bigint,
    OUT horizon timestamptz,
    OUT ids_issued bigint, OUT batches bigint, OUT sequence_exhaustions bigint,
    OUT clock_rollbacks bigint, OUT clock_waits bigint, OUT clock_wait_ms bigint,
    OUT clock_refusals bigint,
    OUT owner text, OUT high_water timestamptz, OUT lease_renewals bigint,
    OUT lease_failures bigint, OUT fencing_events bigint,
    OUT clock_jumps_forward bigint, OUT clock_steps_back bigint)
    AS 'MODULE_PATHNAME', 'idgen_status' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_status() IS 'this node''s generator: state and why, lease, logical vs wall clock, counters';
