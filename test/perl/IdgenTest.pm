# IdgenTest.pm - the node set-up the TAP tests share
#
#   use lib 'test/perl';
#   use IdgenTest;
#
#   my $node = idgen_node('name', conf => "idgen.lease_ttl = '4s'\n");
#   ok(wait_extension($node), '...');
#   ok(wait_state($node, 'active'), '...');
#
#   my $registry = idgen_registry('registry');
#   my $fleet1   = idgen_fleet_node('node1', $registry, conf => ...);
#
# idgen_node() makes a PostgreSQL::Test::Cluster with idgen preloaded and
# starts it; what a test adds to postgresql.conf comes after the common lines,
# so a test can still override them.  The wait helpers return true or false
# and leave the assertion, and its name, to the test; wait_active() is the
# exception: it makes the two assertions every restart test makes.
#
# On request (use IdgenTest qw(:DEFAULT name ...)): status, wait_for,
# wait_active, sqlstate_of, find_program, run_program, skip_or_fail,
# assert_checks, faketime_lib, move_clock_to, above_all_before, range_lease,
# log_file.
package IdgenTest;

use strict;
use warnings;

use Exporter 'import';
use File::Basename qw(basename);
use IPC::Run;
use IdgenInitdbTemplate;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

# the rest only on request: several tests have their own status and wait_for
our @EXPORT = qw(idgen_node idgen_registry idgen_fleet_node registry_conn
  wait_extension wait_state);
our @EXPORT_OK = qw(status wait_for wait_active sqlstate_of find_program
  run_program skip_or_fail assert_checks faketime_lib move_clock_to
  above_all_before range_lease log_file);

