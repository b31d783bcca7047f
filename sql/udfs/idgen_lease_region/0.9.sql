CREATE OR REPLACE FUNCTION @extschema@.idgen_lease_region(owner text, region integer, ttl interval,
    allowance interval DEFAULT NULL, known_epoch integer DEFAULT NULL,
    OUT generation bigint, OUT lease_until timestamptz, OUT start_after timestamptz)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    p_owner text := $1;
    p_region integer := $2;
    p_ttl interval := $3;
    p_allowance interval := $4;
    p_known integer := $5;
    v_unknown timestamptz;
    v_allow interval;
    v_now timestamptz;
    v_hold timestamptz;
    v_region_bits integer;
    ctl text := substring(p_owner FROM E'[\\x01-\\x1f\\x7f]');
    r idgen.region_lease;
BEGIN
    PERFORM idgen.require_registry();
    IF p_owner IS NULL OR p_region IS NULL OR p_ttl IS NULL THEN
        RAISE EXCEPTION 'idgen_lease_region() needs an owner, a region and a ttl'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- in seconds, as the owner counts its validity on its monotonic clock:
    -- a day added to the root's clock in a time zone with daylight saving
    -- time may be 23 hours long (G1)
    p_ttl := make_interval(secs => extract(epoch FROM p_ttl));
    p_allowance := make_interval(secs => extract(epoch FROM p_allowance));
    IF p_owner = '' OR ctl IS NOT NULL THEN
        RAISE EXCEPTION 'invalid region owner: "%"', p_owner
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A region owner is the regional registry''s non-empty, printable name; it appears in idgen.regions and the audit log.';
    END IF;
    -- G1's validity must leave the regional registry time to renew across
    -- a slow link to the root; DESIGN: at least 10 s
    IF p_ttl < interval '10 s' THEN
        RAISE EXCEPTION 'a region lease needs a ttl of at least 10 s, not %', p_ttl
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A regional registry grants node leases only inside its region lease and renews the region well before it ends; a shorter region lease leaves it no time to do so.',
                  HINT = 'Set idgen.region_lease_ttl on the regional registry to 10 s or more (the default is 1 day).';
    END IF;
    -- G3: the hold after a change of incarnation lasts the longest lease the
    -- root may have lost, so the longest ttl is bounded
    IF p_ttl > interval '1 day' THEN
        RAISE EXCEPTION 'a region lease''s ttl must not exceed 1 day, not %', p_ttl
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'After a restart, failover or restore the root grants no region until every region lease it may have lost has run out; the longest ttl bounds that hold.';
    END IF;
    -- G3: a grant the root loses in a failover or restore leaves IDs up to
    -- its allowance past its end, which the hold must cover without knowing
    -- it (idgen.region_hold_until()).  3 hours covers the most any honest
    -- setting asks: the nodes' max_drift (at most 1 h) plus their max_skew
    -- or lease ttl (at most 1 h), plus the owner's skew to the root
    IF p_allowance < interval '0' OR p_allowance > interval '3 hours' THEN
        RAISE EXCEPTION 'a region owner''s allowance must lie between 0 and 3 hours, not %', p_allowance
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'The allowance is how far past its region lease''s end the IDs of the region''s nodes may lie (their max_drift plus max_skew, and the regional registry''s skew to the root); the root''s hold after a failover covers at most 3 hours of it.';
    END IF;
    IF p_known IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM idgen.epoch AS e WHERE e.version = p_known) THEN
        RAISE EXCEPTION 'layout epoch % does not exist', p_known
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A region owner names the newest layout epoch it has read from idgen.epoch on the root.';
    END IF;
    -- the narrowest region field of the layout in force and every later one
    SELECT pg_catalog.min(e.region_bits) INTO v_region_bits FROM idgen.epoch AS e
    WHERE e.version >= (SELECT pg_catalog.max(x.version) FROM idgen.epoch AS x
                        WHERE x.start_time <= idgen.clock());
    IF p_region < 0 OR p_region >= (1 << v_region_bits) THEN
        RAISE EXCEPTION 'region % does not exist in the layout', p_region
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('The layout in force and the layouts scheduled after it have %s region bits: regions 0 to %s.',
                                  v_region_bits, (1 << v_region_bits) - 1);
    END IF;
    -- a root knows which regions it leases out from its settings, which a
    -- restore of its data leaves alone: restored from before a region's
    -- first grant, its rows would not say so (idgen.leased_out_regions())
    IF pg_catalog.current_setting('idgen.parent_registry', true) <> '' THEN
        RAISE EXCEPTION 'cannot lease a region from a regional registry'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'Region leases nest two levels deep: a regional registry (idgen.parent_registry is set) leases its own regions from the root and leases none on.',
                  HINT = 'Point the regional registry''s idgen.parent_registry at the root registry.';
    END IF;
    IF NOT p_region = ANY (idgen.leased_out_regions()) THEN
        RAISE EXCEPTION 'region % is not leased out by this registry', p_region
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('idgen.leased_out_regions is %s. A root registry names there every region it leases to regional registries, so that, restored from a backup taken before a region was first leased, it still grants its own nodes nothing there and schedules no layout switch the region could miss.',
                                  coalesce('"' || nullif(pg_catalog.current_setting('idgen.leased_out_regions', true), '') || '"', 'empty')),
                  HINT = format('Add region %s to idgen.leased_out_regions in the root''s postgresql.conf and reload it.', p_region);
    END IF;
    -- an upgrade or a restore that locks the table against writers, and a
    -- layout being scheduled, are ordered before or after this grant
    LOCK TABLE idgen.region_lease IN ROW EXCLUSIVE MODE;
    INSERT INTO idgen.region_lease AS x (region) VALUES (p_region) ON CONFLICT DO NOTHING;
    -- calls for one region run one at a time: two owners racing for it
    -- meet here, and the second sees the first one's grant
    SELECT * INTO r FROM idgen.region_lease AS x WHERE x.region = p_region FOR UPDATE;
    v_now := idgen.clock();

    -- G3 (R7 one level up): after the root's incarnation changed, no region
    -- is granted until every region lease it may have lost has run out,
    -- for the same owner too, whose lease here may be an older copy
    PERFORM idgen.registry_incarnation_check();
    v_hold := idgen.region_hold_until();
    IF v_hold > v_now THEN
        RAISE EXCEPTION 'the root grants no region until %', v_hold
            USING ERRCODE = 'IR006',
                  DETAIL = 'The root is a new incarnation (restarted, promoted or restored), so it may have lost region leases it granted; it grants no region until those have run out. Renewals of the region leases it has go on.',
                  HINT = 'Retry after that time; a regional registry that still holds its lease renews it with idgen_renew_region().';
    END IF;
    -- durability (R6): a grant is on the synchronous standby before the
    -- regional registry trusts it
    IF current_setting('synchronous_commit') IN ('off', 'local') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;

    -- G7: an epoch the owner has not read must not apply while it holds
    -- the region (its lease ends before it, less the allowance); one that
    -- applies already, or within the allowance, leaves no lease to grant
    v_unknown := idgen.unconfirmed_epoch_start(p_known);
    -- the larger of the allowances the two paths below may keep
    v_allow := greatest(coalesce(p_allowance, idgen.registry_drift_allowance(p_ttl)), r.allowance);
    IF v_unknown - v_allow - interval '1 ms' <= v_now THEN
        RAISE EXCEPTION 'region owner "%" has not read layout epoch %', p_owner,
                        (SELECT min(e.version) FROM idgen.epoch AS e WHERE e.version > coalesce(p_known, 1))
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('That epoch applies from %s, within the owner''s allowance (%s) of now; a region owner must issue in every layout that applies while it holds the region.',
                                  v_unknown, v_allow),
                  HINT = 'Read idgen.epoch on the root, pass its layouts on to the regional registry, and lease again naming the newest as known_epoch.';
    END IF;

    -- G1: the same owner (its name survives its restarts and failovers)
    -- gets its running lease back, renewed, at the same generation and
    -- above the same floor: it does not wait out its own lease.  By the
    -- renewal rule: never a lease that ends within the clock allowance,
    -- which the root, had it lost writes, might have granted again
    IF r.owner = p_owner AND r.lease_until > v_now + idgen.registry_clock_allowance() THEN
        -- G7: a larger allowance would carry the running lease's IDs past
        -- its end, which the root's switch check counted with the old one
        IF p_allowance > coalesce(r.allowance, interval '0')
           AND r.lease_until + p_allowance >= v_unknown THEN
            RAISE EXCEPTION 'cannot raise region %''s allowance to %: layout epoch % applies from %',
                            p_region, p_allowance,
                            (SELECT min(e.version) FROM idgen.epoch AS e WHERE e.version > coalesce(p_known, 1)),
                            v_unknown
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = format('The running lease ends at %s; with that allowance its IDs could reach the new layout''s start.', r.lease_until),
                      HINT = 'Lease again with the allowance it has, or after the switch.';
        END IF;
        UPDATE idgen.region_lease AS x
        SET lease_until = greatest(x.lease_until,
                                   least(v_now + p_ttl, v_unknown - v_allow - interval '1 ms')),
            ttl = p_ttl,
            allowance = greatest(x.allowance, coalesce(p_allowance, x.allowance)),
            confirmed_epoch = greatest(x.confirmed_epoch, p_known),
            renewed_at = v_now
        WHERE x.region = p_region
        RETURNING x.generation, x.lease_until, x.grant_floor
        INTO generation, lease_until, start_after;
        PERFORM idgen.audit('region_lease_resumed',
            format('region %s generation %s owner %s until %s', p_region, generation, p_owner, lease_until));
        RETURN;
    END IF;

    -- G1: a region another owner holds, not run out on the root's clock,
    -- is not granted; nor one fenced before its fenced lease's end, to
    -- nobody, its owner neither: a root that lost the fence and this grant
    -- must find that lease run out in its copy, or the fenced owner would
    -- renew it there (G3 lets renewals go on) while this one holds it
    IF r.owner IS NOT NULL AND r.lease_until > v_now THEN
        RAISE EXCEPTION 'region % is leased to "%" until %', p_region, r.owner, r.lease_until
            USING ERRCODE = 'object_in_use',
                  DETAIL = 'A region has one owner at a time.',
                  HINT = 'Wait for the lease to end; if its owner is gone for good, an operator may fence it with idgen_fence_region().';
    ELSIF r.lease_until > v_now THEN
        RAISE EXCEPTION 'region % was fenced: nobody is granted it until %', p_region, r.lease_until
            USING ERRCODE = 'object_in_use',
                  DETAIL = 'A fence stops the owner''s renewals at once; the region is granted again once the fenced lease has run out on the root''s clock, and the next owner starts above that end plus its allowance.',
                  HINT = 'Retry after that time.';
    END IF;

    -- G2: a lease not given back (run out) leaves IDs up to its end plus
    -- its owner's allowance; a released or fenced one left its mark in
    -- high_water.  G3: the first grants after a hold start above its end
    -- and above the root's own node and outside leases in the region:
    -- those granted or renewed before this lock are in the table, and
    -- none after it (idgen.held_region_bounds refuses a leased region)
    PERFORM pg_catalog.pg_advisory_xact_lock(7596555481923411969);
    start_after := greatest(coalesce(r.high_water, '-infinity'),
                            r.lease_until + coalesce(r.allowance, interval '0'),
                            CASE WHEN v_hold > '-infinity' THEN v_hold END,
                            (SELECT pg_catalog.max(greatest(l.high_water,
                                        CASE WHEN l.owner IS NOT NULL
                                             THEN l.lease_until + coalesce(l.drift_allowance, interval '0') END))
                             FROM idgen.worker_lease AS l WHERE l.region = p_region));
    UPDATE idgen.region_lease AS x
    SET owner = p_owner, generation = idgen.next_generation(x.generation),
        lease_until = least(v_now + p_ttl, v_unknown - v_allow - interval '1 ms'), ttl = p_ttl,
        allowance = coalesce(p_allowance, idgen.registry_drift_allowance(p_ttl)),
        high_water = start_after, grant_floor = start_after,
        confirmed_epoch = p_known, acquired_at = v_now, renewed_at = v_now
    WHERE x.region = p_region
    RETURNING x.generation, x.lease_until INTO generation, lease_until;
    PERFORM idgen.audit('region_leased',
        format('region %s generation %s owner %s until %s above %s%s', p_region, generation, p_owner,
               lease_until, start_after,
               CASE WHEN r.owner IS NOT NULL THEN format(', taken over from %s (generation %s, until %s)',
                                                         r.owner, r.generation, r.lease_until)
                    ELSE '' END));
END
$$;
