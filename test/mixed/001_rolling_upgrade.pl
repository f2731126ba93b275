# The rolling upgrade of doc/upgrading.md ("Upgrading PostgreSQL, one server at a
# time"), run as written on the README's three servers: a, b and c start on
# the old PostgreSQL (COUNTER_CRDT_OLD_INSTALL, a 15), set up by the
# replication recipe, and are upgraded to the PostgreSQL in PATH (17) one by
# one with pg_upgrade, while the others take increments.  After each server
# is back: the mesh of old and new servers converges, every value is the sum
# of the increments acknowledged on any server (also those made while the
# server was away, and on it just before it left), a delete made during the
# mixed phase is a tombstone everywhere, and counter_crdt_health() is quiet.
#
# a's blocks run as written (paths, hosts and ports substituted); b and c
# are upgraded "the same way": the same blocks with the servers' names
# exchanged.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use File::Spec ();
use File::Temp ();
use FindBin;
use lib "$FindBin::RealBin/../t";
use SignalExit;
use CounterCrdtSQL;
use ReadmeMesh;
use ReadmeRecipe;

my $old_install = $ENV{COUNTER_CRDT_OLD_INSTALL}
  or die 'COUNTER_CRDT_OLD_INSTALL must name the old PostgreSQL installation';
srand(17);

my %node = readme_mesh(install_path => $old_install);
my $old_version = $node{a}->safe_psql('postgres', 'SHOW server_version_num');
my $mesh = readme_counters(@node{qw(a b c)});
my @live = map { "/p$_" } 1 .. 10;

ok($mesh->run_workload([ @node{qw(a b c)} ], 2, 100, \@live),
	"old mesh: increments on all three acknowledged");
ok($mesh->wait_converged('old mesh'), 'old mesh: converged');
$mesh->check_state('old mesh', \@live);

# The README host $h's connection, as the blocks write it and as it is.
sub host
{
	my ($h, $n) = @_;
	return ("host=$h port=5432" => 'host=' . $n->host . ' port=' . $n->port);
}

