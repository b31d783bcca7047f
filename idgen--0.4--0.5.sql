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


-- =====================================================================
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
