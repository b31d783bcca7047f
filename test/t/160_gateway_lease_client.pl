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
#   4. Item 1 end to end: g1 holds a worker of registry r1 and is frozen
#      (SIGSTOP); r1 is replaced by r2, restored (pg_dump -Fc, pg_restore)
#      from a dump taken before g1's grant, at the same address; gx leases
#      the same worker from r2, at the same generation; g1 is thawed, past
#      its validity, and both draw IDs at once: none is shared.  (A holder
#      thawed within its validity is kept from gx's lease only by the
#      registry's renewal by holder, idgen_renew_worker(..., owner, ...),
#      which this gateway calls where the registry has it.)
use strict;
use warnings;

use lib 'test/perl';
use IdgenGwRun;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
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

# --- 4. end to end: a registry restored from a dump older than g1's grant ---------

my $rport = PostgreSQL::Test::Cluster::get_free_port();
my $rconn = "host=127.0.0.1 port=$rport dbname=postgres";
sub registry_at
{
	my ($name) = @_;
	my $n = PostgreSQL::Test::Cluster->new($name, port => $rport);
	$n->init;
	$n->append_conf('postgresql.conf', "shared_preload_libraries = 'idgen'\n"
		  . "listen_addresses = '127.0.0.1'\nmax_connections = 40\n");
	$n->start;
	return $n;
}

# g1 frozen for at least $freeze seconds; returns the restored registry
sub restore_scenario
{
	my ($tag, $freeze, $ttl) = @_;
	my $r1 = registry_at("r1$tag");
	ok(wait_extension($r1), "$tag: r1: the extension is there");
	my $dump = "$tmp/r1$tag.dump";
	$r1->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $r1->connstr('postgres') ],
		"$tag: pg_dump -Fc of r1, before g1 leases");

	my $e1 = IdgenGwRun::start(name => "e1$tag", conn => $rconn, dir => $tmp, tokens => $tokens, ttl => $ttl);
	ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($e1) }), "$tag: g1 (on r1): healthy");
	my $e1_lease = $r1->safe_psql('postgres',
		"SELECT region || ':' || worker || ':' || generation FROM idgen.worker_lease "
		  . "WHERE owner LIKE 'gateway:e1$tag:%'");
	my (undef, $e1_worker) = split /:/, $e1_lease;
	my @e1_before = IdgenGwRun::ids($e1, 1000);
	is(scalar @e1_before, 1000, "$tag: g1 issues under $e1_lease");
	kill('STOP', $e1->{pid});
	my $frozen_at = time();

	$r1->stop;
	my $r2 = registry_at("r2$tag");
	ok(wait_extension($r2), "$tag: r2 at the same address: the extension is there");
	my ($out, $errs) = ('', '');
	ok(IPC::Run::run([ 'pg_restore', '-d', $r2->connstr('postgres'), $dump ], '>', \$out, '2>', \$errs),
		"$tag: r2 restored from the dump taken before g1's grant");
	my $ex = IdgenGwRun::start(name => "ex$tag", conn => $rconn, dir => $tmp, tokens => $tokens, ttl => '30s');
	ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($ex) }), "$tag: gx (on r2): healthy");
	# the restore lost g1's grant: gx gets g1's worker, but never g1's
	# generation (0.6 gave it again: 0:127:1 both)
	my $ex_lease = $r2->safe_psql('postgres',
		"SELECT region || ':' || worker || ':' || generation FROM idgen.worker_lease "
		  . "WHERE owner LIKE 'gateway:ex$tag:%'");
	my ($e1_rw, $e1_gen) = $e1_lease =~ /^(\d+:\d+):(\d+)$/;
	my ($ex_rw, $ex_gen) = $ex_lease =~ /^(\d+:\d+):(\d+)$/;
	is($ex_rw, $e1_rw, "$tag: gx leased g1's worker ($e1_rw)");
	isnt($ex_gen, $e1_gen, "$tag: at another generation than g1's ($e1_gen, gx $ex_gen)");

	sleep(1) while time() < $frozen_at + $freeze;
	kill('CONT', $e1->{pid});

	# both draw at once, 5,000 IDs a request: each runs over a millisecond or
	# two, so two holders of one worker meet in the same ones
	my @e1_after = IdgenGwRun::draw_at_once($e1, $ex, "$tmp/ids_ex$tag", 5000, 3);
	{
		open(my $f, '>', "$tmp/ids_e1$tag") or die;
		print $f join("\n", @e1_before, @e1_after), "\n";
		close $f;
	}
	$r2->safe_psql('postgres', "CREATE TABLE ids_e1 (id bigint); CREATE TABLE ids_ex (id bigint); "
		  . "COPY ids_e1 FROM '$tmp/ids_e1$tag'; COPY ids_ex FROM '$tmp/ids_ex$tag'");
	ok($r2->safe_psql('postgres', 'SELECT count(*) FROM ids_ex') > 0, "$tag: gx issued");
	ok(@e1_after > 0, "$tag: g1, thawed, issued again: " . scalar @e1_after);
	my $shared = $r2->safe_psql('postgres', 'SELECT count(*) FROM ids_e1 JOIN ids_ex USING (id)');
	my $under = $r2->safe_psql('postgres', "SELECT count(*) FROM ids_e1 WHERE id > " . $e1_before[-1]
		  . " AND (idgen_decode(id::idgen)).worker = $e1_worker");
	IdgenGwRun::stop($ex);
	IdgenGwRun::stop($e1);
	$r2->stop;
	return ($shared, $under, $e1_worker);
}

# frozen past its validity (3 s less the margin): it gives the lease up
my ($shared, $under, $w) = restore_scenario('a', 5, '3s');
is($shared, '0', 'frozen past its validity: no ID issued by both g1 and gx');
is($under, '0', "and g1 issued nothing more under worker $w");

# thawed the moment gx issues, with a 10 s lease: the restored registry
# holds its grants until a lease the dump lacks has run out (its
# idgen.lease_ttl, 30 s, and allowances), so g1's validity has ended by
# then too, and its renewal by holder would be refused anyway (0.6 granted
# at once and renewed g1 into gx's lease: 191,584 IDs shared)
($shared, $under, $w) = restore_scenario('b', 0, '10s');
is($shared, '0', 'thawed as soon as gx issues: no ID issued by both g1 and gx');
is($under, '0', "and g1 issued nothing more under worker $w");

done_testing();
