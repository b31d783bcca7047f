# IdgenProxy - a TCP relay on loopback that a test cuts and mends
#
#   my $proxy = IdgenProxy->new($target_port);
#   ... connect to 127.0.0.1:$proxy->port instead of $target_port ...
#   $proxy->cut;    # a partition: relayed connections are dropped, new
#                   # ones are accepted and never answered (a caller's
#                   # timeouts, not a refusal, end its wait)
#   $proxy->mend;   # relays again; connections held meanwhile are closed
#   $proxy->stop;   # ends the relay by the pid it recorded
#
# The relay is a child process of the test; signals switch it (USR1 cut,
# USR2 mend, TERM stop), and a file beside it says which state it is in
# once it has switched, which cut() and mend() wait for.
package IdgenProxy;

use strict;
use warnings;

use IO::Select;
use IO::Socket::INET;
use POSIX ();
use Time::HiRes qw(usleep);

sub new
{
	my ($class, $target_port, $state_dir) = @_;
	my $listen = IO::Socket::INET->new(
		LocalAddr => '127.0.0.1',
		LocalPort => 0,
		Listen => 64,
		ReuseAddr => 1) or die "proxy: cannot listen: $!";
	my $port = $listen->sockport;
	my $state = ($state_dir // $ENV{TESTDATADIR} // '/tmp') . "/proxy-$$-$port";
	my $pid = fork;
	die "proxy: cannot fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		# a die here must not return into the test: its END blocks (the
		# clusters', Patroni's) would stop the test's servers from the child
		eval { relay($listen, $target_port, $state); };
		print STDERR "proxy: $@" if $@;
		POSIX::_exit($@ ? 1 : 0);
	}
	close $listen;
	my $self = bless { pid => $pid, port => $port, state => $state }, $class;
	$self->wait_state('open');
	return $self;
}

sub port { return $_[0]{port}; }

sub wait_state
{
	my ($self, $want) = @_;
	for (1 .. 500)
	{
		if (open my $fh, '<', $self->{state})
		{
			my $s = <$fh> // '';
			close $fh;
			return 1 if $s eq $want;
		}
		usleep(10_000);
	}
	die "proxy: did not reach state $want";
}

sub cut
{
	my ($self) = @_;
	kill 'USR1', $self->{pid};
	$self->wait_state('cut');
}

sub mend
{
	my ($self) = @_;
	kill 'USR2', $self->{pid};
	$self->wait_state('open');
}

sub stop
{
	my ($self) = @_;
	return unless $self->{pid};
	kill 'TERM', $self->{pid};
	waitpid($self->{pid}, 0);
	unlink $self->{state};
	$self->{pid} = 0;
}

sub DESTROY { $_[0]->stop; }

# the child: relays until TERM
sub relay
{
	my ($listen, $target_port, $state) = @_;
	my $want_cut = 0;
	my $is_cut = -1;
	my %peer;		# fileno -> the other end's handle
	my %fh;			# fileno -> handle
	my @held;		# accepted while cut, never answered
	local $SIG{USR1} = sub { $want_cut = 1; };
	local $SIG{USR2} = sub { $want_cut = 0; };
	local $SIG{TERM} = sub { POSIX::_exit(0); };
	my $sel = IO::Select->new($listen);
	my $drop = sub {
		my ($h) = @_;
		my $o = $peer{ fileno $h };
		for my $x (grep { defined } $h, $o)
		{
			$sel->remove($x);
			delete $peer{ fileno $x };
			delete $fh{ fileno $x };
			close $x;
		}
	};
	for (;;)
	{
		if ($want_cut != $is_cut)
		{
			if ($want_cut)
			{
				# a copy: $drop deletes from %fh, both ends at once, and
				# iterating the hash's own values met a freed one ("Use of
				# freed value in iteration", fatal) with a relayed
				# connection open at the cut
				for my $h (values %{ { %fh } })
				{
					$drop->($h) if defined fileno($h) && $fh{ fileno $h };
				}
			}
			else
			{
				close $_ for @held;
				@held = ();
			}
			$is_cut = $want_cut;
			open my $out, '>', "$state.tmp" or die;
			print $out ($is_cut ? 'cut' : 'open');
			close $out;
			rename "$state.tmp", $state;
		}
		for my $h ($sel->can_read(0.05))
		{
			if ($h == $listen)
			{
				my $c = $listen->accept or next;
				if ($is_cut)
				{
					push @held, $c;
					next;
				}
				my $u = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $target_port);
				if (!$u)
				{
					close $c;
					next;
				}
				$peer{ fileno $c } = $u;
				$peer{ fileno $u } = $c;
				$fh{ fileno $c } = $c;
				$fh{ fileno $u } = $u;
				$sel->add($c, $u);
				next;
			}
			next unless $peer{ fileno $h };
			my $n = sysread($h, my $buf, 65536);
			if (!$n)
			{
				$drop->($h);
				next;
			}
			my $to = $peer{ fileno $h };
			my $off = 0;
			while ($off < $n)
			{
				my $w = syswrite($to, $buf, $n - $off, $off);
				if (!defined $w)
				{
					$drop->($h);
					last;
				}
				$off += $w;
			}
		}
	}
}

1;
