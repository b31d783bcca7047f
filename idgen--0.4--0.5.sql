/* idgen--0.4--0.5.sql: layout epochs, statistics */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.5'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Layout epochs
-- ---------------------------------------------------------------------

-- rows alone do not invalidate the relcache: this tells every backend's
-- cached list of epochs about a new one, or a restore
CREATE FUNCTION idgen.epoch_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'idgen_epoch_changed' LANGUAGE C;
COMMENT ON FUNCTION idgen.epoch_changed() IS 'trigger: makes every session read idgen.epoch again';
REVOKE ALL ON FUNCTION idgen.epoch_changed() FROM PUBLIC;
CREATE TRIGGER epoch_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON idgen.epoch
    FOR EACH STATEMENT EXECUTE FUNCTION idgen.epoch_changed();

/*
 * Where the next epoch's time field must start for its IDs to sort above
 * every earlier one.  Reads idgen.epoch (STABLE); raises when no such
 * layout exists.  Only idgen_schedule_layout() needs it.
 */
CREATE FUNCTION idgen.plan_layout(applies_at timestamptz, region_bits integer,
                                  worker_bits integer, seq_bits integer,
                                  OUT version integer, OUT epoch_start timestamptz,
                                  OUT time_bits integer, OUT horizon timestamptz,
                                  OUT boundary @extschema@.idgen)
    AS 'MODULE_PATHNAME', 'idgen_plan_layout' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION idgen.plan_layout(timestamptz, integer, integer, integer) IS 'the next layout epoch, placed above every earlier ID; raises if impossible';
REVOKE ALL ON FUNCTION idgen.plan_layout(timestamptz, integer, integer, integer) FROM PUBLIC;

-- an epoch's lowest ID: its time field at its start, all other fields 0
CREATE VIEW idgen.epoch_boundaries AS
SELECT e.version, e.start_time,
       @extschema@.idgen(((EXTRACT(epoch FROM e.start_time - e.epoch_start) * 1000)::bigint)
                         << (e.region_bits + e.worker_bits + e.seq_bits)) AS boundary,
       e.region_bits, e.worker_bits, e.seq_bits, e.horizon
FROM idgen.epoch AS e;
COMMENT ON VIEW idgen.epoch_boundaries IS 'each layout epoch with the lowest ID it owns: an ID belongs to the last epoch whose boundary is at or below it';
GRANT SELECT ON idgen.epoch_boundaries TO PUBLIC;

/*
 * Add a bit layout from applies_at on.  Runs in the registry, where every
 * node reads idgen.epoch with each lease renewal.  Refused, with the
 * reason, when it could not be made safe:
 *   - too soon: every node must have renewed (and so learned of it) before
 *     it applies, and no node may have issued IDs at or after it already;
 *   - a held worker, or this node's settings, do not fit the new fields;
 *   - its IDs cannot sort above the previous layout's, it does not fit an
 *     idgen128, or its time field runs out within idgen.horizon_warning.
 * The SHARE lock makes lease renewals wait for this transaction, so none
 * extends a lease past applies_at without seeing the new row.
 */
CREATE FUNCTION @extschema@.idgen_schedule_layout(applies_at timestamptz, region_bits integer,
                                                 worker_bits integer, seq_bits integer)
    RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    ttl interval := pg_catalog.current_setting('idgen.lease_ttl')::interval;
    warning interval := pg_catalog.current_setting('idgen.horizon_warning')::interval;
    per_node integer := pg_catalog.current_setting('idgen.workers_per_node')::integer;
    my_region integer := pg_catalog.current_setting('idgen.region_id')::integer;
    my_worker integer := pg_catalog.current_setting('idgen.worker_id')::integer;
    layout text;
    now_ts timestamptz;
    last_lease timestamptz;
    last_issued timestamptz;
    earliest timestamptz;
    bad record;
    plan record;
