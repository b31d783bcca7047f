# IdgenGwRun.pm - run idgen-gateway processes in a TAP test
#
# For the tests of the gateway's lease client (160-164): a real
# idgen-gateway on a free loopback port (started and stopped by
# IdgenGateway.pm), asked over HTTP with one keep-alive client, its
# metrics and its log; and a draw in the background (draw_start), for the
# drills that run gateways beside nodes (191, 192).
package IdgenGwRun;

use strict;
use warnings;

use Digest::SHA ();
use HTTP::Tiny;
use JSON::PP;
use IdgenGateway ();
use POSIX ();
use Time::HiRes ();

my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 30);

# a fresh HTTP client (after a fork)
sub reset_http { $http = HTTP::Tiny->new(keep_alive => 1, timeout => 30); return; }

our $secret = 'app-secret-1';
# /healthz tells the reason and the owner to an admin token only
our $admin_secret = 'ops-secret-1';

# the tokens file: "app" with ids and decode, "ops" with admin
sub tokens_file
{
	my ($dir) = @_;
	my $file = "$dir/tokens";
	open(my $fh, '>', $file) or die "cannot write $file: $!";
	print $fh "app:ids,decode:" . Digest::SHA::sha256_hex($secret) . "\n";
	print $fh "ops:admin:" . Digest::SHA::sha256_hex($admin_secret) . "\n";
	close $fh;
	return $file;
}

# start(name => N, conn => CONNINFO, dir => TMP, tokens => FILE,
#       ttl => '3s', args => [...], env => {...}): IdgenGateway's, which
# records the pid and kills what is left at exit
sub start { return IdgenGateway::gw_start(@_); }

sub stop { return IdgenGateway::gw_stop(@_); }

# (status, decoded JSON or raw text, headers)
sub req
{
	my ($gw, $method, $path, %o) = @_;
	my %h = %{ $o{headers} // {} };
	$h{Authorization} = "Bearer $secret" if $o{token};
	$h{Authorization} = "Bearer $admin_secret" if $o{admin};
	my $r = $http->request($method, "$gw->{base}$path", { headers => \%h });
	my $json = eval { decode_json($r->{content}) };
	return ($r->{status}, $json // $r->{content}, $r->{headers});
}

sub healthy
{
	my ($gw) = @_;
	my ($s) = req($gw, 'GET', '/healthz');
	return $s == 200;
}

# count IDs, or () when refused
sub ids
{
	my ($gw, $count) = @_;
	my ($s, $j) = req($gw, 'GET', "/v1/ids?count=$count", token => 1);
	return $s == 200 && ref $j eq 'HASH' ? @{ $j->{ids} } : ();
}

# the same without decoding JSON (JSON::PP is slow for big answers)
sub ids_fast
{
	my ($gw, $count) = @_;
	my $r = $http->request('GET', "$gw->{base}/v1/ids?count=$count",
		{ headers => { Authorization => "Bearer $secret" } });
	return () unless $r->{status} == 200 && $r->{content} =~ /"ids"\s*:\s*\[([^\]]*)\]/;
	return $1 =~ /(\d+)/g;
}

# a and b draw at once, $per IDs a request, for $secs seconds (two holders
# of one worker then meet in the same milliseconds): b's IDs go to $file
# from a process of its own, a's are returned
sub draw_at_once
{
	my ($a, $b, $file, $per, $secs) = @_;
	my $kid = fork();
	die "fork: $!" unless defined $kid;
	if ($kid == 0)
	{
		reset_http();
		my @got;
		my $end = Time::HiRes::time() + $secs;
		while (Time::HiRes::time() < $end) { push @got, ids_fast($b, $per); }
		open(my $f, '>', $file) or POSIX::_exit(2);
		print $f join("\n", @got), "\n";
		close $f;
		# no END blocks in the child: they belong to the test
		POSIX::_exit(0);
	}
	my @a_got;
	my $end = Time::HiRes::time() + $secs;
	while (Time::HiRes::time() < $end)
	{
		my @batch = ids_fast($a, $per);
		push @a_got, @batch;
		Time::HiRes::usleep(10_000) unless @batch;
	}
	waitpid($kid, 0);
	return @a_got;
}

# a background draw: a process of its own asks $gw for count IDs (100) a
# request, pause_ms (10) apart, 50 ms after a refusal, until draw_stop()
# or the test's end, and writes a line per request to $file: "t0 t1
# status ids", t0 when it was sent and t1 when it was answered (epoch
# seconds), status the HTTP status (599 when none came; 1 for a 200
# without its IDs), ids comma-separated (none when refused).  Returns
# the handle for draw_stop().
sub draw_start
{
	my ($gw, $file, %o) = @_;
	my $count = $o{count} // 100;
	my $pause = 1000 * ($o{pause_ms} // 10);
	my $stop = "$file.stop";
	unlink $stop;
	my $parent = $$;
	my $kid = fork();
	die "fork: $!" unless defined $kid;
	if ($kid == 0)
	{
		my $h = HTTP::Tiny->new(keep_alive => 1, timeout => 30);
		open(my $f, '>', $file) or POSIX::_exit(2);
		while (!-e $stop && getppid() == $parent)
		{
			my $t0 = Time::HiRes::time();
			my $r = $h->request('GET', "$gw->{base}/v1/ids?count=$count",
				{ headers => { Authorization => "Bearer $secret" } });
			my $t1 = Time::HiRes::time();
			my $status = $r->{status};
			my @got;
			if ($status == 200)
			{
				@got = $r->{content} =~ /"ids"\s*:\s*\[([^\]]*)\]/ ? ($1 =~ /(\d+)/g) : ();
				$status = 1 unless @got == $count;
			}
			printf $f "%.6f %.6f %d %s\n", $t0, $t1, $status, join(',', @got);
			Time::HiRes::usleep($status == 200 ? $pause : 50_000);
		}
		close $f;
		# no END blocks in the child: they belong to the test
		POSIX::_exit(0);
	}
	return { pid => $kid, file => $file, stop => $stop };
}

sub draw_stop
{
	my ($d) = @_;
	open(my $f, '>', $d->{stop}) or die "cannot write $d->{stop}: $!";
	close $f;
	waitpid($d->{pid}, 0);
	unlink $d->{stop};
	return;
}

# $each->(t0, t1, ok, ids...) for every request of a draw's file, in order
sub draw_each
{
	my ($file, $each) = @_;
	open(my $f, '<', $file) or die "cannot read $file: $!";
	while (my $line = <$f>)
	{
		chomp $line;
		my ($t0, $t1, $status, $ids) = split / /, $line;
		$each->($t0, $t1, $status == 200, $status == 200 ? split(/,/, $ids // '') : ());
	}
	close $f;
	return;
}

# a < b for IDs as decimal strings (63 bits: past a double's precision)
sub id_lt
{
	my ($a, $b) = @_;
	return length($a) < length($b) || (length($a) == length($b) && $a lt $b);
}

# a metric's value (labels included in the name), -1 when absent
sub metric
{
	my ($gw, $name) = @_;
	my ($s, $text) = req($gw, 'GET', '/metrics');
	return $text =~ /^\Q$name\E (\d+)$/m ? $1 : -1;
}

sub log_text
{
	my ($gw) = @_;
	open(my $fh, '<', $gw->{log}) or return '';
	local $/;
	my $t = <$fh>;
	close $fh;
	return $t;
}

1;
