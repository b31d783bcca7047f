# 080_dump_restore.pl - a whole node's idgen data moves to a new node by
# pg_dump and pg_restore
#
# One node holds a user database "app" (tables keyed by idgen and idgen128,
# keyed batches, masked tokens stored next to their IDs) and, in the
# registry database "postgres" (where the background worker created the
# extension), leased numeric ranges, an outside generator's worker lease and
# a second layout epoch.  The tables are filled under the built-in layout
# (epoch 1), then idgen_schedule_layout() switches to 2/8/11
# (region/worker/sequence bits) six seconds ahead, and once the node issues
# under epoch 2 more rows are added: every table holds IDs of both epochs.
# idgen.lease_ttl is 2 s on both nodes: the old node may then schedule a
# layout that soon, and the new node's worker renews, and so reads the
# restored epochs, within a second.  The layout takes a bit from the
# sequence, so its time field starts earlier and an epoch-2 ID read as
# epoch 1 gives another time; 2/8/12 would only move a bit from region to
# worker, and on this region-0 node its IDs would be the very values of
# epoch 1, told apart by the epoch number alone.
# Both databases are dumped in custom format and restored on a second, fresh
# node that preloads idgen too.
#
# How each database is restored, and why:
#
#   - app: CREATE DATABASE app, then a plain pg_restore.  The restore's
#     CREATE EXTENSION makes epoch row 1, and the dump holds only epoch rows
#     above 1 (pg_extension_config_dump filter), mask keys and the tables.
#
#   - postgres: the new node's background worker has already created the
#     extension there and leased its own block of workers in
#     idgen.worker_lease.  Restoring the old worker_lease rows over that
#     would hand the new node's workers to the old node's owner:
#     "pg_restore --clean --if-exists" drops and recreates the extension
#     under the running worker, brings back the old node's lease rows, and
#     the new node fences itself at its next renewal ("the lease of workers
#     0-15 of region 0 (generation 1) was fenced or released by an
#     operator") - fail closed, but not a clean restore.  A plain
#     pg_restore merges the old rows into the new node's instead, carrying
#     live outside leases (test/t/081_registry_dump.pl); here the old
#     node's leases are left behind on purpose: the new node keeps its own,
#     and an outside generator leases its worker again from the new
#     registry.  So the registry database is restored data only,
#     from the dump's table of contents minus idgen.worker_lease
#     (pg_restore -l, drop that line, pg_restore --data-only -L list):
#     range_lease, range_floor, the range_generation sequence, audit_log, collision,
#     node_control, mask_key and the epoch rows above 1 (here epoch 2).
#     The new node had issued nothing before the restore; its background
#     worker reads the restored epochs with its next lease renewal.
#
# The test asserts on the new node:
#
#   - both restores run without errors and print nothing on stderr;
#   - every table's row count and checksum of its IDs are the same;
#   - every stored token, 64- and 128-bit, unmasks to its stored ID (the
#     mask keys came along: same ids and fingerprints);
#   - the idgen.range_lease rows are the same, a request key leased before
#     the dump returns the same range again, a new idgen_lease_range()
#     waits for an operator's confirmation of the floor (IA006), and then
#     continues right after the last restored range with a higher
#     generation;
#   - the new node is active under its own worker lease, the old node's
#     and the outside generator's leases did not come along, and the outside
#     generator can lease a worker again, once the hold a restore starts
#     (idgen.restore_marker, docs/fleets.md R7) is over;
#   - the registry's idgen.epoch rows and idgen.epoch_boundaries are the
#     same as on the old node, and the app database's own idgen.epoch keeps
#     only row 1 (a node decodes with its registry's epochs);
#   - once the new node's background worker has read the epochs, every
#     restored ID, 64- and 128-bit, of either epoch, decodes to the same
#     (ts, region, worker, seq, epoch) as on the old node;
#   - new idgen_next() and idgen_next128() IDs are epoch-2 IDs above every
#     restored ID and at or above epoch 2's boundary;
#   - a batch asked for again with a pre-dump request key is the same batch
#     (idgen.batch_request is dumped while its keys live).
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for wait_state);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $conf = q{
idgen.lease_ttl = '2s'
};

