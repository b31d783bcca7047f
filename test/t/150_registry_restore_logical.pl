# 150_registry_restore_logical.pl - a registry restored from a pg_dump taken
# before a grant: the grant it lost is neither granted over nor named again
#
# Issue 19, item 1 (logical restore).  The registry "reg" leases worker 127
# to an outside holder "g1" after the dump was taken, and is then lost.  The
# dump is restored into a fresh registry "dst".  There:
#   - nothing is granted while g1's lost lease may still run (a hold, as
#     after a physical restore): the first lease is refused with IR006, and
#     the one granted after it starts after g1's lease end plus its
#     allowance;
#   - another holder "gx" gets worker 127, at a generation g1 never had;
#   - g1's renewal and release are refused, by owner (the 4- and 5-argument
#     calls of 0.7 gateways) and by (region, worker, generation) alone (the
#     3-argument calls of 0.6 gateways).
# The lost lease's TTL is the registry's idgen.lease_ttl: the hold covers a
# lost lease up to that long (docs/fleets.md).
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $conf = "idgen.lease_ttl = '20s'\n";
my $reg = idgen_node('reg150', conf => $conf);
ok(wait_state($reg), 'reg: active');

# worker 127 once leased and released, so the dump carries its row (the
# generation a later grant counts from); then wait out its mark
$reg->safe_psql('postgres', q{
SELECT idgen_release_worker(region, worker, generation)
FROM idgen_lease_worker('warmup', interval '1 s')});
ok( $reg->poll_query_until('postgres', q{
SELECT high_water + drift_allowance < idgen.clock()
FROM idgen.worker_lease WHERE region = 0 AND worker = 127}),
	'reg: worker 127 is free again');

my $dump = $reg->basedir . '/reg.dump';
$reg->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $reg->connstr('postgres') ],
	'pg_dump -Fc of the registry');

# the grant the dump lacks
my ($g1_worker, $g1_gen, $g1_end) = split /\|/, $reg->safe_psql('postgres', q{
SELECT worker || '|' || generation || '|' || (lease_until + idgen.registry_drift_allowance(interval '20 s'))
FROM idgen_lease_worker('g1', interval '20 s')});
is($g1_worker, '127', 'reg: g1 holds worker 127');
$reg->stop('immediate');

my $dst = idgen_node('dst150', conf => $conf);
ok(wait_state($dst), 'dst: active');
my ($out, $err) = ('', '');
ok(IPC::Run::run([ 'pg_restore', '-d', $dst->connstr('postgres'), $dump ], '>', \$out, '2>', \$err),
	'pg_restore into dst');
is($err, '', 'pg_restore says nothing on stderr');

# the first lease after the restore: refused, g1's lease may still run
my ($rc, $o, $e) = $dst->psql('postgres',
	q{SELECT worker FROM idgen_lease_worker('gx', interval '20 s')}, on_error_stop => 1);
isnt($rc, 0, 'dst: a lease right after the restore is refused');
like($e, qr/grants no worker until/, '... by the hold (IR006)');

my $gx;
ok( wait_for(sub {
		my ($rc2, $o2) = $dst->psql('postgres', q{
SELECT worker || '|' || generation || '|' || idgen.clock()
FROM idgen_lease_worker('gx', interval '20 s')});
		$gx = $o2 if $rc2 == 0;
		return $rc2 == 0;
	}),
	'dst: gx is granted a worker once the hold is over');
my ($gx_worker, $gx_gen, $gx_at) = split /\|/, $gx // '||';
is($gx_worker, '127', 'dst: gx holds worker 127, the one g1 held');
isnt($gx_gen, $g1_gen, "dst: at another generation than g1's ($gx_gen, g1 had $g1_gen)");
is($dst->safe_psql('postgres', "SELECT '$gx_at'::timestamptz >= '$g1_end'::timestamptz"),
	't', 'dst: granted only after g1\'s lost lease plus its allowance had passed');

# g1 comes back: every call of its is refused
($rc, $o, $e) = $dst->psql('postgres', "SELECT idgen_renew_worker(0, 127, $g1_gen, 'g1')");
like($e, qr/is not leased/, 'dst: g1\'s renewal by owner is refused');
($rc, $o, $e) = $dst->psql('postgres', "SELECT idgen_renew_worker(0, 127, $g1_gen, 'g1', 2)");
like($e, qr/is not leased/, 'dst: ... also with its known epoch');
($rc, $o, $e) = $dst->psql('postgres', "SELECT idgen_renew_worker(0, 127, $g1_gen)");
like($e, qr/is not leased/, 'dst: g1\'s renewal by (region, worker, generation) is refused');
($rc, $o, $e) = $dst->psql('postgres',
	"SELECT idgen_release_worker(0, 127, $g1_gen, 'g1', idgen.clock())");
like($e, qr/is not leased/, 'dst: g1\'s release by owner is refused');
($rc, $o, $e) = $dst->psql('postgres', "SELECT idgen_release_worker(0, 127, $g1_gen)");
like($e, qr/is not leased/, 'dst: g1\'s release by (region, worker, generation) is refused');
is($dst->safe_psql('postgres', q{SELECT owner FROM idgen.worker_lease WHERE region = 0 AND worker = 127}),
	'gx', 'dst: gx still holds worker 127');
is($dst->safe_psql('postgres', "SELECT idgen_renew_worker(0, 127, $gx_gen, 'gx') > idgen.clock()"),
	't', 'dst: gx renews');

$dst->stop;
done_testing();
