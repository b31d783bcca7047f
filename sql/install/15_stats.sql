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
 * Privileges review (issue 7), over every function of the extension:
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
