# 130_pgbouncer.pl - idgen through pgbouncer in transaction pooling mode
#
# Debian's pgbouncer (1.18) in front of an idgen node, on its own loopback
# port with its own ini and userlist in the test directory, two server
# connections for many clients (docs/pgbouncer.md is the recipe tested here):
#
#   a. 16 psql clients at once, each 100 autocommit calls of idgen_next() and
#      then of idgen_next128(), multiplexed on at most 2 server connections:
#      no ID twice, each client's IDs ascending.
#   b. keyed batches: a retry of idgen_next_batch(n, key) (and the 128-bit
#      twin) that lands on the other server connection returns the same IDs.
#   c. prepared statements: SQL PREPARE/EXECUTE across transactions and
#      DBD::Pg's named server-side statements fail once the next transaction
#      lands on the other server connection (26000); unnamed extended-protocol
#      statements with server-side parameters (DBD::Pg pg_switch_prepared = 0,
#      libpq PQexecParams), client-side interpolation and PREPARE inside one
#      transaction work.
#
# "Lands on the other server connection" is arranged, not hoped for: with a
# pool of 2, a second client holds one server connection in an open
# transaction while the first client makes its first call, so that call runs
# on the other one; a third client then takes that one, the second lets its
# own go, and the first client's next call can only run there.
#
# pgbouncer runs as this test's user (postgres under make test) and is stopped
# by the pid in its pidfile.  Missing pgbouncer or DBD::Pg skips, unless
# IDGEN_REQUIRE_CLIENTS=1 (make test), which makes it a failure.
use strict;
use warnings;

use IPC::Run;
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $require = ($ENV{IDGEN_REQUIRE_CLIENTS} // '') eq '1';

my ($pgbouncer) = grep { -x $_ } ('/usr/sbin/pgbouncer', map { "$_/pgbouncer" } split /:/, $ENV{PATH} // '');
if (!defined $pgbouncer)
{
	if ($require)
	{
		fail('IDGEN_REQUIRE_CLIENTS=1 but pgbouncer is not installed (Debian package pgbouncer)');
		done_testing();
		exit;
	}
	plan skip_all => 'pgbouncer is not installed (Debian package pgbouncer)';
}
my $have_dbd = eval { require DBI; require DBD::Pg; 1 };

# log_statement: the server log shows which statements came named, unnamed or
# as simple queries
my $node = idgen_node('pgbouncer', tcp => 1, conf => "log_statement = 'all'\n");
ok(wait_extension($node), 'the background worker created the extension');
ok(wait_state($node), 'the node is active');
$node->safe_psql('postgres', 'CREATE TABLE pooled (id idgen PRIMARY KEY DEFAULT idgen_next(), client int)');

# --- pgbouncer: its own files, its own port ----------------------------------

my $user  = getpwuid($<);
my $dir   = PostgreSQL::Test::Utils::tempdir('pgbouncer');
my $bport = PostgreSQL::Test::Cluster::get_free_port();
my $pool  = 2;
my $pgport = $node->port;

open my $ul, '>', "$dir/userlist.txt" or die "userlist: $!";
print $ul qq("$user" ""\n);
close $ul;

open my $ini, '>', "$dir/pgbouncer.ini" or die "ini: $!";
print $ini <<"EOF";
[databases]
postgres = host=127.0.0.1 port=$pgport dbname=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bport
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
pool_mode = transaction
default_pool_size = $pool
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 100
server_lifetime = 3600
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
close $ini;

my $bouncer_pid;

sub stop_bouncer
{
	return unless $bouncer_pid;
	kill 'INT', $bouncer_pid;
	for (1 .. 100)
	{
		last unless kill 0, $bouncer_pid;
		usleep(100_000);
	}
	kill 'KILL', $bouncer_pid if kill 0, $bouncer_pid;
	$bouncer_pid = undef;
}
END { stop_bouncer(); }

{
	my ($out, $err) = ('', '');
	IPC::Run::run([ $pgbouncer, '-d', "$dir/pgbouncer.ini" ], '<', \undef, '>', \$out, '2>', \$err);
	is($? >> 8, 0, 'pgbouncer started as a daemon') or diag("$out$err");
	for (1 .. 100)
	{
		last if -s "$dir/pgbouncer.pid";
		usleep(100_000);
	}
	open my $pf, '<', "$dir/pgbouncer.pid" or BAIL_OUT("no pgbouncer pidfile: " . slurp_log());
	($bouncer_pid) = <$pf> =~ /(\d+)/;
	close $pf;
	ok($bouncer_pid && kill(0, $bouncer_pid), "pgbouncer runs, pid $bouncer_pid");
}

sub slurp_log
{
	return -f "$dir/pgbouncer.log" ? slurp_file("$dir/pgbouncer.log") : '(no log)';
}

my @psql = ('psql', '-X', '-q', '-A', '-t', '-F', ' ', '-v', 'ON_ERROR_STOP=1',
	'-h', '127.0.0.1', '-p', $bport, '-U', $user, '-d', 'postgres');

sub bouncer_psql
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ @psql, '-c', $sql ], '<', \undef, '>', \$out, '2>', \$err,
		IPC::Run::timeout(60));
	chomp $out;
	return wantarray ? ($? >> 8, $out, $err) : $out;
}

