/* idgen--0.6--0.7.sql: changes since 0.6 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.7'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Issue 19, items 1, 4, 5, 7, 8 and 15 (the registry's side): outside
-- renewals and releases by holder, generations that never repeat across
-- registry incarnations, a logical restore that holds like a physical one,
-- a hold only for leases that may still run, a release with the holder's
-- final mark, a same-owner lease under the hold and the renewal rule, an
-- outside lease that locks only the row it takes, and renewals past a
-- layout switch for a holder that read the newest epoch.
-- ---------------------------------------------------------------------

ALTER TABLE idgen.worker_lease ADD COLUMN grant_floor timestamptz;
COMMENT ON COLUMN idgen.worker_lease.grant_floor IS 'the high-water mark an outside lease started above: a release with the holder''s final mark never sets high_water below it (NULL for a lease granted before 0.7: its release keeps the mark)';
ALTER TABLE idgen.registry_incarnation
    ADD COLUMN hold_until timestamptz,
    ADD COLUMN local_exempt boolean NOT NULL DEFAULT false,
    ADD COLUMN generation_floor bigint NOT NULL DEFAULT 0;
COMMENT ON COLUMN idgen.registry_incarnation.hold_until IS 'until when no block is granted, judged at the change from the leases that may still run then; NULL: a change recorded by 0.6, judged by its rule';
COMMENT ON COLUMN idgen.registry_incarnation.local_exempt IS 'the registry''s own node is granted its block without the hold: a plain restart with no remote or outside lease that may still run';
COMMENT ON COLUMN idgen.registry_incarnation.generation_floor IS 'no generation granted in this incarnation lies below it, nor at or below one granted in an earlier incarnation, also one this registry lost';

-- one advisory-lock key serialises node leases, fences and ranges; an
-- outside lease takes its row by the row lock alone (idgen_lease_worker)
CREATE OR REPLACE FUNCTION idgen.lock_registry() RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ SELECT pg_advisory_xact_lock(7596555481923411968) $$;
COMMENT ON FUNCTION idgen.lock_registry() IS 'transaction lock taken by node leases, fences and range leases (outside leases lock only the row they take)';

/*
 * What may still run from before a change of incarnation (R7; issue 19):
 * the hold lasts as long as a lease the registry may have lost could run,
 * not as long as the longest lease it ever granted.  A lease whose row here
 * ended before the last write this copy holds (its latest grant, renewal or
 * heartbeat) had no renewal since, as a renewal needs a running lease, and
 * a released one is over.  The others may have been renewed by writes this
 * copy lacks:
 *   - a node's: its TTL counts in the hold, and the registry's own node is
 *     spared the hold only when no remote or outside lease may still run;
 *   - an outside holder's: its row keeps the worker instead, its mark
 *     raised to the change plus its TTL plus the clock allowance, so that
 *     worker alone waits while everyone else goes on.
 * Grants this copy lacks altogether are covered by the registry's own
 * idgen.lease_ttl, as before, with the largest allowance of any node.
 */
CREATE FUNCTION idgen.incarnation_hold(p_since timestamptz, p_restart boolean,
    OUT hold_until timestamptz, OUT local_exempt boolean)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    skew interval := idgen.registry_clock_allowance();
    v_lease_ttl interval := coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s');
    last_write timestamptz;
    v_ttl interval;
    v_allowance interval;
