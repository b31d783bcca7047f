/* idgen--0.6--0.7.sql: changes since 0.6 (sql/idgen.sql is the whole schema) */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.7'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Issue 19, item 12: a keyed batch keeps its reserved run of ticks, not
-- its IDs (a few dozen bytes for any count; a retry makes the IDs again),
-- and one login role keeps at most idgen.request_max_per_role live keys.
-- Records stored by 0.6 are kept as they are, arrays and all, and answered
-- from their arrays until they expire (idgen.request_retention): none is
-- converted, because an idgen128 record's random tails cannot be made
-- again from a run.  idgen.keyed_batch now returns the table's row.
-- ---------------------------------------------------------------------
ALTER TABLE idgen.batch_request
    ADD COLUMN first_tick bigint,
    ADD COLUMN counter_bits smallint,
    ADD COLUMN time_shift smallint,
    ADD COLUMN node_bits bigint,
    ADD COLUMN origin_unix_ms bigint,
    ADD COLUMN epoch integer,
    ADD COLUMN tail_key bytea,
    DROP CONSTRAINT batch_request_check,
    ADD CONSTRAINT batch_request_check
        CHECK (CASE WHEN first_tick IS NULL
                        THEN (width = 64) = (ids IS NOT NULL) AND (width = 128) = (ids128 IS NOT NULL)
                        ELSE ids IS NULL AND ids128 IS NULL AND counter_bits IS NOT NULL
                             AND time_shift IS NOT NULL AND node_bits IS NOT NULL
                             AND origin_unix_ms IS NOT NULL AND epoch IS NOT NULL
                             AND (width = 128) = (tail_key IS NOT NULL) END);
COMMENT ON COLUMN idgen.batch_request.ids IS 'the IDs of a 64-bit batch stored by 0.6; NULL for a batch stored as its run (first_tick and after)';
COMMENT ON COLUMN idgen.batch_request.ids128 IS 'the IDs of a 128-bit batch stored by 0.6; NULL for a batch stored as its run';
COMMENT ON COLUMN idgen.batch_request.first_tick IS 'the first tick of the reserved run; with counter_bits, time_shift and node_bits it makes the IDs again (idgen.batch_ids)';
COMMENT ON COLUMN idgen.batch_request.tail_key IS 'SipHash key of a 128-bit batch''s random tails, so that a retry makes the same idgen128s';

-- its return type changes; the SQL wrappers below are its only callers
DROP FUNCTION idgen.keyed_batch(integer, text, smallint);

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
CREATE FUNCTION idgen.keyed_batch(p_count integer, p_key text, p_width smallint)
    RETURNS idgen.batch_request
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    r idgen.batch_request;
    run record;
    kept bigint;
    cap integer := coalesce(nullif(current_setting('idgen.request_max_per_role', true), ''), '10000')::integer;
    ctl text := substring(p_key FROM E'[\\x01-\\x1f\\x7f]');
