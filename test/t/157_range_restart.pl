# 157_range_restart.pl - range grants after a plain restart wait for an
# operator's confirmation, and keyed retries go on
#
# A restart cannot be told from the start of a restored copy, so after a
# clean restart and after an immediate stop range grants wait, as after a
# restore (155, 156).  The test asserts:
#
#   - a fresh install grants at once (nothing was granted before it);
#   - after a restart a new grant is refused with IA006, keyed or not; a
#     keyed retry of a range the table has returns it, progress reports go
#     on; idgen.range_grants says grants wait;
#   - idgen_confirm_range_floor(): refused to PUBLIC (42501), refused for a
#     floor outside the range space (22023); a floor below the table's top
#     confirms the top (a plain restart lost nothing); grants then continue
#     right after the last range, at higher generations, without another
#     confirmation; a floor above the top is where the next range starts;
#     each confirmation is audited with its floor;
#   - the floor follows every grant: a range deleted by hand is not
#     granted again;
#   - a range grant commits with synchronous_commit on, whatever the
#     session set (off, local), so it is durable and on a synchronous
#     standby before it is answered;
#   - idgen-gateway's POST /internal/ranges/lease answers a waiting grant
#     with 503 without Retry-After and the reason (range_floor_unconfirmed,
#     the registry's message), and grants once an operator confirmed.
use strict;
use warnings;

use Digest::SHA ();
use HTTP::Tiny;
use POSIX ();
use lib 'test/perl';
use IdgenTest qw(:DEFAULT sqlstate_of range_lease);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_registry('range_restart');

ok(wait_extension($node), 'the extension is there');
is(range_lease($node, 'svc', 100, 'k1'), '1|100|1', 'a fresh install grants at once');
is(range_lease($node, 'svc', 50), '101|150|2', 'and again');
$node->safe_psql('postgres', 'CREATE ROLE plain LOGIN');

my $max_gen = 2;
for my $how ('restart', 'immediate')
{
	if ($how eq 'restart') { $node->restart; }
	else { $node->stop('immediate'); $node->start; }
	ok(wait_extension($node), "after $how: the server is back");

	my $top = $node->safe_psql('postgres', 'SELECT max(range_end) FROM idgen.range_lease');
	is(sqlstate_of($node, q{SELECT * FROM idgen_lease_range('svc', 10)}), 'IA006',
		"after $how: a new range is refused (IA006)");
	is(sqlstate_of($node, q{SELECT * FROM idgen_lease_range('svc', 10, 'new-key')}), 'IA006',
		"after $how: a new key is refused too (IA006)");
	is(range_lease($node, 'svc', 100, 'k1'), '1|100|1', "after $how: a keyed retry returns its range");
	is(sqlstate_of($node, q{SELECT idgen_range_consumed('1', '60')}), 'ok',
		"after $how: progress reports go on");
	is($node->safe_psql('postgres', 'SELECT granting FROM idgen.range_grants'), 'f',
		"after $how: idgen.range_grants says grants wait");
	is(sqlstate_of($node, q{SELECT idgen_confirm_range_floor('1')}, user => 'plain'), '42501',
		"after $how: a PUBLIC role may not confirm (42501)");
	is(sqlstate_of($node, q{SELECT idgen_confirm_range_floor('0')}), '22023',
		"after $how: a floor of 0 is refused (22023)");
	is(sqlstate_of($node, q{SELECT idgen_confirm_range_floor(idgen.range_space_end())}), '22023',
		"after $how: a floor at range_space_end() is refused (22023)");
	is(sqlstate_of($node, q{SELECT * FROM idgen_lease_range('svc', 10)}), 'IA006',
		"after $how: the refused confirmations confirmed nothing");

	if ($how eq 'restart')
	{
		# the operator knows a clean restart lost nothing: the table's top stands
		is($node->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1')}), $top + 1,
			"after $how: a floor below the table's top confirms the top");
		my ($s, $e, $g) = split /\|/, range_lease($node, 'svc', 10);
		is("$s|$e", ($top + 1) . '|' . ($top + 10), "after $how: the next range continues after the last one");
		cmp_ok($g, '>', $max_gen, "after $how: at a higher generation");
		my ($s2, undef, $g2) = split /\|/, range_lease($node, 'svc', 10, "key-$how");
		is($s2, $top + 11, "after $how: the next one, keyed, needs no other confirmation");
		cmp_ok($g2, '>', $g, "after $how: at a higher generation still");
		$max_gen = $g2;
	}
	else
	{
		my $floor = $top + 1_000_000;
		is($node->safe_psql('postgres', "SELECT idgen_confirm_range_floor('$floor')"), $floor,
			"after $how: a floor above the top is confirmed");
		my ($s, undef, $g) = split /\|/, range_lease($node, 'svc', 10);
		is($s, $floor, "after $how: the next range starts at the floor");
		cmp_ok($g, '>', $max_gen, "after $how: at a higher generation");
		is($node->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1')}), $floor + 10,
			"after $how: a later, lower floor never moves the floor back");
	}
	like( $node->safe_psql(
			'postgres',
			q{SELECT detail FROM idgen.audit_log WHERE action = 'range_floor_confirmed' ORDER BY at DESC LIMIT 1}),
		qr/ranges start at \d+/, "after $how: the confirmation is audited with its floor");
}