# A node with idgen in shared_preload_libraries.
#   conf  => text appended to postgresql.conf after the common lines
#   init  => hash ref of options for $node->init (allows_streaming, extra)
#   tcp   => listen on 127.0.0.1 instead of the Unix socket only
#   start => 0 to leave the node stopped (to start it under a shim)
sub idgen_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	IdgenInitdbTemplate::with_template(sub { $node->init(%{ $opt{init} // {} }) });
	my $listen = $opt{tcp} ? '127.0.0.1' : '';
	$node->append_conf('postgresql.conf',
		    "shared_preload_libraries = 'idgen'\n"
		  . "listen_addresses = '$listen'\n"
		  . ($opt{conf} // ''));
	$node->start if $opt{start} // 1;
	return $node;
}

# The connection string fleet nodes use to reach a registry on loopback.
sub registry_conn
{
	my ($registry) = @_;
	return 'host=127.0.0.1 port=' . $registry->port . ' dbname=postgres';
}

# A registry: an idgen node other nodes reach over TCP.  Same options as
# idgen_node(); tcp is always on.
sub idgen_registry
{
	my ($name, %opt) = @_;
	return idgen_node($name, %opt, tcp => 1);
}

# A fleet node leasing from $registry (a node, or a connection string).
# Same options as idgen_node(); tcp is always on.
sub idgen_fleet_node
{
	my ($name, $registry, %opt) = @_;
	my $conn = ref $registry ? registry_conn($registry) : $registry;
	return idgen_node($name, %opt, tcp => 1,
		conf => "idgen.registry = '$conn'\n" . ($opt{conf} // ''));
}

# True once the background worker has created the extension in $db (the
# registry database, postgres unless a test moved it).
sub wait_extension
{
	my ($node, $db) = @_;
	return $node->poll_query_until($db // 'postgres',
		"SELECT count(*) FROM pg_extension WHERE extname = 'idgen'", '1');
}

# True once idgen_status() reports $state (active unless given).
sub wait_state
{
	my ($node, $state, $db) = @_;
	return $node->poll_query_until($db // 'postgres',
		'SELECT state FROM idgen_status()', $state // 'active');
}

# Asserts that the background worker created the extension and that the
# node is active, the test names starting with $what; returns the owner
# idgen_status() reports.
sub wait_active
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($node, $what) = @_;
	ok( wait_extension($node),
		"$what: the extension exists in the registry database");
	ok( wait_state($node),
		"$what: idgen_status() reports state active");
	return unless defined wantarray;
	return $node->safe_psql('postgres', 'SELECT owner FROM idgen_status()');
}

# The SQLSTATE $sql fails with on $node, verbose ('ok' when it succeeds).
#   db   => the database, postgres unless given
#   user => the role psql connects as
sub sqlstate_of
{
	my ($node, $sql, %opt) = @_;
	my ($stdout, $stderr) = ('', '');
	my $ret = $node->psql(
		$opt{db} // 'postgres', "\\set VERBOSITY verbose\n$sql",
		stdout       => \$stdout,
		stderr       => \$stderr,
		extra_params => (defined $opt{user} ? [ '-U', $opt{user} ] : []));
	return 'ok' if $ret == 0;
	return $1 if $stderr =~ /ERROR:\s+([0-9A-Z]{5}):/;
	return "no SQLSTATE (rc $ret): $stderr";
}

# The path of an executable $name: one of @also, else the first in PATH.
sub find_program
{
	my ($name, @also) = @_;
	for my $path (@also, map { "$_/$name" } grep { $_ ne '' } split /:/, $ENV{PATH} // '')
	{
		return $path if -f $path && -x $path;
	}
	return undef;
}

# Runs @$cmd with no input for at most $timeout_s; returns its exit code
# (-1 when it could not run or timed out), stdout and stderr.
sub run_program
{
	my ($cmd, $timeout_s) = @_;
	my ($out, $err) = ('', '');
	my $rc = eval {
		IPC::Run::run($cmd, '<', \undef, '>', \$out, '2>', \$err,
			IPC::Run::timeout($timeout_s));
		$? >> 8;
	};
	if (!defined $rc)
	{
		$err .= "\n$@";
		$rc = -1;
	}
	return ($rc, $out, $err);
}

# Inside a SKIP block: skip $count tests because of $why, or, under
# IDGEN_REQUIRE_CLIENTS=1 (make test installs every client), fail once and
# leave the block.
sub skip_or_fail
{
	my ($why, $count) = @_;
	if (($ENV{IDGEN_REQUIRE_CLIENTS} // '') eq '1')
	{
		fail("IDGEN_REQUIRE_CLIENTS=1 but $why");
		no warnings 'exiting';
		last SKIP;
	}
	diag("skipping: $why");
	skip($why, $count);
}

# A client program's output (lines "check NAME ok") against the checks it
# must report: one test per name in @names, and 3 more (no unknown check,
# the program ran to its end and exited 0).
sub assert_checks
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($who, $rc, $out, $err, @names) = @_;
	my %seen;
	for my $line (split /\n/, $out)
	{
		$seen{$1} = $2 if $line =~ /^check (\S+) (ok|FAIL.*)$/;
	}
	for my $name (@names)
	{
		is($seen{$name} // 'missing', 'ok', "$who: $name");
	}
	my @extra = grep { my $n = $_; !grep { $_ eq $n } @names } sort keys %seen;
	is(join(',', @extra), '', "$who: no checks this test does not know");
	like($out, qr/^done$/m, "$who: the program ran to its end");
	is($rc, 0, "$who: the program exited 0")
	  or diag("stdout:\n$out\nstderr:\n$err");
}

# The path of libfaketime.so.1 (the libfaketime package's), or undef.
sub faketime_lib
{
	my $lib;
	if (open(my $dpkg, '-|', 'dpkg', '-L', 'libfaketime'))
	{
		while (my $line = <$dpkg>)
		{
			chomp $line;
			$lib = $line if $line =~ m{/libfaketime\.so\.1$};
		}
		close $dpkg;
	}
	($lib) = glob('/usr/lib/*/faketime/libfaketime.so.1')
	  unless defined $lib && -f $lib;
	return defined $lib && -f $lib ? $lib : undef;
}

# Moves the whole node's clock (idgen.test_clock_offset_days and
# idgen.test_clock_offset, then a reload) so that it reads $target_unix_ms
# now.
sub move_clock_to
{
	my ($node, $target_unix_ms) = @_;
	my $now_ms = $node->safe_psql('postgres',
		q{SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint});
	my $delta = $target_unix_ms - $now_ms;
	my $days = int($delta / 86400000);
	my $ms = $delta - $days * 86400000;
	$node->safe_psql('postgres', qq{
ALTER SYSTEM SET idgen.test_clock_offset_days = $days;
ALTER SYSTEM SET idgen.test_clock_offset = $ms;
SELECT pg_reload_conf();});
	return;
}

# Asserts (test name $name) that the table issued (n, phase, id) holds IDs
# of $phase and that every one lies above every ID issued, by n, before the
# phase began.
sub above_all_before
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($node, $phase, $name) = @_;
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) > 0
   AND min(id::bigint) > (SELECT max(id::bigint) FROM issued AS e
                          WHERE e.n < (SELECT min(n) FROM issued WHERE phase = '$phase'))
FROM issued WHERE phase = '$phase'}),
		't', $name);
}

# idgen_lease_range($owner, $count, $key) on $node, as "start|end|generation"
# ($key undef: no request key); dies if refused.
sub range_lease
{
	my ($node, $owner, $count, $key) = @_;
	my $k = defined $key ? "'$key'" : 'NULL';
	return $node->safe_psql('postgres',
		"SELECT concat_ws('|', range_start, range_end, generation) FROM idgen_lease_range('$owner', $count, $k)");
}

# The log file for a helper program ($what: gateway_g1, etcd, ...) in
# tmp_check/log, named after the test file as the clusters' logs are: the
# files of a run share that directory and run at the same time, and a test
# that reads its gateway's log must read no other test's.
sub log_file
{
	my ($what) = @_;
	my $test = basename($0);
	$test =~ s/\.[^.]+$//;
	return "$PostgreSQL::Test::Utils::log_path/${test}_$what.log";
}

# idgen_status()'s @cols as a hash ref.
sub status
{
	my ($node, @cols) = @_;
	my @vals = split /\|/,
	  $node->safe_psql('postgres',
		'SELECT ' . join(', ', @cols) . ' FROM idgen_status()');
	my %s;
	@s{@cols} = @vals;
	return \%s;
}

# True once $cond->() returns true, checked every 100 ms for as long as
# poll_query_until would wait.
sub wait_for
{
	my ($cond) = @_;
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return 1 if $cond->();
		usleep(100_000);
	}
	return 0;
}

1;
