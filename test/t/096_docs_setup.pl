# 096_docs_setup.pl - the fleet, gateway and monitoring set-up of docs/ runs as written
#
# The set-up an operator types is fenced in the pages by what it is:
#   ```sql-setup   SQL, run with psql on the registry as a superuser
#   ```hba-setup   lines for the registry's pg_hba.conf, above the others
#   ```sh-setup    shell, run as the OS user of a node, the gateway or the
#                  exporter
#   ```conf-setup  lines for a node's postgresql.conf
# This test runs the blocks of docs/fleets.md, docs/gateway.md and
# docs/monitoring.md as they stand, with only the substitutions the pages
# name: registry.example and 5432 (the registry's host and port) become
# 127.0.0.1 and the registry's port; the psql variables node_password,
# gateway_password and monitor_password and the shell variables
# NODE_PASSWORD, GATEWAY_PASSWORD and MONITOR_PASSWORD the passwords made
# here; ~ a home directory of each node, gateway and exporter (HOME).
#
#   1. The roles the pages create are no superusers, and the registry asks
#      them for their password (no password: refused), so the hba line is
#      the one in force, not the test cluster's trust.
#   2. Two nodes whose background workers lease as idgen_node reach state
#      active, hold different blocks, and issue distinct IDs; idgen.fleet
#      on the registry lists both.  Otherwise the node's reason and any
#      "permission denied" of its log are shown.
#   3. idgen-gateway leasing as idgen_gateway, with the --registry string
#      of docs/gateway.md, serves /v1/ids (and a keyed request, which goes
#      through idgen.gateway_remember); its IDs are distinct from the
#      nodes'.
#   4. idgen_monitor reads idgen.stats, idgen.fleet and idgen_status(), and
#      runs every query of monitoring/queries.yaml.
use strict;
use warnings;

