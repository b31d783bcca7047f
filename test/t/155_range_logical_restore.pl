# 155_range_logical_restore.pl - a registry restored with pg_restore grants
# no range twice
#
# A source registry ("src") leases a range, is dumped (pg_dump -Fc), then
# leases two more ranges: those two are the grants the dump lacks.  The
# dump is restored into a fresh node ("dst"), as after the loss of the
# source.  On 0.6 the restored registry started at max(range_end) + 1 of
# the rows it had and drew its generation from the restored counter: its
# next grant was the source's second range again, same numbers, same
# generation.  Now:
#
#   - a new grant is refused with IA006 (message, DETAIL and HINT say why
#     and what to do), and idgen.range_grants says grants wait;
#   - a keyed retry of a range the dump has returns that range (nothing new
#     is granted); a keyed retry of a range the dump lacks is refused;
#   - idgen_confirm_range_floor() is for admins only (42501 for PUBLIC);
#     after an operator confirms the floor the source's holders report,
#     grants start at it, with generations above every one the source
#     handed out, a lost key is granted anew above the floor, and no range
#     of dst overlaps any range of src; the confirmation is audited;
#   - the same with a dump that lacks idgen.range_floor's row (as a dump
#     of 0.6 does): the restored range rows alone stop grants.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT range_lease);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# the SQLSTATE a statement fails with, or 'ok'; in list context also
# what it printed (the error with its DETAIL and HINT)
sub refusal
{
	my ($node, $sql, %opts) = @_;
	my ($stdout, $stderr) = ('', '');
	my $ret = $node->psql(
		'postgres', "\\set VERBOSITY verbose\n$sql",
		stdout       => \$stdout,
		stderr       => \$stderr,
		extra_params => (defined $opts{user} ? [ '-U', $opts{user} ] : []));
	my ($state, $text) = ('ok', $stdout);
	($state, $text) = (($stderr =~ /ERROR:\s+([0-9A-Z]{5}):/)[0] // "no SQLSTATE (rc $ret)", $stderr)
	  if $ret != 0;
	return wantarray ? ($state, $text) : $state;
}

my $ranges_sql = q{
SELECT string_agg(concat_ws('|', range_start, range_end, generation), ',' ORDER BY range_start)
FROM idgen.range_lease};

# every range of one list that overlaps a range of the other
sub overlaps
{
	my ($mine, $theirs) = @_;
	my @o;
	for my $a (split /,/, $mine)
	{
		my ($as, $ae) = split /\|/, $a;
		for my $b (split /,/, $theirs)
		{
			my ($bs, $be) = split /\|/, $b;
			push @o, "$a/$b" if $as <= $be && $bs <= $ae;
		}
	}
	return join(' ', @o);
}

my $src = idgen_node('src');
ok(wait_extension($src), 'src: the extension is there');
is(range_lease($src, 'loader', 1000, 'k1'), '1|1000|1', 'src: the first range, before the dump');
$src->safe_psql('postgres', q{SELECT idgen_range_consumed('1', '400')});

my $dump = $src->basedir . '/registry.dump';
$src->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $src->connstr('postgres') ],
	'pg_dump -Fc of the source registry');
my $dump_06 = $src->basedir . '/registry-no-floor.dump';
$src->command_ok(
	[ 'pg_dump', '-Fc', '--exclude-table-data=idgen.range_floor', '-f', $dump_06,
	  '-d', $src->connstr('postgres') ],
	'pg_dump -Fc of the source registry without idgen.range_floor\'s rows');

# the grants the dumps lack
is(range_lease($src, 'loader', 500, 'k2'), '1001|1500|2', 'src: a keyed range after the dump');
is(range_lease($src, 'api', 100), '1501|1600|3', 'src: an unkeyed range after the dump');
my $src_ranges = $src->safe_psql('postgres', $ranges_sql);
my $src_max_gen = $src->safe_psql('postgres', 'SELECT max(generation) FROM idgen.range_lease');

