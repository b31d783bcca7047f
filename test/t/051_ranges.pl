# 051_ranges.pl - numeric range leases never meet each other or generated IDs
#
# idgen_lease_range() carves blocks for outside generators from the IDs of
# times before 2026-01-01, which no node generates; idgen.range_space_end()
# is the first ID above that space.  One node leases ranges and generates
# 64-bit IDs in three phases - first start, after a clean restart, after an
# immediate stop - and the test asserts:
#
#   - request keys: the same (owner, key) returns the same range and
#     generation again, also after each restart; another owner with the same
#     key gets a different range; the same key with another size is refused
#     (22023); leases without a key are always new;
#   - every range ends below idgen.range_space_end(), every generated ID is
#     at or above it, no generated ID lies in any range, and the ranges are
#     pairwise disjoint, including ranges leased concurrently (pgbench) and
#     the last possible range, which ends right below range_space_end();
#   - after a restart a new lease waits for an operator's confirmation of
#     the floor (IA006; a restart cannot be told from a restore), keyed
#     retries do not; confirmed, a lease continues after the last range;
#   - generations increase with every new range, across restarts too;
#   - the EXCLUDE constraint of idgen.range_lease refuses a manual insert
#     overlapping a leased range (23P01);
#   - idgen_decode() of a range ID has epoch 0 and NULL ts/region/worker/seq,
#     idgen_timestamp() is NULL; range_space_end() itself decodes to
#     2026-01-01 with epoch 1;
#   - idgen_range_consumed() records progress (never backwards) and refuses
#     a value outside the range or an unknown range start (22023);
#   - lease functions are refused outside the registry database (55000) and
#     to a role without privileges (42501), which may still generate IDs;
#   - a node whose clock reads a time before 2026-01-01 (libfaketime)
#     refuses to generate at all (IA005) instead of issuing a range-space ID.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT wait_active sqlstate_of faketime_lib);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = idgen_node('ranges', conf => q{
idgen.lease_ttl = '10min'
});

