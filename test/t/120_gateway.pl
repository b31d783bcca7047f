# 120_gateway.pl - idgen-gateway on loopback, leasing from a registry
#
#   1. Every endpoint: /v1/ids (idgen and idgen128, ascending), decode (the
#      registry's idgen_decode() answer for both types and for a range ID),
#      the admin lease endpoints (the SQL functions' results), /healthz and
#      /metrics.
#   2. Malformed requests (garbage, a 20 kB URL, a 100 kB header, chunked
#      and oversized bodies) do not bring it down.  Every error code, each
#      with a JSON body: 400, 401, 403, 404, 405,
#      409 (a reused Idempotency-Key), 413, 429 with Retry-After (a gateway
#      with --rate-limit), 503 with Retry-After (a gateway the registry
#      cannot lease to: --region it does not have).
#   3. Idempotency-Key: the same IDs again, also after a kill -9 and restart;
#      the restarted gateway's IDs lie above every earlier one.
#   4. A fence of the gateway's worker (idgen_fence_worker): it leases
#      another, issues nothing more under the fenced one, and every ID it
#      issued under it lies below the worker's high-water mark, where the
#      next holder starts.
#   5. A clock rollback (the clock shim under the gateway): beyond
#      idgen.max_drift it refuses (503) and counts it; within it, it goes on
#      above its earlier IDs.  A jump a minute ahead is not followed
#      unconfirmed.  With its clock ahead, killed, the clock set
#      right and restarted at once, it still starts above its last IDs.  A
#      gateway 3 s off the registry's clock refuses (clock_skew).
#   6. TLS with a self-signed certificate made here by openssl.
#   7. Two gateways and two nodes on one registry, all at once: a million IDs, no
#      duplicate, each gateway's IDs ascending.  Gateway b holds four
#      workers and runs as a role with only the grants docs/gateway.md
#      lists.
#   8. The registry stopped: once the lease's validity ends the gateway
#      refuses (503 lease_expired); the registry back, it leases anew and
#      goes on above its earlier IDs.
#   9. A layout epoch scheduled on the registry: the gateway switches at its
#      start, its IDs ascend across it, each of the epoch of its time.
use strict;
use warnings;

use File::Path qw(make_path);
use POSIX ();
use HTTP::Tiny;
use JSON::PP;
use lib 'test/perl';
use IdgenClockShim;
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $gateway_bin = 'idgen-gateway';
my $tmp = PostgreSQL::Test::Utils::tempdir('gateway');

# a short registry lease_ttl: a layout can be scheduled a few seconds ahead
my $registry = idgen_registry('registry',
	conf => "max_connections = 40\nidgen.lease_ttl = '2s'\n");
ok(wait_extension($registry), 'registry: the extension is there');
my $conn = registry_conn($registry);

# --- tokens ------------------------------------------------------------------

my %secret = (app => 'app-secret-1', ops => 'ops-secret-2', dec => 'dec-secret-3');
my $tokens_file = "$tmp/tokens";
{
	open(my $fh, '>', $tokens_file) or die;
	print $fh "# test tokens\n";
	for my $t ([ 'app', 'ids,decode' ], [ 'ops', 'admin' ], [ 'dec', 'decode' ])
	{
		my $hex = sha256_hex($secret{ $t->[0] });
		print $fh "$t->[0]:$t->[1]:$hex\n";
	}
	close $fh;
}

sub sha256_hex
{
	my ($s) = @_;
	require Digest::SHA;
	return Digest::SHA::sha256_hex($s);
}

# --- gateways ----------------------------------------------------------------

# every gateway started, so that none outlives a test that dies
my @started;
# only children not yet reaped (a reaped pid may be another process's by
# now), and the exit status kept: waitpid sets $?
END { local $?; kill('KILL', grep { waitpid($_, POSIX::WNOHANG()) == 0 } @started) if @started; }

