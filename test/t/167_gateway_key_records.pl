# 167_gateway_key_records.pl - an Idempotency-Key record is a few dozen
# bytes, the answer computed again from it, and a token's keys are capped
# (issue 19, item 12)
#
#   1. A keyed request of 100,000 IDs, idgen and idgen128: the registry
#      keeps a record of a few dozen bytes (0.6 kept every ID: 0.4 MB and
#      1.8 MB), and a retry gets the very same IDs, UUIDs' random bits
#      included: from the same gateway, after its kill -9 and restart, and
#      from another gateway of the registry.
#   2. --idempotency-keys 5: a token's sixth new key in the window is
#      refused with 429 and a JSON body; its stored keys still answer, and
#      another token is not affected.
use strict;
use warnings;

use lib 'test/perl';
use IdgenGateway;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $tmp = PostgreSQL::Test::Utils::tempdir('gwrecords');
my $registry = idgen_registry('registry', conf => "max_connections = 40\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);
my $tokens = gw_tokens_file("$tmp/tokens", app => [ 'ids', 'app-secret' ],
	other => [ 'ids', 'other-secret' ]);

# --- 1. small records, the same answer everywhere ------------------------------

my $ga = gw_start(name => 'ga', conn => $conn, tokens => $tokens, dir => $tmp,
	args => [ '--workers', '2' ]);
ok(gw_wait_healthy($ga), 'gateway a: healthy');
my %app = (secret => 'app-secret');
my %big = ();
for my $type ('idgen', 'idgen128')
{
	my @ids = gw_ids($ga, 100000, %app, type => $type,
		headers => { 'Idempotency-Key' => "big-$type" }, timeout => 120);
	is(scalar @ids, 100000, "a keyed request of 100,000 ${type}s: answered");
	$big{$type} = \@ids;
	my %u = map { $_ => 1 } @ids;
	is(scalar keys %u, 100000, "$type: 100,000 distinct IDs");
}
my $size = $registry->safe_psql('postgres',
	'SELECT max(pg_column_size(g.*)) FROM idgen.gateway_request AS g');
note("the largest record: $size bytes");
ok($size < 300, "a record of 100,000 IDs takes a few dozen bytes in the registry ($size)");

sub same_again
{
	my ($gw, $what) = @_;
	for my $type ('idgen', 'idgen128')
	{
		my @again = gw_ids($gw, 100000, %app, type => $type,
			headers => { 'Idempotency-Key' => "big-$type" }, timeout => 120);
		ok(@again == 100000 && join(',', @again) eq join(',', @{ $big{$type} }),
			"$what: the same 100,000 ${type}s");
	}
}
same_again($ga, 'a retry');
gw_stop($ga, 'KILL');
$ga = gw_start(name => 'ga', conn => $conn, tokens => $tokens, dir => $tmp, port => $ga->{port},
	args => [ '--workers', '2' ]);
ok(gw_wait_healthy($ga), 'gateway a: healthy again after kill -9');
same_again($ga, 'after a kill -9 and restart');
my $gb = gw_start(name => 'gb', conn => $conn, tokens => $tokens, dir => $tmp);
ok(gw_wait_healthy($gb), 'gateway b (one worker, not two): healthy');
same_again($gb, 'from another gateway');
my ($st, $j) = gw_req($gb, 'GET', '/v1/ids?count=99999', %app,
	headers => { 'Idempotency-Key' => 'big-idgen' });
is($st, 409, 'the key with another count: 409');
gw_stop($_) for ($ga, $gb);

# --- 2. a cap per token ------------------------------------------------------------

my $gc = gw_start(name => 'gc', conn => $conn, tokens => $tokens, dir => $tmp,
	args => [ '--idempotency-keys', '5' ]);
ok(gw_wait_healthy($gc), 'gateway c (--idempotency-keys 5): healthy');
# the two big keys of section 1 count towards app's five
my @status;
for my $k (1 .. 4)
{
	my ($s) = gw_req($gc, 'GET', '/v1/ids?count=2', %app, headers => { 'Idempotency-Key' => "cap-$k" });
	push @status, $s;
}
is("@status", '200 200 200 429', "app's third to fifth keys stored, its sixth refused");
my ($s429, $b429, $h429) = gw_req($gc, 'GET', '/v1/ids?count=2', %app,
	headers => { 'Idempotency-Key' => 'cap-9' });
is($s429, 429, 'over the cap: 429');
is(ref $b429 eq 'HASH' ? $b429->{error} : '', 'idempotency_keys_exceeded', '429 with a JSON body naming why');
ok(defined $h429->{'retry-after'}, '429 has Retry-After');
my ($s2) = gw_req($gc, 'GET', '/v1/ids?count=2', %app, headers => { 'Idempotency-Key' => 'cap-1' });
is($s2, 200, 'a stored key still answers over the cap');
my ($s3) = gw_req($gc, 'GET', '/v1/ids?count=2', %app);
is($s3, 200, 'requests without a key are not capped');
my ($s4) = gw_req($gc, 'GET', '/v1/ids?count=2', secret => 'other-secret',
	headers => { 'Idempotency-Key' => 'cap-9' });
is($s4, 200, "another token has keys of its own");
is($registry->safe_psql('postgres',
	"SELECT count(*) FROM idgen.gateway_request WHERE token_sha256 = sha256('app-secret')"),
	'5', 'the registry keeps five records of app');
gw_stop($gc);
done_testing();
