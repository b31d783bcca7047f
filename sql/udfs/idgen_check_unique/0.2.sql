CREATE OR REPLACE FUNCTION @extschema@.idgen_check_unique(tbl regclass, col name) RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT SECURITY INVOKER SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
    coltype regtype;
    id_expr text;
    dup_values bigint;
BEGIN
    SELECT a.atttypid::regtype INTO coltype FROM pg_attribute AS a
    WHERE a.attrelid = tbl AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', col, tbl
            USING ERRCODE = 'undefined_column';
    END IF;
    -- only integer-valued columns can name the duplicate as an idgen
    id_expr := CASE WHEN coltype IN ('bigint'::regtype, '@extschema@.idgen'::regtype)
                    THEN 'v::bigint::@extschema@.idgen' ELSE 'NULL' END;
    EXECUTE format(
        'WITH d AS (SELECT %1$I AS v, count(*) AS n FROM %2$s WHERE %1$I IS NOT NULL GROUP BY 1 HAVING count(*) > 1),
              ins AS (INSERT INTO idgen.collision (id, first_owner, second_owner, detail)
                      SELECT %3$s, %4$L, %4$L, format(''value %%s appears %%s times'', v, n) FROM d)
         SELECT count(*) FROM d', col, tbl, id_expr, tbl::text || '.' || quote_ident(col))
    INTO dup_values;
    INSERT INTO idgen.audit_log (action, detail)
    VALUES ('check_unique', format('%s.%s: %s duplicated values', tbl, col, dup_values));
    RETURN dup_values;
END
$$;
