/* idgen--0.1--0.2.sql: worker leases, high-water marks, the background
 * worker's registry, operator functions and the audit trail */

\echo Use "ALTER EXTENSION idgen UPDATE TO '0.2'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Catalog
-- ---------------------------------------------------------------------

CREATE TABLE idgen.worker_lease (
    region      integer NOT NULL CHECK (region >= 0),
    worker      integer NOT NULL CHECK (worker >= 0),
    owner       text,
    generation  bigint NOT NULL DEFAULT 0,
    lease_until timestamptz,
    high_water  timestamptz,
    node_sysid  text,
    timeline    integer,
    ttl         interval,
    acquired_at timestamptz,
    renewed_at  timestamptz,
    PRIMARY KEY (region, worker),
    CHECK ((owner IS NULL) = (lease_until IS NULL))
);
COMMENT ON TABLE idgen.worker_lease IS 'worker ids: who holds each, its fencing generation, lease expiry and high-water mark of issued time';
COMMENT ON COLUMN idgen.worker_lease.owner IS 'holder of the lease; NULL when free';
COMMENT ON COLUMN idgen.worker_lease.generation IS 'fencing token, incremented on every acquisition and fence';
COMMENT ON COLUMN idgen.worker_lease.high_water IS 'no ID with a later time was ever issued under this worker; the next holder starts above it';
COMMENT ON COLUMN idgen.worker_lease.node_sysid IS 'system identifier of the idgen node that last held the worker; NULL for outside generators';
COMMENT ON COLUMN idgen.worker_lease.timeline IS 'timeline of the node that last wrote the row';
REVOKE ALL ON idgen.worker_lease FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.worker_lease', '');

CREATE TABLE idgen.audit_log (
    at     timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    actor  text NOT NULL DEFAULT pg_catalog."session_user"(),
    action text NOT NULL,
    detail text
);
CREATE INDEX ON idgen.audit_log (at);
COMMENT ON TABLE idgen.audit_log IS 'privileged actions and safety events: leases, fences, disables, clock jumps, collisions';
REVOKE ALL ON idgen.audit_log FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.audit_log', '');

CREATE TABLE idgen.collision (
    id           @extschema@.idgen,
    first_owner  text,
    second_owner text,
    observed_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    detail       text
);
COMMENT ON TABLE idgen.collision IS 'duplicate IDs found by audits, and workers seen with two holders';
REVOKE ALL ON idgen.collision FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.collision', '');

CREATE TABLE idgen.node_control (
    node_sysid text PRIMARY KEY,
    disabled_reason text NOT NULL,
    disabled_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    disabled_by text NOT NULL DEFAULT pg_catalog."session_user"()
);
COMMENT ON TABLE idgen.node_control IS 'nodes an operator disabled; survives restarts until idgen_enable()';
REVOKE ALL ON idgen.node_control FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('idgen.node_control', '');

-- ---------------------------------------------------------------------
-- Internal functions: idgen's clock, and the lease protocol the background
-- worker runs.  Not for PUBLIC.
-- ---------------------------------------------------------------------

-- the clock idgen issues by (honours idgen.test_clock_offset), so leases
-- and high-water marks are compared on one time scale
CREATE FUNCTION idgen.clock() RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_clock' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.clock() IS 'the wall clock idgen issues IDs by';

CREATE FUNCTION idgen.node_sysid() RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_node_sysid' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.node_sysid() IS 'this instance''s system identifier, as the lease table records it';

CREATE FUNCTION idgen.wake_worker() RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_wake_worker' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.wake_worker() IS 'ask the background worker to check its lease now';
REVOKE ALL ON FUNCTION idgen.wake_worker() FROM PUBLIC;

CREATE FUNCTION idgen.set_disabled(disabled boolean, reason text) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_set_disabled' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.set_disabled(boolean, text) IS 'switch issuing off or on in shared memory';
REVOKE ALL ON FUNCTION idgen.set_disabled(boolean, text) FROM PUBLIC;

-- lease changes are made only in the registry, the database the background
-- worker leases from: a lease table anywhere else would be a second registry
CREATE FUNCTION idgen.require_registry() RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    db text := current_setting('idgen.database', true);
BEGIN
    IF db IS NULL THEN
        RAISE EXCEPTION 'idgen is not loaded through shared_preload_libraries'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Add idgen to shared_preload_libraries.';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'idgen lease functions need READ COMMITTED isolation'
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'They wait for each other''s row locks and must then see the rows as committed, not as of an older snapshot.';
    END IF;
    IF db <> current_database() THEN
        RAISE EXCEPTION 'idgen worker leases live in database "%", not "%"', db, current_database()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.database names the database whose idgen.worker_lease table is this node''s registry; a lease taken anywhere else could collide with the node''s own workers.',
                  HINT = format('Connect to database %s.', db);
    END IF;
