# 192_region_cutoff.pl - a region cut off from the root stands alone for
# the rest of its region lease, never past it (issue 22, item 6; DESIGN
# "Regions that stand alone"; docs/regions.md "The arithmetic")
#
# A root and two regions, each a regional registry with two nodes and an
# idgen-gateway leasing from it; regional registry 1 reaches the root
# through a proxy of the test's own (test/perl/IdgenProxy.pm), regional
# registry 2 directly; region TTL 20 s.  All six issuers issue throughout
# every section: each node in a loop of one idgen_next() at a time, each
# gateway from a process of the test's that draws count=100 every 10 ms.
#   1. The proxy cut (a black hole: connections dropped, new ones never
#      answered): each issuer of region 1 (both nodes and the gateway)
#      issues without an error until at least 70 % of the region TTL after
#      the cut, and never after the region lease's validity as it stood at
#      the cut (no call started after it issues an ID, and no ID lies
#      above the root's end of the region lease plus its allowance, which
#      the region's next grant starts above); region 2's issuers never
#      notice.
#   2. A layout switch the cut-off region could miss (before its lease's
#      end plus its allowance) is refused, naming region 1.
#   3. The proxy mended past the region TTL: region 1 is leased again, its
#      issuers issue again, above every ID they issued before.
#   4. Then the switch is scheduled and applies in both regions: every
#      issuer issues in epoch 2 past it, without a refusal.
#   5. The root stopped (immediate) for 60 % of the region TTL: not one
#      refusal anywhere, and both regional registries renew at the
#      restarted root.
# Throughout: no ID twice across all six issuers (every ID, the nodes' and
# the gateways', in one file, sorted), each issuer ascending in its issue
# order, and region 2's issuers without one refusal.  The figures (per
# issuer and section: issued, refused; the first refusal after the cut in
# % of the TTL) are printed with diag().
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT status wait_for);
use IdgenGwRun;
use IdgenProxy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

my $ttl = 20;
my $tmp = PostgreSQL::Test::Utils::tempdir('cutoff');
# the root's own rule for a switch (two of its lease ttls ahead) stays
# below the region leases' ends, so theirs is the one a switch meets
my $root = idgen_registry('root', conf => qq{
idgen.region_id = 7
idgen.lease_ttl = '5s'
idgen.leased_out_regions = '1,2'
});
ok(wait_extension($root), 'root: the background worker created the extension');
my $proxy = IdgenProxy->new($root->port, $PostgreSQL::Test::Utils::tmp_check);

sub q1 { my ($n, $sql) = @_; return $n->safe_psql('postgres', $sql); }

my %reg;
for my $r (1, 2)
{
	my $parent = $r == 1
	  ? 'host=127.0.0.1 port=' . $proxy->port . ' dbname=postgres'
	  : registry_conn($root);
	$reg{$r} = idgen_registry("reg$r", conf => qq{
idgen.region_id = $r
idgen.owned_regions = '$r'
idgen.parent_registry = '$parent'
idgen.region_lease_ttl = '${ttl}s'
idgen.lease_ttl = '10s'
});
	ok($reg{$r}->poll_query_until('postgres',
			"SELECT held FROM idgen_region_status() WHERE region = $r", 't'),
		"reg$r: region $r is held");
}

# --- the issuers: two nodes and a gateway per region ---------------------------

my @issuers;	# { name, region, kind => node|gw, node or gw, events }
my %by_name;
for my $r (1, 2)
{
	for my $s ('a', 'b')
	{
		my $n = idgen_fleet_node("node$r$s", $reg{$r},
			conf => "idgen.region_id = $r\nidgen.lease_ttl = '10s'\nidgen.lease_wait = '1s'\n");
		ok(wait_state($n), "node$r$s: active");
		# one idgen_next() at a time, each committed, until draw_stop has a row;
		# t0 is when the call started, at when it returned
		q1($n, q{
CREATE TABLE drawn (n bigserial PRIMARY KEY, id idgen, t0 timestamptz, at timestamptz, sqlstate text);
CREATE TABLE draw_stop (x int);
CREATE PROCEDURE draw() LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    refused boolean;
BEGIN
    WHILE NOT EXISTS (SELECT 1 FROM draw_stop) LOOP
        t0 := clock_timestamp();
        refused := false;
        BEGIN
            INSERT INTO drawn (id, t0, at) VALUES (idgen_next(), t0, clock_timestamp());
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO drawn (t0, at, sqlstate) VALUES (t0, clock_timestamp(), SQLSTATE);
            refused := true;
        END;
        COMMIT;
        PERFORM pg_sleep(CASE WHEN refused THEN 0.05 ELSE 0.005 END);
    END LOOP;
END
$$;
});
		push @issuers, { name => "node$r$s", region => $r, kind => 'node', node => $n };
	}
}

