# Servers set up by following the replication recipe of doc/replication.md, as written.
#
# The recipe's blocks (test/t/ReadmeRecipe.pm) run through psql, as a user
# runs them; the configuration blocks are appended to postgresql.conf and put
# at the top of pg_hba.conf.  What is substituted: the host names and port of
# the README's servers (a, b, c, d at port 5432) by this machine's loopback
# address and each node's port, the example network 192.0.2.0/24 and
# listen_addresses '*' by the loopback address.  The nodes listen on TCP (not
# on unix sockets, as the other tests do) so that the recipe's pg_hba.conf
# line is what lets the subscriptions in.
#
#   use PostgreSQL::Test::Utils;
#   BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }   # before Cluster
#   use PostgreSQL::Test::Cluster;
#   use ReadmeMesh;
#   my %node = readme_mesh();               # a, b, c, replicating as the README says
#   my $d = readme_node('d');               # configured as in step 1
#   readme_run($d, 'postgres', 'replication/setup');
#   readme_run($node{a}, 'app', 'replication/join-to-d', 'd');
#   my $mesh = readme_counters(values %node);   # workloads and checks on page_views
package ReadmeMesh;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils ();
use Test::More;
use Time::HiRes ();
use ReadmeRecipe;
use CounterCrdtMesh;
use PsqlRetry ();
our @EXPORT =
  qw(readme_node readme_run readme_run_subst readme_mesh readme_poll readme_wait_subscriptions
  readme_counters readme_join_copies);

my %node_of;    # README host name => node, for the host substitutions
my $seq = 0;

# A new server named $name (a README host name), configured as step 1 of the
# recipe says and started.  Options: install_path => the PostgreSQL
# installation to run (default: the one in PATH), node_name => the node's
# own name (default $name; a server that takes $name's place needs another),
# before_start => code run with the node once it is configured, before it
# starts (a pg_upgrade into its data directory), from_backup => [$node,
# $backup]: the data directory of a base backup of another README server
# (its configuration is the other's, copied), restore => code that fills the
# node's empty data directory (a restore by a backup tool: configured then
# as a base backup's copy is, its own port and address appended).  The node
# takes $name's place in the host substitutions.
sub readme_node
{
	my ($name, %opts) = @_;
	die "the README servers need TCP: set use_unix_sockets = 0 before loading PostgreSQL::Test::Cluster"
	  if $PostgreSQL::Test::Utils::use_unix_sockets;
	my $node = PostgreSQL::Test::Cluster->new($opts{node_name} // $name,
		$opts{install_path} ? (install_path => $opts{install_path}) : ());
	if ($opts{from_backup} || $opts{restore})
	{
		if ($opts{from_backup})
		{
			$node->init_from_backup(@{ $opts{from_backup} });
		}
		else
		{
			$opts{restore}->($node);
			$node->append_conf('postgresql.conf',
				'port = ' . $node->port . "\nlisten_addresses = '" . $node->host . "'\n");
		}
		$opts{before_start}->($node) if $opts{before_start};
		$node->start;
		$node_of{$name} = $node;
		return $node;
	}
	$node->init;
	# init() without streaming set wal_level = minimal and max_wal_senders =
	# 0; back to PostgreSQL's defaults for the senders, and the recipe's block
	# sets wal_level.  For the tests, not the recipe: apply workers that
	# failed retry after 200 ms instead of 5 s and report their progress
	# every second instead of every 10 (wait_for_catchup reads it), no
	# autovacuum (the idleness checks measure WAL), and connections are
	# logged (the tests check how the subscriptions authenticated).
	$node->append_conf('postgresql.conf', qq(
max_wal_senders = 10
max_replication_slots = 10
wal_retrieve_retry_interval = 200ms
wal_receiver_status_interval = 1s
autovacuum = off
log_connections = on
));
	my $host = $node->host;
	$node->append_conf('postgresql.conf',
		recipe('replication/postgresql.conf',
			{ "listen_addresses = '*'" => "listen_addresses = '$host'" }));
	my $hba = $node->data_dir . '/pg_hba.conf';
	my $rest = PostgreSQL::Test::Utils::slurp_file($hba);
	open(my $fh, '>', $hba) or die "cannot write $hba: $!";
	print $fh recipe('replication/pg_hba.conf', { '192.0.2.0/24' => "$host/32" })
	  . "\n" . $rest;
	close($fh);
	$opts{before_start}->($node) if $opts{before_start};
	$node->start;
	$node_of{$name} = $node;
	return $node;
}

# Runs recipe $recipe on $node's database $db with psql, stopping at the
# first error, and returns what psql printed (unaligned, tuples only).  The
# hosts named in @hosts are substituted by their nodes' addresses; each must
# occur in the block.
sub readme_run
{
	my ($node, $db, $recipe, @hosts) = @_;
	my %subst = map {
		my $n = $node_of{$_} or die "no README server named $_";
		("host=$_ port=5432" => 'host=' . $n->host . ' port=' . $n->port)
	} @hosts;
	return readme_run_subst($node, $db, $recipe, \%subst);
}

