/* idgen--0.4--0.5.sql: layout epochs, statistics */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.5'" to load this file. \quit


-- =====================================================================
-- Fleets: nodes leasing from a shared registry (idgen.registry)
-- =====================================================================

-- what the registry knows of each holder, for idgen.fleet
ALTER TABLE idgen.worker_lease
    ADD COLUMN remote boolean NOT NULL DEFAULT false,
    ADD COLUMN heartbeat_at timestamptz,
    ADD COLUMN clock_offset_ms bigint,
    ADD COLUMN node_state text;
COMMENT ON COLUMN idgen.worker_lease.remote IS 'leased by a node over its connection to this registry (idgen.registry): the row exists only here, so its expiry can be trusted';
COMMENT ON COLUMN idgen.worker_lease.heartbeat_at IS 'registry clock at the holder''s last lease or renewal';
COMMENT ON COLUMN idgen.worker_lease.clock_offset_ms IS 'the holder''s clock minus the registry''s, as last measured';
COMMENT ON COLUMN idgen.worker_lease.node_state IS 'the state the holding node reported at its last renewal';

-- the node's own tables: idgen_disable() and idgen_enable() work on every
-- node of a fleet, also while the registry is away
CREATE FUNCTION idgen.require_node_database() RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
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
        RAISE EXCEPTION 'idgen lease functions need READ COMMITTED isolation'
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'They wait for each other''s row locks and must then see the rows as committed, not as of an older snapshot.';
    END IF;
    IF db <> current_database() THEN
        RAISE EXCEPTION 'idgen worker leases live in database "%", not "%"', db, current_database()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.database names the database whose idgen.worker_lease table is this node''s registry; a lease taken anywhere else could collide with the node''s own workers.',
                  HINT = format('Connect to database %s.', db);
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.require_node_database() IS 'raise unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database() FROM PUBLIC;

-- a node of a fleet holds no lease table of its own: leases are made in
-- the shared registry, where every node sees them
CREATE OR REPLACE FUNCTION idgen.require_registry() RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database();
    IF coalesce(current_setting('idgen.registry', true), '') <> '' THEN
        RAISE EXCEPTION 'this node leases worker ids from a shared registry'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.registry is set, so worker and range leases are made in the registry, where the whole fleet sees them; a lease taken on a node could collide with another node''s IDs.',
                  HINT = format('Call this function in the registry (%s).',
                                (SELECT s.registry FROM @extschema@.idgen_status() AS s));
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION @extschema@.idgen_disable(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database();
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

CREATE OR REPLACE FUNCTION @extschema@.idgen_enable() RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database();
    DELETE FROM idgen.node_control WHERE node_sysid = idgen.node_sysid();
    PERFORM idgen.set_disabled(false, NULL);
    PERFORM idgen.audit('enabled', NULL);
    PERFORM idgen.wake_worker();
END
$$;

/*
 * Lease a block of workers for a node, here or over a connection from
 * another instance (p_remote).  Leases run by the registry's clock: a
 * node's clock decides nothing about when another node's lease ends.  The
 * high-water marks are times of the IDs, so they stay on the node's clock.
 * The answer carries the registry's clock, for the node's skew check.
 *
 * A row is free when nobody holds it, when its holder is the caller itself
 * (a lease it gave up after it ran out), or when its lease expired and the
 * expiry can be trusted: always for a row leased over a connection, which
 * exists only here; for a row this instance's own node leased, only from
 * the same timeline, as after a promotion the old primary may still renew
 * it in its own copy of this table.
 */
DROP FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval);
CREATE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval, p_remote boolean,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz, OUT registry_clock timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz;
    v_region_bits integer;
    v_worker_bits integer;
    nblocks integer;
    start_block integer;
    b integer;
    fw integer;
    busy integer;
    node_floor timestamptz;
    block_floor timestamptz;
    gen bigint;