BEGIN
    SELECT least(p_since, coalesce(max(greatest(l.renewed_at, l.acquired_at, l.heartbeat_at)),
                                   p_since))
      INTO last_write
    FROM idgen.worker_lease AS l;
    UPDATE idgen.worker_lease AS l
    SET high_water = greatest(l.high_water, p_since + l.ttl + skew)
    WHERE l.owner IS NOT NULL AND l.node_sysid IS NULL AND l.ttl IS NOT NULL
      AND l.lease_until > last_write;
    SELECT greatest(v_lease_ttl, max(l.ttl) FILTER (WHERE l.owner IS NOT NULL AND l.node_sysid IS NOT NULL
                                              AND l.lease_until > last_write)),
           greatest(idgen.registry_drift_allowance(v_lease_ttl),
                    max(l.drift_allowance) FILTER (WHERE l.node_sysid IS NOT NULL
                                                     OR (l.owner IS NOT NULL
                                                         AND l.lease_until > last_write))),
           p_restart AND NOT coalesce(bool_or(l.owner IS NOT NULL
                                              AND (l.remote OR l.node_sysid IS NULL)
                                              AND (l.lease_until > last_write
                                                   OR l.lease_until + coalesce(l.drift_allowance, interval '0')
                                                      + skew > p_since)), false)
      INTO v_ttl, v_allowance, local_exempt
    FROM idgen.worker_lease AS l;
    hold_until := p_since + v_ttl + v_allowance + skew;
END
$$;
COMMENT ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) IS 'at a change of incarnation: until when no block is granted (the leases that may still run, at least idgen.lease_ttl, plus allowances), and whether the registry''s own node is spared; raises the marks of outside leases that may have been renewed unseen';
REVOKE ALL ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) FROM PUBLIC;

CREATE OR REPLACE FUNCTION idgen.registry_incarnation_check(p_local boolean DEFAULT false,
    OUT incarnation text, OUT hold_until timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    i idgen.registry_incarnation;
    h record;
    v_hold interval;
BEGIN
    SELECT * INTO r FROM idgen.running_incarnation();
    incarnation := format('%s/%s/%s', r.system_identifier, r.timeline,
                          floor(extract(epoch FROM r.postmaster_start) * 1000)::bigint);
    SELECT * INTO i FROM idgen.registry_incarnation AS x
    WHERE x.system_identifier = r.system_identifier AND x.timeline = r.timeline
      AND x.postmaster_start = r.postmaster_start;
    IF NOT FOUND THEN
        -- one caller records the change; the others wait for its row lock
        UPDATE idgen.registry_incarnation AS x
        SET system_identifier = r.system_identifier, timeline = r.timeline,
            postmaster_start = r.postmaster_start, since = idgen.clock(),
            restart_only = (x.system_identifier = r.system_identifier
                            AND x.timeline = r.timeline),
            hold_until = NULL, local_exempt = false
        WHERE (x.system_identifier, x.timeline, x.postmaster_start)
              IS DISTINCT FROM (r.system_identifier, r.timeline, r.postmaster_start)
        RETURNING x.* INTO i;
        IF FOUND THEN
            -- judged once, from the rows as the change found them
            SELECT * INTO h FROM idgen.incarnation_hold(i.since, i.restart_only);
            UPDATE idgen.registry_incarnation AS x
            SET hold_until = h.hold_until, local_exempt = h.local_exempt,
                generation_floor = greatest(x.generation_floor,
                                            floor(extract(epoch FROM h.hold_until) * 1000000)::bigint)
            RETURNING x.* INTO i;
            PERFORM idgen.audit('registry_incarnation',
                format('the registry is a new incarnation %s since %s: no block is granted until %s%s',
                       incarnation, i.since, i.hold_until,
                       CASE WHEN i.local_exempt THEN ' but to its own node' ELSE '' END));
        ELSE
            -- the first lease call ever: nothing was granted before it,
            -- unless the lease table has a history already (a registry
            -- database restored or moved without its incarnation row, which
            -- is not dumped): then this is a change like any other
            INSERT INTO idgen.registry_incarnation (system_identifier, timeline, postmaster_start,
                                                    since, restart_only)
            SELECT r.system_identifier, r.timeline, r.postmaster_start,
                   CASE WHEN EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                                     WHERE l.generation > 0 OR l.high_water IS NOT NULL)
                        THEN idgen.clock() END,
                   false
            WHERE NOT EXISTS (SELECT 1 FROM idgen.registry_incarnation)
            ON CONFLICT DO NOTHING
            RETURNING * INTO i;
            IF FOUND AND i.since IS NOT NULL THEN
                SELECT * INTO h FROM idgen.incarnation_hold(i.since, false);
                UPDATE idgen.registry_incarnation AS x
                SET hold_until = h.hold_until, local_exempt = false,
                    generation_floor = greatest(x.generation_floor,
                                                floor(extract(epoch FROM h.hold_until) * 1000000)::bigint)
                RETURNING x.* INTO i;
                PERFORM idgen.audit('registry_incarnation',
                    format('the registry database has leases but no incarnation: it was restored or moved, so it is a new incarnation %s since %s and no block is granted until %s',
                           incarnation, i.since, i.hold_until));
            ELSIF NOT FOUND THEN
                SELECT * INTO i FROM idgen.registry_incarnation AS x;
            END IF;
        END IF;
    END IF;
    IF i.since IS NULL OR (p_local AND i.local_exempt) THEN
        hold_until := '-infinity';
    ELSIF i.hold_until IS NOT NULL THEN
        hold_until := i.hold_until;
    ELSIF p_local AND i.restart_only
          AND NOT EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                          WHERE l.remote OR (l.node_sysid IS NULL AND l.generation > 0)) THEN
        -- a change recorded before 0.7 (hold_until NULL): its rule
        hold_until := '-infinity';
    ELSE
        SELECT greatest(max(l.ttl),
                        coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                                 interval '30 s'))
               + coalesce(max(l.drift_allowance), interval '0')
          INTO v_hold
        FROM idgen.worker_lease AS l;
        hold_until := i.since + v_hold + idgen.registry_clock_allowance();
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.registry_incarnation_check(boolean) IS 'the running registry incarnation, recorded when it changed, and until when no block may be granted (to the local node, p_local, none after a plain restart with no remote or outside lease that may still run)';
REVOKE ALL ON FUNCTION idgen.registry_incarnation_check(boolean) FROM PUBLIC;

