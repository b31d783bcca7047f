# 062_refusals.pl - refusals that say what really stops the call, each with
# its SQLSTATE
#
#   1. The registry stops answering (its lease table is locked, so the
#      background worker waits inside it): the generators raise the durable
#      high-water mark themselves, so calls go on until the lease's
#      validity runs out (IR002, "retry soon"), never refused for the mark.
#      The loops run by the clock, not by a number of calls.
#   1b. The registry back while the mark cannot be written (the note
#      read-only, a directory where its new copy goes): the node's lease ran
#      out, and a grant it cannot make durable is rolled back at the
#      registry, not left there to push the next grant's floor ahead.
#   1c. The mark unwritable while the lease is held: calls are refused for
#      it once it runs out (IR003, "retry soon"), the detail says why, the
#      lease is renewed all the while (for twice its TTL no IR002), and the
#      node issues again under the same lease once the file is writable.
#   2. A batch that does not fit before a layout switch, which is further
#      away than idgen.max_clock_wait, is refused naming the switch (IR004),
#      not blaming the system clock: nothing is wrong with the clock.
#   3. A batch that would end past the layout's horizon, with the horizon
#      still ahead, is refused at once with the horizon as the reason
#      (IA004), not after waiting idgen.lease_wait for a high-water mark
#      that cannot help.
#   4. Invalid settings: the node comes up disabled, and refuses with IA003,
#      apart from an operator's idgen_disable() (IA001).
#
# The node has one worker per node (4,096 IDs per millisecond), so a batch
# reaching nearly idgen.max_drift (1 s) ahead is about four million IDs.
# Clocks are moved with the superuser test GUCs: for the switch only in
# the calling session, for the horizon node-wide, as 060_horizon.pl does.
use strict;
use warnings;

use IPC::Run ();
use lib 'test/perl';
use IdgenTest qw(:DEFAULT move_clock_to);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

# 2025-01-01 UTC plus 2^41 ms: the first instant the 41-bit field cannot hold
my $horizon_unix_ms = 1735689600000 + 2**41;
# 990 ms of a node's IDs: fits idgen.max_drift, not the last second of a layout
my $wide_batch = 990 * 4096;

my $node = idgen_node('refusals', conf => q{
idgen.workers_per_node = 1
idgen.lease_ttl = '4s'
idgen.lease_wait = '500ms'
});
wait_state($node)
  or die 'the node did not become active';

# the SQLSTATE and message of a refused statement, or 'issued'
my $last_stderr;
sub outcome
{
	my ($sql) = @_;
	my ($ret, $stdout, $stderr) =
	  $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
	$last_stderr = $stderr;
	return 'issued' if $ret == 0;
	my ($line) = $stderr =~ /(ERROR:.*)$/m;
	return $line // $stderr;
}

# --- 1. the registry stops answering ------------------------------------------

my $locker_in = '';
my $locker_out = '';
my $locker = IPC::Run::start(
	[
		$node->installed_command('psql'), '-XAtq', '-d', $node->connstr('postgres'),
		'-f', '-'
	],
	'<', \$locker_in, '>', \$locker_out, '2>', \$locker_out);
$locker_in .= "BEGIN;\nLOCK TABLE idgen.worker_lease IN ACCESS EXCLUSIVE MODE;\nSELECT 'locked';\n";
$locker->pump until $locker_out =~ /locked/;

# calls until the lease runs out, however fast they are: by the clock, not
# by their number (200 calls once took less than the lease's 4 s)
my ($hw_refusal, $lease_refusal) = ('', '');
my $deadline = time + 3 * 4;
while (time < $deadline)
{
	my $o = outcome('SELECT idgen_next();');
	next if $o eq 'issued';
	$hw_refusal = $o if $o =~ /high-water/ && !$hw_refusal;
	if ($o =~ /not renewed in time/)
	{
		$lease_refusal = $o;
		last;
	}
}
is($hw_refusal, '',
	'registry away: no call refused for the durable mark while the lease is valid (the generators raised it)');
like($lease_refusal, qr/^ERROR:  IR002: idgen worker lease was not renewed in time/,
	'registry away: once the lease runs out, IR002');
like( $node->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	qr/^(active|waiting_for_lease)$/, 'registry away: no operator state');

