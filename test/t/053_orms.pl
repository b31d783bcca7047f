# 053_orms.pl - the driver and ORM recipes of docs/clients.md, run
#
# Each recipe's code runs against one node preloading idgen, listening on
# 127.0.0.1 as well (JDBC needs TCP):
#
#   a. psycopg 3 (Debian python3-psycopg) and b. psycopg2 (python3-psycopg2):
#      clients/python/idgen_pg.py's register(conn), run by
#      test/clients/python_drivers.py - int and uuid.UUID in text and (psycopg
#      3) binary results, arrays, exact above 2^53, the values back in as
#      parameters; the types found in a schema off the search_path, and
#      LookupError in a database without the extension;
#   c. SQLAlchemy 1.4 (python3-sqlalchemy): clients/python/idgen_sqlalchemy.py,
#      run by test/clients/sqlalchemy_recipe.py - create_all with the
#      server defaults, INSERT ... RETURNING, the ORM's flush, queries;
#   d. Django 3.2 (python3-django): clients/python/idgen_django.py in the
#      project test/clients/django - manage.py migrate creates the columns
#      with DEFAULT idgen_next() (checked here with information_schema and
#      \d too), makemigrations finds nothing to change, manage.py
#      idgen_checks saves, bulk-creates and queries;
#   e. JDBC (libpostgresql-jdbc-java): test/clients/JdbcRecipe.java,
#      compiled with javac into a temporary directory - getLong, UUID.class,
#      batch inserts with generated keys;
#   f. node-postgres: clients/node/idgen-pg.js, run by
#      test/clients/node_recipe.js; pg@8 installed with npm into a
#      temporary directory, as 052 does;
#   g. ruby-pg (ruby-pg): clients/ruby/idgen_pg.rb, run by
#      test/clients/ruby_recipe.rb - Integer and String in text and binary;
#   h. every code block of docs/clients.md that says which file it comes
#      from is in that file, line by line.
#
# The IDs the server issues are above 2^53 already (the time field starts
# at bit 22 and the built-in layout's epoch is 2025, so any ID after early
# 2025 is past 2^53); each client asserts that, and that 100 consecutive
# IDs are not all doubles, so a client that rounded through a double fails.
#
# Each program prints "check <name> ok|FAIL <detail>" lines; this test
# asserts that every expected check is there and ok.  A part whose tools are
# missing is skipped with the reason - unless IDGEN_REQUIRE_CLIENTS=1 (as
# make test sets it), which makes it a failure.
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

my $root = abs_path(File::Spec->catdir(dirname(abs_path(__FILE__)), '..', '..'));
my $clients_dir = "$root/test/clients";
my $python_lib  = "$root/clients/python";

my $node = idgen_node('orms', tcp => 1);

ok( wait_extension($node),
	'the background worker created the extension');
ok(wait_state($node),
	'the node is active');

my $user = $node->safe_psql('postgres', 'SELECT current_user');
my $port = $node->port;
my $tcp_connstr = "host=127.0.0.1 port=$port user=$user dbname=postgres";

# for the Python drivers: a database with the extension in a schema off the
# search_path, and one without it
$node->safe_psql('postgres', 'CREATE DATABASE other_schema');
$node->safe_psql('other_schema', 'CREATE SCHEMA ids; CREATE EXTENSION idgen SCHEMA ids');
$node->safe_psql('postgres', 'CREATE DATABASE no_extension');

# the first executable of that name on PATH
# run a command; (exit code or -1, stdout, stderr)
# a program's output against the checks it must report: one test per
# check, and 3 more
# Debian's interpreter: the python3-* packages belong to it, not to another
# python3 earlier on PATH
my $python = '/usr/bin/python3';
sub python_has
{
	my ($module) = @_;
	return 0 unless -x $python;
	my ($rc) = run_program([ $python, '-c', "import $module" ], 60);
	return $rc == 0;
}

# the Python programs: idgen_pg & co. importable, no __pycache__ in the tree
sub run_python
{
	my ($args, $timeout_s, %env) = @_;
	local $ENV{PYTHONPATH} = $python_lib;
	local $ENV{PYTHONDONTWRITEBYTECODE} = '1';
	local @ENV{ keys %env } = values %env;
	return run_program([ $python, @$args ], $timeout_s);
}

