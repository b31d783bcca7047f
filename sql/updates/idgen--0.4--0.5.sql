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
\ir ../udfs/idgen_schedule_layout/0.5.sql
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
\ir ../udfs/require_node_database/0.5.sql
COMMENT ON FUNCTION idgen.require_node_database() IS 'raise unless this is the node''s own database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_node_database() FROM PUBLIC;

-- a node of a fleet holds no lease table of its own: leases are made in
-- the shared registry, where every node sees them
\ir ../udfs/require_registry/0.5.sql

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
\ir ../udfs/acquire_node_lease/0.5.sql
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) IS 'lease a block of workers for a node, local or remote (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) FROM PUBLIC;

/*
 * Renew a node's block by the registry's clock, raise its high-water mark
 * and record the heartbeat, but only while every row is still the node's
 * own at the node's generation.  Otherwise report who holds the first row
 * that is not ours, so the node can stop.
 */
DROP FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz);
\ir ../udfs/renew_node_lease/0.5.sql
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

\ir ../udfs/idgen_lease_worker/0.5.sql
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back; it ends at the next layout switch at the latest';

\ir ../udfs/idgen_renew_worker/0.5.sql
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
\ir ../udfs/restore_worker_lease/0.5.sql
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
\ir ../udfs/restore_epoch/0.5.sql
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

\ir ../udfs/idgen_lease_range/0.5.sql

\ir ../udfs/keyed_batch/0.5.sql
