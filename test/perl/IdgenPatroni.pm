# IdgenPatroni.pm - a registry on Patroni over etcd, for the TAP drills
#
#   use lib 'test/perl';
#   use IdgenPatroni;
#
#   my $reg = IdgenPatroni->new(members => 3);   # etcd, 3 members, a leader
#   my $conn = $reg->conninfo;   # host=127.0.0.1,127.0.0.1,... target_session_attrs=read-write
#   $reg->leader;                # the leading member's name (m1, m2, ...)
#   $reg->kill9_leader;          # SIGKILL to Patroni, its postmaster and children
#   $reg->switchover('m2');      # POST /switchover, wait for m2 to lead
#   $reg->stop_etcd; $reg->start_etcd;
#   $reg->stop;                  # everything, by recorded pids (also at exit)
#
# Everything runs on 127.0.0.1 with ports from PostgreSQL::Test::Cluster's
# get_free_port(), in the test's own tmp_check directory, as the OS user the
# test runs as (Patroni and PostgreSQL refuse root).  etcd and Patroni are
# children of the test; their logs go to tmp_check/log.  Nothing is ever
# stopped by name: each process is signalled by the pid recorded when it
# started (Patroni's postmaster: the pid in its postmaster.pid, recorded
# whenever the member is seen running, so that it can still be stopped after
# its Patroni was killed).
#
# Patroni runs under Debian's /usr/bin/python3 (/usr/bin/patroni), with a
# clean Python environment: the PATH's python3 may be another one.
package IdgenPatroni;

use strict;
use warnings;

use Carp;
use Exporter 'import';
use File::Path qw(make_path);
use HTTP::Tiny;
use IPC::Run ();
use JSON::PP;
use POSIX qw(WNOHANG);
use PostgreSQL::Test::Cluster;
use IdgenTest ();
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

our @EXPORT = qw(drill_prepare drill_start drill_stop drill_check);

my $patroni_bin = $ENV{IDGEN_PATRONI} // '/usr/bin/patroni';
my $etcd_bin    = $ENV{IDGEN_ETCD}    // '/usr/bin/etcd';

my @live;    # every registry made, for the END block

# True when etcd and Patroni are installed (scripts/deps.sh installs them).
sub available
{
	return -x $patroni_bin && -x $etcd_bin;
}

# A test file that needs them: make test installs them (scripts/deps.sh),
# so there a missing one fails; elsewhere the file is skipped.
sub require_or_skip
{
	return if available();
	Test::More::BAIL_OUT('patroni or etcd is not installed (scripts/deps.sh installs them)')
	  if $ENV{IDGEN_REQUIRE_CLIENTS};
	Test::More::plan(skip_all => 'patroni and etcd are not installed (scripts/deps.sh installs them)');
	return;
}

# A registry of $opt{members} (2 or 3) Patroni members over one etcd, with
# a leader and, when synchronous => 1 (the default), a sync standby.
#   ttl, loop_wait, retry_timeout  Patroni's DCS timing (10, 1, 3)
#   conf                           extra postgresql.conf lines (hash ref)
sub new
{
	my ($class, %opt) = @_;
	my $self = bless {
		members       => $opt{members} // 3,
		ttl           => $opt{ttl} // 10,
		loop_wait     => $opt{loop_wait} // 1,
		retry_timeout => $opt{retry_timeout} // 3,
		conf          => $opt{conf} // {},
		dir           => PostgreSQL::Test::Utils::tempdir('patroni'),
		sockdir       => PostgreSQL::Test::Utils::tempdir_short(),
		bindir        => _bindir(),
		http          => HTTP::Tiny->new(timeout => 3),
		member        => {},
		pm_pids       => {},
		seen          => {},
	}, $class;
	push @live, $self;

	$self->{etcd_client} = PostgreSQL::Test::Cluster::get_free_port();
	$self->{etcd_peer}   = PostgreSQL::Test::Cluster::get_free_port();
	$self->start_etcd;

	for my $i (1 .. $self->{members})
	{
		my $name = "m$i";
		$self->{member}{$name} = {
			name     => $name,
			pg_port  => PostgreSQL::Test::Cluster::get_free_port(),
			api_port => PostgreSQL::Test::Cluster::get_free_port(),
			data_dir => "$self->{dir}/$name/data",
		};
		$self->_write_config($name);
	}
	# the first member bootstraps alone; the others then clone it
	$self->start_member('m1');
	$self->wait_leader or croak 'patroni: no leader after bootstrap';
	$self->start_member($_) for $self->names;
	$self->wait_members or croak 'patroni: not every member runs';
	$self->wait_sync   or croak 'patroni: no synchronous standby'
	  if $opt{synchronous} // 1;
	$self->wait_extension or croak 'patroni: no idgen extension on the leader';
	return $self;
}

