# High availability inside a mesh (issue 39): two regions, a and b, each a
# Patroni cluster of two servers on one etcd, replicating page_views to each
# other with the subscriptions of doc/high-availability.md (connection strings
# that follow the primary, slots that Patroni keeps on the replicas).  The
# page's Patroni settings are applied from the page (Patroni's replication
# role replicator, use_pg_rewind), the page's slot checks run before each
# subscription and before each failover, and each standby's Patroni must have
# logged its slot copy safe before the primary is killed (issue 45).  Both
# regions take increments all along, through the same kind of connection
# strings (test/t/ha_load.py).  In region a, in turn:
#
#   1. asynchronous, the primary killed (SIGKILL of Patroni, the postmaster
#      and its children) while its walsenders are stopped: increments it
#      acknowledged that reached region b survive, those that reached no
#      other server are lost, and the test counts both; the old primary
#      rejoins through pg_rewind;
#   2. a planned switchover;
#   3. synchronous_mode, the primary killed under load: no acknowledged
#      increment is lost;
#   4. synchronous_mode, the known trap: region b receives increments that the
#      promoted standby never had (not acknowledged: the commits wait for the
#      standby); the next increment of the row in b heals one row, the repair
#      recipe of doc/replication.md the other, found by the digests.
#
# At the end every server of both regions has the same rows, and every key
# holds exactly its acknowledged increments, less those lost in 1, plus at
# most the increments in doubt (a connection lost while the statement ran):
# none counted twice.  The gaps in region a's acknowledged increments at each
# failover are printed (doc/high-availability.md quotes them).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use IPC::Run ();
use Time::HiRes qw(time usleep);
use ReadmeMesh qw(readme_run_subst readme_poll);
use ReadmeRecipe;
use PatroniRegion;
use PsqlRetry;

for my $tool (qw(patroni patronictl etcd))
{
	plan skip_all => "$tool is not installed (Debian: patroni, etcd-server)"
	  unless grep { -x "$_/$tool" } split /:/, $ENV{PATH};
}
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $bindir = `$pg_config --bindir`;
chomp $bindir;
my ($pg_major) = `$pg_config --version` =~ /PostgreSQL (\d+)/;
my ($patroni_version) = `patroni --version 2>&1` =~ /(\d+\.\d+\.\d+)/;
plan skip_all => "Patroni $patroni_version does not support PostgreSQL $pg_major"
  if $patroni_version =~ /^[0-2]\.|^3\.0\./ && $pg_major >= 16;
