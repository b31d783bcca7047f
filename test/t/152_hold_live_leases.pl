# 152_hold_live_leases.pl - the incarnation hold covers only leases that may
# still run, and the same-owner path of idgen_lease_worker obeys the hold
# and the renewal rule
#
# Issue 19, items 4 and 15.
#   1. A single instance leases an outside worker for a day and releases it
#      at once, then restarts: its own node issues again at once (no hold),
#      and the hold for outside leases is the registry's idgen.lease_ttl
#      plus allowances, not a day.
#   2. An outside lease of a day that still runs at a restart: the hold is
#      still the registry's lease_ttl plus allowances (the live row keeps
#      its own worker: its mark covers the day); the same owner asking
#      again during the hold is refused (IR006) like anyone else.
#   3. The same owner asking again when its lease ends within max_skew: it
#      is not extended (the renewal rule), the owner gets a new lease.
#   4. A lease table with a history but no incarnation row (a registry
#      database restored or moved without it) holds.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('hold152', conf => "idgen.lease_ttl = '5s'\n");
ok(wait_state($node), 'active');

# --- 1. a released outside lease of a day --------------------------------
$node->safe_psql('postgres', q{
SELECT idgen_release_worker(region, worker, generation)
FROM idgen_lease_worker('app', interval '1 day')});
$node->restart;
ok(wait_extension($node), 'restarted');
is( $node->safe_psql('postgres',
		q{SELECT hold_until = '-infinity' FROM idgen.registry_incarnation_check(true)}),
	't', 'the restarted single instance\'s own node has no hold');
is( $node->safe_psql('postgres',
		q{SELECT hold_until < idgen.clock() + interval '1 minute' FROM idgen.registry_incarnation_check()}),
	't', 'the hold for outside leases is not the released lease\'s day');
ok(wait_state($node), 'the node is active again');
ok($node->safe_psql('postgres', 'SELECT idgen_next() IS NOT NULL'), 'and issues');

# --- 2. a running outside lease of a day -----------------------------------
# outside holders wait out the hold of the restart above
my $live;
ok( wait_for(sub {
		my ($rc, $o) = $node->psql('postgres',
			q{SELECT worker || '|' || generation FROM idgen_lease_worker('live', interval '1 day')});
		$live = $o if $rc == 0;
		return $rc == 0;
	}),
	'an outside lease of a day is granted after the restart\'s hold');
my ($lw, $lg) = split /\|/, $live // '|';
$node->restart;
ok(wait_extension($node), 'restarted with a running lease of a day');
is( $node->safe_psql('postgres',
		q{SELECT hold_until < idgen.clock() + interval '1 minute' FROM idgen.registry_incarnation_check()}),
	't', 'the hold is not the running lease\'s day');
my ($rc, $o, $e) = $node->psql('postgres',
	q{SELECT worker FROM idgen_lease_worker('live', interval '1 day')});
like($e, qr/grants no worker until/, 'the same owner asking again during the hold is refused (IR006)');
is( $node->safe_psql('postgres',
		"SELECT idgen_renew_worker(0, $lw, $lg, 'live') > idgen.clock() + interval '23 hours'"),
	't', 'the running lease renews through the hold');
my $other;
ok( wait_for(sub {
		my ($rc2, $o2) = $node->psql('postgres',
			q{SELECT worker FROM idgen_lease_worker('other', interval '10 s')});
		$other = $o2 if $rc2 == 0;
		return $rc2 == 0;
	}),
	'after the hold another owner is granted a worker');
isnt($other, $lw, 'another worker than the running lease\'s');
ok(wait_state($node), 'the node is active');

# --- 3. the same owner, a lease within max_skew of its end -------------------
my ($sw, $sg) = split /\|/, $node->safe_psql('postgres',
	q{SELECT worker || '|' || generation FROM idgen_lease_worker('late', interval '10 s')});
$node->safe_psql('postgres', qq{
UPDATE idgen.worker_lease SET lease_until = idgen.clock() + interval '300 ms'
WHERE region = 0 AND worker = $sw});
my ($aw, $ag) = split /\|/, $node->safe_psql('postgres',
	q{SELECT worker || '|' || generation FROM idgen_lease_worker('late', interval '10 s')});
ok(!($aw eq $sw && $ag eq $sg),
	"a lease ending within max_skew is not extended for the same owner (was $sw/$sg, now $aw/$ag)");

# --- 4. a registry database without its incarnation row -----------------------
# (restored or moved to another database without it: the row is not
# dumped) is no first incarnation when its lease table has a history
$node->safe_psql('postgres', 'DELETE FROM idgen.registry_incarnation');
is( $node->safe_psql('postgres',
		q{SELECT hold_until > idgen.clock() FROM idgen.registry_incarnation_check()}),
	't', 'a lease table with a history and no incarnation row: a hold');

$node->stop;
done_testing();
