# 104_fleet_ride_through.pl - the lease protocol v2 (docs/fleets.md)
#
# A registry and nodes on loopback with idgen.lease_ttl = 10 s.
#
#   1. The registry stops for 4 s (under 70 % of the TTL) while nodes A and
#      B draw IDs without a pause: no refusal at all, IDs ascending per
#      node, none twice.  The restarted registry is a new incarnation, and
#      its renewals of rows it has go on.
#   2. The registry stops for longer than the TTL: the nodes issue on until
#      their validity ends (never past it), then refuse with IR002 at once
#      (not after idgen.lease_wait), and issue again once the registry's
#      incarnation hold has ended.
#   2b. The registry refuses the nodes for longer than the TTL, without a
#      restart (pg_hba.conf): no hold, they issue again once it lets them in.
#   3. Node B is killed: node C, pinned to B's block, starts above B's
#      lease end plus B's drift allowance, as the registry's rows say.
#   4. The failover hole: a registry standby that lacks a grant its
#      primary made (replication cut first) is promoted after the primary
#      crashed.  A node pinned to the lost grant's block is not granted it
#      while the holder's lease may still be valid; the holder, whose
#      renewal finds its row missing there, stops at once and says why; a
#      node whose rows the standby has renews on through the hold.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

my $ttl_s = 10;
my $conf = qq{
shared_buffers = 16MB
idgen.lease_ttl = '${ttl_s}s'
idgen.lease_wait = '5s'
};

# the registry's own idgen.lease_ttl sets the least incarnation hold
my $registry = idgen_registry('registry', conf => "shared_buffers = 16MB\nidgen.lease_ttl = '${ttl_s}s'\n",
	init => { allows_streaming => 1 });
ok(wait_extension($registry), 'registry: the extension exists');

my $na = idgen_fleet_node('node_a', $registry, conf => $conf);
my $nb = idgen_fleet_node('node_b', $registry, conf => $conf);
ok(wait_state($_), $_->name . ': active') for ($na, $nb);

# draw(secs): idgen_next() without a pause for that long, each call in a
# subtransaction; every ID and every refusal with its time, its SQLSTATE and
# how long the call took.
for my $n ($na, $nb)
{
	$n->safe_psql(
		'postgres', q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, id idgen, at timestamptz NOT NULL,
                    took interval, sqlstate text, run int);
CREATE FUNCTION draw(secs float8, run int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    refused int := 0;
    ok int := 0;
    t0 timestamptz;
    stop_at timestamptz := clock_timestamp() + secs * interval '1 s';
BEGIN
    WHILE clock_timestamp() < stop_at LOOP
        t0 := clock_timestamp();
        BEGIN
            INSERT INTO drawn (id, at, took, run)
            VALUES (idgen_next(), clock_timestamp(), clock_timestamp() - t0, draw.run);
            ok := ok + 1;
        EXCEPTION WHEN SQLSTATE 'IR000' THEN
            INSERT INTO drawn (at, took, sqlstate, run)
            VALUES (clock_timestamp(), clock_timestamp() - t0, SQLSTATE, draw.run);
            refused := refused + 1;
        END;
        PERFORM pg_sleep(0.002);
    END LOOP;
    RETURN format('%s issued, %s refused', ok, refused);
END
$$;
});
}

sub start_draw
{
	my ($secs, $run) = @_;
	my %bg;
	for my $n ($na, $nb)
	{
		$bg{ $n->name } = $n->background_psql('postgres', on_error_stop => 0);
		$bg{ $n->name }->query_until(qr/drawing/, "\\echo drawing\nSELECT draw($secs, $run);\n");
	}
	return \%bg;
}

sub finish_draw
{
	my ($bg) = @_;
	my %sum;
	for my $name (sort keys %$bg)
	{
		($sum{$name}) = $bg->{$name}->query_until(qr/done/, "\\echo done\n");
		$bg->{$name}->quit;
	}
	return \%sum;
}

sub q1 { my ($n, $sql) = @_; return $n->safe_psql('postgres', $sql); }

