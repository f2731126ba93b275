# The time-window recipe of doc/time-windows.md, run as written with the real
# pg_partman on three servers a, b and c that replicate to each other as
# doc/replication.md says (test/t/ReadmeMesh.pm: only host names, ports, the
# example network, and in the increment and rate blocks the key and the
# minute are substituted):
#
#  - increments on all three into buckets of six hours (two of which are
#    past the retention), then exact totals per key and bucket everywhere;
#  - the maintenance block on c alone: c's old buckets gone; then on a an
#    increment of an existing row (an UPDATE) and a new key (an INSERT) in
#    buckets c dropped: b counts them, c skips them, c's default partition
#    stays empty and c's subscription goes on; with the default partition
#    detached, c's apply stops at such a new key until it is back;
#  - a ahead of the others (premake raised, maintenance run): a's increment
#    of a bucket that b and c have no partition for stops their apply, with
#    the trigger's error, until their maintenance makes it;
#  - the maintenance block on all three, three times (each time making a
#    partition), while all three increment: exact
#    totals per key and bucket everywhere, the dropped buckets' partitions
#    and rows gone everywhere, the same partitions everywhere, every
#    partition with the merge trigger as REPLICA and the truncate guard,
#    nothing in the default partitions, counter_crdt_health() empty;
#  - run_maintenance() alone makes a partition that health reports
#    (truncate_not_refused, naming it) until the recipe's block has run; a
#    TRUNCATE of a partition pg_partman made is refused; local increments of
#    a bucket without a partition are refused; the rate block sums the last
#    ten minutes;
#  - as hits_app, the recipe's role that is not a superuser: an increment
#    counted on every server, and the refusals of the default partition's
#    trigger with their texts and hint (its lookup of the retention in
#    partman.part_config runs as the function's owner), not a permission
#    error for the schema partman.
#
#  - scheduling: pg_cron's configuration block in every server's
#    postgresql.conf, the page's pg_cron block in postgres on all three: the
#    maintenance job (its command the maintenance block without BEGIN and
#    COMMIT) scheduled to run in app, pg_cron not in app, the purge job's
#    command deleting runs older than a week and no others; on a the job
#    brought forward to run soon: cron.job_run_details says it succeeded,
#    the partition it made has its truncate guard, health is empty; the
#    crontab line's command (psql -f of the maintenance block) on b, the
#    same; what pg_partman_bgw runs leaves hits alone (automatic_maintenance
#    = 'off' on all three); run_maintenance_proc() refused inside a
#    transaction block, as the page says.
#
# pg_partman 5 (17, 18) runs the parent-partman5 block, 4 (15)
# parent-partman4; names, bounds and premake are checked for each.  Skipped
# only when pg_partman or pg_cron is not installed for this PostgreSQL.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(time usleep);
use IPC::Run ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeMesh;
use ReadmeRecipe;

