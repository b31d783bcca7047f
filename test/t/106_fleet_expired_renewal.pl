# 106_fleet_expired_renewal.pl - a registry never brings an expired lease back
#
# Found by the SPIN model (src/lease.pml, its run v2-r7-as-written): after a
# failover to a standby that lacked the newest writes, a node's row there
# may show its lease as expired while the lost primary had already granted
# the block again.  Had the node's renewal extended that row, two issuers
# would hold the block at once.  So a renewal extends only a lease that
# still runs by the registry's clock, less idgen.max_skew (how far the
# clocks of the registry's members may differ); otherwise its holder leases
# anew, under the incarnation hold.
#
#   1. SQL: idgen.renew_node_lease refuses a row expired, or ending within
#      the registry's clock allowance, with generation -1 (expired here),
#      and extends one that runs; idgen_renew_worker likewise for an
#      outside lease.
#   2. A node whose rows the registry holds as expired (set behind its back,
#      as a lagging standby would have them) is not fenced: it leases anew,
#      at a new generation, and its IDs go on ascending.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $registry = idgen_registry('registry', conf => "shared_buffers = 16MB\nidgen.lease_ttl = '10s'\n");
ok(wait_extension($registry), 'registry: the extension exists');

# --- 1. the SQL rule ---------------------------------------------------------

sub renew
{
	my ($owner, $gen) = @_;
	return $registry->safe_psql('postgres', qq{
SELECT ok, other_owner IS NULL, other_generation
FROM idgen.renew_node_lease('$owner', 0, 40, 1, $gen, clock_timestamp(), interval '10 s',
                            clock_timestamp(), 'active', 0, interval '2 s')});
}

$registry->safe_psql('postgres', q{
INSERT INTO idgen.worker_lease (region, worker, owner, generation, lease_until, high_water,
                                node_sysid, timeline, remote, ttl)
VALUES (0, 40, 'node:test', 7, clock_timestamp() - interval '1 s', clock_timestamp(),
        '1', 1, true, interval '10 s')});
is(renew('node:test', 7), 'f|t|-1', 'renewal of an expired row: refused, expired here (-1)');

$registry->safe_psql('postgres', q{
UPDATE idgen.worker_lease SET lease_until = clock_timestamp() + interval '300 ms'
WHERE region = 0 AND worker = 40});
is(renew('node:test', 7), 'f|t|-1',
	'renewal of a row ending within the registry clock allowance (max_skew 1 s): refused');

$registry->safe_psql('postgres', q{
UPDATE idgen.worker_lease SET lease_until = clock_timestamp() + interval '5 s'
WHERE region = 0 AND worker = 40});
like(renew('node:test', 7), qr/^t\|t\|$/, 'renewal of a running row: extended');
is(renew('node:test', 8), 'f|f|7', 'renewal at another generation: refused, the holder named');
$registry->safe_psql('postgres', 'DELETE FROM idgen.worker_lease WHERE region = 0 AND worker = 40');

# a lease row inserted by hand counts as a restore (issue 19, item 1): the
# registry holds before it grants again
my $outside;
ok( wait_for(sub {
		my ($rc, $o) = $registry->psql('postgres',
			q{SELECT region || '|' || worker || '|' || generation FROM idgen_lease_worker('outside-106', interval '10 s')});
		$outside = $o if $rc == 0;
		return $rc == 0;
	}),
	'an outside lease is granted once the hold the inserted row started is over');
my ($ow, $ww, $gw) = split /\|/, $outside // '||';
$registry->safe_psql('postgres', qq{
UPDATE idgen.worker_lease SET lease_until = clock_timestamp() + interval '200 ms'
WHERE region = $ow AND worker = $ww});
my ($rc, $out, $err) = $registry->psql('postgres',
	"SELECT idgen_renew_worker($ow, $ww, $gw)");
isnt($rc, 0, 'outside lease ending within the allowance: idgen_renew_worker refuses');
like($err, qr/is not leased at generation/, '... saying the lease is over');

# --- 2. a node whose rows expired behind its back -----------------------------

my $node = idgen_fleet_node('node', registry_conn($registry), conf => qq{
shared_buffers = 16MB
idgen.lease_ttl = '10s'
});
ok(wait_state($node), 'node: active');
my $before = status($node, 'generation')->{generation};
my $first = $node->safe_psql('postgres', 'SELECT max(idgen_next()::bigint) FROM generate_series(1, 1000)');

my $owner = status($node, 'owner')->{owner};
$registry->safe_psql('postgres', qq{
UPDATE idgen.worker_lease SET lease_until = clock_timestamp() - interval '1 s'
WHERE owner = '$owner'});

ok( wait_for(sub { (status($node, 'generation')->{generation} // 0) > $before }),
	'node: leased anew, at a new generation, after the registry held its lease as expired');
my $state = status($node, 'state')->{state};
isnt($state, 'fenced', "node: not fenced (state $state)");
ok(wait_state($node), 'node: active again');
my $after = $node->safe_psql('postgres', 'SELECT min(idgen_next()::bigint) FROM generate_series(1, 1000)');
cmp_ok($after, '>', $first, 'node: its IDs go on ascending across the new lease');
ok( $registry->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM idgen.audit_log WHERE action = 'lease_lost' AND detail LIKE '%as expired%'"),
	'registry: the node wrote down why it leased anew');

done_testing();
