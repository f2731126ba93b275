# The late routes of a retired writer (issue 28, item 6): copies from before
# a fold that arrive after it was forgotten.  Servers a, b and c set up by
# the replication recipe of doc/replication.md; a writer W (a finished
# exactly-once stream, written on a) is folded and forgotten by the recipes
# of doc/retiring-writers.md, after a base backup of c was taken.
#
#  (b) A copy of that backup, e, is only a publisher: b subscribes to it
#      (a subscription owned by a role that is no superuser and may not
#      touch the extension's tables).  b drops W from what it applies and
#      stays exact, and says so: counter_crdt_health() on b has a row
#      forgotten_writer_dropped naming the subscription, the writer and the
#      number of rows, from the initial copy and from a streamed change
#      (recorded with their replication origins); a and c have none.
#  (a) Another copy, d, joins the mesh as doc/replication.md says for a
#      server made from a backup (backup-postgresql.conf, backup-setup-d,
#      join-retired-d, the join's subscriptions), as written.  All four
#      converge exactly: identical digests, every value the sum of the
#      acknowledged increments, W nowhere, no server reporting a dropped
#      writer.  Unstripped, d's rows from the backup would have counted W
#      a second time (checked on a copy of the table).
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeMesh;
use ReadmeRecipe;

srand(18018);

my %node = readme_mesh();
my ($na, $nb, $nc) = @node{qw(a b c)};
my $mesh = readme_counters($na, $nb, $nc);
my @pages = map { "/p$_" } 1 .. 10;
my $W = '5f0c8a9e-6d1b-4f3a-9c2e-7b4d1e8a2f60';    # the writer to retire, as in the doc

# W's exactly-once increments on a: clock $clock, $mult * i on page /pi.
sub stream_w
{
	my ($clock, $mult) = @_;
	my ($sql, $delta) = stream_increments($W, $clock, $mult, 10);
	$mesh->{expected}{$_} += $delta->{$_} foreach keys %$delta;
	$na->safe_psql('app', $sql);
	return;
}

# The ids that page_views' counters on $node carry as shards or records.
sub ids_on { return page_view_ids($_[0], 'app'); }

sub retire_recipe
{
	my ($name) = @_;
	return recipe("retire/$name", { '5f0c8a9e-6d1b-4f3a-9c2e-7b4d1e8a2f60' => $W });
}

sub dropped_health
{
	my ($node) = @_;
	return $node->safe_psql('app',
		q{SELECT problem FROM counter_crdt_health() WHERE "check" = 'forgotten_writer_dropped'});
}

# A copy of c's base backup as server $name, started as the doc says: no
# apply worker (backup-postgresql.conf) until backup-setup-d has run.
sub from_backup
{
	my ($name) = @_;
	return readme_node($name, from_backup => [ $nc, 'c_pre' ],
		before_start => sub {
			$_[0]->append_conf('postgresql.conf', recipe('replication/backup-postgresql.conf'));
		});
}

# "Take the max_logical_replication_workers line out of postgresql.conf
# again and restart."
sub conf_line_out
{
	my ($node) = @_;
	my $line = recipe('replication/backup-postgresql.conf');
	my $file = $node->data_dir . '/postgresql.conf';
	my $conf = slurp_file($file);
	ok(index($conf, $line) >= 0, $node->name . ': the recipe line is in postgresql.conf');
	$conf =~ s/\Q$line\E//;
	open(my $fh, '>', $file) or die "cannot write $file: $!";
	print $fh $conf;
	close($fh);
	$node->restart;
	return;
}

# ---------------------------------------------------------------------
ok($mesh->run_workload([ $na, $nb, $nc ], 1, 100, \@pages), 'mesh increments acknowledged');
stream_w(1, 10);
ok($mesh->wait_converged('before the backup'), 'three servers converge');
$mesh->check_state('before the backup', \@pages);
like(ids_on($nc), qr/\Q$W\E/, 'c carries W');

# c's base backup, from before the fold; then more of everything
$nc->backup('c_pre');
ok($mesh->run_workload([ $na, $nb, $nc ], 1, 100, \@pages), 'more increments acknowledged');
stream_w(2, 1);
ok($mesh->wait_converged('after the backup'), 'three servers converge again');

# W is finished: folded on a, checked everywhere, forgotten everywhere
is($na->safe_psql('app', retire_recipe('fold')), 'page_views|views|10',
	'the fold of W on a changes the ten counters');
