# 010_restart.pl - IDs keep ascending across clean and crash restarts
#
# One node is restarted five times, alternating a clean restart (pg_ctl
# restart, fast mode: the background worker gives its lease back) with an
# immediate stop (no shutdown at all: the lease stays held by the dead owner
# and the node has to lease elsewhere and start above its high-water mark).
# Before the first restart and after each one a round of IDs is drawn, row
# by row and as a batch, and the test asserts:
#
#   - every ID of a round is above every ID of all earlier rounds;
#   - the node is active again with a new owner, and a lease it never had
#     before: a (worker block, generation) pair not seen in an earlier start,
#     and a higher generation whenever it gets a block back;
#   - a clean shutdown released the block, an immediate stop did not;
#   - idgen.audit_log has exactly one lease_acquired row per start, naming
#     that start's owner.
#
# idgen.lease_ttl is long, so the crashed owner's rows cannot expire during
# the test and the outcome does not depend on how fast the machine is.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT wait_active);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('restart', conf => q{
idgen.lease_ttl = '10min'
});

# The background worker creates the extension in the registry database
# (postgres) by itself, then leases a block.
# the lease this start runs under
sub lease_status
{
	my ($worker, $generation, $owner) = split /\|/,
	  $node->safe_psql('postgres',
		'SELECT worker, generation, owner FROM idgen_status()');
	return { worker => $worker, generation => $generation, owner => $owner };
}

# 2000 IDs one by one through the column default, 500 as one batch
sub draw_round
{
	my ($round) = @_;
	$node->safe_psql(
		'postgres', qq{
INSERT INTO ids (round) SELECT $round FROM generate_series(1, 2000);
INSERT INTO ids (id, round) SELECT b, $round FROM idgen_next_batch(500) AS b;
});
}

wait_active($node, 'first start');
$node->safe_psql(
	'postgres', q{
CREATE TABLE ids (
    id idgen NOT NULL DEFAULT idgen_next(),
    round int NOT NULL,
    n bigserial PRIMARY KEY
);
CREATE INDEX ON ids (id);
});

my @starts = (lease_status());
ok(defined $starts[0]{owner} && $starts[0]{owner} ne '',
	'first start: idgen_status() names the lease owner');
draw_round(0);

my @restarts = ('restart', 'immediate', 'restart', 'immediate', 'immediate');

for my $round (1 .. scalar @restarts)
{
	my $how  = $restarts[ $round - 1 ];
	my $prev = $starts[-1];
	my $what = "restart $round ($how)";

	if ($how eq 'restart')
	{
		$node->restart;
	}
	else
	{
		$node->stop('immediate');
		$node->start;
	}
	wait_active($node, $what);

	my $now = lease_status();
	isnt($now->{owner}, $prev->{owner}, "$what: a new lease owner");
	ok( !grep({ $_->{owner} eq $now->{owner} } @starts),
		"$what: an owner no earlier start had");
	ok( !grep({
				  $_->{worker} == $now->{worker}
				  && $_->{generation} == $now->{generation}
			} @starts),
		"$what: a (worker block, generation) pair not leased before "
		  . "($now->{worker}, $now->{generation})");
	my @same_block = grep { $_->{worker} == $now->{worker} } @starts;
	ok( !grep({ $_->{generation} >= $now->{generation} } @same_block),
		"$what: a block leased again has a higher generation");

	# the previous start's rows: given back by a clean shutdown, still held
	# (until they expire) after an immediate stop
	my $held_by_prev = $node->safe_psql('postgres',
		"SELECT count(*) FROM idgen.worker_lease WHERE owner = '$prev->{owner}'");
	if ($how eq 'restart')
	{
		is($held_by_prev, '0', "$what: the clean shutdown released the block");
	}
	else
	{
		is($held_by_prev, '16',
			"$what: the crashed owner still holds its 16 workers");
		isnt($now->{worker}, $prev->{worker},
			"$what: the node leased a block other than the crashed one");
	}

	push @starts, $now;
	draw_round($round);

	is( $node->safe_psql(
			'postgres', qq{
SELECT (SELECT min(id) FROM ids WHERE round = $round)
     > (SELECT max(id) FROM ids WHERE round < $round)}),
		't',
		"$what: every new ID is above every ID issued before");
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) FROM ids, LATERAL idgen_decode(ids.id) AS d
WHERE ids.round = $round
  AND d.worker NOT BETWEEN $now->{worker} AND $now->{worker} + 15}),
		'0',
		"$what: the new IDs carry the new block's workers");
}

# the whole history, in the order it was issued
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) AS s
WHERE prev IS NOT NULL AND id <= prev}),
	'0',
	'IDs ascend strictly over all rounds, in issue order');
is( $node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no ID was issued twice');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ids'),
	2500 * (1 + scalar @restarts), 'every round kept its rows');

# one lease_acquired audit row per start, each naming that start's owner
my $starts_n = scalar @starts;
is( $node->safe_psql(
		'postgres',
		"SELECT count(*) FROM idgen.audit_log WHERE action = 'lease_acquired'"),
	$starts_n,
	"idgen.audit_log has $starts_n lease_acquired rows, one per start");
for my $i (0 .. $#starts)
{
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) FROM idgen.audit_log
WHERE action = 'lease_acquired'
  AND position(' owner $starts[$i]{owner} ' in detail) > 0
  AND position(' workers $starts[$i]{worker}-' in detail) > 0
  AND position(' generation $starts[$i]{generation} ' in detail) > 0}),
		'1',
		"start $i: its lease_acquired row names owner, block and generation");
}

ok(!$node->log_contains('server process .* terminated'),
	'no backend crashed');

$node->stop;

done_testing();
