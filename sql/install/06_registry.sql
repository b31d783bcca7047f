-- ---------------------------------------------------------------------
-- Internal functions: idgen's clock, and the lease protocol the background
-- worker runs.  Not for PUBLIC.
-- ---------------------------------------------------------------------

-- the clock idgen issues by (honours idgen.test_clock_offset), so leases
-- and high-water marks are compared on one time scale
CREATE FUNCTION idgen.clock() RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_clock' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.clock() IS 'the wall clock idgen issues IDs by';

CREATE FUNCTION idgen.node_sysid() RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_node_sysid' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION idgen.node_sysid() IS 'this instance''s system identifier, as the lease table records it';

CREATE FUNCTION idgen.wake_worker() RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_wake_worker' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.wake_worker() IS 'ask the background worker to check its lease now';
REVOKE ALL ON FUNCTION idgen.wake_worker() FROM PUBLIC;

CREATE FUNCTION idgen.set_disabled(disabled boolean, reason text) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_set_disabled' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idgen.set_disabled(boolean, text) IS 'switch issuing off or on in shared memory';
REVOKE ALL ON FUNCTION idgen.set_disabled(boolean, text) FROM PUBLIC;

-- a node of a fleet holds no lease table of its own: leases are made in
-- the shared registry, where every node sees them
\ir ../udfs/require_registry/latest.sql
COMMENT ON FUNCTION idgen.require_registry() IS 'raise unless this is the registry database (idgen.database) in a READ COMMITTED transaction';
REVOKE ALL ON FUNCTION idgen.require_registry() FROM PUBLIC;

-- one advisory-lock key serialises node leases, fences and ranges; an
-- outside lease takes its row by the row lock alone (idgen_lease_worker)
CREATE FUNCTION idgen.lock_registry() RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ SELECT pg_advisory_xact_lock(7596555481923411968) $$;
COMMENT ON FUNCTION idgen.lock_registry() IS 'transaction lock taken by node leases, fences and range leases (outside leases lock only the row they take)';
REVOKE ALL ON FUNCTION idgen.lock_registry() FROM PUBLIC;

CREATE FUNCTION idgen.audit(action text, detail text) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$ INSERT INTO idgen.audit_log (action, detail) VALUES ($1, $2) $$;
COMMENT ON FUNCTION idgen.audit(text, text) IS 'append one row to idgen.audit_log';
REVOKE ALL ON FUNCTION idgen.audit(text, text) FROM PUBLIC;

/*
 * The registry's incarnation (lease protocol v2, R7; docs/fleets.md): which
 * running instance answers the lease calls.  A promotion, a timeline
 * switch, a restore from a backup and a plain restart all look the same
 * from here (a restore cannot be told from a restart), and each may have
 * lost grants and renewals the nodes saw committed.  So for a hold after
 * the change no block is granted: every lease the lost writes may have
 * made runs out first.  Renewals of rows this instance has go on.
 */
CREATE TABLE idgen.registry_incarnation (
    system_identifier bigint NOT NULL,
    timeline          integer NOT NULL,
    postmaster_start  timestamptz NOT NULL,
    since             timestamptz,
    restart_only      boolean NOT NULL DEFAULT false,
    hold_until        timestamptz,
    local_exempt      boolean NOT NULL DEFAULT false,
    generation_floor  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX registry_incarnation_one_row ON idgen.registry_incarnation ((true));
COMMENT ON TABLE idgen.registry_incarnation IS 'the registry instance that answers lease calls (one row), and since when: grants wait a hold after it changes';
COMMENT ON COLUMN idgen.registry_incarnation.since IS 'when lease calls first met this incarnation; NULL: the first one they met, when the table was empty';
COMMENT ON COLUMN idgen.registry_incarnation.restart_only IS 'the change was a restart of the same system on the same timeline (or a restore that looks like one)';
COMMENT ON COLUMN idgen.registry_incarnation.hold_until IS 'until when no block is granted, judged at the change from the leases that may still run then; NULL: a change recorded by 0.6, judged by its rule';
COMMENT ON COLUMN idgen.registry_incarnation.local_exempt IS 'the registry''s own node is granted its block without the hold: a plain restart with no remote or outside lease that may still run';
COMMENT ON COLUMN idgen.registry_incarnation.generation_floor IS 'no generation granted in this incarnation lies below it, nor at or below one granted in an earlier incarnation, also one this registry lost';
REVOKE ALL ON idgen.registry_incarnation FROM PUBLIC;
-- not dumped: it describes the running instance, not the registry's data
-- (a physical copy carries it, and so holds; a logical restore of leases
-- is idgen.restore_worker_lease's matter)

-- the instance running now, as (system identifier, timeline, postmaster start)
CREATE FUNCTION idgen.running_incarnation(OUT system_identifier bigint, OUT timeline integer,
                                          OUT postmaster_start timestamptz)
    LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$
SELECT c.system_identifier,
       ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer,
       pg_postmaster_start_time()
FROM pg_control_system() AS c
$$;
COMMENT ON FUNCTION idgen.running_incarnation() IS 'the registry instance running now: system identifier, timeline, postmaster start';
REVOKE ALL ON FUNCTION idgen.running_incarnation() FROM PUBLIC;


/*
 * Compare the recorded incarnation with the running one, record a change
 * (since = now) and say until when no block may be granted: since plus the
 * largest lease (ttl) a lost write may have made, at least idgen.lease_ttl,
 * plus the largest drift allowance, so its IDs lie behind us too.  A
 * restart on the same timeline of a registry that never leased to anyone
 * but its own node (no remote or outside row) holds nothing: a single
 * instance does not stop its own node for a hold at every restart.
 */
-- how far apart the clocks of the registry's members may be (the registry's
-- idgen.max_skew, 0 if it turns the check off): after a failover or a
-- restore the registry's clock may run that much behind the one that
-- granted, so expiries it judges and holds it keeps allow for it
CREATE FUNCTION idgen.registry_clock_allowance() RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, interval '1 s')
$$;
COMMENT ON FUNCTION idgen.registry_clock_allowance() IS 'how far the clocks of the registry''s members may differ: its idgen.max_skew';
REVOKE ALL ON FUNCTION idgen.registry_clock_allowance() FROM PUBLIC;

