# 022_clock_jump.pl - the wall clock jumps ahead and comes back
#
# The real clock of every process of a node (an LD_PRELOAD shim,
# test/clockshim) jumps 30 s ahead for 2 s and comes back, as an NTP or
# VM-host mistake would, while a session draws IDs without a pause.  The
# node must keep issuing through it and after it, never stamp an ID more
# than idgen.max_drift ahead of the true time, never raise a high-water
# mark (in the registry or in its local note) to the jumped time, and so
# neither a restart nor a fence and idgen_enable() right afterwards may
# make it wait for the jump's size.  A step that lasts is followed once it
# has lasted idgen.clock_jump_confirm.
#
# In a fleet the same jump on a node leaves the registry's marks alone; the
# registry caps a mark asked for by a node whose clock is far ahead of its
# own; and a step forward that the registry's clock agrees with is followed
# at once.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use IdgenClockShim;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

# draw(phase): idgen_next() as fast as it goes, each call in a
# subtransaction, until the test writes the phase into stop_draw.  Neither
# pg_sleep() nor clock_timestamp() is used: the shim shifts the clock they
# read.
my $draw_sql = q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, phase text NOT NULL, id idgen,
                    sqlstate text, state text);
CREATE TABLE stop_draw (phase text);
CREATE FUNCTION draw(p_phase text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    got int := 0;
    refused int := 0;
BEGIN
    WHILE NOT EXISTS (SELECT 1 FROM stop_draw WHERE phase = p_phase) LOOP
        BEGIN
            INSERT INTO drawn (phase, id) VALUES (p_phase, idgen_next());
            got := got + 1;
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO drawn (phase, sqlstate, state)
            SELECT p_phase, SQLSTATE, s.state FROM idgen_status() AS s;
            refused := refused + 1;
        END;
    END LOOP;
    RETURN format('%s|%s', got, refused);
END
$$;
};

# Draw in the background for $seconds of real time, running $during (if
# given) meanwhile; returns "issued|refused".
sub draw_for
{
	my ($node, $phase, $seconds, $during) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 1);
	$bg->query_until(qr/started/, "\\echo started\nSELECT draw('$phase');\n");
	my $t0 = time();
	$during->() if $during;
	my $left = $seconds - (time() - $t0);
	usleep(int($left * 1e6)) if $left > 0;
	$node->safe_psql('postgres', "INSERT INTO stop_draw VALUES ('$phase')");
	$bg->query_until(qr/done/, "\\echo done\n");
	$bg->quit;
	return $node->safe_psql('postgres',
		"SELECT count(id) || '|' || count(sqlstate) FROM drawn WHERE phase = '$phase'");
}

# the latest ID time, in Unix ms
sub max_id_ms
{
	my ($node, $phase) = @_;
	return $node->safe_psql('postgres', qq{
SELECT floor(extract(epoch FROM max(idgen_timestamp(id))) * 1000)::bigint
FROM drawn WHERE phase = '$phase'});
}

sub check_history
{
	my ($node, $label) = @_;
	is( $node->safe_psql(
			'postgres', q{
SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM drawn
                      WHERE id IS NOT NULL) AS s
WHERE id <= prev}),
		'0',
		"$label: every ID above the one before it");
	return;
}

# --- one node -------------------------------------------------------------

my $shim = IdgenClockShim->new;
my $node = idgen_node('clock_jump', conf => q{
idgen.lease_ttl = '4s'
}, start => 0);
$shim->start($node);
$node->poll_query_until('postgres', "SELECT state = 'active' FROM idgen_status()")
  or die 'the node did not become active';
$node->safe_psql('postgres', $draw_sql);

my ($got, $refused) = split /\|/, draw_for($node, 'jump', 9, sub {
	sleep 2;
	$shim->set_offset_ms(30_000);
	sleep 2;
	$shim->set_offset_ms(0);
});
my $now_ms = int(time() * 1000);
cmp_ok($got, '>', 300, "jump: $got IDs issued through the jump and after it");
is($refused, 0, 'jump: no call was refused, during the jump or after it');
cmp_ok(max_id_ms($node, 'jump'), '<=', $now_ms + 1000,
	'jump: no ID is stamped more than idgen.max_drift ahead of the true time');
check_history($node, 'jump');
# the mark goes on moving ahead of the true time after the draw: the bound
# is the time of reading it (on a loaded machine check_history alone can
# take longer than the 2 s allowed), still far below the 30 s jump
$now_ms = int(time() * 1000);
cmp_ok(
	$node->safe_psql('postgres',
		'SELECT floor(extract(epoch FROM max(high_water)) * 1000)::bigint FROM idgen.worker_lease'),
	'<=', $now_ms + 2000,
	'jump: the high-water mark in idgen.worker_lease was not raised to the jumped clock');
my $note = PostgreSQL::Test::Utils::slurp_file($node->data_dir . '/pg_idgen_high_water');
chomp $note;
cmp_ok($note, '<=', $now_ms + 7000,
	'jump: the local high-water note was not raised to the jumped clock');

# a restart right after the jump issues at once
$node->stop;
$shim->start($node);
($got, $refused) = split /\|/, draw_for($node, 'restart', 8);
cmp_ok($got, '>', 100,
	"restart after the jump: the node issues again within seconds ($got IDs, $refused refusals in 8 s)");

# a fence and idgen_enable() right after a jump, too
draw_for($node, 'fence', 3, sub {
	sleep 1;
	$shim->set_offset_ms(30_000);
	sleep 1;
	$shim->set_offset_ms(0);
});
$node->safe_psql('postgres',
	'SELECT idgen_fence_worker(region, worker) FROM idgen_status()');