note "Patroni $patroni_version, PostgreSQL $pg_major, etcd " . (`etcd --version` =~ /(\d+\.\d+\.\d+)/)[0];
# The debug build runs the suites that exercise the library; this one's
# subject is Patroni's, and its 2 minutes are kept for the others.
plan skip_all => 'the assert-enabled build (the release builds of 15, 17 and 18 run it)'
  if ($ENV{COUNTER_CRDT_BUILD} // '') eq 'cassert';
my $python = '/usr/bin/python3';
plan skip_all => 'python3-psycopg2 is not installed'
  unless system($python, '-c', 'import psycopg2') == 0;

my $t0 = time;
my $etcd = PatroniRegion::etcd_start();
# Patroni's replication role, as the page's patroni.yml gives it (Patroni's
# sample names): Patroni makes it at bootstrap.
my ($repl_user, $repl_password) = recipe('ha/patroni-authentication')
  =~ /^\s+replication:\n\s+username:\s*(\S+)\n\s+password:\s*(\S+)$/m;
is($repl_user, 'replicator', 'the page\'s patroni.yml: the replication role is replicator, as in Patroni\'s sample');
my %region = map {
	$_ => PatroniRegion->new(name => $_, etcd => $etcd, members => 2, bindir => $bindir,
		dcs => { postgresql => { parameters => { wal_level => 'logical' } } },
		authentication => { replication => { username => $repl_user, password => $repl_password } })
} qw(a b);
my @streaming = PatroniRegion::start_regions(@region{qw(a b)});
ok($streaming[0], 'region a: the replica streams');
ok($streaming[1], 'region b: the replica streams');
note sprintf('two regions of two servers up in %.1f s', time - $t0);

# Writes go through app(), once: a write cannot be run again after an error,
# it may have committed.  Reads and polls of a member go through read_app()
# and test/t/PsqlRetry.pm, which ask again while Patroni restarts a server
# (a replica that has just rejoined, 0.4 s after it was ready) instead of
# dying ("ack Broken pipe").
sub app { my ($m, $sql) = @_; return $m->{node}->safe_psql('app', $sql); }
sub read_app { my ($m, $sql) = @_; return psql_retry($m->{node}, 'app', $sql, 60); }

# The connection string of a region's members, in the recipe's form.
sub hosts_of
{
	my ($r) = @_;
	my @m = $r->members;
	return 'host=' . join(',', map { '127.0.0.1' } @m) . ' port=' . join(',', map { $_->{node}->port } @m);
}

# 1. The recipe: replication.md's set-up on each region's primary, the DCS
# settings with the permanent slot, the subscriptions.
# On 17 and later, region a's slot for b is a failover slot that
# PostgreSQL synchronises to the standby (the page's second way); region b's
# is Patroni's permanent slot on every version.
my %slot_of = (a => 'page_views_b_from_a', b => 'page_views_a_from_b');
my $failover_slot = $pg_major >= 17;
my %dcs_of = (a => $failover_slot ? 'ha/dcs-failover' : 'ha/dcs', b => 'ha/dcs');
for my $name (qw(a b))
{
	my $r = $region{$name};
	is($r->leader->{node}->safe_psql('postgres',
			"SELECT rolcanlogin AND rolreplication FROM pg_roles WHERE rolname = '$repl_user'"),
		't', "region $name: Patroni made the role $repl_user (replication.md's step 2 would fail on it)");
	readme_run_subst($r->leader->{node}, 'postgres', 'ha/setup', {});
	my $file = "$r->{dir}/ha-dcs.yml";
	PostgreSQL::Test::Utils::append_to_file($file,
		recipe($dcs_of{$name}, $name eq 'a' ? {} : { page_views_b_from_a => $slot_of{b} }));
	my ($m) = $r->members;
	my ($out, $err) = run_patronictl($m, 'edit-config', '--apply', $file, '--force');
	like($out, qr/Configuration changed/i, "region $name: patronictl edit-config --apply $dcs_of{$name}")
	  or diag($err);
	# pg_rewind is the page's (the test's own settings leave Patroni's default,
	# off).  Patroni's REST API shows the DCS as its last HA loop read it: a
	# loop or two after the edit, under load.
	my $until = time() + 60;
	my ($status, $config) = $r->rest_get($m, '/config');
	while (!($config && $config->{postgresql}{use_pg_rewind}) && time() < $until)
	{
		sleep(1);
		($status, $config) = $r->rest_get($m, '/config');
	}
	ok($config && $config->{postgresql}{use_pg_rewind}, "region $name: use_pg_rewind is on, from the page");
}

sub run_patronictl
{
	my ($m, @args) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'patronictl', '-c', $m->{config}, @args ], '<', \undef, '>', \$out, '2>', \$err,
		IPC::Run::timeout(60));
	return ($out, $err);
}

# Patroni creates a permanent slot on the primary at its next loop: the
# page's query, repeated until it returns the slot.
for my $name ($failover_slot ? qw(b) : qw(a b))
{
	my $l = $region{$name}->leader;
	my $q = recipe('ha/slot-wait', $name eq 'a' ? {} : { page_views_b_from_a => $slot_of{$name} });
	ok(psql_poll($l->{node}, 'app', $q, $slot_of{$name}),
		"region $name: Patroni made the permanent slot $slot_of{$name} (ha/slot-wait)");
}
readme_run_subst($region{b}->leader->{node}, 'app', $failover_slot ? 'ha/subscribe-b-failover' : 'ha/subscribe-b',
	{ 'host=a1,a2 port=5432,5432' => hosts_of($region{a}) });
if ($failover_slot)
{
	is(psql_retry($region{a}->leader->{node}, 'postgres',
			"SELECT failover FROM pg_replication_slots WHERE slot_name = '$slot_of{a}'", 60),
		't', "region a: the subscription made $slot_of{a}, a failover slot");
}
readme_run_subst($region{a}->leader->{node}, 'app', 'ha/subscribe-a',
	{ 'host=b1,b2 port=5432,5432' => hosts_of($region{b}) });
ok(readme_poll($region{a}->leader->{node}, 'replication/check', sub { $_[0] eq 'page_views_a_from_b|1|t' }, 60,
		'page_views_a_from_b|1|t'), 'region a subscribes to b');
ok(readme_poll($region{b}->leader->{node}, 'replication/check', sub { $_[0] eq 'page_views_b_from_a|1|t' }, 60,
		'page_views_b_from_a|1|t'), 'region b subscribes to a');
