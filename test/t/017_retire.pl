# Retiring writers on a live mesh (issue 24), by the recipes of
# doc/retiring-writers.md as written.
#
# Three servers a, b, c subscribe to each other and take increments.  A base
# backup of c and one of a are taken; more increments follow.  Then:
#  - c leaves the mesh for good; a folds c's id (retire/fold); a and b
#    converge to the acknowledged sums, c's shard is gone from every counter,
#    retire/check is quiet on both.
#  - c's backup from before the fold is restored and its rows merged into b
#    unstripped: the fold records keep the totals exact.
#  - a failover forks a's id: a2, a standby of a from the backup, is
#    promoted (a new timeline, so a new writer id) while a goes on taking
#    increments that reach b; then a is gone, a2 joins b by the failover
#    recipes of doc/replication.md, and a2 folds a's id; a fold that runs
#    before a's last increments reached a2 shows in retire/check and is
#    finished by running retire/fold again.  a's id cannot write on b any
#    more (55000).
#  - Both ids are forgotten on both servers (retire/forget, c first: a held
#    c's fold), until neither server has a record of them; every counter
#    carries only a2's and b's ids; totals exact all along.  Each server's
#    list (retire/list) holds both as forgotten, and neither id writes
#    there any more, not even on a new counter.
#  - c's old backup once more, now stripped of both forgotten ids
#    (retire/strip): exact.  Unstripped it would count them twice, which the
#    recipe's warning is about (checked on a copy of the table).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtMesh;
use CounterCrdtSQL;
use ReadmeRecipe;

srand(17017);
my $TBL = { table => 'page_views', key => 'page', counter => 'views', text_keys => 1 };
my @keys = map { "p$_" } 1 .. 12;
my $in_keys = join(',', map { "'$_'" } @keys);

sub setup
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);
		SELECT counter_crdt_enable_replica_merge('page_views');
		CREATE PUBLICATION page_views_pub FOR TABLE page_views
		  WITH (publish = 'insert, update, delete');
	});
	return;
}

sub subscribe
{
	my ($node, $name, $from) = @_;
	$node->safe_psql('postgres',
		    "CREATE SUBSCRIPTION $name CONNECTION '"
		  . $from->connstr
		  . " dbname=postgres' PUBLICATION page_views_pub WITH (copy_data = false)");
	return;
}

sub wait_workers
{
	my ($node, $n) = @_;
	$node->poll_query_until('postgres',
		"SELECT count(*) = $n FROM pg_stat_subscription WHERE pid IS NOT NULL AND relid IS NULL")
	  or die 'apply workers did not start on ' . $node->name;
	return;
}

# A recipe of doc/retiring-writers.md with the writer id of the page put in.
my $PAGE_ID = '5f0c8a9e-6d1b-4f3a-9c2e-7b4d1e8a2f60';

sub retire_recipe
{
	my ($name, $id) = @_;
	return recipe("retire/$name", { $PAGE_ID => $id });
}

# The failover recipes of doc/replication.md, for hosts (as 007 runs them).
sub replication_recipe
{
	my ($node, $name, $hosts) = @_;
	my $rest = 'port=5432 dbname=app user=replicator password=change-this-secret';
	my %subst =
	  map { ("host=$_ $rest" => $hosts->{$_}->connstr . ' dbname=postgres') }
	  keys %$hosts;
	$node->safe_psql('postgres', recipe($name, \%subst));
	return;
}

sub max_writers
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		'SELECT max(counter_crdt_writers(views)) FROM page_views');
}

# The ids that page_views' counters on $node carry as shards or records.
sub ids_on { return page_view_ids($_[0], 'postgres'); }

# ---------------------------------------------------------------------
my $a = CounterCrdtMesh::mesh_node('a');
my $b = CounterCrdtMesh::mesh_node('b');
my $c = CounterCrdtMesh::mesh_node('c');
# b keeps commit times, which its writer report reads (last_write); set
# before any subscription, so that no replication connection meets the
# restart
$b->append_conf('postgresql.conf', 'track_commit_timestamp = on');
$b->restart;
setup($_) for ($a, $b, $c);
my %node = (a => $a, b => $b, c => $c);
for my $x (qw(a b c))
{
	for my $y (qw(a b c))
	{
		subscribe($node{$x}, "s_${x}_$y", $node{$y}) if $x ne $y;
	}
}
wait_workers($_, 2) for ($a, $b, $c);
my $t0 = $b->safe_psql('postgres', 'SELECT now()');
my ($id_a, $id_b, $id_c) =
  map { $_->safe_psql('postgres', 'SELECT counter_crdt_node_id()') } ($a, $b, $c);

