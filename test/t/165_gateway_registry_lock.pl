# 165_gateway_registry_lock.pl - a lock on the gateway's table in the
# registry, held 30 s, stops neither unkeyed requests nor /healthz nor the
# lease (issue 19, item 5)
#
# Another session holds idgen.gateway_request in ACCESS EXCLUSIVE mode for
# 30 s, across the gateway's first purge of expired records (a minute
# after its start).  Meanwhile four clients send keyed requests, which need
# that table, and the test sends /healthz and unkeyed /v1/ids requests one
# after the other.  Every /healthz and unkeyed request is answered 200 (the
# latency is reported, not asserted: the issue's target is p99 under
# 10 ms); every keyed request gets 503 well before the lock ends (its
# deadline is --registry-timeout 2s); the lease is renewed throughout.
# 0.6 ran keyed requests on the HTTP threads and the purge on the lease
# connection: both threads waited on the lock, /healthz got no answer, and
# the lease ran out.
use strict;
use warnings;

use lib 'test/perl';
use HTTP::Tiny;
use IdgenGateway;
use IdgenTest;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwlock');
my $registry = idgen_registry('registry', conf => "max_connections = 40\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $tokens = gw_tokens_file("$tmp/tokens", app => [ 'ids', 'app-secret' ]);
my $gw = gw_start(name => 'g', conn => registry_conn($registry), tokens => $tokens, dir => $tmp,
	ttl => '3s', args => [ '--threads', '2', '--registry-timeout', '2s' ]);
my $started = time();
ok(gw_wait_healthy($gw), 'gateway: healthy');
my ($st) = gw_req($gw, 'GET', '/v1/ids?count=2', secret => 'app-secret',
	headers => { 'Idempotency-Key' => 'before' });
is($st, 200, 'a keyed request before the lock: 200');

# the lock from 35 s to 65 s of the gateway's life: its first purge falls in it
my $wait = $started + 35 - time();
usleep($wait * 1e6) if $wait > 0;
my $locker = fork();
die "fork: $!" unless defined $locker;
if ($locker == 0)
{
	{
		no warnings 'exec';
		exec('psql', '-X', '-q', '-h', '127.0.0.1', '-p', $registry->port, '-d', 'postgres', '-c',
			'BEGIN; LOCK TABLE idgen.gateway_request IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT;');
	}
	POSIX::_exit(127);
}
ok($registry->poll_query_until('postgres',
	"SELECT count(*) FROM pg_locks WHERE relation = 'idgen.gateway_request'::regclass "
	  . "AND mode = 'AccessExclusiveLock' AND granted", '1'),
	'another session holds idgen.gateway_request in ACCESS EXCLUSIVE mode');
my $locked_at = time();

# four clients of keyed requests, each one request after the other
my %kid;
for my $c (1 .. 4)
{
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		open(my $f, '>', "$tmp/keyed_$c") or POSIX::_exit(2);
		my $i = 0;
		while (time() < $locked_at + 24)
		{
			$i++;
			my ($s, $j, $h, $took) = gw_req($gw, 'GET', '/v1/ids?count=5', secret => 'app-secret',
				headers => { 'Idempotency-Key' => "locked-$c-$i" }, timeout => 60);
			printf $f "%d %.3f\n", $s, $took;
		}
		close $f;
		POSIX::_exit(0);
	}
	$kid{$pid} = $c;
}

# /healthz and unkeyed requests, one after the other, while it lasts
my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 20);
my (@lat, %status);
while (time() < $locked_at + 25)
{
	for my $path ('/healthz', '/v1/ids?count=10')
	{
		my ($s, $j, $h, $took) = gw_req($gw, 'GET', $path, secret => 'app-secret', http => $http);
		push @lat, $took;
		$status{$s}++;
	}
}
waitpid($_, 0) for keys %kid;
my $still_locked = $registry->safe_psql('postgres',
	"SELECT count(*) FROM pg_locks WHERE relation = 'idgen.gateway_request'::regclass AND granted");
my @sorted = sort { $a <=> $b } @lat;
my $p99 = $sorted[ int(0.99 * $#sorted) ] * 1000;
my $max = $sorted[-1] * 1000;
my $p50 = $sorted[ int(0.5 * $#sorted) ] * 1000;
diag(sprintf('through the lock: %d /healthz and unkeyed requests, p50 %.1f ms, p99 %.1f ms, max %.1f ms',
	scalar @lat, $p50, $p99, $max));
is(join(' ', map { "$_:$status{$_}" } sort keys %status), '200:' . scalar(@lat),
	'every /healthz and unkeyed request through the lock: answered 200');
is($still_locked, '1', 'the lock was still held when they were done');

my (%kst, @ktook);
for my $c (1 .. 4)
{
	open(my $f, '<', "$tmp/keyed_$c") or die;
	while (<$f>) { my ($s, $t) = split; $kst{$s}++; push @ktook, $t; }
	close $f;
}
my $kmax = (sort { $a <=> $b } @ktook)[-1] // 0;
diag(sprintf('keyed requests through the lock: %s; the slowest answer %.2f s',
	join(' ', map { "$_:$kst{$_}" } sort keys %kst), $kmax));
ok(@ktook > 0 && ($kst{503} // 0) == @ktook, 'every keyed request through the lock: 503');
ok($kmax < 15, 'each answered long before the lock ended (--registry-timeout 2s, the lock 30 s)');

waitpid($locker, 0);
($st) = gw_req($gw, 'GET', '/v1/ids?count=2', secret => 'app-secret',
	headers => { 'Idempotency-Key' => 'after' });
is($st, 200, 'the lock gone: keyed requests answered 200 again');
my ($sh, $jh) = gw_req($gw, 'GET', '/healthz');
is($sh, 200, 'and the lease is still there');
gw_stop($gw);
done_testing();
