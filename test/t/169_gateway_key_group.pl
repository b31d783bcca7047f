# 169_gateway_key_group.pl - concurrent keyed requests share commits
# (issue 19, item 12)
#
# Sixteen clients send keyed requests at once, every fourth a retry of a
# key another client uses too, through a gateway with one registry
# connection for requests (--pool 1).  Every answer is right (the same IDs
# for one key, distinct IDs across keys), and the registry saw fewer calls
# than requests: the records of requests waiting together went in one
# statement and one commit (pg_stat_user_functions counts the calls).
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

my $tmp = PostgreSQL::Test::Utils::tempdir('gwgroup');
my $registry = idgen_registry('registry', conf => "max_connections = 40\ntrack_functions = 'all'\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $tokens = gw_tokens_file("$tmp/tokens", app => [ 'ids', 'app-secret' ]);
my $gw = gw_start(name => 'g', conn => registry_conn($registry), tokens => $tokens, dir => $tmp,
	args => [ '--pool', '1', '--threads', '4' ]);
ok(gw_wait_healthy($gw), 'gateway: healthy');

my ($clients, $each) = (16, 40);
my %kid;
for my $c (1 .. $clients)
{
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 60);
		open(my $f, '>', "$tmp/client_$c") or POSIX::_exit(2);
		for my $i (1 .. $each)
		{
			# every fourth request uses a key that client c+1 uses too
			my $key = $i % 4 == 0 ? "shared-" . (($c + 1) >> 1) . "-$i" : "c$c-$i";
			my ($s, $j) = gw_req($gw, 'GET', '/v1/ids?count=3', secret => 'app-secret', http => $http,
				headers => { 'Idempotency-Key' => $key });
			print $f "$key $s " . ($s == 200 ? join(',', @{ $j->{ids} }) : '-') . "\n";
		}
		close $f;
		POSIX::_exit(0);
	}
	$kid{$pid} = $c;
}
waitpid($_, 0) for keys %kid;

my (%by_key, %owner, $ok200, $n);
my $dups = 0;
for my $c (1 .. $clients)
{
	open(my $f, '<', "$tmp/client_$c") or die;
	while (my $line = <$f>)
	{
		chomp $line;
		my ($key, $s, $ids) = split / /, $line;
		$n++;
		next unless $s == 200;
		$ok200++;
		push @{ $by_key{$key} }, $ids;
	}
	close $f;
}
is($ok200, $clients * $each, "all $n keyed requests answered 200");
my $consistent = 1;
for my $key (keys %by_key)
{
	my %a = map { $_ => 1 } @{ $by_key{$key} };
	$consistent = 0 if keys %a != 1;
	for my $id (split /,/, $by_key{$key}[0])
	{
		$dups++ if defined $owner{$id} && $owner{$id} ne $key;
		$owner{$id} = $key;
	}
}
ok($consistent, 'one key, one answer (also for two clients racing on it)');
is($dups, 0, 'no ID in the answers of two keys');
# its sessions end with it, and report their counts as they go
gw_stop($gw);
my $count_sql = "SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions WHERE funcname = 'gateway_remember'";
$registry->poll_query_until('postgres', "SELECT ($count_sql) > 0 AND pg_sleep(1) IS NOT NULL")
  or diag('no calls of idgen.gateway_remember() counted');
my $calls = $registry->safe_psql('postgres',
	$count_sql);
note("$n keyed requests, $calls calls of idgen.gateway_remember()");
ok($calls > 0 && $calls < $n * 0.75,
	"concurrent keyed requests shared calls and commits ($calls calls for $n requests)");
done_testing();
