# 141_time_gap.pl - time comparisons agree everywhere across a layout switch
# that leaves a gap of IDs
#
# Epoch 2 has a 20-bit shift, epoch 3 the full 22 bits: epoch 3's first ID
# is rounded up to its wider millisecond, so between the last ID epoch 2
# can issue before the switch and epoch 3's first lie IDs no node issues,
# which epoch 2's layout reads as later than the switch.  The comparisons
# of IDs with timestamps read them as the millisecond before the switch
# (idgen_epochs_compare_ms), so that the time of an ID never goes down as
# IDs go up and every comparison is one range of IDs.  Checked, for IDs
# around the switch (in the gap, at its edges, at epoch 3's boundary) and
# timestamps every half millisecond around it, each of < <= > >=: the rows
# a sequential scan, an index scan and a table partitioned at the boundary
# (pruned by the rewritten comparisons) return are those for which the
# operator itself (a generated column) is true.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('time_gap', conf => "idgen.lease_ttl = '2s'\ntimezone = 'UTC'\n");
ok(wait_state($node, 'active'), 'the node is active')
  or BAIL_OUT('the node never became active');

is($node->safe_psql('postgres',
		"SELECT idgen_schedule_layout(now() + interval '1 day', 3, 7, 10)"),
	'2', 'a layout with a 20-bit shift is epoch 2');
# the switch to epoch 3 at a millisecond that epoch 2's 20-bit ones do not
# divide into 22-bit ones, so that the gap is there
my $switch = $node->safe_psql('postgres', q{
	SELECT s + ((5 - (extract(epoch FROM s - e.epoch_start) * 1000)::bigint % 4) % 4) * interval '1 millisecond'
	FROM idgen.epoch AS e, LATERAL (SELECT date_trunc('second', now() + interval '2 days') AS s) AS x
	WHERE e.version = 2});
is($node->safe_psql('postgres', "SELECT idgen_schedule_layout('$switch', 3, 7, 12)"),
	'3', "the full 22 bits from $switch on are epoch 3");

# the node learns new layouts when it renews its lease
$node->safe_psql('postgres', 'SELECT idgen.wake_worker()');
ok($node->poll_query_until('postgres', q{
		SELECT (idgen_decode(boundary)).epoch = 3 FROM idgen.epoch_boundaries WHERE version = 3}),
	'the node knows epoch 3');

my $gap = $node->safe_psql('postgres', qq{
	SELECT b.boundary::bigint - idgen_max_at('$switch'::timestamptz - interval '1 millisecond')::bigint - 1
	FROM idgen.epoch_boundaries AS b WHERE b.version = 3});
cmp_ok($gap, '>', 0, "there are $gap IDs in the gap");

$node->safe_psql('postgres', qq{
CREATE TABLE gap64 (id idgen PRIMARY KEY);
INSERT INTO gap64
SELECT DISTINCT v::idgen
FROM idgen.epoch_boundaries AS b,
     LATERAL (SELECT idgen_max_at('$switch'::timestamptz - interval '1 millisecond')::bigint AS m) AS x,
     LATERAL (VALUES (x.m - 1), (x.m), (x.m + 1), ((x.m + b.boundary::bigint) / 2), (b.boundary::bigint - 1),
                     (b.boundary::bigint), (b.boundary::bigint + 1),
                     (idgen_min_at('$switch'::timestamptz - interval '1 millisecond')::bigint),
                     (idgen_min_at('$switch'::timestamptz + interval '1 millisecond')::bigint),
                     (idgen_max_at('$switch'::timestamptz + interval '2 milliseconds')::bigint)) AS w(v)
WHERE b.version = 3;
CREATE TABLE gap64_part (id idgen NOT NULL) PARTITION BY RANGE (id);
});
$node->safe_psql('postgres', q{
SELECT format('CREATE TABLE gap64_part_%s PARTITION OF gap64_part FOR VALUES FROM (%s) TO (%s)', n, lo, hi)
FROM idgen.epoch_boundaries AS b,
     LATERAL (VALUES ('below', 'MINVALUE', b.boundary::text), ('above', b.boundary::text, 'MAXVALUE')) AS p(n, lo, hi)
WHERE b.version = 3 \gexec
INSERT INTO gap64_part SELECT id FROM gap64;
});

