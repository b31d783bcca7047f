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
-- gateway puts on one token (--idempotency-keys)
CREATE TABLE idgen.gateway_quota (
    token_sha256 bytea NOT NULL CHECK (pg_catalog.length(token_sha256) = 32),
    window_no    bigint NOT NULL,
    keys         bigint NOT NULL CHECK (keys >= 0),
    PRIMARY KEY (token_sha256, window_no)
);
COMMENT ON TABLE idgen.gateway_quota IS 'Idempotency-Key records stored per token and window of idgen.request_retention, for the gateway''s cap per token';
REVOKE ALL ON idgen.gateway_quota FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_quota', '');

-- One call for a whole group of keyed requests, so they share one commit.
-- Row i: a live record of (token, key) is the answer ('found'); else, with
-- a batch, it is stored ('stored') unless the token is past p_cap keys in
-- this window ('over_cap'); without one, 'none'.  Tokens' quotas are
-- locked in token order and records written in the caller's order (the
-- gateway sorts), so concurrent groups never deadlock.
CREATE FUNCTION idgen.gateway_remember(p_token text[], p_key text[], p_width smallint[],
    p_count integer[], p_batch text[], p_cap bigint,
    OUT outcome text, OUT width smallint, OUT count integer, OUT batch text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
#variable_conflict use_column
DECLARE
    t_now timestamptz := clock_timestamp();
    retention interval := idgen.request_retention();
    win bigint := floor(extract(epoch FROM t_now) / greatest(extract(epoch FROM retention), 1));
    n integer := coalesce(array_length(p_key, 1), 0);
    found_rec boolean[] := array_fill(false, ARRAY[greatest(n, 1)]);
    granted jsonb := '{}';
    tok text;
    want bigint;
    used bigint;
    r record;
    i integer;
BEGIN
    IF p_cap IS NULL OR p_cap < 0 OR array_length(p_token, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_width, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_count, 1) IS DISTINCT FROM array_length(p_key, 1)
       OR array_length(p_batch, 1) IS DISTINCT FROM array_length(p_key, 1) THEN
        RAISE EXCEPTION 'idgen.gateway_remember: arrays of one length and a cap expected'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR i IN 1 .. n LOOP
        PERFORM 1 FROM idgen.gateway_request g
            WHERE g.token_sha256 = decode(p_token[i], 'hex') AND g.request_key = p_key[i]
              AND g.created_at >= t_now - retention;
        found_rec[i] := FOUND;
    END LOOP;
    -- the quota, one token at a time in token order, for the records to add
    FOR tok, want IN
        SELECT t, count(*) FROM unnest(p_token, p_batch, found_rec[1:n]) AS u(t, b, f)
        WHERE b IS NOT NULL AND NOT f GROUP BY t ORDER BY t
    LOOP
        INSERT INTO idgen.gateway_quota AS q (token_sha256, window_no, keys)
            VALUES (decode(tok, 'hex'), win, 0) ON CONFLICT DO NOTHING;
        SELECT q.keys INTO used FROM idgen.gateway_quota q
            WHERE q.token_sha256 = decode(tok, 'hex') AND q.window_no = win FOR UPDATE;
        want := least(want, greatest(p_cap - used, 0));
        UPDATE idgen.gateway_quota q SET keys = used + want
            WHERE q.token_sha256 = decode(tok, 'hex') AND q.window_no = win;
        granted := granted || jsonb_build_object(tok, want);
    END LOOP;
    FOR i IN 1 .. n LOOP
        IF NOT found_rec[i] AND p_batch[i] IS NOT NULL THEN
            IF coalesce((granted ->> p_token[i])::bigint, 0) <= 0 THEN
                outcome := 'over_cap'; width := NULL; count := NULL; batch := NULL;
                RETURN NEXT;
                CONTINUE;
            END IF;
            granted := granted || jsonb_build_object(p_token[i], (granted ->> p_token[i])::bigint - 1);
            -- an expired record not yet purged is replaced; a live one wins
            INSERT INTO idgen.gateway_request AS g (token_sha256, request_key, width, count, batch, created_at)
                VALUES (decode(p_token[i], 'hex'), p_key[i], p_width[i], p_count[i], decode(p_batch[i], 'hex'), t_now)
                ON CONFLICT (token_sha256, request_key) DO UPDATE
                SET width = excluded.width, count = excluded.count, batch = excluded.batch,
                    created_at = excluded.created_at
                WHERE g.created_at < t_now - retention;
            IF FOUND THEN
                outcome := 'stored'; width := p_width[i]; count := p_count[i]; batch := p_batch[i];
                RETURN NEXT;
                CONTINUE;
            END IF;
            -- another transaction stored it meanwhile: its answer is the one
        END IF;
        SELECT g.width, g.count, encode(g.batch, 'hex') AS batch INTO r FROM idgen.gateway_request g
            WHERE g.token_sha256 = decode(p_token[i], 'hex') AND g.request_key = p_key[i]
              AND g.created_at >= t_now - retention;
        IF FOUND THEN
            outcome := 'found'; width := r.width; count := r.count; batch := r.batch;
        ELSE
            outcome := 'none'; width := NULL; count := NULL; batch := NULL;
        END IF;
        RETURN NEXT;
    END LOOP;
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
