CREATE OR REPLACE FUNCTION @extschema@.idgen_handoff_region(region integer,
    OUT handoff_at timestamptz, OUT leases_left integer, OUT leases_end timestamptz,
    OUT released_at timestamptz)
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    p_region integer := $1;
    h idgen.held_region;
BEGIN
    PERFORM idgen.require_registry();
    IF pg_catalog.current_setting('idgen.parent_registry', true) = '' THEN
        RAISE EXCEPTION 'idgen_handoff_region() runs on a regional registry'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'This registry has no idgen.parent_registry: it leases no region from a root, so it has none to hand off.';
    END IF;
    -- waits for the grants and renewals under way in the region, which
    -- share-lock the row: the worker's final mark, read after every lease
    -- here has ended, covers them too
    SELECT * INTO h FROM idgen.held_region AS x WHERE x.region = p_region FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'region % is not owned by this registry', p_region
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'A registry hands off only a region of its idgen.owned_regions.';
    END IF;
    IF h.handoff_at IS NULL THEN
        UPDATE idgen.held_region AS x SET handoff_at = idgen.clock()
        WHERE x.region = p_region
        RETURNING x.handoff_at INTO h.handoff_at;
        PERFORM idgen.audit('region_handoff',
            format('region %s generation %s: no grant or renewal from now on', p_region,
                   coalesce(h.generation::text, 'none')));
    END IF;
    handoff_at := h.handoff_at;
    released_at := h.released_at;
    SELECT pg_catalog.count(*)::integer, pg_catalog.max(l.lease_until) INTO leases_left, leases_end
    FROM idgen.worker_lease AS l
    WHERE l.region = p_region AND l.owner IS NOT NULL AND l.lease_until > idgen.clock();
END
$$;
