# 102_fleet_skew.pl - a node whose clock is 10 s ahead of its registry's
#
# A registry and one node, each its own cluster on loopback.  The node runs
# under Debian's libfaketime with its clock 10 s ahead.  At every lease and
# renewal the node compares its clock with the registry's; 10 s is beyond
# idgen.max_skew (default 1 s), so the node holds its lease but does not
# issue: state clock_skew with the measured offset as the reason, IR005
# from idgen_next(), and idgen.fleet on the registry shows the offset.
# Once its clock is put right it resumes by itself, issuing IDs whose time
# agrees with the registry's clock, and both events are in the registry's
# audit log.
#
# How the background worker gets the faked clock: see 020_clock_faketime.pl.
# Its first start is made to fail (its idgen.database does not exist yet),
# so the postmaster restarts it from its main loop, where libfaketime fakes.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT faketime_lib);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $faketime_lib = faketime_lib();
plan skip_all => 'libfaketime is not installed'
  unless defined $faketime_lib;

my $fake_file = PostgreSQL::Test::Utils::tempdir('faketime') . '/faketime.rc';

sub set_fake_offset
{
	my ($offset) = @_;
	open(my $fh, '>', "$fake_file.new") or die "cannot write $fake_file.new: $!";
	print $fh "$offset\n";
	close $fh or die "cannot close $fake_file.new: $!";
	rename("$fake_file.new", $fake_file) or die "cannot rename to $fake_file: $!";
	return;
}

my $registry = idgen_registry('registry', conf => q{
shared_buffers = 16MB
});
ok( wait_extension($registry),
	'registry: the extension exists');

set_fake_offset('+10');
my $node = idgen_fleet_node('ahead', $registry, conf => qq{
shared_buffers = 16MB
autovacuum = off
idgen.database = 'idgen_local'
idgen.lease_ttl = '4s'
idgen.lease_wait = '100ms'
}, start => 0);
{
	local $ENV{LD_PRELOAD}                   = $faketime_lib;
	local $ENV{FAKETIME_TIMESTAMP_FILE}      = $fake_file;
	local $ENV{FAKETIME_NO_CACHE}            = '1';
	local $ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
	$node->start;
}
$node->wait_for_log(qr/FATAL:  database "idgen_local" does not exist/);
$node->safe_psql('postgres', 'CREATE DATABASE idgen_local');
$node->safe_psql('postgres', 'CREATE EXTENSION idgen');

# the node's own processes are 10 s ahead of the registry's
is( $node->safe_psql('postgres', 'SELECT extract(epoch FROM clock_timestamp())::bigint')
	  - $registry->safe_psql('postgres', 'SELECT extract(epoch FROM clock_timestamp())::bigint')
	  >= 9 ? 'ahead' : 'not ahead',
	'ahead', 'libfaketime: the node\'s clock is 10 s ahead');

ok( $node->poll_query_until(
		'postgres', q{SELECT state FROM idgen_status() WHERE reason LIKE '%idgen.max_skew%'}, 'clock_behind'),
	'the node holds a lease but stops: state clock_behind, for the skew');
my ($reason, $skew, $worker) = split /\|/,
  $node->safe_psql('postgres', 'SELECT reason, clock_skew_ms, worker FROM idgen_status()');
like($reason, qr/this node's clock is \d+ ms ahead of the registry's \(give or take \d+ ms\); idgen.max_skew is 1000 ms/,
	'the reason gives the offset and idgen.max_skew');
ok($skew > 9000 && $skew < 11000, "idgen_status(): clock_skew_ms is about 10 s ($skew)");
{
	my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT idgen_next();");
	isnt($ret, 0, 'idgen_next() refuses');
	like($err, qr/ERROR:  IR005: idgen stopped issuing: this node's clock is too far from the registry's/,
		'with IR005, naming the clock skew');
}
my $owner = $node->safe_psql('postgres', 'SELECT owner FROM idgen_status()');
ok( $registry->poll_query_until(
		'postgres', qq{
SELECT node_state = 'clock_behind' AND clock_offset_ms BETWEEN 9000 AND 11000 AND live
FROM idgen.fleet WHERE holder = '$owner'}),
	'idgen.fleet: the node holds its lease, reports clock_skew and a 10 s offset');

# clock put right: the node resumes by itself
set_fake_offset('+0');
ok(wait_state($node),
	'clock put right: active again');
is( $node->safe_psql('postgres', 'SELECT abs(clock_skew_ms) < 1000 FROM idgen_status()'),
	't', 'idgen_status(): the skew is small now');
my $id = $node->safe_psql('postgres', 'SELECT idgen_next()');
is( $registry->safe_psql(
		'postgres', "SELECT abs(extract(epoch FROM idgen_timestamp('$id'::idgen) - clock_timestamp())) < 2"),
	't', 'its IDs carry the registry\'s time');
is( $node->safe_psql('postgres', 'SELECT worker FROM idgen_status()'),
	$worker, 'the node kept its lease throughout');
is( $registry->safe_psql(
		'postgres', qq{
SELECT string_agg(action, ',' ORDER BY at) FROM idgen.audit_log
WHERE action LIKE 'clock_skew%' AND actor = 'idgen lease worker of $owner'}),
	'clock_skew,clock_skew_cleared',
	'registry audit log: the skew and its end, signed by the node');

$node->stop;
$registry->stop;

done_testing();
