--
-- Region leases on the root registry (issue 22, item 1): grant, the same
-- owner again, renewal, wrong generation and owner, takeover above the old
-- end plus the allowance, fence, release with and without the final mark,
-- the incarnation hold, durability, the ttl bounds, privileges.  The rule
-- each check keeps is named (G1-G3, R6; docs/regions.md).  Times are
-- compared with each other, never printed; the clock is moved with
-- idgen.test_clock_offset (this session only).
--

\set SHOW_CONTEXT never
-- region leases live in the registry database only
SELECT idgen_lease_region('test-region-a', 1, interval '1 hour');

\c postgres
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS idgen;
RESET client_min_messages;

-- a call's refusal as "SQLSTATE: message", times and generations masked
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' ||
           regexp_replace(regexp_replace(SQLERRM, ' until .*$', ' until <time>'),
                          'generation \d+', 'generation <n>', 'g');
END
$$;

-- arguments: a ttl below 10 s, in full
SELECT idgen_lease_region('test-region-a', 1, interval '9 s');
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 1, interval '9 s')$$) AS ttl_9s;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 1, interval '25 hours')$$) AS ttl_25h;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 1, interval '1 hour', interval '-1 s')$$) AS negative_allowance;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 1, interval '1 hour', interval '3 hours 1 s')$$) AS allowance_above_3h;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 8, interval '1 hour')$$) AS region_8;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', -1, interval '1 hour')$$) AS region_minus_1;
SELECT pg_temp.try($$SELECT idgen_lease_region('', 1, interval '1 hour')$$) AS empty_owner;
SELECT pg_temp.try($$SELECT idgen_lease_region(E'a\nb', 1, interval '1 hour')$$) AS control_character;
SELECT pg_temp.try($$SELECT idgen_lease_region(NULL, 1, interval '1 hour')$$) AS null_owner;
SELECT pg_temp.try($$SELECT idgen_renew_region(1, NULL)$$) AS null_generation;
SELECT pg_temp.try($$SELECT idgen_fence_region(1)$$) AS fence_never_leased;
SELECT count(*) AS rows_after_refusals FROM idgen.region_lease;

-- a grant (G1): a generation, the end one ttl ahead on the root's clock,
-- no floor for a region never leased
SELECT idgen.clock() AS t0 \gset
SELECT generation AS a_gen, lease_until AS a_until, start_after AS a_floor
FROM idgen_lease_region('test-region-a', 1, interval '1 hour', interval '2 s') \gset
SELECT :a_gen > 0 AS has_generation,
       :'a_until'::timestamptz >= :'t0'::timestamptz + interval '1 hour' AS ends_one_ttl_ahead,
       :'a_until'::timestamptz <= idgen.clock() + interval '1 hour' AS ends_no_later,
       :'a_floor' = '-infinity' AS no_floor;
SELECT region, owner, generation = :a_gen AS same_generation, live, confirmed_epoch,
       allowance, ttl
FROM idgen.regions ORDER BY region;

-- another owner is refused while the lease runs (G1)
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-b', 1, interval '1 hour')$$) AS other_owner;

-- the same owner again (its restart or failover): its running lease back,
-- same generation, same floor, not ended earlier (G1)
SELECT generation = :a_gen AS same_generation, lease_until >= :'a_until' AS not_earlier,
       start_after = :'a_floor' AS same_floor
FROM idgen_lease_region('test-region-a', 1, interval '1 hour');

-- renewals (G1): by generation, with the owner, its mark and the epoch it
-- confirms; never with a wrong generation or owner, or an unknown epoch
SELECT idgen_renew_region(1, :a_gen) >= :'a_until' AS renewed;
SELECT idgen_renew_region(1, :a_gen, 'test-region-a', :'t0'::timestamptz + interval '5 min', 1)
       >= :'a_until' AS renewed_with_mark;
SELECT confirmed_epoch, high_water = :'t0'::timestamptz + interval '5 min' AS mark_recorded,
       last_renewal >= :'t0' AS last_renewal_recorded