/*
 * A dump of a registry is being restored here (a trigger saw its rows).
 * The registry it was taken from may have granted and renewed after the
 * dump, and those writes are lost, like a physical copy's; and the
 * incarnation row is not in a dump, so the restore would otherwise meet a
 * "first" incarnation and hold nothing.  So a restore is a change of
 * incarnation that is no plain restart: no block is granted until a lease
 * the lost writes may have made has run out (idgen.lease_ttl, or a
 * restored node lease's TTL if longer, plus allowances and the clock
 * allowance), and generations go on above that instant's floor.  The
 * registry it came from must be stopped before this one grants.
 */
CREATE FUNCTION idgen.note_restore(p_ttl interval, p_allowance interval) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    v_now timestamptz := idgen.clock();
    v_lease_ttl interval := coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s');
    v_hold timestamptz;
BEGIN
    -- only the registry database: elsewhere nobody leases by these rows
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database() THEN
        RETURN NULL;
    END IF;
    SELECT * INTO r FROM idgen.running_incarnation();
    v_hold := v_now + greatest(v_lease_ttl, p_ttl)
              + greatest(idgen.registry_drift_allowance(v_lease_ttl), p_allowance)
              + idgen.registry_clock_allowance();
    UPDATE idgen.registry_incarnation AS x
    SET system_identifier = r.system_identifier, timeline = r.timeline,
        postmaster_start = r.postmaster_start, since = v_now, restart_only = false,
        hold_until = greatest(x.hold_until, v_hold), local_exempt = false,
        generation_floor = greatest(x.generation_floor,
                                    floor(extract(epoch FROM greatest(x.hold_until, v_hold))
                                          * 1000000)::bigint)
    RETURNING x.hold_until INTO v_hold;
    IF NOT FOUND THEN
        INSERT INTO idgen.registry_incarnation (system_identifier, timeline, postmaster_start,
                                                since, restart_only, hold_until, local_exempt,
                                                generation_floor)
        VALUES (r.system_identifier, r.timeline, r.postmaster_start, v_now, false, v_hold, false,
                floor(extract(epoch FROM v_hold) * 1000000)::bigint);
    END IF;
    RETURN v_hold;
