CREATE OR REPLACE FUNCTION idgen.grant_to(p_role regrole, p_schemas regnamespace[], p_what text[])
    RETURNS SETOF text
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    v_owner oid := (SELECT e.extowner FROM pg_extension AS e WHERE e.extname = 'idgen');
    v_schema regnamespace;
    v_what text;
    v_sql text;
BEGIN
    IF NOT pg_has_role(current_user, v_owner, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of extension idgen or a superuser may grant its privileges'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = format('The extension belongs to %s.', v_owner::regrole),
                  HINT = 'Call this function as a superuser.';
    END IF;
    IF current_setting('idgen.database', true) IS DISTINCT FROM current_database() THEN
        RAISE WARNING 'this is not idgen.database (%): nodes and gateways lease there',
                      current_setting('idgen.database', true)
            USING HINT = 'Call this function in the registry''s idgen.database.';
    END IF;
    IF NOT has_database_privilege(p_role, current_database(), 'CONNECT') THEN
        v_sql := format('GRANT CONNECT ON DATABASE %I TO %s', current_database(), p_role);
        EXECUTE v_sql;
        RETURN NEXT v_sql;
    END IF;
    FOREACH v_schema IN ARRAY p_schemas LOOP
        IF NOT has_schema_privilege(p_role, v_schema, 'USAGE') THEN
            v_sql := format('GRANT USAGE ON SCHEMA %s TO %s', v_schema, p_role);
            EXECUTE v_sql;
            RETURN NEXT v_sql;
        END IF;
    END LOOP;
    FOREACH v_what IN ARRAY p_what LOOP
        v_sql := format('GRANT %s TO %s', v_what, p_role);
        EXECUTE v_sql;
        RETURN NEXT v_sql;
    END LOOP;
END
$$;