my $old = idgen_node('dump_src', conf => $conf);

# the background worker creates the extension in the registry database
$old->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_extension WHERE extname = 'idgen'})
  or die 'the background worker did not create the extension';

$old->safe_psql('postgres', 'CREATE DATABASE app');
$old->safe_psql(
	'app', q{
CREATE EXTENSION idgen;
CREATE TABLE orders (id idgen PRIMARY KEY DEFAULT idgen_next(), n integer NOT NULL);
CREATE TABLE events (id idgen128 PRIMARY KEY DEFAULT idgen_next128(), n integer NOT NULL);
CREATE TABLE batch (id idgen PRIMARY KEY);
CREATE TABLE tok (id idgen NOT NULL, token text NOT NULL);
CREATE TABLE tok128 (id idgen128 NOT NULL, token text NOT NULL);
INSERT INTO orders (n) SELECT g FROM generate_series(1, 5000) AS g;
INSERT INTO events (n) SELECT g FROM generate_series(1, 2000) AS g;
INSERT INTO batch SELECT idgen_next_batch(1000, 'import-42');
INSERT INTO tok SELECT id, idgen_mask(id) FROM orders WHERE n % 10 = 0;
INSERT INTO tok128 SELECT id, idgen_mask(id) FROM events WHERE n % 10 = 0;
});
$old->safe_psql('app', 'SELECT idgen_rotate_mask_key()');
$old->safe_psql(
	'app', q{
INSERT INTO tok SELECT id, idgen_mask(id) FROM orders WHERE n % 10 = 5;
INSERT INTO tok128 SELECT id, idgen_mask(id) FROM events WHERE n % 10 = 5;
});

# a layout switch a few seconds ahead, scheduled before the outside
# generator leases a worker for an hour: a layout may only start a
# lease_ttl after the latest current lease ends
$old->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()})
  or die 'the old node did not become active';
is( $old->safe_psql(
		'postgres',
		q{SELECT idgen_schedule_layout(clock_timestamp() + interval '6 seconds', 2, 8, 11)}),
	'2',
	'a layout switch is scheduled as epoch 2');
$old->poll_query_until('app', q{SELECT (idgen_decode(idgen_next())).epoch = 2})
  or die 'the old node did not switch to epoch 2';
$old->safe_psql(
	'app', q{
INSERT INTO orders (n) SELECT g FROM generate_series(5001, 6000) AS g;
INSERT INTO events (n) SELECT g FROM generate_series(2001, 2400) AS g;
INSERT INTO batch SELECT idgen_next_batch(500, 'import-43');
INSERT INTO tok SELECT id, idgen_mask(id) FROM orders WHERE n > 5000 AND n % 10 = 0;
INSERT INTO tok128 SELECT id, idgen_mask(id) FROM events WHERE n > 2000 AND n % 10 = 0;
});
my %per_epoch = (orders => '1:5000,2:1000', events => '1:2000,2:400', batch => '1:1000,2:500');
for my $t (sort keys %per_epoch)
{
	is( $old->safe_psql(
			'app',
			"SELECT string_agg(epoch || ':' || n, ',' ORDER BY epoch) FROM "
			  . "(SELECT (idgen_decode(id)).epoch, count(*) AS n FROM $t GROUP BY 1) AS s"),
		$per_epoch{$t},
		"$t: IDs of both epochs before the dump");
}

$old->safe_psql(
	'postgres', q{
SELECT idgen_lease_range('nightly-loader', 100000, 'load-1');
SELECT idgen_lease_range('nightly-loader', 5000, 'load-2');
SELECT idgen_lease_range('api-server', 777);
SELECT idgen_range_consumed('1', '25000');
});
my ($ow_region, $ow_worker) = split /\|/,
  $old->safe_psql('postgres',
	q{SELECT region, worker FROM idgen_lease_worker('outside-gen', '1 hour')});
