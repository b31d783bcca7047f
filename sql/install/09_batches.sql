-- ---------------------------------------------------------------------
-- Retry-safe batches: the same request key returns the same IDs, from any
-- session of the same login role, until idgen.request_retention has passed.
-- ---------------------------------------------------------------------

CREATE TABLE idgen.batch_request (
    owner_role  name NOT NULL,
    request_key text NOT NULL,
    width       smallint NOT NULL CHECK (width IN (64, 128)),
    count       integer NOT NULL CHECK (count >= 0),
    ids         @extschema@.idgen[],
    ids128      @extschema@.idgen128[],
    created_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    expires_at  timestamptz NOT NULL,
    first_tick  bigint,
    counter_bits smallint,
    time_shift  smallint,
    node_bits   bigint,
    origin_unix_ms bigint,
    epoch       integer,
    tail_key    bytea,
    PRIMARY KEY (owner_role, request_key, width),
    CONSTRAINT batch_request_check
        CHECK (CASE WHEN first_tick IS NULL
                        THEN (width = 64) = (ids IS NOT NULL) AND (width = 128) = (ids128 IS NOT NULL)
                        ELSE ids IS NULL AND ids128 IS NULL AND counter_bits IS NOT NULL
                             AND time_shift IS NOT NULL AND node_bits IS NOT NULL
                             AND origin_unix_ms IS NOT NULL AND epoch IS NOT NULL
                             AND (width = 128) = (tail_key IS NOT NULL) END)
);
CREATE INDEX ON idgen.batch_request (expires_at);
COMMENT ON TABLE idgen.batch_request IS 'batches issued under a request key, kept for idgen.request_retention so a retry gets the same IDs';
REVOKE ALL ON idgen.batch_request FROM PUBLIC;
COMMENT ON COLUMN idgen.batch_request.ids IS 'the IDs of a 64-bit batch stored by 0.6; NULL for a batch stored as its run (first_tick and after)';
COMMENT ON COLUMN idgen.batch_request.ids128 IS 'the IDs of a 128-bit batch stored by 0.6; NULL for a batch stored as its run';
COMMENT ON COLUMN idgen.batch_request.first_tick IS 'the first tick of the reserved run; with counter_bits, time_shift and node_bits it makes the IDs again (idgen.batch_ids)';
COMMENT ON COLUMN idgen.batch_request.tail_key IS 'SipHash key of a 128-bit batch''s random tails, so that a retry makes the same idgen128s';

CREATE FUNCTION idgen.request_retention() RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$ SELECT coalesce(nullif(current_setting('idgen.request_retention', true), ''), '1d')::interval $$;
COMMENT ON FUNCTION idgen.request_retention() IS 'how long a request key keeps its batch';

CREATE FUNCTION idgen.reserve_batch(count integer, width smallint,
    OUT first_tick bigint, OUT counter_bits smallint, OUT time_shift smallint,
    OUT node_bits bigint, OUT origin_unix_ms bigint, OUT epoch integer, OUT tail_key bytea)
    AS 'MODULE_PATHNAME', 'idgen_reserve_batch' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.reserve_batch(integer, smallint) IS 'reserve count ticks as idgen_next_batch(count) does and return the run (and, 128 bits wide, a random key for the tails) instead of the IDs';
REVOKE ALL ON FUNCTION idgen.reserve_batch(integer, smallint) FROM PUBLIC;

-- a run's IDs are what any cast to idgen could make: no secret, no grant needed
CREATE FUNCTION idgen.batch_run_ids(first_tick bigint, count integer, counter_bits smallint,
                                    time_shift smallint, node_bits bigint)
    RETURNS SETOF @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_batch_run_ids' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION idgen.batch_run_ids(bigint, integer, smallint, smallint, bigint) IS 'the IDs of a reserved run of ticks, ascending: a keyed batch made again';

