# IdgenGwRun.pm - run idgen-gateway processes in a TAP test
#
# For the tests of the gateway's lease client (160-164): a real
# idgen-gateway on a free loopback port (started and stopped by
# IdgenGateway.pm), asked over HTTP with one keep-alive client, its
# metrics and its log.
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
