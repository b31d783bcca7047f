-- ---------------------------------------------------------------------
-- The tables pg_dump keeps, with the rows it keeps of them.  Registered
-- here, in one place, in the order the upgrade chain registers them:
-- pg_dump keeps that order, and test/sql/upgrade.sql compares it with a
-- fresh install's.  A new table goes at the end, in the upgrade script of
-- its version too; a table an upgrade makes anew moves to the end.
-- ---------------------------------------------------------------------

SELECT pg_catalog.pg_extension_config_dump('idgen.epoch', 'WHERE version > 1');
-- rows nobody ever held carry nothing: the lease functions make them on
-- the fly, and a restore of them would only collide with the new server's
SELECT pg_catalog.pg_extension_config_dump('idgen.worker_lease',
    'WHERE owner IS NOT NULL OR generation > 0 OR high_water IS NOT NULL');
SELECT pg_catalog.pg_extension_config_dump('idgen.audit_log', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.collision', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.node_control', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.range_lease', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.range_generation', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.mask_key', '');
-- retry keys come along while they live: a retry after a restore gets its
-- batch again
SELECT pg_catalog.pg_extension_config_dump('idgen.batch_request',
    'WHERE expires_at > pg_catalog.now()');
-- idgen.range_floor's row (issue 19, item 2)
SELECT pg_catalog.pg_extension_config_dump('idgen.range_floor', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.restore_marker', '');
-- the upgrade to 0.7 made idgen.gateway_request anew, after range_floor
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_request', '');
SELECT pg_catalog.pg_extension_config_dump('idgen.gateway_quota', '');
