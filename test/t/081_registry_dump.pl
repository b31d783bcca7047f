# 081_registry_dump.pl - a registry database dumps and restores like any
# database
#
# A source node ("src") keeps, in its registry database postgres: its own
# block of workers, two outside generators' worker leases, a layout epoch
# scheduled an hour ahead, two mask keys (tokens stored next to their IDs),
# two leased ranges with progress, keyed batches, and a table of its IDs.
# Its clock runs 8 s ahead (idgen.test_clock_offset), so its high-water
# marks and IDs lie ahead of every other node's clock: a restored mark the
# new node did not respect would show in its next IDs.
#
#   1. pg_dump -Fc of postgres, pg_restore -d postgres into a fresh node
#      ("dst") whose background worker has created the extension and leased
#      its own block (the same workers 0-15 as the source's): no errors, no
#      output on stderr.  Everything came along: the outside leases (same
#      worker, generation and expiry; they renew, and the same owner gets
#      its lease back once the restore's hold is over: a restore holds like
#      any change of incarnation, since 0.7), every high-water mark (never lowered, at least the
#      dumped one), the epoch, the mask keys (every token unmasks), the
#      ranges (a key returns its range, a new one waits for an operator's
#      confirmation of the floor, then continues after), the
#      keyed batches (the same IDs again).  The new node is never fenced
#      and records no collision: it gave its lease up to the restore and
#      leased anew, and its next IDs lie above every restored ID and mark
#      of its block, and above its own earlier IDs.
#   2. The same dump restored again, its idgen data only, now old: the new
#      node's marks, leases, range progress and range generation are ahead
#      of it; new ranges wait for a confirmation again.  No errors, nothing lowered, nothing duplicated, the new node
#      still issues above everything.
#   3. A node pinned to workers 112-127 ("pinned"), where the outside
#      generators hold 126 and 127: the restored live leases are carried,
#      the node gives its block up instead of holding it beside them
#      (waiting_for_lease, not fenced, no collision), and the outside
#      generator renews there.
#   4. pg_dump (plain) of an application database into a new database of
#      dst through psql -v ON_ERROR_STOP=1, and pg_dumpall of src through
#      psql into a fresh node ("all"): no errors (pg_dumpall's own CREATE
#      ROLE of the bootstrap superuser left out), the data, leases and
#      epochs came along, and new IDs lie above the restored ones.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

sub active
{
	my ($node, $what) = @_;
	ok(wait_state($node),
		"$what is active");
}

# the SQLSTATE and message a statement fails with, or 'ok'
sub refusal_of
{
	my ($node, $sql) = @_;
	my ($stdout, $stderr) = ('', '');
	return 'ok' if $node->psql('postgres', "\\set VERBOSITY verbose\n$sql",
		stdout => \$stdout, stderr => \$stderr) == 0;
	return $stderr =~ /ERROR:\s+([0-9A-Z]{5}: .*)/ ? $1 : $stderr;
}

sub run_quiet
{
	my ($what, @cmd) = @_;
	my ($stdout, $stderr) = ('', '');
	my $ok = IPC::Run::run(\@cmd, '>', \$stdout, '2>', \$stderr);
	ok($ok, "$what: exits with 0");
	is($stderr, '', "$what: says nothing on stderr");
	return $stdout;
}

my $src = idgen_node('reg_src', conf => "idgen.test_clock_offset = '8s'\n");
active($src, 'the source node');

# --- the source registry ------------------------------------------------
is( $src->safe_psql(
		'postgres',
		q{SELECT idgen_schedule_layout(clock_timestamp() + interval '1 hour', 2, 8, 11)}),
	'2', 'src: epoch 2 is scheduled an hour ahead');
