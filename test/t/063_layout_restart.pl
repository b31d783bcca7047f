# 063_layout_restart.pl - a restart after a layout switch, with the clock behind
#
# A node issues under a new layout epoch for a while after its start time,
# stops, and comes back with its wall clock some seconds before that start
# (an RTC that is off, NTP not yet synced).  Once the clock reaches the
# switch it issues under the new epoch again.  Every ID it issues after the
# restart must lie above every ID it issued before: the same milliseconds,
# block and counters must never come out twice.
#
#   1. clean stop, clock set back with idgen.test_clock_offset
#   2. crash (immediate stop), clock set back with idgen.test_clock_offset
#   3. clean stop, the real clock of every process set back (an LD_PRELOAD
#      shim, test/clockshim), the background worker included
#   4. crash, real clock set back
#   5. a fleet: node A issues in the new epoch and is killed; node B, pinned
#      to A's block with its clock behind, takes the block over
#
# The node is pinned to one worker block, so every run reuses the same
# block and a repeat would show as a duplicate.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use IdgenClockShim;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $shim = IdgenClockShim->new;

# draw(phase, seconds, want): batches of 50 IDs, each call in a
# subtransaction, until want batches came out or the time is up; refusals
# are counted, not fatal.
my $draw_sql = q{
CREATE TABLE ids (id idgen NOT NULL, phase text NOT NULL, n bigserial);
CREATE FUNCTION draw(p_phase text, p_seconds float8, p_want int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    got int := 0;
    refused int := 0;
    stop_at timestamptz := pg_catalog.statement_timestamp() + p_seconds * interval '1 s';
BEGIN
    WHILE got < p_want AND pg_catalog.clock_timestamp() < stop_at LOOP
        BEGIN
            INSERT INTO ids (id, phase) SELECT b, p_phase FROM idgen_next_batch(50) AS b;
            got := got + 1;
        EXCEPTION WHEN OTHERS THEN
            refused := refused + 1;
            PERFORM pg_sleep(0.02);
        END;
        PERFORM pg_sleep(0.005);
    END LOOP;
    RETURN format('%s|%s', got, refused);
END
$$;
};

sub new_node
{
	my ($name, $extra) = @_;
	return idgen_node($name, start => 0, conf => q{
idgen.lease_ttl = '2s'
idgen.worker_id = 16
synchronous_commit = off
} . ($extra // ''));
}

# Schedule a layout 5 s ahead (the earliest a 2 s lease allows) and return
# its epoch and start in Unix ms.
sub schedule_layout
{
	my ($node, $db) = @_;
	my $epoch = $node->safe_psql($db,
		"SELECT idgen_schedule_layout(clock_timestamp() + interval '5 seconds', 3, 7, 12)");
	my $start_ms = $node->safe_psql($db,
		"SELECT floor(extract(epoch FROM start_time) * 1000)::bigint FROM idgen.epoch WHERE version = $epoch");
	return ($epoch, $start_ms);
}

sub wait_for_epoch
{
	my ($node, $epoch) = @_;
	$node->poll_query_until('postgres', qq{
SELECT coalesce((SELECT (idgen_decode(b)).epoch FROM idgen_next_batch(1) AS b), 0) >= $epoch},
		't')
	  or die "node never issued in epoch $epoch";
	return;
}

# Unix ms of the real clock
sub now_ms { return int(time() * 1000); }

sub check_run
{
	my ($node, $label, $epoch, $after) = @_;
	my ($got, $refused) = split /\|/, $after;
	cmp_ok($got, '>', 0, "$label: the node issued again after the restart ($refused refusals first)");
	my ($dups, $below, $in_epoch) = split /\|/, $node->safe_psql('postgres', qq{
SELECT (SELECT count(*) - count(DISTINCT id) FROM ids),
       (SELECT count(*) FROM ids WHERE phase = '$label after'
          AND id <= (SELECT max(id) FROM ids WHERE phase <> '$label after')),
       (SELECT count(*) FROM ids WHERE phase = '$label after'
          AND (idgen_decode(id)).epoch = $epoch)});
	is($dups, 0, "$label: no ID issued twice");
	is($below, 0, "$label: nothing issued after the restart at or below the earlier maximum");
	cmp_ok($in_epoch, '>', 0, "$label: IDs after the restart are of epoch $epoch");
	return;
}

# --- 1-4: one node --------------------------------------------------------

my $node = new_node('layout_restart');
$shim->start($node);
$node->poll_query_until('postgres', "SELECT state = 'active' FROM idgen_status()")
  or die 'the node did not become active';
$node->safe_psql('postgres', $draw_sql);

my @scenarios = (
	[ 'clean stop, test clock', 'fast', 'guc' ],
	[ 'crash, test clock', 'immediate', 'guc' ],
	[ 'clean stop, real clock', 'fast', 'shim' ],
	[ 'crash, real clock', 'immediate', 'shim' ],
);
for my $s (@scenarios)
{
	my ($label, $mode, $clock) = @$s;
	$node->safe_psql('postgres', 'TRUNCATE ids');
	my ($epoch, $start_ms) = schedule_layout($node, 'postgres');
	wait_for_epoch($node, $epoch);
	my ($got) = split /\|/, $node->safe_psql('postgres', "SELECT draw('$label before', 10, 40)");
	cmp_ok($got, '>', 0, "$label: issued in epoch $epoch before the stop");

	$node->stop($mode);
	# back to 3 s before the switch
	my $back = now_ms() - $start_ms + 3000;
	if ($clock eq 'guc')
	{
		$node->append_conf('postgresql.conf', "idgen.test_clock_offset = -$back\n");
	}
	else
	{
		$shim->set_offset_ms($shim->offset_ms - $back);
	}
	$shim->start($node);
	my $after = $node->safe_psql('postgres', "SELECT draw('$label after', 40, 40)");
	check_run($node, $label, $epoch, $after);

	# the clock put right again, for the next run
	$node->append_conf('postgresql.conf', "idgen.test_clock_offset = 0\n");
	$shim->set_offset_ms(0);
	$node->reload;
}
$node->stop;

# --- 5: a fleet takeover --------------------------------------------------

my $registry = idgen_registry('registry', conf => q{
idgen.worker_id = 112
idgen.lease_ttl = '2s'
});
wait_extension($registry)
  or die 'the registry has no extension';
my $reg_conn = registry_conn($registry);

# B's clock is set back by the test clock, and its skew guard is wide open:
# what is tested is the floor of the epoch's counter, not the guard.  A
# keeps the default guard: a successor starts above A's lease end plus A's
# drift allowance (max_drift + max_skew, docs/fleets.md), which a wide
# guard on A would make an hour.
my $fleet_conf = qq{
listen_addresses = '127.0.0.1'
idgen.registry = '$reg_conn'
idgen.worker_id = 0
};
my $na = new_node('node_a', $fleet_conf);
$na->start;
$na->poll_query_until('postgres', "SELECT state = 'active' FROM idgen_status()")
  or die 'node A did not become active';
$na->safe_psql('postgres', $draw_sql);

my ($epoch, $start_ms) = schedule_layout($registry, 'postgres');
wait_for_epoch($na, $epoch);
my ($got_a) = split /\|/, $na->safe_psql('postgres', "SELECT draw('takeover before', 10, 40)");
cmp_ok($got_a, '>', 0, "takeover: node A issued in epoch $epoch");
my $ids_a = $na->safe_psql('postgres', 'SELECT id FROM ids ORDER BY id');
$na->stop('immediate');

my $nb = new_node('node_b', $fleet_conf . "idgen.max_skew = '1h'\n");
my $back = now_ms() - $start_ms + 3000;
$nb->append_conf('postgresql.conf', "idgen.test_clock_offset = -$back\n");
$nb->start;
wait_extension($nb)
  or die 'node B has no extension';
$nb->safe_psql('postgres', $draw_sql);
$nb->safe_psql('postgres',
	"INSERT INTO ids (id, phase) SELECT v::bigint, 'takeover before' FROM unnest(string_to_array('"
	  . join(',', split /\n/, $ids_a) . "', ',')) AS v");
my $after = $nb->safe_psql('postgres', "SELECT draw('takeover after', 40, 40)");
check_run($nb, 'takeover', $epoch, $after);
is($nb->safe_psql('postgres', 'SELECT worker FROM idgen_status()'),
	'0', 'takeover: node B holds the block node A had');

$nb->stop;
$registry->stop;
done_testing();