my $tokens = IdgenGwRun::tokens_file($tmp);
for my $r (1, 2)
{
	my $gw = IdgenGwRun::start(name => "gw$r", conn => registry_conn($reg{$r}), dir => $tmp,
		tokens => $tokens, ttl => '10s', args => [ '--region', $r, '--workers', '1' ]);
	ok(wait_for(sub { IdgenGwRun::healthy($gw) }), "gw$r (--region $r, leasing from reg$r): healthy");
	push @issuers, { name => "gw$r", region => $r, kind => 'gw', gw => $gw };
}
%by_name = map { $_->{name} => $_ } @issuers;
for my $r (1, 2)
{
	my $sysids = join(',', map { "'" . q1($by_name{"node$r$_"}{node}, 'SELECT system_identifier FROM pg_control_system()') . "'" } ('a', 'b'));
	is(q1($reg{$r}, qq{SELECT count(DISTINCT owner) FILTER (WHERE owner LIKE 'gateway:gw$r:%') || '|'
	                          || count(DISTINCT owner) FILTER (WHERE split_part(owner, ':', 2) IN ($sysids))
	                   FROM idgen.worker_lease WHERE region = $r AND owner IS NOT NULL AND lease_until > idgen.clock()}),
		'1|2', "reg$r: its two nodes and its gateway lease in region $r");
}

# a gateway's draw: a process of its own asks count=100 every 10 ms (50 ms
# after a refusal) and writes every request, with when it was sent, to a
# file (IdgenGwRun::draw_start)
sub start_gw_draw
{
	my ($i) = @_;
	$i->{draw} = IdgenGwRun::draw_start($i->{gw}, "$tmp/drawn-$i->{name}", count => 100, pause_ms => 10);
	return;
}

sub start_node_draw
{
	my ($i) = @_;
	$i->{bg} = $i->{node}->background_psql('postgres', on_error_stop => 0);
	$i->{bg}->query_until(qr/drawing/, "\\echo drawing\nCALL draw();\n");
	return;
}

sub stop_draws
{
	q1($_->{node}, 'INSERT INTO draw_stop VALUES (1)') for grep { $_->{kind} eq 'node' } @issuers;
	IdgenGwRun::draw_stop($_->{draw}) for grep { $_->{kind} eq 'gw' } @issuers;
	for my $i (grep { $_->{kind} eq 'node' } @issuers)
	{
		$i->{bg}->query_until(qr/done/, "\\echo done\n");
		$i->{bg}->quit;
	}
	return;
}

sub id_lt { return IdgenGwRun::id_lt(@_); }

# --- 1. the cut --------------------------------------------------------------

my $t_start = time();
# the gateways' draws first: a child forked later would hold the pipes of
# the nodes' psql sessions open too
start_gw_draw($_) for grep { $_->{kind} eq 'gw' } @issuers;
start_node_draw($_) for grep { $_->{kind} eq 'node' } @issuers;
sleep 3;
$proxy->cut;
my $cut_at = time();
# nothing renews it from here on (an answer relayed just before the cut
# is recorded within moments): this is the end the region lease has
usleep(500_000);
my $valid_at_cut = q1($reg{1},
	'SELECT extract(epoch FROM valid_until) FROM idgen.held_region WHERE region = 1');