FROM idgen.regions WHERE region = 1;
-- a lower mark lowers nothing
SELECT idgen_renew_region(1, :a_gen, high_water => :'t0'::timestamptz) IS NOT NULL AS renewed;
SELECT high_water = :'t0'::timestamptz + interval '5 min' AS mark_kept FROM idgen.regions WHERE region = 1;
SELECT pg_temp.try(format('SELECT idgen_renew_region(1, %s)', :a_gen + 1)) AS wrong_generation;
SELECT pg_temp.try(format('SELECT idgen_renew_region(1, %s, %L)', :a_gen, 'test-region-b')) AS wrong_owner;
SELECT pg_temp.try(format('SELECT idgen_renew_region(2, %s)', :a_gen)) AS wrong_region;
SELECT pg_temp.try(format('SELECT idgen_renew_region(1, %s, confirmed_epoch => 99)', :a_gen)) AS unknown_epoch;

-- durability (R6): a session at synchronous_commit = local or off commits
-- a grant or renewal with on
BEGIN;
SET LOCAL synchronous_commit = local;
SELECT idgen_renew_region(1, :a_gen) IS NOT NULL AS renewed;
SHOW synchronous_commit;
COMMIT;
BEGIN;
SET LOCAL synchronous_commit = off;
SELECT generation = :a_gen AS same_generation FROM idgen_lease_region('test-region-a', 1, interval '1 hour');
SHOW synchronous_commit;
COMMIT;

-- takeover (G2): a lease that ran out and was not given back is granted
-- to another owner above its end plus its owner's allowance
SELECT generation AS c_gen, lease_until AS c_until
FROM idgen_lease_region('test-region-a', 2, interval '10 s', interval '3 s') \gset
SET idgen.test_clock_offset = '1 min';
-- on the root's clock the lease ran out: renewing it is refused (G1)
SELECT pg_temp.try(format('SELECT idgen_renew_region(2, %s)', :c_gen)) AS renew_after_end;
SELECT generation AS d_gen, start_after AS d_floor
FROM idgen_lease_region('test-region-b', 2, interval '10 s') \gset
SELECT :d_gen > :c_gen AS generation_raised,
       :'d_floor'::timestamptz = :'c_until'::timestamptz + interval '3 s' AS starts_above_end_plus_allowance;
SELECT pg_temp.try(format('SELECT idgen_release_region(2, %s)', :c_gen)) AS old_owner_release;
-- the old owner, asking again, is refused while the new lease runs
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 2, interval '10 s')$$) AS old_owner_again;
RESET idgen.test_clock_offset;

-- fence (G1, G2): the generation rises, the owner's renewals and release
-- fail, the next owner starts above the lease's end plus the allowance
SELECT lease_until AS f_until FROM idgen.region_lease WHERE region = 1 \gset
SELECT idgen_fence_region(1);
SELECT owner, generation > :a_gen AS generation_raised, live,
       high_water = :'f_until'::timestamptz + interval '2 s' AS mark_end_plus_allowance
FROM idgen.regions WHERE region = 1;
SELECT pg_temp.try(format('SELECT idgen_renew_region(1, %s)', :a_gen)) AS fenced_renewal;
SELECT pg_temp.try(format('SELECT idgen_release_region(1, %s)', :a_gen)) AS fenced_release;
-- a fence frees the region only at the fenced lease's end on the root's
-- clock, to its owner as well: a root that lost the fence and a grant
-- after it must find the fenced lease run out in its copy, or the fenced
-- owner would renew it there while the new owner holds the region (G1)
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-b', 1, interval '1 hour')$$) AS other_before_fenced_end;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 1, interval '1 hour')$$) AS owner_before_fenced_end;
SET idgen.test_clock_offset = '2 h';
SELECT generation AS e_gen, start_after = :'f_until'::timestamptz + interval '2 s' AS starts_above_fence
FROM idgen_lease_region('test-region-b', 1, interval '1 hour') \gset
\echo :starts_above_fence
RESET idgen.test_clock_offset;
SELECT :e_gen > :a_gen + 1 AS generation_above_fence;