CREATE FUNCTION idgen.batch_run_ids128(first_tick bigint, count integer, counter_bits smallint,
                                       time_shift smallint, node_bits bigint, origin_unix_ms bigint,
                                       epoch integer, tail_key bytea)
    RETURNS SETOF @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen_batch_run_ids128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION idgen.batch_run_ids128(bigint, integer, smallint, smallint, bigint, bigint, integer, bytea) IS 'the 128-bit IDs of a reserved run of ticks, ascending, their tails made from tail_key: a keyed batch made again';

-- a stored batch's IDs: made again from its run, or a record of 0.6's array
CREATE FUNCTION idgen.batch_ids(r idgen.batch_request) RETURNS SETOF @extschema@.idgen
    LANGUAGE sql STABLE PARALLEL SAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
SELECT x FROM idgen.batch_run_ids(r.first_tick, r.count, r.counter_bits, r.time_shift, r.node_bits) AS x
WHERE r.width = 64
UNION ALL
SELECT x FROM pg_catalog.unnest(r.ids) AS x
$$;
COMMENT ON FUNCTION idgen.batch_ids(idgen.batch_request) IS 'the IDs a stored 64-bit keyed batch returns';

CREATE FUNCTION idgen.batch_ids128(r idgen.batch_request) RETURNS SETOF @extschema@.idgen128
    LANGUAGE sql STABLE PARALLEL SAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
SELECT x FROM idgen.batch_run_ids128(r.first_tick, r.count, r.counter_bits, r.time_shift, r.node_bits,
                                     r.origin_unix_ms, r.epoch, r.tail_key) AS x
WHERE r.width = 128
UNION ALL
SELECT x FROM pg_catalog.unnest(r.ids128) AS x
$$;
COMMENT ON FUNCTION idgen.batch_ids128(idgen.batch_request) IS 'the IDs a stored 128-bit keyed batch returns';

/*
 * The batch for (session_user, key, width): the stored one while it lives,
 * else a new one stored under the key.  A concurrent caller with the same
 * key waits on the unique index until the first commits, then reads its
 * batch; if the first rolls back, the second makes its own.  What is
 * stored is the reserved run, not the IDs; a role keeps at most
 * idgen.request_max_per_role live keys (sessions of one role racing for
 * the last places may pass it by one each).
 */
\ir ../udfs/keyed_batch/latest.sql
COMMENT ON FUNCTION idgen.keyed_batch(integer, text, smallint) IS 'the batch stored under a request key, or a new one: its row of idgen.batch_request';
REVOKE ALL ON FUNCTION idgen.keyed_batch(integer, text, smallint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION idgen.keyed_batch(integer, text, smallint) TO PUBLIC;

CREATE FUNCTION @extschema@.idgen_next_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
WITH k AS MATERIALIZED (SELECT * FROM idgen.keyed_batch($1, $2, 64::smallint))
SELECT x FROM k, idgen.batch_run_ids(k.first_tick, k.count, k.counter_bits, k.time_shift, k.node_bits) AS x
UNION ALL
SELECT x FROM k, pg_catalog.unnest(k.ids) AS x
$$;
COMMENT ON FUNCTION @extschema@.idgen_next_batch(integer, text) IS 'count IDs, ascending; the same request key returns the same IDs again (retry identity)';

CREATE FUNCTION @extschema@.idgen_next128_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen128
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
WITH k AS MATERIALIZED (SELECT * FROM idgen.keyed_batch($1, $2, 128::smallint))
SELECT x FROM k, idgen.batch_run_ids128(k.first_tick, k.count, k.counter_bits, k.time_shift, k.node_bits,
                                        k.origin_unix_ms, k.epoch, k.tail_key) AS x
UNION ALL
SELECT x FROM k, pg_catalog.unnest(k.ids128) AS x
$$;
COMMENT ON FUNCTION @extschema@.idgen_next128_batch(integer, text) IS 'count 128-bit IDs, ascending; the same request key returns the same IDs again';