END
$$;
COMMENT ON FUNCTION idgen.require_registry() IS 'raise unless this is the registry database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_registry() FROM PUBLIC;

-- one advisory-lock key serialises every change of lease ownership
CREATE FUNCTION idgen.lock_registry() RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ SELECT pg_advisory_xact_lock(7596555481923411968) $$;
COMMENT ON FUNCTION idgen.lock_registry() IS 'transaction lock taken by every change of lease ownership';
REVOKE ALL ON FUNCTION idgen.lock_registry() FROM PUBLIC;

CREATE FUNCTION idgen.audit(action text, detail text) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ INSERT INTO idgen.audit_log (action, detail) VALUES ($1, $2) $$;
COMMENT ON FUNCTION idgen.audit(text, text) IS 'append one row to idgen.audit_log';
REVOKE ALL ON FUNCTION idgen.audit(text, text) FROM PUBLIC;

/*
 * A row may be taken when nobody holds it, or when its lease has expired
 * and the expiry can be trusted.  An expiry written by another timeline of
 * this cluster cannot: after a promotion the old primary may still be
 * running and renewing that lease in its own copy of this table.
 */
CREATE FUNCTION idgen.row_is_free(l idgen.worker_lease, now timestamptz,
                                  sysid text, tli integer) RETURNS boolean
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT l.owner IS NULL
    OR (l.lease_until <= now
        AND (l.node_sysid IS NULL OR (l.node_sysid = sysid AND l.timeline = tli)))
$$;
COMMENT ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) IS 'may this worker be taken now';
REVOKE ALL ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) FROM PUBLIC;

/*
 * Lease a block of workers for a node.  The block is all of one region,
 * aligned, and every row of it must be free.  Returns where the node must
 * start: strictly above every high-water mark it may have issued under,
 * its own earlier leases included, so a restart never goes back in time.
 */
CREATE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_now timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    nblocks integer := (1 << p_worker_bits) / p_block;
    start_block integer;
    b integer;
    fw integer;
    busy integer;
    node_floor timestamptz;
    block_floor timestamptz;
    gen bigint;
BEGIN
    PERFORM idgen.lock_registry();

    SELECT max(l.high_water) INTO node_floor
    FROM idgen.worker_lease AS l WHERE l.node_sysid = p_sysid;

    -- later timelines start elsewhere, away from blocks an old primary may reuse
    start_block := ((p_timeline - 1) * (nblocks / 2 + 1)) % nblocks;

    FOR i IN 0 .. nblocks - 1 LOOP
        b := (start_block + i) % nblocks;
        fw := b * p_block;
        CONTINUE WHEN p_pinned_worker >= 0 AND fw <> p_pinned_worker;

        -- lock first: a renewal in flight must commit before we judge the rows
        PERFORM 1 FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block
        FOR UPDATE;
        SELECT count(*) FILTER (WHERE NOT idgen.row_is_free(l, p_now, p_sysid, p_timeline)),
               max(l.high_water), max(l.generation)
          INTO busy, block_floor, gen
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;
        CONTINUE WHEN busy > 0;

        INSERT INTO idgen.worker_lease (region, worker)
        SELECT p_region, w FROM generate_series(fw, fw + p_block - 1) AS w
        ON CONFLICT DO NOTHING;

        first_worker := fw;
        generation := coalesce(gen, 0) + 1;
        lease_until := p_now + p_ttl;
        start_after := greatest(node_floor, block_floor);
        -- the node's own durable note of its high-water mark outranks a
        -- registry that lost it (dropped, or restored from an old backup)
        IF p_local_floor IS NOT NULL
           AND (start_after IS NULL OR start_after < p_local_floor - p_local_slack) THEN
            PERFORM idgen.audit('registry_behind_node',
                format('registry high-water %s is behind the node''s local mark %s; starting above the local mark',
                       coalesce(start_after::text, 'none'), p_local_floor));
            start_after := p_local_floor;
        END IF;
        high_water := greatest(p_high_water, start_after + (p_high_water - p_now));

        UPDATE idgen.worker_lease AS l
        SET owner = p_owner, generation = acquire_node_lease.generation,
            lease_until = acquire_node_lease.lease_until,
            high_water = acquire_node_lease.high_water,
            node_sysid = p_sysid, timeline = p_timeline, ttl = p_ttl,
            acquired_at = p_now, renewed_at = p_now
        WHERE l.region = p_region AND l.worker >= fw AND l.worker < fw + p_block;

        PERFORM idgen.audit('lease_acquired',
            format('region %s workers %s-%s generation %s owner %s start_after %s',
                   p_region, fw, fw + p_block - 1, generation, p_owner,
                   coalesce(start_after::text, 'none')));
        RETURN;
    END LOOP;
    first_worker := -1;
