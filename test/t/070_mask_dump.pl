# 070_mask_dump.pl - mask keys survive pg_dump and restore
#
# Tokens of idgen_mask() are handed out to the world, so losing the keys
# behind them loses every one of them.  idgen.mask_key is an extension
# configuration table: pg_dump dumps its rows, and a restore brings them
# back under the extension the restore creates.  The test makes key 1 (the
# first idgen_mask()) and key 2 (a rotation) in one database, masks IDs of
# both widths under both, dumps the database in custom and in plain
# format, restores each into a new database, and asserts:
#
#   - the restore runs without errors (no key made by CREATE EXTENSION
#     collides with the restored key 1, the key-cache trigger is not
#     dumped a second time);
#   - the restored keys are the same keys: same ids and fingerprints, and
#     masking the same ID gives the same token as in the original;
#   - every token made before the dump unmasks to its ID after restore;
#   - a rotation in the restored database continues with key 3, and the
#     original database keeps its own two keys.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('mask_dump');

$node->safe_psql('postgres', 'CREATE DATABASE shop');
$node->safe_psql(
	'shop', q{
CREATE EXTENSION idgen;
CREATE TABLE tok (id idgen, token text, key_id integer);
CREATE TABLE tok128 (id idgen128, token text, key_id integer);
-- key 1, made by the first idgen_mask()
INSERT INTO tok SELECT x.id, idgen_mask(x.id), 1
FROM generate_series(1, 1000) AS g,
     LATERAL (SELECT (idgen.range_space_end()::bigint + g * 7919)::idgen AS id) AS x;
INSERT INTO tok128 SELECT u.id, idgen_mask(u.id), 1
FROM (VALUES ('0190a1b2-c3d4-7abc-8def-0123456789ab'::idgen128),
             ('018f3c5e-9a2b-7c01-b234-567890abcdef'::idgen128)) AS u(id);
});
$node->safe_psql('shop', 'SELECT idgen_rotate_mask_key()');
$node->safe_psql(
	'shop', q{
INSERT INTO tok SELECT id, idgen_mask(id), 2 FROM tok WHERE key_id = 1;
INSERT INTO tok128 SELECT id, idgen_mask(id), 2 FROM tok128 WHERE key_id = 1;
});
is($node->safe_psql('shop', 'SELECT count(*) FROM idgen.mask_key'), '2', 'two keys before the dump');

my $keys_sql =
  q{SELECT string_agg(key_id || ':' || fingerprint, ',' ORDER BY key_id) FROM idgen.mask_key};
my $keys_before = $node->safe_psql('shop', $keys_sql);

# what a restored database must say about the original's tokens
sub check_restored
{
	my ($db, $what) = @_;

	is($node->safe_psql($db, $keys_sql),
		$keys_before, "$what: the same keys, ids and fingerprints");
	is( $node->safe_psql(
			$db, q{
SELECT count(*) FILTER (WHERE idgen_unmask(token) = id) || '/' || count(*) FROM tok}),
		'2000/2000', "$what: every 64-bit token of both keys unmasks");
	is( $node->safe_psql(
			$db, q{
SELECT count(*) FILTER (WHERE idgen_unmask128(token) = id) || '/' || count(*) FROM tok128}),
		'4/4', "$what: every 128-bit token of both keys unmasks");
	is( $node->safe_psql(
			$db, q{
SELECT count(*) FILTER (WHERE idgen_mask(id) = token) FROM tok WHERE key_id = 2}),
		'1000', "$what: masking gives the same tokens as before the dump");
	is($node->safe_psql($db, 'SELECT idgen_rotate_mask_key() IS NOT NULL'),
		't', "$what: a rotation after the restore works");
	is( $node->safe_psql($db, 'SELECT key_id FROM idgen.mask_key_info WHERE active'),
		'3', "$what: and makes key 3");
	is( $node->safe_psql(
			$db, q{
SELECT count(*) FILTER (WHERE idgen_unmask(token) = id AND idgen_mask(id) <> token) FROM tok}),
		'2000', "$what: old tokens still unmask after that rotation, new ones differ");
}

# custom format, restored into a new database
my $dump = $node->basedir . '/shop.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('shop') ],
	'pg_dump -Fc of the database');
$node->safe_psql('postgres', 'CREATE DATABASE shop_custom');
my ($stdout, $stderr) = ('', '');
my $ok = IPC::Run::run(
	[ 'pg_restore', '--exit-on-error', '-d', $node->connstr('shop_custom'), $dump ],
	'>', \$stdout, '2>', \$stderr);
ok($ok, 'pg_restore runs without errors');
is($stderr, '', 'pg_restore says nothing on stderr');
check_restored('shop_custom', 'custom format');

# plain format, through psql
my $plain = $node->basedir . '/shop.sql';
$node->command_ok([ 'pg_dump', '-f', $plain, '-d', $node->connstr('shop') ],
	'pg_dump of the database as SQL');
my $sql = slurp_file($plain);
unlike($sql, qr/CREATE TRIGGER mask_key_changed/, 'the key-cache trigger is not dumped');
like($sql, qr/COPY idgen\.mask_key /, 'the keys are dumped');
$node->safe_psql('postgres', 'CREATE DATABASE shop_plain');
($stdout, $stderr) = ('', '');
my $ret = $node->psql('shop_plain', $sql,
	stdout => \$stdout, stderr => \$stderr, on_error_stop => 1);
is($ret, 0, 'the SQL dump restores without errors');
is($stderr, '', 'psql says nothing on stderr');
check_restored('shop_plain', 'plain format');

# keys belong to a database: the original still has two, each restored
# copy went its own way
is($node->safe_psql('shop', 'SELECT count(*) FROM idgen.mask_key'), '2',
	'the original database still has its two keys');

$node->stop;
done_testing();