# (the servers' own logs go to their Patroni's output)
for my $m (map { $_->members } @region{qw(a b)})
{
	unlike(PostgreSQL::Test::Utils::slurp_file($m->{log}),
		qr/could not start WAL streaming: ERROR:\s+replication slot "page_views_\w+" (?:does not exist|is active)/,
		"$m->{name}: no subscription started before Patroni had made its slot");
}

my @load_keys = map { "/p$_" } 1 .. 12;
# keys of the test's own increments, which no load touches
my @own_keys = qw(async-survives async-repair async-lost trap-heal trap-repair resume stream-db stream-broker);
my %acked;    # key => increments acknowledged by the test's own statements
app($region{a}->leader, 'INSERT INTO page_views SELECT k, \'{}\' FROM unnest(ARRAY['
	  . join(',', map { "'$_'" } @load_keys, @own_keys) . ']) AS k');
ok(psql_poll($region{b}->leader->{node}, 'app',
		'SELECT count(*) = ' . (@load_keys + @own_keys) . ' FROM page_views'),
	'the keys reach region b');

# Patroni's own log of a member, and where in it each member's log was at
# the last event that (re)started its PostgreSQL as a standby.
my %log_mark;
sub patroni_log { my ($r, $m) = @_; return "$r->{dir}/patroni-$m->{name}/patroni.log"; }

sub mark_logs
{
	my ($r) = @_;
	$log_mark{ $_->{name} } = -s patroni_log($r, $_) // 0 for $r->members;
	return;
}

# try_psql, and undef also when psql's pipe breaks under it (Patroni
# restarts a standby's PostgreSQL to copy a slot to it)
sub try_q { my @r = eval { PatroniRegion::try_psql(@_) }; return $r[0]; }

