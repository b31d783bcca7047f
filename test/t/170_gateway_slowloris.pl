# 170_gateway_slowloris.pl - idgen-gateway under a flood of idle and
# trickling connections (issue 19, item 16)
#
# The gateway runs with a descriptor limit of 1024 (ulimit -n, soft and
# hard), as on many hosts.  While 1500 idle connections (from 127.0.0.1 and
# 127.0.0.3) and 10 connections trickling a header one byte a second (from
# 127.0.0.4) are open:
#   1. a client on 127.0.0.2 gets 200 for every request, on new connections;
#   2. the gateway's own descriptors stay under its connection limit plus
#      its reserve: the mark file is still written (it advances), and a
#      registry reconnect works: every gateway session on the registry is
#      terminated, then a keyed request (the pool) gets 200 and the lease
#      is renewed again (the lease connection);
#   3. the trickling connections are closed by the header deadline
#      (--header-timeout), which trickled bytes do not reset; the idle ones
#      too;
#   4. beyond the total limit (more connections from more addresses) the
#      gateway still holds no more descriptors than its limit and reserve,
#      and serves the client again once the deadline has closed them.
# At start: a --max-connections the descriptor limit cannot hold is refused
# (exit 2), and the default shrinks to what it can hold.
use strict;
use warnings;

# The flood needs more descriptors than a soft limit of 1024 gives this
# process: raise it (up to the hard limit) and start again, before any
# module below makes its files.
BEGIN
{
	my $soft = `sh -c 'ulimit -S -n'`;
	chomp $soft;
	if (!$ENV{IDGEN_T170_RAISED} && $soft ne 'unlimited' && $soft < 4096)
	{
		$ENV{IDGEN_T170_RAISED} = 1;
		exec('sh', '-c', 'ulimit -S -n 4096 2>/dev/null || ulimit -S -n "$(ulimit -H -n)"; exec "$@"',
			'sh', $^X, (map { "-I$_" } grep { !ref } @INC), $0, @ARGV);
	}
}

use File::Path qw(make_path);
use POSIX ();
use HTTP::Tiny;
use IO::Select;
use IO::Socket::INET;
use JSON::PP;
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

$SIG{PIPE} = 'IGNORE';
my $gateway_bin = 'idgen-gateway';
my $tmp = PostgreSQL::Test::Utils::tempdir('slowloris');

