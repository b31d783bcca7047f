CREATE OR REPLACE FUNCTION idgen.region_hold_until() RETURNS timestamptz
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT coalesce(
    (SELECT i.since
            + greatest(interval '1 day', (SELECT max(l.ttl) FROM idgen.region_lease AS l))
            + greatest(idgen.registry_drift_allowance(interval '1 day'),
                       (SELECT max(l.allowance) FROM idgen.region_lease AS l))
            + idgen.registry_clock_allowance()
     FROM idgen.registry_incarnation AS i WHERE i.since IS NOT NULL),
    '-infinity')
$$;
