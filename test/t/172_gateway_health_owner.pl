# 172_gateway_health_owner.pl - idgen-gateway keeps its lease owner names
# off unauthenticated endpoints (issue 19, item 15)
#
# The owner name of a gateway's leases is what idgen_lease_worker's
# same-owner path matches: whoever knows it can, with an admin token, lease
# the running gateway's worker.  /healthz without a token (or with a token
# that is not an admin's) says only ok or the class of the refusal;
# an admin token sees the reason, owner, region and workers.  /metrics
# names no owner.
use strict;
use warnings;

use File::Path qw(make_path);
use POSIX ();
use HTTP::Tiny;
use JSON::PP;
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $tmp = PostgreSQL::Test::Utils::tempdir('health');
my $registry = idgen_registry('registry');
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);

require Digest::SHA;
my %secret = (app => 'app-secret', ops => 'ops-secret');
open(my $fh, '>', "$tmp/tokens") or die;
print $fh "app:ids,decode:" . Digest::SHA::sha256_hex($secret{app}) . "\n";
print $fh "ops:admin:" . Digest::SHA::sha256_hex($secret{ops}) . "\n";
close $fh;

my @started;
# only children not yet reaped (a reaped pid may be another process's by
# now), and the exit status kept: waitpid sets $?
END { local $?; kill('KILL', grep { waitpid($_, POSIX::WNOHANG()) == 0 } @started) if @started; }

sub start_gateway
{
	my ($name, @args) = @_;
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	make_path("$tmp/state-$name");
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		open(STDOUT, '>>', IdgenTest::log_file("gateway_$name")) or die;
		open(STDERR, '>&', \*STDOUT) or die;
		exec('idgen-gateway', '--registry', $conn, '--listen', "127.0.0.1:$port",
			'--tokens', "$tmp/tokens", '--state-dir', "$tmp/state-$name", '--name', $name,
			'--lease-ttl', '3s', @args)
		  or POSIX::_exit(127);
	}
	push @started, $pid;
	return { pid => $pid, base => "http://127.0.0.1:$port" };
}

my $http = HTTP::Tiny->new(timeout => 30);

sub get
{
	my ($gw, $path, $auth) = @_;
	my $r = $http->get("$gw->{base}$path",
		{ headers => defined $auth ? { Authorization => $auth } : {} });
	return ($r->{status}, $r->{content});
}

my $gw = start_gateway('secretive');
ok(IdgenTest::wait_for(sub { my ($s) = get($gw, '/healthz'); $s == 200 }), 'the gateway is healthy');
my $owner = $registry->safe_psql('postgres',
	"SELECT owner FROM idgen.worker_lease WHERE owner LIKE 'gateway:secretive:%'");
like($owner, qr/^gateway:secretive:[0-9a-f]{16}\/0$/, "the registry has the gateway's lease ($owner)");
(my $base = $owner) =~ s{/0$}{};
my ($suffix) = $base =~ /([0-9a-f]{16})$/;

for my $case ([ 'no token', undef ], [ 'an ids token', "Bearer $secret{app}" ],
	[ 'a wrong token', 'Bearer nope' ], [ 'a malformed header', 'Basic x' ])
{
	my ($what, $auth) = @$case;
	my ($s, $body) = get($gw, '/healthz', $auth);
	my $j = eval { decode_json($body) } // {};
	is($s, 200, "/healthz with $what: 200");
	is(join(',', sort keys %$j), 'status', "/healthz with $what: only the status");
	is($j->{status}, 'ok', "/healthz with $what: status ok");
	unlike($body, qr/\Q$suffix\E|gateway:|secretive/, "/healthz with $what: no owner name");
}

my ($s, $body) = get($gw, '/healthz', "Bearer $secret{ops}");
my $j = eval { decode_json($body) } // {};
is($s, 200, '/healthz with the admin token: 200');
is("$j->{owner}/0", $owner, '/healthz with the admin token: the owner');
ok(ref $j->{workers} eq 'ARRAY' && @{ $j->{workers} } == 1, 'and the workers');
ok(defined $j->{reason}, 'and the reason');

($s, $body) = get($gw, '/metrics');
is($s, 200, '/metrics: 200');
unlike($body, qr/\Q$suffix\E|gateway:secretive/, '/metrics: no owner name');

# refusing: the class only, without a token
my $gn = start_gateway('noregion', '--region', '5');
ok(IdgenTest::wait_for(sub { my ($st) = get($gn, '/healthz'); $st == 503 }), 'a gateway that cannot lease: 503');
($s, $body) = get($gn, '/healthz');
$j = eval { decode_json($body) } // {};
is(join(',', sort keys %$j), 'status', 'its /healthz without a token: only the status');
is($j->{status}, 'no_lease', 'which is the class, no_lease');
# 503 comes before the first answer of the registry ("no worker leased
# yet"); on a loaded machine that answer can take a while
ok( IdgenTest::wait_for(sub {
		($s, $body) = get($gn, '/healthz', "Bearer $secret{ops}");
		$j = eval { decode_json($body) } // {};
		return ($j->{reason} // 'no worker leased yet') ne 'no worker leased yet';
	}),
	'with the admin token: the reason, once the registry refused');
like($j->{reason} // '', qr/region 5/, 'with the admin token: the reason text');

done_testing();
