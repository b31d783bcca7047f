# 158_gateway_hold_floor.pl - a holder's validity is bounded by the
# registry's hold floor, its idgen.lease_ttl (R1a, docs/fleets.md)
#
#   1. A grant the registry lost outright (its row is not in the restored
#      copy) is covered only by the restored registry's hold, at least its
#      idgen.lease_ttl (10 s here).  g1 leases with --lease-ttl 60s from
#      r1, is frozen (SIGSTOP), r1 is replaced at the same address by r2,
#      restored from a dump taken before g1 leased; gx leases g1's worker
#      once r2's hold is over; g1 is thawed well within its 60 s: it must
#      not issue under that worker any more (its validity ended 10 s after
#      it last heard r1), and no ID is shared.
#   2. With the registry stopped, g1 (--lease-ttl 60s, registry lease_ttl
#      10s) stops issuing within about the hold floor, not the 60 s.
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
use Time::HiRes qw(usleep time);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwhold');
my $tokens = IdgenGwRun::tokens_file($tmp);
my $rport = PostgreSQL::Test::Cluster::get_free_port();
my $rconn = "host=127.0.0.1 port=$rport dbname=postgres";

sub registry_at
{
	my ($name) = @_;
	my $n = PostgreSQL::Test::Cluster->new($name, port => $rport);
	$n->init;
	$n->append_conf('postgresql.conf', "shared_preload_libraries = 'idgen'\n"
		  . "listen_addresses = '127.0.0.1'\nmax_connections = 40\n"
		  . "idgen.lease_ttl = '10s'\n");
	$n->start;
	return $n;
}

# --- 1. a grant lost with its row, its holder frozen past the hold ----------

my $r1 = registry_at('r1');
ok(wait_extension($r1), 'r1: the extension is there');
is($r1->safe_psql('postgres', "SELECT current_setting('idgen.lease_ttl')"), '10s',
	"r1's idgen.lease_ttl is 10 s");
my $dump = "$tmp/r1.dump";
$r1->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $r1->connstr('postgres') ],
	'pg_dump -Fc of r1, before g1 leases');

my $g1 = IdgenGwRun::start(name => 'g1', conn => $rconn, dir => $tmp, tokens => $tokens, ttl => '60s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g1) }), 'g1 (--lease-ttl 60s, on r1): healthy');
my $g1_lease = $r1->safe_psql('postgres',
	"SELECT region || ':' || worker || ':' || generation FROM idgen.worker_lease "
	  . "WHERE owner LIKE 'gateway:g1:%'");
my (undef, $g1_worker) = split /:/, $g1_lease;
my @g1_before = IdgenGwRun::ids($g1, 1000);
is(scalar @g1_before, 1000, "g1 issues under $g1_lease");
kill('STOP', $g1->{pid});
my $frozen_at = time();

$r1->stop;
my $r2 = registry_at('r2');
ok(wait_extension($r2), 'r2 at the same address: the extension is there');
my ($out, $errs) = ('', '');
ok(IPC::Run::run([ 'pg_restore', '-d', $r2->connstr('postgres'), $dump ], '>', \$out, '2>', \$errs),
	"r2 restored from the dump taken before g1's grant");
my $gx = IdgenGwRun::start(name => 'gx', conn => $rconn, dir => $tmp, tokens => $tokens, ttl => '30s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($gx) }), 'gx (on r2): healthy, after the hold');
my $gx_lease = $r2->safe_psql('postgres',
	"SELECT region || ':' || worker || ':' || generation FROM idgen.worker_lease "
	  . "WHERE owner LIKE 'gateway:gx:%'");
my ($g1_rw) = $g1_lease =~ /^(\d+:\d+):\d+$/;
my ($gx_rw) = $gx_lease =~ /^(\d+:\d+):\d+$/;
is($gx_rw, $g1_rw, "the restore lost g1's grant: gx leased g1's worker ($g1_rw)");
my $frozen = time() - $frozen_at;
note(sprintf('g1 frozen %.1f s so far', $frozen));
ok($frozen < 45, sprintf('g1 is thawed within its 60 s lease (frozen %.1f s)', $frozen));
kill('CONT', $g1->{pid});

# both draw at once, 5,000 IDs a request, for 3 s
my @g1_after = IdgenGwRun::draw_at_once($g1, $gx, "$tmp/ids_gx", 5000, 3);
{
	open(my $f, '>', "$tmp/ids_g1") or die;
	print $f join("\n", @g1_before, @g1_after), "\n";
	close $f;
}
$r2->safe_psql('postgres', "CREATE TABLE ids_g1 (id bigint); CREATE TABLE ids_gx (id bigint); "
	  . "COPY ids_g1 FROM '$tmp/ids_g1'; COPY ids_gx FROM '$tmp/ids_gx'");
ok($r2->safe_psql('postgres', 'SELECT count(*) FROM ids_gx') > 0, 'gx issued');
note('g1, thawed, issued ' . scalar(@g1_after) . ' IDs');
my $shared = $r2->safe_psql('postgres', 'SELECT count(*) FROM ids_g1 JOIN ids_gx USING (id)');
my $under = $r2->safe_psql('postgres', "SELECT count(*) FROM ids_g1 WHERE id > " . $g1_before[-1]
	  . " AND (idgen_decode(id::idgen)).worker = $g1_worker");
is($shared, '0', 'no ID issued by both g1 and gx');
is($under, '0', "g1, thawed within its 60 s but past the 10 s floor, issued nothing more under worker $g1_worker");
IdgenGwRun::stop($gx);
IdgenGwRun::stop($g1);

# --- 2. the registry stopped: a 60 s lease stops within about 10 s ----------

my $g2 = IdgenGwRun::start(name => 'g2', conn => $rconn, dir => $tmp, tokens => $tokens, ttl => '60s');
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g2) }), 'g2 (--lease-ttl 60s, on r2): healthy');
my @g2_ids = IdgenGwRun::ids_fast($g2, 10);
is(scalar @g2_ids, 10, 'g2 answers while the registry is up');
$r2->stop;
my $stopped_at = time();
my $refused_after;
while (time() < $stopped_at + 40)
{
	my @b = IdgenGwRun::ids_fast($g2, 10);
	if (!@b) { $refused_after = time() - $stopped_at; last; }
	usleep(200_000);
}
ok(defined $refused_after, 'g2 refuses before 40 s of the registry down (its lease is 60 s)');
note(sprintf('g2 refused %.1f s after the registry stopped', $refused_after)) if defined $refused_after;
IdgenGwRun::stop($g2);

done_testing();