# The same with the substitutions of %$subst (text => replacement, each of
# which must occur in the block), for servers that are not README hosts.
sub readme_run_subst
{
	my ($node, $db, $recipe, $subst) = @_;
	my $file = $node->basedir . '/recipe_' . $seq++ . '.sql';
	PostgreSQL::Test::Utils::append_to_file($file, recipe($recipe, $subst // {}));
	my ($rc, $out, $err) = $node->psql($db, undef,
		extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $file ]);
	ok($rc == 0, "recipe $recipe runs on " . $node->name)
	  or diag("psql exit code $rc: $err");
	die "recipe $recipe failed on " . $node->name . ": $err" if $rc != 0;
	return $out;
}

# Runs the check block $recipe on $node (database app) every 0.1 s until
# $done->(its output) holds, at most $timeout seconds; true when it held,
# else a diag of the last output and what was $expected.  A server that does
# not answer (it may be restarting: a Patroni member) is asked again.
sub readme_poll
{
	my ($node, $recipe, $done, $timeout, $expected) = @_;
	my $deadline = Time::HiRes::time() + $timeout;
	my ($got, $err);
	while (1)
	{
		($got, $err) = readme_run_quiet($node, $recipe);
		return 1 if defined $got && $done->($got);
		last if Time::HiRes::time() >= $deadline;
		Time::HiRes::usleep(100_000);
	}
	diag("$recipe on " . $node->name . ":\n"
		  . ($got // "no answer: $err") . "\nexpected:\n$expected");
	return 0;
}

# Checks of a server $node that has just run the block that subscribes it
# with copies (replication/join-subscribe-d or a block in its place): the
# block returned with every copy done, and $node's log shows its $want copies
# (table synchronization workers) one at a time, none started before the one
# before it finished.  Two checks.
sub readme_join_copies
{
	my ($node, $label, $want) = @_;
	is($node->safe_psql('app', q{SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'}),
		'0', "$label: every copy was done when the block returned");
	my (%start, @runs);
	foreach my $line (split /\n/, PostgreSQL::Test::Utils::slurp_file($node->logfile))
	{
		next
		  unless $line =~ /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) .*table synchronization worker for subscription "([^"]+)", table "([^"]+)" has (started|finished)/;
		my ($at, $copy) = ($1, "$2/$3");
		if ($4 eq 'started') { $start{$copy} = $at; next; }
		push @runs, [ delete $start{$copy}, $at, $copy ] if defined $start{$copy};
	}
	push @runs, [ $start{$_}, '9999', "$_ (unfinished)" ] foreach sort keys %start;
	my @overlaps;
	foreach my $i (0 .. $#runs)
	{
		foreach my $j ($i + 1 .. $#runs)
		{
			my ($x, $y) = @runs[ $i, $j ];
			# timestamps of one format compare as text
			push @overlaps, "$x->[2] ($x->[0] to $x->[1]) and $y->[2] ($y->[0] to $y->[1])"
			  if $x->[0] lt $y->[1] && $y->[0] lt $x->[1];
		}
	}
	ok(@runs == $want && !@overlaps,
		"$label: $want copies in the log of " . $node->name . ', one at a time')
	  or diag(join("\n", scalar(@runs) . ' copies:', @overlaps));
	return;
}

# Waits until the check block of the recipe shows, on $node, the subscriptions
# named in @$subs (and no others), each with one table and a running worker.
sub readme_wait_subscriptions
{
	my ($node, $subs) = @_;
	my $want = join("\n", map { "$_|1|t" } sort @$subs);
	return readme_poll($node, 'replication/check', sub { $_[0] eq $want }, 30, $want);
}

# The check block's output, without a test result for each poll; undef
# and the error when the server did not answer (psql's exit code 2: no
# connection, or a connection lost; or no exit at all: test/t/PsqlRetry.pm).
# An error of the block itself dies.
sub readme_run_quiet
{
	my ($node, $recipe) = @_;
	my ($rc, $out, $err) = PsqlRetry::psql_run($node, 'app', recipe($recipe), 60);
	return (undef, $err) if $rc == 2 || $rc == -1;
	die "recipe $recipe failed on " . $node->name . ": $err" if $rc != 0;
	return ($out, $err);
}

# Servers a, b and c, set up by steps 1 to 4 of the recipe in the order the
# README gives: steps 1 and 2 on every server, then step 3 on every server.
# %opts as for readme_node.
sub readme_mesh
{
	my (%opts) = @_;
	my %node = map { ($_ => readme_node($_, %opts)) } qw(a b c);
	foreach my $s (qw(a b c))
	{
		readme_run($node{$s}, 'postgres', 'replication/setup');
		readme_run($node{$s}, 'app', "replication/writer-id-$s");
	}
	foreach my $s (qw(a b c))
	{
		readme_run($node{$s}, 'app', "replication/subscribe-$s",
			grep { $_ ne $s } qw(a b c));
	}
	foreach my $s (qw(a b c))
	{
		ok(readme_wait_subscriptions($node{$s},
				[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c) ]),
			"step 4 on $s: both subscriptions have their table and a running worker");
	}
	return %node;
}

# The README's table, page_views (page text PRIMARY KEY, views counter_crdt)
# in database app, as a CounterCrdtMesh over @nodes: its workloads and its
# convergence checks.
sub readme_counters
{
	my @nodes = @_;
	return CounterCrdtMesh->new(
		nodes => \@nodes,
		db => 'app',
		table => {
			table => 'page_views',
			key => 'page',
			counter => 'views',
			text_keys => 1
		});
}

1;
