# The pglogical recipe of doc/replication.md ("With pglogical"), run as written on three
# servers a, b and c (test/t/ReadmeMesh.pm: only host names, ports and the
# example network are substituted), must give servers that converge exactly
# when pglogical 2 carries the states:
#
#  - concurrent increments on all three;
#  - a row created on b and incremented on a while c does not hear from b:
#    c must get a's increment anyway (what forward_origins := '{all}' is in
#    the recipe for; with '{}' c skips a's update of a row it lacks);
#  - b restarted (fast and immediate) while a and c keep counting;
#  - a delete on a racing increments on b;
#  - a server d with rows of its own joining with synchronize_data := true
#    while a, b and c keep counting.
#  - d stopped: counter_crdt_health() and the recipe's check report a's
#    subscription to d as down, until d is back and the subscriptions to it
#    replicate again (the recipe's restart block run as written).
#
# Each step ends with identical digests on every server and every value the
# sum of the increments acknowledged to clients; the logs show no errors.
# Skipped only when pglogical is not installed for this PostgreSQL.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(time usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeMesh;
use ReadmeRecipe;

{
	my $probe = PostgreSQL::Test::Cluster->new('probe');
	my $lib = $probe->config_data('--pkglibdir');
	my $share = $probe->config_data('--sharedir');
	plan skip_all => "pglogical is not installed for this PostgreSQL ($lib/pglogical.so, "
	  . "$share/extension/pglogical.control; Debian: apt-get install postgresql-15-pglogical)"
	  unless -e "$lib/pglogical.so" && -e "$share/extension/pglogical.control";
}

srand(12);

# A server configured as step 1 of the pglogical recipe says: ReadmeMesh's
# server (for its test settings and the host substitutions of readme_run),
# with the pglogical configuration block after its own (a setting's last
# line counts) and the pglogical pg_hba.conf line first, then restarted.
sub pgl_node
{
	my ($name) = @_;
	my $node = readme_node($name);
	my $host = $node->host;
	my $conf = recipe('pglogical/postgresql.conf',
		{ "listen_addresses = '*'" => "listen_addresses = '$host'" });
	# The recipe's output_plugin_libraries line is for 15.19 and later: as
	# the recipe says, it is left out where the server does not know the
	# setting (it would not start with it).
	my $known = $node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'});
	if ($known eq '0')
	{
		my $n = ($conf =~ s/^output_plugin_libraries\b[^\n]*\n//mg);
		die "the pglogical recipe has no output_plugin_libraries line to leave out"
		  unless $n == 1;
	}
	$node->append_conf('postgresql.conf', $conf);
	my $hba = $node->data_dir . '/pg_hba.conf';
	my $rest = slurp_file($hba);
	open(my $fh, '>', $hba) or die "cannot write $hba: $!";
	print $fh recipe('pglogical/pg_hba.conf', { '192.0.2.0/24' => "$host/32" })
	  . "\n" . $rest;
	close($fh);
	$node->restart;
	return $node;
}

# Waits until pglogical's status shows, on $node, the subscriptions @$subs
# (and no others), each replicating, and every table synchronized.
#
# pglogical's manager starts a failed apply worker again on its next pass, 5 s
# after the failure it was woken for.  But it misses the wake-up when the
# worker fails within about a second of its start: the manager, still in
# wait_for_worker_startup() (pglogical_worker.c, which polls each second for
# the worker to attach), consumes the wake-up of the worker's exit and goes
# back to its timer, which grows to 180 s (MAX_SLEEP, pglogical_manager.c).
# b's restarts can do that to a worker for b that pglogical started while b
# was still starting, or just before b went away again; and a worker that
# fails so again at the next pass waits another 180 s.  The log shows only
# the worker's own error.  So a subscription still down 20 s into the wait
# gets what doc/replication.md ("When a subscription stays down") says a DBA
# does then: its block pglogical/restart-subscription, run as written for
# that subscription, which wakes the manager; then the default timeout.
my $restarted = 0;
my %server_restarted;    # node name => restarts the page's last step made

sub wait_replicating
{
	my ($node, $subs) = @_;
	my $want = join("\n", map { "$_|replicating" } sort @$subs);
	my $check = recipe('pglogical/check');
	my $got = '';
	my $start = time();
	my $deadline = $start + 20 + $PostgreSQL::Test::Utils::timeout_default;
	my %done;
	while (time() < $deadline)
	{
		$got = $node->safe_psql('app', $check);
		return 1
		  if $got eq $want
		  && $node->safe_psql('app',
			q{SELECT count(*) FROM pglogical.local_sync_status WHERE sync_status <> 'r'}) eq '0';
		if (time() - $start >= 20)
		{
			foreach my $sub (map { /^(\S+)\|down$/ ? $1 : () } split /\n/, $got)
			{
				if (!$done{$sub})
				{
					diag($node->name . ": $sub still down after "
						  . int(time() - $start) . " s: pglogical/restart-subscription");
					restart_subscription($node, $sub);
					$restarted++;
					$done{$sub} = time();
				}
				elsif ($done{$sub} > 0 && time() - $done{$sub} >= 30 && !$server_restarted{ $node->name }++)
				{
					# the page's next step: a worker slot that pglogical's
					# manager never clears goes with a restart of the server
					diag($node->name . ": $sub still down 30 s after its restart block: the server restarted");
					$node->restart;
					$done{$sub} = -1;
				}
			}
		}
		usleep(100_000);
	}
	diag("pglogical subscriptions on " . $node->name . ":\n$got\nexpected:\n$want");
	# Which of pglogical's processes run (a worker not attached to its slot
	# still shows here), for what the next failure says.
	diag("pglogical processes on " . $node->name . ":\n"
		  . $node->safe_psql('app',
			q{SELECT pid, backend_type, state, backend_start FROM pg_stat_activity
			   WHERE backend_type LIKE 'pglogical%' ORDER BY pid}));
	return 0;
}

# The recipe's block that starts a subscription's worker again, as written,
# for subscription $sub of $node.
sub restart_subscription
{
	my ($node, $sub) = @_;
	my ($rc, $out, $err) = $node->psql('app',
		recipe('pglogical/restart-subscription', { 'page_views_a_from_b' => $sub }),
		extra_params => [ '-v', 'ON_ERROR_STOP=1' ]);
	die "pglogical/restart-subscription failed on " . $node->name . ": $err" if $rc != 0;
	return;
}

my @names = qw(a b c);
my %node = map { ($_ => pgl_node($_)) } @names;
my @nodes = @node{@names};
foreach my $s (@names)
{
	readme_run($node{$s}, 'postgres', 'pglogical/setup');
	readme_run($node{$s}, 'app', "replication/writer-id-$s");
	readme_run($node{$s}, 'app', "pglogical/node-$s", $s);
	readme_run($node{$s}, 'app', 'pglogical/replication-set');
}
foreach my $s (@names)
{
	readme_run($node{$s}, 'app', "pglogical/subscribe-$s", grep { $_ ne $s } @names);
}
foreach my $s (@names)
{
	ok(wait_replicating($node{$s},
			[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } @names ]),
		"step 4 on $s: both subscriptions replicating")
	  or die "the pglogical subscriptions of $s do not replicate";
}

