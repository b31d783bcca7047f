# 040_fence.pl - an operator or a second holder takes the node's lease away
#
#   1. Fence: idgen_fence_worker() on one worker of the node's own block.
#      The node notices at its next renewal, goes 'fenced' and refuses with
#      IA002; the audit log has worker_fenced (the operator) and fenced (the
#      node).  idgen_enable() makes it lease again, under a lease it never
#      had, and its IDs resume above every earlier one.
#   2. Collision: a superuser rewrites the node's first worker row to another
#      owner and generation while the node's lease is valid.  The node goes
#      'fenced', records the collision naming the intruder, and refuses.
#   3. idgen_disable('maintenance'): 'disabled' at once, idgen_next() refuses
#      with IA001 and the reason; still disabled after a restart; then
#      idgen_enable() resumes issuing.
#   4. Privileges: a non-superuser cannot fence, disable, enable or lease,
#      nor write idgen.worker_lease (42501), but may draw IDs.
#
# idgen.lease_ttl is short because a fence raises the fenced worker's
# high-water mark to the end of the lease it took away (its holder might
# have issued up to then), and the node's next lease starts above that.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('fence', conf => q{
idgen.lease_ttl = '4s'
});

ok( wait_extension($node),
	'the background worker created the extension in the registry database');
ok(wait_state($node),
	'the node is active');

$node->safe_psql(
	'postgres', q{
CREATE TABLE ids (id idgen NOT NULL, step text NOT NULL, n bigserial PRIMARY KEY);
CREATE ROLE app LOGIN;
GRANT INSERT, SELECT ON ids TO app;
GRANT USAGE ON SEQUENCE ids_n_seq TO app;
});

sub status
{
	my ($state, $reason, $worker, $generation, $owner) = split /\|/,
	  $node->safe_psql('postgres',
		'SELECT state, reason, worker, generation, owner FROM idgen_status()');
	return {
		state      => $state,
		reason     => $reason,
		worker     => $worker,
		generation => $generation,
		owner      => $owner
	};
}

sub draw
{
	my ($step) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids (id, step) SELECT idgen_next(), '$step' FROM generate_series(1, 1000)"
	);
}

# the newest step's IDs are all above every earlier ID
sub above_all_earlier
{
	my ($step, $name) = @_;
	is( $node->safe_psql(
			'postgres', qq{
SELECT (SELECT min(id) FROM ids WHERE step = '$step')
     > (SELECT max(id) FROM ids WHERE step <> '$step')}),
		't', $name);
}

# run SQL (as superuser or another role) that must fail with a SQLSTATE
sub fails_with
{
	my ($sql, $sqlstate, $message, $name, @params) = @_;
	my ($ret, $stdout, $stderr) = $node->psql(
		'postgres', "\\set VERBOSITY verbose\n$sql",
		extra_params => [@params]);
	isnt($ret, 0, "$name: fails");
	like($stderr, qr/ERROR:  $sqlstate: .*$message/, "$name: SQLSTATE $sqlstate");
	return $stderr;
}

sub audit_count
{
	my ($action, $detail_like) = @_;
	$detail_like = '%' unless defined $detail_like;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM idgen.audit_log WHERE action = '$action' AND coalesce(detail, '') LIKE '$detail_like'"
	);
}

my @leases;

# --- 1. fencing one worker of the node's block ------------------------------

my $st = status();
push @leases, $st;
draw('start');
my $fenced_worker = $st->{worker} + 3;
my ($old_gen, $old_until) = split /\|/,
  $node->safe_psql('postgres',
	"SELECT generation, lease_until FROM idgen.worker_lease WHERE region = 0 AND worker = $fenced_worker"
  );
is($old_gen, $st->{generation}, 'the worker row carries the node\'s generation');

fails_with('SELECT idgen_fence_worker(0, 127);', '42704', 'has never been leased',
	'fence of a worker nobody ever leased');
is(status()->{state}, 'active', 'fence of a worker nobody leased: the node is unaffected');

$node->safe_psql('postgres', "SELECT idgen_fence_worker(0, $fenced_worker)");

