# 031_failover_timelines.pl - the leases that unclean failovers leave behind
#
# A promoted node never takes over rows its own system leased on another
# timeline: the old primary may still be running, renewing them in its own
# copy of the registry, and nothing in this copy can tell.  So each unclean
# failover leaves a block behind, and the blocks of a region run out.
#
#   1. Split brain: the old primary keeps running.  The promoted node's only
#      candidate block is the old primary's, whose lease and high-water mark
#      lie more than idgen.max_drift in the past in the promoted node's copy;
#      it must still not take it (the old primary is issuing from it), and
#      it says why and what to do.  Once the old primary is stopped, an
#      operator frees the block with idgen_fence_worker(), and the promoted
#      node leases it, above the old marks, with no ID in common with the old
#      primary.
#   2. Eight unclean failovers of one instance (crash, come back as a
#      standby of nobody, promote: a new timeline each time) use up the eight
#      blocks of 16 workers in region 0.  On the ninth timeline the node
#      cannot lease and says why; the old primaries were this instance, so an
#      operator frees their rows, and the node leases above every old mark.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# --- 1. split brain -------------------------------------------------------------

my $primary = idgen_node('old_primary', init => { allows_streaming => 1 }, conf => q{
idgen.lease_ttl = '2s'
# two blocks of 64 in region 0
idgen.workers_per_node = 64
});
ok($primary->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'split brain: the primary is active');
my ($p_worker, $p_owner) = split /\|/,
  $primary->safe_psql('postgres', 'SELECT worker, owner FROM idgen_status()');

# an outside generator holds a worker of the other block, in both copies
my ($l_region, $l_worker, $l_gen) = split /\|/, $primary->safe_psql(
	'postgres', q{SELECT region, worker, generation FROM idgen_lease_worker('loader', interval '30 s')});
cmp_ok($l_worker, '>=', 64, 'split brain: an outside lease keeps the second block busy');
is($p_worker, '0', 'split brain: the primary holds block 0');

$primary->safe_psql(
	'postgres', q{
CREATE TABLE ids (id idgen PRIMARY KEY, phase text NOT NULL);
INSERT INTO ids SELECT idgen_next(), 'before' FROM generate_series(1, 1000);
});
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('promoted');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
$primary->safe_psql('postgres',
	q{INSERT INTO ids SELECT idgen_next(), 'before' FROM generate_series(1, 1000)});
$primary->wait_for_catchup($standby);

# cut off: the standby's copy of the primary's lease goes stale, and stays
# stale after its end and its mark have passed by more than idgen.max_drift
$standby->append_conf('postgresql.conf', "primary_conninfo = ''\n");
$standby->reload;
ok($standby->poll_query_until('postgres', 'SELECT count(*) = 0 FROM pg_stat_wal_receiver'),
	'split brain: the standby no longer streams');
ok( $standby->poll_query_until(
		'postgres', qq{
SELECT bool_and(lease_until + interval '1 second' < idgen.clock()
                AND high_water + interval '1 second' < idgen.clock())
FROM idgen.worker_lease WHERE owner = '$p_owner'}),
	"split brain: in the standby's copy the primary's lease and mark are over a second past");

$standby->promote;
ok( $standby->poll_query_until(
		'postgres', q{SELECT state = 'waiting_for_lease' FROM idgen_status()}),
	'split brain: the promoted node finds no block it may take');
# the promoted registry is a new incarnation and grants nothing for its hold,
# the longest TTL (the loader's) plus the drift allowance (docs/fleets.md);
# renewals go on, and the loader keeps its worker through it
ok( wait_for(sub {
		$standby->safe_psql('postgres', "SELECT idgen_renew_worker($l_region, $l_worker, $l_gen)");
		$standby->safe_psql('postgres', 'SELECT reason FROM idgen_status()') !~ /new incarnation/;
	}),
	'split brain: the promoted registry\'s incarnation hold ends, the loader renewing through it');
my $reason = $standby->safe_psql('postgres', 'SELECT reason FROM idgen_status()');
like($reason, qr/earlier timelines/, 'split brain: the reason names the rows of earlier timelines');
like($reason, qr/idgen_fence_worker/, 'split brain: and the operator\'s remedy');
is( $standby->safe_psql(
		'postgres', qq{SELECT count(*) FROM idgen.worker_lease WHERE owner = '$p_owner' AND timeline = 1}),
	'64', 'split brain: the old primary\'s rows are left alone');

# the old primary is still issuing from that block: taking it would have
# put two issuers on it
$primary->safe_psql('postgres',
	q{INSERT INTO ids SELECT idgen_next(), 'split' FROM generate_series(1, 1000)});
is($primary->safe_psql('postgres', 'SELECT state, worker FROM idgen_status()'),
	'active|0', 'split brain: the old primary is active on block 0 meanwhile');

# the operator retires the old primary, waits idgen.max_drift past its
# last ID, and frees its rows
my $p_last = $primary->safe_psql('postgres', 'SELECT max(idgen_timestamp(id)) FROM ids');
my $p_ids = $primary->safe_psql('postgres', 'COPY (SELECT id FROM ids) TO STDOUT');
$primary->stop;
ok( $standby->poll_query_until(
		'postgres', qq{SELECT idgen.clock() > '$p_last'::timestamptz + interval '1 second'}),
	'split brain: idgen.max_drift has passed since the old primary\'s last ID');
