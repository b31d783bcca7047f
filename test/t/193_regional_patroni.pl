# 193_regional_patroni.pl - a regional registry on Patroni: its leader
# killed, the region's nodes and gateway ride through (issue 22, item 6;
# DESIGN "Regions that stand alone": "Its owner name survives its own
# restarts and failovers (a Patroni cluster is one owner)")
#
# A root registry (a plain cluster, region 7, idgen.leased_out_regions =
# '1'); the regional registry of region 1 is a Patroni cluster of three
# members on etcd (test/perl/IdgenPatroni.pm; synchronous_mode, Patroni ttl
# 10 s) whose members carry idgen.parent_registry (the root, through a
# relay of the test's own, test/perl/IdgenProxy.pm), idgen.owned_regions =
# '1', idgen.region_lease_ttl = 30s, idgen.region_id = 1 and
# idgen.lease_ttl = 30s (the registry's hold floor: see the members'
# settings below).  Two nodes of region 1 lease from it through the
# multi-host conninfo (target_session_attrs=read-write) with
# idgen.lease_ttl = 30s, and one idgen-gateway (--lease-ttl 30s, --workers
# 1) through the same string.  Both nodes draw idgen_next() in a loop
# (IdgenPatroni's draw(): every ID and every error with its time and the
# node's idgen_status() before it), and a process of the test's own asks
# the gateway for 5 IDs at a time over HTTP, while
#
#   1. kill9: the leader is killed with SIGKILL (its Patroni, postmaster
#      and children at once);
#   2. cut: the root is cut off (the relay a black hole), then the next
#      leader is killed; the root is mended once the new leader has tried
#      it and 4 s more (two renewal periods of the issuers) have passed,
#      before the issuers' leases at the kill run out.  The new leader
#      starts with region 1 not held (G5) until the root answers.
#
# Asserted after each:
#   - every member names the same owner (idgen.region_owner(): the system
#     identifier they share, and cluster_name); the new leader holds region
#     1 again under that name at the same generation; the root's
#     idgen.regions shows the same owner and generation, live, renewed
#     after the kill (after the mend in 2), and its audit log one grant of
#     the region in all and a resumption (region_lease_resumed) since: the
#     running lease given back, no takeover;
#   - the nodes ride through: not one refusal.  A node's lease at the kill
#     runs at least (30 s region ttl - its margin - a region renewal
#     period) - (a node renewal period) = 28.5 - 3 - 2 = 23.5 s, less the
#     node's own margin of 1.5 s, so about 22 s, against a failover of
#     Patroni's ttl (10 s) plus a promotion plus one call to the root (in 2,
#     the cut adds about 6 s).  Only a failover that outlasts the lease an
#     issuer held at the kill (a starved machine) may cost refusals, and
#     never before that lease's end: then that is what is asserted, and
#     diag says so;
#   - the gateway the same, on its lease's end as the registry recorded it
#     before the kill.  In 2 the new leader refuses renewals with "region
#     1 lease is not held" (55000) until the root answers; idgen-gateway
#     took that for a fence, dropped its valid lease and waited out the
#     new leader's hold (about 35 s of 503s): it now rides on its validity
#     as the nodes do;
#   - every ID of the three issuers in both drills (in one table on the
#     root) unique, and each issuer's ascending in the order it issued
#     them; and drill_check's (IdgenPatroni.pm) account of the grants: no
#     worker granted to one holder while another held it.
# Figures (diag): IDs/s of each issuer before the kill, from the kill until
# every issuer had renewed at the new leader, and after; the longest pause
# of each; the failover's times (kill -> a new leader that takes writes ->
# region 1 held there -> each issuer renewed there).
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use IdgenPatroni;
use IdgenGwRun;
use IdgenProxy;
use HTTP::Tiny;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

IdgenPatroni::require_or_skip();

my $t_start    = time();
my $region_ttl = 30;
my $node_ttl   = 30;
my $tmp        = PostgreSQL::Test::Utils::tempdir('regpatroni');

