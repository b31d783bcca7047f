# 003_clock_offset.pl - the wall clock goes back while the node is issuing
#
# idgen.test_clock_offset shifts the clock idgen reads.  Set node-wide with
# ALTER SYSTEM and a reload it behaves like a system clock stepped back:
#
#   - a step back within idgen.max_drift: IDs keep ascending, borrowing time
#     ahead of the clock, and the rollback is counted;
#   - a step back beyond max_drift + max_clock_wait: idgen_next() refuses
#     with IR001 instead of issuing an ID that could repeat;
#   - a step back that the clock makes up within max_clock_wait: the call
#     waits, then issues an ID above every earlier one.
#
# Every ID is recorded in issue order (n), so the whole history can be
# checked for strict ascent at the end.
#
# Each scenario starts with "pinning" the logical clock to the real time:
# one ID issued under SET LOCAL idgen.test_clock_offset = 0 in the same
# session, a moment before the IDs under the node-wide offset.  That makes
# the step back as large as the offset however long the reload took.
#
# A second node checks a worker block that is not aligned: the server
# starts, but the generator stays disabled and says why.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT above_all_before);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('clock');

# the background worker creates the extension in its registry database
wait_extension($node)
  or die 'the background worker did not create the extension';

$node->safe_psql(
	'postgres', q{
CREATE TABLE issued (id idgen NOT NULL, phase text NOT NULL, n bigserial PRIMARY KEY);
});

# one ID at the real time, inside the script that follows
my $pin = q{
BEGIN;
SET LOCAL idgen.test_clock_offset = 0;
INSERT INTO issued (id, phase) SELECT idgen_next(), 'pin';
COMMIT;
};

# ALTER SYSTEM the settings, reload, and wait until a new session sees them
sub set_node_wide
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my (%gucs) = @_;
	my @names = sort keys %gucs;

	$node->safe_psql('postgres',
		join('', map { "ALTER SYSTEM SET $_ = $gucs{$_};\n" } @names)
		  . "SELECT pg_reload_conf();\n");
	my $values = join(', ', map { "('$_', '$gucs{$_}')" } @names);
	ok( $node->poll_query_until(
			'postgres', qq{
SELECT bool_and(s.setting = v.want) AND count(*) = @{[scalar @names]}
FROM (VALUES $values) AS v(name, want) JOIN pg_settings AS s USING (name)}),
		'new sessions see ' . join(', ', map { "$_ = $gucs{$_}" } @names));
}

sub counters
{
	my %c;
	@c{qw(clock_rollbacks clock_waits clock_wait_ms clock_refusals)} =
	  split /\|/,
	  $node->safe_psql('postgres',
		'SELECT clock_rollbacks, clock_waits, clock_wait_ms, clock_refusals FROM idgen_status()'
	  );
	return \%c;
}

# --- before: the real clock --------------------------------------------------

$node->safe_psql('postgres',
	q{INSERT INTO issued (id, phase) SELECT idgen_next(), 'before' FROM generate_series(1, 1000)}
);
is($node->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	'active', 'node is active');
my $c0 = counters();

# --- a step back of 300 ms, within max_drift (1000 ms) -----------------------

set_node_wide('idgen.test_clock_offset' => -300);

$node->safe_psql('postgres',
	$pin
	  . q{INSERT INTO issued (id, phase) SELECT idgen_next(), 'back300' FROM generate_series(1, 1000);}
);
above_all_before($node, 'back300',
	'300 ms back: IDs stay strictly above all IDs issued before');

$node->safe_psql('postgres',
	q{INSERT INTO issued (id, phase) SELECT idgen_next(), 'back300_again' FROM generate_series(1, 1000)}
);
above_all_before($node, 'back300_again',
	'300 ms back: a later session still issues above everything before');

my $c1 = counters();
cmp_ok($c1->{clock_rollbacks}, '>', $c0->{clock_rollbacks},
	'idgen_status() counted the clock rollback');
is($c1->{clock_refusals}, $c0->{clock_refusals}, 'no call was refused');

# --- a step back of 700 ms: still within max_drift, no waiting ---------------

set_node_wide('idgen.test_clock_offset' => -700);

$node->safe_psql('postgres',
	$pin
	  . q{INSERT INTO issued (id, phase) SELECT idgen_next(), 'back700' FROM generate_series(1, 100);}
);
above_all_before($node, 'back700',
	'700 ms back: IDs continue above all IDs issued before');

# While the logical clock runs ahead, every reservation starts right after
# the previous one, so a batch and the ID after it are adjacent: an
# off-by-one in the batch would hand out the same ID twice here.
$node->safe_psql('postgres',
	$pin . q{
INSERT INTO issued (id, phase) SELECT b, 'batch' FROM idgen_next_batch(5) AS b;
INSERT INTO issued (id, phase) SELECT idgen_next(), 'after_batch';
});
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) = 5 AND count(DISTINCT id) = 5
   AND max(id::bigint) - min(id::bigint) = 4
FROM issued WHERE phase = 'batch'}),
	't',
	'a batch reserved ahead of the clock is 5 consecutive IDs');
above_all_before($node, 'batch', 'the batch lies above all IDs issued before');
above_all_before($node, 'after_batch',
	'the ID after a batch lies above every ID of the batch');

