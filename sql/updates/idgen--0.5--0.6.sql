/* idgen--0.5--0.6.sql: changes since 0.5 (sql/install/ is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.6'" to load this file. \quit

-- ---------------------------------------------------------------------
-- min() and max() of both types (0.6).  They return the type itself, so
-- idgen_timestamp(max(id)) works; without them max(id) of an idgen went
-- through the implicit cast to bigint's max() and idgen128 had none.  An
-- idgen argument matches these exactly, so they win over bigint's.  The
-- sort operators let the planner answer them with a one-row index scan.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_larger(@extschema@.idgen, @extschema@.idgen) RETURNS @extschema@.idgen AS 'int8larger' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_larger(@extschema@.idgen, @extschema@.idgen) IS 'the larger of two idgen, the step of max()';
CREATE FUNCTION @extschema@.idgen_smaller(@extschema@.idgen, @extschema@.idgen) RETURNS @extschema@.idgen AS 'int8smaller' LANGUAGE internal IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_smaller(@extschema@.idgen, @extschema@.idgen) IS 'the smaller of two idgen, the step of min()';
CREATE FUNCTION @extschema@.idgen128_larger(@extschema@.idgen128, @extschema@.idgen128) RETURNS @extschema@.idgen128 AS 'MODULE_PATHNAME', 'idgen128_larger' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_larger(@extschema@.idgen128, @extschema@.idgen128) IS 'the larger of two idgen128, the step of max()';
CREATE FUNCTION @extschema@.idgen128_smaller(@extschema@.idgen128, @extschema@.idgen128) RETURNS @extschema@.idgen128 AS 'MODULE_PATHNAME', 'idgen128_smaller' LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_smaller(@extschema@.idgen128, @extschema@.idgen128) IS 'the smaller of two idgen128, the step of min()';

CREATE AGGREGATE @extschema@.max(@extschema@.idgen) (
    SFUNC = @extschema@.idgen_larger, STYPE = @extschema@.idgen,
    COMBINEFUNC = @extschema@.idgen_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.idgen) IS 'the largest (latest) idgen; an index scan on a btree index';
CREATE AGGREGATE @extschema@.min(@extschema@.idgen) (
    SFUNC = @extschema@.idgen_smaller, STYPE = @extschema@.idgen,
    COMBINEFUNC = @extschema@.idgen_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.idgen) IS 'the smallest (earliest) idgen; an index scan on a btree index';
CREATE AGGREGATE @extschema@.max(@extschema@.idgen128) (
    SFUNC = @extschema@.idgen128_larger, STYPE = @extschema@.idgen128,
    COMBINEFUNC = @extschema@.idgen128_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.idgen128) IS 'the largest (latest) idgen128; an index scan on a btree index';
CREATE AGGREGATE @extschema@.min(@extschema@.idgen128) (
    SFUNC = @extschema@.idgen128_smaller, STYPE = @extschema@.idgen128,
    COMBINEFUNC = @extschema@.idgen128_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.idgen128) IS 'the smallest (earliest) idgen128; an index scan on a btree index';

-- ---------------------------------------------------------------------
-- TypeID text (0.6): "user_01h455vb4pex5vsknk084sn02q", a lower-case type
-- prefix, an underscore and the UUID in 26 characters of Crockford base32,
-- as the TypeID specification (version 0.3) writes it.  For the APIs that
-- show IDs that way; the column keeps its idgen128 or uuid.  Reading takes
-- the expected prefix: NULL (the default) accepts any, '' none.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_typeid(id @extschema@.idgen128, prefix text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_typeid(@extschema@.idgen128, text) IS 'TypeID text of a 128-bit ID behind a type prefix (empty: none)';
CREATE FUNCTION @extschema@.idgen_typeid(u uuid, prefix text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_typeid(uuid, text) IS 'TypeID text of any UUID behind a type prefix (empty: none)';
CREATE FUNCTION @extschema@.idgen128_from_typeid(t text, prefix text DEFAULT NULL) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_from_typeid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_from_typeid(text, text) IS 'the idgen128 of TypeID text; refuses another prefix than the one given, and a UUID that is not version 7';
CREATE FUNCTION @extschema@.uuid_from_typeid(t text, prefix text DEFAULT NULL) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_from_typeid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_from_typeid(text, text) IS 'the UUID of TypeID text, any version; refuses another prefix than the one given';
CREATE FUNCTION @extschema@.typeid_prefix(t text) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_prefix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_prefix(text) IS 'the type prefix of TypeID text (empty: none); refuses invalid TypeID text';

-- ---------------------------------------------------------------------
-- Time predicates prune partitions (0.6).  When a query is planned, the
-- support function of the ID-vs-timestamptz operators (idgen.time_support)
-- puts in their place equal comparisons of the ID with these bounds (see
-- src/timecmp.c): id >= ts becomes id >= idgen.ids_from(ts) AND
-- id > idgen.ids_before(ts), id < ts becomes id <= idgen.ids_before(ts),
-- and so on.  Those operators are in the btree families, so a table
-- PARTITION BY RANGE (id) scans only the partitions of the time range.
-- Queries call the bounds, so PUBLIC may.
-- ---------------------------------------------------------------------

CREATE FUNCTION idgen.ids_before(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_before' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_before(timestamptz) IS 'the highest idgen earlier than the millisecond of ts, -1 if none: id < ts is id <= this';
CREATE FUNCTION idgen.ids_through(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_through' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_through(timestamptz) IS 'the highest idgen not later than the millisecond of ts, -1 if none: id <= ts is id <= this';
CREATE FUNCTION idgen.ids_from(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_from' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_from(timestamptz) IS 'the lowest idgen not earlier than the millisecond of ts (the largest idgen if none is): id >= ts is id >= this and id > idgen.ids_before(ts)';
CREATE FUNCTION idgen.ids_after(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_ids_after' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids_after(timestamptz) IS 'the lowest idgen later than the millisecond of ts (the largest idgen if none is): id > ts is id >= this and id > idgen.ids_through(ts)';
CREATE FUNCTION idgen.ids128_from(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_ids128_from' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids128_from(timestamptz) IS 'the lowest idgen128 not earlier than the millisecond of ts (all ones if none is): id >= ts is id >= this, id < ts is id < this';
CREATE FUNCTION idgen.ids128_after(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_ids128_after' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION idgen.ids128_after(timestamptz) IS 'the lowest idgen128 later than the millisecond of ts (all ones if none is): id > ts is id >= this, id <= ts is id < this';
-- idgen-gateway: the answers it gave under an Idempotency-Key, kept for
-- idgen.request_retention so a retry gets the same IDs from any gateway of
-- the registry, also after a restart.  Written only by the gateway (its
-- role needs SELECT, INSERT, UPDATE and DELETE on it); dumped, so a retry
-- after a restore of the registry still gets its IDs.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.gateway_request (
    token       text NOT NULL,
    request_key text NOT NULL,
    width       smallint NOT NULL CHECK (width IN (64, 128)),
    count       integer NOT NULL CHECK (count >= 1),
    ids         text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (token, request_key)
);
CREATE INDEX ON idgen.gateway_request (created_at);
COMMENT ON TABLE idgen.gateway_request IS 'idgen-gateway''s answers under an Idempotency-Key, kept for idgen.request_retention so a retry gets the same IDs';
COMMENT ON COLUMN idgen.gateway_request.token IS 'name of the bearer token (from the gateway''s tokens file) that asked';
COMMENT ON COLUMN idgen.gateway_request.ids IS 'the JSON answer as sent: {"ids": [...]}';
REVOKE ALL ON idgen.gateway_request FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_request', '');
-- Lease protocol v2 (issue 13; docs/fleets.md): nodes issue on their own
-- durable mark until the lease ends, successors start above the old
-- lease's end plus the holder's drift allowance, and a registry that is a
-- new incarnation grants nothing until the leases it may have lost ran out.
-- ---------------------------------------------------------------------

ALTER TABLE idgen.worker_lease ADD COLUMN drift_allowance interval;
COMMENT ON COLUMN idgen.worker_lease.drift_allowance IS 'how far past the registry''s clock the holder may stamp IDs (its max_drift plus max_skew): after an unclean end the next holder starts above lease_until plus this';
/*
 * The registry's incarnation (lease protocol v2, R7; docs/fleets.md): which
 * running instance answers the lease calls.  A promotion, a timeline
 * switch, a restore from a backup and a plain restart all look the same
 * from here (a restore cannot be told from a restart), and each may have
 * lost grants and renewals the nodes saw committed.  So for a hold after
 * the change no block is granted: every lease the lost writes may have
 * made runs out first.  Renewals of rows this instance has go on.
 */
