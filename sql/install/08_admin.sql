-- ---------------------------------------------------------------------
-- Operator switches and audits
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_disable(reason text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
BEGIN
    PERFORM idgen.require_node_database();
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
    PERFORM idgen.require_node_database();
    DELETE FROM idgen.node_control WHERE node_sysid = idgen.node_sysid();
    PERFORM idgen.set_disabled(false, NULL);
    PERFORM idgen.audit('enabled', NULL);
    PERFORM idgen.wake_worker();
END
$$;
COMMENT ON FUNCTION @extschema@.idgen_enable() IS 'resume issuing on this node after idgen_disable() or a fence';
REVOKE ALL ON FUNCTION @extschema@.idgen_enable() FROM PUBLIC;

\ir ../udfs/idgen_check_unique/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_check_unique(regclass, name) IS 'audit a column for duplicate values; findings go to idgen.collision';
-- runs as the caller (reading a table as its owner would run the caller's
-- code with the owner's rights): an auditor needs SELECT on the table and
-- INSERT on idgen.collision and idgen.audit_log
REVOKE ALL ON FUNCTION @extschema@.idgen_check_unique(regclass, name) FROM PUBLIC;