# the mark cannot be written: in place (read-only) nor whole (its new copy's
# name taken by a directory)
my $note = $node->data_dir . '/pg_idgen_high_water';
sub mark_unwritable
{
	chmod 0400, $note or die "chmod $note: $!";
	mkdir "$note.tmp" or die "mkdir $note.tmp: $!";
}
sub mark_writable
{
	rmdir "$note.tmp" or die "rmdir $note.tmp: $!";
	chmod 0600, $note or die "chmod $note: $!";
}
sub registry_generation
{
	return $node->safe_psql('postgres', 'SELECT max(generation) FROM idgen.worker_lease');
}

# The registry comes back while the node cannot write its mark: its lease
# ran out, so it leases anew, and a grant it cannot make durable must not
# stay in the registry.  Each one would stand for a lease the registry
# thinks in force, so the next grant starts above it: the node, trying
# every quarter second for as long as the disk refused, pushed its own
# floor ahead of the clock twice as fast as time went (a 40 s outage of
# the file cost 33 s of refusals after it was fixed).
mark_unwritable();
# the registry's table is still locked: the node's lease says the generation
my $generation_before = $node->safe_psql('postgres', 'SELECT generation FROM idgen_status()');
my $failures_before = $node->safe_psql('postgres', 'SELECT lease_failures FROM idgen_status()');
$locker_in .= "ROLLBACK;\n\\q\n";
$locker->finish;
ok( $node->poll_query_until(
		'postgres', "SELECT lease_failures >= $failures_before + 4 FROM idgen_status()"),
	'mark unwritable, lease run out: the node tries to lease anew and fails');
my $leasing_out = outcome('SELECT idgen_next();');
like($leasing_out . ' ' . $last_stderr, qr/^ERROR:  IR002: .*DETAIL:.*could not raise the node's high-water mark/s,
	'mark unwritable, lease run out: the refusal says the mark could not be raised');
like($node->safe_psql('postgres', 'SELECT reason FROM idgen_status()'),
	qr/could not raise the node's high-water mark/,
	'mark unwritable, lease run out: idgen_status() says why');
is(registry_generation(), $generation_before,
	'mark unwritable, lease run out: no grant the node could not make durable stays in the registry');
mark_writable();
ok($node->poll_query_until('postgres', q{SELECT idgen_next() > 0 AND state = 'active' FROM idgen_status()}),
	'registry back, mark writable: the node issues again');
cmp_ok(registry_generation(), '<=', $generation_before + 1,
	'registry back, mark writable: one grant for the new lease');
unlike(slurp_file($node->logfile), qr/its lease starts above a mark ahead of the clock/,
	'registry back, mark writable: no call waited for a floor of grants never used');