# start a gateway; returns a hash with pid, port, base URL
sub start_gateway
{
	my (%o) = @_;
	my $port = $o{port} // PostgreSQL::Test::Cluster::get_free_port();
	my $state = "$tmp/state-$o{name}";
	make_path($state);
	my @cmd = ($gateway_bin, '--registry', $o{conn} // $conn, '--listen', "127.0.0.1:$port",
		'--tokens', $tokens_file, '--state-dir', $state, '--name', $o{name},
		'--lease-ttl', $o{ttl} // '3s', @{ $o{args} // [] });
	my $log = IdgenTest::log_file("gateway_$o{name}");
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		open(STDOUT, '>>', $log) or die;
		open(STDERR, '>&', \*STDOUT) or die;
		%ENV = (%ENV, %{ $o{env} // {} });
		exec(@cmd);
		print STDERR "exec $gateway_bin: $!\n";
		POSIX::_exit(127);
	}
	push @started, $pid;
	my $scheme = $o{tls} ? 'https' : 'http';
	return { %o, pid => $pid, port => $port, base => "$scheme://127.0.0.1:$port" };
}

sub stop_gateway
{
	my ($gw, $sig) = @_;
	kill($sig // 'TERM', $gw->{pid});
	waitpid($gw->{pid}, 0);
	return;
}

my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 30);

# GET or POST; returns (status, decoded JSON or raw text, headers)
sub req
{
	my ($gw, $method, $path, %o) = @_;
	my %h = %{ $o{headers} // {} };
	$h{Authorization} = "Bearer $secret{$o{token}}" if $o{token};
	$h{Authorization} = $o{auth} if defined $o{auth};
	my $r = $http->request($method, "$gw->{base}$path",
		{ headers => \%h, defined $o{body} ? (content => $o{body}) : () });
	my $body = $r->{content};
	my $json = eval { decode_json($body) };
	return ($r->{status}, $json // $body, $r->{headers});
}

sub wait_healthy
{
	my ($gw) = @_;
	return IdgenTest::wait_for(sub { my ($s) = req($gw, 'GET', '/healthz'); $s == 200 });
}

sub ids
{
	my ($gw, $count, %o) = @_;
	my ($s, $j) = req($gw, 'GET', "/v1/ids?count=$count" . ($o{type} ? "&type=$o{type}" : ''),
		token => 'app', %o);
	return $s == 200 && ref $j eq 'HASH' ? @{ $j->{ids} } : ();
}

# decimal IDs as strings: compare by length, then text
sub id_lt { my ($a, $b) = @_; return length($a) <=> length($b) || $a cmp $b; }

sub ascending
{
	my @l = @_;
	for my $i (1 .. $#l) { return 0 unless id_lt($l[ $i - 1 ], $l[$i]) < 0; }
	return 1;
}

sub metric
{
	my ($gw, $name) = @_;
	my ($s, $text) = req($gw, 'GET', '/metrics');
	return $text =~ /^\Q$name\E (\d+)$/m ? $1 : -1;
}

# --- 1. endpoints ------------------------------------------------------------

my $ga = start_gateway(name => 'gwa');
ok(wait_healthy($ga), 'gateway a: healthy');

my ($st, $j, $hd) = req($ga, 'GET', '/healthz');
is($j->{status}, 'ok', '/healthz says ok');
like($hd->{'content-type'}, qr{^application/json}, '/healthz is JSON');
($st, $j, $hd) = req($ga, 'GET', '/metrics');
is($st, 200, '/metrics: 200');
like($hd->{'content-type'}, qr{^text/plain}, '/metrics is Prometheus text');
like($j, qr/^idgen_gateway_up 1$/m, '/metrics: idgen_gateway_up 1');
like($j, qr/^idgen_gateway_request_duration_seconds_bucket\{le="\+Inf"\} \d+$/m,
	'/metrics: the latency histogram');
# the lease's validity and the TTL it counts on: --lease-ttl 3s, but at most
# the registry's idgen.lease_ttl of 2 s (R1a); a renewal every 0.2 s keeps
# the validity near 2 s less the margin (0.1 s)
my ($validity) = $j =~ /^idgen_gateway_lease_validity_seconds (\S+)$/m;
my ($lease_ttl) = $j =~ /^idgen_gateway_lease_ttl_seconds (\S+)$/m;
is($lease_ttl, '2.000',
	"/metrics: idgen_gateway_lease_ttl_seconds is the registry's idgen.lease_ttl, below --lease-ttl");
ok(defined $validity && $validity > 0 && $validity < 2,
	'/metrics: idgen_gateway_lease_validity_seconds within the ttl (' . ($validity // 'missing') . ')');
# every series the gateway's alert rules use is one it serves
{
	my $rules = slurp_file("monitoring/idgen-gateway-alerts.yml");
	my %used = map { $_ => 1 } $rules =~ /\b(idgen_gateway_[a-z0-9_]+)\b/g;
	my @unknown = grep { $j !~ /^\Q$_\E[{ ]/m } sort keys %used;
	ok(%used >= 4, 'the gateway alert rules use ' . scalar(keys %used) . ' series');
	is(join(' ', @unknown), '', 'every series of monitoring/idgen-gateway-alerts.yml is served by /metrics');
}

my @one = ids($ga, undef // 1);
is(scalar @one, 1, 'count=1 gives one ID');
($st, $j) = req($ga, 'GET', '/v1/ids', token => 'app');
is(scalar @{ $j->{ids} }, 1, 'no count gives one ID');
my @five = ids($ga, 5);
is(scalar @five, 5, 'count=5 gives five IDs');
ok(ascending(@one, @five), 'IDs ascend, as decimal strings');
like($five[0], qr/^\d+$/, 'IDs are decimal strings');
my @u = ids($ga, 4, type => 'idgen128');
is(scalar @u, 4, 'type=idgen128 gives four IDs');
like($u[0], qr/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
	'idgen128 IDs are UUIDv7 strings');
ok((join(',', @u) eq join(',', sort @u)), 'UUIDs ascend');

# decode: the registry's own idgen_decode()
for my $id ($five[2], '12345', $u[1])
{
	my $type = $id =~ /-/ ? 'idgen128' : 'idgen';
	($st, $j) = req($ga, 'GET', "/v1/ids/$id/decode", token => 'dec');
	is($st, 200, "decode $type $id: 200");
	my $sql = $registry->safe_psql('postgres',
		"SET TimeZone = 'UTC'; SELECT coalesce(to_json(ts)#>>'{}', 'null'), coalesce(region::text, 'null'), "
		  . "coalesce(worker::text, 'null'), coalesce(seq::text, 'null'), epoch "
		  . "FROM idgen_decode('$id'::$type)");
	my $got = join('|', map { defined $_ ? $_ : 'null' } @$j{qw(ts region worker seq epoch)});
	is($got, $sql, "decode $type: the same answer as idgen_decode()");
	is($j->{id}, $id, "decode $type: the id echoed");
}

# admin endpoints
($st, $j) = req($ga, 'POST', '/internal/workers/lease', token => 'ops',
	body => '{"owner": "test-app", "ttl": "5s"}');
is($st, 200, 'worker lease: 200');
my $row = $registry->safe_psql('postgres',
	"SELECT region || '|' || worker || '|' || generation FROM idgen.worker_lease WHERE owner = 'test-app'");
is("$j->{region}|$j->{worker}|$j->{generation}", $row, 'worker lease: the lease the registry recorded');
ok(defined $j->{lease_until}, 'worker lease: lease_until given');
($st, $j) = req($ga, 'POST', '/internal/ranges/lease', token => 'ops',
	body => '{"owner": "loader", "count": 100, "request_key": "k1"}');
is($st, 200, 'range lease: 200');
my ($st2, $j2) = req($ga, 'POST', '/internal/ranges/lease', token => 'ops',
	body => '{"owner": "loader", "count": 100, "request_key": "k1"}');
is("$j2->{range_start}-$j2->{range_end}", "$j->{range_start}-$j->{range_end}",
	'range lease: the same request key gives the same range');
is($j->{range_end} - $j->{range_start} + 1, 100, 'range lease: 100 IDs');

ok(metric($ga, 'idgen_gateway_ids_issued_total{type="idgen"}') >= 6, '/metrics counts the IDs issued');
ok(metric($ga, 'idgen_gateway_lease_renewals_total{result="ok"}') >= 0
	&& metric($ga, 'idgen_gateway_leases_total{result="ok"}') >= 1, '/metrics counts leases');

# --- 2. errors -----------------------------------------------------------------

my @errors = (
	[ 401, 'GET', '/v1/ids', {}, 'no token' ],
	[ 401, 'GET', '/v1/ids', { auth => 'Bearer nope' }, 'a wrong token' ],
	[ 403, 'GET', '/v1/ids', { token => 'dec' }, 'a token without the ids scope' ],
	[ 403, 'POST', '/internal/workers/lease', { token => 'app', body => '{"owner": "x"}' }, 'admin without the admin scope' ],
	[ 400, 'GET', '/v1/ids?count=0', { token => 'app' }, 'count=0' ],
	[ 400, 'GET', '/v1/ids?count=100001', { token => 'app' }, 'count=100001' ],
	[ 400, 'GET', '/v1/ids?count=abc', { token => 'app' }, 'count=abc' ],
	[ 400, 'GET', '/v1/ids?type=uuid', { token => 'app' }, 'an unknown type' ],
	[ 400, 'GET', '/v1/ids/12x/decode', { token => 'app' }, 'a bad id' ],
	[ 400, 'GET', '/v1/ids/00000000-0000-4000-8000-000000000000/decode', { token => 'app' }, 'a UUID that is not a UUIDv7' ],
	[ 400, 'POST', '/internal/workers/lease', { token => 'ops', body => '{"owner": 1}' }, 'a bad body' ],
	[ 404, 'GET', '/v1/nothing', { token => 'app' }, 'an unknown path' ],
	[ 405, 'POST', '/v1/ids', { token => 'app', body => '' }, 'the wrong method' ],
	[ 413, 'POST', '/internal/ranges/lease', { token => 'ops', body => '{"owner": "' . ('x' x 5000) . '"}' }, 'a body over 4096 bytes' ],
);
for my $e (@errors)
{
	my ($want, $m, $p, $o, $what) = @$e;
	my ($s, $body) = req($ga, $m, $p, %$o);
	is($s, $want, "$what: $want");
	ok(ref $body eq 'HASH' && defined $body->{error}, "$what: a JSON error body");
}

# malformed requests of any kind: an answer or a closed connection, never a crash
{
	require IO::Socket::INET;
	my @raw = (
		"\x00\xff\xfe garbage\r\n\r\n",
		"GET /" . ('a' x 20000) . " HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /v1/ids HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " . ('z' x 100000) . "\r\n\r\n",
		"GET /v1/ids/%00/decode HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $secret{app}\r\n\r\n",
		"GET /v1/ids?count=1&count=2&type HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $secret{app}\r\n\r\n",
		"FOO /v1/ids HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /internal/ranges/lease HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $secret{ops}\r\nTransfer-Encoding: chunked\r\n\r\n2000\r\n" . ('{' x 8192) . "\r\n0\r\n\r\n",
		"POST /internal/workers/lease HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
	);
	for my $r (@raw)
	{
		my $sock = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $ga->{port}, Timeout => 10) or next;
		print $sock $r;
		# read what comes back for a moment; a half-sent request may get nothing
		require IO::Select;
		my $sel = IO::Select->new($sock);
		my $buf;
		while ($sel->can_read(1)) { last unless sysread($sock, $buf, 65536); }
		close $sock;
	}
	ok(kill(0, $ga->{pid}), 'malformed requests: the gateway still runs');
	# healthy, not at once: with the registry's 2 s TTL, a loaded machine
	# can stall a renewal past the validity (the version layer's chroots, CI
	# run 27), and then /healthz rightly answers 503 until the next one
	ok(wait_healthy($ga), 'and answers, healthy');
}

# --- 3. idempotency, kill -9, restart --------------------------------------------

my @k1 = ids($ga, 3, headers => { 'Idempotency-Key' => 'key-1' });
my @k1b = ids($ga, 3, headers => { 'Idempotency-Key' => 'key-1' });
is(scalar @k1, 3, 'Idempotency-Key: three IDs');
is("@k1b", "@k1", 'Idempotency-Key: the same IDs again');
my @k2 = ids($ga, 3, headers => { 'Idempotency-Key' => 'key-2' });
isnt("@k2", "@k1", 'another key: other IDs');
# four at once with one new key: one of them stores its IDs, all get those
{
	my %kid;
	for my $i (1 .. 4)
	{
		my $pid = fork();
		die "fork: $!" unless defined $pid;
		if ($pid == 0)
		{
			$http = HTTP::Tiny->new(timeout => 30);
			my @got = ids($ga, 5, headers => { 'Idempotency-Key' => 'key-race' });
			open(my $f, '>', "$tmp/race_$i") or POSIX::_exit(2);
			print $f "@got\n";
			close $f;
			POSIX::_exit(0);
		}
		$kid{$pid} = $i;
	}
	waitpid($_, 0) for keys %kid;
	my %answers;
	for my $i (1 .. 4)
	{
		open(my $f, '<', "$tmp/race_$i") or die;
		my $line = <$f>;
		close $f;
		chomp $line;
		$answers{$line}++;
	}
	my @distinct = keys %answers;
	ok(@distinct == 1 && $distinct[0] =~ /^\d+( \d+){4}$/,
		'four concurrent requests with one Idempotency-Key: all get the same five IDs');
}
($st, $j) = req($ga, 'GET', '/v1/ids?count=4', token => 'app', headers => { 'Idempotency-Key' => 'key-1' });
is($st, 409, 'a key reused with another count: 409');
ok(ref $j eq 'HASH' && $j->{error}, '409 has a JSON body');

my @before = (ids($ga, 1000), @k2);
my $max_before = (sort { id_lt($a, $b) } @before)[-1];
stop_gateway($ga, 'KILL');
ok(!kill(0, $ga->{pid}), 'gateway a killed with -9');
$ga = start_gateway(name => 'gwa', port => $ga->{port});
ok(wait_healthy($ga), 'gateway a: healthy again after the restart');
my @after = ids($ga, 1000);
ok(@after == 1000 && id_lt($max_before, $after[0]) < 0,
	'after kill -9 and restart: every new ID above every earlier one');
my @k1c = ids($ga, 3, headers => { 'Idempotency-Key' => 'key-1' });
is("@k1c", "@k1", 'Idempotency-Key: the same IDs after the restart');
ok(-s "$tmp/state-gwa/mark", 'the local durable mark file exists');

# --- 4. fence ----------------------------------------------------------------

($st, $j) = req($ga, 'GET', '/healthz', token => 'ops');
my ($region, $worker) = ($j->{region}, $j->{workers}[0]);
is($registry->safe_psql('postgres',
	"SELECT owner FROM idgen.worker_lease WHERE region = $region AND worker = $worker"),
	"$j->{owner}/0", "/healthz names the gateway's worker $worker and owner");
my @under = ids($ga, 100);
my $fenced_before = metric($ga, 'idgen_gateway_fenced_total');
$registry->safe_psql('postgres', "SELECT idgen_fence_worker($region, $worker)");
ok(IdgenTest::wait_for(sub { metric($ga, 'idgen_gateway_fenced_total') > $fenced_before }),
	'the gateway saw its worker fenced');
ok(wait_healthy($ga), 'and leased another');
($st, $j) = req($ga, 'GET', '/healthz', token => 'ops');
my $new_worker = $j->{workers}[0];
isnt($new_worker, $worker, 'the new worker is another one');
my @post = ids($ga, 2000);
my $decoded = join(',', $registry->safe_psql('postgres',
	"SELECT DISTINCT (idgen_decode(x)).worker FROM unnest('{" . join(',', @post) . "}'::idgen[]) AS x"));
is($decoded, $new_worker, 'after the fence nothing is issued under the fenced worker');
my $under_ok = $registry->safe_psql('postgres',
	"SELECT bool_and((idgen_decode(x)).ts < l.high_water) AND bool_and((idgen_decode(x)).worker = $worker) "
	  . "FROM unnest('{" . join(',', @under) . "}'::idgen[]) AS x, "
	  . "idgen.worker_lease AS l WHERE l.region = $region AND l.worker = $worker");
is($under_ok, 't', "the fenced worker's IDs all lie below its high-water mark");
ok(id_lt($under[-1], $post[0]) < 0, 'and the new IDs still ascend');

# --- 5. clock rollback -------------------------------------------------------------

my $shim = IdgenClockShim->new;
my $gc = start_gateway(name => 'gwc', ttl => '6s',
	env => { LD_PRELOAD => $shim->{lib}, IDGEN_CLOCK_SHIM_FILE => $shim->{file} });
ok(wait_healthy($gc), 'gateway c (under the clock shim): healthy');
my @c1 = ids($gc, 1000);
$shim->set_offset_ms(-300);
my @c2 = ids($gc, 1000);
ok(@c2 == 1000 && id_lt($c1[-1], $c2[0]) < 0,
	'a rollback within idgen.max_drift: IDs go on above the earlier ones');
$shim->set_offset_ms(-5000);
($st, $j, $hd) = req($gc, 'GET', '/v1/ids?count=10', token => 'app');
is($st, 503, 'a rollback beyond idgen.max_drift: 503');
like($j->{error} // '', qr/^clock_(behind|skew)$/, 'the error names the clock');
ok(defined $hd->{'retry-after'}, '503 has Retry-After');
ok(metric($gc, 'idgen_gateway_clock_rollbacks_total') >= 1, 'the rollback is counted');
($st) = req($gc, 'GET', '/healthz');
is($st, 503, '/healthz: 503 while the clock is behind');
$shim->set_offset_ms(0);
ok(IdgenTest::wait_for(sub { my ($s) = req($gc, 'GET', '/healthz'); $s == 200 }),
	'the clock back: healthy again');
my @c3 = ids($gc, 10);
ok(@c3 == 10 && id_lt($c2[-1], $c3[0]) < 0, 'and the IDs still ascend');

# a jump a minute ahead: not followed until confirmed (the node's rule:
# idgen.clock_jump_confirm, or the registry's clock agrees), so IDs go on
# at the real time; 164 tests it closer
$shim->set_offset_ms(60000);
my @c3j;
ok(IdgenTest::wait_for(sub { @c3j = ids($gc, 10); @c3j == 10 }),
	'a clock a minute ahead: IDs go on, the step not followed unconfirmed');
push @c3, @c3j;
# long enough for the lease thread, which keeps the mark ahead, to see it
usleep(500_000);
$shim->set_offset_ms(0);
my @c3b;
ok(IdgenTest::wait_for(sub { @c3b = ids($gc, 10); @c3b == 10 }), 'the clock back: IDs again');
is($registry->safe_psql('postgres',
	"SELECT max((idgen_decode(x)).ts) < clock_timestamp() + interval '2 seconds' "
	  . "FROM unnest('{" . join(',', @c3, @c3b) . "}'::idgen[]) AS x"),
	't', 'no ID carries the time of the jump');
ok(id_lt($c3[-1], $c3b[0]) < 0, 'and they still ascend');
{
	open(my $mf, '<', "$tmp/state-gwc/mark") or die;
	my $mark = <$mf>;
	close $mf;
	ok($mark < time() * 1000 + 20000, 'the jump did not drag the local durable mark along');
}

# its clock 900 ms ahead (within idgen.max_skew), killed, the clock set
# right and restarted at once: the registry's clock alone would let it
# start below its last IDs; the local durable mark does not
$shim->set_offset_ms(900);
my @c4 = ids($gc, 20000);
stop_gateway($gc, 'KILL');
$shim->set_offset_ms(0);
$gc = start_gateway(name => 'gwc', ttl => '6s', port => $gc->{port},
	env => { LD_PRELOAD => $shim->{lib}, IDGEN_CLOCK_SHIM_FILE => $shim->{file} });
my @c5;
ok(IdgenTest::wait_for(sub { @c5 = ids($gc, 10); @c5 == 10 }),
	'clock ahead, kill -9, clock back, restart: it issues again');
ok(@c4 == 20000 && id_lt($c4[-1], $c5[0]) < 0,
	'and above every ID of the run before, by its local durable mark');
stop_gateway($gc);

# a gateway whose clock is 3 s off the registry's (idgen.max_skew is 1 s)
$shim->set_offset_ms(3000);
my $gs = start_gateway(name => 'gws',
	env => { LD_PRELOAD => $shim->{lib}, IDGEN_CLOCK_SHIM_FILE => $shim->{file} });
ok(IdgenTest::wait_for(sub { my ($s, $b) = req($gs, 'GET', '/healthz');
	$s == 503 && ref $b && $b->{status} eq 'clock_skew' }),
	'a clock 3 s ahead of the registry: /healthz 503 clock_skew');
($st, $j) = req($gs, 'GET', '/v1/ids', token => 'app');
is("$st " . ($j->{error} // ''), '503 clock_skew', 'and it refuses IDs');
like($j->{message} // '', qr/ahead of the registry/, 'saying how far off it is');
stop_gateway($gs);
$shim->set_offset_ms(0);

# --- 2 (cont.). 429 and 503 --------------------------------------------------------

my $gr = start_gateway(name => 'gwr', args => [ '--rate-limit', '2/s' ]);
ok(wait_healthy($gr), 'gateway r (rate limited): healthy');
my ($n429, $ra, $b429) = (0, undef, undef);
for (1 .. 20)
{
	my ($s, $b, $h) = req($gr, 'GET', '/v1/ids', token => 'app');
	if ($s == 429) { $n429++; $ra = $h->{'retry-after'}; $b429 = $b; }
}
ok($n429 > 0, 'past the rate limit: 429');
ok(defined $ra && $ra >= 1, '429 has Retry-After');
ok(ref $b429 eq 'HASH' && $b429->{error}, '429 has a JSON body');
stop_gateway($gr);

my $gn = start_gateway(name => 'gwn', args => [ '--region', '5' ]);
ok(IdgenTest::wait_for(sub { my ($s, $b) = req($gn, 'GET', '/healthz', token => 'ops'); $s == 503 && ref $b && $b->{reason} =~ /region 5/ }),
	'a gateway the registry cannot lease to: /healthz 503 with the reason');
($st, $j, $hd) = req($gn, 'GET', '/v1/ids', token => 'app');
is($st, 503, 'it refuses IDs: 503');
ok(defined $hd->{'retry-after'} && ref $j eq 'HASH' && $j->{error}, '503 has Retry-After and a JSON body');
stop_gateway($gn);

# --- 6. TLS --------------------------------------------------------------------------

system('openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
	'-subj', '/CN=localhost', '-keyout', "$tmp/key.pem", '-out', "$tmp/cert.pem",
	'-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1') == 0
  or die 'openssl failed';
my $gt = start_gateway(name => 'gwt', tls => 1,
	args => [ '--tls-cert', "$tmp/cert.pem", '--tls-key', "$tmp/key.pem" ]);
my $curl = sub {
	my (@a) = @_;
	my $out = `curl -s --cacert $tmp/cert.pem -H 'Authorization: Bearer $secret{app}' @a 2>&1`;
	return $out;
};
ok(IdgenTest::wait_for(sub { $curl->("https://127.0.0.1:$gt->{port}/healthz") =~ /"ok"/ }),
	'TLS: /healthz over https');
like($curl->("https://127.0.0.1:$gt->{port}/v1/ids?count=3"), qr/^\{"ids": \["\d+","\d+","\d+"\]\}/,
	'TLS: IDs over https, the certificate verified');
unlike($curl->("http://127.0.0.1:$gt->{port}/v1/ids?count=3"), qr/"ids"/,
	'TLS: plain http gets no IDs');
stop_gateway($gt);

# --- 7. two gateways, two nodes, a million IDs -------------------------------------

# gateway b runs as a role with only what docs/gateway.md grants
# (idgen_grant_gateway; 096 runs the page's set-up as written)
$registry->safe_psql('postgres', q{
CREATE ROLE idgen_gateway LOGIN;
SELECT idgen_grant_gateway('idgen_gateway');
});
my $gb = start_gateway(name => 'gwb', conn => "$conn user=idgen_gateway",
	args => [ '--workers', '4' ]);
ok(wait_healthy($gb), 'gateway b (role idgen_gateway): healthy');
my @kb = ids($gb, 2, headers => { 'Idempotency-Key' => 'key-b' });
is(scalar @kb, 2, 'gateway b: an Idempotency-Key request works with those grants');
($st, $j) = req($gb, 'GET', '/healthz', token => 'ops');
is(scalar @{ $j->{workers} // [] }, 4, 'gateway b holds four workers (--workers 4)');
my @nodes = map {
	my $n = idgen_fleet_node("node$_", $registry, conf => "idgen.lease_wait = '5s'\n");
	$n;
} (1, 2);
ok(wait_state($_), $_->name . ': active') for @nodes;

# all four at once, each from a process of its own writing its own file
my @sources = (
	[ 'a', sub { my $last = '0'; my $ok = 1; my @out;
		for (1 .. 30) { my @b = ids($ga, 10000); return (0) unless @b == 10000;
			$ok &&= ascending($last, @b); $last = $b[-1]; push @out, @b; }
		return ($ok, @out); } ],
	[ 'b', sub { my $last = '0'; my $ok = 1; my @out;
		for (1 .. 30) { my @b = ids($gb, 10000); return (0) unless @b == 10000;
			$ok &&= ascending($last, @b); $last = $b[-1]; push @out, @b; }
		return ($ok, @out); } ],
	map { my $n = $_; [ $n->name, sub { (1, map { $n->safe_psql('postgres', 'SELECT idgen_next_batch(50000)') } 1 .. 4) } ] } @nodes,
);
my %kid;
for my $src (@sources)
{
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		$http = HTTP::Tiny->new(keep_alive => 1, timeout => 30);
		my ($ok, @got) = $src->[1]->();
		open(my $f, '>', "$tmp/ids_$src->[0]") or POSIX::_exit(2);
		print $f join("\n", @got), "\n";
		close $f;
		# no END blocks in the child: they belong to the test
		POSIX::_exit($ok ? 0 : 1);
	}
	$kid{$pid} = $src->[0];
}
my %rc;
for my $pid (keys %kid) { waitpid($pid, 0); $rc{ $kid{$pid} } = $? >> 8; }
is($rc{a} . $rc{b}, '00', "each gateway's IDs ascend (gateway b across its four workers), all requests answered");
is(join('', map { $rc{ $_->name } } @nodes), '00', 'both nodes gave their batches');
my $all = "$tmp/all_ids";
system("cat $tmp/ids_* > $all") == 0 or die;
$registry->safe_psql('postgres', "CREATE TABLE all_ids (id bigint); COPY all_ids FROM '$all'");
is($registry->safe_psql('postgres', 'SELECT count(*) || \'/\' || count(DISTINCT id) FROM all_ids'),
	'1000000/1000000', 'a million IDs from two gateways and two nodes: no duplicate');

# --- 8. the registry gone: the lease runs out, the gateway refuses -----------------

$_->stop for @nodes;
stop_gateway($gb);
my @r1 = ids($ga, 10);
$registry->stop;
ok(IdgenTest::wait_for(sub { my ($s, $b) = req($ga, 'GET', '/v1/ids', token => 'app');
	$s == 503 && ref $b && $b->{error} eq 'lease_expired' }),
	'the registry down: once the lease validity ends, 503 lease_expired');
($st, $j) = req($ga, 'GET', '/healthz');
is($st, 503, 'and /healthz says 503');
($st, $j) = req($ga, 'GET', '/metrics');
like($j, qr/^idgen_gateway_lease_validity_seconds 0\.000$/m, 'and /metrics says no validity left');
like($j, qr/^idgen_gateway_up 0$/m, 'and idgen_gateway_up 0');
$registry->start;
ok(wait_healthy($ga), 'the registry back: healthy again');
my @r2 = ids($ga, 10);
ok(@r2 == 10 && id_lt($r1[-1], $r2[0]) < 0, 'and its IDs go on above the earlier ones');

# --- 9. a layout epoch ------------------------------------------------------------------

my $epoch2 = $registry->safe_psql('postgres',
	"SELECT idgen_schedule_layout(greatest(clock_timestamp() + interval '6 seconds', "
	  . "max(lease_until) FILTER (WHERE owner IS NOT NULL) + interval '3 seconds', "
	  . "max(high_water) + interval '3 seconds'), 2, 8, 12) FROM idgen.worker_lease");
is($epoch2, '2', 'a layout scheduled on the registry as epoch 2');
my @seen;
my $switched = IdgenTest::wait_for(sub {
	my @b = ids($ga, 100);
	push @seen, @b;
	return 0 unless @b;
	($st, $j) = req($ga, 'GET', "/v1/ids/$b[-1]/decode", token => 'dec');
	return $j->{epoch} == 2;
});
ok($switched, 'the gateway issues under epoch 2 once it applies');
ok(ascending(@seen), 'its IDs ascend across the switch');
is($registry->safe_psql('postgres',
	"SELECT bool_and((d).epoch = CASE WHEN (d).ts >= e.start_time THEN 2 ELSE 1 END) "
	  . "FROM (SELECT idgen_decode(x) AS d FROM unnest('{" . join(',', @seen) . "}'::idgen[]) AS x) AS s, "
	  . "idgen.epoch AS e WHERE e.version = 2"),
	't', 'every ID is of the epoch in force at its time (by the registry\'s idgen_decode())');
my $last = $seen[-1];
($st, $j) = req($ga, 'GET', "/v1/ids/$last/decode", token => 'dec');
is(join('|', map { $_ // 'null' } @$j{qw(ts region worker seq epoch)}),
	$registry->safe_psql('postgres',
		"SET TimeZone = 'UTC'; SELECT to_json(ts)#>>'{}', region, worker, seq, epoch FROM idgen_decode('$last'::idgen)"),
	'decode of an epoch-2 ID: the registry\'s answer');

stop_gateway($ga);
done_testing();
