# 090_pgtap.pl - run the pgTAP tests of test/pgtap/ against a live node
#
# A node with idgen preloaded, whose background worker creates the
# extension in the registry database (postgres) by itself: the pgTAP files
# test that extension as users meet it, catalog and privileges included.
# Each file is one transaction that rolls back, so they run one after the
# other in the same database.
#
# For every file: psql must finish without error, no test may fail, and the
# plan line 1..N must match the N test lines printed.  A failing test marked
# TODO in the file (a known bug, see the file) counts as run, not as a
# failure, as TAP has it.  Every pgTAP line is passed on with note(), so the
# file's own diagnostics show up in the TAP log.
#
# pgTAP is a separate package (postgresql-15-pgtap; `make test` installs
# it): without it in the server's sharedir the whole test is skipped.
use strict;
use warnings;

use FindBin;
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pgtap_dir = "$FindBin::RealBin/../pgtap";
my @files = sort glob("$pgtap_dir/*.sql");

my $node = idgen_node('pgtap');

if ($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_available_extensions WHERE name = 'pgtap'") ne '1')
{
	my $sharedir = $node->config_data('--sharedir');
	$node->stop;
	plan skip_all =>
	  "pgTAP is not installed in this server's sharedir ($sharedir/extension); install postgresql-15-pgtap";
}
BAIL_OUT("no pgTAP files found in $pgtap_dir") unless @files;

# the extension is the background worker's to create; the privileges file
# also issues IDs, so wait for the node's lease too
ok( $node->poll_query_until(
		'postgres', "SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'idgen')"),
	'the background worker created extension idgen in the registry database')
  or BAIL_OUT('extension idgen never appeared in database postgres');
ok( $node->poll_query_until(
		'postgres', "SELECT state = 'active' FROM idgen_status()"),
	'the node leased its workers and is active')
  or BAIL_OUT('the node never became active: '
	  . $node->safe_psql('postgres', 'SELECT state || \': \' || coalesce(reason, \'\') FROM idgen_status()'));

$node->safe_psql('postgres', 'CREATE EXTENSION pgtap');

foreach my $file (@files)
{
	my $name = $file;
	$name =~ s{.*/}{};

	my ($ret, $stdout, $stderr) = $node->psql('postgres', slurp_file($file));
	my @lines = split /\n/, $stdout;

	note("--- $name");
	note($_) foreach @lines;
	note("stderr: $_") foreach grep { $_ ne '' } split /\n/, $stderr;

	my ($planned) = map { /^1\.\.(\d+)$/ ? $1 : () } @lines;
	my @tests   = grep { /^(?:not )?ok \d+/ } @lines;
	my @todo    = grep { /^not ok \d+.*# TODO/ } @tests;
	my @failed  = grep { /^not ok \d+/ && !/# TODO/ } @tests;

	is($ret, 0, "$name: psql ran the file without error");
	ok(defined $planned, "$name: printed a plan");
	# on failure, pgTAP's own diagnostics ("not ok" and "#" lines) go to
	# the console too, not only to the log
	is(scalar @failed, 0, "$name: no test failed")
	  or diag(join("\n", grep { /^not ok / || /^#/ } @lines));
	is(scalar @tests, $planned // -1, "$name: ran as many tests as planned");
	note("$name: " . scalar(@todo) . " known failure(s) marked TODO") if @todo;
}

$node->stop;

done_testing();
