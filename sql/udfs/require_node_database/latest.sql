CREATE OR REPLACE FUNCTION idgen.require_node_database() RETURNS void
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
