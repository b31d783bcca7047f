# 001_concurrency.pl - one node, four backends drawing IDs at once
#
# A million IDs are inserted by four concurrent pgbench clients, some one
# idgen_next() per row and some through idgen_next_batch().  The primary key
# would already reject a duplicate; the checks below also prove that every
# backend saw its own IDs strictly ascending, that every ID carries this
# node's region and worker block, and that the status counters kept up.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# 4 clients x 250 transactions x 1000 rows
my $clients         = 4;
my $xacts_per_client = 250;
my $rows_per_xact   = 1000;
my $expected_rows   = $clients * $xacts_per_client * $rows_per_xact;

# a block other than the default one, so the worker check means something
my $first_worker = 48;
my $block_size   = 16;

my $node = idgen_node('concurrency', conf => qq{
idgen.region_id = 0
idgen.worker_id = $first_worker
idgen.workers_per_node = $block_size
synchronous_commit = off
max_wal_size = 1GB
checkpoint_timeout = 30min
});

# the background worker creates the extension in its registry database
wait_extension($node)
  or die 'the background worker did not create the extension';

$node->safe_psql(
	'postgres', q{
CREATE TABLE ids (
    id idgen PRIMARY KEY DEFAULT idgen_next(),
    pid int NOT NULL DEFAULT pg_backend_pid(),
    n bigserial
);
});

is( $node->safe_psql(
		'postgres',
		'SELECT state, region, worker, workers FROM idgen_status()'),
	"active|0|$first_worker|$block_size",
	'node is active with the configured region and worker block');

my $issued_before =
  $node->safe_psql('postgres', 'SELECT ids_issued FROM idgen_status()');

# Weights 3:1: most transactions take one idgen_next() per row through the
# column default, the rest reserve a whole batch in one step.  Both insert
# exactly $rows_per_xact rows, so the total does not depend on the mix.
$node->pgbench(
	"--no-vacuum --client=$clients --jobs=$clients --transactions=$xacts_per_client",
	0,
	[
		qr{number of transactions actually processed: @{[$clients * $xacts_per_client]}/@{[$clients * $xacts_per_client]}},
		qr{number of failed transactions: 0}
	],
	[qr{^$}],
	'pgbench: 4 clients insert IDs concurrently',
	{
		'001_per_row@3' =>
		  "INSERT INTO ids (pid) SELECT pg_backend_pid() FROM generate_series(1, $rows_per_xact);\n",
		'001_batch@1' =>
		  "INSERT INTO ids (id, pid) SELECT b, pg_backend_pid() FROM idgen_next_batch($rows_per_xact) AS b;\n",
	});

is($node->safe_psql('postgres', 'SELECT count(*) FROM ids'),
	$expected_rows, "exactly $expected_rows rows inserted");

is( $node->safe_psql('postgres', 'SELECT count(DISTINCT id) = count(*) FROM ids'),
	't', 'no ID was issued twice');

is($node->safe_psql('postgres', 'SELECT count(DISTINCT pid) FROM ids'),
	$clients, "IDs came from $clients backends");

# n is assigned row by row in the same order as the ID, so within one
# backend a larger n must carry a larger ID
is( $node->safe_psql(
		'postgres', q{
SET work_mem = '256MB';
SELECT count(*)
FROM (SELECT id, lag(id) OVER (PARTITION BY pid ORDER BY n) AS prev
      FROM ids) AS s
WHERE prev IS NOT NULL AND id <= prev;
}),
	'0',
	'every backend saw its IDs strictly ascending');

is( $node->safe_psql(
		'postgres', qq{
SELECT count(*)
FROM ids, LATERAL idgen_decode(ids.id) AS d
WHERE d.region <> 0
   OR d.worker NOT BETWEEN $first_worker AND @{[$first_worker + $block_size - 1]}
   OR d.epoch <> 1;
}),
	'0',
	'every ID decodes to region 0 and a worker of the node\'s block');

my ($issued_after, $batches) = split /\|/,
  $node->safe_psql('postgres', 'SELECT ids_issued, batches FROM idgen_status()');
cmp_ok($issued_after - $issued_before,
	'>=', $expected_rows, 'idgen_status().ids_issued counts every inserted ID');
cmp_ok($batches, '>', 0, 'idgen_status().batches counts the batch transactions');

# the logical clock may be ahead of the wall clock, never behind an issued ID
is( $node->safe_psql(
		'postgres',
		'SELECT logical_clock >= (SELECT idgen_timestamp(max(id)::idgen) FROM ids) FROM idgen_status()'
	),
	't',
	'the logical clock is at or past the newest issued ID');

$node->stop;

done_testing();
