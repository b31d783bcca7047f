# 192_region_cutoff.pl - a region cut off from the root stands alone for
# the rest of its region lease, never past it (issue 22, item 6; DESIGN
# "Regions that stand alone"; docs/regions.md "The arithmetic")
#
# A root; regional registry 1 reaches it through a proxy of the test's own
# (test/perl/IdgenProxy.pm), regional registry 2 directly; region TTL 20 s.
# One node in each region issues throughout.
#   1. The proxy cut (a black hole: connections dropped, new ones never
#      answered): node1 issues without an error until at least 70 % of the
#      region TTL after the cut, and never after the region lease's
#      validity as it stood at the cut; node2 never notices.
#   2. A layout switch the cut-off region could miss (before its lease's
#      end plus its allowance) is refused, naming region 1.
#   3. The proxy mended past the region TTL: region 1 is leased again,
#      node1 issues again, above every ID it issued before.
#   4. Then the switch is scheduled, applies in both regions (each node
#      issues in epoch 2).
#   5. The root stopped (immediate) for 60 % of the region TTL: neither
#      node sees one refusal, and both regional registries renew at the
#      restarted root.  No ID is issued twice; each node ascends.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status);
use IdgenProxy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

my $ttl = 20;
# the root's own rule for a switch (two of its lease ttls ahead) stays
# below the region leases' ends, so theirs is the one a switch meets
my $root = idgen_registry('root',
	conf => "idgen.region_id = 7\nidgen.lease_ttl = '5s'\nidgen.leased_out_regions = '1,2'\n");
ok(wait_extension($root), 'root: the background worker created the extension');
my $proxy = IdgenProxy->new($root->port, $PostgreSQL::Test::Utils::tmp_check);

my %reg;
for my $r (1, 2)
{
	my $parent = $r == 1
	  ? 'host=127.0.0.1 port=' . $proxy->port . ' dbname=postgres'
	  : registry_conn($root);
	$reg{$r} = idgen_registry("reg$r", conf => qq{
idgen.region_id = $r
idgen.owned_regions = '$r'
idgen.parent_registry = '$parent'
idgen.region_lease_ttl = '${ttl}s'
idgen.lease_ttl = '10s'
});
	ok($reg{$r}->poll_query_until('postgres',
			"SELECT held FROM idgen_region_status() WHERE region = $r", 't'),
		"reg$r: region $r is held");
}

my %node;
for my $r (1, 2)
{
	$node{$r} = idgen_fleet_node("node$r", $reg{$r},
		conf => "idgen.region_id = $r\nidgen.lease_ttl = '10s'\nidgen.lease_wait = '1s'\n");
	ok(wait_state($node{$r}), "node$r: active");
	$node{$r}->safe_psql('postgres', q{
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
        PERFORM pg_sleep(0.005);
    END LOOP;
    RETURN format('%s issued, %s refused', ok, refused);
END
$$;
});
}

sub q1 { my ($n, $sql) = @_; return $n->safe_psql('postgres', $sql); }

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

# --- 1. the cut --------------------------------------------------------------

my %bg = map { $_ => start_draw($node{$_}, $ttl + 8, 1) } (1, 2);
sleep 2;
$proxy->cut;
my $cut_at = q1($node{1}, 'SELECT clock_timestamp()');
# nothing renews it from here on (an answer relayed just before the cut
# is recorded within moments): this is the end the region lease has
usleep(500_000);
my $valid_at_cut = q1($reg{1}, 'SELECT valid_until FROM idgen.held_region WHERE region = 1');
my $root_end_1 = q1($root, 'SELECT lease_until + allowance FROM idgen.region_lease WHERE region = 1');
note "cut at $cut_at; region 1 valid until $valid_at_cut";

# --- 2. a switch the cut-off region could miss --------------------------------

my $widths = q1($root,
	q{SELECT region_bits || ', ' || worker_bits || ', ' || seq_bits FROM idgen.epoch WHERE version = 1});
my ($ret, $out, $err) = $root->psql('postgres',
	"SELECT idgen_schedule_layout('$root_end_1'::timestamptz - interval '1 s', $widths)");
