CREATE OR REPLACE FUNCTION idgen.leased_out_regions() RETURNS integer[]
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
-- the server checked the list when it read it (settings.c): numbers only
SELECT coalesce(pg_catalog.string_to_array(
           pg_catalog.current_setting('idgen.leased_out_regions', true), ',')::integer[],
       '{}')
$$;
