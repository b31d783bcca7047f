# 151_registry_restore_physical.pl - a registry started from a physical copy
# taken before a grant: the grant it lost is neither granted over nor named
# again
#
# Issue 19, item 1 (physical restore).  pg_basebackup of the registry
# "reg"; then reg leases worker 127 to an outside holder "g1" and stops;
# the copy is started.  It looks like a plain restart of reg (same system,
# same timeline), holds, and then grants worker 127 to "gx": at a
# generation g1 never had, after g1's lease plus its allowance, and g1's
# renewals and releases are refused, by owner and by (region, worker,
# generation) alone.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $reg = idgen_node('reg151', conf => "idgen.lease_ttl = '20s'\n",
	init => { allows_streaming => 1 });
ok(wait_state($reg), 'reg: active');
$reg->safe_psql('postgres', q{
SELECT idgen_release_worker(region, worker, generation)
FROM idgen_lease_worker('warmup', interval '1 s')});
ok( $reg->poll_query_until('postgres', q{
SELECT high_water + drift_allowance < idgen.clock()
FROM idgen.worker_lease WHERE region = 0 AND worker = 127}),
	'reg: worker 127 is free again');
$reg->backup('before');

my ($g1_worker, $g1_gen, $g1_end) = split /\|/, $reg->safe_psql('postgres', q{
SELECT worker || '|' || generation || '|' || (lease_until + idgen.registry_drift_allowance(interval '20 s'))
FROM idgen_lease_worker('g1', interval '20 s')});
is($g1_worker, '127', 'reg: g1 holds worker 127');
$reg->stop('immediate');

my $copy = PostgreSQL::Test::Cluster->new('copy151');
$copy->init_from_backup($reg, 'before');
$copy->start;
ok(wait_extension($copy), 'copy: started');

my ($rc, $o, $e) = $copy->psql('postgres',
	q{SELECT worker FROM idgen_lease_worker('gx', interval '20 s')});
isnt($rc, 0, 'copy: a lease right after the start is refused');
like($e, qr/grants no worker until/, '... by the hold (IR006)');

my $gx;
ok( wait_for(sub {
		my ($rc2, $o2) = $copy->psql('postgres', q{
SELECT worker || '|' || generation || '|' || idgen.clock()
FROM idgen_lease_worker('gx', interval '20 s')});
		$gx = $o2 if $rc2 == 0;
		return $rc2 == 0;
	}),
	'copy: gx is granted a worker once the hold is over');
my ($gx_worker, $gx_gen, $gx_at) = split /\|/, $gx // '||';
is($gx_worker, '127', 'copy: gx holds worker 127, the one g1 held');
isnt($gx_gen, $g1_gen, "copy: at another generation than g1's ($gx_gen, g1 had $g1_gen)");
is($copy->safe_psql('postgres', "SELECT '$gx_at'::timestamptz >= '$g1_end'::timestamptz"),
	't', 'copy: granted only after g1\'s lost lease plus its allowance had passed');

($rc, $o, $e) = $copy->psql('postgres', "SELECT idgen_renew_worker(0, 127, $g1_gen, 'g1')");
like($e, qr/is not leased/, 'copy: g1\'s renewal by owner is refused');
($rc, $o, $e) = $copy->psql('postgres', "SELECT idgen_renew_worker(0, 127, $g1_gen)");
like($e, qr/is not leased/, 'copy: g1\'s renewal by (region, worker, generation) is refused');
($rc, $o, $e) = $copy->psql('postgres', "SELECT idgen_release_worker(0, 127, $g1_gen)");
like($e, qr/is not leased/, 'copy: g1\'s release by (region, worker, generation) is refused');
is($copy->safe_psql('postgres', q{SELECT owner FROM idgen.worker_lease WHERE region = 0 AND worker = 127}),
	'gx', 'copy: gx still holds worker 127');
is($copy->safe_psql('postgres', "SELECT idgen_renew_worker(0, 127, $gx_gen, 'gx') > idgen.clock()"),
	't', 'copy: gx renews');

$copy->stop;
done_testing();