is( $standby->safe_psql(
		'postgres', q{
SELECT count(idgen_fence_worker(region, worker)) FROM idgen.worker_lease
WHERE node_sysid = idgen.node_sysid() AND NOT remote AND timeline < 2}),
	'64', 'split brain: the operator frees the 64 rows of timeline 1');
ok($standby->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'split brain: the promoted node leases');
is($standby->safe_psql('postgres', 'SELECT worker FROM idgen_status()'),
	'0', 'split brain: it took the freed block');
$standby->safe_psql(
	'postgres', qq{
CREATE TABLE old_primary_ids (id bigint);
COPY old_primary_ids FROM STDIN;
$p_ids
\\.
INSERT INTO ids SELECT idgen_next(), 'promoted' FROM generate_series(1, 1000);
});
is( $standby->safe_psql(
		'postgres', q{
SELECT count(*) FROM ids JOIN old_primary_ids AS o ON o.id = ids.id::bigint
WHERE ids.phase = 'promoted'}),
	'0', 'split brain: no ID of the promoted node was issued by the old primary');
is( $standby->safe_psql(
		'postgres', q{
SELECT min(id::bigint) > (SELECT max(id) FROM old_primary_ids)
FROM ids WHERE phase = 'promoted'}),
	't', 'split brain: its IDs lie above every ID of the old primary');
$standby->stop;

# --- 2. eight unclean failovers -------------------------------------------------

my $node = idgen_node('failovers', init => { allows_streaming => 1 }, conf => q{
idgen.lease_ttl = '2s'
});
# the background worker creates the extension, and so the type, by itself
wait_extension($node)
  or die 'the background worker did not create the extension';
$node->safe_psql('postgres', 'CREATE TABLE ids (tl int NOT NULL, id idgen PRIMARY KEY)');

my %blocks;
for my $tl (1 .. 8)
{
	$node->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()})
	  or die "timeline $tl: the node did not become active";
	my ($worker, $owner) = split /\|/,
	  $node->safe_psql('postgres', 'SELECT worker, owner FROM idgen_status()');
	like($owner, qr/^node:\d+:tl$tl:/, "timeline $tl: leased by its timeline-$tl owner");
	$blocks{$worker} = 1;
	$node->safe_psql('postgres',
		"INSERT INTO ids SELECT $tl, idgen_next() FROM generate_series(1, 1000)");
	# an unclean failover: a crash, then back as a standby and promoted
	$node->stop('immediate');
	$node->set_standby_mode;
	$node->start;
	$node->promote;
}
is(scalar(keys %blocks), 8, 'eight timelines leased the eight blocks of region 0');

ok( $node->poll_query_until(
		'postgres', q{SELECT state = 'waiting_for_lease' FROM idgen_status()}),
	'timeline 9: the node cannot lease');
# each promotion makes the registry a new incarnation: a hold first
wait_for(sub {
	$node->safe_psql('postgres', 'SELECT reason FROM idgen_status()') !~ /new incarnation/ });
$reason = $node->safe_psql('postgres', 'SELECT reason FROM idgen_status()');
like($reason, qr/earlier timelines: 8 of 8/,
	'timeline 9: the reason counts the blocks held by earlier timelines');
like($reason, qr/idgen_fence_worker/, 'timeline 9: and names the remedy');
my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT idgen_next();");
like($err, qr/ERROR:  IR002: idgen has no valid worker lease/,
	'timeline 9: idgen_next() is refused with IR002');

# the old primaries were this instance, so they are gone: free their rows
my $old_hw = $node->safe_psql('postgres',
	'SELECT max(high_water) FROM idgen.worker_lease WHERE node_sysid = idgen.node_sysid()');
is( $node->safe_psql(
		'postgres', q{
SELECT count(idgen_fence_worker(region, worker)) FROM idgen.worker_lease
WHERE node_sysid = idgen.node_sysid() AND NOT remote AND timeline < 9}),
	'128', 'timeline 9: the operator frees the 128 rows of timelines 1 to 8');
ok($node->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()}),
	'timeline 9: the node leases');
like($node->safe_psql('postgres', 'SELECT owner FROM idgen_status()'),
	qr/^node:\d+:tl9:/, 'timeline 9: under its timeline-9 owner');
$node->safe_psql('postgres',
	'INSERT INTO ids SELECT 9, idgen_next() FROM generate_series(1, 1000)');
is( $node->safe_psql(
		'postgres', qq{
SELECT min(idgen_timestamp(id)) > '$old_hw'::timestamptz
       AND min(id) > (SELECT max(id) FROM ids WHERE tl < 9)
FROM ids WHERE tl = 9}),
	't', 'timeline 9: its IDs lie above every old mark and every earlier ID');
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM ids'),
	'9000|9000', 'nine timelines, 9000 distinct IDs');

$node->stop;
done_testing();