my $registry = idgen_registry('registry', conf => "max_connections = 40\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);

my $secret = 'app-secret-1';
my $tokens_file = "$tmp/tokens";
{
	require Digest::SHA;
	open(my $fh, '>', $tokens_file) or die;
	print $fh "app:ids:" . Digest::SHA::sha256_hex($secret) . "\n";
	close $fh;
}

my @started;
# only children not yet reaped (a reaped pid may be another process's by
# now), and the exit status kept: waitpid sets $?
END { local $?; kill('KILL', grep { waitpid($_, POSIX::WNOHANG()) == 0 } @started) if @started; }

# start a gateway under `ulimit -n $nofile`; returns pid, port, log
sub start_gateway
{
	my (%o) = @_;
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $state = "$tmp/state-$o{name}";
	make_path($state);
	my $log = IdgenTest::log_file("gateway_$o{name}");
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		open(STDOUT, '>>', $log) or die;
		open(STDERR, '>&', \*STDOUT) or die;
		exec('sh', '-c', 'ulimit -n "$0" && exec "$@"', $o{nofile} // 1024,
			$gateway_bin, '--registry', $conn, '--listen', "127.0.0.1:$port",
			'--tokens', $tokens_file, '--state-dir', $state, '--name', $o{name},
			'--lease-ttl', '3s', @{ $o{args} // [] })
		  or POSIX::_exit(127);
	}
	push @started, $pid;
	return { pid => $pid, port => $port, log => $log, state => $state };
}

# true once $cond->() is, checked every 100 ms for up to $secs seconds
sub wait_secs
{
	my ($cond, $secs) = @_;
	my $until = time + $secs;
	while (time < $until)
	{
		return 1 if $cond->();
		usleep(100_000);
	}
	return 0;
}

sub slurp
{
	my ($f) = @_;
	open(my $fh, '<', $f) or return '';
	local $/;
	my $t = <$fh>;
	close $fh;
	return $t // '';
}

# --- at start: the descriptor limit ----------------------------------------

{
	my $g = start_gateway(name => 'toomany', args => [ '--max-connections', '2000' ]);
	waitpid($g->{pid}, 0);
	is($? >> 8, 2, '--max-connections 2000 under ulimit -n 1024: exit 2');
	like(slurp($g->{log}), qr/--max-connections.*descriptor/s,
		'with a message about the descriptor limit');
}

# the client: new connections from 127.0.0.2, so no per-address limit of the flood's applies
my $http = HTTP::Tiny->new(keep_alive => 0, timeout => 20, local_address => '127.0.0.2');

sub req
{
	my ($gw, $path, %h) = @_;
	my $r = $http->request('GET', "http://127.0.0.1:$gw->{port}$path",
		{ headers => { Authorization => "Bearer $secret", %h } });
	return ($r->{status}, $r->{content});
}

my $gw = start_gateway(name => 'gw',
	args => [ '--max-connections', '400', '--max-connections-per-ip', '150',
		'--header-timeout', '4s' ]);
ok(IdgenTest::wait_for(sub { my ($s) = req($gw, '/healthz'); $s == 200 }), 'the gateway is healthy');

sub fd_count
{
	opendir(my $dh, "/proc/$gw->{pid}/fd") or return -1;
	my $n = grep { !/^\./ } readdir $dh;
	closedir $dh;
	return $n;
}

sub mark { my $m = slurp("$gw->{state}/mark"); $m =~ s/\s+//g; return $m; }

# --- the flood -------------------------------------------------------------

sub open_from
{
	my ($local, $n) = @_;
	my @s;
	for (1 .. $n)
	{
		my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $gw->{port},
			LocalAddr => $local, Proto => 'tcp', Timeout => 5);
		push @s, $s if $s;
	}
	return @s;
}

my @idle = (open_from('127.0.0.1', 750), open_from('127.0.0.3', 750));
is(scalar @idle, 1500, '1500 idle connections opened');

my @trickle = open_from('127.0.0.4', 10);
$_->blocking(0) for @trickle;
my $header = "GET /healthz HTTP/1.1\r\nHost: x\r\n" . ('X-Slow: ' . ('a' x 50) . "\r\n") x 20;
my %sent = map { ($_ => 0) } 0 .. $#trickle;
my %closed_at;
my $flood_start = time;
my $last_trickle = 0;

# one byte a second to every trickler still open; note when each closes
sub trickle
{
	return if time - $last_trickle < 1;
	$last_trickle = time;
	for my $i (0 .. $#trickle)
	{
		next if exists $closed_at{$i};
		my $s = $trickle[$i];
		my $buf;
		my $r = sysread($s, $buf, 4096);
		if (defined $r && $r == 0)
		{
			$closed_at{$i} = time - $flood_start;
			next;
		}
		my $w = syswrite($s, substr($header, $sent{$i} % length($header), 1));
		if (!defined $w && !$!{EAGAIN})
		{
			$closed_at{$i} = time - $flood_start;
			next;
		}
		$sent{$i}++;
	}
}

sub pause
{
	my ($seconds) = @_;
	my $until = time + $seconds;
	while (time < $until) { trickle(); usleep(100_000); }
}

pause(1);
my $fds = fd_count();
ok($fds > 0 && $fds <= 400 + 64, "the gateway holds $fds descriptors: at most its limit (400) and reserve");

# 1. the client is served
my $ok = 0;
for (1 .. 20) { my ($s) = req($gw, '/v1/ids?count=10'); $ok++ if $s == 200; trickle(); }
is($ok, 20, 'during the flood: 20 of 20 client requests get 200');

# 2. the mark advances, and a registry reconnect works
my $mark0 = mark();
ok(IdgenTest::wait_for(sub { trickle(); my ($s) = req($gw, '/v1/ids?count=1'); mark() ne $mark0 }),
	'during the flood: the mark file is written again (it advances)');
my $until0 = $registry->safe_psql('postgres',
	"SELECT max(lease_until) FROM idgen.worker_lease WHERE owner LIKE 'gateway:gw:%'");
$registry->safe_psql('postgres',
	"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'idgen-gateway'");
my ($ks) = req($gw, '/v1/ids?count=3', 'Idempotency-Key' => 'flood-1');
is($ks, 200, 'after every registry session was terminated: a keyed request (the pool reconnects) gets 200');
ok(IdgenTest::wait_for(sub {
	trickle();
	$registry->safe_psql('postgres',
		"SELECT max(lease_until) > '$until0' FROM idgen.worker_lease WHERE owner LIKE 'gateway:gw:%'") eq 't' }),
	'and the lease is renewed again (the lease connection reconnects)');
($ok) = req($gw, '/healthz');
is($ok, 200, 'and /healthz says ok');

# 3. the header deadline closes the trickling connections, then the idle ones
ok(wait_secs(sub { trickle(); keys %closed_at == @trickle }, 40),
	'every trickling connection was closed although it kept sending')
  or diag('closed: ' . join(', ', map { "$_ at $closed_at{$_} s" } sort keys %closed_at));
my $min_sent = (sort { $a <=> $b } values %sent)[0];
ok($min_sent >= 2, "each trickler had sent bytes before it was closed (at least $min_sent)");

sub open_count
{
	my $sel = IO::Select->new(@idle);
	my $closed = 0;
	for my $s ($sel->can_read(0))
	{
		my $buf;
		my $r = sysread($s, $buf, 1);
		$closed++ if defined $r && $r == 0 || !defined $r;
	}
	return scalar(@idle) - $closed;
}
ok(wait_secs(sub { open_count() == 0 }, 40), 'and every idle connection was closed');
close($_) for @idle, @trickle;

# 4. over the total limit, from more addresses
my @more = map { open_from("127.0.0.$_", 150) } 5 .. 8;
pause(1);
$fds = fd_count();
ok($fds > 0 && $fds <= 400 + 64, "600 more from four addresses: the gateway holds $fds descriptors, at most its limit and reserve");
ok(IdgenTest::wait_for(sub { my ($s) = req($gw, '/v1/ids?count=1'); $s == 200 }),
	'the client is served again once the deadline freed the slots');
close($_) for @more;
($ok) = req($gw, '/healthz');
is($ok, 200, 'the gateway is healthy after the flood');

# --- the default limit shrinks to what the descriptors allow ---------------

kill('TERM', $gw->{pid});
waitpid($gw->{pid}, 0);
my $gd = start_gateway(name => 'dflt', nofile => 512);
ok(IdgenTest::wait_for(sub { slurp($gd->{log}) =~ /listening/ }), 'a gateway with the default limit under ulimit -n 512 starts');
like(slurp($gd->{log}), qr/at most \d+ connections/, 'and says how many connections it takes');
kill('TERM', $gd->{pid});
waitpid($gd->{pid}, 0);

done_testing();
