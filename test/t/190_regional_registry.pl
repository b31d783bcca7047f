# 190_regional_registry.pl - a root registry, a regional registry, its node
#
# Issue 22, item 2 (docs/regions.md "A regional registry"):
#   1. A regional registry (idgen.parent_registry pointing at the root,
#      idgen.owned_regions = 1, idgen.region_lease_ttl = 30s) leases region
#      1 from the root; idgen_region_status() shows it held, and the root's
#      idgen.regions shows it live under the regional registry's owner
#      name (idgen.region_owner()).
#   2. A node of region 1 leasing from the regional registry becomes
#      active, and its lease never ends after the region lease: with the
#      node's 30 s ttl the grant is capped (shorter than 30 s), on the
#      registry's row and in the node's own idgen_status().
#   3. A node of region 2 is refused by the regional registry with the
#      reason: region 2 is not owned by this registry.
#   4. The root stopped for 5 s (a sixth of the region TTL): the node issues
#      throughout without an error, and the regional registry renews the
#      region lease again once the root is back.
#   5. Every ID the node issued is unique, and they ascend.
#   6. The regional registry stopped: it gives region 1 back to the root
#      with its final mark.
#   7. A bad idgen.owned_regions, region_lease_ttl or parent_registry keeps
#      the server from starting, and the log says what is wrong.
# and, between 3 and 4, layout epochs are global (item 4, G7):
#   a. the regional registry refuses idgen_schedule_layout(): the root
#      schedules;
#   b. the root refuses a switch before the region lease's end plus its
#      allowance, naming region 1, and schedules one after it;
#   c. the regional registry takes the epoch into its idgen.epoch, the
#      same row as the root's, and confirms it to the root, whose renewals
#      then run the region lease past the switch;
#   d. a region lease whose owner names an older epoch ends before the
#      switch (less its allowance), a renewal naming none stays there, and
#      the same owner naming the new one gets its full ttl;
#   e. after the root's restart (section 4) it refuses a switch within its
#      hold: region leases it may have lost would miss it;
#   f. after the switch the node issues in the new epoch, and its IDs still
#      ascend across it (section 5).
# The root leases regions but issues in region 7, which it leases to
# nobody.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

# the root's own node lease is short, so its own rule for a switch (two
# of its lease ttls ahead) lets one come before the region lease's end
my $root = idgen_registry('root',
	conf => "idgen.region_id = 7\nidgen.lease_ttl = '10s'\nidgen.leased_out_regions = '1, 2, 3'\n");
ok(wait_extension($root), 'root: the background worker created the extension');

my $regional = idgen_registry('regional', conf => qq{
idgen.region_id = 1
idgen.owned_regions = '1'
idgen.parent_registry = '@{[ registry_conn($root) ]}'
idgen.region_lease_ttl = '30s'
});
ok(wait_extension($regional), 'regional: the background worker created the extension');

# --- 1. the region lease -----------------------------------------------------

ok( $regional->poll_query_until('postgres',
		'SELECT held FROM idgen_region_status() WHERE region = 1', 't'),
	'regional: region 1 is held');
my $owner = $regional->safe_psql('postgres', 'SELECT idgen.region_owner()');
like($owner, qr/^regional:\d+/, 'regional: the owner name is derived from the system identifier');
is( $regional->safe_psql('postgres',
		'SELECT count(*) FROM idgen_region_status()'),
	'1', 'regional: one owned region');
is( $root->safe_psql('postgres',
		"SELECT owner = '$owner' AND live AND ttl = interval '30 s' FROM idgen.regions WHERE region = 1"),
	't', 'root: region 1 is leased to the regional registry for 30 s');
is( $regional->safe_psql('postgres',
		"SELECT remaining > interval '20 s' AND remaining <= interval '30 s' FROM idgen_region_status()"),
	't', 'regional: the region lease is valid for less than its ttl from the request');

# --- 2. a node of region 1 ---------------------------------------------------

my $node = idgen_fleet_node('node1', $regional, conf => qq{
idgen.region_id = 1
idgen.lease_ttl = '30s'
});
ok(wait_state($node), 'node1: active');