my $outside = $src->safe_psql(
	'postgres', q{
SELECT concat_ws('|', region, worker, generation, lease_until) FROM idgen_lease_worker('outside-gen', '30 minutes');
SELECT concat_ws('|', region, worker, generation, lease_until) FROM idgen_lease_worker('outside-two', '20 minutes');
});
my ($o1, $o2) = split /\n/, $outside;
my ($o1_region, $o1_worker, $o1_gen) = split /\|/, $o1;
is($o1_worker, '127', 'src: the outside generator holds worker 127');
like($o2, qr/^0\|126\|/, 'src: a second one holds 126');
$src->safe_psql(
	'postgres', q{
SELECT idgen_lease_range('loader', 1000, 'load-1');
SELECT idgen_lease_range('loader', 500, 'load-2');
SELECT idgen_range_consumed('1', '400');
CREATE TABLE ids (id idgen PRIMARY KEY DEFAULT idgen_next(), n integer);
INSERT INTO ids (n) SELECT g FROM generate_series(1, 3000) AS g;
CREATE TABLE tok (id idgen NOT NULL, token text NOT NULL);
INSERT INTO tok SELECT id, idgen_mask(id) FROM ids WHERE n % 10 = 0;
SELECT idgen_rotate_mask_key();
INSERT INTO tok SELECT id, idgen_mask(id) FROM ids WHERE n % 10 = 5;
CREATE TABLE kb AS SELECT idgen_next_batch(200, 'retry-1') AS id;
CREATE TABLE kb128 AS SELECT idgen_next128_batch(20, 'retry-2') AS id;
});
# the durable marks must cover the IDs just issued before they are dumped
$src->poll_query_until('postgres', q{
SELECT min(l.high_water) >= (SELECT idgen_timestamp(id) FROM ids ORDER BY id DESC LIMIT 1)
FROM idgen.worker_lease AS l, idgen_status() AS s
WHERE l.owner = s.owner AND l.generation = s.generation})
  or die 'the source node\'s mark did not pass its IDs';

my $outside_sql = q{
SELECT string_agg(concat_ws('|', region, worker, owner, generation, lease_until, node_sysid IS NULL),
                  ',' ORDER BY region, worker)
FROM idgen.worker_lease WHERE owner LIKE 'outside-%'};
my $epochs_sql = q{
SELECT string_agg(concat_ws('|', version, start_time, epoch_start, time_bits, region_bits,
                            worker_bits, seq_bits, horizon), ',' ORDER BY version)
FROM idgen.epoch WHERE version > 1};
my $keys_sql = q{SELECT string_agg(key_id || ':' || fingerprint, ',' ORDER BY key_id) FROM idgen.mask_key};
my $ranges_sql = q{
SELECT string_agg(concat_ws('|', range_start, range_end, owner, generation, request_key, consumed),
                  ',' ORDER BY range_start)
FROM idgen.range_lease};
my $kb_sql = q{
SELECT (SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM kb) || '|'
    || (SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM kb128)};
my %before = (
	outside => $src->safe_psql('postgres', $outside_sql),
	epochs  => $src->safe_psql('postgres', $epochs_sql),
	keys    => $src->safe_psql('postgres', $keys_sql),
	ranges  => $src->safe_psql('postgres', $ranges_sql),
	kb      => $src->safe_psql('postgres', $kb_sql),
	ids     => $src->safe_psql('postgres',
		q{SELECT count(*) || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM ids}));
like($before{epochs}, qr/^2\|/, 'src: epoch 2 is in the registry');
like($before{keys}, qr/^1:[0-9a-f]+,2:[0-9a-f]+$/, 'src: two mask keys');
# every row the dump carries, with its mark in Unix ms
my %src_hw = map { my ($r, $w, $hw) = split /\|/; ("$r|$w" => $hw) } split /\n/,
  $src->safe_psql('postgres', q{
SELECT region || '|' || worker || '|' || floor(extract(epoch FROM high_water) * 1000)::bigint
FROM idgen.worker_lease WHERE high_water IS NOT NULL ORDER BY 1});
ok(scalar(keys %src_hw) >= 18, 'src: the source block and both outside workers have marks');

# --- a fresh node, its own block leased, a few IDs issued ---------------
my $dst = idgen_node('reg_dst');
active($dst, 'the new node');
$dst->safe_psql('postgres',
	'CREATE TABLE own_before AS SELECT idgen_next() AS id FROM generate_series(1, 100)');