ok(defined $ow_worker && $ow_worker ne '', 'an outside generator leased a worker');

# what must come along
my %sums = (
	orders => q{SELECT count(*) || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM orders},
	events => q{SELECT count(*) || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM events},
	batch  => q{SELECT count(*) || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM batch},
	tok    => q{SELECT count(*) || ':' || md5(string_agg(id || '=' || token, ',' ORDER BY id, token)) FROM tok},
	tok128 => q{SELECT count(*) || ':' || md5(string_agg(id || '=' || token, ',' ORDER BY id, token)) FROM tok128},
	keys   => q{SELECT string_agg(key_id || ':' || fingerprint, ',' ORDER BY key_id) FROM idgen.mask_key},
);
# each ID with what it decodes to, under its own epoch
for my $t (qw(orders events batch))
{
	$sums{"$t decoded"} = qq{
SELECT count(*) || ':' || md5(string_agg(
           concat_ws('|', t.id, (extract(epoch FROM d.ts) * 1000)::bigint, d.region, d.worker, d.seq, d.epoch),
           ',' ORDER BY t.id))
FROM $t AS t, LATERAL idgen_decode(t.id) AS d};
}
my %before = map { $_ => $old->safe_psql('app', $sums{$_}) } keys %sums;
is($before{orders} =~ /^6000:/ ? 1 : 0, 1, '6000 orders before the dump');
is($before{keys} =~ /^1:.*,2:/ ? 1 : 0, 1, 'two mask keys before the dump');

my $ranges_sql = q{
SELECT string_agg(concat_ws('|', range_start, range_end, owner, generation, request_key, consumed),
                  ',' ORDER BY range_start)
FROM idgen.range_lease};
my $ranges_before = $old->safe_psql('postgres', $ranges_sql);
my @ranges = split /,/, $ranges_before;
is(scalar @ranges, 3, 'three ranges before the dump');
my ($max_end, $max_gen) = split /\|/,
  $old->safe_psql('postgres',
	'SELECT max(range_end::bigint), max(generation) FROM idgen.range_lease');

# row 1 is each node's own, made by its CREATE EXTENSION: its created_at differs
my $epochs_sql = q{
SELECT string_agg(concat_ws('|', version, start_time, epoch_start, time_bits, region_bits,
                            worker_bits, seq_bits, horizon,
                            CASE WHEN version > 1 THEN created_at END), ',' ORDER BY version)
FROM idgen.epoch};
my $boundaries_sql = q{
SELECT string_agg(concat_ws('|', version, start_time, boundary, region_bits, worker_bits,
                            seq_bits, horizon), ',' ORDER BY version)
FROM idgen.epoch_boundaries};
my $epochs_before = $old->safe_psql('postgres', $epochs_sql);
my $boundaries_before = $old->safe_psql('postgres', $boundaries_sql);
like($epochs_before, qr/^1\|.*,2\|[^,]*\|42\|2\|8\|11\|[^,]*$/,
	'the registry holds epochs 1 and 2 before the dump');
my $boundary2 = $old->safe_psql('postgres',
	'SELECT boundary FROM idgen.epoch_boundaries WHERE version = 2');

my $app_dump = $old->basedir . '/app.dump';
my $reg_dump = $old->basedir . '/postgres.dump';
$old->command_ok([ 'pg_dump', '-Fc', '-f', $app_dump, '-d', $old->connstr('app') ],
	'pg_dump -Fc of app');
$old->command_ok([ 'pg_dump', '-Fc', '-f', $reg_dump, '-d', $old->connstr('postgres') ],
	'pg_dump -Fc of the registry database');

# a second, fresh node
my $new = idgen_node('dump_dst', conf => $conf);
$new->poll_query_until('postgres', q{SELECT state = 'active' FROM idgen_status()})
  or die 'the new node did not become active';
