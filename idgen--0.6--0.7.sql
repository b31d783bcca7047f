/* idgen--0.6--0.7.sql: changes since 0.6 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.7'" to load this file. \quit


-- ---------------------------------------------------------------------
-- Issue 19, items 12 and 13 (idgen-gateway's Idempotency-Key records):
-- a record holds what regenerates the answer instead of the IDs, scoped by
-- the token's SHA-256 instead of its name, under a cap per token.  The old
-- records are dropped, not converted: they are scoped by a token name, and
-- the registry cannot tell which token (which client) a name stood for, so
-- no conversion could be trusted with another client's IDs.  A retry of a
-- request answered before the upgrade gets new IDs (never the old ones
-- again to someone else).  0.6 gateways cannot write records after this
-- (their keyed requests fail with 503, IDs unsent): upgrade them with the
-- extension.
-- ---------------------------------------------------------------------

-- out of the extension first, so pg_dump's list of its tables forgets it
ALTER EXTENSION idgen DROP TABLE idgen.gateway_request;
DROP TABLE idgen.gateway_request;

-- idgen-gateway: the answers it gave under an Idempotency-Key, kept for
-- idgen.request_retention so a retry gets the same IDs from any gateway of
-- the registry, also after a restart.  A record holds what regenerates the
-- answer (the reservation: its first tick, layout and workers, and the
-- seed of an idgen128's random bits), a few dozen bytes whatever the count.
-- Scoped by the token's SHA-256 (as in the gateway's tokens file), never by
-- its name: two tokens files may use one name for two clients.  Written
-- only through idgen.gateway_remember() and idgen.gateway_purge(), the
-- functions a gateway's role is granted; dumped, so a retry after a restore
-- of the registry still gets its IDs.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.gateway_request (
    token_sha256 bytea NOT NULL CHECK (pg_catalog.length(token_sha256) = 32),
    request_key  text NOT NULL,
    width        smallint NOT NULL CHECK (width IN (64, 128)),
    count        integer NOT NULL CHECK (count >= 1),
    batch        bytea NOT NULL CHECK (pg_catalog.length(batch) <= 512),
    created_at   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (token_sha256, request_key)
);
CREATE INDEX ON idgen.gateway_request (created_at);
COMMENT ON TABLE idgen.gateway_request IS 'idgen-gateway''s answers under an Idempotency-Key, kept for idgen.request_retention so a retry gets the same IDs';
COMMENT ON COLUMN idgen.gateway_request.token_sha256 IS 'SHA-256 of the bearer token that asked (its line in the gateway''s tokens file)';
COMMENT ON COLUMN idgen.gateway_request.batch IS 'the reservation the IDs are computed from (the gateway''s own encoding)';
REVOKE ALL ON idgen.gateway_request FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_request', '');

-- keys stored per token and window of idgen.request_retention: the cap a
-- gateway puts on one token (--idempotency-keys).  Counted in 16 shards
-- (by registry session), so concurrent groups of one token do not queue
-- on one row; the shards are summed against the cap.
CREATE TABLE idgen.gateway_quota (
    token_sha256 bytea NOT NULL CHECK (pg_catalog.length(token_sha256) = 32),
    window_no    bigint NOT NULL,
    shard        smallint NOT NULL CHECK (shard BETWEEN 0 AND 15),
    keys         bigint NOT NULL CHECK (keys >= 0),
    PRIMARY KEY (token_sha256, window_no, shard)
);
COMMENT ON TABLE idgen.gateway_quota IS 'Idempotency-Key records stored per token and window of idgen.request_retention, for the gateway''s cap per token';
REVOKE ALL ON idgen.gateway_quota FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_quota', '');

-- One call for a whole group of keyed requests, so they share one commit;
-- a few statements for the whole group, not a few per request.  Row i
-- (in order): a live record of (token, key) is the answer ('found', also
-- when this call stored it); else 'over_cap' when the token is past p_cap
-- keys in this window of idgen.request_retention; else 'none' (no batch
-- was given to store).  The caller sends each (token, key) once, sorted,
-- so concurrent groups take their locks in one order.
CREATE FUNCTION idgen.gateway_remember(p_token text[], p_key text[], p_width smallint[],
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
COMMENT ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) IS 'idgen-gateway: look up, and store under a cap per token, the Idempotency-Key records of a group of requests in one transaction';
REVOKE ALL ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) FROM PUBLIC;

-- A few rows at a time, skipping rows a request holds, so the purge never
-- waits on a request nor makes one wait for long (the gateway calls it with
-- a lock_timeout, in a loop, on a connection of its own).
CREATE FUNCTION idgen.gateway_purge(p_limit integer) RETURNS integer
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
COMMENT ON FUNCTION idgen.gateway_purge(integer) IS 'idgen-gateway: delete up to p_limit Idempotency-Key records past idgen.request_retention (and old quota windows); returns how many records went';
REVOKE ALL ON FUNCTION idgen.gateway_purge(integer) FROM PUBLIC;
