# 111_patroni_outage.pl - the registry on Patroni: etcd lost, a lagging replica
#
# etcd and two Patroni members (synchronous_mode, ttl 10 s) on loopback
# (test/perl/IdgenPatroni.pm); nodes A and B with idgen.lease_ttl = 20 s
# draw IDs through both drills, as in 110_patroni_failover.pl:
#
#   3. etcd stopped for longer than Patroni's TTL: the leader cannot keep
#      its key and demotes itself, so no member takes writes.  The nodes go
#      on issuing on their leases, then refuse with a retryable error (class
#      IR) once those run out, and issue again once etcd is back and a
#      leader is elected.
#   4. a failover to a replica that had fallen behind: the sync standby's
#      walreceiver is stopped (SIGSTOP), so it neither receives nor confirms
#      WAL.  Node C starts then and asks the leader for a block, A and B
#      renew; then the leader is killed (kill -9 of Patroni, postmaster and
#      children) and the walreceiver too, with the WAL it had not read yet
#      (its replica restarts).  Patroni promotes the standby, the only one,
#      which lacks whatever the leader committed without it.  Asserted: a
#      grant node C was told of is on the promoted standby (with lease
#      protocol v2 the grant waits for the standby, so C is told nothing).  Node D, pinned to the block C was granted (if C was
#      told it had one), asks the new leader.  What happens is recorded
#      (was C told it held a block, did D get that block, and when); the
#      assertion is that no block went to two holders at once.
#
# After each: no ID issued twice, each node's IDs ascending, errors only of
# class IR, no worker granted to one holder while another held it, by the
# registry's account and by the holders'; the longest pause each node saw
# is reported (diag).
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status);
use IdgenPatroni;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

IdgenPatroni::require_or_skip();

# a node's state, '' while it has no idgen_status() yet
sub state_of
{
	my ($n) = @_;
	my ($rc, $out) = $n->psql('postgres', 'SELECT state FROM idgen_status()');
	return $rc == 0 ? $out : '';
}

my $t0  = time();
# the members' own nodes lease as briefly as the others: the longest
# lease_ttl in the registry sets the incarnation hold after a failover
my $reg = IdgenPatroni->new(members => 2, conf => { 'idgen.lease_ttl' => '20s' });
my $first = $reg->leader;
ok(defined $first, "registry: $first leads");

my $node_conf = q{
shared_buffers = 16MB
idgen.lease_ttl = '20s'
};
my @nodes = map { idgen_fleet_node($_, $reg->conninfo, conf => $node_conf) } qw(node_a node_b);
for my $n (@nodes)
{
	ok(wait_state($n), $n->name . ': active');
	drill_prepare($n);
}
$reg->sample;
my $owners = join ', ', map { "'" . status($_, 'owner')->{owner} . "'" } @nodes;

# --- 3. etcd stopped for longer than Patroni's TTL -----------------------------

my $bg = drill_start('etcd', @nodes);
$reg->sample_until(sub { 0 }, 2);
$reg->stop_etcd;
my $t_stop = time();
ok( $reg->sample_until(
		sub { $reg->leader_sql('SELECT NOT pg_is_in_recovery()', quiet => 1) ne 't' }, 120),
	'etcd: no member takes writes any more (the leader demoted itself)');
my $t_demoted = time();
note sprintf 'etcd: the leader demoted %.1f s after etcd stopped', $t_demoted - $t_stop;
# the nodes issue on their leases, then refuse
for my $n (@nodes)
{
	ok( $n->poll_query_until('postgres',
			q{SELECT state <> 'active' FROM idgen_status()}),
		$n->name . ': its lease ran out');
}
my $t_refused = time();
note sprintf 'etcd: both nodes stopped issuing %.1f s after the demotion', $t_refused - $t_demoted;
$reg->start_etcd;
ok($reg->wait_leader(120), 'etcd: a leader again once etcd is back');
note sprintf 'etcd: %s leads %.1f s after etcd came back', $reg->leader, time() - $t_refused;
ok(wait_state($_), $_->name . ': active again') for @nodes;
note sprintf 'etcd: both nodes active %.1f s after etcd came back', time() - $t_refused;
$reg->sample_until(sub { 0 }, 1);
my $sum = drill_stop($bg, @nodes);
note "etcd: $_: $sum->{$_}" for sort keys %$sum;
for my $n (@nodes)
{
	my $name = $n->name;
	is( $n->safe_psql('postgres', qq{
SELECT count(*) > 0 FROM drawn WHERE drill = 'etcd' AND id IS NOT NULL
  AND at > to_timestamp($t_demoted)
  AND n < (SELECT min(n) FROM drawn WHERE drill = 'etcd' AND sqlstate IS NOT NULL)}),
		't', "etcd: $name issued IDs after the demotion, before its first refusal");
	is( $n->safe_psql('postgres',
			q{SELECT count(*) > 0 FROM drawn WHERE drill = 'etcd' AND sqlstate LIKE 'IR%'}),
		't', "etcd: $name refused with a retryable error (class IR)");
	is( $n->safe_psql('postgres', q{
SELECT count(*) > 0 FROM drawn WHERE drill = 'etcd' AND id IS NOT NULL
  AND n > (SELECT max(n) FROM drawn WHERE drill = 'etcd' AND sqlstate IS NOT NULL)}),
		't', "etcd: $name issued IDs again after its last refusal");
}
drill_check($reg, 'etcd', \@nodes);

