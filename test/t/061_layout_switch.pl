# 061_layout_switch.pl - two layout switches in the middle of concurrent
# generation
#
# Epoch 2 moves a bit from region to worker (same time field); epoch 3
# takes a bit from the sequence, so its time field starts earlier to keep
# its IDs above epoch 2's.  Four pgbench clients insert 64- and 128-bit IDs
# across both switches.  Checked: no ID twice, each backend's IDs strictly
# ascending across the switches, every ID decodes with the layout it was
# issued under (epoch, time, region and worker), the boundaries separate
# the epochs, and after a restart the node goes on in epoch 3 above
# everything before.  A second database of the node decodes alike.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('layout_switch', conf => q{
idgen.lease_ttl = '2s'
idgen.worker_id = 16
synchronous_commit = off
});

$node->poll_query_until('postgres',
	"SELECT state = 'active' FROM idgen_status()")
  or die 'the node did not become active';

$node->safe_psql(
	'postgres', q{
CREATE TABLE ids (
    id idgen NOT NULL DEFAULT idgen_next(),
    id128 idgen128 NOT NULL DEFAULT idgen_next128(),
    pid int NOT NULL DEFAULT pg_backend_pid(),
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    n bigserial
);
});

# both switches land while pgbench runs
my ($e2, $e3) = split /\|/, $node->safe_psql(
	'postgres', q{
SELECT idgen_schedule_layout(clock_timestamp() + interval '6 seconds', 2, 8, 12),
       idgen_schedule_layout(clock_timestamp() + interval '10 seconds', 2, 8, 11);
});
is("$e2|$e3", '2|3', 'two layouts scheduled as epochs 2 and 3');

# a layout cannot be slipped in before one already scheduled
my ($ret, $out, $err) = $node->psql('postgres',
	"SELECT idgen_schedule_layout(clock_timestamp() + interval '8 seconds', 3, 7, 12)");
like($err, qr/must apply after the start of the latest layout epoch/,
	'an epoch before an already scheduled one is refused');

$node->pgbench(
	'--no-vacuum --client=4 --jobs=4 --time=14 --rate=400',
	0,
	[ qr{number of failed transactions: 0} ],
	[qr{^$}],
	'pgbench: 4 clients insert IDs across two layout switches',
	{
		'061_rows' =>
		  "INSERT INTO ids (pid) SELECT pg_backend_pid() FROM generate_series(1, 20);\n",
		'061_batch' =>
		  "INSERT INTO ids (id, pid) SELECT b, pg_backend_pid() FROM idgen_next_batch(20) AS b;\n",
	});

is($node->safe_psql('postgres', 'SELECT count(DISTINCT id) = count(*) AND count(DISTINCT id128) = count(*) FROM ids'),
	't', 'no 64-bit or 128-bit ID was issued twice');

is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FILTER (WHERE id <= prev), count(*) FILTER (WHERE id128 <= prev128)
FROM (SELECT id, id128, lag(id) OVER w AS prev, lag(id128) OVER w AS prev128
      FROM ids WINDOW w AS (PARTITION BY pid ORDER BY n)) AS s
WHERE prev IS NOT NULL;
}),
	'0|0',
	'every backend saw its IDs strictly ascending across both switches');

my $per_epoch = $node->safe_psql(
	'postgres', q{
SELECT string_agg(epoch || ':' || (n > 100)::text, ',' ORDER BY epoch)
FROM (SELECT (idgen_decode(id)).epoch, count(*) AS n FROM ids GROUP BY 1) AS s;
});
is($per_epoch, '1:true,2:true,3:true', 'many IDs were issued under each of the three epochs');

# each ID's epoch is the one in force at its time, its time is when it was
# inserted (within max_drift), and its node fields are the node's
is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM ids, LATERAL idgen_decode(ids.id) AS d
WHERE d.epoch <> (SELECT max(version) FROM idgen.epoch WHERE start_time <= d.ts)
   OR d.ts > ids.at + interval '1 second' OR d.ts < ids.at - interval '1 second'
   OR d.region <> 0 OR d.worker NOT BETWEEN 16 AND 31;
}),
	'0',
	'every 64-bit ID decodes with its own epoch to its time, region and worker');

is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM ids, LATERAL idgen_decode(ids.id128) AS d
WHERE d.epoch <> (SELECT max(version) FROM idgen.epoch WHERE start_time <= d.ts)
   OR d.ts > ids.at + interval '1 second' OR d.ts < ids.at - interval '1 second'
   OR d.region <> 0 OR d.worker NOT BETWEEN 16 AND 31;
}),
	'0',
	'every 128-bit ID names its epoch and decodes with that layout');

is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM ids, LATERAL idgen_decode(ids.id) AS d, idgen.epoch_boundaries AS b
WHERE b.version = d.epoch
  AND (ids.id < b.boundary
       OR ids.id::bigint >= COALESCE((SELECT min(boundary::bigint) FROM idgen.epoch_boundaries
                                      WHERE version > d.epoch), 9223372036854775807));
}),
	'0',
	'each epoch\'s IDs lie between its boundary and the next one');

is( $node->safe_psql(
		'postgres', q{
SELECT bool_and(ok) FROM (
    SELECT id >= idgen_min_at(idgen_timestamp(id)) AND id <= idgen_max_at(idgen_timestamp(id))
           AND id >= idgen_timestamp(id) AND id <= idgen_timestamp(id) AS ok
    FROM ids) AS s;
}),
	't',
	'time bounds and time comparisons agree with every epoch');

is($node->safe_psql('postgres', 'SELECT state, horizon > now() + interval \'100 years\' FROM idgen_status()'),
	'active|t', 'the node is active with epoch 3\'s later horizon');

# another database of the node decodes with the registry's epochs
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', 'CREATE EXTENSION idgen');
my $last = $node->safe_psql('postgres', 'SELECT max(id) FROM ids');
is($node->safe_psql('app', "SELECT (idgen_decode('$last'::idgen)).epoch"),
	'3', 'a database other than the registry decodes with the node\'s epochs');

$node->restart;
$node->poll_query_until('postgres',
	"SELECT state = 'active' FROM idgen_status()")
  or die 'the node did not become active after the restart';
is( $node->safe_psql(
		'postgres', q{
SELECT x > (SELECT max(id) FROM ids) AND (idgen_decode(x)).epoch = 3
FROM (SELECT idgen_next() AS x) AS s;
}),
	't',
	'after a restart the node issues under epoch 3, above every earlier ID');

$node->stop;

done_testing();
