# 168_gateway_key_scope.pl - an Idempotency-Key belongs to a token, not to a
# token's name (issue 19, item 13)
#
# Two gateways of one registry with different tokens files, each naming a
# token "app", for two different clients (two secrets).  The same
# Idempotency-Key sent by each client must give each its own IDs: scoped by
# the name, the second client got the first one's IDs.  The scope is the
# token's SHA-256, the line of the tokens file: the same secret under
# another name (a renamed token) still finds its answers.
use strict;
use warnings;

use lib 'test/perl';
use IdgenGateway;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $tmp = PostgreSQL::Test::Utils::tempdir('gwscope');
my $registry = idgen_registry('registry', conf => "max_connections = 40\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);

my $tok1 = gw_tokens_file("$tmp/tokens1", app => [ 'ids', 'client-one-secret' ]);
my $tok2 = gw_tokens_file("$tmp/tokens2", app => [ 'ids', 'client-two-secret' ],
	renamed => [ 'ids', 'client-one-secret' ]);
my $g1 = gw_start(name => 'g1', conn => $conn, tokens => $tok1, dir => $tmp);
my $g2 = gw_start(name => 'g2', conn => $conn, tokens => $tok2, dir => $tmp);
ok(gw_wait_healthy($g1), 'gateway 1: healthy');
ok(gw_wait_healthy($g2), 'gateway 2: healthy');

my %key = (headers => { 'Idempotency-Key' => 'order-42' });
my @one = gw_ids($g1, 3, secret => 'client-one-secret', %key);
is(scalar @one, 3, 'client one (token "app" of gateway 1): three IDs');
my @two = gw_ids($g2, 3, secret => 'client-two-secret', %key);
is(scalar @two, 3, 'client two (token "app" of gateway 2), the same key: three IDs');
my %seen = map { $_ => 1 } @one;
is(scalar(grep { $seen{$_} } @two), 0,
	"client two does not get client one's IDs (the same key, the same token name)");

my @again = gw_ids($g2, 3, secret => 'client-two-secret', %key);
is("@again", "@two", 'client two again: its own IDs again');
my @one_b = gw_ids($g2, 3, secret => 'client-one-secret', %key);
is("@one_b", "@one", 'client one through gateway 2, where its token has another name: its IDs');

is($registry->safe_psql('postgres',
	"SELECT count(*) FROM idgen.gateway_request WHERE request_key = 'order-42' AND token_sha256 IN "
	  . "(sha256('client-one-secret'), sha256('client-two-secret'))"),
	'2', 'the registry keeps one record per token, under its SHA-256');

gw_stop($_) for ($g1, $g2);
done_testing();
