--
-- The upgrade chain: install the first release and walk ALTER EXTENSION
-- UPDATE to the current one, checking each step works; then compare every
-- object of the extension, definition by definition, with a fresh install
-- of the current script (assembled from sql/install/).  Any difference is
-- listed with both definitions and fails the test.
--
SET client_min_messages = warning;
SELECT current_database() AS origdb \gset
SELECT default_version AS current_version FROM pg_available_extensions WHERE name = 'idgen' \gset

-- What the extension is made of, one row per fact, named so that the same
-- object has the same name in any database: functions with their whole
-- definition and attributes; types; tables and views with their columns,
-- constraints, indexes, triggers, policies, rules, queries; sequences;
-- operators, operator classes and every member of their families; casts;
-- the schema; privileges, also pg_dump's baseline (pg_init_privs);
-- comments; the tables pg_dump keeps and their conditions; the rows the
-- scripts put into the tables.  It is run in both databases below.
SELECT $describe$
CREATE FUNCTION pg_temp.idgen_objects(OUT kind text, OUT name text, OUT definition text)
RETURNS SETOF record LANGUAGE sql STABLE AS $f$
WITH ext AS (
    SELECT oid, extconfig, extcondition FROM pg_extension WHERE extname = 'idgen'
), member AS (
    SELECT d.classid, d.objid, d.objsubid
    FROM pg_depend d, ext
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
), rel AS (
    SELECT c.* FROM pg_class c JOIN member m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid
)
-- which objects belong to the extension at all
SELECT 'member', pg_describe_object(classid, objid, objsubid), ''
FROM member
UNION ALL
-- functions: the whole definition, and each attribute on its own line
-- (pg_get_functiondef() refuses aggregates: theirs is pg_aggregate's row)
SELECT 'function', p.oid::regprocedure::text,
       CASE WHEN p.prokind = 'a' THEN
           (SELECT format('aggregate kind %s transfn %s finalfn %s combinefn %s serialfn %s '
                          'deserialfn %s sortop %s transtype %s transspace %s initval %s',
                          a.aggkind, a.aggtransfn::regprocedure, a.aggfinalfn, a.aggcombinefn::regprocedure,
                          a.aggserialfn, a.aggdeserialfn, a.aggsortop::regoperator,
                          a.aggtranstype::regtype, a.aggtransspace, a.agginitval)
            FROM pg_aggregate a WHERE a.aggfnoid = p.oid)
       ELSE pg_get_functiondef(p.oid) END || E'\n' ||
       format('kind %s volatile %s strict %s parallel %s secdef %s leakproof %s cost %s rows %s config %s',
              p.prokind, p.provolatile, p.proisstrict, p.proparallel, p.prosecdef,
              p.proleakproof, p.procost, p.prorows, p.proconfig)
FROM pg_proc p JOIN member m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
UNION ALL
SELECT 'type', t.oid::regtype::text,
       format('type %s len %s byval %s align %s storage %s category %s preferred %s delim %s '
              'in %s out %s recv %s send %s modin %s modout %s analyze %s subscript %s elem %s '
              'array %s relid %s notnull %s basetype %s typmod %s collation %s default %s',
              t.typtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory,
              t.typispreferred, t.typdelim, t.typinput::regprocedure, t.typoutput::regprocedure,
              t.typreceive, t.typsend, t.typmodin, t.typmodout, t.typanalyze, t.typsubscript,
              t.typelem::regtype, t.typarray::regtype, t.typrelid::regclass, t.typnotnull,
              t.typbasetype::regtype, t.typtypmod, t.typcollation, t.typdefault)
FROM pg_type t JOIN member m ON m.classid = 'pg_type'::regclass AND m.objid = t.oid
UNION ALL
-- relations: kind and options, then columns in order, constraints, indexes,
-- triggers, policies, the view's query, the sequence's parameters
SELECT 'relation', c.oid::regclass::text,
       format('kind %s persistence %s options %s rowsecurity %s forcerowsecurity %s replident %s',
              c.relkind, c.relpersistence, c.reloptions, c.relrowsecurity,
              c.relforcerowsecurity, c.relreplident)
FROM rel c
UNION ALL
SELECT 'column', a.attrelid::regclass::text || '.' || a.attname,
       format('position %s type %s notnull %s default %s identity %s generated %s collation %s '
              'storage %s stattarget %s acl %s',
              row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum),
              format_type(a.atttypid, a.atttypmod), a.attnotnull,
              pg_get_expr(ad.adbin, ad.adrelid), a.attidentity, a.attgenerated,
              a.attcollation, a.attstorage, a.attstattarget, a.attacl)
