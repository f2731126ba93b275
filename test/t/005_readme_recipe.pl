# The replication recipe of doc/replication.md, run as written on three servers a, b and c
# (test/t/ReadmeMesh.pm: only host names, ports and the example network are
# substituted), must give servers that converge exactly: concurrent
# increments on all three and a delete racing increments end with identical
# states, every value the sum of the increments acknowledged to clients.
# A README change that breaks the recipe (two subscriptions with one name,
# a step missing, a step out of order) makes this test fail.  Last, the
# recipes of "Many writers" on the same servers: the table settings, a stored
# generated value column with its index (equal to the counter's value on
# every server; the top-pages query answered by the index gives the same rows
# everywhere), and the count of writers.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use IPC::Run ();
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeMesh;
use ReadmeRecipe;

srand(13);

my %node = readme_mesh();
my @nodes = @node{qw(a b c)};

# The writer ids of step 2 are the rack ids the README says they are.
foreach my $i (1 .. 3)
{
	my $n = $nodes[ $i - 1 ];
	is($n->safe_psql('app',
			"SELECT counter_crdt_node_id() = counter_crdt_rack_id('dc1', 'rack$i')"),
		't', $n->name . "'s writer id is counter_crdt_rack_id('dc1', 'rack$i')");
	is($n->safe_psql('app',
			q{SELECT tgenabled FROM pg_trigger
			   WHERE tgrelid = 'page_views'::regclass AND tgname = 'counter_crdt_replica_merge'}),
		'R', $n->name . ': the merge trigger is enabled as a replica trigger');
}

# The subscriptions log in as the recipe's role, with its password: the
# pg_hba.conf line of step 1 comes first, before the trust lines of the test
# set-up.
foreach my $n (@nodes)
{
	is($n->safe_psql('postgres',
			q{SELECT string_agg(DISTINCT usename, ',') FROM pg_stat_replication}),
		'replicator', $n->name . ': both walsenders serve the role replicator');
	like(slurp_file($n->logfile),
		qr/connection authenticated: identity="replicator" method=scram-sha-256/,
		$n->name . ': the subscriptions authenticated with scram-sha-256');
}

my $mesh = readme_counters(@nodes);

# The README's increment, once on each server: /home is 3 everywhere.
readme_run($_, 'app', 'replication/increment') foreach @nodes;
$mesh->{expected}{'/home'} = 3;
ok($mesh->wait_converged('one increment per server'),
	'one increment per server: quiescence reached');
$mesh->check_state('one increment per server', ['/home']);

# The ENABLE TRIGGER ALL hazard: the README's query finds it, its one
# statement repairs it.
$mesh->query($node{a}, 'ALTER TABLE page_views ENABLE TRIGGER ALL');
is(readme_run($node{a}, 'app', 'hazards/find-merge-not-replica'),
	'page_views|O', 'the hazard query finds the merge trigger made ordinary');
readme_run($node{a}, 'app', 'hazards/enable-replica-trigger');
is(readme_run($node{a}, 'app', 'hazards/find-merge-not-replica'),
	'', 'after the repair statement the hazard query finds nothing');

# Concurrent increments and decrements on all three servers, with upserts
# racing to create new pages.
my @pages = ('/home', map { "/p$_" } 1 .. 12);
ok($mesh->run_workload(\@nodes, 2, 200, \@pages),
	'concurrent workload: every statement acknowledged');
ok($mesh->wait_converged('concurrent workload'),
	'concurrent workload: quiescence reached');
$mesh->check_state('concurrent workload', \@pages);
cmp_ok($mesh->query($node{a},
		'SELECT max(n) FROM (SELECT count(*) AS n FROM page_views, counter_crdt_shards(views) GROUP BY page) s'),
	'<=', 3, 'at most one shard per server in every counter');

# A delete on a racing increments on b: the delete wins on every server, the
# other pages keep their exact values.
my $race_sql = "UPDATE page_views SET views = views + 1 WHERE page = '/p1';\n" x 500;
my ($h, $out, $err) = start_script($node{b}, $node{b}->basedir . '/race.sql',
	$race_sql, 'app');
usleep(100_000);
is($mesh->query($node{a}, q{DELETE FROM page_views WHERE page = '/p1' RETURNING page}),
	'', 'delete race: the delete on a becomes a tombstone');
$h->finish;
ok($mesh->wait_converged('delete race'), 'delete race: quiescence reached');
is(join(',', map { $mesh->query($_, q{SELECT views FROM page_views WHERE page = '/p1'}) } @nodes),
	'tombstone,tombstone,tombstone', 'delete race: /p1 is a tombstone on every server');
$mesh->check_state('delete race', [ grep { $_ ne '/p1' } @pages ]);


# A subscription without tables (Troubleshooting): a's subscription to b
# loses the table while b's publication lacks it, and b counts meanwhile;
# once the publication has the table again, the README's REFRESH
# PUBLICATION with copy_data = true brings a (and through a, c) what b
# counted.
$mesh->query($node{b}, 'ALTER PUBLICATION page_views_pub DROP TABLE page_views');
$mesh->query($node{a}, 'ALTER SUBSCRIPTION page_views_a_from_b REFRESH PUBLICATION');
like(readme_run($node{a}, 'app', 'replication/check'),
	qr/^page_views_a_from_b\|0\|t$/m, 'the check of step 4 shows a subscription without tables');