my $up = 0;
for (1 .. 100)
{
	my ($rc, $out) = bouncer_psql('SELECT 1');
	if ($rc == 0 && $out eq '1')
	{
		$up = 1;
		last;
	}
	usleep(100_000);
}
ok($up, 'psql reaches the node through pgbouncer') or diag(slurp_log());

# --- a. many clients on few server connections ---------------------------------

my $clients = 16;
my $calls   = 100;

# all clients at once; each returns its lines "backend_pid id"
sub run_clients
{
	my ($func) = @_;
	my $script = "$dir/$func.sql";
	open my $fh, '>', $script or die "$script: $!";
	print $fh "SELECT pg_backend_pid(), $func();\n" for 1 .. $calls;
	close $fh;
	my (@h, @out, @err);
	for my $c (0 .. $clients - 1)
	{
		($out[$c], $err[$c]) = ('', '');
		push @h, IPC::Run::start([ @psql, '-f', $script ], '<', \undef,
			'>', \$out[$c], '2>', \$err[$c], IPC::Run::timeout(120));
	}
	my @rc;
	for my $c (0 .. $clients - 1)
	{
		eval { $h[$c]->finish; };
		push @rc, $@ ? -1 : $h[$c]->result(0);
	}
	return (\@rc, \@out, \@err);
}

for my $func ('idgen_next', 'idgen_next128')
{
	my ($rc, $out, $err) = run_clients($func);
	is(scalar(grep { $_ != 0 } @$rc), 0, "$func: all $clients clients succeeded")
	  or diag(join("\n", grep { $_ ne '' } @$err));
	my (%seen, %pids);
	my ($total, $dups, $unordered) = (0, 0, 0);
	for my $c (0 .. $clients - 1)
	{
		my $prev;
		for my $line (split /\n/, $out->[$c])
		{
			my ($pid, $id) = split / /, $line;
			$pids{$pid} = 1;
			$total++;
			$dups++ if $seen{$id}++;
			# idgen: decimal, compared as numbers; idgen128: canonical
			# lower-case hex, whose string order is the byte order
			if (defined $prev)
			{
				my $up = $func eq 'idgen_next'
				  ? length($id) <=> length($prev) || $id cmp $prev
				  : $id cmp $prev;
				$unordered++ unless $up > 0;
			}
			$prev = $id;
		}
	}
	is($total, $clients * $calls, "$func: $clients clients x $calls calls returned an ID each");
	is($dups, 0, "$func: no ID twice");
	is($unordered, 0, "$func: each client's IDs ascend, call after call");
	my $n = scalar keys %pids;
	ok($n >= 1 && $n <= $pool,
		"$func: the $clients clients ran on $n server connection(s), the pool holds $pool");
}

# the server side saw only pgbouncer's few TCP connections
my $server_conns = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND client_addr IS NOT NULL");
ok($server_conns >= 1 && $server_conns <= $pool,
	"the node has $server_conns connection(s) from pgbouncer, at most the pool's $pool");

# --- b. and c. need a client that holds its connection: DBD::Pg ---------------------

