# 171_gateway_options.pl - idgen-gateway's and idgen's command lines under
# AddressSanitizer and UndefinedBehaviorSanitizer
#
#   1. Both programs are built here, in a scratch directory, from this tree's
#      gateway/ and src/ with -fsanitize=address,undefined (any finding
#      fatal), the way test/unit builds the pure parts.
#   2. Overlong, empty and odd values of every option of idgen-gateway:
#      each ends with exit status 2 and a message naming the option, and no
#      sanitizer report.  (On 0.6, --name of 200 bytes overflowed
#      owner_base[160] in gw_registry_init.)
#   3. A gateway with every option at its longest accepted value starts,
#      listens, answers /healthz and stops on SIGTERM with no report.
#   4. The same for idgen (the command-line tool): an overlong
#      --registry or ID is refused with exit status 2.
use strict;
use warnings;

use File::Copy qw(copy);
use File::Path qw(make_path);
use POSIX ();
use IO::Socket::INET;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwopt');
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';

# --- 1. the sanitized build ------------------------------------------------

my $build = "$tmp/build";
make_path("$build/gateway", "$build/src/core");
for my $dir ('gateway', 'src/core')
{
	opendir(my $dh, $dir) or die "$dir: $!";
	for my $f (grep { /\.(c|h|mk)$/ || $_ eq 'Makefile' } readdir $dh)
	{
		copy("$dir/$f", "$build/$dir/$f") or die "copy $dir/$f: $!";
	}
	closedir $dh;
}
copy('idgen.control', "$build/idgen.control") or die "copy idgen.control: $!";
my $san = '-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer';
my $out = `make -C $build/gateway -s PG_CONFIG=$pg_config 'CFLAGS=$san' 'IDGEN_CLI_CFLAGS=-std=c99 $san -Wall -Wextra -I. -I../src/core -I\$(IDGEN_CLI_PQ_INC)' idgen-gateway idgen 2>&1`;
is($?, 0, 'the gateway and idgen build with -fsanitize=address,undefined') or diag($out);
my $gw = "$build/gateway/idgen-gateway";
my $cli = "$build/gateway/idgen";
my $nm = `nm $gw 2>/dev/null`;
like($nm, qr/__asan_report_load/, 'the gateway is instrumented (ASan)');
like($nm, qr/__ubsan_handle_/, 'the gateway is instrumented (UBSan)');

$ENV{ASAN_OPTIONS} = 'detect_leaks=0:abort_on_error=0:exitcode=99';
$ENV{UBSAN_OPTIONS} = 'print_stacktrace=1:halt_on_error=1:exitcode=98';

# run a program; returns (exit status, stdout and stderr together)
sub run
{
	my (@cmd) = @_;
	my $log = "$tmp/run.log";
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		open(STDOUT, '>', $log) or die;
		open(STDERR, '>&', \*STDOUT) or die;
		exec(@cmd) or POSIX::_exit(127);
	}
	waitpid($pid, 0);
	my $st = $? & 127 ? 128 + ($? & 127) : $? >> 8;
	open(my $fh, '<', $log) or die;
	local $/;
	my $text = <$fh>;
	close $fh;
	return ($st, $text);
}

my $sanitizer = qr/AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|LeakSanitizer/;

# --- 2. every option of idgen-gateway, overlong and odd -----------------------

my $tokens = "$tmp/tokens";
{
	open(my $fh, '>', $tokens) or die;
	print $fh "app:ids:" . ('0' x 64) . "\n";
	close $fh;
}
make_path("$tmp/state");
my @base = ('--registry', 'host=127.0.0.1 port=1 connect_timeout=1', '--tokens', $tokens,
	'--state-dir', "$tmp/state", '--listen', '127.0.0.1:1');