use File::Path qw(make_path);
use IPC::Run ();
use lib 'test/perl';
use IdgenGateway;
use IdgenTest qw(:DEFAULT status);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $require = ($ENV{IDGEN_REQUIRE_CLIENTS} // '') eq '1';
my $tmp = PostgreSQL::Test::Utils::tempdir();

# --- reading the pages ------------------------------------------------------

# { 'sql-setup' => [ { line => n, text => '...' }, ... ], ... } of one page
sub setup_blocks
{
	my ($page) = @_;
	open(my $fh, '<', $page) or die "cannot read $page: $!";
	my @lines = <$fh>;
	close $fh;
	my (%blocks, $kind, $start, $text);
	for my $i (0 .. $#lines)
	{
		my $line = $lines[$i];
		if (!defined $kind)
		{
			if ($line =~ /^```((?:sql|hba|sh|conf)-setup)\s*$/)
			{
				($kind, $start, $text) = ($1, $i + 1, '');
			}
			next;
		}
		if ($line =~ /^```\s*$/)
		{
			push @{ $blocks{$kind} }, { line => $start, text => $text };
			undef $kind;
			next;
		}
		$text .= $line;
	}
	die "$page:$start: $kind block is not closed\n" if defined $kind;
	return \%blocks;
}

my %page = map { $_ => setup_blocks("docs/$_.md") } qw(fleets gateway monitoring);

# every page sets its role up with SQL, lets it in and gives it its password
for my $p (sort keys %page)
{
	for my $kind (qw(sql-setup hba-setup sh-setup))
	{
		ok(@{ $page{$p}{$kind} // [] }, "docs/$p.md has a $kind block");
	}
}
ok(@{ $page{fleets}{'conf-setup'} // [] }, 'docs/fleets.md has a conf-setup block');

my %password = (
	node    => 'node-' . join('', map { ('a' .. 'z')[ rand 26 ] } 1 .. 16),
	gateway => 'gw-' . join('', map { ('a' .. 'z')[ rand 26 ] } 1 .. 16),
	monitor => 'mon-' . join('', map { ('a' .. 'z')[ rand 26 ] } 1 .. 16));

# --- the registry -------------------------------------------------------------

my $registry = idgen_registry('registry');
ok(wait_extension($registry), 'registry: the background worker created the extension');
my $port = $registry->port;

sub substitute
{
	my ($text) = @_;
	$text =~ s/\bregistry\.example\b/127.0.0.1/g;
	$text =~ s/\b5432\b/$port/g;
	return $text;
}

# the sql-setup blocks of a page, in one psql session, as the superuser
sub run_sql_setup
{
	my ($p) = @_;
	my $script = join('', map { substitute($_->{text}) } @{ $page{$p}{'sql-setup'} });
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[
			$registry->installed_command('psql'), '-X', '-q',
			'-v', 'ON_ERROR_STOP=1',
			'-v', "node_password=$password{node}",
			'-v', "gateway_password=$password{gateway}",
			'-v', "monitor_password=$password{monitor}",
			'-d', $registry->connstr('postgres')
		],
		'<', \$script, '>', \$out, '2>', \$err);
	ok($ok, "docs/$p.md: the sql-setup blocks ran on the registry")
	  or diag("stdout:\n$out\nstderr:\n$err");
	return;
}

# a page's sh-setup blocks, in bash, with $home as HOME
sub run_sh_setup
{
	my ($p, $home, $what) = @_;
	make_path($home);
	my $script = "set -eu\n" . join('', map { substitute($_->{text}) } @{ $page{$p}{'sh-setup'} });
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ 'bash', '-c', $script ],
		'>', \$out, '2>', \$err,
		init => sub {
			$ENV{HOME} = $home;
			$ENV{NODE_PASSWORD} = $password{node};
			$ENV{GATEWAY_PASSWORD} = $password{gateway};
			$ENV{MONITOR_PASSWORD} = $password{monitor};
			delete $ENV{PGPASSFILE};
			delete $ENV{PGPASSWORD};
		});
	ok($ok, "docs/$p.md: the sh-setup blocks ran for $what") or diag("$out\n$err");
	my $mode = (stat("$home/.pgpass"))[2];
	ok(defined $mode && !($mode & 077), "$what: ~/.pgpass exists, for its owner only");
	return;
}

run_sql_setup($_) for qw(fleets gateway monitoring);

# the hba-setup lines first, where they win over the test cluster's trust
{
	my $hba = $registry->data_dir . '/pg_hba.conf';
	my $lines = join('', map { substitute($_->{text}) }
		  map { @{ $page{$_}{'hba-setup'} } } qw(fleets gateway monitoring));
	open(my $fh, '<', $hba) or die "$hba: $!";
	my $old = do { local $/; <$fh> };
	close $fh;
	open($fh, '>', $hba) or die "$hba: $!";
	print $fh $lines, $old;
	close $fh;
	$registry->safe_psql('postgres', 'SELECT pg_reload_conf()');
}

# --- 1. the roles ---------------------------------------------------------------

for my $role (qw(idgen_node idgen_gateway idgen_monitor))
{
	is($registry->safe_psql('postgres',
			"SELECT rolsuper OR rolcreaterole OR rolbypassrls FROM pg_roles WHERE rolname = '$role'"),
		'f', "$role exists and is no superuser");

	# without a password it is turned away: the page's hba line decides
	my ($out, $err) = ('', '');
	IPC::Run::run(
		[
			$registry->installed_command('psql'), '-X', '-w', '-tA',
			'-d', "host=127.0.0.1 port=$port dbname=postgres user=$role",
			'-c', 'SELECT 1'
		],
		'>', \$out, '2>', \$err,
		init => sub { $ENV{PGPASSFILE} = '/dev/null'; delete $ENV{PGPASSWORD}; });
	like($err, qr/password/, "$role: the registry asks for a password over TCP");
}

# --- 2. a fleet of two nodes ---------------------------------------------------

my $conf = join('', map { substitute($_->{text}) } @{ $page{fleets}{'conf-setup'} });
my @nodes;
for my $i (1 .. 2)
{
	my $home = "$tmp/node$i-home";
	run_sh_setup('fleets', $home, "node$i");
	my $node = PostgreSQL::Test::Cluster->new("node$i");
	$node->init;
	$node->append_conf('postgresql.conf', "listen_addresses = ''\n" . $conf);
	{
		# the server, and so its background worker's libpq, finds ~/.pgpass here
		local $ENV{HOME} = $home;
		local $ENV{PGPASSFILE};
		delete $ENV{PGPASSFILE};
		$node->start;
	}
	push @nodes, $node;
}

my @node_ids;
for my $i (1 .. 2)
{
	my $node = $nodes[ $i - 1 ];
	if (!ok(wait_state($node), "node$i: active, leasing as idgen_node"))
	{
		my $s = status($node, qw(state reason));
		diag("node$i: state $s->{state}, reason: " . ($s->{reason} // ''));
		my $log = slurp_file($node->logfile);
		diag("node$i log: $_") for grep { /permission denied|password|FATAL/ } split /\n/, $log;
	}
	my $s = status($node, qw(owner));
	like($s->{owner} // '', qr/^node:/, "node$i: holds a lease");
	my ($rc, $ids) = $node->psql('postgres', 'SELECT idgen_next_batch(1000)');
	push @node_ids, split /\n/, $ids if $rc == 0;
}
my %seen;
$seen{$_}++ for @node_ids;
is(scalar(keys %seen), 2000, 'the two nodes issued 2000 distinct IDs');
is($registry->safe_psql('postgres',
		"SELECT count(DISTINCT first_worker) FROM idgen.fleet WHERE remote AND live"),
	'2', 'idgen.fleet on the registry: two remote nodes, each on its own block');
is($registry->safe_psql('postgres',
		"SELECT count(*) >= 2 FROM idgen.audit_log WHERE actor = 'idgen_node' AND action = 'lease_acquired'"),
	't', 'the registry audited both leases as made by idgen_node');

# --- 3. the gateway -------------------------------------------------------------

SKIP:
{
	my ($gw_bin) = grep { -x "$_/idgen-gateway" } split /:/, $ENV{PATH} // '';
	if (!$gw_bin)
	{
		fail('IDGEN_REQUIRE_CLIENTS=1 but idgen-gateway is not on PATH') if $require;
		skip('idgen-gateway is not built (make gateway)', 5);
	}
	open(my $fh, '<', 'docs/gateway.md') or die "docs/gateway.md: $!";
	my $doc = do { local $/; <$fh> };
	close $fh;
	my ($conninfo) = $doc =~ /--registry\s+'(host=registry\.example[^']*)'/s;
	ok(defined $conninfo, 'docs/gateway.md gives the --registry string of the role');
	$conninfo = substitute(($conninfo // '') =~ s/\s+/ /gr);

	my $home = "$tmp/gateway-home";
	run_sh_setup('gateway', $home, 'the gateway');
	my $tokens = gw_tokens_file("$tmp/tokens", app => [ 'ids', 'app-secret' ]);
	my $gw = gw_start(name => 'docs', conn => $conninfo, tokens => $tokens, dir => $tmp,
		env => { HOME => $home });
	if (!ok(gw_wait_healthy($gw), 'gateway: healthy, leasing as idgen_gateway'))
	{
		diag("gateway log: $_") for split /\n/, slurp_file($gw->{log});
	}
	my @ids = gw_ids($gw, 500, secret => 'app-secret');
	is(scalar @ids, 500, 'gateway: /v1/ids serves 500 IDs');
	my ($status, $json) = gw_req($gw, 'GET', '/v1/ids?count=5', secret => 'app-secret',
		headers => { 'Idempotency-Key' => 'docs-setup' });
	is($status, 200, 'gateway: a keyed request is served (idgen.gateway_remember)')
	  or diag(explain($json));
	push @ids, @{ $json->{ids} } if $status == 200 && ref $json eq 'HASH';
	$seen{$_}++ for @ids;
	is(scalar(keys %seen), 2000 + scalar(@ids), 'gateway: its IDs are distinct from the nodes\'');
	gw_stop($gw);
}

# --- 4. monitoring --------------------------------------------------------------

{
	my $home = "$tmp/exporter-home";
	run_sh_setup('monitoring', $home, 'the exporter');

	# every query of monitoring/queries.yaml, and the views themselves
	open(my $fh, '<', 'monitoring/queries.yaml') or die "monitoring/queries.yaml: $!";
	my (@queries, $in);
	while (my $line = <$fh>)
	{
		if ($line =~ /^\s+query:\s*\|\s*$/) { push @queries, ''; $in = 1; next; }
		if ($in && $line =~ /^(\s{4,})\S/) { $queries[-1] .= $line; next; }
		$in = 0 unless $line =~ /^\s*$/;
	}
	close $fh;
	ok(@queries >= 4, 'monitoring/queries.yaml: ' . scalar(@queries) . ' queries read');
	my @checks = (
		[ 'SELECT count(*) > 0 FROM idgen.stats', 'idgen.stats' ],
		[ 'SELECT count(*) >= 3 FROM idgen.fleet', 'idgen.fleet (the registry\'s node and two more)' ],
		[ "SELECT state = 'active' FROM idgen_status()", 'idgen_status()' ],
		map { [ "SELECT count(*) >= 0 FROM (" . s/;?\s*$//r . ") AS q", "queries.yaml query " . substr($_ =~ s{^\s+}{}r =~ s{\s+}{ }gr, 0, 60) ] } @queries);
	for my $c (@checks)
	{
		my ($out, $err) = ('', '');
		IPC::Run::run(
			[
				$registry->installed_command('psql'), '-X', '-w', '-tA', '-v', 'ON_ERROR_STOP=1',
				'-d', "host=127.0.0.1 port=$port dbname=postgres user=idgen_monitor",
				'-c', $c->[0]
			],
			'>', \$out, '2>', \$err,
			init => sub { $ENV{HOME} = $home; delete $ENV{PGPASSFILE}; delete $ENV{PGPASSWORD}; });
		chomp $out;
		is($out, 't', "idgen_monitor reads $c->[1]") or diag($err);
	}
}

$_->stop for @nodes;
$registry->stop;

done_testing();