# --- 1. an outage shorter than 70 % of the TTL costs nothing -----------------

my $inc_before = status($na, 'registry_incarnation')->{registry_incarnation};
like($inc_before, qr/^\d+\/1\/\d+$/, 'idgen_status(): the registry incarnation');
my $bg = start_draw(12, 1);
sleep 2;
my $t_stop = time();
$registry->stop('immediate');
sleep 4;
$registry->start;
my $outage1 = time() - $t_stop;
note sprintf 'registry away %.1f s', $outage1;
my $sum = finish_draw($bg);
note "run 1: $_: $sum->{$_}" for sort keys %$sum;
for my $n ($na, $nb)
{
	my $name = $n->name;
	is(q1($n, 'SELECT count(*) FROM drawn WHERE run = 1 AND sqlstate IS NOT NULL'), '0',
		"$name: no refusal through a registry outage of 4 s (TTL ${ttl_s} s)");
	is(q1($n, "SELECT count(*) > 100 FROM drawn WHERE run = 1 AND id IS NOT NULL"
			  . " AND at > to_timestamp($t_stop) AND at < to_timestamp($t_stop + 4)"),
		't', "$name: issued throughout the outage");
	is(q1($n, 'SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY n) AS back FROM drawn WHERE id IS NOT NULL) AS s WHERE back'),
		'0', "$name: IDs ascend");
	ok(wait_for(sub { status($n, 'registry_incarnation')->{registry_incarnation} ne $inc_before }),
		"$name: renewed on the restarted registry, a new incarnation");
	is(status($n, 'state')->{state}, 'active', "$name: still active");
}

# --- 2. an outage longer than the TTL ----------------------------------------

$bg = start_draw(40, 2);
sleep 2;
$t_stop = time();
$registry->stop('immediate');
my %last_answer;
$last_answer{ $_->name } = q1($_, q{SELECT extract(epoch FROM last_registry_answer) FROM idgen_status()})
  for ($na, $nb);
sleep $ttl_s + 3;
my $t_back = time();
$registry->start;
note sprintf 'registry away %.1f s', $t_back - $t_stop;
for my $n ($na, $nb)
{
	ok(wait_state($n), $n->name . ': active again');
}
$sum = finish_draw($bg);
note "run 2: $_: $sum->{$_}" for sort keys %$sum;
for my $n ($na, $nb)
{
	my $name = $n->name;
	my $la = $last_answer{$name};
	my ($last_ok, $first_refusal, $n_refused, $slow, $resumed) = split /\|/, q1($n, qq{
SELECT extract(epoch FROM max(at) FILTER (WHERE id IS NOT NULL AND at < to_timestamp($t_back))),
       extract(epoch FROM min(at) FILTER (WHERE sqlstate IS NOT NULL)),
       count(*) FILTER (WHERE sqlstate IS NOT NULL),
       count(*) FILTER (WHERE sqlstate IS NOT NULL AND took > interval '2 s'),
       extract(epoch FROM min(at) FILTER (WHERE id IS NOT NULL AND at > to_timestamp($t_back)))
FROM drawn WHERE run = 2});
	note sprintf "$name: last answer %.1f s after the stop, last ID %.1f s after it, first refusal %.1f s, resumed %.1f s after the registry came back",
	  $la - $t_stop, $last_ok - $t_stop, $first_refusal - $t_stop, $resumed - $t_back;
	cmp_ok($last_ok - $t_stop, '>', 0.7 * $ttl_s - 1,
		"$name: issued for most of its lease after the registry's last answer");
	cmp_ok($last_ok, '<', $la + $ttl_s,
		"$name: no ID after the lease's validity (last answer + TTL)");
	cmp_ok($n_refused, '>', 0, "$name: then refused ($n_refused calls)");
	is(q1($n, q{SELECT string_agg(DISTINCT sqlstate, ',') FROM drawn WHERE run = 2}),
		'IR002', "$name: with IR002");
	is($slow, '0', "$name: no refusal waited idgen.lease_wait (5 s)");
	is(q1($n, 'SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY n) AS back FROM drawn WHERE id IS NOT NULL) AS s WHERE back'),
		'0', "$name: IDs ascend across the outage");
	like(q1($n, 'SELECT max(took) < interval \'1 s\' FROM drawn WHERE run = 2 AND id IS NOT NULL'),
		qr/^t$/, "$name: no call waited long for an ID");
}


