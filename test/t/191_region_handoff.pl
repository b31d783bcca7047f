# 191_region_handoff.pl - a region handed from one regional registry to
# another under load (issue 22, item 3; G6, docs/regions.md "Handoff")
#
# A root; regional registry A holds region 1, regional registry B owns
# region 1 too and is refused by the root while A holds it; two nodes of
# region 1 and an idgen-gateway (--region 1) lease from A and issue
# throughout, the gateway from a process of the test's that draws
# count=100 every 10 ms.
#   1. idgen_handoff_region(1) on A: no lease is granted or renewed there
#      from then on (a node's refusal names the handoff), and the region
#      lease is not yet given back while a lease granted there runs.
#   2. node1 is moved to B (its idgen.registry changed, reloaded) at once,
#      its lease at A given back with its mark;
#      node2 stays until its lease has run out, then is moved too; the
#      gateway stays until A refuses it (503, its /healthz naming the
#      handoff: it takes the refusal of its first renewal after the call
#      as a fence, where a node issues on until its lease ends), then is
#      restarted with --registry B, its state directory kept.
#   3. Once every lease A granted in region 1 has ended, A releases region
#      1 to the root with the final mark, which lies at or above every ID
#      the nodes and the gateway issued under A; B leases the region above
#      that mark.
#   4. The nodes and the gateway issue under B above every ID they issued
#      before and above the final mark: no ID twice across the three
#      issuers (every ID in one file, sorted), each one's IDs ascending
#      throughout.
#   5. A restarted does not lease region 1 again; the root keeps it B's.
#   6. The refusals: idgen_handoff_region() on the root and for a region A
#      does not own, and idgen_lease_range() on a regional registry.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use IdgenGwRun;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

my $tmp = PostgreSQL::Test::Utils::tempdir('handoff');
my $root = idgen_registry('root', conf => "idgen.region_id = 7\nidgen.leased_out_regions = '1'\n");
ok(wait_extension($root), 'root: the background worker created the extension');

my $regional_conf = qq{
idgen.region_id = 1
idgen.owned_regions = '1'
idgen.parent_registry = '@{[ registry_conn($root) ]}'
idgen.region_lease_ttl = '30s'
idgen.lease_ttl = '10s'
};
my $a = idgen_registry('reg_a', conf => $regional_conf . "cluster_name = 'reg-a'\n");
ok($a->poll_query_until('postgres',
		'SELECT held FROM idgen_region_status() WHERE region = 1', 't'),
	'A: region 1 is held');
my $b = idgen_registry('reg_b', conf => $regional_conf . "cluster_name = 'reg-b'\n");
ok(wait_extension($b), 'B: the background worker created the extension');
my $owner_a = $a->safe_psql('postgres', 'SELECT idgen.region_owner()');
my $owner_b = $b->safe_psql('postgres', 'SELECT idgen.region_owner()');
isnt($owner_a, $owner_b, 'A and B lease under different owner names');
ok($b->poll_query_until('postgres',
		q{SELECT last_error ~ 'region 1 is leased to' FROM idgen_region_status() WHERE region = 1}, 't'),
	'B: the root refuses region 1 while A holds it');

my $node_conf = "idgen.region_id = 1\nidgen.lease_ttl = '10s'\nidgen.lease_wait = '1s'\n";
my @nodes = map { idgen_fleet_node($_, $a, conf => $node_conf) } qw(node1 node2);
for my $n (@nodes)
{
	ok(wait_state($n), $n->name . ': active under A');
	$n->safe_psql('postgres', q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, id idgen, run int, at timestamptz, sqlstate text);
CREATE FUNCTION draw(secs float8, run int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    refused int := 0;
    ok int := 0;
    stop_at timestamptz := clock_timestamp() + secs * interval '1 s';
BEGIN
    WHILE clock_timestamp() < stop_at LOOP
        BEGIN
            INSERT INTO drawn (id, run, at) VALUES (idgen_next(), draw.run, clock_timestamp());
            ok := ok + 1;
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO drawn (run, at, sqlstate) VALUES (draw.run, clock_timestamp(), SQLSTATE);
            refused := refused + 1;
            PERFORM pg_sleep(0.05);
        END;
        PERFORM pg_sleep(0.002);
    END LOOP;
    RETURN format('%s issued, %s refused', ok, refused);
END
$$;
});
}

# a draw on a node for $secs, in the background
sub start_draw
{
	my ($n, $secs, $run) = @_;
	my $bg = $n->background_psql('postgres', on_error_stop => 0);
	$bg->query_until(qr/drawing/, "\\echo drawing\nSELECT draw($secs, $run);\n");
	return $bg;
}

