CREATE OR REPLACE FUNCTION idgen.require_node_database(caller text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
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
        RAISE EXCEPTION '%() needs READ COMMITTED isolation', caller
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = 'It writes the node''s own switch row, which the background worker and other sessions change too; it must see their rows as committed, not as of an older snapshot.';
    END IF;
    IF db <> current_database() THEN
        RAISE EXCEPTION '%() works in database "%", not "%"', caller, db, current_database()
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'idgen.database names the database where this node keeps its own state (its switches, its lease and its audit log); the background worker reads idgen_disable() and idgen_enable() there.',
                  HINT = format('Connect to database %s.', db);
    END IF;
END
$$;
