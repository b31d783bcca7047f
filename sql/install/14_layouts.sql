-- ---------------------------------------------------------------------
-- Layout epochs
-- ---------------------------------------------------------------------

-- rows alone do not invalidate the relcache: this tells every backend's
-- cached list of epochs about a new one, or a restore
CREATE FUNCTION idgen.epoch_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'idgen_epoch_changed' LANGUAGE C;
COMMENT ON FUNCTION idgen.epoch_changed() IS 'trigger: makes every session read idgen.epoch again';
REVOKE ALL ON FUNCTION idgen.epoch_changed() FROM PUBLIC;
CREATE TRIGGER epoch_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON idgen.epoch
    FOR EACH STATEMENT EXECUTE FUNCTION idgen.epoch_changed();

/*
 * Where the next epoch's time field must start for its IDs to sort above
 * every earlier one.  Reads idgen.epoch (STABLE); raises when no such
 * layout exists.  Only idgen_schedule_layout() needs it.
 */
CREATE FUNCTION idgen.plan_layout(applies_at timestamptz, region_bits integer,
                                  worker_bits integer, seq_bits integer,
                                  OUT version integer, OUT epoch_start timestamptz,
                                  OUT time_bits integer, OUT horizon timestamptz,
                                  OUT boundary @extschema@.idgen)
    AS 'MODULE_PATHNAME', 'idgen_plan_layout' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION idgen.plan_layout(timestamptz, integer, integer, integer) IS 'the next layout epoch, placed above every earlier ID; raises if impossible';
REVOKE ALL ON FUNCTION idgen.plan_layout(timestamptz, integer, integer, integer) FROM PUBLIC;

-- an epoch's lowest ID: its time field at its start, all other fields 0
CREATE VIEW idgen.epoch_boundaries AS
SELECT e.version, e.start_time,
       @extschema@.idgen(((EXTRACT(epoch FROM e.start_time - e.epoch_start) * 1000)::bigint)
                         << (e.region_bits + e.worker_bits + e.seq_bits)) AS boundary,
       e.region_bits, e.worker_bits, e.seq_bits, e.horizon
FROM idgen.epoch AS e;
COMMENT ON VIEW idgen.epoch_boundaries IS 'each layout epoch with the lowest ID it owns: an ID belongs to the last epoch whose boundary is at or below it';
GRANT SELECT ON idgen.epoch_boundaries TO PUBLIC;

/*
 * Add a bit layout from applies_at on.  Runs in the registry, where every
 * node reads idgen.epoch with each lease renewal.  Refused, with the
 * reason, when it could not be made safe:
 *   - too soon: every node must have renewed (and so learned of it) before
 *     it applies, and no node may have issued IDs at or after it already;
 *   - a held worker, or this node's settings, do not fit the new fields;
 *   - its IDs cannot sort above the previous layout's, it does not fit an
 *     idgen128, or its time field runs out within idgen.horizon_warning.
 * The SHARE lock makes lease renewals wait for this transaction, so none
 * extends a lease past applies_at without seeing the new row.
 */
\ir ../udfs/idgen_schedule_layout/latest.sql
COMMENT ON FUNCTION @extschema@.idgen_schedule_layout(timestamptz, integer, integer, integer) IS 'add a bit layout from applies_at on, in the registry; unsafe layouts are refused with the reason';
REVOKE ALL ON FUNCTION @extschema@.idgen_schedule_layout(timestamptz, integer, integer, integer) FROM PUBLIC;
