CREATE OR REPLACE FUNCTION idgen.leased_out_regions() RETURNS integer[]
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
-- the server checked the list when it read it (settings.c): numbers,
-- blanks around them, or blanks only
SELECT coalesce(pg_catalog.array_agg(pg_catalog.btrim(r, E' \t')::integer)
                    FILTER (WHERE pg_catalog.btrim(r, E' \t') <> ''),
                '{}')
FROM pg_catalog.unnest(pg_catalog.string_to_array(
         pg_catalog.current_setting('idgen.leased_out_regions', true), ',')) AS r
$$;
