# 160_gateway_lease_client.pl - idgen-gateway's lease client (issue 19)
#
#   1. Item 1: a gateway frozen (SIGSTOP) past its lease's validity while
#      the registry lost its grant (the worker's row rewound to before it,
#      as a restore from an older backup leaves it) and another gateway got
#      the same worker at the same generation: thawed, it gives its lease up
#      and leases anew, and never issues under that worker again (a renewal
#      by region, worker and generation would extend the other's lease, and
#      both would issue the same IDs).
#   2. Item 5, lease part: each worker of an 8-worker gateway is leased in
#      a statement of its own (its own transaction: the rows' xmin differ),
#      not all of them in one long transaction holding the registry's locks.
#   3. Item 11: a --lease-ttl at or under 1.5 x the registry's max_skew
#      cannot be renewed: the gateway refuses it with a message and exits,
#      instead of leasing and releasing in a loop.
use strict;
use warnings;

use lib 'test/perl';
use IdgenGwRun;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX ();
use Time::HiRes qw(usleep);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwlease');
my $registry = idgen_registry('registry', conf => "max_connections = 40\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);
my $tokens = IdgenGwRun::tokens_file($tmp);

sub q1 { return $registry->safe_psql('postgres', $_[0]); }

# the (region, worker, generation) rows a gateway named $name holds
sub held
{
	my ($name) = @_;
	return q1("SELECT string_agg(region || ':' || worker || ':' || generation, ',' ORDER BY worker) "
		  . "FROM idgen.worker_lease WHERE owner LIKE 'gateway:$name:%' AND lease_until > idgen.clock()");
}

# --- 1. frozen past its validity, its worker given away at its generation -------

my $g1 = IdgenGwRun::start(name => 'g1', conn => $conn, dir => $tmp, tokens => $tokens, ttl => '3s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g1) }), 'g1: healthy');
my $g1_lease = held('g1');
my ($region, $worker, $gen) = split /:/, $g1_lease;
ok(defined $gen, "g1 holds worker $worker of region $region at generation $gen");
my @before = IdgenGwRun::ids($g1, 100);
is(scalar @before, 100, 'g1 issues');

kill('STOP', $g1->{pid});
# the registry loses g1's grant: the row as a backup taken before it has it
# (none: the worker had never been leased)
q1("DELETE FROM idgen.worker_lease WHERE region = $region AND worker = $worker");
my $gx = IdgenGwRun::start(name => 'gx', conn => $conn, dir => $tmp, tokens => $tokens, ttl => '30s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($gx) }), 'gx: healthy');
is(held('gx'), $g1_lease, "gx leased the same worker at the same generation ($g1_lease)");
my $gx_until = q1("SELECT lease_until FROM idgen.worker_lease WHERE region = $region AND worker = $worker");

# frozen well past its validity (3 s less the margin)
usleep(5_000_000);
kill('CONT', $g1->{pid});
my @after;
ok(IdgenTest::wait_for(sub { my @b = IdgenGwRun::ids($g1, 100); push @after, @b; @after >= 300 }),
	'g1 thawed: it issues again');
my $g1_now = held('g1');
my $g1_worker = (split /:/, $g1_now)[1];
ok(defined $g1_worker && $g1_worker != $worker, "g1 leased anew: another worker ($g1_now)");
is(q1("SELECT count(*) FROM unnest('{" . join(',', @after) . "}'::idgen[]) AS x "
	  . "WHERE (idgen_decode(x)).worker = $worker"),
	'0', "g1 issued nothing more under worker $worker, which gx holds");
like(q1("SELECT owner FROM idgen.worker_lease WHERE region = $region AND worker = $worker"),
	qr/^gateway:gx:/, "worker $worker is still gx's");
my @gx_ids = IdgenGwRun::ids($gx, 1000);
is(scalar @gx_ids, 1000, 'gx issues');
my %seen;
$seen{$_}++ for @before, @after, @gx_ids;
is(scalar(grep { $seen{$_} > 1 } keys %seen), 0, 'no ID shared by g1 and gx');
IdgenGwRun::stop($gx);
IdgenGwRun::stop($g1);

# --- 2. every worker leased in its own statement -------------------------------

my $g8 = IdgenGwRun::start(name => 'g8', conn => $conn, dir => $tmp, tokens => $tokens,
	ttl => '30s', args => [ '--workers', '8' ]);
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g8) }), 'g8 (8 workers): healthy');
is(q1("SELECT count(*) || '/' || count(DISTINCT xmin::text) FROM idgen.worker_lease "
	  . "WHERE owner LIKE 'gateway:g8:%'"),
	'8/8', 'its 8 workers were each leased (and renewed) in a transaction of their own');
IdgenGwRun::stop($g8);

# --- 3. a lease TTL the registry can never renew ---------------------------------

my $gs = IdgenGwRun::start(name => 'gs', conn => $conn, dir => $tmp, tokens => $tokens, ttl => '1500ms');
my $exited = 0;
for (1 .. 600) { if (waitpid($gs->{pid}, POSIX::WNOHANG()) == $gs->{pid}) { $exited = 1; last; } usleep(100_000); }
my $status = $?;
ok($exited, 'a --lease-ttl of 1.5 x idgen.max_skew: the gateway exits');
ok($exited && $status != 0, 'with a failure status');
like(IdgenGwRun::log_text($gs), qr/lease-ttl.*max_skew/, 'and says why');
IdgenGwRun::stop($gs, 'KILL') unless $exited;
is(q1("SELECT count(*) FROM idgen.audit_log WHERE detail LIKE '%owner gateway:gs:%'"),
	'0', 'it leased nothing');

done_testing();
