CREATE OR REPLACE FUNCTION idgen.incarnation_hold(p_since timestamptz, p_restart boolean,
    OUT hold_until timestamptz, OUT local_exempt boolean)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    skew interval := idgen.registry_clock_allowance();
    v_lease_ttl interval := coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s');
    last_write timestamptz;
    v_ttl interval;
    v_allowance interval;
BEGIN
    SELECT least(p_since, coalesce(max(greatest(l.renewed_at, l.acquired_at, l.heartbeat_at)),
                                   p_since))
      INTO last_write
    FROM idgen.worker_lease AS l;
    UPDATE idgen.worker_lease AS l
    SET high_water = greatest(l.high_water, p_since + l.ttl + skew)
    WHERE l.owner IS NOT NULL AND l.node_sysid IS NULL AND l.ttl IS NOT NULL
      AND l.lease_until > last_write;
    SELECT greatest(v_lease_ttl, max(l.ttl) FILTER (WHERE l.owner IS NOT NULL AND l.node_sysid IS NOT NULL
                                              AND l.lease_until > last_write)),
           greatest(idgen.registry_drift_allowance(v_lease_ttl),
                    max(l.drift_allowance) FILTER (WHERE l.node_sysid IS NOT NULL
                                                     OR (l.owner IS NOT NULL
                                                         AND l.lease_until > last_write))),
           p_restart AND NOT coalesce(bool_or(l.owner IS NOT NULL
                                              AND (l.remote OR l.node_sysid IS NULL)
                                              AND (l.lease_until > last_write
                                                   OR l.lease_until + coalesce(l.drift_allowance, interval '0')
                                                      + skew > p_since)), false)
      INTO v_ttl, v_allowance, local_exempt
    FROM idgen.worker_lease AS l;
    hold_until := p_since + v_ttl + v_allowance + skew;
END
$$;
