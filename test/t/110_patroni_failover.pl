# 110_patroni_failover.pl - the registry on Patroni: a crash and a switchover
#
# etcd and three Patroni members (m1, m2, m3: synchronous_mode, ttl 10 s)
# on loopback, started and stopped by this test by pid (test/perl/
# IdgenPatroni.pm).  Nodes A and B lease from the registry through the
# multi-host conninfo 'host=...,...,... port=P1,P2,P3 ...
# target_session_attrs=read-write', with idgen.lease_ttl = 20 s, and draw
# IDs without a pause through both drills (every ID and every error is
# recorded with its time):
#
#   1. kill -9 of the leader: its Patroni, its postmaster and every child of
#      that at once (the machine is gone).  Patroni promotes the sync
#      standby once the leader key expires; the nodes reach it through the
#      conninfo and go on.
#   2. a planned switchover (POST /switchover on the leader's REST API) to
#      the sync standby.
#
# After each: no ID issued twice, each node's IDs ascending, errors only of
# class IR, and no worker granted to one holder while another held it, by
# the registry's own account (every worker_lease row and lease_acquired
# event seen on any leader before, during and after) and by the holders'
# (the lease_until each node reported while it issued).  The longest pause
# each node saw is reported (diag), not asserted.
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

my $t0  = time();
# the members' own nodes lease as briefly as the others: the longest
# lease_ttl in the registry sets the incarnation hold after a failover
my $reg = IdgenPatroni->new(members => 3, conf => { 'idgen.lease_ttl' => '20s' });
my $first = $reg->leader;
ok(defined $first, "registry: $first leads");
my $sync = $reg->sync_standby;
ok(defined $sync, "registry: $sync is the sync standby");

my @nodes = map {
	idgen_fleet_node($_, $reg->conninfo, conf => q{
shared_buffers = 16MB
idgen.lease_ttl = '20s'
})
} qw(node_a node_b);
for my $n (@nodes)
{
	ok(wait_state($n), $n->name . ': active');
	drill_prepare($n);
}
$reg->sample;

# --- 1. kill -9 of the leader -------------------------------------------------

my $bg = drill_start('kill9', @nodes);
$reg->sample_until(sub { 0 }, 2);
my $killed = $reg->kill9_leader;
is($killed, $first, "kill9: the leader $first is gone");
my $t_kill = time();
ok($reg->sample_until(sub { my $l = $reg->leader; defined $l && $l ne $killed }, 120),
	'kill9: a new leader');
my $second = $reg->leader;
note sprintf 'kill9: %s leads %.1f s after the kill', $second, time() - $t_kill;
is($second, $sync, "kill9: Patroni promoted the sync standby $sync");
ok($reg->wait_leader(60), "kill9: $second takes writes");

# both nodes renewed their leases on the new leader, then issue again
my $owners = join ', ', map { "'" . status($_, 'owner')->{owner} . "'" } @nodes;
ok($reg->renewed_since($owners, $t_kill, 2), 'kill9: both nodes renewed on the new leader');
ok(wait_state($_), $_->name . ': active after the failover') for @nodes;
$reg->sample_until(sub { 0 }, 1);
my $sum = drill_stop($bg, @nodes);
note "kill9: $_: $sum->{$_}" for sort keys %$sum;
drill_check($reg, 'kill9', \@nodes);

# --- 2. planned switchover ----------------------------------------------------

ok($reg->wait_sync(120), 'switchover: a sync standby again');
my $target = $reg->sync_standby;
$bg = drill_start('switchover', @nodes);
$reg->sample_until(sub { 0 }, 2);
my $t_switch = time();
ok($reg->switchover($target), "switchover: $second -> $target");
note sprintf 'switchover: %s leads %.1f s after the request', $target, time() - $t_switch;
ok($reg->renewed_since($owners, $t_switch, 2), 'switchover: both nodes renewed on the new leader');
ok(wait_state($_), $_->name . ': active after the switchover') for @nodes;
$reg->sample_until(sub { 0 }, 1);
$sum = drill_stop($bg, @nodes);
note "switchover: $_: $sum->{$_}" for sort keys %$sum;
drill_check($reg, 'switchover', \@nodes);

$_->stop for @nodes;
$reg->stop;
diag $_ for @{ $reg->{figures} };
diag sprintf '110_patroni_failover: %.0f s', time() - $t0;

done_testing();
