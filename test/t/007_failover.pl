# Failover in a mesh (issue 8 item 6, contract 7.1): server a, a member of a
# two-server mesh with b, has a physical standby a2.  a is cut off (from b and
# from a2) and keeps taking increments; a2 is promoted and follows the README's
# failover recipes as written (it drops the subscriptions it inherited from a,
# whose slots on b belong to a, and joins under names of its own); b and a2
# take increments.  When a is reachable again, its links to b come back and it
# joins a2 by the README's recipe.  Every increment acknowledged by any of the
# three, before or after the failover, must be in the converged values, and a2
# must have written under a new writer id, the default of its new timeline, in
# a session opened before the promotion as well.
#
# Then the mistake the default ids avoid: a2 is given a's id by hand; the
# merge trigger on a warns, records the conflict, and counter_crdt_health()
# still reports it after a restart.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeRecipe;

srand(7007);
my $NKEYS = 12;

sub new_server
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 'logical');
	$node->append_conf('postgresql.conf', q(
max_worker_processes = 16
max_logical_replication_workers = 6
max_replication_slots = 8
max_wal_senders = 8
wal_retrieve_retry_interval = 500ms
));
	$node->start;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
		SELECT counter_crdt_enable_replica_merge('t');
		CREATE PUBLICATION page_views_pub FOR TABLE t WITH (publish = 'insert, update, delete');
	});
	return $node;
}

sub subscribe_to
{
	my ($node, $name, $from, $publication) = @_;
	$node->safe_psql('postgres',
		    "CREATE SUBSCRIPTION $name CONNECTION '"
		  . $from->connstr . ' dbname=postgres'
		  . "' PUBLICATION $publication WITH (copy_data = false)");
}

sub subscribe
{
	my ($node, $name, $from) = @_;
	subscribe_to($node, $name, $from, 'page_views_pub');
}

# The SQL of a README recipe, run on $node as written but for hosts.
sub run_recipe
{
	my ($node, $name, $hosts) = @_;
	my $rest = 'port=5432 dbname=app user=replicator password=change-this-secret';
	my %subst =
	  map { ("host=$_ $rest" => $hosts->{$_}->connstr . ' dbname=postgres') }
	  keys %$hosts;
	$node->safe_psql('postgres', recipe($name, \%subst));
}

# ---------------------------------------------------------------------
# Increments, and what was acknowledged.
my %expected;
my $seq = 0;

# Starts a psql client on $node running $n increments (upserts: always
# acknowledged with INSERT 0 1) of random keys.
sub start_increments
{
	my ($node, $n) = @_;
	my (@sql, @meta);
	for (1 .. $n)
	{
		my $k = 1 + int(rand($NKEYS));
		my $d = 1 + int(rand(9));
		my ($sql, $tag) = increment_statement('upsert', $k, $d);
		push @sql, $sql;
		push @meta, [ $tag, $k, $d ];
	}
	my $file = $node->basedir . '/increments_' . $seq++ . '.sql';
	my ($h, $out, $err) = start_script($node, $file, join("\n", @sql) . "\n");
	return [ $h, $out, $err, \@meta, $node->name ];
}

# Waits for clients; counts what each acknowledged.
sub finish_increments
{
	my $all = 1;
	foreach my $run (@_)
	{
		my ($h, $out, $err, $meta, $name) = @$run;
		$h->finish;
		my @tags = grep { /^INSERT / } split /\n/, $$out;
		$all = 0 unless $h->result(0) == 0 && @tags == @$meta;
		diag("$name: " . scalar(@tags) . " of " . scalar(@$meta) . " acknowledged: $$err")
		  unless @tags == @$meta;
		for my $i (0 .. $#tags)
		{
			$expected{ $meta->[$i][1] } += $meta->[$i][2]
			  if $tags[$i] eq $meta->[$i][0];
		}
	}
	return $all;
}

my $digest_q = q{SELECT coalesce(string_agg(k || ':' || encode(counter_crdt_digest(c), 'hex'), ',' ORDER BY k), '') FROM t};
my $values_q = q{SELECT coalesce(string_agg(k || '=' || c::bigint, ',' ORDER BY k), '') FROM t};

sub expected_values
{
	return join(',', map { "$_=$expected{$_}" } sort { $a <=> $b } keys %expected);
}

# Polls until every server shows the same states, twice in a row.
sub converge
{
	my ($label, @nodes) = @_;
	my $prev = '';
	foreach (1 .. 240)
	{
		my @d = map { $_->safe_psql('postgres', $digest_q) } @nodes;
		my $same = !grep { $_ ne $d[0] } @d;
		if ($same && $prev eq $d[0])
		{
			pass("$label: the servers hold the same states");
			return 1;
		}
		$prev = $same ? $d[0] : '';
		sleep(1);
	}
	fail("$label: the servers hold the same states");
	diag($_->name . ': ' . $_->safe_psql('postgres', $values_q)) foreach @nodes;
	return 0;
}

# The default writer id of contract 7.1, computed in SQL apart from the C code.
my $reference_q = q{
  SELECT encode(set_byte(set_byte(h, 6, (get_byte(h, 6) & 15) | 48),
                         8, (get_byte(h, 8) & 63) | 128), 'hex')::uuid
    FROM (SELECT decode(md5('counter_crdt:' ||
                 CASE WHEN system_identifier < 0
                      THEN (system_identifier::numeric + 18446744073709551616)::text
                      ELSE system_identifier::text END || ':' || %s || ':' ||
                 (SELECT oid FROM pg_database WHERE datname = current_database())), 'hex') AS h
            FROM pg_control_system()) s};

# ---------------------------------------------------------------------
# A mesh of a and b, and a's physical standby a2.
my $a = new_server('a');
my $b = new_server('b');
subscribe($a, 'page_views_a_from_b', $b);
subscribe($b, 'page_views_b_from_a', $a);
$_->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_subscription WHERE pid IS NOT NULL})
  foreach ($a, $b);

