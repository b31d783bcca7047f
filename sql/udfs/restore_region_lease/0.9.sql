CREATE OR REPLACE FUNCTION idgen.restore_region_lease() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    e idgen.region_lease;
BEGIN
    LOCK TABLE idgen.region_lease IN SHARE ROW EXCLUSIVE MODE;
    -- the root the dump came from may have granted and renewed after it:
    -- a change of incarnation, so region grants wait out the hold (G3)
    PERFORM idgen.note_restore(NULL, NULL);
    SELECT * INTO e FROM idgen.region_lease AS x WHERE x.region = NEW.region;
    IF NOT FOUND THEN
        RETURN NEW;
    END IF;
    -- the same lease, an older or newer copy of it: the later of each
    IF NEW.owner IS NOT NULL AND NEW.owner = e.owner AND NEW.generation = e.generation THEN
        UPDATE idgen.region_lease AS x
        SET lease_until = greatest(x.lease_until, NEW.lease_until),
            high_water = greatest(x.high_water, NEW.high_water),
            allowance = greatest(x.allowance, NEW.allowance),
            confirmed_epoch = greatest(x.confirmed_epoch, NEW.confirmed_epoch),
            renewed_at = greatest(x.renewed_at, NEW.renewed_at)
        WHERE x.region = NEW.region;
        RETURN NULL;
    END IF;
    -- two histories of one region: neither holder is kept (each is refused
    -- at its next renewal and leases again after the hold), the region is
    -- granted after neither lease's end, as after a fence, the mark covers
    -- both leases and their allowances, and the generation goes on above both
    UPDATE idgen.region_lease AS x
    SET owner = NULL, lease_until = greatest(x.lease_until, NEW.lease_until),
        generation = greatest(x.generation, NEW.generation) + 1,
        high_water = greatest(x.high_water, NEW.high_water,
                              x.lease_until + coalesce(x.allowance, interval '0'),
                              NEW.lease_until + coalesce(NEW.allowance, interval '0')),
        allowance = greatest(x.allowance, NEW.allowance),
        ttl = greatest(x.ttl, NEW.ttl)
    WHERE x.region = NEW.region;
    RAISE WARNING 'restored region lease of region % merged with the root''s own: neither holder keeps it', NEW.region
        USING DETAIL = format('The root had generation %s (owner %s), the dump generation %s (owner %s).',
                              e.generation, coalesce(e.owner, 'none'), NEW.generation, coalesce(NEW.owner, 'none'));
    RETURN NULL;
END
$$;
