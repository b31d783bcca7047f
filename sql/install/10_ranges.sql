-- ---------------------------------------------------------------------
-- Numeric range leases (segment mode): blocks of IDs an outside generator
-- hands out by itself, carved from the IDs of times before 2026-01-01,
-- which no node ever generates.
-- ---------------------------------------------------------------------

CREATE FUNCTION idgen.range_space_end() RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_range_space_end' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.range_space_end() IS 'first ID above the range space: no range reaches it, no generated ID is below it';

CREATE SEQUENCE idgen.range_generation;
COMMENT ON SEQUENCE idgen.range_generation IS 'fencing tokens of range leases';
REVOKE ALL ON SEQUENCE idgen.range_generation FROM PUBLIC;

CREATE TABLE idgen.range_lease (
    range_start @extschema@.idgen PRIMARY KEY,
    range_end   @extschema@.idgen NOT NULL,
    owner       text NOT NULL,
    generation  bigint NOT NULL,
    request_key text,
    consumed    @extschema@.idgen,
    leased_at   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    updated_at  timestamptz,
    CHECK (range_start >= 1::bigint AND range_end >= range_start),
    CHECK (range_end < idgen.range_space_end()),
    CHECK (consumed IS NULL OR (consumed >= range_start AND consumed <= range_end)),
    UNIQUE (owner, request_key),
    EXCLUDE USING gist (pg_catalog.int8range(range_start::bigint, range_end::bigint, '[]') WITH &&)
);
COMMENT ON TABLE idgen.range_lease IS 'numeric ranges leased to outside generators; they never overlap each other or generated IDs';
COMMENT ON COLUMN idgen.range_lease.consumed IS 'highest ID of the range its holder reported as used';
REVOKE ALL ON idgen.range_lease FROM PUBLIC;

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

/*
 * Range leases: the generation comes from idgen.range_generation, which a
 * restored dump sets back to its own value; it never goes below a
 * generation a lease of this registry already has, nor below the
 * generation floor of the last confirmation.  A new range is granted only
 * in the incarnation idgen.range_floor names (a fresh install's, or the
 * one an operator confirmed a floor in), at or above that floor.  A keyed
 * retry of a range the table has returns it at any time: nothing new is
 * granted.  The grant commits with synchronous_commit on at least: one
 * the session had turned off or local could be lost by a crash or a
 * failover after it was answered.
 *
 * Names and keys are printable text.  An owner's name is quoted in
 * idgen_status(), idgen.fleet, the audit log and the server log, a request
 * key in the audit log and in errors: a control character there (a
 * newline above all) would make them read as something else.  An
 * operator's reason for idgen_disable() stays free text.
 */
\ir ../udfs/idgen_lease_range/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text) IS 'lease a block of numeric IDs for an outside generator; the same request key returns the same range; after a restart, failover or restore new ranges wait for idgen_confirm_range_floor()';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_range(text, bigint, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_range_consumed(range_start @extschema@.idgen, upto @extschema@.idgen)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.range_lease AS l
    SET consumed = CASE WHEN l.consumed IS NULL OR l.consumed < upto THEN upto ELSE l.consumed END,
        updated_at = pg_catalog.clock_timestamp()
    WHERE l.range_start = idgen_range_consumed.range_start
      AND upto >= l.range_start AND upto <= l.range_end;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no leased range starts at % and contains %', range_start, upto
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_range_consumed(@extschema@.idgen, @extschema@.idgen) IS 'a range holder reports how far it has used its range';
REVOKE ALL ON FUNCTION @extschema@.idgen_range_consumed(@extschema@.idgen, @extschema@.idgen) FROM PUBLIC;

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
\ir ../udfs/idgen_confirm_range_floor/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_confirm_range_floor(@extschema@.idgen) IS 'an operator confirms that no range was granted at or above floor: range grants, which wait after a restart, failover or restore, go on from there (returns the next range''s start)';
REVOKE ALL ON FUNCTION @extschema@.idgen_confirm_range_floor(@extschema@.idgen) FROM PUBLIC;