is($node->safe_psql('postgres', qq{
	SELECT count(*) || ' ' || bool_and(idgen_timestamp(g.id) >= '$switch'::timestamptz)
	       || ' ' || bool_and(g.id < '$switch'::timestamptz)
	FROM gap64 AS g, idgen.epoch_boundaries AS b
	WHERE b.version = 3
	  AND g.id::bigint > idgen_max_at('$switch'::timestamptz - interval '1 millisecond')::bigint
	  AND g.id < b.boundary}),
	'3 true true', 'the gap IDs decode to times after the switch but compare before it');

$node->safe_psql('postgres', qq{
CREATE TABLE gap64_truth (id idgen, ts timestamptz,
    lt boolean GENERATED ALWAYS AS (id < ts) STORED, le boolean GENERATED ALWAYS AS (id <= ts) STORED,
    gt boolean GENERATED ALWAYS AS (id > ts) STORED, ge boolean GENERATED ALWAYS AS (id >= ts) STORED);
INSERT INTO gap64_truth (id, ts)
SELECT g.id, '$switch'::timestamptz + d * interval '500 microseconds'
FROM gap64 AS g, generate_series(-4, 8) AS d;
CREATE FUNCTION gap64_disagreements(way text) RETURNS text LANGUAGE plpgsql AS
\$\$
DECLARE
    t timestamptz;
    op text;
    truth bigint;
    n bigint;
    bad text := '';
BEGIN
    PERFORM set_config('enable_seqscan', CASE way WHEN 'index' THEN 'off' ELSE 'on' END, true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    PERFORM set_config('enable_indexscan', CASE way WHEN 'seqscan' THEN 'off' ELSE 'on' END, true);
    PERFORM set_config('enable_indexonlyscan', CASE way WHEN 'seqscan' THEN 'off' ELSE 'on' END, true);
    FOR t IN SELECT DISTINCT ts FROM gap64_truth ORDER BY ts LOOP
        FOREACH op IN ARRAY ARRAY['<', '<=', '>', '>='] LOOP
            EXECUTE format('SELECT count(*) FROM gap64_truth WHERE ts = \$1 AND %s',
                           CASE op WHEN '<' THEN 'lt' WHEN '<=' THEN 'le' WHEN '>' THEN 'gt' ELSE 'ge' END)
                INTO truth USING t;
            EXECUTE format('SELECT count(*) FROM %s WHERE id %s \$1',
                           CASE way WHEN 'partitions' THEN 'gap64_part' ELSE 'gap64' END, op)
                INTO n USING t;
            IF n <> truth THEN
                bad := bad || format(' [id %s %s: %s rows, the operator %s]', op, t, n, truth);
            END IF;
        END LOOP;
    END LOOP;
    RETURN coalesce(nullif(bad, ''), 'none');
END
\$\$;
});
for my $way (qw(seqscan index partitions))
{
	is($node->safe_psql('postgres', "SELECT gap64_disagreements('$way')"),
		'none', "$way: every comparison returns the operator's rows");
}
# the plans are what they claim to be
like($node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) SELECT count(*) FROM gap64 WHERE id <= '$switch'::timestamptz"),
	qr/Index Only Scan.*\n.*Index Cond: \(id <= idgen\.ids_through/, 'id <= ts is an index scan up to idgen.ids_through()');
like($node->safe_psql('postgres',
		"EXPLAIN (COSTS OFF) SELECT count(*) FROM gap64_part WHERE id >= '$switch'::timestamptz + interval '1 millisecond'"),
	qr/Subplans Removed: 1/, 'the partitioned table is pruned');

$node->stop;
done_testing();
