# 011_crash_under_load.pl - kill -9 of the postmaster while clients draw IDs
#
# Three pgbench clients insert idgen_next() rows (and now and then a whole
# idgen_next_batch()) tagged with the current phase.  While they run, the
# postmaster gets SIGKILL: no shutdown, no lease release, backends orphaned
# in mid-transaction.  Once every process of the old server is gone the node
# is started again, a new phase of load begins, and the whole thing happens
# three times; a last phase runs to completion on the final server.
#
# Asserted:
#   - after each crash the node comes back active, under a new owner;
#   - every ID committed after crash k is above every ID committed before it;
#   - no ID appears twice in the whole table (there is deliberately no
#     unique constraint, so a duplicate would be recorded, not rejected);
#   - every phase committed rows, and each phase's IDs carry a single block.
#
# "Every process of the old server is gone" is decided the way the new
# postmaster decides it: the old postmaster no longer exists and nothing is
# attached any more to the SysV shared memory segment recorded in its
# postmaster.pid (orphaned backends exit by themselves once they notice the
# postmaster died).
use strict;
use warnings;

use IPC::Run;
use lib 'test/perl';
use IdgenTest qw(:DEFAULT wait_for wait_active);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'needs Linux /proc to watch the killed server'
  unless -r '/proc/sysvipc/shm';

my $clients = 3;
my $crashes = 3;
# rows a phase must have committed before its server is killed
my $rows_before_crash = 10000;

my $node = idgen_node('crash');

my $owner = wait_active($node, 'first start');
$node->safe_psql(
	'postgres', q{
CREATE TABLE ids (
    id idgen NOT NULL,
    phase int NOT NULL,
    pid int NOT NULL DEFAULT pg_backend_pid()
);
CREATE INDEX ON ids (id);
CREATE INDEX ON ids (phase);
});

# the load: mostly one idgen_next() per row, sometimes a batch
my $dir = PostgreSQL::Test::Utils::tempdir;
PostgreSQL::Test::Utils::append_to_file("$dir/per_row.sql",
	"INSERT INTO ids (id, phase) SELECT idgen_next(), :phase FROM generate_series(1, 50);\n"
);
PostgreSQL::Test::Utils::append_to_file("$dir/batch.sql",
	"INSERT INTO ids (id, phase) SELECT b, :phase FROM idgen_next_batch(50) AS b;\n");

sub pgbench_cmd
{
	my ($phase, @limit) = @_;
	return [
		'pgbench', '--no-vacuum',
		"--client=$clients", "--jobs=$clients",
		@limit, '-D', "phase=$phase",
		'-f', "$dir/per_row.sql\@3",
		'-f', "$dir/batch.sql\@1",
		'-h', $node->host, '-p', $node->port, 'postgres'
	];
}

# Is the process gone, its pid free again?  A new postmaster refuses to
# start while the pid in postmaster.pid exists, even as an unreaped zombie.
sub process_gone
{
	my ($pid) = @_;
	return !-e "/proc/$pid";
}

# how many processes are attached to a SysV segment (0 once it is gone)
sub shm_attached
{
	my ($shmid) = @_;
	open my $fh, '<', '/proc/sysvipc/shm' or die "cannot read /proc/sysvipc/shm: $!";
	my $header = <$fh>;
	my $nattch = 0;
	while (my $line = <$fh>)
	{
		my @f = split ' ', $line;
		$nattch = $f[6] if $f[1] == $shmid;
	}
	close $fh;
	return $nattch;
}

sub crash
{
	my ($what) = @_;
	my @pidfile = split /\n/,
	  PostgreSQL::Test::Utils::slurp_file($node->data_dir . '/postmaster.pid');
	my $pm_pid = $pidfile[0];
	my (undef, $shmid) = split ' ', $pidfile[6];

	is($pm_pid, $node->{_pid},
		"$what: postmaster.pid names the running postmaster");
	ok(!process_gone($pm_pid), "$what: the postmaster is alive before the kill");

	# kill9() sends SIGKILL to that pid and marks the node as not running
	$node->kill9;

	ok(wait_for(sub { process_gone($pm_pid) }),
		"$what: the postmaster is gone");
	ok(wait_for(sub { shm_attached($shmid) == 0 }),
		"$what: every orphaned backend exited (shared memory detached)");
}

my @phase_owner = (undef, $owner);
for my $phase (1 .. $crashes)
{
	my ($out, $err) = ('', '');
	my $timer = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
	my $load =
	  IPC::Run::start(pgbench_cmd($phase, '--time=120'), '>', \$out, '2>', \$err,
		$timer);

	ok( $node->poll_query_until(
			'postgres',
			"SELECT count(*) >= $rows_before_crash FROM ids WHERE phase = $phase"),
		"phase $phase: pgbench is committing rows");

	crash("crash $phase");

	# the clients lose their server; pgbench reports that and exits
	eval { $load->finish; };
	ok(!$timer->is_expired, "phase $phase: pgbench exited after the crash");
	note "pgbench of phase $phase: $err";

	$node->start;
	my $new_owner = wait_active($node, "restart after crash $phase");
	ok( !grep({ defined $_ && $_ eq $new_owner } @phase_owner),
		"restart after crash $phase: a new lease owner");
	push @phase_owner, $new_owner;
}

# a last phase that runs to completion on the final server
my $last = $crashes + 1;
my ($out, $err) = ('', '');
my $ok = IPC::Run::run(pgbench_cmd($last, '--transactions=100'),
	'>', \$out, '2>', \$err,
	IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
ok($ok, "phase $last: pgbench completes without errors");
like($out, qr/number of failed transactions: 0/, "phase $last: no failed transactions");

# --- the history ----------------------------------------------------------

for my $phase (1 .. $last)
{
	cmp_ok($node->safe_psql('postgres', "SELECT count(*) FROM ids WHERE phase = $phase"),
		'>', 0, "phase $phase committed rows");
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(DISTINCT d.worker / 16) FROM ids, LATERAL idgen_decode(ids.id) AS d
WHERE ids.phase = $phase}),
		'1',
		"phase $phase: all IDs come from one worker block");
}

for my $k (1 .. $crashes)
{
	is( $node->safe_psql(
			'postgres', qq{
SELECT (SELECT min(id) FROM ids WHERE phase > $k)
     > (SELECT max(id) FROM ids WHERE phase <= $k)}),
		't',
		"crash $k: every ID committed after it is above every ID committed before");
}

is( $node->safe_psql(
		'postgres', 'SELECT count(*) - count(DISTINCT id) FROM ids'),
	'0', 'no ID was issued twice');

$node->stop;

done_testing();
