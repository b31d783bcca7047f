# 002_not_preloaded.pl - idgen installed but not in shared_preload_libraries
#
# Without the preload there is no shared memory for the generator.  The
# extension must still install, and the type, its casts and the decoding
# functions must work; everything that issues IDs or reads the generator's
# state must refuse with SQLSTATE 55000 (object_not_in_prerequisite_state)
# and tell the user how to fix it.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('not_preloaded');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
listen_addresses = ''
timezone = 'UTC'
});
$node->start;

is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'),
	'', 'idgen is not preloaded');

$node->safe_psql('postgres', 'CREATE EXTENSION idgen');
is( $node->safe_psql(
		'postgres', "SELECT extversion = default_version FROM pg_extension, pg_available_extensions WHERE extname = 'idgen' AND name = 'idgen'"),
	't',
	'CREATE EXTENSION idgen works without the preload, at the default version');

# --- the type and its casts ------------------------------------------------

is( $node->safe_psql(
		'postgres',
		q{SELECT '9223372036854775807'::idgen, '0'::idgen, 42::bigint::idgen, 7::idgen::bigint}
	),
	'9223372036854775807|0|42|7',
	'text input/output and casts to and from bigint work');

$node->safe_psql(
	'postgres', q{
CREATE TABLE t (id idgen PRIMARY KEY);
INSERT INTO t VALUES (3), ('1'), (2::bigint);
});
is($node->safe_psql('postgres', 'SELECT string_agg(id::text, \',\' ORDER BY id) FROM t'),
	'1,2,3', 'an idgen column accepts assignment casts and sorts');
is( $node->safe_psql(
		'postgres',
		'SET enable_seqscan = off; SELECT count(*) FROM t WHERE id >= 2::bigint'),
	'2',
	'the btree index answers a cross-type comparison');

my ($ret, $stdout, $stderr) = $node->psql(
	'postgres',
	"\\set VERBOSITY verbose\nSELECT (-1)::bigint::idgen;");
isnt($ret, 0, 'a negative bigint is not an idgen');
like($stderr, qr/ERROR:  22003:/, 'casting a negative bigint raises 22003');

($ret, $stdout, $stderr) = $node->psql(
	'postgres',
	"\\set VERBOSITY verbose\nSELECT 'abc'::idgen;");
like(
	$stderr,
	qr/ERROR:  22P02: invalid input syntax for type idgen: "abc"/,
	'bad text input raises 22P02 and quotes the value');

# --- decoding with the built-in layout -------------------------------------

# 2026-01-01 00:00:01 UTC (31,536,001,000 ms after the layout's epoch,
# 2025-01-01), region 2, worker 5, sequence 7: time above bit 22, region at
# bit 19, worker at bit 12.  Earlier times are the range space.
my $id = (31536001000 << 22) | (2 << 19) | (5 << 12) | 7;
is( $node->safe_psql(
		'postgres', "SELECT ts, region, worker, seq, epoch FROM idgen_decode(${id}::bigint::idgen)"
	),
	'2026-01-01 00:00:01+00|2|5|7|1',
	'idgen_decode unpacks an ID');
is( $node->safe_psql('postgres', "SELECT idgen_timestamp(${id}::bigint::idgen)"),
	'2026-01-01 00:00:01+00',
	'idgen_timestamp gives the ID\'s millisecond');
is( $node->safe_psql(
		'postgres',
		"SELECT idgen_min_at('2026-01-01 00:00:01+00') <= ${id}::bigint::idgen
		    AND ${id}::bigint::idgen <= idgen_max_at('2026-01-01 00:00:01+00')"),
	't',
	'idgen_min_at and idgen_max_at bracket the ID');

# --- generating and status refuse, with the fix in the hint ----------------

foreach my $call ('idgen_next()', 'idgen_next_batch(1)', 'idgen_status()')
{
	($ret, $stdout, $stderr) = $node->psql(
		'postgres',
		"\\set VERBOSITY verbose\nSELECT * FROM $call;");
	isnt($ret, 0, "$call fails without the preload");
	like($stderr, qr/ERROR:  55000: /, "$call raises SQLSTATE 55000");
	like(
		$stderr,
		qr/HINT:  Add idgen to shared_preload_libraries\./,
		"$call hints at shared_preload_libraries");
	is($stdout, '', "$call returns nothing");
}

# a default of idgen_next() refuses the insert instead of inventing an ID
$node->safe_psql('postgres',
	'CREATE TABLE gen (id idgen PRIMARY KEY DEFAULT idgen_next(), v int)');
($ret, $stdout, $stderr) = $node->psql(
	'postgres',
	"\\set VERBOSITY verbose\nINSERT INTO gen (v) VALUES (1);");
like($stderr, qr/ERROR:  55000: /, 'a DEFAULT idgen_next() insert fails with 55000');
is($node->safe_psql('postgres', 'SELECT count(*) FROM gen'),
	'0', 'no row was inserted');

# the server is still healthy: no backend crashed on the way
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server still accepts queries');
ok( !$node->log_contains('server process .* terminated'),
	'no backend was terminated abnormally');

$node->stop;

done_testing();
