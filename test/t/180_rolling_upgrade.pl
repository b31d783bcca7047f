# 180_rolling_upgrade.pl - a rolling upgrade of a fleet from the previous
# release, under load (README, "Upgrading")
#
# The previous release is built from git by scripts/prev_release.sh DEST
# into a copy of PostgreSQL of its own; IDGEN_PREV_RELEASE=DEST names it
# (make test's TAP layer does both).  Without it this file fails: it never
# skips.  The tree's release is the installation the TAP layer uses.
#
# Three rounds, each on a fresh fleet of a registry and two nodes started
# on the previous release, with two clients per node drawing batches of IDs
# without a pause, each call on a new connection, its start and end timed,
# and pgbench inserting batches of IDs into a table on each node.
# To upgrade a member: stop it, start it on the new release's binaries on
# the same data directory, ALTER EXTENSION idgen UPDATE (in the registry
# database, postgres, on every member).
#
#   1. the documented order: the registry; once its incarnation hold has
#      ended (a restart holds new grants), node 1, then node 2;
#   2. the other way round: node 1, node 2, then the registry;
#   3. the registry (at the default idgen.lease_ttl, 30 s, which sets its
#      hold), then node 1 at once, inside the hold: node 1 issues nothing
#      until the hold ends, and refuses (no valid worker lease).
#
# In each round: no ID twice; on each node no ID below one a call that ended
# before it began returned (the issuer never goes backwards, across its
# restart and the new binaries); the fleet never pauses as a whole: while a
# node is down the other one issues, and while the registry is down at
# least one node does.  Every member ends on the new release, its
# extension at the tree's version.  Each server's pause (the longest gap
# between a node's answers around a step) is printed as a note, for the
# figures in the README.
use strict;
use warnings;

use File::Basename qw(dirname);
use IPC::Run ();
use POSIX ();
use lib 'test/perl';
use IdgenTest qw(:DEFAULT status);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

# --- the two releases ---------------------------------------------------------

my $prev = $ENV{IDGEN_PREV_RELEASE} // '';
if ($prev eq '' || !-f "$prev/install_path")
{
	fail('the previous release is installed: IDGEN_PREV_RELEASE names the '
		  . 'directory scripts/prev_release.sh DEST filled (it is '
		  . ($prev eq '' ? 'unset' : "'$prev', without install_path") . ')');
	done_testing();
	exit 0;
}
chomp(my $old_path = slurp_file("$prev/install_path"));
chomp(my $old_version = slurp_file("$prev/version"));
chomp(my $old_commit = slurp_file("$prev/commit"));

my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
chomp(my $new_bindir = `$pg_config --bindir`);
my $new_path = dirname($new_bindir);
my ($new_version) = slurp_file('idgen.control') =~ /^default_version\s*=\s*'([^']+)'/m;

ok(-x "$old_path/bin/postgres" && -f "$old_path/lib/idgen.so",
	"previous release $old_version (" . substr($old_commit, 0, 7) . ") installed in $old_path");
ok(-x "$new_path/bin/postgres" && -f "$new_path/lib/idgen.so",
	"this tree's release $new_version installed in $new_path");
isnt($old_path, $new_path, 'the two releases are two installations');

# --- a fleet on the previous release -------------------------------------------

# the lease TTL of 104_fleet_ride_through.pl: the registry's restart (an
# incarnation change) holds new grants for about that long
my $conf = q{
shared_buffers = 16MB
max_connections = 30
idgen.lease_ttl = '10s'
idgen.lease_wait = '5s'
};

sub old_member
{
	my ($name, $extra) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name, install_path => $old_path);
	$node->init;
	$node->append_conf('postgresql.conf',
		"shared_preload_libraries = 'idgen'\nlisten_addresses = '127.0.0.1'\n$conf$extra");
	$node->start;
	return $node;
}

# the postgres executable the server runs, from its postmaster.pid
sub server_binary
{
	my ($node) = @_;
	my ($pid) = slurp_file($node->data_dir . '/postmaster.pid') =~ /^(\d+)/;
	return readlink("/proc/$pid/exe") // '?';
}

sub ext_version
{
	my ($node) = @_;
	return $node->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'idgen'});
}

# --- the load: clients drawing IDs with their times ------------------------------

