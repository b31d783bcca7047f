# 101_fleet_outage.pl - a registry that goes away, a node that is killed
#
# A registry and nodes A and B, each its own cluster on loopback, with a
# short lease (idgen.lease_ttl = 4 s) and idgen.max_drift = 10 s.  A node
# issues on its own durable mark for as long as its lease is valid
# (docs/fleets.md, the lease protocol).
#
#   1. The registry stops mid-run.  A and B each draw IDs without a pause in
#      one session the whole time, recording every ID and every refusal.
#      They keep issuing after the registry went away, then refuse with
#      IR002 and say waiting_for_lease; once the registry is back (and its
#      incarnation hold, the TTL plus the drift allowance, has ended) they
#      lease anew, at a higher generation, and issue again: above every
#      earlier ID of theirs, and no ID twice across both nodes.
#   2. Node B is killed with SIGKILL (no release).  Node C, pinned to B's
#      block, gets it only after B's lease has run out by the registry's
#      clock, at a higher generation, and its first ID lies above the
#      high-water mark B left in the registry (and above B's lease end plus
#      its drift allowance: 104_fleet_ride_through.pl).
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $registry = idgen_registry('registry', conf => q{
shared_buffers = 16MB
});
ok( wait_extension($registry),
	'registry: the extension exists');

sub new_node
{
	my ($name, $extra) = @_;
	return idgen_fleet_node($name, $registry, conf => q{
shared_buffers = 16MB
idgen.lease_ttl = '4s'
idgen.max_drift = '10s'
idgen.lease_wait = '100ms'
} . ($extra // ''));
}

my $na = new_node('node_a');
my $nb = new_node('node_b');
for my $n ($na, $nb)
{
	ok(wait_state($n),
		$n->name . ': active');
}

# draw(): idgen_next() without a pause, each call in a subtransaction, until
# it has seen refusals and then 200 IDs again (or a minute has passed).
# Every ID and every refusal is recorded with its time and the state the
# node reported right then.
for my $n ($na, $nb)
{
	$n->safe_psql(
		'postgres', q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, id idgen, at timestamptz NOT NULL,
                    sqlstate text, state text);
CREATE FUNCTION draw() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    refused int := 0;
    after int := 0;
    stop_at timestamptz := clock_timestamp() + interval '1 minute';
BEGIN
    WHILE clock_timestamp() < stop_at AND after < 200 LOOP
        BEGIN
            INSERT INTO drawn (id, at) VALUES (idgen_next(), clock_timestamp());
            IF refused > 0 THEN after := after + 1; END IF;
        EXCEPTION WHEN SQLSTATE 'IR000' THEN
            INSERT INTO drawn (at, sqlstate, state)
            SELECT clock_timestamp(), SQLSTATE, s.state FROM idgen_status() AS s;
            refused := refused + 1;
            PERFORM pg_sleep(0.01);
        END;
        PERFORM pg_sleep(0.001);
    END LOOP;
    RETURN format('%s refused, %s after', refused, after);
END
$$;
});
}

my $gen_a = status($na, 'generation')->{generation};
my $gen_b = status($nb, 'generation')->{generation};

# --- 1. the registry goes away mid-run ---------------------------------------

my %bg;
for my $n ($na, $nb)
{
	$bg{ $n->name } = $n->background_psql('postgres', on_error_stop => 0);
	$bg{ $n->name }->query_until(qr/drawing/, "\\echo drawing\nSELECT draw();\n");
}
# let both draw a while under a working registry
for my $n ($na, $nb)
{
	ok( $n->poll_query_until(
			'postgres', q{SELECT count(*) >= 1 FROM pg_stat_activity WHERE query = 'SELECT draw();'}),
		$n->name . ': drawing');
}
sleep 1;

my $stopped_at = time();
$registry->stop('fast');
note 'registry stopped';

for my $n ($na, $nb)
{
	ok( $n->poll_query_until(
			'postgres', q{SELECT state = 'waiting_for_lease' FROM idgen_status()}),
		$n->name . ': waiting_for_lease once its lease ran out');
	my ($ret, $out, $err) = $n->psql('postgres', "\\set VERBOSITY verbose\nSELECT idgen_next();");
	like($err, qr/ERROR:  IR002: idgen has no valid worker lease/,
		$n->name . ': refuses with IR002');
	# first the renewal failed, then the attempts to lease anew fail
	like(status($n, 'reason')->{reason},
		qr/(lease could not be renewed in time|could not lease a worker id): idgen registry \(host=127\.0\.0\.1 port=\d+ dbname=postgres\)/,
		$n->name . ': the reason names the registry');
}