# Patroni's copies of the slots on the replicas are usable once they have
# been advanced to the primary's position (see the page: a copy made before
# the subscriber confirmed anything cannot be).
sub slot_copies_ready
{
	my ($r, $what) = @_;
	my $l = $r->leader;
	my $slot = $slot_of{ $r->{name} };
	# the primary's position now, by the page's query (after a checkpoint,
	# which lets the slot's restart_lsn move)
	psql_retry($l->{node}, 'postgres', 'CHECKPOINT', 60);
	my ($lsn) = read_app($l, recipe('ha/slot-copies')) =~ /^\Q$slot\E\|(\S+)$/m;
	my $ok = defined $lsn && PatroniRegion::wait_until(90, sub {
		for my $m ($r->replicas($l))
		{
			my ($copy) = (try_q($m, recipe('ha/slot-copies'), 'app') // '') =~ /^\Q$slot\E\|(\S+)$/m;
			return 0 unless defined $copy && (try_q($m, "SELECT '$copy'::pg_lsn >= '$lsn'") // '') eq 't';
		}
		return 1;
	});
	ok($ok, "region $r->{name}: the replicas' copies of $slot reached the primary's position ($what)");
	if ($failover_slot && $r->{name} eq 'a')
	{
		# made by PostgreSQL's slot synchronisation, not by Patroni
		is(join(',', map { try_q($_,
					"SELECT synced FROM pg_replication_slots WHERE slot_name = '$slot'") // '?' } $r->replicas($l)),
			't', "region a: the standby's copy of $slot is synchronised by PostgreSQL ($what)");
	}
	# and the primary keeps the catalog rows the copies need: the page's
	# ha/slot-ready, true on every row (one per logical slot and standby),
	# which is Patroni's own condition: each standby's Patroni logs it at its
	# next loop (loop_wait 2 s), since its PostgreSQL last started (the event's
	# mark).  When it does not (Patroni compares the ids as text), the page's
	# ha/slot-recheck and the checks again.
	my $t = time;
	my ($ready, @unsafe);
	for my $attempt (1 .. 3)
	{
		$ready = PatroniRegion::wait_until(90, sub {
			my $out = try_q($l, recipe('ha/slot-ready'), 'app') // '';
			return $out =~ /^\Q$slot\E\|/m && $out !~ /\|f$/m;
		});
		last unless $ready;
		last if $failover_slot && $r->{name} eq 'a';    # PostgreSQL's slots: no Patroni line
		# (after a restart, the standby's feedback comes again within 10 s)
		my $secs = $attempt == 1 ? 8 : 30;
		@unsafe = grep { !PatroniRegion::wait_until($secs, sub { patroni_says_safe($r, $_, $slot) }) } $r->replicas($l);
		last unless @unsafe;
		for my $m (@unsafe)
		{
			note "$what: $m->{name}: ha/slot-ready is true, Patroni has not logged $slot safe: ha/slot-recheck";
			my ($out, $err) = ('', '');
			IPC::Run::run([ 'sh', '-c', recipe('ha/slot-recheck',
						{ '/etc/patroni/config.yml' => $m->{config}, region_a => "region_$r->{name}", a1 => $m->{name} }) ],
				'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(90));
			like($out, qr/restart/i, "$what: ha/slot-recheck restarts $m->{name}") or diag($err);
			eval { $r->wait_streaming($m, 60); };
		}
	}
	ok($ready, "region $r->{name}: ha/slot-ready says the copies of $slot are ready ($what)")
	  or diag(try_q($l, recipe('ha/slot-ready'), 'app'));
	ok(!@unsafe, "region $r->{name}: and Patroni logged $slot safe to be used after a failover on each standby ($what)")
	  or diag("not on @{[ map { $_->{name} } @unsafe ]}");
	note sprintf('%s: region %s: the slots ready %.1f s after the copies', $what, $r->{name}, time - $t);
	return $ok && $ready && !@unsafe;
}

# Whether member $m's Patroni has logged $slot safe since the mark.
sub patroni_says_safe
{
	my ($r, $m, $slot) = @_;
	open(my $fh, '<', patroni_log($r, $m)) or return 0;
	seek($fh, $log_mark{ $m->{name} } // 0, 0);
	local $/;
	my $text = <$fh> // '';
	close($fh);
	return $text =~ /Logical slot \Q$slot\E is safe to be used after a failover/;
}

# The loads: each region's own increments through its members' connection
# string, as an application that follows the primary.
my $loaddir = PostgreSQL::Test::Utils::tempdir('load');
my %load;
for my $name (qw(a b))
{
	my $file = "$loaddir/$name.log";
	my $dsn = hosts_of($region{$name}) . ' dbname=app user=postgres target_session_attrs=read-write connect_timeout=2';
	$load{$name} = {
		file => $file,
		h => IPC::Run::start([ $python, "$FindBin::RealBin/ha_load.py", $dsn, join(',', @load_keys), $file, 40 ],
			'<', \undef, '>>', "$file.out", '2>>', "$file.out"),
	};
}
END { local $?; for my $l (values %load) { eval { $l->{h}->kill_kill(grace => 5); }; } }

sub pause_load
{
	my ($name) = @_;
	PostgreSQL::Test::Utils::append_to_file("$load{$name}{file}.pause", '');
	PatroniRegion::wait_until(30, sub { -e "$load{$name}{file}.paused" })
	  or die "load $name does not pause";
}

sub resume_load
{
	my ($name) = @_;
	unlink "$load{$name}{file}.pause";
	PatroniRegion::wait_until(30, sub { !-e "$load{$name}{file}.paused" })
	  or die "load $name does not resume";
}

# The load's lines: [kind, time, port, key].
sub load_lines
{
	my ($name) = @_;
	open(my $fh, '<', $load{$name}{file}) or return ();
	my @l = map { chomp; [ split / /, $_, 4 ] } <$fh>;
	close($fh);
	return @l;
}

# The gap around an event at time $at in region $name's acknowledged
# increments: the last acknowledged by $old before, the first by another
# server after.  Returns (gap in s, last, first).
sub gap_around
{
	my ($name, $at, $old_port) = @_;
	my @acks = grep { $_->[0] eq 'A' } load_lines($name);
	my ($first) = map { $_->[1] } grep { $_->[2] != $old_port && $_->[1] >= $at } @acks;
	return (undef) unless defined $first;
	my ($last) = reverse map { $_->[1] } grep { $_->[2] == $old_port && $_->[1] < $first } @acks;
	return (defined $last && defined $first ? $first - $last : undef, $last, $first);
}

sub increments
{
	my ($m, $key, $n) = @_;
	app($m, join('', map { "UPDATE page_views SET views = views + 1 WHERE page = '$key';\n" } 1 .. $n));
	$acked{$key} += $n;
}

# An exactly-once batch (doc/beyond-scylladb.md): $n events on $key whose
# highest offset is $clock - 1, under a stream partition's writer id.
sub batch
{
	my ($m, $key, $n, $clock) = @_;
	app($m, "UPDATE page_views SET views = counter_crdt_increment(views, $n,"
		  . " counter_crdt_rack_id('clickstream', 'partition-0'), $clock) WHERE page = '$key'");
}

sub value_on
{
	my ($m, $key) = @_;
	return read_app($m, "SELECT views::bigint FROM page_views WHERE page = '$key'");
}

sub wait_value
{
	my ($m, $key, $want, $secs) = @_;
	return PatroniRegion::wait_until($secs // 30, sub {
		(try_q($m, "SELECT views::bigint FROM page_views WHERE page = '$key'", 'app') // '') eq $want;
	});
}

my @writer_ids = (read_app($region{a}->leader, 'SELECT counter_crdt_node_id()'));

# A new primary in region a, other than $old; checks its writer id.
sub new_primary
{
	my ($old, $what) = @_;
	my $l = PatroniRegion::wait_until(90, sub {
		my $m = $region{a}->leader_now;
		return $m && $m != $old ? $m : undef;
	});
	ok($l, "$what: a new primary in region a") or die "no new primary";
	my $id = read_app($l, 'SELECT counter_crdt_node_id()');
	ok(!grep({ $_ eq $id } @writer_ids), "$what: the new primary writes under a new writer id");
	push @writer_ids, $id;
	return $l;
}

# The old primary, started again, rejoins as a replica (pg_rewind).
sub rejoin
{
	my ($m, $what) = @_;
	my $t = time;
	$region{a}->start_member($m);
	ok($region{a}->wait_streaming($m, 120), "$what: $m->{name} rejoins region a as a replica");
	note sprintf('%s: %s streams again %.1f s after its Patroni started', $what, $m->{name}, time - $t);
}

sleep 3;
slot_copies_ready($region{$_}, 'set-up') for qw(a b);

# --- 1. asynchronous: the primary dies with increments nobody else has -----
my %event;    # name => [time, old primary's port]
{
	my $what = 'async failover';
	my $old = $region{a}->leader;
	my ($replica) = $region{a}->replicas($old);
	pause_load('a');
	# a stream partition's batches 1 to 4 (one event each), counted exactly once
	for my $key (qw(stream-db stream-broker))
	{
		batch($old, $key, 1, $_) for 1 .. 4;
		$acked{$key} += 4;
	}
	# everything of the old primary so far has reached the standby and b
	my $lsn = read_app($old, 'SELECT pg_current_wal_lsn()');
	ok(psql_poll($old->{node}, 'postgres',
			"SELECT count(*) = 2 FROM pg_stat_replication WHERE flush_lsn >= '$lsn'"),
		"$what: the standby and region b have the old primary's WAL");
	# the standby gets nothing more: 20 increments reach region b only
	$region{a}->signal_walsenders($old, 'STOP', $replica->{name});
	increments($old, 'async-survives', 20);
	increments($old, 'async-repair', 10);
	# and the stream's batch 5, of 7 events
	for my $key (qw(stream-db stream-broker))
	{
		batch($old, $key, 7, 5);
		$acked{$key} += 7;
	}
	ok(wait_value($region{b}->leader, 'stream-broker', 11), "$what: region b has the stream's batch 5");
	ok(wait_value($region{b}->leader, 'async-survives', 20), "$what: region b has the 20 increments");
	ok(wait_value($region{b}->leader, 'async-repair', 10), "$what: and the 10");
	# and the old primary has confirmed to b all that b sent back (b
	# publishes what it applies: the echo of the 30 is not kept for a2)
	my $bl = $region{b}->leader;
	my $blsn = read_app($bl, 'SELECT pg_current_wal_lsn()');
	ok(psql_poll($bl->{node}, 'postgres',
			"SELECT confirmed_flush_lsn >= '$blsn' FROM pg_replication_slots WHERE slot_name = '$slot_of{b}'"),
		"$what: the old primary has confirmed region b's changes");
	# then neither gets anything: 25 increments only the old primary has
	$region{a}->signal_walsenders($old, 'STOP', $slot_of{a});
	increments($old, 'async-lost', 25);
	$event{$what} = [ time, $old->{node}->port ];
	mark_logs($region{a});
	$region{a}->kill_member($old);
	resume_load('a');
	my $new = new_primary($old, $what);
	is(value_on($new, 'async-survives') . ' ' . value_on($new, 'async-repair'), '0 0',
		"$what: the new primary lacks the 20 increments and the 10");
	is(value_on($new, 'async-lost'), '0', "$what: and the 25");
	# The stream's consumer goes on: from the offsets the database holds
	# (exactly-once/progress: offset 3, clock 4; batch 5 is replayed), or from its
	# broker's (batch 6 next: its clock passes batch 5's, whose 7 events
	# region b then drops in the merge)
	my ($last) = read_app($new, recipe('exactly-once/progress')) =~ m{^stream-db\|[^|]*\|(\d+)\|}m;
	is($last, '3', "$what: the new primary's progress for the stream: offset 3, batch 4's (batch 5 is missing)");
	batch($new, 'stream-db', 7, 5);
	batch($new, 'stream-db', 3, 6);
	batch($new, 'stream-broker', 3, 6);
	$acked{$_} += 3 for qw(stream-db stream-broker);
	ok(wait_value($region{b}->leader, 'stream-db', 14), "$what: resumed from the database's offsets, the stream counts 14 in region b");
	ok(wait_value($region{b}->leader, 'stream-broker', 7), "$what: resumed from the broker's, batch 5 is lost in region b too (7)");
	# region b's subscription follows the primary by itself
	increments($new, 'resume', 1);
	my $t = time;
	ok(wait_value($region{b}->leader, 'resume', $acked{resume}, 60),
		"$what: region b receives the new primary's increments");
	note sprintf('%s: region b received the new primary\'s first increment %.1f s after it', $what, time - $t);
	# the next increment of the row in region b brings the 20 back
	increments($region{b}->leader, 'async-survives', 1);
	ok(wait_value($new, 'async-survives', 21), "$what: region b's next increment of the row brings the 20 to region a");
	rejoin($old, $what);
	ok(wait_value($old, 'async-lost', '0'), "$what: the old primary, rewound, no longer has the 25");
	like(PostgreSQL::Test::Utils::slurp_file("$region{a}{dir}/patroni-$old->{name}/patroni.log"),
		qr/running pg_rewind from/, "$what: Patroni rewound it (pg_rewind)");
	slot_copies_ready($region{a}, $what);
}

# --- 2. a planned switchover ---------------------------------------------------
{
	my $what = 'switchover';
	my $old = $region{a}->leader;
	$event{$what} = [ time, $old->{node}->port ];
	mark_logs($region{a});
	$region{a}->switchover;
	new_primary($old, $what);
	ok($region{a}->wait_streaming($old, 120), "$what: the old primary follows the new one");
	slot_copies_ready($region{a}, $what);
}

# --- 3. synchronous: the primary dies under load ------------------------------
my $sync_file = "$region{a}{dir}/ha-sync.yml";
PostgreSQL::Test::Utils::append_to_file($sync_file, recipe('ha/synchronous'));
{
	my $what = 'sync failover';
	my ($out, $err) = run_patronictl(($region{a}->members)[0], 'edit-config', '--apply', $sync_file, '--force');
	like($out, qr/Configuration changed/i, 'patronictl edit-config --apply ha/synchronous') or diag($err);
	readme_run_subst($region{a}->leader->{node}, 'app', 'ha/synchronous-subscription', {});
	my $old = $region{a}->leader;
	ok($region{a}->wait_sync_standby, "$what: Patroni has made the standby synchronous");
	sleep 2;
	$event{$what} = [ time, $old->{node}->port ];
	mark_logs($region{a});
	$region{a}->kill_member($old);
	new_primary($old, $what);
	rejoin($old, $what);
	slot_copies_ready($region{a}, $what);
	ok($region{a}->wait_sync_standby, "$what: the rejoined server is the synchronous standby");
}

# --- 4. synchronous: region b gets what the standby never had -----------------
my @in_doubt_sessions;
my $trap_echo;
{
	my $what = 'sync trap';
	my $old = $region{a}->leader;
	my ($replica) = $region{a}->replicas($old);
	$region{a}->signal_walsenders($old, 'STOP', $replica->{name});
	# an increment of each key that waits for the standby: committed on the
	# old primary, not acknowledged, and sent to region b
	for my $key (qw(trap-heal trap-repair))
	{
		my ($o, $e) = ('', '');
		push @in_doubt_sessions, IPC::Run::start(
			[ 'psql', '-XAtq', '-d', $old->{node}->connstr('app'), '-c',
				"UPDATE page_views SET views = views + 1 WHERE page = '$key'" ],
			'<', \undef, '>', \$o, '2>', \$e, IPC::Run::timeout(120));
	}
	ok(wait_value($region{b}->leader, 'trap-heal', 1), "$what: region b has the increment of trap-heal");
	ok(wait_value($region{b}->leader, 'trap-repair', 1), "$what: and the one of trap-repair");
	$event{$what} = [ time, $old->{node}->port ];
	$region{a}->kill_member($old);
	my $acks = 0;
	for my $h (@in_doubt_sessions)
	{
		eval { $h->finish; };
		$acks++ if $h->result == 0;
	}
	is($acks, 0, "$what: neither was acknowledged");
	my $new = new_primary($old, $what);
	# Region b sends back what it applies; a1 gets it unless the old primary
	# confirmed it to b before it died (the subscription's synchronous_commit
	# keeps that from happening while b's own increments flow).
	$trap_echo = value_on($new, 'trap-heal') . ' ' . value_on($new, 'trap-repair');
	note "$what: right after the promotion the new primary has trap-heal and trap-repair at $trap_echo";
	increments($region{b}->leader, 'trap-heal', 1);
	ok(wait_value($new, 'trap-heal', 2), "$what: region b's next increment of trap-heal brings the other to region a");
	rejoin($old, $what);
}

# --- the end: loads stopped, every server the same ---------------------------
sleep 2;
for my $name (qw(a b))
{
	$load{$name}{h}->signal('TERM');
	eval { $load{$name}{h}->finish; };
}

sub all_members { return map { $_->members } @region{qw(a b)}; }

my $digest_q = "SELECT encode(counter_crdt_digest_agg(page, views), 'hex') FROM page_views";

sub digests_same
{
	my (@skip) = @_;
	my $q = $digest_q
	  . (@skip ? ' WHERE page NOT IN (' . join(',', map { "'$_'" } @skip) . ')' : '');
	my %d = map { (try_q($_, $q, 'app') // 'none' => 1) } all_members();
	return keys(%d) == 1 && !$d{none};
}
my @to_repair = ('async-repair', value_on($region{a}->leader, 'trap-repair') eq '0' ? ('trap-repair') : ());
ok(PatroniRegion::wait_until(60, sub { digests_same(@to_repair) }),
	"every server of both regions has the same rows, but for @to_repair");

# trap-repair: the digests of doc/replication.md find it, its repair brings it
{
	my $na = $region{a}->leader->{node};
	my $nb = $region{b}->leader->{node};
	readme_run_subst($nb, 'app', 'repair/inbox', {});
	# b is region b's primary, through the region's multi-host string (the page)
	my @bm = $region{b}->members;
	readme_run_subst($na, 'app', 'repair/connect',
		{ "host 'b', port '5432'" => "host '" . join(',', map { '127.0.0.1' } @bm) . "', port '"
			  . join(',', map { $_->{node}->port } @bm) . "', target_session_attrs 'read-write'" });
	is(psql_retry($na, 'app', recipe('repair/compare'), 60), 'f', 'repair: the digests differ');
	is($na->safe_psql('app', recipe('repair/find') . recipe('repair/ship')), join("\n", @to_repair),
		"repair: they find @to_repair, only");
	$nb->safe_psql('app', recipe('repair/apply'));
	is(psql_retry($na, 'app', recipe('repair/compare'), 60), 't', 'repair: the digests are equal');
}
ok(PatroniRegion::wait_until(60, sub { digests_same() }), 'every server of both regions has the same rows');

# A replay of every row: region a's subscription to b made again with a copy
# (the page's blocks); nothing changes anywhere.
{
	my $before = read_app($region{a}->leader, $digest_q);
	my $al = $region{a}->leader->{node};
	my $bl = $region{b}->leader->{node};
	readme_run_subst($al, 'app', 'ha/resubscribe-drop', {});
	readme_run_subst($bl, 'app', 'ha/resubscribe-slot', {});
	ok(PatroniRegion::wait_until(60, sub {
		((psql_try($bl, 'app', recipe('ha/slot-copies')) // '') =~ /^page_views_a_from_b\|/m) ? 1 : 0;
	}), 'replay: Patroni made the slot again');
	readme_run_subst($al, 'app', 'ha/resubscribe-create', { 'host=b1,b2 port=5432,5432' => hosts_of($region{b}) });
	# region a is synchronous (step 3): the page's block again
	readme_run_subst($al, 'app', 'ha/synchronous-subscription', {});
	is(psql_retry($al, 'app', "SELECT subsynccommit FROM pg_subscription WHERE subname = 'page_views_a_from_b'", 60),
		'on', 'replay: the subscription made again waits for the standby (synchronous_commit on)');
	ok(psql_poll($al, 'app',
			q{SELECT count(*) = 1 FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid
			   WHERE s.subname = 'page_views_a_from_b' AND r.srsubstate = 'r'}),
		'replay: the copy of region b\'s table is merged');
	ok(PatroniRegion::wait_until(60, sub { digests_same() }), 'replay: every server has the same rows');
	is(read_app($region{a}->leader, $digest_q),
		$before, 'replay: and the same as before the copy: merging a state again changes nothing');
}

# Exact: per key, the acknowledged increments, less those lost, plus at most
# those in doubt.
my (%ack, %doubt);
for my $name (qw(a b))
{
	for my $l (load_lines($name))
	{
		$ack{ $l->[3] }++ if $l->[0] eq 'A';
		$doubt{ $l->[3] }++ if $l->[0] eq 'U';
	}
}
$ack{$_} += $acked{$_} for keys %acked;
my $final = read_app($region{a}->leader, 'SELECT string_agg(page || \'=\' || views::bigint, \' \' ORDER BY page) FROM page_views');
my %final = map { split /=/ } split ' ', $final;
my %lost = ('async-lost' => 25, 'stream-broker' => 7);
my ($bad, $total_ack, $total_doubt, $total_final) = (0, 0, 0, 0);
for my $k (@load_keys, @own_keys)
{
	my ($a, $d, $f, $l) = ($ack{$k} // 0, $doubt{$k} // 0, $final{$k}, $lost{$k} // 0);
	$total_ack += $a;
	$total_doubt += $d;
	$total_final += $f;
	my $want_min = $a - $l;
	my $want_max = $a - $l + $d + ($k =~ /^trap/ ? 1 : 0);
	next if $f >= $want_min && $f <= $want_max;
	$bad++;
	diag("$k: $f, expected $want_min to $want_max ($a acknowledged, $l lost, $d in doubt)");
}
is($bad, 0, 'every key holds its acknowledged increments (less the 25 and the 7 lost), and no increment twice');
is("$final{'stream-db'} $final{'stream-broker'}", '14 7',
	'the stream: exact when resumed from the database\'s offsets, batch 5 lost when from the broker\'s');
is($final{'async-lost'}, '0', 'the 25 increments only the killed primary had are lost, all of them');
is("$final{'async-survives'} $final{'async-repair'}", '21 10', 'the 30 that reached region b survive');
is("$final{'trap-heal'} $final{'trap-repair'}", '2 1', 'the trap: the increments region b received count, healed');
note sprintf('increments: %d acknowledged, %d in doubt, %d counted (%d lost in step 1)',
	$total_ack, $total_doubt, $total_final, 25 + 7);

# Writer ids: one per promotion, and the earlier timelines' are the report's
# candidates for retirement.
my $l = $region{a}->leader;
is(read_app($l, 'SELECT count(DISTINCT writer) FROM counter_crdt_node_id_history()'), '5',
	'region a: 5 timelines, 5 writer ids');
is(read_app($l, "SELECT count(*) FROM counter_crdt_writer_report() WHERE candidate IS NOT NULL"), '4',
	'region a: the 4 ids of ended timelines are candidates for retirement');
for my $m (all_members())
{
	is(read_app($m, 'SELECT count(*) FROM counter_crdt_health()'), '0',
		"$m->{name}: counter_crdt_health() reports nothing");
}
# Patroni promoted only standbys whose slots it had found safe
for my $m ($failover_slot ? () : $region{a}->members)
{
	unlike(PostgreSQL::Test::Utils::slurp_file(patroni_log($region{a}, $m)),
		qr/slots that might be unsafe to use after promote/,
		"$m->{name}: Patroni never promoted it with slots that might be unsafe");
}

# The figure: region a's gaps in acknowledged increments.
for my $what ('switchover', 'sync failover', 'async failover', 'sync trap')
{
	my ($gap) = gap_around('a', @{ $event{$what} });
	ok(defined $gap, "$what: region a acknowledged increments before and after");
	note sprintf('figure: %s: region a acknowledged no increment for %.1f s', $what, $gap // -1);
}
my @b_acks = map { $_->[1] } grep { $_->[0] eq 'A' } load_lines('b');
my $b_gap = 0;
for my $i (1 .. $#b_acks) { $b_gap = $b_acks[$i] - $b_acks[ $i - 1 ] if $b_acks[$i] - $b_acks[ $i - 1 ] > $b_gap; }
note sprintf('figure: region b: %d increments acknowledged in %.0f s, longest gap %.2f s',
	scalar(@b_acks), $b_acks[-1] - $b_acks[0], $b_gap);

PatroniRegion::stop_all();
note sprintf('total %.0f s', time - $t0);
done_testing();