CREATE TABLE idgen.registry_incarnation (
    system_identifier bigint NOT NULL,
    timeline          integer NOT NULL,
    postmaster_start  timestamptz NOT NULL,
    since             timestamptz,
    restart_only      boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX registry_incarnation_one_row ON idgen.registry_incarnation ((true));
COMMENT ON TABLE idgen.registry_incarnation IS 'the registry instance that answers lease calls (one row), and since when: grants wait a hold after it changes';
COMMENT ON COLUMN idgen.registry_incarnation.since IS 'when lease calls first met this incarnation; NULL: the first one they met, when the table was empty';
COMMENT ON COLUMN idgen.registry_incarnation.restart_only IS 'the change was a restart of the same system on the same timeline (or a restore that looks like one)';
REVOKE ALL ON idgen.registry_incarnation FROM PUBLIC;
-- not dumped: it describes the running instance, not the registry's data
-- (a physical copy carries it, and so holds; a logical restore of leases
-- is idgen.restore_worker_lease's matter)

-- the instance running now, as (system identifier, timeline, postmaster start)
CREATE FUNCTION idgen.running_incarnation(OUT system_identifier bigint, OUT timeline integer,
                                          OUT postmaster_start timestamptz)
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT c.system_identifier,
       ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer,
       pg_postmaster_start_time()
FROM pg_control_system() AS c
$$;
COMMENT ON FUNCTION idgen.running_incarnation() IS 'the registry instance running now: system identifier, timeline, postmaster start';
REVOKE ALL ON FUNCTION idgen.running_incarnation() FROM PUBLIC;


/*
 * Compare the recorded incarnation with the running one, record a change
 * (since = now) and say until when no block may be granted: since plus the
 * largest lease (ttl) a lost write may have made, at least idgen.lease_ttl,
 * plus the largest drift allowance, so its IDs lie behind us too.  A
 * restart on the same timeline of a registry that never leased to anyone
 * but its own node (no remote or outside row) holds nothing: a single
 * instance does not stop its own node for a hold at every restart.
 */
-- how far apart the clocks of the registry's members may be (the registry's
-- idgen.max_skew, 0 if it turns the check off): after a failover or a
-- restore the registry's clock may run that much behind the one that
-- granted, so expiries it judges and holds it keeps allow for it
CREATE FUNCTION idgen.registry_clock_allowance() RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, interval '1 s')
$$;
COMMENT ON FUNCTION idgen.registry_clock_allowance() IS 'how far the clocks of the registry''s members may differ: its idgen.max_skew';
REVOKE ALL ON FUNCTION idgen.registry_clock_allowance() FROM PUBLIC;