ok(finish_increments(start_increments($a, 150), start_increments($b, 150)),
	'before the failover: every increment acknowledged');
converge('before the failover', $a, $b);

$a->backup('base');
my $a2 = PostgreSQL::Test::Cluster->new('a2');
$a2->init_from_backup($a, 'base', has_streaming => 1);
$a2->start;
ok(finish_increments(start_increments($a, 60)), 'increments on a while a2 streams');
$a->wait_for_catchup('a2');
is($a2->safe_psql('postgres', $values_q), $a->safe_psql('postgres', $values_q),
	'a2 replays a');

my $id_a = $a->safe_psql('postgres', 'SELECT counter_crdt_node_id()');
is($a->safe_psql('postgres', sprintf($reference_q, 1)), $id_a,
	"a's writer id is the default of timeline 1");
is($a2->safe_psql('postgres', 'SELECT counter_crdt_node_id()'), $id_a,
	'a standby answers with the id of its primary');
is($a2->safe_psql('postgres', q{SELECT count(*) FROM pg_subscription}), '1',
	'a2 holds the catalog row of the subscription it copied from a');
is($a2->safe_psql('postgres', q{SELECT count(*) FROM pg_replication_slots}), '0',
	'but no slots: pg_basebackup copies none');
# A session open across the promotion.
my $session = $a2->background_psql('postgres');
is($session->query_safe('SELECT counter_crdt_node_id()'), $id_a,
	'the open session on a2 sees the id of a before the promotion');

# ---------------------------------------------------------------------
# a is cut off: a2 no longer streams from it, and a and b do not reach
# each other (their subscriptions to each other stop).
$a2->adjust_conf('postgresql.conf', 'primary_conninfo', "''");
$a2->reload;
$a2->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_stat_wal_receiver})
  or die 'a2 still streams from a';
$a->safe_psql('postgres', 'ALTER SUBSCRIPTION page_views_a_from_b DISABLE');
$b->safe_psql('postgres', 'ALTER SUBSCRIPTION page_views_b_from_a DISABLE');

# a, cut off, keeps taking increments that a2 never saw, during all that
# follows.
my $on_a = start_increments($a, 400);

# The failover: a2 is promoted and follows the recipes; b subscribes to it.
$a2->promote;
run_recipe($a2, 'failover/promoted', { b => $b });
run_recipe($b, 'failover/peers', { a2 => $a2 });
is($a2->safe_psql('postgres', q{SELECT string_agg(subname, ',' ORDER BY subname) FROM pg_subscription}),
	'page_views_a2_from_b', 'a2 dropped the subscription it inherited and made its own');
is($b->safe_psql('postgres',
		q{SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'page_views_a_from_b'}),
	'1', "a's slot on b is left for a");