END
$$;
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval) IS 'lease a block of workers for a node (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval) FROM PUBLIC;

/*
 * Renew a node's block and raise its high-water mark, but only while every
 * row is still the node's own at the node's generation.  Otherwise report
 * who holds the first row that is not ours, so the node can stop.
 */
CREATE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_now timestamptz, p_ttl interval, p_high_water timestamptz,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    n integer;
BEGIN
    UPDATE idgen.worker_lease AS l
    SET lease_until = p_now + p_ttl,
        high_water = greatest(l.high_water, p_high_water),
        renewed_at = p_now
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND l.owner = p_owner AND l.generation = p_generation;
    GET DIAGNOSTICS n = ROW_COUNT;

    IF n = p_block THEN
        ok := true;
        lease_until := p_now + p_ttl;
        SELECT min(l.high_water) INTO high_water
        FROM idgen.worker_lease AS l
        WHERE l.region = p_region AND l.worker >= p_first_worker
          AND l.worker < p_first_worker + p_block;
        RETURN;
    END IF;

    ok := false;
    SELECT l.owner, l.generation INTO other_owner, other_generation
    FROM idgen.worker_lease AS l
    WHERE l.region = p_region AND l.worker >= p_first_worker
      AND l.worker < p_first_worker + p_block
      AND (l.owner IS DISTINCT FROM p_owner OR l.generation <> p_generation)
    ORDER BY l.worker LIMIT 1;
END
$$;
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz) IS 'renew a node''s block and raise its high-water mark (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz) FROM PUBLIC;

CREATE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
                                         p_block integer, p_generation bigint) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
UPDATE idgen.worker_lease AS l
SET owner = NULL, lease_until = NULL
WHERE l.region = p_region AND l.worker >= p_first_worker
  AND l.worker < p_first_worker + p_block
  AND l.owner = p_owner AND l.generation = p_generation;
$$;
COMMENT ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) IS 'give a node''s block back at shutdown, keeping its high-water mark';
REVOKE ALL ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Leases for outside generators (application servers, bulk loaders)
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_lease_worker(owner text, ttl interval,
    OUT region integer, OUT worker integer, OUT generation bigint, OUT lease_until timestamptz)
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz;
    my_region integer;
    worker_bits integer;
    w integer;
    l idgen.worker_lease;