ok($mesh->wait_converged('W folded'), 'converged after the fold');
is($_->safe_psql('app', retire_recipe('check')), '', 'retire/check is quiet on ' . $_->name)
  for ($na, $nb, $nc);
my $rounds = 0;
for (1 .. 5)
{
	$rounds++;
	$_->safe_psql('app', retire_recipe('forget')) for ($na, $nb, $nc);
	ok($mesh->wait_converged("forget round $rounds"), "converged, forget round $rounds");
	last if !grep { ids_on($_) =~ /\Q$W\E/ } ($na, $nb, $nc);
}
for my $n ($na, $nb, $nc)
{
	unlike(ids_on($n), qr/\Q$W\E/, 'W is forgotten on ' . $n->name);
	is($n->safe_psql('app', recipe('retire/list')), "$W|t", 'retire/list on ' . $n->name);
}
$mesh->check_state('W forgotten', \@pages);

# ---------------------------------------------------------------------
# (b) e, a copy of the backup, publishes; b subscribes to it.  The
# subscription's owner may apply page_views and nothing of the extension.
my $ne = from_backup('e');
readme_run_subst($ne, 'app', 'replication/backup-setup-d',
	{ '658c0aa2-d0e7-31fa-b458-55fc3f5d6c66' => '00000000-0000-4000-8000-00000000000e' });
is($ne->safe_psql('app', 'SELECT count(*) FROM pg_subscription'), '0',
	'e: the subscriptions it inherited from c are dropped');
like(ids_on($ne), qr/\Q$W\E/, 'e, from before the fold, carries W');
my $e_conn = 'host=' . $ne->host . ' port=' . $ne->port
  . ' dbname=app user=replicator password=change-this-secret';
# From PostgreSQL 16 the apply runs as each table's owner unless
# run_as_owner is set, and the owner must be able to SET ROLE to it: here
# the apply is to run as late_owner, with its own rights.
my $run_as_owner = $nb->safe_psql('app', 'SHOW server_version_num') >= 160000
  ? ', run_as_owner = true' : '';
$nb->safe_psql('app', qq{
	CREATE ROLE late_owner LOGIN SUPERUSER;
	GRANT SELECT, INSERT, UPDATE ON page_views TO late_owner;
	CREATE SUBSCRIPTION page_views_b_from_e CONNECTION '$e_conn'
	  PUBLICATION page_views_pub WITH (copy_data = true, enabled = false$run_as_owner);
	ALTER SUBSCRIPTION page_views_b_from_e OWNER TO late_owner;
	ALTER ROLE late_owner NOSUPERUSER;
	ALTER SUBSCRIPTION page_views_b_from_e ENABLE;
});
is($nb->safe_psql('app', q{SELECT has_table_privilege('late_owner', 'counter_crdt_dropped_writers', 'INSERT')
	OR has_table_privilege('late_owner', 'counter_crdt_dropped_writers', 'SELECT')}),
	'f', 'the owner of b\'s subscription to e may neither read nor write counter_crdt_dropped_writers');
ok($nb->poll_query_until('app',
		q{SELECT count(*) = 1 FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid
		   WHERE s.subname = 'page_views_b_from_e' AND r.srsubstate = 'r'}),
	'b: the copy from e is done');
ok($mesh->wait_converged('e copied into b'), 'a, b and c converge after the copy from e');
$mesh->check_state('e copied into b', \@pages);
unlike(ids_on($nb), qr/\Q$W\E/, 'b dropped W from the copy');

my $sub_oid = $nb->safe_psql('app',
	q{SELECT oid FROM pg_subscription WHERE subname = 'page_views_b_from_e'});
is($nb->safe_psql('app', qq{
	SELECT count(*), count(DISTINCT key), bool_and(writers = ARRAY['$W']::uuid[]),
	       bool_and(subscription = 'page_views_b_from_e'), bool_and(origin LIKE 'pg_${sub_oid}_%')
	  FROM counter_crdt_dropped_writers}),
	'10|10|t|t|t',
	'b recorded the ten copied rows that carried W, with the subscription and the origin of its copy');
my $health = dropped_health($nb);
like($health,
	qr/^10 replicated rows of table page_views from subscription page_views_b_from_e \(replication origin pg_${sub_oid}_\d+\) brought shards of writer \Q$W\E, whose fold was forgotten on this server/,
	'health on b: forgotten_writer_dropped names the subscription, the writer and the rows')
  or diag($health);