my ($root_end_1, $root_end_1_epoch) = split /\|/, q1($root,
	'SELECT lease_until + allowance, extract(epoch FROM lease_until + allowance) FROM idgen.region_lease WHERE region = 1');
note sprintf 'region 1 valid until %.1f s after the cut (%.0f %% of the TTL)',
	$valid_at_cut - $cut_at, 100 * ($valid_at_cut - $cut_at) / $ttl;

# --- 2. a switch the cut-off region could miss --------------------------------

my $widths = q1($root,
	q{SELECT region_bits || ', ' || worker_bits || ', ' || seq_bits FROM idgen.epoch WHERE version = 1});
my ($ret, $out, $err) = $root->psql('postgres',
	"SELECT idgen_schedule_layout('$root_end_1'::timestamptz - interval '1 s', $widths)");
isnt($ret, 0, 'root: a switch before the cut-off region\'s lease end plus allowance is refused');
like($err, qr/region leases run past it/, 'root: the error says region leases run past it');
like($err, qr/region 1 \(/, 'root: the detail names region 1');

# past the region lease's validity, then past the TTL
ok(wait_for(sub { time() > $valid_at_cut + 1 }), 'the region lease\'s validity as it stood at the cut has passed');
like(q1($reg{1}, 'SELECT last_error FROM idgen_region_status()'), qr/root registry|not held|lapsed/,
	'reg1: its status says why the region lease is not renewed');
my ($st) = IdgenGwRun::req($by_name{gw1}{gw}, 'GET', '/healthz');
is($st, 503, 'gw1: /healthz says 503 once the region lease lapsed');
usleep(int(1e6 * ($cut_at + $ttl + 1 - time()))) if time() < $cut_at + $ttl + 1;

# --- 3. mended past the region TTL ----------------------------------------------

$proxy->mend;
my $mend_at = time();
ok($reg{1}->poll_query_until('postgres',
		'SELECT held FROM idgen_region_status() WHERE region = 1', 't'),
	'reg1: region 1 is leased again once the root is reachable');
ok(wait_state($by_name{$_}{node}), "$_: active again") for qw(node1a node1b);
ok(wait_for(sub { IdgenGwRun::healthy($by_name{gw1}{gw}) }), 'gw1: healthy again');
my $ready_at = time();
note sprintf 'region 1 issuing again %.1f s after the mend', $ready_at - $mend_at;

# --- 4. the switch, scheduled after the return ------------------------------------

my ($applies, $applies_epoch) = split /\|/, q1($root, q{
	SELECT t, extract(epoch FROM t) FROM (SELECT max(lease_until + allowance) + interval '6 s' AS t
	                                      FROM idgen.regions WHERE live) AS s});
is(q1($root, "SELECT idgen_schedule_layout('$applies', $widths)"), '2',
	'root: the switch after every region lease\'s end plus allowance is scheduled, epoch 2');
my $switched_from = $applies_epoch + 1;
my $switched_to = $switched_from + 4;
ok(wait_for(sub { time() > $switched_to }), 'the switch has passed, and 4 s more');

# --- 5. the root stopped for 60 % of the region TTL ---------------------------------

# last: a restarted root is a new incarnation and grants no region for a
# day (G3); the renewals of the leases it has go on
my $away_from = time();
sleep 1;
my $t_down = time();
$root->stop('immediate');
usleep(int(1e6 * ($t_down + 0.6 * $ttl - time()))) if time() < $t_down + 0.6 * $ttl;
$root->start;
my $t_up = time();
my $restarted_at = q1($root, 'SELECT clock_timestamp()');
note sprintf 'root away %.1f s (60 %% of the region TTL: %.1f s)', $t_up - $t_down, 0.6 * $ttl;
for my $r (1, 2)
{
	ok($reg{$r}->poll_query_until('postgres',
			"SELECT held AND renewed_at > '$restarted_at'::timestamptz FROM idgen_region_status()", 't'),
		"reg$r: renews its region lease again at the restarted root");
}
usleep(int(1e6 * ($t_up + 3 - time()))) if time() < $t_up + 3;
my $away_to = time();
stop_draws();
my $t_end = time();

# --- what each issuer did -----------------------------------------------------------

# every ID of every issuer into one file; each issuer's events in issue
# order: [t0, t1, ok, count, first id, last id]
my $all = "$tmp/all-ids";
open(my $allf, '>', $all) or die "$all: $!";
for my $i (@issuers)
{
	my @ev;
	my $back = 0;
	my $prev;
	my $check = sub {
		for my $id (@_)
		{
			$back++ if defined $prev && !id_lt($prev, $id);
			$prev = $id;
			print $allf "$id\n";
		}
	};
	if ($i->{kind} eq 'node')
	{
		for my $row (split /\n/, q1($i->{node}, q{
			SELECT extract(epoch FROM t0) || ' ' || extract(epoch FROM at) || ' ' || coalesce(id::bigint::text, '-')
			FROM drawn ORDER BY n}))
		{
			my ($t0, $t1, $id) = split / /, $row;
			my $ok = $id ne '-';
			$check->($id) if $ok;
			push @ev, [ $t0, $t1, $ok, $ok ? 1 : 0, $ok ? ($id, $id) : (undef, undef) ];
		}
	}
	else
	{
		IdgenGwRun::draw_each($i->{draw}{file}, sub {
			my ($t0, $t1, $ok, @ids) = @_;
			$check->(@ids);
			push @ev, [ $t0, $t1, $ok, scalar @ids, $ok ? ($ids[0], $ids[-1]) : (undef, undef) ];
		});
	}
	$i->{events} = \@ev;
	$i->{backwards} = $back;
}
close $allf;

# issued IDs, refused calls, the first refusal's and the last issue's t0,
# the first and last ID, of the calls started in [from, to)
sub window
{
	my ($i, $from, $to) = @_;
	my %w = (issued => 0, refused => 0, calls => 0);
	for my $e (@{ $i->{events} })
	{
		next if $e->[0] < $from || $e->[0] >= $to;
		$w{calls}++;
		if ($e->[2])
		{
			$w{issued} += $e->[3];
			$w{first_id} //= $e->[4];
			$w{last_id} = $e->[5];
			$w{last_ok} = $e->[0];
			push @{ $w{edges} }, $e->[4], $e->[5];
		}
		else
		{
			$w{refused}++;
			$w{first_refusal} //= $e->[0];
		}
	}
	return \%w;
}

my @phases = (
	[ 'before the cut', $t_start, $cut_at ],
	[ 'the cut', $cut_at, $mend_at ],
	[ 'the mend until region 1 issues', $mend_at, $ready_at ],
	[ 'after the return', $ready_at, $switched_from ],
	[ 'past the switch', $switched_from, $away_from ],
	[ 'the root away', $away_from, $away_to ],
);
diag(sprintf 'the cut %.1f s; region 1 valid until %.1f s after it (%.0f %% of the TTL of %d s); '
	  . 'mended at %.1f s; issuing again %.1f s after the mend; root away %.1f s (%.0f %%)',
	$mend_at - $cut_at, $valid_at_cut - $cut_at, 100 * ($valid_at_cut - $cut_at) / $ttl, $ttl,
	$mend_at - $cut_at, $ready_at - $mend_at, $t_up - $t_down, 100 * ($t_up - $t_down) / $ttl);
for my $p (@phases)
{
	my ($label, $from, $to) = @$p;
	diag(sprintf '%-31s (%4.1f s): %s', $label, $to - $from, join('; ', map {
		my $w = window($_, $from, $to);
		"$_->{name} $w->{issued}/$w->{refused}" } @issuers));
}
diag('(issued IDs / refused calls; a gateway call asks for 100 IDs)');

# --- the cut ----------------------------------------------------------------------

for my $i (grep { $_->{region} == 1 } @issuers)
{
	my $w = window($i, $cut_at, $mend_at);
	my $name = $i->{name};
	my $first = defined $w->{first_refusal} ? $w->{first_refusal} - $cut_at : undef;
	diag(sprintf '%s: first refusal %s after the cut; last issue started %.1f s after it (%.0f %%)', $name,
		defined $first ? sprintf('%.1f s (%.0f %% of the TTL)', $first, 100 * $first / $ttl) : 'none',
		($w->{last_ok} // $cut_at) - $cut_at, 100 * (($w->{last_ok} // $cut_at) - $cut_at) / $ttl);
	cmp_ok($first // 0, '>=', 0.7 * $ttl,
		"$name: issued without an error until at least 70 % of the region TTL after the cut");
	cmp_ok($w->{last_ok} // 0, '<=', $valid_at_cut,
		"$name: no call started after the region lease's validity as it stood at the cut issued an ID");
	# an ID may run ahead of its issuer's clock (idgen.max_drift), and a
	# lease granted anew starts above the mark the last one left: what the
	# region's next grant starts above, the root's end plus the allowance,
	# is the bound (G2)
	my $ts = q1($root, "SELECT extract(epoch FROM (idgen_decode('" . ($w->{last_id} // 0) . "'::bigint::idgen)).ts)");
	diag(sprintf '%s: its last ID before the mend stamped %+.0f ms from the validity\'s end', $name,
		1000 * ($ts - $valid_at_cut));
	cmp_ok($ts, '<', $root_end_1_epoch,
		"$name: its last ID before the mend lies below the root's end of the region lease plus its allowance");
	cmp_ok(window($i, $cut_at + 1, $mend_at)->{issued}, '>', 0, "$name: issued during the cut");
}
diag(sprintf 'reg1 during the cut: %s; leased anew, with a new generation, by the nodes: %s',
	split /\|/, q1($reg{1}, qq{
	SELECT count(*) FILTER (WHERE action = 'worker_leased' AND detail LIKE '%owner gateway:gw1:%')
	         || ' workers leased by gw1' || '|' || count(*) FILTER (WHERE action = 'lease_acquired')
	FROM idgen.audit_log WHERE at >= to_timestamp($cut_at) AND at < to_timestamp($mend_at)}));
for my $i (grep { $_->{region} == 2 } @issuers)
{
	my $w = window($i, $t_start, $t_end);
	is($w->{refused}, 0, "$i->{name}: not one refusal throughout, the other region's cut included");
	cmp_ok(window($i, $cut_at, $mend_at)->{issued}, '>', 0, "$i->{name}: issued during the cut");
}

# --- the switch, the root away, and throughout ---------------------------------------

for my $i (@issuers)
{
	my $name = $i->{name};
	my $back = window($i, $mend_at, $t_end);
	my $before = window($i, $t_start, $mend_at);
	ok(defined $back->{first_id} && defined $before->{last_id} && id_lt($before->{last_id}, $back->{first_id}),
		"$name: after the mend above every ID it issued before");

	my $sw = window($i, $switched_from, $switched_to);
	is($sw->{refused}, 0, "$name: no refusal past the switch");
	my $edges = join(',', @{ $sw->{edges} // [] });
	is(q1($root, qq{SELECT count(*) > 0 AND bool_and((idgen_decode(x::idgen)).epoch = 2)
	                FROM unnest('{$edges}'::bigint[]) AS x}),
		't', "$name: issues in epoch 2 after the switch");

	my $away = window($i, $away_from, $away_to);
	ok($away->{refused} == 0 && $away->{issued} > 0,
		"$name: issued without one refusal while the root was away ($away->{issued} issued)");

	is($i->{backwards}, 0, "$name: its IDs ascend in its issue order throughout");
}

my $count = `wc -l < $all` + 0;
my $dups = `LC_ALL=C sort $all | uniq -d | wc -l` + 0;
cmp_ok($count, '>', 10000, "IDs drawn by the six issuers: $count");
is($dups, 0, 'no ID twice across all of them, nodes and gateways of both regions');
diag("IDs in all: $count, duplicates: $dups; test ran " . sprintf('%.0f s', time() - $^T));

IdgenGwRun::stop($_->{gw}) for grep { $_->{kind} eq 'gw' } @issuers;
$proxy->stop;
$_->stop for ((map { $_->{node} } grep { $_->{kind} eq 'node' } @issuers), values %reg, $root);
done_testing();
