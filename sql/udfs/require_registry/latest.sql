CREATE OR REPLACE FUNCTION idgen.require_registry() RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database();
    IF coalesce(current_setting('idgen.registry', true), '') <> '' THEN
        RAISE EXCEPTION 'this node leases worker ids from a shared registry'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.registry is set, so worker and range leases are made in the registry, where the whole fleet sees them; a lease taken on a node could collide with another node''s IDs.',
                  HINT = format('Call this function in the registry (%s).',
                                (SELECT s.registry FROM @extschema@.idgen_status() AS s));
    END IF;
END
$$;
