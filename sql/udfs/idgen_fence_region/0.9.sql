CREATE OR REPLACE FUNCTION @extschema@.idgen_fence_region(region integer)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    p_region integer := $1;
    old idgen.region_lease;
    v_gen bigint;
BEGIN
    PERFORM idgen.require_registry();
    LOCK TABLE idgen.region_lease IN ROW EXCLUSIVE MODE;
    SELECT * INTO old FROM idgen.region_lease AS x WHERE x.region = p_region FOR UPDATE;
    IF NOT FOUND OR old.generation = 0 THEN
        RAISE EXCEPTION 'region % has never been leased', p_region
            USING ERRCODE = 'undefined_object';
    END IF;
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
    -- the owner's renewals and release name the old generation and fail
    -- from now on (G1); its nodes may issue until their leases end, which
    -- is by the region lease's end (G4), so the next owner starts above
    -- that end plus the owner's allowance (G2).  The row keeps that end:
    -- nobody is granted the region before it (idgen_lease_region), so a
    -- root that loses this fence and the next grant finds the fenced lease
    -- run out in its copy and refuses the fenced owner's renewal (G1, G3)
    UPDATE idgen.region_lease AS x
    SET owner = NULL, generation = idgen.next_generation(x.generation),
        high_water = greatest(x.high_water,
                              x.lease_until + coalesce(x.allowance, interval '0'))
    WHERE x.region = p_region
    RETURNING x.generation INTO v_gen;
    PERFORM idgen.audit('region_fenced',
        format('region %s generation %s -> %s, previous owner %s', p_region, old.generation, v_gen,
               coalesce(old.owner, 'none')));
END
$$;
