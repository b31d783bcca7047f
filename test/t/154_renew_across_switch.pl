# 154_renew_across_switch.pl - an outside holder that has read every layout
# epoch renews through a layout switch
#
# Issue 19, item 7 (SQL part).  An outside lease ends at the next switch at
# the latest, and a renewal refuses a lease that ends within max_skew: in
# the last second before a switch every renewal was refused.  A holder that
# names the newest epoch it has read (known_epoch) and whose worker fits
# every later layout renews past the switch; one that does not is still
# capped at it.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = idgen_node('switch154', conf => "idgen.lease_ttl = '2s'\n");
ok(wait_state($node), 'active');
my $epoch = $node->safe_psql('postgres',
	q{SELECT idgen_schedule_layout(clock_timestamp() + interval '8 s', 2, 8, 11)});
my $switch = $node->safe_psql('postgres', "SELECT start_time FROM idgen.epoch WHERE version = $epoch");
my ($w, $g, $until) = split /\|/, $node->safe_psql('postgres',
	q{SELECT worker || '|' || generation || '|' || lease_until FROM idgen_lease_worker('gw', interval '10 s')});
my ($cw, $cg) = split /\|/, $node->safe_psql('postgres',
	q{SELECT worker || '|' || generation FROM idgen_lease_worker('capped', interval '10 s')});
is($node->safe_psql('postgres', "SELECT '$until'::timestamptz = '$switch'::timestamptz"),
	't', 'a new outside lease ends at the switch');
is( $node->safe_psql('postgres',
		"SELECT idgen_renew_worker(0, $cw, $cg, 'capped') = '$switch'::timestamptz"),
	't', 'a renewal that names no epoch stays capped at the switch');
is( $node->safe_psql('postgres',
		"SELECT idgen_renew_worker(0, $cw, $cg, 'capped', 1) = '$switch'::timestamptz"),
	't', 'so does one that names an older epoch');

# renew every 300 ms from 3 s before the switch to 1 s after it
$node->poll_query_until('postgres',
	"SELECT idgen.clock() > '$switch'::timestamptz - interval '3 s'");
my ($refused, $renewed, $past) = (0, 0, 0);
while ($node->safe_psql('postgres', "SELECT idgen.clock() < '$switch'::timestamptz + interval '1 s'") eq 't')
{
	my ($rc, $o, $e) = $node->psql('postgres',
		"SELECT idgen_renew_worker(0, $w, $g, 'gw', 2) > '$switch'::timestamptz");
	if ($rc == 0) { $renewed++; $past++ if $o eq 't'; }
	else { $refused++; diag $e; }
	usleep(300_000);
}
is($refused, 0, "no renewal with the newest epoch known was refused ($renewed renewed)");
cmp_ok($past, '>', 0, 'the renewals extended the lease past the switch');
is( $node->safe_psql('postgres',
		"SELECT lease_until > '$switch'::timestamptz FROM idgen.worker_lease WHERE region = 0 AND worker = $w"),
	't', 'the lease runs past the switch');

# the holder that did not name the epoch stayed capped at the switch
my ($rc, $o, $e) = $node->psql('postgres', "SELECT idgen_renew_worker(0, $cw, $cg, 'capped')");
like($e, qr/is not leased/, 'a holder that never named the epoch: its lease ended at the switch');

$node->stop;
done_testing();
