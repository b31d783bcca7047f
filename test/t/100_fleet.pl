# 100_fleet.pl - a registry and four nodes, each its own cluster on loopback
#
#   1. The nodes lease from the registry (idgen.registry) over TCP: each gets
#      its own block of workers in its own region (nodes 1 and 2 in region
#      0, nodes 3 and 4 in region 2), and idgen.fleet on the registry shows
#      every holder with its heartbeat and clock offset.  idgen_status()
#      names the registry without the password that node 1's connection
#      string carries, and no server log contains it.
#   2. On a node the lease functions refuse and point at the registry;
#      idgen_disable()/idgen_enable() work there.
#   3. Logical replication: every node publishes table items, keyed by
#      idgen DEFAULT idgen_next(); the registry doubles as the hub and
#      subscribes to all four.  pgbench runs on all four nodes at once
#      (two clients each, single rows and batches); every row arrives at
#      the hub without a key conflict, all IDs are distinct, each carries
#      its node's region and workers, and each client's IDs ascend.
#   4. A pg_basebackup clone of node 1, started as a fifth node while node
#      1 runs, gets a worker block of its own under a different owner.
#   5. A layout scheduled on the registry with a single region bit: node 4
#      (region 2), restarted, is refused by the registry and says why.
use strict;
use warnings;

use IPC::Run ();
use lib 'test/perl';
use IdgenTest qw(:DEFAULT status);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $secret = 'fleet-secret-pw';

# --- the registry (also the replication hub) --------------------------------

my $registry = idgen_registry('registry', conf => q{
max_worker_processes = 16
max_logical_replication_workers = 10
shared_buffers = 16MB
});
ok( wait_extension($registry),
	'registry: the background worker created the extension');
my $reg_conn = registry_conn($registry);

# --- four nodes -----------------------------------------------------------

my @regions = (0, 0, 2, 2);
my @nodes;
for my $i (1 .. 4)
{
	# node 1's connection string carries a password (trust ignores it)
	my $conn = $i == 1 ? "$reg_conn password=$secret" : $reg_conn;
	my $node = idgen_fleet_node("node$i", $conn,
		init => { allows_streaming => 'logical' },
		conf => qq{
max_connections = 20
shared_buffers = 16MB
idgen.region_id = $regions[$i - 1]
idgen.lease_wait = '1s'
});
	push @nodes, $node;
}

for my $i (1 .. 4)
{
	my $node = $nodes[ $i - 1 ];
	ok(wait_state($node),
		"node$i: active");
}

# --- 1. leases, regions, idgen.fleet, masking --------------------------------

my %block;
for my $i (1 .. 4)
{
	my $s = status($nodes[ $i - 1 ], qw(region worker workers owner registry clock_skew_ms));
	is($s->{region}, $regions[ $i - 1 ], "node$i: region $regions[$i - 1]");
	is($s->{workers}, 16, "node$i: a block of 16 workers");
	is($s->{registry}, 'host=127.0.0.1 port=' . $registry->port . ' dbname=postgres',
		"node$i: idgen_status() names the registry by host, port and dbname only");
	like($s->{clock_skew_ms}, qr/^-?\d+$/, "node$i: the clock skew was measured");
	cmp_ok(abs($s->{clock_skew_ms}), '<', 1000, "node$i: and is small");
	$block{"$s->{region}/$s->{worker}"}++;
}
is(scalar(keys %block), 4, 'four nodes, four different (region, block) pairs');

is( $registry->safe_psql(
		'postgres', q{
SELECT count(*) FILTER (WHERE remote), count(*) FILTER (WHERE NOT remote),
       count(DISTINCT (region, first_worker)), bool_and(live),
       bool_and(last_worker = first_worker + 15),
       bool_and(last_heartbeat > idgen.clock() - interval '1 min'),
       bool_and(abs(clock_offset_ms) < 1000), bool_and(high_water IS NOT NULL)
FROM idgen.fleet WHERE kind = 'node'}),
	'4|1|5|t|t|t|t|t',
	'idgen.fleet: four remote nodes and the registry\'s own, distinct blocks, live, recent heartbeats, small offsets');