# [ options, what the message must name, the test's name ]
my @bad = (
	[ [ '--name', 'n' x 200 ], qr/--name/, '--name of 200 bytes (owner_base[160] on 0.6)' ],
	[ [ '--name', 'n' x 100000 ], qr/--name/, '--name of 100 kB' ],
	[ [ '--name', '' ], qr/--name/, 'an empty --name' ],
	[ [ '--name', 'a b' ], qr/--name/, '--name with a space' ],
	[ [ '--name', 'gw:1/2' ], qr/--name/, '--name with the owner separators : and /' ],
	[ [ '--name', "a\nb" ], qr/--name/, '--name with a newline' ],
	[ [ '--registry', 'host=' . ('h' x 10000) ], qr/--registry/, '--registry of 10 kB' ],
	[ [ '--registry', '' ], qr/--registry/, 'an empty --registry' ],
	[ [ '--tokens', '/' . ('t' x 5000) ], qr/--tokens/, '--tokens of 5 kB' ],
	[ [ '--state-dir', '/' . ('s' x 5000) ], qr/--state-dir/, '--state-dir of 5 kB (the mark path would be cut)' ],
	[ [ '--state-dir', '' ], qr/--state-dir/, 'an empty --state-dir' ],
	[ [ '--tls-cert', '/' . ('c' x 5000), '--tls-key', '/k' ], qr/--tls-cert/, '--tls-cert of 5 kB' ],
	[ [ '--tls-cert', '/c', '--tls-key', '/' . ('k' x 5000) ], qr/--tls-key/, '--tls-key of 5 kB' ],
	[ [ '--tls-cert', '/c' ], qr/--tls-key/, '--tls-cert without --tls-key' ],
	[ [ '--listen', ('h' x 300) . ':80' ], qr/--listen/, '--listen with a 300-byte host' ],
	[ [ '--listen', '[' . ('h' x 300) . ']:80' ], qr/--listen/, '--listen with a 300-byte [host]' ],
	[ [ '--listen', '127.0.0.1:' . ('9' x 40) ], qr/--listen/, '--listen with a 40-digit port' ],
	[ [ '--listen', '127.0.0.1:0' ], qr/--listen/, '--listen with port 0' ],
	[ [ '--listen', '[::1' ], qr/--listen/, '--listen with an open bracket' ],
	[ [ '--listen', '' ], qr/--listen/, 'an empty --listen' ],
	[ [ '--lease-ttl', ('9' x 40) . 's' ], qr/--lease-ttl/, '--lease-ttl of 40 digits' ],
	[ [ '--lease-ttl', '-5s' ], qr/--lease-ttl/, 'a negative --lease-ttl' ],
	[ [ '--lease-ttl', '1x' ], qr/--lease-ttl/, '--lease-ttl with an unknown unit' ],
	[ [ '--region', '9' x 40 ], qr/--region/, '--region of 40 digits' ],
	[ [ '--region', '-1' ], qr/--region/, 'a negative --region' ],
	[ [ '--workers', '3' ], qr/--workers/, '--workers 3' ],
	[ [ '--workers', '9' x 30 ], qr/--workers/, '--workers of 30 digits' ],
	[ [ '--rate-limit', 'inf' ], qr/--rate-limit/, '--rate-limit inf' ],
	[ [ '--rate-limit', 'nan' ], qr/--rate-limit/, '--rate-limit nan' ],
	[ [ '--rate-limit', '1e400' ], qr/--rate-limit/, '--rate-limit 1e400' ],
	[ [ '--rate-limit', '5/min' ], qr/--rate-limit/, '--rate-limit 5/min' ],
	[ [ '--threads', '0' ], qr/--threads/, '--threads 0' ],
	[ [ '--threads', '9' x 30 ], qr/--threads/, '--threads of 30 digits' ],
	[ [ '--pool', '-3' ], qr/--pool/, 'a negative --pool' ],
	[ [ '--bogus' ], qr/--bogus|unrecognized|unknown/, 'an unknown option' ],
	[ [ '--' . ('x' x 5000) ], qr/unknown|unrecognized/, 'an unknown option of 5 kB' ],
	[ [ 'stray' ], qr/stray|argument/, 'a stray argument' ],
	[ [ '--name' ], qr/--name/, '--name without its value' ],
);
for my $b (@bad)
{
	my ($opts, $want, $name) = @$b;
	my ($st, $text) = run($gw, @base, @$opts);
	my $clean = $text !~ $sanitizer;
	ok($st == 2 && $text =~ $want && $clean, "idgen-gateway: $name: exit 2 with a message")
	  or diag("exit $st; output: " . substr($text, 0, 1500));
}