# pglogical's apply workers fire the merge trigger: it is a REPLICA trigger.
foreach my $n (@nodes)
{
	is($n->safe_psql('app',
			q{SELECT tgenabled FROM pg_trigger
			   WHERE tgrelid = 'page_views'::regclass AND tgname = 'counter_crdt_replica_merge'}),
		'R', $n->name . ': the merge trigger is enabled as a replica trigger');
	is($n->safe_psql('app',
			q{SELECT string_agg(DISTINCT usename || ':' || (application_name <> ''), ',')
			    FROM pg_stat_replication}),
		'pglogical_replicator:true',
		$n->name . ': the walsenders serve pglogical_replicator');
	like(slurp_file($n->logfile),
		qr/connection authenticated: identity="pglogical_replicator" method=scram-sha-256/,
		$n->name . ": pglogical's connections authenticated by step 1's pg_hba.conf line");
}

my $mesh = readme_counters(@nodes);

# The README's increment, once on each server.
readme_run($_, 'app', 'replication/increment') foreach @nodes;
$mesh->{expected}{'/home'} = 3;
ok($mesh->wait_converged('one increment per server'),
	'one increment per server: quiescence reached');
$mesh->check_state('one increment per server', ['/home']);

# Concurrent increments and decrements on all three, with upserts racing to
# create pages.
my @pages = ('/home', map { "/p$_" } 1 .. 12);
ok($mesh->run_workload(\@nodes, 2, 200, \@pages),
	'concurrent workload: every statement acknowledged');
ok($mesh->wait_converged('concurrent workload'),
	'concurrent workload: quiescence reached');