is( $node->safe_psql(
		'postgres', qq{
SELECT owner IS NULL AND lease_until IS NULL AND generation = $old_gen + 1
       AND high_water < '$old_until'
FROM idgen.worker_lease WHERE region = 0 AND worker = $fenced_worker}),
	't',
	'fence: the row is free, one generation up, high-water mark kept below the old lease end');

ok(wait_state($node, 'fenced'),
	'fence: the node goes fenced');
like(status()->{reason}, qr/fenced/, 'fence: idgen_status() says why');
fails_with('SELECT idgen_next();', 'IA002', 'idgen is fenced',
	'fence: idgen_next()');
fails_with('SELECT * FROM idgen_next_batch(10);', 'IA002', 'idgen is fenced',
	'fence: idgen_next_batch()');
fails_with("INSERT INTO ids (id, step) VALUES (idgen_next(), 'fenced');",
	'IA002', 'idgen is fenced', 'fence: an insert drawing an ID');
is(audit_count('worker_fenced', "region 0 worker $fenced_worker generation %"),
	'1', 'fence: audit_log has the operator\'s worker_fenced row');
is(audit_count('fenced'), '1', 'fence: audit_log has the node\'s fenced row');
is($node->safe_psql('postgres', 'SELECT count(*) FROM idgen.collision'),
	'0', 'fence: an operator fence is no collision');

$node->safe_psql('postgres', 'SELECT idgen_enable()');

# the node leases at once ...
ok( $node->poll_query_until(
		'postgres',
		"SELECT state NOT IN ('fenced', 'waiting_for_lease', 'starting') FROM idgen_status()"
	),
	'enable: the node holds a lease again');
$st = status();
is($st->{state}, 'active', 'enable: the node is active as soon as it leased');
# ... and issues once its floor has passed
ok(wait_state($node),
	'enable: the node is active');
$st = status();
my @same_block = grep { $_->{worker} == $st->{worker} } @leases;
ok(!grep({ $_->{generation} >= $st->{generation} } @same_block),
	'enable: a block leased again has a higher generation');
ok( !grep({ $_->{worker} == $st->{worker} && $_->{generation} == $st->{generation} }
		@leases),
	"enable: a lease the node never had (worker $st->{worker}, generation $st->{generation})"
);
ok($st->{owner} eq $leases[-1]{owner}, 'enable: same node, same owner name');
push @leases, $st;
draw('after_fence');
above_all_earlier('after_fence', 'enable: IDs resume above every earlier ID');
is(audit_count('enabled'), '1', 'enable: audit_log has the enabled row');
is(audit_count('lease_acquired'), '2', 'enable: audit_log has a second lease_acquired row');

# --- 2. a second holder rewrites the node's row: a collision ---------------

my $first = $st->{worker};
$node->safe_psql(
	'postgres', qq{
UPDATE idgen.worker_lease SET owner = 'intruder', generation = generation + 1
WHERE region = 0 AND worker = $first AND lease_until > idgen.clock()});
is( $node->safe_psql(
		'postgres', "SELECT owner FROM idgen.worker_lease WHERE region = 0 AND worker = $first"),
	'intruder',
	'collision: the row was taken while the node\'s lease was valid');

ok(wait_state($node, 'fenced'),
	'collision: the node goes fenced');
like(status()->{reason}, qr/"intruder"/, 'collision: idgen_status() names the intruder');
is( $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM idgen.collision
WHERE second_owner = 'intruder' AND first_owner = '$st->{owner}'}),
	'1',
	'collision: idgen.collision has a row naming the node and the intruder');
is(audit_count('collision', '%intruder%'), '1', 'collision: audit_log has the collision');
fails_with('SELECT idgen_next();', 'IA002', 'idgen is fenced',
	'collision: idgen_next()');

$node->safe_psql('postgres', 'SELECT idgen_enable()');
ok(wait_state($node),
	'collision: idgen_enable() makes the node active again');
$st = status();
isnt($st->{worker}, $first, 'collision: the node leased a block away from the intruder');
push @leases, $st;
draw('after_collision');
above_all_earlier('after_collision', 'collision: IDs resume above every earlier ID');