my $c2 = counters();
is($c2->{clock_waits}, $c1->{clock_waits},
	'700 ms back with max_drift 1000 ms: no call had to wait');
is($c2->{clock_refusals}, $c1->{clock_refusals}, 'no call was refused');

# --- a step back of 5 s, beyond max_drift + max_clock_wait: refuse ----------

set_node_wide('idgen.test_clock_offset' => -5000);

my ($ret, $stdout, $stderr) = $node->psql(
	'postgres',
	"\\set VERBOSITY verbose\n"
	  . $pin
	  . q{SELECT state FROM idgen_status();
INSERT INTO issued (id, phase) SELECT idgen_next(), 'back5000';
});
isnt($ret, 0, '5 s back: idgen_next() fails');
is($stdout, 'clock_behind', 'idgen_status() reports the state clock_behind');
like(
	$stderr,
	qr/ERROR:  IR001: system clock is \d+ ms behind the idgen logical clock/,
	'5 s back: idgen_next() raises IR001 "system clock is ... behind"');

($ret, $stdout, $stderr) = $node->psql('postgres',
	"\\set VERBOSITY verbose\n" . $pin . "SELECT * FROM idgen_next_batch(3);\n");
isnt($ret, 0, '5 s back: idgen_next_batch() fails too');
like(
	$stderr,
	qr/ERROR:  IR001: system clock is \d+ ms behind the idgen logical clock/,
	'5 s back: idgen_next_batch() raises IR001 as well');

is($node->safe_psql('postgres', q{SELECT count(*) FROM issued WHERE phase = 'back5000'}),
	'0', 'nothing was issued while refusing');
my $c3 = counters();
cmp_ok($c3->{clock_refusals}, '>=', $c2->{clock_refusals} + 2,
	'idgen_status() counted both refusals');

# --- the clock is right again: issuing resumes by itself ---------------------

set_node_wide('idgen.test_clock_offset' => 0);

$node->safe_psql('postgres',
	q{INSERT INTO issued (id, phase) SELECT idgen_next(), 'resumed' FROM generate_series(1, 100)}
);
above_all_before($node, 'resumed', 'clock back to normal: issuing resumes, ascending');
is($node->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	'active', 'the node is active again');

# --- a step back the clock makes up within max_clock_wait: wait -------------
#
# max_drift 100 ms and a step back of 500 ms leave the logical clock 400 ms
# too far ahead; max_clock_wait 2000 ms lets the call wait that out.

set_node_wide(
	'idgen.max_drift'         => 100,
	'idgen.max_clock_wait'    => 2000,
	'idgen.test_clock_offset' => -500);

my $c4 = counters();
$node->safe_psql('postgres',
	$pin . q{INSERT INTO issued (id, phase) SELECT idgen_next(), 'waited';});
above_all_before($node, 'waited',
	'a call that had to wait for the clock returns an ID above all before');

my $c5 = counters();
cmp_ok($c5->{clock_waits}, '>', $c4->{clock_waits},
	'idgen_status() counted the wait');
is($c5->{clock_refusals}, $c4->{clock_refusals},
	'the waiting call was not refused');
cmp_ok($c5->{clock_wait_ms}, '>', $c4->{clock_wait_ms},
	'idgen_status() added the time waited to clock_wait_ms');

# --- the whole history -------------------------------------------------------

is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM issued) AS s
WHERE prev IS NOT NULL AND id <= prev}),
	'0',
	'every ID issued on the node is above the one issued before it');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT id) = count(*) FROM issued'),
	't', 'no ID was issued twice');

$node->stop;

# --- a worker block that is not aligned --------------------------------------

my $bad = idgen_node('unaligned', conf => q{
idgen.worker_id = 5
});
$bad->safe_psql('postgres', 'CREATE EXTENSION idgen');

is( $bad->safe_psql(
		'postgres', 'SELECT state, worker, workers FROM idgen_status()'),
	'disabled||16',
	'worker 5 in a block of 16: the server starts, the generator is disabled');
like(
	$bad->safe_psql('postgres', 'SELECT reason FROM idgen_status()'),
	qr/worker is not the first of an aligned worker block.*idgen\.worker_id = 5/,
	'the reason names the worker and its setting');

foreach my $call ('idgen_next()', 'idgen_next_batch(1)')
{
	($ret, $stdout, $stderr) = $bad->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT * FROM $call;");
	isnt($ret, 0, "disabled node: $call fails");
	like(
		$stderr,
		qr/ERROR:  IA003: idgen is disabled on this node/,
		"disabled node: $call raises IA003, invalid settings");
	like($stderr, qr/HINT:  Fix the settings and restart the server/,
		"disabled node: $call does not offer idgen_enable()");
	like($stderr, qr/DETAIL:  Reason: .*worker/,
		"disabled node: $call says why");
}

# the fix the reason points at: a block of one worker may start anywhere
$bad->append_conf('postgresql.conf', "idgen.workers_per_node = 1\n");
$bad->restart;
wait_state($bad)
  or die 'the node did not lease its worker';
is($bad->safe_psql('postgres', 'SELECT state, worker, workers FROM idgen_status()'),
	'active|5|1', 'worker 5 in a block of 1: the generator is active');
is($bad->safe_psql('postgres', 'SELECT worker FROM idgen_decode(idgen_next())'),
	'5', 'its IDs carry worker 5');

$bad->stop;

done_testing();
