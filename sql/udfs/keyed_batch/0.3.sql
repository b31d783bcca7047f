CREATE OR REPLACE FUNCTION idgen.keyed_batch(p_count integer, p_key text, p_width smallint,
                                  OUT ids @extschema@.idgen[], OUT ids128 @extschema@.idgen128[])
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    r idgen.batch_request;
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
            ids := r.ids;
            ids128 := r.ids128;
            RETURN;
        END IF;
        IF FOUND THEN
            DELETE FROM idgen.batch_request AS b
            WHERE b.owner_role = session_user AND b.request_key = p_key
              AND b.width = p_width AND b.expires_at <= now;
        END IF;
        BEGIN
            IF p_width = 64 THEN
                ids := ARRAY(SELECT @extschema@.idgen_next_batch(p_count));
            ELSE
                ids128 := ARRAY(SELECT @extschema@.idgen_next128_batch(p_count));
            END IF;
            INSERT INTO idgen.batch_request (owner_role, request_key, width, count, ids, ids128, expires_at)
            VALUES (session_user, p_key, p_width, p_count, ids, ids128, now + idgen.request_retention());
            RETURN;
        EXCEPTION WHEN unique_violation THEN
            -- someone else stored this key meanwhile: read theirs, which only
            -- a READ COMMITTED snapshot taken from now on can see
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'request key "%" was stored by a concurrent transaction', p_key
                    USING ERRCODE = 'serialization_failure',
                          HINT = 'Retry the transaction.';
            END IF;
            ids := NULL;
            ids128 := NULL;
        END;
    END LOOP;
END
$$;
