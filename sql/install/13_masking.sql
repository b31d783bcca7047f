-- ---------------------------------------------------------------------
-- Masked public IDs: idgen_mask(id) is an opaque token that shows neither
-- the ID's time nor its order, region, worker or sequence, so it does not
-- tell how many IDs a system makes; idgen_unmask(token) gives the ID back.
-- A keyed permutation with a tag (src/mask.h); the keys are here, out of
-- PUBLIC's reach.  The newest key masks, every key unmasks.
-- ---------------------------------------------------------------------

-- no key is made here: a restored dump brings its own key 1, and one made
-- now would collide with it; the first idgen_mask() makes key 1
CREATE TABLE idgen.mask_key (
    key_id      smallint PRIMARY KEY CHECK (key_id BETWEEN 1 AND 255),
    secret      bytea NOT NULL CHECK (pg_catalog.length(secret) = 32),
    fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{16}$'),
    created_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    created_by  text NOT NULL DEFAULT pg_catalog."session_user"()
);
COMMENT ON TABLE idgen.mask_key IS 'keys of idgen_mask(): the highest key_id masks, every key unmasks; secret, never readable by PUBLIC';
COMMENT ON COLUMN idgen.mask_key.key_id IS 'the key''s number, written into each token it makes; never reused';
COMMENT ON COLUMN idgen.mask_key.secret IS '32 random bytes: 16 key the permutation, 16 key the token tag';
COMMENT ON COLUMN idgen.mask_key.fingerprint IS 'names the key without revealing it: hex of the first 8 bytes of SipHash-2-4 of "idgen-fingerprint" under the permutation key';
REVOKE ALL ON idgen.mask_key FROM PUBLIC;
-- keys must survive dump and restore, or every token ever handed out dies

-- rows alone do not invalidate the relcache: this tells every backend's key
-- cache about a rotation, a restore or a hand edit
CREATE FUNCTION idgen.mask_key_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'idgen_mask_key_changed' LANGUAGE C;
COMMENT ON FUNCTION idgen.mask_key_changed() IS 'trigger: makes every session read idgen.mask_key again';
REVOKE ALL ON FUNCTION idgen.mask_key_changed() FROM PUBLIC;
CREATE TRIGGER mask_key_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON idgen.mask_key
    FOR EACH STATEMENT EXECUTE FUNCTION idgen.mask_key_changed();

CREATE VIEW idgen.mask_key_info AS
SELECT k.key_id, k.fingerprint, k.created_at, k.created_by,
       k.key_id = pg_catalog.max(k.key_id) OVER () AS active
FROM idgen.mask_key AS k;
COMMENT ON VIEW idgen.mask_key_info IS 'mask keys without their secrets; active: the key that masks now';
REVOKE ALL ON idgen.mask_key_info FROM PUBLIC;

/*
 * SECURITY DEFINER, to read idgen.mask_key.  STABLE: a rotation changes
 * what idgen_mask() returns.  idgen_mask is PARALLEL UNSAFE because its
 * first call in a database writes key 1; unmasking only reads, and gives
 * the same ID in any process, so it is PARALLEL SAFE.
 */
CREATE FUNCTION @extschema@.idgen_mask(id @extschema@.idgen) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_mask'
    LANGUAGE C STABLE STRICT PARALLEL UNSAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen) IS 'opaque public token of an ID (20 characters): hides its time, order and the volume of IDs; idgen_unmask() turns it back';

CREATE FUNCTION @extschema@.idgen_mask(id @extschema@.idgen128) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen128_mask'
    LANGUAGE C STABLE STRICT PARALLEL UNSAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen128) IS 'opaque public token of a 128-bit ID (32 characters); idgen_unmask128() turns it back';

CREATE FUNCTION @extschema@.idgen_unmask(token text) RETURNS @extschema@.idgen
    AS 'MODULE_PATHNAME', 'idgen_unmask'
    LANGUAGE C STABLE STRICT PARALLEL SAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_unmask(text) IS 'the ID behind a token of idgen_mask(idgen), under any key this database ever had';

CREATE FUNCTION @extschema@.idgen_unmask128(token text) RETURNS @extschema@.idgen128
    AS 'MODULE_PATHNAME', 'idgen_unmask128'
    LANGUAGE C STABLE STRICT PARALLEL SAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_unmask128(text) IS 'the 128-bit ID behind a token of idgen_mask(idgen128)';

REVOKE ALL ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen128) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.idgen_unmask(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.idgen_unmask128(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen) TO PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_mask(@extschema@.idgen128) TO PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_unmask(text) TO PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.idgen_unmask128(text) TO PUBLIC;

-- an administrator's: a new key masks from now on, old tokens still unmask
CREATE FUNCTION @extschema@.idgen_rotate_mask_key() RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_rotate_mask_key'
    LANGUAGE C VOLATILE PARALLEL UNSAFE
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.idgen_rotate_mask_key() IS 'add a mask key, which masks from now on (old tokens keep unmasking); returns its fingerprint; audited';
REVOKE ALL ON FUNCTION @extschema@.idgen_rotate_mask_key() FROM PUBLIC;
