CREATE OR REPLACE FUNCTION idgen.note_restore(p_ttl interval, p_allowance interval) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    v_now timestamptz := idgen.clock();
    v_lease_ttl interval := coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s');
    v_hold timestamptz;
BEGIN
    -- only the registry database: elsewhere nobody leases by these rows
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database() THEN
        RETURN NULL;
    END IF;
    SELECT * INTO r FROM idgen.running_incarnation();
    v_hold := v_now + greatest(v_lease_ttl, p_ttl)
              + greatest(idgen.registry_drift_allowance(v_lease_ttl), p_allowance)
              + idgen.registry_clock_allowance();
    UPDATE idgen.registry_incarnation AS x
    SET system_identifier = r.system_identifier, timeline = r.timeline,
        postmaster_start = r.postmaster_start, since = v_now, restart_only = false,
        hold_until = greatest(x.hold_until, v_hold), local_exempt = false,
        generation_floor = greatest(x.generation_floor,
                                    floor(extract(epoch FROM greatest(x.hold_until, v_hold))
                                          * 1000000)::bigint)
    RETURNING x.hold_until INTO v_hold;
    IF NOT FOUND THEN
        INSERT INTO idgen.registry_incarnation (system_identifier, timeline, postmaster_start,
                                                since, restart_only, hold_until, local_exempt,
                                                generation_floor)
        VALUES (r.system_identifier, r.timeline, r.postmaster_start, v_now, false, v_hold, false,
                floor(extract(epoch FROM v_hold) * 1000000)::bigint);
    END IF;
    RETURN v_hold;
END
$$;
