# 121_idgen_cli.pl - the idgen command-line tool against a server
#
# A node that is its own registry, on loopback.  Checked: `idgen decode`
# prints for 64- and 128-bit IDs (generated ones, a leased range's, the
# extremes) exactly what SELECT * FROM idgen_decode(...) gives, as key:
# value lines and as JSON (row_to_json, as the gateway's decode endpoint
# answers); after a layout switch, an ID of the new epoch
# decodes as the server decodes it only with --registry (the built-in
# layout alone reads it differently); `idgen status` shows idgen_status()
# and the idgen.fleet rows; bad input and unreachable or unprepared
# servers give a non-zero exit status and a message on stderr, nothing on
# stdout.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# idgen is installed beside the server's programs (make installcheck puts
# their directory first on PATH)
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $bindir = `$pg_config --bindir`;
chomp $bindir;
my $idgen = -x "$bindir/idgen" ? "$bindir/idgen" : 'idgen';

# (exit status, stdout, stderr) of one run
sub cli
{
	my @args = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ $idgen, @args ], '<', \undef, '>', \$out, '2>', \$err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return ($? >> 8, $out, $err);
}

my $node = idgen_registry('cli', conf => q{
idgen.lease_ttl = '2s'
idgen.worker_id = 16
});
ok(wait_state($node), 'the node is active');
my $conn = registry_conn($node);

# what the server says, in the tool's format
sub sql_decode
{
	my ($id, $type) = @_;
	my $row = $node->safe_psql('postgres',
		"SET TimeZone = 'UTC'; SELECT '$id'::$type, d.* FROM idgen_decode('$id'::$type) AS d");
	my @v = split /\|/, $row, -1;
	my @k = qw(id ts region worker seq epoch);
	return join('', map { $v[$_] eq '' ? "$k[$_]:\n" : "$k[$_]: $v[$_]\n" } 0 .. 5);
}

# the server's row_to_json() of the same, with the id first
sub sql_decode_json
{
	my ($id, $type) = @_;
	return decode_json($node->safe_psql('postgres',
		"SET TimeZone = 'UTC'; SELECT row_to_json(r) FROM "
		  . "(SELECT '$id'::${type}::text AS id, d.* FROM idgen_decode('$id'::$type) AS d) AS r"));
}

sub decode_is
{
	my ($id, $type, $name, @reg) = @_;
	my $want = sql_decode($id, $type);
	my ($rc, $out, $err) = cli('decode', @reg, $id);
	is($rc, 0, "$name: exit status 0");
	is($out, $want, "$name: as idgen_decode() on the server");
	is($err, '', "$name: nothing on stderr");
	($rc, $out, $err) = cli('decode', '--json', @reg, $id);
	my $got = eval { decode_json($out) };
	is_deeply($got, sql_decode_json($id, $type),
		"$name: --json as row_to_json(idgen_decode()) on the server");
}

# --- decode under the built-in layout --------------------------------
my ($id64, $id128) = split /\|/,
  $node->safe_psql('postgres', 'SELECT idgen_next(), idgen_next128()');
like($id64, qr/^\d+$/, 'a 64-bit ID');
decode_is($id64, 'idgen', 'a generated idgen');
decode_is($id128, 'idgen128', 'a generated idgen128');
decode_is(uc $id128, 'idgen128', 'an idgen128 in upper case');
decode_is('9223372036854775807', 'idgen', 'the largest idgen');
decode_is('0', 'idgen', 'idgen 0');
my $range = $node->safe_psql('postgres',
	"SELECT range_start FROM idgen_lease_range('cli-test', 10)");
decode_is($range, 'idgen', 'a leased range\'s ID (no time, epoch 0)');
my ($rc, $out, $err) = cli('decode', $range);
like($out, qr/^ts:\nregion:\nworker:\nseq:\nepoch: 0$/m,
	'a leased range\'s ID shows empty fields and epoch 0');
decode_is($id64, 'idgen', 'with --registry before any layout change',
	'--registry', $conn);

# --- a layout epoch of the registry ----------------------------------
is( $node->safe_psql('postgres',
		"SELECT idgen_schedule_layout(clock_timestamp() + interval '6 seconds', 2, 8, 12)"),
	'2', 'a layout scheduled as epoch 2');
ok( $node->poll_query_until('postgres',
		'SELECT epoch FROM idgen_decode(idgen_next())', '2'),
	'the node issues under epoch 2');
my ($e2_64, $e2_128) = split /\|/,
  $node->safe_psql('postgres', 'SELECT idgen_next(), idgen_next128()');
decode_is($e2_64, 'idgen', 'an idgen of epoch 2, --registry', '--registry', $conn);
decode_is($e2_128, 'idgen128', 'an idgen128 of epoch 2, --registry',
	"--registry=$conn");
decode_is($id64, 'idgen', 'an idgen of epoch 1 after the switch, --registry',
	'--registry', $conn);
($rc, $out, $err) = cli('decode', $e2_64);
is($rc, 0, 'an idgen of epoch 2 without --registry: exit status 0');
isnt($out, sql_decode($e2_64, 'idgen'),
	'without --registry the built-in layout reads an epoch-2 idgen differently');
