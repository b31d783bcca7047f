# 122_gateway_workers_auto.pl - a gateway's workers follow its demand
# (--workers auto, the default; issue 22, item 5)
#
# The registry runs a layout of 2 sequence bits (4 IDs per millisecond and
# worker), so one client's demand is several workers' worth; its 10 region
# bits keep the 22 bits below the time field the default layout has (a
# layout with fewer could not sort above it) and leave 1,024 workers per
# region for the fillers:
#   1. All but three of the region's workers are held by fillers.  The
#      gateway starts with one worker, grows to two under load, and its
#      growth to four fails (one more is free): it keeps issuing with two,
#      says why in its log, and gives back the one it got (a filler can
#      lease exactly one worker afterwards).
#   2. The fillers go: the gateway grows to eight, its cap, and no further.
#   3. The load stops: after --workers-idle (3 s) per step it gives workers
#      back down to one, each released with a final mark at or above every
#      ID it issued under that worker, and goes on above its earlier IDs.
#   4. Another gateway leases eight workers, the released ones among them:
#      its IDs under each lie above the first gateway's.
# Throughout: no ID twice, and the gateway's IDs ascend.
use strict;
use warnings;

use lib 'test/perl';
use IdgenGwRun;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwauto');
# a short lease_ttl: the layout can be scheduled a few seconds ahead
my $registry = idgen_registry('registry',
	conf => "max_connections = 40\nidgen.lease_ttl = '2s'\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);
my $tokens = IdgenGwRun::tokens_file($tmp);

sub q1 { return $registry->safe_psql('postgres', $_[0]); }

# --- a layout of few sequence bits ------------------------------------------------

is(q1("SELECT idgen_schedule_layout(greatest(clock_timestamp() + interval '6 seconds', "
	  . "max(lease_until) FILTER (WHERE owner IS NOT NULL) + interval '3 seconds', "
	  . "max(high_water) + interval '3 seconds'), 10, 10, 2) FROM idgen.worker_lease"), '2',
	'layout epoch 2 (10 region, 10 worker, 2 sequence bits) scheduled');
ok($registry->poll_query_until('postgres',
		"SELECT idgen.clock() > start_time + interval '500 ms' FROM idgen.epoch WHERE version = 2"),
	'and in force');

# lease workers for fillers until none is left; their count
sub fill
{
	my ($prefix) = @_;
	return q1(qq{
DO \$\$
BEGIN
    FOR i IN 1..2000 LOOP
        BEGIN
            PERFORM idgen_lease_worker('$prefix/' || i, interval '10 minutes');
        EXCEPTION WHEN OTHERS THEN
            EXIT;
        END;
    END LOOP;
END
\$\$;
SELECT count(*) FROM idgen.worker_lease WHERE owner LIKE '$prefix/%'});
}

sub release_owners
{
	my ($like) = @_;
	return q1("SELECT count(*) FROM (SELECT idgen.release_outside_lease(region, worker, generation, owner, idgen.clock()) "
		  . "FROM idgen.worker_lease WHERE owner LIKE '$like') AS released");
}

my $filled = fill('filler');
ok($filled > 100, "fillers hold every free worker ($filled)");
is(release_owners('filler/1'), '1', 'one filler gives its worker back');
is(release_owners('filler/2'), '1', 'a second');
is(release_owners('filler/3'), '1', 'a third: three workers are free');

# --- 1. growth past the free workers fails, and leaks nothing ---------------------

my $g1 = IdgenGwRun::start(name => 'g1', conn => $conn, dir => $tmp, tokens => $tokens,
	ttl => '10s', args => [ '--workers-idle', '3s' ]);
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g1) }), 'g1 (no --workers): healthy');
is(IdgenGwRun::metric($g1, 'idgen_gateway_workers'), '1', 'g1 starts with one worker');

my @drawn;			# every ID g1 issued, in the order drawn
my $backwards = 0;
my $most = 0;		# the largest worker count seen

# draw 500 IDs a request, at most $rate requests a second, for $secs or until $until->()
sub load
{
	my ($gw, $secs, $until) = @_;
	my $end = time() + $secs;
	my $n = 0;
	while (time() < $end)
	{
		my $t0 = time();
		my @batch = IdgenGwRun::ids_fast($gw, 500);
		for my $id (@batch)
		{
			$backwards++ if @drawn && $id <= $drawn[-1];
			push @drawn, $id;
		}
		if (++$n % 5 == 0)
		{
			my $w = IdgenGwRun::metric($gw, 'idgen_gateway_workers');
			$most = $w if $w > $most;
			last if $until && $until->($w);
		}
		# 50 requests a second: 25,000 IDs/s, above what 4 workers issue (16,000)
		my $left = 0.02 - (time() - $t0);
		usleep(int($left * 1e6)) if $left > 0;
	}
	return;
}

load($g1, 6);
is($most, 2, 'g1 grew to two workers under load, and no further with one worker free');
like(IdgenGwRun::log_text($g1), qr/cannot lease another worker for the demand/,
	'its log says why it did not grow');