# --- a. psycopg 3, b. psycopg2 ---------------------------------------------

my @p3_common = qw(idgen_is_int idgen_exact above_2_53 idgen128_is_uuid
  idgen128_exact fixed_exact arrays params_equal params_compare_order
  wrapped_back);
my %python_checks = (
	psycopg => [
		qw(p3_recipe p3_default_not_int p3_register_left_idle p3_binary_is_binary
		  p3_register_keeps_transaction psycopg_other_schema psycopg_no_extension),
		(map { "p3_text_$_" } @p3_common),
		(map { "p3_binary_$_" } @p3_common)
	],
	psycopg2 => [
		qw(p2_recipe p2_default_not_int psycopg2_other_schema psycopg2_no_extension),
		map { "p2_text_$_" } @p3_common
	],);
my %python_package = (psycopg => 'python3-psycopg', psycopg2 => 'python3-psycopg2');

for my $driver ('psycopg', 'psycopg2')
{
  SKIP:
	{
		my @checks = @{ $python_checks{$driver} };
		skip_or_fail("no $python with $driver (install $python_package{$driver})",
			scalar(@checks) + 3)
		  unless python_has($driver);
		my ($rc, $out, $err) = run_python(
			[
				"$clients_dir/python_drivers.py", $driver, $tcp_connstr,
				"host=127.0.0.1 port=$port user=$user dbname=other_schema",
				"host=127.0.0.1 port=$port user=$user dbname=no_extension"
			],
			120);
		note("python_drivers.py $driver:\n$out$err");
		assert_checks("python/$driver", $rc, $out, $err, @checks);
	}
}

# --- c. SQLAlchemy -----------------------------------------------------------

my @sqlalchemy_checks = qw(ddl_types_defaults core_returning core_above_2_53
  core_ids_ascend core_exact_params query_compare_order query_by_plain_uuid
  query_order_idgen128 orm_flush_reads_id orm_flush_reads_idgen128
  orm_ids_match_server orm_get_by_id orm_query_compare_order);

SKIP:
{
	skip_or_fail("no $python with sqlalchemy 1.4 and psycopg2 (install python3-sqlalchemy)",
		scalar(@sqlalchemy_checks) + 3)
	  unless python_has('sqlalchemy, psycopg2');
	my ($rc, $out, $err) =
	  run_python([ "$clients_dir/sqlalchemy_recipe.py", $tcp_connstr ], 120);
	note("sqlalchemy_recipe.py:\n$out$err");
	assert_checks('sqlalchemy', $rc, $out, $err, @sqlalchemy_checks);
}

# --- d. Django -----------------------------------------------------------------

my @django_checks = qw(migrate_columns_defaults save_reads_id
  save_id_above_2_53 save_reads_idgen128 create_with_foreign_key
  bulk_create_reads_ids ids_exact_not_doubles query_compare_order get_by_id
  filter_by_plain_uuid order_by_idgen128 explicit_ids_exact update_keeps_ids
  sql_insert_uses_defaults);