\ir ../udfs/registry_incarnation_check/0.6.sql
COMMENT ON FUNCTION idgen.registry_incarnation_check(boolean) IS 'the running registry incarnation, recorded when it changed, and until when no block may be granted (to the local node, p_local, none after a plain restart of a registry that never held a remote or outside lease)';
REVOKE ALL ON FUNCTION idgen.registry_incarnation_check(boolean) FROM PUBLIC;

-- how far a holder's IDs may lie past the registry's clock (R4)
CREATE FUNCTION idgen.drift_allowance(max_drift interval, max_skew interval, ttl interval)
    RETURNS interval
    LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS
$$
-- max_skew = 0 turns the skew check off: the skew is bounded by nothing we
-- know, so take the lease's length as its bound (docs/fleets.md)
SELECT max_drift + CASE WHEN max_skew = interval '0' THEN ttl ELSE max_skew END
$$;
COMMENT ON FUNCTION idgen.drift_allowance(interval, interval, interval) IS 'how far past the registry''s clock a holder may stamp IDs: max_drift plus max_skew (plus the ttl when max_skew is 0)';
REVOKE ALL ON FUNCTION idgen.drift_allowance(interval, interval, interval) FROM PUBLIC;

-- the registry's own allowance, for outside holders that send none
CREATE FUNCTION idgen.registry_drift_allowance(ttl interval) RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.drift_allowance(
    coalesce(nullif(current_setting('idgen.max_drift', true), '')::interval, interval '1 s'),
    coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, interval '1 s'),
    ttl)