# A client: a child process calling idgen_next() in batches of 10, each call
# on a new connection (so it reconnects across its node's restart), until
# $stop exists.  One line per call: start and end time, then the IDs or the
# error.  POSIX::_exit: the child must not run the test's END blocks, which
# stop the clusters.
sub start_client
{
	my ($node, $file, $stop) = @_;
	my $connstr = $node->connstr('postgres');
	my $psql = "$new_path/bin/psql";
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	return $pid if $pid;
	open my $out, '>', $file or POSIX::_exit(1);
	$out->autoflush(1);
	until (-e $stop)
	{
		my ($o, $e) = ('', '');
		my $t0 = time();
		my $ok = IPC::Run::run(
			[ $psql, '-XAtq', '-d', $connstr, '-c',
				'SELECT idgen_next()::bigint FROM generate_series(1, 10)' ],
			'<', \undef, '>', \$o, '2>', \$e);
		my $t1 = time();
		my @ids = $o =~ /^(\d+)$/mg;
		if ($ok && @ids == 10)
		{
			printf $out "%.6f %.6f ok %s\n", $t0, $t1, join(',', @ids);
		}
		else
		{
			my ($first) = "$e$o" =~ /^(?:psql: )?(?:error: )?(.*)$/m;
			$first //= 'no output';
			$first =~ s/\s+/ /g;
			printf $out "%.6f %.6f err %s\n", $t0, $t1, $first;
			sleep 0.05;
		}
	}
	close $out;
	POSIX::_exit(0);
}

# A pgbench load: 2 clients inserting batches of 10 IDs into table drawn,
# in runs of 2 s (a run ends early when the node restarts; the next one
# connects again), until $stop exists.
sub start_pgbench
{
	my ($node, $dir, $stop) = @_;
	my $script = "$dir/" . $node->name . '.pgbench';
	open my $fh, '>', $script or die $!;
	print $fh "INSERT INTO drawn (id) SELECT idgen_next() FROM generate_series(1, 10);\n";
	close $fh;
	my @cmd = ("$new_path/bin/pgbench", '-n', '-T', '2', '-c', '2', '-f', $script,
		'-h', $node->host, '-p', $node->port, 'postgres');
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	return $pid if $pid;
	until (-e $stop)
	{
		IPC::Run::run(\@cmd, '<', \undef, '>', '/dev/null', '2>>', "$script.err")
		  or sleep 0.1;
	}
	POSIX::_exit(0);
}

# the calls of a node's clients: [ t0, t1, [ids] ] or [ t0, t1, undef, error ]
sub read_calls
{
	my (@files) = @_;
	my @calls;
	for my $f (@files)
	{
		for my $line (split /\n/, slurp_file($f))
		{
			my ($t0, $t1, $what, $rest) = split / /, $line, 4;
			push @calls, $what eq 'ok'
			  ? [ $t0, $t1, [ split /,/, $rest ] ]
			  : [ $t0, $t1, undef, $rest ];
		}
	}
	return \@calls;
}