sub q1 { my ($n, $sql) = @_; return $n->safe_psql('postgres', $sql); }

# --- the root ------------------------------------------------------------------

# idgen.leased_out_regions: the root's own list of the regions it leases
# out (a setting being added; unknown to an older build, which warns)
my $root = idgen_registry('root', conf => q{
idgen.region_id = 7
idgen.lease_ttl = '10s'
idgen.leased_out_regions = '1'
});
ok(wait_extension($root), 'root: the background worker created the extension');
# the members reach the root through a relay the test cuts in drill 2
my $proxy = IdgenProxy->new($root->port, $PostgreSQL::Test::Utils::tmp_check);

# --- the regional registry: a Patroni cluster ----------------------------------

my $reg = IdgenPatroni->new(
	members => 3,
	conf    => {
		'idgen.region_id'        => '1',
		'idgen.owned_regions'    => '1',
		'idgen.parent_registry'  => 'host=127.0.0.1 port=' . $proxy->port . ' dbname=postgres',
		'idgen.region_lease_ttl' => "${region_ttl}s",
		# a registry's idgen.lease_ttl is its hold floor (R1a,
		# docs/concepts.md): no holder counts its validity on more than that
		# from its last answer, whatever ttl it was granted.  At 10 s every
		# holder stops about 9.5 s after its last renewal, before Patroni
		# (ttl 10 s) has promoted anyone, and then waits out the new
		# leader's hold (a first run: 34 s of refusals on each node); at the
		# region's nodes' 30 s they ride the failover through.  It is also
		# the members' own nodes' ttl, and the longest lease_ttl in the
		# registry sets the hold after a failover
		'idgen.lease_ttl' => "${node_ttl}s",
	});
my $first = $reg->leader;
ok(defined $first, "regional: $first leads");

ok( wait_for(sub {
			$reg->leader_sql('SELECT held FROM idgen_region_status() WHERE region = 1', quiet => 1) eq 't';
		}),
	'regional: the leader holds region 1 from the root');
my $owner = $reg->leader_sql('SELECT idgen.region_owner()');
like($owner, qr/^regional:\d+/, "regional: the owner name is $owner");
for my $m ($reg->names)
{
	is($reg->sql($m, 'SELECT idgen.region_owner()'), $owner,
		"regional: member $m names the same owner");
}
my ($gen0, $status_owner0) = split /\|/,
  $reg->leader_sql('SELECT generation, owner FROM idgen_region_status() WHERE region = 1');
is($status_owner0, $owner, 'regional: idgen_region_status() shows that owner');
is( q1($root, "SELECT owner = '$owner' AND live AND generation = $gen0 FROM idgen.regions WHERE region = 1"),
	't', "root: region 1 is live under $owner at generation $gen0");

# --- the region's issuers --------------------------------------------------------

my @nodes = map {
	idgen_fleet_node($_, $reg->conninfo, conf => qq{
shared_buffers = 16MB
idgen.region_id = 1
idgen.lease_ttl = '${node_ttl}s'
})
} qw(node1 node2);
for my $n (@nodes)
{
	ok(wait_state($n), $n->name . ': active');
	drill_prepare($n);
}

my $tokens = IdgenGwRun::tokens_file($tmp);
my $gw = IdgenGwRun::start(name => 'gw1', conn => $reg->conninfo, dir => $tmp, tokens => $tokens,
	ttl => "${node_ttl}s", args => [ '--workers', '1', '--region', '1' ]);
ok(wait_for(sub { IdgenGwRun::healthy($gw) }), 'gw1: healthy');
is(scalar(IdgenGwRun::ids($gw, 3)), 3, 'gw1: issues');
$reg->sample;