-- the fence and the grant after it lost (the root failed over to a copy
-- without them, or was restored from a dump taken before them): in the
-- copy the fenced owner's lease has run out by the time anyone else could
-- be granted the region, so its renewal is refused in the hold too (G1, G3)
SELECT generation AS k_gen FROM idgen_lease_region('test-region-a', 7, interval '1 hour') \gset
CREATE TEMP TABLE region_copy AS SELECT * FROM idgen.region_lease WHERE region = 7;
SELECT idgen_fence_region(7);
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-b', 7, interval '1 hour')$$) AS other_after_fence;
SET idgen.test_clock_offset = '2 h';
SELECT generation IS NOT NULL AS granted_at_fenced_end FROM idgen_lease_region('test-region-b', 7, interval '1 hour');
BEGIN;
UPDATE idgen.region_lease AS x
SET owner = c.owner, generation = c.generation, lease_until = c.lease_until, high_water = c.high_water,
    grant_floor = c.grant_floor, ttl = c.ttl, allowance = c.allowance
FROM region_copy AS c WHERE x.region = c.region;
UPDATE idgen.registry_incarnation SET since = idgen.clock();
SELECT pg_temp.try(format('SELECT idgen_renew_region(7, %s, %L)', :k_gen, 'test-region-a')) AS fenced_owner_renews_copy;
ROLLBACK;
RESET idgen.test_clock_offset;

-- release (G6's last step, G2): the final mark is the next owner's floor;
-- a mark below the floor the grant started above lowers nothing
SELECT idgen_release_region(1, :e_gen, 'test-region-b', :'f_until'::timestamptz + interval '1 hour');
SELECT owner, live, high_water = :'f_until'::timestamptz + interval '1 hour' AS final_mark
FROM idgen.regions WHERE region = 1;
SELECT generation AS g_gen, start_after = :'f_until'::timestamptz + interval '1 hour' AS starts_above_mark
FROM idgen_lease_region('test-region-a', 1, interval '1 hour') \gset
\echo :starts_above_mark
SELECT idgen_release_region(1, :g_gen, high_water => :'t0'::timestamptz);
SELECT high_water = :'f_until'::timestamptz + interval '1 hour' AS mark_not_lowered
FROM idgen.regions WHERE region = 1;
SELECT pg_temp.try(format('SELECT idgen_release_region(1, %s)', :g_gen)) AS released_twice;
-- without a final mark the lease's end plus the allowance is the mark
SELECT generation AS h_gen, lease_until AS h_until
FROM idgen_lease_region('test-region-a', 3, interval '1 hour', interval '4 s') \gset
SELECT idgen_release_region(3, :h_gen);
SELECT high_water = :'h_until'::timestamptz + interval '4 s' AS mark_end_plus_allowance
FROM idgen.regions WHERE region = 3;

-- the incarnation hold (G3): after a change of the root's incarnation no
-- region is granted, to the same owner neither, for the longest region
-- lease plus the allowance; renewals go on
SELECT generation AS i_gen FROM idgen_lease_region('test-region-a', 4, interval '1 hour') \gset
BEGIN;
UPDATE idgen.registry_incarnation SET since = idgen.clock();
SELECT idgen.region_hold_until() >= idgen.clock() + interval '1 day' AS holds_a_day;
-- a grant the root lost may have had any allowance a grant may have (at
-- most 3 hours, below): the hold covers it, whatever the rows it has say
SELECT idgen.region_hold_until() >= since + interval '27 hours' AS holds_past_any_allowance
FROM idgen.registry_incarnation;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-b', 5, interval '1 hour')$$) AS grant_in_hold;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-a', 4, interval '1 hour')$$) AS same_owner_in_hold;
SELECT idgen_renew_region(4, :i_gen) IS NOT NULL AS renewal_in_hold;
ROLLBACK;
SELECT idgen.region_hold_until() AS hold_now;

-- the ttl counts in seconds on every clock, whatever the session's time
-- zone: a 1-day lease across a change to daylight saving time ends
-- 86,400 s after the root's clock read at the grant, as the owner counts
-- it from its request (G1), and so do its renewals and the hold (G3)
SET TimeZone = 'Europe/Berlin';
SELECT extract(epoch FROM timestamptz '2030-03-30 12:00:00+01' - idgen.clock()) * 1000 AS to_dst_ms \gset
SELECT set_config('idgen.test_clock_offset_days', floor(:to_dst_ms / 86400000)::bigint::text, false) IS NOT NULL AS days_set,
       set_config('idgen.test_clock_offset',
                  round(:to_dst_ms - floor(:to_dst_ms / 86400000) * 86400000)::bigint::text, false) IS NOT NULL AS ms_set;
