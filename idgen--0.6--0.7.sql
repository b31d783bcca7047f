/* idgen--0.6--0.7.sql: changes since 0.6 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.7'" to load this file. \quit


-- ---------------------------------------------------------------------
-- Issue 19, item 2: numeric ranges are granted twice after a restore or a
-- lossy failover.  Range grants wait, after any change of the registry's
-- incarnation and after a pg_restore of range rows, until an operator
-- confirms a floor (idgen_confirm_range_floor); generations start above
-- the clock after it.  An upgrade happens in the running registry, which
-- has every range it granted: its incarnation may grant at once.
-- ---------------------------------------------------------------------

/*
 * The range floor.  Ranges are not time-bound, so no hold covers a range
 * the registry granted and then lost (a restore from a backup, a
 * failover to a standby that lacked the grant, a crash with commits not
 * yet flushed): its next grant would start inside it.  The registry
 * cannot tell a restore of a physical copy from a plain restart, so after
 * any change of its incarnation (restart, promotion, timeline switch,
 * start of a copy) and after a pg_restore of its rows, it grants no new
 * range until an operator confirms a floor, one the holders' own records
 * prove (idgen_confirm_range_floor); ranges then start at or above it.
 * The confirmation is for the incarnation it was made in: the row names
 * it.  A row restored from a dump (an INSERT, which the registry itself
 * never makes) withdraws the confirmation.
 */
CREATE TABLE idgen.range_floor (
    floor            @extschema@.idgen NOT NULL DEFAULT '1',
    generation_floor bigint NOT NULL DEFAULT 0,
    incarnation      text,
    confirmed_at     timestamptz,
    confirmed_by     text,
    waiting_reason   text,
    granting_xact    xid8
);
CREATE UNIQUE INDEX range_floor_one_row ON idgen.range_floor ((true));
COMMENT ON TABLE idgen.range_floor IS 'one row: the incarnation in which range grants were confirmed, and the floor no range starts below';
COMMENT ON COLUMN idgen.range_floor.floor IS 'no range is granted below it: the highest floor an operator confirmed, or the end of the last range granted plus one';
COMMENT ON COLUMN idgen.range_floor.generation_floor IS 'the lowest generation the next range may have: above every one a lost grant may have had';
COMMENT ON COLUMN idgen.range_floor.incarnation IS 'the registry incarnation (system id/timeline/postmaster start ms) in which ranges may be granted; NULL: none, until a confirmation';
COMMENT ON COLUMN idgen.range_floor.waiting_reason IS 'why grants wait beyond a change of incarnation (a restore of range rows); NULL when none';
COMMENT ON COLUMN idgen.range_floor.granting_xact IS 'the transaction of the last grant: its own insert into idgen.range_lease is no restore';
REVOKE ALL ON idgen.range_floor FROM PUBLIC;
-- dumped (idgen.range_floor is registered at the end of this file, where
-- the upgrade script registers it too: pg_dump keeps the order): its
-- restore tells a restored registry that its ranges came from a dump
-- (idgen.restore_range_floor)

-- the running instance as idgen_status() names an incarnation
CREATE FUNCTION idgen.range_incarnation() RETURNS text
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT format('%s/%s/%s', r.system_identifier, r.timeline,
              floor(extract(epoch FROM r.postmaster_start) * 1000)::bigint)
FROM idgen.running_incarnation() AS r
$$;
COMMENT ON FUNCTION idgen.range_incarnation() IS 'the running registry instance, as system id/timeline/postmaster start ms';
REVOKE ALL ON FUNCTION idgen.range_incarnation() FROM PUBLIC;

-- a fresh install has granted nothing yet: grants go on in this incarnation
INSERT INTO idgen.range_floor (incarnation, confirmed_at, confirmed_by)
VALUES (idgen.range_incarnation(), pg_catalog.clock_timestamp(), 'CREATE EXTENSION');

-- why range grants wait, or NULL when they may go on
CREATE FUNCTION idgen.range_grant_refusal(f idgen.range_floor) RETURNS text
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT CASE
    WHEN pg_catalog.pg_is_in_recovery() THEN 'this server is a standby'
    WHEN f.incarnation IS NOT DISTINCT FROM idgen.range_incarnation() THEN NULL
    WHEN f.waiting_reason IS NOT NULL THEN f.waiting_reason
    WHEN f.incarnation IS NULL THEN 'no floor was ever confirmed'
    ELSE format('the registry is a new incarnation %s (restarted, promoted or restored) since ranges were confirmed in %s at %s',
                idgen.range_incarnation(), f.incarnation, f.confirmed_at)