BEGIN
    IF applies_at IS NULL OR region_bits IS NULL OR worker_bits IS NULL OR seq_bits IS NULL THEN
        RAISE EXCEPTION 'idgen_schedule_layout() needs a time and three field widths, none NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM idgen.require_registry();
    layout := pg_catalog.format('%s/%s/%s (region/worker/sequence bits)',
                                region_bits, worker_bits, seq_bits);
    IF region_bits NOT BETWEEN 0 AND 22 OR worker_bits NOT BETWEEN 0 AND 22
       OR seq_bits NOT BETWEEN 1 AND 22 THEN
        RAISE EXCEPTION 'cannot schedule layout %: each field has 0 to 22 bits, the sequence at least 1', layout
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    applies_at := pg_catalog.date_trunc('milliseconds', applies_at);

    LOCK TABLE idgen.epoch IN EXCLUSIVE MODE;
    LOCK TABLE idgen.worker_lease IN SHARE MODE;

    now_ts := idgen.clock();
    SELECT pg_catalog.max(l.lease_until) FILTER (WHERE l.owner IS NOT NULL),
           pg_catalog.max(l.high_water)
      INTO last_lease, last_issued
      FROM idgen.worker_lease AS l;
    earliest := GREATEST(now_ts + 2 * ttl,
                         COALESCE(last_lease, now_ts) + ttl,
                         COALESCE(last_issued, now_ts) + interval '1 millisecond');
    IF applies_at < earliest THEN
        RAISE EXCEPTION 'cannot schedule layout % from %: that is too soon', layout, applies_at
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('Every node must learn of a new layout before it applies, and nodes learn of it when they renew their leases: the latest lease runs until %s and IDs may have been issued up to %s, with idgen.lease_ttl = %s.',
                                             COALESCE(last_lease::text, 'none'), COALESCE(last_issued::text, 'none'), ttl),
                  HINT = pg_catalog.format('Schedule it at %s or later.', earliest);
    END IF;

    SELECT l.region, l.worker, l.owner INTO bad
      FROM idgen.worker_lease AS l
     WHERE l.owner IS NOT NULL
       AND (l.region >= (1 << region_bits) OR l.worker >= (1 << worker_bits))
     ORDER BY l.region, l.worker
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'cannot schedule layout %: worker % of region % does not fit it', layout, bad.worker, bad.region
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The worker is leased by %s; the new layout holds regions 0-%s and workers 0-%s.',
                                             bad.owner, (1 << region_bits) - 1, (1 << worker_bits) - 1),
                  HINT = 'Keep enough region and worker bits for every node of the fleet.';
    END IF;
    IF my_region >= (1 << region_bits) OR my_worker >= (1 << worker_bits)
       OR per_node > (1 << worker_bits) THEN
        RAISE EXCEPTION 'cannot schedule layout %: this node''s settings do not fit it', layout
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('idgen.region_id = %s, idgen.worker_id = %s and idgen.workers_per_node = %s; the new layout holds regions 0-%s and %s workers.',
                                             my_region, my_worker, per_node, (1 << region_bits) - 1, 1 << worker_bits);
    END IF;

    SELECT * INTO plan FROM idgen.plan_layout(applies_at, region_bits, worker_bits, seq_bits);
    IF plan.horizon < applies_at + warning THEN
        RAISE EXCEPTION 'cannot schedule layout %: its time field runs out at %', layout, plan.horizon
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('To sort above the IDs before it, its time field starts at %s; %s time bits then end within idgen.horizon_warning (%s) of %s.',
                                             plan.epoch_start, plan.time_bits, warning, applies_at),
                  HINT = 'Put fewer bits below the time field.';
    END IF;

    INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits,
                             worker_bits, seq_bits, horizon)
    VALUES (plan.version, applies_at, plan.epoch_start, plan.time_bits, region_bits,
            worker_bits, seq_bits, plan.horizon);
    PERFORM idgen.audit('schedule_layout',
                        pg_catalog.format('epoch %s: layout %s from %s, time field from %s, horizon %s, first ID %s',
                                          plan.version, layout, applies_at, plan.epoch_start,
                                          plan.horizon, plan.boundary));
    PERFORM idgen.wake_worker();
    RETURN plan.version;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_schedule_layout(timestamptz, integer, integer, integer) IS 'add a bit layout from applies_at on, in the registry; unsafe layouts are refused with the reason';
REVOKE ALL ON FUNCTION @extschema@.idgen_schedule_layout(timestamptz, integer, integer, integer) FROM PUBLIC;


-- ==============================================================
-- Statistics: idgen.stats, the counters of the generator and the
-- watchdog, for monitoring (pg_monitor), not for PUBLIC
-- =====================================================================