# Waits until the copy check of the rejoin shows, on $n, the table of each
# subscription of @subs copied (state r), as the blocks of the rejoin wait
# before the next copy.
sub wait_copies
{
	my ($n, @subs) = @_;
	return readme_poll($n, 'rolling-upgrade/copy-check', sub {
			my %state = map { split /\|/ } split /\n/, $_[0];
			return !grep { ($state{$_} // '') ne 'r' } @subs;
		}, $PostgreSQL::Test::Utils::timeout_default, "in state r: @subs");
}

# Upgrades server $x by the README's blocks, while the two others take
# increments.  The blocks are a's; for b and c the servers' names are
# exchanged (the subscription names and the hosts).
sub upgrade
{
	my ($x) = @_;
	my ($y, $z) = grep { $_ ne $x } qw(a b c);
	my $old = $node{$x};

	# increments on the leaving server just before it leaves; then it drops
	# its subscriptions, and the others theirs to it
	ok($mesh->run_workload([$old], 1, 50, \@live), "$x: increments before it leaves acknowledged");
	readme_run_subst($old, 'app', 'rolling-upgrade/leave-a', {
			page_views_a_from_b => "page_views_${x}_from_$y",
			page_views_a_from_c => "page_views_${x}_from_$z" });
	readme_run_subst($node{$y}, 'app', 'rolling-upgrade/leave-b',
		{ page_views_b_from_a => "page_views_${y}_from_$x" });
	readme_run_subst($node{$z}, 'app', 'rolling-upgrade/leave-c',
		{ page_views_c_from_a => "page_views_${z}_from_$x" });
	# more increments on it, which only the copies can bring to the others
	ok($mesh->run_workload([$old], 1, 50, \@live), "$x: increments after the others left it acknowledged");
	my $before = $mesh->query($old, $mesh->digest_query);
	$old->stop('fast');

	# the others count while it is away
	my @run = $mesh->start_workload([ @node{ $y, $z } ], 1, 100, \@live);

	my $new = readme_node($x, node_name => "${x}_new", before_start => sub {
		my ($n) = @_;
		my $cwd = File::Temp::tempdir(DIR => $n->basedir, CLEANUP => 0);
		my ($from, $to) = map { File::Spec->rel2abs($_->data_dir) } ($old, $n);
		my $sh = recipe('rolling-upgrade/pg_upgrade', {
			'/usr/lib/postgresql/15/bin' => "$old_install/bin",
			'/usr/lib/postgresql/17/bin' => $n->config_data('--bindir'),
			'/var/lib/postgresql/15/main' => $from,
			'/var/lib/postgresql/17/main' => $to,
			'/etc/postgresql/15/main/postgresql.conf' => "$from/postgresql.conf",
			'/etc/postgresql/17/main/postgresql.conf' => "$to/postgresql.conf" });
		# the old installation's libraries, as its own nodes get them (a
		# copy of another system's PostgreSQL may bring some along)
		local $ENV{LD_LIBRARY_PATH} =
		  join(':', "$old_install/lib", $ENV{LD_LIBRARY_PATH} // ());
		my $ok = run_log([ 'bash', '-e', '-c', "cd '$cwd' && $sh" ]);
		ok($ok, "$x: the pg_upgrade block runs");
		die "pg_upgrade of $x failed" unless $ok;
	});
	$node{$x} = $new;
	cmp_ok($new->safe_psql('postgres', 'SHOW server_version_num'), '>', $old_version,
		"$x: runs the new PostgreSQL");
	is($mesh->query($new, $mesh->digest_query), $before, "$x: the upgraded server has the counters it had");
	# its writer id, as step 2 sets it
	my $i = { a => 1, b => 2, c => 3 }->{$x};
	readme_run($new, 'app', "replication/writer-id-$x");
	is($new->safe_psql('app', "SELECT counter_crdt_node_id() = counter_crdt_rack_id('dc1', 'rack$i')"),
		't', "$x: its writer id is the one it had");

	# its subscriptions, and then the others' to it, with copies, one copy at
	# a time (two at once on one server can deadlock)
	readme_run_subst($new, 'app', 'rolling-upgrade/rejoin-a-from-b',
		{ page_views_a_from_b => "page_views_${x}_from_$y", host('b', $node{$y}) });
	ok(wait_copies($new, "page_views_${x}_from_$y"), "$x: its copy from $y is done");
	readme_run_subst($new, 'app', 'rolling-upgrade/rejoin-a-from-c',
		{ page_views_a_from_c => "page_views_${x}_from_$z", host('c', $node{$z}) });
	ok(wait_copies($new, "page_views_${x}_from_$y", "page_views_${x}_from_$z"),
		"$x: its copy from $z is done");
	ok($mesh->finish_workload(@run), "$x: increments on the others while it was away acknowledged");
	foreach my $o ($y, $z)
	{
		readme_run_subst($node{$o}, 'app', 'rolling-upgrade/rejoin-b',
			{ page_views_b_from_a => "page_views_${o}_from_$x", host('a', $new) });
		ok(wait_copies($node{$o}, "page_views_${o}_from_$x"), "$o: its copy from $x is done");
	}
	$mesh->{nodes} = [ @node{qw(a b c)} ];
	foreach my $s (qw(a b c))
	{
		ok(readme_wait_subscriptions($node{$s},
				[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c) ]),
			"$x back: every subscription on $s has its table and a running worker");
	}
	return;
}

foreach my $x (qw(a b c))
{
	upgrade($x);
	ok($mesh->wait_converged("$x upgraded"), "$x upgraded: converged");
	$mesh->check_state("$x upgraded", \@live);
	note("$x upgraded: a, b, c run "
		  . join(', ', map { $_->safe_psql('postgres', 'SHOW server_version') } @node{qw(a b c)}));
	# the mixed (or new) mesh under increments on all three
	ok($mesh->run_workload([ @node{qw(a b c)} ], 2, 100, \@live),
		"$x upgraded: increments on all three acknowledged");
	ok($mesh->wait_converged("$x upgraded, increments"), "$x upgraded, increments: converged");
	$mesh->check_state("$x upgraded, increments", \@live);
	is(join(',', map { $_->safe_psql('app', 'SELECT count(*) FROM counter_crdt_health()') } @node{qw(a b c)}),
		'0,0,0', "$x upgraded: health is quiet on all three");
	next unless $x eq 'a';

	# In the mixed mesh (a new, b and c old): a delete on a, racing
	# increments on b, is a tombstone everywhere.
	my $race = "UPDATE page_views SET views = views + 1 WHERE page = '/p1';\n" x 200;
	my ($h) = start_script($node{b}, $node{b}->basedir . '/race.sql', $race, 'app');
	is($node{a}->safe_psql('app', q{DELETE FROM page_views WHERE page = '/p1' RETURNING page}),
		'', 'mixed mesh: a delete on the new server becomes a tombstone');
	$h->finish;
	ok($mesh->wait_converged('mixed delete'), 'mixed delete: converged');
	is(join(',', map { $_->safe_psql('app', q{SELECT views FROM page_views WHERE page = '/p1'}) } @node{qw(a b c)}),
		'tombstone,tombstone,tombstone', 'mixed delete: a tombstone on every server');
	@live = grep { $_ ne '/p1' } @live;
	$mesh->check_state('mixed delete', \@live);
}

$mesh->check_logs('rolling upgrade',
	qr/replication slot "page_views_\w+" does not exist|could not start WAL streaming/);
$mesh->check_idle('rolling upgrade');
$_->stop('fast') foreach values %node;
done_testing();