is(q1("SELECT count(*) FROM idgen.worker_lease WHERE owner LIKE 'gateway:g1:%' AND lease_until > idgen.clock()"),
	'2', 'it holds two');
is(fill('late'), '1', 'the worker it got for the failed growth was given back: one is free');
is(release_owners('late/%'), '1', 'and freed again');

# --- 2. up to its cap -------------------------------------------------------------

ok(release_owners('filler/%') > 100, 'the fillers give their workers back');
load($g1, 60, sub { $_[0] >= 8 });
load($g1, 2);
is($most, 8, 'g1 grew to eight workers, its cap, and no further');
is(q1("SELECT count(*) FROM idgen.worker_lease WHERE owner LIKE 'gateway:g1:%' AND lease_until > idgen.clock()"),
	'8', 'it holds eight');
like(IdgenGwRun::log_text($g1), qr/leased \d more workers? of region \d+ for the demand/,
	'its log names each growth');

# every ID of g1 with its worker and millisecond, on the registry
sub load_ids_table
{
	my ($table, @ids) = @_;
	q1("CREATE TABLE IF NOT EXISTS $table (id bigint)");
	for (my $i = 0; $i < @ids; $i += 20000)
	{
		my $j = $i + 19999 < $#ids ? $i + 19999 : $#ids;
		q1("INSERT INTO $table SELECT unnest('{" . join(',', @ids[ $i .. $j ]) . "}'::bigint[])");
	}
	return q1("SELECT count(*) FROM $table");
}

my $drawn_before = scalar @drawn;
is(load_ids_table('g1_ids', @drawn), $drawn_before, "g1's $drawn_before IDs recorded");
is(q1(q{SELECT count(DISTINCT (idgen_decode(id::idgen)).worker) FROM g1_ids}), '8',
	'they lie under eight workers');

# --- 3. idle: workers given back, each with a final mark above its IDs ------------

my $t_idle = time();
ok(IdgenTest::wait_for(sub { IdgenGwRun::metric($g1, 'idgen_gateway_workers') eq '1' }),
	'idle, g1 gave workers back down to one');
my $idle_secs = time() - $t_idle;
cmp_ok($idle_secs, '>=', 6, sprintf('not before three quiet spells of 3 s (%.1f s)', $idle_secs));
my $log = IdgenGwRun::log_text($g1);
is(scalar(() = $log =~ /gave back \d workers? of region/g), 3, 'in three steps: 8, 4, 2, 1');
is(q1("SELECT count(*) FROM idgen.worker_lease WHERE owner LIKE 'gateway:g1:%' AND lease_until > idgen.clock()"),
	'1', 'it holds one');
is(q1(q{
SELECT count(*) FROM (
    SELECT (idgen_decode(id::idgen)).worker AS worker, max((idgen_decode(id::idgen)).ts) AS last_ts
    FROM g1_ids GROUP BY 1) AS used
JOIN idgen.worker_lease AS wl ON wl.worker = used.worker
WHERE wl.owner IS NULL AND wl.high_water >= used.last_ts}),
	'7', 'the seven given back were released, each with a final mark at or above its last ID');

my @after = IdgenGwRun::ids($g1, 2000);
is(scalar @after, 2000, 'g1 issues with one worker');
cmp_ok($after[0], '>', $drawn[-1], 'above every ID it issued before');
push @drawn, @after;

# --- 4. another gateway under the released workers --------------------------------

my $g2 = IdgenGwRun::start(name => 'g2', conn => $conn, dir => $tmp, tokens => $tokens,
	ttl => '10s', args => [ '--workers', '8' ]);
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g2) }), 'g2 (--workers 8): healthy');
my @g2_ids;
for (1 .. 10) { push @g2_ids, IdgenGwRun::ids_fast($g2, 500); }
is(scalar @g2_ids, 5000, 'g2 issues');
is(load_ids_table('g2_ids', @g2_ids), 5000, "g2's IDs recorded");
my $shared = q1(q{
SELECT count(*) FROM (SELECT (idgen_decode(id::idgen)).worker AS w FROM g1_ids
                      INTERSECT SELECT (idgen_decode(id::idgen)).worker FROM g2_ids) AS x});
cmp_ok($shared, '>=', 1, "g2 holds workers g1 gave back ($shared)");
is(q1(q{
WITH g1_last AS (
    SELECT d.worker, max(d.ts) AS ts
    FROM g1_ids AS a, idgen_decode(a.id::idgen) AS d GROUP BY d.worker)
SELECT count(*) FROM g2_ids AS b, idgen_decode(b.id::idgen) AS d
JOIN g1_last AS l ON l.worker = d.worker
WHERE d.ts <= l.ts}),
	'0', "under each of them g2's IDs lie above g1's");

# --- throughout ---------------------------------------------------------------------

my %seen;
$seen{$_}++ for @drawn, @g2_ids;
is(scalar(grep { $seen{$_} > 1 } keys %seen), 0, sprintf('no ID twice (%d drawn)', scalar keys %seen));
is($backwards, 0, "g1's IDs ascended throughout");

IdgenGwRun::stop($g2);
IdgenGwRun::stop($g1);
done_testing();
