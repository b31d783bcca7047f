# 020_clock_faketime.pl - the system clock really goes back
#
# The server runs under Debian's libfaketime, preloaded into pg_ctl and the
# postmaster, so the node's processes read a CLOCK_REALTIME shifted by the
# offset in a file we rewrite while the server runs (but see below for the
# background worker); CLOCK_MONOTONIC is left alone, which is what the
# background worker's clock watch compares against.
#
#   1. clock set back 5 s on the live server
#   2. clock set back 1 h on the live server
#   3. clock set back 1 h across a restart: the node leases, but its
#      high-water mark is an hour ahead of the clock, so it refuses
#   4. the same as 3 with idgen.test_clock_offset instead of libfaketime
#
# Every call either returns an ID above all earlier ones or is refused with
# IR001 while the logical clock is too far ahead; the refusal shows as state
# clock_behind in idgen_status(); in 1 and 2 the background worker counts
# and audits the step back (and the jump forward when the clock is put
# right); once the clock is right again issuing resumes where it left off.  Every ID goes into one table with an order
# column, so the whole history is checked for duplicates and strict ascent.
#
# libfaketime and the postmaster: libfaketime wraps select() and marks the
# calling process "do not fake" for the duration of the real call.  The
# PostgreSQL 15 postmaster starts background workers from inside its signal
# handlers, i.e. while it sits in that select(), so a worker forked there
# inherits the mark and reads the real clock for the rest of its life
# (backends are forked after select() returned and are not affected).  A
# worker restarted after it exited with code 1 is forked from the
# postmaster's main loop instead.  So at the first start the background
# worker is made to fail its first connection (its registry database does
# not exist yet); its restart five seconds later runs under the faked
# clock, which scenarios 1 and 2 need.  That trick cannot work for a start
# an hour in the past: the postmaster stamps the failed worker's exit in the
# signal handler (real time) and compares it in the main loop (faked time),
# so it would wait an hour before the restart.  In scenario 3 the background
# worker therefore keeps the real clock and only the backends, which do all
# the issuing, are an hour behind; scenario 4 moves the clock of every
# process, the background worker included, by the test GUC.
use strict;
use warnings;

use Time::HiRes ();
use lib 'test/perl';
use IdgenTest qw(:DEFAULT status faketime_lib above_all_before);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# --- libfaketime -------------------------------------------------------------

my $faketime_lib = faketime_lib();
plan skip_all => 'libfaketime is not installed'
  unless defined $faketime_lib;

my $fake_dir  = PostgreSQL::Test::Utils::tempdir('faketime');
my $fake_file = "$fake_dir/faketime.rc";

# The file holds a relative offset ("+0", "-5", "-1h").  Written under
# another name and renamed, so no process ever reads half a file.
sub set_fake_offset
{
	my ($offset) = @_;
	open(my $fh, '>', "$fake_file.new") or die "cannot write $fake_file.new: $!";
	print $fh "$offset\n";
	close $fh or die "cannot close $fake_file.new: $!";
	rename("$fake_file.new", $fake_file)
	  or die "cannot rename to $fake_file: $!";
	return;
}

set_fake_offset('+0');

my $node = idgen_node('faketime', conf => q{
idgen.database = 'idgen_registry'
# no autovacuum workers: fewer signals to the postmaster, see above
autovacuum = off
}, start => 0);

sub start_under_faketime
{
	local $ENV{LD_PRELOAD}                   = $faketime_lib;
	local $ENV{FAKETIME_TIMESTAMP_FILE}      = $fake_file;
	local $ENV{FAKETIME_NO_CACHE}            = '1';
	local $ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
	$node->start;
	return;
}

# How far (seconds) the server's clocks are from ours: clock_timestamp(),
# i.e. PostgreSQL's own, and the wall clock idgen issues by.
sub server_clock_offsets
{
	my $before = Time::HiRes::time();
	my ($pg, $idgen) = split /\|/,
	  $node->safe_psql('postgres',
		'SELECT extract(epoch FROM clock_timestamp()), extract(epoch FROM wall_clock) FROM idgen_status()'
	  );
	my $mid = ($before + Time::HiRes::time()) / 2;
	return ($pg - $mid, $idgen - $mid);
}

