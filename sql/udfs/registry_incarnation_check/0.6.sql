CREATE OR REPLACE FUNCTION idgen.registry_incarnation_check(p_local boolean DEFAULT false,
    OUT incarnation text, OUT hold_until timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    v_since timestamptz;
    v_restart boolean;
    v_hold interval;
BEGIN
    SELECT * INTO r FROM idgen.running_incarnation();
    incarnation := format('%s/%s/%s', r.system_identifier, r.timeline,
                          floor(extract(epoch FROM r.postmaster_start) * 1000)::bigint);
    SELECT i.since, i.restart_only INTO v_since, v_restart FROM idgen.registry_incarnation AS i
    WHERE i.system_identifier = r.system_identifier AND i.timeline = r.timeline
      AND i.postmaster_start = r.postmaster_start;
    IF NOT FOUND THEN
        -- one caller records the change; the others wait for its row lock
        UPDATE idgen.registry_incarnation AS i
        SET system_identifier = r.system_identifier, timeline = r.timeline,
            postmaster_start = r.postmaster_start, since = idgen.clock(),
            restart_only = (i.system_identifier = r.system_identifier
                            AND i.timeline = r.timeline)
        WHERE (i.system_identifier, i.timeline, i.postmaster_start)
              IS DISTINCT FROM (r.system_identifier, r.timeline, r.postmaster_start)
        RETURNING i.since, i.restart_only INTO v_since, v_restart;
        IF FOUND THEN
            PERFORM idgen.audit('registry_incarnation',
                format('the registry is a new incarnation %s since %s: no block is granted during the hold',
                       incarnation, v_since));
        ELSE
            -- the first lease call ever: nothing was granted before it
            INSERT INTO idgen.registry_incarnation
            SELECT r.system_identifier, r.timeline, r.postmaster_start, NULL, false
            WHERE NOT EXISTS (SELECT 1 FROM idgen.registry_incarnation)
            ON CONFLICT DO NOTHING
            RETURNING since, restart_only INTO v_since, v_restart;
            IF NOT FOUND THEN
                SELECT i.since, i.restart_only INTO v_since, v_restart
                FROM idgen.registry_incarnation AS i;
            END IF;
        END IF;
    END IF;
    IF v_since IS NULL
       OR (p_local AND v_restart AND NOT EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                                     WHERE l.remote OR (l.node_sysid IS NULL AND l.generation > 0))) THEN
        hold_until := '-infinity';
        RETURN;
    END IF;
    SELECT greatest(max(l.ttl),
                    coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                             interval '30 s'))
           + coalesce(max(l.drift_allowance), interval '0')
      INTO v_hold
    FROM idgen.worker_lease AS l;
    -- the registry's clock may now run behind the one that granted
    hold_until := v_since + v_hold + idgen.registry_clock_allowance();
END
$$;
