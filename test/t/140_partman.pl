# 140_partman.pl - daily partitions of an ID-keyed table with pg_partman
#
# The recipe of docs/partitioning.md, run as written there: pg_partman 4.7
# (Debian's postgresql-15-partman) partitions by integer or time columns
# only and refuses an idgen column, so the key column is a bigint filled by
# idgen_next(); one day of IDs is 86,400,000 ms shifted past the layout's
# region, worker and sequence bits, and since the layout's time field starts
# at a UTC midnight, partman's multiples of that interval are UTC days.  The
# test asserts:
#
#   - create_parent() refuses an idgen control column, with its reason;
#   - the interval computed from the layout is the distance between the
#     idgen_min_at() of two consecutive midnights, and every child partman
#     makes starts at the idgen_min_at() of a UTC midnight;
#   - IDs generated now, and IDs of today and tomorrow made with
#     idgen_min_at()/idgen_max_at(), each land in the child of their own
#     UTC day, none in the default partition;
#   - run_maintenance() adds the days ahead of the newest ID (premake), and
#     a row of such a day lands in it;
#   - one day written as an ID range with idgen_min_at() prunes the other
#     children and the default partition.
# (A run that crosses a UTC midnight between its statements would see
# "today" move; nothing here depends on the time of day otherwise.)
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $require = ($ENV{IDGEN_REQUIRE_CLIENTS} // '') eq '1';
my $node = idgen_node('partman', conf => "timezone = 'UTC'\n");

if ($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_partman'") ne '1')
{
	my $sharedir = $node->config_data('--sharedir');
	$node->stop;
	my $why = "pg_partman is not installed in this server's sharedir ($sharedir/extension); install postgresql-15-partman";
	if ($require)
	{
		fail("IDGEN_REQUIRE_CLIENTS=1 but $why");
		done_testing();
		exit;
	}
	plan skip_all => $why;
}

ok(wait_extension($node), 'the background worker created extension idgen')
  or BAIL_OUT('extension idgen never appeared');
ok(wait_state($node, 'active'), 'the node is active')
  or BAIL_OUT('the node never became active');

$node->safe_psql('postgres', 'CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman');

# --- an idgen column is refused --------------------------------------------
$node->safe_psql('postgres',
	'CREATE TABLE typed_events (id idgen NOT NULL DEFAULT idgen_next()) PARTITION BY RANGE (id)');
my ($rc, $out, $err) = $node->psql('postgres',
	"SELECT partman.create_parent('public.typed_events', 'id', 'native', '1000')");
isnt($rc, 0, 'create_parent refuses an idgen control column');
like($err, qr/only supports partitioning of data types that are integer or date\/timestamp.*idgen/,
	'and says it wants an integer or time type');

# --- the recipe --------------------------------------------------------------
# one day of IDs under the layout in force
my $per_day = $node->safe_psql('postgres', q{
	SELECT 86400000::bigint << (region_bits + worker_bits + seq_bits)
	FROM idgen.epoch ORDER BY version DESC LIMIT 1});
is($per_day,
	$node->safe_psql('postgres',
		"SELECT idgen_min_at('2026-03-02 00:00:00+00')::bigint - idgen_min_at('2026-03-01 00:00:00+00')::bigint"),
	"one day is $per_day IDs: the distance between two midnights' first IDs");
is($node->safe_psql('postgres',
		"SELECT idgen_min_at('2026-03-01 00:00:00+00')::bigint % $per_day"),
	'0', 'a UTC midnight\'s first ID is a multiple of it');

$node->safe_psql('postgres', qq{
CREATE TABLE events (
    id bigint NOT NULL DEFAULT idgen_next(),
    payload text
) PARTITION BY RANGE (id);
CREATE INDEX ON events (id);
SELECT partman.create_parent(
    p_parent_table := 'public.events',
    p_control := 'id',
    p_type := 'native',
    p_interval := '$per_day',
    p_premake := 2,
    p_start_partition := idgen_min_at(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::bigint::text);
});

# the children: partman names them events_p<first id>
my $children_sql = q{
	SELECT string_agg(c.relname, ' ' ORDER BY c.relname)
	FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
	WHERE i.inhparent = 'events'::regclass AND c.relname <> 'events_default'};
my $day_child = sub {
	my ($offset) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT 'events_p' || idgen_min_at(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
		                                   + interval '$offset days')::bigint});
};
my @expected = map { $day_child->($_) } 0 .. 2;
is($node->safe_psql('postgres', $children_sql),
	join(' ', sort @expected), 'create_parent made today and the two days after it');

# rows of today and tomorrow: generated ones, and the first and last IDs of
# some milliseconds of both days
$node->safe_psql('postgres',
	"INSERT INTO events (payload) SELECT 'now ' || g FROM generate_series(1, 20) g");
$node->safe_psql('postgres', q{
INSERT INTO events (id, payload)
SELECT b.id::bigint, v.d
FROM (VALUES (interval '0', 'today, first ms'), (interval '12 hours', 'today, noon'),
             (interval '23:59:59.999', 'today, last ms'),
             (interval '1 day', 'tomorrow, first ms'), (interval '1 day 23:59:59.999', 'tomorrow, last ms'))
     AS v(o, d),
     LATERAL (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + v.o AS t) AS m,
     LATERAL (VALUES (idgen_min_at(m.t)), (idgen_max_at(m.t))) AS b(id)});
is($node->safe_psql('postgres', 'SELECT count(*) FROM events'), '30', 'thirty rows');
is($node->safe_psql('postgres', 'SELECT count(*) FROM events_default'), '0',
	'none of them in the default partition');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM events
	WHERE tableoid::regclass::text
	      <> 'events_p' || idgen_min_at(date_trunc('day', idgen_timestamp(id::idgen) AT TIME ZONE 'UTC')
	                                    AT TIME ZONE 'UTC')::bigint}),
	'0', 'every row is in the child of its UTC day');