BEGIN
    -- the layout in force, and every one scheduled after it, must hold the node
    SELECT min(e.region_bits), min(e.worker_bits) INTO v_region_bits, v_worker_bits
    FROM idgen.epoch AS e
    WHERE e.version >= coalesce((SELECT max(x.version) FROM idgen.epoch AS x
                                 WHERE x.start_time <= idgen.clock()), 1);
    IF p_region < 0 OR p_region >= (1 << v_region_bits) THEN
        RAISE EXCEPTION 'region % is outside the registry''s layout', p_region
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The layout has %s region bits: regions 0 to %s.',
                                  v_region_bits, (1 << v_region_bits) - 1),
                  HINT = 'Set idgen.region_id of the node to a region the layout holds.';
    END IF;
    IF p_block > (1 << v_worker_bits)
       OR (p_pinned_worker >= 0 AND p_pinned_worker + p_block > (1 << v_worker_bits)) THEN
        RAISE EXCEPTION 'a block of % workers does not fit the registry''s layout', p_block
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The layout has %s worker bits: workers 0 to %s.',
                                  v_worker_bits, (1 << v_worker_bits) - 1),
                  HINT = 'Lower idgen.workers_per_node of the node, or its idgen.worker_id.';
    END IF;
    nblocks := (1 << least(p_worker_bits, v_worker_bits)) / p_block;

    PERFORM idgen.lock_registry();
    v_now := idgen.clock();
    registry_clock := v_now;

    SELECT max(l.high_water) INTO node_floor
    FROM idgen.worker_lease AS l WHERE l.node_sysid = p_sysid;

    -- later timelines start elsewhere, away from blocks an old primary may reuse
    start_block := ((p_timeline - 1) * (nblocks / 2 + 1)) % nblocks;

    FOR i IN 0 .. nblocks - 1 LOOP
        b := (start_block + i) % nblocks;
        fw := b * p_block;
        CONTINUE WHEN p_pinned_worker >= 0 AND fw <> p_pinned_worker;

        -- lock first: a renewal in flight must commit before we judge the rows
        PERFORM 1 FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block
        FOR UPDATE;
        SELECT count(*) FILTER (WHERE NOT coalesce(
                   l.owner IS NULL OR l.owner = p_owner
                   OR (l.lease_until <= v_now
                       AND (l.node_sysid IS NULL OR l.remote
                            OR (NOT p_remote AND l.node_sysid = p_sysid
                                AND l.timeline = p_timeline))), false)),
               max(l.high_water), max(l.generation)
          INTO busy, block_floor, gen
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;
        CONTINUE WHEN busy > 0;

        INSERT INTO idgen.worker_lease (region, worker)
        SELECT p_region, w FROM generate_series(fw, fw + p_block - 1) AS w
        ON CONFLICT DO NOTHING;

        first_worker := fw;
        generation := coalesce(gen, 0) + 1;
        lease_until := v_now + p_ttl;
        start_after := greatest(node_floor, block_floor);
        -- the node's own durable note of its high-water mark outranks a
        -- registry that lost it (dropped, or restored from an old backup)
        IF p_local_floor IS NOT NULL
           AND (start_after IS NULL OR start_after < p_local_floor - p_local_slack) THEN
            PERFORM idgen.audit('registry_behind_node',
                format('registry high-water %s is behind the node''s local mark %s; starting above the local mark',
                       coalesce(start_after::text, 'none'), p_local_floor));
            start_after := p_local_floor;
        END IF;
        high_water := greatest(p_high_water, start_after + (p_high_water - p_node_clock));

        UPDATE idgen.worker_lease AS l
        SET owner = p_owner, generation = acquire_node_lease.generation,
            lease_until = acquire_node_lease.lease_until,
            high_water = acquire_node_lease.high_water,
            node_sysid = p_sysid, timeline = p_timeline, ttl = p_ttl,
            acquired_at = v_now, renewed_at = v_now,
            remote = coalesce(p_remote, false), heartbeat_at = v_now,
            -- until the node measures it: includes the one-way delay
            clock_offset_ms = floor(extract(epoch FROM p_node_clock - v_now) * 1000)::bigint,
            node_state = 'leased'
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;

        PERFORM idgen.audit('lease_acquired',
            format('region %s workers %s-%s generation %s owner %s start_after %s',
                   p_region, fw, fw + p_block - 1, generation, p_owner,
                   coalesce(start_after::text, 'none')));
        RETURN;
    END LOOP;
    first_worker := -1;
