# A subscription's origin, on every version the suite runs on.
#
# Three servers in the full mesh, and one row that reaches the third server
# only through the second: o3's subscription to o1 is disabled while o1
# creates the row, o2 applies it and then increments it, and o3 applies
# o2's stream; then o3's subscription to o1 is enabled again.
#
#  - As the README recipe says (origin left at its default, any): o2 sends
#    on what it applied, so o3 gets the row before o2's increment of it, and
#    all three end with every increment.  counter_crdt_health() is quiet.
#  - With origin = none (PostgreSQL 16 and later): o2 sends only its own
#    UPDATE, which o3 skips as it lacks the row, and o3 ends without o2's
#    increment while o1 and o2 have it.  counter_crdt_health() reports
#    subscription_origin_none on every server of the three, and not on a pair
#    of servers that subscribe to each other with origin = none (where no row
#    can be missing).  With the hint's ALTER SUBSCRIPTION ... SET (origin =
#    any) on every server, health is quiet again, and o2's next write of the
#    row brings its whole shard to o3.
#  - PostgreSQL 15 does not know origin: CREATE SUBSCRIPTION refuses it.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtMesh;

my @names = qw(o1 o2 o3);
my @nodes;
foreach my $name (@names)
{
	my $node = CounterCrdtMesh::mesh_node($name);
	# t: the three-server mesh; pair: only o1 and o2, to each other.
	$node->safe_psql('postgres', q{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
		CREATE TABLE pair (k int PRIMARY KEY, c counter_crdt);
		SELECT counter_crdt_enable_replica_merge('t');
		SELECT counter_crdt_enable_replica_merge('pair');
		CREATE PUBLICATION pub FOR TABLE t WITH (publish = 'insert, update, delete');
		CREATE PUBLICATION pair_pub FOR TABLE pair WITH (publish = 'insert, update, delete');
	});
	push @nodes, $node;
}
my $version = $nodes[0]->safe_psql('postgres', 'SHOW server_version_num');
my $mesh = CounterCrdtMesh->new(nodes => \@nodes);

# Creates the subscriptions of table t (every server to the two others), and
# those of table pair (o1 and o2 to each other), with $with.
sub subscribe
{
	my ($with) = @_;
	for my $i (0 .. 2)
	{
		for my $j (0 .. 2)
		{
			next if $i == $j;
			my $connstr = $nodes[$j]->connstr . ' dbname=postgres';
			$nodes[$i]->safe_psql('postgres',
				"CREATE SUBSCRIPTION s_$names[$i]_$names[$j] "
				  . "CONNECTION '$connstr' PUBLICATION pub WITH ($with)");
			$nodes[$i]->safe_psql('postgres',
				"CREATE SUBSCRIPTION p_$names[$i]_$names[$j] "
				  . "CONNECTION '$connstr' PUBLICATION pair_pub WITH ($with)")
			  if $i < 2 && $j < 2;
		}
	}
	foreach my $i (0 .. 2)
	{
		my $n = $i < 2 ? 3 : 2;
		$nodes[$i]->poll_query_until('postgres',
			"SELECT count(*) = $n FROM pg_stat_subscription WHERE pid IS NOT NULL AND relid IS NULL")
		  or die "apply workers did not start on $names[$i]";
	}
	return;
}

sub unsubscribe
{
	foreach my $node (@nodes)
	{
		foreach my $s (split /\n/, $node->safe_psql('postgres', 'SELECT subname FROM pg_subscription'))
		{
			$node->safe_psql('postgres', "DROP SUBSCRIPTION $s");
		}
	}
	return;
}

# Waits until $node's subscription $sub has applied what its publisher had
# written when this was called.
sub applied
{
	my ($publisher, $sub) = @_;
	$publisher->wait_for_catchup($sub);
	return;
}

# Row $k through o2 only: o3's subscription to o1 is disabled while o1
# creates the row (+1) and o2 increments it (+10) after applying it; then
# it is enabled and every server catches up.  Returns the values on o1, o2
# and o3.
sub through_o2
{
	my ($k) = @_;
	my ($o1, $o2, $o3) = @nodes;
	$o3->safe_psql('postgres', 'ALTER SUBSCRIPTION s_o3_o1 DISABLE');
	$o3->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_stat_subscription WHERE subname = 's_o3_o1' AND pid IS NOT NULL})
	  or die 'the apply worker of s_o3_o1 did not stop';
	$o1->safe_psql('postgres', "INSERT INTO t VALUES ($k, NULL::counter_crdt + 1)");
	applied($o1, 's_o2_o1');
	$o2->safe_psql('postgres', "UPDATE t SET c = c + 10 WHERE k = $k");
	applied($o2, 's_o3_o2');
	$o3->safe_psql('postgres', 'ALTER SUBSCRIPTION s_o3_o1 ENABLE');
	$o3->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_stat_subscription WHERE subname = 's_o3_o1' AND pid IS NOT NULL})
	  or die 'the apply worker of s_o3_o1 did not start again';
	$mesh->catch_up for 1 .. 2;
	return map { $_->safe_psql('postgres', "SELECT c::bigint FROM t WHERE k = $k") } @nodes;
}

