-- ---------------------------------------------------------------------
-- Migration: an existing bigint / bigserial / identity key becomes idgen
-- ---------------------------------------------------------------------

/*
 * Runs as its caller, who must own the table.  Everything happens in the
 * caller's transaction: either the column is converted and defaults to
 * idgen_next(), or nothing changed.
 */
\ir ../udfs/idgen_convert_column/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_convert_column(regclass, name) IS 'turn a bigint/serial/identity column into idgen with DEFAULT idgen_next(); refuses if new IDs could not stay above existing values';
REVOKE ALL ON FUNCTION @extschema@.idgen_convert_column(regclass, name) FROM PUBLIC;