($rc, $out, $err) = cli('decode', $e2_128);
like($out, qr/^region:\nworker:\nseq:\nepoch: 2$/m,
	'without --registry an epoch-2 idgen128 has no node fields (epoch 2 unknown)');

# --- status ------------------------------------------------------------
my ($state, $worker, $owner) = split /\|/,
  $node->safe_psql('postgres', 'SELECT state, worker, owner FROM idgen_status()');
($rc, $out, $err) = cli('status', '--registry', $conn);
note("idgen status:\n$out");
is($rc, 0, 'status: exit status 0');
is($err, '', 'status: nothing on stderr');
like($out, qr/^state: +\Q$state\E$/m, "status shows the state ($state)");
like($out, qr/^worker: +\Q$worker\E$/m, "status shows the worker ($worker)");
like($out, qr/^owner: +\Q$owner\E$/m, 'status shows the owner');
my $holders = $node->safe_psql('postgres', 'SELECT count(*) FROM idgen.fleet');
cmp_ok($holders, '>=', 1, 'idgen.fleet has the node\'s lease');
like($out, qr/^fleet \($holders holders?\):$/m, "status counts the fleet's $holders holder(s)");
like($out, qr/^holder +\| kind +\| node_sysid/m, 'the fleet table has its header');
like($out, qr/^\Q$owner\E +\| node +\|/m, 'the node\'s row is in the fleet table');
($rc, $out, $err) = cli('status', '--json', '--registry', $conn);
my $st = eval { decode_json($out) };
is($st->{status}{state}, $state, 'status --json: the state');
is($st->{status}{worker}, $worker, 'status --json: the worker, a number');
is(scalar @{ $st->{fleet} // [] }, $holders, 'status --json: the fleet rows');

# --- bad input, bad servers ------------------------------------------
sub fails
{
	my ($name, $want_rc, $want_err, @args) = @_;
	my ($rc, $out, $err) = cli(@args);
	is($rc, $want_rc, "$name: exit status $want_rc");
	like($err, $want_err, "$name: says why on stderr");
	is($out, '', "$name: nothing on stdout");
}
fails('decode of text', 2, qr/invalid ID "abc"/, 'decode', 'abc');
fails('decode of a negative number', 2, qr/invalid ID "-1"/, 'decode', '-1');
fails('decode above 2^63 - 1', 2, qr/above 9223372036854775807/,
	'decode', '9223372036854775808');
fails('decode of an empty ID', 2, qr/invalid ID ""/, 'decode', '');
fails('decode with a space', 2, qr/invalid ID/, 'decode', ' 12');
fails('decode of a UUIDv4', 2, qr/not an idgen128.*version 4/,
	'decode', '0190a3b4-c5d6-4ef8-9abc-def012345678');
fails('decode of a UUID in braces', 2, qr/invalid ID/,
	'decode', "{$id128}");
fails('decode without an ID', 2, qr/decode needs an ID/, 'decode');
fails('decode of two IDs', 2, qr/too many arguments/, 'decode', '1', '2');
fails('no command', 2, qr/no command given/);
fails('an unknown command', 2, qr/unknown command "encode"/, 'encode', '1');
fails('an unknown option', 2, qr/unknown option "--verbose"/, 'decode', '--verbose', '1');
# without --registry, status connects where libpq's environment says, as psql
{
	local $ENV{PGHOST}     = '127.0.0.1';
	local $ENV{PGPORT}     = $node->port;
	local $ENV{PGDATABASE} = 'postgres';
	local $ENV{PGSERVICE};
	my ($src, $sout, $serr) = cli('status');
	is($src, 0, 'status without --registry, PGHOST/PGPORT/PGDATABASE set: exit status 0');
	like($sout, qr/^state: +\Q$state\E$/m,
		'status without --registry shows the state of the server the environment names');
	local $ENV{PGPORT} = PostgreSQL::Test::Cluster::get_free_port();
	fails('status without --registry, nothing at PGPORT', 1,
		qr/could not connect to the server libpq's environment names/, 'status');
}
fails('--registry without a value', 2, qr/--registry needs a connection string/,
	'status', '--registry');

my $plain_conn = $conn =~ s/dbname=postgres/dbname=plain/r;
$node->safe_psql('postgres', 'CREATE DATABASE plain');
fails('decode --registry of a database without idgen', 1,
	qr/reading idgen\.epoch failed: .*idgen\.epoch/,
	'decode', '--registry', $plain_conn, $id64);
fails('status of a database without idgen', 1,
	qr/the idgen extension is not installed in database "plain"/,
	'status', '--registry', $plain_conn);
fails('a malformed connection string', 1, qr/could not connect/,
	'status', '--registry', 'host=127.0.0.1 port=notaport');
$node->stop;
fails('status of a stopped server', 1, qr/could not connect to the registry/,
	'status', '--registry', $conn);
fails('decode --registry of a stopped server', 1,
	qr/could not connect to the registry/,
	'decode', '--registry', $conn, $id64);
# without --registry no server is needed
($rc, $out, $err) = cli('decode', $id64);
is($rc, 0, 'decode without --registry needs no server');

done_testing();
