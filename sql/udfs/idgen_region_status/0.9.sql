CREATE OR REPLACE FUNCTION @extschema@.idgen_region_status(
    OUT region integer, OUT owner text, OUT held boolean, OUT generation bigint,
    OUT valid_until timestamptz, OUT remaining interval, OUT root_lease_until timestamptz,
    OUT start_after timestamptz, OUT leased_at timestamptz, OUT renewed_at timestamptz,
    OUT last_error text, OUT handoff_at timestamptz, OUT released_at timestamptz,
    OUT final_mark timestamptz)
    RETURNS SETOF record
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT h.region, h.owner,
       h.generation IS NOT NULL AND h.valid_until > idgen.clock()
           AND h.owner IS NOT DISTINCT FROM idgen.region_owner(),
       h.generation, h.valid_until,
       CASE WHEN h.valid_until > idgen.clock() THEN h.valid_until - idgen.clock() END,
       h.root_lease_until, h.start_after, h.leased_at, h.renewed_at, h.last_error,
       h.handoff_at, h.released_at, h.final_mark
FROM idgen.held_region AS h
ORDER BY h.region
$$;
