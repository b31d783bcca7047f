# IdgenInitdbTemplate - a node's data directory copied from one initdb per
# TAP run instead of an initdb of its own, each copy with a system
# identifier of its own.
#
# initdb is the largest single cost of the TAP layer: 132 of them in one
# run of the parallel group spent about 100 s of CPU in their bootstrap
# backends, on a machine whose two cores the suite keeps busy.  PostgreSQL
# 17 copies a template itself when INITDB_TEMPLATE is set, but every copy
# then has the template's system identifier, and idgen tells nodes apart by
# it (node_sysid in the registry: a promoted standby's old blocks, clone
# detection), so two nodes of one fleet would look like one cloned data
# directory.  Here each copy gets a new identifier: in pg_control (its
# first field; the CRC-32C at the end of the struct recomputed) and in the
# long header of each WAL segment (xlp_sysid, which startup checks against
# pg_control).  If anything is not where it is expected, the node is made
# by initdb as before.
#
# with_template($code): runs $code (which calls $node->init) with initdb
# replaced by a copy of the template made with the same arguments.
# IDGEN_INITDB_TEMPLATE=0 turns it off.
package IdgenInitdbTemplate;

use strict;
use warnings;

use Fcntl qw(:flock SEEK_SET);
use File::Path qw(rmtree);
use PostgreSQL::Test::Utils;
use Time::HiRes ();

my @crc_table;

sub crc32c
{
	my ($data) = @_;
	if (!@crc_table)
	{
		for my $i (0 .. 255)
		{
			my $c = $i;
			$c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8;
			push @crc_table, $c;
		}
	}
	my $crc = 0xFFFFFFFF;
	$crc = $crc_table[ ($crc ^ $_) & 0xFF ] ^ ($crc >> 8) for unpack('C*', $data);
	return $crc ^ 0xFFFFFFFF;
}

# the offset of pg_control's CRC: the first aligned place whose 4 bytes
# are the CRC-32C of everything before them (ControlFileData ends with it)
sub control_crc_offset
{
	my ($bytes) = @_;
	for (my $off = 16; $off + 4 <= 1024 && $off + 4 <= length $bytes; $off += 4)
	{
		return $off if unpack('L<', substr($bytes, $off, 4)) == crc32c(substr($bytes, 0, $off));
	}
	return undef;
}

sub slurp_bin
{
	my ($path) = @_;
	open(my $fh, '<:raw', $path) or return undef;
	local $/;
	my $b = <$fh>;
	close $fh;
	return $b;
}

my $copies = 0;

# a new system identifier for the copy at $pgdata; false if the layout is
# not the expected one
sub new_identity
{
	my ($pgdata) = @_;
	my $control_path = "$pgdata/global/pg_control";
	my $control = slurp_bin($control_path) // return 0;
	my $crc_at = control_crc_offset($control) // return 0;
	my $old = substr($control, 0, 8);

	# as initdb makes one: the time in the high half, then microseconds
	# and this process, made unique per copy
	my ($s, $us) = Time::HiRes::gettimeofday();
	$copies++;
	my $sysid = (($s & 0xFFFFFFFF) << 32) | (($us & 0xFFFFF) << 12) | (($$ * 31 + $copies) & 0xFFF);
	my $new = pack('Q<', $sysid);
	return 0 if $new eq $old;

	my @segments = grep { -f $_ } glob("$pgdata/pg_wal/[0-9A-F]*");
	return 0 unless @segments;
	for my $seg (@segments)
	{
		open(my $fh, '+<:raw', $seg) or return 0;
		my $head;
		sysread($fh, $head, 32) == 32 or return 0;
		return 0 unless substr($head, 24, 8) eq $old;
		sysseek($fh, 24, SEEK_SET);
		syswrite($fh, $new) == 8 or return 0;
		close $fh;
	}
	substr($control, 0, 8) = $new;
	substr($control, $crc_at, 4) = pack('L<', crc32c(substr($control, 0, $crc_at)));
	open(my $out, '+<:raw', $control_path) or return 0;
	syswrite($out, $control) == length($control) or return 0;
	close $out;
	return 1;
}

# initdb's arguments with the data directory's taken out: the template's key
sub split_args
{
	my @args = @_;
	for my $i (0 .. $#args - 1)
	{
		if ($args[$i] eq '-D' || $args[$i] eq '--pgdata')
		{
			my $pgdata = $args[ $i + 1 ];
			splice(@args, $i, 2);
			return ($pgdata, @args);
		}
	}
	return;
}

# the template made with these arguments, made now by the first file of
# the run that needs it while the others wait on its lock
sub template_for
{
	my ($run, @args) = @_;
	my $key = unpack('H8', pack('N', crc32c(join("\0", @args))));
	my $dir = "$PostgreSQL::Test::Utils::tmp_check/initdb-template-$key";
	return $dir if -f "$dir/global/pg_control";
	open(my $lock, '>', "$dir.lock") or return undef;
	flock($lock, LOCK_EX) or return undef;
	if (!-f "$dir/global/pg_control")
	{
		my $tmp = "$dir.tmp.$$";
		rmtree($tmp);
		$run->('initdb', '-D', $tmp, @args);
		rename($tmp, $dir) or return undef;
	}
	close $lock;
	return $dir;
}

sub with_template
{
	my ($code) = @_;
	return $code->() if ($ENV{IDGEN_INITDB_TEMPLATE} // '1') eq '0';
	my $orig = \&PostgreSQL::Test::Utils::system_or_bail;
	no warnings 'redefine';
	local *PostgreSQL::Test::Utils::system_or_bail = sub {
		my ($prog, @rest) = @_;
		my ($pgdata, @args) = $prog eq 'initdb' ? split_args(@rest) : ();
		return $orig->(@_) unless defined $pgdata;
		my $template = template_for($orig, @args);
		if (defined $template && system('cp', '-RPp', $template, $pgdata) == 0 && new_identity($pgdata))
		{
			Test::More::note("initdb: copied $template, with a system identifier of its own");
			return;
		}
		rmtree($pgdata);
		return $orig->(@_);
	};
	return $code->();
}

1;
