CREATE OR REPLACE FUNCTION idgen.region_hold_until() RETURNS timestamptz
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
-- hours, not days: a day added in a time zone with daylight saving time
-- may be 23 hours long
SELECT coalesce(
    (SELECT i.since
            + greatest(interval '24 hours', (SELECT max(l.ttl) FROM idgen.region_lease AS l))
            + greatest(interval '3 hours', idgen.registry_drift_allowance(interval '24 hours'),
                       (SELECT max(l.allowance) FROM idgen.region_lease AS l))
            + idgen.registry_clock_allowance()
     FROM idgen.registry_incarnation AS i WHERE i.since IS NOT NULL),
    '-infinity')
$$;