SKIP:
{
	skip_or_fail("no $python with django and psycopg2 (install python3-django)",
		scalar(@django_checks) + 12)
	  unless python_has('django, psycopg2');
	my $manage = "$clients_dir/django/manage.py";
	my %pgenv = (
		PGHOST     => '127.0.0.1',
		PGPORT     => $port,
		PGUSER     => $user,
		PGDATABASE => 'postgres');

	my ($rc, $out, $err) = run_python([ $manage, 'migrate', '--no-input' ], 120, %pgenv);
	is($rc, 0, 'django: manage.py migrate exited 0') or diag("$out\n$err");
	like($out, qr/Applying shop\.0001_initial\.\.\. OK/,
		'django: migrate applied the project\'s migration');

	# what migrate made, seen from the server
	is( $node->safe_psql(
			'postgres', q{
			SELECT string_agg(format('%s.%s %s %s', table_name, column_name, udt_name,
			                         coalesce(column_default, '-')), ', '
			                  ORDER BY table_name, column_name)
			FROM information_schema.columns
			WHERE table_name IN ('shop_order', 'shop_line')
			  AND udt_name IN ('idgen', 'idgen128')}),
		'shop_line.id idgen idgen_next(), shop_line.order_id idgen -, '
		  . 'shop_order.id idgen idgen_next(), '
		  . 'shop_order.public_id idgen128 idgen_next128()',
		'django: the idgen columns have their server defaults');
	my $d = $node->safe_psql('postgres', '\d shop_order');
	like($d, qr/^\s*id\s*\|\s*idgen\s*\|[^|]*\|\s*not null\s*\|\s*idgen_next\(\)\s*$/m,
		'django: \d shows id idgen not null default idgen_next()');
	like($d, qr/^\s*public_id\s*\|\s*idgen128\s*\|[^|]*\|\s*not null\s*\|\s*idgen_next128\(\)\s*$/m,
		'django: \d shows public_id idgen128 not null default idgen_next128()')
	  or diag($d);

	($rc, $out, $err) =
	  run_python([ $manage, 'makemigrations', '--check', '--dry-run', 'shop' ], 120, %pgenv);
	is($rc, 0, 'django: makemigrations finds the fields as the migration has them')
	  or diag("$out\n$err");
	like($out, qr/No changes detected/, 'django: no changes detected');

	($rc, $out, $err) = run_python([ $manage, 'sqlmigrate', 'shop', '0001' ], 120, %pgenv);
	like($out, qr/"id" idgen DEFAULT idgen_next\(\) NOT NULL PRIMARY KEY/,
		'django: sqlmigrate shows the column with its default');
	like($out, qr/"order_id" idgen NOT NULL/,
		'django: a foreign key to an IdgenField is a plain idgen');

	($rc, $out, $err) = run_python([ $manage, 'idgen_checks' ], 120, %pgenv);
	note("manage.py idgen_checks:\n$out$err");
	assert_checks('django', $rc, $out, $err, @django_checks);
}

# --- e. JDBC -------------------------------------------------------------------

my @jdbc_checks = qw(getlong_exact getlong_above_2_53 idgen128_from_string
  idgen128_getobject_needs_uuid_cast batch_generated_keys batch_keys_ascend
  return_generated_keys parameters_exact compare_order);

SKIP:
{
	my $javac = find_program('javac');
	my $java  = find_program('java');
	my $jar   = '/usr/share/java/postgresql.jar';
	skip_or_fail('javac or java is not installed (install default-jdk-headless)',
		scalar(@jdbc_checks) + 4)
	  unless defined $javac && defined $java;
	skip_or_fail("no $jar (install libpostgresql-jdbc-java)", scalar(@jdbc_checks) + 4)
	  unless -f $jar;

	my $classes = PostgreSQL::Test::Utils::tempdir('jdbc');
	my ($rc, $out, $err) = run_program(
		[ $javac, '-Xlint:all', '-Werror', '-d', $classes, "$clients_dir/JdbcRecipe.java" ],
		120);
	is($rc, 0, 'jdbc: JdbcRecipe.java compiles without warnings')
	  or diag("$out\n$err");

	($rc, $out, $err) = run_program(
		[
			$java, '-cp', "$classes:$jar", 'JdbcRecipe',
			"jdbc:postgresql://127.0.0.1:$port/postgres?user=$user"
		],
		120);
	note("JdbcRecipe:\n$out$err");
	assert_checks('jdbc', $rc, $out, $err, @jdbc_checks);
}

# --- f. node-postgres ------------------------------------------------------------

my @node_checks = qw(register_found_oids idgen_bigint_exact above_2_53
  idgen128_string fixed_exact arrays parameters_back insert_returning_exact
  other_client_untouched);

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
				'--prefix', "$npm_dir/pg", 'pg@8'
			],
			120);
	}
	skip_or_fail("npm install pg\@8 failed (rc $rc): $err", scalar(@node_checks) + 4)
	  unless $rc == 0 && -f "$npm_dir/pg/node_modules/pg/package.json";
	pass('npm installed pg@8 into a temporary directory');

	{
		local $ENV{NODE_PATH}  = "$npm_dir/pg/node_modules";
		local $ENV{PGHOST}     = '127.0.0.1';
		local $ENV{PGPORT}     = $port;
		local $ENV{PGUSER}     = $user;
		local $ENV{PGDATABASE} = 'postgres';
		($rc, $out, $err) = run_program(
			[ $nodejs, "$clients_dir/node_recipe.js", "$root/clients/node/idgen-pg.js" ], 60);
	}
	note("node_recipe.js:\n$out$err");
	assert_checks('node/pg', $rc, $out, $err, @node_checks);
}