$mesh->check_state('concurrent workload', \@pages);
cmp_ok($mesh->query($node{a},
		'SELECT max(n) FROM (SELECT count(*) AS n FROM page_views, counter_crdt_shards(views) GROUP BY page) s'),
	'<=', 3, 'at most one shard per server in every counter');

# A row created on b and incremented on a, which c sees before b's insert:
# c's subscription to b is held back meanwhile.
$node{c}->safe_psql('app',
	q{SELECT pglogical.alter_subscription_disable('page_views_c_from_b', true)});
$node{c}->poll_query_until('app',
	q{SELECT status = 'disabled' FROM pglogical.show_subscription_status('page_views_c_from_b')})
  or die 'c did not stop its subscription to b';
$mesh->query($node{b}, q{INSERT INTO page_views VALUES ('/late', NULL::counter_crdt + 1)});
$node{a}->poll_query_until('app', q{SELECT views::bigint = 1 FROM page_views WHERE page = '/late'})
  or die "b's row did not reach a";
$mesh->query($node{a}, q{UPDATE page_views SET views = views + 5 WHERE page = '/late'});
$node{c}->poll_query_until('app', q{SELECT views::bigint = 6 FROM page_views WHERE page = '/late'})
  or diag("a's increment of b's row did not reach c through a");
$node{c}->safe_psql('app',
	q{SELECT pglogical.alter_subscription_enable('page_views_c_from_b', true)});
ok(wait_replicating($node{c}, [ 'page_views_c_from_a', 'page_views_c_from_b' ]),
	'c replicates from b again');
$mesh->{expected}{'/late'} = 6;
push @pages, '/late';
ok($mesh->wait_converged('row seen first through another server'),
	'row seen first through another server: quiescence reached');
$mesh->check_state('row seen first through another server', \@pages);

# b restarted mid-load, with a fast and with an immediate shutdown, while a
# and c keep counting.
foreach my $mode ('fast', 'immediate')
{
	my @runs = $mesh->start_workload([ $node{a}, $node{c} ], 2, 200, \@pages);
	usleep(150_000);
	$node{b}->stop($mode);
	usleep(300_000);
	$node{b}->start;
	ok($mesh->finish_workload(@runs),
		"restart ($mode) of b: every statement on a and c acknowledged");
	foreach my $s (@names)
	{
		ok(wait_replicating($node{$s},
				[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } @names ]),
			"restart ($mode): the subscriptions of $s replicate again");
	}
	ok($mesh->wait_converged("restart ($mode)"), "restart ($mode): quiescence reached");
	$mesh->check_state("restart ($mode)", \@pages);
}

# A delete on a racing increments on b: the delete wins on every server.
my $race_sql = "UPDATE page_views SET views = views + 1 WHERE page = '/p1';\n" x 500;
my ($h) = start_script($node{b}, $node{b}->basedir . '/race.sql', $race_sql, 'app');
usleep(100_000);
is($mesh->query($node{a}, q{DELETE FROM page_views WHERE page = '/p1' RETURNING page}),
	'', 'delete race: the delete on a becomes a tombstone');
$h->finish;
ok($mesh->wait_converged('delete race'), 'delete race: quiescence reached');
is(join(',', map { $mesh->query($_, q{SELECT views FROM page_views WHERE page = '/p1'}) } @nodes),
	'tombstone,tombstone,tombstone', 'delete race: /p1 is a tombstone on every server');
@pages = grep { $_ ne '/p1' } @pages;
$mesh->check_state('delete race', \@pages);

# Server d, with rows of its own (pages the mesh has and pages it has not),
# joins with synchronize_data := true while a, b and c keep counting.
my $nd = pgl_node('d');
readme_run($nd, 'postgres', 'pglogical/setup');
$nd->safe_psql('app', q{LOAD 'counter_crdt';
	ALTER SYSTEM SET counter_crdt.node_id = '658c0aa2-d0e7-31fa-b458-55fc3f5d6c66';
	SELECT pg_reload_conf();});
my $d_own = readme_counters($nd);
ok($d_own->run_workload([$nd], 1, 100, [ '/p2', '/p3', '/d1', '/d2' ]),
	'd counts on its own: every statement acknowledged');
$mesh->{expected}{$_} += $d_own->{expected}{$_} foreach keys %{ $d_own->{expected} };
readme_run($nd, 'app', 'pglogical/node-d', 'd');
readme_run($nd, 'app', 'pglogical/replication-set');