my ($dst_gen, $dst_worker) = split /\|/,
  $dst->safe_psql('postgres', q{SELECT generation || '|' || worker FROM idgen_status()});
is($dst_worker, '0', 'dst: holds workers 0-15, the same as the source');

my $dump = $src->basedir . '/postgres.dump';
$src->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $src->connstr('postgres') ],
	'pg_dump -Fc of the source registry database');

# --- 1. the restore -------------------------------------------------------
run_quiet('pg_restore into the new node',
	'pg_restore', '-d', $dst->connstr('postgres'), $dump);

is($dst->safe_psql('postgres', $outside_sql), $before{outside},
	'the outside generators\' leases came along: worker, owner, generation and expiry');
is( $dst->safe_psql(
		'postgres', "SELECT idgen_renew_worker($o1_region, $o1_worker, $o1_gen) IS NOT NULL"),
	't', 'the outside generator renews its lease on the new node');
# the restore holds (issue 19, items 1 and 15): the registry the dump came
# from may have granted after it, so no lease is granted, not even the same
# owner's back, until its idgen.lease_ttl plus allowances have passed
my ($same_rc, $same_out, $same_err) = $dst->psql('postgres',
	q{SELECT region || '|' || worker || '|' || generation FROM idgen_lease_worker('outside-gen', '30 minutes')});
like($same_err, qr/grants no worker until/,
	'asking again during the restore\'s hold, it is refused (IR006)');

my %dst_hw = map { my ($r, $w, $hw) = split /\|/; ("$r|$w" => $hw) } split /\n/,
  $dst->safe_psql('postgres', q{
SELECT region || '|' || worker || '|' || floor(extract(epoch FROM high_water) * 1000)::bigint
FROM idgen.worker_lease WHERE high_water IS NOT NULL ORDER BY 1});
my @lowered = grep { !defined $dst_hw{$_} || $dst_hw{$_} < $src_hw{$_} } sort keys %src_hw;
is("@lowered", '', 'every restored high-water mark is in the new registry, none lowered');

is($dst->safe_psql('postgres', $epochs_sql), $before{epochs}, 'the epoch came along');
is($dst->safe_psql('postgres', $keys_sql), $before{keys}, 'the mask keys came along');
is( $dst->safe_psql(
		'postgres',
		q{SELECT count(*) FILTER (WHERE idgen_unmask(token) = id) || '/' || count(*) FROM tok}),
	'600/600', 'every token of the source unmasks to its ID on the new node');
is($dst->safe_psql('postgres', $ranges_sql), $before{ranges}, 'the ranges came along');
is( $dst->safe_psql(
		'postgres',
		q{SELECT concat_ws('|', range_start, range_end) FROM idgen_lease_range('loader', 500, 'load-2')}),
	'1001|1500', 'a request key of the source returns its range');
# a restored registry grants no new range until an operator confirms a
# floor (155_range_logical_restore.pl): the source's top is known here
like(refusal_of($dst, q{SELECT * FROM idgen_lease_range('after', 10)}), qr/^IA006/,
	'a new range waits for a confirmed floor after the restore (IA006)');
is($dst->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1501')}), '1501',
	'the operator confirms the floor the source\'s holders report');
is( $dst->safe_psql(
		'postgres', q{SELECT concat_ws('|', range_start, range_end, generation > 2) FROM idgen_lease_range('after', 10)}),
	'1501|1510|t', 'a new range continues after the restored ones, at a new generation');
is($dst->safe_psql('postgres', $kb_sql), $before{kb}, 'the keyed batches\' tables came along');
is( $dst->safe_psql(
		'postgres', q{
SELECT (SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM idgen_next_batch(200, 'retry-1') AS id) || '|'
    || (SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM idgen_next128_batch(20, 'retry-2') AS id)}),
	$before{kb}, 'a retry with the source\'s request keys gets the same IDs again');
is( $dst->safe_psql(
		'postgres', q{SELECT count(*) || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM ids}),
	$before{ids}, 'the source\'s IDs came along');

