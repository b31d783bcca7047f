-- ---------------------------------------------------------------------
-- TypeID text (0.6): "user_01h455vb4pex5vsknk084sn02q", a lower-case type
-- prefix, an underscore and the UUID in 26 characters of Crockford base32,
-- as the TypeID specification (version 0.3) writes it.  For the APIs that
-- show IDs that way; the column keeps its idgen128 or uuid.  Reading takes
-- the expected prefix: NULL (the default) accepts any, '' none.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.idgen_typeid(id @extschema@.idgen128, prefix text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_typeid(@extschema@.idgen128, text) IS 'TypeID text of a 128-bit ID behind a type prefix (empty: none)';
CREATE FUNCTION @extschema@.idgen_typeid(u uuid, prefix text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen_typeid(uuid, text) IS 'TypeID text of any UUID behind a type prefix (empty: none)';
CREATE FUNCTION @extschema@.idgen128_from_typeid(t text, prefix text DEFAULT NULL) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen128_from_typeid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.idgen128_from_typeid(text, text) IS 'the idgen128 of TypeID text; refuses another prefix than the one given, and a UUID that is not version 7';
CREATE FUNCTION @extschema@.uuid_from_typeid(t text, prefix text DEFAULT NULL) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_from_typeid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_from_typeid(text, text) IS 'the UUID of TypeID text, any version; refuses another prefix than the one given';
CREATE FUNCTION @extschema@.typeid_prefix(t text) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_prefix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_prefix(text) IS 'the type prefix of TypeID text (empty: none); refuses invalid TypeID text';