END
$$;
COMMENT ON FUNCTION idgen.note_restore(interval, interval) IS 'a dump is being restored into the registry: record it as a change of incarnation and hold (a restored node lease''s ttl and allowance count); returns the end of the hold';
REVOKE ALL ON FUNCTION idgen.note_restore(interval, interval) FROM PUBLIC;

-- a grant's generation: one above the row's, and never below this
-- incarnation's floor, so that no generation repeats across incarnations
-- (docs/fleets.md, "Generations")
CREATE FUNCTION idgen.next_generation(old bigint) RETURNS bigint
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT greatest(coalesce(old, 0) + 1,
                coalesce((SELECT max(i.generation_floor) FROM idgen.registry_incarnation AS i), 0))
$$;
COMMENT ON FUNCTION idgen.next_generation(bigint) IS 'the generation of a new grant or fence of a row at generation old: above it and at least the incarnation''s floor';
REVOKE ALL ON FUNCTION idgen.next_generation(bigint) FROM PUBLIC;

CREATE OR REPLACE FUNCTION idgen.acquire_node_lease(
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
    locked integer;
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

        -- every row of the block made, then each one locked before we judge
        -- it: an outside lease takes a row by its row lock alone, without
        -- the registry lock, and passes over rows locked here; a row locked
        -- elsewhere (a renewal, release or lease in flight) makes the block
        -- busy for now, so we never wait on another holder's transaction
        INSERT INTO idgen.worker_lease (region, worker)
        SELECT p_region, w FROM generate_series(fw, fw + p_block - 1) AS w
        ON CONFLICT DO NOTHING;
        SELECT count(*) INTO locked
        FROM (SELECT 1 FROM idgen.worker_lease AS l
              WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block
              FOR UPDATE SKIP LOCKED) AS s;
        CONTINUE WHEN locked < p_block;
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

        first_worker := fw;
        generation := idgen.next_generation(gen);
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

/*
 * Lease a worker for an outside generator (issue 19, items 5 and 15).  One
 * statement takes the row, and it locks that row only: rows another
 * session has locked (a lease or renewal in flight, however long its
 * transaction stays open) are skipped, not waited for, and no registry-wide
 * lock is taken, so a holder stalled in its lease transaction blocks
 * nobody's lease or renewal.  Rows only this function and the restore
 * triggers create or take without the registry lock; a node's lease locks
 * every row of its block before it judges them (idgen.acquire_node_lease).
 * The ROW EXCLUSIVE table lock orders a lease after a restore or a layout
 * being scheduled (both lock the table against writers), so the hold and
 * the lease end are judged with what they wrote.  Calls of one owner run
 * one at a time: the same owner gets its lease back, by the renewal rule
 * (it runs for more than the clock allowance) and only outside a hold.
 */
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
    made boolean;
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
    LOCK TABLE idgen.worker_lease IN ROW EXCLUSIVE MODE;
    PERFORM pg_advisory_xact_lock(1768186977, hashtext(idgen_lease_worker.owner));
    now := idgen.clock();

    -- after the registry's incarnation changed, leases it lost run out
    -- first: for the same owner too, whose lease here may be a copy older
    -- than the one it lost
    SELECT c.hold_until INTO hold FROM idgen.registry_incarnation_check() AS c;
    IF hold > now THEN
        RAISE EXCEPTION 'the registry grants no worker until %', hold
            USING ERRCODE = 'IR006',
                  DETAIL = 'The registry is a new incarnation (restarted, promoted or restored), so it may have lost leases it granted; it grants no worker until those have run out.',
                  HINT = 'Retry after that time.';
    END IF;
    until := idgen.outside_lease_end(now, idgen_lease_worker.ttl);

    -- the same owner asking again gets its lease back (a stable retry
    -- identity), by the renewal rule: never one that ends within the clock
    -- allowance, which a registry that lost writes may have granted again
    UPDATE idgen.worker_lease AS x
    SET lease_until = until,
        high_water = greatest(x.high_water, until),
        ttl = idgen_lease_worker.ttl, renewed_at = now
    FROM (SELECT c.region, c.worker FROM idgen.worker_lease AS c
          WHERE c.owner = idgen_lease_worker.owner AND c.node_sysid IS NULL
            AND c.lease_until > now + idgen.registry_clock_allowance()
          ORDER BY c.region, c.worker LIMIT 1
          FOR UPDATE) AS t
    WHERE x.region = t.region AND x.worker = t.worker
    RETURNING x.region, x.worker, x.generation, x.lease_until
    INTO region, worker, generation, lease_until;
    IF FOUND THEN
        RETURN;
    END IF;

    my_region := coalesce(nullif(current_setting('idgen.region_id', true), ''), '0')::integer;
    -- the narrowest worker field of the layout in force and every later one
    SELECT pg_catalog.min(e.worker_bits) INTO worker_bits FROM idgen.epoch AS e
    WHERE e.version >= (SELECT pg_catalog.max(x.version) FROM idgen.epoch AS x
                        WHERE x.start_time <= now);

    LOOP
        -- from the top of the worker range down (nodes take blocks from the
        -- bottom); an outside holder cannot be told where to start, so its
        -- worker's history must already lie in the past
        UPDATE idgen.worker_lease AS x
        SET owner = idgen_lease_worker.owner, generation = idgen.next_generation(x.generation),
            lease_until = until,
            high_water = until, grant_floor = coalesce(x.high_water, '-infinity'),
            node_sysid = NULL, ttl = idgen_lease_worker.ttl,
            acquired_at = now, renewed_at = now,
            drift_allowance = idgen.registry_drift_allowance(idgen_lease_worker.ttl)
        FROM (SELECT c.region, c.worker FROM idgen.worker_lease AS c
              WHERE c.region = my_region AND c.worker < (1 << worker_bits)
                AND (c.owner IS NULL OR (c.lease_until <= now AND c.node_sysid IS NULL))
                AND coalesce(c.high_water + coalesce(c.drift_allowance, interval '0'),
                             '-infinity') < now
              ORDER BY c.worker DESC LIMIT 1
              FOR UPDATE SKIP LOCKED) AS t
        WHERE x.region = t.region AND x.worker = t.worker
        RETURNING x.region, x.worker, x.generation, x.lease_until
        INTO region, worker, generation, lease_until;
        IF FOUND THEN
            PERFORM idgen.audit('worker_leased',
                format('region %s worker %s generation %s owner %s until %s',
                       region, worker, generation, idgen_lease_worker.owner, lease_until));
            RETURN;
        END IF;
        -- no row is free: make the highest one nobody has made yet, passing
        -- over one another session is making (its transaction may stay open)
        made := false;
        FOR w IN REVERSE (1 << worker_bits) - 1 .. 0 LOOP
            CONTINUE WHEN EXISTS (SELECT 1 FROM idgen.worker_lease AS c
                                  WHERE c.region = my_region AND c.worker = w);
            CONTINUE WHEN NOT pg_try_advisory_xact_lock(7596555481923411969 + my_region::bigint * 4194304 + w);
            INSERT INTO idgen.worker_lease (region, worker) VALUES (my_region, w)
            ON CONFLICT DO NOTHING;
            made := true;
            EXIT;
        END LOOP;
        EXIT WHEN NOT made;
    END LOOP;

    RAISE EXCEPTION 'no free worker id in region %', my_region
        USING ERRCODE = 'insufficient_resources',
              HINT = 'Release unused leases with idgen_release_worker() or wait for leases to expire.';
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back; it ends at the next layout switch at the latest (a renewal that names the newest epoch goes past it)';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_worker(text, interval) FROM PUBLIC;

/*
 * Renew an outside lease (R2 for outside holders): by the registry's
 * clock, only while it runs for more than the clock allowance (an expired
 * lease is never brought back: the registry that lost writes may have
 * granted it again), and only the holder's own grant.  p_owner NULL is the
 * call of 0.6 gateways, by (region, worker, generation) alone, which names
 * one grant as generations never repeat (idgen.next_generation).  A lease
 * ends at the next layout switch at the latest, unless the holder names the
 * newest epoch it has read (p_known_epoch) and that is the newest there is,
 * and its worker fits every layout from now on: it then issues in the new
 * layout after the switch, and its lease runs its TTL (issue 19, item 7).
 */
CREATE FUNCTION idgen.renew_outside_lease(p_region integer, p_worker integer,
                                          p_generation bigint, p_owner text,
                                          p_known_epoch integer) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz := idgen.clock();
    v_past boolean;
    v_until timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    SELECT p_known_epoch >= max(e.version)
           AND NOT coalesce(bool_or(e.start_time > v_now
                                    AND (p_region >= (1 << e.region_bits)
                                         OR p_worker >= (1 << e.worker_bits))), false)
      INTO v_past
    FROM idgen.epoch AS e;
    UPDATE idgen.worker_lease AS x
    SET lease_until = CASE WHEN v_past THEN v_now + x.ttl
                           ELSE idgen.outside_lease_end(v_now, x.ttl) END,
        high_water = greatest(x.high_water,
                              CASE WHEN v_past THEN v_now + x.ttl
                                   ELSE idgen.outside_lease_end(v_now, x.ttl) END),
        renewed_at = v_now
    WHERE x.region = p_region AND x.worker = p_worker AND x.generation = p_generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL
      AND (p_owner IS NULL OR x.owner = p_owner)
      AND x.lease_until > v_now + idgen.registry_clock_allowance()
    RETURNING x.lease_until INTO v_until;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('worker %s of region %s is not leased at generation %s%s',
                                    p_worker, p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The lease expired, was released, or was fenced; the holder must stop issuing IDs.',
                  HINT = 'Lease a worker again with idgen_lease_worker().';
    END IF;
    RETURN v_until;
END
$$;
COMMENT ON FUNCTION idgen.renew_outside_lease(integer, integer, bigint, text, integer) IS 'renew an outside lease of this holder (any holder at that generation if p_owner is NULL); past a layout switch only for a holder that read the newest epoch';
REVOKE ALL ON FUNCTION idgen.renew_outside_lease(integer, integer, bigint, text, integer) FROM PUBLIC;

-- the call of 0.6 gateways: (region, worker, generation) names one grant
CREATE OR REPLACE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint)
    RETURNS timestamptz
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.renew_outside_lease(region, worker, generation, NULL, NULL)
$$;
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) IS 'renew an outside generator''s lease; fails once fenced or expired';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint,
                                              owner text, known_epoch integer DEFAULT NULL)
    RETURNS timestamptz
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT CASE WHEN region IS NULL OR worker IS NULL OR generation IS NULL OR owner IS NULL
            THEN NULL
            ELSE idgen.renew_outside_lease(region, worker, generation, owner, known_epoch) END