# The new node gave its lease up to the restore, leased anew above the
# marks, and waits for its clock to reach them before it issues again.
active($dst, 'the new node, after the restore,');
is( $dst->safe_psql(
		'postgres',
		q{SELECT region || '|' || worker || '|' || generation FROM idgen_lease_worker('outside-gen', '30 minutes')}),
	"$o1_region|$o1_worker|$o1_gen",
	'and asking again after the hold, it gets the same lease back');
my ($state2, $gen2, $fencings) = split /\|/,
  $dst->safe_psql('postgres', q{SELECT state || '|' || generation || '|' || fencing_events FROM idgen_status()});
cmp_ok($gen2, '>', $dst_gen, 'the new node leased anew after the restore');
is($fencings, '0', 'and was never fenced');
is($dst->safe_psql('postgres', 'SELECT count(*) FROM idgen.collision'), '0', 'no collision is recorded');
is( $dst->safe_psql(
		'postgres', q{SELECT count(*) > 0 FROM idgen.audit_log WHERE action = 'lease_yielded'}),
	't', 'the audit log says the lease was given up to the restore');
ok( $dst->poll_query_until(
		'postgres', q{SELECT idgen_next() IS NOT NULL}, 't'),
	'the new node issues again');
my $block_hw = $dst->safe_psql('postgres', q{
SELECT max(floor(extract(epoch FROM high_water) * 1000)::bigint)
FROM idgen.worker_lease WHERE region = 0 AND worker < 16});
cmp_ok($block_hw, '>=', $src_hw{'0|0'}, 'the block\'s mark is at least the source\'s');
is( $dst->safe_psql(
		'postgres', qq{
SELECT count(*) FILTER (WHERE x.id <= (SELECT max(id) FROM ids) OR x.id <= (SELECT max(id) FROM kb)
                           OR x.id <= (SELECT max(id) FROM own_before)),
       count(*) FILTER (WHERE floor(extract(epoch FROM idgen_timestamp(x.id)) * 1000) <= $src_hw{'0|0'})
FROM (SELECT idgen_next() AS id FROM generate_series(1, 1000)) AS x}),
	'0|0',
	'new IDs lie above every restored ID, the source\'s marks and the node\'s own earlier IDs');

# --- 2. the same dump again: old now ---------------------------------------
$dst->safe_psql('postgres', q{SELECT idgen_range_consumed('1', '900')});
$dst->safe_psql('postgres', 'CREATE TABLE own_mid AS SELECT idgen_next() AS id FROM generate_series(1, 100)');
my $marks_sql = q{
SELECT string_agg(concat_ws('|', region, worker, generation,
                            coalesce(floor(extract(epoch FROM high_water) * 1000)::bigint, -1)),
                  ',' ORDER BY region, worker)
FROM idgen.worker_lease};
my %mid = map { my ($r, $w, $g, $hw) = split /\|/; ("$r|$w" => [ $g, $hw ]) } split /,/,
  $dst->safe_psql('postgres', $marks_sql);
my $counts_sql = q{
SELECT concat_ws('|', (SELECT count(*) FROM idgen.epoch), (SELECT count(*) FROM idgen.mask_key),
                 (SELECT count(*) FROM idgen.range_lease), (SELECT count(*) FROM idgen.batch_request),
                 (SELECT count(*) FROM idgen.worker_lease))};
my $counts_mid = $dst->safe_psql('postgres', $counts_sql);
my $expiry_sql = q{
SELECT concat_ws('|', region, worker, owner, generation, floor(extract(epoch FROM lease_until) * 1000)::bigint)
FROM idgen.worker_lease WHERE owner LIKE 'outside-%' ORDER BY region, worker};
my $outside_mid = $dst->safe_psql('postgres', $expiry_sql);
run_quiet('the old dump restored again (idgen data only)',
	'pg_restore', '--data-only', '-n', 'idgen', '-d', $dst->connstr('postgres'), $dump);
is($dst->safe_psql('postgres', $counts_sql), $counts_mid,
	'nothing is duplicated: the rows the registry had are skipped or merged');
