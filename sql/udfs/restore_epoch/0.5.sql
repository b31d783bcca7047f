CREATE OR REPLACE FUNCTION idgen.restore_epoch() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    e idgen.epoch;
    s record;
    busy record;
BEGIN
    SELECT * INTO e FROM idgen.epoch AS x WHERE x.version = NEW.version;
    IF FOUND THEN
        IF (e.start_time, e.epoch_start, e.time_bits, e.region_bits, e.worker_bits, e.seq_bits, e.horizon)
           IS NOT DISTINCT FROM
           (NEW.start_time, NEW.epoch_start, NEW.time_bits, NEW.region_bits, NEW.worker_bits,
            NEW.seq_bits, NEW.horizon) THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'cannot restore layout epoch %: this database has another epoch %', NEW.version, NEW.version
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('The restored one applies from %s with %s/%s/%s region/worker/sequence bits, this one from %s with %s/%s/%s. IDs may have been issued under either, and an epoch is never rewritten.',
                                  NEW.start_time, NEW.region_bits, NEW.worker_bits, NEW.seq_bits,
                                  e.start_time, e.region_bits, e.worker_bits, e.seq_bits),
                  HINT = 'Restore the registry into a server whose idgen.epoch has no layouts of its own beyond epoch 1.';
    END IF;

    -- only the node's registry: elsewhere no node issues by these rows
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database()
       OR coalesce(current_setting('idgen.registry', true), '') <> '' THEN
        RETURN NEW;
    END IF;
    LOCK TABLE idgen.worker_lease IN SHARE ROW EXCLUSIVE MODE;
    SELECT st.owner, st.generation, st.lease_until, st.logical_clock INTO s
    FROM @extschema@.idgen_status() AS st;
    IF s.lease_until IS NOT NULL AND s.lease_until >= NEW.start_time THEN
        PERFORM idgen.yield_lease(
            format('layout epoch %s from %s was restored: leasing anew to read it', NEW.version, NEW.start_time),
            NULL, NULL, NULL, NULL);
    END IF;
    SELECT l.owner, l.region, l.worker, l.high_water INTO busy
    FROM idgen.worker_lease AS l
    WHERE l.high_water >= NEW.start_time
      AND (l.owner IS DISTINCT FROM s.owner OR l.generation IS DISTINCT FROM s.generation)
    ORDER BY l.high_water DESC LIMIT 1;
    IF FOUND OR s.logical_clock >= NEW.start_time THEN
        RAISE EXCEPTION 'cannot restore layout epoch % from %: this registry may have issued IDs after its start',
                        NEW.version, NEW.start_time
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = CASE WHEN FOUND
                                THEN format('Worker %s of region %s (holder %s) has a high-water mark of %s under the layout before it; its IDs could repeat under the restored one.',
                                            busy.worker, busy.region, coalesce(busy.owner, 'none'), busy.high_water)
                                ELSE format('This node has issued IDs up to %s under the layout before it; they could repeat under the restored one.',
                                            s.logical_clock) END,
                  HINT = 'Restore the registry into a server that has issued no IDs since the epoch''s start.';
    END IF;
    RETURN NEW;
END
$$;