# The gateway's load: a process of its own asks for 5 IDs at a time, 5 ms
# apart, until the stop file exists, and writes "start took status ids" per
# request to its file.
sub start_gw_load
{
	my ($file, $stop_file) = @_;
	my $kid = fork();
	die "fork: $!" unless defined $kid;
	return $kid if $kid;
	my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 10);
	my @lines;
	while (!-e $stop_file)
	{
		my $t0 = time();
		my $r = $http->request('GET', "$gw->{base}/v1/ids?count=5",
			{ headers => { Authorization => "Bearer $IdgenGwRun::secret" } });
		my $took = time() - $t0;
		my @ids = $r->{status} == 200 && $r->{content} =~ /"ids"\s*:\s*\[([^\]]*)\]/
		  ? ($1 =~ /(\d+)/g) : ();
		push @lines, sprintf("%.6f %.6f %d %s", $t0, $took, $r->{status}, join(',', @ids) || '-');
		usleep(5_000);
	}
	open(my $f, '>', $file) or POSIX::_exit(2);
	print $f "$_\n" for @lines;
	close $f;
	# no END blocks in the child: they belong to the test
	POSIX::_exit(0);
}

q1($root, q{CREATE TABLE all_ids (drill text, issuer text, seq bigint, at float8, id bigint);
            CREATE TABLE refusals (drill text, issuer text, at float8, what text);});
my @issuers = ((map { $_->name } @nodes), 'gw1');
my $gw_seq = 0;

# The issuers' IDs and refusals of a drill into the root's all_ids and
# refusals: the nodes' in the order they issued them (drawn.n), the
# gateway's in the order of its answers and, within one, of the list.
sub collect
{
	my ($drill, $gw_file) = @_;
	for my $n (@nodes)
	{
		my $name = $n->name;
		my $file = "$tmp/ids_${drill}_$name";
		for my $what ([ $file, "id::bigint FROM drawn WHERE drill = '$drill' AND id IS NOT NULL", 'all_ids', 'n, ' ],
			[ "$file.err", "sqlstate FROM drawn WHERE drill = '$drill' AND sqlstate IS NOT NULL", 'refusals', '' ])
		{
			my ($f, $sql, $table, $seq) = @$what;
			my $rows = q1($n, "SELECT '$drill', '$name', $seq extract(epoch FROM at), $sql ORDER BY n");
			next if $rows eq '';
			open(my $fh, '>', $f) or die "$f: $!";
			print $fh "$rows\n";
			close $fh;
			q1($root, "\\copy $table FROM '$f' WITH (FORMAT csv, DELIMITER '|')");
		}
	}
	open(my $in, '<', $gw_file) or die "$gw_file: $!";
	my ($ids, $errs) = ('', '');
	while (my $line = <$in>)
	{
		chomp $line;
		my ($t0, $took, $st, $list) = split / /, $line;
		if ($st == 200 && $list ne '-')
		{
			$ids .= join('|', $drill, 'gw1', $gw_seq++, $t0, $_) . "\n" for split /,/, $list;
		}
		else
		{
			$errs .= "$drill|gw1|$t0|HTTP $st\n";
		}
	}
	close $in;
	for my $what ([ "$tmp/ids_${drill}_gw1", $ids, 'all_ids' ], [ "$tmp/ids_${drill}_gw1.err", $errs, 'refusals' ])
	{
		my ($f, $rows, $table) = @$what;
		next if $rows eq '';
		open(my $fh, '>', $f) or die "$f: $!";
		print $fh $rows;
		close $fh;
		q1($root, "\\copy $table FROM '$f' WITH (FORMAT csv, DELIMITER '|')");
	}
	return;
}

my %issuer_of = map { status($_, 'owner')->{owner} => $_->name } @nodes;
my $node_owners = join ', ', map { "'$_'" } sort keys %issuer_of;
my @fig;

