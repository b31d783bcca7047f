# 030_standby.pl - a streaming standby, then a promotion while the primary
# keeps running (split brain)
#
# A standby holds no worker lease: it reports state "recovery" and refuses
# to issue with 25006, as PostgreSQL refuses any write on a standby.  Before the promotion the standby is cut off the
# primary until its copy of the primary's lease (idgen.lease_ttl = 2s) has
# expired, while the primary goes on renewing it in its own registry.  Once
# promoted, the standby's background worker starts, finds those expired
# rows in its copy of the registry and, since they were written on another
# timeline, must not take them over: it leases a different block under a
# timeline-2 owner.  The two nodes then issue side by side; no ID may
# appear on both, and each node's IDs ascend.
use strict;
use warnings;

use IPC::Run ();
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $ids_per_node = 100_000;

my $primary = idgen_node('primary', init => { allows_streaming => 1 }, conf => q{
idgen.lease_ttl = '2s'
# two blocks of 64 in the 128 workers of the default layout: the promoted
# node's search (on timeline 2 it starts at block (2/2 + 1) % 2 = 0) meets
# the primary's expired rows first and has to pass over them
idgen.workers_per_node = 64
});

# the background worker creates the extension in idgen.database (postgres)
ok( wait_extension($primary),
	'primary: the background worker created the extension');
ok( $primary->poll_query_until(
		'postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'primary: idgen is active');

# pre_promotion: IDs issued before the promotion, replicated to the standby
# split:         the IDs each node issues after the promotion, on its own copy
$primary->safe_psql(
	'postgres', q{
CREATE TABLE pre_promotion (id idgen PRIMARY KEY, n bigserial);
CREATE TABLE split (id idgen PRIMARY KEY, n bigserial);
INSERT INTO pre_promotion (id) SELECT idgen_next() FROM generate_series(1, 1000);
});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

# --- the standby ------------------------------------------------------------------

$primary->safe_psql('postgres',
	'INSERT INTO pre_promotion (id) SELECT idgen_next() FROM generate_series(1, 1000)');
$primary->wait_for_catchup($standby);

is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't', 'the standby is in recovery');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM pre_promotion'),
	'2000', 'the standby replayed the IDs issued on the primary');
is( $standby->safe_psql(
		'postgres', 'SELECT state, worker IS NULL, generation IS NULL FROM idgen_status()'),
	'recovery|t|t',
	'standby: idgen_status() reports state recovery and no lease');

foreach my $call ('idgen_next()', 'idgen_next_batch(3)')
{
	my ($ret, $stdout, $stderr) = $standby->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT * FROM $call;");
	isnt($ret, 0, "standby: $call fails");
	like(
		$stderr,
		qr/ERROR:  25006: cannot generate idgen IDs during recovery/,
		"standby: $call raises 25006 \"cannot generate idgen IDs during recovery\"");
}

# --- promotion, the primary keeps running -------------------------------------

my ($p_worker, $p_workers, $p_owner) = split /\|/,
  $primary->safe_psql('postgres', 'SELECT worker, workers, owner FROM idgen_status()');

# Cut the standby off: its copy of the primary's lease goes stale.
$standby->append_conf('postgresql.conf', "primary_conninfo = ''\n");
$standby->reload;
ok( $standby->poll_query_until(
		'postgres', 'SELECT count(*) = 0 FROM pg_stat_wal_receiver'),
	'standby: streaming from the primary stopped');
ok( $standby->poll_query_until(
		'postgres', qq{
SELECT count(*) = $p_workers AND bool_and(lease_until < now())
FROM idgen.worker_lease WHERE owner = '$p_owner'}),
	"standby: its copy of the primary's lease has expired");
is($primary->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	'active', 'the primary is active and renewing its lease meanwhile');

