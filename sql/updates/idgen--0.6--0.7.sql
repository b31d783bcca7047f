/* idgen--0.6--0.7.sql: changes since 0.6 (sql/install/ is the whole schema) */

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

\ir ../udfs/idgen_lease_range/0.7.sql
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
\ir ../udfs/idgen_confirm_range_floor/0.7.sql
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
\ir ../udfs/incarnation_hold/0.7.sql
COMMENT ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) IS 'at a change of incarnation: until when no block is granted (the leases that may still run, at least idgen.lease_ttl, plus allowances), and whether the registry''s own node is spared; raises the marks of outside leases that may have been renewed unseen';
REVOKE ALL ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) FROM PUBLIC;

\ir ../udfs/registry_incarnation_check/0.7.sql
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
\ir ../udfs/note_restore/0.7.sql
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

\ir ../udfs/acquire_node_lease/0.7.sql
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
\ir ../udfs/idgen_lease_worker/0.7.sql
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
\ir ../udfs/renew_outside_lease/0.7.sql
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

\ir ../udfs/idgen_renew_worker/0.7.sql
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
\ir ../udfs/release_outside_lease/0.7.sql
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

\ir ../udfs/idgen_release_worker/0.7.sql
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) IS 'give this holder''s outside worker back with its final mark: the worker is granted again once that mark plus the allowance has passed';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint, text, timestamptz) FROM PUBLIC;

\ir ../udfs/idgen_fence_worker/0.7.sql
COMMENT ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) IS 'operator repair: expire a lease and bump its generation so the holder stops';
REVOKE ALL ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) FROM PUBLIC;

\ir ../udfs/restore_worker_lease/0.7.sql
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
\ir ../udfs/keyed_batch/0.7.sql
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
\ir ../udfs/gateway_remember/0.7.sql
COMMENT ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) IS 'idgen-gateway: look up, and store under a cap per token, the Idempotency-Key records of a group of requests in one transaction';
REVOKE ALL ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) FROM PUBLIC;

-- A few rows at a time, skipping rows a request holds, so the purge never
-- waits on a request nor makes one wait for long (the gateway calls it with
-- a lock_timeout, in a loop, on a connection of its own).
\ir ../udfs/gateway_purge/0.7.sql
COMMENT ON FUNCTION idgen.gateway_purge(integer) IS 'idgen-gateway: delete up to p_limit Idempotency-Key records past idgen.request_retention (and old quota windows); returns how many records went';
REVOKE ALL ON FUNCTION idgen.gateway_purge(integer) FROM PUBLIC;
