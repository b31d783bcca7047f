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
            clock_offset_ms = NEW.clock_offset_ms, node_state = NEW.node_state
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
