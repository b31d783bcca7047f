# 107_fleet_lost_fence.pl - a fence lost with the grant after it revives no holder
#
# Found by reading and by the SPIN model (src/lease.pml, its run
# fence-lost-0.9): node A holds a block; an operator fences it and node B
# is granted it at once, above A's end plus its allowance; the registry is
# then started from a copy taken before the fence (a physical backup here;
# an asynchronous standby is the same), which shows A as the holder.  A,
# which had not heard of the fence (cut off), renews in the copy (renewals
# go on during the incarnation hold) and issues past its old end, while B
# issues under its lost grant until its next renewal is refused: two
# issuers of one block.  The fix: a fence keeps the fenced lease's end
# (worker_lease.fenced_until) and nobody is granted the block before it,
# so a copy that lost the fence and the next grant finds A's lease run out
# and refuses its renewal.
#
# The holders are the node lease calls, made here by SQL (as in
# 106_fleet_expired_renewal.pl), so that A can be kept from hearing of the
# fence without a proxy.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $ttl = '30 s';
my $reg = idgen_registry('reg107', conf => "idgen.lease_ttl = '10s'\n",
	init => { allows_streaming => 1 });
ok(wait_extension($reg), 'registry: the extension exists');

# a remote node's lease of the block 96-111, pinned, as the worker asks it
sub acquire
{
	my ($node, $owner) = @_;
	return $node->safe_psql('postgres', qq{
SELECT first_worker || '|' || generation || '|' || coalesce(start_after::text, '') || '|' || registry_clock
FROM idgen.acquire_node_lease('$owner', 'sys-$owner', 1, 0, 96, 16, 7, idgen.clock(), interval '$ttl',
                              idgen.clock(), NULL, interval '0', true, interval '2 s')});
}

sub renew
{
	my ($node, $owner, $gen) = @_;
	return $node->safe_psql('postgres', qq{
SELECT CASE WHEN ok THEN 't' ELSE 'f' END || '|' || coalesce(other_generation::text, '') || '|' || coalesce(lease_until::text, '')
FROM idgen.renew_node_lease('$owner', 0, 96, 16, $gen, idgen.clock(), interval '$ttl',
                            idgen.clock(), 'active', 0, interval '2 s')});
}

my ($a_fw, $a_gen) = split /\|/, acquire($reg, 'A');
is($a_fw, '96', 'registry: A holds the block 96-111');
my $a_end = $reg->safe_psql('postgres',
	'SELECT lease_until FROM idgen.worker_lease WHERE region = 0 AND worker = 96');

# the copy: A still holds the block there
$reg->backup('before_fence');

$reg->safe_psql('postgres',
	'SELECT count(idgen_fence_worker(0, w)) FROM generate_series(96, 111) AS w');
like(renew($reg, 'A', $a_gen), qr/^f\|/, 'registry: A\'s renewal after the fence is refused');

# B asks for the block until it is granted (the worker retries likewise)
my $b;
ok( wait_for(sub {
		my ($fw) = split /\|/, ($b = acquire($reg, 'B'));
		return $fw eq '96';
	}),
	'registry: B is granted the fenced block');
my (undef, $b_gen, $b_start, $b_at) = split /\|/, $b;
is($reg->safe_psql('postgres', "SELECT '$b_start'::timestamptz >= '$a_end'::timestamptz + interval '2 s'"),
	't', 'registry: B starts above A\'s end plus its allowance');
is($reg->safe_psql('postgres', "SELECT '$b_at'::timestamptz >= '$a_end'::timestamptz"),
	't', 'registry: B is granted the block only once A\'s fenced lease has ended');
$reg->stop('immediate');

# the registry comes back from the copy, which lacks the fence and B's grant
my $copy = PostgreSQL::Test::Cluster->new('copy107');
$copy->init_from_backup($reg, 'before_fence');
$copy->start;
ok(wait_extension($copy), 'copy: started');
is($copy->safe_psql('postgres', 'SELECT owner FROM idgen.worker_lease WHERE region = 0 AND worker = 96'),
	'A', 'copy: A holds the block there');

my $r = renew($copy, 'A', $a_gen);
my ($ok, $other, $until) = split /\|/, $r;
is($ok, 'f', 'copy: A\'s renewal is refused (it would issue past its old end while B issues above it)')
	or diag("A renewed in the copy until $until, and renewing every 2 s it runs on past its old "
		  . "end $a_end, while B's lost grant, at $b_at, issues above $b_start");
is($other, '-1', 'copy: ... as a lease over here (A leases anew, under the hold)');

$copy->stop;
done_testing();
