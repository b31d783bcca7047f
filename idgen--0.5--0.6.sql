/* idgen--0.5--0.6.sql: changes since 0.5 (sql/idgen.sql is the whole schema) */

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

CREATE FUNCTION idgen.registry_incarnation_check(p_local boolean DEFAULT false,
    OUT incarnation text, OUT hold_until timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    v_since timestamptz;
    v_restart boolean;
    v_hold interval;
BEGIN
    SELECT * INTO r FROM idgen.running_incarnation();
    incarnation := format('%s/%s/%s', r.system_identifier, r.timeline,
                          floor(extract(epoch FROM r.postmaster_start) * 1000)::bigint);
    SELECT i.since, i.restart_only INTO v_since, v_restart FROM idgen.registry_incarnation AS i
    WHERE i.system_identifier = r.system_identifier AND i.timeline = r.timeline
      AND i.postmaster_start = r.postmaster_start;
    IF NOT FOUND THEN
        -- one caller records the change; the others wait for its row lock
        UPDATE idgen.registry_incarnation AS i
        SET system_identifier = r.system_identifier, timeline = r.timeline,
            postmaster_start = r.postmaster_start, since = idgen.clock(),
            restart_only = (i.system_identifier = r.system_identifier
                            AND i.timeline = r.timeline)
        WHERE (i.system_identifier, i.timeline, i.postmaster_start)
              IS DISTINCT FROM (r.system_identifier, r.timeline, r.postmaster_start)
        RETURNING i.since, i.restart_only INTO v_since, v_restart;
        IF FOUND THEN
            PERFORM idgen.audit('registry_incarnation',
                format('the registry is a new incarnation %s since %s: no block is granted during the hold',
                       incarnation, v_since));
        ELSE
            -- the first lease call ever: nothing was granted before it
            INSERT INTO idgen.registry_incarnation
            SELECT r.system_identifier, r.timeline, r.postmaster_start, NULL, false
            WHERE NOT EXISTS (SELECT 1 FROM idgen.registry_incarnation)
            ON CONFLICT DO NOTHING
            RETURNING since, restart_only INTO v_since, v_restart;
            IF NOT FOUND THEN
                SELECT i.since, i.restart_only INTO v_since, v_restart
                FROM idgen.registry_incarnation AS i;
            END IF;
        END IF;
    END IF;
    IF v_since IS NULL
       OR (p_local AND v_restart AND NOT EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                                     WHERE l.remote OR (l.node_sysid IS NULL AND l.generation > 0))) THEN
        hold_until := '-infinity';
        RETURN;
    END IF;
    SELECT greatest(max(l.ttl),
                    coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s'))
           + coalesce(max(l.drift_allowance), interval '0')
      INTO v_hold
    FROM idgen.worker_lease AS l;
    -- the registry's clock may now run behind the one that granted
    hold_until := v_since + v_hold + idgen.registry_clock_allowance();
END
$$;
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
CREATE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval, p_remote boolean,
    p_drift_allowance interval,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz, OUT registry_clock timestamptz,
    OUT incarnation text, OUT hold_until timestamptz)
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
    SELECT c.incarnation, c.hold_until INTO incarnation, hold_until
    FROM idgen.registry_incarnation_check(NOT p_remote) AS c;
    IF hold_until > v_now THEN
        first_worker := -2;
        RETURN;
    END IF;

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
               -- an unclean end: above whatever the holder may have stamped
               max(CASE WHEN l.owner IS NOT NULL AND l.owner <> p_owner
                             AND (p_remote OR l.remote OR l.node_sysid IS DISTINCT FROM p_sysid)
                        THEN greatest(l.high_water,
                                      l.lease_until + coalesce(l.drift_allowance, interval '0'))
                        ELSE l.high_water END),
               max(l.generation)
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
        start_after := greatest(node_floor, block_floor,
                                CASE WHEN hold_until > '-infinity' THEN hold_until END);
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
            node_state = 'leased',
            drift_allowance = p_drift_allowance
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
CREATE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint, p_drift_allowance interval,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz,
    OUT incarnation text)
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
    SELECT c.incarnation INTO incarnation FROM idgen.registry_incarnation_check() AS c;
    UPDATE idgen.worker_lease AS l
    SET lease_until = v_now + p_ttl,
        high_water = greatest(l.high_water, least(p_high_water, hw_cap)),
        renewed_at = v_now, heartbeat_at = v_now,
        clock_offset_ms = coalesce(p_clock_offset_ms,
                                   floor(extract(epoch FROM p_node_clock - v_now) * 1000)::bigint),
        node_state = p_node_state,
        -- never lowered while the lease runs: the holder may have stamped by the old one
        drift_allowance = CASE WHEN l.drift_allowance IS NULL OR p_drift_allowance IS NULL
                               THEN coalesce(p_drift_allowance, l.drift_allowance)
                               ELSE greatest(l.drift_allowance, p_drift_allowance) END
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND l.owner = p_owner AND l.generation = p_generation
      -- an expired lease is never brought back: after a failover or a
      -- restore the block may have been granted again by the registry
      -- that was lost, so its holder leases anew, under the hold
      AND l.lease_until > v_now + idgen.registry_clock_allowance();
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
    -- every row still ours, but its lease over here: generation -1 says so
    IF NOT FOUND THEN
        other_generation := -1;
    END IF;