END
$$;
COMMENT ON FUNCTION idgen.range_grant_refusal(idgen.range_floor) IS 'why range grants wait for an operator''s confirmation, or NULL when they go on';
REVOKE ALL ON FUNCTION idgen.range_grant_refusal(idgen.range_floor) FROM PUBLIC;

CREATE VIEW idgen.range_grants AS
SELECT idgen.range_grant_refusal(f) IS NULL AS granting,
       idgen.range_grant_refusal(f) AS waiting_for,
       greatest(f.floor::bigint,
                (SELECT coalesce(max(l.range_end::bigint) + 1, 1) FROM idgen.range_lease AS l))::@extschema@.idgen
           AS next_start,
       (SELECT max(l.range_end::bigint) FROM idgen.range_lease AS l) AS highest_range_end,
       f.floor, f.generation_floor, f.incarnation AS confirmed_incarnation,
       f.confirmed_at, f.confirmed_by
FROM idgen.range_floor AS f;
COMMENT ON VIEW idgen.range_grants IS 'whether range grants go on or wait for an operator to confirm a floor (idgen_confirm_range_floor), and where the next range starts';
REVOKE ALL ON idgen.range_grants FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_lease_range(owner text, count bigint, request_key text DEFAULT NULL,
    OUT range_start @extschema@.idgen, OUT range_end @extschema@.idgen, OUT generation bigint)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r idgen.range_lease;
    f idgen.range_floor;
    refusal text;
    top @extschema@.idgen;
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

    SELECT * INTO f FROM idgen.range_floor FOR UPDATE;
    refusal := CASE WHEN FOUND THEN idgen.range_grant_refusal(f) ELSE 'idgen.range_floor has no row' END;
    IF refusal IS NOT NULL THEN
        SELECT max(l.range_end) INTO top FROM idgen.range_lease AS l;
        RAISE EXCEPTION 'no range is granted until an operator confirms the range floor'
            USING ERRCODE = 'IA006',
                  DETAIL = format('Range grants wait because %s: the registry may have lost ranges it granted, and the next grant would hand their IDs out again. The highest range it has ends at %s.',
                                  refusal, coalesce(top::text, 'none (no range)')),
                  HINT = 'Find the highest range ID any holder was granted (their own records, idgen_range_consumed reports, the audit log kept elsewhere) and run SELECT idgen_confirm_range_floor(''N'') with N above it; if the change lost nothing (a clean restart, a failover to a synchronous standby), N = 1 confirms the ranges the registry has. See docs/fleets.md, "Ranges after a restore".';
    END IF;

    SELECT coalesce(max(l.range_end::bigint) + 1, 1) INTO next_start FROM idgen.range_lease AS l;
    next_start := greatest(next_start, f.floor::bigint);
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
    SELECT greatest(idgen_lease_range.generation, pg_catalog.max(l.generation) + 1, f.generation_floor)
      INTO generation
    FROM idgen.range_lease AS l;
    IF generation > pg_catalog.currval('idgen.range_generation') THEN
        PERFORM pg_catalog.setval('idgen.range_generation', generation);
    END IF;
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
    -- the floor follows every grant, so a range_lease row deleted by hand
    -- is never granted again either
    UPDATE idgen.range_floor AS fl
    SET granting_xact = pg_catalog.pg_current_xact_id(),
        floor = greatest(fl.floor::bigint, range_end::bigint + 1)::@extschema@.idgen,
        generation_floor = greatest(fl.generation_floor, generation + 1);
    INSERT INTO idgen.range_lease (range_start, range_end, owner, generation, request_key)
    VALUES (range_start, range_end, owner, generation, request_key);
    PERFORM idgen.audit('range_leased',
        format('owner %s range %s-%s (%s IDs) generation %s key %s',
               owner, range_start, range_end, count, generation, coalesce(request_key, 'none')));
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text) IS 'lease a block of numeric IDs for an outside generator; the same request key returns the same range; after a restart, failover or restore new ranges wait for idgen_confirm_range_floor()';

/*
 * An operator confirms the floor: no range was granted at or above it, by
 * the holders' own records.  Ranges start at it, or after the highest one
 * the registry has if that is higher (a floor below it confirms what the
 * table says, the answer to a restart known to have lost nothing); a
 * later confirmation never lowers it.  Generations start above every one
 * a lost grant may have had, by the clock, a floor no lost write can
 * move: a confirmation's generations count up from its microseconds plus
 * twice the registry's clock allowance plus a second, and grants are
 * serialised and take more than a microsecond each, so a lost grant's
 * generation lay below its own time plus that; this registry's clock runs
 * behind the lost grant's by the allowance at most, and the new count
 * starts above it.  (Generations of 0.6 and of a fresh install count
 * from 1, far below.)  Returns where the next range starts.
 */
