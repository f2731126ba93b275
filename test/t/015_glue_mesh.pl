# Ordinary table features in a replicating mesh of three servers (each
# publishing and subscribing to the two others), with tables set up by
# counter_crdt_enable_replica_merge() as an unprivileged role owns them:
#
#  - an identity key (GENERATED ALWAYS): rows created on every server with
#    the same and with different identity values merge, and no apply fails;
#  - a key update: refused where it is made, nothing changes anywhere, and
#    the subscriptions keep applying what follows;
#  - a partitioned table: an update that would move a row to another
#    partition is refused (the counter stays whole, no tombstone anywhere),
#    increments in every partition converge, a delete in a partition is a
#    tombstone everywhere;
#  - TRUNCATE: refused on the table and on a partition, and not published.
#
# Each step ends with identical digests and exact values on all servers;
# health reports nothing; the logs hold no error but the refusals.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtMesh;

my @names = qw(g1 g2 g3);
my @nodes;
foreach my $name (@names)
{
	my $node = CounterCrdtMesh::mesh_node($name);
	# The tables belong to a role with no privilege but its own tables.
	$node->safe_psql('postgres', q{
		CREATE EXTENSION counter_crdt;
		CREATE ROLE glue_user;
		GRANT CREATE ON SCHEMA public TO glue_user;
		SET ROLE glue_user;
		CREATE TABLE ident (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c counter_crdt);
		CREATE TABLE keyed (k int PRIMARY KEY, c counter_crdt);
		CREATE TABLE parts (region int, k int, c counter_crdt, PRIMARY KEY (region, k))
		  PARTITION BY LIST (region);
		CREATE TABLE parts_1 PARTITION OF parts FOR VALUES IN (1);
		CREATE TABLE parts_2 PARTITION OF parts FOR VALUES IN (2);
		SELECT counter_crdt_enable_replica_merge('ident');
		SELECT counter_crdt_enable_replica_merge('keyed');
		SELECT counter_crdt_enable_replica_merge('parts');
		RESET ROLE;
		CREATE PUBLICATION pub FOR TABLE ident, keyed, parts
		  WITH (publish = 'insert, update, delete');
	});
	push @nodes, $node;
}
for my $i (0 .. 2)
{
	for my $j (0 .. 2)
	{
		next if $i == $j;
		my $connstr = $nodes[$j]->connstr . ' dbname=postgres';
		$nodes[$i]->safe_psql('postgres',
			"CREATE SUBSCRIPTION sub_$names[$i]_from_$names[$j] "
			  . "CONNECTION '$connstr' PUBLICATION pub WITH (copy_data = false)");
	}
}
foreach my $node (@nodes)
{
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 2 FROM pg_stat_subscription WHERE pid IS NOT NULL})
	  or die "apply workers did not start on " . $node->name;
}

my %mesh = (
	ident => CounterCrdtMesh->new(nodes => \@nodes,
		table => { table => 'ident', key => 'id', counter => 'c' }),
	keyed => CounterCrdtMesh->new(nodes => \@nodes,
		table => { table => 'keyed', key => 'k', counter => 'c' }),
	parts => CounterCrdtMesh->new(nodes => \@nodes,
		table => { table => 'parts', key => "region || '/' || k", counter => 'c' }),
);

# Values of a table on every node, as "key=value" lines.
sub values_on
{
	my ($node, $sql) = @_;
	return $node->safe_psql('postgres', $sql);
}

# Runs $sql as glue_user on $node; returns psql's stderr (empty on success).
sub as_user
{
	my ($node, $sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "SET ROLE glue_user; $sql");
	return $ret == 0 ? '' : $err;
}

# --- identity keys ---------------------------------------------------------
# Every server creates id 1 (its own sequence) and one id of its own.
foreach my $i (0 .. 2)
{
	my $d = $i + 1;
	is(as_user($nodes[$i],
			"INSERT INTO ident (c) VALUES (NULL::counter_crdt + $d)"
			  . " ON CONFLICT (id) DO UPDATE SET c = ident.c + $d"),
		'', "identity: $names[$i] upserts id 1");
	is(as_user($nodes[$i],
			'INSERT INTO ident OVERRIDING SYSTEM VALUE VALUES (' . (10 + $i) . ', NULL::counter_crdt + 100)'),
		'', "identity: $names[$i] inserts id " . (10 + $i));
}
ok($mesh{ident}->wait_converged('identity keys'), 'identity keys: converged');
$mesh{ident}{expected} = { 1 => 6, 10 => 100, 11 => 100, 12 => 100 };
$mesh{ident}->check_state('identity keys', [ 1, 10, 11, 12 ]);
foreach my $i (0 .. 2)
{
	is(as_user($nodes[$i], 'UPDATE ident SET c = c + 1 WHERE id = 1'), '',
		"identity: $names[$i] increments id 1");
}
ok($mesh{ident}->wait_converged('identity increments'), 'identity increments: converged');
$mesh{ident}{expected}{1} += 3;
$mesh{ident}->check_state('identity increments', [ 1, 10, 11, 12 ]);

