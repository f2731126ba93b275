# The join and repair recipes of doc/replication.md, run as written (test/t/ReadmeMesh.pm)
# on servers set up by its replication recipe:
#
#  1. a server d with rows of its own (its own increments, and an old copy of
#     a's table) joins the running mesh of a, b and c with copy_data = true,
#     while a, b and c keep taking increments;
#  2. c's subscription to a loses its slot while the others keep writing,
#     and is re-created with copy_data = true.
#
# Both end with every server holding identical states whose values are the
# sums of all acknowledged increments.  In 2., c's other subscription is
# held back until the copy is done, so that the copy alone must bring c what
# a wrote while the slot was gone.
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

srand(8);

my %node = readme_mesh();
my ($na, $nb, $nc) = @node{qw(a b c)};
my $mesh = readme_counters($na, $nb, $nc);
my @pages = map { "/p$_" } 1 .. 10;

ok($mesh->run_workload([ $na, $nb, $nc ], 1, 150, \@pages),
	'mesh workload: every statement acknowledged');
ok($mesh->wait_converged('mesh'), 'mesh: quiescence reached');

# ---------------------------------------------------------------------
# 1. Server d, with rows of its own, joins.
my $nd = readme_node('d');
$nd->safe_psql('postgres', 'CREATE DATABASE app');
$nd->safe_psql('app', q{
	CREATE EXTENSION counter_crdt;
	CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);
});
# An old copy of a's table, and then d's own increments (under its default
# writer id) of pages the mesh has and of pages it has not.
my $old_a = $na->safe_psql('app', 'SELECT page, views FROM page_views ORDER BY page');
$nd->safe_psql('app', "COPY page_views FROM STDIN (FORMAT text, DELIMITER '|');\n$old_a\n\\.\n")
  if $old_a ne '';
my $d_own = readme_counters($nd);
ok($d_own->run_workload([$nd], 1, 100, [ '/p1', '/p2', '/d1', '/d2' ]),
	'd counts on its own: every statement acknowledged');
$mesh->{expected}{$_} += $d_own->{expected}{$_} foreach keys %{ $d_own->{expected} };

# More increments on the mesh, while d joins.
my @more = $mesh->start_workload([ $na, $nb, $nc ], 1, 150, [ @pages, '/d1' ]);
readme_run($nd, 'app', 'replication/join-setup-d');
readme_run($nd, 'app', 'replication/join-retired-d', qw(a b c));
readme_run($nd, 'app', 'replication/join-subscribe-d', qw(a b c));
readme_join_copies($nd, 'join', 3);
readme_run($node{$_}, 'app', "replication/join-subscribe-$_", 'd') foreach qw(a b c);
ok($mesh->finish_workload(@more), 'workload during the join: every statement acknowledged');

push @{ $mesh->{nodes} }, $nd;
foreach my $s (qw(a b c d))
{
	ok(readme_wait_subscriptions($node{$s} // $nd,
			[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c d) ]),
		"join: the subscriptions of $s have their table and a running worker");
}
wait_copies_done($_) foreach ($na, $nb, $nc, $nd);
is($nd->safe_psql('app', 'SELECT counter_crdt_node_id() = counter_crdt_rack_id(\'dc1\', \'rack4\')'),
	't', "d's writer id is counter_crdt_rack_id('dc1', 'rack4')");
ok($mesh->wait_converged('join'), 'join: quiescence reached');
$mesh->check_state('join', [ @pages, '/d1', '/d2' ]);
ok($mesh->run_workload([ $na, $nb, $nc, $nd ], 1, 100, [ @pages, '/d1', '/d2' ]),
	'after the join, all four count: every statement acknowledged');
ok($mesh->wait_converged('after the join'), 'after the join: quiescence reached');
$mesh->check_state('after the join', [ @pages, '/d1', '/d2' ]);
$mesh->check_logs('join');

# ---------------------------------------------------------------------
# 2. The slot of c's subscription to a is lost while the others write.
# c's subscriptions to b and d are held back, so that nothing of what a
# writes meanwhile reaches c on another path.
$nc->safe_psql('app', "ALTER SUBSCRIPTION page_views_c_from_$_ DISABLE") foreach qw(a b d);
$na->poll_query_until('postgres',
	q{SELECT NOT active FROM pg_replication_slots WHERE slot_name = 'page_views_c_from_a'})
  or die 'the walsender of page_views_c_from_a did not stop';
$na->safe_psql('postgres', q{SELECT pg_drop_replication_slot('page_views_c_from_a')});
$nc->safe_psql('app', 'ALTER SUBSCRIPTION page_views_c_from_a ENABLE');
ok($mesh->run_workload([ $na, $nb, $nc, $nd ], 1, 150, [ @pages, '/r1' ]),
	'while the slot is gone: every statement acknowledged');
ok($nc->wait_for_log(qr/replication slot "page_views_c_from_a" does not exist/),
	"c's log shows the error the README names");

readme_run($nc, 'app', 'replication/repair-c-from-a', 'a');
wait_copies_done($nc);
$na->wait_for_catchup('page_views_c_from_a');
# a has what a, b and d wrote (and c, before and while the slot was gone):
# after the copy alone, c holds what a holds.
$mesh->{nodes} = [ $na, $nb, $nd ];
ok($mesh->wait_converged('a, b and d while c is held back'), 'a, b and d converge');
$na->wait_for_catchup('page_views_c_from_a');
my $dq = $mesh->digest_query;
is($mesh->query($nc, $dq), $mesh->query($na, $dq),
	'after the repair, c holds what a holds, by the copy alone');

$nc->safe_psql('app', "ALTER SUBSCRIPTION page_views_c_from_$_ ENABLE") foreach qw(b d);
$mesh->{nodes} = [ $na, $nb, $nc, $nd ];
ok($mesh->wait_converged('repair'), 'repair: quiescence reached');
$mesh->check_state('repair', [ @pages, '/d1', '/d2', '/r1' ]);
$mesh->check_logs('repair',
	qr/replication slot "page_views_c_from_a" does not exist/);
$mesh->check_idle('repair');

$_->stop('fast') foreach ($na, $nb, $nc, $nd);
done_testing();

# Waits until every table of every subscription on $node is ready (its
# initial copy done).
sub wait_copies_done
{
	my ($node) = @_;
	ok($node->poll_query_until('app',
			q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'}),
		'the initial copies on ' . $node->name . ' are done');
	return;
}
