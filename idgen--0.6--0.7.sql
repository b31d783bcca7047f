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
