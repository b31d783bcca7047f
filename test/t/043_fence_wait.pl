# 043_fence_wait.pl - after a fence, a fleet node says what it waits for
#
# idgen_fence_worker() on the registry raises the fenced worker's mark to
# the end of the lease it took away plus the holder's drift allowance: the
# holder may have stamped IDs up to then.  After idgen_enable() the node
# leases again, and its IDs must start above that mark, which lies up to a
# lease's length ahead of the clock.  While it waits for the clock to pass
# it, the node
#   - reports clock_behind in idgen_status() with a reason that names the
#     mark and the wait, and the same state in the registry's idgen.fleet;
#   - refuses idgen_next() with a message about the mark, not a hint to
#     check the system clock, which is fine;
# and once the clock passed the mark it is active with no stale reason,
# issues above every earlier ID, and idgen.fleet says active again.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# a lease long enough that the mark is well ahead of the clock after the
# fence, short enough that the test waits for it
my $ttl = '20s';
my $registry = idgen_registry('fwreg', conf => "idgen.lease_ttl = '$ttl'\n");
ok(wait_extension($registry), 'the registry has the extension');
my $node = idgen_fleet_node('fwnode', $registry,
	conf => "idgen.lease_ttl = '$ttl'\n");
ok(wait_extension($node), 'the fleet node has the extension');
ok(wait_state($node), 'the fleet node is active');

my ($worker) = $node->safe_psql('postgres',
	'SELECT worker FROM idgen_status()');
my ($region) = $node->safe_psql('postgres',
	'SELECT region FROM idgen_status()');
# the registry is a node of its own fleet too: the fleet node's row by name
my $holder = $node->safe_psql('postgres', 'SELECT owner FROM idgen_status()');
my $before = $node->safe_psql('postgres',
	'SELECT max(x)::bigint FROM idgen_next_batch(1000) AS x');
ok($before > 0, 'the node issued IDs before the fence');

$registry->safe_psql('postgres',
	"SELECT idgen_fence_worker($region, $worker)");
ok(wait_state($node, 'fenced'), 'the node heard of the fence');
$node->safe_psql('postgres', 'SELECT idgen_enable()');

# the node leases again and must wait for the clock to pass the mark
ok( $node->poll_query_until('postgres',
		"SELECT state = 'clock_behind' FROM idgen_status()"),
	'after idgen_enable() the node holds a lease and waits for the clock: clock_behind');
my $reason = $node->safe_psql('postgres',
	'SELECT reason FROM idgen_status()');
like($reason,
	qr/^waiting \d+ s for the clock to pass .+, the starting mark of workers \d+-\d+: an earlier holder of the block \(fenced, or ended without a clean release\) may have issued IDs up to then$/,
	'idgen_status().reason says what it waits for, and why');

my ($stdout, $stderr);
$node->psql('postgres', 'SELECT idgen_next()',
	stdout => \$stdout, stderr => \$stderr,
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($stderr, qr/idgen waits \d+ ms for the clock to pass its lease's starting mark/,
	'idgen_next() refuses naming the lease\'s starting mark');
like($stderr, qr/Nothing is wrong with the clock/,
	'and its hint does not send the user to the clock');
unlike($stderr, qr/time synchronisation|NTP/,
	'nor to NTP');
like($stderr, qr/IR00\d/, 'with a retry-soon SQLSTATE (class IR)');

ok( $registry->poll_query_until('postgres',
		"SELECT node_state = 'clock_behind' FROM idgen.fleet WHERE holder = '$holder'"),
	'the registry\'s idgen.fleet shows the same state, clock_behind');

# the clock passes the mark: active, no stale reason, IDs above all earlier
ok(wait_state($node), 'the node turns active once the clock passed the mark');
is($node->safe_psql('postgres', 'SELECT coalesce(reason, \'\') FROM idgen_status()'),
	'', 'and its reason is gone');
my $after = $node->safe_psql('postgres',
	'SELECT min(x)::bigint FROM idgen_next_batch(1000) AS x');
cmp_ok($after, '>', $before, 'its IDs go on above every earlier one');
ok( $registry->poll_query_until('postgres',
		"SELECT node_state = 'active' FROM idgen.fleet WHERE holder = '$holder'"),
	'idgen.fleet says active again');

$node->stop;
$registry->stop;
done_testing();