# the node's lease ends before the region lease, on both sides
sub lease_inside
{
	my $reg = $regional->safe_psql('postgres', q{
		SELECT bool_and(l.lease_until <= h.valid_until)
		       AND bool_and(l.lease_until - l.renewed_at < interval '30 s')
		       AND count(*) > 0
		FROM idgen.worker_lease AS l JOIN idgen.held_region AS h USING (region)
		WHERE l.owner LIKE 'node:%' AND l.remote});
	my $until = $node->safe_psql('postgres', 'SELECT lease_until FROM idgen_status()');
	my $mine = $regional->safe_psql('postgres',
		"SELECT '$until'::timestamptz <= valid_until FROM idgen.held_region WHERE region = 1");
	return ($reg, $mine);
}
my ($reg_ok, $node_ok) = lease_inside();
is($reg_ok, 't', 'regional: the node lease ends by the region lease, capped below its 30 s ttl');
is($node_ok, 't', 'node1: its own lease end lies before the region lease\'s validity');

# --- 3. a node of another region ------------------------------------------

my $other = idgen_fleet_node('node2', $regional, conf => qq{
idgen.region_id = 2
idgen.lease_wait = '1s'
});
ok( $other->poll_query_until('postgres',
		q{SELECT reason ~ 'region 2 is not owned by this registry' FROM idgen_status()}, 't'),
	'node2 (region 2): refused, the reason says region 2 is not owned by this registry');
isnt($other->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	'active', 'node2: not active');

# --- 3b. layout epochs are global --------------------------------------------

my $widths = $root->safe_psql('postgres',
	q{SELECT region_bits || ', ' || worker_bits || ', ' || seq_bits FROM idgen.epoch WHERE version = 1});
my ($ret, $out, $err) = $regional->psql('postgres',
	"SELECT idgen_schedule_layout(now() + interval '1 day', $widths)");
isnt($ret, 0, 'regional: idgen_schedule_layout() is refused');
like($err, qr/cannot schedule a layout on a regional registry/,
	'regional: the error says a regional registry schedules no layout');

($ret, $out, $err) = $root->psql('postgres', qq{
	SELECT idgen_schedule_layout(
		(SELECT lease_until - interval '1 s' FROM idgen.region_lease WHERE region = 1), $widths)});
