# 042_audit_text.pl - a holder's name with control characters reaches the audit queue
#
# The background worker keeps audit records in memory until its next
# registry transaction.  A renewal that finds the node's rows held by
# someone else quotes that holder's name in its reason, and the reason goes
# to idgen_status(), idgen.collision and the audit queue.
#
#   1. The node's block is fenced and one worker of it leased at once by an
#      outside generator (idgen_fence_worker() and idgen_lease_worker() in
#      one transaction, so the node's renewal can only see the new holder).
#      The holder's name has a newline and a unit separator: 0.4 took any
#      name, and such a lease outlives the update to 0.5; a superuser writes
#      it into the row here.  The node goes fenced and records the
#      collision; no process dies (the lease worker keeps its pid, the
#      server log has no crash, an unlogged table keeps its row), and the
#      audit row, idgen.collision and idgen_status() carry the name byte
#      for byte.
#   2. Once the outside lease has ended, idgen_enable() makes the node lease
#      and issue again: nothing is left stuck in the queue.
#   3. The same with a long name of two-byte characters, leased as it is:
#      the reason has room for 255 bytes, and the cut must not fall inside
#      a character (idgen_status() gave invalid UTF-8, and the registry
#      could refuse the text, audit record and all).
#   4. A name with control characters is refused at the door now (22023).
#
# The node is pinned to the top block of workers, where idgen_lease_worker()
# starts looking, so the outside generator gets a worker of the node's block.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# part 3 needs two-byte characters, whatever locale the machine has
my $node = idgen_node('audit_text', init => { extra => [ '--encoding=UTF8', '--locale=C' ] });

ok( wait_extension($node),
	'the background worker created the extension in the registry database');
ok(wait_state($node),
	'the node is active');

my ($worker_bits, $workers) = split /\|/,
  $node->safe_psql('postgres',
	'SELECT (SELECT worker_bits FROM idgen.epoch ORDER BY version DESC LIMIT 1), workers FROM idgen_status()'
  );
my $first = (1 << $worker_bits) - $workers;
my $top   = (1 << $worker_bits) - 1;
$node->append_conf('postgresql.conf', "idgen.worker_id = $first\n");
$node->restart;
ok(wait_state($node),
	'pinned: the node is active');
is($node->safe_psql('postgres', 'SELECT worker FROM idgen_status()'),
	$first, "pinned: the node holds the top block, workers $first-$top");

# the restart made the registry a new incarnation: it grants no outside
# lease until every lease it may have lost has run out (docs/fleets.md)
ok( $node->poll_query_until('postgres',
		'SELECT hold_until <= idgen.clock() FROM idgen.registry_incarnation_check()'),
	'pinned: the incarnation hold after the restart is over');

# Fence the node's top worker and lease it to an outside generator, named
# by the SQL expression $lease_as, in one transaction, which then renames
# the lease to the SQL expression $owner_sql if one is given.  The
# fence leaves the row's high-water mark, which the node keeps a little
# ahead of the clock; an outside generator may take the worker once that
# time has passed.  The row stays locked meanwhile: the node's renewal
# waits for the commit and then finds the new holder.
sub take_over
{
	my ($lease_as, $owner_sql) = @_;
	my $rename =
	  defined $owner_sql
	  ? "UPDATE idgen.worker_lease SET owner = $owner_sql WHERE region = 0 AND worker = $top;"
	  : '';
	return split /\|/, $node->safe_psql(
		'postgres', qq{
BEGIN;
DO \$\$
BEGIN
    PERFORM idgen_fence_worker(0, $top);
    WHILE (SELECT high_water + coalesce(drift_allowance, interval '0')
           FROM idgen.worker_lease WHERE region = 0 AND worker = $top)
          >= idgen.clock() LOOP
        PERFORM pg_sleep(0.05);
    END LOOP;
END
\$\$;
SELECT worker, generation FROM idgen_lease_worker($lease_as, '2s');
$rename
COMMIT;
});
}

sub lease_worker_pid
{
	return $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'idgen lease worker'");
}

# wait until the node is fenced or its lease worker is gone
sub wait_reaction
{
	my ($pid, $name) = @_;
	ok( $node->poll_query_until(
			'postgres', qq{
SELECT state = 'fenced'
    OR coalesce((SELECT pid FROM pg_stat_activity WHERE backend_type = 'idgen lease worker'), 0)
       <> $pid
FROM idgen_status()}),
		"$name: the node reacts");
	is($node->safe_psql('postgres', 'SELECT state FROM idgen_status()'),
		'fenced', "$name: the node is fenced");
	is(lease_worker_pid(), $pid, "$name: the lease worker is the same process");
}

# once the outside lease has ended, the node leases its block again
sub enable_again
{
	my ($name) = @_;
	ok( $node->poll_query_until(
			'postgres',
			"SELECT lease_until <= idgen.clock() FROM idgen.worker_lease WHERE region = 0 AND worker = $top"
		),
		"$name: the outside lease has ended");
	$node->safe_psql('postgres', 'SELECT idgen_enable()');
	ok(wait_state($node),
		"$name: the node is active again");
	is($node->safe_psql('postgres', 'SELECT idgen_next() IS NOT NULL'),
		't', "$name: the node issues");
}