# One drill: both nodes and the gateway draw; 6 s on, the leader is killed
# (with the root cut off first when $opt{cut}: mended once the new leader
# has tried the root and then 4 s, two renewal periods of the issuers,
# have passed); the drill waits until the new leader holds region 1 and
# every issuer has renewed there, and goes on 6 s.  Returns the times.
sub drill
{
	my ($drill, %opt) = @_;
	my %t;
	my $gw_file   = "$tmp/gw_drawn_$drill";
	my $stop_file = "$tmp/gw_stop_$drill";
	my $bg = drill_start($drill, @nodes);
	my $gw_kid = start_gw_load($gw_file, $stop_file);
	$reg->sample_until(sub { 0 }, 6);

	# what the gateway held just before, by the registry's account
	$t{gw_until} = $reg->leader_sql(q{
		SELECT extract(epoch FROM max(lease_until)) FROM idgen.worker_lease WHERE owner LIKE 'gateway:gw1:%'});
	$t{leader} = $reg->leader;
	if ($opt{cut})
	{
		$proxy->cut;
		$t{cut} = time();
	}
	my $killed = $reg->kill9_leader;
	$t{kill} = time();
	is($killed, $t{leader}, "$drill: the leader $killed is gone");
	ok($reg->sample_until(sub { my $l = $reg->leader; defined $l && $l ne $killed }, 120),
		"$drill: a new leader");
	ok($reg->wait_leader(60, $killed), "$drill: the new leader takes writes");
	$t{writes} = time();
	$t{second} = $reg->leader;
	if ($opt{cut})
	{
		ok( $reg->sample_until(
				sub {
					$reg->leader_sql(q{SELECT last_error IS NOT NULL AND NOT held FROM idgen_region_status()},
						quiet => 1) eq 't';
				},
				60),
			"$drill: $t{second} tried the root, cut off, and does not hold region 1");
		note "$drill: $t{second}: " . $reg->leader_sql('SELECT last_error FROM idgen_region_status()');
		$reg->sample_until(sub { 0 }, 4);
		$proxy->mend;
		$t{mend} = time();
	}
	ok( $reg->sample_until(
			sub {
				$reg->leader_sql(
					"SELECT held AND leased_at > to_timestamp($t{kill}) FROM idgen_region_status() WHERE region = 1",
					quiet => 1) eq 't';
			},
			120),
		"$drill: $t{second} holds region 1 again");
	$t{region} = time();
	# when each issuer was first seen renewed (or leased) there
	ok( $reg->sample_until(
			sub {
				for my $o (split /\n/, $reg->leader_sql(qq{
SELECT DISTINCT owner FROM idgen.worker_lease
WHERE (owner IN ($node_owners) OR owner LIKE 'gateway:gw1:%')
  AND greatest(renewed_at, acquired_at) > to_timestamp($t{kill})}, quiet => 1))
				{
					my $i = $o =~ /^gateway:gw1:/ ? 'gw1' : $issuer_of{$o};
					$t{renewed_by}{$i} //= time() if defined $i;
				}
				return keys %{ $t{renewed_by} // {} } == 3;
			},
			180),
		"$drill: both nodes and the gateway renewed (or leased) at the new leader");
	$t{renewed} = time();
	ok(wait_state($_), $_->name . ": active after the failover") for @nodes;
	$reg->sample_until(sub { 0 }, 6);

	open(my $sf, '>', $stop_file) or die "$stop_file: $!";
	close $sf;
	waitpid($gw_kid, 0);
	is($?, 0, "$drill: the gateway's load process wrote what it drew");
	my $sum = drill_stop($bg, @nodes);
	note "$drill: $_: $sum->{$_}" for sort keys %$sum;
	collect($drill, $gw_file);

	# a node's lease at the kill, as idgen_status() told its last call before it
	for my $n (@nodes)
	{
		$t{valid_end}{ $n->name } = q1($n, qq{
			SELECT extract(epoch FROM lease_until) FROM drawn
			WHERE drill = '$drill' AND id IS NOT NULL AND at < to_timestamp($t{kill}) ORDER BY n DESC LIMIT 1});
	}
	$t{valid_end}{gw1} = $t{gw_until};

	push @fig, sprintf('%s: a new leader (%s) taking writes %.1f s after the kill, region 1 held there %.1f s%s; '
		  . 'renewed there: %s', $drill, $t{second}, $t{writes} - $t{kill}, $t{region} - $t{kill},
		$opt{cut} ? sprintf(' (the root mended %.1f s after the kill)', $t{mend} - $t{kill}) : '',
		join(', ', map { sprintf '%s %.1f s', $_, $t{renewed_by}{$_} - $t{kill} } @issuers));
	return \%t;
}

# The owner on both levels after a drill: the same name and generation on
# the new leader and at the root, renewed after $since, never granted anew
sub same_owner
{
	my ($drill, $t, $since) = @_;
	my ($owner1, $held1, $gen1) = split /\|/,
	  $reg->leader_sql('SELECT owner, held, generation FROM idgen_region_status() WHERE region = 1');
	is($owner1, $owner, "$drill: $t->{second} holds region 1 under the same owner name");
	is($held1, 't', "$drill: $t->{second} holds it");
	is($gen1, $gen0, "$drill: at the same generation ($gen0)");
	is($reg->leader_sql('SELECT idgen.region_owner()'), $owner, "$drill: $t->{second} names the same owner");
	my ($rowner, $rgen, $rlive, $renewed_after) = split /\|/, q1($root, qq{
		SELECT owner, generation, live, last_renewal > to_timestamp($since)
		FROM idgen.regions WHERE region = 1});
	is($rowner, $owner, "$drill: root: region 1 has the same owner");
	is($rgen, $gen0, "$drill: root: at the same generation: no takeover");
	is($rlive, 't', "$drill: root: the region lease is live");
	is($renewed_after, 't', "$drill: root: and was renewed after the " . ($since == $t->{kill} ? 'kill' : 'mend'));
	is( q1($root, q{SELECT count(*) FROM idgen.audit_log WHERE action = 'region_leased' AND detail LIKE 'region 1 %'}),
		'1', "$drill: root: region 1 was granted once in all");
	cmp_ok(
		q1($root, qq{SELECT count(*) FROM idgen.audit_log WHERE action = 'region_lease_resumed'
		             AND detail LIKE 'region 1 generation $gen0 owner $owner %' AND at > to_timestamp($since)}),
		'>=', 1, "$drill: root: $t->{second} was given the running lease back (region_lease_resumed)");
	return;
}

# Refusals: none when every issuer renewed at the new leader before the
# lease it held at the kill ran out (it stops a twentieth of its ttl
# before that lease's end); none before that end otherwise
sub refusals
{
	my ($drill, $t, $i) = @_;
	my ($count, $first_at) = split /\|/,
	  q1($root, "SELECT count(*), min(at) FROM refusals WHERE drill = '$drill' AND issuer = '$i'");
	my $end = $t->{valid_end}{$i};
	my $stop_at = $end - $node_ttl / 20;
	my $what = q1($root, "SELECT string_agg(DISTINCT what, ', ') FROM refusals WHERE drill = '$drill' AND issuer = '$i'");
	diag sprintf '%s: %s: %d refusals (%s), the first %.1f s after the kill', $drill, $i, $count, $what,
	  $first_at - $t->{kill} if $count;
	my $back = $t->{renewed_by}{$i};
	if ($back < $stop_at)
	{
		is($count, 0, sprintf('%s: %s: not one refusal: it renewed at the new leader %.1f s after the kill, '
				  . 'and the lease it held at the kill ran %.1f s past it',
				$drill, $i, $back - $t->{kill}, $end - $t->{kill}));
	}
	else
	{
		diag sprintf '%s: %s: the failover (%.1f s until it renewed at the new leader) outlasted its lease at the kill (%.1f s)',
		  $drill, $i, $back - $t->{kill}, $end - $t->{kill};
		ok(!$count || $first_at >= $stop_at - 0.5,
			"$drill: $i: refusals only once its lease at the kill ran out (less its margin)");
	}
	return;
}

# --- 1. the leader killed --------------------------------------------------------------

my $t1 = drill('kill9');
same_owner('kill9', $t1, $t1->{kill});
refusals('kill9', $t1, $_) for @issuers;
drill_check($reg, 'kill9', \@nodes);

# --- 2. the next leader killed while the root is cut off ---------------------------------
#
# The new leader starts with region 1 not held (G5: a new monotonic clock)
# and cannot lease it until the root answers: the nodes' renewals there
# fail (55000, "region 1 lease is not held") and they issue on the
# validity they have; the root comes back well before that ends.

ok($reg->wait_sync(120), 'cut: a sync standby again');
my $t2 = drill('cut', cut => 1);
same_owner('cut', $t2, $t2->{mend});
refusals('cut', $t2, $_) for map { $_->name } @nodes;
# idgen-gateway took every 55000 for a fence, "region 1 lease is not held"
# too, which a regional registry answers from its promotion until the
# root's first answer: it dropped a valid lease and waited out the new
# leader's hold (about 35 s of 503s).  Now it issues on its validity
refusals('cut', $t2, 'gw1');
my $fenced = () = IdgenGwRun::log_text($gw) =~ /fenced or taken: [^\n]*region 1 lease is not held/g;
is($fenced, 0, 'cut: gw1 took no "region 1 lease is not held" for a fence');
drill_check($reg, 'cut', \@nodes);

# --- every ID of both drills ---------------------------------------------------------------

my $total = q1($root, 'SELECT count(*) FROM all_ids');
cmp_ok($total, '>', 1000, "IDs drawn in both drills: $total");
is(q1($root, 'SELECT count(*) FROM (SELECT id FROM all_ids GROUP BY id HAVING count(*) > 1) AS d'),
	'0', 'no ID issued twice, by one issuer or two');
for my $i (@issuers)
{
	is( q1($root, qq{SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY seq) AS back
	                                      FROM all_ids WHERE issuer = '$i') AS s WHERE back}),
		'0', "$i: its IDs ascend in the order it issued them, across both failovers");
	for my $d ([ 'kill9', $t1 ], [ 'cut', $t2 ])
	{
		cmp_ok(q1($root, "SELECT count(*) FROM all_ids WHERE drill = '$d->[0]' AND issuer = '$i' AND at > $d->[1]{renewed}"),
			'>', 0, "$d->[0]: $i: issues after the failover");
	}
}