for my $i (1 .. 4)
{
	my $owner = status($nodes[ $i - 1 ], 'owner')->{owner};
	is( $registry->safe_psql(
			'postgres', "SELECT region FROM idgen.fleet WHERE holder = '$owner'"),
		$regions[ $i - 1 ],
		"idgen.fleet: node$i under its own owner, in its region");
}
is( $registry->safe_psql(
		'postgres', q{
SELECT count(DISTINCT substring(detail FROM 'owner (node:\S+)')) FROM idgen.audit_log
WHERE action = 'lease_acquired'}),
	'5',
	'registry audit log: lease_acquired rows of all five nodes');

# --- 2. lease functions on a node; disable and enable ----------------------

{
	my ($ret, $out, $err) = $nodes[0]->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT * FROM idgen_lease_worker('app', '1 min');");
	isnt($ret, 0, 'node1: idgen_lease_worker refuses');
	like($err, qr/ERROR:  55000: this node leases worker ids from a shared registry/,
		'node1: because the node leases from a shared registry');
	like($err, qr/HINT:  Call this function in the registry \(host=127\.0\.0\.1 port=\d+ dbname=postgres\)/,
		'node1: the hint names the registry, without the password');
}
$nodes[1]->safe_psql('postgres', "SELECT idgen_disable('maintenance')");
is(status($nodes[1], 'state')->{state}, 'disabled', 'node2: idgen_disable() works on a fleet node');
$nodes[1]->safe_psql('postgres', 'SELECT idgen_enable()');
ok($nodes[1]->poll_query_until('postgres', 'SELECT state FROM idgen_status()', 'active'),
	'node2: idgen_enable() resumes it');

# --- 3. concurrent generation, replicated to the hub ------------------------

my $items = q{
CREATE TABLE items (
    id     idgen PRIMARY KEY DEFAULT idgen_next(),
    node   text NOT NULL,
    client integer NOT NULL,
    n      bigint NOT NULL
)};
$registry->safe_psql('postgres', $items);
for my $i (1 .. 4)
{
	my $node = $nodes[ $i - 1 ];
	$node->safe_psql('postgres', "$items;
CREATE SEQUENCE items_n;
CREATE PUBLICATION fleet_pub FOR TABLE items;");
	$registry->safe_psql('postgres',
		"CREATE SUBSCRIPTION sub_node$i CONNECTION 'host=127.0.0.1 port=" . $node->port
		  . " dbname=postgres' PUBLICATION fleet_pub");
}
for my $i (1 .. 4)
{
	$registry->wait_for_subscription_sync($nodes[ $i - 1 ], "sub_node$i");
}

# each client draws single IDs and batches of 20; n orders one client's rows
my $script = PostgreSQL::Test::Utils::tempdir() . '/fleet.sql';
PostgreSQL::Test::Utils::append_to_file(
	$script, q{
INSERT INTO items (node, client, n) VALUES (':nodename', :client_id, nextval('items_n'));
INSERT INTO items (id, node, client, n)
SELECT b, ':nodename', :client_id, nextval('items_n') FROM idgen_next_batch(20) AS b;
});
my $per_client = 150;
my @runs;
for my $i (1 .. 4)
{
	my $node = $nodes[ $i - 1 ];
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[
			'pgbench', '-n', '-h', $node->host, '-p', $node->port,
			'-c', '2', '-j', '2', '-t', $per_client, '-D', "nodename=node$i",
			'-f', $script, 'postgres'
		],
		'>', \$out, '2>', \$err);
	push @runs, [ $h, \$out, \$err ];
}
for my $i (1 .. 4)
{
	my ($h, $out, $err) = @{ $runs[ $i - 1 ] };
	ok($h->finish, "node$i: pgbench ran") or diag $$err;
	like($$out, qr/number of failed transactions: 0/, "node$i: no transaction failed");
}

my $per_node = 2 * $per_client * 21;
for my $i (1 .. 4)
{
	is($nodes[ $i - 1 ]->safe_psql('postgres', 'SELECT count(*) FROM items'),
		$per_node, "node$i: $per_node rows");
	$nodes[ $i - 1 ]->wait_for_catchup("sub_node$i");
}
my $total = 4 * $per_node;
is($registry->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM items'),
	"$total|$total", "hub: all $total rows arrived, all IDs distinct");
