-- ---------------------------------------------------------------------
-- The gateway's Idempotency-Key records
-- ---------------------------------------------------------------------

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

-- One call for a whole group of keyed requests, so they share one commit;
-- a few statements for the whole group, not a few per request.  Row i
-- (in order): a live record of (token, key) is the answer ('found', also
-- when this call stored it); else 'over_cap' when the token is past p_cap
-- keys in this window of idgen.request_retention; else 'none' (no batch
-- was given to store).  The caller sends each (token, key) once, sorted,
-- so concurrent groups take their locks in one order.
\ir ../udfs/gateway_remember/latest.sql
COMMENT ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) IS 'idgen-gateway: look up, and store under a cap per token, the Idempotency-Key records of a group of requests in one transaction';
REVOKE ALL ON FUNCTION idgen.gateway_remember(text[], text[], smallint[], integer[], text[], bigint) FROM PUBLIC;

-- A few rows at a time, skipping rows a request holds, so the purge never
-- waits on a request nor makes one wait for long (the gateway calls it with
-- a lock_timeout, in a loop, on a connection of its own).
\ir ../udfs/gateway_purge/latest.sql
COMMENT ON FUNCTION idgen.gateway_purge(integer) IS 'idgen-gateway: delete up to p_limit Idempotency-Key records past idgen.request_retention (and old quota windows); returns how many records went';
REVOKE ALL ON FUNCTION idgen.gateway_purge(integer) FROM PUBLIC;