$node->poll_query_until('postgres', "SELECT state = 'fenced' FROM idgen_status()")
  or die 'the node was not fenced';
$node->safe_psql('postgres', 'SELECT idgen_enable()');
($got, $refused) = split /\|/, draw_for($node, 'enabled', 8);
cmp_ok($got, '>', 100,
	"fence and enable after a jump: the node issues again within seconds ($got IDs, $refused refusals in 8 s)");
$now_ms = int(time() * 1000);
cmp_ok(max_id_ms($node, 'enabled'), '<=', $now_ms + 1000,
	'fence and enable after a jump: IDs at the true time');
check_history($node, 'restart and fence');

# (looked at only now: on a node that follows the jump, this waits long
# enough for the clock to catch up, which would hide the outages above)
ok( $node->poll_query_until('postgres', q{
SELECT count(*) FILTER (WHERE action = 'clock_jump_held') > 0
   AND count(*) FILTER (WHERE action = 'clock_jump_withdrawn') > 0
FROM idgen.audit_log}),
	'jump: the audit log says the step was held back and withdrawn');

# a step that lasts is followed once it has lasted idgen.clock_jump_confirm
$node->append_conf('postgresql.conf', "idgen.clock_jump_confirm = '2s'\n");
$node->reload;
$shim->set_offset_ms(20_000);
ok( $node->poll_query_until('postgres', qq{
SELECT idgen_timestamp(idgen_next()) > 'epoch'::timestamptz + @{[int(time()) + 15]} * interval '1 s'}),
	'a step that lasts: IDs follow it after idgen.clock_jump_confirm');
ok( $node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM idgen.audit_log WHERE action = 'clock_jump_confirmed'"),
	'a step that lasts: the audit log says it was confirmed');
$node->stop;

# --- a fleet --------------------------------------------------------------

my $registry = idgen_registry('registry', conf => q{
idgen.worker_id = 112
});
wait_extension($registry)
  or die 'the registry has no extension';

# the registry caps what a node whose clock is 30 s ahead asks for
my $capped = $registry->safe_psql('postgres', q{
SELECT floor(extract(epoch FROM high_water - clock_timestamp()) * 1000)::bigint
FROM idgen.acquire_node_lease('outside:fast-clock', 'fake-sysid', 1, 0, 96, 16, 7,
     clock_timestamp() + interval '30 s', interval '4 s',
     clock_timestamp() + interval '30.5 s', NULL, interval '5 s', true)});
cmp_ok($capped, '<=', 1600,
	"registry: a mark asked 30.5 s ahead by a node 30 s ahead is capped ($capped ms ahead)");

my $fshim = IdgenClockShim->new;
# a lease of 6 s: the registry holds a lease within its clock allowance of
# the end as expired, so a 2 s lease was lost whenever one renewal came a
# second late (seen at the jump itself, a 1.1 s gap between renewals); the
# jump is what is tested here, and it lasts 2 s
my $fnode = idgen_fleet_node('fleet_node', $registry, conf => qq{
idgen.lease_ttl = '6s'
idgen.max_skew = '5s'
}, start => 0);
# the node starts 3 s behind: within max_skew, so it issues
$fshim->set_offset_ms(-3000);
$fshim->start($fnode);
$fnode->poll_query_until('postgres', "SELECT state = 'active' FROM idgen_status()")
  or die 'the fleet node did not become active';
wait_extension($fnode)
  or die 'the fleet node has no extension';
$fnode->safe_psql('postgres', $draw_sql);

($got, $refused) = split /\|/, draw_for($fnode, 'fleet jump', 6, sub {
	sleep 2;
	$fshim->set_offset_ms(27_000);
	sleep 2;
	$fshim->set_offset_ms(-3000);
});
$now_ms = int(time() * 1000);
cmp_ok($got, '>', 200, "fleet jump: $got IDs issued through the jump");
is($refused, 0, 'fleet jump: no call was refused');
cmp_ok(max_id_ms($fnode, 'fleet jump'), '<=', $now_ms + 1000,
	'fleet jump: no ID stamped ahead of the true time');
# the bound is the time of reading the marks, as above
$now_ms = int(time() * 1000);
cmp_ok(
	$registry->safe_psql('postgres', q{
SELECT floor(extract(epoch FROM max(high_water)) * 1000)::bigint FROM idgen.worker_lease
WHERE owner LIKE 'node:%' AND owner NOT LIKE '%:' || current_setting('port')}),
	'<=', $now_ms + 2000,
	"fleet jump: the registry's marks of the node were not raised to the jumped clock");

# put right by 3 s: the registry's clock agrees, so the step is followed
# long before idgen.clock_jump_confirm (60 s) has passed
$fshim->set_offset_ms(0);
ok( $registry->poll_query_until('postgres', q{
SELECT count(*) > 0 FROM idgen.audit_log
WHERE action = 'clock_jump_confirmed' AND detail LIKE '%confirmed by the registry%'}),
	"fleet: a step forward the registry's clock agrees with is confirmed by it");
my $lag = $fnode->safe_psql('postgres', q{
SELECT floor(extract(epoch FROM clock_timestamp() - idgen_timestamp(idgen_next())) * 1000)::bigint});
cmp_ok(abs($lag), '<', 500, "fleet: IDs follow the confirmed step ($lag ms from the clock)");
check_history($fnode, 'fleet');

$fnode->stop;
$registry->stop;
done_testing();
