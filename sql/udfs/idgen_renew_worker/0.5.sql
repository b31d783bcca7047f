CREATE OR REPLACE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint)
    RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz := idgen.clock();
    until timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.worker_lease AS x
    SET lease_until = idgen.outside_lease_end(now, x.ttl),
        high_water = greatest(x.high_water, idgen.outside_lease_end(now, x.ttl)),
        renewed_at = now
    WHERE x.region = idgen_renew_worker.region AND x.worker = idgen_renew_worker.worker
      AND x.generation = idgen_renew_worker.generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL AND x.lease_until > now
    RETURNING x.lease_until INTO until;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % is not leased at generation %',
                        worker, region, generation
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The lease expired, was released, or was fenced; the holder must stop issuing IDs.',
                  HINT = 'Lease a worker again with idgen_lease_worker().';
    END IF;
    RETURN until;
END
$$;