isnt($ret, 0, 'root: a switch before the region lease ends is refused');
like($err, qr/region leases run past it/, 'root: the error says region leases run past the switch');
like($err, qr/region 1 \("\Q$owner\E", until /, 'root: the detail names region 1 and its owner');

my $version = $root->safe_psql('postgres', qq{
	SELECT idgen_schedule_layout(
		(SELECT lease_until + allowance + interval '8 s' FROM idgen.region_lease WHERE region = 1), $widths)});
is($version, '2', 'root: a switch after the region lease\'s end plus its allowance is scheduled, epoch 2');
my $applies = $root->safe_psql('postgres', 'SELECT start_time FROM idgen.epoch WHERE version = 2');

my $epoch_row = 'SELECT version, start_time, epoch_start, time_bits, region_bits, worker_bits, seq_bits, horizon FROM idgen.epoch WHERE version = 2';
ok( $regional->poll_query_until('postgres', 'SELECT count(*) FROM idgen.epoch WHERE version = 2', '1'),
	'regional: took epoch 2 from the root');
is($regional->safe_psql('postgres', $epoch_row), $root->safe_psql('postgres', $epoch_row),
	'regional: its epoch 2 is the root\'s, field for field');
ok( $root->poll_query_until('postgres', 'SELECT confirmed_epoch FROM idgen.regions WHERE region = 1', '2'),
	'root: the regional registry confirmed epoch 2 at a renewal');
ok( $root->poll_query_until('postgres',
		"SELECT lease_until > '$applies' FROM idgen.region_lease WHERE region = 1", 't'),
	'root: once confirmed, renewals run the region lease past the switch');
is( $regional->safe_psql('postgres', 'SELECT last_error IS NULL FROM idgen_region_status() WHERE region = 1'),
	't', 'regional: no epoch problem recorded');

# d. an owner that names only epoch 1, by hand on the root (region 3)
my ($gen3, $until3) = split /\|/, $root->safe_psql('postgres', q{
	SELECT generation, lease_until FROM idgen_lease_region('by-hand', 3, interval '1 day', known_epoch => 1)});
is( $root->safe_psql('postgres',
		"SELECT '$until3'::timestamptz <= '$applies'::timestamptz - allowance FROM idgen.region_lease WHERE region = 3"),
	't', 'root: a lease whose owner knows only epoch 1 ends before the switch, less its allowance');
is( $root->safe_psql('postgres', "SELECT idgen_renew_region(3, $gen3, 'by-hand') = '$until3'::timestamptz"),
	't', 'root: a renewal that confirms nothing newer does not run past it either');
is( $root->safe_psql('postgres', q{
	SELECT lease_until > now() + interval '23 hours' FROM idgen_lease_region('by-hand', 3, interval '1 day', known_epoch => 2)}),
	't', 'root: the same owner naming epoch 2 gets its full day');
# given back with its mark (it issued nothing): a release without one counts
# its whole day, which would hold back every later switch (3e)
$root->safe_psql('postgres', "SELECT idgen_release_region(3, $gen3, 'by-hand', idgen.clock())");

# --- 4. the root away for 5 s --------------------------------------------------

my @ids;
my $errors = 0;
sub draw
{
	my ($ret, $out, $err) = $node->psql('postgres',
		'SELECT idgen_next()::bigint FROM generate_series(1, 200)');
	if ($ret != 0) { $errors++; diag("node1: $err"); return; }
	push @ids, split /\n/, $out;
}
draw() for 1 .. 5;
my $renewed_before = $regional->safe_psql('postgres',
	'SELECT renewed_at FROM idgen.held_region WHERE region = 1');

$root->stop('fast');
my $t0 = time;
while (time - $t0 < 5) { draw(); usleep(200_000); }
my ($reg_ok2, $node_ok2) = lease_inside();
is($reg_ok2, 't', 'regional: with the root away the node lease still ends by the region lease');
$root->start;
my $back = time;
draw() for 1 .. 5;

ok( $regional->poll_query_until('postgres',
		"SELECT renewed_at > '$renewed_before' AND last_error IS NULL AND held FROM idgen_region_status()",
		't'),
	'regional: the region lease is renewed again once the root is back');

# e. the restarted root holds: a switch within its hold is refused
($ret, $out, $err) = $root->psql('postgres',
	"SELECT idgen_schedule_layout(now() + interval '2 hours', $widths)");
like($err, qr/the root may have lost region leases that run past it/,
	'root: after its restart a switch within its hold is refused');

# f. past the switch, the node issues in epoch 2 (and its IDs go on
# ascending, section 5)
ok( $root->poll_query_until('postgres', "SELECT idgen.clock() > '$applies'::timestamptz + interval '1 s'", 't'),
	'the switch to epoch 2 has passed');
draw() for 1 .. 5;
is($node->safe_psql('postgres', 'SELECT epoch FROM idgen_decode(idgen_next())'), '2',
	'node1: issues in epoch 2 after the switch');
is($errors, 0, 'node1: no call failed across the switch');
is($errors, 0, 'node1: no call failed while the root was away');
is($node->safe_psql('postgres', 'SELECT state FROM idgen_status()'), 'active',
	'node1: still active');
is( $node->safe_psql('postgres', 'SELECT fencing_events FROM idgen_status()'),
	'0', 'node1: never fenced');

# --- 5. the IDs ----------------------------------------------------------------

my %seen;
my $dups = grep { $seen{$_}++ } @ids;
my $backwards = 0;
for my $i (1 .. $#ids) { $backwards++ if $ids[$i] <= $ids[ $i - 1 ]; }
cmp_ok(scalar(@ids), '>=', 2000, 'node1: issued at least 2,000 IDs: ' . scalar(@ids));
is($dups, 0, 'node1: no duplicate ID');
is($backwards, 0, 'node1: its IDs ascend');

# --- 5b. the allowance, and the regional registry's clock against the root's ---

# asked by the regional registry's settings: max_drift 1 s plus max_skew
# 1 s for its nodes, plus max_skew 1 s for its own clock against the root's
is($root->safe_psql('postgres', 'SELECT allowance FROM idgen.region_lease WHERE region = 1'),
	'00:00:03', 'root: region 1 was leased with the regional registry\'s allowance, 3 s');
is($regional->safe_psql('postgres', 'SELECT node_allowance FROM idgen.held_region WHERE region = 1'),
	'00:00:02', 'regional: its node leases may stamp 2 s ahead, as asked');
# the root's clock 5 s behind: the regional registry, 5 s ahead of it,
# would stamp IDs past what the root allows for; it counts no renewal
$root->append_conf('postgresql.conf', "idgen.test_clock_offset = '-5s'\n");
$root->reload;
ok( $regional->poll_query_until('postgres',
		q{SELECT last_error ~ 'ahead of the root''s .* more than idgen.max_skew' FROM idgen_region_status() WHERE region = 1}, 't'),
	'regional: a renewal answered by a root 5 s behind is not counted, and says why');
$root->append_conf('postgresql.conf', "idgen.test_clock_offset = 0\n");
$root->reload;
ok( $regional->poll_query_until('postgres',
		q{SELECT held AND last_error IS NULL FROM idgen_region_status() WHERE region = 1}, 't'),
	'regional: renewals counted again once the clocks agree');
ok(wait_state($node), 'node1: active throughout');

# --- 6. the regional registry stops: region 1 given back ------------------------

$other->stop('fast');
$node->stop('fast');
$regional->stop('fast');
is( $root->safe_psql('postgres',
		'SELECT owner IS NULL AND high_water IS NOT NULL FROM idgen.region_lease WHERE region = 1'),
	't', 'root: region 1 was released at the regional registry\'s shutdown, with its final mark');

# --- 7. bad settings ----------------------------------------------------------------

my $bad_node = PostgreSQL::Test::Cluster->new('badconf');
$bad_node->init;
my $bad_conf = $bad_node->data_dir . '/bad.conf';
$bad_node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'idgen'\nlisten_addresses = ''\ninclude_if_exists = 'bad.conf'\n");
for my $bad (
	[ q{idgen.owned_regions = '1,1'}, qr/idgen\.owned_regions: Region 1 is listed twice\./ ],
	[ q{idgen.owned_regions = '1;2'}, qr/idgen\.owned_regions: Expected a comma-separated list of region numbers, such as "0,3"; found ";2"\./ ],
	[ q{idgen.owned_regions = '4194304'}, qr/idgen\.owned_regions: Region numbers lie between 0 and 4194303\./ ],
	[ q{idgen.region_lease_ttl = '5s'}, qr/idgen\.region_lease_ttl: must be at least 10 s\./ ],
	[ q{idgen.parent_registry = 'host=x port'}, qr/idgen\.parent_registry: not a valid libpq connection string\./ ],
	[ q{idgen.leased_out_regions = '2,x'}, qr/idgen\.leased_out_regions: Expected a comma-separated list of region numbers, such as "0,3"; found "x"\./ ],
	[ "idgen.parent_registry = 'host=127.0.0.1'\nidgen.leased_out_regions = '2'",
	  qr/idgen\.leased_out_regions: a regional registry \(idgen\.parent_registry is set\) leases no region on/ ])
{
	open(my $fh, '>', $bad_conf) or die "$bad_conf: $!";
	print $fh "$bad->[0]\n";
	close($fh);
	truncate($bad_node->logfile, 0);
	ok(!$bad_node->start(fail_ok => 1), "$bad->[0]: the server does not start");
	like(slurp_file($bad_node->logfile), $bad->[1], "$bad->[0]: the log says why");
}

$root->stop('fast');
done_testing();
