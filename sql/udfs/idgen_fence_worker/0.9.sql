CREATE OR REPLACE FUNCTION @extschema@.idgen_fence_worker(region integer, worker integer)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    old idgen.worker_lease;
    stops_at_once boolean;
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
    -- on the synchronous standby before the operator is told it is done (R6)
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
    -- the holder may issue on its own mark until its lease ends, unless it
    -- is this instance's own node, which hears of the fence at once: the
    -- next holder starts above that end plus its drift allowance.  The row
    -- keeps that end (fenced_until): no node is granted the block before
    -- it (idgen.acquire_node_lease), so a registry that loses this fence
    -- and the next grant (a failover, a restore) finds the fenced lease run
    -- out in its copy and refuses the fenced holder's renewal (R7's
    -- renewal rule), which would otherwise run on beside the lost grant
    -- a free row, or this instance's own node: nothing issues past now
    stops_at_once := old.lease_until IS NULL
                OR (NOT old.remote AND old.node_sysid = idgen.node_sysid()
                    AND old.timeline = (SELECT r.timeline FROM idgen.running_incarnation() AS r));
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL, generation = idgen.next_generation(x.generation),
        high_water = CASE WHEN stops_at_once THEN x.high_water
                          ELSE greatest(x.high_water,
                                        x.lease_until + coalesce(x.drift_allowance, interval '0')) END,
        fenced_until = CASE WHEN stops_at_once THEN x.fenced_until
                            ELSE greatest(x.fenced_until, x.lease_until) END
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker;
    PERFORM idgen.audit('worker_fenced',
        format('region %s worker %s generation %s -> %s, previous owner %s',
               region, worker, old.generation, old.generation + 1,
               coalesce(old.owner, 'none')));
    PERFORM idgen.wake_worker();
END
$$;
