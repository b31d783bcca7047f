CREATE OR REPLACE FUNCTION idgen.registry_incarnation_check(p_local boolean DEFAULT false,
    OUT incarnation text, OUT hold_until timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    r record;
    i idgen.registry_incarnation;
    h record;
    v_hold interval;
    v_region_history boolean := false;
BEGIN
    SELECT * INTO r FROM idgen.running_incarnation();
    incarnation := format('%s/%s/%s', r.system_identifier, r.timeline,
                          floor(extract(epoch FROM r.postmaster_start) * 1000)::bigint);
    SELECT * INTO i FROM idgen.registry_incarnation AS x
    WHERE x.system_identifier = r.system_identifier AND x.timeline = r.timeline
      AND x.postmaster_start = r.postmaster_start;
    IF NOT FOUND THEN
        -- one caller records the change; the others wait for its row lock
        UPDATE idgen.registry_incarnation AS x
        SET system_identifier = r.system_identifier, timeline = r.timeline,
            postmaster_start = r.postmaster_start, since = idgen.clock(),
            restart_only = (x.system_identifier = r.system_identifier
                            AND x.timeline = r.timeline),
            hold_until = NULL, local_exempt = false
        WHERE (x.system_identifier, x.timeline, x.postmaster_start)
              IS DISTINCT FROM (r.system_identifier, r.timeline, r.postmaster_start)
        RETURNING x.* INTO i;
        IF FOUND THEN
            -- judged once, from the rows as the change found them
            SELECT * INTO h FROM idgen.incarnation_hold(i.since, i.restart_only);
            UPDATE idgen.registry_incarnation AS x
            SET hold_until = h.hold_until, local_exempt = h.local_exempt,
                generation_floor = greatest(x.generation_floor,
                                            floor(extract(epoch FROM h.hold_until) * 1000000)::bigint)
            RETURNING x.* INTO i;
            PERFORM idgen.audit('registry_incarnation',
                format('the registry is a new incarnation %s since %s: no block is granted until %s%s',
                       incarnation, i.since, i.hold_until,
                       CASE WHEN i.local_exempt THEN ' but to its own node' ELSE '' END));
        ELSE
            -- a root's region leases are history too (G3).  A node's role,
            -- granted by 0.8's idgen_grant_node(), may not read them: its
            -- first call ever judges by the worker rows alone (on a root
            -- the first call is its own node's or a region call, which
            -- read them)
            IF has_table_privilege('idgen.region_lease', 'SELECT') THEN
                SELECT EXISTS (SELECT 1 FROM idgen.region_lease AS l
                               WHERE l.generation > 0 OR l.high_water IS NOT NULL)
                  INTO v_region_history;
            END IF;
            -- the first lease call ever: nothing was granted before it,
            -- unless the lease table has a history already (a registry
            -- database restored or moved without its incarnation row, which
            -- is not dumped): then this is a change like any other
            INSERT INTO idgen.registry_incarnation (system_identifier, timeline, postmaster_start,
                                                    since, restart_only)
            SELECT r.system_identifier, r.timeline, r.postmaster_start,
                   CASE WHEN v_region_history
                             OR EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                                        WHERE l.generation > 0 OR l.high_water IS NOT NULL)
                        THEN idgen.clock() END,
                   false
            WHERE NOT EXISTS (SELECT 1 FROM idgen.registry_incarnation)
            ON CONFLICT DO NOTHING
            RETURNING * INTO i;
            IF FOUND AND i.since IS NOT NULL THEN
                SELECT * INTO h FROM idgen.incarnation_hold(i.since, false);
                UPDATE idgen.registry_incarnation AS x
                SET hold_until = h.hold_until, local_exempt = false,
                    generation_floor = greatest(x.generation_floor,
                                                floor(extract(epoch FROM h.hold_until) * 1000000)::bigint)
                RETURNING x.* INTO i;
                PERFORM idgen.audit('registry_incarnation',
                    format('the registry database has leases but no incarnation: it was restored or moved, so it is a new incarnation %s since %s and no block is granted until %s',
                           incarnation, i.since, i.hold_until));
            ELSIF NOT FOUND THEN
                SELECT * INTO i FROM idgen.registry_incarnation AS x;
            END IF;
        END IF;
    END IF;
    IF i.since IS NULL OR (p_local AND i.local_exempt) THEN
        hold_until := '-infinity';
    ELSIF i.hold_until IS NOT NULL THEN
        hold_until := i.hold_until;
    ELSIF p_local AND i.restart_only
          AND NOT EXISTS (SELECT 1 FROM idgen.worker_lease AS l
                          WHERE l.remote OR (l.node_sysid IS NULL AND l.generation > 0)) THEN
        -- a change recorded before 0.7 (hold_until NULL): its rule
        hold_until := '-infinity';
    ELSE
        SELECT greatest(max(l.ttl),
                        coalesce(nullif(current_setting('idgen.lease_ttl', true), '')::interval,
                                 interval '30 s'))
               + coalesce(max(l.drift_allowance), interval '0')
          INTO v_hold
        FROM idgen.worker_lease AS l;
        hold_until := i.since + v_hold + idgen.registry_clock_allowance();
    END IF;
END
$$;
