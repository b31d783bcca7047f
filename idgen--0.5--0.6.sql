/* idgen--0.5--0.6.sql: changes since 0.5 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.6'" to load this file. \quit

-- ---------------------------------------------------------------------
-- idgen-gateway: the answers it gave under an Idempotency-Key, kept for
-- idgen.request_retention so a retry gets the same IDs from any gateway of
-- the registry, also after a restart.  Written only by the gateway (its
-- role needs SELECT, INSERT, UPDATE and DELETE on it); dumped, so a retry
-- after a restore of the registry still gets its IDs.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.gateway_request (
    token       text NOT NULL,
    request_key text NOT NULL,
    width       smallint NOT NULL CHECK (width IN (64, 128)),
    count       integer NOT NULL CHECK (count >= 1),
    ids         text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (token, request_key)
);
CREATE INDEX ON idgen.gateway_request (created_at);
COMMENT ON TABLE idgen.gateway_request IS 'idgen-gateway''s answers under an Idempotency-Key, kept for idgen.request_retention so a retry gets the same IDs';
COMMENT ON COLUMN idgen.gateway_request.token IS 'name of the bearer token (from the gateway''s tokens file) that asked';
COMMENT ON COLUMN idgen.gateway_request.ids IS 'the JSON answer as sent: {"ids": [...]}';
REVOKE ALL ON idgen.gateway_request FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_request', '');
