CREATE OR REPLACE FUNCTION idgen.keyed_batch(p_count integer, p_key text, p_width smallint)
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