my ($st, $text) = run($gw, '--help');
ok($st == 0 && $text =~ /usage: idgen-gateway/ && $text !~ $sanitizer, 'idgen-gateway --help: exit 0, usage');
my ($version) = slurp_file('idgen.control') =~ /^default_version = '([^']+)'/m;
($st, $text) = run($gw, '--version');
is("$st|$text", "0|idgen-gateway $version\n", "idgen-gateway --version: exit 0, version $version");
($st, $text) = run($cli, '--version');
is("$st|$text", "0|idgen $version\n", "idgen --version: exit 0, version $version");

# --- 3. the longest accepted values: it runs -----------------------------------

{
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $long_state = "$tmp/" . ('d' x 200);
	make_path($long_state);
	my $log = "$tmp/long.log";
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		open(STDOUT, '>', $log) or die;
		open(STDERR, '>&', \*STDOUT) or die;
		exec($gw, '--registry', 'host=127.0.0.1 port=1 connect_timeout=1 application_name=' . ('a' x 60),
			'--tokens', $tokens, '--state-dir', $long_state, '--listen', "127.0.0.1:$port",
			'--name', 'n' x 64, '--workers', '8', '--threads', '4', '--pool', '2',
			'--rate-limit', '1000/s', '--lease-ttl', '1d');
	}
	my $up = 0;
	for (1 .. 600)
	{
		my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 2);
		if ($s)
		{
			print $s "GET /healthz HTTP/1.0\r\n\r\n";
			my $answer = join('', <$s>);
			$up = $answer =~ m{^HTTP/1\.[01] 503} ? 1 : 0;
			last;
		}
		usleep(100_000);
	}
	ok($up, 'the longest --name (64 bytes) and a long --state-dir: it runs and answers /healthz (503: no registry)');
	kill('TERM', $pid);
	waitpid($pid, 0);
	my $code = $? >> 8;
	open(my $fh, '<', $log) or die;
	local $/;
	my $l = <$fh>;
	close $fh;
	ok($code == 0 && $l !~ $sanitizer, 'and stops on SIGTERM with exit 0 and no sanitizer report')
	  or diag("exit $code; log: " . substr($l, 0, 3000));
}

# --- 4. idgen, the command-line tool ----------------------------------------

my @cli_bad = (
	[ [ '--registry', 'host=' . ('h' x 10000), 'status' ], qr/--registry/, '--registry of 10 kB' ],
	[ [ 'decode', '1' x 100000 ], qr/ID|longer/i, 'an ID of 100 kB' ],
	[ [ 'decode', '--registry', 'x' x 5000, '1' ], qr/--registry/, 'decode with a 5 kB --registry' ],
	[ [ 'x' x 5000 ], qr/unknown command|longer/, 'a 5 kB command' ],
	[ [ '--' . ('x' x 5000) ], qr/unknown option|longer/, 'a 5 kB option' ],
	[ [ 'status', '--registry' ], qr/--registry/, '--registry without its value' ],
);
for my $b (@cli_bad)
{
	my ($opts, $want, $name) = @$b;
	my ($st, $text) = run($cli, @$opts);
	ok($st == 2 && $text =~ $want && $text !~ $sanitizer, "idgen: $name: exit 2 with a message")
	  or diag("exit $st; output: " . substr($text, 0, 1500));
}
($st, $text) = run($cli, 'decode', '1');
ok($st == 0 && $text !~ $sanitizer, 'idgen decode 1: exit 0, no sanitizer report')
  or diag("exit $st; output: " . substr($text, 0, 1500));

done_testing();