BEGIN
    PERFORM idgen.require_registry();
    IF ttl <= interval '0' OR ttl > interval '1 day' THEN
        RAISE EXCEPTION 'lease ttl must lie between 0 and 1 day, not %', ttl
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A lease''s end becomes its worker''s high-water mark: a far-off end would keep anyone from using the worker until then.';
    END IF;
    IF owner = '' OR owner LIKE 'node:%' THEN
        RAISE EXCEPTION 'invalid lease owner: "%"', owner
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'An owner is a non-empty name, and names starting with "node:" are reserved for idgen nodes.';
    END IF;
    PERFORM idgen.lock_registry();
    now := idgen.clock();

    -- the same owner asking again gets its lease back: a stable retry identity
    SELECT * INTO l FROM idgen.worker_lease AS x
    WHERE x.owner = idgen_lease_worker.owner AND x.node_sysid IS NULL AND x.lease_until > now
    ORDER BY x.region, x.worker LIMIT 1
    FOR UPDATE;
    IF FOUND THEN
        UPDATE idgen.worker_lease AS x
        SET lease_until = now + idgen_lease_worker.ttl,
            high_water = greatest(x.high_water, now + idgen_lease_worker.ttl),
            ttl = idgen_lease_worker.ttl, renewed_at = now
        WHERE x.region = l.region AND x.worker = l.worker;
        region := l.region; worker := l.worker; generation := l.generation;
        lease_until := now + idgen_lease_worker.ttl;
        RETURN;
    END IF;

    my_region := coalesce(nullif(current_setting('idgen.region_id', true), ''), '0')::integer;
    SELECT e.worker_bits INTO worker_bits FROM idgen.epoch AS e ORDER BY e.version DESC LIMIT 1;

    -- from the top of the worker range down: nodes take blocks from the bottom
    FOR w IN REVERSE (1 << worker_bits) - 1 .. 0 LOOP
        INSERT INTO idgen.worker_lease (region, worker) VALUES (my_region, w)
        ON CONFLICT DO NOTHING;
        -- lock first: a renewal in flight must commit before we judge the row
        SELECT * INTO l FROM idgen.worker_lease AS x
        WHERE x.region = my_region AND x.worker = w
        FOR UPDATE;
        -- an outside holder cannot be told where to start, so its worker's
        -- history must already lie in the past
        CONTINUE WHEN NOT idgen.row_is_free(l, now, idgen.node_sysid(),
                                           coalesce(l.timeline, 0))
                  OR (l.node_sysid IS NOT NULL AND l.owner IS NOT NULL)
                  OR coalesce(l.high_water, '-infinity') >= now;
        UPDATE idgen.worker_lease AS x
        SET owner = idgen_lease_worker.owner, generation = x.generation + 1,
            lease_until = now + idgen_lease_worker.ttl,
            high_water = now + idgen_lease_worker.ttl,
            node_sysid = NULL, ttl = idgen_lease_worker.ttl,
            acquired_at = now, renewed_at = now
        WHERE x.region = my_region AND x.worker = w
        RETURNING x.region, x.worker, x.generation, x.lease_until
        INTO region, worker, generation, lease_until;
        PERFORM idgen.audit('worker_leased',
            format('region %s worker %s generation %s owner %s until %s',
                   region, worker, generation, idgen_lease_worker.owner, lease_until));
        RETURN;
    END LOOP;

    RAISE EXCEPTION 'no free worker id in region %', my_region
        USING ERRCODE = 'insufficient_resources',
              HINT = 'Release unused leases with idgen_release_worker() or wait for leases to expire.';
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_lease_worker(text, interval) IS 'lease a single worker id for an outside generator; the same owner gets its lease back';
REVOKE ALL ON FUNCTION @extschema@.idgen_lease_worker(text, interval) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_renew_worker(region integer, worker integer, generation bigint)
    RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz := idgen.clock();
    until timestamptz;
BEGIN
    PERFORM idgen.require_registry();
    UPDATE idgen.worker_lease AS x
    SET lease_until = now + x.ttl,
        high_water = greatest(x.high_water, now + x.ttl),
        renewed_at = now
    WHERE x.region = idgen_renew_worker.region AND x.worker = idgen_renew_worker.worker
      AND x.generation = idgen_renew_worker.generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL AND x.lease_until > now
    RETURNING x.lease_until INTO until;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % is not leased at generation %',
                        worker, region, generation
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The lease expired, was released, or was fenced; the holder must stop issuing IDs.',
                  HINT = 'Lease a worker again with idgen_lease_worker().';
    END IF;
    RETURN until;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) IS 'renew an outside generator''s lease; fails once fenced or expired';
REVOKE ALL ON FUNCTION @extschema@.idgen_renew_worker(integer, integer, bigint) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_release_worker(region integer, worker integer, generation bigint)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    now timestamptz := idgen.clock();
BEGIN
    PERFORM idgen.require_registry();
    PERFORM idgen.lock_registry();
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL,
        high_water = greatest(x.high_water, now)
    WHERE x.region = idgen_release_worker.region AND x.worker = idgen_release_worker.worker
      AND x.generation = idgen_release_worker.generation
      AND x.owner IS NOT NULL AND x.node_sysid IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % is not leased at generation %',
                        worker, region, generation
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    PERFORM idgen.audit('worker_released',
        format('region %s worker %s generation %s', region, worker, generation));
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) IS 'give an outside generator''s worker back';
REVOKE ALL ON FUNCTION @extschema@.idgen_release_worker(integer, integer, bigint) FROM PUBLIC;

/*
 * Operator repair: expire a lease and bump its generation.  The high-water
 * mark stays: a node never issues past its durable mark, and an outside
 * holder's mark already covers its whole lease, so whoever takes the worker
 * next and starts above the mark cannot meet the old holder's IDs.
 */
CREATE FUNCTION @extschema@.idgen_fence_worker(region integer, worker integer)
    RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    old idgen.worker_lease;