$registry->start;
note 'registry started';
for my $n ($na, $nb)
{
	ok(wait_state($n),
		$n->name . ': active again');
}
my ($sum_a) = $bg{node_a}->query_until(qr/done/, "\\echo done\n");
my ($sum_b) = $bg{node_b}->query_until(qr/done/, "\\echo done\n");
like($sum_a, qr/^[1-9]\d* refused, 200 after/m, "node_a: draw() saw refusals, then 200 IDs ($sum_a)");
like($sum_b, qr/^[1-9]\d* refused, 200 after/m, "node_b: draw() saw refusals, then 200 IDs ($sum_b)");
$bg{$_}->quit for keys %bg;

cmp_ok(status($na, 'generation')->{generation}, '>', $gen_a, 'node_a: a new generation');
cmp_ok(status($nb, 'generation')->{generation}, '>', $gen_b, 'node_b: a new generation');

for my $n ($na, $nb)
{
	my $name = $n->name;
	is( $n->safe_psql(
			'postgres',
			"SELECT count(*) > 0 FROM drawn WHERE id IS NOT NULL AND at > to_timestamp($stopped_at)"
			  . " AND n < (SELECT min(n) FROM drawn WHERE sqlstate IS NOT NULL)"),
		't',
		"$name: issued IDs after the registry stopped, before the first refusal");
	is( $n->safe_psql(
			'postgres',
			"SELECT count(*) FROM drawn WHERE sqlstate IS NOT NULL AND at < to_timestamp($stopped_at)"),
		'0',
		"$name: no refusal while the registry was up");
	is( $n->safe_psql(
			'postgres',
			q{SELECT count(*) FROM drawn WHERE sqlstate IS NOT NULL AND state NOT IN ('active', 'waiting_for_lease')}),
		'0',
		"$name: refusals only in states active (lease just ended) and waiting_for_lease");
	is( $n->safe_psql(
			'postgres',
			q{SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY n) AS back FROM drawn WHERE id IS NOT NULL) AS s WHERE back}),
		'0',
		"$name: IDs ascend across the outage");
}

my %seen;
my $dups = 0;
for my $n ($na, $nb)
{
	for my $id (split /\n/, $n->safe_psql('postgres', 'SELECT id FROM drawn WHERE id IS NOT NULL'))
	{
		$dups++ if $seen{$id}++;
	}
}
cmp_ok(scalar(keys %seen), '>', 400, scalar(keys %seen) . ' IDs drawn in all');
is($dups, 0, 'no ID was issued twice by the two nodes');

# --- 2. node B killed with SIGKILL ------------------------------------------

my $sb = status($nb, qw(region worker generation owner));
$nb->safe_psql('postgres', 'SELECT idgen_next() FROM generate_series(1, 1000)');
$nb->kill9;
note 'node_b killed';
# its background worker leaves at once (postmaster death): then its rows stay
ok( $registry->poll_query_until(
		'postgres', q{
SELECT count(*) FROM pg_stat_activity
WHERE application_name = 'idgen lease worker' AND client_port IS NOT NULL}, '1'),
	'registry: only node A\'s lease worker is still connected');
# B's rows as it left them: nobody writes them until they expire
my ($b_until, $b_hw) = split /\|/,
  $registry->safe_psql(
	'postgres', qq{
SELECT lease_until, high_water FROM idgen.fleet WHERE holder = '$sb->{owner}'});
ok(defined $b_hw && $b_hw ne '', 'registry: B\'s block with its high-water mark');

my $nc = new_node('node_c', "idgen.region_id = $sb->{region}\nidgen.worker_id = $sb->{worker}\n");
ok(wait_state($nc),
	'node_c: active on B\'s block');
my $sc = status($nc, qw(region worker generation owner));
is("$sc->{region}/$sc->{worker}", "$sb->{region}/$sb->{worker}", 'node_c: B\'s block');
cmp_ok($sc->{generation}, '>', $sb->{generation}, 'node_c: at a higher generation');
is( $registry->safe_psql(
		'postgres', qq{
SELECT bool_and(acquired_at >= '$b_until'::timestamptz) FROM idgen.worker_lease
WHERE owner = '$sc->{owner}'}),
	't',
	'registry: C took the block only once B\'s lease had run out');
is( $nc->safe_psql('postgres', "SELECT idgen_timestamp(idgen_next()) > '$b_hw'::timestamptz"),
	't', 'node_c: its first ID lies above B\'s high-water mark');
is( $registry->safe_psql(
		'postgres', qq{SELECT count(*) FROM idgen.fleet WHERE holder = '$sb->{owner}'}),
	'0', 'idgen.fleet: B is gone');

$nc->stop;
$na->stop;
$registry->stop;

done_testing();