# the SQLSTATE a script fails with in $db, or 'ok'; on $node unless node => another
sub sqlstate_in
{
	my ($db, $sql, %opts) = @_;
	return sqlstate_of(delete $opts{node} // $node, $sql, %opts, db => $db);
}

sub sql_quote
{
	my ($v) = @_;
	return 'NULL' unless defined $v;
	$v =~ s/'/''/g;
	return "'$v'";
}

# lease a range and record it in got; returns { start, end, gen }
sub lease
{
	my ($phase, $owner, $count, $key) = @_;
	my ($o, $k) = (sql_quote($owner), sql_quote($key));
	my $row = $node->safe_psql(
		'postgres', qq{
INSERT INTO got (phase, owner, request_key, count, range_start, range_end, generation)
SELECT '$phase', $o, $k, $count, r.range_start, r.range_end, r.generation
FROM idgen_lease_range($o, $count, $k) AS r
RETURNING range_start, range_end, generation;
});
	my ($s, $e, $g) = split /\|/, $row;
	return { start => $s, end => $e, gen => $g };
}

sub same_range
{
	my ($a, $b) = @_;
	return $a->{start} eq $b->{start} && $a->{end} eq $b->{end} && $a->{gen} eq $b->{gen};
}

# IDs of this phase: per row, as a batch, and as a keyed batch twice
sub generate
{
	my ($phase) = @_;
	$node->safe_psql(
		'postgres', qq{
INSERT INTO ids (id, phase) SELECT idgen_next(), '$phase' FROM generate_series(1, 2000);
INSERT INTO ids (id, phase) SELECT b, '$phase' FROM idgen_next_batch(500) AS b;
INSERT INTO ids (id, phase) SELECT b, '$phase' FROM idgen_next_batch(300, 'req-$phase') AS b;
});
	is( $node->safe_psql(
			'postgres', qq{
SELECT array_agg(b ORDER BY b) = (SELECT array_agg(i.id ORDER BY i.id) FROM ids AS i
                                  WHERE i.phase = '$phase' AND i.n > (SELECT max(n) - 300 FROM ids))
FROM idgen_next_batch(300, 'req-$phase') AS b}),
		't',
		"$phase: idgen_next_batch(count, request_key) returns the same IDs again");
}

wait_active($node, 'first start');

my $space_end = $node->safe_psql('postgres', 'SELECT idgen.range_space_end()');
like($space_end, qr/^\d+$/, "idgen.range_space_end() is $space_end");
is( $node->safe_psql(
		'postgres', q{
SELECT idgen_timestamp(idgen.range_space_end()) = '2026-01-01 00:00:00+00',
       d.ts = '2026-01-01 00:00:00+00', d.epoch, d.region, d.worker, d.seq
FROM idgen_decode(idgen.range_space_end()) AS d}),
	't|t|1|0|0|0',
	'range_space_end() is the first ID of 2026-01-01, epoch 1');
is( $node->safe_psql(
		'postgres', q{
SELECT d.ts IS NULL, d.region IS NULL, d.worker IS NULL, d.seq IS NULL, d.epoch,
       idgen_timestamp((idgen.range_space_end()::bigint - 1)::idgen) IS NULL
FROM idgen_decode((idgen.range_space_end()::bigint - 1)::idgen) AS d}),
	't|t|t|t|0|t',
	'the ID right below range_space_end() decodes as a range ID (epoch 0, no time)');

$node->safe_psql(
	'postgres', q{
SET client_min_messages = warning;
CREATE TABLE ids (id idgen NOT NULL, phase text NOT NULL, n bigserial PRIMARY KEY);
CREATE TABLE got (
    phase text NOT NULL, owner text NOT NULL, request_key text, count bigint NOT NULL,
    range_start idgen NOT NULL, range_end idgen NOT NULL, generation bigint NOT NULL,
    n bigserial PRIMARY KEY);
CREATE ROLE app LOGIN;
GRANT INSERT, SELECT ON ids TO app;
GRANT USAGE ON SEQUENCE ids_n_seq TO app;
});

# --- first start -------------------------------------------------------------

my $a1 = lease('first', 'svc-a', 1000);
my $a2 = lease('first', 'svc-a', 1000);
ok(!same_range($a1, $a2), 'a lease without a key is a new range every time');
cmp_ok($a2->{start}, '>', $a1->{end}, 'the second range starts after the first');
is($a1->{end} - $a1->{start} + 1, 1000, 'a range has the size asked for');

my $k1  = lease('first', 'svc-a', 5000, 'order-1');
my $k1b = lease('first', 'svc-a', 5000, 'order-1');
ok(same_range($k1, $k1b),
	'the same owner and key return the same range and generation');
my $b1 = lease('first', 'svc-b', 5000, 'order-1');
ok(!same_range($k1, $b1), 'another owner with the same key gets a different range');
my $one = lease('first', 'svc-b', 1);
is($one->{start}, $one->{end}, 'a range of one ID starts and ends at the same ID');
my $big = lease('first', 'svc-c', 10_000_000, 'big');

is( sqlstate_in(
		'postgres', "SELECT * FROM idgen_lease_range('svc-a', 4999, 'order-1')"),
	'22023',
	'the same key with another size is refused (22023)');
is(sqlstate_in('postgres', "SELECT * FROM idgen_lease_range('svc-a', 0)"),
	'22023', 'a range of 0 IDs is refused (22023)');
is(sqlstate_in('postgres', "SELECT * FROM idgen_lease_range('', 10)"),
	'22023', 'a lease without an owner is refused (22023)');
is( sqlstate_in(
		'postgres', 'SELECT * FROM idgen_lease_range(\'svc-a\', idgen.range_space_end()::bigint)'),
	'54000',
	'a range larger than the range space is refused (54000)');

generate('first');

# leases, keyed leases and IDs all at once, from four clients
$node->pgbench(
	'--no-vacuum --client=4 --jobs=4 --transactions=60',
	0,
	[
		qr{number of transactions actually processed: 240/240},
		qr{number of failed transactions: 0}
	],
	[qr{^$}],
	'pgbench: 4 clients lease ranges and generate IDs concurrently',
	{
		'051_lease@2' => q{
\set sz random(1, 1000)
SELECT * FROM idgen_lease_range('pgb-' || :client_id, :sz);
},
		'051_keyed@2' => q{
\set k random(1, 20)
SELECT * FROM idgen_lease_range('pgb-keyed', 100, 'k' || :k);
},
		'051_ids@1' => q{
INSERT INTO ids (id, phase) SELECT idgen_next(), 'concurrent' FROM generate_series(1, 200);
INSERT INTO ids (id, phase) SELECT b, 'concurrent' FROM idgen_next_batch(200) AS b;
},
	});
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) <= 20 AND count(*) > 0
       AND bool_and(range_end::bigint - range_start::bigint = 99)
       AND count(DISTINCT request_key) = count(*)