# --- key updates -----------------------------------------------------------
is(as_user($nodes[0], 'INSERT INTO keyed VALUES (2, NULL::counter_crdt + 5)'), '', 'key: row 2 created');
ok($mesh{keyed}->wait_converged('key row'), 'key: row 2 everywhere');
like(as_user($nodes[0], 'UPDATE keyed SET k = 3 WHERE k = 2'),
	qr/cannot change key column "k" of table "keyed"/, 'key: the update of the key is refused on g1');
like(as_user($nodes[1], 'UPDATE keyed SET k = 3, c = c + 1 WHERE k = 2'),
	qr/cannot change key column "k"/, 'key: and on g2, with an increment');
foreach my $i (0 .. 2)
{
	is(as_user($nodes[$i], 'UPDATE keyed SET c = c + 10 WHERE k = 2'), '',
		"key: $names[$i] increments row 2 afterwards");
}
ok($mesh{keyed}->wait_converged('after key updates'), 'key: converged, no subscription stuck');
$mesh{keyed}{expected} = { 2 => 35 };
$mesh{keyed}->check_state('after key updates', [ 2, 3 ]);

# --- a partitioned table ---------------------------------------------------
is(as_user($nodes[0], 'INSERT INTO parts VALUES (1, 1, NULL::counter_crdt + 7), (2, 1, NULL::counter_crdt + 1)'),
	'', 'partitions: rows in both partitions');
ok($mesh{parts}->wait_converged('partition rows'), 'partitions: rows everywhere');
like(as_user($nodes[1], 'UPDATE parts SET region = 2 WHERE region = 1 AND k = 1'),
	qr/cannot change key column "region"/, 'partitions: moving a row to another partition is refused');
foreach my $i (0 .. 2)
{
	is(as_user($nodes[$i], 'UPDATE parts SET c = c + 2 WHERE k = 1'), '',
		"partitions: $names[$i] increments in both partitions");
}
ok($mesh{parts}->wait_converged('partition increments'), 'partitions: converged');
foreach my $node (@nodes)
{
	is(values_on($node, q{SELECT tableoid::regclass || ':' || region || '/' || k || '=' || c::bigint
	                        FROM parts ORDER BY region, k}),
		"parts_1:1/1=13\nparts_2:2/1=7",
		'partitions: ' . $node->name . ' holds each counter whole, in its partition');
}
is(as_user($nodes[2], 'DELETE FROM parts WHERE region = 2 AND k = 1'), '', 'partitions: a delete on g3');
ok($mesh{parts}->wait_converged('partition delete'), 'partitions: delete converged');
foreach my $node (@nodes)
{
	is(values_on($node, q{SELECT region || '/' || k || '=' || c FROM parts ORDER BY region, k}),
		"1/1=" . values_on($nodes[0], q{SELECT c FROM parts WHERE region = 1 AND k = 1}) . "\n2/1=tombstone",
		'partitions: ' . $node->name . ' has the tombstone');
}

# --- TRUNCATE ----------------------------------------------------------------
like(as_user($nodes[0], 'TRUNCATE keyed'), qr/cannot truncate table "keyed"/, 'truncate: refused');
like(as_user($nodes[0], 'TRUNCATE parts_1'), qr/cannot truncate table "parts_1"/,
	'truncate: refused on a partition');
like(as_user($nodes[0], 'TRUNCATE parts'), qr/cannot truncate table "parts"/,
	'truncate: refused on the partitioned table');
is(values_on($nodes[0], q{SELECT string_agg(pubtruncate::text, ',') FROM pg_publication}), 'false',
	'truncate: the publication does not publish it');
ok($mesh{keyed}->wait_converged('after truncates'), 'truncate: keyed converged');
$mesh{keyed}->check_state('after truncates', [2]);

# --- health and logs -----------------------------------------------------------
foreach my $node (@nodes)
{
	is(values_on($node, q{SELECT count(*) FROM counter_crdt_health()}), '0',
		$node->name . ': health reports nothing');
	is(values_on($node, q{SELECT count(*) FROM counter_crdt_writer_conflicts}), '0',
		$node->name . ': no own-id conflict recorded');
	# 19 counts the table and sequence copies' errors apart
	my $sync = values_on($node, 'SHOW server_version_num') >= 190000
	  ? 'sync_table_error_count + sync_seq_error_count' : 'sync_error_count';
	is(values_on($node,
			"SELECT coalesce(sum(apply_error_count + $sync), 0) FROM pg_stat_subscription_stats"),
		'0', $node->name . ': no apply error');
}
foreach my $m (values %mesh)
{
	$m->check_logs('glue mesh', qr/cannot change key column|cannot truncate table|STATEMENT:/);
	last;
}

$_->stop foreach @nodes;
done_testing();