# --- 3. idgen_disable / idgen_enable, across a restart -----------------------

$node->safe_psql('postgres', "SELECT idgen_disable('maintenance')");
$st = status();
is($st->{state},  'disabled',    'disable: state disabled at once');
is($st->{reason}, 'maintenance', 'disable: idgen_status() gives the reason');
my $err = fails_with('SELECT idgen_next();', 'IA001', 'idgen is disabled on this node',
	'disable: idgen_next()');
like($err, qr/DETAIL:  Reason: maintenance/, 'disable: the error gives the reason');
is(audit_count('disabled', 'maintenance'), '1', 'disable: audit_log has the disabled row');

$node->restart;
ok( wait_state($node, 'disabled'),
	'disable: still disabled after a restart');
is(status()->{reason}, 'maintenance', 'disable: the reason survived the restart');
fails_with('SELECT idgen_next();', 'IA001', 'idgen is disabled on this node',
	'disable: idgen_next() after the restart');

$node->safe_psql('postgres', 'SELECT idgen_enable()');
ok(wait_state($node),
	'disable: idgen_enable() resumes');
draw('after_disable');
above_all_earlier('after_disable', 'disable: IDs resume above every earlier ID');

# --- 4. privileges ------------------------------------------------------------

my @as_app = ('-U', 'app');
my $before = $node->safe_psql('postgres',
	'SELECT count(*), sum(generation) FROM idgen.worker_lease');
my $w = $node->safe_psql('postgres', 'SELECT worker FROM idgen_status()');

fails_with("SELECT idgen_fence_worker(0, $w);", '42501',
	'permission denied for function idgen_fence_worker',
	'app: idgen_fence_worker', @as_app);
fails_with("SELECT idgen_disable('no');", '42501',
	'permission denied for function idgen_disable',
	'app: idgen_disable', @as_app);
fails_with('SELECT idgen_enable();', '42501',
	'permission denied for function idgen_enable',
	'app: idgen_enable', @as_app);
fails_with("SELECT * FROM idgen_lease_worker('app', '1 min');", '42501',
	'permission denied for function idgen_lease_worker',
	'app: idgen_lease_worker', @as_app);
fails_with("SELECT idgen_renew_worker(0, $w, 1);", '42501',
	'permission denied for function idgen_renew_worker',
	'app: idgen_renew_worker', @as_app);
fails_with("SELECT idgen_release_worker(0, $w, 1);", '42501',
	'permission denied for function idgen_release_worker',
	'app: idgen_release_worker', @as_app);
fails_with(
	"UPDATE idgen.worker_lease SET owner = 'app', generation = generation + 1 WHERE worker = $w;",
	'42501', 'permission denied for table worker_lease',
	'app: UPDATE idgen.worker_lease', @as_app);
fails_with(
	"INSERT INTO idgen.worker_lease (region, worker, owner, lease_until) VALUES (0, 100, 'app', now() + interval '1 day');",
	'42501', 'permission denied for table worker_lease',
	'app: INSERT INTO idgen.worker_lease', @as_app);
fails_with('DELETE FROM idgen.worker_lease;', '42501',
	'permission denied for table worker_lease',
	'app: DELETE FROM idgen.worker_lease', @as_app);

is($node->safe_psql('postgres', 'SELECT count(*), sum(generation) FROM idgen.worker_lease'),
	$before, 'app: the lease table is unchanged');
is($node->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
	'active', 'app: the node is still active');

# generating is open to any role that may use the extension
my ($ret, $stdout, $stderr) = $node->psql(
	'postgres',
	"INSERT INTO ids (id, step) SELECT idgen_next(), 'app' FROM generate_series(1, 10) RETURNING 1;",
	extra_params => [@as_app]);
is($ret, 0, 'app: may draw IDs with idgen_next()');
above_all_earlier('app', 'app: its IDs are above every earlier ID');

is($node->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id) FROM ids'),
	'0', 'no ID was issued twice');

$node->stop;

done_testing();