is( $registry->safe_psql(
		'postgres',
		'SELECT coalesce(sum(apply_error_count), 0) FROM pg_stat_subscription_stats'),
	'0', 'hub: no apply error, so no key conflict');
for my $i (1 .. 4)
{
	my $node = $nodes[ $i - 1 ];
	my ($region, $worker) = split /\|/,
	  $node->safe_psql('postgres', 'SELECT region, worker FROM idgen_status()');
	is( $registry->safe_psql(
			'postgres', qq{
SELECT count(*) FROM items, LATERAL idgen_decode(items.id) AS d
WHERE node = 'node$i' AND (d.region <> $region OR d.worker NOT BETWEEN $worker AND $worker + 15)}),
		'0',
		"hub: every ID of node$i carries its region $region and workers $worker-" . ($worker + 15));
}
is( $registry->safe_psql(
		'postgres', q{
SELECT count(*) FROM (
    SELECT id < lag(id) OVER (PARTITION BY node, client ORDER BY n) AS back
    FROM items) AS s
WHERE back}),
	'0',
	'hub: each client\'s IDs ascend in the order it drew them');

# --- 4. a pg_basebackup clone of node 1 ------------------------------------

my $node1 = $nodes[0];
my $orig = status($node1, qw(region worker owner));
$node1->backup('clone_backup');
my $clone = PostgreSQL::Test::Cluster->new('node1_clone');
$clone->init_from_backup($node1, 'clone_backup');
$clone->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'");
$clone->start;
ok(wait_state($clone),
	'clone: active');
my $cl = status($clone, qw(region worker owner));
is( $clone->safe_psql('postgres', 'SELECT idgen.node_sysid()'),
	$node1->safe_psql('postgres', 'SELECT idgen.node_sysid()'),
	'clone: the same system identifier as node 1');
isnt($cl->{owner}, $orig->{owner}, 'clone: a different owner');
isnt("$cl->{region}/$cl->{worker}", "$orig->{region}/$orig->{worker}",
	'clone: a different worker block than node 1');
is(status($node1, qw(state worker))->{worker}, $orig->{worker},
	'node 1 keeps its block');
my $from_node1 = $node1->safe_psql('postgres',
	'SELECT string_agg(idgen_next()::text, \',\') FROM generate_series(1, 500)');
my $from_clone = $clone->safe_psql('postgres',
	'SELECT string_agg(idgen_next()::text, \',\') FROM generate_series(1, 500)');
my %seen;
$seen{$_}++ for split(/,/, $from_node1), split(/,/, $from_clone);
is(scalar(keys %seen), 1000, 'clone and node 1: 1000 distinct IDs');
$clone->stop;

# --- 5. a region outside the registry's layout -------------------------------

# a layout of one region bit, scheduled a day ahead: the registry admits
# only nodes that every layout from now on holds.  Nodes 3 and 4 (region
# 2) give their leases back first, or the schedule itself would be refused
# for them.
my $node4 = $nodes[3];
$nodes[2]->stop;
$node4->stop;
is( $registry->safe_psql(
		'postgres',
		"SELECT idgen_schedule_layout(now() + interval '1 day', 1, 9, 12)"),
	'2',
	'registry: a one-region-bit layout scheduled as epoch 2');
$node4->start;
ok( $node4->poll_query_until(
		'postgres', q{SELECT state = 'waiting_for_lease' AND reason LIKE '%region 2 is outside the registry''s layout%' FROM idgen_status()}),
	'node4: refused by the registry, region 2 outside its layout');
like(status($node4, 'reason')->{reason}, qr/could not lease a worker id: idgen registry \(host=127\.0\.0\.1 port=\d+ dbname=postgres\): region 2 is outside the registry's layout/,
	'node4: idgen_status() gives the registry\'s reason');
{
	my ($ret, $out, $err) = $node4->psql('postgres', 'SELECT idgen_next()');
	like($err, qr/idgen has no valid worker lease/, 'node4: refuses to issue');
}
$node4->stop;

# --- no password anywhere in the logs -----------------------------------------

for my $node ($registry, @nodes, $clone)
{
	my $log = slurp_file($node->logfile);
	unlike($log, qr/\Q$secret\E/, $node->name . ': the password is not in the server log');
}

$_->stop for @nodes[ 0 .. 1 ];
$registry->stop;

done_testing();
