# IdgenClockShim.pm - shift the wall clock under a whole test server
#
# Builds test/clockshim/clockshim.c into a throwaway directory and starts a
# PostgreSQL::Test::Cluster node with it preloaded, so that the postmaster
# and every process it forks, background workers included, read a wall
# clock shifted by the offset set with set_offset_ms().  CLOCK_MONOTONIC is
# not shifted: to the node it looks like a real step of the system clock.
package IdgenClockShim;

use strict;
use warnings;

use PostgreSQL::Test::Utils;

my $size = 64;

sub new
{
	my ($class) = @_;
	my $dir = PostgreSQL::Test::Utils::tempdir('clockshim');
	my $lib = "$dir/clockshim.so";
	my $src = 'test/clockshim/clockshim.c';
	system('cc', '-O2', '-shared', '-fPIC', '-Wall', '-o', $lib, $src, '-ldl') == 0
	  or die "cannot build $src";
	my $self = bless { lib => $lib, file => "$dir/offset" }, $class;
	$self->set_offset_ms(0);
	return $self;
}

# Rewritten in place: every process has the file mapped.
sub set_offset_ms
{
	my ($self, $ms) = @_;
	my $line = sprintf('%d %d', $ms, $ms);
	$line .= ' ' x ($size - 1 - length $line);
	$line .= "\n";
	my $fh;
	if (-e $self->{file})
	{
		open($fh, '+<', $self->{file}) or die "cannot open $self->{file}: $!";
	}
	else
	{
		open($fh, '>', $self->{file}) or die "cannot create $self->{file}: $!";
	}
	binmode $fh;
	syswrite($fh, $line) == $size or die "short write to $self->{file}";
	close $fh;
	$self->{offset_ms} = $ms;
	return;
}

sub offset_ms { return $_[0]->{offset_ms}; }

# Start (or restart) a node with the shim under every process.
sub start
{
	my ($self, $node, $how) = @_;
	local $ENV{LD_PRELOAD}            = $self->{lib};
	local $ENV{IDGEN_CLOCK_SHIM_FILE} = $self->{file};
	if (defined $how && $how eq 'restart')
	{
		$node->restart;
	}
	else
	{
		$node->start;
	}
	return;
}

1;