# the gaps between a node's answers: [ from, to ], the end times of
# successive successful calls
sub gaps
{
	my ($calls, $from, $to) = @_;
	my @ends = sort { $a <=> $b } map { $_->[1] } grep { $_->[2] } @$calls;
	unshift @ends, $from;
	push @ends, $to;
	return [ map { [ $ends[$_], $ends[ $_ + 1 ] ] } 0 .. $#ends - 1 ];
}

# the longest gap that overlaps [from, to]
sub pause_in
{
	my ($gaps, $from, $to) = @_;
	my $best = [ $from, $from ];
	for my $g (@$gaps)
	{
		next if $g->[1] < $from || $g->[0] > $to;
		$best = $g if $g->[1] - $g->[0] > $best->[1] - $best->[0];
	}
	return $best;
}

# how many of the calls succeeded with their end inside (from, to)
sub answers_in
{
	my ($calls, $from, $to) = @_;
	return scalar grep { $_->[2] && $_->[1] > $from && $_->[1] < $to } @$calls;
}

# Calls B whose IDs are not all above those of every call that ended
# before B began (and batches not ascending): the issuer going backwards.
sub backwards
{
	my ($calls) = @_;
	my @ok = grep { $_->[2] } @$calls;
	my @by_end = sort { $a->[1] <=> $b->[1] } @ok;
	my @by_start = sort { $a->[0] <=> $b->[0] } @ok;
	my ($i, $max, $bad) = (0, -1, 0);
	for my $c (@by_start)
	{
		while ($i < @by_end && $by_end[$i][1] < $c->[0])
		{
			my $m = (sort { $b <=> $a } @{ $by_end[$i][2] })[0];
			$max = $m if $m > $max;
			$i++;
		}
		my @ids = @{ $c->[2] };
		$bad++ if $ids[0] <= $max;
		$bad++ if grep { $ids[$_] <= $ids[ $_ - 1 ] } 1 .. $#ids;
	}
	return $bad;
}

# --- one round ---------------------------------------------------------------------

# Upgrade one member: stop it (fast), start it on the new release's
# binaries on the same data directory, ALTER EXTENSION idgen UPDATE.
# Returns the times the stop began and the start returned.
sub upgrade_member
{
	my ($node, $round) = @_;
	my $t_stop = time();
	$node->stop('fast');
	# PostgreSQL::Test::Cluster keeps a node's installation from new() on;
	# the upgrade is this: the same data directory, the other binaries
	$node->{_install_path} = $new_path;
	$node->start;
	my $t_up = time();
	like(server_binary($node), qr/^\Q$new_path\E\/bin\/postgres$/,
		"round $round: " . $node->name . ' runs the new release\'s postgres');
	$node->safe_psql('postgres', 'ALTER EXTENSION idgen UPDATE');
	is(ext_version($node), $new_version,
		"round $round: " . $node->name . ": ALTER EXTENSION idgen UPDATE brings it to $new_version");
	return ($t_stop, $t_up);
}

sub round
{
	my ($round, $order, %opt) = @_;
	my @order = @$order;
	my $registry = old_member("r${round}_registry",
		$opt{registry_ttl} ? "idgen.lease_ttl = '$opt{registry_ttl}'\n" : '');
	ok(wait_extension($registry), "round $round: registry: the extension exists");
	my @nodes = map {
		old_member("r${round}_node$_", "idgen.registry = '" . registry_conn($registry) . "'\n")
	} 1 .. 2;
	my %member = (registry => $registry, node1 => $nodes[0], node2 => $nodes[1]);
	for my $m ($registry, @nodes)
	{
		like(server_binary($m), qr/^\Q$old_path\E\/bin\/postgres$/,
			"round $round: " . $m->name . " runs the previous release's postgres");
	}
	for my $n (@nodes)
	{
		ok(wait_state($n), "round $round: " . $n->name . ': active');
		$n->safe_psql('postgres', 'CREATE TABLE drawn (id bigint NOT NULL)');
		is(ext_version($n), $old_version, "round $round: " . $n->name . ": extension at $old_version");
	}

	my $dir = PostgreSQL::Test::Utils::tempdir;
	my $stop = "$dir/stop";
	my (@pids, %files);
	for my $i (1 .. 2)
	{
		for my $c (1 .. 2)
		{
			my $f = "$dir/node${i}_client$c";
			push @{ $files{"node$i"} }, $f;
			push @pids, start_client($nodes[ $i - 1 ], $f, $stop);
		}
		push @pids, start_pgbench($nodes[ $i - 1 ], $dir, $stop);
	}
	my $t_begin = time();
	sleep 3;

	# each step: the member, when its stop began, when it was up again, and
	# when its nodes answered again
	my @steps;
	for my $name (@order)
	{
		my $m = $member{$name};
		my ($t_stop, $t_up) = upgrade_member($m, $round);
		ok(wait_state($_), "round $round: after $name: " . $_->name . ' active') for @nodes;
		push @steps, [ $name, $t_stop, $t_up, time() ];
		if ($name eq 'registry' && $opt{wait_hold})
		{
			# the restart is a new incarnation: the registry grants no
			# block until its hold ends, so a node restarted before then
			# waits for it (round 3 shows what that costs)
			ok( $registry->poll_query_until('postgres', qq{
SELECT since > to_timestamp($t_stop) AND hold_until < clock_timestamp()
FROM idgen.registry_incarnation}),
				"round $round: the registry's incarnation hold ended");
			diag sprintf "round %d: the registry's incarnation hold: %s s, over %.1f s after its stop",
			  $round, $registry->safe_psql('postgres', q{
SELECT round(extract(epoch FROM hold_until - since), 1) FROM idgen.registry_incarnation}),
			  time() - $t_stop;
		}
		else
		{
			# steady load before the next step
			sleep 3;
		}
	}
	my $t_end = time();
	open my $fh, '>', $stop or die $!;
	close $fh;
	waitpid($_, 0) for @pids;

	my %calls = map { $_ => read_calls(@{ $files{$_} }) } qw(node1 node2);
	my %gaps = map { $_ => gaps($calls{$_}, $t_begin, $t_end) } qw(node1 node2);

	# no ID twice, across the fleet
	my %seen;
	my ($n_ids, $dup) = (0, 0);
	for my $c (map { @{ $calls{$_} } } qw(node1 node2))
	{
		next unless $c->[2];
		for (@{ $c->[2] })
		{
			$n_ids++;
			$dup++ if $seen{$_}++;
		}
	}
	my $n_client = $n_ids;
	for my $n (@nodes)
	{
		for (split /\n/, $n->safe_psql('postgres', 'SELECT id FROM drawn'))
		{
			$n_ids++;
			$dup++ if $seen{$_}++;
		}
	}
	cmp_ok($n_client, '>', 0, "round $round: the clients drew IDs ($n_client)");
	cmp_ok($n_ids - $n_client, '>', 0, "round $round: pgbench inserted IDs (" . ($n_ids - $n_client) . ')');
	is($dup, 0, "round $round: no ID twice across the fleet ($n_ids)");

	for my $n (qw(node1 node2))
	{
		my $errors = grep { !$_->[2] } @{ $calls{$n} };
		my %why;
		$why{ $_->[3] =~ s/^connection to server on socket "[^"]*" failed: //r }++
		  for grep { !$_->[2] } @{ $calls{$n} };
		diag sprintf "round %d: %s: %d calls, %d refused or failed%s", $round, $n,
		  scalar @{ $calls{$n} }, $errors,
		  join('', map { "; $why{$_} x $_" } sort keys %why);
		is(backwards($calls{$n}), 0,
			"round $round: $n: no ID below one issued before it (across the upgrade of every member)");
	}

	# the pauses, and the fleet issuing through each of them
	for my $s (@steps)
	{
		my ($name, $t_stop, $t_up, $t_back) = @$s;
		my %pause = map { $_ => pause_in($gaps{$_}, $t_stop, $t_back) } qw(node1 node2);
		diag sprintf "round %d: %s upgraded (down %.1f s, its ALTER and the nodes active %.1f s later): "
		  . "longest pause node1 %.2f s, node2 %.2f s", $round, $name, $t_up - $t_stop,
		  $t_back - $t_up, map { $pause{$_}[1] - $pause{$_}[0] } qw(node1 node2);
		if ($name eq 'registry')
		{
			my $issued = answers_in($calls{node1}, $t_stop, $t_up) + answers_in($calls{node2}, $t_stop, $t_up);
			cmp_ok($issued, '>', 0,
				"round $round: the fleet issued while the registry was down ($issued calls answered)");
		}
		else
		{
			my $other = $name eq 'node1' ? 'node2' : 'node1';
			my $p = $pause{$name};
			my $issued = answers_in($calls{$other}, @$p);
			cmp_ok($issued, '>', 0,
				"round $round: $other issued throughout $name\'s pause ($issued calls answered)");
		}
	}
	if ($opt{hold_costs})
	{
		# node1 restarted right after the registry, inside its hold
		my ($hold_until, $hold) = split /\|/, $registry->safe_psql('postgres',
			'SELECT extract(epoch FROM hold_until), round(extract(epoch FROM hold_until - since), 1) FROM idgen.registry_incarnation');
		my ($s) = grep { $_->[0] eq 'node1' } @steps;
		my ($first) = sort { $a <=> $b } map { $_->[1] } grep { $_->[2] && $_->[0] > $s->[2] } @{ $calls{node1} };
		ok($s->[2] < $hold_until,
			"round $round: node1 was up again before the registry's hold ended");
		cmp_ok($first, '>', $hold_until,
			"round $round: node1's first call after its start to be answered ended after the hold");
		cmp_ok(scalar(grep { !$_->[2] && $_->[0] > $s->[2] && $_->[3] =~ /no valid worker lease/ } @{ $calls{node1} }),
			'>', 0, "round $round: until then node1 refused: idgen has no valid worker lease");
		diag sprintf "round %d: node1, up %.1f s before the registry's hold (%s s) ended, issued again %.1f s after it ended",
		  $round, $hold_until - $s->[2], $hold, $first - $hold_until;
	}
	my $fleet_gap = pause_in(gaps([ map { @{ $calls{$_} } } qw(node1 node2) ], $t_begin, $t_end),
		$t_begin, $t_end);
	diag sprintf "round %d: the fleet's longest pause (no node answering): %.2f s",
	  $round, $fleet_gap->[1] - $fleet_gap->[0];

	for my $m ($registry, @nodes)
	{
		is(ext_version($m), $new_version, "round $round: " . $m->name . ": extension at $new_version");
	}
	is( $registry->safe_psql('postgres',
			q{SELECT count(*) FROM idgen.fleet WHERE kind = 'node' AND remote AND live}),
		'2', "round $round: idgen.fleet: both nodes hold live leases");
	$_->stop for ($registry, @nodes);
}

round(1, [qw(registry node1 node2)], wait_hold => 1);
round(2, [qw(node1 node2 registry)]);
# the registry's default lease TTL, 30 s, sets its hold: node1's restart
# falls well inside it
round(3, [qw(registry node1 node2)], hold_costs => 1, registry_ttl => '30s');

done_testing();