my $mesh = CounterCrdtMesh->new(nodes => [ $a, $b, $c ], table => $TBL);
ok($mesh->run_workload([ $a, $b, $c ], 2, 60, \@keys), 'first increments acknowledged');
ok($mesh->wait_converged('three servers'), 'three servers converge');
$mesh->check_state('three servers', \@keys);
is(max_writers($a), 3, 'counters carry the three writer ids');

# backups from before any fold
$c->backup('c_pre');
$a->backup('a_base');

ok($mesh->run_workload([ $a, $b, $c ], 2, 60, \@keys), 'more increments acknowledged');
ok($mesh->wait_converged('three servers again'), 'three servers converge again');
$mesh->check_state('before c leaves', \@keys);

# ---------------------------------------------------------------------
# c leaves for good; a folds its id.
$a->safe_psql('postgres', 'DROP SUBSCRIPTION s_a_c');
$b->safe_psql('postgres', 'DROP SUBSCRIPTION s_b_c');
$c->safe_psql('postgres', 'DROP SUBSCRIPTION s_c_a; DROP SUBSCRIPTION s_c_b');
$c->stop;
$mesh->{nodes} = [ $a, $b ];    # the acknowledged sums carry over

# last_write: a commit time of b's rows that carry the id (with
# track_commit_timestamp), after the first increments; none on a (without)
is($b->safe_psql('postgres', "SELECT count(*) FILTER (WHERE last_write BETWEEN '$t0' AND now()) || '/' || count(*) FROM counter_crdt_writer_report()"),
	'3/3', 'report on b: a last write time for each of the three ids');
is($a->safe_psql('postgres', 'SELECT count(last_write) FROM counter_crdt_writer_report()'),
	'0', 'report on a: no last write times without track_commit_timestamp');

my $report = $a->safe_psql('postgres', recipe('retire/report'));
like($report, qr/^page_views\|views\|\Q$id_c\E\|12\|\d+\|f\|0\|0\|$/m,
	'report: c carried by every counter, not folded')
  or diag($report);
is($a->safe_psql('postgres', retire_recipe('fold', $id_c)), 'page_views|views|12',
	'the fold of c on a changes the twelve counters');
is($a->safe_psql('postgres', retire_recipe('fold', $id_c)), 'page_views|views|0',
	'run again, it changes nothing');
ok($mesh->wait_converged('c folded'), 'a and b converge after the fold');
$mesh->check_state('c folded', \@keys);
for my $n ($a, $b)
{
	is($n->safe_psql('postgres', retire_recipe('check', $id_c)), '',
		'retire/check is quiet on ' . $n->name);
	is(max_writers($n), 2, 'counters carry two writer ids on ' . $n->name);
}
like($b->safe_psql('postgres', recipe('retire/report')),
	qr/^page_views\|views\|\Q$id_c\E\|0\|\|f\|12\|0\|$/m,
	'report on b: c folded in every counter, nothing pending');

# c's backup from before the fold, merged into b unstripped: still exact
my $c_old = PostgreSQL::Test::Cluster->new('c_old');
$c_old->init_from_backup($c, 'c_pre');
$c_old->start;
my $old_rows = $c_old->safe_psql('postgres',
	"SELECT string_agg(format('(%L, %L)', page, views::text), ', ' ORDER BY page) FROM page_views");