FROM pg_attribute a
JOIN rel c ON c.oid = a.attrelid
LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint', co.conrelid::regclass::text || ' ' || co.conname,
       format('%s deferrable %s deferred %s validated %s', pg_get_constraintdef(co.oid),
              co.condeferrable, co.condeferred, co.convalidated)
FROM pg_constraint co JOIN rel c ON c.oid = co.conrelid
UNION ALL
SELECT 'index', i.indexrelid::regclass::text,
       pg_get_indexdef(i.indexrelid) || format(' primary %s unique %s clustered %s',
                                               i.indisprimary, i.indisunique, i.indisclustered)
FROM pg_index i JOIN rel c ON c.oid = i.indrelid
UNION ALL
SELECT 'trigger', tg.tgrelid::regclass::text || ' ' || tg.tgname,
       pg_get_triggerdef(tg.oid) || ' enabled ' || tg.tgenabled::text
FROM pg_trigger tg JOIN rel c ON c.oid = tg.tgrelid
WHERE NOT tg.tgisinternal
UNION ALL
SELECT 'policy', po.polrelid::regclass::text || ' ' || po.polname,
       format('%s %s %s using %s check %s', po.polcmd, po.polpermissive, po.polroles,
              pg_get_expr(po.polqual, po.polrelid), pg_get_expr(po.polwithcheck, po.polrelid))
FROM pg_policy po JOIN rel c ON c.oid = po.polrelid
UNION ALL
SELECT 'rule', r.ev_class::regclass::text || ' ' || r.rulename, pg_get_ruledef(r.oid)
FROM pg_rewrite r JOIN rel c ON c.oid = r.ev_class
WHERE r.rulename <> '_RETURN'
UNION ALL
SELECT 'view', c.oid::regclass::text, pg_get_viewdef(c.oid)
FROM rel c WHERE c.relkind IN ('v', 'm')
UNION ALL
SELECT 'sequence', s.seqrelid::regclass::text,
       format('type %s start %s increment %s max %s min %s cache %s cycle %s owned by %s',
              s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmax, s.seqmin,
              s.seqcache, s.seqcycle,
              (SELECT pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) FROM pg_depend d
               WHERE d.classid = 'pg_class'::regclass AND d.objid = s.seqrelid AND d.deptype = 'a'))
FROM pg_sequence s JOIN rel c ON c.oid = s.seqrelid
UNION ALL
SELECT 'operator', o.oid::regoperator::text,
       format('result %s code %s negator %s commutator %s restrict %s join %s merges %s hashes %s',
              o.oprresult::regtype, o.oprcode::regprocedure, o.oprnegate::regoperator,
              o.oprcom::regoperator, o.oprrest, o.oprjoin, o.oprcanmerge, o.oprcanhash)
FROM pg_operator o JOIN member m ON m.classid = 'pg_operator'::regclass AND m.objid = o.oid
UNION ALL
SELECT 'operator class', am.amname || ' ' || oc.opcnamespace::regnamespace || '.' || oc.opcname,
       format('family %s.%s type %s default %s storage %s',
              of.opfnamespace::regnamespace, of.opfname, oc.opcintype::regtype,
              oc.opcdefault, oc.opckeytype::regtype)
FROM pg_opclass oc
JOIN member m ON m.classid = 'pg_opclass'::regclass AND m.objid = oc.oid
JOIN pg_am am ON am.oid = oc.opcmethod
JOIN pg_opfamily of ON of.oid = oc.opcfamily
UNION ALL
-- the families' members, whichever command added them
SELECT 'operator family member',
       am.amname || ' ' || of.opfnamespace::regnamespace || '.' || of.opfname || ' '
       || format('operator %s (%s, %s)', ao.amopstrategy, ao.amoplefttype::regtype, ao.amoprighttype::regtype),
       format('%s purpose %s sortfamily %s', ao.amopopr::regoperator, ao.amoppurpose, ao.amopsortfamily)
FROM pg_amop ao
JOIN pg_opfamily of ON of.oid = ao.amopfamily
JOIN pg_am am ON am.oid = of.opfmethod
WHERE of.oid IN (SELECT opcfamily FROM pg_opclass oc JOIN member m ON m.classid = 'pg_opclass'::regclass AND m.objid = oc.oid
                 UNION SELECT objid FROM member WHERE classid = 'pg_opfamily'::regclass)
UNION ALL
SELECT 'operator family member',
       am.amname || ' ' || of.opfnamespace::regnamespace || '.' || of.opfname || ' '
       || format('function %s (%s, %s)', ap.amprocnum, ap.amproclefttype::regtype, ap.amprocrighttype::regtype),
       ap.amproc::regprocedure::text