SKIP:
{
	if (!$have_dbd)
	{
		fail('IDGEN_REQUIRE_CLIENTS=1 but DBD::Pg is missing (Debian package libdbd-pg-perl)')
		  if $require;
		skip('DBD::Pg is missing (Debian package libdbd-pg-perl)', 1);
	}

	my $dsn = "dbi:Pg:host=127.0.0.1;port=$bport;dbname=postgres";
	my @dbh = map {
		DBI->connect($dsn, $user, '', { AutoCommit => 1, RaiseError => 1, PrintError => 0 })
	} 1 .. 3;
	my ($ca, $cb, $cc) = @dbh;
	my $pid = sub { $_[0]->selectrow_array('SELECT pg_backend_pid()') };

	# $first->() runs on one server connection, $again->() on the other;
	# returns their server pids and results
	my $elsewhere = sub {
		my ($first, $again) = @_;
		$cb->begin_work;
		my $held = $pid->($cb);
		my @r1 = $first->();
		$cc->begin_work;
		my $taken = $pid->($cc);
		$cb->commit;
		my @r2 = eval { $again->() };
		my $error = $@;
		$cc->commit;
		return ($held, $taken, \@r1, \@r2, $error);
	};

	# b. keyed batches
	for my $width ('', '128')
	{
		my $key = "order-$width-17";
		my $sql = "SELECT pg_backend_pid(), string_agg(i::text, ',') FROM idgen_next${width}_batch(5, '$key') AS i";
		my ($held, $taken, $r1, $r2, $error) = $elsewhere->(
			sub { $ca->selectrow_array($sql) }, sub { $ca->selectrow_array($sql) });
		is($error, '', "keyed batch$width: the retry ran");
		isnt($r1->[0], $held, "keyed batch$width: the first call ran beside the held connection");
		is($taken, $r1->[0], "keyed batch$width: then a third client took the first call's connection");
		is($r2->[0], $held, "keyed batch$width: the retry ran on the other server connection ($r1->[0], then $r2->[0])");
		my @ids = split /,/, $r1->[1] // '';
		is(scalar @ids, 5, "keyed batch$width: 5 IDs");
		is($r2->[1], $r1->[1], "keyed batch$width: the retry returned the same IDs");
		# a different client with the same key (a reconnecting application)
		is(($cb->selectrow_array($sql))[1], $r1->[1],
			"keyed batch$width: another client connection gets them too");
		my ($other) = ($ca->selectrow_array(
			"SELECT string_agg(i::text, ',') FROM idgen_next${width}_batch(5, '$key-b') AS i"));
		isnt($other, $r1->[1], "keyed batch$width: another key gets other IDs");
	}

	# c. prepared statements
	my ($held, $taken, $r1, $r2, $error) = $elsewhere->(
		sub { $ca->do('PREPARE next_id AS SELECT idgen_next()'); $pid->($ca) },
		sub { $ca->selectrow_array('EXECUTE next_id') });
	is($taken, $r1->[0], 'SQL PREPARE: a third client took the connection it ran on');
	like($error, qr/prepared statement "next_id" does not exist/,
		'SQL PREPARE, then EXECUTE in another transaction: fails on the other server connection');
	is($ca->state, '26000', 'SQL PREPARE: the error is 26000 (invalid_sql_statement_name)');
	# a statement outlives its transaction on its server connection: once
	# both have one of a name, every later PREPARE of that name fails (42P05)
	($held, $taken, $r1, $r2, $error) = $elsewhere->(
		sub { $ca->do('PREPARE dup_id AS SELECT idgen_next()') },
		sub { $ca->do('PREPARE dup_id AS SELECT idgen_next()') });
	is($error, '', 'SQL PREPARE of one name, once on each server connection: both work');
	eval { $ca->do('PREPARE dup_id AS SELECT idgen_next()') };
	like($@, qr/prepared statement "dup_id" already exists/,
		'SQL PREPARE: statements left behind on the server connections collide with a third PREPARE');

	# PREPARE, EXECUTE and DEALLOCATE in one transaction stay on one connection
	$ca->begin_work;
	$ca->do('PREPARE next_in_tx AS SELECT idgen_next()');
	my ($x1) = $ca->selectrow_array('EXECUTE next_in_tx');
	my ($x2) = $ca->selectrow_array('EXECUTE next_in_tx');
	$ca->do('DEALLOCATE next_in_tx');
	$ca->commit;
	ok(defined $x2 && length($x2) > 0 && (length($x2) <=> length($x1) || $x2 cmp $x1) > 0,
		'PREPARE/EXECUTE/DEALLOCATE inside one transaction: works, ascending');

	# DBD::Pg named server-side statements (pg_switch_prepared = 1)
	# (a statement with placeholders: DBD::Pg sends one without them as a
	# simple query)
	my $named = $ca->prepare('SELECT pg_backend_pid(), idgen_next() WHERE $1::int = 1',
		{ pg_server_prepare => 1 });
	$named->{pg_switch_prepared} = 1;
	($held, $taken, $r1, $r2, $error) = $elsewhere->(
		sub { $named->execute(1); $named->fetchrow_array },
		sub { $named->execute(1); $named->fetchrow_array });
	ok(defined $r1->[1], 'DBD::Pg named statement: the first execute works');
	like($error, qr/prepared statement "dbdpg_\w+" does not exist/,
		'DBD::Pg named statement: the next execute fails on the other server connection');
	ok($node->log_contains(qr/execute dbdpg_\w+: SELECT pg_backend_pid\(\), idgen_next\(\) WHERE/),
		'DBD::Pg named statement: the server ran it as a named prepared statement');

	# unnamed extended protocol, server-side parameters: PQexecParams
	my $unnamed = $ca->prepare(
		'SELECT pg_backend_pid(), string_agg(i::text, \',\') FROM idgen_next_batch($1::int, $2::text) AS i',
		{ pg_server_prepare => 1 });
	$unnamed->{pg_switch_prepared} = 0;
	($held, $taken, $r1, $r2, $error) = $elsewhere->(
		sub { $unnamed->execute(3, 'unnamed-1'); $unnamed->fetchrow_array },
		sub { $unnamed->execute(3, 'unnamed-1'); $unnamed->fetchrow_array });
	is($error, '', 'DBD::Pg pg_switch_prepared = 0 (unnamed statements, PQexecParams): every execute works');
	isnt($r2->[0], $r1->[0], 'DBD::Pg unnamed: the executes ran on both server connections');
	is(scalar(split /,/, $r1->[1] // ''), 3, 'DBD::Pg unnamed: bound parameters reached the server');
	is($r2->[1], $r1->[1], 'DBD::Pg unnamed: the keyed batch returned the same IDs');
	ok($node->log_contains(qr/execute <unnamed>: SELECT pg_backend_pid\(\), string_agg\(i::text, ','\) FROM idgen_next_batch\(\$1::int/),
		'DBD::Pg unnamed: the server ran it as an unnamed statement with parameters');
	ok(!$node->log_contains(qr/execute dbdpg_\w+: SELECT pg_backend_pid\(\), string_agg/),
		'DBD::Pg unnamed: and never as a named one');

	# many executes of one unnamed statement, inserting with parameters
	my $ins = $ca->prepare('INSERT INTO pooled (client) VALUES ($1) RETURNING id');
	$ins->{pg_switch_prepared} = 0;
	my @got;
	for my $i (1 .. 50)
	{
		$ins->execute($i % 3);
		push @got, ($ins->fetchrow_array)[0];
	}
	my %u = map { $_ => 1 } @got;
	is(scalar keys %u, 50, 'DBD::Pg unnamed INSERT ... RETURNING: 50 distinct IDs');

	# client-side interpolation (pg_server_prepare = 0) works too
	my $client_side = $ca->prepare('SELECT pg_backend_pid(), idgen_next() WHERE $1::int = 1',
		{ pg_server_prepare => 0 });
	($held, $taken, $r1, $r2, $error) = $elsewhere->(
		sub { $client_side->execute(1); $client_side->fetchrow_array },
		sub { $client_side->execute(1); $client_side->fetchrow_array });
	is($error, '', 'DBD::Pg pg_server_prepare = 0 (client-side parameters): every execute works');
	isnt($r2->[0], $r1->[0], 'DBD::Pg client-side: the executes ran on both server connections');

	$_->disconnect for @dbh;
}

my ($rc, $rows) = bouncer_psql('SELECT count(*), count(DISTINCT id) FROM pooled');
is($rows, '50 50', 'the inserted rows through pgbouncer have distinct IDs')
  if $have_dbd;

my $was = $bouncer_pid;
stop_bouncer();
ok(!kill(0, $was), "pgbouncer (pid $was) stopped");
ok(!$node->log_contains('server process .* terminated by signal'), 'no backend crashed');
$node->stop;

done_testing();