for my $case ([ 'dst', $dump, 'a dump' ], [ 'dst06', $dump_06, 'a dump without the floor row' ])
{
	my ($name, $file, $what) = @$case;
	my $dst = idgen_node($name);
	ok(wait_extension($dst), "$name: the extension is there");
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'pg_restore', '-d', $dst->connstr('postgres'), $file ],
		'>', \$out, '2>', \$err);
	ok($ok, "$name: pg_restore of $what exits with 0");
	is($err, '', "$name: pg_restore says nothing on stderr");
	is($dst->safe_psql('postgres', $ranges_sql), '1|1000|1', "$name: the range of before the dump came along");

	# the grant 0.6 made here: 1001-1500 at generation 2, the source's k2 again
	my ($state, $text) = refusal($dst, q{SELECT * FROM idgen_lease_range('other', 500)});
	is($state, 'IA006', "$name: a new range is refused with IA006 until an operator confirms a floor")
	  or diag("granted instead: $text");
	note("the refusal: $text");
	like($text, qr/no range is granted until an operator confirms the range floor/,
		"$name: the refusal says what it waits for");
	like($text, qr/DETAIL:\s+.*restored/s, "$name: its DETAIL says the ranges were restored");
	like($text, qr/HINT:\s+.*idgen_confirm_range_floor/s, "$name: its HINT names idgen_confirm_range_floor()");
	is($dst->safe_psql('postgres', q{SELECT granting, waiting_for IS NOT NULL FROM idgen.range_grants}),
		'f|t', "$name: idgen.range_grants says grants wait for a confirmation");

	is(range_lease($dst, 'loader', 1000, 'k1'), '1|1000|1',
		"$name: a keyed retry of a range the dump has returns it");
	($state, $text) = refusal($dst, q{SELECT * FROM idgen_lease_range('loader', 500, 'k2')});
	is($state, 'IA006', "$name: a keyed retry of a range the dump lacks is refused too")
	  or diag("granted instead: $text");
	is(refusal($dst, q{SELECT idgen_range_consumed('1', '700')}), 'ok',
		"$name: progress is reported on a restored range");

	$dst->safe_psql('postgres', 'CREATE ROLE plain LOGIN');
	is(refusal($dst, q{SELECT idgen_confirm_range_floor('1601')}, user => 'plain'), '42501',
		"$name: a PUBLIC role may not confirm a floor (42501)");

	# the operator's floor: the highest range end the source's holders report, plus one
	is($dst->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1601')}), '1601',
		"$name: the confirmation returns where the next range starts");
	is($dst->safe_psql('postgres', q{SELECT granting, waiting_for IS NULL FROM idgen.range_grants}),
		't|t', "$name: idgen.range_grants says grants go on");
	my ($s, $e, $g) = split /\|/, range_lease($dst, 'other', 500);
	is("$s|$e", '1601|2100', "$name: the next range starts at the floor");
	cmp_ok($g, '>', $src_max_gen, "$name: at a generation above every one the source handed out");
	my ($s2, undef, $g2) = split /\|/, range_lease($dst, 'loader', 500, 'k2');
	cmp_ok($s2, '>', 2100, "$name: the lost key k2 is granted anew, above the floor");
	cmp_ok($g2, '>', $g, "$name: at a higher generation");
	is(range_lease($dst, 'loader', 500, 'k2'), "$s2|" . ($s2 + 499) . "|$g2",
		"$name: and its retry returns that range");
	is(overlaps($dst->safe_psql('postgres', q{
SELECT string_agg(concat_ws('|', range_start, range_end), ',') FROM idgen.range_lease
WHERE range_start > '1000'}), $src_ranges), '',
		"$name: no range granted after the restore overlaps a range of the source");
	is( $dst->safe_psql(
			'postgres',
			q{SELECT count(*) FROM idgen.audit_log WHERE action = 'range_floor_confirmed' AND detail LIKE '%1601%'}),
		'1', "$name: the confirmation is in the audit log");
	$dst->stop;
}

$src->stop;
done_testing();
