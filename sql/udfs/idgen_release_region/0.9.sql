CREATE OR REPLACE FUNCTION @extschema@.idgen_release_region(region integer, generation bigint,
    owner text DEFAULT NULL, high_water timestamptz DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    p_region integer := $1;
    p_generation bigint := $2;
    p_owner text := $3;
    p_high_water timestamptz := $4;
    v_mark timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    IF p_region IS NULL OR p_generation IS NULL THEN
        RAISE EXCEPTION 'idgen_release_region() needs a region and a generation'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    LOCK TABLE idgen.region_lease IN ROW EXCLUSIVE MODE;
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
    -- G6/G2: a release leaves its final mark, at or above every ID issued
    -- in the region under this lease (the regional registry's
    -- max(high_water, lease_until + allowance) of the node leases it
    -- waited for); the next owner starts above it.  Without one, nothing
    -- is known of where the region's IDs stopped: the mark covers the whole
    -- lease and its allowance, as a takeover would.  Never lowered
    UPDATE idgen.region_lease AS x
    SET owner = NULL, lease_until = NULL,
        high_water = greatest(x.high_water,
                              coalesce(p_high_water, x.lease_until + coalesce(x.allowance, interval '0')))
    WHERE x.region = p_region AND x.generation = p_generation
      AND x.owner IS NOT NULL AND (p_owner IS NULL OR x.owner = p_owner)
    RETURNING x.high_water INTO v_mark;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('region %s is not leased at generation %s%s', p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The region lease ran out, was released, or was fenced.';
    END IF;
    PERFORM idgen.audit('region_released',
        format('region %s generation %s%s: the next owner starts above %s', p_region, p_generation,
               CASE WHEN p_high_water IS NULL THEN ' without a final mark'
                    ELSE format(' final mark %s', p_high_water) END, v_mark));
END
$$;