# The mark cannot be written while the lease is held: calls are refused
# for the mark (IR003) once it runs out, and the node keeps its lease all
# the while (renewals need no mark), so it issues again at once when the
# file is writable again.
my $generation = $node->safe_psql('postgres', 'SELECT generation FROM idgen_status()');
my $renewals_before = $node->safe_psql('postgres', 'SELECT lease_renewals FROM idgen_status()');
mark_unwritable();
$hw_refusal = '';
my $hw_detail = '';
my %refusals;
$deadline = time + 3 * 4;
while (time < $deadline)
{
	my $o = outcome('SELECT idgen_next();');
	next if $o eq 'issued';
	my ($code) = $o =~ /^ERROR:  (\w+):/;
	$refusals{ $code // $o }++;
	if ($o =~ /high-water/ && !$hw_refusal)
	{
		$hw_refusal = $o;
		($hw_detail) = $last_stderr =~ /^DETAIL:\s+(.*)$/m;
		# longer than the lease's TTL from now on
		$deadline = time + 2 * 4;
	}
	select(undef, undef, undef, 0.05);
}
like($hw_refusal, qr/^ERROR:  IR003: idgen high-water mark was not raised in time/,
	'mark unwritable: once the durable mark runs out, IR003');
like($hw_detail // '', qr/could not raise it: the mark's file could not be written/,
	'mark unwritable: the detail says the mark could not be written');
is(join(',', sort keys %refusals), 'IR003',
	'mark unwritable: for twice the lease TTL every refusal is for the mark, none for the lease');
is( $node->safe_psql('postgres', "SELECT state = 'active' AND generation = $generation AND lease_renewals > $renewals_before + 2 FROM idgen_status()"),
	't', 'mark unwritable: the node kept renewing its lease');
like($node->safe_psql('postgres', 'SELECT state || \': \' || reason FROM idgen_status()'),
	qr/^active: the node's high-water mark could not be raised: its file could not be written/,
	'mark unwritable: idgen_status() says why calls are refused, the state staying active');
like(slurp_file($node->logfile), qr/could not write "pg_idgen_high_water\.tmp"/,
	'mark unwritable: the server log names the file');
mark_writable();
ok($node->poll_query_until('postgres', q{SELECT idgen_next() > 0 AND state = 'active' FROM idgen_status()}),
	'mark writable again: the node issues again');
is($node->safe_psql('postgres', 'SELECT generation FROM idgen_status()'), $generation,
	'mark writable again: under the same lease');
ok($node->poll_query_until('postgres', q{SELECT coalesce(reason, '') = '' FROM idgen_status()}),
	'mark writable again: idgen_status() forgets the reason');

# --- 2. a batch across a layout switch ----------------------------------------

my $renewals = $node->safe_psql('postgres', 'SELECT lease_renewals FROM idgen_status()');
my $switch_ms = $node->safe_psql(
	'postgres', q{
SELECT idgen_schedule_layout(clock_timestamp() + interval '10 seconds', 2, 8, 12);
SELECT (extract(epoch FROM start_time) * 1000)::bigint FROM idgen.epoch WHERE version = 2;
});
$switch_ms = (split /\n/, $switch_ms)[-1];
# the node learns of the epoch at its renewals
ok( $node->poll_query_until(
		'postgres', "SELECT lease_renewals > $renewals + 1 FROM idgen_status()"),
	'switch: the node renewed its lease since the layout was scheduled');

# 900 ms before the switch the batch would end 90 ms into epoch 2
my $switch_out = outcome(qq{
DO \$\$
BEGIN
    WHILE (SELECT wall_clock FROM idgen_status())
          < to_timestamp(($switch_ms - 900) / 1000.0) LOOP
        PERFORM pg_sleep(0.01);
    END LOOP;
    PERFORM count(*) FROM idgen_next_batch($wide_batch);
END
\$\$;
});
like($switch_out, qr/^ERROR:  IR004: .*layout epoch 2/,
	'switch: the batch is refused with IR004, naming the layout switch');
unlike($switch_out, qr/system clock/, 'switch: the system clock is not blamed');

# --- 3. a batch at the horizon ------------------------------------------------

# move the whole node to a few seconds before the horizon
move_clock_to($node, $horizon_unix_ms - 4000);
ok( $node->poll_query_until(
		'postgres', q{SELECT lease_until > '2094-09-01' AND state = 'active' FROM idgen_status()}),
	'horizon: the node renewed its lease on the moved clock');
is($node->safe_psql('postgres', 'SELECT idgen_next() > 0'),
	't', 'horizon: single IDs are issued seconds before it');

# once the horizon is less than the batch away, ask for it at once; right
# after the refusal, see whether the call asked for a high-water mark past
# the horizon, which could not have helped
my $horizon_out = outcome(qq{
DO \$\$
DECLARE
    mark_past_horizon boolean;
BEGIN
    WHILE (SELECT wall_clock FROM idgen_status())
          < to_timestamp(($horizon_unix_ms - 900) / 1000.0) LOOP
        PERFORM pg_sleep(0.01);
    END LOOP;
    BEGIN
        PERFORM count(*) FROM idgen_next_batch($wide_batch);
    EXCEPTION WHEN others THEN
        SELECT high_water >= horizon INTO mark_past_horizon FROM idgen_status();
        RAISE NOTICE 'mark past the horizon: %', mark_past_horizon;
        RAISE;
    END;
END
\$\$;
});
like($horizon_out, qr/^ERROR:  IA004: .*time field/,
	'horizon: a batch that would pass it is refused with IA004, naming the time field');
unlike($horizon_out, qr/high-water/, 'horizon: the high-water mark is not blamed');
my ($mark_notice) = $last_stderr =~ /mark past the horizon: (\w)/;
is($mark_notice, 'f', 'horizon: the call did not wait for a high-water mark past the horizon');

# --- 4. invalid settings ----------------------------------------------------------

# region 8 does not fit the 3 region bits of the built-in layout
$node->append_conf('postgresql.conf', "idgen.region_id = 8\n");
$node->restart;
like($node->safe_psql('postgres', 'SELECT state, reason FROM idgen_status()'),
	qr/^disabled\|configuration: /, 'settings: the node comes up disabled and says why');
like(outcome('SELECT idgen_next();'), qr/^ERROR:  IA003: idgen is disabled on this node/,
	'settings: idgen_next() is refused with IA003, not as an operator\'s idgen_disable()');

$node->stop;
done_testing();