# counter_crdt_health()'s rows on $node, as the superuser or as $role.
sub health
{
	my ($node, $role) = @_;
	return $node->safe_psql('postgres',
		($role ? "SET ROLE $role; " : '')
		  . q{SELECT "check" || ' ' || object || ': ' || problem FROM counter_crdt_health() ORDER BY 1});
}

# --- the recipe's subscriptions: origin left at its default ------------------
subscribe('copy_data = false');
is(join(',', through_o2(1)), '11,11,11',
	'origin any: o3 gets o2\'s increment of a row it got only through o2');
$mesh->{expected}{1} = 11;
ok($mesh->wait_converged('origin any'), 'origin any: converged');
$mesh->check_state('origin any', [1]);
is(health($_), '', "origin any: health is quiet on " . $_->name) foreach @nodes;

if ($version < 160000)
{
	my ($rc, $out, $err) = $nodes[0]->psql('postgres',
		'CREATE SUBSCRIPTION s_none CONNECTION \'' . $nodes[1]->connstr
		  . ' dbname=postgres\' PUBLICATION pub WITH (copy_data = false, origin = none)');
	isnt($rc, 0, 'PostgreSQL 15: CREATE SUBSCRIPTION refuses origin = none');
	like($err, qr/unrecognized subscription parameter: "origin"/,
		'PostgreSQL 15: origin is not a subscription parameter');
	$mesh->check_logs('origin', qr/unrecognized subscription parameter: "origin"/);
	$_->stop('fast') foreach @nodes;
	done_testing();
	exit 0;
}

# --- origin = none ---------------------------------------------------------
unsubscribe();
subscribe('copy_data = false, origin = none');
is(join(',', through_o2(2)), '11,11,1',
	'origin none: o3 skips o2\'s increment of a row it did not have yet, and keeps o1\'s');
# PostgreSQL 18 logs the skipped update as a conflict; 16 and 17 log
# nothing at the default log level: the increment is lost without a word.
if ($version >= 180000)
{
	like(slurp_file($nodes[2]->logfile), qr/conflict=update_missing/,
		'origin none: o3 logs the update of a missing row as a conflict');
}
else
{
	unlike(slurp_file($nodes[2]->logfile), qr/did not find row|update_missing/,
		'origin none: o3 logs nothing about the update it skipped');
}
foreach my $i (0 .. 2)
{
	my $subs = join(', ', map { "s_$names[$i]_$_" } grep { $_ ne $names[$i] } @names);
	like(health($nodes[$i]),
		qr/^subscription_origin_none t: Table t comes to this server by 2 subscriptions, and \Q$subs\E have origin = none/,
		"origin none: health reports table t on $names[$i]");
	unlike(health($nodes[$i]), qr/ pair:/,
		"origin none: and not table pair, which comes to $names[$i] from one server" . ($i == 2 ? ' or none' : ''));
}
# Any role may call it, and sees the same (pg_subscription's columns that it
# reads are readable by every role).
$nodes[2]->safe_psql('postgres', 'CREATE ROLE watcher');
is(health($nodes[2], 'watcher'), health($nodes[2]),
	'origin none: an unprivileged role gets the same report');
# One of the two with origin = none is reported as well.
$nodes[2]->safe_psql('postgres', 'ALTER SUBSCRIPTION s_o3_o1 SET (origin = any)');
like(health($nodes[2]), qr/^subscription_origin_none t: .* s_o3_o2 has origin = none/m,
	'origin none: one subscription of two with origin = none is reported');
# The hint's repair of the setting: health is quiet, and o2's next write of
# the row brings its whole shard to o3.
foreach my $i (0 .. 2)
{
	foreach my $s (split /\n/, $nodes[$i]->safe_psql('postgres',
			q{SELECT subname FROM pg_subscription WHERE subname LIKE 's\_%'}))
	{
		$nodes[$i]->safe_psql('postgres', "ALTER SUBSCRIPTION $s SET (origin = any)");
	}
	is(health($nodes[$i]), '', "origin any again: health is quiet on $names[$i]");
}
$nodes[1]->safe_psql('postgres', 'UPDATE t SET c = c + 100 WHERE k = 2');
$mesh->{expected}{2} = 111;
ok($mesh->wait_converged('origin any again'), 'origin any again: converged');
$mesh->check_state('origin any again', [ 1, 2 ]);

# The pair replicates with origin = none as it should.
$nodes[0]->safe_psql('postgres', 'INSERT INTO pair VALUES (1, NULL::counter_crdt + 1)');
applied($nodes[0], 'p_o2_o1');
$nodes[1]->safe_psql('postgres', 'UPDATE pair SET c = c + 10 WHERE k = 1');
applied($nodes[1], 'p_o1_o2');
is(join(',', map { $_->safe_psql('postgres', 'SELECT c::bigint FROM pair') } @nodes[ 0, 1 ]),
	'11,11', 'origin none between two servers: both have both increments');

$mesh->check_logs('origin');
$_->stop('fast') foreach @nodes;
done_testing();