# --- 2b. the same outage without a restart: the registry refuses the nodes ---
#
# No new incarnation, so no hold: the nodes lease again as soon as the
# registry lets them in.

sub hba_reject
{
	my ($on) = @_;
	my $f = $registry->data_dir . '/pg_hba.conf';
	my $hba = slurp_file($f);
	$hba =~ s/^host all all 127\.0\.0\.1\/32 reject\n//m;
	$hba = "host all all 127.0.0.1/32 reject\n" . $hba if $on;
	open my $fh, '>', $f or die $!;
	print $fh $hba;
	close $fh;
	$registry->reload;
}

$bg = start_draw(30, 3);
sleep 2;
$t_stop = time();
hba_reject(1);
q1($registry, q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity
WHERE application_name = 'idgen lease worker' AND client_addr IS NOT NULL});
sleep $ttl_s + 3;
$t_back = time();
hba_reject(0);
for my $n ($na, $nb)
{
	ok(wait_state($n), $n->name . ': active again after the registry let it in');
}
$sum = finish_draw($bg);
note "run 3: $_: $sum->{$_}" for sort keys %$sum;
for my $n ($na, $nb)
{
	my $name = $n->name;
	my ($n_refused, $resumed) = split /\|/, q1($n, qq{
SELECT count(*) FILTER (WHERE sqlstate IS NOT NULL),
       extract(epoch FROM min(at) FILTER (WHERE id IS NOT NULL AND at > to_timestamp($t_back)))
FROM drawn WHERE run = 3});
	note sprintf "$name: resumed %.2f s after the registry let it in", $resumed - $t_back;
	cmp_ok($n_refused, '>', 0, "$name: refused once its lease had run out");
	ok(defined $resumed && $resumed ne '', "$name: issued again once the registry answered");
	is(q1($n, 'SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY n) AS back FROM drawn WHERE id IS NOT NULL) AS s WHERE back'),
		'0', "$name: IDs ascend across it");
}

my %seen;
my $dups = 0;
for my $n ($na, $nb)
{
	for my $id (split /\n/, q1($n, 'SELECT id FROM drawn WHERE id IS NOT NULL'))
	{
		$dups++ if $seen{$id}++;
	}
}
is($dups, 0, scalar(keys %seen) . ' IDs, none twice');

# --- 3. takeover after a crash of the holder ---------------------------------

my $sb = status($nb, qw(region worker generation owner));
q1($nb, 'SELECT idgen_next() FROM generate_series(1, 1000)');
$nb->kill9;
my ($b_until, $b_allow) = split /\|/, q1($registry, qq{
SELECT extract(epoch FROM lease_until), extract(epoch FROM drift_allowance)
FROM idgen.fleet WHERE holder = '$sb->{owner}'});
ok(defined $b_allow && $b_allow > 0, "registry: B's lease with its drift allowance ($b_allow s)");
my $nc = idgen_fleet_node('node_c', $registry,
	conf => $conf . "idgen.region_id = $sb->{region}\nidgen.worker_id = $sb->{worker}\n");
ok(wait_state($nc), 'node_c: active on B\'s block');
# the first ID may wait for the clock to come within idgen.max_drift of the floor
sub first_id
{
	my ($n) = @_;
	my $v;
	wait_for(sub {
		my ($rc, $out) = $n->psql('postgres', 'SELECT extract(epoch FROM idgen_timestamp(idgen_next()))');
		$v = $out if $rc == 0 && $out ne '';
		return defined $v;
	});
	return $v // 0;
}
my $first_c = first_id($nc);
note sprintf 'node_c: first ID %.3f s after B\'s lease end (allowance %.1f s)', $first_c - $b_until, $b_allow;
cmp_ok($first_c, '>', $b_until + $b_allow,
	'node_c: its first ID lies above B\'s lease end plus B\'s drift allowance');