isnt($ret, 0, 'root: a switch before the cut-off region\'s lease end plus allowance is refused');
like($err, qr/region leases run past it/, 'root: the error says region leases run past it');
like($err, qr/region 1 \(/, 'root: the detail names region 1');

my %sum = map { $_ => finish_draw($bg{$_}) } (1, 2);
note "run 1 (the cut), node$_: $sum{$_}" for (1, 2);

my ($first_fail, $last_ok) = split /\|/, q1($node{1}, qq{
	SELECT extract(epoch FROM min(at) FILTER (WHERE sqlstate IS NOT NULL AND at > '$cut_at') - '$cut_at'),
	       max(at) FILTER (WHERE id IS NOT NULL) <= '$valid_at_cut'::timestamptz
	FROM drawn WHERE run = 1});
note sprintf 'node1: first refusal %.1f s after the cut (region TTL %d s)', $first_fail // -1, $ttl;
cmp_ok($first_fail // 0, '>=', 0.7 * $ttl, 'node1: issued without an error until at least 70 % of the region TTL after the cut');
is($last_ok, 't', 'node1: no ID after the region lease\'s validity as it stood at the cut');
is(q1($node{1}, qq{SELECT count(*) FILTER (WHERE id IS NOT NULL AND at > '$cut_at'::timestamptz + interval '1 s') > 0 FROM drawn}),
	't', 'node1: issued during the cut');
is(q1($node{2}, 'SELECT count(*) FILTER (WHERE sqlstate IS NOT NULL) FROM drawn'),
	'0', 'node2: not one refusal through the other region\'s cut');
like(q1($reg{1}, 'SELECT last_error FROM idgen_region_status()'), qr/root registry|not held|lapsed/,
	'reg1: its status says why the region lease is not renewed');

# --- 3. mended past the region TTL ----------------------------------------------

my $since = q1($node{1}, "SELECT extract(epoch FROM clock_timestamp() - '$cut_at')");
sleep($ttl + 1 - $since) if $since < $ttl + 1;
$proxy->mend;
ok($reg{1}->poll_query_until('postgres',
		'SELECT held FROM idgen_region_status() WHERE region = 1', 't'),
	'reg1: region 1 is leased again once the root is reachable');
ok(wait_state($node{1}), 'node1: active again');

# --- 4. the switch, scheduled after the return ------------------------------------

my $applies = q1($root, qq{
	SELECT max(lease_until + allowance) + interval '6 s' FROM idgen.regions WHERE live});
is(q1($root, "SELECT idgen_schedule_layout('$applies', $widths)"), '2',
	'root: the switch after every region lease\'s end plus allowance is scheduled, epoch 2');
%bg = map { $_ => start_draw($node{$_}, 3, 2) } (1, 2);
%sum = map { $_ => finish_draw($bg{$_}) } (1, 2);
note "run 2 (after the return), node$_: $sum{$_}" for (1, 2);
ok($root->poll_query_until('postgres', "SELECT clock_timestamp() > '$applies'::timestamptz + interval '1 s'", 't'),
	'the switch has passed');
%bg = map { $_ => start_draw($node{$_}, 3, 3) } (1, 2);
%sum = map { $_ => finish_draw($bg{$_}) } (1, 2);
note "run 3 (past the switch), node$_: $sum{$_}" for (1, 2);

# --- 5. the root stopped for 60 % of the region TTL ---------------------------------

# last: a restarted root is a new incarnation and grants no region for a
# day (G3); the renewals of the leases it has go on
%bg = map { $_ => start_draw($node{$_}, 0.6 * $ttl + 5, 4) } (1, 2);
sleep 1;
my $t_down = time();
$root->stop('immediate');
sleep(0.6 * $ttl - 1);
$root->start;
my $restarted_at = q1($root, 'SELECT clock_timestamp()');
note sprintf 'root away %.1f s (60 %% of the region TTL: %.1f s)', time() - $t_down, 0.6 * $ttl;
%sum = map { $_ => finish_draw($bg{$_}) } (1, 2);
note "run 4 (the root away), node$_: $sum{$_}" for (1, 2);
for my $r (1, 2)
{
	is(q1($node{$r}, 'SELECT count(*) FILTER (WHERE sqlstate IS NOT NULL) || \'|\' || count(id) FROM drawn WHERE run = 4')
		  =~ /^0\|[1-9]/ ? 't' : 'f',
		't', "node$r: issued without one refusal while the root was away");
	ok($reg{$r}->poll_query_until('postgres',
			"SELECT held AND renewed_at > '$restarted_at'::timestamptz FROM idgen_region_status()", 't'),
		"reg$r: renews its region lease again at the restarted root");
}

my %seen;
my $dups = 0;
for my $r (1, 2)
{
	my $n = $node{$r};
	is(q1($n, q{SELECT count(*) > 0 AND bool_and(d.epoch = 2) FROM drawn, idgen_decode(id) AS d
	            WHERE run = 3 AND id IS NOT NULL}),
		't', "node$r: issues in epoch 2 after the switch");
	is(q1($n, q{SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY n) AS back FROM drawn
	                                  WHERE id IS NOT NULL) AS s WHERE back}),
		'0', "node$r: its IDs ascend throughout, across the cut and the switch");
	is(q1($n, q{SELECT count(*) FILTER (WHERE sqlstate IS NOT NULL) FROM drawn WHERE run = 3}),
		'0', "node$r: no refusal past the switch");
	for my $id (split /\n/, q1($n, 'SELECT id::bigint FROM drawn WHERE id IS NOT NULL'))
	{
		$dups++ if $seen{$id}++;
	}
}
cmp_ok(scalar(keys %seen), '>', 1000, 'IDs drawn: ' . scalar(keys %seen));
is($dups, 0, 'no ID twice across the two regions');

$proxy->stop;
$_->stop for (values %node, values %reg, $root);
done_testing();
