CREATE OR REPLACE FUNCTION @extschema@.idgen_enable() RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database('idgen_enable');
    DELETE FROM idgen.node_control WHERE node_sysid = idgen.node_sysid();
    PERFORM idgen.set_disabled(false, NULL);
    PERFORM idgen.audit('enabled', NULL);
    PERFORM idgen.wake_worker();
END
$$;