$standby->promote;
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	'f', 'the standby is promoted');
ok( $standby->poll_query_until(
		'postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'promoted: its background worker leased a worker block, idgen is active');
is($primary->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	'active', 'the primary is still active');

my ($s_worker, $s_workers, $s_owner) = split /\|/,
  $standby->safe_psql('postgres', 'SELECT worker, workers, owner FROM idgen_status()');
is($s_workers, $p_workers, 'both nodes use blocks of the same size');
isnt($s_worker, $p_worker,
	"the promoted node leased another block (workers $s_worker-, primary $p_worker-)");
ok($s_worker + $s_workers <= $p_worker || $p_worker + $p_workers <= $s_worker,
	'the two blocks do not overlap');
like($p_owner, qr/^node:\d+:tl1:/, "the primary's lease owner is on timeline 1 ($p_owner)");
like($s_owner, qr/^node:\d+:tl2:/,
	"the promoted node's lease owner is on timeline 2 ($s_owner)");
my ($p_sysid) = $p_owner =~ /^node:(\d+):/;
my ($s_sysid) = $s_owner =~ /^node:(\d+):/;
is($s_sysid, $p_sysid, 'both owners name the same system identifier');
isnt($s_owner, $p_owner, 'the lease owners differ');

# in the promoted node's registry the primary's rows stay the primary's
is( $standby->safe_psql(
		'postgres', qq{
SELECT count(*) FROM idgen.worker_lease
WHERE worker BETWEEN $p_worker AND @{[$p_worker + $p_workers - 1]}
  AND owner = '$p_owner' AND timeline = 1}),
	$p_workers,
	"the promoted node left the primary's expired rows (timeline 1) alone");

# --- both nodes issue, at the same time -------------------------------------------
#
# Concurrently, so that two nodes sharing a block would hand out the same
# IDs (same worker, same milliseconds, sequences from 0) and the checks
# below would see them.

my %run;
foreach my $node ($primary, $standby)
{
	my $name = $node->name;
	$run{$name} = { out => '', err => '' };
	$run{$name}{h} = IPC::Run::start(
		[
			$node->installed_command('psql'), '-XAtq',
			'-v', 'ON_ERROR_STOP=1',
			'-d', $node->connstr('postgres'),
			'-c',
			"INSERT INTO split (id) SELECT idgen_next() FROM generate_series(1, $ids_per_node)"
		],
		'>', \$run{$name}{out}, '2>', \$run{$name}{err});
}
foreach my $name (sort keys %run)
{
	ok($run{$name}{h}->finish, "$name: issued $ids_per_node IDs")
	  or diag $run{$name}{err};
}

foreach my $case ([ $primary, $p_worker ], [ $standby, $s_worker ])
{
	my ($node, $worker) = @$case;
	my $name = $node->name;
	is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM split'),
		"$ids_per_node|$ids_per_node", "$name: $ids_per_node distinct IDs");
	is( $node->safe_psql(
			'postgres', q{
SELECT count(*)
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM split) AS s
WHERE prev IS NOT NULL AND id <= prev}),
		'0',
		"$name: the IDs ascend in the order they were issued");
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) FROM split, LATERAL idgen_decode(split.id) AS d
WHERE d.worker NOT BETWEEN $worker AND @{[$worker + $p_workers - 1]}}),
		'0',
		"$name: every ID carries a worker of the node's own block");
	is( $node->safe_psql(
			'postgres',
			'SELECT min(id::bigint) > (SELECT max(id::bigint) FROM pre_promotion) FROM split'),
		't',
		"$name: its IDs lie above every ID issued before the promotion");
}

# copy the promoted node's IDs into the primary and compare there
my $copied = $standby->safe_psql('postgres', 'COPY split (id, n) TO STDOUT');
$primary->safe_psql('postgres',
	"CREATE TABLE split_promoted (id bigint, n bigint);\n"
	  . "COPY split_promoted FROM STDIN;\n"
	  . $copied
	  . "\n\\.\n");
is($primary->safe_psql('postgres', 'SELECT count(*) FROM split_promoted'),
	$ids_per_node, "all $ids_per_node IDs of the promoted node copied to the primary");
is( $primary->safe_psql(
		'postgres',
		'SELECT count(*) FROM split AS p JOIN split_promoted AS s ON s.id = p.id::bigint'),
	'0',
	'no ID was issued by both the primary and the promoted node');
is( $primary->safe_psql(
		'postgres', q{
SELECT count(DISTINCT id) FROM (
    SELECT id::bigint FROM split
    UNION ALL SELECT id FROM split_promoted
    UNION ALL SELECT id::bigint FROM pre_promotion) AS a}),
	2 * $ids_per_node + 2000,
	'all IDs of both nodes, before and after the promotion, are distinct');

$standby->stop;
$primary->stop;

done_testing();