BEGIN
    PERFORM idgen.require_registry();
    PERFORM idgen.lock_registry();
    SELECT * INTO old FROM idgen.worker_lease AS x
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % has never been leased', worker, region
            USING ERRCODE = 'undefined_object';
    END IF;
    UPDATE idgen.worker_lease AS x
    SET owner = NULL, lease_until = NULL, generation = x.generation + 1
    WHERE x.region = idgen_fence_worker.region AND x.worker = idgen_fence_worker.worker;
    PERFORM idgen.audit('worker_fenced',
        format('region %s worker %s generation %s -> %s, previous owner %s',
               region, worker, old.generation, old.generation + 1,
               coalesce(old.owner, 'none')));
    PERFORM idgen.wake_worker();
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) IS 'operator repair: expire a lease and bump its generation so the holder stops';
REVOKE ALL ON FUNCTION @extschema@.idgen_fence_worker(integer, integer) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Operator switches and audits
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_disable(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_registry();
    IF reason = '' THEN
        RAISE EXCEPTION 'a reason is required to disable idgen'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO idgen.node_control (node_sysid, disabled_reason)
    VALUES (idgen.node_sysid(), reason)
    ON CONFLICT (node_sysid) DO UPDATE
        SET disabled_reason = excluded.disabled_reason,
            disabled_at = excluded.disabled_at, disabled_by = excluded.disabled_by;
    PERFORM idgen.set_disabled(true, reason);
    PERFORM idgen.audit('disabled', reason);
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_disable(text) IS 'stop issuing IDs on this node, with a reason; lasts across restarts';
REVOKE ALL ON FUNCTION @extschema@.idgen_disable(text) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_enable() RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_registry();
    DELETE FROM idgen.node_control WHERE node_sysid = idgen.node_sysid();
    PERFORM idgen.set_disabled(false, NULL);
    PERFORM idgen.audit('enabled', NULL);
    PERFORM idgen.wake_worker();
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_enable() IS 'resume issuing on this node after idgen_disable() or a fence';
REVOKE ALL ON FUNCTION @extschema@.idgen_enable() FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_check_unique(tbl regclass, col name) RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    coltype regtype;
    id_expr text;
    dup_values bigint;
BEGIN
    SELECT a.atttypid::regtype INTO coltype FROM pg_attribute AS a
    WHERE a.attrelid = tbl AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', col, tbl
            USING ERRCODE = 'undefined_column';
    END IF;
    -- only integer-valued columns can name the duplicate as an idgen
    id_expr := CASE WHEN coltype IN ('bigint'::regtype, '@extschema@.idgen'::regtype)
                    THEN 'v::bigint::@extschema@.idgen' ELSE 'NULL' END;
    EXECUTE format(
        'WITH d AS (SELECT %1$I AS v, count(*) AS n FROM %2$s WHERE %1$I IS NOT NULL GROUP BY 1 HAVING count(*) > 1),
              ins AS (INSERT INTO idgen.collision (id, first_owner, second_owner, detail)
                      SELECT %3$s, %4$L, %4$L, format(''value %%s appears %%s times'', v, n) FROM d)
         SELECT count(*) FROM d', col, tbl, id_expr, tbl::text || '.' || quote_ident(col))
    INTO dup_values;
    INSERT INTO idgen.audit_log (action, detail)
    VALUES ('check_unique', format('%s.%s: %s duplicated values', tbl, col, dup_values));
    RETURN dup_values;
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_check_unique(regclass, name) IS 'audit a column for duplicate values; findings go to idgen.collision';
-- runs as the caller (reading a table as its owner would run the caller's
-- code with the owner's rights): an auditor needs SELECT on the table and
-- INSERT on idgen.collision and idgen.audit_log
REVOKE ALL ON FUNCTION @extschema@.idgen_check_unique(regclass, name) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Status gains the lease's owner and high-water mark
-- ---------------------------------------------------------------------

DROP FUNCTION @extschema@.idgen_status();
CREATE FUNCTION @extschema@.idgen_status(
    OUT state text, OUT reason text,
    OUT region integer, OUT worker integer, OUT workers integer,
    OUT generation bigint, OUT lease_until timestamptz,
    OUT logical_clock timestamptz, OUT wall_clock timestamptz, OUT drift_ms bigint,
    OUT horizon timestamptz,
    OUT ids_issued bigint, OUT batches bigint, OUT sequence_exhaustions bigint,
    OUT clock_rollbacks bigint, OUT clock_waits bigint, OUT clock_wait_ms bigint,
    OUT clock_refusals bigint,
    OUT owner text, OUT high_water timestamptz, OUT lease_renewals bigint,
    OUT lease_failures bigint, OUT fencing_events bigint,
    OUT clock_jumps_forward bigint, OUT clock_steps_back bigint)
    AS 'MODULE_PATHNAME', 'idgen_status' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_status() IS 'this node''s generator: state and why, lease, logical vs wall clock, counters';