$c_old->stop;
ok($old_rows =~ /\Q$id_c\E/, 'the old backup holds shards of c');
$b->safe_psql('postgres',
	"CREATE TABLE restored_page_views (page text PRIMARY KEY, views counter_crdt);
	 INSERT INTO restored_page_views VALUES $old_rows;
	 INSERT INTO page_views SELECT page, views FROM restored_page_views
	 ON CONFLICT (page) DO UPDATE SET views = counter_crdt_merge(page_views.views, EXCLUDED.views);
	 DROP TABLE restored_page_views;");
ok($mesh->wait_converged('old backup merged'), 'converged after the old backup');
$mesh->check_state('old backup merged before forgetting', \@keys);

# ---------------------------------------------------------------------
# A failover forks a's id: a2 from a's backup, promoted, while a writes on.
my $a2 = PostgreSQL::Test::Cluster->new('a2');
$a2->init_from_backup($a, 'a_base', has_streaming => 1);
# no apply worker until the failover recipe has dropped the subscriptions
# a2 copied from a (their slots on b and c are a's)
$a2->append_conf('postgresql.conf', 'max_logical_replication_workers = 0');
$a2->start;
$a->wait_for_catchup($a2, 'replay', $a->lsn('insert'));
$a2->promote;
$a2->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'a2 was not promoted';
my $id_a2 = $a2->safe_psql('postgres', 'SELECT counter_crdt_node_id()');
isnt($id_a2, $id_a, 'the promoted standby writes under a new id');

# a goes on (its increments reach b); then a is gone for good
ok($mesh->run_workload([ $a, $b ], 2, 40, \@keys), 'a and b take increments after the fork');
ok($mesh->wait_converged('a and b after the fork'), 'a and b converge');
$mesh->check_state('a and b after the fork', \@keys);
$b->safe_psql('postgres', 'DROP SUBSCRIPTION s_b_a');
$a->safe_psql('postgres', 'DROP SUBSCRIPTION s_a_b');
$a->stop;

# a2 joins b by the failover recipes, and takes increments under its id
replication_recipe($a2, 'failover/promoted', { b => $b });
$a2->append_conf('postgresql.conf', 'max_logical_replication_workers = 12');
$a2->restart;
replication_recipe($b, 'failover/peers', { a2 => $a2 });
wait_workers($_, 1) for ($a2, $b);
$mesh->{nodes} = [ $a2, $b ];
ok($mesh->wait_converged('a2 joined'), 'a2 and b converge');
$mesh->check_state('a2 joined', \@keys);
ok($mesh->run_workload([ $a2, $b ], 2, 40, \@keys), 'a2 and b take increments');
like($a2->safe_psql('postgres', recipe('retire/report')),
	qr/^page_views\|views\|\Q$id_a\E\|12\|\d+\|f\|0\|0\|the default id of timeline 1 of this cluster, which ended$/m,
	'on a2, the report names a\'s id as the id of an ended timeline');

# a2 folds a's id while increments run; runs again until nothing is pending
my @run = $mesh->start_workload([ $b ], 1, 40, \@keys);
is($a2->safe_psql('postgres', retire_recipe('fold', $id_a)), 'page_views|views|12',
	'the fold of a on a2 changes the twelve counters');
ok($mesh->finish_workload(@run), 'increments on b during the fold acknowledged');
my $rounds = 1;
for (1 .. 5)
{
	ok($mesh->wait_converged("a folded, round $rounds"), "converged, round $rounds");
	my $left = join('', map { $_->safe_psql('postgres', retire_recipe('check', $id_a)) } ($a2, $b));
	last if $left eq '';
	$a2->safe_psql('postgres', retire_recipe('fold', $id_a));
	$rounds++;
}
note("fold of a finished after $rounds run(s)");
for my $n ($a2, $b)
{
	is($n->safe_psql('postgres', retire_recipe('check', $id_a)), '',
		'retire/check of a is quiet on ' . $n->name);
	is(max_writers($n), 2, 'counters carry two writer ids on ' . $n->name);
}
$mesh->check_state('a folded', \@keys);

# a's id cannot write any more
my ($rc, $out, $err) = $b->psql('postgres',
	"SELECT counter_crdt_increment(views, 1, '$id_a') FROM page_views WHERE page = 'p1'");
ok($rc != 0 && $err =~ /writer id is retired/, 'an increment under the retired id fails')
  or diag($err);
($rc, $out, $err) = $b->psql('postgres',
	"SELECT counter_crdt_increment(views, 1, '$id_a', 1000000) FROM page_views WHERE page = 'p1'",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/55000/, 'an exactly-once increment under it too, with 55000');

# ---------------------------------------------------------------------
# Forget both, c first (a holds c's fold), on both servers, until no record
# of them is left anywhere.
($rc, $out, $err) = $b->psql('postgres', retire_recipe('forget', $id_a));
ok($rc != 0 && $err =~ /holds the fold of another retired writer/,
	'a cannot be forgotten before c')
  or diag($err);
my $forget_rounds = 0;
for (1 .. 5)
{
	$forget_rounds++;
	for my $n ($a2, $b)
	{
		$n->safe_psql('postgres', retire_recipe('forget', $_)) for ($id_c, $id_a);
	}
	ok($mesh->wait_converged("forgotten, round $forget_rounds"), "converged, forget round $forget_rounds");
	last if !grep { ids_on($_) =~ /\Q$id_a\E|\Q$id_c\E/ } ($a2, $b);
}
note("forgotten everywhere after $forget_rounds round(s)");
# each server's list holds both, forgotten; their ids write on no counter,
# also a new one, now that no record is left
for my $n ($a2, $b)
{
	is(join(',', sort split /\n/, $n->safe_psql('postgres', recipe('retire/list'))),
		join(',', sort map { "$_|t" } ($id_a, $id_c)),
		'retire/list: a and c forgotten on ' . $n->name);
	for my $id ($id_a, $id_c)
	{
		($rc, $out, $err) = $n->psql('postgres',
			"SELECT counter_crdt_increment('{}'::counter_crdt, 1, '$id', 1)");
		ok($rc != 0 && $err =~ /writer id is retired/,
			'after forgetting, a listed id cannot write on ' . $n->name)
		  or diag($err);
	}
}
my $live = join(',', sort ($id_a2, $id_b));
is(ids_on($_), $live, 'only the live ids are left on ' . $_->name) for ($a2, $b);
$mesh->check_state('forgotten', \@keys);
is($b->safe_psql('postgres', recipe('retire/report')),
	$b->safe_psql('postgres', "SELECT 'page_views|views|' || s.id || '|' || count(*) || '|' || max(s.clock) || '|' || (s.id = counter_crdt_node_id()) || '|0|0|' FROM page_views, counter_crdt_shards(views) s GROUP BY s.id ORDER BY count(*) DESC, s.id")
	  =~ s/\|true\|/|t|/r =~ s/\|false\|/|f|/r,
	'the report lists the live writers only');

# c's old backup once more: unstripped it counts c and a again (on a copy);
# stripped of both by the recipe, exact
$b->safe_psql('postgres',
	"CREATE TABLE restored_page_views (page text PRIMARY KEY, views counter_crdt);
	 INSERT INTO restored_page_views VALUES $old_rows;");
my $double = $b->safe_psql('postgres', q{
	CREATE TEMP TABLE try (LIKE page_views INCLUDING ALL);
	INSERT INTO try SELECT * FROM page_views;
	INSERT INTO try SELECT page, views FROM restored_page_views
	ON CONFLICT (page) DO UPDATE SET views = counter_crdt_merge(try.views, EXCLUDED.views);
	SELECT (SELECT sum(views::bigint) FROM try) > (SELECT sum(views::bigint) FROM page_views)});
is($double, 't', 'an unstripped old copy would count the forgotten writers again');
$b->safe_psql('postgres',
	"UPDATE restored_page_views SET views = counter_crdt_strip(views, '$id_a')");
$b->safe_psql('postgres', retire_recipe('strip', $id_c));
$b->safe_psql('postgres', 'DROP TABLE restored_page_views');
ok($mesh->wait_converged('stripped copy merged'), 'converged after the stripped copy');
$mesh->check_state('stripped copy merged', \@keys);
is(ids_on($_), $live, 'still only the live ids on ' . $_->name) for ($a2, $b);
# allowed: the errors the test provokes (a retired id writing, a forget out
# of order), a2's walreceiver stopped by the promotion, and c's apply worker
# asking for its slot while c's subscriptions were being dropped
$mesh->check_logs('retire',
	qr/writer id is retired|invalid counter_crdt argument|terminating walreceiver process due to administrator command|replication slot "s_c_[ab]" does not exist/);

done_testing();
