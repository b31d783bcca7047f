# 131_monitoring.pl - monitoring/queries.yaml in Debian's prometheus-postgres-exporter,
# and the alert rules in promtool
#
#   a. the exporter (0.11), on its own loopback port with DATA_SOURCE_NAME
#      pointing at an idgen node and --extend.query-path at
#      monitoring/queries.yaml, serves the idgen series of idgen.stats,
#      idgen_status() and idgen.fleet (the node is its own registry): every
#      query loads and runs, the values agree with the node, the ID counters
#      move by what the test generates, idgen_disable() shows in the state
#      series with its reason;
#   b. every idgen_* series that monitoring/idgen-alerts.yml uses is one the
#      exporter serves;
#   c. `promtool check rules` accepts the rules and `promtool test rules`
#      passes monitoring/idgen-alerts.test.yml (each alert fires on its
#      condition, none on a healthy node); the same for the gateway's
#      monitoring/idgen-gateway-alerts.yml.
#
# The exporter is started by this test and stopped by its pid.  A missing
# exporter or promtool skips its part, unless IDGEN_REQUIRE_CLIENTS=1 (make
# test), which makes it a failure.
use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Spec;
use HTTP::Tiny;
use IPC::Run;
use POSIX ();
use lib 'test/perl';
use IdgenTest qw(:DEFAULT find_program skip_or_fail);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $monitoring = abs_path(File::Spec->catdir(dirname(abs_path(__FILE__)), '..', '..', 'monitoring'));

