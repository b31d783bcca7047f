# IdgenGateway.pm - idgen-gateway processes for TAP tests
#
#   use lib 'test/perl';
#   use IdgenGateway;
#
#   my $tokens = gw_tokens_file("$tmp/tokens", app => [ 'ids', 'app-secret' ]);
#   my $gw = gw_start(name => 'g1', conn => $conninfo, tokens => $tokens,
#       dir => $tmp, args => [ '--workers', '2' ]);
#   ok(gw_wait_healthy($gw), '...');
#   my ($status, $json, $headers) = gw_req($gw, 'GET', '/v1/ids?count=3',
#       secret => 'app-secret', headers => { 'Idempotency-Key' => 'k' });
#   gw_stop($gw);
#
# Every gateway started is killed at exit, so none outlives a test that
# dies.  Stopped by the pid recorded here only.
package IdgenGateway;

use strict;
use warnings;

use Digest::SHA ();
use Exporter 'import';
use File::Path qw(make_path);
use HTTP::Tiny;
use JSON::PP;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IdgenTest ();
use Time::HiRes qw(usleep);

our @EXPORT = qw(gw_tokens_file gw_start gw_stop gw_req gw_wait_healthy gw_ids);

my @started;
# only children not yet reaped (a reaped pid may be another process's by
# now), and the exit status kept: waitpid sets $?
END { local $?; kill('KILL', grep { waitpid($_, POSIX::WNOHANG()) == 0 } @started) if @started; }

# a tokens file: name => [ scopes, secret ], ...; returns its path
sub gw_tokens_file
{
	my ($path, %t) = @_;
	open(my $fh, '>', $path) or die "$path: $!";
	for my $name (sort keys %t)
	{
		my ($scopes, $secret) = @{ $t{$name} };
		print $fh "$name:$scopes:" . Digest::SHA::sha256_hex($secret) . "\n";
	}
	close $fh;
	return $path;
}

# start idgen-gateway: name, conn, tokens, dir; port, ttl, args, env optional
sub gw_start
{
	my (%o) = @_;
	my $port = $o{port} // PostgreSQL::Test::Cluster::get_free_port();
	my $state = "$o{dir}/state-$o{name}";
	make_path($state);
	my @cmd = ('idgen-gateway', '--registry', $o{conn}, '--listen', "127.0.0.1:$port",
		'--tokens', $o{tokens}, '--state-dir', $state, '--name', $o{name},
		'--lease-ttl', $o{ttl} // '3s', @{ $o{args} // [] });
	my $log = IdgenTest::log_file("gateway_$o{name}");
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		open(STDOUT, '>>', $log) or die;
		open(STDERR, '>&', \*STDOUT) or die;
		%ENV = (%ENV, %{ $o{env} // {} });
		{ no warnings 'exec'; exec(@cmd); }
		print STDERR "exec idgen-gateway: $!\n";
		POSIX::_exit(127);
	}
	push @started, $pid;
	return { %o, pid => $pid, port => $port, log => $log, base => "http://127.0.0.1:$port" };
}

sub gw_stop
{
	my ($gw, $sig) = @_;
	kill($sig // 'TERM', $gw->{pid});
	waitpid($gw->{pid}, 0);
	return;
}

# GET or POST; returns (status, decoded JSON or raw text, headers, seconds)
sub gw_req
{
	my ($gw, $method, $path, %o) = @_;
	my %h = %{ $o{headers} // {} };
	$h{Authorization} = "Bearer $o{secret}" if defined $o{secret};
	my $http = $o{http} // HTTP::Tiny->new(keep_alive => 0, timeout => $o{timeout} // 30);
	my $t0 = Time::HiRes::time();
	my $r = $http->request($method, "$gw->{base}$path",
		{ headers => \%h, defined $o{body} ? (content => $o{body}) : () });
	my $took = Time::HiRes::time() - $t0;
	my $json = eval { decode_json($r->{content}) };
	return ($r->{status}, $json // $r->{content}, $r->{headers}, $took);
}

# the IDs of a 200 answer to /v1/ids, or ()
sub gw_ids
{
	my ($gw, $count, %o) = @_;
	my ($s, $j) = gw_req($gw, 'GET', "/v1/ids?count=$count" . ($o{type} ? "&type=$o{type}" : ''), %o);
	return $s == 200 && ref $j eq 'HASH' ? @{ $j->{ids} } : ();
}

sub gw_wait_healthy
{
	my ($gw) = @_;
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		my ($s) = gw_req($gw, 'GET', '/healthz', timeout => 5);
		return 1 if $s == 200;
		usleep(100_000);
	}
	return 0;
}

1;