sub clock_is_off_by
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($want_s, $name, $fake) = @_;
	my ($pg, $idgen) = server_clock_offsets();
	# the margin only covers a psql round trip; the offsets are seconds apart
	ok(abs($pg - ($fake // $want_s)) < 2,
		"$name: clock_timestamp() is off by @{[sprintf '%.1f', $pg]} s");
	ok(abs($idgen - $want_s) < 2,
		"$name: idgen's wall clock is off by @{[sprintf '%.1f', $idgen]} s");
	return;
}

sub wait_for_lease
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name) = @_;
	ok( $node->poll_query_until(
			'postgres',
			'SELECT worker IS NOT NULL AND generation IS NOT NULL AND state NOT IN (\'starting\', \'waiting_for_lease\') FROM idgen_status()'
		),
		"$name: the background worker leased a worker block");
	return;
}

# count of audit rows "<action>" whose detail names a step in [lo, hi] ms
sub audited_steps
{
	my ($action, $lo, $hi) = @_;
	return qq{
SELECT count(*) > 0 FROM idgen.audit_log
WHERE action = '$action'
  AND substring(detail FROM '(?:stepped back|jumped forward) by (\\d+) ms')::bigint
      BETWEEN $lo AND $hi};
}

# The test's own tables live in database postgres; the registry (lease
# table and audit log) in idgen_registry.
my $registry = 'idgen_registry';

# Start under libfaketime and create the registry only after the background
# worker's first attempt, forked from a signal handler of the postmaster,
# has failed (see the top).
start_under_faketime();
$node->wait_for_log(qr/FATAL:  database "$registry" does not exist/);
$node->safe_psql('postgres', "CREATE DATABASE $registry");
$node->safe_psql('postgres', 'CREATE EXTENSION idgen');

# The background worker creates the extension in idgen.database itself.
ok( wait_extension($node, $registry),
	'the background worker created the extension in its registry database');
wait_for_lease('start');
is(status($node, 'state')->{state}, 'active', 'node is active');
clock_is_off_by(0, 'libfaketime at +0');

# draw(phase, count): count single calls of idgen_next(), each in its own
# subtransaction.  An ID goes into issued; a refusal with IR001 goes into
# refusal with the state idgen_status() reported right then; any other
# error aborts the test.  Returns "issued|refused".
$node->safe_psql(
	'postgres', q{
CREATE TABLE issued (id idgen NOT NULL, phase text NOT NULL, n bigserial PRIMARY KEY);
CREATE TABLE refusal (phase text NOT NULL, sqlstate text NOT NULL, message text NOT NULL,
                      state text, drift_ms bigint, n bigserial PRIMARY KEY);
CREATE FUNCTION draw(p_phase text, p_count int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    ok int := 0;
    refused int := 0;
BEGIN
    FOR i IN 1 .. p_count LOOP
        BEGIN
            INSERT INTO issued (id, phase) VALUES (idgen_next(), p_phase);
            ok := ok + 1;
        EXCEPTION WHEN SQLSTATE 'IR001' THEN
            INSERT INTO refusal (phase, sqlstate, message, state, drift_ms)
            SELECT p_phase, SQLSTATE, SQLERRM, s.state, s.drift_ms FROM idgen_status() AS s;
            refused := refused + 1;
        END;
    END LOOP;
    RETURN ok || '|' || refused;
END
$$;
});

sub draw
{
	my ($phase, $count) = @_;
	return $node->safe_psql('postgres', "SELECT draw('$phase', $count)");
}

# every refusal of the phase was the clock refusal, seen as clock_behind
sub refusals_are_clock_behind
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($phase, $name) = @_;
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) > 0
   AND bool_and(sqlstate = 'IR001')
   AND bool_and(message ~ '^system clock is \\d+ ms behind the idgen logical clock\$')
   AND bool_and(state = 'clock_behind')
FROM refusal WHERE phase = '$phase'}),
		't', $name);
	return;
}

# --- before: the real clock ---------------------------------------------------

is(draw('before', 1000), '1000|0', 'real clock: 1000 IDs issued');

# --- 1. five seconds back, live -----------------------------------------------
#
# The logical clock stands at the newest ID, a moment before the step; 5 s
# back leaves it about 5 s ahead of the wall clock, far beyond max_drift
# (1 s) plus max_clock_wait (200 ms): nothing may be issued until the clock
# is back.

my $s0 = status($node, 'clock_steps_back', 'clock_jumps_forward', 'clock_refusals');
draw('pin_5s', 1);
set_fake_offset('-5');
clock_is_off_by(-5, 'libfaketime at -5');
ok( $node->poll_query_until(
		'postgres',
		"SELECT clock_steps_back > $s0->{clock_steps_back} FROM idgen_status()"),
	'5 s back: the background worker counted a clock step back');