# --- g. ruby-pg --------------------------------------------------------------------

my @ruby_checks = (
	qw(default_is_string register_found_oids arrays parameters_back
	  insert_returning_exact),
	map {
		my $m = $_;
		map { "${m}_$_" }
		  qw(result_format idgen_integer_exact above_2_53 idgen128_string
		  other_columns_decoded fixed_exact)
	} qw(text binary));

SKIP:
{
	my $ruby = find_program('ruby');
	my $has_pg = defined $ruby && (run_program([ $ruby, '-e', 'require "pg"' ], 60))[0] == 0;
	skip_or_fail('no ruby with pg (install ruby-pg)', scalar(@ruby_checks) + 3)
	  unless $has_pg;
	my ($rc, $out, $err) = run_program(
		[
			$ruby, "$clients_dir/ruby_recipe.rb",
			"$root/clients/ruby/idgen_pg.rb", $tcp_connstr
		],
		60);
	note("ruby_recipe.rb:\n$out$err");
	assert_checks('ruby/pg', $rc, $out, $err, @ruby_checks);
}

# --- h. docs/clients.md shows the code that ran ----------------------------------

# a block preceded by "<!-- from PATH -->" must be in PATH: its lines, with
# leading and trailing blanks stripped, one after another
my $doc = "$root/docs/clients.md";
open(my $fh, '<', $doc) or die "cannot read $doc: $!";
my @doc_lines = <$fh>;
close $fh;
chomp @doc_lines;

my (%from_files, $pending, $in_block, @block, $block_line);
for my $i (0 .. $#doc_lines)
{
	my $line = $doc_lines[$i];
	if ($in_block)
	{
		if ($line =~ /^```\s*$/)
		{
			push @{ $from_files{ $pending->[0] } }, [ $pending->[1], [@block] ];
			($in_block, $pending, @block) = (0, undef);
		}
		else
		{
			push @block, $line;
		}
	}
	elsif ($line =~ /^<!-- from (\S+) -->\s*$/)
	{
		$pending = [ $1, $i + 1 ];
	}
	elsif (defined $pending && $line =~ /^```/)
	{
		$in_block = 1;
	}
	elsif (defined $pending && $line !~ /^\s*$/)
	{
		fail("docs/clients.md:$pending->[1]: a \"from\" comment is not followed by a code block");
		$pending = undef;
	}
}

sub stripped { return map { (my $x = $_) =~ s/^\s+|\s+$//g; $x } @_; }

for my $file (
	qw(clients/python/idgen_pg.py clients/python/idgen_sqlalchemy.py
	clients/python/idgen_django.py test/clients/python_drivers.py
	test/clients/sqlalchemy_recipe.py test/clients/django/shop/models.py
	test/clients/JdbcRecipe.java clients/node/idgen-pg.js
	test/clients/node_recipe.js clients/ruby/idgen_pg.rb
	test/clients/ruby_recipe.rb))
{
	ok($from_files{$file}, "docs/clients.md shows code from $file");
}
for my $file (sort keys %from_files)
{
	open(my $src, '<', "$root/$file") or do { fail("docs/clients.md names $file, which is missing"); next; };
	my @src = stripped(<$src>);
	close $src;
	my $text = join("\n", @src) . "\n";
	for my $b (@{ $from_files{$file} })
	{
		my ($line, $lines) = @$b;
		my @want = stripped(@$lines);
		# in the file, as whole lines: bounded by newlines on both sides
		my $found = index("\n$text", "\n" . join("\n", @want) . "\n") >= 0;
		ok($found, "docs/clients.md:$line: the block is in $file")
		  or diag("not found in $file:\n" . join("\n", @$lines));
	}
}

ok(!$node->log_contains('server process .* terminated by signal'),
	'no backend crashed');

$node->stop;

done_testing();