-- (region 5: this instance's own node issues in region 0, where a root that
-- leased it out would refuse the node's renewals)
SELECT generation AS m_gen FROM idgen_lease_region('test-region-a', 5, interval '1 day') \gset
SELECT extract(epoch FROM lease_until - acquired_at) AS lease_seconds, extract(epoch FROM ttl) AS ttl_seconds
FROM idgen.region_lease WHERE region = 5;
SELECT idgen_renew_region(5, :m_gen) IS NOT NULL AS renewed;
SELECT extract(epoch FROM lease_until - renewed_at) AS renewed_seconds FROM idgen.region_lease WHERE region = 5;
BEGIN;
UPDATE idgen.registry_incarnation SET since = idgen.clock();
SELECT extract(epoch FROM idgen.region_hold_until() - since) >= 86400 + 3 * 3600 AS hold_seconds_cover_a_day
FROM idgen.registry_incarnation;
ROLLBACK;
RESET idgen.test_clock_offset;
RESET idgen.test_clock_offset_days;
RESET TimeZone;

-- G7: the same owner may not raise its allowance so far that its running
-- lease's IDs reach a scheduled layout epoch (one inserted by hand here,
-- rolled back, just past the lease's end)
BEGIN;
SELECT lease_until AS ep_until FROM idgen_lease_region('test-region-e', 6, interval '1 hour', interval '1 s') \gset
INSERT INTO idgen.epoch (version, start_time, epoch_start, time_bits, region_bits, worker_bits, seq_bits, horizon)
SELECT (SELECT max(version) + 1 FROM idgen.epoch), :'ep_until'::timestamptz + interval '10 s',
       epoch_start, time_bits, region_bits, worker_bits, seq_bits, horizon
FROM idgen.epoch WHERE version = 1;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-e', 6, interval '1 hour', interval '1 minute')$$)
       ~ '^55000: cannot raise region 6''s allowance to .*: layout epoch \d+ applies from' AS larger_allowance_refused;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-e', 6, interval '1 hour', interval '2 s')$$) AS small_raise;
SELECT l.lease_until + l.allowance < :'ep_until'::timestamptz + interval '10 s' AS still_ends_before_epoch
FROM idgen.region_lease AS l WHERE l.region = 6;
ROLLBACK;

-- privileges: PUBLIC may call none of it; idgen_grant_region_registry()
-- gives a role the three calls of a regional registry, not the fence or
-- the tables; only the extension's owner may call it
SELECT p.oid::regprocedure AS function, has_function_privilege('public', p.oid, 'EXECUTE') AS public_may
FROM pg_proc AS p
WHERE p.proname IN ('idgen_lease_region', 'idgen_renew_region', 'idgen_release_region',
                    'idgen_fence_region', 'idgen_grant_region_registry', 'region_hold_until',
                    'restore_region_lease')
ORDER BY p.oid::regprocedure::text COLLATE "C";
SELECT has_table_privilege('public', 'idgen.region_lease', 'SELECT') AS public_reads_table,
       has_table_privilege('public', 'idgen.regions', 'SELECT') AS public_reads_view,
       has_table_privilege('pg_monitor', 'idgen.regions', 'SELECT') AS monitor_reads_view;
CREATE ROLE idgen_region_registry LOGIN;
CREATE ROLE idgen_region_nobody;
SET ROLE idgen_region_nobody;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-c', 6, interval '1 hour')$$) AS nobody_leases;
SELECT pg_temp.try($$SELECT idgen_grant_region_registry('idgen_region_nobody')$$) AS nobody_grants;
RESET ROLE;
SELECT idgen_grant_region_registry('idgen_region_registry');
-- a second call runs the same statements and gives nothing more
SELECT count(*) AS same_statements FROM idgen_grant_region_registry('idgen_region_registry');
SELECT has_function_privilege('idgen_region_registry', 'idgen_fence_region(integer)', 'EXECUTE') AS may_fence,
       has_table_privilege('idgen_region_registry', 'idgen.region_lease', 'SELECT') AS reads_table;
SET ROLE idgen_region_registry;
SELECT generation AS j_gen FROM idgen_lease_region('test-region-c', 6, interval '1 hour') \gset
SELECT idgen_renew_region(6, :j_gen, 'test-region-c') IS NOT NULL AS renewed;
SELECT idgen_release_region(6, :j_gen, 'test-region-c', idgen.clock());
SELECT pg_temp.try($$SELECT idgen_fence_region(6)$$) AS registry_fences;
SELECT pg_temp.try($$SELECT * FROM idgen.regions$$) AS registry_reads_view;
RESET ROLE;
-- a node's role (idgen_grant_node) calls none of it either, and its lease
-- path's incarnation check runs as before
CREATE ROLE idgen_region_node;
SELECT count(*) > 0 AS node_granted FROM idgen_grant_node('idgen_region_node');
SET ROLE idgen_region_node;
SELECT pg_temp.try($$SELECT idgen_lease_region('test-region-n', 6, interval '1 hour')$$) AS node_leases_region;
SELECT pg_temp.try($$SELECT idgen_fence_region(6)$$) AS node_fences;
SELECT pg_temp.try($$SELECT idgen.region_hold_until()$$) AS node_reads_hold;
SELECT pg_temp.try($$SELECT idgen.registry_incarnation_check()$$) AS node_incarnation_check;
RESET ROLE;

-- idgen_schedule_layout() on a root (G7), each refusal on simulated rows
-- (rolled back; nothing is scheduled): a released region's final mark
-- counts as its end, a leased region must fit the new layout, and a new
-- incarnation holds
BEGIN;
DELETE FROM idgen.region_lease;
INSERT INTO idgen.region_lease (region, generation, high_water)
VALUES (6, 1, idgen.clock() + interval '2 hours');
SELECT pg_temp.try(format('SELECT idgen_schedule_layout(%L, %s)', idgen.clock() + interval '1 hour',
                          (SELECT region_bits || ', ' || worker_bits || ', ' || seq_bits FROM idgen.epoch WHERE version = 1)))
       ~ '^22023: cannot schedule layout .* region leases run past it$' AS released_mark_counts;
DELETE FROM idgen.region_lease;
INSERT INTO idgen.region_lease (region, owner, generation, lease_until, allowance)
VALUES (6, 'test-region-a', 1, idgen.clock() + interval '1 minute', interval '1 s');
SELECT pg_temp.try(format('SELECT idgen_schedule_layout(%L, %s, %s, %s)', idgen.clock() + interval '1 hour',
                          2, (SELECT worker_bits FROM idgen.epoch WHERE version = 1),
                          (SELECT seq_bits + region_bits - 2 FROM idgen.epoch WHERE version = 1)))
       ~ '^22023: cannot schedule layout .*: region 6 does not fit it$' AS leased_region_must_fit;
UPDATE idgen.region_lease SET lease_until = idgen.clock() - interval '1 hour', owner = NULL;
UPDATE idgen.registry_incarnation SET since = idgen.clock();
SELECT pg_temp.try(format('SELECT idgen_schedule_layout(%L, %s)', idgen.clock() + interval '1 hour',
                          (SELECT region_bits || ', ' || worker_bits || ', ' || seq_bits FROM idgen.epoch WHERE version = 1)))
       ~ '^22023: cannot schedule layout .* the root may have lost region leases that run past it$' AS hold_refuses;
ROLLBACK;

-- every grant, release and fence is in the audit log
SELECT action, count(*) FROM idgen.audit_log
WHERE action LIKE 'region%'
GROUP BY action ORDER BY action COLLATE "C";

-- clean up
DROP OWNED BY idgen_region_registry;
DROP ROLE idgen_region_registry;
DROP ROLE idgen_region_nobody;
DROP OWNED BY idgen_region_node;
DROP ROLE idgen_region_node;
DELETE FROM idgen.region_lease;
