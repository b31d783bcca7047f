-- ---------------------------------------------------------------------
-- Operator switches and audits
-- ---------------------------------------------------------------------

\ir ../udfs/idgen_disable/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_disable(text) IS 'stop issuing IDs on this node, with a reason; lasts across restarts';
REVOKE ALL ON FUNCTION @extschema@.idgen_disable(text) FROM PUBLIC;

\ir ../udfs/idgen_enable/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_enable() IS 'resume issuing on this node after idgen_disable() or a fence';
REVOKE ALL ON FUNCTION @extschema@.idgen_enable() FROM PUBLIC;

\ir ../udfs/idgen_check_unique/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_check_unique(regclass, name) IS 'audit a column for duplicate values; findings go to idgen.collision';
-- runs as the caller (reading a table as its owner would run the caller's
-- code with the owner's rights): an auditor needs SELECT on the table and
-- INSERT on idgen.collision and idgen.audit_log
REVOKE ALL ON FUNCTION @extschema@.idgen_check_unique(regclass, name) FROM PUBLIC;
