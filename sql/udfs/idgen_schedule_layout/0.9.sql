CREATE OR REPLACE FUNCTION @extschema@.idgen_schedule_layout(applies_at timestamptz, region_bits integer,
                                                 worker_bits integer, seq_bits integer)
    RETURNS integer
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    ttl interval := pg_catalog.current_setting('idgen.lease_ttl')::interval;
    warning interval := pg_catalog.current_setting('idgen.horizon_warning')::interval;
    per_node integer := pg_catalog.current_setting('idgen.workers_per_node')::integer;
    my_region integer := pg_catalog.current_setting('idgen.region_id')::integer;
    my_worker integer := pg_catalog.current_setting('idgen.worker_id')::integer;
    layout text;
    now_ts timestamptz;
    last_lease timestamptz;
    last_issued timestamptz;
    earliest timestamptz;
    region_end timestamptz;
    region_list text;
    region_hold timestamptz;
    bad record;
    plan record;
BEGIN
    IF applies_at IS NULL OR region_bits IS NULL OR worker_bits IS NULL OR seq_bits IS NULL THEN
        RAISE EXCEPTION 'idgen_schedule_layout() needs a time and three field widths, none NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM idgen.require_registry();
    -- G7: layout epochs are global, so one registry schedules them
    IF pg_catalog.current_setting('idgen.parent_registry', true) <> '' THEN
        RAISE EXCEPTION 'cannot schedule a layout on a regional registry'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Layout epochs are global: the root registry (idgen.parent_registry) schedules them, and this registry takes them from it when it renews its region leases and passes them on to its nodes.',
                  HINT = 'Run idgen_schedule_layout() on the root registry.';
    END IF;
    layout := pg_catalog.format('%s/%s/%s (region/worker/sequence bits)',
                                region_bits, worker_bits, seq_bits);
    IF region_bits NOT BETWEEN 0 AND 22 OR worker_bits NOT BETWEEN 0 AND 22
       OR seq_bits NOT BETWEEN 1 AND 22 THEN
        RAISE EXCEPTION 'cannot schedule layout %: each field has 0 to 22 bits, the sequence at least 1', layout
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    applies_at := pg_catalog.date_trunc('milliseconds', applies_at);

    LOCK TABLE idgen.epoch IN EXCLUSIVE MODE;
    LOCK TABLE idgen.worker_lease IN SHARE MODE;
    -- region grants and renewals wait: each reads the epochs this adds
    LOCK TABLE idgen.region_lease IN SHARE MODE;

    now_ts := idgen.clock();
    SELECT pg_catalog.max(l.lease_until) FILTER (WHERE l.owner IS NOT NULL),
           pg_catalog.max(l.high_water)
      INTO last_lease, last_issued
      FROM idgen.worker_lease AS l;
    earliest := GREATEST(now_ts + 2 * ttl,
                         COALESCE(last_lease, now_ts) + ttl,
                         COALESCE(last_issued, now_ts) + interval '1 millisecond');
    IF applies_at < earliest THEN
        RAISE EXCEPTION 'cannot schedule layout % from %: that is too soon', layout, applies_at
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('Every node must learn of a new layout before it applies, and nodes learn of it when they renew their leases: the latest lease runs until %s and IDs may have been issued up to %s, with idgen.lease_ttl = %s.',
                                             COALESCE(last_lease::text, 'none'), COALESCE(last_issued::text, 'none'), ttl),
                  HINT = pg_catalog.format('Schedule it at %s or later.', earliest);
    END IF;

    -- G7 on a root registry: a region owner learns a new layout when it
    -- renews, and one that has not may issue in its region until its
    -- lease's end plus its allowance, a fenced or lapsed lease too; so the
    -- switch comes after every such end.  After a change of the root's
    -- incarnation, also after every lease it may have lost (its hold).
    -- The end is the lease's end plus its allowance, or the mark a release
    -- or a fence left (a released region's node leases run to it)
    SELECT pg_catalog.string_agg(pg_catalog.format('%s (%s, until %s)', l.region,
                                                   COALESCE('"' || l.owner || '"', 'released, fenced or run out'),
                                                   GREATEST(l.lease_until + COALESCE(l.allowance, interval '0'),
                                                            l.high_water)),
                                 ', ' ORDER BY l.region),
           pg_catalog.max(GREATEST(l.lease_until + COALESCE(l.allowance, interval '0'), l.high_water))
      INTO region_list, region_end
      FROM idgen.region_lease AS l
     WHERE GREATEST(l.lease_until + COALESCE(l.allowance, interval '0'), l.high_water) >= applies_at;
    IF region_list IS NOT NULL THEN
        RAISE EXCEPTION 'cannot schedule layout % from %: region leases run past it', layout, applies_at
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('A regional registry learns of a new layout when it renews its region lease, and until then its region may issue in the old one up to the lease''s end plus its allowance: region %s.', region_list),
                  HINT = pg_catalog.format('Schedule it after %s.', region_end);
    END IF;
    -- a region leased to a regional registry must fit the new layout too
    SELECT l.region, l.owner INTO bad
      FROM idgen.region_lease AS l
     WHERE l.region >= (1 << region_bits) AND (l.owner IS NOT NULL OR l.lease_until IS NOT NULL)
     ORDER BY l.region
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'cannot schedule layout %: region % does not fit it', layout, bad.region
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('Region %s is leased to %s; the new layout holds regions 0-%s.',
                                             bad.region, COALESCE('"' || bad.owner || '"', 'an owner whose fenced or run-out lease has not ended'),
                                             (1 << region_bits) - 1),
                  HINT = 'Keep enough region bits for every region leased from this root.';
    END IF;

    -- a root by its setting too: restored from before its first region
    -- grant, it has no row of the leases its regions still hold
    IF EXISTS (SELECT 1 FROM idgen.region_lease)
       OR pg_catalog.cardinality(idgen.leased_out_regions()) > 0 THEN
        PERFORM idgen.registry_incarnation_check();
        region_hold := idgen.region_hold_until();
        IF region_hold >= applies_at THEN
            RAISE EXCEPTION 'cannot schedule layout % from %: the root may have lost region leases that run past it', layout, applies_at
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = 'This root registry is a new incarnation (restarted, promoted or restored), so region leases it granted may be missing here; their owners would not learn of the layout before it applies.',
                      HINT = pg_catalog.format('Schedule it after %s.', region_hold);
        END IF;
    END IF;

    SELECT l.region, l.worker, l.owner INTO bad
      FROM idgen.worker_lease AS l
     WHERE l.owner IS NOT NULL
       AND (l.region >= (1 << region_bits) OR l.worker >= (1 << worker_bits))
     ORDER BY l.region, l.worker
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'cannot schedule layout %: worker % of region % does not fit it', layout, bad.worker, bad.region
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('The worker is leased by %s; the new layout holds regions 0-%s and workers 0-%s.',
                                             bad.owner, (1 << region_bits) - 1, (1 << worker_bits) - 1),
                  HINT = 'Keep enough region and worker bits for every node of the fleet.';
    END IF;
    IF my_region >= (1 << region_bits) OR my_worker >= (1 << worker_bits)
       OR per_node > (1 << worker_bits) THEN
        RAISE EXCEPTION 'cannot schedule layout %: this node''s settings do not fit it', layout
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('idgen.region_id = %s, idgen.worker_id = %s and idgen.workers_per_node = %s; the new layout holds regions 0-%s and %s workers.',
                                             my_region, my_worker, per_node, (1 << region_bits) - 1, 1 << worker_bits);
    END IF;

    SELECT * INTO plan FROM idgen.plan_layout(applies_at, region_bits, worker_bits, seq_bits);
    IF plan.horizon < applies_at + warning THEN
        RAISE EXCEPTION 'cannot schedule layout %: its time field runs out at %', layout, plan.horizon
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('To sort above the IDs before it, its time field starts at %s; %s time bits then end within idgen.horizon_warning (%s) of %s.',
                                             plan.epoch_start, plan.time_bits, warning, applies_at),
                  HINT = 'Put fewer bits below the time field.';
    END IF;

    INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits,
                             worker_bits, seq_bits, horizon)
    VALUES (plan.version, applies_at, plan.epoch_start, plan.time_bits, region_bits,
            worker_bits, seq_bits, plan.horizon);
    PERFORM idgen.audit('schedule_layout',
                        pg_catalog.format('epoch %s: layout %s from %s, time field from %s, horizon %s, first ID %s',
                                          plan.version, layout, applies_at, plan.epoch_start,
                                          plan.horizon, plan.boundary));
    PERFORM idgen.wake_worker();
    RETURN plan.version;
END
$$;