# --- 1. an outside holder with a newline and a unit separator in its name ---

my $name_sql = q{E'outside\x1fafter a unit separator\nsecond line'};

$node->safe_psql('postgres',
	"CREATE UNLOGGED TABLE sentinel (x int); INSERT INTO sentinel VALUES (1)");
my $lease_worker_pid = lease_worker_pid();
like($lease_worker_pid, qr/^\d+$/, 'the lease worker runs');
my $log_offset = -s $node->logfile;

my ($out_worker, $out_gen) = take_over(q{'outside'}, $name_sql);
is($out_worker, $top, 'takeover: the outside generator got a worker of the node\'s block');

wait_reaction($lease_worker_pid, 'takeover');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/terminated by signal|terminating any other active server processes/,
	'takeover: the server log shows no crash');
is($node->safe_psql('postgres', 'SELECT count(*) FROM sentinel'),
	'1', 'takeover: no crash recovery emptied the unlogged table');

is( $node->safe_psql(
		'postgres',
		"SELECT strpos(reason, '\"' || $name_sql || '\"') > 0 FROM idgen_status()"),
	't',
	'takeover: idgen_status() quotes the holder\'s name as it is');
is( $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM idgen.audit_log
WHERE action = 'collision' AND strpos(detail, '"' || $name_sql || '"') > 0}),
	'1',
	'takeover: the audit log has one collision row quoting the name as it is');
is( $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM idgen.audit_log
WHERE action = 'collision' AND detail LIKE 'workers $first-$top of region 0 are held by %still valid'}),
	'1',
	'takeover: the collision row is the whole reason, not a piece of it');
is($node->safe_psql('postgres', "SELECT count(*) FROM idgen.audit_log WHERE action !~ '^[a-z_]+\$'"),
	'0', 'takeover: every audit row names a plain action');
is( $node->safe_psql(
		'postgres', "SELECT second_owner = $name_sql FROM idgen.collision"),
	't',
	'takeover: idgen.collision names the holder as it is');

# --- 2. the node leases again ------------------------------------------------

enable_again('enable');
is( $node->safe_psql(
		'postgres',
		"SELECT count(*) FROM idgen.audit_log WHERE action = 'lease_acquired' AND at > (SELECT max(at) FROM idgen.audit_log WHERE action = 'collision')"
	),
	'1',
	'enable: the audit log has the new lease');

# --- 3. a long name of two-byte characters ----------------------------------
#
# A reason has room for 255 bytes, and a long name is cut.  The padding
# makes the cut fall inside a character: the reason must still be valid
# text, or the registry refuses it (and with it the audit record).

my $prefix  = "workers $first-$top of region 0 are held by \"";
my $pad     = (255 - length($prefix)) % 2 == 0 ? 'x' : '';
my $long_sql = "'$pad' || repeat(U&'\\00e9', 150)";
$log_offset = -s $node->logfile;
($out_worker) = take_over($long_sql);
is($out_worker, $top, 'long name: the outside generator got a worker of the node\'s block');
wait_reaction($lease_worker_pid, 'long name');
is( $node->safe_psql(
		'postgres',
		"SELECT length(convert_to(reason, 'UTF8')) > 200 AND strpos(reason, $long_sql) = 0 FROM idgen_status()"
	),
	't',
	'long name: idgen_status() gives a reason in valid text, the name cut');
is( $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM idgen.audit_log
WHERE action = 'collision' AND strpos(detail, '"$pad' || repeat(U&'\\00e9', 100)) > 0}),
	'1',
	'long name: the audit log has the collision');
is( $node->safe_psql(
		'postgres', "SELECT count(*) FROM idgen.collision WHERE second_owner = $long_sql"),
	'1',
	'long name: idgen.collision names the holder in full');
unlike(slurp_file($node->logfile, $log_offset), qr/invalid byte sequence/,
	'long name: no text was refused');
enable_again('long name');

# --- 4. names with control characters are refused now -----------------------

my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT * FROM idgen_lease_worker($name_sql, '1 min');");
isnt($ret, 0, 'boundary: idgen_lease_worker() refuses the name');
like($stderr, qr/ERROR:  22023: a lease owner must not contain control characters/,
	'boundary: SQLSTATE 22023');
is($node->safe_psql('postgres', "SELECT count(*) FROM idgen.worker_lease WHERE owner = $name_sql"),
	'0', 'boundary: nothing was leased under the name');

# --- 5. a long disable reason of two-byte characters -------------------------
#
# The reason is kept in 255 bytes too: cut back to a whole character, or
# idgen_status() could not show it.

$node->safe_psql('postgres', "SELECT idgen_disable(repeat(U&'\\00e9', 150))");
is( $node->safe_psql(
		'postgres',
		"SELECT state, length(convert_to(reason, 'UTF8')) BETWEEN 250 AND 255 FROM idgen_status()"),
	'disabled|t',
	'long disable reason: idgen_status() shows it as valid text, cut');
$node->safe_psql('postgres', 'SELECT idgen_enable()');

$node->stop;

done_testing();
