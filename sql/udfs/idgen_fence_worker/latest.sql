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