$$;
COMMENT ON FUNCTION idgen.registry_drift_allowance(interval) IS 'the drift allowance by the registry''s own idgen.max_drift and idgen.max_skew';
REVOKE ALL ON FUNCTION idgen.registry_drift_allowance(interval) FROM PUBLIC;
/*
 * Lease a block of workers for a node, here or over a connection from
 * another instance (p_remote).  Leases run by the registry's clock: a
 * node's clock decides nothing about when another node's lease ends.  The
 * high-water marks are times of the IDs, so they stay on the node's clock.
 * The answer carries the registry's clock, for the node's skew check, and
 * the registry's incarnation.
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
 *
 * Takeover (lease protocol v2, R4; docs/fleets.md).  A node issues on its
 * own durable mark, not the registry's, so after a lease that was not
 * given back cleanly the registry's high_water says little: the successor
 * starts above the old lease's end plus the old holder's drift allowance
 * (its max_drift plus max_skew), which bounds every ID it can have issued
 * before it stopped.  A clean release leaves the holder's final mark in
 * high_water and the row free.  A block of a node's own earlier start on
 * a local registry needs neither: its local mark covers it.
 *
 * Incarnation hold (R7): after the registry's incarnation changed, no
 * block is granted until the hold ends (first_worker -2, hold_until says
 * when), and the first grants start above hold_until
 * (idgen.registry_incarnation_check() says when there is none).
 */
\ir ../udfs/acquire_node_lease/0.6.sql
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval) IS 'lease a block of workers for a node, local or remote, by the takeover and incarnation rules (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval) FROM PUBLIC;

-- the call of 0.5 nodes: no drift allowance sent, so none stored (their
-- registry mark bounds them); the same rules otherwise
CREATE OR REPLACE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval, p_remote boolean,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz, OUT registry_clock timestamptz)
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT a.first_worker, a.generation, a.lease_until, a.high_water, a.start_after, a.registry_clock
FROM idgen.acquire_node_lease(p_owner, p_sysid, p_timeline, p_region, p_pinned_worker,
                              p_block, p_worker_bits, p_node_clock, p_ttl, p_high_water,
                              p_local_floor, p_local_slack, p_remote, NULL::interval) AS a
$$;
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) IS 'lease a block of workers for a node, local or remote (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) FROM PUBLIC;

/*
 * Renew a node's block by the registry's clock, raise its high-water mark
 * and record the heartbeat, but only while every row is still the node's
 * own at the node's generation.  Otherwise report who holds the first row
 * that is not ours, so the node can stop.  Renewals go on through an
 * incarnation hold (the rows are here); the answer names the incarnation.
 */
\ir ../udfs/renew_node_lease/0.6.sql
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval) IS 'renew a node''s block, raise its high-water mark, record its heartbeat and drift allowance (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval) FROM PUBLIC;