my ($issued, $refused) = split /\|/, draw('back_5s', 20);
cmp_ok($refused, '>', 0, "5 s back: calls are refused ($refused of 20)");
refusals_are_clock_behind('back_5s',
	'5 s back: every refusal is IR001 "system clock is ... behind", state clock_behind'
);
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT state FROM idgen_status();\nSELECT idgen_next();");
is($stdout, 'clock_behind', '5 s back: idgen_status() reports clock_behind');
like(
	$stderr,
	qr/ERROR:  IR001: system clock is \d+ ms behind the idgen logical clock/,
	'5 s back: a plain SELECT idgen_next() fails with IR001');
cmp_ok(status($node, 'clock_refusals')->{clock_refusals},
	'>', $s0->{clock_refusals}, '5 s back: idgen_status() counted the refusals');
ok($node->poll_query_until($registry, audited_steps('clock_step_back', 4500, 5500)),
	'5 s back: idgen.audit_log has a clock_step_back row of about 5000 ms');

set_fake_offset('+0');
clock_is_off_by(0, 'libfaketime back at +0');
is(draw('resumed_5s', 1000), '1000|0', 'clock right again: 1000 IDs issued');
above_all_before($node, 'resumed_5s',
	'clock right again: every ID is above all issued before the step back');
is(status($node, 'state')->{state}, 'active', 'the node is active again');
ok( $node->poll_query_until(
		'postgres',
		"SELECT clock_jumps_forward > $s0->{clock_jumps_forward} FROM idgen_status()"),
	'the background worker counted the clock jumping forward again');
ok($node->poll_query_until($registry, audited_steps('clock_jump_forward', 4500, 5500)),
	'idgen.audit_log has a clock_jump_forward row of about 5000 ms');

# --- 2. one hour back, live ---------------------------------------------------

my $s1 = status($node, 'clock_steps_back', 'clock_jumps_forward');
draw('pin_1h', 1);
set_fake_offset('-1h');
clock_is_off_by(-3600, 'libfaketime at -1h');
ok( $node->poll_query_until(
		'postgres',
		"SELECT clock_steps_back > $s1->{clock_steps_back} FROM idgen_status()"),
	'1 h back: the background worker counted a clock step back');

($issued, $refused) = split /\|/, draw('back_1h', 20);
is("$issued|$refused", '0|20', '1 h back: every call is refused');
refusals_are_clock_behind('back_1h',
	'1 h back: every refusal is IR001 "system clock is ... behind", state clock_behind'
);
my $s = status($node, 'state', 'drift_ms');
is($s->{state}, 'clock_behind', '1 h back: idgen_status() reports clock_behind');
cmp_ok($s->{drift_ms}, '>', 3_500_000,
	'1 h back: the logical clock is an hour ahead of the wall clock');
ok( $node->poll_query_until(
		$registry, audited_steps('clock_step_back', 3_599_000, 3_601_000)),
	'1 h back: idgen.audit_log has a clock_step_back row of about an hour');

set_fake_offset('+0');
clock_is_off_by(0, 'libfaketime back at +0');
ok($node->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'clock right again: the node is active');
is(draw('resumed_1h', 1000), '1000|0', 'clock right again: 1000 IDs issued');
above_all_before($node, 'resumed_1h',
	'clock right again: every ID is above all issued before the step back');
ok( $node->poll_query_until(
		$registry, audited_steps('clock_jump_forward', 3_599_000, 3_601_000)),
	'idgen.audit_log has a clock_jump_forward row of about an hour');

# --- 3. one hour back across a restart ----------------------------------------
#
# The lease was given back at shutdown, its high-water mark kept.  The node
# starts an hour in the past, leases again and starts above that mark: the
# logical clock is an hour ahead of the wall clock, so it refuses.  (Here
# the background worker itself keeps the real clock, see the top.)

is(draw('before_restart', 1000), '1000|0', '1000 IDs issued before the restart');
my $gen_before = status($node, 'generation')->{generation};
$node->stop;
set_fake_offset('-1h');
start_under_faketime();
clock_is_off_by(-3600, 'restarted at -1h');
wait_for_lease('restarted at -1h');

$s = status($node, 'state', 'generation', 'drift_ms');
$s->{hw_ahead} = $node->safe_psql('postgres',
	'SELECT extract(epoch FROM high_water - wall_clock) FROM idgen_status()');
is($s->{state}, 'clock_behind',
	'restarted at -1h: leased, but idgen_status() reports clock_behind');
cmp_ok($s->{generation}, '>', $gen_before, 'restarted at -1h: a new lease generation');
cmp_ok($s->{drift_ms}, '>', 3_500_000,
	'restarted at -1h: the logical clock starts an hour ahead of the wall clock');
cmp_ok($s->{hw_ahead}, '>', 3500,
	'restarted at -1h: the high-water mark is an hour ahead of the wall clock');

