# Multi-master logical replication of counter_crdt with the replica merge
# trigger: three servers, each publishing table t and subscribing to the two
# others.  Concurrent increments on every server must converge to identical
# states whose values are the sums of all acknowledged deltas, without apply
# errors and without an endless echo of rows between the servers.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use Time::HiRes qw(time usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtMesh;

my $NKEYS = 20;          # keys 1 .. $NKEYS in the main workload
my $NSTMT = 300;         # statements per client
my $NCLIENTS = 2;        # clients per server

srand(12345);

# ---------------------------------------------------------------------
# Set up three servers.
my @names = qw(n1 n2 n3);
my @nodes;
foreach my $name (@names)
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 'logical');
	# No autovacuum: the idleness check below measures WAL growth.
	$node->append_conf('postgresql.conf', qq(
autovacuum = off
max_worker_processes = 16
max_logical_replication_workers = 8
max_replication_slots = 8
max_wal_senders = 8
log_min_messages = warning
));
	$node->start;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
		SELECT counter_crdt_enable_replica_merge('t');
	});
	$node->safe_psql('postgres', "CREATE PUBLICATION pub_$name FOR TABLE t WITH (publish = 'insert, update, delete')");
	push @nodes, $node;
}

# Trigger is enabled as a REPLICA trigger ('R').
is($nodes[0]->safe_psql('postgres',
		q{SELECT tgenabled FROM pg_trigger WHERE tgrelid = 't'::regclass
		  AND tgname = 'counter_crdt_replica_merge'}),
	'R', 'merge trigger enabled as a replica trigger');

# 1. The default writer ids differ.
my @ids = map { $_->safe_psql('postgres', 'SELECT counter_crdt_node_id()') } @nodes;
my %seen_ids = map { $_ => 1 } @ids;
is(scalar(keys %seen_ids), 3, "three distinct default node ids (@ids)");

# Full mesh of subscriptions.
for my $i (0 .. 2)
{
	for my $j (0 .. 2)
	{
		next if $i == $j;
		my $connstr = $nodes[$j]->connstr . ' dbname=postgres';
		$nodes[$i]->safe_psql('postgres',
			"CREATE SUBSCRIPTION sub_$names[$i]_from_$names[$j] "
			  . "CONNECTION '$connstr' PUBLICATION pub_$names[$j] "
			  . "WITH (copy_data = false)");
	}
}
foreach my $node (@nodes)
{
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 2 FROM pg_stat_subscription WHERE pid IS NOT NULL})
	  or die "apply workers did not start on " . $node->name;
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 2 FROM pg_replication_slots WHERE active})
	  or die "walsenders did not start on " . $node->name;
}

my $mesh = CounterCrdtMesh->new(nodes => \@nodes);
my $digest_q = $mesh->digest_query;

# ---------------------------------------------------------------------
# 2./3. Concurrent increments and decrements on all nodes, with upserts
# racing to create the keys.
my @keys = (1 .. $NKEYS);
my $t0 = time();
ok($mesh->run_workload(\@nodes, $NCLIENTS, $NSTMT, \@keys),
	'concurrent workload: every statement acknowledged');
note(sprintf("workload took %.1fs", time() - $t0));

ok($mesh->wait_converged('concurrent workload'), 'concurrent workload: quiescence reached');
$mesh->check_state('concurrent workload', \@keys);
is($nodes[0]->safe_psql('postgres', 'SELECT count(*) FROM t'),
	scalar(grep { defined $mesh->{expected}{$_} } @keys), 'every created key exists');
# Every row carries a shard from the writers that touched it, never more.
cmp_ok($nodes[0]->safe_psql('postgres',
		'SELECT max(n) FROM (SELECT count(*) AS n FROM t, counter_crdt_shards(c) GROUP BY k) s'),
	'<=', 3, 'at most three shards per key');

# 4. No apply errors.
$mesh->check_logs('concurrent workload');

# 5. No echo storm.
$mesh->check_idle('after concurrent workload');

# ---------------------------------------------------------------------
# A node cut off while all keep writing, then reconnected.
my ($n1, $n2, $n3) = @nodes;
$n3->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n3_from_n1 DISABLE");
$n3->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n3_from_n2 DISABLE");
$n1->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n1_from_n3 DISABLE");
$n2->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n2_from_n3 DISABLE");
foreach my $node (@nodes)
{
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_stat_subscription s JOIN pg_subscription p ON p.oid = s.subid
		  WHERE NOT p.subenabled AND s.pid IS NOT NULL})
	  or die "apply workers did not stop on " . $node->name;
}

