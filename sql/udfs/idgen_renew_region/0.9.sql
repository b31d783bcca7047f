CREATE OR REPLACE FUNCTION @extschema@.idgen_renew_region(region integer, generation bigint,
    owner text DEFAULT NULL, high_water timestamptz DEFAULT NULL,
    confirmed_epoch integer DEFAULT NULL)
    RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    p_region integer := $1;
    p_generation bigint := $2;
    p_owner text := $3;
    p_high_water timestamptz := $4;
    p_epoch integer := $5;
    v_now timestamptz;
    v_until timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    IF p_region IS NULL OR p_generation IS NULL THEN
        RAISE EXCEPTION 'idgen_renew_region() needs a region and a generation'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF p_epoch IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM idgen.epoch AS e WHERE e.version = p_epoch) THEN
        RAISE EXCEPTION 'layout epoch % does not exist', p_epoch
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A region owner confirms an epoch it has read from idgen.epoch on the root.';
    END IF;
    LOCK TABLE idgen.region_lease IN ROW EXCLUSIVE MODE;
    -- durability (R6): a renewal is on the synchronous standby before the
    -- regional registry counts on it
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
    v_now := idgen.clock();
    -- G1: only the holder's own grant (generations never repeat, so the
    -- generation alone names it; the owner, if given, must match too), and
    -- only while it runs for more than the clock allowance: a lease run out
    -- is never brought back, as the root, had it lost writes, may have
    -- granted it again.  G3: renewals go on through an incarnation hold
    -- (the rows are here).  G2: the owner's mark only ever rises
    UPDATE idgen.region_lease AS x
    -- G7: never into a layout epoch the owner has not confirmed, by the
    -- lease's end plus its allowance; the owner confirms it once it has
    -- passed it on, and the next renewal runs the full ttl again
    SET lease_until = greatest(x.lease_until,
                               least(v_now + x.ttl,
                                     idgen.unconfirmed_epoch_start(greatest(x.confirmed_epoch, p_epoch))
                                     - coalesce(x.allowance, interval '0') - interval '1 ms')),
        high_water = greatest(x.high_water, p_high_water),
        confirmed_epoch = greatest(x.confirmed_epoch, p_epoch),
        renewed_at = v_now
    WHERE x.region = p_region AND x.generation = p_generation
      AND x.owner IS NOT NULL AND (p_owner IS NULL OR x.owner = p_owner)
      AND x.lease_until > v_now + idgen.registry_clock_allowance()
    RETURNING x.lease_until INTO v_until;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%', format('region %s is not leased at generation %s%s', p_region, p_generation,
                                    CASE WHEN p_owner IS NULL THEN ''
                                         ELSE format(' by "%s"', p_owner) END)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The region lease ran out, was released, or was fenced; the regional registry must grant and renew no node lease in the region any more.',
                  HINT = 'Lease the region again with idgen_lease_region(); its nodes lease again above the new floor.';
    END IF;
    RETURN v_until;
END
$$;