my $new_owner = $new->safe_psql('postgres',
	q{SELECT string_agg(DISTINCT owner, ',') FROM idgen.worker_lease WHERE owner IS NOT NULL});

sub restore_ok
{
	my ($what, @cmd) = @_;
	my ($stdout, $stderr) = ('', '');
	my $ok = IPC::Run::run(\@cmd, '>', \$stdout, '2>', \$stderr);
	ok($ok, "$what: pg_restore runs without errors");
	is($stderr, '', "$what: pg_restore says nothing on stderr");
}

# app: a new database, a plain restore
$new->safe_psql('postgres', 'CREATE DATABASE app');
restore_ok('app',
	'pg_restore', '--exit-on-error', '-d', $new->connstr('app'), $app_dump);

# postgres: data only, without the old node's worker leases
my $toc = $new->basedir . '/postgres.toc';
my $list = '';
IPC::Run::run([ 'pg_restore', '-l', $reg_dump ], '>', \$list)
  or die 'pg_restore -l failed';
like($list, qr/TABLE DATA idgen range_lease /, 'the registry dump holds the range leases');
like($list, qr/SEQUENCE SET idgen range_generation /, 'and the range generation sequence');
like($list, qr/TABLE DATA idgen range_floor /, 'and the range floor');
like($list, qr/TABLE DATA idgen worker_lease /, 'and the worker leases');
like($list, qr/TABLE DATA idgen epoch /, 'and the layout epochs');
open my $fh, '>', $toc or die "open $toc: $!";
print $fh join('', grep { !/TABLE DATA idgen worker_lease / } split /^/m, $list);
close $fh;
restore_ok('postgres',
	'pg_restore', '--data-only', '--exit-on-error', '-L', $toc,
	'-d', $new->connstr('postgres'), $reg_dump);

# The new node's background worker reads the restored epochs with its next
# lease renewal.  The app database's own idgen.epoch has only row 1, so an
# epoch-2 decode there shows that the node knows the registry's epochs.
$new->poll_query_until('app',
	q{SELECT (idgen_decode(id)).epoch = 2 FROM orders ORDER BY id DESC LIMIT 1})
  or diag 'the new node did not read the restored epochs';

# the layout
is($new->safe_psql('postgres', $epochs_sql), $epochs_before,
	'postgres: idgen.epoch came along, both rows');
is($new->safe_psql('postgres', $boundaries_sql), $boundaries_before,
	'postgres: idgen.epoch_boundaries is the same');
is($new->safe_psql('app', 'SELECT count(*) FROM idgen.epoch'), '1',
	'app: its own idgen.epoch keeps one row');

# the data
for my $t (sort keys %sums)
{
	is($new->safe_psql('app', $sums{$t}), $before{$t}, "$t: the same after the restore");
}
is( $new->safe_psql(
		'app', q{SELECT count(*) FILTER (WHERE idgen_unmask(token) = id) || '/' || count(*) FROM tok}),
	'1100/1100',
	'every stored 64-bit token unmasks to its ID on the new node');
is( $new->safe_psql(
		'app',
		q{SELECT count(*) FILTER (WHERE idgen_unmask128(token) = id) || '/' || count(*) FROM tok128}),
	'440/440',
	'every stored 128-bit token unmasks to its ID on the new node');

# the ranges
is($new->safe_psql('postgres', $ranges_sql), $ranges_before, 'idgen.range_lease came along');
is( $new->safe_psql(
		'postgres',
		q{SELECT concat_ws('|', range_start, range_end, generation) FROM idgen_lease_range('nightly-loader', 5000, 'load-2')}
	),
	$old->safe_psql(
		'postgres',
		q{SELECT concat_ws('|', range_start, range_end, generation) FROM idgen_lease_range('nightly-loader', 5000, 'load-2')}
	),
	'a request key of before the dump returns the same range on the new node');
# a restored registry grants no new range until an operator confirms a
# floor (155_range_logical_restore.pl); here the old registry still runs,
# so its top is known
my ($fs, $fo, $fe) = ('', '', '');
$new->psql('postgres', "\\set VERBOSITY verbose\nSELECT * FROM idgen_lease_range('after-restore', 10)",
	stdout => \$fo, stderr => \$fe);