END
$$;
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) IS 'lease a block of workers for a node, local or remote (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) FROM PUBLIC;

/*
 * Renew a node's block by the registry's clock, raise its high-water mark
 * and record the heartbeat, but only while every row is still the node's
 * own at the node's generation.  Otherwise report who holds the first row
 * that is not ours, so the node can stop.
 */
DROP FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz);
CREATE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    n integer;
    v_now timestamptz := idgen.clock();
BEGIN
    registry_clock := v_now;
    UPDATE idgen.worker_lease AS l
    SET lease_until = v_now + p_ttl,
        high_water = greatest(l.high_water, p_high_water),
        renewed_at = v_now, heartbeat_at = v_now,
        clock_offset_ms = coalesce(p_clock_offset_ms,
                                   floor(extract(epoch FROM p_node_clock - v_now) * 1000)::bigint),
        node_state = p_node_state
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND l.owner = p_owner AND l.generation = p_generation;
    GET DIAGNOSTICS n = ROW_COUNT;

    IF n = p_block THEN
        ok := true;
        lease_until := v_now + p_ttl;
        SELECT min(l.high_water) INTO high_water
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= p_first_worker
          AND l.worker < p_first_worker + p_block;
        RETURN;
    END IF;

    ok := false;
    SELECT l.owner, l.generation INTO other_owner, other_generation
    FROM idgen.worker_lease AS l
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND (l.owner IS DISTINCT FROM p_owner OR l.generation <> p_generation)
    ORDER BY l.worker LIMIT 1;
END
$$;
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) IS 'renew a node''s block, raise its high-water mark and record its heartbeat (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) FROM PUBLIC;

-- every holder of the registry: nodes with their blocks, outside generators
CREATE VIEW idgen.fleet AS
SELECT l.owner AS holder,
       CASE WHEN l.node_sysid IS NULL THEN 'outside' ELSE 'node' END AS kind,
       l.node_sysid,
       l.region,
       min(l.worker) AS first_worker,
       max(l.worker) AS last_worker,
       max(l.generation) AS generation,
       min(l.lease_until) AS lease_until,
       min(l.lease_until) > idgen.clock() AS live,
       min(l.high_water) AS high_water,
       max(l.heartbeat_at) AS last_heartbeat,
       max(l.clock_offset_ms) AS clock_offset_ms,
       max(l.node_state) AS node_state,
       bool_or(l.remote) AS remote
FROM idgen.worker_lease AS l
WHERE l.owner IS NOT NULL
GROUP BY l.owner, l.node_sysid, l.region;
COMMENT ON VIEW idgen.fleet IS 'the registry''s holders: each node''s region, workers, generation, lease expiry, high-water mark, last heartbeat and clock offset';
COMMENT ON COLUMN idgen.fleet.live IS 'the lease has not yet expired by the registry''s clock';
COMMENT ON COLUMN idgen.fleet.clock_offset_ms IS 'the holder''s clock minus the registry''s, as last measured';
REVOKE ALL ON idgen.fleet FROM PUBLIC;
GRANT SELECT ON idgen.fleet TO pg_monitor;

-- status gains where the node leases and how far its clock is from there
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
    OUT clock_jumps_forward bigint, OUT clock_steps_back bigint,
    OUT registry text, OUT clock_skew_ms bigint)
    AS 'MODULE_PATHNAME', 'idgen_status' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_status() IS 'this node''s generator: state and why, lease, logical vs wall clock, counters, registry and clock skew';
