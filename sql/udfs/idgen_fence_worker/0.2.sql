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
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL, generation = x.generation + 1
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker;
    PERFORM idgen.audit('worker_fenced',
        format('region %s worker %s generation %s -> %s, previous owner %s',
               region, worker, old.generation, old.generation + 1,
               coalesce(old.owner, 'none')));
    PERFORM idgen.wake_worker();
END
$$;