CREATE FUNCTION @extschema@.idgen_confirm_range_floor(floor @extschema@.idgen)
    RETURNS @extschema@.idgen
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    f idgen.range_floor;
    was text;
    top bigint;
    v_floor bigint;
    v_gen bigint;
BEGIN
    PERFORM idgen.require_registry();
    IF floor::bigint < 1 OR floor >= idgen.range_space_end() THEN
        RAISE EXCEPTION 'a range floor lies in the range space, 1 to %, not %',
                        idgen.range_space_end()::bigint - 1, floor
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM idgen.lock_registry();
    SELECT * INTO f FROM idgen.range_floor FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO idgen.range_floor DEFAULT VALUES RETURNING * INTO f;
    END IF;
    was := coalesce(idgen.range_grant_refusal(f), 'grants went on');
    SELECT max(l.range_end::bigint) INTO top FROM idgen.range_lease AS l;
    v_floor := greatest(f.floor::bigint, idgen_confirm_range_floor.floor::bigint, coalesce(top + 1, 1));
    IF v_floor >= idgen.range_space_end()::bigint THEN
        v_floor := idgen.range_space_end()::bigint - 1;
    END IF;
    SELECT greatest(f.generation_floor, coalesce(max(l.generation) + 1, 1),
                    (SELECT s.last_value + 1 FROM idgen.range_generation AS s),
                    floor(extract(epoch FROM idgen.clock() + 2 * idgen.registry_clock_allowance() + interval '1 s')
                          * 1000000)::bigint)
      INTO v_gen
    FROM idgen.range_lease AS l;
    PERFORM pg_catalog.setval('idgen.range_generation', v_gen, false);
    -- the restore trigger must not see this row as a restored one
    UPDATE idgen.range_floor AS r
    SET floor = v_floor::@extschema@.idgen, generation_floor = v_gen,
        incarnation = idgen.range_incarnation(), confirmed_at = pg_catalog.clock_timestamp(),
        confirmed_by = pg_catalog."session_user"(), waiting_reason = NULL;
    PERFORM idgen.audit('range_floor_confirmed',
        format('ranges start at %s or above (floor given %s, highest range end held %s), generations at %s or above, in incarnation %s; before: %s',
               v_floor, idgen_confirm_range_floor.floor, coalesce(top::text, 'none'), v_gen,
               idgen.range_incarnation(), was));
    RETURN v_floor::@extschema@.idgen;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_confirm_range_floor(@extschema@.idgen) IS 'an operator confirms that no range was granted at or above floor: range grants, which wait after a restart, failover or restore, go on from there (returns the next range''s start)';
REVOKE ALL ON FUNCTION @extschema@.idgen_confirm_range_floor(@extschema@.idgen) FROM PUBLIC;

CREATE OR REPLACE FUNCTION idgen.restore_range_lease() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM idgen.range_floor AS f
                   WHERE f.granting_xact = pg_catalog.pg_current_xact_id()) THEN
        PERFORM idgen.range_floor_withdraw(format('range leases were restored or inserted by hand at %s',
                                                  pg_catalog.clock_timestamp()));
    END IF;
    UPDATE idgen.range_lease AS l
    SET consumed = greatest(l.consumed, NEW.consumed),
        updated_at = greatest(l.updated_at, NEW.updated_at)
    WHERE l.range_start = NEW.range_start AND l.range_end = NEW.range_end
      AND l.owner = NEW.owner AND l.generation = NEW.generation
      AND l.request_key IS NOT DISTINCT FROM NEW.request_key;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
COMMENT ON FUNCTION idgen.restore_range_lease() IS 'trigger: a restored range lease the registry has already is merged into it; any restored row makes range grants wait for a confirmation';