-- the call of 0.5 nodes
CREATE OR REPLACE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz)
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT r.ok, r.lease_until, r.high_water, r.other_owner, r.other_generation, r.registry_clock
FROM idgen.renew_node_lease(p_owner, p_region, p_first_worker, p_block, p_generation,
                            p_node_clock, p_ttl, p_high_water, p_node_state,
                            p_clock_offset_ms, NULL::interval) AS r
$$;
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) IS 'renew a node''s block, raise its high-water mark and record its heartbeat (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) FROM PUBLIC;

/*
 * A clean release: the holder stopped issuing and tells its final mark
 * (p_high_water, at or above every ID it issued), so a successor starts
 * above that instead of above the lease's end plus the drift allowance.
 */
CREATE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
                                         p_block integer, p_generation bigint,
                                         p_high_water timestamptz) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
UPDATE idgen.worker_lease AS l
SET owner = NULL, lease_until = NULL,
    high_water = greatest(l.high_water, p_high_water)
WHERE l.region = p_region AND l.worker >= p_first_worker
  AND l.worker < p_first_worker + p_block
  AND l.owner = p_owner AND l.generation = p_generation;
$$;
COMMENT ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz) IS 'give a node''s block back, with the final high-water mark of its IDs';
REVOKE ALL ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz) FROM PUBLIC;

CREATE OR REPLACE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
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

\ir ../udfs/idgen_lease_worker/0.6.sql
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back; it ends at the next layout switch at the latest';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_worker(text, interval) FROM PUBLIC;

\ir ../udfs/idgen_fence_worker/0.6.sql
COMMENT ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) IS 'operator repair: expire a lease and bump its generation so the holder stops';
REVOKE ALL ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) FROM PUBLIC;

CREATE OR REPLACE VIEW idgen.fleet AS
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
       bool_or(l.remote) AS remote,
       greatest(min(l.lease_until) - idgen.clock(), interval '0') AS outage_budget,
       max(l.drift_allowance) AS drift_allowance
FROM idgen.worker_lease AS l
WHERE l.owner IS NOT NULL
GROUP BY l.owner, l.node_sysid, l.region;
COMMENT ON VIEW idgen.fleet IS 'the registry''s holders: each node''s region, workers, generation, lease expiry, high-water mark, last heartbeat and clock offset';
COMMENT ON COLUMN idgen.fleet.live IS 'the lease has not yet expired by the registry''s clock';
COMMENT ON COLUMN idgen.fleet.clock_offset_ms IS 'the holder''s clock minus the registry''s, as last measured';
COMMENT ON COLUMN idgen.fleet.last_heartbeat IS 'registry clock when the holder last had an answer from the registry';
COMMENT ON COLUMN idgen.fleet.outage_budget IS 'how much longer the holder may issue without another answer from the registry (its lease''s end by the registry''s clock, less now)';
COMMENT ON COLUMN idgen.fleet.drift_allowance IS 'how far past the registry''s clock the holder may stamp IDs; a successor after an unclean end starts above lease_until plus this';
REVOKE ALL ON idgen.fleet FROM PUBLIC;
GRANT SELECT ON idgen.fleet TO pg_monitor;

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
    OUT registry text, OUT clock_skew_ms bigint,
    OUT registry_incarnation text, OUT last_registry_answer timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_status' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_status() IS 'this node''s generator: state and why, lease, logical vs wall clock, counters, registry, its incarnation and last answer, and clock skew';

-- ---------------------------------------------------------------------
-- An outside lease is renewed only while it runs by the registry's clock,
-- less what that clock may lag the one that granted it (a failover, a
-- restore): as for nodes, an expired lease is never brought back
-- ---------------------------------------------------------------------

\ir ../udfs/idgen_renew_worker/0.6.sql
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) IS 'renew an outside generator''s lease; fails once fenced or expired';
