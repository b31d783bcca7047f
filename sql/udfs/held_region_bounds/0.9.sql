CREATE OR REPLACE FUNCTION idgen.held_region_bounds(p_region integer, p_now timestamptz,
    p_allowance interval DEFAULT NULL,
    OUT lease_cap timestamptz, OUT start_floor timestamptz)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    h idgen.held_region;
    v_owned text;
    v_out_owner text;
    v_out_generation bigint;
    v_out_until timestamptz;
    v_out_row boolean;
BEGIN
    -- a registry without a parent keeps no rows: no bounds, as before 0.9,
    -- but a root grants nothing in a region it has leased out: those IDs
    -- are the regional registry's.  Shared, until the grant or renewal
    -- commits, with idgen_lease_region()'s exclusive lock: a region lease
    -- granted meanwhile sees this lease and starts above it
    IF NOT EXISTS (SELECT 1 FROM idgen.held_region) THEN
        PERFORM pg_catalog.pg_advisory_xact_lock_shared(7596555481923411969);
        SELECT x.owner, x.generation, x.lease_until INTO v_out_owner, v_out_generation, v_out_until
        FROM idgen.region_lease AS x WHERE x.region = p_region AND x.generation IS NOT NULL;
        v_out_row := FOUND;
        -- the setting says so whatever the rows say: a root restored from
        -- before the region's first grant has none
        IF v_out_row OR p_region = ANY (idgen.leased_out_regions()) THEN
            RAISE EXCEPTION 'region % is leased out to a regional registry by this root', p_region
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = CASE WHEN v_out_row
                          THEN format('This registry leased region %s to %s (generation %s%s); a root grants no node or outside lease in a region it leases out, whose IDs its regional registry hands out.',
                                      p_region, coalesce('"' || v_out_owner || '"', 'a regional registry that gave it back'),
                                      v_out_generation, coalesce(', until ' || v_out_until::text, ''))
                          ELSE format('idgen.leased_out_regions names region %s: this registry leases it to a regional registry, whose nodes hand out its IDs, so it grants no node or outside lease there.', p_region) END,
                      HINT = format('Point the node''s idgen.registry (or the gateway''s --registry) at the regional registry of region %s.', p_region);
        END IF;
        RETURN;
    END IF;
    -- share-locked until the grant or renewal commits: the worker marks the
    -- row not held (a release, a refusal) only after every lease granted
    -- under it is in the table, so the final mark it reads next covers it
    SELECT * INTO h FROM idgen.held_region AS r WHERE r.region = p_region FOR SHARE;
    IF NOT FOUND THEN
        SELECT string_agg(r.region::text, ', ' ORDER BY r.region) INTO v_owned
        FROM idgen.held_region AS r;
        RAISE EXCEPTION 'region % is not owned by this registry', p_region
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('This is a regional registry for region(s) %s (idgen.owned_regions); it grants no lease in another region.', v_owned),
                  HINT = 'Point the node''s idgen.registry (or the gateway''s --registry) at the registry of its own region.';
    END IF;
    -- a row copied from another registry (a dump restored elsewhere) is
    -- not this registry's lease: the owner name is derived from the system
    IF h.owner IS DISTINCT FROM idgen.region_owner() THEN
        RAISE EXCEPTION 'region % is leased from the root by "%", not by this registry ("%")',
                        p_region, h.owner, idgen.region_owner()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The row of idgen.held_region came from another registry; this one grants in the region only once its own background worker has leased it.';
    END IF;
    -- G6: a handoff stops every grant and renewal here, so that the
    -- leases granted in the region end and its final mark covers them
    IF h.handoff_at IS NOT NULL THEN
        RAISE EXCEPTION 'region % is handed off by this registry', p_region
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('idgen_handoff_region() stopped every grant and renewal in the region here at %s; %s',
                                  h.handoff_at,
                                  CASE WHEN h.released_at IS NULL
                                       THEN 'once the leases granted in it have ended, the region goes back to the root, and to the registry that leases it next.'
                                       ELSE format('it went back to the root at %s, and the next owner starts above %s.', h.released_at, h.final_mark) END),
                  HINT = 'Point the region''s nodes (idgen.registry) and gateways (--registry) at the registry that leases the region next.';
    END IF;
    IF h.generation IS NULL OR h.valid_until IS NULL THEN
        RAISE EXCEPTION 'region % lease is not held: %', p_region,
                        coalesce(h.last_error, 'not yet leased from the root registry')
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'A regional registry grants node and outside leases only inside a region lease it holds from its idgen.parent_registry (G4, docs/regions.md).',
                  HINT = 'See idgen_region_status() on this registry; the background worker leases the region again as soon as the root answers.';
    END IF;
    IF h.valid_until <= p_now THEN
        RAISE EXCEPTION 'region % lease lapsed at %', p_region, h.valid_until
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The region lease from the root was last renewed at %s%s; no lease in the region may end after it.',
                                  coalesce(h.renewed_at::text, 'never'),
                                  coalesce('; last error: ' || h.last_error, '')),
                  HINT = 'See idgen_region_status() on this registry; the background worker leases the region again as soon as the root answers.';
    END IF;
    -- the root's floor for the next owner allows the region's IDs
    -- node_allowance past the region lease's end (with this registry's
    -- skew to the root): a holder that may stamp further ahead of this
    -- registry's clock gets a lease that ends that much sooner
    lease_cap := h.valid_until
                 - greatest(coalesce(p_allowance, interval '0') - coalesce(h.node_allowance, interval '0'),
                            interval '0');
    -- a lease ending within the clock allowance could not be renewed (a
    -- renewal needs more than that left): granted anyway, each would be
    -- taken anew at a new generation, again and again, in the region
    -- lease's last moments
    IF lease_cap <= p_now + idgen.registry_clock_allowance() THEN
        RAISE EXCEPTION 'region % lease leaves no time for a lease: it would end at %', p_region, lease_cap
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('The region lease is valid until %s. A lease in it ends by then, sooner by what its holder''s drift allowance (%s) exceeds the one the region lease was asked for (%s, this registry''s idgen.max_drift plus idgen.max_skew), and one that would end within the clock allowance (%s) could not be renewed.',
                                  h.valid_until, coalesce(p_allowance, interval '0'),
                                  coalesce(h.node_allowance, interval '0'), idgen.registry_clock_allowance()),
                  HINT = 'See idgen_region_status() on this registry: the background worker renews the region lease while the root answers. A node whose idgen.max_drift plus idgen.max_skew exceeds the registry''s gets shorter leases.';
    END IF;
    start_floor := h.start_after;
END
$$;