$$;
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer) IS 'renew this holder''s outside lease; fails once fenced, expired or another''s; with the newest layout epoch known, it may run past the next switch';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint, text, integer) FROM PUBLIC;

/*
 * Give an outside lease back.  With the holder's final mark (p_high_water,
 * at or above every ID it issued) the worker's mark becomes that, never
 * below the mark the lease started above (grant_floor; unknown for a lease
 * granted before 0.7, which keeps its mark), so the worker is granted again
 * once that mark plus the allowance has passed, not at the lease's planned
 * end (issue 19, item 8).  Without one (0.6 gateways), the mark stays at
 * the lease's end.
 */
CREATE FUNCTION idgen.release_outside_lease(p_region integer, p_worker integer,
                                            p_generation bigint, p_owner text,
                                            p_high_water timestamptz) RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_now timestamptz := idgen.clock();
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL,
        high_water = CASE WHEN p_high_water IS NULL THEN greatest(x.high_water, v_now)
                          ELSE greatest(p_high_water, coalesce(x.grant_floor, x.high_water)) END
    WHERE x.region = p_region AND x.worker = p_worker AND x.generation = p_generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL
      AND (p_owner IS NULL OR x.owner = p_owner);
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('worker %s of region %s is not leased at generation %s%s',
                                    p_worker, p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    PERFORM idgen.audit('worker_released',
        format('region %s worker %s generation %s%s', p_region, p_worker, p_generation,
               CASE WHEN p_high_water IS NULL THEN ''
                    ELSE format(' final mark %s', p_high_water) END));
END
$$;
COMMENT ON FUNCTION idgen.release_outside_lease(integer, integer, bigint, text, timestamptz) IS 'give an outside lease back (this holder''s, or any at that generation if p_owner is NULL), with the holder''s final mark if given';
REVOKE ALL ON FUNCTION idgen.release_outside_lease(integer, integer, bigint, text, timestamptz) FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint)
    RETURNS void
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.release_outside_lease(region, worker, generation, NULL, NULL)
$$;
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) IS 'give an outside generator''s worker back';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint,
                                                owner text, high_water timestamptz)
    RETURNS void
    LANGUAGE sql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.release_outside_lease(region, worker, generation, owner, high_water)
