# IdgenTest.pm - the node set-up the TAP tests share
#
#   use lib 'test/perl';
#   use IdgenTest;
#
#   my $node = idgen_node('name', conf => "idgen.lease_ttl = '4s'\n");
#   ok(wait_extension($node), '...');
#   ok(wait_state($node, 'active'), '...');
#
#   my $registry = idgen_registry('registry');
#   my $fleet1   = idgen_fleet_node('node1', $registry, conf => ...);
#
# idgen_node() makes a PostgreSQL::Test::Cluster with idgen preloaded and
# starts it; what a test adds to postgresql.conf comes after the common lines,
# so a test can still override them.  The wait helpers return true or false
# and leave the assertion, and its name, to the test.
package IdgenTest;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Time::HiRes qw(usleep);

# status and wait_for only on request: several tests have their own.
our @EXPORT = qw(idgen_node idgen_registry idgen_fleet_node registry_conn
  wait_extension wait_state);
our @EXPORT_OK = qw(status wait_for);

# A node with idgen in shared_preload_libraries.
#   conf  => text appended to postgresql.conf after the common lines
#   init  => hash ref of options for $node->init (allows_streaming, extra)
#   tcp   => listen on 127.0.0.1 instead of the Unix socket only
#   start => 0 to leave the node stopped (to start it under a shim)
sub idgen_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%{ $opt{init} // {} });
	my $listen = $opt{tcp} ? '127.0.0.1' : '';
	$node->append_conf('postgresql.conf',
		    "shared_preload_libraries = 'idgen'\n"
		  . "listen_addresses = '$listen'\n"
		  . ($opt{conf} // ''));
	$node->start if $opt{start} // 1;
	return $node;
}

# The connection string fleet nodes use to reach a registry on loopback.
sub registry_conn
{
	my ($registry) = @_;
	return 'host=127.0.0.1 port=' . $registry->port . ' dbname=postgres';
}

# A registry: an idgen node other nodes reach over TCP.  Same options as
# idgen_node(); tcp is always on.
sub idgen_registry
{
	my ($name, %opt) = @_;
	return idgen_node($name, %opt, tcp => 1);
}

# A fleet node leasing from $registry (a node, or a connection string).
# Same options as idgen_node(); tcp is always on.
sub idgen_fleet_node
{
	my ($name, $registry, %opt) = @_;
	my $conn = ref $registry ? registry_conn($registry) : $registry;
	return idgen_node($name, %opt, tcp => 1,
		conf => "idgen.registry = '$conn'\n" . ($opt{conf} // ''));
}

# True once the background worker has created the extension in $db (the
# registry database, postgres unless a test moved it).
sub wait_extension
{
	my ($node, $db) = @_;
	return $node->poll_query_until($db // 'postgres',
		"SELECT count(*) FROM pg_extension WHERE extname = 'idgen'", '1');
}

# True once idgen_status() reports $state (active unless given).
sub wait_state
{
	my ($node, $state, $db) = @_;
	return $node->poll_query_until($db // 'postgres',
		'SELECT state FROM idgen_status()', $state // 'active');
}

# idgen_status()'s @cols as a hash ref.
sub status
{
	my ($node, @cols) = @_;
	my @vals = split /\|/,
	  $node->safe_psql('postgres',
		'SELECT ' . join(', ', @cols) . ' FROM idgen_status()');
	my %s;
	@s{@cols} = @vals;
	return \%s;
}

# True once $cond->() returns true, checked every 100 ms for as long as
# poll_query_until would wait.
sub wait_for
{
	my ($cond) = @_;
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return 1 if $cond->();
		usleep(100_000);
	}
	return 0;
}

1;