/*
 * What may still run from before a change of incarnation (R7; issue 19):
 * the hold lasts as long as a lease the registry may have lost could run,
 * not as long as the longest lease it ever granted.  A lease whose row here
 * ended before the last write this copy holds (its latest grant, renewal or
 * heartbeat) had no renewal since, as a renewal needs a running lease, and
 * a released one is over.  The others may have been renewed by writes this
 * copy lacks:
 *   - a node's: its TTL counts in the hold, and the registry's own node is
 *     spared the hold only when no remote or outside lease may still run;
 *   - an outside holder's: its row keeps the worker instead, its mark
 *     raised to the change plus its TTL plus the clock allowance, so that
 *     worker alone waits while everyone else goes on.
 * Grants this copy lacks altogether are covered by the registry's own
 * idgen.lease_ttl, as before, with the largest allowance of any node.
 */
\ir ../udfs/incarnation_hold/latest.sql
COMMENT ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) IS 'at a change of incarnation: until when no block is granted (the leases that may still run, at least idgen.lease_ttl, plus allowances), and whether the registry''s own node is spared; raises the marks of outside leases that may have been renewed unseen';
REVOKE ALL ON FUNCTION idgen.incarnation_hold(timestamptz, boolean) FROM PUBLIC;

\ir ../udfs/registry_incarnation_check/latest.sql
COMMENT ON FUNCTION idgen.registry_incarnation_check(boolean) IS 'the running registry incarnation, recorded when it changed, and until when no block may be granted (to the local node, p_local, none after a plain restart with no remote or outside lease that may still run)';
REVOKE ALL ON FUNCTION idgen.registry_incarnation_check(boolean) FROM PUBLIC;

/*
 * A dump of a registry is being restored here (a trigger saw its rows).
 * The registry it was taken from may have granted and renewed after the
 * dump, and those writes are lost, like a physical copy's; and the
 * incarnation row is not in a dump, so the restore would otherwise meet a
 * "first" incarnation and hold nothing.  So a restore is a change of
 * incarnation that is no plain restart: no block is granted until a lease
 * the lost writes may have made has run out (idgen.lease_ttl, or a
 * restored node lease's TTL if longer, plus allowances and the clock
 * allowance), and generations go on above that instant's floor.  The
 * registry it came from must be stopped before this one grants.
 */
\ir ../udfs/note_restore/latest.sql
COMMENT ON FUNCTION idgen.note_restore(interval, interval) IS 'a dump is being restored into the registry: record it as a change of incarnation and hold (a restored node lease''s ttl and allowance count); returns the end of the hold';
REVOKE ALL ON FUNCTION idgen.note_restore(interval, interval) FROM PUBLIC;

-- a grant's generation: one above the row's, and never below this
-- incarnation's floor, so that no generation repeats across incarnations
-- (docs/fleets.md, "Generations")
CREATE FUNCTION idgen.next_generation(old bigint) RETURNS bigint
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT greatest(coalesce(old, 0) + 1,
                coalesce((SELECT max(i.generation_floor) FROM idgen.registry_incarnation AS i), 0))