$$;
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) IS 'give this holder''s outside worker back with its final mark: the worker is granted again once that mark plus the allowance has passed';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) FROM PUBLIC;

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
    SET owner = NULL, lease_until = NULL, generation = idgen.next_generation(x.generation),
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

CREATE OR REPLACE FUNCTION idgen.restore_worker_lease() RETURNS trigger
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
    -- the registry the dump came from may have granted after it: a hold
    -- (a restored node lease's TTL counts), and generations go on above it
    PERFORM idgen.note_restore(CASE WHEN NEW.owner IS NOT NULL AND NEW.node_sysid IS NOT NULL
                                    THEN NEW.ttl END,
                               CASE WHEN NEW.owner IS NOT NULL OR NEW.node_sysid IS NOT NULL
                                    THEN NEW.drift_allowance END);
    -- a restored outside lease may have been renewed after the dump: its
    -- worker waits for as long as such a renewal could run
    IF NEW.owner IS NOT NULL AND NEW.node_sysid IS NULL AND NEW.ttl IS NOT NULL THEN
        NEW.high_water := greatest(NEW.high_water,
                                   idgen.clock() + NEW.ttl + idgen.registry_clock_allowance());
    END IF;
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
            grant_floor = CASE WHEN x.grant_floor IS NULL OR NEW.grant_floor IS NULL THEN NULL
                               ELSE greatest(x.grant_floor, NEW.grant_floor) END,
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
            clock_offset_ms = NEW.clock_offset_ms, node_state = NEW.node_state,
            -- what this registry had under the worker stays below any release
            grant_floor = CASE WHEN NEW.grant_floor IS NULL THEN NULL
                               ELSE greatest(NEW.grant_floor, e.high_water) END
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

/*
 * One row, dumped with the registry: a restore of the dump inserts it
 * again, and that tells the registry it was restored (idgen.note_restore),
 * also from a dump that holds no lease at all.  The install's own row is
 * written before the trigger exists; a restored one is not kept.
 */
CREATE TABLE idgen.restore_marker (
    marker boolean PRIMARY KEY DEFAULT true CHECK (marker)
);
COMMENT ON TABLE idgen.restore_marker IS 'one row, dumped with the registry: restoring it tells the registry that it was restored from a dump';
REVOKE ALL ON idgen.restore_marker FROM PUBLIC;
INSERT INTO idgen.restore_marker DEFAULT VALUES;
SELECT pg_catalog.pg_extension_config_dump('idgen.restore_marker', '');

CREATE FUNCTION idgen.restore_marker_restored() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_hold timestamptz;
BEGIN
    v_hold := idgen.note_restore(NULL, NULL);
    IF v_hold IS NOT NULL THEN
        PERFORM idgen.audit('registry_restored',
            format('a dump of a registry was restored here: grants made after the dump are lost and may still run, so no block is granted until %s',
                   v_hold));
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION idgen.restore_marker_restored() IS 'trigger: a restored dump''s marker makes the restore a change of incarnation, with its hold';
REVOKE ALL ON FUNCTION idgen.restore_marker_restored() FROM PUBLIC;
CREATE TRIGGER restore_marker_restored BEFORE INSERT ON idgen.restore_marker
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_marker_restored();