sub finish_draw
{
	my ($bg) = @_;
	my ($sum) = $bg->query_until(qr/done/, "\\echo done\n");
	$bg->quit;
	$sum =~ s/\s*done\s*$//;
	return $sum;
}

sub q1 { my ($n, $sql) = @_; return $n->safe_psql('postgres', $sql); }

# the gateway of region 1, leasing from A
my $tokens = IdgenGwRun::tokens_file($tmp);
my %gw_opt = (name => 'gw', dir => $tmp, tokens => $tokens, ttl => '10s',
	args => [ '--region', '1', '--workers', '1' ]);
my $gw = IdgenGwRun::start(%gw_opt, conn => registry_conn($a));
ok(wait_for(sub { IdgenGwRun::healthy($gw) }), 'gw (--region 1, leasing from A): healthy');

# node2's draw runs through the handoff, the gateway's too; node1's until its move
my $gw_draw = IdgenGwRun::draw_start($gw, "$tmp/drawn-gw-a", count => 100, pause_ms => 10);
my $bg2 = start_draw($nodes[1], 25, 1);
my $bg1 = start_draw($nodes[0], 3, 1);
sleep 2;

# --- 1. the handoff begins -----------------------------------------------------

my $t_handoff = time();
my ($handoff_at, $left) = split /\|/, q1($a,
	'SELECT handoff_at IS NOT NULL, leases_left FROM idgen_handoff_region(1)');
is($handoff_at, 't', 'A: idgen_handoff_region(1) records the handoff');
cmp_ok($left, '>=', 3, "A: leases granted in region 1 still run ($left: the nodes' and the gateway's)");
is(q1($a, 'SELECT handoff_at IS NOT NULL AND released_at IS NULL AND held FROM idgen_region_status()'),
	't', 'A: the region lease is still held while they run');
is(q1($a, q{SELECT count(*) FROM idgen.audit_log WHERE action = 'region_handoff'}),
	'1', 'A: the handoff is in the audit log');
# a second call changes nothing
is(q1($a, q{SELECT (SELECT handoff_at FROM idgen_handoff_region(1)) = handoff_at FROM idgen.held_region}),
	't', 'A: a second call keeps the first handoff time');

# --- 2. node1 moves at once ----------------------------------------------------

my $sum1 = finish_draw($bg1);
diag "node1 under A: $sum1";
my $max1_a = q1($nodes[0], 'SELECT max(id::bigint) FROM drawn');
# by a reload: the worker gives its lease back to A with its mark and
# leases at B, above that mark
my $sysid1 = q1($nodes[0], 'SELECT idgen.node_sysid()');
$nodes[0]->append_conf('postgresql.conf', "idgen.registry = '" . registry_conn($b) . "'\n");
$nodes[0]->reload;
ok( $a->poll_query_until('postgres', qq{
		SELECT count(*) = 0 FROM idgen.worker_lease WHERE node_sysid = '$sysid1' AND owner IS NOT NULL}),
	'node1: moved by a reload, its lease at A given back');
ok($a->safe_psql('postgres', qq{
		SELECT max(high_water) >= (idgen_decode('$max1_a'::bigint::idgen)).ts
		FROM idgen.worker_lease WHERE node_sysid = '$sysid1'}) eq 't',
	'node1: A keeps a final mark at or above its last ID');

