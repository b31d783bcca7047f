# 105_fleet_split_brain.pl - a node that hears two registries stops
#
# A registry and its streaming standby; the standby is promoted while the
# old primary still runs (a registry split brain: both have the node's rows,
# both accept writes).  The node reaches them through one two-host
# connection string with target_session_attrs=read-write, and each is made
# read-only in turn so the node's worker lands on the other one:
#
#   1. on the promoted standby its renewal succeeds (its rows are there): a
#      new incarnation, logged and shown in idgen_status(), and the node
#      keeps issuing;
#   2. back on the old primary it meets the first incarnation again after
#      another one answered: it stops at once (fenced) and says that two
#      registries answer at once.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $r1 = idgen_registry('registry', conf => "shared_buffers = 16MB\nidgen.lease_ttl = '10s'\n",
	init => { allows_streaming => 1 });
ok(wait_extension($r1), 'registry: the extension exists');
$r1->backup('b1');
my $r2 = PostgreSQL::Test::Cluster->new('registry_standby');
$r2->init_from_backup($r1, 'b1', has_streaming => 1);
$r2->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'\n");
$r2->start;

my $both = 'host=127.0.0.1,127.0.0.1 port=' . $r1->port . ',' . $r2->port
  . ' dbname=postgres target_session_attrs=read-write';
my $node = idgen_fleet_node('node', $both, conf => qq{
shared_buffers = 16MB
idgen.lease_ttl = '10s'
});
ok(wait_state($node), 'node: active on the primary');
$r1->wait_for_catchup($r2);
my $owner = status($node, 'owner')->{owner};
ok( $r2->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM idgen.worker_lease WHERE owner = '$owner'"),
	'standby: has the node\'s rows');

# the split brain: the standby is promoted while the primary runs on
$r2->promote;
my $inc_a = status($node, 'registry_incarnation')->{registry_incarnation};
like($inc_a, qr/^\d+\/1\/\d+$/, "node: incarnation $inc_a, timeline 1");

# send the node's worker to the other registry
sub move_to
{
	my ($from, $to) = @_;
	$to->safe_psql('postgres', 'ALTER SYSTEM RESET default_transaction_read_only');
	$to->reload;
	$from->safe_psql('postgres', 'ALTER SYSTEM SET default_transaction_read_only = on');
	$from->reload;
	$from->poll_query_until('postgres', 'SHOW default_transaction_read_only', 'on');
	$from->safe_psql('postgres', q{
SELECT pg_terminate_backend(pid) FROM pg_stat_activity
WHERE application_name = 'idgen lease worker' AND client_addr IS NOT NULL});
}

move_to($r1, $r2);
ok( wait_for(sub { status($node, 'registry_incarnation')->{registry_incarnation} =~ m{/2/} }),
	'node: renewed on the promoted standby, incarnation of timeline 2');
is(status($node, 'state')->{state}, 'active', 'node: still active there (its rows are there)');
$node->safe_psql('postgres', 'SELECT idgen_next() FROM generate_series(1, 100)');
pass('node: issues');

move_to($r2, $r1);
ok(wait_state($node, 'fenced'), 'node: stopped once the first incarnation answered again');
like(status($node, 'reason')->{reason},
	qr/two registries answer at once: .* answered as incarnation \Q$inc_a\E, then \S+, then \Q$inc_a\E again/,
	'node: idgen_status() says two registries answer');
my ($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT idgen_next();");
like($err, qr/IA002/, 'node: refuses with IA002');
ok( $node->log_contains('registry_incarnation_changed|is a new incarnation'),
	'node: the change of incarnation was logged');

$node->stop;
$r2->stop;
$r1->stop;
done_testing();