END
$$;
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
    hold timestamptz;
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

    -- after the registry's incarnation changed, leases it lost run out first
    SELECT c.hold_until INTO hold FROM idgen.registry_incarnation_check() AS c;
    IF hold > now THEN
        RAISE EXCEPTION 'the registry grants no worker until %', hold
            USING ERRCODE = 'IR006',
                  DETAIL = 'The registry is a new incarnation (restarted, promoted or restored), so it may have lost leases it granted; it grants no worker until those have run out.',
                  HINT = 'Retry after that time.';
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
                  OR coalesce(l.high_water + coalesce(l.drift_allowance, interval '0'),
                              '-infinity') >= now;
        UPDATE idgen.worker_lease AS x
        SET owner = idgen_lease_worker.owner, generation = x.generation + 1,
            lease_until = until,
            high_water = until,
            node_sysid = NULL, ttl = idgen_lease_worker.ttl,
            acquired_at = now, renewed_at = now,
            drift_allowance = idgen.registry_drift_allowance(idgen_lease_worker.ttl)
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
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_worker(text, interval) FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_fence_worker(region integer, worker integer)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    old idgen.worker_lease;
BEGIN
    PERFORM idgen.require_registry();
    PERFORM idgen.lock_registry();
    SELECT * INTO old FROM idgen.worker_lease AS x
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % has never been leased', worker, region
            USING ERRCODE = 'undefined_object';
    END IF;
    -- the holder may issue on its own mark until its lease ends, unless it
    -- is this instance's own node, which hears of the fence at once: the
    -- next holder starts above that end plus its drift allowance
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL, generation = x.generation + 1,
        high_water = CASE WHEN x.lease_until IS NULL
                               OR (NOT x.remote AND x.node_sysid = idgen.node_sysid()
                                   AND x.timeline = (SELECT r.timeline FROM idgen.running_incarnation() AS r))
                          THEN x.high_water
                          ELSE greatest(x.high_water,
                                        x.lease_until + coalesce(x.drift_allowance, interval '0')) END
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker;
    PERFORM idgen.audit('worker_fenced',
        format('region %s worker %s generation %s -> %s, previous owner %s',
               region, worker, old.generation, old.generation + 1,
               coalesce(old.owner, 'none')));
    PERFORM idgen.wake_worker();
END
$$;
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
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL
      AND x.lease_until > now + idgen.registry_clock_allowance()
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