my @keys2 = (1 .. $NKEYS + 5);    # five new keys, created on both sides
ok($mesh->run_workload(\@nodes, 1, 100, \@keys2), 'partitioned workload: every statement acknowledged');

# n1 and n2 converge between themselves; n3 differs.
$n1->poll_query_until('postgres',
	"SELECT (" . $digest_q . ") = '" . $n2->safe_psql('postgres', $digest_q) . "'")
  or diag('n1 and n2 do not agree while n3 is cut off');

$n3->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n3_from_n1 ENABLE");
$n3->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n3_from_n2 ENABLE");
$n1->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n1_from_n3 ENABLE");
$n2->safe_psql('postgres', "ALTER SUBSCRIPTION sub_n2_from_n3 ENABLE");

ok($mesh->wait_converged('after reconnect'), 'after reconnect: quiescence reached');
$mesh->check_state('after reconnect', \@keys2);
$mesh->check_logs('after reconnect');
$mesh->check_idle('after reconnect');

# ---------------------------------------------------------------------
# One server restarted mid-load, with a fast and with an immediate
# shutdown, while the two others keep writing: its walsenders and apply
# workers are cut mid-stream, and after the immediate stop it receives again
# what it had applied but not yet confirmed, which the merge absorbs.
foreach my $mode ('fast', 'immediate')
{
	my @runs = $mesh->start_workload([ $n1, $n3 ], 2, 300, \@keys2);
	usleep(150_000);
	$n2->stop($mode);
	usleep(300_000);
	$n2->start;
	ok($mesh->finish_workload(@runs),
		"restart ($mode) of n2: every statement on n1 and n3 acknowledged");
	ok($mesh->wait_converged("restart ($mode)"), "restart ($mode): quiescence reached");
	$mesh->check_state("restart ($mode)", \@keys2);
	$mesh->check_logs("restart ($mode)");
}
$mesh->check_idle('after restarts');

# ---------------------------------------------------------------------
# A delete on one node racing increments on another.  The local DELETE on
# n1 becomes a tombstone (counter_crdt_delete_as_tombstone), which wins every
# merge: increments that n2 makes before the tombstone reaches it, and
# upserts after it, are all absorbed, and every server ends with the row
# holding a tombstone.
$n1->safe_psql('postgres',
	"INSERT INTO t VALUES (1000, NULL::counter_crdt + 1)");
ok($mesh->wait_converged('delete race setup', 30), 'delete race: key 1000 everywhere');
{
	# Separate transactions on n2: plain updates and upserts.
	my $file = $n2->basedir . '/delete_race.sql';
	PostgreSQL::Test::Utils::append_to_file($file, join("\n",
		map {
			$_ % 2
			  ? 'UPDATE t SET c = c + 1 WHERE k = 1000;'
			  : 'INSERT INTO t VALUES (1000, NULL::counter_crdt + 1) '
			  . 'ON CONFLICT (k) DO UPDATE SET c = t.c + 1;'
		} 1 .. 1000) . "\n");
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-d', $n2->connstr('postgres'), '-f', $file ],
		'>', \$o, '2>', \$e);
	usleep(100_000);
	is($n1->safe_psql('postgres',
			'DELETE FROM t WHERE k = 1000 RETURNING k'),
		'', 'delete race: the local delete is turned into a tombstone update');
	note('n2 still running when n1 deleted: ' . ($h->pumpable ? 'yes' : 'no'));
	$h->finish;
}
ok($mesh->wait_converged('delete race', 60), 'delete race: quiescence reached');
my @race = map { $_->safe_psql('postgres',
		"SELECT coalesce((SELECT c::text FROM t WHERE k = 1000), 'absent')") } @nodes;
is_deeply(\@race, [ 'tombstone', 'tombstone', 'tombstone' ],
	'delete race: the delete wins on every server');
is($n2->safe_psql('postgres',
		'UPDATE t SET c = c + 1 WHERE k = 1000 RETURNING c::text'),
	'tombstone', 'delete race: an update after the delete is ignored');
$mesh->check_logs('delete race');
$mesh->check_idle('delete race');

$_->stop('fast') foreach @nodes;

done_testing();