my @live = grep { $_ ne '/p1' } @pages;
ok($mesh->run_workload([ $node{b} ], 1, 100, \@live),
	'b counts while its publication lacks the table: every statement acknowledged');
$mesh->query($node{b}, 'ALTER PUBLICATION page_views_pub ADD TABLE page_views');
readme_run($node{a}, 'app', 'troubleshooting/refresh-publication');
ok(readme_wait_subscriptions($node{a}, [ 'page_views_a_from_b', 'page_views_a_from_c' ]),
	'after REFRESH PUBLICATION, every subscription on a has its table');
$node{a}->poll_query_until('app',
	q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'})
  or die 'the copy of REFRESH PUBLICATION did not finish';
ok($mesh->wait_converged('refresh publication'), 'refresh publication: quiescence reached');
$mesh->check_state('refresh publication', \@live);

# Many writers (README "Many writers"): the table settings and the value
# column, run as written on every server of the replicated table, with the
# others replicating meanwhile.  The column is computed on each server from
# its merged counters: after convergence it equals views::bigint on every
# row of every server, and the top-pages query, answered by the index, gives
# the same rows everywhere.
foreach my $n (@nodes)
{
	readme_run($n, 'app', 'many-writers/table-settings');
	readme_run($n, 'app', 'many-writers/value-column');
	is($mesh->query($n,
			q{SELECT a.attstorage::text || ' ' || array_to_string(c.reloptions, ',')
			    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'views'
			   WHERE c.oid = 'page_views'::regclass}),
		'm toast_tuple_target=8160', $n->name . ': views is stored MAIN, toast_tuple_target is 8160');
	is($mesh->query($n, 'SELECT * FROM counter_crdt_health()'),
		'', $n->name . ': counter_crdt_health() accepts the generated column');
}
# Pages with small values and many ties (broken by page), made on a, then
# increments on all three servers into some of them and into the pages
# above, so that the top ten mixes both.
my @archive = map { "/archive/$_" } 1 .. 2000;
$mesh->query($node{a},
	q{INSERT INTO page_views
	  SELECT '/archive/' || i, NULL::counter_crdt + i % 40 FROM generate_series(1, 2000) i});
$mesh->{expected}{"/archive/$_"} = $_ % 40 foreach 1 .. 2000;
my @hot = (@live, @archive[ 0 .. 29 ]);
ok($mesh->run_workload(\@nodes, 2, 150, \@hot),
	'many writers: increments into the generated column\'s table acknowledged');
ok($mesh->wait_converged('value column'), 'value column: quiescence reached');
$mesh->check_state('value column', [ @live, @archive ]);
my $top = readme_run($node{a}, 'app', 'many-writers/top-pages');
note("top pages on a:\n$top");
my @top_rows = split /\n/, $top;
is(scalar(@top_rows), 10, 'the top-pages recipe returns ten rows');
foreach my $n (@nodes)
{
	is($mesh->query($n,
			'SELECT count(*) FROM page_views WHERE total_views IS DISTINCT FROM views::bigint'),
		'0', $n->name . ': total_views equals views::bigint on every row');
	is($mesh->query($n, q{SELECT total_views IS NULL FROM page_views WHERE page = '/p1'}),
		't', $n->name . ': the deleted page has no total_views');
	is(readme_run($n, 'app', 'many-writers/top-pages'), $top,
		$n->name . ': the top pages are the same rows as on a');
	is($top,
		$mesh->query($n,
			q{SELECT page, views::bigint FROM page_views
			   ORDER BY views::bigint DESC NULLS LAST, page LIMIT 10}),
		$n->name . ': they are the ten highest counters');
	my $plan = $mesh->query($n, 'EXPLAIN (COSTS OFF) ' . recipe('many-writers/top-pages'));
	like($plan, qr/Index (Only )?Scan using page_views_top on page_views/,
		$n->name . ': the top-pages query reads the index');
	unlike($plan, qr/Sort/, $n->name . ': and sorts nothing') or diag($plan);
	note($n->name . ": $plan");
}
# The count recipe: the writers per counter, as the shards count them, the
# same on every server; /p1 (a tombstone) carries none, no counter more
# than one per server.
my $count = readme_run($node{a}, 'app', 'many-writers/count');
is($count,
	$mesh->query($node{a},
		q{SELECT n, count(*) FROM (SELECT (SELECT count(*) FROM counter_crdt_shards(views)) AS n
		                            FROM page_views) s GROUP BY n ORDER BY n}),
	'the count recipe counts the shards');
like($count, qr/^0\|1$/m, 'one counter (the deleted page) carries no writer');
unlike($count, qr/^(?:[4-9]|\d\d+)\|/m, 'no counter carries more than three writers');
is(readme_run($_, 'app', 'many-writers/count'), $count,
	$_->name . ': the same count of writers as on a') foreach @nodes[ 1, 2 ];

$mesh->check_logs('recipe');
$mesh->check_idle('recipe');

$_->stop('fast') foreach @nodes;
done_testing();