# the floor follows every grant: a range deleted by hand is not granted again
my ($ds, $de) = split /\|/, range_lease($node, 'svc', 10);
$node->safe_psql('postgres', "DELETE FROM idgen.range_lease WHERE range_start = '$ds'");
my ($ns) = split /\|/, range_lease($node, 'svc', 10);
is($ns, $de + 1, 'a range deleted from idgen.range_lease is not granted again');

# durability: a grant never commits with synchronous_commit off or local
for my $setting ('off', 'local')
{
	is( $node->safe_psql(
			'postgres', qq{
SET synchronous_commit = $setting;
BEGIN;
SELECT count(*) FROM idgen_lease_range('svc', 1);
SHOW synchronous_commit;
COMMIT;
SHOW synchronous_commit;}),
		"1\non\n$setting",
		"synchronous_commit = $setting: the grant's transaction commits with on, the session keeps $setting");
}

# the gateway's admin endpoint passes the refusal on: 503 without
# Retry-After (only an operator can end it), the reason in the body
$node->restart;
ok(wait_extension($node), 'after another restart: the server is back');
my $tmp = PostgreSQL::Test::Utils::tempdir('gateway');
my $secret = 'ops-secret';
{
	open(my $fh, '>', "$tmp/tokens") or die "cannot write $tmp/tokens: $!";
	print $fh 'ops:admin:' . Digest::SHA::sha256_hex($secret) . "\n";
	close $fh or die;
}
my $gw_port = PostgreSQL::Test::Cluster::get_free_port();
my $gw_pid = fork();
die "fork: $!" unless defined $gw_pid;
if ($gw_pid == 0)
{
	my $log = "$PostgreSQL::Test::Utils::log_path/gateway_157.log";
	open(STDOUT, '>>', $log) or die;
	open(STDERR, '>&', \*STDOUT) or die;
	{
		exec('idgen-gateway', '--registry', registry_conn($node), '--listen', "127.0.0.1:$gw_port",
			'--tokens', "$tmp/tokens", '--state-dir', $tmp, '--name', 'gw157', '--lease-ttl', '3s');
	}
	print STDERR "exec idgen-gateway: $!\n";
	POSIX::_exit(127);
}
END { local $?; kill('KILL', $gw_pid) if $gw_pid && waitpid($gw_pid, POSIX::WNOHANG()) == 0; }
my $http = HTTP::Tiny->new(timeout => 30);
sub range_req
{
	return $http->request('POST', "http://127.0.0.1:$gw_port/internal/ranges/lease",
		{ headers => { Authorization => "Bearer $secret" },
		  content => '{"owner": "gw-loader", "count": 10}' });
}
my $r;
ok(IdgenTest::wait_for(sub { $r = range_req(); $r->{status} != 599 }),
	'the gateway answers');
is($r->{status}, 503, 'gateway: a range lease waiting for a confirmation is 503');
ok(!defined $r->{headers}{'retry-after'}, 'gateway: without Retry-After');
like($r->{content}, qr/"error": "range_floor_unconfirmed"/, 'gateway: the body names the reason');
like($r->{content}, qr/no range is granted until an operator confirms the range floor/,
	'gateway: and carries the registry\'s message');
$node->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1')});
$r = range_req();
is($r->{status}, 200, 'gateway: after the confirmation the range is granted');
kill('TERM', $gw_pid);
waitpid($gw_pid, 0);
$gw_pid = undef;

$node->stop;
done_testing();