my @more = $mesh->start_workload(\@nodes, 2, 400, [ @pages, '/d1' ]);
readme_run($nd, 'app', 'pglogical/join-d', @names);
readme_run($node{$_}, 'app', "pglogical/join-$_", 'd') foreach @names;
ok($mesh->finish_workload(@more), 'workload during the join: every statement acknowledged');
%node = (%node, d => $nd);
push @{ $mesh->{nodes} }, $nd;
foreach my $s (qw(a b c d))
{
	ok(wait_replicating($node{$s},
			[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c d) ]),
		"join: the subscriptions of $s replicate, their tables synchronized");
}
push @pages, '/d1', '/d2';
ok($mesh->wait_converged('join'), 'join: quiescence reached');
$mesh->check_state('join', \@pages);

# No set-up problem that counter_crdt_health() sees.  It checks the tables
# of pglogical's replication sets: the merge trigger made ordinary by ENABLE
# TRIGGER ALL is reported on the server where it happened, and the set-up
# function repairs it.
foreach my $n (@{ $mesh->{nodes} })
{
	is($n->safe_psql('app', 'SELECT count(*) FROM counter_crdt_health()'),
		'0', $n->name . ': counter_crdt_health() reports nothing');
}
$node{a}->safe_psql('app', 'ALTER TABLE page_views ENABLE TRIGGER ALL');
is($node{a}->safe_psql('app',
		q{SELECT "check" || ' ' || object FROM counter_crdt_health()}),
	'merge_trigger_not_replica page_views',
	'a: counter_crdt_health() sees the table of the replication set whose merge trigger ENABLE TRIGGER ALL made ordinary');
$node{a}->safe_psql('app', q{SELECT counter_crdt_enable_replica_merge('page_views')});
is($node{a}->safe_psql('app', 'SELECT count(*) FROM counter_crdt_health()'),
	'0', 'a: counter_crdt_health() reports nothing once the set-up function repaired it');

# A subscription that is not replicating, and only such a one, is what
# counter_crdt_health() reports as pglogical_subscription_not_replicating:
# with d stopped, a's subscription to d is down (its worker fails to connect
# and waits for pglogical's manager), and so says the recipe's check block.
# The recipe's restart block runs as written meanwhile (the worker it starts
# fails at once: d is still down); once d is back, the subscriptions to d
# replicate again (wait_replicating runs the block again where one is still
# down) and counter_crdt_health() reports nothing.
$nd->stop('fast');
ok($node{a}->poll_query_until('app',
		q{SELECT string_agg("check" || ' ' || object || ' ' || (problem LIKE '%says down)%'), ',')
		    FROM counter_crdt_health()},
		'pglogical_subscription_not_replicating page_views_a_from_d true'),
	'd stopped: counter_crdt_health() on a reports its subscription to d as down, and nothing else');
# A role that may not read pglogical's catalog (pglogical grants nothing on
# its schema) gets no such row, and no error: counter_crdt_health() does not
# call pglogical's status function for it.
is($node{a}->safe_psql('app',
		q{CREATE ROLE cc_health_reader;
		  SET ROLE cc_health_reader;
		  SELECT count(*) FROM counter_crdt_health() WHERE "check" = 'pglogical_subscription_not_replicating';}),
	'0', 'd stopped: counter_crdt_health() called by a role without rights on pglogical reports no subscription');
ok(readme_poll($node{a}, 'pglogical/not-replicating',
		sub { $_[0] eq 'page_views_a_from_d|down|d' }, $PostgreSQL::Test::Utils::timeout_default,
		'page_views_a_from_d|down|d'),
	'd stopped: the recipe lists the subscription of a to d as down');
restart_subscription($node{a}, 'page_views_a_from_d');
$nd->start;
foreach my $s (qw(a b c d))
{
	ok(wait_replicating($node{$s},
			[ map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c d) ]),
		"d back: the subscriptions of $s replicate");
}
foreach my $n (@{ $mesh->{nodes} })
{
	is($n->safe_psql('app', 'SELECT count(*) FROM counter_crdt_health()'),
		'0', $n->name . ': counter_crdt_health() reports nothing once d is back');
}
note("pglogical/restart-subscription ran for $restarted subscriptions still down after 20 s; "
	  . scalar(keys %server_restarted) . " servers restarted for one still down after it");

# pglogical's apply workers report a provider that went away (b's restarts)
# as errors of their own.
$mesh->check_logs('pglogical',
	qr/pglogical apply .*ERROR:  (data stream ended|connection to other side has died)/);
$mesh->check_idle('pglogical');

$_->stop('fast') foreach @{ $mesh->{nodes} };
done_testing();