FROM pg_amproc ap
JOIN pg_opfamily of ON of.oid = ap.amprocfamily
JOIN pg_am am ON am.oid = of.opfmethod
WHERE of.oid IN (SELECT opcfamily FROM pg_opclass oc JOIN member m ON m.classid = 'pg_opclass'::regclass AND m.objid = oc.oid
                 UNION SELECT objid FROM member WHERE classid = 'pg_opfamily'::regclass)
UNION ALL
SELECT 'cast', format('%s -> %s', ca.castsource::regtype, ca.casttarget::regtype),
       format('function %s context %s method %s', ca.castfunc::regprocedure, ca.castcontext, ca.castmethod)
FROM pg_cast ca JOIN member m ON m.classid = 'pg_cast'::regclass AND m.objid = ca.oid
UNION ALL
SELECT 'schema', n.nspname, format('acl %s', n.nspacl)
FROM pg_namespace n JOIN member m ON m.classid = 'pg_namespace'::regclass AND m.objid = n.oid
UNION ALL
-- privileges as they stand and as pg_dump's baseline (pg_init_privs)
SELECT 'acl', pg_describe_object(m.classid, m.objid, 0),
       coalesce((SELECT c.relacl::text FROM pg_class c WHERE m.classid = 'pg_class'::regclass AND c.oid = m.objid),
                (SELECT p.proacl::text FROM pg_proc p WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid),
                (SELECT t.typacl::text FROM pg_type t WHERE m.classid = 'pg_type'::regclass AND t.oid = m.objid),
                (SELECT n.nspacl::text FROM pg_namespace n WHERE m.classid = 'pg_namespace'::regclass AND n.oid = m.objid),
                'default')
FROM member m
UNION ALL
SELECT 'initial privileges', pg_describe_object(ip.classoid, ip.objoid, ip.objsubid),
       format('%s %s', ip.privtype, ip.initprivs)
FROM pg_init_privs ip JOIN member m ON m.classid = ip.classoid AND m.objid = ip.objoid
UNION ALL
-- comments on the members, on their columns, on constraints, triggers and
-- operator families of member tables and classes
SELECT 'comment', pg_describe_object(de.classoid, de.objoid, de.objsubid), de.description
FROM pg_description de
WHERE (de.classoid, de.objoid) IN (SELECT classid, objid FROM member)
   OR (de.classoid = 'pg_constraint'::regclass AND de.objoid IN (SELECT co.oid FROM pg_constraint co JOIN rel ON rel.oid = co.conrelid))
   OR (de.classoid = 'pg_trigger'::regclass AND de.objoid IN (SELECT tg.oid FROM pg_trigger tg JOIN rel ON rel.oid = tg.tgrelid))
   OR (de.classoid = 'pg_class'::regclass AND de.objoid IN (SELECT i.indexrelid FROM pg_index i JOIN rel ON rel.oid = i.indrelid))
UNION ALL
-- the configuration tables pg_dump keeps, with their conditions
SELECT 'config dump', u.config::regclass::text, format('position %s condition %L', u.n, u.condition)
FROM ext, unnest(ext.extconfig, ext.extcondition) WITH ORDINALITY AS u(config, condition, n)
UNION ALL
SELECT 'extension', e.extname,
       format('version %s schema %s relocatable %s', e.extversion, e.extnamespace::regnamespace, e.extrelocatable)
FROM pg_extension e, ext WHERE e.oid = ext.oid
UNION ALL
-- the rows the scripts put into the tables (less the time they did it):
-- those pg_dump leaves to the script, outside the configuration condition
SELECT 'rows', c.oid::regclass::text,
       query_to_xml(format('SELECT %s FROM %s WHERE NOT coalesce((%s), false) ORDER BY 1',
                           (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
                            FROM pg_attribute a
                            LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                            WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                              AND coalesce(pg_get_expr(ad.adbin, ad.adrelid), '') !~ 'now\(\)|clock_timestamp\(\)'),
                           c.oid::regclass,
                           coalesce((SELECT CASE WHEN u.condition = '' THEN 'true'
                                                 ELSE regexp_replace(u.condition, '^\s*WHERE\s', '', 'i') END
                                     FROM ext, unnest(ext.extconfig, ext.extcondition) AS u(config, condition)
                                     WHERE u.config = c.oid), 'false')),
                    false, false, '')::text
FROM rel c WHERE c.relkind = 'r'
$f$;
$describe$ AS describe \gset