FROM idgen.range_lease WHERE owner = 'pgb-keyed'}),
	't',
	'concurrent leases with the same key made one range per key');

# progress reports
$node->safe_psql('postgres',
	"SELECT idgen_range_consumed('$a1->{start}', '@{[$a1->{start} + 99]}')");
is( $node->safe_psql(
		'postgres', "SELECT consumed, updated_at IS NOT NULL FROM idgen.range_lease WHERE range_start = '$a1->{start}'"),
	($a1->{start} + 99) . '|t',
	'idgen_range_consumed records how far the range is used');
$node->safe_psql('postgres',
	"SELECT idgen_range_consumed('$a1->{start}', '@{[$a1->{start} + 10]}')");
is( $node->safe_psql(
		'postgres', "SELECT consumed FROM idgen.range_lease WHERE range_start = '$a1->{start}'"),
	$a1->{start} + 99,
	'a lower report does not move the progress back');
$node->safe_psql('postgres',
	"SELECT idgen_range_consumed('$a1->{start}', '$a1->{end}')");
is( $node->safe_psql(
		'postgres', "SELECT consumed FROM idgen.range_lease WHERE range_start = '$a1->{start}'"),
	$a1->{end},
	'the whole range can be reported used');
is( sqlstate_in(
		'postgres', "SELECT idgen_range_consumed('$a1->{start}', '@{[$a1->{end} + 1]}')"),
	'22023',
	'a value after the range is refused (22023)');
is( sqlstate_in(
		'postgres', "SELECT idgen_range_consumed('$a2->{start}', '$a1->{end}')"),
	'22023',
	'a value before the range (in another range) is refused (22023)');
is( sqlstate_in(
		'postgres', "SELECT idgen_range_consumed('@{[$a1->{start} + 1]}', '@{[$a1->{start} + 5]}')"),
	'22023',
	'a range start that no lease has is refused (22023)');
is( sqlstate_in(
		'postgres', "SELECT idgen_range_consumed(idgen_next(), idgen_next())"),
	'22023',
	'generated IDs are no range (22023)');
is( $node->safe_psql(
		'postgres', "SELECT consumed FROM idgen.range_lease WHERE range_start = '$a1->{start}'"),
	$a1->{end},
	'the refused reports changed nothing');

# the catalog's own guard
is( sqlstate_in(
		'postgres', qq{
INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
VALUES ('@{[$k1->{start} + 10]}', '@{[$k1->{end} + 10]}', 'intruder', 0)}),
	'23P01',
	'the EXCLUDE constraint refuses a manual range overlapping a leased one (23P01)');
is( sqlstate_in(
		'postgres', qq{
INSERT INTO idgen.range_lease (range_start, range_end, owner, generation)
VALUES ('$k1->{end}', '$k1->{end}', 'intruder', 0)}),
	'23P01',
	'the EXCLUDE constraint refuses a one-ID range on the last ID of another range (23P01)');

# decoding range IDs
is( $node->safe_psql(
		'postgres', q{
SELECT count(*)
FROM idgen.range_lease AS l,
     LATERAL (VALUES (l.range_start), (l.range_end)) AS v(id),
     LATERAL idgen_decode(v.id) AS d
WHERE d.epoch IS DISTINCT FROM 0 OR d.ts IS NOT NULL OR d.region IS NOT NULL
   OR d.worker IS NOT NULL OR d.seq IS NOT NULL OR idgen_timestamp(v.id) IS NOT NULL}),
	'0',
	'idgen_decode() of every range start and end: epoch 0, NULL ts/region/worker/seq');

# not the registry database
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', 'CREATE EXTENSION idgen');
is(sqlstate_in('other', "SELECT * FROM idgen_lease_range('svc-x', 10)"),
	'55000', 'idgen_lease_range is refused outside the registry database (55000)');
is( sqlstate_in(
		'other', "SELECT idgen_range_consumed('$a1->{start}', '$a1->{start}')"),
	'55000',
	'idgen_range_consumed is refused outside the registry database (55000)');

# a role with PUBLIC's privileges only
is( sqlstate_in(
		'postgres', "SELECT * FROM idgen_lease_range('svc-x', 10)", user => 'app'),
	'42501', 'a PUBLIC role may not lease ranges (42501)');