# node2 and the gateway keep issuing on their leases, then are refused,
# naming the handoff
ok(wait_for(sub {
		my ($s, $j) = IdgenGwRun::req($gw, 'GET', '/healthz', admin => 1);
		return $s == 503 && ref $j eq 'HASH' && ($j->{reason} // '') =~ /region 1 is handed off by this registry/; }),
	'gw: refused by A after the handoff: /healthz 503, the reason names the handoff');
my $t_gw_out = time();

# the gateway moved: restarted with --registry B, its state directory kept
IdgenGwRun::draw_stop($gw_draw);
IdgenGwRun::stop($gw);
my @gw_a;	# [t0, ok, ids] of its requests under A
IdgenGwRun::draw_each($gw_draw->{file}, sub { my ($t0, $t1, $ok, @ids) = @_; push @gw_a, [ $t0, $ok, \@ids ]; });
my @gw_a_ids = map { @{ $_->[2] } } @gw_a;
my $gw_after_handoff = grep { $_->[1] && $_->[0] > $t_handoff } @gw_a;
my $gw_refused_a = grep { !$_->[1] } @gw_a;
my ($gw_first_refusal) = map { $_->[0] } grep { !$_->[1] } @gw_a;
diag sprintf 'gw under A, through the handoff: %d issued, %d requests refused; the first refusal %.1f s after the call',
	scalar @gw_a_ids, $gw_refused_a, ($gw_first_refusal // $t_handoff) - $t_handoff;
cmp_ok($gw_after_handoff, '>', 0, 'gw: issued under A after the handoff began');
$gw = IdgenGwRun::start(%gw_opt, conn => registry_conn($b));
my $t_gw_moved = time();
# its draw goes on at once: refused while B waits for the release
$gw_draw = IdgenGwRun::draw_start($gw, "$tmp/drawn-gw-b", count => 100, pause_ms => 10);

ok($nodes[1]->poll_query_until('postgres',
		q{SELECT reason ~ 'region 1 is handed off by this registry' FROM idgen_status()}, 't'),
	'node2: once its lease ran out, refused by A, the reason names the handoff');
my $t_node2_out = time();
my $sum2 = finish_draw($bg2);
diag "node2 under A, through the handoff: $sum2";
like($sum2, qr/^\s*[1-9]\d* issued/, 'node2: issued under A after the handoff began');
my $max2_a = q1($nodes[1], 'SELECT max(id::bigint) FROM drawn');

# --- 3. the release with the final mark, and B's lease above it -----------------

ok($a->poll_query_until('postgres',
		'SELECT released_at IS NOT NULL FROM idgen_region_status() WHERE region = 1', 't'),
	'A: region 1 given back to the root once the leases granted there ended');
diag sprintf 'handoff to release: %s s on A\'s clock (node2 refused about %.1f s after the call)',
	q1($a, 'SELECT round(extract(epoch FROM released_at - handoff_at)::numeric, 1) FROM idgen_region_status()'),
	$t_node2_out - $t_handoff;
is(q1($a, q{SELECT NOT EXISTS (SELECT 1 FROM idgen.worker_lease
                               WHERE region = 1 AND owner IS NOT NULL AND lease_until > idgen.clock())}),
	't', 'A: no lease granted in region 1 runs any more');
my $mark_ms = q1($a,
	'SELECT (extract(epoch FROM final_mark) * 1000)::bigint FROM idgen_region_status() WHERE region = 1');
my $ts_of = sub {
	my ($n, $id) = @_;
	return q1($n, "SELECT (extract(epoch FROM ts) * 1000)::bigint FROM idgen_decode('$id'::bigint::idgen)");
};
cmp_ok($mark_ms, '>=', $ts_of->($nodes[1], $max2_a), 'A: the final mark lies at or above node2\'s last ID under A');
cmp_ok($mark_ms, '>=', $ts_of->($nodes[1], $max1_a), 'A: and at or above node1\'s last ID under A');
cmp_ok($mark_ms, '>=', $ts_of->($nodes[1], $gw_a_ids[-1]), 'A: and at or above the gateway\'s last ID under A');
is(q1($root, "SELECT (extract(epoch FROM high_water) * 1000)::bigint >= $mark_ms FROM idgen.region_lease WHERE region = 1"),
	't', 'root: the region\'s mark is at least A\'s final mark');
ok($root->poll_query_until('postgres',
		"SELECT owner = '$owner_b' AND live FROM idgen.regions WHERE region = 1", 't'),
	'root: region 1 is leased to B');
is(q1($b, "SELECT held AND (extract(epoch FROM start_after) * 1000)::bigint >= $mark_ms FROM idgen_region_status()"),
	't', 'B: holds region 1 above A\'s final mark');
ok(wait_for(sub { IdgenGwRun::healthy($gw) }), 'gw: healthy under B');

# --- 4. both nodes under B -------------------------------------------------------

ok(wait_state($nodes[0]), 'node1: active under B');
$nodes[1]->stop;
$nodes[1]->append_conf('postgresql.conf', "idgen.registry = '" . registry_conn($b) . "'\n");
$nodes[1]->start;
ok(wait_state($nodes[1]), 'node2: active under B');
my @bg = map { start_draw($_, 3, 2) } @nodes;
diag $nodes[$_]->name . ' under B: ' . finish_draw($bg[$_]) for (0, 1);
IdgenGwRun::draw_stop($gw_draw);
my @gw_b;
IdgenGwRun::draw_each($gw_draw->{file}, sub { my ($t0, $t1, $ok, @ids) = @_; push @gw_b, [ $t0, $ok, \@ids ]; });
my @gw_b_ids = map { @{ $_->[2] } } @gw_b;
my ($gw_b_first) = grep { $gw_b[$_][1] } 0 .. $#gw_b;
$gw_b_first //= scalar @gw_b;
diag sprintf 'gw under B (restarted against it %.1f s after the call): %d requests refused while B waited; '
	  . 'its first ID there %.1f s after the call; then %d issued, %d refused',
	$t_gw_moved - $t_handoff, $gw_b_first, ($gw_b[$gw_b_first] // [$t_handoff])->[0] - $t_handoff,
	scalar @gw_b_ids, scalar grep { !$_->[1] } @gw_b[ $gw_b_first .. $#gw_b ];
cmp_ok(scalar @gw_b_ids, '>', 0, 'gw: issued under B');
is(scalar(grep { !$_->[1] } @gw_b[ $gw_b_first .. $#gw_b ]), 0, 'gw: not one refusal under B once it issued there');

# every ID of the three issuers into one file
my $all = "$tmp/all-ids";
open(my $allf, '>', $all) or die "$all: $!";
print $allf "$_\n" for @gw_a_ids, @gw_b_ids;
my $back = 0;
my @gw_ids = (@gw_a_ids, @gw_b_ids);
for my $k (1 .. $#gw_ids)
{
	$back++ unless IdgenGwRun::id_lt($gw_ids[ $k - 1 ], $gw_ids[$k]);
}
is($back, 0, 'gw: its IDs ascend throughout, across its restart against B');
ok(@gw_b_ids && IdgenGwRun::id_lt($gw_a_ids[-1], $gw_b_ids[0]), 'gw: under B above every ID it issued under A');
is(q1($root, "SELECT (extract(epoch FROM (idgen_decode('$gw_b_ids[0]'::bigint::idgen)).ts) * 1000)::bigint > $mark_ms"),
	't', 'gw: under B above A\'s final mark');

for my $n (@nodes)
{
	my $name = $n->name;
	is(q1($n, q{SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY n) AS back FROM drawn
	                                  WHERE id IS NOT NULL) AS s WHERE back}),
		'0', "$name: its IDs ascend throughout");
	is(q1($n, q{SELECT count(*) > 0 AND min(id::bigint) > (SELECT max(id::bigint) FROM drawn WHERE run = 1)
	            FROM drawn WHERE run = 2 AND id IS NOT NULL}),
		't', "$name: under B above every ID it issued under A");
	is(q1($n, "SELECT (extract(epoch FROM min(d.ts)) * 1000)::bigint > $mark_ms
	           FROM drawn, idgen_decode(id) AS d WHERE run = 2 AND id IS NOT NULL"),
		't', "$name: under B above A's final mark");
	print $allf q1($n, 'SELECT id::bigint FROM drawn WHERE id IS NOT NULL'), "\n";
}
close $allf;
my $count = `wc -l < $all` + 0;
my $dups = `LC_ALL=C sort $all | uniq -d | wc -l` + 0;
cmp_ok($count, '>', 1000, "IDs drawn: $count");
is($dups, 0, 'no ID twice across the two nodes and the gateway');

# --- 5. A restarted leaves region 1 alone ------------------------------------------

$a->restart;
ok(wait_extension($a), 'A: back');
sleep 3;
is(q1($a, 'SELECT released_at IS NOT NULL AND NOT held FROM idgen_region_status() WHERE region = 1'),
	't', 'A: after its restart the region stays handed off, not held');
is(q1($root, "SELECT owner = '$owner_b' AND live FROM idgen.regions WHERE region = 1"),
	't', 'root: region 1 is still B\'s');

# --- 6. the refusals ---------------------------------------------------------------

my ($ret, $out, $err) = $root->psql('postgres', 'SELECT idgen_handoff_region(1)');
like($err, qr/idgen_handoff_region\(\) runs on a regional registry/, 'root: idgen_handoff_region() refused');
($ret, $out, $err) = $b->psql('postgres', 'SELECT idgen_handoff_region(2)');
like($err, qr/region 2 is not owned by this registry/, 'B: a region it does not own is refused');
($ret, $out, $err) = $b->psql('postgres', q{SELECT idgen_lease_range('holder', 10)});
like($err, qr/cannot lease a range on a regional registry/, 'B: idgen_lease_range() refused');
like(q1($root, q{SELECT range_start FROM idgen_lease_range('holder', 10)}), qr/^\d+$/,
	'root: ranges are leased there');

IdgenGwRun::stop($gw);
$_->stop for @nodes;
$_->stop for ($b, $a, $root);
done_testing();
