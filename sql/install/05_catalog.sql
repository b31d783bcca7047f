-- ---------------------------------------------------------------------
-- Catalog
-- ---------------------------------------------------------------------

CREATE SCHEMA idgen;
COMMENT ON SCHEMA idgen IS 'catalog of the idgen extension; written only through its functions';
REVOKE ALL ON SCHEMA idgen FROM PUBLIC;
GRANT USAGE ON SCHEMA idgen TO PUBLIC;

-- one row per bit layout, append-only
CREATE TABLE idgen.epoch (
    version integer PRIMARY KEY CHECK (version >= 1),
    start_time timestamptz NOT NULL,
    epoch_start timestamptz NOT NULL,
    time_bits integer NOT NULL,
    region_bits integer NOT NULL,
    worker_bits integer NOT NULL,
    seq_bits integer NOT NULL,
    horizon timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    CHECK (time_bits + region_bits + worker_bits + seq_bits = 63)
);
COMMENT ON TABLE idgen.epoch IS 'bit layouts, append-only: each applies from start_time on';
COMMENT ON COLUMN idgen.epoch.start_time IS 'instant from which IDs are issued under this layout';
COMMENT ON COLUMN idgen.epoch.epoch_start IS 'instant at which the time field is zero';
COMMENT ON COLUMN idgen.epoch.horizon IS 'first instant the time field cannot hold';
REVOKE ALL ON idgen.epoch FROM PUBLIC;
GRANT SELECT ON idgen.epoch TO PUBLIC;

CREATE FUNCTION idgen.epoch_append_only() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    RAISE EXCEPTION 'idgen.epoch is append-only'
        USING ERRCODE = 'object_not_in_prerequisite_state',
              DETAIL = 'Rewriting a layout that IDs were issued under would change what those IDs mean.',
              HINT = 'Schedule a new layout instead.';
END
$$;
COMMENT ON FUNCTION idgen.epoch_append_only() IS 'trigger: refuses UPDATE, DELETE and TRUNCATE of idgen.epoch';
REVOKE ALL ON FUNCTION idgen.epoch_append_only() FROM PUBLIC;

CREATE TRIGGER epoch_append_only BEFORE UPDATE OR DELETE ON idgen.epoch
    FOR EACH ROW EXECUTE FUNCTION idgen.epoch_append_only();
CREATE TRIGGER epoch_no_truncate BEFORE TRUNCATE ON idgen.epoch
    FOR EACH STATEMENT EXECUTE FUNCTION idgen.epoch_append_only();

CREATE FUNCTION idgen.default_layout(
    OUT epoch_start timestamptz, OUT time_bits integer, OUT region_bits integer,
    OUT worker_bits integer, OUT seq_bits integer, OUT horizon timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_default_layout' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.default_layout() IS 'the built-in bit layout, recorded as epoch 1';

INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits,
                         worker_bits, seq_bits, horizon)
SELECT 1, d.epoch_start, d.epoch_start, d.time_bits, d.region_bits,
       d.worker_bits, d.seq_bits, d.horizon
FROM idgen.default_layout() AS d;


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
    remote      boolean NOT NULL DEFAULT false,
    heartbeat_at timestamptz,
    clock_offset_ms bigint,
    node_state  text,
    drift_allowance interval,
    grant_floor timestamptz,
    fenced_until timestamptz,
    PRIMARY KEY (region, worker),
    CHECK ((owner IS NULL) = (lease_until IS NULL))
);
COMMENT ON TABLE idgen.worker_lease IS 'worker ids: who holds each, its fencing generation, lease expiry and high-water mark of issued time';
COMMENT ON COLUMN idgen.worker_lease.owner IS 'holder of the lease; NULL when free';
COMMENT ON COLUMN idgen.worker_lease.generation IS 'fencing token, incremented on every acquisition and fence';
COMMENT ON COLUMN idgen.worker_lease.high_water IS 'no ID with a later time was ever issued under this worker; the next holder starts above it';
COMMENT ON COLUMN idgen.worker_lease.node_sysid IS 'system identifier of the idgen node that last held the worker; NULL for outside generators';
COMMENT ON COLUMN idgen.worker_lease.timeline IS 'timeline of the node that last wrote the row';
COMMENT ON COLUMN idgen.worker_lease.remote IS 'leased by a node over its connection to this registry (idgen.registry): the row exists only here, so its expiry can be trusted';
COMMENT ON COLUMN idgen.worker_lease.heartbeat_at IS 'registry clock at the holder''s last lease or renewal';
COMMENT ON COLUMN idgen.worker_lease.clock_offset_ms IS 'the holder''s clock minus the registry''s, as last measured';
COMMENT ON COLUMN idgen.worker_lease.node_state IS 'the state the holding node reported at its last renewal';
COMMENT ON COLUMN idgen.worker_lease.drift_allowance IS 'how far past the registry''s clock the holder may stamp IDs (its max_drift plus max_skew): after an unclean end the next holder starts above lease_until plus this';
COMMENT ON COLUMN idgen.worker_lease.grant_floor IS 'the high-water mark an outside lease started above: a release with the holder''s final mark never sets high_water below it (NULL for a lease granted before 0.7: its release keeps the mark)';
COMMENT ON COLUMN idgen.worker_lease.fenced_until IS 'the end of the lease an operator fenced (idgen_fence_worker): no node is granted the worker before it, so a registry that lost the fence and the next grant refuses the fenced holder''s renewal';
REVOKE ALL ON idgen.worker_lease FROM PUBLIC;

CREATE TABLE idgen.audit_log (
    at     timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    actor  text NOT NULL DEFAULT pg_catalog."session_user"(),
    action text NOT NULL,
    detail text
);
CREATE INDEX ON idgen.audit_log (at);
COMMENT ON TABLE idgen.audit_log IS 'privileged actions and safety events: leases, fences, disables, clock jumps, collisions';
REVOKE ALL ON idgen.audit_log FROM PUBLIC;

CREATE TABLE idgen.collision (
    id           @extschema@.idgen,
    first_owner  text,
    second_owner text,
    observed_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    detail       text
);
COMMENT ON TABLE idgen.collision IS 'duplicate IDs found by audits, and workers seen with two holders';
REVOKE ALL ON idgen.collision FROM PUBLIC;

CREATE TABLE idgen.node_control (
    node_sysid text PRIMARY KEY,
    disabled_reason text NOT NULL,
    disabled_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    disabled_by text NOT NULL DEFAULT pg_catalog."session_user"()
);
COMMENT ON TABLE idgen.node_control IS 'nodes an operator disabled; survives restarts until idgen_enable()';
REVOKE ALL ON idgen.node_control FROM PUBLIC;