my %after = map { my ($r, $w, $g, $hw) = split /\|/; ("$r|$w" => [ $g, $hw ]) } split /,/,
  $dst->safe_psql('postgres', $marks_sql);
my @back = grep {
	!defined $after{$_} || $after{$_}[0] < $mid{$_}[0] || $after{$_}[1] < $mid{$_}[1]
} sort keys %mid;
is("@back", '', 'no generation and no high-water mark went back');
my %exp_mid = map { my @f = split /\|/; ("$f[0]|$f[1]|$f[2]|$f[3]" => $f[4]) } split /\n/, $outside_mid;
my %exp_after = map { my @f = split /\|/; ("$f[0]|$f[1]|$f[2]|$f[3]" => $f[4]) } split /\n/,
  $dst->safe_psql('postgres', $expiry_sql);
is(join(',', sort keys %exp_after), join(',', sort keys %exp_mid),
	'the outside leases keep their holders and generations');
my @shorter = grep { !defined $exp_after{$_} || $exp_after{$_} < $exp_mid{$_} } sort keys %exp_mid;
is("@shorter", '', 'and no expiry went back');
is($dst->safe_psql('postgres', q{SELECT consumed FROM idgen.range_lease WHERE range_start = '1'}),
	'900', 'a range keeps the progress reported since');
like(refusal_of($dst, q{SELECT * FROM idgen_lease_range('after-2', 10)}), qr/^IA006/,
	'a restore of range rows, even old ones, makes new ranges wait for a confirmation again');
$dst->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1')});
is( $dst->safe_psql(
		'postgres', q{SELECT generation > 3 FROM idgen_lease_range('after-2', 10)}),
	't', 'a new range gets a generation above every one handed out, the restored counter notwithstanding');
active($dst, 'the new node, after the second restore,');
ok($dst->poll_query_until('postgres', q{SELECT idgen_next() IS NOT NULL}, 't'),
	'and issues');
is( $dst->safe_psql(
		'postgres', q{
SELECT count(*) FILTER (WHERE x.id <= (SELECT max(id) FROM own_mid) OR x.id <= (SELECT max(id) FROM ids))
FROM (SELECT idgen_next() AS id FROM generate_series(1, 1000)) AS x}),
	'0', 'above everything it and the source issued');
is($dst->safe_psql('postgres', 'SELECT fencing_events FROM idgen_status()'), '0',
	'still never fenced');

# --- 3. a node whose block the outside generators hold -----------------------
my $pinned = idgen_node('reg_pinned', conf => "idgen.worker_id = 112\n");
active($pinned, 'the pinned node');
run_quiet('pg_restore into the pinned node',
	'pg_restore', '-d', $pinned->connstr('postgres'), $dump);
is($pinned->safe_psql('postgres', $outside_sql), $before{outside},
	'pinned: the outside leases on its block came along');
ok( $pinned->poll_query_until(
		'postgres', q{
SELECT state = 'waiting_for_lease' AND reason LIKE 'worker block 112 of region 0 is leased by another owner%'
FROM idgen_status()}),
	'pinned: the node gave its block up and waits for it, held by the outside generators');
ok( $pinned->poll_query_until(
		'postgres', q{
SELECT count(*) FROM idgen.worker_lease WHERE owner LIKE 'node:%' AND lease_until > idgen.clock()}, '0'),
	'pinned: no worker of the block is held by the node beside them');
is($pinned->safe_psql('postgres', 'SELECT fencing_events FROM idgen_status()'), '0',
	'pinned: not fenced');
is($pinned->safe_psql('postgres', 'SELECT count(*) FROM idgen.collision'), '0',
	'pinned: no collision');
is( $pinned->safe_psql(
		'postgres', "SELECT idgen_renew_worker($o1_region, $o1_worker, $o1_gen) IS NOT NULL"),
	't', 'pinned: the outside generator renews there');
$pinned->stop;