is($node->safe_psql('postgres', q{
	SELECT string_agg(tableoid::regclass::text || ':' || n, ' ' ORDER BY tableoid::regclass::text)
	FROM (SELECT tableoid, count(*) AS n FROM events GROUP BY tableoid) s}),
	"$expected[0]:26 $expected[1]:4",
	'today has the 20 generated rows and 6 made ones, tomorrow 4');

# maintenance keeps two days ahead of the newest row (tomorrow's)
$node->safe_psql('postgres', "SELECT partman.run_maintenance('public.events')");
my @after = map { $day_child->($_) } 0 .. 3;
is($node->safe_psql('postgres', $children_sql),
	join(' ', sort @after), 'run_maintenance added the day after next');
$node->safe_psql('postgres', q{
	INSERT INTO events (id, payload)
	VALUES (idgen_min_at(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '3 days 6 hours')::bigint,
	        'in three days')});
is($node->safe_psql('postgres', "SELECT tableoid::regclass FROM events WHERE payload = 'in three days'"),
	$after[3], 'a row three days ahead lands in the new child');

# every child starts at a UTC midnight's first ID
is($node->safe_psql('postgres', qq{
	SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
	WHERE i.inhparent = 'events'::regclass AND c.relname <> 'events_default'
	  AND (substring(c.relname FROM 'events_p([0-9]+)')::bigint % $per_day <> 0
	       OR date_trunc('day', idgen_timestamp(substring(c.relname FROM 'events_p([0-9]+)')::idgen))
	          <> idgen_timestamp(substring(c.relname FROM 'events_p([0-9]+)')::idgen))}),
	'0', 'every child starts at the first ID of a UTC midnight');

# one day as an ID range on the bigint key, written with idgen_min_at():
# only tomorrow's child is scanned
my $tomorrow = q{
	id >= idgen_min_at(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day')::bigint
	AND id < idgen_min_at(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '2 days')::bigint};
my $plan = $node->safe_psql('postgres', "EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE $tomorrow");
like($plan, qr/Subplans Removed: 4/, 'one day of IDs prunes the other days and the default partition')
  or diag($plan);
like($plan, qr/\Q$expected[1]\E/, 'and keeps tomorrow\'s child') or diag($plan);
is($node->safe_psql('postgres', "SELECT count(*) FROM events WHERE $tomorrow"),
	'4', 'tomorrow, by its ID range, has its 4 rows');

$node->stop;
done_testing();