is(dropped_health($_), '', 'health on ' . $_->name . ': nothing dropped') for ($na, $nc);

# a streamed change from e: recorded with the apply worker's origin
$ne->safe_psql('app', q{UPDATE page_views SET views = views WHERE page = '/p1'});
ok($nb->poll_query_until('app',
		"SELECT count(*) = 1 FROM counter_crdt_dropped_writers WHERE origin = 'pg_$sub_oid'"),
	'b recorded the streamed row from e with the origin pg_<subscription oid>');
like(dropped_health($nb),
	qr/^11 replicated rows of table page_views from subscription page_views_b_from_e \(replication origins pg_$sub_oid, pg_${sub_oid}_\d+\)/,
	'health on b: one row for the subscription, its copy and its stream (11 rows, both origins)');
$mesh->check_state('streamed row from e', \@pages);
my $hint = $nb->safe_psql('app',
	q{SELECT hint FROM counter_crdt_health() WHERE "check" = 'forgotten_writer_dropped' LIMIT 1});
like($hint, qr/DELETE FROM counter_crdt_dropped_writers WHERE table_name = 'page_views'::regclass;$/,
	'the hint says how to clear the rows');

$nb->safe_psql('app', 'DROP SUBSCRIPTION page_views_b_from_e');
$ne->stop('fast');
$nb->safe_psql('app', $hint =~ s/^.*(DELETE FROM .*)$/$1/r);
is(dropped_health($nb), '', 'health on b is quiet once the rows are cleared');

# ---------------------------------------------------------------------
# (a) d, another copy of the backup, joins by the recipe as written.
my $nd = from_backup('d');
readme_run($nd, 'app', 'replication/backup-setup-d');
is($nd->safe_psql('app', 'SELECT count(*) FROM pg_subscription'), '0',
	'd: the subscriptions it inherited from c are dropped');
conf_line_out($nd);
is($nd->safe_psql('app', q{SELECT counter_crdt_node_id() = counter_crdt_rack_id('dc1', 'rack4')}),
	't', "d's writer id is counter_crdt_rack_id('dc1', 'rack4')");
like(ids_on($nd), qr/\Q$W\E/, 'd, from before the fold, carries W');
my $d_rows = page_view_rows($nd, 'app');

readme_run($nd, 'app', 'replication/join-retired-d', qw(a b c));
is($nd->safe_psql('app', recipe('retire/list')), "$W|t", 'd has the mesh\'s list: W forgotten');
unlike(ids_on($nd), qr/\Q$W\E/, 'd\'s rows no longer carry W');
my ($rc, $out, $err) = $nd->psql('app',
	"SELECT counter_crdt_increment('{}'::counter_crdt, 1, '$W', 99)");
ok($rc != 0 && $err =~ /writer id is retired/, 'W cannot write on d') or diag($err);

readme_run($nd, 'app', 'replication/join-subscribe-d', qw(a b c));
readme_join_copies($nd, 'd joins', 3);
readme_run($node{$_}, 'app', "replication/join-subscribe-$_", 'd') foreach qw(a b c);
$node{d} = $nd;
push @{ $mesh->{nodes} }, $nd;
foreach my $s (qw(a b c d))
{
	ok(readme_wait_subscriptions($node{$s},
			[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c d) ]),
		"join: the subscriptions of $s have their table and a running worker");
	ok($node{$s}->poll_query_until('app',
			q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'}),
		"join: the copies on $s are done");
}
ok($mesh->wait_converged('d joined'), 'four servers converge');
$mesh->check_state('d joined', \@pages);
ok($mesh->run_workload([ $na, $nb, $nc, $nd ], 1, 60, \@pages), 'all four count');
ok($mesh->wait_converged('after the join'), 'four servers converge again');
$mesh->check_state('after the join', \@pages);
for my $n ($na, $nb, $nc, $nd)
{
	unlike(ids_on($n), qr/\Q$W\E/, 'no W on ' . $n->name);
	is(dropped_health($n), '', 'health on ' . $n->name . ': nothing dropped from d\'s rows');
}

# Unstripped, d's rows from the backup would have counted W twice.
is(merge_surplus($na, 'app', $d_rows),
	'550', 'merged unstripped, the backup\'s rows would add W\'s 550 again');

$mesh->check_logs('late routes',
	qr/replication slot "page_views_c_from_[ab]" does not exist|deadlock detected|writer id is retired|out of logical replication worker slots/);
$_->stop('fast') foreach ($na, $nb, $nc, $nd);
done_testing();
