# 153_release_mark_skip_locked.pl - a release carries the holder's final
# mark; a lease transaction left open blocks nobody else's lease or renewal
#
# Issue 19, items 8 and 5 (SQL part).
#   1. idgen_release_worker(region, worker, generation, owner, high_water):
#      the worker's mark becomes the holder's final mark, not its planned
#      lease end, so the worker is granted again after the drift allowance;
#      a mark below what the worker had before the lease is not taken.
#   2. A session holds its lease transaction open (BEGIN; lease; ...): a
#      lease and a renewal from other sessions, with a statement_timeout,
#      go through, and the lease takes another worker.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('rel153');
ok(wait_state($node), 'active');

# --- 1. the final mark -----------------------------------------------------
my ($w, $g) = split /\|/, $node->safe_psql('postgres',
	q{SELECT worker || '|' || generation FROM idgen_lease_worker('app', interval '10 min')});
my $mark = $node->safe_psql('postgres', 'SELECT idgen.clock()');
my ($rc, $o, $e) = $node->psql('postgres',
	"SELECT idgen_release_worker(0, $w, $g, 'app', '$mark')");
is($rc, 0, 'the release with the final mark is taken') or diag $e;
is( $node->safe_psql('postgres',
		"SELECT high_water = '$mark' FROM idgen.worker_lease WHERE region = 0 AND worker = $w"),
	't', 'the worker\'s mark is the holder\'s final mark, not the lease\'s planned end');
ok( $node->poll_query_until('postgres', qq{
SELECT high_water + drift_allowance < idgen.clock() FROM idgen.worker_lease
WHERE region = 0 AND worker = $w}),
	'the mark plus the allowance passes');
my ($w2, $g2) = split /\|/, $node->safe_psql('postgres',
	q{SELECT worker || '|' || generation FROM idgen_lease_worker('app2', interval '10 min')});
is($w2, $w, 'the worker is granted again soon after its release');
$node->psql('postgres', "SELECT idgen_release_worker(0, $w2, $g2, 'app2', '2000-01-01')");
is( $node->safe_psql('postgres',
		"SELECT high_water >= '$mark' FROM idgen.worker_lease WHERE region = 0 AND worker = $w"),
	't', 'a final mark below the mark the lease started above is not taken');

# --- 2. a lease transaction left open -----------------------------------------
my ($pw, $pg) = split /\|/, $node->safe_psql('postgres',
	q{SELECT worker || '|' || generation FROM idgen_lease_worker('pre', interval '10 min')});
my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_safe('BEGIN');
my $stalled = $bg->query_safe(q{SELECT worker FROM idgen_lease_worker('stall', interval '10 min')});
note "the open transaction holds worker $stalled, pre holds $pw";

($rc, $o, $e) = $node->psql('postgres',
	q{SET statement_timeout = '10s'; SELECT worker FROM idgen_lease_worker('other', interval '10 min')});
is($rc, 0, 'another session\'s lease goes through beside the open lease transaction') or diag $e;
isnt($o, $stalled, 'and takes another worker');
($rc, $o, $e) = $node->psql('postgres',
	"SET statement_timeout = '10s'; SELECT idgen_renew_worker(0, $pw, $pg) IS NOT NULL");
is($rc, 0, 'a renewal of another holder goes through beside it') or diag $e;
($rc, $o, $e) = $node->psql('postgres',
	"SET statement_timeout = '10s'; SELECT idgen_renew_worker(0, $pw, $pg, 'pre') IS NOT NULL");
is($rc, 0, 'also by owner') or diag $e;
$bg->query_safe('COMMIT');
$bg->quit;
is( $node->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT worker FROM idgen.worker_lease WHERE owner IS NOT NULL
                      GROUP BY region, worker HAVING count(DISTINCT owner) > 1) AS d}),
	'0', 'no worker has two holders');

$node->stop;
done_testing();