-- range grants wait for an operator again: the registry's ranges may have
-- come from a dump whose registry granted more after it (the first such
-- row audits it; the rest of a restore finds the floor withdrawn already)
CREATE FUNCTION idgen.range_floor_withdraw(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    UPDATE idgen.range_floor AS f
    SET incarnation = NULL, waiting_reason = reason
    WHERE f.incarnation IS NOT NULL OR f.waiting_reason IS NULL;
    IF FOUND THEN
        PERFORM idgen.audit('range_floor_restored',
            format('%s: no range is granted until an operator confirms a floor (idgen_confirm_range_floor)', reason));
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.range_floor_withdraw(text) IS 'range grants wait for an operator''s confirmation again, for the reason given';
REVOKE ALL ON FUNCTION idgen.range_floor_withdraw(text) FROM PUBLIC;

-- a restored idgen.range_floor row (the registry itself never inserts
-- one): the higher floors stay, and grants wait for a confirmation
CREATE FUNCTION idgen.restore_range_floor() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    UPDATE idgen.range_floor AS f
    SET floor = greatest(f.floor, NEW.floor),
        generation_floor = greatest(f.generation_floor, NEW.generation_floor);
    IF NOT FOUND THEN
        NEW.incarnation := NULL;
        NEW.waiting_reason := format('the ranges were restored from a dump at %s', pg_catalog.clock_timestamp());
        RETURN NEW;
    END IF;
    PERFORM idgen.range_floor_withdraw(format('the ranges were restored from a dump at %s',
                                              pg_catalog.clock_timestamp()));
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION idgen.restore_range_floor() IS 'trigger: a restored range floor is merged into the registry''s, and range grants wait for a confirmation';
REVOKE ALL ON FUNCTION idgen.restore_range_floor() FROM PUBLIC;
CREATE TRIGGER range_floor_restore BEFORE INSERT ON idgen.range_floor
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_range_floor();

-- pg_dump keeps idgen.range_floor's row (issue 19, item 2): registered
-- last, in the order the upgrade scripts register the configuration tables
SELECT pg_catalog.pg_extension_config_dump('idgen.range_floor', '');
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

-- ---------------------------------------------------------------------
-- Issue 19, item 12: a keyed batch keeps its reserved run of ticks, not
-- its IDs (a few dozen bytes for any count; a retry makes the IDs again),
-- and one login role keeps at most idgen.request_max_per_role live keys.
-- Records stored by 0.6 are kept as they are, arrays and all, and answered
-- from their arrays until they expire (idgen.request_retention): none is
-- converted, because an idgen128 record's random tails cannot be made
-- again from a run.  idgen.keyed_batch now returns the table's row.
-- ---------------------------------------------------------------------
ALTER TABLE idgen.batch_request
    ADD COLUMN first_tick bigint,
    ADD COLUMN counter_bits smallint,
    ADD COLUMN time_shift smallint,
    ADD COLUMN node_bits bigint,
    ADD COLUMN origin_unix_ms bigint,
    ADD COLUMN epoch integer,
    ADD COLUMN tail_key bytea,
    DROP CONSTRAINT batch_request_check,
    ADD CONSTRAINT batch_request_check
        CHECK (CASE WHEN first_tick IS NULL
                        THEN (width = 64) = (ids IS NOT NULL) AND (width = 128) = (ids128 IS NOT NULL)
                        ELSE ids IS NULL AND ids128 IS NULL AND counter_bits IS NOT NULL
                             AND time_shift IS NOT NULL AND node_bits IS NOT NULL
                             AND origin_unix_ms IS NOT NULL AND epoch IS NOT NULL
                             AND (width = 128) = (tail_key IS NOT NULL) END);
COMMENT ON COLUMN idgen.batch_request.ids IS 'the IDs of a 64-bit batch stored by 0.6; NULL for a batch stored as its run (first_tick and after)';
COMMENT ON COLUMN idgen.batch_request.ids128 IS 'the IDs of a 128-bit batch stored by 0.6; NULL for a batch stored as its run';
COMMENT ON COLUMN idgen.batch_request.first_tick IS 'the first tick of the reserved run; with counter_bits, time_shift and node_bits it makes the IDs again (idgen.batch_ids)';
COMMENT ON COLUMN idgen.batch_request.tail_key IS 'SipHash key of a 128-bit batch''s random tails, so that a retry makes the same idgen128s';

-- its return type changes; the SQL wrappers below are its only callers
DROP FUNCTION idgen.keyed_batch(integer, text, smallint);

CREATE FUNCTION idgen.reserve_batch(count integer, width smallint,
    OUT first_tick bigint, OUT counter_bits smallint, OUT time_shift smallint,
    OUT node_bits bigint, OUT origin_unix_ms bigint, OUT epoch integer, OUT tail_key bytea)
    AS 'MODULE_PATHNAME', 'idgen_reserve_batch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.reserve_batch(integer, smallint) IS 'reserve count ticks as idgen_next_batch(count) does and return the run (and, 128 bits wide, a random key for the tails) instead of the IDs';
REVOKE ALL ON FUNCTION idgen.reserve_batch(integer, smallint) FROM PUBLIC;

-- a run's IDs are what any cast to idgen could make: no secret, no grant needed
CREATE FUNCTION idgen.batch_run_ids(first_tick bigint, count integer, counter_bits smallint,
                                    time_shift smallint, node_bits bigint)
    RETURNS SETOF @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_batch_run_ids' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION idgen.batch_run_ids(bigint, integer, smallint, smallint, bigint) IS 'the IDs of a reserved run of ticks, ascending: a keyed batch made again';

CREATE FUNCTION idgen.batch_run_ids128(first_tick bigint, count integer, counter_bits smallint,
                                       time_shift smallint, node_bits bigint, origin_unix_ms bigint,
                                       epoch integer, tail_key bytea)
    RETURNS SETOF @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen_batch_run_ids128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION idgen.batch_run_ids128(bigint, integer, smallint, smallint, bigint, bigint, integer, bytea) IS 'the 128-bit IDs of a reserved run of ticks, ascending, their tails made from tail_key: a keyed batch made again';

-- a stored batch's IDs: made again from its run, or a record of 0.6's array
CREATE FUNCTION idgen.batch_ids(r idgen.batch_request) RETURNS SETOF @extschema@.idgen
    LANGUAGE sql STABLE PARALLEL SAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
SELECT x FROM idgen.batch_run_ids(r.first_tick, r.count, r.counter_bits, r.time_shift, r.node_bits) AS x
WHERE r.width = 64
UNION ALL
SELECT x FROM pg_catalog.unnest(r.ids) AS x
$$;
COMMENT ON FUNCTION idgen.batch_ids(idgen.batch_request) IS 'the IDs a stored 64-bit keyed batch returns';

CREATE FUNCTION idgen.batch_ids128(r idgen.batch_request) RETURNS SETOF @extschema@.idgen128
    LANGUAGE sql STABLE PARALLEL SAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
SELECT x FROM idgen.batch_run_ids128(r.first_tick, r.count, r.counter_bits, r.time_shift, r.node_bits,
                                     r.origin_unix_ms, r.epoch, r.tail_key) AS x
WHERE r.width = 128
UNION ALL
SELECT x FROM pg_catalog.unnest(r.ids128) AS x
$$;
COMMENT ON FUNCTION idgen.batch_ids128(idgen.batch_request) IS 'the IDs a stored 128-bit keyed batch returns';

/*
 * The batch for (session_user, key, width): the stored one while it lives,
 * else a new one stored under the key.  A concurrent caller with the same
 * key waits on the unique index until the first commits, then reads its
 * batch; if the first rolls back, the second makes its own.  What is
 * stored is the reserved run, not the IDs; a role keeps at most
 * idgen.request_max_per_role live keys (sessions of one role racing for
 * the last places may pass it by one each).
 */
CREATE FUNCTION idgen.keyed_batch(p_count integer, p_key text, p_width smallint)
    RETURNS idgen.batch_request
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    r idgen.batch_request;
    run record;
    kept bigint;
    cap integer := coalesce(nullif(current_setting('idgen.request_max_per_role', true), ''), '10000')::integer;
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
            RETURN r;
        END IF;
        IF FOUND THEN
            DELETE FROM idgen.batch_request AS b
            WHERE b.owner_role = session_user AND b.request_key = p_key
              AND b.width = p_width AND b.expires_at <= now;
        END IF;
        -- counted no further than the cap: the count costs at most that
        SELECT count(*) INTO kept
        FROM (SELECT 1 FROM idgen.batch_request AS b
              WHERE b.owner_role = session_user AND b.expires_at > now LIMIT cap) AS s;
        IF kept >= cap THEN
            RAISE EXCEPTION 'role "%" keeps % request keys, the most idgen.request_max_per_role allows',
                            session_user, cap
                USING ERRCODE = 'configuration_limit_exceeded',
                      DETAIL = format('A request key is kept for idgen.request_retention (%s s) after its batch.',
                                      extract(epoch FROM idgen.request_retention())::bigint),
                      HINT = 'Retry later, when older keys have expired, or ask an administrator for a higher idgen.request_max_per_role for this role (ALTER ROLE ... SET).';
        END IF;
        BEGIN
            SELECT * INTO run FROM idgen.reserve_batch(p_count, p_width);
            INSERT INTO idgen.batch_request (owner_role, request_key, width, count, expires_at,
                                             first_tick, counter_bits, time_shift, node_bits,
                                             origin_unix_ms, epoch, tail_key)
            VALUES (session_user, p_key, p_width, p_count, now + idgen.request_retention(),
                    run.first_tick, run.counter_bits, run.time_shift, run.node_bits,
                    run.origin_unix_ms, run.epoch, run.tail_key)
            RETURNING * INTO r;
            RETURN r;
        EXCEPTION WHEN unique_violation THEN
            -- someone else stored this key meanwhile: read theirs, which only
            -- a READ COMMITTED snapshot taken from now on can see
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'request key "%" was stored by a concurrent transaction', p_key
                    USING ERRCODE = 'serialization_failure',
                          HINT = 'Retry the transaction.';
            END IF;
        END;
    END LOOP;
END
$$;
COMMENT ON FUNCTION idgen.keyed_batch(integer, text, smallint) IS 'the batch stored under a request key, or a new one: its row of idgen.batch_request';
REVOKE ALL ON FUNCTION idgen.keyed_batch(integer, text, smallint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION idgen.keyed_batch(integer, text, smallint) TO PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_next_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
WITH k AS MATERIALIZED (SELECT * FROM idgen.keyed_batch($1, $2, 64::smallint))
SELECT x FROM k, idgen.batch_run_ids(k.first_tick, k.count, k.counter_bits, k.time_shift, k.node_bits) AS x
UNION ALL
SELECT x FROM k, pg_catalog.unnest(k.ids) AS x
$$;
COMMENT ON FUNCTION @extschema@.idgen_next_batch(integer, text) IS 'count IDs, ascending; the same request key returns the same IDs again (retry identity)';

CREATE OR REPLACE FUNCTION @extschema@.idgen_next128_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen128
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
WITH k AS MATERIALIZED (SELECT * FROM idgen.keyed_batch($1, $2, 128::smallint))
SELECT x FROM k, idgen.batch_run_ids128(k.first_tick, k.count, k.counter_bits, k.time_shift, k.node_bits,
                                        k.origin_unix_ms, k.epoch, k.tail_key) AS x
UNION ALL
SELECT x FROM k, pg_catalog.unnest(k.ids128) AS x
$$;
COMMENT ON FUNCTION @extschema@.idgen_next128_batch(integer, text) IS 'count 128-bit IDs, ascending; the same request key returns the same IDs again';

CREATE OR REPLACE FUNCTION idgen.restore_batch_request() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.batch_request AS b
    WHERE b.owner_role = NEW.owner_role AND b.request_key = NEW.request_key
      AND b.width = NEW.width AND b.count = NEW.count
      AND b.ids IS NOT DISTINCT FROM NEW.ids AND b.ids128 IS NOT DISTINCT FROM NEW.ids128
      AND b.first_tick IS NOT DISTINCT FROM NEW.first_tick
      AND b.counter_bits IS NOT DISTINCT FROM NEW.counter_bits
      AND b.time_shift IS NOT DISTINCT FROM NEW.time_shift
      AND b.node_bits IS NOT DISTINCT FROM NEW.node_bits
      AND b.origin_unix_ms IS NOT DISTINCT FROM NEW.origin_unix_ms
      AND b.epoch IS NOT DISTINCT FROM NEW.epoch
      AND b.tail_key IS NOT DISTINCT FROM NEW.tail_key;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;

-- Issue 19, items 12 and 13 (idgen-gateway's Idempotency-Key records):
-- a record holds what regenerates the answer instead of the IDs, scoped by
-- the token's SHA-256 instead of its name, under a cap per token.  The old
-- records are dropped, not converted: they are scoped by a token name, and
-- the registry cannot tell which token (which client) a name stood for, so
-- no conversion could be trusted with another client's IDs.  A retry of a
-- request answered before the upgrade gets new IDs (never the old ones
-- again to someone else).  0.6 gateways cannot write records after this
-- (their keyed requests fail with 503, IDs unsent): upgrade them with the
-- extension.
-- ---------------------------------------------------------------------

-- out of the extension first, so pg_dump's list of its tables forgets it
ALTER EXTENSION idgen DROP TABLE idgen.gateway_request;
DROP TABLE idgen.gateway_request;

-- idgen-gateway: the answers it gave under an Idempotency-Key, kept for
-- idgen.request_retention so a retry gets the same IDs from any gateway of
-- the registry, also after a restart.  A record holds what regenerates the
-- answer (the reservation: its first tick, layout and workers, and the
-- seed of an idgen128's random bits), a few dozen bytes whatever the count.
-- Scoped by the token's SHA-256 (as in the gateway's tokens file), never by
-- its name: two tokens files may use one name for two clients.  Written
-- only through idgen.gateway_remember() and idgen.gateway_purge(), the
-- functions a gateway's role is granted; dumped, so a retry after a restore
-- of the registry still gets its IDs.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.gateway_request (
    token_sha256 bytea NOT NULL CHECK (pg_catalog.length(token_sha256) = 32),
    request_key  text NOT NULL,
    width        smallint NOT NULL CHECK (width IN (64, 128)),
    count        integer NOT NULL CHECK (count >= 1),
    batch        bytea NOT NULL CHECK (pg_catalog.length(batch) <= 512),
    created_at   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (token_sha256, request_key)
);
CREATE INDEX ON idgen.gateway_request (created_at);
COMMENT ON TABLE idgen.gateway_request IS 'idgen-gateway''s answers under an Idempotency-Key, kept for idgen.request_retention so a retry gets the same IDs';
COMMENT ON COLUMN idgen.gateway_request.token_sha256 IS 'SHA-256 of the bearer token that asked (its line in the gateway''s tokens file)';
COMMENT ON COLUMN idgen.gateway_request.batch IS 'the reservation the IDs are computed from (the gateway''s own encoding)';
REVOKE ALL ON idgen.gateway_request FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_request', '');

-- keys stored per token and window of idgen.request_retention: the cap a
-- gateway puts on one token (--idempotency-keys).  Counted in 16 shards
-- (by registry session), so concurrent groups of one token do not queue
-- on one row; the shards are summed against the cap.
CREATE TABLE idgen.gateway_quota (
    token_sha256 bytea NOT NULL CHECK (pg_catalog.length(token_sha256) = 32),
    window_no    bigint NOT NULL,
    shard        smallint NOT NULL CHECK (shard BETWEEN 0 AND 15),
    keys         bigint NOT NULL CHECK (keys >= 0),
    PRIMARY KEY (token_sha256, window_no, shard)
);
COMMENT ON TABLE idgen.gateway_quota IS 'Idempotency-Key records stored per token and window of idgen.request_retention, for the gateway''s cap per token';
REVOKE ALL ON idgen.gateway_quota FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_quota', '');

-- One call for a whole group of keyed requests, so they share one commit;
-- a few statements for the whole group, not a few per request.  Row i
-- (in order): a live record of (token, key) is the answer ('found', also
-- when this call stored it); else 'over_cap' when the token is past p_cap
-- keys in this window of idgen.request_retention; else 'none' (no batch
-- was given to store).  The caller sends each (token, key) once, sorted,
-- so concurrent groups take their locks in one order.
CREATE FUNCTION idgen.gateway_remember(p_token text[], p_key text[], p_width smallint[],
    p_count integer[], p_batch text[], p_cap bigint,
    OUT outcome text, OUT width smallint, OUT count integer, OUT batch text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    -- one plan for every call (planning the statements each time cost more
    -- than running them), and one that looks up keys: a plan made while
    -- the tables were empty must not scan them once they hold a day of keys
    SET plan_cache_mode = force_generic_plan SET enable_seqscan = off
    SET enable_hashjoin = off SET enable_mergejoin = off AS
$$
#variable_conflict use_column
DECLARE
    t_now timestamptz := clock_timestamp();
    retention interval := idgen.request_retention();
    win bigint := floor(extract(epoch FROM t_now) / greatest(extract(epoch FROM retention), 1));
    my_shard smallint := pg_backend_pid() % 16;
    over bigint[];
BEGIN
    IF p_cap IS NULL OR p_cap < 0 OR array_length(p_token, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_width, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_count, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_batch, 1) IS DISTINCT FROM array_length(p_key, 1) THEN
        RAISE EXCEPTION 'idgen.gateway_remember: arrays of one length and a cap expected'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the quota counts every new key asked for (those over the cap too:
    -- they stay over it); keys_after - n is what this shard held before,
    -- and the other shards' keys are added as committed (concurrent groups
    -- may pass the cap by a group or two, never more)
    WITH input AS (
        SELECT u.ord, decode(u.t, 'hex') AS tok, u.k, u.w, u.c, decode(u.b, 'hex') AS b
        FROM unnest(p_token, p_key, p_width, p_count, p_batch) WITH ORDINALITY AS u(t, k, w, c, b, ord)
    ), fresh AS (
        SELECT i.*, row_number() OVER (PARTITION BY i.tok ORDER BY i.ord) AS rank
        FROM input i
        WHERE i.b IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM idgen.gateway_request g
            WHERE g.token_sha256 = i.tok AND g.request_key = i.k AND g.created_at >= t_now - retention)
    ), asked AS (
        SELECT f.tok, count(*) AS n FROM fresh f GROUP BY f.tok
    ), quota AS (
        INSERT INTO idgen.gateway_quota AS q (token_sha256, window_no, shard, keys)
        SELECT a.tok, win, my_shard, a.n FROM asked a ORDER BY a.tok
        ON CONFLICT (token_sha256, window_no, shard) DO UPDATE SET keys = q.keys + excluded.keys
        RETURNING q.token_sha256 AS tok, q.keys AS keys_after
    ), ranked AS (
        SELECT f.*, f.rank <= least(a.n, greatest(0, p_cap - (q.keys_after - a.n) - coalesce((
                   SELECT sum(o.keys) FROM idgen.gateway_quota o
                   WHERE o.token_sha256 = f.tok AND o.window_no = win AND o.shard <> my_shard), 0))) AS granted
        FROM fresh f JOIN asked a ON a.tok = f.tok JOIN quota q ON q.tok = f.tok
    ), stored AS (
        -- an expired record not yet purged is replaced; a live one wins
        INSERT INTO idgen.gateway_request AS g (token_sha256, request_key, width, count, batch, created_at)
        SELECT r.tok, r.k, r.w, r.c, r.b, t_now FROM ranked r WHERE r.granted ORDER BY r.tok, r.k
        ON CONFLICT (token_sha256, request_key) DO UPDATE
        SET width = excluded.width, count = excluded.count, batch = excluded.batch,
            created_at = excluded.created_at
        WHERE g.created_at < t_now - retention
        RETURNING 1
    )
    SELECT array_agg(r.ord) FILTER (WHERE NOT r.granted) INTO over
    FROM ranked r LEFT JOIN (SELECT count(*) FROM stored) AS s ON true;
    -- a statement of its own: it sees what this call and concurrent ones stored
    RETURN QUERY
        SELECT CASE WHEN u.ord = ANY (coalesce(over, '{}')) THEN 'over_cap'
                    WHEN g.request_key IS NULL THEN 'none' ELSE 'found' END,
               g.width, g.count, encode(g.batch, 'hex')
        FROM unnest(p_token, p_key) WITH ORDINALITY AS u(t, k, ord)
        LEFT JOIN idgen.gateway_request g
            ON g.token_sha256 = decode(u.t, 'hex') AND g.request_key = u.k
            AND g.created_at >= t_now - retention AND NOT u.ord = ANY (coalesce(over, '{}'))
        ORDER BY u.ord;
END
$$;
COMMENT ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) IS 'idgen-gateway: look up, and store under a cap per token, the Idempotency-Key records of a group of requests in one transaction';
REVOKE ALL ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) FROM PUBLIC;