is( sqlstate_in(
		'postgres', "SELECT * FROM idgen_lease_range('svc-x', 10, 'k')", user => 'app'),
	'42501', 'a PUBLIC role may not lease ranges with a key (42501)');
is( sqlstate_in(
		'postgres', "SELECT idgen_range_consumed('$a2->{start}', '$a2->{start}')",
		user => 'app'),
	'42501', 'a PUBLIC role may not report range progress (42501)');
is( sqlstate_in(
		'postgres',
		"INSERT INTO idgen.range_lease (range_start, range_end, owner, generation) VALUES ('@{[$space_end - 10]}', '@{[$space_end - 5]}', 'app', 0)",
		user => 'app'),
	'42501', 'a PUBLIC role may not write idgen.range_lease (42501)');
is( sqlstate_in(
		'postgres', "SELECT nextval('idgen.range_generation')", user => 'app'),
	'42501', 'a PUBLIC role may not draw range generations (42501)');
is( sqlstate_in(
		'postgres', "INSERT INTO ids (id, phase) SELECT idgen_next(), 'app' FROM generate_series(1, 10)",
		user => 'app'),
	'ok', 'a PUBLIC role may still generate IDs');

my ($first_max_end, $first_max_gen) = split /\|/,
  $node->safe_psql('postgres',
	'SELECT max(range_end), max(generation) FROM idgen.range_lease');

# --- a clean restart, then an immediate stop --------------------------------------

my @after = (
	[ 'restart',   sub { $node->restart } ],
	[ 'immediate', sub { $node->stop('immediate'); $node->start } ]);
for my $step (@after)
{
	my ($phase, $do) = @$step;
	my ($max_end, $max_gen) = split /\|/,
	  $node->safe_psql('postgres',
		'SELECT max(range_end), max(generation) FROM idgen.range_lease');

	$do->();
	wait_active($node, "after $phase");

	# keyed retries of ranges the table has need no confirmation
	ok(same_range(lease($phase, 'svc-a', 5000, 'order-1'), $k1),
		"after $phase: svc-a's key order-1 still returns the same range");
	ok(same_range(lease($phase, 'svc-b', 5000, 'order-1'), $b1),
		"after $phase: svc-b's key order-1 still returns the same range");
	ok(same_range(lease($phase, 'svc-c', 10_000_000, 'big'), $big),
		"after $phase: svc-c's key big still returns the same range");
	# a restart cannot be told from a restore: new ranges wait for an
	# operator (157_range_restart.pl), who knows this one lost nothing
	is(sqlstate_in('postgres', "SELECT * FROM idgen_lease_range('svc-a', 1000)"),
		'IA006', "after $phase: a new lease waits for a confirmed floor (IA006)");
	is($node->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1')}),
		$max_end + 1, "after $phase: the operator confirms the table's own top");

	my $new = lease($phase, 'svc-a', 1000);
	cmp_ok($new->{start}, '>', $max_end,
		"after $phase: a new lease continues after the last range");
	cmp_ok($new->{gen}, '>', $max_gen,
		"after $phase: a new lease has a higher generation than any before");
	lease($phase, "svc-$phase", 777, 'new-key');
	generate($phase);
}

# The last possible range ends right below range_space_end(); nothing fits
# after it.  Done last: it uses up the range space.
my $rest = $node->safe_psql('postgres',
	'SELECT idgen.range_space_end()::bigint - 1 - max(range_end::bigint) FROM idgen.range_lease');
my $last = lease('last', 'svc-last', $rest);
is($last->{end}, $space_end - 1,
	'the last possible range ends right below range_space_end()');
is(sqlstate_in('postgres', "SELECT * FROM idgen_lease_range('svc-last', 1)"),
	'54000', 'then the range space is full (54000)');
generate('last');

# --- the whole history -------------------------------------------------------------

my ($n_ids, $n_low) = split /\|/,
  $node->safe_psql('postgres',
	'SELECT count(*), count(*) FILTER (WHERE id < idgen.range_space_end()) FROM ids');
