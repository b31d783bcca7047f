CREATE OR REPLACE FUNCTION idgen.gateway_remember(p_token text[], p_key text[], p_width smallint[],
    p_count integer[], p_batch text[], p_cap bigint,
    OUT outcome text, OUT width smallint, OUT count integer, OUT batch text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    -- one plan for every call (planning the statements each time cost more
    -- than running them), and one that looks up keys: a plan made while
    -- the tables were empty must not scan them once they hold a day of keys
    SET plan_cache_mode = force_generic_plan SET enable_seqscan = off
    SET enable_hashjoin = off SET enable_mergejoin = off AS
$$
#variable_conflict use_column
DECLARE
    t_now timestamptz := clock_timestamp();
    retention interval := idgen.request_retention();
    win bigint := floor(extract(epoch FROM t_now) / greatest(extract(epoch FROM retention), 1));
    my_shard smallint := pg_backend_pid() % 16;
    over bigint[];
BEGIN
    IF p_cap IS NULL OR p_cap < 0 OR array_length(p_token, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_width, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_count, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_batch, 1) IS DISTINCT FROM array_length(p_key, 1) THEN
        RAISE EXCEPTION 'idgen.gateway_remember: arrays of one length and a cap expected'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the quota counts every new key asked for (those over the cap too:
    -- they stay over it); keys_after - n is what this shard held before,
    -- and the other shards' keys are added as committed (concurrent groups
    -- may pass the cap by a group or two, never more)
    WITH input AS (
        SELECT u.ord, decode(u.t, 'hex') AS tok, u.k, u.w, u.c, decode(u.b, 'hex') AS b
        FROM unnest(p_token, p_key, p_width, p_count, p_batch) WITH ORDINALITY AS u(t, k, w, c, b, ord)
    ), fresh AS (
        SELECT i.*, row_number() OVER (PARTITION BY i.tok ORDER BY i.ord) AS rank
        FROM input i
        WHERE i.b IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM idgen.gateway_request g
            WHERE g.token_sha256 = i.tok AND g.request_key = i.k AND g.created_at >= t_now - retention)
    ), asked AS (
        SELECT f.tok, count(*) AS n FROM fresh f GROUP BY f.tok
    ), quota AS (
        INSERT INTO idgen.gateway_quota AS q (token_sha256, window_no, shard, keys)
        SELECT a.tok, win, my_shard, a.n FROM asked a ORDER BY a.tok
        ON CONFLICT (token_sha256, window_no, shard) DO UPDATE SET keys = q.keys + excluded.keys
        RETURNING q.token_sha256 AS tok, q.keys AS keys_after
    ), ranked AS (
        SELECT f.*, f.rank <= least(a.n, greatest(0, p_cap - (q.keys_after - a.n) - coalesce((
                   SELECT sum(o.keys) FROM idgen.gateway_quota o
                   WHERE o.token_sha256 = f.tok AND o.window_no = win AND o.shard <> my_shard), 0))) AS granted
        FROM fresh f JOIN asked a ON a.tok = f.tok JOIN quota q ON q.tok = f.tok
    ), stored AS (
        -- an expired record not yet purged is replaced; a live one wins
        INSERT INTO idgen.gateway_request AS g (token_sha256, request_key, width, count, batch, created_at)
        SELECT r.tok, r.k, r.w, r.c, r.b, t_now FROM ranked r WHERE r.granted ORDER BY r.tok, r.k
        ON CONFLICT (token_sha256, request_key) DO UPDATE
        SET width = excluded.width, count = excluded.count, batch = excluded.batch,
            created_at = excluded.created_at
        WHERE g.created_at < t_now - retention
        RETURNING 1
    )
    SELECT array_agg(r.ord) FILTER (WHERE NOT r.granted) INTO over
    FROM ranked r LEFT JOIN (SELECT count(*) FROM stored) AS s ON true;
    -- a statement of its own: it sees what this call and concurrent ones stored
    RETURN QUERY
        SELECT CASE WHEN u.ord = ANY (coalesce(over, '{}')) THEN 'over_cap'
                    WHEN g.request_key IS NULL THEN 'none' ELSE 'found' END,
               g.width, g.count, encode(g.batch, 'hex')
        FROM unnest(p_token, p_key) WITH ORDINALITY AS u(t, k, ord)
        LEFT JOIN idgen.gateway_request g
            ON g.token_sha256 = decode(u.t, 'hex') AND g.request_key = u.k
            AND g.created_at >= t_now - retention AND NOT u.ord = ANY (coalesce(over, '{}'))
        ORDER BY u.ord;
END
$$;
