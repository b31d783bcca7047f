# 021_clock_source.pl - the clock IDs carry is the system clock, on a busy machine
#
# Nothing steps the clock in this test, so idgen must count no rollback, and
# the time in every ID must be the CLOCK_REALTIME of the moment it was made.
# Two busy loops keep both cores loaded (backends get preempted anywhere,
# as on a busy virtual machine) while:
#
#   - 10,000 short-lived connections (pgbench --connect) each draw an ID,
#     sleep 3 ms and draw 20 more, every ID bracketed by clock_timestamp()
#     read right before and right after it in the same row;
#   - one long-lived session draws 300,000 IDs in one statement, bracketed
#     the same way.
#
# The loops fill the machine rather than add to it: each spins while fewer
# tasks than twice the cores are runnable besides it, and sleeps while more
# are (in make test the other files load the cores already, and a loop
# there would only slow them).  The test checks that the machine was loaded
# as it wants: on average at least one runnable task per core, sampled by
# the loops throughout.
#
# Each ID's millisecond must lie within 1 ms of its bracket: not before the
# millisecond of the clock read before it minus 1, not after the millisecond
# of the clock read after it plus 1.  IDs borrow time ahead only when more
# IDs are drawn in a millisecond than it holds, which these rates are far
# from.  idgen_status() must report no clock rollback at the end.
use strict;
use warnings;

use POSIX ();
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $connections = 10000;
my $clients     = 8;

my $node = idgen_node('clock_source', conf => q{
synchronous_commit = off
});

# the background worker creates the extension in its registry database
wait_extension($node)
  or die 'the background worker did not create the extension';
wait_state($node)
  or die 'the node did not become active';

$node->safe_psql(
	'postgres', q{
CREATE UNLOGGED TABLE bracket (
    b timestamptz NOT NULL,    -- clock_timestamp() right before the ID
    id idgen NOT NULL,
    a timestamptz NOT NULL,    -- clock_timestamp() right after it
    long_lived bool NOT NULL DEFAULT false
);
});

my $rollbacks_before =
  $node->safe_psql('postgres', 'SELECT clock_rollbacks FROM idgen_status()');

# --- load: two busy loops, bounded in time, ended by their pids -------------

sub procs_running
{
	open my $fh, '<', '/proc/stat' or return undef;
	my ($n) = map { /^procs_running (\d+)/ ? $1 : () } <$fh>;
	return $n;
}
my $cores = do
{
	open my $fh, '<', '/proc/stat' or die "/proc/stat: $!";
	scalar grep { /^cpu\d+ / } <$fh>;
};
die 'no /proc/stat procs_running' unless defined procs_running();

# each loop's samples of the runnable tasks (itself included) and its
# slices spun and slept, written when it is ended
my $load_dir = PostgreSQL::Test::Utils::tempdir();
my @load;
foreach my $i (1 .. 2)
{
	my $pid = fork();
	die "fork failed: $!" unless defined $pid;
	if ($pid == 0)
	{
		my ($samples, $sum, $spun, $slept) = (0, 0, 0, 0);
		my $report = sub {
			open my $out, '>', "$load_dir/loop$i" or POSIX::_exit(1);
			print $out "$samples $sum $spun $slept\n";
			close $out;
			POSIX::_exit(0);
		};
		local $SIG{TERM} = $report;
		my $until = time() + 120;
		my $x = 0;
		while (time() < $until)
		{
			my $running = procs_running() // 0;
			$samples++;
			$sum += $running;
			if ($running - 1 >= 2 * $cores)
			{
				$slept++;
				select(undef, undef, undef, 0.02);
				next;
			}
			$spun++;
			$x++ for 1 .. 100000;
		}
		$report->();
	}
	push @load, $pid;
}

sub stop_load
{
	foreach my $pid (@load)
	{
		kill 'TERM', $pid;
		waitpid($pid, 0);
	}
	@load = ();
	return;
}
END { stop_load(); }

# --- 10,000 short-lived connections ----------------------------------------

# In the target list the expressions are evaluated left to right, so each
# row's b, id and a are read in that order.
my $bracketed = q{SELECT clock_timestamp(), idgen_next(), clock_timestamp()};
$node->pgbench(
	"--no-vacuum --connect --client=$clients --jobs=2 --transactions="
	  . $connections / $clients,
	0,
	[
		qr{number of transactions actually processed: $connections/$connections},
		qr{number of failed transactions: 0}
	],
	[qr{^$}],
	"pgbench: $connections short-lived connections draw IDs",
	{
		'021_short_lived' => qq{
INSERT INTO bracket (b, id, a) $bracketed;
SELECT pg_sleep(0.003);
INSERT INTO bracket (b, id, a) $bracketed FROM generate_series(1, 20);
},
	});

# --- one long-lived session --------------------------------------------------

$node->safe_psql('postgres',
	qq{INSERT INTO bracket (b, id, a, long_lived) $bracketed, true FROM generate_series(1, 300000)}
);

stop_load();

# --- the checks --------------------------------------------------------------

my ($samples, $sum, $spun, $slept) = (0, 0, 0, 0);
foreach my $i (1 .. 2)
{
	open my $fh, '<', "$load_dir/loop$i" or die "loop $i left no report: $!";
	my @f = split ' ', scalar <$fh>;
	$samples += $f[0];
	$sum += $f[1];
	$spun += $f[2];
	$slept += $f[3];
}
note sprintf('the loops: %d slices spun, %d slept; %.1f runnable tasks on average on %d cores',
	$spun, $slept, $samples ? $sum / $samples : 0, $cores);
cmp_ok($samples ? $sum / $samples : 0, '>=', $cores,
	'the machine was loaded throughout: at least one runnable task per core on average');

is( $node->safe_psql(
		'postgres',
		'SELECT count(*) FILTER (WHERE NOT long_lived), count(*) FILTER (WHERE long_lived) FROM bracket'
	),
	$connections * 21 . '|300000',
	'every ID was recorded with its bracket');

is($node->safe_psql('postgres', 'SELECT count(DISTINCT id) = count(*) FROM bracket'),
	't', 'no ID was issued twice');

# idgen_timestamp() is the ID's millisecond; date_trunc gives each
# clock_timestamp() its millisecond the same way (both count from the Unix
# epoch, so flooring agrees)
my $violations = q{
SELECT count(*),
       coalesce(max(date_trunc('milliseconds', b) - idgen_timestamp(id)), '0'),
       coalesce(max(idgen_timestamp(id) - date_trunc('milliseconds', a)), '0')
FROM bracket
WHERE (idgen_timestamp(id) < date_trunc('milliseconds', b) - interval '1 ms'
    OR idgen_timestamp(id) > date_trunc('milliseconds', a) + interval '1 ms')
};
is($node->safe_psql('postgres', $violations . ' AND NOT long_lived'),
	'0|00:00:00|00:00:00',
	'short-lived connections: every ID within 1 ms of the clock read next to it');
is($node->safe_psql('postgres', $violations . ' AND long_lived'),
	'0|00:00:00|00:00:00',
	'long-lived session: every ID within 1 ms of the clock read next to it');

# the brackets themselves: the clock read after an ID is never before the one
# read before it (else the checks above would prove nothing)
is($node->safe_psql('postgres', 'SELECT count(*) FROM bracket WHERE a < b'),
	'0', 'every bracket reads the clock in order');

is($node->safe_psql('postgres', 'SELECT clock_rollbacks FROM idgen_status()'),
	$rollbacks_before,
	'no clock rollback was counted: nothing stepped the clock');

$node->stop;

done_testing();