$$;
COMMENT ON FUNCTION idgen.next_generation(bigint) IS 'the generation of a new grant or fence of a row at generation old: above it and at least the incarnation''s floor';
REVOKE ALL ON FUNCTION idgen.next_generation(bigint) FROM PUBLIC;

-- how far a holder's IDs may lie past the registry's clock (R4)
CREATE FUNCTION idgen.drift_allowance(max_drift interval, max_skew interval, ttl interval)
    RETURNS interval
    LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS
$$
-- max_skew = 0 turns the skew check off: the skew is bounded by nothing we
-- know, so take the lease's length as its bound (docs/fleets.md)
SELECT max_drift + CASE WHEN max_skew = interval '0' THEN ttl ELSE max_skew END
$$;
COMMENT ON FUNCTION idgen.drift_allowance(interval, interval, interval) IS 'how far past the registry''s clock a holder may stamp IDs: max_drift plus max_skew (plus the ttl when max_skew is 0)';
REVOKE ALL ON FUNCTION idgen.drift_allowance(interval, interval, interval) FROM PUBLIC;

-- the registry's own allowance, for outside holders that send none
CREATE FUNCTION idgen.registry_drift_allowance(ttl interval) RETURNS interval
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT idgen.drift_allowance(
    coalesce(nullif(current_setting('idgen.max_drift', true), '')::interval, interval '1 s'),
    coalesce(nullif(current_setting('idgen.max_skew', true), '')::interval, interval '1 s'),
    ttl)
$$;
COMMENT ON FUNCTION idgen.registry_drift_allowance(interval) IS 'the drift allowance by the registry''s own idgen.max_drift and idgen.max_skew';
REVOKE ALL ON FUNCTION idgen.registry_drift_allowance(interval) FROM PUBLIC;

/*
 * A row may be taken when nobody holds it, or when its lease has expired
 * and the expiry can be trusted.  An expiry written by another timeline of
 * this cluster cannot: after a promotion the old primary may still be
 * running and renewing that lease in its own copy of this table.
 */
CREATE FUNCTION idgen.row_is_free(l idgen.worker_lease, now timestamptz,
                                  sysid text, tli integer) RETURNS boolean
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
$$
SELECT l.owner IS NULL
    OR (l.lease_until <= now
        AND (l.node_sysid IS NULL OR (l.node_sysid = sysid AND l.timeline = tli)))
$$;
COMMENT ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) IS 'may this worker be taken now';
REVOKE ALL ON FUNCTION idgen.row_is_free(idgen.worker_lease, timestamptz, text, integer) FROM PUBLIC;

/*
 * Lease a block of workers for a node, here or over a connection from
 * another instance (p_remote).  Leases run by the registry's clock: a
 * node's clock decides nothing about when another node's lease ends.  The
 * high-water marks are times of the IDs, so they stay on the node's clock.
 * The answer carries the registry's clock, for the node's skew check, and
 * the registry's incarnation.
 *
 * A row is free when nobody holds it, when its holder is the caller itself
 * (a lease it gave up after it ran out), or when its lease expired and the
 * expiry can be trusted: always for a row leased over a connection, which
 * exists only here; for a row this instance's own node leased, only from
 * the same timeline, as after a promotion the old primary may still renew
 * it in its own copy of this table.
 *
 * Such a row stays taken however long ago its lease ended and its mark
 * passed.  Our copy stopped at the promotion; an old primary that still
 * runs (a split brain) renews the row in its own copy and keeps issuing at
 * its current time, so its IDs go on past both the lease end and the mark
 * we see, and starting above that mark (start_after) would not keep ours
 * apart from its.  Even a dead old primary may have renewed, and issued,
 * after the last change that reached us.  Nothing in this table tells a
 * dead old primary from a live one, so each unclean failover leaves its
 * block behind, and enough of them fill the region: the background worker
 * then names those blocks in idgen_status().reason.  Only an operator who
 * knows an old primary is gone for good frees its rows, with
 * idgen_fence_worker(), idgen.max_drift after its last ID; the next lease
 * of them starts above their marks.
 *
 * Takeover (lease protocol v2, R4; docs/fleets.md).  A node issues on its
 * own durable mark, not the registry's, so after a lease that was not
 * given back cleanly the registry's high_water says little: the successor
 * starts above the old lease's end plus the old holder's drift allowance
 * (its max_drift plus max_skew), which bounds every ID it can have issued
 * before it stopped.  A clean release leaves the holder's final mark in
 * high_water and the row free.  A block of a node's own earlier start on
 * a local registry needs neither: its local mark covers it.
 *
 * Incarnation hold (R7): after the registry's incarnation changed, no
 * block is granted until the hold ends (first_worker -2, hold_until says
 * when), and the first grants start above hold_until
 * (idgen.registry_incarnation_check() says when there is none).
 */
