# 095_docs.pl - every psql example of docs/*.md runs and prints what the page says
#
# An example is a fenced block opened by ```psql-example.  Lines starting
# with "=> " (or "-> " for a continued statement) are input, as typed at the
# psql prompt; the lines after them, up to the next input line, are what psql
# prints for that input.  In expected output "[...]" stands for any text
# within one line (a timing, a generated number); everything else must match
# exactly, except trailing spaces and trailing empty lines, which Markdown
# editors drop.
#
# The examples run on one fresh node preloading idgen, as docs/README.md
# says: each page in one psql session (psql -X -v SHOW_CONTEXT=never, as
# role postgres, starting in database postgres, the registry), pages in
# alphabetical order, blocks in page order.  Every group of input lines is
# followed by an \echo of a marker line, so the output splits back into the
# groups; a mismatch is reported with the page and the line of its input.
#
# Pages that are references rather than topics (bad-input.md, fuzzing.md,
# regions.md)
# may have no examples; every other page must have one.
use strict;
use warnings;

use File::Basename qw(basename);
use IPC::Run ();
use lib 'test/perl';
use IdgenTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# (regions.md describes the region model checked before its SQL exists)
my %no_examples_needed =
  map { $_ => 1 } qw(bad-input.md fuzzing.md regions.md);

# the tests run from a copy of the source tree, docs/ included
my $docs_dir = 'docs';
my @pages = sort glob("$docs_dir/*.md");
BAIL_OUT("no pages found in $docs_dir/") unless @pages;

# --- reading the examples ---------------------------------------------------

# [ { line => first input line, input => [...], expected => [...] }, ... ]
sub read_groups
{
	my ($page) = @_;
	open(my $fh, '<', $page) or die "cannot read $page: $!";
	my @lines = <$fh>;
	close $fh;
	chomp @lines;

	my (@groups, $in_block, $block_line);
	for my $i (0 .. $#lines)
	{
		my $line = $lines[$i];
		my $no   = $i + 1;
		if (!$in_block)
		{
			if ($line =~ /^```psql-example\s*$/)
			{
				$in_block   = 1;
				$block_line = $no;
			}
			next;
		}
		if ($line =~ /^```\s*$/)
		{
			$in_block = 0;
			next;
		}
		if ($line =~ /^(=>|->)(?: (.*))?$/)
		{
			my $text = $2 // '';
			# every "=> " starts a group: one statement (or meta-command)
			if ($1 eq '=>')
			{
				push @groups,
				  { line => $no, block => $block_line, input => [], expected => [] };
			}
			elsif (!@groups || $groups[-1]{block} != $block_line)
			{
				die "$page:$no: a block must start with an input line (\"=> \")\n";
			}
			elsif (@{ $groups[-1]{expected} })
			{
				die "$page:$no: \"-> \" continues a statement, but output came before it\n";
			}
			push @{ $groups[-1]{input} }, $text;
		}
		else
		{
			die "$page:$no: output before any input line\n"
			  if !@groups || $groups[-1]{block} != $block_line;
			push @{ $groups[-1]{expected} }, $line;
		}
	}
	die "$page:$block_line: psql-example block is not closed\n" if $in_block;
	return @groups;
}

# trailing spaces and trailing empty lines do not count
sub normalize
{
	my @l = map { (my $x = $_) =~ s/\s+$//; $x } @_;
	pop @l while @l && $l[-1] eq '';
	return @l;
}

sub line_matches
{
	my ($want, $got) = @_;
	my $re = join('.*?', map { quotemeta } split(/\[\.\.\.\]/, $want, -1));
	return $got =~ /^$re$/s;
}

sub show
{
	my ($prefix, @lines) = @_;
	return join('', map { "$prefix$_\n" } (@lines ? @lines : ('(nothing)')));
}

# --- the node ---------------------------------------------------------------

my $node = idgen_node('docs', conf => q{
timezone = 'UTC'
});

wait_extension($node)
  or BAIL_OUT('the background worker did not create the extension');
wait_state($node)
  or BAIL_OUT('idgen did not become active');

# the pages connect as postgres, whatever the OS user running the tests
if ($node->safe_psql('postgres', 'SELECT current_user') ne 'postgres')
{
	$node->safe_psql('postgres', 'CREATE ROLE postgres SUPERUSER LOGIN');
}

my $psql = $node->installed_command('psql');
my $marker = '@@docs-example-group@@';

# --- running the pages ----------------------------------------------------------

for my $page (@pages)
{
	my $name = basename($page);
	my @groups = read_groups($page);

	if (!@groups)
	{
		ok($no_examples_needed{$name}, "$page has a psql-example block")
		  or diag("$page: a topic page needs at least one ```psql-example block");
		next;
	}

	my $script = '';
	for my $g (@groups)
	{
		$script .= join("\n", @{ $g->{input} }) . "\n\\echo $marker\n";
	}

	my $out = '';
	my $ok = IPC::Run::run(
		[
			$psql, '-X', '-U', 'postgres',
			'-v', 'SHOW_CONTEXT=never',
			'-d', $node->connstr('postgres')
		],
		'<', \$script,
		'>&', \$out,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	ok($ok, "$page: psql ran every example") or diag($out);

	my @chunks = split /^\Q$marker\E\n/m, $out, -1;
	my $trailer = pop @chunks;    # after the last marker: nothing
	is(scalar @chunks, scalar @groups, "$page: every example group ran")
	  or diag($out);
	is($trailer // '', '', "$page: nothing printed after the last example");

	for my $i (0 .. $#groups)
	{
		my $g = $groups[$i];
		my @want = normalize(@{ $g->{expected} });
		my @got = normalize(split /\n/, $chunks[$i] // '', -1);
		my $same = @want == @got;
		for my $j (0 .. $#want)
		{
			last unless $same;
			$same = line_matches($want[$j], $got[$j]);
		}
		ok($same, "$page:$g->{line}: $g->{input}[0]")
		  or diag("$page:$g->{line}: the output differs from the page\n"
			  . "input:\n" . show('    ', @{ $g->{input} })
			  . "expected:\n" . show('    ', @want)
			  . "got:\n" . show('    ', @got));
	}
}

$node->stop;

done_testing();