sub _bindir
{
	my $out = `pg_config --bindir`;
	chomp $out;
	croak 'pg_config --bindir failed' unless $out;
	return $out;
}

sub names
{
	my ($self) = @_;
	return sort keys %{ $self->{member} };
}

sub member
{
	my ($self, $name) = @_;
	return $self->{member}{$name};
}

# The multi-host connection string nodes lease through: libpq tries the
# members in order and keeps the one that takes writes.
sub conninfo
{
	my ($self, %opt) = @_;
	my @m = map { $self->{member}{$_} } $self->names;
	return 'host=' . join(',', ('127.0.0.1') x @m)
	  . ' port=' . join(',', map { $_->{pg_port} } @m)
	  . ' dbname=postgres connect_timeout=2 target_session_attrs='
	  . ($opt{attrs} // 'read-write');
}

# conninfo of one member
sub member_conninfo
{
	my ($self, $name) = @_;
	return "host=127.0.0.1 port=$self->{member}{$name}{pg_port} dbname=postgres connect_timeout=2";
}

# ---------------------------------------------------------------------------
# etcd

sub start_etcd
{
	my ($self) = @_;
	croak 'etcd already runs' if $self->{etcd_pid};
	my ($c, $p) = ($self->{etcd_client}, $self->{etcd_peer});
	my @cmd = (
		$etcd_bin,
		'--name'                        => 'etcd0',
		'--data-dir'                    => "$self->{dir}/etcd",
		'--listen-client-urls'          => "http://127.0.0.1:$c",
		'--advertise-client-urls'       => "http://127.0.0.1:$c",
		'--listen-peer-urls'            => "http://127.0.0.1:$p",
		'--initial-advertise-peer-urls' => "http://127.0.0.1:$p",
		'--initial-cluster'             => "etcd0=http://127.0.0.1:$p",
		'--initial-cluster-state'       => 'new',
		'--heartbeat-interval'          => '100',
		'--election-timeout'            => '1000');
	$self->{etcd_pid} = _spawn(\@cmd, IdgenTest::log_file('etcd'), {});
	note "etcd started, pid $self->{etcd_pid}, client port $c";
	my $ok = _wait_until(
		sub {
			croak 'etcd exited, see ' . IdgenTest::log_file('etcd')
			  if waitpid($self->{etcd_pid}, WNOHANG) == $self->{etcd_pid};
			my $r = $self->{http}->get("http://127.0.0.1:$c/health");
			return $r->{success} && $r->{content} =~ /"health":\s*"true"/;
		},
		60);
	croak 'etcd did not become healthy' unless $ok;
	return 1;
}

sub stop_etcd
{
	my ($self, $signal) = @_;
	croak 'etcd does not run' unless $self->{etcd_pid};
	_stop_pid($self->{etcd_pid}, $signal // 'TERM');
	note "etcd (pid $self->{etcd_pid}) stopped";
	delete $self->{etcd_pid};
	return 1;
}

# ---------------------------------------------------------------------------
# Patroni members

sub _write_config
{
	my ($self, $name) = @_;
	my $m = $self->{member}{$name};
	make_path("$self->{dir}/$name");
	my %params = (
		shared_preload_libraries   => 'idgen',
		unix_socket_directories    => $self->{sockdir},
		max_connections            => 40,
		max_worker_processes       => 8,
		shared_buffers             => '16MB',
		fsync                      => 'off',
		wal_keep_size              => '64MB',
		log_line_prefix            => '%m [%p] %q%a ',
		log_min_messages           => 'info',
		autovacuum                 => 'off',
		'idgen.database'           => 'postgres',
		%{ $self->{conf} });
	my $params = join '', map { "      $_: '$params{$_}'\n" } sort keys %params;
	my $local = join '', map { "    $_: '$params{$_}'\n" } sort keys %params;
	my $bindir = $self->{bindir};
	my $etcd   = $self->{etcd_client};
	my $yaml   = <<"EOF";
scope: idgen-test
namespace: /idgen/
name: $name
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$m->{api_port}
  connect_address: 127.0.0.1:$m->{api_port}
etcd3:
  hosts: 127.0.0.1:$etcd
bootstrap:
  dcs:
    ttl: $self->{ttl}
    loop_wait: $self->{loop_wait}
    retry_timeout: $self->{retry_timeout}
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: false
      use_slots: true
      parameters:
$params  initdb:
    - encoding: UTF8
    - auth: trust
    - no-sync
postgresql:
  listen: 127.0.0.1:$m->{pg_port}
  connect_address: 127.0.0.1:$m->{pg_port}
  data_dir: $m->{data_dir}
  bin_dir: $bindir
  pgpass: $self->{dir}/$name/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
  parameters:
$local  basebackup:
    - checkpoint: fast
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
EOF
	$m->{config} = "$self->{dir}/$name/patroni.yml";
	open my $fh, '>', $m->{config} or croak "$m->{config}: $!";
	print $fh $yaml;
	close $fh;
	return;
}

# Patroni's environment: Debian's Python, no PG* variables of the test
sub _patroni_env
{
	my ($self) = @_;
	my %env = %ENV;
	delete $env{$_} for grep { /^(PG|PYTHON|VIRTUAL_ENV|PYENV)/ } keys %env;
	$env{PATH} = "$self->{bindir}:/usr/bin:/bin";
	return \%env;
}

sub start_member
{
	my ($self, $name) = @_;
	my $m = $self->{member}{$name};
	return 1 if $m->{pid};
	$m->{pid} = _spawn([ $patroni_bin, $m->{config} ],
		IdgenTest::log_file("patroni_$name"),
		$self->_patroni_env);
	note "patroni $name started, pid $m->{pid}, postgres port $m->{pg_port}, api port $m->{api_port}";
	return 1;
}

# SIGTERM to a member's Patroni: it stops its PostgreSQL and leaves
sub stop_member
{
	my ($self, $name) = @_;
	my $m = $self->{member}{$name};
	$self->_note_postmaster($name);
	if ($m->{pid})
	{
		_stop_pid($m->{pid}, 'TERM', 60);
		delete $m->{pid};
	}
	$self->_stop_postmaster($name);
	return 1;
}

# record the pid of a member's postmaster while it runs
sub _note_postmaster
{
	my ($self, $name) = @_;
	my $m = $self->{member}{$name};
	my $f = "$m->{data_dir}/postmaster.pid";
	return unless -f $f;
	open my $fh, '<', $f or return;
	my $pid = <$fh>;
	close $fh;
	return unless defined $pid;
	chomp $pid;
	$self->{pm_pids}{$name}{$pid} = 1 if $pid =~ /^\d+$/;
	return;
}

# SIGQUIT then SIGKILL to every recorded postmaster of a member still alive
sub _stop_postmaster
{
	my ($self, $name) = @_;
	for my $pid (keys %{ $self->{pm_pids}{$name} // {} })
	{
		if (kill 0, $pid)
		{
			kill 'QUIT', $pid;
			_wait_until(sub { !kill 0, $pid }, 10) or kill 'KILL', $pid;
		}
		delete $self->{pm_pids}{$name}{$pid};
	}
	return;
}

# pids whose parent is $pid (from /proc)
sub _children
{
	my ($pid) = @_;
	my @kids;
	for my $stat (glob '/proc/[0-9]*/stat')
	{
		open my $fh, '<', $stat or next;
		my $line = <$fh>;
		close $fh;
		next unless defined $line;
		# pid (comm) state ppid ...; comm may hold spaces and parentheses
		push @kids, $1 if $line =~ /^(\d+) \(.*\) \S+ (\d+) / && $2 == $pid;
	}
	return @kids;
}

# GET the REST API of a member; the HTTP status, and the JSON body if any
sub api
{
	my ($self, $name, $path, $method, $body, $http) = @_;
	my $url = "http://127.0.0.1:$self->{member}{$name}{api_port}$path";
	my $r = ($http // $self->{http})->request($method // 'GET', $url,
		defined $body
		? { content => encode_json($body), headers => { 'Content-Type' => 'application/json' } }
		: {});
	my $json;
	$json = eval { decode_json($r->{content}) } if ($r->{content} // '') =~ /^\s*[{\[]/;
	return ($r->{status}, $json, $r->{content});
}

# The /cluster view of any member that answers: hash name -> member entry
sub cluster
{
	my ($self) = @_;
	for my $name ($self->names)
	{
		next unless $self->{member}{$name}{pid};
		my ($st, $json) = $self->api($name, '/cluster');
		next unless $st == 200 && $json;
		return { map { $_->{name} => $_ } @{ $json->{members} // [] } };
	}
	return {};
}

# The name of the member whose /leader answers 200 (and which runs), or undef
sub leader
{
	my ($self) = @_;
	for my $name ($self->names)
	{
		next unless $self->{member}{$name}{pid};
		my ($st) = $self->api($name, '/leader');
		if ($st == 200)
		{
			$self->_note_postmaster($name);
			return $name;
		}
	}
	return undef;
}

sub replicas
{
	my ($self) = @_;
	return grep {
		my ($st) = $self->api($_, '/replica');
		$st == 200
	} grep { $self->{member}{$_}{pid} } $self->names;
}

sub wait_leader
{
	my ($self, $timeout, $not) = @_;
	return _wait_until(
		sub {
			my $l = $self->leader;
			return 0 unless defined $l && (!defined $not || $l ne $not);
			# and it takes writes
			return $self->leader_sql('SELECT NOT pg_is_in_recovery()', quiet => 1) eq 't';
		},
		$timeout // 120);
}

# every running member is the leader or a healthy replica
sub wait_members
{
	my ($self, $timeout) = @_;
	return _wait_until(
		sub {
			my @up = grep { $self->{member}{$_}{pid} } $self->names;
			my $l = $self->leader;
			return 0 unless defined $l;
			my %r = map { $_ => 1 } $self->replicas;
			$self->_note_postmaster($_) for @up;
			return !grep { $_ ne $l && !$r{$_} } @up;
		},
		$timeout // 180);
}

# the cluster shows a sync standby (synchronous_mode in force)
sub wait_sync
{
	my ($self, $timeout) = @_;
	return _wait_until(
		sub {
			my $c = $self->cluster;
			return scalar grep { ($_->{role} // '') eq 'sync_standby' } values %$c;
		},
		$timeout // 120);
}

sub sync_standby
{
	my ($self) = @_;
	my $c = $self->cluster;
	my ($s) = grep { ($c->{$_}{role} // '') eq 'sync_standby' } sort keys %$c;
	return $s;
}

sub wait_extension
{
	my ($self) = @_;
	return _wait_until(
		sub {
			$self->leader_sql(q{SELECT count(*) FROM pg_extension WHERE extname = 'idgen'},
				quiet => 1) eq '1';
		},
		60);
}

# Run SQL on a member (or, without one, through the read-write conninfo);
# the output, '' on failure (a warning unless quiet)
sub sql
{
	my ($self, $name, $sql, %opt) = @_;
	my $conn = defined $name ? $self->member_conninfo($name) : $self->conninfo;
	my ($out, $err) = ('', '');
	my $ok = eval {
		IPC::Run::run([ "$self->{bindir}/psql", '-X', '-At', '-v', 'ON_ERROR_STOP=1',
				'-d', $conn, '-c', $sql ],
			'<', \undef, '>', \$out, '2>', \$err,
			IPC::Run::timeout($opt{timeout} // 10));
	};
	chomp $out;
	if (!$ok)
	{
		diag "patroni sql failed on " . ($name // 'leader') . ": $err" unless $opt{quiet};
		return '';
	}
	return $out;
}

sub leader_sql
{
	my ($self, $sql, %opt) = @_;
	return $self->sql(undef, $sql, %opt);
}

# SIGKILL to the leader's Patroni, its postmaster and every child of that,
# at once: the leader's machine is gone.  Returns the name.
sub kill9_leader
{
	my ($self) = @_;
	my $name = $self->leader // croak 'no leader to kill';
	my $m = $self->{member}{$name};
	$self->_note_postmaster($name);
	my @pm = keys %{ $self->{pm_pids}{$name} // {} };
	my @victims = ($m->{pid}, @pm, map { _children($_) } @pm);
	kill 'KILL', @victims;
	note "killed the leader $name with SIGKILL: pids @victims";
	waitpid($m->{pid}, 0);
	delete $m->{pid};
	_wait_until(sub { !grep { kill 0, $_ } @pm }, 10);
	delete $self->{pm_pids}{$name};
	return $name;
}

# A planned switchover to $candidate (default: the sync standby) through the
# leader's REST API; true once the candidate leads and takes writes.
sub switchover
{
	my ($self, $candidate) = @_;
	my $leader = $self->leader // croak 'no leader to switch over from';
	$candidate //= $self->sync_standby // croak 'no candidate';
	# Patroni answers once the switchover is done, which on a loaded
	# machine takes longer than the 3 s the other calls are given (CI run
	# 27: HTTP 599 after 5.4 s); if even 60 s are not enough, whether the
	# candidate leads is what counts
	my ($st, undef, $text) = $self->api($leader, '/switchover', 'POST',
		{ leader => $leader, candidate => $candidate }, HTTP::Tiny->new(timeout => 60));
	note "switchover $leader -> $candidate: HTTP $st: " . ($text // '');
	return 0 unless $st == 200 || $st == 599;
	return _wait_until(sub { ($self->leader // '') eq $candidate }, 60)
	  && $self->wait_leader(60);
}

# The walreceiver of a replica (its pid from pg_stat_wal_receiver)
sub walreceiver_pid
{
	my ($self, $name) = @_;
	my $pid = $self->sql($name, 'SELECT pid FROM pg_stat_wal_receiver', quiet => 1);
	return $pid =~ /^\d+$/ ? $pid : undef;
}

# A replica falls behind: its walreceiver is stopped (SIGSTOP), so it
# neither writes nor confirms what the leader sends.  Returns the pid, for
# resume_replica().
sub stall_replica
{
	my ($self, $name) = @_;
	my $pid = $self->walreceiver_pid($name) // croak "$name has no walreceiver";
	kill 'STOP', $pid;
	$self->{stalled}{$pid} = 1;
	note "replica $name: walreceiver $pid stopped";
	return $pid;
}

sub resume_replica
{
	my ($self, $pid) = @_;
	kill 'CONT', $pid;
	delete $self->{stalled}{$pid};
	note "walreceiver $pid continued";
	return 1;
}

# A stalled walreceiver is killed (SIGKILL) before it could read what the
# leader had sent: that WAL, still in its socket, is lost with it.  (A
# SIGCONT would let it read that WAL, even from a leader already dead.)
# Its postmaster restarts the replica (crash recovery of a standby), which
# then lacks everything after what it had written.
sub drop_stalled
{
	my ($self, $pid) = @_;
	kill 'KILL', $pid;
	delete $self->{stalled}{$pid};
	note "walreceiver $pid killed, with the WAL it had not read";
	return 1;
}

# ---------------------------------------------------------------------------
# The registry's own account of its leases
#
# sample() reads idgen.worker_lease on the leader and keeps, per
# (region, worker, owner, generation), the earliest acquired_at and the
# latest lease_until ever seen; grants() adds the lease_acquired events of
# the audit log.  Rows a failover lost stay in what was seen.

sub sample
{
	my ($self) = @_;
	my $out = $self->leader_sql(q{
SELECT region, worker, coalesce(owner, ''), generation,
       extract(epoch FROM acquired_at), extract(epoch FROM lease_until),
       extract(epoch FROM clock_timestamp())
FROM idgen.worker_lease}, quiet => 1, timeout => 3);
	for my $line (split /\n/, $out)
	{
		my ($r, $w, $o, $g, $acq, $until, $now) = split /\|/, $line;
		if ($o eq '')
		{
			# released cleanly: that holder's lease ended by now at the latest
			for my $h (grep { $_->{region} == $r && $_->{worker} == $w && $_->{generation} == $g }
				values %{ $self->{seen} })
			{
				$h->{until} = $now if $h->{until} > $now;
				$h->{released} = 1;
			}
			next;
		}
		my $key = "$r/$w/$o/$g";
		next if $self->{seen}{$key} && $self->{seen}{$key}{released};
		$acq = $until if ($acq // '') eq '';
		my $h = $self->{seen}{$key} //= { region => $r, worker => $w,
			owner => $o, generation => $g, acquired => $acq, until => $until };
		$h->{acquired} = $acq if $acq < $h->{acquired};
		$h->{until} = $until if $until > $h->{until};
	}
	return $out ne '';
}

# sample() as the drill goes: $cond polled every 200 ms for up to $timeout s
sub sample_until
{
	my ($self, $cond, $timeout) = @_;
	my $last = 0;
	return _wait_until(
		sub {
			if (time() - $last >= 0.5)
			{
				$self->sample;
				$last = time();
			}
			return $cond->();
		},
		$timeout // 120);
}

# sample_until() the leader's lease table shows $count distinct owners of
# $owners (an SQL list of quoted names) renewed after $since (Unix seconds)
sub renewed_since
{
	my ($self, $owners, $since, $count) = @_;
	return $self->sample_until(
		sub {
			$self->leader_sql(
				"SELECT count(DISTINCT owner) FROM idgen.worker_lease WHERE owner IN ($owners)"
				  . " AND renewed_at > to_timestamp($since)", quiet => 1) eq $count;
		},
		120);
}

# Every grant the registry knows of or was seen to make: list of hashes
# (region, worker, owner, generation, acquired, until)
sub grants
{
	my ($self) = @_;
	$self->sample;
	my $out = $self->leader_sql(q{
SELECT extract(epoch FROM at), detail FROM idgen.audit_log
WHERE action = 'lease_acquired' ORDER BY at}, quiet => 1);
	for my $line (split /\n/, $out)
	{
		my ($at, $detail) = split /\|/, $line, 2;
		next unless $detail =~ /^region (\d+) workers (\d+)-(\d+) generation (\d+) owner (\S+)/;
		for my $w ($2 .. $3)
		{
			my $h = $self->{seen}{"$1/$w/$5/$4"} //= { region => $1, worker => $w,
				owner => $5, generation => $4, acquired => $at, until => $at };
			$h->{acquired} = $at if $at < $h->{acquired};
		}
	}
	return values %{ $self->{seen} };
}

# ---------------------------------------------------------------------------
# Drills: nodes generating throughout
#
# drill_prepare($node) makes, in the node's postgres database, table drawn
# and function draw(drill): idgen_next() in a loop (5 ms apart), each call in
# a subtransaction, recording every ID and every error with the time the
# call began, how long it took, and the node's idgen_status() just before
# (state, block, generation, lease_until: what the node believed it held).
# It loops until drill_ctl.stop is set (read anew by each statement).

sub drill_prepare
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
CREATE TABLE drill_ctl (stop boolean NOT NULL);
INSERT INTO drill_ctl VALUES (false);
CREATE TABLE drawn (n bigserial PRIMARY KEY, drill text NOT NULL, id idgen,
                    at timestamptz NOT NULL, took_ms float8, sqlstate text, message text,
                    state text, owner text, region int, worker int, workers int,
                    generation bigint, lease_until timestamptz);
CREATE FUNCTION draw(p_drill text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    v idgen;
    s record;
    ok bigint := 0;
    bad bigint := 0;
BEGIN
    LOOP
        EXIT WHEN (SELECT stop FROM drill_ctl);
        SELECT * INTO s FROM idgen_status();
        t0 := clock_timestamp();
        BEGIN
            v := idgen_next();
            INSERT INTO drawn (drill, id, at, took_ms, state, owner, region, worker, workers,
                               generation, lease_until)
            VALUES (p_drill, v, t0, extract(epoch FROM clock_timestamp() - t0) * 1000,
                    s.state, s.owner, s.region, s.worker, s.workers, s.generation, s.lease_until);
            ok := ok + 1;
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO drawn (drill, at, took_ms, sqlstate, message, state)
            VALUES (p_drill, t0, extract(epoch FROM clock_timestamp() - t0) * 1000,
                    SQLSTATE, SQLERRM, s.state);
            bad := bad + 1;
        END;
        PERFORM pg_sleep(0.005);
    END LOOP;
    RETURN format('%s ids, %s errors', ok, bad);
END
$$;
});
	return;
}

# draw($drill) in a background session of each node
sub drill_start
{
	my ($drill, @nodes) = @_;
	my %bg;
	for my $n (@nodes)
	{
		$n->safe_psql('postgres', 'UPDATE drill_ctl SET stop = false');
		$bg{ $n->name } = $n->background_psql('postgres', on_error_stop => 0);
		$bg{ $n->name }->query_until(qr/drawing/, "\\echo drawing\nSELECT draw('$drill');\n");
	}
	# each has drawn before the drill goes on
	for my $n (@nodes)
	{
		$n->poll_query_until('postgres',
			q{SELECT count(*) > 0 FROM pg_stat_activity WHERE query LIKE 'SELECT draw(%'})
		  or croak $n->name . ': draw() did not start';
	}
	return \%bg;
}

# stop the loops; draw()'s summaries by node name
sub drill_stop
{
	my ($bg, @nodes) = @_;
	my %sum;
	$_->safe_psql('postgres', 'UPDATE drill_ctl SET stop = true') for @nodes;
	for my $n (@nodes)
	{
		my $out = $bg->{ $n->name }->query_until(qr/done/, "\\echo done\n");
		($sum{ $n->name }) = $out =~ /^(\d+ ids, \d+ errors)$/m;
		$bg->{ $n->name }->quit;
	}
	return \%sum;
}

# The drill's assertions, over everything drawn so far (so across drills
# too), and its figures:
#   - no ID issued twice, by one node or two;
#   - each node's IDs ascend in the order it issued them;
#   - errors only of class IR (idgen's retryable refusals);
#   - no block granted to one holder while another held it: by the
#     registry's own account (every row and audit event seen on any leader,
#     before and after the drill), and by the holders' account (the
#     lease_until a node reported while it issued);
#   - diag: per node the longest pause between two IDs, the errors.
# %opt: extra => [ nodes that drew outside draw() (their IDs count for
# duplicates and their leases for the grants check) ].
sub drill_check
{
	my ($reg, $drill, $nodes, %opt) = @_;
	my (%seen, $dups, $total);
	$dups = $total = 0;
	my %believed;    # "region/worker/owner/generation" -> latest lease_until a node reported
	for my $n (@$nodes, @{ $opt{extra} // [] })
	{
		my $name = $n->name;
		for my $id (split /\n/,
			$n->safe_psql('postgres', 'SELECT id FROM drawn WHERE id IS NOT NULL'))
		{
			$total++;
			$dups++ if $seen{$id}++;
		}
		for my $line (split /\n/, $n->safe_psql('postgres', q{
SELECT region, worker, workers, owner, generation, max(extract(epoch FROM lease_until)),
       min(extract(epoch FROM idgen_timestamp(id)))
FROM drawn WHERE id IS NOT NULL AND owner IS NOT NULL
GROUP BY region, worker, workers, owner, generation}))
		{
			my ($r, $w, $k, $o, $g, $u, $first) = split /\|/, $line;
			for my $x ($w .. $w + $k - 1)
			{
				my $key = "$r/$x/$o/$g";
				$believed{$key} = $u if !defined $believed{$key} || $u > $believed{$key};
				# a holding the registry lost before anyone saw it: the node's
				# first ID under it bounds its grant from above
				$reg->{seen}{$key} //= { region => $r, worker => $x, owner => $o,
					generation => $g, acquired => $first, until => $first, from_node => 1 };
			}
		}
	}
	cmp_ok($total, '>', 0, "$drill: $total IDs drawn so far in all");
	is($dups, 0, "$drill: no ID issued twice");

	for my $n (@$nodes)
	{
		my $name = $n->name;
		is( $n->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY n) AS back
                      FROM drawn WHERE id IS NOT NULL) AS s WHERE back}),
			'0', "$drill: $name: its IDs ascend");
		is( $n->safe_psql('postgres',
				"SELECT string_agg(DISTINCT sqlstate || ' ' || message, '; ') FROM drawn "
				  . "WHERE drill = '$drill' AND sqlstate IS NOT NULL AND sqlstate NOT LIKE 'IR%'"),
			'', "$drill: $name: errors only of class IR");
		my ($ids, $errs, $pause, $err_span, $slowest_err, $states) = split /\|/,
		  $n->safe_psql('postgres', qq{
WITH d AS (SELECT * FROM drawn WHERE drill = '$drill'),
     g AS (SELECT at - lag(at) OVER (ORDER BY n) AS gap FROM d WHERE id IS NOT NULL)
SELECT (SELECT count(*) FROM d WHERE id IS NOT NULL),
       (SELECT count(*) FROM d WHERE sqlstate IS NOT NULL),
       (SELECT round(extract(epoch FROM max(gap)) * 1000) FROM g),
       (SELECT round(extract(epoch FROM max(at) - min(at)) * 1000) FROM d WHERE sqlstate IS NOT NULL),
       (SELECT round(max(took_ms)) FROM d WHERE sqlstate IS NOT NULL),
       (SELECT string_agg(x, ', ') FROM (SELECT format('%s x%s', sqlstate, count(*)) AS x
                                          FROM d WHERE sqlstate IS NOT NULL
                                          GROUP BY sqlstate ORDER BY sqlstate) AS e)});
		my $fig = sprintf '%s: %s: %d IDs, longest pause %s ms; %d errors%s',
		  $drill, $name, $ids, $pause // '-', $errs,
		  $errs ? " ($states) over $err_span ms, slowest error call $slowest_err ms" : '';
		diag $fig;
		push @{ $reg->{figures} }, $fig;
		cmp_ok($ids, '>', 0, "$drill: $name: issued IDs");
	}

	# the registry's account: by (region, worker), holders in grant order
	my %by_worker;
	for my $h ($reg->grants)
	{
		push @{ $by_worker{"$h->{region}/$h->{worker}"} }, $h;
	}
	# the check below is not empty: every drawing node's holding is in it
	my %owners = map { $_->{owner} => 1 } map { @$_ } values %by_worker;
	for my $n (@$nodes)
	{
		my $o = $n->safe_psql('postgres', 'SELECT owner FROM idgen_status()');
		ok($owners{$o}, "$drill: " . $n->name . "'s leases are among the registry's grants");
	}
	my %drawing = map { (split m{/}, $_)[2] => 1 } keys %believed;
	my (@reg_overlap, @node_overlap);
	for my $k (sort keys %by_worker)
	{
		my @hs = sort { $a->{acquired} <=> $b->{acquired} } @{ $by_worker{$k} };
		note "$drill: worker $k: " . join '; ',
		  map { "$_->{owner} gen $_->{generation} from $_->{acquired} to $_->{until}"
			  . ($_->{released} ? ' (released)' : '') . ($_->{from_node} ? ' (seen by the node only)' : '') } @hs
		  if $k =~ m{/(\d+)$} && $1 % 16 == 0;
		for my $i (0 .. $#hs)
		{
			for my $j ($i + 1 .. $#hs)
			{
				my ($p, $q) = ($hs[$i], $hs[$j]);
				next if $p->{owner} eq $q->{owner};
				# a registry member's own node releases its block whenever
				# Patroni restarts that member, and a released row a sample
				# missed looks like a lease cut short: reported, not asserted
				if (!$drawing{ $p->{owner} })
				{
					note "$drill: worker $k: $q->{owner} gen $q->{generation} granted at"
					  . " $q->{acquired}, before $p->{until}, the last lease_until seen of"
					  . " $p->{owner} gen $p->{generation} (a registry member's own node)"
					  if $q->{acquired} < $p->{until};
					next;
				}
				push @reg_overlap,
				  "worker $k: $q->{owner} gen $q->{generation} granted at $q->{acquired}"
				  . " while $p->{owner} gen $p->{generation} held it until $p->{until}"
				  if $q->{acquired} < $p->{until};
				my $b = $believed{"$k/$p->{owner}/$p->{generation}"};
				$b = $p->{until} if defined $b && $p->{released} && $b > $p->{until};
				push @node_overlap,
				  "worker $k: $q->{owner} gen $q->{generation} granted at $q->{acquired}"
				  . " while $p->{owner} gen $p->{generation} believed it held it until $b"
				  if defined $b && $q->{acquired} < $b;
			}
		}
	}
	is(scalar(@reg_overlap), 0,
		"$drill: no worker granted while another held it, by the registry's account")
	  or diag join "\n", @reg_overlap[ 0 .. ($#reg_overlap < 4 ? $#reg_overlap : 4) ];
	is(scalar(@node_overlap), 0,
		"$drill: no worker granted while its holder believed its lease valid")
	  or diag join "\n", @node_overlap[ 0 .. ($#node_overlap < 4 ? $#node_overlap : 4) ];
	return;
}

# ---------------------------------------------------------------------------
# processes

sub _spawn
{
	my ($cmd, $log, $env) = @_;
	my $pid = fork;
	croak "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		%ENV = %$env if %$env;
		open STDIN, '<', '/dev/null';
		open STDOUT, '>>', $log or die "$log: $!";
		open STDERR, '>&', \*STDOUT;
		# its own process group: a signal to the test's group stays ours
		POSIX::setpgid(0, 0);
		exec @$cmd or die "exec $cmd->[0]: $!";
	}
	return $pid;
}

# signal a child of ours and reap it; SIGKILL after $grace seconds
sub _stop_pid
{
	my ($pid, $signal, $grace) = @_;
	kill $signal, $pid;
	my $gone = _wait_until(sub { waitpid($pid, WNOHANG) != 0 }, $grace // 30);
	if (!$gone)
	{
		kill 'KILL', $pid;
		waitpid($pid, 0);
	}
	return;
}

sub _wait_until
{
	my ($cond, $timeout) = @_;
	my $end = time() + $timeout;
	while (time() < $end)
	{
		return 1 if $cond->();
		usleep(200_000);
	}
	return 0;
}

# Stop everything: Patroni members (SIGTERM, they stop their PostgreSQL),
# then any postmaster left (a killed Patroni's), then etcd.
sub stop
{
	my ($self) = @_;
	return if $self->{stopped}++;
	kill 'CONT', keys %{ $self->{stalled} // {} };
	for my $name ($self->names)
	{
		$self->_note_postmaster($name) if $self->{member}{$name}{pid};
	}
	# all at once: a leader stopped first would hand over to the next
	my @pids = grep { defined } map { $self->{member}{$_}{pid} } $self->names;
	kill 'TERM', @pids;
	for my $name ($self->names)
	{
		$self->stop_member($name);
	}
	$self->stop_etcd if $self->{etcd_pid};
	return;
}

END
{
	my $rc = $?;
	$_->stop for @live;
	$? = $rc;
}

1;