-- A few rows at a time, skipping rows a request holds, so the purge never
-- waits on a request nor makes one wait for long (the gateway calls it with
-- a lock_timeout, in a loop, on a connection of its own).
CREATE FUNCTION idgen.gateway_purge(p_limit integer) RETURNS integer
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
#variable_conflict use_column
DECLARE
    t_now timestamptz := clock_timestamp();
    retention interval := idgen.request_retention();
    win bigint := floor(extract(epoch FROM t_now) / greatest(extract(epoch FROM retention), 1));
    gone integer;
BEGIN
    DELETE FROM idgen.gateway_request WHERE ctid = ANY (ARRAY(
        SELECT g.ctid FROM idgen.gateway_request g WHERE g.created_at < t_now - retention
        LIMIT greatest(p_limit, 1) FOR UPDATE SKIP LOCKED));
    GET DIAGNOSTICS gone = ROW_COUNT;
    DELETE FROM idgen.gateway_quota WHERE ctid = ANY (ARRAY(
        SELECT q.ctid FROM idgen.gateway_quota q WHERE q.window_no < win - 1
        LIMIT greatest(p_limit, 1) FOR UPDATE SKIP LOCKED));
    RETURN gone;
END
$$;
COMMENT ON FUNCTION idgen.gateway_purge(integer) IS 'idgen-gateway: delete up to p_limit Idempotency-Key records past idgen.request_retention (and old quota windows); returns how many records went';
REVOKE ALL ON FUNCTION idgen.gateway_purge(integer) FROM PUBLIC;
