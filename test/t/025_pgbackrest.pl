# pgBackRest backups of a mesh member and point-in-time restores of it as
# new servers (issue 39, item 3): the recipes of doc/backups.md and the join
# recipes of doc/replication.md, run as written.  Servers a, b and c are set
# up by the replication recipe; a archives its WAL into a pgBackRest
# repository under the test's temp dir (pgBackRest is always given this
# test's config file, never /etc's) and is backed up, full and then
# incremental.  A target time T is noted once the mesh has converged, and a
# counts on after it.
#
#  1. d, restored to T into a new data directory, is a new server: on
#     timeline 2, with a's rows as they were at T (nothing of a's later
#     increments), a's subscriptions and pinned id, no slots, and archiving
#     off.  The join drops the inherited subscriptions without dropping a's
#     slots on b and c (a's subscriptions go on streaming from them), gives d
#     its own id, and subscribes d and the mesh to each other: all four hold
#     every acknowledged increment exactly once, and d's own count under its
#     id.
#  2. A writer W (a finished exactly-once stream, written on a before T) is
#     folded and forgotten on all four after that; e, restored to T again,
#     carries W and an empty list of retired writers, and joins with
#     join-retired-d first: all five exact, W nowhere, no server reporting a
#     dropped writer.  e's default id is d's (both on timeline 2 of a's
#     cluster), which is why the recipe pins one.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use IPC::Run ();
use Time::HiRes qw(time usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeMesh;
use ReadmeRecipe;
use PsqlRetry;

plan skip_all => 'pgbackrest is not in PATH'
  unless grep { -x "$_/pgbackrest" } split(/:/, $ENV{PATH} // '');

srand(25025);
my $t_start = time();
my $W = '5f0c8a9e-6d1b-4f3a-9c2e-7b4d1e8a2f60';       # the writer to retire, as in the docs
my $A_ID = '7f0cab51-fb72-3e98-bdb4-0404a982865d';    # a's, pinned by writer-id-a
my $D_ID = '658c0aa2-d0e7-31fa-b458-55fc3f5d6c66';    # d's, pinned by backup-setup-d
my $E_ID = '00000000-0000-4000-8000-00000000000e';    # e's, in its place for e
my $TARGET = '2026-11-27 18:40:00.000000+00';         # the page's target time

my $tmp = PostgreSQL::Test::Utils::tempdir;
my $sock = PostgreSQL::Test::Utils::tempdir_short;    # a's Unix socket, for pgBackRest
my $conf = "$tmp/pgbackrest.conf";
my $repo = "$tmp/repo";

# The page's block $name: pgBackRest with this test's config, no sudo (the
# test runs as the postgres OS user), and the substitutions of %$subst.
sub pgbr_recipe
{
	my ($name, $subst) = @_;
	my $raw = recipe($name);
	my %s = %{ $subst // {} };
	$s{'sudo -u postgres '} = '' if index($raw, 'sudo -u postgres ') >= 0;
	$s{'pgbackrest --stanza=a'} = "pgbackrest --config=$conf --stanza=a"
	  if index($raw, 'pgbackrest --stanza=a') >= 0;
	return recipe($name, \%s);
}

# Runs the page's shell block $name with bash -e, at most 120 s.
sub run_sh
{
	my ($name, $subst) = @_;
	my $cmd = pgbr_recipe($name, $subst);
	my ($out, $err) = ('', '');
	my $t0 = time();
	my $ok = eval {
		IPC::Run::run([ 'bash', '-e', '-c', $cmd ], '>', \$out, '2>', \$err,
			IPC::Run::timeout(120));
	};
	my $why = $@ // '';
	note(sprintf('%s: %.1f s', $name, time() - $t0));
	ok($ok, "recipe $name runs") or diag("$why\n$out\n$err");
	die "recipe $name failed" unless $ok;
	return $out;
}

# a: the repository's config and the archive block, before its first start.
# a, b and c subscribe to four servers at the end (b, c, d, e for a): one
# more worker than that for a copy.
my %node = readme_mesh(before_start => sub {
		my ($n) = @_;
		$n->append_conf('postgresql.conf', "max_logical_replication_workers = 6\n");
		return if $n->name ne 'a';
		append_to_file($conf, recipe('backups/pgbackrest.conf', {
			'[global]' => "[global]\nlock-path=$tmp/lock\nlog-path=$tmp/log\nspool-path=$tmp/spool",
			'repo1-path=/var/lib/pgbackrest' => "repo1-path=$repo",
			'pg1-path=/var/lib/postgresql/15/main' => 'pg1-path=' . $n->data_dir
			  . "\npg1-port=" . $n->port . "\npg1-socket-path=$sock",
		}));
		$n->append_conf('postgresql.conf',
			pgbr_recipe('backups/archive') . "unix_socket_directories = '$sock'\n");
	});
my ($na, $nb, $nc) = @node{qw(a b c)};
my $mesh = readme_counters($na, $nb, $nc);
my @pages = map { "/p$_" } 1 .. 8;
my @keys = (@pages, '/late');
my %w_total;    # per page, what W wrote

# W's exactly-once increments on a: clock $clock, $mult * i on page /pi.
sub stream_w
{
	my ($clock, $mult) = @_;
	my ($sql, $delta) = stream_increments($W, $clock, $mult, 8);
	foreach my $page (keys %$delta)
	{
		$mesh->{expected}{$page} += $delta->{$page};
		$w_total{$page} += $delta->{$page};
	}
	$na->safe_psql('app', $sql);
	return;
}

sub ids_on { return page_view_ids($_[0], 'app'); }

sub rows_of
{
	my ($node) = @_;
	return $node->safe_psql('app', 'SELECT page, views FROM page_views ORDER BY page');
}

# The sum of the clocks of writer $id's shards on $node.
sub clocks_of
{
	my ($node, $id) = @_;
	return $node->safe_psql('app',
		"SELECT coalesce(sum(s.clock), 0) FROM page_views, counter_crdt_shards(views) s WHERE s.id = '$id'");
}

sub dropped_health
{
	my ($node) = @_;
	return $node->safe_psql('app',
		q{SELECT problem FROM counter_crdt_health() WHERE "check" = 'forgotten_writer_dropped'});
}

# ---------------------------------------------------------------------
# Backups of a: stanza, full, incremental; increments before, between and after.
ok($mesh->run_workload([ $na, $nb, $nc ], 1, 60, \@pages), 'increments before the full backup acknowledged');
stream_w(1, 10);
run_sh('backups/stanza');
run_sh('backups/full');
# the page's config block: the repository encrypted, zst, the archive asynchronous
{
	my @info = map { "$repo/$_/a/$_.info" } qw(backup archive);
	is(join(',', map { open(my $fh, '<', $_) or die "cannot read $_: $!"; read($fh, my $b, 8); $b } @info),
		'Salted__,Salted__', 'backup.info and archive.info are encrypted (repo1-cipher-type)');
	my @files = glob("$repo/backup/a/*F/pg_data/PG_VERSION*");
	like("@files", qr/PG_VERSION\.zst$/, 'the full backup\'s files are compressed with zst');
	ok(-d "$tmp/spool/archive/a/out", 'archive-push is asynchronous: its queue is in spool-path');
	my ($out, $err) = ('', '');
	{
		# pgBackRest takes the passphrase from the environment, not the command line
		local $ENV{PGBACKREST_REPO1_CIPHER_PASS} = 'another-passphrase';
		IPC::Run::run([ 'pgbackrest', "--config=$conf", '--stanza=a', 'info' ],
			'>', \$out, '2>', \$err, IPC::Run::timeout(60));
	}
	like("$out$err", qr/CryptoError|unable to load info file|decrypt/i, 'with another passphrase the repository cannot be read')
	  or diag("$out$err");
	unlike("$out$err", qr/not allowed on the command-line/, '... (the passphrase given as pgBackRest takes it)');
	note("pgbackrest info with another passphrase: $out$err");
}
ok($mesh->run_workload([ $na, $nb, $nc ], 1, 60, \@pages), 'increments before the incremental backup acknowledged');
run_sh('backups/incr');
ok($mesh->run_workload([ $na, $nb, $nc ], 1, 60, \@pages), 'increments after the backups acknowledged');
stream_w(2, 1);
ok($mesh->wait_converged('at the target'), 'three servers converge before the target time');
$mesh->check_state('at the target', \@pages);

# The target time, read from a, with no commit on a near it.
my %at_target = %{ $mesh->{expected} };
my $a_at_target = rows_of($na);
usleep(300_000);
my $target = $na->safe_psql('postgres', 'SELECT clock_timestamp()');
usleep(300_000);
ok($mesh->run_workload([$na], 1, 60, \@keys), 'a counts after the target time, also on a new page');
ok(defined $mesh->{expected}{'/late'}, 'the page /late is acknowledged after the target');

# The WAL of a's increments after the target must be archived, or recovery
# ends before it reaches the target.
sub archive_current
{
	my $seg = $na->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$na->safe_psql('postgres', 'SELECT pg_switch_wal()');
	ok($na->poll_query_until('postgres', "SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver"),
		"a archived $seg");
	return;
}
archive_current();

# A new server $name restored to the target time by the page's block, with
# the page's configuration block appended and no socket of a's.
sub restored
{
	my ($name) = @_;
	my $t0 = time();
	my $node = readme_node($name,
		restore => sub {
			run_sh('backups/restore',
				{ '/var/lib/postgresql/15/d' => $_[0]->data_dir, $TARGET => $target });
		},
		before_start => sub {
			$_[0]->append_conf('postgresql.conf',
				recipe('backups/restored-postgresql.conf') . "unix_socket_directories = ''\n");
		});
	# psql_poll: a recovery that fails shuts the server down, and
	# poll_query_until would then die ("ack Broken pipe") instead of failing
	ok(psql_poll($node, 'postgres', 'SELECT NOT pg_is_in_recovery()'),
		"$name: promoted at the end of recovery");
	note(sprintf('%s: restored, started and promoted in %.1f s', $name, time() - $t0));
	return $node;
}

# The page's check block on $node: (wal file, id, pinned id, {timeline => default id}).
sub restored_check
{
	my ($node) = @_;
	my ($first, @hist) = split /\n/, readme_run($node, 'app', 'backups/restored-check');
	note($node->name . ": backups/restored-check:\n$first\n" . join("\n", @hist));
	my ($rec, $wal, $id, $pinned) = split /\|/, $first;
	is($rec, 'f', $node->name . ': not in recovery');
	return ($wal, $id, $pinned, { map { split /\|/ } @hist });
}

# "Take the max_logical_replication_workers line out of postgresql.conf
# again and restart."
sub conf_line_out
{
	my ($node) = @_;
	my ($line) = grep { /^max_logical_replication_workers/ }
	  split /\n/, recipe('backups/restored-postgresql.conf');
	my $file = $node->data_dir . '/postgresql.conf';
	my $text = slurp_file($file);
	ok(index($text, "$line\n") >= 0, $node->name . ': the recipe line is in postgresql.conf');
	$text =~ s/\Q$line\E\n//;
	open(my $fh, '>', $file) or die "cannot write $file: $!";
	print $fh $text;
	close($fh);
	$node->restart;
	return;
}

sub subs_of
{
	return $_[0]->safe_psql('app', q{SELECT coalesce(string_agg(subname, ',' ORDER BY subname), '') FROM pg_subscription});
}

# Waits until $node's subscriptions are @subs, each running, their copies done.
sub wait_subs
{
	my ($node, @subs) = @_;
	ok(readme_wait_subscriptions($node, \@subs),
		$node->name . ': ' . join(', ', @subs) . ' have their table and a running worker');
	ok($node->poll_query_until('app', q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate <> 'r'}),
		$node->name . ': the initial copies are done');
	return;
}

# ---------------------------------------------------------------------
# 1. d, restored to the target time.
my $nd = restored('d');
my ($wal_d, $id_d, $pinned_d, $hist_d) = restored_check($nd);
like($wal_d, qr/^00000002/, 'd writes its WAL on timeline 2');
is($nd->safe_psql('postgres', 'SHOW archive_mode'), 'off', 'd: archive_mode is off, by restore --archive-mode=off');
like(slurp_file($nd->data_dir . '/postgresql.auto.conf'), qr/^archive_mode = 'off'$/m,
	'd: pgBackRest wrote archive_mode = \'off\' into postgresql.auto.conf');
is($id_d, $A_ID, 'd came with the writer id that a pinned');
is($pinned_d, $A_ID, 'd: the pinned setting is a\'s, from postgresql.auto.conf');
my ($hist_a) = $na->safe_psql('app', 'SELECT string_agg(timeline || \'|\' || writer, \',\') FROM counter_crdt_node_id_history()');
is($hist_a, "1|$hist_d->{1}", 'timeline 1 of d\'s history is a\'s');
ok(defined $hist_d->{2} && $hist_d->{2} ne $hist_d->{1} && $hist_d->{2} ne $A_ID,
	'd\'s default id (timeline 2) is new: neither a\'s pinned id nor timeline 1\'s');
is(subs_of($nd), 'page_views_a_from_b,page_views_a_from_c', 'd inherited a\'s two subscriptions');
is($nd->safe_psql('app', 'SELECT count(*) FROM pg_stat_subscription WHERE pid IS NOT NULL'), '0',
	'd: no apply worker runs');
is($nd->safe_psql('postgres', 'SELECT count(*) FROM pg_replication_slots'), '0', 'd has no replication slot');
is(rows_of($nd), $a_at_target, 'd holds a\'s rows as they were at the target time, state for state');
my $d_vals = $nd->safe_psql('app', 'SELECT string_agg(page || \'=\' || views::bigint, \',\' ORDER BY page) FROM page_views');
is($d_vals, join(',', map { "$_=$at_target{$_}" } sort grep { defined $at_target{$_} } @keys),
	'd\'s values are the acknowledged sums at the target time');
is($nd->safe_psql('app', q{SELECT count(*) FROM page_views WHERE page = '/late'}), '0',
	'd has nothing of a\'s increments after the target (no /late)');
cmp_ok(clocks_of($nd, $A_ID), '<', clocks_of($na, $A_ID), 'd\'s copy of a\'s shards is older than a\'s');

readme_run($nd, 'app', 'replication/backup-setup-d');
is(subs_of($nd), '', 'd: the inherited subscriptions are dropped');
foreach my $s ([ $nb, 'page_views_a_from_b' ], [ $nc, 'page_views_a_from_c' ])
{
	is($s->[0]->safe_psql('postgres', "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$s->[1]'"),
		'1', "a's slot $s->[1] is still on " . $s->[0]->name);
}
conf_line_out($nd);
is($nd->safe_psql('app', 'SELECT counter_crdt_node_id()'), $D_ID, 'd counts under its own pinned id');
# a's subscriptions stream from their slots on b and c
ok($mesh->run_workload([ $nb, $nc ], 1, 30, \@pages), 'b and c count while d joins');
$nb->wait_for_catchup('page_views_a_from_b');
$nc->wait_for_catchup('page_views_a_from_c');
pass('a\'s subscriptions caught up with b and c through their slots');

readme_run($nd, 'app', 'replication/join-retired-d', qw(a b c));
readme_run($nd, 'app', 'replication/join-subscribe-d', qw(a b c));
readme_join_copies($nd, 'd joins', 3);
readme_run($node{$_}, 'app', "replication/join-subscribe-$_", 'd') foreach qw(a b c);
$node{d} = $nd;
push @{ $mesh->{nodes} }, $nd;
foreach my $s (qw(a b c d))
{
	wait_subs($node{$s}, map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c d));
}
ok($mesh->wait_converged('d joined'), 'four servers converge');
$mesh->check_state('d joined', \@keys);
my $a_clocks = clocks_of($na, $A_ID);
is(clocks_of($_, $A_ID), $a_clocks, 'a\'s shards on ' . $_->name . ' are a\'s newest') foreach ($nb, $nc, $nd);

# d's increments count under its id, everywhere
unlike(join(',', map { ids_on($_) } ($na, $nb, $nc, $nd)), qr/\Q$D_ID\E/, 'd\'s id is in no counter yet');
$nd->safe_psql('app', q{UPDATE page_views SET views = views + 1000 WHERE page = '/p1'});
$mesh->{expected}{'/p1'} += 1000;
ok($mesh->run_workload([ $na, $nb, $nc, $nd ], 1, 40, \@keys), 'all four count');
ok($mesh->wait_converged('after the join'), 'four servers converge again');
$mesh->check_state('after the join', \@keys);
my $d_own = $nd->safe_psql('app',
	"SELECT sum(s.value) FROM page_views, counter_crdt_shards(views) s WHERE s.id = '$D_ID'");
is($_->safe_psql('app', "SELECT sum(s.value) FROM page_views, counter_crdt_shards(views) s WHERE s.id = '$D_ID'"),
	$d_own, "d's shards on " . $_->name . ' hold what d counted') foreach ($na, $nb, $nc);
is($nd->safe_psql('app', "SELECT s.clock >= 1 AND s.value <> 0 FROM page_views, counter_crdt_shards(views) s
	WHERE page = '/p1' AND s.id = '$D_ID'"), 't', 'd\'s 1000 on /p1 is in d\'s shard');

# ---------------------------------------------------------------------
# 2. W, written before the target time, is retired after it.
sub retire_recipe { return recipe("retire/$_[0]", { '5f0c8a9e-6d1b-4f3a-9c2e-7b4d1e8a2f60' => $W }); }
my @four = ($na, $nb, $nc, $nd);
is($na->safe_psql('app', retire_recipe('fold')), 'page_views|views|8', 'the fold of W on a changes the eight counters');
ok($mesh->wait_converged('W folded'), 'converged after the fold');
is($_->safe_psql('app', retire_recipe('check')), '', 'retire/check is quiet on ' . $_->name) for @four;
for my $round (1 .. 5)
{
	$_->safe_psql('app', retire_recipe('forget')) for @four;
	ok($mesh->wait_converged("forget round $round"), "converged, forget round $round");
	last if !grep { ids_on($_) =~ /\Q$W\E/ } @four;
}
is($_->safe_psql('app', recipe('retire/list')), "$W|t", 'W is forgotten on ' . $_->name) for @four;
$mesh->check_state('W forgotten', \@keys);

# e, restored to the same target time, before the fold.
my $ne = restored('e');
my ($wal_e, $id_e, $pinned_e, $hist_e) = restored_check($ne);
like($wal_e, qr/^00000002/, 'e writes its WAL on timeline 2 too: d\'s history is in no archive');
is($hist_e->{2}, $hist_d->{2}, 'e\'s default id is d\'s: the same timeline of the same cluster');
is($id_e, $A_ID, 'e came with a\'s pinned id as well');
like(ids_on($ne), qr/\Q$W\E/, 'e, from before the fold, carries W');
is($ne->safe_psql('app', 'SELECT count(*) FROM counter_crdt_retired_writers'), '0', 'e\'s list is from before the fold');
my $e_rows = page_view_rows($ne, 'app');

readme_run_subst($ne, 'app', 'replication/backup-setup-d', { $D_ID => $E_ID });
is(subs_of($ne), '', 'e: the inherited subscriptions are dropped');
conf_line_out($ne);
is($ne->safe_psql('app', 'SELECT counter_crdt_node_id()'), $E_ID, 'e counts under its own pinned id');
readme_run($ne, 'app', 'replication/join-retired-d', qw(a b c));
is($ne->safe_psql('app', recipe('retire/list')), "$W|t", 'e has the mesh\'s list: W forgotten');
unlike(ids_on($ne), qr/\Q$W\E/, 'e\'s rows no longer carry W');

my %host = map { ("host=$_ port=5432" => 'host=' . $node{$_}->host . ' port=' . $node{$_}->port) } qw(a b c);
readme_run_subst($ne, 'app', 'replication/join-subscribe-d', { %host, 'page_views_d_from_' => 'page_views_e_from_' });
readme_join_copies($ne, 'e joins', 3);
foreach my $s (qw(a b c))
{
	readme_run_subst($node{$s}, 'app', "replication/join-subscribe-$s", {
		"page_views_${s}_from_d" => "page_views_${s}_from_e",
		'host=d port=5432' => 'host=' . $ne->host . ' port=' . $ne->port });
}
push @{ $mesh->{nodes} }, $ne;
foreach my $s (qw(a b c))
{
	wait_subs($node{$s}, map { "page_views_${s}_from_$_" } grep { $_ ne $s } qw(a b c d e));
}
wait_subs($ne, map { "page_views_e_from_$_" } qw(a b c));
$ne->safe_psql('app', q{UPDATE page_views SET views = views + 100 WHERE page = '/p2'});
$mesh->{expected}{'/p2'} += 100;
ok($mesh->wait_converged('e joined'), 'five servers converge');
$mesh->check_state('e joined', \@keys);
for my $n (@{ $mesh->{nodes} })
{
	unlike(ids_on($n), qr/\Q$W\E/, 'no W on ' . $n->name);
	is(dropped_health($n), '', 'health on ' . $n->name . ': nothing dropped');
	is($n->safe_psql('app', "SELECT value FROM page_views, counter_crdt_shards(views) WHERE page = '/p2' AND id = '$E_ID'"),
		'100', 'e\'s 100 on /p2 is in e\'s shard on ' . $n->name);
}

# Without join-retired-d, e's rows would have counted W twice.
my $w_sum = 0;
$w_sum += $_ for values %w_total;
is(merge_surplus($na, 'app', $e_rows),
	$w_sum, "merged unstripped, e's rows would add W's $w_sum again");

# Neither restored server pushed into a's archive.
is(join(',', glob("$repo/archive/a/*/00000002.history*")), '', 'no timeline 2 history in a\'s archive');

$mesh->check_logs('backups');
$_->stop('fast') foreach @{ $mesh->{nodes} };
note(sprintf('025_pgbackrest: %.1f s', time() - $t_start));
done_testing();