\ir ../udfs/acquire_node_lease/latest.sql
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval) IS 'lease a block of workers for a node, local or remote, by the takeover and incarnation rules (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean, interval) FROM PUBLIC;

-- the call of 0.5 nodes: no drift allowance sent, so none stored (their
-- registry mark bounds them); the same rules otherwise
CREATE FUNCTION idgen.acquire_node_lease(
    p_owner text, p_sysid text, p_timeline integer,
    p_region integer, p_pinned_worker integer, p_block integer, p_worker_bits integer,
    p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_local_floor timestamptz, p_local_slack interval, p_remote boolean,
    OUT first_worker integer, OUT generation bigint, OUT lease_until timestamptz,
    OUT high_water timestamptz, OUT start_after timestamptz, OUT registry_clock timestamptz)
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT a.first_worker, a.generation, a.lease_until, a.high_water, a.start_after, a.registry_clock
FROM idgen.acquire_node_lease(p_owner, p_sysid, p_timeline, p_region, p_pinned_worker,
                              p_block, p_worker_bits, p_node_clock, p_ttl, p_high_water,
                              p_local_floor, p_local_slack, p_remote, NULL::interval) AS a
$$;
COMMENT ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) IS 'lease a block of workers for a node, local or remote (background worker only)';
REVOKE ALL ON FUNCTION idgen.acquire_node_lease(text, text, integer, integer, integer, integer, integer, timestamptz, interval, timestamptz, timestamptz, interval, boolean) FROM PUBLIC;

/*
 * Renew a node's block by the registry's clock, raise its high-water mark
 * and record the heartbeat, but only while every row is still the node's
 * own at the node's generation.  Otherwise report who holds the first row
 * that is not ours, so the node can stop.  Renewals go on through an
 * incarnation hold (the rows are here); the answer names the incarnation.
 */
\ir ../udfs/renew_node_lease/latest.sql
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval) IS 'renew a node''s block, raise its high-water mark, record its heartbeat and drift allowance (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint, interval) FROM PUBLIC;

-- the call of 0.5 nodes
CREATE FUNCTION idgen.renew_node_lease(
    p_owner text, p_region integer, p_first_worker integer, p_block integer,
    p_generation bigint, p_node_clock timestamptz, p_ttl interval, p_high_water timestamptz,
    p_node_state text, p_clock_offset_ms bigint,
    OUT ok boolean, OUT lease_until timestamptz, OUT high_water timestamptz,
    OUT other_owner text, OUT other_generation bigint, OUT registry_clock timestamptz)
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
SELECT r.ok, r.lease_until, r.high_water, r.other_owner, r.other_generation, r.registry_clock
FROM idgen.renew_node_lease(p_owner, p_region, p_first_worker, p_block, p_generation,
                            p_node_clock, p_ttl, p_high_water, p_node_state,
                            p_clock_offset_ms, NULL::interval) AS r
$$;
COMMENT ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) IS 'renew a node''s block, raise its high-water mark and record its heartbeat (background worker only)';
REVOKE ALL ON FUNCTION idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, interval, timestamptz, text, bigint) FROM PUBLIC;

/*
 * A clean release: the holder stopped issuing and tells its final mark
 * (p_high_water, at or above every ID it issued), so a successor starts
 * above that instead of above the lease's end plus the drift allowance.
 */
CREATE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
                                         p_block integer, p_generation bigint,
                                         p_high_water timestamptz) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
UPDATE idgen.worker_lease AS l
SET owner = NULL, lease_until = NULL,
    high_water = greatest(l.high_water, p_high_water)
WHERE l.region = p_region AND l.worker >= p_first_worker
  AND l.worker < p_first_worker + p_block
  AND l.owner = p_owner AND l.generation = p_generation;
$$;
COMMENT ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz) IS 'give a node''s block back, with the final high-water mark of its IDs';
REVOKE ALL ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint, timestamptz) FROM PUBLIC;

CREATE FUNCTION idgen.release_node_lease(p_owner text, p_region integer, p_first_worker integer,
                                         p_block integer, p_generation bigint) RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS
$$
UPDATE idgen.worker_lease AS l
SET owner = NULL, lease_until = NULL
WHERE l.region = p_region AND l.worker >= p_first_worker
  AND l.worker < p_first_worker + p_block
  AND l.owner = p_owner AND l.generation = p_generation;
$$;
COMMENT ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) IS 'give a node''s block back at shutdown, keeping its high-water mark';
REVOKE ALL ON FUNCTION idgen.release_node_lease(text, integer, integer, integer, bigint) FROM PUBLIC;
