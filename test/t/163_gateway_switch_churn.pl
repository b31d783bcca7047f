# 163_gateway_switch_churn.pl - no lease churn at a layout switch
# (issue 19 item 7)
#
# Four 8-worker gateways and a node on one registry, issuing across a
# layout switch.  An outside lease ends at the next switch at the latest,
# and the registry renews no lease in its last idgen.max_skew: the old
# gateway counted that refusal as a fence, released its workers and leased
# again (one 8-worker gateway: 48 leases, 3 false fence alarms).  Now only
# a real fence counts as one, and a lease ending at a switch is renewed
# into the next epoch (the renewal says the newest epoch the gateway has
# read, known_epoch): no lease is taken at the switch, no fence counted,
# and no ID is issued twice.
#
# idgen_renew_worker(region, worker, generation, owner, known_epoch) comes
# with the registry of another change of issue 19; until it is there, this
# test puts a stand-in of that signature into its registry (below), so
# that the gateway's side can be tested.
use strict;
use warnings;

use lib 'test/perl';
use IdgenGwRun;
use IdgenTest;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwchurn');
my $registry = idgen_registry('registry',
	conf => "max_connections = 60\nidgen.lease_ttl = '6s'\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);
my $tokens = IdgenGwRun::tokens_file($tmp);

sub q1 { return $registry->safe_psql('postgres', $_[0]); }

# the stand-in: renew by holder; a holder that has read every epoch gets its
# full TTL, past a switch it knows of
if (q1("SELECT count(*) FROM pg_proc WHERE proname = 'idgen_renew_worker' AND pronargs = 5") eq '0')
{
	q1(q{
CREATE FUNCTION idgen_renew_worker(region integer, worker integer, generation bigint,
                                   owner text, known_epoch integer DEFAULT NULL)
    RETURNS timestamptz LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    now timestamptz := idgen.clock();
    until timestamptz;
BEGIN
    UPDATE idgen.worker_lease AS x
    SET lease_until = CASE WHEN known_epoch >= (SELECT max(e.version) FROM idgen.epoch AS e)
                           THEN now + x.ttl ELSE idgen.outside_lease_end(now, x.ttl) END,
        high_water = greatest(x.high_water,
                              CASE WHEN known_epoch >= (SELECT max(e.version) FROM idgen.epoch AS e)
                                   THEN now + x.ttl ELSE idgen.outside_lease_end(now, x.ttl) END),
        renewed_at = now
    WHERE x.region = idgen_renew_worker.region AND x.worker = idgen_renew_worker.worker
      AND x.generation = idgen_renew_worker.generation AND x.owner = idgen_renew_worker.owner
      AND x.node_sysid IS NULL
      AND x.lease_until > now + idgen.registry_clock_allowance()
    RETURNING x.lease_until INTO until;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker % of region % is not leased at generation % by %',
                        worker, region, generation, owner
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    RETURN until;
END
$$;
COMMENT ON FUNCTION idgen_renew_worker(integer, integer, bigint, text, integer) IS 'test stand-in';
});
}

my @gw;
for my $i (1 .. 4)
{
	push @gw, IdgenGwRun::start(name => "g$i", conn => $conn, dir => $tmp, tokens => $tokens,
		ttl => '3s', args => [ '--workers', '8' ]);
}
for my $g (@gw)
{
	ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g) }), "$g->{name} (8 workers): healthy");
}
my $node = idgen_fleet_node('node', $registry, conf => "idgen.lease_ttl = '6s'\n");
ok(wait_state($node), 'node: active');
$node->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS idgen');

my $leases0 = q1("SELECT count(*) FROM idgen.audit_log WHERE action = 'worker_leased'");
is($leases0, '32', 'four gateways hold 32 workers');
my $switch_at = q1("SELECT greatest(clock_timestamp() + interval '20 seconds', "
	  . "max(lease_until) FILTER (WHERE owner IS NOT NULL) + interval '3 seconds', "
	  . "max(high_water) + interval '3 seconds') FROM idgen.worker_lease");
is(q1("SELECT idgen_schedule_layout('$switch_at', 2, 8, 12)"), '2', "a layout scheduled as epoch 2 at $switch_at");
my $seconds = q1("SELECT ceil(extract(epoch FROM '$switch_at'::timestamptz - clock_timestamp())) + 5");

# every issuer draws until well past the switch
my %kid;
for my $g (@gw)
{
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		IdgenGwRun::reset_http();
		my $end = time + $seconds;
		my (@got, $refused);
		while (time < $end)
		{
			my @b = IdgenGwRun::ids($g, 100);
			$refused++ unless @b;
			push @got, @b;
			usleep(5_000);
		}
		open(my $f, '>', "$tmp/ids_$g->{name}") or POSIX::_exit(2);
		print $f join("\n", @got), "\n";
		close $f;
		POSIX::_exit(0);
	}
	$kid{$pid} = $g->{name};
}
my $node_ids = $node->safe_psql('postgres', qq{
CREATE TABLE nid (id idgen);
DO \$\$
DECLARE stop timestamptz := clock_timestamp() + $seconds * interval '1 s';
BEGIN
    WHILE clock_timestamp() < stop LOOP
        INSERT INTO nid SELECT idgen_next_batch(200);
        PERFORM pg_sleep(0.02);
    END LOOP;
END
\$\$;
SELECT id FROM nid});
{
	open(my $f, '>', "$tmp/ids_node") or die;
	print $f "$node_ids\n";
	close $f;
}
for my $pid (keys %kid) { waitpid($pid, 0); }

is(q1("SELECT count(*) FROM idgen.epoch WHERE version = 2 AND start_time < clock_timestamp()"),
	'1', 'the switch has passed');
is(q1("SELECT count(*) FROM idgen.audit_log WHERE action = 'worker_leased'") - $leases0, 0,
	'no worker leased at the switch: every lease renewed into the next epoch');
for my $g (@gw)
{
	is(IdgenGwRun::metric($g, 'idgen_gateway_fenced_total'), '0', "$g->{name}: no fence counted");
}
system("cat $tmp/ids_* | grep -v '^\$' > $tmp/all_ids") == 0 or die;
q1("CREATE TABLE all_ids (id bigint); COPY all_ids FROM '$tmp/all_ids'");
my ($total, $distinct) = split /\|/, q1('SELECT count(*), count(DISTINCT id) FROM all_ids');
ok($total > 10000, "IDs drawn across the switch: $total");
is($distinct, $total, 'no duplicate');
is(q1("SELECT count(DISTINCT (idgen_decode(id::idgen)).epoch) FROM all_ids"), '2',
	'IDs of both epochs');
$_->{pid} && IdgenGwRun::stop($_) for @gw;
done_testing();
