# 052_clients.pl - idgen and idgen128 through real client libraries
#
#   a. Python, Debian's python3-psycopg2 (test/clients/copy_roundtrip.py):
#      text, CSV and binary COPY out and back in keep both types exactly;
#      the binary fields are the int8 and uuid wire formats, so they load
#      into bigint / uuid columns and back; binary input refuses negatives,
#      non-v7 and short values; an idgen above 2^53 reads as an exact Python
#      int once a typecaster is registered for the type's OID (text without
#      one), an idgen128 as a version 7 uuid.UUID.
#   b. Node.js, node-postgres (test/clients/node_pg.js): pg@8 is installed
#      with npm into a temporary directory (nothing cached across runs); by
#      default an idgen above 2^53 arrives exactly as a string, with
#      types.setTypeParser(<oid of idgen>, BigInt) as an exact BigInt; an
#      idgen128 arrives as its canonical string; INSERT ... RETURNING and
#      parameters round-trip.
#
# Each script prints "check <name> ok|FAIL <detail>" lines; this test asserts
# that every expected check is there and ok.  A part whose tools are missing
# (no psycopg2; no node or npm, or npm cannot install pg) is skipped with the
# reason - unless IDGEN_REQUIRE_CLIENTS=1, which makes it a failure.
use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Spec;
use IPC::Run;
use lib 'test/perl';
use IdgenTest qw(:DEFAULT find_program run_program skip_or_fail assert_checks);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $clients_dir = abs_path(File::Spec->catdir(dirname(abs_path(__FILE__)), '..', 'clients'));

my $node = idgen_node('clients');

ok( wait_extension($node),
	'the background worker created the extension');
ok(wait_state($node),
	'the node is active');

# --- a. Python / psycopg2 ---------------------------------------------------

my @python_checks = qw(
  generated_ids_above_2_53 text_copy_has_big text_copy_roundtrip
  csv_copy_roundtrip binary_copy_rows binary_wire_format
  binary_copy_roundtrip binary_as_bigint_uuid binary_from_bigint_uuid
  binary_negative_refused binary_v4_refused binary_variant_refused
  binary_short_refused default_is_text typecaster_exact big_is_python_int
  max_is_python_int array_of_idgen parameters_back generated_back);

SKIP:
{
	# Debian's interpreter first: python3-psycopg2 belongs to it
	my $python;
	for my $candidate ('/usr/bin/python3', find_program('python3'))
	{
		next unless defined $candidate && -x $candidate;
		my ($rc) = run_program([ $candidate, '-c', 'import psycopg2' ], 60);
		if ($rc == 0)
		{
			$python = $candidate;
			last;
		}
	}
	skip_or_fail('no python3 with psycopg2 (install python3-psycopg2)',
		scalar(@python_checks) + 3)
	  unless defined $python;

	my ($rc, $out, $err) = run_program(
		[ $python, "$clients_dir/copy_roundtrip.py", $node->connstr('postgres') ], 120);
	note("copy_roundtrip.py ($python):\n$out$err");
	assert_checks('python/psycopg2', $rc, $out, $err, @python_checks);
}

# --- b. Node.js / node-postgres ----------------------------------------------

my @node_checks = qw(
  default_big_is_string default_max_is_string number_would_round
  default_generated_exact idgen128_canonical_string idgen128_input_spelling
  bigint_parser_exact bigint_big bigint_max bigint_parser_leaves_idgen128
  bigint_parameter_back generated_back array_text_exact
  copy_text_out copy_text_in copy_binary_wire_formats copy_binary_in);

SKIP:
{
	my $nodejs = find_program('node');
	my $npm    = find_program('npm');
	skip_or_fail('node or npm is not installed', scalar(@node_checks) + 4)
	  unless defined $nodejs && defined $npm;

	# a fresh, private npm home and cache: nothing kept across runs
	my $npm_dir = PostgreSQL::Test::Utils::tempdir('npm');
	mkdir "$npm_dir/home";
	my ($rc, $out, $err);
	{
		local $ENV{HOME}                       = "$npm_dir/home";
		local $ENV{npm_config_cache}           = "$npm_dir/cache";
		local $ENV{npm_config_userconfig}      = "$npm_dir/home/.npmrc";
		local $ENV{npm_config_update_notifier} = 'false';
		local $ENV{npm_config_loglevel}        = 'error';
		($rc, $out, $err) = run_program(
			[
				$npm, 'install', '--no-audit', '--no-fund', '--no-package-lock',
				'--prefix', "$npm_dir/pg", 'pg@8', 'pg-copy-streams@6'
			],
			120);
	}
	my $installed = $rc == 0 && -f "$npm_dir/pg/node_modules/pg/package.json";
	$installed &&= -f "$npm_dir/pg/node_modules/pg-copy-streams/package.json";
	skip_or_fail("npm install pg\@8 pg-copy-streams\@6 failed (rc $rc): $err", scalar(@node_checks) + 4)
	  unless $installed;
	pass('npm installed pg@8 and pg-copy-streams@6 into a temporary directory');

	my $user = $node->safe_psql('postgres', 'SELECT current_user');
	{
		local $ENV{NODE_PATH}  = "$npm_dir/pg/node_modules";
		local $ENV{PGHOST}     = $node->host;
		local $ENV{PGPORT}     = $node->port;
		local $ENV{PGUSER}     = $user;
		local $ENV{PGDATABASE} = 'postgres';
		($rc, $out, $err) = run_program([ $nodejs, "$clients_dir/node_pg.js" ], 60);
	}
	note("node_pg.js ($nodejs):\n$out$err");
	assert_checks('node/pg', $rc, $out, $err, @node_checks);
}

ok(!$node->log_contains('server process .* terminated by signal'),
	'no backend crashed');

$node->stop;

done_testing();
