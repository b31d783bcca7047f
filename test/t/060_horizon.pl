# The layout's horizon: a warning long before it, IDs right up to it that
# stay positive and ascending, and a refusal past it instead of a wrap.
#
# The node's clock is moved to just before 2094-09-07 15:47:35.552 UTC with
# the superuser test GUCs, node-wide, so the background worker leases in the
# same time as the generators.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT move_clock_to);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# 2025-01-01 UTC plus 2^41 ms: the first instant the 41-bit field cannot hold
my $horizon_unix_ms = 1735689600000 + 2**41;

my $node = idgen_node('horizon', conf => q{
idgen.lease_ttl = '3s'
# 30000 days is more than the ~68 years left: the worker warns at once
idgen.horizon_warning = '30000d'
});

wait_state($node)
  or die 'the node did not become active';

is($node->safe_psql('postgres', q{SET timezone = 'UTC'; SELECT horizon FROM idgen_status()}),
	'2094-09-07 15:47:35.552+00', 'idgen_status() shows the horizon of the default layout');

ok( $node->poll_query_until(
		'postgres', q{SELECT count(*) > 0 FROM idgen.audit_log WHERE action = 'horizon_warning'}),
	'the background worker audits a horizon warning');
like(slurp_file($node->logfile), qr/WARNING:  idgen: the time field of the current layout runs out in \d+ days/,
	'and logs it as a WARNING');

# IDs issued before moving the clock
$node->safe_psql('postgres',
	'CREATE TABLE ids (n bigserial PRIMARY KEY, id idgen NOT NULL, phase text NOT NULL)');
$node->safe_psql('postgres',
	q{INSERT INTO ids (id, phase) SELECT idgen_next(), 'now' FROM generate_series(1, 1000)});

# move the whole node to a few seconds before the horizon
move_clock_to($node, $horizon_unix_ms - 8000);
ok( $node->poll_query_until(
		'postgres', q{SELECT lease_until > '2094-09-01' AND state = 'active' FROM idgen_status()}),
	'the worker renews its lease on the moved clock');

my ($ok, $out, $err) = (0, '', '');
$node->psql('postgres',
	q{INSERT INTO ids (id, phase) SELECT idgen_next(), 'edge' FROM generate_series(1, 1000)},
	stdout => \$out, stderr => \$err, on_error_stop => 1);
is($err, '', 'IDs are issued in the last seconds before the horizon');

is( $node->safe_psql(
		'postgres', q{
SELECT count(*) = 1000 AND bool_and(id::bigint > 0)
       AND bool_and(idgen_timestamp(id) > '2094-09-07 15:47:00+00')
       AND bool_and(idgen_timestamp(id) < '2094-09-07 15:47:35.552+00')
FROM ids WHERE phase = 'edge'}),
	't', 'the last IDs are positive and carry their 2094 time');

# past the horizon: refused, never wrapped
move_clock_to($node, $horizon_unix_ms + 2000);
ok( $node->poll_query_until(
		'postgres', q{SELECT current_setting('idgen.test_clock_offset_days')::int > 0}),
	'the moved clock is in force');
my $refused = 0;
for my $i (1 .. 20)
{
	$node->psql('postgres', 'SELECT idgen_next()', stdout => \$out, stderr => \$err);
	if ($err =~ /idgen time field is exhausted/)
	{
		$refused = 1;
		last;
	}
	sleep 0.2;
}
ok($refused, 'past the horizon idgen_next() is refused: the time field is exhausted');
$node->psql('postgres', "\\set VERBOSITY verbose\nSELECT idgen_next128()",
	stdout => \$out, stderr => \$err);
like($err, qr/ERROR:  IA004: idgen time field is exhausted/,
	'so is idgen_next128(), with IA004: an operator must act');

is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) AS s
WHERE prev IS NOT NULL AND id <= prev}),
	'0', 'every ID, up to the horizon, was above the one before');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ids WHERE id::bigint < 0'),
	'0', 'no ID turned negative');

$node->stop;
done_testing();