cmp_ok($n_ids, '>=', 4 * 2800 + 10, "$n_ids IDs generated in all phases");
is($n_low, '0', 'every generated ID is at or above range_space_end()');
is( $node->safe_psql(
		'postgres',
		'SELECT count(*) FROM idgen.range_lease WHERE range_end >= idgen.range_space_end() OR range_start > range_end'),
	'0',
	'every range ends below range_space_end()');
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM idgen.range_lease AS a JOIN idgen.range_lease AS b
  ON a.range_start < b.range_start AND b.range_start <= a.range_end}),
	'0',
	'the leased ranges are pairwise disjoint');
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM ids JOIN idgen.range_lease AS l
  ON ids.id >= l.range_start AND ids.id <= l.range_end}),
	'0',
	'no generated ID lies in a leased range');
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM got AS g
WHERE NOT EXISTS (SELECT FROM idgen.range_lease AS l
                  WHERE l.range_start = g.range_start AND l.range_end = g.range_end
                    AND l.generation = g.generation AND l.owner = g.owner
                    AND l.request_key IS NOT DISTINCT FROM g.request_key)
   OR g.range_end::bigint - g.range_start::bigint + 1 <> g.count}),
	'0',
	'every lease returned is the row in idgen.range_lease, of the size asked for');
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM (SELECT generation, lag(generation) OVER (ORDER BY range_start) AS prev
                      FROM idgen.range_lease) AS s
WHERE prev IS NOT NULL AND generation <= prev}),
	'0',
	'range generations increase with every new range, across restarts');
is( $node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'),
	't', 'no generated ID repeats');
is( $node->safe_psql(
		'postgres',
		"SELECT count(*) FROM idgen.audit_log WHERE action = 'range_leased'"),
	$node->safe_psql('postgres', 'SELECT count(*) FROM idgen.range_lease'),
	'one range_leased audit row per range');

ok(!$node->log_contains('server process .* terminated by signal'),
	'no backend crashed');

$node->stop;

# --- a clock before 2026-01-01 --------------------------------------------------
#
# A fresh node whose processes read a clock in December 2025 (libfaketime,
# preloaded into pg_ctl and the postmaster).  The background worker may read
# the real clock (see 020_clock_faketime.pl), the backends read the faked
# one, and generating must be refused, never answered from the range space.

my $faketime_lib = faketime_lib();

SKIP:
{
	skip 'libfaketime is not installed', 6
	  unless defined $faketime_lib;

	my $fake_dir  = PostgreSQL::Test::Utils::tempdir('faketime');
	my $fake_file = "$fake_dir/faketime.rc";
	# 2025-12-01 00:00:00 UTC, as an offset from now
	my $offset = time() - 1764547200;
	open(my $fh, '>', $fake_file) or die "cannot write $fake_file: $!";
	print $fh "-$offset\n";
	close $fh or die "cannot close $fake_file: $!";

	my $old = idgen_node('ranges_old_clock', start => 0);
	{
		local $ENV{LD_PRELOAD}                   = $faketime_lib;
		local $ENV{FAKETIME_TIMESTAMP_FILE}      = $fake_file;
		local $ENV{FAKETIME_NO_CACHE}            = '1';
		local $ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
		$old->start;
	}
	ok( wait_extension($old),
		'old clock: the background worker created the extension');
	# the first lease, so a refusal below cannot be the wait for it
	ok(wait_state($old),
		'old clock: the node leased its workers');
	is($old->safe_psql('postgres', q{SELECT clock_timestamp() < '2026-01-01'}),
		't', 'old clock: the backends read a time before 2026-01-01');

	my @refused;
	for my $call ('SELECT idgen_next()', 'SELECT idgen_next128()',
		'SELECT idgen_next_batch(10)', 'SELECT idgen_next128_batch(10)')
	{
		my ($stdout, $stderr) = ('', '');
		$old->psql(
			'postgres', "\\set VERBOSITY verbose\n$call",
			stdout => \$stdout,
			stderr => \$stderr);
		push @refused, $call
		  if $stdout eq ''
		  && $stderr =~ /ERROR:\s+IA005: system clock is before 2026-01-01/;
	}
	is(scalar @refused, 4,
		'old clock: idgen_next, idgen_next128 and both batches refuse with IA005 "system clock is before 2026-01-01"'
	) or diag('refused: ' . join(', ', @refused));
	is($old->safe_psql('postgres', 'SELECT ids_issued FROM idgen_status()'),
		'0', 'old clock: not one ID was issued');
	is( $old->safe_psql(
			'postgres', "SELECT count(*) FROM idgen_lease_range('svc-old', 10) WHERE range_end < idgen.range_space_end()"),
		'1',
		'old clock: ranges are still leased');

	$old->stop;
}

done_testing();
