# 156_range_physical_restore.pl - a registry started from a physical copy
# grants no range twice
#
# pg_basebackup of a registry ("orig") after its first range; then orig
# leases two more ranges and is stopped for good (the machine is lost), and
# the copy is started: a restore of a physical backup, which no registry can
# tell from a plain restart.  On 0.6 the copy's next grant was orig's second
# range again, same numbers and generation.  Now:
#
#   - a new grant, keyed or not, is refused with IA006 until an operator
#     confirms a floor; a keyed retry of a range the copy has returns it;
#   - after idgen_confirm_range_floor() with the floor orig's holders
#     report, grants start there, above every generation orig handed out,
#     and no range of the copy overlaps any range of orig;
#   - a confirmation holds for this incarnation only: after the copy's own
#     restart grants wait again.
use strict;
use warnings;

use lib 'test/perl';
use IdgenTest qw(:DEFAULT sqlstate_of range_lease);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $ranges_sql = q{
SELECT string_agg(concat_ws('|', range_start, range_end), ',' ORDER BY range_start)
FROM idgen.range_lease};

my $orig = idgen_node('orig', init => { allows_streaming => 1 });
ok(wait_extension($orig), 'orig: the extension is there');
is(range_lease($orig, 'loader', 1000, 'k1'), '1|1000|1', 'orig: the first range, before the backup');
$orig->backup('before');
is(range_lease($orig, 'loader', 500, 'k2'), '1001|1500|2', 'orig: a keyed range after the backup');
is(range_lease($orig, 'api', 100), '1501|1600|3', 'orig: an unkeyed range after the backup');
my $orig_ranges = $orig->safe_psql('postgres', $ranges_sql);
$orig->stop;

my $copy = PostgreSQL::Test::Cluster->new('copy');
$copy->init_from_backup($orig, 'before');
$copy->start;
ok(wait_extension($copy), 'copy: started from the backup');
is($copy->safe_psql('postgres', $ranges_sql), '1|1000', 'copy: has the range of before the backup');

# 0.6 granted 1001-1500 at generation 2 here: orig's k2 again
my $state = sqlstate_of($copy, q{SELECT * FROM idgen_lease_range('other', 500)});
is($state, 'IA006', 'copy: a new range is refused with IA006')
  or diag('granted instead: ' . $copy->safe_psql('postgres', q{
SELECT concat_ws('|', range_start, range_end, generation) FROM idgen.range_lease
WHERE owner = 'other'}));
is(sqlstate_of($copy, q{SELECT * FROM idgen_lease_range('loader', 500, 'k2')}), 'IA006',
	'copy: a keyed retry of a range the copy lacks is refused');
is(range_lease($copy, 'loader', 1000, 'k1'), '1|1000|1', 'copy: a keyed retry of a range it has returns it');
like($copy->safe_psql('postgres', 'SELECT waiting_for FROM idgen.range_grants'),
	qr/new incarnation/, 'copy: idgen.range_grants says it is a new incarnation');

is($copy->safe_psql('postgres', q{SELECT idgen_confirm_range_floor('1601')}), '1601',
	'copy: an operator confirms the floor orig\'s holders report');
my ($s, $e, $g) = split /\|/, range_lease($copy, 'other', 500);
is("$s|$e", '1601|2100', 'copy: the next range starts at the floor');
cmp_ok($g, '>', 3, 'copy: at a generation above every one orig handed out');
my ($s2, $e2, $g2) = split /\|/, range_lease($copy, 'loader', 500, 'k2');
cmp_ok($s2, '>', 2100, 'copy: the lost key k2 is granted anew above the floor');
cmp_ok($g2, '>', $g, 'copy: at a higher generation');
my @overlap;
for my $a (split /,/, $copy->safe_psql('postgres', $ranges_sql))
{
	my ($as, $ae) = split /\|/, $a;
	next if $as == 1;
	for my $b (split /,/, $orig_ranges)
	{
		my ($bs, $be) = split /\|/, $b;
		push @overlap, "$a/$b" if $as <= $be && $bs <= $ae;
	}
}
is("@overlap", '', 'copy: no range granted after the restore overlaps one of orig');

# the confirmation was for that incarnation
$copy->restart;
ok(wait_extension($copy), 'copy: restarted');
is(sqlstate_of($copy, q{SELECT * FROM idgen_lease_range('other', 10)}), 'IA006',
	'copy: after its own restart grants wait for a confirmation again');
is(range_lease($copy, 'loader', 500, 'k2'), "$s2|$e2|$g2", 'copy: a keyed retry still returns its range');

$copy->stop;
done_testing();