like($fe, qr/ERROR:\s+IA006:/, 'a new range waits for a confirmed floor after the restore (IA006)');
is($new->safe_psql('postgres', "SELECT idgen_confirm_range_floor('@{[$max_end + 1]}')"),
	$max_end + 1, 'the operator confirms the old registry\'s top');
my ($rs, $re, $rg) = split /\|/,
  $new->safe_psql('postgres',
	q{SELECT concat_ws('|', range_start, range_end, generation) FROM idgen_lease_range('after-restore', 10)});
is($rs, $max_end + 1, 'a new range continues right after the restored ones');
is($re, $max_end + 10, 'and has the size asked for');
cmp_ok($rg, '>', $max_gen, 'with a generation above the restored ones');
is($new->safe_psql('postgres', q{SELECT idgen_range_consumed('1', '30000')}),
	'', 'progress can be reported on a restored range');

# the worker leases (again, if the restore made it give its lease up)
ok(wait_state($new), 'the new node is active after the restore');
is( $new->safe_psql(
		'postgres',
		q{SELECT string_agg(DISTINCT owner, ',') FROM idgen.worker_lease WHERE owner IS NOT NULL}),
	$new_owner,
	'the registry holds only the new node\'s own worker lease');
# a restore is a change of incarnation (issue 19, item 1): grants the old
# registry made after the dump may still run, so the new one grants no
# worker until its idgen.lease_ttl plus allowances have passed
ok( wait_for(sub {
		my ($rc, $o) = $new->psql('postgres',
			q{SELECT count(*) FROM idgen_lease_worker('outside-gen', '1 hour')});
		return $rc == 0 && $o eq '1';
	}),
	'the outside generator leases a worker again from the new registry, after the restore\'s hold');

# new IDs are epoch-2 IDs above every restored one
is( $new->safe_psql(
		'app', qq{
SELECT count(*) FILTER (WHERE x.id <= (SELECT max(id::bigint) FROM orders)
                           OR x.id <= (SELECT max(id::bigint) FROM batch)),
       count(*) FILTER (WHERE x.id < '$boundary2'::idgen),
       count(*) FILTER (WHERE (idgen_decode(x.id)).epoch = 2)
FROM (SELECT idgen_next() AS id FROM generate_series(1, 1000)) AS x}),
	'0|0|1000',
	'new 64-bit IDs are epoch-2 IDs above every restored ID and epoch 2\'s boundary');
is( $new->safe_psql(
		'app', q{
SELECT count(*) FILTER (WHERE x.id <= (SELECT id FROM events ORDER BY id DESC LIMIT 1)),
       count(*) FILTER (WHERE (idgen_decode(x.id)).epoch = 2)
FROM (SELECT idgen_next128() AS id FROM generate_series(1, 1000)) AS x}),
	'0|1000', 'new 128-bit IDs are epoch-2 IDs above every restored ID');
my $keyed_sql = q{
SELECT count(*) FILTER (WHERE x.id IN (SELECT id FROM batch)) || ':' || md5(string_agg(x.id::text, ',' ORDER BY x.id))
FROM idgen_next_batch(1000, 'import-42') AS x(id)};
my $keyed_old = $old->safe_psql('app', $keyed_sql);
like($keyed_old, qr/^1000:/, 'the old node returns the stored batch for the pre-dump request key');
is($new->safe_psql('app', $keyed_sql), $keyed_old,
	'and the new node returns the same batch for it');
is($new->safe_psql('app', 'INSERT INTO orders (n) VALUES (0) RETURNING n'),
	'0', 'a restored table takes new rows by its DEFAULT');

# the old node goes on undisturbed
is($old->safe_psql('postgres', 'SELECT state FROM idgen_status()'), 'active',
	'the old node is still active');

$new->stop;
$old->stop;
done_testing();
