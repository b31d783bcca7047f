# 108_fleet_release_after_failure.pl - a node's release after a failed
# renewal still carries its final mark
#
# After any failure the worker forgot the registry's version (0), and its
# release then took 0.5's form, without the mark: the rows kept the mark of
# the last renewal, below the IDs issued since, and the next holder of the
# block started above that.  Scenario: renewals fail (the function renamed
# away on the registry) while the node issues on its validity; the node
# stops (a clean shutdown releases) and, in a second round, moves to another
# registry by a reload (idgen.registry changed).  Each time the released
# rows' mark lies at or above the node's last ID.  A fenced node moved stays
# fenced until idgen_enable().
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $registry = idgen_registry('registry');
ok(wait_extension($registry), 'registry: the background worker created the extension');
my $other = idgen_registry('other');
ok(wait_extension($other), 'other registry: the background worker created the extension');
my $node = idgen_fleet_node('node', $registry, conf => "idgen.lease_ttl = '30s'\n");
ok(wait_state($node), 'node: active');
$node->safe_psql('postgres', 'CREATE TABLE drawn (id idgen)');

my $renew = 'idgen.renew_node_lease(text, integer, integer, integer, bigint, timestamptz, '
  . 'interval, timestamptz, text, bigint, interval)';
my $sysid = $node->safe_psql('postgres', 'SELECT idgen.node_sysid()');

# renewals refused for a while; the node issues on its lease meanwhile
sub fail_renewals
{
	my ($what) = @_;
	my $from = -s $node->logfile;
	$registry->safe_psql('postgres', "ALTER FUNCTION $renew RENAME TO renew_node_lease_away");
	ok( wait_for(sub {
				substr(slurp_file($node->logfile), $from) =~ /lease work failed: .*renew_node_lease/;
			}),
		"$what: a renewal failed");
	# past the last renewal's mark: that mark is at most max_drift ahead
	for (1 .. 30)
	{
		$node->safe_psql('postgres', 'INSERT INTO drawn SELECT idgen_next() FROM generate_series(1, 100)');
		usleep(100_000);
	}
	return $node->safe_psql('postgres', 'SELECT max(id) FROM drawn');
}

sub mark_covers
{
	my ($db, $last, $what) = @_;
	is( $db->safe_psql('postgres', qq{
			SELECT bool_and(owner IS NULL) AND max(high_water) >= (idgen_decode('$last'::idgen)).ts
			FROM idgen.worker_lease WHERE node_sysid = '$sysid'}),
		't', "$what: the rows are released with a mark at or above the node's last ID");
	return;
}

# --- 1. a clean shutdown after a failed renewal ---------------------------------
my $last = fail_renewals('shutdown');
$node->stop('fast');
mark_covers($registry, $last, 'shutdown');
my $back = $renew =~ s/renew_node_lease/renew_node_lease_away/r;
$registry->safe_psql('postgres', "ALTER FUNCTION $back RENAME TO renew_node_lease");

# --- 2. moved by a reload after a failed renewal ---------------------------------
$node->start;
ok(wait_state($node), 'node: active again, above its mark');
cmp_ok($node->safe_psql('postgres', 'SELECT idgen_next()::text'), 'gt', '',
	'node: issues after the restart');
is($node->safe_psql('postgres', "SELECT idgen_next() > '$last'::idgen"), 't',
	'node: its IDs go on above the last one before the shutdown');
$last = fail_renewals('move');
$node->append_conf('postgresql.conf', "idgen.registry = '" . registry_conn($other) . "'\n");
$node->reload;
ok( $registry->poll_query_until('postgres',
		qq{SELECT count(*) = 0 FROM idgen.worker_lease WHERE node_sysid = '$sysid' AND owner IS NOT NULL}),
	'move: the lease at the first registry given back');
mark_covers($registry, $last, 'move');
$registry->safe_psql('postgres', "ALTER FUNCTION $back RENAME TO renew_node_lease");
ok( $other->poll_query_until('postgres',
		qq{SELECT count(*) > 0 FROM idgen.worker_lease WHERE node_sysid = '$sysid' AND owner IS NOT NULL}),
	'move: the node leases at the other registry');
ok(wait_state($node), 'move: the node is active under the other registry');
is($node->safe_psql('postgres', "SELECT idgen_next() > '$last'::idgen"), 't',
	'move: its IDs go on above its last one under the first registry');
like(slurp_file($node->logfile), qr/idgen\.registry changed: giving the lease back and leasing at/,
	'move: the log says so');

# --- 3. a fenced node moved stays fenced until idgen_enable() -------------------
$other->safe_psql('postgres', qq{
	SELECT count(idgen_fence_worker(region, worker)) FROM idgen.worker_lease
	WHERE node_sysid = '$sysid' AND owner IS NOT NULL});
ok($node->poll_query_until('postgres', "SELECT state = 'fenced' FROM idgen_status()"),
	'fence: the node is fenced at the other registry');
$node->append_conf('postgresql.conf', "idgen.registry = '" . registry_conn($registry) . "'\n");
$node->reload;
ok(wait_for(sub { slurp_file($node->logfile) =~ /changed while the node is fenced/ }),
	'fence: the move is noticed');
sleep 3;
is($node->safe_psql('postgres', 'SELECT state FROM idgen_status()'), 'fenced',
	'fence: a move does not end the fence');
is( $registry->safe_psql('postgres',
		qq{SELECT count(*) FROM idgen.worker_lease WHERE node_sysid = '$sysid' AND owner IS NOT NULL}),
	'0', 'fence: nor lease at the first registry again');
$node->safe_psql('postgres', 'SELECT idgen_enable()');
ok(wait_state($node), 'fence: after idgen_enable() the node leases at the first registry');
is($node->safe_psql('postgres', "SELECT idgen_next() > '$last'::idgen"), 't',
	'fence: its IDs go on above its last ones');

# a parallel worker takes the leader's settings from the defaults up: no
# move, no refusal (103 and 022 failed on that when the setting became
# reloadable)
like( $node->safe_psql('postgres', q{
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM drawn}),
	qr/Workers Launched: [1-9]/, 'a query run by parallel workers on a fleet node');

# to or from this instance's own lease table needs a restart
$node->append_conf('postgresql.conf', "idgen.registry = ''\n");
$node->reload;
ok( wait_for(sub { slurp_file($node->logfile) =~ /idgen\.registry can move a node from one shared registry to another by a reload/ }),
	'a reload to this instance\'s own lease table is refused, with the reason');
is($node->safe_psql('postgres', 'SHOW idgen.registry') ne '', 1, 'idgen.registry keeps the shared registry');
ok(wait_state($node), 'and the node stays active');

$node->stop('fast');
$other->stop('fast');
$registry->stop('fast');
done_testing();
