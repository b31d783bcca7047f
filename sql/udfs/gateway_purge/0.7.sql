CREATE OR REPLACE FUNCTION idgen.gateway_purge(p_limit integer) RETURNS integer
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
#variable_conflict use_column
DECLARE
    t_now timestamptz := clock_timestamp();
    retention interval := idgen.request_retention();
    win bigint := floor(extract(epoch FROM t_now) / greatest(extract(epoch FROM retention), 1));
    gone integer;
BEGIN
    DELETE FROM idgen.gateway_request WHERE ctid = ANY (ARRAY(
        SELECT g.ctid FROM idgen.gateway_request g WHERE g.created_at < t_now - retention
        LIMIT greatest(p_limit, 1) FOR UPDATE SKIP LOCKED));
    GET DIAGNOSTICS gone = ROW_COUNT;
    DELETE FROM idgen.gateway_quota WHERE ctid = ANY (ARRAY(
        SELECT q.ctid FROM idgen.gateway_quota q WHERE q.window_no < win - 1
        LIMIT greatest(p_limit, 1) FOR UPDATE SKIP LOCKED));
    RETURN gone;
END
$$;