# --- figures ---------------------------------------------------------------------------------

for my $d ([ 'kill9', $t1 ], [ 'cut', $t2 ])
{
	my ($drill, $t) = @$d;
	for my $i (@issuers)
	{
		my ($before, $during, $after, $pause, $pause_at) = split /\|/, q1($root, qq{
WITH a AS (SELECT at, at - lag(at) OVER (ORDER BY seq) AS gap FROM all_ids
           WHERE drill = '$drill' AND issuer = '$i')
SELECT round(count(*) FILTER (WHERE at < $t->{kill}) / greatest($t->{kill} - min(at), 0.001)),
       round(count(*) FILTER (WHERE at >= $t->{kill} AND at < $t->{renewed}) / greatest($t->{renewed} - $t->{kill}, 0.001)),
       round(count(*) FILTER (WHERE at >= $t->{renewed}) / greatest(max(at) - $t->{renewed}, 0.001)),
       round((max(gap) * 1000)::numeric),
       round(((SELECT at - gap FROM a ORDER BY gap DESC NULLS LAST LIMIT 1) - $t->{kill})::numeric, 1)
FROM a});
		push @fig, sprintf('%s: %s: IDs/s %s before the kill, %s until every issuer renewed at the new leader, '
			  . '%s after; longest pause %s ms (from %s s after the kill)', $drill, $i, $before, $during,
			$after, $pause, $pause_at);
	}
}
diag $_ for @fig, @{ $reg->{figures} // [] };

IdgenGwRun::stop($gw);
$_->stop for @nodes;
$reg->stop;
$proxy->stop;
$root->stop;
diag sprintf '193_regional_patroni: %.0f s', time() - $t_start;
done_testing();
