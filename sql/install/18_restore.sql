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
\ir ../udfs/restore_worker_lease/latest.sql
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
\ir ../udfs/restore_epoch/latest.sql
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
-- handed out.  A row not inserted by a grant is a restore (of a dump
-- without idgen.range_floor's row, as 0.6 made) or an operator's hand:
-- either way the registry's ranges are no longer its own record, and
-- grants wait for a confirmation.
CREATE FUNCTION idgen.restore_range_lease() RETURNS trigger
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
REVOKE ALL ON FUNCTION idgen.restore_range_lease() FROM PUBLIC;
CREATE TRIGGER range_lease_restore BEFORE INSERT ON idgen.range_lease
    FOR EACH ROW EXECUTE FUNCTION idgen.restore_range_lease();

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