# the series of a /metrics page: "name{labels}" => value, labels sorted
sub parse_metrics
{
	my ($text) = @_;
	my %m;
	for my $line (split /\n/, $text)
	{
		next if $line =~ /^#/ || $line !~ /\S/;
		my ($name, $labels, $value) = $line =~ /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/
		  or next;
		my @pairs = ($labels // '') =~ /(\w+="(?:[^"\\]|\\.)*")/g;
		my @l = sort @pairs;
		$m{ $name . (@l ? '{' . join(',', @l) . '}' : '') } = $value;
	}
	return \%m;
}

# the series of a metric name, optionally with these labels among theirs
sub series
{
	my ($m, $name, %labels) = @_;
	my @keys = grep { /^\Q$name\E(\{|$)/ } sort keys %$m;
	for my $l (sort keys %labels)
	{
		@keys = grep { /[{,]\Q$l\E="\Q$labels{$l}\E"[,}]/ } @keys;
	}
	return map { $m->{$_} } @keys;
}

my $node = idgen_node('monitoring', tcp => 1);
ok(wait_extension($node), 'the background worker created the extension');
ok(wait_state($node), 'the node is active');

# --- a. the exporter ------------------------------------------------------------

my $exporter = find_program('prometheus-postgres-exporter', '/usr/bin/prometheus-postgres-exporter');
my $exporter_pid;
END
{
	if ($exporter_pid)
	{
		kill 'TERM', $exporter_pid;
		waitpid($exporter_pid, 0);
	}
}

my %served;    # names of the idgen series the exporter serves
SKIP:
{
	skip_or_fail('prometheus-postgres-exporter is not installed (Debian package prometheus-postgres-exporter)', 1)
	  unless defined $exporter;

	my $user = getpwuid($<);
	my $dir  = PostgreSQL::Test::Utils::tempdir('exporter');
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $log  = "$dir/exporter.log";

	$exporter_pid = fork();
	die "fork: $!" unless defined $exporter_pid;
	if ($exporter_pid == 0)
	{
		$ENV{DATA_SOURCE_NAME} =
		  'postgresql://' . $user . '@127.0.0.1:' . $node->port . '/postgres?sslmode=disable';
		open STDIN,  '<',  '/dev/null';
		open STDOUT, '>>', $log;
		open STDERR, '>&', \*STDOUT;
		exec($exporter, "--web.listen-address=127.0.0.1:$port",
			"--extend.query-path=$monitoring/queries.yaml", '--log.level=info')
		  or POSIX::_exit(127);
	}
	note("exporter pid $exporter_pid on 127.0.0.1:$port");

	my $http = HTTP::Tiny->new(timeout => 30);
	my $scrape = sub {
		my $r = $http->get("http://127.0.0.1:$port/metrics");
		return $r->{success} ? parse_metrics($r->{content}) : undef;
	};
	my $m;
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		$m = $scrape->();
		last if $m && series($m, 'idgen_stats_ids_idgen');
		last unless kill 0, $exporter_pid;
		usleep(100_000);
	}
	ok($m && series($m, 'idgen_stats_ids_idgen'), 'the exporter serves idgen_stats_ids_idgen')
	  or diag(slurp_file($log));

	is((series($m, 'pg_up'))[0], '1', 'pg_up is 1: the exporter reached the node');
	my @load = series($m, 'pg_exporter_user_queries_load_error');
	ok(@load && !grep({ $_ ne '0' } @load), 'queries.yaml loaded without error');
	is((series($m, 'pg_exporter_last_scrape_error'))[0], '0', 'the last scrape had no error');
	unlike(slurp_file($log), qr/level=error/, 'the exporter logged no error');

	%served = map { /^(idgen_\w+)/ ? ($1 => 1) : () } keys %$m;
	note(join("\n", 'the idgen series:', map { "$_ $m->{$_}" } grep { /^idgen_/ } sort keys %$m));

	# every column of queries.yaml is there
	my %expect = (
		idgen_stats => [
			qw(ids_idgen ids_idgen128 batches sequence_exhaustions clock_waits
			  clock_wait_ms drift_ms max_drift_ms clock_rollbacks clock_refusals
			  clock_jumps_forward clock_steps_back lease_renewals lease_failures
			  fencing_events collisions started_at_seconds stats_reset_seconds)
		],
		idgen_status => [
			qw(worker workers generation lease_until_seconds lease_remaining_seconds
			  lease_ttl_seconds drift_ms max_drift_ms clock_skew_ms max_skew_ms
			  horizon_seconds horizon_remaining_seconds horizon_warning_seconds
			  high_water_seconds uses_registry)
		],
		idgen_state => [qw(current)],
		idgen_fleet => [
			qw(live generation lease_until_seconds lease_remaining_seconds
			  high_water_seconds heartbeat_age_seconds clock_offset_ms remote)
		]);
	my @missing;
	for my $ns (sort keys %expect)
	{
		push @missing, grep { !$served{"${ns}_$_"} } @{ $expect{$ns} };
	}
	is(join(' ', @missing), '', 'every series of queries.yaml is served');

	# the values agree with the node
	my $sysid = $node->safe_psql('postgres', 'SELECT node_sysid FROM idgen.stats');
	my @ids = series($m, 'idgen_stats_ids_idgen', node_sysid => $sysid, region => 0);
	is(scalar @ids, 1, 'one idgen_stats_ids_idgen series, labelled with the node_sysid and region');
	my %states = map { my ($v) = series($m, 'idgen_state_current', state => $_); ($_ => $v) }
	  qw(starting active waiting_for_lease disabled fenced clock_behind recovery);
	is(join(',', map { "$_=" . ($states{$_} // 'missing') } sort keys %states),
		'active=1,clock_behind=0,disabled=0,fenced=0,recovery=0,starting=0,waiting_for_lease=0',
		'idgen_state_current: 1 for active, 0 for every other state');
	my ($ttl)  = series($m, 'idgen_status_lease_ttl_seconds');
	my ($left) = series($m, 'idgen_status_lease_remaining_seconds');
	cmp_ok($ttl, '==', 30, 'idgen_status_lease_ttl_seconds is idgen.lease_ttl (30 s)');
	ok(defined $left && $left > 0 && $left <= $ttl, "idgen_status_lease_remaining_seconds is within the ttl ($left)");
	my ($horizon) = series($m, 'idgen_status_horizon_remaining_seconds');
	my ($warning) = series($m, 'idgen_status_horizon_warning_seconds');
	ok(defined $horizon && $horizon > $warning,
		'the horizon is further away than idgen.horizon_warning');
	cmp_ok($warning, '==', 1825 * 86400, 'idgen_status_horizon_warning_seconds is idgen.horizon_warning (1825 days)');
	is((series($m, 'idgen_status_drift_ms'))[0], '0', 'idgen_status_drift_ms is 0 (a number also before the first ID)');
	is((series($m, 'idgen_status_uses_registry'))[0], '0', 'idgen_status_uses_registry is 0: no idgen.registry');
	my $holder = $node->safe_psql('postgres', 'SELECT holder FROM idgen.fleet');
	is((series($m, 'idgen_fleet_live', holder => $holder, kind => 'node'))[0], '1',
		"idgen_fleet_live{holder=\"$holder\",kind=\"node\"} is 1: the node is its own registry");
	is((series($m, 'idgen_stats_collisions'))[0], '0', 'idgen_stats_collisions is 0');

	# the counters move by what is generated
	my ($before)    = series($m, 'idgen_stats_ids_idgen');
	my ($before128) = series($m, 'idgen_stats_ids_idgen128');
	my ($batches)   = series($m, 'idgen_stats_batches');
	$node->safe_psql('postgres',
		'SELECT idgen_next() FROM generate_series(1, 100); SELECT count(*) FROM idgen_next128_batch(50)');
	my $m2 = $scrape->();
	my ($after)    = series($m2, 'idgen_stats_ids_idgen');
	my ($after128) = series($m2, 'idgen_stats_ids_idgen128');
	my ($batches2) = series($m2, 'idgen_stats_batches');
	ok($after - $before >= 100, "idgen_stats_ids_idgen rose by 100 IDs ($before -> $after)");
	ok($after128 - $before128 >= 50, "idgen_stats_ids_idgen128 rose by 50 IDs ($before128 -> $after128)");
	ok($batches2 - $batches >= 1, "idgen_stats_batches rose ($batches -> $batches2)");

	# a state change with its reason
	$node->safe_psql('postgres', "SELECT idgen_disable('exporter test maintenance')");
	my $m3 = $scrape->();
	my @disabled = grep { /^idgen_state_current\{.*state="disabled"/ } keys %$m3;
	is(scalar @disabled, 1, 'one idgen_state_current series for disabled');
	is($m3->{ $disabled[0] // '' }, '1', 'after idgen_disable() it is 1');
	like($disabled[0] // '', qr/reason="[^"]*exporter test maintenance/,
		'and carries the reason given');
	is((series($m3, 'idgen_state_current', state => 'active'))[0], '0', 'active is 0 meanwhile');
	$node->safe_psql('postgres', 'SELECT idgen_enable()');
	ok(wait_state($node), 'idgen_enable(): the node is active again');

	kill 'TERM', $exporter_pid;
	waitpid($exporter_pid, 0);
	my $gone = !kill(0, $exporter_pid);
	$exporter_pid = undef;
	ok($gone, 'the exporter stopped');
}

# --- b. and c. the alert rules ------------------------------------------------------

my $promtool = find_program('promtool', '/usr/bin/promtool');
SKIP:
{
	skip_or_fail('promtool is not installed (Debian package prometheus)', 1)
	  unless defined $promtool;

	# the node's rules (on the exporter's series) and the gateway's (on its
	# /metrics; test/t/120_gateway.pl checks that it serves them)
	for my $set (qw(idgen-alerts idgen-gateway-alerts))
	{
		my ($out, $err) = ('', '');
		IPC::Run::run([ $promtool, 'check', 'rules', "$monitoring/$set.yml" ],
			'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(60));
		is($? >> 8, 0, "promtool check rules monitoring/$set.yml") or diag("$out$err");
		like($out . $err, qr/SUCCESS: \d+ rules found/, "promtool found the rules of $set.yml");

		($out, $err) = ('', '');
		IPC::Run::run([ $promtool, 'test', 'rules', "$monitoring/$set.test.yml" ],
			'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(60));
		is($? >> 8, 0, "promtool test rules monitoring/$set.test.yml") or diag("$out$err");

		# every alert of the rules file is exercised by the unit tests
		my $rules = slurp_file("$monitoring/$set.yml");
		my $tests = slurp_file("$monitoring/$set.test.yml");
		my @alerts = $rules =~ /^\s*- alert: (\w+)/mg;
		my @untested = grep { $tests !~ /alertname: \Q$_\E\n\s+exp_alerts:\n\s+- exp_labels/ } @alerts;
		ok(@alerts >= ($set eq 'idgen-alerts' ? 10 : 5), scalar(@alerts) . " alerts in $set.yml");
		is(join(' ', @untested), '', "every alert of $set.yml has a unit test in which it fires");
	}

	my $rules = slurp_file("$monitoring/idgen-alerts.yml");
	if (%served)
	{
		my %used = map { $_ => 1 } $rules =~ /\b(idgen_[a-z0-9_]+)\b/g;
		my @unknown = grep { !$served{$_} } sort keys %used;
		is(join(' ', @unknown), '', 'every idgen series the rules use is one the exporter serves');
	}
}

ok(!$node->log_contains('server process .* terminated by signal'), 'no backend crashed');
$node->stop;

done_testing();
