# 162_gateway_epochs.pl - idgen-gateway never moves back a layout epoch
# (issue 19 item 3)
#
# A layout epoch is scheduled and passed; then the registry loses it (as a
# restore from an older backup, or a failover to a standby that lacked it,
# leaves idgen.epoch; here it is deleted with the append-only trigger
# bypassed).  A node keeps the longer list; the gateway must too, and
# refuse (503, the reason in /healthz) rather than issue in the old layout,
# where the same bits name other (region, worker) pairs.
use strict;
use warnings;

use lib 'test/perl';
use IdgenGwRun;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwepochs');
# a short lease_ttl: a layout can be scheduled a few seconds ahead
my $registry = idgen_registry('registry',
	conf => "max_connections = 40\nidgen.lease_ttl = '2s'\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);
my $tokens = IdgenGwRun::tokens_file($tmp);

my $g = IdgenGwRun::start(name => 'g', conn => $conn, dir => $tmp, tokens => $tokens, ttl => '3s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g) }), 'g: healthy');

is($registry->safe_psql('postgres',
	"SELECT idgen_schedule_layout(greatest(clock_timestamp() + interval '6 seconds', "
	  . "max(lease_until) FILTER (WHERE owner IS NOT NULL) + interval '3 seconds', "
	  . "max(high_water) + interval '3 seconds'), 2, 8, 12) FROM idgen.worker_lease"),
	'2', 'a layout scheduled as epoch 2');
ok(IdgenTest::wait_for(sub {
	my @b = IdgenGwRun::ids($g, 10);
	return 0 unless @b;
	my ($s, $j) = IdgenGwRun::req($g, 'GET', "/v1/ids/$b[-1]/decode", token => 1);
	return ref $j eq 'HASH' && ($j->{epoch} // 0) == 2;
}), 'the gateway issues under epoch 2');

# the registry loses epoch 2
$registry->safe_psql('postgres',
	"SET session_replication_role = replica; DELETE FROM idgen.epoch WHERE version = 2");
is($registry->safe_psql('postgres', 'SELECT max(version) FROM idgen.epoch'), '1',
	'the registry\'s idgen.epoch lost epoch 2');

my ($st, $j);
my $refused = 0;
for (1 .. 300)
{
	($st, $j) = IdgenGwRun::req($g, 'GET', '/healthz', admin => 1);
	if ($st == 503) { $refused = 1; last; }
	usleep(100_000);
}
ok($refused, '/healthz: 503 once the registry lost an epoch');
is(ref $j eq 'HASH' ? $j->{status} : '', 'epochs_lost', 'status epochs_lost');
like(ref $j eq 'HASH' ? $j->{reason} : '', qr/epoch 2/, 'the reason names the lost epoch');
($st, $j) = IdgenGwRun::req($g, 'GET', '/v1/ids?count=10', token => 1);
is("$st " . (ref $j eq 'HASH' ? $j->{error} // '' : ''), '503 epochs_lost', 'and IDs are refused');

IdgenGwRun::stop($g);
done_testing();