DROP DATABASE IF EXISTS idgen_fresh;
CREATE DATABASE idgen_fresh;
DROP DATABASE IF EXISTS idgen_upgrade;
CREATE DATABASE idgen_upgrade;

-- a fresh install: the current script alone
\c idgen_fresh
SET client_min_messages = warning;
CREATE EXTENSION idgen;
SELECT extversion = :'current_version' AS fresh_at_current_version FROM pg_extension WHERE extname = 'idgen';
:describe
SELECT json_agg(json_build_array(kind, name, definition)) AS fresh FROM pg_temp.idgen_objects() \gset
-- every fact is named once, so the comparison below pairs them one to one
SELECT count(*) > 1000 AS described, count(*) = count(DISTINCT (kind, name)) AS names_unique
FROM pg_temp.idgen_objects();

\c idgen_upgrade
SET client_min_messages = warning;
CREATE EXTENSION idgen VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT idgen_next() > idgen_min_at('2026-01-01') AS generates;
SELECT state IS NOT NULL AS has_state, cardinality(proargnames) AS status_columns
FROM idgen_status(), pg_proc WHERE proname = 'idgen_status';
SELECT count(*) FROM information_schema.columns WHERE table_schema = 'idgen' AND table_name = 'worker_lease';

ALTER EXTENSION idgen UPDATE TO '0.2';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT state IS NOT NULL AND owner IS NOT NULL AS has_lease_columns, cardinality(proargnames) AS status_columns
FROM idgen_status(), pg_proc WHERE proname = 'idgen_status';
SELECT count(*) > 0 AS has_worker_lease FROM information_schema.columns
WHERE table_schema = 'idgen' AND table_name = 'worker_lease';

ALTER EXTENSION idgen UPDATE TO '0.3';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT substr(idgen_next128()::text, 15, 1) = '7' AS generates_uuidv7;
SELECT count(*) = 3 AS keyed_batch FROM idgen_next_batch(3, 'upgrade-test');

ALTER EXTENSION idgen UPDATE TO '0.4';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT idgen_unmask(idgen_mask(x)) = x AS mask_round_trip FROM (SELECT idgen_next() AS x) AS s;
SELECT idgen_next() >= now() - interval '1 minute' AS time_predicate;

ALTER EXTENSION idgen UPDATE TO '0.5';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';

ALTER EXTENSION idgen UPDATE TO '0.6';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';

ALTER EXTENSION idgen UPDATE TO '0.7';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';

ALTER EXTENSION idgen UPDATE TO '0.8';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';

ALTER EXTENSION idgen UPDATE TO '0.9';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';

-- the chain ends where a fresh install starts
SELECT extversion = :'current_version' AS at_current_version FROM pg_extension WHERE extname = 'idgen';

-- and has made the same objects: every difference, with both definitions
:describe
SELECT coalesce(w.kind, f.kind) AS kind, coalesce(w.name, f.name) AS name,
       w.definition AS after_upgrade, f.definition AS fresh_install
FROM pg_temp.idgen_objects() AS w
FULL JOIN (SELECT x->>0 AS kind, x->>1 AS name, x->>2 AS definition
           FROM json_array_elements(:'fresh'::json) AS x) AS f
       ON f.kind = w.kind AND f.name = w.name
WHERE w.definition IS DISTINCT FROM f.definition
ORDER BY 1, 2;

\c :origdb
DROP DATABASE idgen_upgrade;
DROP DATABASE idgen_fresh;

-- a node's role granted its rights on 0.8 keeps them on 0.9, where the
-- lease functions call idgen.held_region_bounds(), without running
-- idgen_grant_node() again (in a database of its own: the grant the
-- upgrade makes is an initial privilege of the extension there)
CREATE DATABASE idgen_upgrade_grants;
\c idgen_upgrade_grants
SET client_min_messages = error;
CREATE EXTENSION idgen VERSION '0.8';
CREATE ROLE idgen_upgrade_node;
SELECT count(*) > 0 AS granted_on_08 FROM idgen_grant_node('idgen_upgrade_node');
RESET client_min_messages;
ALTER EXTENSION idgen UPDATE TO '0.9';
SELECT has_function_privilege('idgen_upgrade_node', 'idgen.held_region_bounds(integer, timestamptz, interval)',
                              'EXECUTE') AS node_role_keeps_its_rights,
       has_function_privilege('public', 'idgen.held_region_bounds(integer, timestamptz, interval)',
                              'EXECUTE') AS public_has_it;
\c :origdb
DROP DATABASE idgen_upgrade_grants;
DROP ROLE idgen_upgrade_node;
