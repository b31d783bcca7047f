# 166_registry_read_only.pl - a gateway and a node leave a registry member
# that answers it cannot write (issue 19, item 9)
#
# The registry is a primary and its streaming standby; the gateway and a
# fleet node list both members in their connection string (the primary
# first, target_session_attrs=read-write as docs/gateway.md says), so both
# connect to the primary.  Then the roles change without closing their
# connections: the standby is promoted, and the old primary is made
# read-only (default_transaction_read_only, as a demotion by an HA tool
# leaves it: reachable, answering, unable to write).  Every renewal there
# fails with 25006.  0.6 kept such a connection for good: the gateway's
# lease ran out and it refused for as long as the old primary answered,
# and so did the node.  Now both close it on the read-only answer and
# reconnect, to the member that can write, and issue again.
use strict;
use warnings;

use lib 'test/perl';
use IdgenGateway;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $tmp = PostgreSQL::Test::Utils::tempdir('gwreadonly');
my $primary = idgen_registry('primary', init => { allows_streaming => 1 },
	conf => "max_connections = 40\nidgen.lease_ttl = '2s'\n");
ok(wait_extension($primary), 'primary: the extension is there');
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

my $conn = 'host=127.0.0.1,127.0.0.1 port=' . $primary->port . ',' . $standby->port
  . ' dbname=postgres target_session_attrs=read-write';
my $tokens = gw_tokens_file("$tmp/tokens", app => [ 'ids', 'app-secret' ]);
my $gw = gw_start(name => 'g', conn => $conn, tokens => $tokens, dir => $tmp, ttl => '3s');
ok(gw_wait_healthy($gw), 'gateway: healthy, on the primary');
my $node = idgen_fleet_node('node', $conn, conf => "idgen.lease_ttl = '3s'\nidgen.lease_wait = '5s'\n");
ok(wait_state($node), 'node: active, leasing from the primary');

sub sessions
{
	my ($member, $app) = @_;
	return $member->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app' AND backend_type = 'client backend'");
}
is(sessions($primary, 'idgen-gateway'), '1', "the gateway's lease connection is on the primary");
is(sessions($primary, 'idgen lease worker'), '1', "the node's registry connection is on the primary");
$primary->wait_for_catchup($standby);

# the roles change under open connections
$standby->promote;
$primary->safe_psql('postgres',
	'ALTER SYSTEM SET default_transaction_read_only = on; SELECT pg_reload_conf()');
is($primary->safe_psql('postgres', 'SHOW default_transaction_read_only'), 'on',
	'the old primary answers, read-only');

ok(IdgenTest::wait_for(sub { sessions($standby, 'idgen-gateway') ne '0' && gw_ids($gw, 1, secret => 'app-secret') == 1 }),
	'the gateway reconnected to the new primary and issues again');
is(sessions($primary, 'idgen-gateway'), '0', 'and left the read-only member');
ok(IdgenTest::wait_for(sub { sessions($standby, 'idgen lease worker') ne '0' }),
	'the node reconnected to the new primary');
ok(wait_state($node), 'and is active again');
is(sessions($primary, 'idgen lease worker'), '0', 'and left the read-only member');
my ($owner) = $standby->safe_psql('postgres',
	"SELECT count(*) FROM idgen.worker_lease WHERE owner LIKE 'gateway:g:%' AND lease_until > clock_timestamp()");
is($owner, '1', "the new primary holds the gateway's live lease");

gw_stop($gw);
$node->stop;
done_testing();