($issued, $refused) = split /\|/, draw('restart_1h', 20);
is("$issued|$refused", '0|20', 'restarted at -1h: every call is refused');
refusals_are_clock_behind('restart_1h',
	'restarted at -1h: every refusal is IR001 "system clock is ... behind", state clock_behind'
);
($ret, $stdout, $stderr) =
  $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT idgen_next();");
like(
	$stderr,
	qr/ERROR:  IR001: system clock is \d+ ms behind the idgen logical clock/,
	'restarted at -1h: a plain SELECT idgen_next() fails with IR001');

# On PostgreSQL 15 the background worker kept the real clock all along
# and followed it long ago; on 16 and later it is forked from the
# postmaster's main loop, reads the faked clock too, and sees the step
# forward only now: until its next look at the clocks (every 100 ms, later
# on a loaded machine) the wall clock idgen issues by stays on the
# monotonic clock's account.  Wait for that look, then check both clocks.
set_fake_offset('+0');
ok( $node->poll_query_until(
		'postgres',
		'SELECT abs(extract(epoch FROM wall_clock - clock_timestamp())) < 1 FROM idgen_status()'
	),
	'libfaketime back at +0 after the restart: the background worker follows the step forward'
);
clock_is_off_by(0, 'libfaketime back at +0 after the restart');
ok($node->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'clock right again: the node is active');
is(draw('after_restart', 1000), '1000|0', 'clock right again: 1000 IDs issued');
above_all_before($node, 'after_restart',
	'clock right again: every ID is above all issued before the restart');

$node->stop;

# --- 4. one hour back across a restart, by the test GUC alone -----------------

$node->append_conf('postgresql.conf', "idgen.test_clock_offset = -3600000\n");
$node->start;    # no libfaketime from here on
clock_is_off_by(-3600, 'idgen.test_clock_offset = -3600000', 0);
wait_for_lease('idgen.test_clock_offset = -3600000');
is( $node->safe_psql(
		$registry,
		'SELECT bool_and(abs(extract(epoch FROM acquired_at - idgen.clock())) < 60) FROM idgen.worker_lease WHERE owner IS NOT NULL'
	),
	't',
	'test GUC 1 h back: the background worker leased by the shifted clock too');
$s = status($node, 'state', 'drift_ms');
is($s->{state}, 'clock_behind',
	'test GUC 1 h back across a restart: leased, but clock_behind');
cmp_ok($s->{drift_ms}, '>', 3_500_000,
	'test GUC 1 h back: the logical clock is an hour ahead');
($issued, $refused) = split /\|/, draw('guc_1h', 20);
is("$issued|$refused", '0|20', 'test GUC 1 h back: every call is refused');
refusals_are_clock_behind('guc_1h',
	'test GUC 1 h back: every refusal is IR001 "system clock is ... behind", state clock_behind'
);

# take the setting out of postgresql.conf again and reload
my $conf = $node->data_dir . '/postgresql.conf';
my @lines = grep { !/^\s*idgen\.test_clock_offset\b/ }
  split /^/, PostgreSQL::Test::Utils::slurp_file($conf);
open(my $cfh, '>', $conf) or die "cannot write $conf: $!";
print $cfh @lines;
close $cfh or die "cannot close $conf: $!";
$node->reload;
ok( $node->poll_query_until(
		'postgres', q{SELECT current_setting('idgen.test_clock_offset') = '0'}),
	'test GUC removed: new sessions see idgen.test_clock_offset = 0');
clock_is_off_by(0, 'test GUC removed', 0);
ok( $node->poll_query_until(
		'postgres', 'SELECT clock_jumps_forward > 0 FROM idgen_status()'),
	'test GUC removed: the background worker saw its clock jump forward');
ok($node->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'test GUC removed: the node is active');
is(draw('guc_resumed', 1000), '1000|0', 'test GUC removed: 1000 IDs issued');
above_all_before($node, 'guc_resumed',
	'test GUC removed: every ID is above all issued before');

# --- the whole history --------------------------------------------------------

is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM issued) AS s
WHERE prev IS NOT NULL AND id <= prev}),
	'0',
	'every ID issued on the node is above the one issued before it');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT id) = count(*) FROM issued'),
	't', 'no ID was issued twice');
is( $node->safe_psql(
		'postgres',
		q{SELECT count(*) FROM refusal WHERE phase NOT IN ('back_5s', 'back_1h', 'restart_1h', 'guc_1h')}
	),
	'0',
	'no call was refused outside the phases with the clock behind');

$node->stop;

done_testing();