# --- 4. failover to a replica that had fallen behind ----------------------------

ok($reg->wait_members(120) && $reg->wait_sync(120), 'lagging: both members up, a sync standby');
my $leader  = $reg->leader;
my $standby = $reg->sync_standby;
note "lagging: $leader leads, $standby is the sync standby";
$bg = drill_start('lagging', @nodes);
$reg->sample_until(sub { 0 }, 1);
my $stalled = $reg->stall_replica($standby);
my $t_stall = time();

# node C asks for a block while the standby confirms nothing
my $nc = idgen_fleet_node('node_c', $reg->conninfo, conf => $node_conf, start => 0);
$nc->start;
my $c_active = $reg->sample_until(sub {
		state_of($nc) eq 'active' }, 4);
my $sc = status($nc, qw(state region worker workers generation owner lease_until));
note "lagging: node_c while the standby lags: state $sc->{state}, block "
  . ($c_active ? "$sc->{region}/$sc->{worker}-" . ($sc->{worker} + $sc->{workers} - 1)
	  . " generation $sc->{generation} until $sc->{lease_until}" : 'none');
if ($c_active)
{
	$nc->safe_psql('postgres', q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, id idgen, owner text, region int, worker int,
                    workers int, generation bigint, lease_until timestamptz);
INSERT INTO drawn (id, owner, region, worker, workers, generation, lease_until)
SELECT idgen_next(), s.owner, s.region, s.worker, s.workers, s.generation, s.lease_until
FROM generate_series(1, 500), LATERAL idgen_status() AS s;
});
}
# A and B renew meanwhile (every 2 s with lease protocol v2, at half life
# before); the stall stays short of their leases' 19 s with the failover
$reg->sample_until(sub { 0 }, 1);
my $killed = $reg->kill9_leader;
$reg->drop_stalled($stalled);
my $t_kill = time();
ok($reg->sample_until(sub { ($reg->leader // '') eq $standby }, 120),
	"lagging: Patroni promoted $standby, the standby that had fallen behind");
ok($reg->wait_leader(60), "lagging: $standby takes writes");
note sprintf 'lagging: %s leads %.1f s after the kill', $standby, time() - $t_kill;
# a grant a node was told of is on the standby Patroni promoted (with
# synchronous_mode the grant waited for it), or no node was told of one
if ($c_active)
{
	is( $reg->leader_sql(
			"SELECT count(*) > 0 FROM idgen.worker_lease WHERE owner = '$sc->{owner}'"
			  . " AND generation >= $sc->{generation}"),
		't', "lagging: the grant node_c was told of is on $standby");
}
else
{
	pass('lagging: node_c was told of no grant while the standby confirmed nothing');
}

# node D pinned to node C's block (if C had one): whether and when it gets
# it is what the registry decides (it may be held by a holder the new leader
# knows of, or refused during an incarnation hold); recorded, not asserted
my $pin = $c_active ? "idgen.region_id = $sc->{region}\nidgen.worker_id = $sc->{worker}\n" : '';
my $nd = idgen_fleet_node('node_d', $reg->conninfo, conf => $node_conf . $pin);
my $d_active = $reg->sample_until(sub { state_of($nd) eq 'active' }, 45);
my $sd = status($nd, qw(state reason region worker workers generation owner));
note $d_active
  ? "lagging: node_d got block $sd->{region}/$sd->{worker} generation $sd->{generation}"
  . sprintf(' %.1f s after the kill', time() - $t_kill)
  : "lagging: node_d has no block 45 s after it started: $sd->{state}: $sd->{reason}";
if ($d_active)
{
	$nd->safe_psql('postgres', q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, id idgen, owner text, region int, worker int,
                    workers int, generation bigint, lease_until timestamptz);
INSERT INTO drawn (id, owner, region, worker, workers, generation, lease_until)
SELECT idgen_next(), s.owner, s.region, s.worker, s.workers, s.generation, s.lease_until
FROM generate_series(1, 500), LATERAL idgen_status() AS s;
});
}
ok($reg->renewed_since($owners, $t_kill, 2), 'lagging: A and B renewed on the new leader');
ok(wait_state($_), $_->name . ': active after the failover') for @nodes;
$reg->sample_until(sub { 0 }, 1);
$sum = drill_stop($bg, @nodes);
note "lagging: $_: $sum->{$_}" for sort keys %$sum;
drill_check($reg, 'lagging', \@nodes, extra => [ $c_active ? ($nc) : (), $d_active ? ($nd) : () ]);
my $c_state = status($nc, qw(state reason));
note "lagging: node_c at the end: $c_state->{state}: $c_state->{reason}";

$_->stop for @nodes, $nc, $nd;
$reg->stop;
diag $_ for @{ $reg->{figures} };
diag sprintf '111_patroni_outage: %.0f s', time() - $t0;

done_testing();
