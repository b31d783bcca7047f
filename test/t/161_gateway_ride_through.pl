# 161_gateway_ride_through.pl - idgen-gateway rides registry outages
# through as a node does (issue 19 items 6 and the acceptance)
#
#   1. It renews on the node's schedule, min(ttl / 10, 2 s): with a 30 s
#      TTL a fence is noticed within about 2 s (the old gateway renewed
#      every 10 s).  Counted as renewals over a stretch of time, with
#      generous slack: a slow machine renews late, not more often.
#   2. An outage that starts just before a renewal (the gateway's registry
#      sessions frozen with SIGSTOP right after one renewal, a little before
#      the old schedule's next) and lasts 65 % of the TTL: every request is
#      answered meanwhile (the old gateway's validity, four fifths of the
#      TTL from a renewal every third, left it 47 %).
use strict;
use warnings;

use lib 'test/perl';
use JSON::PP ();
use IdgenGwRun;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwride');
my $registry = idgen_registry('registry', conf => "max_connections = 40\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);
my $tokens = IdgenGwRun::tokens_file($tmp);
my $renewals = 'idgen_gateway_lease_renewals_total{result="ok"}';

# --- 1. the renewal schedule, and a fence noticed --------------------------------

my $gf = IdgenGwRun::start(name => 'gf', conn => $conn, dir => $tmp, tokens => $tokens, ttl => '30s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($gf) }), 'gf (TTL 30 s): healthy');
my $r0 = IdgenGwRun::metric($gf, $renewals);
usleep(9_000_000);
my $r1 = IdgenGwRun::metric($gf, $renewals);
cmp_ok($r1 - $r0, '>=', 3, 'with a 30 s TTL it renews every 2 s (renewals in 9 s: ' . ($r1 - $r0) . ')');

my ($region, $worker) = split /:/, $registry->safe_psql('postgres',
	"SELECT region || ':' || worker FROM idgen.worker_lease WHERE owner LIKE 'gateway:gf:%'");
my $t0 = time;
$registry->safe_psql('postgres', "SELECT idgen_fence_worker($region, $worker)");
ok(IdgenTest::wait_for(sub { IdgenGwRun::metric($gf, 'idgen_gateway_fenced_total') >= 1 }),
	'the fence is noticed');
diag(sprintf('fence noticed after %.1f s', time - $t0));
IdgenGwRun::stop($gf);

# --- 2. an outage of 65 % of the TTL, starting just before a renewal -------------

my $g = IdgenGwRun::start(name => 'g', conn => $conn, dir => $tmp, tokens => $tokens, ttl => '10s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g) }), 'g (TTL 10 s): healthy');
my @before = IdgenGwRun::ids($g, 10);
is(scalar @before, 10, 'g issues');

# right after a renewal, and 3 s on: the old schedule's next one was due at 3.3 s
my $n = IdgenGwRun::metric($g, $renewals);
ok(IdgenTest::wait_for(sub { IdgenGwRun::metric($g, $renewals) > $n }), 'a renewal went by');
usleep(3_000_000);
my @pids = split /\n/, $registry->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE application_name = 'idgen-gateway'");
ok(@pids >= 1, 'the gateway\'s registry sessions: ' . scalar @pids);
kill('STOP', @pids);
my ($asked, $answered) = (0, 0);
my $until = time + 6.5;
while (time < $until)
{
	my @b = IdgenGwRun::ids($g, 10);
	$asked++;
	$answered++ if @b == 10;
	usleep(100_000);
}
kill('CONT', @pids);
ok($asked > 10, "requests during the outage: $asked");
is($answered, $asked, 'the registry frozen for 65 % of the TTL: every request answered');
ok(IdgenTest::wait_for(sub { IdgenGwRun::metric($g, $renewals) > $n + 1 }), 'and it renews again');
# a transport error of the test's own keep-alive client (599) is asked
# again; any answer of the gateway's counts
my ($st, $body) = IdgenGwRun::req($g, 'GET', '/v1/ids?count=10', token => 1);
($st, $body) = IdgenGwRun::req($g, 'GET', '/v1/ids?count=10', token => 1) if $st == 599;
my @after = $st == 200 && ref $body eq 'HASH' ? @{ $body->{ids} } : ();
is(scalar @after, 10, 'and issues')
  or diag "status $st: " . (ref $body ? JSON::PP::encode_json($body) : $body);
IdgenGwRun::stop($g);

done_testing();