# pg_partman's major version, from its control file
my $partman;
{
	my $probe = PostgreSQL::Test::Cluster->new('probe');
	my $share = $probe->config_data('--sharedir');
	my ($pg) = $probe->config_data('--version') =~ /(\d+)/;
	my @missing = grep { !-e "$share/extension/$_.control" } qw(pg_partman pg_cron);
	plan skip_all => join(' and ', @missing) . (@missing > 1 ? ' are' : ' is')
	  . " not installed for PostgreSQL $pg ($share/extension): "
	  . ($share !~ m{^/usr/share/postgresql/}
		? 'this server is not Debian\'s (scripts/pgcassert.sh builds it from source), and '
		  . 'Debian\'s packages install into Debian\'s own'
		: $pg >= 19
		? "not packaged for $pg yet (Debian sid, experimental)"
		: "Debian: apt-get install " . join(' ', map { "postgresql-$pg-" . s/^pg_//r } @missing))
	  if @missing;
	($partman) = slurp_file("$share/extension/pg_partman.control") =~ /default_version\s*=\s*'(\d+)\./;
	die "no pg_partman version in $share/extension/pg_partman.control" unless $partman;
}
# pg_partman's partition names: the suffix of the hour they begin
my $name_fmt = $partman >= 5 ? 'YYYYMMDD_HH24MISS' : 'YYYY_MM_DD_HH24MI';

srand(21);

# The buckets are whole minutes around the current hour: if the hour ends
# within the next three minutes, start in the next one, so that every
# server's maintenance sees the same hour.  pg_partman 4 counts premake from
# the time of day, rounded to whole hours (round((newest partition - now) /
# 1 hour) partitions are ahead): in the second half of an hour it makes one
# partition more.  So that every maintenance of the test is on one side of
# the half hour, one that starts within five minutes before it waits for it.
{
	my $at = time() % 3600;
	my $wait = $at >= 3420 ? 3600 - $at : ($partman < 5 && $at >= 1500 && $at < 1802) ? 1802 - $at : 0;
	if ($wait > 0)
	{
		note(sprintf('waiting %ds for the %s', $wait, $at >= 3420 ? 'next hour' : 'half hour'));
		sleep($wait + 2);
	}
}
# with pg_partman 4, partitions beyond premake made in the second half hour
my $ahead = ($partman < 5 && time() % 3600 > 1800) ? 1 : 0;

# the servers' postgresql.conf has the page's pg_cron block from the start
my %node = map {
	($_ => readme_node($_,
			before_start => sub { $_[0]->append_conf('postgresql.conf', recipe('time-windows/pg_cron.conf')) }))
} qw(a b c);
my @names = qw(a b c);
foreach my $s (@names)
{
	readme_run($node{$s}, 'postgres', 'replication/setup');
	readme_run($node{$s}, 'app', "replication/writer-id-$s");
	readme_run($node{$s}, 'app', "time-windows/parent-partman$partman");
	readme_run($node{$s}, 'app', 'time-windows/setup');
	readme_run($node{$s}, 'app', 'time-windows/role');
}
foreach my $s (@names)
{
	readme_run($node{$s}, 'app', "time-windows/subscribe-$s", grep { $_ ne $s } @names);
}
foreach my $s (@names)
{
	ok( $node{$s}->poll_query_until('app', q{
		SELECT count(*) = 2 FROM pg_subscription s
		 WHERE s.subname LIKE 'hits_%'
		   AND EXISTS (SELECT FROM pg_stat_subscription w
		                WHERE w.subid = s.oid AND w.relid IS NULL AND w.pid IS NOT NULL)}),
		"$s: both hits subscriptions run");
}

my $q = sub { my ($s, $sql) = @_; return $node{$s}->safe_psql('app', $sql); };

# the hour the test counts around, and its minutes (epoch seconds)
my $H = $q->('a', q{SELECT extract(epoch FROM date_trunc('hour', now()))::bigint});
my %min = (
	old1 => $H - 4 * 3600 + 5 * 60,      # partition H-4h: dropped
	old2 => $H - 3 * 3600 + 30 * 60,     # partition H-3h: dropped
	keep1 => $H - 2 * 3600 + 10 * 60,    # H-2h: kept (ends 1 h ago)
	keep2 => $H - 60,                    # H-1h, its last minute
	keep3 => $H + 60,
	keep4 => $H + 3600 + 2 * 60,
	fut => $H + 6 * 3600 + 3 * 60,       # beyond premake 4, made with premake 6
	late => $H + 30 * 3600 + 3 * 60,     # made by no one (premake 9 at most)
);
my @keys = qw(k1 k2 k3);
my %exp;    # "key@minute" => total

# the increment block for a key and minute
sub increment_sql
{
	my ($key, $m) = @_;
	return recipe('time-windows/increment',
		{ "'client-42'" => "'$key'", "date_trunc('minute', now())" => "to_timestamp($m)" });
}

# a background client on $s of $n increments over @$keys x @$minutes
sub start_load
{
	my ($s, $n, $keys, $minutes) = @_;
	my (@sql, @meta);
	for (1 .. $n)
	{
		my $k = $keys->[ int(rand(@$keys)) ];
		my $m = $min{ $minutes->[ int(rand(@$minutes)) ] };
		push @sql, increment_sql($k, $m);
		push @meta, "$k\@$m";
	}
	my $file = $node{$s}->basedir . '/load_' . int(rand(1e9)) . '.sql';
	my ($h, $out, $err) = start_script($node{$s}, $file, join('', @sql), 'app');
	return [ $h, $out, $err, \@meta, $s ];
}

# waits for the clients; every increment must have been acknowledged
sub finish_load
{
	foreach my $r (@_)
	{
		my ($h, $out, $err, $meta, $s) = @$r;
		$h->finish;
		my $tags = () = $$out =~ /^INSERT 0 1$/mg;
		is($tags, scalar(@$meta), "$s: every increment acknowledged")
		  or diag($$err);
		$exp{$_}++ foreach @$meta;
	}
}

my $state_q = q{SELECT coalesce(string_agg(key || '@' || extract(epoch FROM minute)::bigint || '=' || n::bigint,
                                   ',' ORDER BY key, minute), '') FROM hits};

# the expected state, without the buckets of @$gone
sub expected
{
	my (@gone) = @_;
	my %skip = map { ($min{$_} => 1) } @gone;
	return join(',',
		map { "$_=$exp{$_}" }
		grep { my ($m) = /\@(\d+)$/; !$skip{$m} }
		sort { my ($ka, $ma) = split /\@/, $a; my ($kb, $mb) = split /\@/, $b; $ka cmp $kb || $ma <=> $mb }
		keys %exp);
}

# polls until $s's hits is $want
sub wait_state
{
	my ($s, $want, $label) = @_;
	my $deadline = time() + 60;
	my $got;
	while (1)
	{
		$got = $q->($s, $state_q);
		last if $got eq $want || time() > $deadline;
		usleep(200_000);
	}
	is($got, $want, "$label: $s has the exact total of every key and bucket");
}

# the partitions of hits on $s, by name
sub partitions
{
	my ($s) = @_;
	return $q->($s, q{SELECT string_agg(c.relname, ',' ORDER BY c.relname)
	                    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
	                   WHERE i.inhparent = 'hits'::regclass});
}

# pg_partman's name for the partition $h hours from H, as SQL
sub name_sql { return "'hits_p' || to_char(to_timestamp($H) + ($_[0]) * interval '1 hour', '$name_fmt')"; }

# pg_partman's names for the hourly partitions $from..$to hours from H
sub partition_names
{
	my ($from, $to) = @_;
	return $q->('a', qq{SELECT string_agg(x, ',' ORDER BY x) FROM (
	    SELECT } . name_sql('g') . qq{ AS x FROM generate_series($from, $to) g
	    UNION ALL SELECT 'hits_default') p});
}

# $s's newest partition is that of $h hours from H (names sort by hour)
sub newest_is
{
	my ($s, $h, $label) = @_;
	is( $q->($s, q{SELECT max(c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
	                WHERE i.inhparent = 'hits'::regclass AND c.relname <> 'hits_default'}),
		$q->('a', 'SELECT ' . name_sql($h)), "$label: the newest partition of $s is that of H+${h}h");
}

# the partitions of $s are those of $from hours from H on, at least up to
# $to hours (pg_partman makes premake partitions ahead of the newer of now
# and the newest row)
sub check_partitions
{
	my ($s, $from, $to, $label) = @_;
	my $want = partition_names($from, $to);
	my @got = split /,/, partitions($s);
	my %got = map { ($_ => 1) } @got;
	my @missing = grep { !$got{$_} } split /,/, $want;
	my $first = $q->('a', 'SELECT ' . name_sql($from));
	my @older = grep { $_ ne 'hits_default' && $_ lt $first } @got;
	is("@missing", '', "$label: $s has the partitions of H${from}h to H+${to}h and the default");
	is("@older", '', "$label: $s has no partition older than H${from}h");
}

# every partition has the merge trigger as REPLICA and the truncate guard
sub check_partition_triggers
{
	my ($s, $label) = @_;
	is( $q->($s, q{
		SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT FROM pg_trigger t WHERE t.tgrelid = i.inhrelid
		                          AND t.tgname = 'counter_crdt_replica_merge' AND t.tgenabled = 'R'))
		       || '/' ||
		       count(*) FILTER (WHERE NOT EXISTS (SELECT FROM pg_trigger t WHERE t.tgrelid = i.inhrelid
		                          AND t.tgname = 'counter_crdt_truncate_guard' AND t.tgenabled = 'O'))
		  FROM pg_inherits i WHERE i.inhparent = 'hits'::regclass}),
		'0/0', "$label: on $s every partition has the merge trigger as REPLICA and the truncate guard");
}

sub health { return $q->($_[0], q{SELECT coalesce(string_agg("check" || ' ' || problem, E'\n'), '') FROM counter_crdt_health()}); }

# 0. as set up: the partitions of 4 hours back and ahead, the triggers
foreach my $s (@names)
{
	is(partitions($s), partition_names(-4, 4), "setup: $s has the partitions of H-4h to H+4h and the default");
	check_partition_triggers($s, 'setup');
	is(health($s), '', "setup: counter_crdt_health() on $s reports nothing");
	is( $q->($s, q{SELECT template_table || ' ' || automatic_maintenance FROM partman.part_config
	                WHERE parent_table = 'public.hits'}),
		'partman.template_public_hits off',
		"setup: on $s the template is partman.template_public_hits, automatic_maintenance is off");
	is( $q->($s, q{SELECT (SELECT count(*) FROM partman.template_public_hits) || '/'
	                   || (SELECT count(*) FROM pg_publication_tables WHERE schemaname = 'partman')}),
		'0/0', "setup: on $s the template table is empty and in no publication");
}

# 1. increments on all three into six buckets, two of them past the retention
{
	my @minutes = qw(old1 old2 keep1 keep2 keep3 keep4);
	my @runs = map { start_load($_, 200, \@keys, \@minutes) } @names;
	finish_load(@runs);
	wait_state($_, expected(), 'concurrent increments') foreach @names;
}

# 2. c drops its old buckets first; a increments them (an existing row: an
# UPDATE; a new key: an INSERT), then a bucket c keeps
{
	readme_run($node{c}, 'app', 'time-windows/maintenance');
	check_partitions('c', -2, 4, 'maintenance on c');
	# pg_partman 5 counts premake from the newest partition with a row (keep4's, H+1h)
	newest_is('c', $partman >= 5 ? 5 : 4 + $ahead, 'maintenance on c');
	is($q->('c', "SELECT count(*) FROM hits WHERE minute < to_timestamp($H) - interval '2 hours'"),
		'0', 'c has no rows of the dropped buckets');
	check_partitions('a', -4, 4, 'no maintenance on a');

	$q->('a', increment_sql('k1', $min{old2}));
	$q->('a', increment_sql('k9', $min{old1}));
	$q->('a', increment_sql('k1', $min{keep3}));
	$exp{"k1\@$min{old2}"}++;
	$exp{"k9\@$min{old1}"}++;
	$exp{"k1\@$min{keep3}"}++;
	wait_state('b', expected(), 'increments of buckets c dropped');
	wait_state('c', expected(qw(old1 old2)), 'increments of buckets c dropped, after a bucket c keeps');
	is($q->('c', 'SELECT count(*) FROM hits_default'), '0', "c's default partition stays empty");
	is(health('c'), '', 'counter_crdt_health() on c reports nothing');

	# without a default partition, the same new key stops c's apply
	$q->('c', 'ALTER TABLE hits DETACH PARTITION hits_default');
	my $offset = -s $node{c}->logfile;
	$q->('a', increment_sql('k8', $min{old1}));
	$q->('a', increment_sql('k3', $min{keep3}));
	$exp{"k8\@$min{old1}"}++;
	$exp{"k3\@$min{keep3}"}++;
	ok($node{c}->wait_for_log(qr/ERROR:  no partition of relation "hits" found for row/, $offset),
		'without hits_default, c cannot apply a new key of a bucket it dropped');
	wait_state('b', expected(), 'a new key in a bucket c dropped');
	usleep(500_000);
	is($q->('c', "SELECT n::bigint FROM hits WHERE key = 'k3' AND minute = to_timestamp($min{keep3})"),
		$exp{"k3\@$min{keep3}"} - 1, "c's apply from a waits at that row");
	$q->('c', 'ALTER TABLE hits ATTACH PARTITION hits_default DEFAULT');
	wait_state('c', expected(qw(old1 old2)), 'hits_default attached again');
	is($q->('c', 'SELECT count(*) FROM hits_default'), '0', "c's default partition is still empty");
}

# 3. a ahead: it makes the partitions up to H+6h and counts into H+6h; b and
# c refuse the row until their maintenance makes the partition
my @offsets = map { -s $node{$_}->logfile } qw(b c);
{
	$q->('a', q{UPDATE partman.part_config SET premake = 6 WHERE parent_table = 'public.hits'});
	readme_run($node{a}, 'app', 'time-windows/maintenance');
	check_partitions('a', -2, 6, 'maintenance on a with premake 6');
	newest_is('a', $partman >= 5 ? 7 : 6 + $ahead, 'maintenance on a with premake 6');
	$q->('a', increment_sql('k1', $min{fut}));
	$q->('a', increment_sql('k2', $min{keep3}));
	$exp{"k1\@$min{fut}"}++;
	$exp{"k2\@$min{keep3}"}++;
	foreach my $i (0, 1)
	{
		my $s = (qw(b c))[$i];
		ok( $node{$s}->wait_for_log(qr/ERROR:  hits has no partition for minute .*HINT:  Run the maintenance of hits/s,
				$offsets[$i]),
			"$s refuses the row of a bucket it has no partition for yet");
	}
	usleep(500_000);
	is($q->('b', "SELECT count(*) FROM hits WHERE minute >= to_timestamp($H + 6 * 3600)"),
		'0', 'b has not counted it');
	my $k2 = $q->('b', "SELECT n::bigint FROM hits WHERE key = 'k2' AND minute = to_timestamp($min{keep3})");
	is($k2, $exp{"k2\@$min{keep3}"} - 1, "b's apply from a waits at that row: a's next increment is not there");
}

# 4. the maintenance block on all three while all three increment
{
	my @minutes = qw(keep1 keep2 keep3 keep4);
	my @runs = map { start_load($_, 4000, \@keys, \@minutes) } @names;
	usleep(300_000);
	$q->($_, q{UPDATE partman.part_config SET premake = 6 WHERE parent_table = 'public.hits'})
	  foreach qw(b c);
	# three rounds, each making a partition on every server
	foreach my $premake (6, 7, 8)
	{
		$q->($_, qq{UPDATE partman.part_config SET premake = $premake WHERE parent_table = 'public.hits'})
		  foreach @names;
		foreach my $s (qw(b c a))
		{
			my $t0 = time();
			readme_run($node{$s}, 'app', 'time-windows/maintenance');
			note(sprintf('the maintenance block on %s (premake %d) took %.2fs while the clients incremented',
					$s, $premake, time() - $t0));
		}
		# b and c count a's row of H+6h once they have its partition: with
		# pg_partman 5 it moves their premake's start there, as on a
		foreach my $s (qw(b c))
		{
			ok( $node{$s}->poll_query_until('app',
					"SELECT count(*) = 1 FROM hits WHERE minute >= to_timestamp($H + 6 * 3600)"),
				"premake $premake: $s has counted a's row of H+6h")
			  if $premake == 6;
		}
	}
	my $running = grep { $_->[0]->pumpable } @runs;
	ok($running > 0, "the maintenance ran while increments ran ($running of 3 clients still running)");
	finish_load(@runs);
	foreach my $s (@names)
	{
		wait_state($s, expected(qw(old1 old2)), 'increments during maintenance');
		check_partitions($s, -2, 6, 'after maintenance everywhere');
		is(partitions($s), partitions('a'), "$s has the same partitions as a") if $s ne 'a';
		newest_is($s, $partman >= 5 ? 14 : 8 + $ahead, 'premake 8');
		is($q->($s, "SELECT count(*) FROM hits WHERE minute < to_timestamp($H) - interval '2 hours'"),
			'0', "$s has no rows of the dropped buckets");
		is( $q->($s, qq{SELECT count(*) FROM pg_class
		                 WHERE relname IN (} . name_sql(-4) . ', ' . name_sql(-3) . q{)}),
			'0', "$s: the tables of the dropped buckets are gone, not only detached");
		is($q->($s, 'SELECT count(*) FROM hits_default'), '0', "$s: nothing in the default partition");
		check_partition_triggers($s, 'after maintenance');
		is(health($s), '', "after maintenance: counter_crdt_health() on $s reports nothing");
		is( $q->($s, q{SELECT count(*) FROM partman.check_default()}),
			'0', "$s: partman.check_default() finds nothing");
	}
}

# 5. run_maintenance() alone: the new partition lacks the truncate guard,
# and health says so until the recipe's block runs
{
	my %before = map { ($_ => 1) } split /,/, partitions('a');
	$q->('a', q{UPDATE partman.part_config SET premake = 9 WHERE parent_table = 'public.hits';
	            SELECT partman.run_maintenance('public.hits')});
	my @new = grep { !$before{$_} } split /,/, partitions('a');
	is(scalar(@new), 1, 'run_maintenance() with premake 9 makes one partition: ' . "@new");
	newest_is('a', $partman >= 5 ? 15 : 9 + $ahead, 'premake 9');
	is(health('a'),
		join("\n", map {
			"truncate_not_refused A TRUNCATE of partition $_ is not refused on this server: "
			  . "it would drop this server's shards, and the increments made after it would be lost against the other servers' copies."
		} @new),
		'health reports the partition that run_maintenance() alone made');
	readme_run($node{a}, 'app', 'time-windows/maintenance');
	is(health('a'), '', 'the maintenance block gives it the guard');
	check_partition_triggers('a', 'premake 9');

	my $part = $q->('a', 'SELECT ' . name_sql(0));
	my ($rc, $out, $err) = $node{a}->psql('app', "TRUNCATE $part");
	like($err, qr/ERROR:  cannot truncate table "\Q$part\E": its counters are merged across servers/,
		"TRUNCATE of partition $part, made by pg_partman, is refused");
	($rc, $out, $err) = $node{a}->psql('app', increment_sql('k1', $min{old1}));
	like($err, qr/ERROR:  minute .* of hits is past its retention/, 'a local increment of a dropped bucket is refused');
	($rc, $out, $err) = $node{a}->psql('app', increment_sql('k1', $min{late}));
	like($err, qr/ERROR:  hits has no partition for minute/, 'a local increment of a bucket not made yet is refused');
}

# 5b. as hits_app, the recipe's role that is not a superuser: an increment,
# and the trigger's refusals with their texts and hint
{
	my $as_app = sub {
		my ($sql) = @_;
		my ($rc, $out, $err) = $node{a}->psql('app', $sql, extra_params => [ '-U', 'hits_app' ]);
		return ($rc, $err);
	};
	is($node{a}->safe_psql('app', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'hits_app'}),
		'f', 'hits_app is not a superuser');
	my ($rc, $err) = $as_app->(increment_sql('writer', $min{keep3}));
	is($rc, 0, 'hits_app: the increment block runs') or diag($err);
	$exp{"writer\@$min{keep3}"}++;
	($rc, $err) = $as_app->(increment_sql('writer', $min{keep3}));
	is($rc, 0, 'hits_app: an increment of its row runs') or diag($err);
	$exp{"writer\@$min{keep3}"}++;
	wait_state($_, expected(qw(old1 old2)), 'hits_app\'s increments') foreach @names;
	($rc, $err) = $as_app->(increment_sql('writer', $min{old1}));
	like($err, qr/ERROR:  minute .* of hits is past its retention/,
		'hits_app: a local increment of a dropped bucket is refused with the trigger\'s text');
	($rc, $err) = $as_app->(increment_sql('writer', $min{late}));
	like($err, qr/ERROR:  hits has no partition for minute .* yet\nHINT:  Run the maintenance of hits \(doc\/time-windows.md\)\./,
		'hits_app: a local increment of a bucket not made yet is refused with the hint');
	unlike($err, qr/permission denied/, 'hits_app: no permission error');
}

# 6. the rate block: the last ten minutes before keep3 are keep2 and keep3
foreach my $s (@names)
{
	foreach my $k (@keys)
	{
		my $want = ($exp{"$k\@$min{keep2}"} // 0) + ($exp{"$k\@$min{keep3}"} // 0);
		my $got = $q->($s, recipe('time-windows/rate',
			{ "'client-42'" => "'$k'", "date_trunc('minute', now())" => "to_timestamp($min{keep3})" }));
		is($got, $want, "rate on $s for $k: the sum of its last ten minutes");
	}
}
is($q->('a', recipe('time-windows/rate', {})), '0', 'rate of a key without increments is 0');

# 7. the maintenance scheduled: the page's pg_cron job on all three (the
# recipe as written, every 10 minutes), on a brought forward to run soon
# with premake 10; the crontab line's command on b; what pg_partman_bgw
# runs (4: run_maintenance(), 5: run_maintenance_proc()) leaves hits alone
{
	my $qp = sub { my ($s, $sql) = @_; return $node{$s}->safe_psql('postgres', $sql); };
	readme_run($node{$_}, 'postgres', 'time-windows/pg_cron') foreach @names;
	my $block = join("\n", grep { !/^(BEGIN|COMMIT);$/ && !/^--/ } split /\n/, recipe('time-windows/maintenance'));
	foreach my $s (@names)
	{
		is($qp->($s, q{SELECT btrim(command, E'\n') FROM cron.job WHERE jobname = 'hits-maintenance'}),
			$block, "$s: the pg_cron job's command is the maintenance block without BEGIN and COMMIT");
		is( $qp->($s, q{SELECT string_agg(jobname || ' ' || database || ' ' || (username = current_user), ',' ORDER BY jobname)
		                  FROM cron.job}),
			'cron-run-details-purge postgres true,hits-maintenance app true',
			"$s: the maintenance job runs in app, the purge in postgres, both as the role that scheduled them");
		is($q->($s, q{SELECT count(*) FROM pg_extension WHERE extname = 'pg_cron'}),
			'0', "$s: pg_cron is not in app");
	}
	# the purge job's command, run as pg_cron would: a week of runs kept
	{
		my $jobid = $qp->('c', q{SELECT jobid FROM cron.job WHERE jobname = 'hits-maintenance'});
		$qp->('c', qq{INSERT INTO cron.job_run_details (jobid, runid, database, username, command, status, start_time, end_time)
		              VALUES ($jobid, -1, 'app', current_user, 'old', 'succeeded', now() - interval '8 days', now() - interval '8 days'),
		                     ($jobid, -2, 'app', current_user, 'recent', 'succeeded', now() - interval '6 days', now() - interval '6 days')});
		$qp->('c', $qp->('c', q{SELECT command FROM cron.job WHERE jobname = 'cron-run-details-purge'}));
		is($qp->('c', q{SELECT string_agg(command, ',') FROM cron.job_run_details WHERE runid < 0}),
			'recent', "c: the purge job's command deletes the runs older than a week, keeps the others");
	}
	# run_maintenance_proc() commits per partition set: not in the block's transaction
	{
		my ($rc, $out, $err) = $node{a}->psql('app', q{BEGIN;
			LOCK TABLE hits IN SHARE ROW EXCLUSIVE MODE;
			UPDATE partman.part_config SET automatic_maintenance = 'on' WHERE parent_table = 'public.hits';
			CALL partman.run_maintenance_proc();
			COMMIT;});
		like($err, qr/ERROR:  invalid transaction termination/,
			'run_maintenance_proc() in a transaction block fails: invalid transaction termination, as the page says');
		is($q->('a', q{SELECT automatic_maintenance FROM partman.part_config WHERE parent_table = 'public.hits'}),
			'off', '... and its transaction is rolled back');
	}

	my $a_before = partitions('a');
	$q->($_, q{UPDATE partman.part_config SET premake = 10 WHERE parent_table = 'public.hits'}) foreach qw(a b);
	$q->('a', $partman >= 5 ? 'CALL partman.run_maintenance_proc()' : 'SELECT partman.run_maintenance()');
	is(partitions('a'), $a_before, "what pg_partman_bgw runs leaves hits alone (automatic_maintenance off)");

	# pg_cron 1.4 takes cron's fields only: the next minute at the soonest
	my $cron = $qp->('a', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'});
	my $soon = $cron =~ /^1\.[0-4]\b/ ? '* * * * *' : '2 seconds';
	my $alter = q{SELECT cron.alter_job(jobid, schedule => '%s') FROM cron.job WHERE jobname = 'hits-maintenance'};
	my $t0 = time();
	$qp->('a', sprintf($alter, $soon));

	# b, meanwhile: the crontab line's command, the block in a file of the test
	my $file = $node{b}->basedir . '/hits-maintenance.sql';
	append_to_file($file, recipe('time-windows/maintenance'));
	my ($line) = grep { /\S/ && !/^#/ } split /\n/,
	  recipe('time-windows/crontab', { '/etc/postgresql/hits-maintenance.sql' => $file });
	my $cmd = (split ' ', $line, 6)[5];
	my %b_before = map { ($_ => 1) } split /,/, partitions('b');
	my ($out, $err) = ('', '');
	{
		local $ENV{PGHOST} = $node{b}->host;
		local $ENV{PGPORT} = $node{b}->port;
		ok(IPC::Run::run([ 'sh', '-c', $cmd ], '<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(60)),
			"b: the crontab line's command runs: $cmd");
	}
	is("$out$err", '', "b: the crontab line's command prints nothing");
	my @new = grep { !$b_before{$_} } split /,/, partitions('b');
	is(scalar(@new), 2, "b: the crontab line's block made two partitions with premake 10: @new");
	newest_is('b', $partman >= 5 ? 16 : 10 + $ahead, 'crontab line');
	check_partition_triggers('b', 'crontab line');
	is(health('b'), '', "crontab line: counter_crdt_health() on b reports nothing");

	# a: the job's first run, as the page's check block shows it
	my $runs = '';
	while (time() < $t0 + 75)
	{
		$runs = $qp->('a', recipe('time-windows/pg_cron-runs'));
		last if $runs =~ /^(succeeded|failed)\|/;
		usleep(250_000);
	}
	$qp->('a', sprintf($alter, '*/10 * * * *'));
	note(sprintf('the pg_cron job (pg_cron %s, schedule %s) ran %.1fs after it was brought forward', $cron, $soon, time() - $t0));
	like($runs, qr/^succeeded\|SELECT 1\|/, 'a: cron.job_run_details shows the job succeeded');
	my %a_before = map { ($_ => 1) } split /,/, $a_before;
	@new = grep { !$a_before{$_} } split /,/, partitions('a');
	is(scalar(@new), 1, "a: the pg_cron job made one partition with premake 10: @new");
	newest_is('a', $partman >= 5 ? 16 : 10 + $ahead, 'pg_cron job');
	check_partition_triggers('a', 'pg_cron job');
	is(health('a'), '', "pg_cron job: counter_crdt_health() on a reports nothing");
}

# no error in the servers' logs but those the test caused (and the
# run_maintenance_proc() of section 7 on a): the held-back
# rows stop the apply worker, and the one started next may find the
# replication origin still held by the one that is exiting (it then retries)
foreach my $s (@names)
{
	my @errors = grep {
		!/ERROR:  (hits has no partition for minute|no partition of relation "hits" found for row|minute .* of hits is past its retention|cannot truncate table|invalid transaction termination|replication origin with ID \d+ is already active for PID \d+)/
	} grep { /ERROR:/ } split /\n/, slurp_file($node{$s}->logfile);
	is(join("\n", @errors), '', "no other errors in the log of $s");
}

done_testing();
