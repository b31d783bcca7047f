CREATE OR REPLACE FUNCTION @extschema@.idgen_disable(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database('idgen_disable');
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