$nc->stop;

# --- 4. a failover to a registry standby that lacks a grant --------------------

$registry->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new('registry_standby');
$standby->init_from_backup($registry, 'b1', has_streaming => 1);
$standby->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'\n");
$standby->start;
$registry->wait_for_catchup($standby);

# node A reaches whichever of the two is the primary
my $both = 'host=127.0.0.1,127.0.0.1 port=' . $registry->port . ',' . $standby->port
  . ' dbname=postgres target_session_attrs=read-write';
$na->append_conf('postgresql.conf', "idgen.registry = '$both'\n");
$na->restart;
ok(wait_state($na), 'node_a: active through the two-host registry string');
$registry->wait_for_catchup($standby);

# cut replication, then a grant the standby never sees
$standby->append_conf('postgresql.conf', "primary_conninfo = ''\n");
$standby->reload;
ok( $registry->poll_query_until('postgres', 'SELECT count(*) = 0 FROM pg_stat_replication'),
	'registry: the standby stopped replicating');
my $nd = idgen_fleet_node('node_d', $both, conf => $conf);
ok(wait_state($nd), 'node_d: active, leased on the primary only');
my $sd = status($nd, qw(region worker generation owner lease_until));
is($standby->safe_psql('postgres', "SELECT count(*) FROM idgen.worker_lease WHERE owner = '$sd->{owner}'"),
	'0', 'standby: lacks node_d\'s grant');
q1($nd, 'SELECT idgen_next() FROM generate_series(1, 1000)');
my $d_until = q1($nd, 'SELECT extract(epoch FROM lease_until) FROM idgen_status()');

$registry->stop('immediate');
$standby->promote;
my $t_promoted = time();

# node E wants node_d's block from the promoted standby
my $ne = idgen_fleet_node('node_e',
	'host=127.0.0.1 port=' . $standby->port . ' dbname=postgres',
	conf => $conf . "idgen.region_id = $sd->{region}\nidgen.worker_id = $sd->{worker}\n");
ok(wait_for(sub { $nd->safe_psql('postgres', 'SELECT state FROM idgen_status()') eq 'fenced' }),
	'node_d: stopped at once when its renewal found its row missing');
like(status($nd, 'reason')->{reason}, qr/fenced or released|missing/,
	'node_d: and says why');
ok( wait_for(sub { ($ne->psql('postgres', 'SELECT reason FROM idgen_status()'))[1] =~ /new incarnation/ }),
	'node_e: refused during the incarnation hold, and says why');
is(status($na, 'state')->{state}, 'active', 'node_a: renews on the promoted standby through the hold');
ok(wait_extension($ne) && wait_state($ne), 'node_e: active once the hold ended');
my $se = status($ne, qw(region worker owner));
is("$se->{region}/$se->{worker}", "$sd->{region}/$sd->{worker}", 'node_e: node_d\'s block');
my $e_acquired = $standby->safe_psql('postgres', qq{
SELECT extract(epoch FROM min(acquired_at)) FROM idgen.worker_lease WHERE owner = '$se->{owner}'});
note sprintf 'node_e: granted %.1f s after the promotion, %.1f s after node_d\'s lease end',
  $e_acquired - $t_promoted, $e_acquired - $d_until;
cmp_ok($e_acquired, '>', $d_until,
	'node_e: granted node_d\'s block only after node_d\'s lease had ended');
my $first_e = first_id($ne);
my $last_d = q1($nd, 'SELECT coalesce(extract(epoch FROM logical_clock), 0) FROM idgen_status()');
cmp_ok($first_e, '>', $last_d, 'node_e: its first ID lies above node_d\'s last');

$_->stop for ($na, $nd, $ne, $standby);
done_testing();