BEGIN
    IF p_count < 0 THEN
        RAISE EXCEPTION 'batch size must not be negative: %', p_count
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_count > 1000000 THEN
        RAISE EXCEPTION 'a batch with a request key holds at most 1000000 IDs, not %', p_count
            USING ERRCODE = 'program_limit_exceeded',
                  HINT = 'Split the request into several keyed batches.';
    END IF;
    IF p_key = '' OR length(p_key) > 200 THEN
        RAISE EXCEPTION 'a request key has 1 to 200 characters, not %', length(p_key)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF ctl IS NOT NULL THEN
        RAISE EXCEPTION 'a request key must not contain control characters'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = format('Character %s is U+%s. A request key is quoted in errors, so it must be printable.',
                                  strpos(p_key, ctl), lpad(upper(to_hex(ascii(ctl))), 4, '0'));
    END IF;

    -- a few expired requests go with every call, so no table grows unbounded
    DELETE FROM idgen.batch_request AS b
    WHERE b.ctid = ANY (ARRAY(SELECT x.ctid FROM idgen.batch_request AS x
                              WHERE x.expires_at < pg_catalog.clock_timestamp()
                              LIMIT 16 FOR UPDATE SKIP LOCKED));

    LOOP
        now := pg_catalog.clock_timestamp();
        SELECT * INTO r FROM idgen.batch_request AS b
        WHERE b.owner_role = session_user AND b.request_key = p_key AND b.width = p_width;
        IF FOUND AND r.expires_at > now THEN
            IF r.count <> p_count THEN
                RAISE EXCEPTION 'request key "%" was used for a batch of % IDs, not %',
                                p_key, r.count, p_count
                    USING ERRCODE = 'invalid_parameter_value',
                          DETAIL = 'A retry must ask for the same batch it retries.';
            END IF;
            RETURN r;
        END IF;
        IF FOUND THEN
            DELETE FROM idgen.batch_request AS b
            WHERE b.owner_role = session_user AND b.request_key = p_key
              AND b.width = p_width AND b.expires_at <= now;
        END IF;
        -- counted no further than the cap: the count costs at most that
        SELECT count(*) INTO kept
        FROM (SELECT 1 FROM idgen.batch_request AS b
              WHERE b.owner_role = session_user AND b.expires_at > now LIMIT cap) AS s;
        IF kept >= cap THEN
            RAISE EXCEPTION 'role "%" keeps % request keys, the most idgen.request_max_per_role allows',
                            session_user, cap
                USING ERRCODE = 'configuration_limit_exceeded',
                      DETAIL = format('A request key is kept for idgen.request_retention (%s s) after its batch.',
                                      extract(epoch FROM idgen.request_retention())::bigint),
                      HINT = 'Retry later, when older keys have expired, or ask an administrator for a higher idgen.request_max_per_role for this role (ALTER ROLE ... SET).';
        END IF;
        BEGIN
            SELECT * INTO run FROM idgen.reserve_batch(p_count, p_width);
            INSERT INTO idgen.batch_request (owner_role, request_key, width, count, expires_at,
                                             first_tick, counter_bits, time_shift, node_bits,
                                             origin_unix_ms, epoch, tail_key)
            VALUES (session_user, p_key, p_width, p_count, now + idgen.request_retention(),
                    run.first_tick, run.counter_bits, run.time_shift, run.node_bits,
                    run.origin_unix_ms, run.epoch, run.tail_key)
            RETURNING * INTO r;
            RETURN r;
        EXCEPTION WHEN unique_violation THEN
            -- someone else stored this key meanwhile: read theirs, which only
            -- a READ COMMITTED snapshot taken from now on can see
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'request key "%" was stored by a concurrent transaction', p_key
                    USING ERRCODE = 'serialization_failure',
                          HINT = 'Retry the transaction.';
            END IF;
        END;
    END LOOP;
END
$$;
COMMENT ON FUNCTION idgen.keyed_batch(integer, text, smallint) IS 'the batch stored under a request key, or a new one: its row of idgen.batch_request';
REVOKE ALL ON FUNCTION idgen.keyed_batch(integer, text, smallint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION idgen.keyed_batch(integer, text, smallint) TO PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.idgen_next_batch(count integer, request_key text)
    RETURNS SETOF @extschema@.idgen
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE ROWS 1000 SET search_path = pg_catalog, pg_temp AS
$$
WITH k AS MATERIALIZED (SELECT * FROM idgen.keyed_batch($1, $2, 64::smallint))
SELECT x FROM k, idgen.batch_run_ids(k.first_tick, k.count, k.counter_bits, k.time_shift, k.node_bits) AS x
UNION ALL
SELECT x FROM k, pg_catalog.unnest(k.ids) AS x
$$;
COMMENT ON FUNCTION @extschema@.idgen_next_batch(integer, text) IS 'count IDs, ascending; the same request key returns the same IDs again (retry identity)';

CREATE OR REPLACE FUNCTION @extschema@.idgen_next128_batch(count integer, request_key text)
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

CREATE OR REPLACE FUNCTION idgen.restore_batch_request() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM 1 FROM idgen.batch_request AS b
    WHERE b.owner_role = NEW.owner_role AND b.request_key = NEW.request_key
      AND b.width = NEW.width AND b.count = NEW.count
      AND b.ids IS NOT DISTINCT FROM NEW.ids AND b.ids128 IS NOT DISTINCT FROM NEW.ids128
      AND b.first_tick IS NOT DISTINCT FROM NEW.first_tick
      AND b.counter_bits IS NOT DISTINCT FROM NEW.counter_bits
      AND b.time_shift IS NOT DISTINCT FROM NEW.time_shift
      AND b.node_bits IS NOT DISTINCT FROM NEW.node_bits
      AND b.origin_unix_ms IS NOT DISTINCT FROM NEW.origin_unix_ms
      AND b.epoch IS NOT DISTINCT FROM NEW.epoch
      AND b.tail_key IS NOT DISTINCT FROM NEW.tail_key;
    RETURN CASE WHEN FOUND THEN NULL ELSE NEW END;
END
$$;
