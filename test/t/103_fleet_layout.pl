# 103_fleet_layout.pl - a layout switch across a fleet
#
# A registry and two nodes (regions 0 and 1), each its own cluster on
# loopback.  While two sessions on each node draw 64- and 128-bit IDs, a
# layout that takes a bit from the sequence (so its time field starts
# earlier) is scheduled on the registry.  Both nodes learn of it over
# their registry connections and switch at the same instant.  Checked: no
# ID twice across the fleet, every session's IDs ascending across the
# switch, both epochs on both nodes, and every ID decoded, on the node
# that made it (whose own idgen.epoch holds only row 1), with its own
# epoch's time, region and workers.  Then a node is down while a third
# layout is scheduled and applies: it starts in that layout when it comes
# back, above everything it issued before.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $registry = idgen_registry('layout_registry', conf => q{
idgen.lease_ttl = '2s'
});
ok( wait_extension($registry),
	'registry: the background worker created the extension');

my @nodes;
for my $region (0, 1)
{
	my $node = idgen_fleet_node("layout_node$region", $registry, conf => qq{
idgen.region_id = $region
idgen.lease_ttl = '2s'
});
	ok(wait_state($node),
		"node of region $region: active");
	$node->safe_psql(
		'postgres', q{
CREATE EXTENSION IF NOT EXISTS idgen;
CREATE TABLE ids (
    n bigserial,
    session int NOT NULL,
    id idgen NOT NULL,
    id128 idgen128 NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION draw(session int, seconds float8) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    stop timestamptz := clock_timestamp() + seconds * interval '1 second';
    k bigint := 0;
BEGIN
    WHILE clock_timestamp() < stop LOOP
        INSERT INTO ids (session, id, id128) VALUES (session, idgen_next(), idgen_next128());
        k := k + 1;
        IF k % 50 = 0 THEN
            PERFORM pg_sleep(0.002);
        END IF;
    END LOOP;
    RETURN k;
END
$$;
});
	push @nodes, $node;
}

# four sessions drawing, then the switch 6 s ahead, in the middle of it
my @bg;
for my $node (@nodes)
{
	for my $session (1, 2)
	{
		my $bg = $node->background_psql('postgres');
		$bg->query_until(qr/drawing/, "\\echo drawing\nSELECT draw($session, 12);\n");
		push @bg, $bg;
	}
}
is( $registry->safe_psql(
		'postgres',
		"SELECT idgen_schedule_layout(clock_timestamp() + interval '6 seconds', 3, 7, 11)"),
	'2',
	'registry: layout 3/7/11 scheduled as epoch 2');
my $start = $registry->safe_psql('postgres',
	'SELECT start_time FROM idgen.epoch WHERE version = 2');
$_->quit for @bg;

for my $node (@nodes)
{
	my $name = $node->name;
	is($node->safe_psql('postgres', 'SELECT count(*) FROM idgen.epoch'), '1',
		"$name: its own idgen.epoch holds only the built-in layout");
	is( $node->safe_psql(
			'postgres', q{
SELECT string_agg(epoch || ':' || (n > 50)::text, ',' ORDER BY epoch)
FROM (SELECT (idgen_decode(id)).epoch, count(*) AS n FROM ids GROUP BY 1) AS s}),
		'1:true,2:true',
		"$name: many IDs under each epoch");
	is( $node->safe_psql(
			'postgres', q{
SELECT count(*) FILTER (WHERE id <= prev), count(*) FILTER (WHERE id128 <= prev128)
FROM (SELECT id, id128, lag(id) OVER w AS prev, lag(id128) OVER w AS prev128
      FROM ids WINDOW w AS (PARTITION BY session ORDER BY n)) AS s
WHERE prev IS NOT NULL}),
		'0|0',
		"$name: every session's IDs ascend across the switch");
	my $region = $name =~ /(\d)$/ ? $1 : die;
	my $first = $node->safe_psql('postgres', 'SELECT worker FROM idgen_status()');
	my $last = $first + 15;
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*)
FROM ids, LATERAL idgen_decode(ids.id) AS d, LATERAL idgen_decode(ids.id128) AS d128
WHERE d.epoch <> CASE WHEN d.ts < '$start' THEN 1 ELSE 2 END
   OR d128.epoch <> CASE WHEN d128.ts < '$start' THEN 1 ELSE 2 END
   OR d.ts NOT BETWEEN ids.at - interval '1 second' AND ids.at + interval '1 second'
   OR d.region <> $region OR d128.region <> $region
   OR d.worker NOT BETWEEN $first AND $last OR d128.worker NOT BETWEEN $first AND $last}),
		'0',
		"$name: every ID decodes with its own epoch to its time, region $region and the node's workers");
}

# across the fleet: every ID once
my %seen;
my ($n64, $dups) = (0, 0);
for my $node (@nodes)
{
	for my $line (split /\n/, $node->safe_psql('postgres', 'SELECT id, id128 FROM ids'))
	{
		my ($id, $id128) = split /\|/, $line;
		$dups++ if $seen{$id}++;
		$dups++ if $seen{$id128}++;
		$n64++;
	}
}
cmp_ok($n64, '>', 400, "$n64 IDs of each width drawn in all");
is($dups, 0, 'no ID was issued twice across the fleet');

# a node that is down while a layout is scheduled and applies starts in
# it when it comes back, above everything it issued before
my ($node0, $node1) = @nodes;
my $max0 = $node0->safe_psql('postgres', 'SELECT max(id) FROM ids');
$node0->stop;
is( $registry->safe_psql(
		'postgres',
		"SELECT idgen_schedule_layout(clock_timestamp() + interval '5 seconds', 3, 7, 12)"),
	'3',
	'registry: layout 3/7/12 scheduled as epoch 3 while a node is down');
ok( $node1->poll_query_until(
		'postgres', 'SELECT (idgen_decode(idgen_next())).epoch = 3'),
	'the running node switches to epoch 3');
$node0->start;
ok(wait_state($node0),
	'the node that was down is active again');
is( $node0->safe_psql(
		'postgres',
		"SELECT x > '$max0'::idgen AND (idgen_decode(x)).epoch = 3 FROM (SELECT idgen_next() AS x) AS s"),
	't',
	'it starts in epoch 3, above every ID it issued before');

$_->stop for @nodes;
$registry->stop;

done_testing();