-- VOLATILE: every call reads live counters; PARALLEL SAFE: they are all in
-- shared memory, like idgen_status()'s
CREATE FUNCTION idgen.stats_counters(
    OUT node_sysid text, OUT region integer, OUT worker integer, OUT state text,
    OUT ids_idgen bigint, OUT ids_idgen128 bigint, OUT batches bigint,
    OUT sequence_exhaustions bigint, OUT clock_waits bigint, OUT clock_wait_ms bigint,
    OUT drift_ms bigint, OUT max_drift_ms bigint,
    OUT clock_rollbacks bigint, OUT clock_refusals bigint,
    OUT clock_jumps_forward bigint, OUT clock_steps_back bigint,
    OUT lease_renewals bigint, OUT lease_failures bigint, OUT fencing_events bigint,
    OUT collisions bigint, OUT started_at timestamptz, OUT stats_reset timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_stats_counters' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.stats_counters() IS 'the row behind the idgen.stats view; needs shared_preload_libraries = ''idgen''';
REVOKE ALL ON FUNCTION idgen.stats_counters() FROM PUBLIC;
-- a view's reader needs EXECUTE on the functions the view calls
GRANT EXECUTE ON FUNCTION idgen.stats_counters() TO pg_monitor;

CREATE FUNCTION idgen.reset_stats() RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_reset_stats' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.reset_stats() IS 'idgen.stats counts from zero again (idgen_status() does not reset)';
REVOKE ALL ON FUNCTION idgen.reset_stats() FROM PUBLIC;

CREATE VIEW idgen.stats AS
SELECT s.node_sysid, s.region, s.worker, s.state,
       s.ids_idgen, s.ids_idgen128, s.batches, s.sequence_exhaustions,
       s.clock_waits, s.clock_wait_ms, s.drift_ms, s.max_drift_ms,
       s.clock_rollbacks, s.clock_refusals, s.clock_jumps_forward, s.clock_steps_back,
       s.lease_renewals, s.lease_failures, s.fencing_events, s.collisions,
       s.started_at, s.stats_reset
FROM idgen.stats_counters() AS s;
COMMENT ON VIEW idgen.stats IS 'counters of this node''s generator and watchdog, one row; counted since stats_reset, or since started_at when never reset';
COMMENT ON COLUMN idgen.stats.node_sysid IS 'system identifier of this node, as idgen.worker_lease records it';
COMMENT ON COLUMN idgen.stats.region IS 'region of this node (idgen.region_id)';
COMMENT ON COLUMN idgen.stats.worker IS 'first worker id of the block this node leases; NULL while it holds none';
COMMENT ON COLUMN idgen.stats.state IS 'the generator''s state, as idgen_status() names it';
COMMENT ON COLUMN idgen.stats.ids_idgen IS '64-bit IDs issued (idgen_next() and the idgen batch functions)';
COMMENT ON COLUMN idgen.stats.ids_idgen128 IS '128-bit IDs issued (idgen_next128() and the idgen128 batch functions)';
COMMENT ON COLUMN idgen.stats.batches IS 'batch reservations of either width; an empty batch and a keyed batch returned again are not counted';
COMMENT ON COLUMN idgen.stats.sequence_exhaustions IS 'single IDs that had to borrow the next millisecond because this one''s sequence was used up';
COMMENT ON COLUMN idgen.stats.clock_waits IS 'calls that waited for the wall clock to catch up with the logical clock';
COMMENT ON COLUMN idgen.stats.clock_wait_ms IS 'milliseconds spent in those waits';
COMMENT ON COLUMN idgen.stats.drift_ms IS 'how far the logical clock is ahead of the wall clock now; 0 when it is not';
COMMENT ON COLUMN idgen.stats.max_drift_ms IS 'the largest drift seen: when a reservation ran ahead of the wall clock, a call had to wait or refuse, or this view was read';
COMMENT ON COLUMN idgen.stats.clock_rollbacks IS 'times a generating call saw the wall clock go back';
COMMENT ON COLUMN idgen.stats.clock_refusals IS 'calls refused for time reasons: clock too far behind, time field exhausted, lease or high-water mark not renewed in time';
COMMENT ON COLUMN idgen.stats.clock_jumps_forward IS 'forward jumps of the wall clock against the monotonic clock, seen by the background worker';
COMMENT ON COLUMN idgen.stats.clock_steps_back IS 'backward steps of the wall clock against the monotonic clock, seen by the background worker';
COMMENT ON COLUMN idgen.stats.lease_renewals IS 'worker lease renewals that succeeded';
COMMENT ON COLUMN idgen.stats.lease_failures IS 'rounds of the background worker''s lease work (acquiring, renewing) that failed with an error';
COMMENT ON COLUMN idgen.stats.fencing_events IS 'times this node was fenced: its lease was taken away or its generation changed';
COMMENT ON COLUMN idgen.stats.collisions IS 'times the background worker found this node''s workers held by another holder while its lease was valid (recorded in idgen.collision)';
COMMENT ON COLUMN idgen.stats.started_at IS 'when the counters started: server start, or restart after a crash';
COMMENT ON COLUMN idgen.stats.stats_reset IS 'last idgen.reset_stats(); NULL if never';
REVOKE ALL ON idgen.stats FROM PUBLIC;
GRANT SELECT ON idgen.stats TO pg_monitor;

/*
 * Privileges review (issue 7), over every function of idgen--0.1.sql to
 * this file:
 *  - every SECURITY DEFINER function (idgen_lease_worker, idgen_renew_worker,
 *    idgen_release_worker, idgen_fence_worker, idgen_disable, idgen_enable,
 *    idgen_lease_range, idgen_range_consumed, idgen.keyed_batch, idgen_mask
 *    (both), idgen_unmask, idgen_unmask128, idgen_rotate_mask_key) already
 *    has SET search_path = pg_catalog, pg_temp and names the extension's
 *    objects with their schema; so do all SQL and PL/pgSQL functions;
 *  - EXECUTE is revoked from PUBLIC on every function that changes lease,
 *    node or key state, reads the registry or keys for its caller, or is
 *    internal; PUBLIC keeps the generating, decoding, time and status
 *    functions, the keyed batches (idgen.keyed_batch scopes them to
 *    session_user), the mask functions, and harmless readers (idgen.clock,
 *    idgen.node_sysid -- PUBLIC may call pg_control_system() too --,
 *    idgen.default_layout, idgen.range_space_end, idgen.request_retention);
 *  - the LEAKPROOF time comparisons raise no errors for any input.
 * No ALTER FUNCTION was needed; test/pgtap/privileges.sql asserts the result.
 */

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
 *
 * Such a row stays taken however long ago its lease ended and its mark
 * passed.  Our copy stopped at the promotion; an old primary that still
 * runs (a split brain) renews the row in its own copy and keeps issuing at
 * its current time, so its IDs go on past both the lease end and the mark
 * we see, and starting above that mark (start_after) would not keep ours
 * apart from its.  Even a dead old primary may have renewed, and issued,
 * after the last change that reached us.  Nothing in this table tells a
 * dead old primary from a live one, so each unclean failover leaves its
 * block behind, and enough of them fill the region: the background worker
 * then names those blocks in idgen_status().reason.  Only an operator who
 * knows an old primary is gone for good frees its rows, with
 * idgen_fence_worker(), idgen.max_drift after its last ID; the next lease
 * of them starts above their marks.
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
    hw_cap timestamptz;
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
        -- the mark may lead our clock by what the node asked over its own,
        -- plus the skew allowed: a node whose clock jumped ahead must not
        -- carry its block's marks, and so every later holder, along with it
        -- (idgen.max_skew = 0 turns the skew check off, and this cap with it)
        hw_cap := CASE WHEN coalesce(current_setting('idgen.max_skew', true)::interval,
                                     interval '1 s') = interval '0'
                       THEN 'infinity'
                       ELSE v_now + greatest(p_high_water - p_node_clock, interval '0')
                            + coalesce(current_setting('idgen.max_skew', true)::interval,
                                       interval '1 s') END;
        high_water := greatest(least(p_high_water, hw_cap),
                               start_after + (p_high_water - p_node_clock));

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
    -- as at acquisition: no mark further ahead of our clock than the node's
    -- lead over its own, plus the skew allowed
    hw_cap timestamptz := CASE WHEN coalesce(current_setting('idgen.max_skew', true)::interval,
                                             interval '1 s') = interval '0'
                               THEN 'infinity'
                               ELSE v_now + greatest(p_high_water - p_node_clock, interval '0')
                                    + coalesce(current_setting('idgen.max_skew', true)::interval,
                                               interval '1 s') END;
BEGIN
    registry_clock := v_now;
    UPDATE idgen.worker_lease AS l
    SET lease_until = v_now + p_ttl,
        high_water = greatest(l.high_water, least(p_high_water, hw_cap)),
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

-- ---------------------------------------------------------------------
-- Outside generators and layout epochs
-- ---------------------------------------------------------------------

/*
 * An outside generator composes its IDs itself, with the layout in force
 * when it leased: it cannot follow a switch.  So its lease never spans one:
 * it ends at the next scheduled epoch's start at the latest, and the
 * generator leases again after the switch, under the new layout.  (The
 * schedule refuses a start before every current lease has ended anyway.)
 */
CREATE FUNCTION idgen.outside_lease_end(now timestamptz, ttl interval) RETURNS timestamptz
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT LEAST(now + ttl, (SELECT min(e.start_time) FROM idgen.epoch AS e WHERE e.start_time > now))
$$;
COMMENT ON FUNCTION idgen.outside_lease_end(timestamptz, interval) IS 'end of an outside generator''s lease taken or renewed now: its ttl, but never past the next layout switch';
REVOKE ALL ON FUNCTION idgen.outside_lease_end(timestamptz, interval) FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_lease_worker(owner text, ttl interval,
    OUT region integer, OUT worker integer, OUT generation bigint, OUT lease_until timestamptz)
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    until timestamptz;
    my_region integer;
    worker_bits integer;
    w integer;
    l idgen.worker_lease;
    ctl text := substring(owner FROM E'[\\x01-\\x1f\\x7f]');
BEGIN
    PERFORM idgen.require_registry();
    IF ttl <= interval '0' OR ttl > interval '1 day' THEN
        RAISE EXCEPTION 'lease ttl must lie between 0 and 1 day, not %', ttl
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A lease''s end becomes its worker''s high-water mark: a far-off end would keep anyone from using the worker until then.';
    END IF;
    IF owner = '' OR owner LIKE 'node:%' THEN
        RAISE EXCEPTION 'invalid lease owner: "%"', owner
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'An owner is a non-empty name, and names starting with "node:" are reserved for idgen nodes.';
    END IF;
    -- the name is quoted in idgen_status(), idgen.fleet, the audit log and
    -- the server log, where it must read as what it is
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a lease owner must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. An owner name appears in idgen_status(), idgen.fleet and the audit log, so it must be printable.',
                                  strpos(owner, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    PERFORM idgen.lock_registry();
    now := idgen.clock();
    until := idgen.outside_lease_end(now, idgen_lease_worker.ttl);

    -- the same owner asking again gets its lease back: a stable retry identity
    SELECT * INTO l FROM idgen.worker_lease AS x
    WHERE x.owner = idgen_lease_worker.owner AND x.node_sysid IS NULL AND x.lease_until > now
    ORDER BY x.region, x.worker LIMIT 1
    FOR UPDATE;
    IF FOUND THEN
        UPDATE idgen.worker_lease AS x
        SET lease_until = until,
            high_water = greatest(x.high_water, until),
            ttl = idgen_lease_worker.ttl, renewed_at = now
        WHERE x.region = l.region AND x.worker = l.worker;
        region := l.region; worker := l.worker; generation := l.generation;
        lease_until := until;
        RETURN;
    END IF;

    my_region := coalesce(nullif(current_setting('idgen.region_id', true), ''), '0')::integer;
    -- the narrowest worker field of the layout in force and every later one
    SELECT pg_catalog.min(e.worker_bits) INTO worker_bits FROM idgen.epoch AS e
    WHERE e.version >= (SELECT pg_catalog.max(x.version) FROM idgen.epoch AS x
                        WHERE x.start_time <= now);

    -- from the top of the worker range down: nodes take blocks from the bottom
    FOR w IN REVERSE (1 << worker_bits) - 1 .. 0 LOOP
        INSERT INTO idgen.worker_lease (region, worker) VALUES (my_region, w)
        ON CONFLICT DO NOTHING;
        -- lock first: a renewal in flight must commit before we judge the row
        SELECT * INTO l FROM idgen.worker_lease AS x
        WHERE x.region = my_region AND x.worker = w
        FOR UPDATE;
        -- an outside holder cannot be told where to start, so its worker's
        -- history must already lie in the past
        CONTINUE WHEN NOT idgen.row_is_free(l, now, idgen.node_sysid(),
                                           coalesce(l.timeline, 0))
                  OR (l.node_sysid IS NOT NULL AND l.owner IS NOT NULL)
                  OR coalesce(l.high_water, '-infinity') >= now;
        UPDATE idgen.worker_lease AS x
        SET owner = idgen_lease_worker.owner, generation = x.generation + 1,
            lease_until = until,
            high_water = until,
            node_sysid = NULL, ttl = idgen_lease_worker.ttl,
            acquired_at = now, renewed_at = now
        WHERE x.region = my_region AND x.worker = w
        RETURNING x.region, x.worker, x.generation, x.lease_until
        INTO region, worker, generation, lease_until;
        PERFORM idgen.audit('worker_leased',
            format('region %s worker %s generation %s owner %s until %s',
                   region, worker, generation, idgen_lease_worker.owner, lease_until));
        RETURN;
    END LOOP;

    RAISE EXCEPTION 'no free worker id in region %', my_region
        USING ERRCODE = 'insufficient_resources',
              HINT = 'Release unused leases with idgen_release_worker() or wait for leases to expire.';
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back; it ends at the next layout switch at the latest';

CREATE OR REPLACE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint)
    RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz := idgen.clock();
    until timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.worker_lease AS x
    SET lease_until = idgen.outside_lease_end(now, x.ttl),
        high_water = greatest(x.high_water, idgen.outside_lease_end(now, x.ttl)),
        renewed_at = now
    WHERE x.region = idgen_renew_worker.region AND x.worker = idgen_renew_worker.worker
      AND x.generation = idgen_renew_worker.generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL AND x.lease_until > now
    RETURNING x.lease_until INTO until;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % is not leased at generation %',
                        worker, region, generation
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The lease expired, was released, or was fenced; the holder must stop issuing IDs.',
                  HINT = 'Lease a worker again with idgen_lease_worker().';
    END IF;
    RETURN until;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) IS 'renew an outside generator''s lease; fails once fenced or expired';


-- =====================================================================
-- Dump and restore: a registry database restores like any database
-- =====================================================================

/*
 * pg_dump writes the rows of the configuration tables, and pg_restore
 * (or psql) puts them back with COPY into a server whose background worker
 * has already created the extension and leased its own block.  A restored
 * row whose key the database already has is merged into it here instead of
 * failing on the primary key; a row the database has already, unchanged,
 * is skipped, so a dump restored twice changes nothing.  These triggers
 * fire for every INSERT, and cost the catalog's own inserts one index
 * lookup; pg_restore --disable-triggers bypasses them (and then fails on
 * the keys as before).
 */

-- rows nobody ever held carry nothing: the lease functions make them on
-- the fly, and a restore of them would only collide with the new server's
SELECT pg_catalog.pg_extension_config_dump('idgen.worker_lease',
    'WHERE owner IS NOT NULL OR generation > 0 OR high_water IS NOT NULL');

-- retry keys come along while they live: a retry after a restore gets its
-- batch again
SELECT pg_catalog.pg_extension_config_dump('idgen.batch_request',
    'WHERE expires_at > pg_catalog.now()');

CREATE FUNCTION idgen.yield_lease(reason text, owner text, region integer, worker integer,
                                  generation bigint) RETURNS boolean
    AS 'MODULE_PATHNAME', 'idgen_yield_lease_sql' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.yield_lease(text, text, integer, integer, bigint) IS 'this node stops issuing under its lease at once and leases anew (NULL owner: whatever it holds); false if the lease is not the node''s';
REVOKE ALL ON FUNCTION idgen.yield_lease(text, text, integer, integer, bigint) FROM PUBLIC;

/*
 * A restored worker_lease row (NEW) for a worker the registry has a row
 * for already (e).  Never two holders, never a mark or generation lowered:
 *   - high_water becomes the later of the two;
 *   - the same lease (owner and generation) keeps the later expiry;
 *   - a restored live lease of an outside generator or of a remote node
 *     (they renew here once they reach this server) is carried, holder,
 *     generation and expiry, unless a live holder of this registry other
 *     than this node has the worker (it keeps it: the restored holder is
 *     refused at its next renewal, and a WARNING says so), or its
 *     generation is behind the row's;
 *   - a restored lease of a node that leased in its own instance
 *     (node_sysid set, not remote) is history: that node never renews here;
 *   - when this node's own running lease covers the worker it stops
 *     issuing at once, before the restore commits, and its background
 *     worker leases anew above the merged marks (idgen.yield_lease), so
 *     its next IDs lie above every restored one;
 *   - with no live holder on either side, the side with the later
 *     generation gives the holder columns.
 * The first restored row locks the table against every lease change
 * (renewals included) until the restore commits, before any row is
 * compared; a lease taken meanwhile waits, and then sees the merged rows.
 */
CREATE FUNCTION idgen.restore_worker_lease() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    e idgen.worker_lease;
    v_now timestamptz;
    e_live boolean;
    e_mine boolean := false;
    r_live boolean;
    carry boolean;
    merged timestamptz;
    what text;
BEGIN
    LOCK TABLE idgen.worker_lease IN SHARE ROW EXCLUSIVE MODE;
    SELECT * INTO e FROM idgen.worker_lease AS x
    WHERE x.region = NEW.region AND x.worker = NEW.worker;
    IF NOT FOUND THEN
        RETURN NEW;
    END IF;
    merged := greatest(e.high_water, NEW.high_water);

    -- the same lease, an older or newer copy of it: the later of each time
    IF NEW.owner IS NOT NULL AND NEW.owner = e.owner AND NEW.generation = e.generation THEN
        IF NEW.high_water > e.high_water THEN
            PERFORM idgen.yield_lease(
                format('a restored high-water mark of worker %s of region %s lies above this node''s: leasing anew above it',
                       e.worker, e.region),
                e.owner, e.region, e.worker, e.generation);
        END IF;
        UPDATE idgen.worker_lease AS x
        SET high_water = merged, lease_until = greatest(x.lease_until, NEW.lease_until),
            renewed_at = greatest(x.renewed_at, NEW.renewed_at),
            heartbeat_at = greatest(x.heartbeat_at, NEW.heartbeat_at)
        WHERE x.region = NEW.region AND x.worker = NEW.worker;
        RETURN NULL;
    END IF;

    v_now := idgen.clock();
    e_live := e.owner IS NOT NULL AND e.lease_until > v_now;
    r_live := NEW.owner IS NOT NULL AND NEW.lease_until > v_now
              AND (NEW.node_sysid IS NULL OR NEW.remote);
    IF e_live THEN
        e_mine := idgen.yield_lease(
            format('idgen.worker_lease rows were restored over this node''s lease (worker %s of region %s, generation %s): leasing anew above the restored high-water marks',
                   e.worker, e.region, e.generation),
            e.owner, e.region, e.worker, e.generation);
    END IF;
    carry := r_live AND (NOT e_live OR e_mine)
             AND (NEW.generation > e.generation
                  OR (NEW.generation = e.generation AND e.owner IS NOT NULL));

    IF carry OR (NOT e_live AND NEW.generation > e.generation) THEN
        UPDATE idgen.worker_lease AS x
        SET owner = NEW.owner, generation = NEW.generation, lease_until = NEW.lease_until,
            high_water = merged, node_sysid = NEW.node_sysid, timeline = NEW.timeline,
            ttl = NEW.ttl, acquired_at = NEW.acquired_at, renewed_at = NEW.renewed_at,
            remote = NEW.remote, heartbeat_at = NEW.heartbeat_at,
            clock_offset_ms = NEW.clock_offset_ms, node_state = NEW.node_state
        WHERE x.region = NEW.region AND x.worker = NEW.worker;
        what := CASE WHEN carry THEN format('the restored lease of %s (generation %s) is carried',
                                            NEW.owner, NEW.generation)
                     ELSE format('the restored row (generation %s) is newer', NEW.generation) END;
    ELSE
        UPDATE idgen.worker_lease AS x SET high_water = merged
        WHERE x.region = NEW.region AND x.worker = NEW.worker;
        what := format('the row (generation %s, holder %s) is kept', e.generation,
                       coalesce(e.owner, 'none'));
        IF r_live THEN
            RAISE WARNING 'idgen: the restored lease of worker % of region % by "%" (generation %) is not carried',
                          NEW.worker, NEW.region, NEW.owner, NEW.generation
                USING DETAIL = format('The worker is held by "%s" at generation %s in this registry; the restored holder is refused at its next renewal and must lease again.',
                                      e.owner, e.generation);
        END IF;
    END IF;
    PERFORM idgen.audit('restore_merged',
        format('region %s worker %s: %s; high-water %s -> %s%s', NEW.region, NEW.worker, what,
               coalesce(e.high_water::text, 'none'), coalesce(merged::text, 'none'),
               CASE WHEN e_mine THEN '; this node leases anew' ELSE '' END));
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION idgen.restore_worker_lease() IS 'trigger: a restored worker_lease row whose worker exists is merged into it: marks never lowered, never two holders';
REVOKE ALL ON FUNCTION idgen.restore_worker_lease() FROM PUBLIC;
CREATE TRIGGER worker_lease_restore BEFORE INSERT ON idgen.worker_lease
    FOR EACH ROW WHEN (NEW.owner IS NOT NULL OR NEW.generation > 0 OR NEW.high_water IS NOT NULL)
    EXECUTE FUNCTION idgen.restore_worker_lease();

/*
 * A restored layout epoch.  One this registry has already, the same, is
 * skipped; another one under the same version is refused (IDs were issued
 * under one of them).  A new one must not start where this registry may
 * have issued IDs under an earlier layout already: the restore is refused
 * if any holder's high-water mark but this node's own reaches its start,
 * or this node has issued at or after it.  A node whose lease reaches its
 * start stops issuing first and leases anew, reading the epochs again;
 * renewals wait for the restore to commit (as for idgen_schedule_layout(),
 * which checks all this and more before its insert), so none extends a
 * lease past the start without seeing the epoch.
 */
CREATE FUNCTION idgen.restore_epoch() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    e idgen.epoch;
    s record;
    busy record;
BEGIN
    SELECT * INTO e FROM idgen.epoch AS x WHERE x.version = NEW.version;
    IF FOUND THEN
        IF (e.start_time, e.epoch_start, e.time_bits, e.region_bits, e.worker_bits, e.seq_bits, e.horizon)
           IS NOT DISTINCT FROM
           (NEW.start_time, NEW.epoch_start, NEW.time_bits, NEW.region_bits, NEW.worker_bits,
            NEW.seq_bits, NEW.horizon) THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'cannot restore layout epoch %: this database has another epoch %', NEW.version, NEW.version
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The restored one applies from %s with %s/%s/%s region/worker/sequence bits, this one from %s with %s/%s/%s. IDs may have been issued under either, and an epoch is never rewritten.',
                                  NEW.start_time, NEW.region_bits, NEW.worker_bits, NEW.seq_bits,
                                  e.start_time, e.region_bits, e.worker_bits, e.seq_bits),
                  HINT = 'Restore the registry into a server whose idgen.epoch has no layouts of its own beyond epoch 1.';
    END IF;

    -- only the node's registry: elsewhere no node issues by these rows
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database()
       OR coalesce(current_setting('idgen.registry', true), '') <> '' THEN
        RETURN NEW;
    END IF;
    LOCK TABLE idgen.worker_lease IN SHARE ROW EXCLUSIVE MODE;
    SELECT st.owner, st.generation, st.lease_until, st.logical_clock INTO s
    FROM @extschema@.idgen_status() AS st;
    IF s.lease_until IS NOT NULL AND s.lease_until >= NEW.start_time THEN
        PERFORM idgen.yield_lease(
            format('layout epoch %s from %s was restored: leasing anew to read it', NEW.version, NEW.start_time),
            NULL, NULL, NULL, NULL);
    END IF;
    SELECT l.owner, l.region, l.worker, l.high_water INTO busy
    FROM idgen.worker_lease AS l
    WHERE l.high_water >= NEW.start_time
      AND (l.owner IS DISTINCT FROM s.owner OR l.generation IS DISTINCT FROM s.generation)
    ORDER BY l.high_water DESC LIMIT 1;
    IF FOUND OR s.logical_clock >= NEW.start_time THEN
        RAISE EXCEPTION 'cannot restore layout epoch % from %: this registry may have issued IDs after its start',
                        NEW.version, NEW.start_time
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = CASE WHEN FOUND
                                THEN format('Worker %s of region %s (holder %s) has a high-water mark of %s under the layout before it; its IDs could repeat under the restored one.',
                                            busy.worker, busy.region, coalesce(busy.owner, 'none'), busy.high_water)
                                ELSE format('This node has issued IDs up to %s under the layout before it; they could repeat under the restored one.',
                                            s.logical_clock) END,
                  HINT = 'Restore the registry into a server that has issued no IDs since the epoch''s start.';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION idgen.restore_epoch() IS 'trigger: a restored epoch the registry has is skipped; a conflicting or unsafe one is refused';
REVOKE ALL ON FUNCTION idgen.restore_epoch() FROM PUBLIC;
CREATE TRIGGER epoch_restore BEFORE INSERT ON idgen.epoch
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_epoch();

-- a restored mask key the database has already (same id and secret) is
-- skipped; a different key under the same id fails on the primary key, as
-- tokens of both could not unmask
CREATE FUNCTION idgen.restore_mask_key() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.mask_key AS k WHERE k.key_id = NEW.key_id AND k.secret = NEW.secret;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_mask_key() IS 'trigger: a restored mask key the database has already is skipped';
REVOKE ALL ON FUNCTION idgen.restore_mask_key() FROM PUBLIC;
CREATE TRIGGER mask_key_restore BEFORE INSERT ON idgen.mask_key
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_mask_key();

-- a restored range lease the registry has already (same range, holder,
-- generation and key) keeps the further of the two reported progresses;
-- any other overlap fails on the exclusion constraint: both ranges were
-- handed out
CREATE FUNCTION idgen.restore_range_lease() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    UPDATE idgen.range_lease AS l
    SET consumed = greatest(l.consumed, NEW.consumed),
        updated_at = greatest(l.updated_at, NEW.updated_at)
    WHERE l.range_start = NEW.range_start AND l.range_end = NEW.range_end
      AND l.owner = NEW.owner AND l.generation = NEW.generation
      AND l.request_key IS NOT DISTINCT FROM NEW.request_key;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_range_lease() IS 'trigger: a restored range lease the registry has already is merged into it';
REVOKE ALL ON FUNCTION idgen.restore_range_lease() FROM PUBLIC;
CREATE TRIGGER range_lease_restore BEFORE INSERT ON idgen.range_lease
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_range_lease();

-- a restored retry key the database has already, with the same batch, is
-- skipped; a different batch under the same key fails on the primary key
-- (the unique violation idgen.keyed_batch waits for)
CREATE FUNCTION idgen.restore_batch_request() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.batch_request AS b
    WHERE b.owner_role = NEW.owner_role AND b.request_key = NEW.request_key
      AND b.width = NEW.width AND b.count = NEW.count
      AND b.ids IS NOT DISTINCT FROM NEW.ids AND b.ids128 IS NOT DISTINCT FROM NEW.ids128;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_batch_request() IS 'trigger: a restored retry key the database has already is skipped';
REVOKE ALL ON FUNCTION idgen.restore_batch_request() FROM PUBLIC;
CREATE TRIGGER batch_request_restore BEFORE INSERT ON idgen.batch_request
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_batch_request();

-- a restored disable the database has already, the same, is skipped
CREATE FUNCTION idgen.restore_node_control() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.node_control AS n
    WHERE n.node_sysid = NEW.node_sysid AND n.disabled_reason = NEW.disabled_reason
      AND n.disabled_at = NEW.disabled_at AND n.disabled_by = NEW.disabled_by;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_node_control() IS 'trigger: a restored node_control row the database has already is skipped';
REVOKE ALL ON FUNCTION idgen.restore_node_control() FROM PUBLIC;
CREATE TRIGGER node_control_restore BEFORE INSERT ON idgen.node_control
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_node_control();

/*
 * Range leases: the generation comes from idgen.range_generation, which a
 * restored dump sets back to its own value; it never goes below a
 * generation a lease of this registry already has.  Otherwise as in 0.3.
 */
-- ---------------------------------------------------------------------
-- Names and keys are printable text.  An owner's name is quoted in
-- idgen_status(), idgen.fleet, the audit log and the server log, a request
-- key in the audit log and in errors: a control character there (a
-- newline above all) would make them read as something else.  An
-- operator's reason for idgen_disable() stays free text.
-- ---------------------------------------------------------------------

CREATE OR REPLACE FUNCTION @extschema@.idgen_lease_range(owner text, count bigint, request_key text DEFAULT NULL,
    OUT range_start @extschema@.idgen, OUT range_end @extschema@.idgen, OUT generation bigint)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r idgen.range_lease;
    next_start bigint;
    ctl text;
BEGIN
    PERFORM idgen.require_registry();
    IF owner IS NULL OR owner = '' THEN
        RAISE EXCEPTION 'a range lease needs an owner' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF count IS NULL OR count < 1 THEN
        RAISE EXCEPTION 'range size must be at least 1, not %', count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF length(request_key) > 200 OR length(owner) > 200 THEN
        RAISE EXCEPTION 'a range owner and request key have at most 200 characters'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    ctl := substring(owner FROM E'[\\x01-\\x1f\\x7f]');
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a range owner must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. An owner name appears in the audit log, so it must be printable.',
                                  strpos(owner, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    ctl := substring(request_key FROM E'[\\x01-\\x1f\\x7f]');
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a request key must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. A range''s request key appears in the audit log, so it must be printable.',
                                  strpos(request_key, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;
    PERFORM idgen.lock_registry();

    -- the same key returns the same range: a lost client gets it back
    IF request_key IS NOT NULL THEN
        SELECT * INTO r FROM idgen.range_lease AS l
        WHERE l.owner = idgen_lease_range.owner AND l.request_key = idgen_lease_range.request_key;
        IF FOUND THEN
            IF r.range_end::bigint - r.range_start::bigint + 1 <> count THEN
                RAISE EXCEPTION 'request key "%" of owner "%" leased a range of % IDs, not %',
                                request_key, owner, r.range_end::bigint - r.range_start::bigint + 1, count
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            range_start := r.range_start;
            range_end := r.range_end;
            generation := r.generation;
            RETURN;
        END IF;
    END IF;

    SELECT coalesce(max(l.range_end::bigint) + 1, 1) INTO next_start FROM idgen.range_lease AS l;
    IF count > idgen.range_space_end()::bigint - next_start THEN
        RAISE EXCEPTION 'the range space has no room for % more IDs', count
            USING ERRCODE = 'program_limit_exceeded',
                  DETAIL = format('Ranges come from IDs below %s; %s of them are left.',
                                  idgen.range_space_end(), idgen.range_space_end()::bigint - next_start);
    END IF;
    range_start := next_start;
    range_end := next_start + count - 1;
    generation := pg_catalog.nextval('idgen.range_generation');
    -- a restore's SEQUENCE SET may have put the counter back below leases
    -- made since: a fencing token is never handed out twice
    SELECT greatest(idgen_lease_range.generation, pg_catalog.max(l.generation) + 1)
      INTO generation
    FROM idgen.range_lease AS l;
    IF generation > pg_catalog.currval('idgen.range_generation') THEN
        PERFORM pg_catalog.setval('idgen.range_generation', generation);
    END IF;
    INSERT INTO idgen.range_lease (range_start, range_end, owner, generation, request_key)
    VALUES (range_start, range_end, owner, generation, request_key);
    PERFORM idgen.audit('range_leased',
        format('owner %s range %s-%s (%s IDs) generation %s key %s',
               owner, range_start, range_end, count, generation, coalesce(request_key, 'none')));
END
$$;

CREATE OR REPLACE FUNCTION idgen.keyed_batch(p_count integer, p_key text, p_width smallint,
                                  OUT ids @extschema@.idgen[], OUT ids128 @extschema@.idgen128[])
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    r idgen.batch_request;
    ctl text := substring(p_key FROM E'[\\x01-\\x1f\\x7f]');
BEGIN
    IF p_count < 0 THEN
        RAISE EXCEPTION 'batch size must not be negative: %', p_count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_count > 1000000 THEN
        RAISE EXCEPTION 'a batch with a request key holds at most 1000000 IDs, not %', p_count
            USING ERRCODE = 'program_limit_exceeded',
                  HINT = 'Split the request into several keyed batches.';
    END IF;
    IF p_key = '' OR length(p_key) > 200 THEN
        RAISE EXCEPTION 'a request key has 1 to 200 characters, not %', length(p_key)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a request key must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. A request key is quoted in errors, so it must be printable.',
                                  strpos(p_key, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;

    -- a few expired requests go with every call, so no table grows unbounded
    DELETE FROM idgen.batch_request AS b
    WHERE b.ctid = ANY (ARRAY(SELECT x.ctid FROM idgen.batch_request AS x
                              WHERE x.expires_at < pg_catalog.clock_timestamp()
                              LIMIT 16 FOR UPDATE SKIP LOCKED));

    LOOP
        now := pg_catalog.clock_timestamp();
        SELECT * INTO r FROM idgen.batch_request AS b
        WHERE b.owner_role = session_user AND b.request_key = p_key AND b.width = p_width;
        IF FOUND AND r.expires_at > now THEN
            IF r.count <> p_count THEN
                RAISE EXCEPTION 'request key "%" was used for a batch of % IDs, not %',
                                p_key, r.count, p_count
                    USING ERRCODE = 'invalid_parameter_value',
                          DETAIL = 'A retry must ask for the same batch it retries.';
            END IF;
            ids := r.ids;
            ids128 := r.ids128;
            RETURN;
        END IF;
        IF FOUND THEN
            DELETE FROM idgen.batch_request AS b
            WHERE b.owner_role = session_user AND b.request_key = p_key
              AND b.width = p_width AND b.expires_at <= now;
        END IF;
        BEGIN
            IF p_width = 64 THEN
                ids := ARRAY(SELECT @extschema@.idgen_next_batch(p_count));
            ELSE
                ids128 := ARRAY(SELECT @extschema@.idgen_next128_batch(p_count));
            END IF;
            INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, ids128, expires_at)
            VALUES (session_user, p_key, p_width, p_count, ids, ids128, now + idgen.request_retention());
            RETURN;
        EXCEPTION WHEN unique_violation THEN
            -- someone else stored this key meanwhile: read theirs, which only
            -- a READ COMMITTED snapshot taken from now on can see
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'request key "%" was stored by a concurrent transaction', p_key
                    USING ERRCODE = 'serialization_failure',
                          HINT = 'Retry the transaction.';
            END IF;
            ids := NULL;
            ids128 := NULL;
        END;
    END LOOP;
END
$$;
