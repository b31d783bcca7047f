# 004_create_extension.pl - CREATE EXTENSION IF NOT EXISTS idgen never fails
# next to the background worker's own
#
# The background worker creates the extension in idgen.database when it
# starts.  Deployment scripts and container entry points run CREATE
# EXTENSION IF NOT EXISTS idgen there right after pg_ctl start: that must
# succeed whenever it runs, also while the worker's own CREATE EXTENSION is
# still under way (PostgreSQL's IF NOT EXISTS only looks at committed rows,
# and then fails on the unique index with 23505).
#
#   1. Five fresh clusters (copies of one initdb), each asked CREATE
#      EXTENSION IF NOT EXISTS idgen in postgres at once after the start.
#   2. The race made certain: an event trigger in postgres sleeps inside the
#      worker's CREATE EXTENSION (at its CREATE SCHEMA idgen, when the
#      pg_extension row is written but not committed) while a session runs
#      CREATE EXTENSION IF NOT EXISTS idgen.  It succeeds, and the worker
#      leases as usual.
#   3. Two sessions racing each other the same way in another database.
#   4. A plain CREATE EXTENSION idgen in postgres fails with 42710 and says
#      that the background worker created the extension there, with a hint
#      to use IF NOT EXISTS; in another database it is PostgreSQL's plain
#      "already exists".
use strict;
use warnings;

use File::Path ();
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::RecursiveCopy;
use PostgreSQL::Test::Utils;
use Test::More;

# ---------------------------------------------------------------------
# 1. fresh clusters
# ---------------------------------------------------------------------
my $node = idgen_node('create_ext', start => 0);
my $pristine = $node->basedir . '/pristine';
PostgreSQL::Test::RecursiveCopy::copypath($node->data_dir, $pristine);

for my $run (1 .. 5)
{
	if ($run > 1)
	{
		$node->stop('immediate');
		File::Path::rmtree($node->data_dir);
		PostgreSQL::Test::RecursiveCopy::copypath($pristine, $node->data_dir);
		chmod 0700, $node->data_dir;
	}
	$node->start;
	my ($rc, $out, $err) =
	  $node->psql('postgres', 'CREATE EXTENSION IF NOT EXISTS idgen');
	is($rc, 0, "fresh cluster $run: CREATE EXTENSION IF NOT EXISTS idgen right after the start succeeds")
	  or diag $err;
	unlike($err, qr/ERROR/, "fresh cluster $run: and raises no error");
}
ok($node->poll_query_until('postgres', 'SELECT state FROM idgen_status()', 'active'),
	'the last of them is active');
$node->stop;

# ---------------------------------------------------------------------
# 2. the worker's CREATE EXTENSION held open
# ---------------------------------------------------------------------
# Set up without idgen loaded, so the worker does not start yet.
File::Path::rmtree($node->data_dir);
PostgreSQL::Test::RecursiveCopy::copypath($pristine, $node->data_dir);
chmod 0700, $node->data_dir;
$node->append_conf('postgresql.conf', "shared_preload_libraries = ''");
$node->start;
my $slow_trigger = q{
CREATE FUNCTION slow_schema() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('application_name') IN ('idgen lease worker', 'slow session') THEN
        PERFORM pg_sleep(4);
    END IF;
END $$;
CREATE EVENT TRIGGER slow_schema ON ddl_command_end WHEN TAG IN ('CREATE SCHEMA')
    EXECUTE FUNCTION slow_schema();
};
$node->safe_psql('postgres', $slow_trigger);
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', $slow_trigger);
$node->stop;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'idgen'");
$node->start;

ok( $node->poll_query_until(
		'postgres', q{
SELECT count(*) FROM pg_stat_activity
WHERE backend_type = 'idgen lease worker' AND wait_event = 'PgSleep'}, '1'),
	'the background worker is inside its CREATE EXTENSION');
my ($out, $err) = ('', '');
my $racer = IPC::Run::start(
	[
		'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
		'-c', 'CREATE EXTENSION IF NOT EXISTS idgen'
	],
	'>', \$out, '2>', \$err);
$racer->finish;
is($racer->result(0), 0,
	'CREATE EXTENSION IF NOT EXISTS idgen during the worker\'s own CREATE EXTENSION succeeds')
  or diag $err;
unlike($err, qr/ERROR/, 'and raises no error');
like($err, qr/extension "idgen" already exists, skipping/,
	'it sees the worker\'s extension once that is committed');
ok($node->poll_query_until('postgres', 'SELECT state FROM idgen_status()', 'active'),
	'the background worker leases as usual');
is( $node->safe_psql(
		'postgres', q{SELECT count(*) FROM idgen.audit_log WHERE action = 'registry_created'}),
	'1', 'the worker, and only it, recorded that it created the extension');

# ---------------------------------------------------------------------
# 3. two sessions
# ---------------------------------------------------------------------
my ($out1, $err1) = ('', '');
my $first = IPC::Run::start(
	[
		'psql', '-X', '-v', 'ON_ERROR_STOP=1',
		'-d', $node->connstr('app') . ' application_name=\'slow session\'',
		'-c', 'CREATE EXTENSION IF NOT EXISTS idgen'
	],
	'>', \$out1, '2>', \$err1);
ok( $node->poll_query_until(
		'app', q{
SELECT count(*) FROM pg_stat_activity
WHERE application_name = 'slow session' AND wait_event = 'PgSleep'}, '1'),
	'a first session is inside its CREATE EXTENSION');
my ($rc2, $out2, $err2) =
  $node->psql('app', 'CREATE EXTENSION IF NOT EXISTS idgen');
$first->finish;
is($first->result(0), 0, 'the first session creates the extension') or diag $err1;
is($rc2, 0, 'a second session\'s CREATE EXTENSION IF NOT EXISTS idgen meanwhile succeeds')
  or diag $err2;
unlike($err2, qr/ERROR/, 'and raises no error');

# ---------------------------------------------------------------------
# 4. a plain CREATE EXTENSION idgen
# ---------------------------------------------------------------------
my ($rc3, $out3, $err3) = $node->psql('postgres',
	'\set VERBOSITY verbose' . "\n" . 'CREATE EXTENSION idgen');
isnt($rc3, 0, 'a plain CREATE EXTENSION idgen in idgen.database fails');
like($err3, qr/ERROR:  42710: extension "idgen" already exists/,
	'with 42710 duplicate_object');
like($err3, qr/DETAIL:  The idgen background worker created it in this database \(idgen\.database\) at /,
	'saying that the background worker created it');
like($err3, qr/HINT:  Use CREATE EXTENSION IF NOT EXISTS idgen/, 'with a hint to use IF NOT EXISTS');
my ($rc4, $out4, $err4) = $node->psql('app', 'CREATE EXTENSION idgen');
isnt($rc4, 0, 'a plain CREATE EXTENSION idgen where it exists fails elsewhere too');
like($err4, qr/ERROR:  extension "idgen" already exists/, 'as PostgreSQL says it');
unlike($err4, qr/background worker/, 'without naming the worker, which did not create it');

$node->stop;
done_testing();
