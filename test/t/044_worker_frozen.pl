# 044_worker_frozen.pl - the background worker held up while sessions draw
#
# The node issues only up to its own durable high-water mark, which is kept
# about idgen.max_drift/2 ahead of the clock.  A background worker that is
# held up (inside a registry transaction, behind a slow fsync, starved of
# CPU on a loaded machine; here frozen with SIGSTOP, the sharpest form)
# used to leave the generators at the mark half a second later, and every
# call then failed with IR003, "high-water mark was not raised in time".
# A generator that finds the mark reached now raises it itself, by the
# same rule as the worker, so:
#
#   - a freeze shorter than the lease's validity refuses no call;
#   - a freeze longer than that refuses calls once the validity ends (the
#     mark is the generators' to raise, the lease is not), with IR002, and
#     no ID is stamped past the lease's end;
#   - the durable mark stays at or above every ID issued, so a crash
#     right after the freeze restarts above all of them.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT wait_active wait_state);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $draw_sql = q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, phase text NOT NULL, id idgen,
                    sqlstate text);
CREATE TABLE stop_draw (phase text);
CREATE FUNCTION draw(p_phase text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    WHILE NOT EXISTS (SELECT 1 FROM stop_draw WHERE phase = p_phase) LOOP
        BEGIN
            INSERT INTO drawn (phase, id) VALUES (p_phase, idgen_next());
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO drawn (phase, sqlstate) VALUES (p_phase, SQLSTATE);
        END;
    END LOOP;
END
$$;
};

my $node = idgen_node('frozen', conf => q{
idgen.lease_ttl = '6s'
});
wait_active($node, 'start');
$node->safe_psql('postgres', $draw_sql);

my $worker_pid = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE application_name = 'idgen lease worker'");
like($worker_pid, qr/^\d+$/, 'the background worker has a pid');

# Draw in the background for $seconds, the worker frozen for $frozen of
# them from the first second on; returns the freeze's start (Unix s).
sub draw_with_freeze
{
	my ($phase, $seconds, $frozen) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 1);
	$bg->query_until(qr/started/, "\\echo started\nSELECT draw('$phase');\n");
	sleep 1;
	my $t0 = time();
	kill 'STOP', $worker_pid or die "cannot stop $worker_pid: $!";
	usleep(int($frozen * 1e6));
	kill 'CONT', $worker_pid or die "cannot continue $worker_pid: $!";
	my $left = $seconds - 1 - (time() - $t0);
	usleep(int($left * 1e6)) if $left > 0;
	$node->safe_psql('postgres', "INSERT INTO stop_draw VALUES ('$phase')");
	$bg->query_until(qr/done/, "\\echo done\n");
	$bg->quit;
	return $t0;
}

sub count_of
{
	my ($phase, $where) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM drawn WHERE phase = '$phase' AND $where");
}

sub check_history
{
	my ($label) = @_;
	is( $node->safe_psql(
			'postgres', q{
SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM drawn
                      WHERE id IS NOT NULL) AS s
WHERE id <= prev}),
		'0',
		"$label: every ID above the one before it");
	return;
}

# --- a freeze within the lease: 2.5 s of a 6 s lease renewed every ~1.8 s ---

draw_with_freeze('short', 5, 2.5);
my $issued = count_of('short', 'id IS NOT NULL');
cmp_ok($issued, '>', 300, "short freeze: $issued IDs issued");
is(count_of('short', "sqlstate IS NOT NULL"), '0',
	'short freeze: no call was refused while the worker was frozen');
check_history('short freeze');
is($node->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	'active', 'short freeze: the node is active afterwards');

# --- a freeze past the lease's validity ---

my $t0 = draw_with_freeze('long', 12, 9);
cmp_ok(count_of('long', "sqlstate = 'IR002'"), '>', 0,
	'long freeze: calls are refused once the lease is no longer valid (IR002)');
is(count_of('long', "sqlstate = 'IR003'"), '0',
	'long freeze: none for want of a raised mark (IR003)');
is(count_of('long', "sqlstate NOT IN ('IR002', 'IR003')"), '0',
	'long freeze: no other refusal');
# the last renewal came before the freeze; its lease ends at most 6 s after,
# and IDs run at most idgen.max_drift (1 s) ahead of the clock
my $stamped_in_freeze = $node->safe_psql('postgres', qq{
SELECT coalesce(max(floor(extract(epoch FROM idgen_timestamp(id)) * 1000)::bigint), 0)
FROM drawn WHERE phase = 'long' AND id IS NOT NULL
  AND idgen_timestamp(id) < to_timestamp($t0 + 9)});
cmp_ok($stamped_in_freeze, '<=', int(($t0 + 6 + 1) * 1000),
	'long freeze: no ID stamped past the lease it was issued under');
cmp_ok(count_of('long', "id IS NOT NULL AND idgen_timestamp(id) > to_timestamp($t0 + 9)"),
	'>', 0, 'long freeze: issuing resumes once the worker runs again');
check_history('long freeze');

# --- the mark is durable above everything issued, through a crash ---

my $max_issued = $node->safe_psql('postgres', q{
SELECT floor(extract(epoch FROM max(idgen_timestamp(id))) * 1000)::bigint FROM drawn});
my $mark = $node->safe_psql('postgres',
	"SELECT trim(pg_read_file('pg_idgen_high_water'))");
cmp_ok($mark, '>=', $max_issued,
	'the durable mark is at or above every ID issued');
is(-s $node->data_dir . '/pg_idgen_high_water', 21,
	'the mark is one record of 21 bytes, overwritten in place');
my $before = $node->safe_psql('postgres', 'SELECT max(id) FROM drawn');
$node->stop('immediate');
$node->start;
wait_state($node) or die 'the node did not become active after the crash';
my $after = $node->safe_psql('postgres', 'SELECT idgen_next()');
ok( $node->safe_psql('postgres', "SELECT '$after'::idgen > '$before'::idgen") eq 't',
	'after a crash the first ID is above every earlier one');

$node->stop;
done_testing();