my $tli = $a2->safe_psql('postgres', q{SELECT timeline_id FROM pg_control_checkpoint()});
my $id_a2 = $a2->safe_psql('postgres', 'SELECT counter_crdt_node_id()');
isnt($id_a2, $id_a, "the promoted server's writer id is new");
is($a2->safe_psql('postgres', sprintf($reference_q,
			q{('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint})),
	$id_a2, "a2's id is the default of the timeline it writes on ($tli)");
is($session->query_safe('SELECT counter_crdt_node_id()'), $id_a2,
	'the session opened before the promotion uses the new id');
is($session->query_safe(q{SELECT count(*) FROM counter_crdt_shards(NULL::counter_crdt + 1) s
                          WHERE s.id = counter_crdt_node_id()}), '1',
	'and increments under it');
$session->quit;

$a2->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_subscription WHERE pid IS NOT NULL})
  or die 'the new subscription of a2 did not start';
ok(finish_increments(start_increments($a2, 300), start_increments($b, 300)),
	'after the failover: every increment on a2 and b acknowledged');
ok(finish_increments($on_a), 'every increment on a, cut off, acknowledged');
converge('a2 and b', $a2, $b);
isnt($a->safe_psql('postgres', $values_q), $b->safe_psql('postgres', $values_q),
	'a, cut off, differs');

# ---------------------------------------------------------------------
# a is back: its links to b come back, and it joins a2 by the recipe.
$a->safe_psql('postgres', 'ALTER SUBSCRIPTION page_views_a_from_b ENABLE');
$b->safe_psql('postgres', 'ALTER SUBSCRIPTION page_views_b_from_a ENABLE');
run_recipe($a, 'failover/old-primary', { a2 => $a2 });
run_recipe($a2, 'failover/old-primary-peer', { a => $a });
ok(finish_increments(start_increments($a, 100), start_increments($a2, 100),
		start_increments($b, 100)),
	'increments on all three while they meet');
converge('after the failover', $a, $b, $a2);
my $want = expected_values();
is($_->safe_psql('postgres', $values_q), $want,
	$_->name . ': every acknowledged increment of every server, once')
  foreach ($a, $b, $a2);

# Whose increments are where: a's shard holds everything a ever wrote, a2's
# everything it wrote after the promotion.
my $shards_q = q{SELECT count(DISTINCT s.id) FROM t, counter_crdt_shards(c) s};
is($b->safe_psql('postgres', $shards_q), '3',
	'three writers: a, b, and a2 under its new id');
is($b->safe_psql('postgres', "SELECT count(*) FROM t, counter_crdt_shards(c) s WHERE s.id = '$id_a2'")
	  > 0 ? 1 : 0, 1, "b holds shards of a2's new id");
foreach my $node ($a, $b, $a2)
{
	is($node->safe_psql('postgres', 'SELECT count(*) FROM counter_crdt_writer_conflicts'),
		'0', $node->name . ': no own-id conflict');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM counter_crdt_health()'),
		'0', $node->name . ': counter_crdt_health() reports nothing');
}

# The subscription side of counter_crdt_health(): a table b only subscribes
# to (it is in no publication of b) and has not set up.
$a->safe_psql('postgres', q{
	CREATE TABLE u (k int PRIMARY KEY, c counter_crdt);
	SELECT counter_crdt_enable_replica_merge('u');
	CREATE PUBLICATION u_pub FOR TABLE u WITH (publish = 'insert, update, delete');
});
$b->safe_psql('postgres', 'CREATE TABLE u (k int PRIMARY KEY, c counter_crdt)');
subscribe_to($b, 'u_b_from_a', $a, 'u_pub');
is($b->safe_psql('postgres', q{SELECT string_agg("check" || ' ' || object, ', ') FROM counter_crdt_health()}),
	'merge_trigger_missing u, delete_trigger_missing u, key_update_not_refused u, truncate_not_refused u',
	'b: a subscribed table without the triggers is reported');
$b->safe_psql('postgres', q{SELECT counter_crdt_enable_replica_merge('u')});
is($b->safe_psql('postgres', 'SELECT count(*) FROM counter_crdt_health()'),
	'0', 'b: and not once set up');
$b->safe_psql('postgres', 'DROP SUBSCRIPTION u_b_from_a');

# ---------------------------------------------------------------------
# The mistake: a2 writes under a's id (as a pinned counter_crdt.node_id,
# copied by the backup, would make it).  a2 increments key 1 five times,
# a three times: a gets a newer shard of its own id from a2.
$a2->safe_psql('postgres', "LOAD 'counter_crdt'; ALTER SYSTEM SET counter_crdt.node_id = '$id_a'");
$a2->reload;
$a2->poll_query_until('postgres', "SELECT counter_crdt_node_id() = '$id_a'");
$_->safe_psql('postgres', 'ALTER SUBSCRIPTION page_views_a_from_b DISABLE; ALTER SUBSCRIPTION page_views_a_from_a2 DISABLE')
  foreach ($a);
$a2->safe_psql('postgres', 'UPDATE t SET c = c + 1 WHERE k = 1') for 1 .. 5;
$a->safe_psql('postgres', 'UPDATE t SET c = c + 100 WHERE k = 1') for 1 .. 3;
my $log_offset = -s $a->logfile;
$a->safe_psql('postgres', 'ALTER SUBSCRIPTION page_views_a_from_b ENABLE; ALTER SUBSCRIPTION page_views_a_from_a2 ENABLE');
$a->poll_query_until('postgres', 'SELECT count(*) > 0 FROM counter_crdt_writer_conflicts')
  or die 'no conflict recorded';
ok($a->log_contains(
		qr/WARNING: .*replicated row \(k\)=\(1\) of table "t" holds a newer shard of this server's writer id \Q$id_a\E/,
		$log_offset),
	'a warns, naming the key, the table and the id');
$a->restart;
is($a->safe_psql('postgres',
		q{SELECT "check" || ' ' || object FROM counter_crdt_health()}),
	'writer_id_conflict t', 'after a restart, counter_crdt_health() reports the conflict');

$a2->safe_psql('postgres', "LOAD 'counter_crdt'; ALTER SYSTEM RESET counter_crdt.node_id");
$_->stop foreach ($a, $b, $a2);
done_testing();
