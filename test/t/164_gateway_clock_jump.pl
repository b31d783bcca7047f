# 164_gateway_clock_jump.pl - idgen-gateway follows the node's rule for a
# forward jump of the wall clock (issue 19 item 10)
#
# The clock shim moves the gateway's wall clock a minute ahead.  A node
# follows such a step only once it is confirmed (it lasted
# idgen.clock_jump_confirm, or the registry's clock agrees: src/clockpace.c)
# and issues on the monotonic clock meanwhile; the old gateway followed it
# at once, up to its lease end, and refused (503 lease_expired).  Now the
# gateway goes on issuing at the real time, and when the clock comes back
# it goes on at once: nothing was stamped in the future to catch up with.
use strict;
use warnings;

use lib 'test/perl';
use IdgenClockShim;
use IdgenGwRun;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $tmp = PostgreSQL::Test::Utils::tempdir('gwjump');
my $registry = idgen_registry('registry', conf => "max_connections = 40\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);
my $tokens = IdgenGwRun::tokens_file($tmp);

my $shim = IdgenClockShim->new;
my $g = IdgenGwRun::start(name => 'g', conn => $conn, dir => $tmp, tokens => $tokens, ttl => '6s',
	env => { LD_PRELOAD => $shim->{lib}, IDGEN_CLOCK_SHIM_FILE => $shim->{file} });
ok(IdgenTest::wait_for(sub { IdgenGwRun::healthy($g) }), 'g (under the clock shim): healthy');
my @a = IdgenGwRun::ids($g, 100);
is(scalar @a, 100, 'g issues');

$shim->set_offset_ms(60000);
my ($st, $j) = IdgenGwRun::req($g, 'GET', '/v1/ids?count=100', token => 1);
is($st, 200, 'the clock a minute ahead: IDs still (the step is not followed unconfirmed)');
my @b = $st == 200 ? @{ $j->{ids} } : ();
# through a few renewals: the registry's clock disagrees with the jump
usleep(2_500_000);
my @c = IdgenGwRun::ids($g, 100);
is(scalar @c, 100, 'still issuing two renewals later');
($st, $j) = IdgenGwRun::req($g, 'GET', '/healthz');
is($st, 200, '/healthz: 200 (its clock as stamped is not off the registry\'s)');
$shim->set_offset_ms(0);
($st, $j) = IdgenGwRun::req($g, 'GET', '/v1/ids?count=100', token => 1);
is($st, 200, 'the clock back: IDs at once, nothing to catch up with');
my @d = $st == 200 ? @{ $j->{ids} } : ();
my @all = (@a, @b, @c, @d);
is($registry->safe_psql('postgres',
	"SELECT count(*) FROM unnest('{" . join(',', @all) . "}'::idgen[]) AS x "
	  . "WHERE (idgen_decode(x)).ts > clock_timestamp() + interval '2 seconds'"),
	'0', 'no ID carries the time of the jump');
my $asc = 1;
for my $i (1 .. $#all) { $asc = 0 unless $all[ $i - 1 ] < $all[$i]; }
ok(@all == 400 && $asc, 'and all of them ascend');
IdgenGwRun::stop($g);
done_testing();