# --- 4. an application database, and pg_dumpall ----------------------------
$src->safe_psql('postgres', 'CREATE DATABASE app');
$src->safe_psql(
	'app', q{
CREATE EXTENSION idgen;
CREATE TABLE orders (id idgen PRIMARY KEY DEFAULT idgen_next(), n integer NOT NULL);
CREATE TABLE events (id idgen128 PRIMARY KEY DEFAULT idgen_next128(), n integer NOT NULL);
CREATE TABLE tok (id idgen NOT NULL, token text NOT NULL);
INSERT INTO orders (n) SELECT g FROM generate_series(1, 2000) AS g;
INSERT INTO events (n) SELECT g FROM generate_series(1, 500) AS g;
INSERT INTO tok SELECT id, idgen_mask(id) FROM orders WHERE n % 10 = 0;
CREATE TABLE kb AS SELECT idgen_next_batch(50, 'app-retry') AS id;
});
my $app_sql = q{
SELECT (SELECT count(*) || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM orders) || '|'
    || (SELECT count(*) || ':' || md5(string_agg(id::text, ',' ORDER BY id)) FROM events) || '|'
    || (SELECT count(*) FILTER (WHERE idgen_unmask(token) = id) || '/' || count(*) FROM tok) || '|'
    || (SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM idgen_next_batch(50, 'app-retry') AS id)};
my $app_before = $src->safe_psql('app', $app_sql);

my ($plain, $plain_err) = ('', '');
IPC::Run::run([ 'pg_dump', '-d', $src->connstr('app') ], '>', \$plain, '2>', \$plain_err)
  or die "pg_dump of app failed: $plain_err";
$dst->safe_psql('postgres', 'CREATE DATABASE app_plain');
my ($plain_out, $plain_stderr) = ('', '');
ok( IPC::Run::run(
		[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $dst->connstr('app_plain'), '-f', '-' ],
		'<', \$plain, '>', \$plain_out, '2>', \$plain_stderr),
	'the plain dump of app through psql -v ON_ERROR_STOP=1 exits with 0');
is($plain_stderr, '', 'and says nothing on stderr');
is($dst->safe_psql('app_plain', $app_sql), $app_before,
	'app: the tables, tokens and retry keys came along');

my ($all, $all_err) = ('', '');
IPC::Run::run([ 'pg_dumpall', '-d', $src->connstr('postgres') ], '>', \$all, '2>', \$all_err)
  or die "pg_dumpall failed: $all_err";
my $own_role = $src->safe_psql('postgres', 'SELECT current_user');
my $dropped = ($all =~ s/^CREATE ROLE \Q$own_role\E;\n//m);
ok($dropped, 'pg_dumpall\'s CREATE ROLE of the bootstrap superuser is left out');

my $fresh = idgen_node('reg_all');
my ($all_out, $all_stderr) = ('', '');
my $all_ok = IPC::Run::run(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $fresh->connstr('postgres'), '-f', '-' ],
	'<', \$all, '>', \$all_out, '2>', \$all_stderr);
ok($all_ok, 'pg_dumpall | psql into a fresh node, right after its start, exits with 0');
unlike($all_stderr, qr/ERROR/, 'and raises no error') or diag $all_stderr;
is($fresh->safe_psql('postgres', $outside_sql), $before{outside},
	'pg_dumpall: the outside leases came along');
is($fresh->safe_psql('postgres', $epochs_sql), $before{epochs}, 'pg_dumpall: the epoch came along');
is($fresh->safe_psql('app', $app_sql), $app_before,
	'pg_dumpall: the application database came along');
active($fresh, 'the pg_dumpall node');
ok($fresh->poll_query_until('app', q{SELECT idgen_next() IS NOT NULL}, 't'),
	'pg_dumpall: the node issues');
is( $fresh->safe_psql(
		'app', q{
SELECT count(*) FILTER (WHERE x.id <= (SELECT max(id) FROM orders))
FROM (SELECT idgen_next() AS id FROM generate_series(1, 1000)) AS x}),
	'0', 'pg_dumpall: new IDs lie above the restored ones');

$fresh->stop;
$dst->stop;
$src->stop;
done_testing();
